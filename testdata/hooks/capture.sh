#!/bin/sh
# Any event: keep the JSON input and the session variables for the test to read.
cat > "$TRAIL_PROJECT_DIR/captured-$1.json"
env | grep -E '^(TRAIL|CLAUDE)_(SESSION_ID|PROJECT_DIR)=' | sort > "$TRAIL_PROJECT_DIR/captured-$1.env"
