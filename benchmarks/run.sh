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
#   benchmarks/run.sh --vocabulary [--filter '^V2']            # the vocabulary's rows only
# An unfiltered run also runs tally_bench_vocabulary (issue 14: the vocabulary's rows, with
# PyTorch's where libtorch is installed; chart docs/benchmarks-vocabulary.png) and
# tally_bench_accuracy (issue 13: max ulp of each cumsum scheme against an exact running
# sum) after the speed tables; a run with --filter prints tally_bench's tables only.
# Run it on a quiet machine: the targets are ratios, but noise still moves them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-bench"

mode=all
for arg in "$@"; do
  case $arg in
    --accuracy) mode=accuracy; break ;;
    --vocabulary) mode=vocabulary; break ;;
    --filter|--filter=*|-h|--help) mode=filtered ;;
  esac
done

configure() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTALLY_BUILD_BENCHMARKS=ON \
        -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_EXAMPLES=OFF >&2
}

# The accuracy table alone: no speed run, no charts, no matplotlib.
if [ "$mode" = accuracy ]; then
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
# The vocabulary's rows alone: tally_bench_vocabulary through report.py (its arguments but
# --vocabulary).
if [ "$mode" = vocabulary ]; then
  cmake --build "$build" --target tally_bench_vocabulary -j2 >&2
  for arg do
    shift
    [ "$arg" = --vocabulary ] || set -- "$@" "$arg"
  done
  exec "$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench_vocabulary" "$@"
fi
if [ "$mode" = all ]; then
  cmake --build "$build" --target tally_bench tally_bench_vocabulary tally_bench_accuracy -j2 >&2
else
  cmake --build "$build" --target tally_bench tally_bench_vocabulary -j2 >&2
fi
if [ "$mode" = filtered ]; then
  exec "$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench" "$@"
fi
# The speed tables, the vocabulary's rows, then the accuracy table; the exit status is the
# first report.py's that failed, else the accuracy program's (non-zero: threads = 2
# differed from threads = 1, or a variant's run failed).
status=0
"$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench" "$@" || status=$?
echo
"$python" "$root/benchmarks/report.py" "$build/benchmarks/tally_bench_vocabulary" "$@" ||
  { vocabulary_status=$?; [ "$status" -ne 0 ] || status=$vocabulary_status; }
echo
"$build/benchmarks/tally_bench_accuracy" || accuracy_status=$?
[ "$status" -ne 0 ] || status=${accuracy_status:-0}
exit "$status"
