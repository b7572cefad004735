// Layout normalization: the point where both front doors meet. A scan is described by
// its axis and the other ("outer") dimensions, each with one stride per operand. After
// normalize(), the scan always runs toward increasing axis index (a decreasing direction
// became negative axis strides), size-1 dimensions are gone, outer dimensions have
// non-negative output strides, are ordered outermost first by output stride, and
// dimensions contiguous with each other are merged.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "../version.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

inline constexpr std::size_t max_rank = 8;

/// Stable insertion sort for the few (<= 8) dimensions of a layout; std::sort's
/// 16-element threshold makes GCC 12 warn about bounds on arrays this small.
template <class T, class Less>
void sort_small(T* first, std::size_t n, Less less) noexcept {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && less(first[j], first[j - 1]); --j) std::swap(first[j], first[j - 1]);
}

/// Operands of a scan. The carries have the input's shape without the axis.
enum operand : int { in_operand = 0, out_operand = 1, carry_in_operand = 2, carry_out_operand = 3 };
inline constexpr int operand_count = 4;

struct layout_dim {
  std::size_t size = 1;
  std::ptrdiff_t stride[operand_count] = {};
};

struct scan_layout {
  std::size_t axis_size = 1;
  std::ptrdiff_t axis_in_stride = 0;
  std::ptrdiff_t axis_out_stride = 0;
  std::size_t outer_rank = 0;
  layout_dim outer[max_rank];                 // outermost first
  std::ptrdiff_t offset[operand_count] = {};  // element offsets to add to the base pointers

  std::size_t outer_count(std::size_t first_dim = 0, std::size_t end_dim = max_rank) const noexcept {
    std::size_t n = 1;
    for (std::size_t d = first_dim; d < std::min(end_dim, outer_rank); ++d) n *= outer[d].size;
    return n;
  }
};

/// `strides[op][d]` for d in 0..rank; a carry operand that is absent has all-zero strides.
inline scan_layout normalize(std::size_t rank, const std::size_t* sizes,
                             const std::ptrdiff_t* const* strides, std::size_t axis,
                             bool decreasing) noexcept {
  scan_layout layout;
  layout.axis_size = sizes[axis];
  layout.axis_in_stride = strides[in_operand][axis];
  layout.axis_out_stride = strides[out_operand][axis];
  if (decreasing) {
    const auto last = static_cast<std::ptrdiff_t>(layout.axis_size) - 1;
    layout.offset[in_operand] += last * layout.axis_in_stride;
    layout.offset[out_operand] += last * layout.axis_out_stride;
    layout.axis_in_stride = -layout.axis_in_stride;
    layout.axis_out_stride = -layout.axis_out_stride;
  }

  for (std::size_t d = 0; d < rank; ++d) {
    if (d == axis || sizes[d] == 1) continue;
    layout_dim dim;
    dim.size = sizes[d];
    for (int op = 0; op < operand_count; ++op) dim.stride[op] = strides[op][d];
    // Lines are independent, so any outer dimension may be walked backwards: make the
    // output stride non-negative so that reversed views merge and stream forwards.
    if (dim.stride[out_operand] < 0) {
      for (int op = 0; op < operand_count; ++op) {
        layout.offset[op] += static_cast<std::ptrdiff_t>(dim.size - 1) * dim.stride[op];
        dim.stride[op] = -dim.stride[op];
      }
    }
    layout.outer[layout.outer_rank++] = dim;
  }

  sort_small(layout.outer, layout.outer_rank, [](const layout_dim& a, const layout_dim& b) {
    if (a.stride[out_operand] != b.stride[out_operand]) return a.stride[out_operand] > b.stride[out_operand];
    return std::abs(a.stride[in_operand]) > std::abs(b.stride[in_operand]);
  });

  // Merge an outer dimension into the next inner one when, for every operand, stepping the
  // outer one equals stepping the inner one `size` times.
  std::size_t merged = 0;
  for (std::size_t d = 0; d < layout.outer_rank; ++d) {
    if (merged > 0) {
      layout_dim& prev = layout.outer[merged - 1];
      const layout_dim& cur = layout.outer[d];
      bool contiguous = true;
      for (int op = 0; op < operand_count; ++op)
        contiguous = contiguous &&
                     prev.stride[op] == cur.stride[op] * static_cast<std::ptrdiff_t>(cur.size);
      if (contiguous) {
        const std::size_t size = prev.size * cur.size;
        prev = cur;
        prev.size = size;
        continue;
      }
    }
    layout.outer[merged++] = layout.outer[d];
  }
  layout.outer_rank = merged;
  return layout;
}

/// True when two distinct index tuples can reach one address: some dimension of size > 1
/// has stride 0, or, visiting dimensions by increasing |stride|, a stride is smaller than
/// the span of the dimensions before it (interleaving). This is DirectML's rule; it also
/// rejects a few exotic non-overlapping interleavings, which is the safe side.
inline bool has_self_overlap(std::size_t rank, const std::size_t* sizes,
                             const std::ptrdiff_t* strides) noexcept {
  std::size_t order[max_rank];
  std::size_t n = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return false;  // no elements, nothing to share an address
    if (sizes[d] > 1) order[n++] = d;
  }
  sort_small(order, n, [&](std::size_t a, std::size_t b) { return std::abs(strides[a]) < std::abs(strides[b]); });
  unsigned long long span = 1;  // elements covered by the dimensions visited so far
  for (std::size_t i = 0; i < n; ++i) {
    const auto stride = static_cast<unsigned long long>(std::abs(strides[order[i]]));
    if (stride < span) return true;
    span = stride * (sizes[order[i]] - 1) + span;
  }
  return false;
}

}  // namespace detail
TALLY_END_NAMESPACE
