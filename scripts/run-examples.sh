#!/usr/bin/env bash
# Builds tally's examples and runs them (installs the compiler and CMake if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh examples
cmake -S . -B build/examples -DCMAKE_BUILD_TYPE=Release -DTALLY_BUILD_TESTS=OFF >/dev/null
cmake --build build/examples -j"$(nproc)"
for example in build/examples/examples/example_*; do
  [ -x "$example" ] || continue
  echo "=== $(basename "$example")"
  "$example"
  echo
done
