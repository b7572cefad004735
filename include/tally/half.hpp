/// @file
/// @brief `tally::half`: IEEE 754 binary16 storage with correctly rounded conversions.
#pragma once

#include <cstdint>
#include <cstring>

#include "version.hpp"

TALLY_BEGIN_NAMESPACE

/// IEEE 754 binary16 (float16) as stored in memory: 16 bits, no arithmetic of its own.
/// Conversions are explicit. float -> half rounds to nearest, ties to even, keeps
/// subnormals, overflows to infinity and quiets NaN, bit for bit like x86 F16C
/// (`vcvtps2ph` with round-to-nearest) so scalar and SIMD paths agree exactly.
struct half {
  std::uint16_t bits = 0;  ///< the binary16 bit pattern: sign, 5 exponent bits, 10 fraction bits

  half() noexcept = default;
  /// Rounds to nearest even.
  explicit half(float value) noexcept : bits(from_float_bits(value)) {}
  /// Exact: every binary16 value is a float.
  explicit operator float() const noexcept { return to_float(bits); }

  /// The half with these bits.
  static constexpr half from_bits(std::uint16_t b) noexcept {
    half h;
    h.bits = b;
    return h;
  }

  /// Bits equality (so +0 != -0 and NaN == NaN of the same payload); compare
  /// `float(a) == float(b)` for IEEE equality.
  friend constexpr bool operator==(half a, half b) noexcept { return a.bits == b.bits; }
  /// Bits inequality: the negation of operator==.
  friend constexpr bool operator!=(half a, half b) noexcept { return a.bits != b.bits; }

  /// float -> binary16 bits, round to nearest even.
  static std::uint16_t from_float_bits(float value) noexcept {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // Inf, or NaN: keep the top payload bits, set the quiet bit.
      if (abs == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
      return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    }
    if (abs >= 0x477ff000u)  // >= 65520: the tie above the largest half (65504) rounds up
      return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (abs < 0x38800000u) {  // below 2^-14: a subnormal half or zero
      if (abs <= 0x33000000u) return static_cast<std::uint16_t>(sign);  // <= 2^-25 rounds to 0
      const std::uint32_t exponent = abs >> 23;                         // 102..112
      const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
      const std::uint32_t shift = 126u - exponent;  // 14..24
      std::uint32_t result = mantissa >> shift;
      const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
      const std::uint32_t halfway = 1u << (shift - 1u);
      if (rest > halfway || (rest == halfway && (result & 1u))) ++result;
      return static_cast<std::uint16_t>(sign | result);
    }
    // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits; a carry
    // out of the mantissa correctly bumps the exponent.
    std::uint32_t result = (abs - 0x38000000u) >> 13;
    const std::uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
    return static_cast<std::uint16_t>(sign | result);
  }

  /// binary16 bits -> float, exact (a signalling NaN comes back quiet, as with F16C).
  static float to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t f;
    if (exponent == 0x1fu) {
      f = sign | 0x7f800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u);
    } else if (exponent != 0) {
      f = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
      f = sign;
    } else {  // subnormal: shift the leading 1 up to the implicit position
      std::uint32_t e = 113;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --e;
      }
      f = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float value;
    std::memcpy(&value, &f, sizeof value);
    return value;
  }
};

static_assert(sizeof(half) == 2, "half must be exactly 16 bits");

TALLY_END_NAMESPACE
