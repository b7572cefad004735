// One vocabulary for strided N-D layouts (as std::mdspan's layout_stride, with signed
// strides): rank, extents, strides, and the questions tally asks of them, each answered
// once: the packed strides, the span in elements, uniqueness (no two indices at one
// address), the reach below and above the origin, and the walk over every index.
// tensor_view, the descriptor validation, the overlap analysis, the carries and the
// outer walker of the scan all use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "checked.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The most dimensions of any tensor (DirectML's DML_TENSOR_DIMENSION_COUNT_MAX1).
inline constexpr std::size_t max_rank = 8;

/// Stable insertion sort for the few (<= 8) dimensions of a layout; std::sort's
/// 16-element threshold makes GCC 12 warn about bounds on arrays this small.
template <class T, class Less>
void sort_small(T* first, std::size_t n, Less less) noexcept {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && less(first[j], first[j - 1]); --j) std::swap(first[j], first[j - 1]);
}

/// |s| as unsigned, also for PTRDIFF_MIN.
inline std::uint64_t magnitude(std::ptrdiff_t s) noexcept {
  return s < 0 ? 0 - static_cast<std::uint64_t>(s) : static_cast<std::uint64_t>(s);
}

/// An odometer over `dims` dimensions (the last fastest) that steps the element offsets
/// of `Operands` layouts sharing those extents: `offset[op]` is the offset of the current
/// index in operand op. Fill dims, extents and strides, then start().
template <int Operands>
struct nd_walker {
  std::size_t dims = 0;
  std::size_t extents[max_rank] = {};
  std::ptrdiff_t strides[Operands][max_rank] = {};
  std::size_t index[max_rank] = {};
  std::ptrdiff_t offset[Operands] = {};

  /// Moves to the row-major position `linear` (below the product of the extents).
  void start(std::size_t linear) noexcept {
    for (int op = 0; op < Operands; ++op) offset[op] = 0;
    for (std::size_t d = dims; d-- > 0;) {
      index[d] = linear % extents[d];
      linear /= extents[d];
      for (int op = 0; op < Operands; ++op) offset[op] += static_cast<std::ptrdiff_t>(index[d]) * strides[op][d];
    }
  }
  /// The next index in row-major order (back to the origin after the last).
  void next() noexcept {
    for (std::size_t d = dims; d-- > 0;) {
      for (int op = 0; op < Operands; ++op) offset[op] += strides[op][d];
      if (++index[d] < extents[d]) return;
      for (int op = 0; op < Operands; ++op) offset[op] -= static_cast<std::ptrdiff_t>(extents[d]) * strides[op][d];
      index[d] = 0;
    }
  }
  /// The index before in row-major order (the last after the origin).
  void previous() noexcept {
    for (std::size_t d = dims; d-- > 0;) {
      if (index[d] > 0) {
        --index[d];
        for (int op = 0; op < Operands; ++op) offset[op] -= strides[op][d];
        return;
      }
      index[d] = extents[d] - 1;
      for (int op = 0; op < Operands; ++op) offset[op] += static_cast<std::ptrdiff_t>(extents[d] - 1) * strides[op][d];
    }
  }
  /// previous() when `backwards`, else next(): one step of a walk in either order.
  void step(bool backwards) noexcept {
    if (backwards)
      previous();
    else
      next();
  }
};

struct strided_layout {
  std::size_t rank = 0;  // 0: no tensor
  std::size_t extents[max_rank];
  std::ptrdiff_t strides[max_rank];  // in elements; both arrays are 0 past rank

  strided_layout() noexcept : extents{}, strides{} {}

 private:
  // make() writes every entry itself: zeroing them first costs a small call more than its scan.
  enum filled_by_caller_t { filled_by_caller };
  explicit strided_layout(filled_by_caller_t) noexcept {}

 public:

