#!/bin/sh
# One command for the benchmark suite: configure a Release build with the benchmarks in
# build-bench/, build tally_bench, run it through report.py (Markdown tables on stdout,
# charts in docs/benchmarks.png and docs/benchmarks-sweep.png). Extra arguments go to
# report.py, e.g.
#   benchmarks/run.sh --filter '^B[13][/@]' --repetitions 3   # B1 and B3, both buffer kinds
#   benchmarks/run.sh --filter '^sweep'                        # the shape sweep only
#   benchmarks/run.sh --filter '^small'                        # the small-call table only
#   benchmarks/run.sh --save-json build-bench/run.json
#   benchmarks/run.sh --accuracy                               # the accuracy table only
# An unfiltered run also builds tally_bench_accuracy and prints its accuracy table (issue 13:
# max ulp of each cumsum scheme against an exact running sum) after the speed tables; a run
# with --filter prints the speed tables only.
# Run it on a quiet machine: the targets are ratios, but noise still moves them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-bench"

accuracy=yes
for arg in "$@"; do
  case $arg in
    --filter|--filter=*|-h|--help) accuracy=no ;;
    --accuracy) accuracy=only; break ;;
  esac
done

configure() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTALLY_BUILD_BENCHMARKS=ON \
        -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_EXAMPLES=OFF >&2
}

# The accuracy table alone: no speed run, no charts, no matplotlib.
if [ "$accuracy" = only ]; then
  if [ "$#" -ne 1 ]; then
    echo "run.sh: --accuracy takes no other arguments" >&2
    exit 2
  fi
  configure
  cmake --build "$build" --target tally_bench_accuracy -j2 >&2
  exec "$build/benchmarks/tally_bench_accuracy"
fi

# Debian's python3-matplotlib lives in /usr/bin/python3's path; prefer it when present.
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3

# apt_install PACKAGE WHAT: install a missing Debian package for WHAT (sudo only when not
# root; apt-get update only when the first try fails). Without apt-get or network it says
# so and goes on: what needs the package is skipped, the rest still runs.
apt_install() {
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "run.sh: installing $1 for $2" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >&2 ||
      { $sudo apt-get update >&2 &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >&2; } ||
      echo "run.sh: could not install $1; $2 will be skipped" >&2
  else
    echo "run.sh: $1 is missing and there is no apt-get; $2 will be skipped" >&2
  fi
}

# The charts need matplotlib. Without it the tables are still printed.
if ! "$python" -c 'import matplotlib' 2>/dev/null; then
  apt_install python3-matplotlib "the charts"
fi
# tally_bench_vocabulary times PyTorch's CPU kernels beside tally's where CMake finds
# libtorch (benchmarks/CMakeLists.txt): on Debian, libtorch-dev (some 200 packages the first
# time). Without it those rows are skipped with a note in the run's context.
if command -v dpkg-query >/dev/null 2>&1 &&
   ! dpkg-query -W -f='${Status}' libtorch-dev 2>/dev/null | grep -q 'ok installed'; then
  apt_install libtorch-dev "the PyTorch rows of tally_bench_vocabulary"
fi

configure
if [ "$accuracy" = yes ]; then
  cmake --build "$build" --target tally_bench tally_bench_vocabulary tally_bench_accuracy -j2 >&2
else
  cmake --build "$build" --target tally_bench tally_bench_vocabulary -j2 >&2
fi
# The vocabulary's rows (cummax, logcumsumexp, nancumsum, wider outputs, segmented, user
# operators) are in their own binary: build-bench/benchmarks/tally_bench_vocabulary.
if [ "$accuracy" != yes ]; then
  exec "$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench" "$@"
fi
# The speed tables, then the accuracy table; the exit status is report.py's if it failed,
# else the accuracy program's (non-zero: threads = 2 differed from threads = 1, or a
# variant's run failed).
status=0
"$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench" "$@" || status=$?
echo
"$build/benchmarks/tally_bench_accuracy" || accuracy_status=$?
[ "$status" -ne 0 ] || status=${accuracy_status:-0}
exit "$status"
