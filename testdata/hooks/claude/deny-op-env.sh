#!/bin/bash
# PreToolUse (matcher Read): deny reading *.env.op files with a JSON
# decision at exit 0. Written the way a published block-op-env hook is
# (see README.md): jq -n builds hookSpecificOutput.permissionDecision.
file=$(jq -r '.tool_input.file_path // empty')
if [[ "$file" == *.env.op ]]; then
  jq -n --arg f "$file" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: ("1Password references stay out: " + $f)}}'
fi
exit 0
