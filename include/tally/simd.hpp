/// @file
/// @brief Which SIMD variant of the kernels runs, and how to cap it.
#pragma once

#include "detail/cpu.hpp"

TALLY_BEGIN_NAMESPACE

/// The kernel variants, in increasing order of capability.
enum class simd_variant : unsigned {
  scalar = 0,  ///< portable C++ (the only variant off x86-64)
  avx2 = 1,    ///< x86-64 with AVX2 and F16C
  avx512 = 2,  ///< x86-64 with AVX-512 F, BW, DQ and VL
};

/// "scalar", "avx2" or "avx512".
constexpr const char* to_string(simd_variant v) noexcept {
  switch (v) {
    case simd_variant::avx2: return "avx2";
    case simd_variant::avx512: return "avx512";
    default: return "scalar";
  }
}

/// The variant every call in this process uses: the best the CPU and OS support, capped by
/// the environment variable TALLY_SIMD (scalar, avx2 or avx512) read once, at first use.
inline simd_variant active_simd_variant() noexcept {
  return static_cast<simd_variant>(detail::active_simd_level());
}

TALLY_END_NAMESPACE
