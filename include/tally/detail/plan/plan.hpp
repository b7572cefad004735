// The plan of a normalized scan, decided once and held in one value: the kernel shape,
// the tiling, the number of tasks and threads, and whether to stream the output. The
// shape and the tiling depend only on the layout, never on the thread count (which only
// narrows column tiles, and tile widths never change the arithmetic of a column), so
// results are the same for every thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "../kernels/line_state.hpp"
#include "../layout/normalize.hpp"
#include "tuning.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

enum class kernel_shape {
  lines,             // the axis is contiguous in input and output (stride +1 or -1 in both)
  split_line,        // lines, fewer than threads and long: each line split across the threads
  short_lines,       // lines of at most short_line_max elements packed one after the other
                     // (the innermost outer stride is the line length): many lines per vector
  columns,           // the last outer dimension is contiguous in both: rows of running values
  gathered_columns,  // the last outer dimension is contiguous in the input only: rows of
                     // running values into an L1 tile, then scattered to the output
  gathered_lines,    // the axis is contiguous (increasing) in the input only: lines into an
                     // L1 tile, then scattered to the output
  strided,           // anything else: one line at a time with its strides
};

struct scan_plan {
  kernel_shape shape = kernel_shape::strided;
  scan_layout layout;           // the layout, with the tiled dimension moved last
  std::size_t walked_dims = 0;  // outer dimensions enumerated as tasks
  std::size_t tile = 1;         // elements of the last outer dimension per task (tiled shapes)
  std::size_t depth = 0;        // axis positions per piece (gathered shapes)
  std::size_t tiles = 1;        // tiles per walked index
  std::size_t tasks = 0;        // independent units of work
  unsigned threads = 1;         // threads worth using: at most the caller's, at most the work's
  bool stream = false;          // non-temporal stores: the output is too large to stay in cache
  bool line_tiles = false;      // gathered_lines: tiles start on the output's 64-byte lines (one more tile)
  bool exclusive = false;
};

/// Columns per tile of the columns shape.
template <class T>
constexpr std::size_t column_tile() noexcept {
  return tuning::column_tile_bytes / sizeof(acc_t<T>);
}

/// Moves outer dimension d to the innermost position (loop order only; lines are independent).
inline void move_last(scan_layout& layout, std::size_t d) noexcept {
  const layout_dim dim = layout.outer[d];
  for (std::size_t i = d; i + 1 < layout.outer_rank; ++i) layout.outer[i] = layout.outer[i + 1];
  layout.outer[layout.outer_rank - 1] = dim;
}

/// `max_threads`: the caller's thread count, already resolved (never 0).
template <class Op, class T>
scan_plan make_plan(const scan_layout& layout, bool exclusive, bool in_place, bool has_carries,
                    unsigned max_threads) noexcept {
  scan_plan plan;
  plan.layout = layout;
  plan.exclusive = exclusive;
  const std::size_t elements = layout.outer_count() * layout.axis_size;
  plan.stream = !in_place && elements * sizeof(T) >= tuning::nontemporal_bytes;
  const std::size_t worth = std::max<std::size_t>(1, elements / tuning::min_elements_per_part);
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(max_threads, worth));
  plan.threads = threads;

  scan_layout& l = plan.layout;
  const std::size_t rank = l.outer_rank;
  const auto input_unit_dim = [&]() -> std::size_t {
    for (std::size_t d = rank; d-- > 0;)
      if (l.outer[d].stride[in_operand] == 1) return d;
    return rank;
  };
  const auto packed_lines = [&] {
    const auto n = static_cast<std::ptrdiff_t>(l.axis_size);
    return rank > 0 && l.outer[rank - 1].stride[in_operand] == n && l.outer[rank - 1].stride[out_operand] == n;
  };
  const bool contiguous_axis = l.axis_in_stride == l.axis_out_stride && std::abs(l.axis_in_stride) == 1;
  if ((contiguous_axis || l.axis_size == 1) && l.axis_size <= short_line_max && !has_carries && packed_lines()) {
    plan.shape = kernel_shape::short_lines;
    // Tiles of whole multiples of 64 lines, fixed by the shape alone: the kernels group a
    // tile's lines into vectors from its first line (scan_lines_in_vectors), so the bits
    // never depend on the thread count.
    plan.tile = std::max<std::size_t>(1, tuning::short_lines_tile_elements / (64 * l.axis_size)) * 64;
  } else if (contiguous_axis) {
    plan.shape = kernel_shape::lines;
  } else if (rank > 0 && l.outer[rank - 1].stride[in_operand] == 1 && l.outer[rank - 1].stride[out_operand] == 1) {
    plan.shape = kernel_shape::columns;
    const std::size_t share = (l.outer_count(0, rank - 1) >= threads) ? l.outer[rank - 1].size
                                                                       : (l.outer[rank - 1].size + threads - 1) / threads;
    const std::size_t unit = tuning::min_column_tile;
    plan.tile = (std::min)(column_tile<T>(), (std::max)(unit, (share + unit - 1) / unit * unit));
  } else if (const std::size_t d = input_unit_dim(); d < rank && l.axis_size > 1) {
    plan.shape = kernel_shape::gathered_columns;
    move_last(l, d);
    plan.tile = tuning::gather_elements / tuning::gather_short_side;
    plan.depth = tuning::gather_short_side;
  } else if (rank > 0 && l.axis_in_stride == 1) {
    plan.shape = kernel_shape::gathered_lines;
    // Tile across the outer dimension whose output stride is smallest: the scatter of
    // a tile then writes short contiguous runs.
    std::size_t best = 0;
    for (std::size_t d = 1; d < rank; ++d)
      if (std::abs(l.outer[d].stride[out_operand]) < std::abs(l.outer[best].stride[out_operand])) best = d;
    move_last(l, best);
    plan.tile = tuning::gather_short_side;
    plan.depth = tuning::gather_elements / tuning::gather_short_side;
  }
  // Lines stream only from tuning::stream_line_bytes, as the vocabulary engine's do:
  // shorter ones share their end cache lines with their neighbours. Short lines keep
  // `stream`: their kernel knows whether its vectors run back to back into one writer.
  if (plan.shape == kernel_shape::lines && l.axis_size * sizeof(T) < tuning::stream_line_bytes) plan.stream = false;
  const bool tiled = plan.shape == kernel_shape::columns || plan.shape == kernel_shape::gathered_columns ||
                     plan.shape == kernel_shape::gathered_lines || plan.shape == kernel_shape::short_lines;
  plan.walked_dims = tiled ? rank - 1 : rank;
  if (tiled) plan.tiles = (l.outer[rank - 1].size + plan.tile - 1) / plan.tile;
  // Streamed gathered lines write runs of `tile` elements into each output row: tiles
  // that start on the output's lines let every line but a row's ends be streamed whole
  // (tiles_job places the grid; the first tile takes the elements before the first line).
  if (plan.shape == kernel_shape::gathered_lines && plan.stream && l.outer[rank - 1].stride[out_operand] == 1) {
    plan.line_tiles = true;
    plan.tiles += 1;
  }
  plan.tasks = l.outer_count(0, plan.walked_dims) * plan.tiles;

  // Fewer lines than threads, and long ones: split each line across the threads instead
  // (floating-point products run in sequence and cannot be split).
  if (plan.shape == kernel_shape::lines && plan.tasks < threads && !sequential_order_v<Op, T> &&
      l.axis_size >= 2 * threads * block_elements)
    plan.shape = kernel_shape::split_line;
  return plan;
}

}  // namespace detail
TALLY_END_NAMESPACE
