// The tiled shapes: tasks are tiles of the last outer dimension, `plan.tile` wide.
//   columns:          rows of running values in L1, written straight to the output;
//   gathered_columns: rows of running values into an L1 tile, then scattered;
//   gathered_lines:   lines contiguous in the input, scanned into an L1 tile, then scattered.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../kernels/kernel_set.hpp"
#include "../plan/plan.hpp"
#include "carries.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class Op, class T, kernel_shape Shape>
struct tiles_job {
  using A = acc_t<T>;
  const scan_plan& plan;
  line_carries<Op, T> carries;
  const kernel_set<Op, T>& kernels;

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = plan.layout;
    const layout_dim& inner = l.outer[l.outer_rank - 1];
    auto w = outer_walker(l, plan.walked_dims, begin / plan.tiles);
    std::size_t t = begin % plan.tiles;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j0 = t * plan.tile;
      const std::size_t width = (std::min)(plan.tile, inner.size - j0);
      std::ptrdiff_t at[operand_count];
      for (int op = 0; op < operand_count; ++op)
        at[op] = w.offset[op] + static_cast<std::ptrdiff_t>(j0) * inner.stride[op];
      if constexpr (Shape == kernel_shape::gathered_lines)
        gathered_lines(at, inner, width);
      else
        columns(at, inner, width);
      if (++t == plan.tiles) {
        t = 0;
        w.next();
      }
    }
  }

  /// The offset in operand `op` of column or line j of a tile starting at `at`.
  static std::ptrdiff_t offset_at(const std::ptrdiff_t* at, const layout_dim& inner, int op, std::size_t j) noexcept {
    return at[op] + static_cast<std::ptrdiff_t>(j) * inner.stride[op];
  }

  /// `width` columns starting at offsets `at`: a row of running values in L1, written
  /// straight to the output (columns) or through a tile and a scatter (gathered_columns).
  void columns(const std::ptrdiff_t* at, const layout_dim& inner, std::size_t width) const noexcept {
    const scan_layout& l = plan.layout;
    const bool has_carries = carries.p.carry_in != nullptr;
    alignas(64) A acc[column_tile<T>()];
    for (std::size_t j = 0; j < width; ++j) acc[j] = carries.start_value(offset_at(at, inner, carry_in_operand, j));
    const T* in = carries.p.in + at[in_operand];
    T* out = carries.p.out + at[out_operand];
    if constexpr (Shape == kernel_shape::columns) {
      kernels.columns(in, l.axis_in_stride, out, l.axis_out_stride, width, l.axis_size, acc, plan.exclusive,
                      has_carries, plan.stream);
    } else {
      alignas(64) T tile[tuning::gather_elements];  // [depth][width]
      for (std::size_t k0 = 0; k0 < l.axis_size; k0 += plan.depth) {
        const std::size_t rows = (std::min)(plan.depth, l.axis_size - k0);
        const auto k = static_cast<std::ptrdiff_t>(k0);
        kernels.columns(in + k * l.axis_in_stride, l.axis_in_stride, tile, static_cast<std::ptrdiff_t>(width), width,
                        rows, acc, plan.exclusive, has_carries || k0 > 0, false);
        kernels.scatter(tile, rows, width, width, out + k * l.axis_out_stride, l.axis_out_stride,
                        inner.stride[out_operand], plan.stream);
      }
    }
    for (std::size_t j = 0; j < width; ++j) carries.finish_column(offset_at(at, inner, carry_out_operand, j), acc[j]);
  }

  /// `width` lines contiguous in the input: scanned by the line kernel into an L1 tile in
  /// pieces of `depth` elements (a multiple of every vector width, so the vector grouping
  /// and the result are those of one call per line), then scattered.
  void gathered_lines(const std::ptrdiff_t* at, const layout_dim& inner, std::size_t width) const noexcept {
    const scan_layout& l = plan.layout;
    line_state<A> states[tuning::gather_short_side];
    for (std::size_t j = 0; j < width; ++j) states[j] = carries.line_start(offset_at(at, inner, carry_in_operand, j));
    alignas(64) T tile[tuning::gather_elements];  // [width][depth]
    for (std::size_t k0 = 0; k0 < l.axis_size; k0 += plan.depth) {
      const std::size_t rows = (std::min)(plan.depth, l.axis_size - k0);
      const auto k = static_cast<std::ptrdiff_t>(k0);
      for (std::size_t j = 0; j < width; ++j)
        kernels.line(states[j], carries.p.in + offset_at(at, inner, in_operand, j) + k, tile + j * plan.depth, false,
                     rows, plan.exclusive, false);
      kernels.scatter(tile, width, rows, plan.depth, carries.p.out + at[out_operand] + k * l.axis_out_stride,
                      inner.stride[out_operand], l.axis_out_stride, plan.stream);
    }
    for (std::size_t j = 0; j < width; ++j) carries.finish_line(offset_at(at, inner, carry_out_operand, j), states[j]);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
