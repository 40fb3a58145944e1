#!/usr/bin/env bash
# demo.sh: a scripted trail session, offline, in a temporary home.
# Usage: scripts/demo.sh [path/to/trail]
set -euo pipefail

trail=${1:-bin/trail}
trail=$(cd "$(dirname "$trail")" && pwd)/$(basename "$trail")
home=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$home" "$work"' EXIT
export TRAIL_HOME=$home HOME=$work
cd "$work"

# The script provider answers each provider call of a session in turn; the
# second answer calls the Read tool, which is allowed without asking.
cat > answers.json <<'JSON'
[
  {"text": "A session is one conversation, saved as a JSON record with a JSONL event log.", "usage": {"inputTokens": 120, "outputTokens": 18}},
  {"toolCalls": [{"name": "Read", "arguments": {"filePath": "TODO.txt"}}], "usage": {"inputTokens": 160, "outputTokens": 9}},
  {"text": "TODO.txt lists two things: ship the release notes, then tag v1.0.", "usage": {"inputTokens": 210, "outputTokens": 16}},
  {"text": "Every step is appended to the log, so replay rebuilds what the model saw.", "usage": {"inputTokens": 250, "outputTokens": 15}}
]
JSON
printf 'ship the release notes\ntag v1.0\n' > TODO.txt

# Commands are shown in bold on a terminal only: piped or redirected (CI
# logs, a file), escape codes are noise. NO_COLOR turns them off too.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-}" != dumb ]; then
    bold=$'\033[1m' plain=$'\033[0m'
else
    bold='' plain=''
fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }

step "$trail" run --provider script --script answers.json --name demo "What is a trail session?"
step "$trail" resume demo "What is left in TODO.txt?"
step "$trail" resume --last -o json "And the log?"
step "$trail" list
id=$("$trail" list --jsonl | head -n1 | sed 's/.*"shortId":"\([^"]*\)".*/\1/')
step "$trail" replay "$id" --format text
step "$trail" validate-log "$id"
printf '\nThe session %s lives in a temporary home, removed on exit.\n' "$id"
