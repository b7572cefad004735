// The neon target (64-bit Arm, Advanced SIMD): its vectors, the generic kernels compiled
// for it, and its entry in the kernel tables. Compiled only where TALLY_ARM_NEON is set;
// elsewhere this header is empty and the target's tables stay null. (No
// TALLY_SIMD_WARNINGS_BEGIN: GCC's false positive is about x86 intrinsics; the NEON
// kernels build warning-free without it.)
#pragma once

#include "../../config.hpp"

#if TALLY_ARM_NEON
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../scalar/kernels.hpp"
#include "vectors.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace neon {
#define TALLY_SIMD_TARGET TALLY_TARGET_NEON
#include "../generic.hpp"
#undef TALLY_SIMD_TARGET
}  // namespace neon

TALLY_REGISTER_TARGET_KERNELS(neon)

}  // namespace detail
TALLY_END_NAMESPACE

#endif  // TALLY_ARM_NEON
