#!/bin/sh
# PreToolUse: replace the command the model asked for, and allow it.
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'
