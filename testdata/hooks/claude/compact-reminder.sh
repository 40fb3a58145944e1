#!/bin/bash
# SessionStart (matcher compact): remind the model of the house rules after
# a compaction, in plain stdout. Written the way a published
# post-compaction reminder is (see README.md).
cat > /dev/null
echo "Reminder after compaction: run make test before you finish."
