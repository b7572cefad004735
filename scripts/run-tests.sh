#!/usr/bin/env bash
# Builds and runs tally's whole test suite (installs what is missing from Debian first):
#   1. GCC, warnings as errors, optimized with assertions, every SIMD variant;
#   2. Clang with AddressSanitizer + UndefinedBehaviorSanitizer, every SIMD variant; not the
#      tests that check the packaging and the documentation, which depend on no build flag
#      (labels packaging, docs: the first configuration runs them).
# Options: --quick runs only the first configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh tests
jobs=$(nproc)

# Microsoft's DirectML.h, when the shared third-party folder sits beside the repository
# (as in CI): the DirectML.h tests compile against it (tests/cmake/directml_h.cmake).
shared_directml=../shared/third_party/DirectX-Headers/include/directx
if [ -z "${TALLY_DIRECTML_INCLUDE_DIR:-}" ] && [ -f "$shared_directml/DirectML.h" ]; then
  TALLY_DIRECTML_INCLUDE_DIR=$(cd "$shared_directml" && pwd)
  export TALLY_DIRECTML_INCLUDE_DIR
fi

# configure_and_test DIR SKIPPED_LABELS CMAKE_ARGS...: SKIPPED_LABELS a ctest -LE regex, or "".
configure_and_test() {
  local dir=$1 skipped=$2; shift 2
  echo "=== $dir: $*"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" ${skipped:+-LE "$skipped"})
}

configure_and_test build/gcc "" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DTALLY_BUILD_EXAMPLES=ON

if [ "${1:-}" != "--quick" ]; then
  configure_and_test build/asan '^(packaging|docs)$' -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    -DTALLY_BUILD_EXAMPLES=ON
fi
echo "All test configurations passed."
