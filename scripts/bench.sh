#!/usr/bin/env bash
# bench.sh: the SPEC 9 numbers, as Go benchmarks.
#   CLI (root package): --version, run/resume with the echo provider,
#     resume of a 10,000-message session, providers against a local server.
#   store: list over 10,000 records of 200 KB and of tiny ones, load+save.
#   logfmt: 100,000 log appends.
#   validate-log / replay throughput and memory, where present.
# The big fixtures (2 GB for list, 1 GB logs) are built in temp folders and
# removed; set TRAIL_BENCH_LARGE=0 to skip them.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRAIL_BENCH_LARGE=${TRAIL_BENCH_LARGE:-1}
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1x}" -timeout 60m ./... "$@"