  /// Extents of any integer type; strides of any integer type, or null for packed row-major.
  template <class E, class S>
  static strided_layout make(std::size_t rank, const E* extents, const S* strides) noexcept {
    strided_layout l(filled_by_caller);
    l.rank = rank;
    std::ptrdiff_t packed = 1;
    for (std::size_t d = max_rank; d-- > 0;) {  // every entry once: no zeroing pass first
      l.extents[d] = d < rank ? static_cast<std::size_t>(extents[d]) : 0;
      l.strides[d] = d >= rank ? 0 : strides ? static_cast<std::ptrdiff_t>(strides[d]) : packed;
      packed = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(packed) * (d < rank ? l.extents[d] : 1));
    }
    return l;
  }
  /// Row-major packed strides (the product may wrap for absurd extents: check
  /// packed_count() first).
  static strided_layout packed(std::size_t rank, const std::size_t* extents) noexcept {
    return make(rank, extents, static_cast<const std::ptrdiff_t*>(nullptr));
  }

  /// The same layout with the strides of dimensions of size 0 or 1 set to 0: they never
  /// move an address, so no later arithmetic can overflow on them whatever the caller
  /// passed (NumPy allows any stride there, PTRDIFF_MIN included).
  strided_layout without_unit_strides() const noexcept {
    strided_layout l = *this;
    for (std::size_t d = 0; d < rank; ++d)
      if (extents[d] <= 1) l.strides[d] = 0;
    return l;
  }

  /// The number of elements (0 for no tensor), with overflow remembered.
  checked_u64 checked_count() const noexcept {
    checked_u64 n{rank == 0 ? 0u : 1u};
    for (std::size_t d = 0; d < rank; ++d) n = n * checked_u64{extents[d]};
    return n;
  }
  std::size_t count() const noexcept { return static_cast<std::size_t>(checked_count().value); }
  bool empty() const noexcept {
    for (std::size_t d = 0; d < rank; ++d)
      if (extents[d] == 0) return true;
    return rank == 0;
  }

  /// Elements from the lowest to the highest addressed element, inclusive (0 when empty):
  /// std::mdspan's required_span_size for signed strides.
  checked_u64 required_span() const noexcept {
    if (empty()) return {};
    checked_u64 span{1};
    for (std::size_t d = 0; d < rank; ++d) span = span + checked_u64{extents[d] - 1} * checked_u64{magnitude(strides[d])};
    return span;
  }

  /// Offsets of the lowest and highest addressed elements from the origin (a non-empty
  /// layout whose required_span fits in ptrdiff_t).
  std::pair<std::ptrdiff_t, std::ptrdiff_t> reach() const noexcept {
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(extents[d] - 1) * strides[d];
      (r < 0 ? low : high) += r;
    }
    return {low, high};
  }

  /// False when two distinct indices can reach one address: some dimension of size > 1
  /// has stride 0, or, visiting dimensions by increasing |stride|, a stride is smaller than
  /// the span of the dimensions before it (interleaving). This is DirectML's rule; it also
  /// rejects a few exotic non-overlapping interleavings, which is the safe side.
  bool is_unique() const noexcept {
    std::size_t order[max_rank];
    std::size_t n = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      if (extents[d] == 0) return true;  // no elements, nothing to share an address
      if (extents[d] > 1) order[n++] = d;
    }
    sort_small(order, n, [&](std::size_t a, std::size_t b) { return magnitude(strides[a]) < magnitude(strides[b]); });
    std::uint64_t span = 1;  // elements covered by the dimensions visited so far
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t stride = magnitude(strides[order[i]]);
      if (stride < span) return false;
      span = stride * (extents[order[i]] - 1) + span;
    }
    return true;
  }

  /// Calls f(offset) for every element in row-major index order.
  template <class F>
  void for_each_offset(F&& f) const {
    const std::size_t n = count();
    if (n == 0) return;
    nd_walker<1> w;
    w.dims = rank;
    for (std::size_t d = 0; d < rank; ++d) {
      w.extents[d] = extents[d];
      w.strides[0][d] = strides[d];
    }
    w.start(0);
    for (std::size_t i = 0; i < n; ++i, w.next()) f(w.offset[0]);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
