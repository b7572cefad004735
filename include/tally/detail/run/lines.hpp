// The lines and strided shapes: one line at a time along the axis, with the contiguous
// kernel (stride +1 or -1 in input and output) or the strided one.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../kernels/kernel_set.hpp"
#include "../plan/plan.hpp"
#include "../plan/streaming_aliasing.hpp"
#include "carries.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class Op, class T, bool Contiguous>
struct lines_job {
  const scan_plan& plan;
  line_carries<Op, T> carries;
  const kernel_set<Op, T>& kernels;

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = plan.layout;
    if (begin == end) return;
    // Lines read downwards are taken last first, so that memory is one descending
    // stream: ascending lines read downwards each confuse the hardware prefetchers
    // (4096 x 4096 float32 decreasing along axis 1 took 1.5x the increasing time).
    const bool downwards = l.axis_in_stride < 0;
    auto w = outer_walker(l, plan.walked_dims, downwards ? end - 1 : begin);
    for (std::size_t i = begin; i < end; ++i) {
      auto state = carries.line_start(w.offset[carry_in_operand]);
      const T* in = carries.p.in + w.offset[in_operand];
      T* out = carries.p.out + w.offset[out_operand];
      if constexpr (Contiguous)
        kernels.line(state, in, out, downwards, l.axis_size, plan.exclusive,
                     plan.stream && !streaming_stalls_loads(in, out, l.axis_in_stride, l.axis_out_stride));
      else
        kernels.strided(state, in, l.axis_in_stride, out, l.axis_out_stride, l.axis_size, plan.exclusive);
      carries.finish_line(w.offset[carry_out_operand], state);
      w.step(downwards);
    }
  }
};

/// The short_lines shape: tasks are tiles of `plan.tile` packed lines of the innermost
/// outer dimension, each scanned by one call (no carries: the plan asks for none).
template <class Op, class T>
struct short_lines_job {
  const scan_plan& plan;
  line_carries<Op, T> carries;
  const kernel_set<Op, T>& kernels;

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = plan.layout;
    const std::size_t lines = l.outer[l.outer_rank - 1].size, n = l.axis_size;
    const bool reverse = l.axis_in_stride < 0;
    // The region of a tile starts at its first line's lowest address.
    const std::ptrdiff_t first = reverse ? -static_cast<std::ptrdiff_t>(n - 1) : 0;
    if (begin == end) return;
    // Lines read downwards: tiles last first, as lines_job takes its lines, unless the
    // kernel takes a tile's lines first to last (see kernel_set::short_lines_upwards_below).
    const bool last_first = reverse && n >= kernels.short_lines_upwards_below;
    const std::size_t start = last_first ? end - 1 : begin;
    auto w = outer_walker(l, plan.walked_dims, start / plan.tiles);
    std::size_t t = start % plan.tiles;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t line = t * plan.tile, count = (std::min)(plan.tile, lines - line);
      const auto at = static_cast<std::ptrdiff_t>(line * n) + first;
      kernels.short_lines(carries.p.in + w.offset[in_operand] + at, carries.p.out + w.offset[out_operand] + at, n,
                          count, reverse, plan.exclusive, plan.stream);
      if (last_first) {
        if (t-- == 0) {
          t = plan.tiles - 1;
          w.previous();
        }
      } else if (++t == plan.tiles) {
        t = 0;
        w.next();
      }
    }
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
