#!/bin/sh
# PreToolUse: deny the call with a reason (JSON answer on stdout).
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'
