#!/usr/bin/env bash
# Builds tally's examples and runs each with sensible inputs (installs the compiler and
# CMake if missing): the streaming example on a generated file, checked against one
# in-memory call (--verify); the MPI example on 2 processes when MPI was found (else
# skipped with a note). Exits non-zero if any example fails. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh examples
build=build/examples
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
bin="$build/examples"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  echo "=== $*"
  "$@"
  echo
}

run "$bin/example_reference_examples"
run "$bin/example_typed_views"
run "$bin/example_streaming" --type float32 --generate 1000003 --verify "$work/in.f32" "$work/out.f32"
run "$bin/example_streaming" --type int64 --chunk 1000 --generate 100001 --verify "$work/in.i64" "$work/out.i64"

mpi_program="$bin/mpi/example_mpi_scan"
if [ -x "$mpi_program" ] && command -v mpiexec >/dev/null; then
  # Root is allowed (containers), and the shared-memory single-copy path needs ptrace
  # rights that containers often lack.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
    run mpiexec -n 2 --oversubscribe "$mpi_program"
else
  echo "=== example_mpi_scan: skipped (MPI not found; Debian: apt-get install libopenmpi-dev openmpi-bin)"
fi
echo "All examples passed."
