#!/bin/sh
# Any event: hang far past any test's patience; the timeout must kill it.
cat >/dev/null
sleep 30
echo "too late" > "$TRAIL_PROJECT_DIR/slow-finished"
