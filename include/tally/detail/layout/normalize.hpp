// Layout normalization: the point where both front doors meet. A scan is described by
// its axis and the other ("outer") dimensions, each with one stride per operand. After
// normalize(), the scan always runs toward increasing axis index (a decreasing direction
// became negative axis strides), size-1 dimensions are gone, outer dimensions have
// non-negative output strides, are ordered outermost first by output stride, and
// dimensions contiguous with each other are merged.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "request.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

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
    for (std::size_t d = first_dim; d < (std::min)(end_dim, outer_rank); ++d) n *= outer[d].size;
    return n;
  }
};

inline scan_layout normalize(const scan_request& r) noexcept {
  const std::size_t rank = r.rank, axis = r.axis;
  const std::size_t* sizes = r.extents;
  const auto& strides = r.strides;
  scan_layout layout;
  layout.axis_size = sizes[axis];
  // An axis of one element never steps: its strides, whatever they are, must not enter
  // any arithmetic (NumPy allows PTRDIFF_MIN there, whose negation overflows).
  layout.axis_in_stride = sizes[axis] > 1 ? strides[in_operand][axis] : 0;
  layout.axis_out_stride = sizes[axis] > 1 ? strides[out_operand][axis] : 0;
  if (r.decreasing) {
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

}  // namespace detail
TALLY_END_NAMESPACE
