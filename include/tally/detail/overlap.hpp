// Memory overlap between typed views, for the typed layer's "as if the input had been
// copied first" rule: stage through a temporary only when the memory really overlaps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>

#include "../view.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

struct byte_range {
  std::uintptr_t first = 0, last = 0;  // [first, last)
};

template <class T>
byte_range bytes_of(const tensor_view<T>& v) noexcept {
  std::ptrdiff_t low = 0, high = 0;
  for (std::size_t d = 0; d < v.rank(); ++d) {
    const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(v.extent(d) - 1) * v.stride(d);
    (reach < 0 ? low : high) += reach;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(v.data());
  return {base + static_cast<std::uintptr_t>(low * static_cast<std::ptrdiff_t>(sizeof(T))),
          base + static_cast<std::uintptr_t>(high * static_cast<std::ptrdiff_t>(sizeof(T))) + sizeof(T)};
}

/// True when some element of `a` may share a byte with some element of `b`. Exact for
/// disjoint ranges and for lattices offset by a non-multiple of their common stride
/// (e.g. the even and odd elements of one array); otherwise conservatively true.
template <class T, class U>
bool may_overlap(const tensor_view<T>& a, const tensor_view<U>& b) noexcept {
  if (a.empty() || b.empty()) return false;
  const byte_range ra = bytes_of(a), rb = bytes_of(b);
  if (ra.last <= rb.first || rb.last <= ra.first) return false;
  if constexpr (sizeof(T) == sizeof(U)) {
    std::uint64_t g = 0;  // every address of either view is its base plus a multiple of g elements
    for (std::size_t d = 0; d < a.rank(); ++d)
      if (a.extent(d) > 1) g = std::gcd<std::uint64_t>(g, static_cast<std::uint64_t>(std::abs(a.stride(d))));
    for (std::size_t d = 0; d < b.rank(); ++d)
      if (b.extent(d) > 1) g = std::gcd<std::uint64_t>(g, static_cast<std::uint64_t>(std::abs(b.stride(d))));
    if (g > 1) {
      const std::uint64_t modulus = g * sizeof(T);
      // The distance without wrapping (2^64 is not a multiple of every modulus); the test
      // below is symmetric, so which view lies lower does not matter.
      const auto pa = reinterpret_cast<std::uintptr_t>(a.data()), pb = reinterpret_cast<std::uintptr_t>(b.data());
      const std::uint64_t diff = (pa > pb ? pa - pb : pb - pa) % modulus;
      if (diff >= sizeof(T) && diff <= modulus - sizeof(T)) return false;
    }
  }
  return true;
}

/// Same elements at the same addresses: in-place is safe for every kernel.
template <class T, class U>
bool same_elements(const tensor_view<T>& a, const tensor_view<U>& b) noexcept {
  if (static_cast<const void*>(a.data()) != static_cast<const void*>(b.data()) || a.rank() != b.rank())
    return false;
  for (std::size_t d = 0; d < a.rank(); ++d)
    if (a.extent(d) != b.extent(d) || (a.extent(d) > 1 && a.stride(d) != b.stride(d))) return false;
  return true;
}

/// A packed copy of `v` (same shape), for staging an input that overlaps the output.
template <class T>
std::unique_ptr<T[]> packed_copy(const tensor_view<const T>& v) {
  const std::size_t count = v.size();
  std::unique_ptr<T[]> copy(new T[count]);
  std::size_t index[max_rank] = {};
  std::ptrdiff_t offset = 0;
  for (std::size_t i = 0; i < count; ++i) {
    copy[i] = v.data()[offset];
    for (std::size_t d = v.rank(); d-- > 0;) {
      offset += v.stride(d);
      if (++index[d] < v.extent(d)) break;
      offset -= static_cast<std::ptrdiff_t>(v.extent(d)) * v.stride(d);
      index[d] = 0;
    }
  }
  return copy;
}

}  // namespace detail
TALLY_END_NAMESPACE
