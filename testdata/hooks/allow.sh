#!/bin/sh
# PreToolUse: allow the call without asking (JSON answer on stdout).
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted by the hook"}}'
