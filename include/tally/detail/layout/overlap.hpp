// Memory overlap between strided operands, for the rules "the output is unique", "carries
// do not overlap the data", and the typed layer's "as if the input had been copied
// first": stage through a temporary only when the memory really overlaps.
#pragma once

#include <algorithm>
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

/// One plane of a transposing copy, element by element in tiles of 8 x 8 (a tile's 8
/// source and 8 destination cache lines then fit in any L1 set, even at strides of a
/// power of two): dst[i * da + j] = src[i * sa + j * sb] for i < na, j < nb.
template <class T>
void transpose_plane(const T* src, std::size_t na, std::size_t nb, std::ptrdiff_t sa, std::ptrdiff_t sb, T* dst,
                     std::ptrdiff_t da) noexcept {
  constexpr std::size_t tile = 8;
  for (std::size_t i0 = 0; i0 < na; i0 += tile)
    for (std::size_t j0 = 0; j0 < nb; j0 += tile) {
      const std::size_t i1 = (std::min)(na, i0 + tile), j1 = (std::min)(nb, j0 + tile);
      for (std::size_t i = i0; i < i1; ++i)
        for (std::size_t j = j0; j < j1; ++j)
          dst[static_cast<std::ptrdiff_t>(i) * da + static_cast<std::ptrdiff_t>(j)] =
              src[static_cast<std::ptrdiff_t>(i) * sa + static_cast<std::ptrdiff_t>(j) * sb];
    }
}

/// Copies the elements of `v` at `src` packed row-major to `dst` when the source runs along
/// dimension `a` (its smallest stride) and the destination along `b` (the last dimension
/// of more than one element), plane by plane of those two dimensions (transpose_plane); an
/// element-by-element walk in the destination's order would read one element per cache
/// line (a 4096 x 4096 float matrix seen transposed: 6 ns per element that way, 4 in
/// tiles).
template <class T>
void copy_transposing(const T* src, const strided_layout& v, std::size_t a, std::size_t b, T* dst) noexcept {
  std::ptrdiff_t packed[max_rank];
  std::ptrdiff_t step = 1;
  for (std::size_t d = v.rank; d-- > 0;) {
    packed[d] = step;
    step *= static_cast<std::ptrdiff_t>(v.extents[d]);
  }
  std::size_t index[max_rank] = {};  // an odometer over the other dimensions
  for (;;) {
    std::ptrdiff_t from = 0, to = 0;
    for (std::size_t d = 0; d < v.rank; ++d) {
      from += static_cast<std::ptrdiff_t>(index[d]) * v.strides[d];
      to += static_cast<std::ptrdiff_t>(index[d]) * packed[d];
    }
    transpose_plane(src + from, v.extents[a], v.extents[b], v.strides[a], v.strides[b], dst + to, packed[a]);
    std::size_t d = v.rank;
    while (d-- > 0) {
      if (d == a || d == b) continue;
      if (++index[d] < v.extents[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

/// A packed row-major copy of the elements of `layout` at `data`, for staging an input
/// that overlaps the output; null when the memory cannot be allocated.
template <class T>
std::unique_ptr<T[]> packed_copy(const T* data, const strided_layout& layout) noexcept {
  std::unique_ptr<T[]> copy(new (std::nothrow) T[layout.count()]);
  if (!copy || layout.count() == 0) return copy;
  // The dimension the source runs along, and the destination's (the last of more than one element).
  std::size_t a = layout.rank, b = layout.rank;
  for (std::size_t d = 0; d < layout.rank; ++d) {
    if (layout.extents[d] < 2) continue;
    b = d;
    if (a == layout.rank || magnitude(layout.strides[d]) < magnitude(layout.strides[a])) a = d;
  }
  if (a != b && b < layout.rank && magnitude(layout.strides[a]) < magnitude(layout.strides[b])) {
    copy_transposing(data, layout, a, b, copy.get());
    return copy;
  }
  std::size_t i = 0;
  layout.for_each_offset([&](std::ptrdiff_t offset) { copy[i++] = data[offset]; });
  return copy;
}

}  // namespace detail
TALLY_END_NAMESPACE
