// The neon target (64-bit Arm, Advanced SIMD): its vectors, the generic kernels compiled
// for it, and its entry in the kernel tables. Compiled only where TALLY_ARM_NEON is set;
// elsewhere this header is empty and the target's tables stay null.
#pragma once

#include "../../config.hpp"

#if TALLY_ARM_NEON
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../scalar/kernels.hpp"

TALLY_SIMD_WARNINGS_BEGIN
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
TALLY_SIMD_WARNINGS_END

#endif  // TALLY_ARM_NEON
