// Memory overlap between strided operands, for the rules "the output is unique", "carries
// do not overlap the data", and the typed layer's "as if the input had been copied
// first": stage through a temporary only when the memory really overlaps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>

#include "strided_layout.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// An operand: a base address, its layout and its element size.
struct placed_layout {
  const void* data = nullptr;
  strided_layout layout;
  std::size_t element = 1;
};

struct byte_range {
  std::uintptr_t first = 0, last = 0;  // [first, last)
};

/// The bytes a non-empty operand touches.
inline byte_range bytes_of(const placed_layout& p) noexcept {
  const auto [low, high] = p.layout.reach();
  const auto base = reinterpret_cast<std::uintptr_t>(p.data);
  const auto element = static_cast<std::ptrdiff_t>(p.element);
  return {base + static_cast<std::uintptr_t>(low * element), base + static_cast<std::uintptr_t>(high * element) + p.element};
}

/// True when some element of `a` may share a byte with some element of `b`. Exact for
/// disjoint ranges and for lattices offset by a non-multiple of their common stride
/// (e.g. the even and odd elements of one array); otherwise conservatively true.
inline bool may_overlap(const placed_layout& a, const placed_layout& b) noexcept {
  if (a.layout.empty() || b.layout.empty()) return false;
  const byte_range ra = bytes_of(a), rb = bytes_of(b);
  if (ra.last <= rb.first || rb.last <= ra.first) return false;
  if (a.element == b.element) {
    std::uint64_t g = 0;  // every address of either operand is its base plus a multiple of g elements
    for (const placed_layout* p : {&a, &b})
      for (std::size_t d = 0; d < p->layout.rank; ++d)
        if (p->layout.extents[d] > 1) g = std::gcd<std::uint64_t>(g, magnitude(p->layout.strides[d]));
    if (g > 1) {
      const std::uint64_t modulus = g * a.element;
      // The distance without wrapping (2^64 is not a multiple of every modulus); the test
      // below is symmetric, so which operand lies lower does not matter.
      const auto pa = reinterpret_cast<std::uintptr_t>(a.data), pb = reinterpret_cast<std::uintptr_t>(b.data);
      const std::uint64_t diff = (pa > pb ? pa - pb : pb - pa) % modulus;
      if (diff >= a.element && diff <= modulus - a.element) return false;
    }
  }
  return true;
}

/// Same elements at the same addresses: in place is safe for every kernel.
inline bool same_elements(const placed_layout& a, const placed_layout& b) noexcept {
  if (a.data != b.data || a.layout.rank != b.layout.rank) return false;
  for (std::size_t d = 0; d < a.layout.rank; ++d)
    if (a.layout.extents[d] != b.layout.extents[d] ||
        (a.layout.extents[d] > 1 && a.layout.strides[d] != b.layout.strides[d]))
      return false;
  return true;
}

/// A packed row-major copy of the elements of `layout` at `data`, for staging an input
/// that overlaps the output; null when the memory cannot be allocated.
template <class T>
std::unique_ptr<T[]> packed_copy(const T* data, const strided_layout& layout) noexcept {
  std::unique_ptr<T[]> copy(new (std::nothrow) T[layout.count()]);
  if (!copy) return copy;
  std::size_t i = 0;
  layout.for_each_offset([&](std::ptrdiff_t offset) { copy[i++] = data[offset]; });
  return copy;
}

}  // namespace detail
TALLY_END_NAMESPACE
