#!/bin/sh
# UserPromptSubmit: refuse prompts that mention a secret.
if grep -q secret; then
  echo "prompt refused: no secrets" >&2
  exit 2
fi
exit 0
