/// @file
/// @brief Compiles tally's built-in kernels in this translation unit: include it in
/// exactly one source file of a program whose other files define TALLY_SEPARATE_KERNELS
/// (docs/compile-time.md). It may itself be compiled with or without that macro.
#pragma once

#include "detail/precompiled.hpp"
#include "tally.hpp"

/// One explicit instantiation definition of the SIMD engine (undefined again below).
#define TALLY_DEFINE_SIMD_ENGINE(Op, T) TALLY_SIMD_ENGINE_INSTANCE(template, Op, T)
/// One explicit instantiation definition of the exact mode's engine (undefined below).
#define TALLY_DEFINE_EXACT(Op) TALLY_EXACT_INSTANCE(template, Op)
TALLY_FOR_EACH_SIMD_ENGINE_TYPE(TALLY_DEFINE_SIMD_ENGINE)
TALLY_FOR_EACH_EXACT_OP(TALLY_DEFINE_EXACT)
#undef TALLY_DEFINE_SIMD_ENGINE
#undef TALLY_DEFINE_EXACT
