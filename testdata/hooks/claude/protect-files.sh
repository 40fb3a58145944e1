#!/bin/bash
# PreToolUse (matcher Edit|Write): refuse changes to protected files.
# Written the way published protect-files hooks are (see README.md): the
# path comes from .tool_input.file_path with jq, a substring test against a
# list, exit 2 with the reason on stderr.
payload=$(cat)
target=$(printf '%s' "$payload" | jq -r '.tool_input.file_path // empty')
for guarded in ".env" "package-lock.json" ".git/"; do
  case "$target" in
    *"$guarded"*)
      echo "Refused: $target is protected ($guarded)" >&2
      exit 2
      ;;
  esac
done
exit 0
