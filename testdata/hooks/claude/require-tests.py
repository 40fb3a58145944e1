#!/usr/bin/env python3
"""Stop: block stopping until the transcript shows a test run.

Written the way hookify's Stop rules of anthropics/claude-code read the
transcript (see README.md): the whole transcript_path file as text, a
regular expression over it, and on a miss a JSON decision block with a
reason and a systemMessage; always exit 0.
"""
import json
import re
import sys

data = json.load(sys.stdin)
try:
    with open(data["transcript_path"]) as f:
        transcript = f.read()
except OSError:
    transcript = ""
if not re.search(r"go test|npm test|pytest", transcript):
    print(json.dumps({
        "decision": "block",
        "reason": "Run the tests before you stop.",
        "systemMessage": "require-tests: no test run in the transcript",
    }))
