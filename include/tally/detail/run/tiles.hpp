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
  /// Lines a gathered_lines piece is prefetched ahead of its scan: about a memory latency.
  static constexpr std::size_t prefetch_ahead = 8;
  const scan_plan& plan;
  line_carries<Op, T> carries;
  const kernel_set<Op, T>& kernels;

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = plan.layout;
    const layout_dim& inner = l.outer[l.outer_rank - 1];
    auto w = outer_walker(l, plan.walked_dims, begin / plan.tiles);
    std::size_t t = begin % plan.tiles;
    for (std::size_t i = begin; i < end; ++i) {
      std::size_t j0 = t * plan.tile, j1 = j0 + plan.tile;
      if (plan.line_tiles) {  // tile 0: the elements before the first line; then whole tiles from there
        const std::size_t first = elements_to_line(carries.p.out + w.offset[out_operand]);
        j0 = t == 0 ? 0 : first + (t - 1) * plan.tile;
        j1 = t == 0 ? first : j0 + plan.tile;
      }
      j1 = (std::min)(j1, inner.size);
      if (j0 < j1) {
        std::ptrdiff_t at[operand_count];
        for (int op = 0; op < operand_count; ++op)
          at[op] = w.offset[op] + static_cast<std::ptrdiff_t>(j0) * inner.stride[op];
        if constexpr (Shape == kernel_shape::gathered_lines) {
          gathered_lines(at, inner, j1 - j0);
        } else {
          // Where the next tile starts in the input: the columns from j1 on, or the next
          // outer position's first tile.
          std::ptrdiff_t next = w.offset[in_operand] + static_cast<std::ptrdiff_t>(j1) * inner.stride[in_operand];
          if (t + 1 == plan.tiles || j1 == inner.size) {
            auto after = w;
            after.next();
            next = after.offset[in_operand];
          }
          columns(at, inner, j1 - j0, carries.p.in + next);
        }
      }
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
  void columns(const std::ptrdiff_t* at, const layout_dim& inner, std::size_t width, const T* next_in) const noexcept {
    const scan_layout& l = plan.layout;
    const bool has_carries = carries.p.carry_in != nullptr;
    alignas(64) A acc[column_tile<T>()];
    // Without carries the kernel starts every column at the identity and does not read
    // acc. Filled here, element by element at -O2, it cost [4, 4M] along axis 0 as much
    // time as the scan (9.0 -> 5.1-6.0 ms; memcpy 3.9). (An empty axis runs no row: its
    // totals are the starts.)
    if (has_carries || l.axis_size == 0)
      for (std::size_t j = 0; j < width; ++j) acc[j] = carries.start_value(offset_at(at, inner, carry_in_operand, j));
    const T* in = carries.p.in + at[in_operand];
    T* out = carries.p.out + at[out_operand];
    if constexpr (Shape == kernel_shape::columns) {
      kernels.columns(in, l.axis_in_stride, out, l.axis_out_stride, width, l.axis_size, acc, plan.exclusive,
                      has_carries, plan.stream, next_in);
    } else {
      alignas(64) T tile[tuning::gather_elements];  // [depth][width]
      // Streamed output whose axis is contiguous: the first piece ends on the output's
      // line, so each later piece writes whole lines of every output column.
      const std::size_t first = plan.stream && l.axis_out_stride == 1 ? elements_to_line(out) : 0;
      for (std::size_t k0 = 0, rows = first > 0 ? first : plan.depth; k0 < l.axis_size;
           k0 += rows, rows = plan.depth) {
        rows = (std::min)(rows, l.axis_size - k0);
        const auto k = static_cast<std::ptrdiff_t>(k0);
        kernels.columns(in + k * l.axis_in_stride, l.axis_in_stride, tile, static_cast<std::ptrdiff_t>(width), width,
                        rows, acc, plan.exclusive, has_carries || k0 > 0, false,
                        k0 + rows < l.axis_size ? in + (k + static_cast<std::ptrdiff_t>(rows)) * l.axis_in_stride : next_in);
        kernels.scatter(tile, rows, width, width, out + k * l.axis_out_stride, l.axis_out_stride,
                        inner.stride[out_operand], plan.stream);
      }
    }
    if (carries.p.carry_out)
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
      for (std::size_t j = 0; j < width; ++j) {
        // The piece of the line `ahead` lines on (or of the next piece's first lines): the
        // pieces are short runs in many streams, which the hardware prefetchers start too late.
        const std::size_t next = j + prefetch_ahead;
        if (next < width || k0 + plan.depth < l.axis_size) {
          const T* p = carries.p.in + offset_at(at, inner, in_operand, next % width) +
                       (next < width ? k : k + static_cast<std::ptrdiff_t>(plan.depth));
          const std::size_t bytes =
              ((std::min)(plan.depth, l.axis_size - (next < width ? k0 : k0 + plan.depth))) * sizeof(T);
          const char* first_byte = reinterpret_cast<const char*>(p);
          for (std::size_t b = 0; b < bytes; b += 64) prefetch(first_byte + b);
          prefetch(first_byte + bytes - 1);  // the last line, when the piece starts inside one
        }
        kernels.line(states[j], carries.p.in + offset_at(at, inner, in_operand, j) + k, tile + j * plan.depth, false,
                     rows, plan.exclusive, false);
      }
      kernels.scatter(tile, width, rows, plan.depth, carries.p.out + at[out_operand] + k * l.axis_out_stride,
                      inner.stride[out_operand], l.axis_out_stride, plan.stream);
    }
    for (std::size_t j = 0; j < width; ++j) carries.finish_line(offset_at(at, inner, carry_out_operand, j), states[j]);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
