#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++, -fsanitize=fuzzer,address,undefined,
# -fno-sanitize-recover=all) and runs each for a bounded time on a copy of its seed
# corpus. Fails (non-zero) on any finding: a crash, a sanitizer report, a property
# violation, a leak, a timeout or an out-of-memory. Prints the executions per target.
#
#   .ci/fuzz.sh [seconds-per-target]      (default: $TALLY_FUZZ_SECONDS or 60)
#
# Environment: BUILD_DIR (default build-fuzz), CXX_FUZZ (default clang++),
# TALLY_FUZZ_JOBS (parallel builds, default 2). Crash inputs are left in
# $BUILD_DIR/findings/<target>/ (minimise with `<target> -minimize_crash=1 FILE`).
# An existing $BUILD_DIR is reused with the generator it was configured with (Ninja or
# Makefiles alike); a new one gets Ninja when it is installed.
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-${TALLY_FUZZ_SECONDS:-60}}"
build="${BUILD_DIR:-build-fuzz}"
cxx="${CXX_FUZZ:-clang++}"

command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (apt-get install clang)" >&2; exit 2; }

source .ci/generator.sh
pick_generator "$build" tests/fuzz

cmake -S tests/fuzz -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "${TALLY_FUZZ_JOBS:-2}"

status=0
for target in fuzz_descriptor fuzz_typed fuzz_vocabulary; do
  corpus="$build/corpus/${target#fuzz_}"
  findings="$build/findings/$target"
  rm -rf "$corpus" "$findings"
  mkdir -p "$corpus" "$findings"
  cp tests/fuzz/corpus/"${target#fuzz_}"/* "$corpus"/
  # tests/fuzz/regressions/<name>/ holds inputs that once found a bug: libFuzzer runs them
  # first as a second (read-only) corpus directory.
  extra=()
  [ -d "tests/fuzz/regressions/${target#fuzz_}" ] && extra=("tests/fuzz/regressions/${target#fuzz_}")
  log="$build/$target.log"
  echo "== $target: ${seconds}s on a copy of tests/fuzz/corpus/${target#fuzz_}"
  set +e
  # -timeout: a single input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a runaway.
  "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "${extra[@]}" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)
  echo "$target: exit $rc, executions ${runs:-unknown}, corpus $(ls "$corpus" | wc -l) inputs"
  if [ "$rc" -ne 0 ] || ls "$findings" | grep -q .; then
    echo "$target: FINDING (inputs in $findings):" >&2
    grep -E 'FUZZ PROPERTY|ERROR|SUMMARY|runtime error|differs|says' "$log" | head -20 >&2 || true
    tail -40 "$log" >&2
    status=1
  fi
done
exit $status
