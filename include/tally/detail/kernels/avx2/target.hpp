// The avx2 target: its vectors, the generic kernels compiled for it, and its entry in
// the kernel tables.
#pragma once

#include "../../config.hpp"

#if TALLY_X86_SIMD
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../scalar/kernels.hpp"

TALLY_SIMD_WARNINGS_BEGIN
#include "vectors.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace avx2 {
#define TALLY_SIMD_TARGET TALLY_TARGET_AVX2
#include "../generic.hpp"
#undef TALLY_SIMD_TARGET
}  // namespace avx2

TALLY_REGISTER_TARGET_KERNELS(avx2)

}  // namespace detail
TALLY_END_NAMESPACE
TALLY_SIMD_WARNINGS_END

#endif  // TALLY_X86_SIMD
