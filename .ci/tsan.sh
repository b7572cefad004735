#!/usr/bin/env bash
# ThreadSanitizer over the threaded tests. Builds, with clang++ -fsanitize=thread in its
# own build directory, every tests/test_*.cpp whose name contains "thread" or "random"
# (today test_threads_and_chunks and test_randomized: the tests that run scans on 2+
# threads, through std::thread and through a host parallel_for hook) and runs them with
# ctest under the native SIMD variant only (TSan checks the threading, which is the same
# for every variant; the other variants are covered by the ASan/UBSan suite).
#
#   .ci/tsan.sh            environment: BUILD_DIR (default build-tsan), CXX_TSAN (clang++)
set -euo pipefail

cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-tsan}"
cxx="${CXX_TSAN:-clang++}"
command -v "$cxx" >/dev/null || { echo "tsan.sh: $cxx not found (apt-get install clang)" >&2; exit 2; }

# Coordinate with the other test authors by globbing rather than by a fixed list.
targets=()
for source in tests/test_*.cpp; do
  name=$(basename "$source" .cpp)
  case "$name" in *thread*|*random*) targets+=("$name") ;; esac
done
if [ "${#targets[@]}" -eq 0 ]; then
  echo "tsan.sh: no tests/test_*thread*/test_*random* sources" >&2
  exit 1
fi
echo "tsan.sh: targets: ${targets[*]}"

source .ci/generator.sh
pick_generator "$build" .
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DTALLY_BUILD_EXAMPLES=OFF -DTALLY_INSTALL=OFF -DTALLY_TEST_SIMD_VARIANTS=native >/dev/null
cmake --build "$build" -j "${TALLY_TSAN_JOBS:-2}" --target "${targets[@]}"

regex="^($(IFS='|'; echo "${targets[*]}"))\\.native\$"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export TALLY_SIMD=native
# clang 14's TSan cannot map its shadow memory under the high ASLR entropy of recent
# kernels ("unexpected memory mapping"); running without ASLR avoids that.
launcher=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  launcher=(setarch "$(uname -m)" -R)
fi
"${launcher[@]}" ctest --test-dir "$build" -R "$regex" --output-on-failure --no-tests=error
