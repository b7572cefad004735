// The one list of kernel targets, best first. Everything that enumerates targets expands
// it: the public simd_variant and its names (simd.hpp), the TALLY_SIMD cap and the
// run-time choice (dispatch/active_target.hpp), and the kernel tables
// (dispatch/kernel_table.hpp). Each entry is X(name, value, usable): `value` is the
// simd_variant's stable number, `usable` an expression over `cpu` (a cpu_features) that
// is true when this build has the target and the running CPU and OS support it.
//
// Adding a target (say SVE) is one entry here plus one folder kernels/<name>/ whose
// target.hpp specializes target_kernels<simd_variant::name> (and, if it needs a new CPU
// feature bit, that bit in dispatch/cpu.hpp). Targets of different architectures share
// the list: at most one architecture's entries are ever usable in a build (neon needs no
// CPU bit, since every 64-bit Arm CPU has Advanced SIMD).
#pragma once

#include "config.hpp"

#define TALLY_SIMD_TARGETS(X)                        \
  X(avx512, 2, TALLY_X86_SIMD && cpu.avx512)         \
  X(avx2, 1, TALLY_X86_SIMD && cpu.avx2)             \
  X(neon, 3, TALLY_ARM_NEON)                         \
  X(scalar, 0, true)
