#!/bin/sh
# Stop: send the model back to work once; let it stop the second time.
if grep -q '"stop_hook_active":false'; then
  echo "run the tests first" >&2
  exit 2
fi
exit 0
