/// @file
/// @brief `tally::bfloat16`: bfloat16 storage (the top 16 bits of a float32) with
/// round-to-nearest-even conversions.
#pragma once

#include <cstdint>
#include <cstring>

#include "version.hpp"

TALLY_BEGIN_NAMESPACE

/// bfloat16 as stored in memory: the sign, the 8 exponent bits and the top 7 fraction
/// bits of a float32. No arithmetic of its own: tally accumulates it in float32 and
/// rounds on every write (like tally::half). Conversions are explicit.
struct bfloat16 {
  std::uint16_t bits = 0;  ///< the upper half of the float32 bit pattern

  bfloat16() noexcept = default;
  /// Rounds to nearest, ties to even; a NaN stays a (quiet) NaN of the same sign.
  explicit bfloat16(float value) noexcept : bits(from_float_bits(value)) {}
  /// Exact: every bfloat16 value is a float.
  explicit operator float() const noexcept {
    const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &f, sizeof value);
    return value;
  }

  /// The bfloat16 with these bits.
  static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
    bfloat16 h;
    h.bits = b;
    return h;
  }

  /// Bits equality (+0 != -0; NaN == NaN of the same bits).
  friend constexpr bool operator==(bfloat16 a, bfloat16 b) noexcept { return a.bits == b.bits; }
  /// The negation of operator==.
  friend constexpr bool operator!=(bfloat16 a, bfloat16 b) noexcept { return a.bits != b.bits; }

  /// float -> bfloat16 bits. Adding 0x7fff plus the lowest kept bit to the dropped half
  /// rounds to nearest even and lets a carry bump the exponent (up to infinity); a NaN
  /// must not round (a payload in the dropped bits only could carry into infinity), so it
  /// is truncated with the quiet bit set.
  static std::uint16_t from_float_bits(float value) noexcept {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((f >> 16) | 0x0040u);
    const std::uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
    return static_cast<std::uint16_t>((f + rounding) >> 16);
  }
};

static_assert(sizeof(bfloat16) == 2, "bfloat16 must be exactly 16 bits");

TALLY_END_NAMESPACE
