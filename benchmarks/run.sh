#!/bin/sh
# One command for the benchmark suite: configure a Release build with the benchmarks in
# build-bench/, build tally_bench, run it through report.py (Markdown table on stdout,
# chart in docs/benchmarks.png). Extra arguments go to report.py, e.g.
#   benchmarks/run.sh --filter 'B[13]/' --repetitions 3
#   benchmarks/run.sh --save-json build-bench/run.json
# Run it on a quiet machine: the targets are ratios, but noise still moves them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTALLY_BUILD_BENCHMARKS=ON \
      -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_EXAMPLES=OFF >&2
cmake --build "$build" --target tally_bench tally_bench_vocabulary -j2 >&2
# The vocabulary's rows (cummax, logcumsumexp, nancumsum, wider outputs, segmented, user
# operators) are in their own binary: build-bench/benchmarks/tally_bench_vocabulary.
# Debian's python3-matplotlib lives in /usr/bin/python3's path; prefer it when present.
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
exec "$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench" "$@"
