#!/bin/bash
# Stop: keep the model working until its last answer holds the promise
# <promise>DONE</promise>, at most max_iterations times (state in
# .claude/loop.local). Written the way the ralph-wiggum Stop hook of
# anthropics/claude-code is (see README.md): .transcript_path from the
# input, the last line holding "role":"assistant", its text blocks joined
# with jq, and a JSON decision block with a reason and a systemMessage.
set -euo pipefail
input=$(cat)
state=".claude/loop.local"
[[ -f "$state" ]] || exit 0
iteration=$(sed -n 's/^iteration: *//p' "$state")
max=$(sed -n 's/^max_iterations: *//p' "$state")
if [[ $iteration -ge $max ]]; then
  rm "$state"
  exit 0
fi
transcript=$(printf '%s' "$input" | jq -r '.transcript_path')
if [[ ! -f "$transcript" ]] || ! grep -q '"role":"assistant"' "$transcript"; then
  echo "no assistant message in $transcript" >&2
  rm "$state"
  exit 0
fi
last=$(grep '"role":"assistant"' "$transcript" | tail -n 1)
text=$(printf '%s' "$last" | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")')
if [[ "$text" == *"<promise>DONE</promise>"* ]]; then
  rm "$state"
  exit 0
fi
next=$((iteration + 1))
sed -i "s/^iteration: .*/iteration: $next/" "$state"
jq -n --arg reason "keep going: iteration $next, last said: $text" --arg msg "loop iteration $next" \
  '{decision: "block", reason: $reason, systemMessage: $msg}'
