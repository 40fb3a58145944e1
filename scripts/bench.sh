#!/usr/bin/env bash
# bench.sh: the SPEC 9 numbers, as Go benchmarks, grouped by what they need.
#
#   trail --version                          BenchmarkVersion            < 5 ms
#   trail --version vs a Go hello-world      BenchmarkVersionVsHelloWorld x-hello <= 1.5 (both release builds)
#   trail run --provider echo                BenchmarkRunEcho            < 15 ms
#   trail run against a local server         BenchmarkRunAnthropicLocal  < 15 ms of CLI overhead
#   first text byte -> first stdout line     BenchmarkStreamJSONFirstDelta < 2 ms
#   resume of a 10,000-message session       BenchmarkResume10kMessages  < 50 ms
#   list over 10,000 sessions of 200 KB      BenchmarkList10kLarge       < 300 ms, <= 1.5x BenchmarkList10kTiny
#   validate-log on a 1 GB log               BenchmarkValidateLog1GB     >= 300 MB/s, peak RSS < 64 MB
#   replay on a 1 GB log                     BenchmarkReplay1GB          >= 150 MB/s
#   100,000 log appends                      logfmt BenchmarkAppend100k  < 1 s
#   a 200-round tool loop in one process     BenchmarkToolLoop200Rounds  peak RSS (peak-RSS-MB)
#   log bytes after 10, 100, 1,000 turns     BenchmarkLogBytesAfter*     linear: log-B/turn about the same
#
# The big fixtures (2 GB of records, 1 GB logs) are built in temp folders and
# removed afterwards; TRAIL_BENCH_LARGE=0 skips them.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRAIL_BENCH_LARGE=${TRAIL_BENCH_LARGE:-1}
bench() { go test -run '^$' -timeout 60m "$@" | grep -E '^(Benchmark|ok|FAIL|---)'; }

echo "== whole-process timings (each op is one trail process)"
bench -bench 'Version|RunEcho$|ResumeEcho|Resume10k|AnthropicLocal|FirstDelta' -benchtime 100x .
echo "== memory: one run whose model reads a file 200 times (peak RSS of the process)"
bench -bench 'ToolLoop200Rounds' -benchtime 3x .
echo "== log growth: log and payload bytes after 10, 100 and 1,000 turns (log-KB, log-B/turn)"
bench -bench 'LogBytesAfter' -benchtime 1x .
echo "== list over 10,000 sessions; validate-log and replay on 100 MB and 1 GB logs"
bench -bench 'List10k|ValidateLog|Replay' -benchtime 3x .
echo "== store: record heads, load and save"
bench -bench . -benchtime 5x ./store
echo "== log writer"
bench -bench . -benchmem ./logfmt
echo "== provider wire"
bench -bench . ./core/provider/...
