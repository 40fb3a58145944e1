#!/bin/sh
# PreToolUse: refuse the call. Exit 2 blocks; stderr is the reason.
cat >/dev/null
echo "rm is not allowed here" >&2
exit 2
