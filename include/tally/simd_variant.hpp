/// @file
/// @brief The SIMD variants of the kernels and their names, generated from the one
/// target list (detail/targets.hpp).
#pragma once

#include "detail/targets.hpp"

TALLY_BEGIN_NAMESPACE

/// The kernel variants (see detail/targets.hpp for the list, best first): `scalar` is
/// portable C++ (the only variant off x86-64 and aarch64), `avx2` is x86-64 with AVX2 and
/// F16C, `avx512` is x86-64 with AVX-512 F, BW, DQ and VL, `neon` is aarch64's Advanced
/// SIMD. The values are stable.
enum class simd_variant : unsigned {
/// @cond
#define TALLY_VARIANT_ENUMERATOR(name, value, usable) name = value,
  TALLY_SIMD_TARGETS(TALLY_VARIANT_ENUMERATOR)
#undef TALLY_VARIANT_ENUMERATOR
  /// @endcond
};

/// The variant's name: "scalar", "avx2", "avx512", "neon", ...
constexpr const char* to_string(simd_variant v) noexcept {
  switch (v) {
/// @cond
#define TALLY_VARIANT_NAME(name, value, usable) \
  case simd_variant::name:                      \
    return #name;
    TALLY_SIMD_TARGETS(TALLY_VARIANT_NAME)
#undef TALLY_VARIANT_NAME
    /// @endcond
  }
  return "invalid";
}

TALLY_END_NAMESPACE
