#!/usr/bin/env python3
"""PreToolUse (matcher Bash): refuse commands that break the house rules.

Written the way the Bash command validator example of anthropics/claude-code
is (see README.md): read the JSON input, look at tool_name and
tool_input.command, print each problem on stderr and exit 2; exit 1 when
the input is not JSON.
"""
import json
import re
import sys

RULES = [
    (r"^grep\b(?!.*\|)", "use rg instead of grep"),
    (r"^find\s+\S+\s+-name\b", "use rg --files instead of find -name"),
]


def main():
    try:
        data = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        print(f"invalid hook input: {err}", file=sys.stderr)
        sys.exit(1)
    if data.get("tool_name") != "Bash":
        sys.exit(0)
    command = data.get("tool_input", {}).get("command", "")
    problems = [why for pattern, why in RULES if re.search(pattern, command)]
    for why in problems:
        print(f"- {why}", file=sys.stderr)
    if problems:
        sys.exit(2)


if __name__ == "__main__":
    main()
