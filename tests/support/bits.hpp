// Bitwise comparison and printing of elements: the tests claim bit-for-bit equality
// where every order of the arithmetic gives the same bits (signed zeros and float16
// patterns included), so they compare object representations, never with ==.
#pragma once

#include <tally/half.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_test {

/// The same object representation (so -0.0 differs from +0.0, and a NaN equals itself).
template <class T>
bool same_bits(const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T>, "same_bits compares object representations");
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Same size and every element the same bits.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// The index of the first element whose bits differ, or a.size() when none does (b must
/// be at least as long as a).
template <class T>
std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return i;
  return a.size();
}

/// An element's bits as an unsigned number (elements of 1 to 8 bytes), for messages.
template <class T>
std::uint64_t bits_of(const T& x) {
  static_assert(sizeof(T) <= 8, "bits_of takes elements of up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof(T));  // the low bytes on a little-endian host
  return bits;
}

/// An element for a failure message: its value, and its exact form where the decimal one
/// can hide a difference ("0.5 (0x1p-1)", a float16's bits, an integer as a number).
template <class T>
std::string describe(T x) {
  std::ostringstream s;
  if constexpr (std::is_same_v<T, tally::half>)
    s << static_cast<float>(x) << " (bits 0x" << std::hex << x.bits << ")";
  else if constexpr (std::is_floating_point_v<T>)
    s << x << " (" << std::hexfloat << x << ")";
  else
    s << +x;
  return s.str();
}

}  // namespace tally_test
