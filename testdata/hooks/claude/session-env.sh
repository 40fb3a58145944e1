#!/bin/bash
# SessionStart: export variables for the Bash commands of the session.
# Written the way published session-env hooks are (see README.md): jq
# builds an export line from the input's session_id and appends it to
# $CLAUDE_ENV_FILE, under set -euo pipefail (an unset CLAUDE_ENV_FILE fails).
set -euo pipefail
jq -r '"export HOOKED_SESSION_ID=\(.session_id)"' >> "$CLAUDE_ENV_FILE"
echo 'export HOOKED_GREETING="hello from SessionStart"' >> "$CLAUDE_ENV_FILE"
