#!/bin/sh
# UserPromptSubmit or SessionStart: plain stdout is context for the model.
cat >/dev/null
echo "remember: $1"
