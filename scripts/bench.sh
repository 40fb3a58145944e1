#!/usr/bin/env bash
# bench.sh: the SPEC 9 numbers, and each figure beside its floor measured
# the same way on the same machine, as Go benchmarks grouped by what they
# need. The CLI benchmarks run the release binary (the tests build it as
# `make build` does), so each op is one whole process.
#
#   figure                                   benchmark                       target
#   trail --version vs a Go hello-world      BenchmarkVersionVsHelloWorld    x-hello <= 1.3 (both release builds)
#   one-shot run vs curl and a Go client     BenchmarkOneShotVsFloors        x-goclient <= 1.3
#   first byte into a pipe, --stream vs curl BenchmarkStreamFirstByteVsCurl  behind-ms <= 5
#   list, 10,000 sessions vs head -c 4096    BenchmarkList10kVsHead          x-head <= 2
#   validate-log, trail-shaped log           BenchmarkValidateLog100MB       >= 300 MB/s, peak RSS < 64 MB
#   validate-log, a log of short lines       BenchmarkValidateLogShortLines100MB  >= 300 MB/s
#   replay --view transcript --format jsonl  BenchmarkReplayTranscript100MB  peak RSS near the context replay's
#   trail --version                          BenchmarkVersion                < 5 ms
#   trail run --provider echo                BenchmarkRunEcho                < 15 ms
#   trail run against a local server         BenchmarkRunAnthropicLocal      < 15 ms of CLI overhead
#   first text byte -> first stdout line     BenchmarkStreamJSONFirstDelta   < 2 ms
#   resume of a 10,000-message session       BenchmarkResume10kMessages      < 50 ms
#   list over 10,000 sessions of 200 KB      BenchmarkList10kLarge           < 300 ms, <= 1.5x BenchmarkList10kTiny
#   validate-log on a 1 GB log               BenchmarkValidateLog1GB         >= 300 MB/s, peak RSS < 64 MB
#   replay on a 1 GB log                     BenchmarkReplay1GB              >= 150 MB/s
#   100,000 log appends                      logfmt BenchmarkAppend100k      < 1 s
#   a 200-round tool loop in one process     BenchmarkToolLoop200Rounds      peak RSS (peak-RSS-MB)
#   tool loops of 1,000, 2,000, 8,000 rounds BenchmarkToolLoop*Rounds        time about linear in the rounds
#   log bytes after 10, 100, 1,000 turns     BenchmarkLogBytesAfter*         linear: log-B/turn about the same
#
# Ratios come from runs that alternate (figure, floor, figure, floor...),
# so a busy machine slows both alike; on a shared machine run it twice.
# The big fixtures (2 GB of records, 1 GB logs) are built in temp folders
# and removed afterwards; TRAIL_BENCH_LARGE=0 skips them (a few minutes in
# all), TRAIL_BENCH_FLOORS_ONLY=1 prints the floors section alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRAIL_BENCH_LARGE=${TRAIL_BENCH_LARGE:-1}
bench() { go test -run '^$' -timeout 60m "$@" | grep -E '^(Benchmark|ok|FAIL|---)'; }

echo "== each figure beside its floor (medians of alternating runs)"
bench -bench 'VersionVsHelloWorld|OneShotVsFloors|StreamFirstByteVsCurl' -benchtime 40x .
bench -bench 'List10kVsHead' -benchtime 5x .
bench -bench 'ValidateLog100MB|ValidateLogShortLines100MB|ReplayTranscript' -benchtime 3x .
[ "${TRAIL_BENCH_FLOORS_ONLY:-0}" = 1 ] && exit 0

echo "== whole-process timings (each op is one trail process)"
bench -bench 'Version$|RunEcho$|ResumeEcho|Resume10k|AnthropicLocal|FirstDelta' -benchtime 100x .
echo "== memory: one run whose model reads a file 200 times (peak RSS of the process)"
bench -bench 'ToolLoop200Rounds' -benchtime 3x .
if [ "$TRAIL_BENCH_LARGE" = 1 ]; then
	echo "== long tool loops: 1,000, 2,000 and 8,000 rounds in one step"
	bench -bench 'ToolLoop(1000|2000|8000)Rounds' -benchtime 1x .
fi
echo "== log growth: log and payload bytes after 10, 100 and 1,000 turns (log-KB, log-B/turn)"
bench -bench 'LogBytesAfter' -benchtime 1x .
echo "== list over 10,000 sessions; validate-log and replay on 1 GB logs"
bench -bench 'List10kLarge|List10kTiny|ValidateLog1GB|Replay1GB|Replay100MB' -benchtime 3x .
echo "== store: record heads, load and save"
bench -bench . -benchtime 5x ./store
echo "== log writer"
bench -bench . -benchmem ./logfmt
echo "== provider wire"
bench -bench . ./core/provider/...
