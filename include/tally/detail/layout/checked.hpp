// 64-bit unsigned arithmetic that remembers overflow instead of wrapping, so size and
// offset computations over untrusted descriptors can be checked once at the end.
#pragma once

#include <cstdint>

#include "../config.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

struct checked_u64 {
  std::uint64_t value = 0;
  /// 0 or 1. A whole word, not a bool: with a bool's seven padding bytes, GCC assembled
  /// the second word of the returned pair through memory (zeroing stores, then one 8-byte
  /// load that the store buffer cannot forward) in every tensor_view constructor
  /// (an 8x8 cumsum, two views: 94 -> 84 ns).
  std::uint64_t overflow = 0;
};

inline checked_u64 operator+(checked_u64 a, checked_u64 b) noexcept {
  checked_u64 r;
  r.overflow = a.overflow || b.overflow || add_overflows(a.value, b.value, &r.value);
  return r;
}

inline checked_u64 operator*(checked_u64 a, checked_u64 b) noexcept {
  checked_u64 r;
  r.overflow = a.overflow || b.overflow || mul_overflows(a.value, b.value, &r.value);
  return r;
}

inline checked_u64 operator/(checked_u64 a, std::uint64_t divisor) noexcept {
  return checked_u64{a.value / divisor, a.overflow};
}

}  // namespace detail
TALLY_END_NAMESPACE
