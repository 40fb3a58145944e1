#!/bin/bash
# PostToolUse (matcher Edit|Write): format the Go file that was written.
# Written the way published formatter hooks are (see README.md): the path
# from .tool_input.file_path with jq, the formatter's own output printed on
# stdout at exit 0 (which must not reach the model).
file=$(jq -r '.tool_input.file_path')
case "$file" in
  *.go)
    gofmt -l -w "$file" 2>&1
    echo "formatted $file"
    ;;
esac
exit 0
