// Plan and run a normalized scan: pick the kernel shape, cut the work into independent
// tasks, hand them to threads. Shared by both front doors. The shape depends only on the
// layout, never on the thread count, so results are the same for every thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "dispatch.hpp"
#include "layout.hpp"
#include "threads.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The base pointers of a scan, already moved by the layout's offsets.
template <class T>
struct scan_operands {
  const T* in = nullptr;
  T* out = nullptr;
  const carry_t<T>* carry_in = nullptr;  // optional: per-line start values
  carry_t<T>* carry_out = nullptr;       // optional: per-line totals
};

enum class kernel_shape {
  lines,             // the axis is contiguous in input and output (stride +1 or -1 in both)
  columns,           // the last outer dimension is contiguous in both: rows of running values
  gathered_columns,  // the last outer dimension is contiguous in the input only: rows of
                     // running values into an L1 tile, then scattered to the output
  gathered_lines,    // the axis is contiguous (increasing) in the input only: lines into an
                     // L1 tile, then scattered to the output
  strided,           // anything else: one line at a time with its strides
};

/// Elements of the L1 tile of the gathered shapes: `tile` lines times `depth` axis
/// positions. The side that is contiguous in the input is the long one, so that memory
/// is read in long runs; the scatter then writes runs of the short side.
inline constexpr std::size_t gather_elements = 4096;
inline constexpr std::size_t gather_short_side = 16;  // a multiple of every vector width

/// Columns per tile of the columns shape: the running row stays in L1 (16 KiB).
template <class T>
constexpr std::size_t column_tile() noexcept {
  return 16384 / sizeof(acc_t<T>);
}

struct scan_plan {
  kernel_shape shape = kernel_shape::strided;
  scan_layout layout;           // the layout, with the tiled dimension moved last
  std::size_t walked_dims = 0;  // outer dimensions enumerated as tasks
  std::size_t tile = 1;         // elements of the last outer dimension per task (tiled shapes)
  std::size_t depth = 0;        // axis positions per piece (gathered shapes)
  std::size_t tiles = 1;        // tiles per walked index
  std::size_t tasks = 0;        // independent units of work
};

/// Moves outer dimension d to the innermost position (loop order only; lines are independent).
inline void move_last(scan_layout& layout, std::size_t d) noexcept {
  const layout_dim dim = layout.outer[d];
  for (std::size_t i = d; i + 1 < layout.outer_rank; ++i) layout.outer[i] = layout.outer[i + 1];
  layout.outer[layout.outer_rank - 1] = dim;
}

/// `threads` only narrows the column tiles (so that a single wide row still gives every
/// thread work); tile widths never change the arithmetic of a column.
template <class T>
scan_plan make_plan(const scan_layout& layout, unsigned threads) noexcept {
  scan_plan plan;
  plan.layout = layout;
  scan_layout& l = plan.layout;
  const std::size_t rank = l.outer_rank;
  const auto input_unit_dim = [&]() -> std::size_t {
    for (std::size_t d = rank; d-- > 0;)
      if (l.outer[d].stride[in_operand] == 1) return d;
    return rank;
  };
  if (l.axis_in_stride == l.axis_out_stride && std::abs(l.axis_in_stride) == 1) {
    plan.shape = kernel_shape::lines;
  } else if (rank > 0 && l.outer[rank - 1].stride[in_operand] == 1 && l.outer[rank - 1].stride[out_operand] == 1) {
    plan.shape = kernel_shape::columns;
    const std::size_t share = (l.outer_count(0, rank - 1) >= threads) ? l.outer[rank - 1].size
                                                                       : (l.outer[rank - 1].size + threads - 1) / threads;
    plan.tile = std::min(column_tile<T>(), std::max<std::size_t>(64, (share + 63) / 64 * 64));
  } else if (const std::size_t d = input_unit_dim(); d < rank && l.axis_size > 1) {
    plan.shape = kernel_shape::gathered_columns;
    move_last(l, d);
    plan.tile = gather_elements / gather_short_side;
    plan.depth = gather_short_side;
  } else if (rank > 0 && l.axis_in_stride == 1) {
    plan.shape = kernel_shape::gathered_lines;
    // Tile across the outer dimension whose output stride is smallest: the scatter of
    // a tile then writes short contiguous runs.
    std::size_t best = 0;
    for (std::size_t d = 1; d < rank; ++d)
      if (std::abs(l.outer[d].stride[out_operand]) < std::abs(l.outer[best].stride[out_operand])) best = d;
    move_last(l, best);
    plan.tile = gather_short_side;
    plan.depth = gather_elements / gather_short_side;
  }
  const bool tiled = plan.shape == kernel_shape::columns || plan.shape == kernel_shape::gathered_columns ||
                     plan.shape == kernel_shape::gathered_lines;
  plan.walked_dims = tiled ? rank - 1 : rank;
  if (tiled) plan.tiles = (l.outer[rank - 1].size + plan.tile - 1) / plan.tile;
  plan.tasks = l.outer_count(0, plan.walked_dims) * plan.tiles;
  return plan;
}

/// Odometer over the first `dims` outer dimensions: the operand offsets of one index.
struct outer_walker {
  const scan_layout* layout;
  std::size_t dims;
  std::size_t index[max_rank] = {};
  std::ptrdiff_t offset[operand_count] = {};

  outer_walker(const scan_layout& l, std::size_t walked_dims, std::size_t linear) noexcept
      : layout(&l), dims(walked_dims) {
    for (std::size_t d = dims; d-- > 0;) {
      index[d] = linear % l.outer[d].size;
      linear /= l.outer[d].size;
      for (int op = 0; op < operand_count; ++op)
        offset[op] += static_cast<std::ptrdiff_t>(index[d]) * l.outer[d].stride[op];
    }
  }
  void next() noexcept {
    for (std::size_t d = dims; d-- > 0;) {
      const layout_dim& dim = layout->outer[d];
      for (int op = 0; op < operand_count; ++op) offset[op] += dim.stride[op];
      if (++index[d] < dim.size) return;
      for (int op = 0; op < operand_count; ++op) offset[op] -= static_cast<std::ptrdiff_t>(dim.size) * dim.stride[op];
      index[d] = 0;
    }
  }
};

template <class Op, class T>
struct scan_job {
  using A = acc_t<T>;
  const scan_plan& plan;
  scan_operands<T> p;
  bool exclusive;
  bool stream;  // non-temporal stores: the output is too large to stay in cache
  const kernel_set<Op, T>& kernels;

  const scan_layout& layout() const noexcept { return plan.layout; }

  /// The start of a line: its carry, or the identity.
  A start_value(std::ptrdiff_t carry_offset) const noexcept {
    return p.carry_in ? acc_from_carry<T>(p.carry_in[carry_offset]) : Op::template identity<A>();
  }
  line_state<A> line_start(std::ptrdiff_t carry_offset) const noexcept {
    const A start = start_value(carry_offset);
    return line_state<A>::template begin<Op>(start, p.carry_in ? start : Op::template empty<A>());
  }
  void finish_line(std::ptrdiff_t carry_offset, const line_state<A>& s) const noexcept {
    if (p.carry_out) p.carry_out[carry_offset] = carry_from_acc<T>(s.template total<Op>());
  }

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    switch (plan.shape) {
      case kernel_shape::lines:
      case kernel_shape::strided: return run_lines(begin, end);
      default: return run_tiles(begin, end);
    }
  }

  void run_lines(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = layout();
    outer_walker w(l, plan.walked_dims, begin);
    for (std::size_t i = begin; i < end; ++i, w.next()) {
      line_state<A> state = line_start(w.offset[carry_in_operand]);
      const T* in = p.in + w.offset[in_operand];
      T* out = p.out + w.offset[out_operand];
      if (plan.shape == kernel_shape::lines)
        kernels.line(state, in, out, l.axis_in_stride < 0, l.axis_size, exclusive, stream);
      else
        kernels.strided(state, in, l.axis_in_stride, out, l.axis_out_stride, l.axis_size, exclusive);
      finish_line(w.offset[carry_out_operand], state);
    }
  }

  void run_tiles(std::size_t begin, std::size_t end) const noexcept {
    const scan_layout& l = layout();
    const layout_dim& inner = l.outer[l.outer_rank - 1];
    outer_walker w(l, plan.walked_dims, begin / plan.tiles);
    std::size_t t = begin % plan.tiles;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j0 = t * plan.tile;
      const std::size_t width = std::min(plan.tile, inner.size - j0);
      std::ptrdiff_t at[operand_count];
      for (int op = 0; op < operand_count; ++op)
        at[op] = w.offset[op] + static_cast<std::ptrdiff_t>(j0) * inner.stride[op];
      if (plan.shape == kernel_shape::gathered_lines)
        gathered_lines(at, inner, width);
      else
        columns(at, inner, width);
      if (++t == plan.tiles) {
        t = 0;
        w.next();
      }
    }
  }

  /// `width` columns starting at offsets `at`: a row of running values in L1, written
  /// straight to the output (columns) or through a tile and a scatter (gathered_columns).
  void columns(const std::ptrdiff_t* at, const layout_dim& inner, std::size_t width) const noexcept {
    const scan_layout& l = layout();
    alignas(64) A acc[column_tile<T>()];
    for (std::size_t j = 0; j < width; ++j)
      acc[j] = start_value(at[carry_in_operand] + static_cast<std::ptrdiff_t>(j) * inner.stride[carry_in_operand]);
    const T* in = p.in + at[in_operand];
    T* out = p.out + at[out_operand];
    if (plan.shape == kernel_shape::columns) {
      kernels.columns(in, l.axis_in_stride, out, l.axis_out_stride, width, l.axis_size, acc, exclusive,
                      p.carry_in != nullptr, stream);
    } else {
      alignas(64) T tile[gather_elements];  // [depth][width]
      for (std::size_t k0 = 0; k0 < l.axis_size; k0 += plan.depth) {
        const std::size_t rows = std::min(plan.depth, l.axis_size - k0);
        const auto k = static_cast<std::ptrdiff_t>(k0);
        kernels.columns(in + k * l.axis_in_stride, l.axis_in_stride, tile, static_cast<std::ptrdiff_t>(width), width,
                        rows, acc, exclusive, p.carry_in != nullptr || k0 > 0, false);
        kernels.scatter(tile, rows, width, width, out + k * l.axis_out_stride, l.axis_out_stride,
                        inner.stride[out_operand], stream);
      }
    }
    if (p.carry_out)
      for (std::size_t j = 0; j < width; ++j)
        p.carry_out[at[carry_out_operand] + static_cast<std::ptrdiff_t>(j) * inner.stride[carry_out_operand]] =
            carry_from_acc<T>(acc[j]);
  }

  /// `width` lines contiguous in the input: scanned by the line kernel into an L1 tile in
  /// pieces of `depth` elements (a multiple of every vector width, so the vector grouping
  /// and the result are those of one call per line), then scattered.
  void gathered_lines(const std::ptrdiff_t* at, const layout_dim& inner, std::size_t width) const noexcept {
    const scan_layout& l = layout();
    line_state<A> states[gather_short_side];
    for (std::size_t j = 0; j < width; ++j)
      states[j] = line_start(at[carry_in_operand] + static_cast<std::ptrdiff_t>(j) * inner.stride[carry_in_operand]);
    alignas(64) T tile[gather_elements];  // [width][depth]
    for (std::size_t k0 = 0; k0 < l.axis_size; k0 += plan.depth) {
      const std::size_t rows = std::min(plan.depth, l.axis_size - k0);
      const auto k = static_cast<std::ptrdiff_t>(k0);
      for (std::size_t j = 0; j < width; ++j)
        kernels.line(states[j], p.in + at[in_operand] + static_cast<std::ptrdiff_t>(j) * inner.stride[in_operand] + k,
                     tile + j * plan.depth, false, rows, exclusive, false);
      kernels.scatter(tile, width, rows, plan.depth, p.out + at[out_operand] + k * l.axis_out_stride,
                      inner.stride[out_operand], l.axis_out_stride, stream);
    }
    for (std::size_t j = 0; j < width; ++j)
      finish_line(at[carry_out_operand] + static_cast<std::ptrdiff_t>(j) * inner.stride[carry_out_operand], states[j]);
  }
};

/// Elements a task should cover at least before another thread is worth using.
inline constexpr std::size_t min_elements_per_part = std::size_t{1} << 16;

/// Outputs at least this large are written with non-temporal stores: they would only
/// evict the input from cache, and a write-allocate would read them from memory first.
inline constexpr std::size_t nontemporal_bytes = std::size_t{16} << 20;

/// One long contiguous line on several threads, in rounds that stay in cache: each part
/// reduces its blocks, the block offsets are combined in order on the calling thread,
/// then each part scans its blocks from its offset. The blocks are line_state's fixed
/// blocks, so the result is bitwise that of one thread.
template <class Op, class T>
struct split_line_job {
  using A = acc_t<T>;
  static constexpr std::size_t max_round_blocks = 256;  // keeps the job small enough for any stack
  const kernel_set<Op, T>& kernels;
  const T* in = nullptr;
  T* out = nullptr;
  bool reverse, exclusive, stream;
  std::size_t n;
  std::size_t first_block = 0, blocks = 0, parts = 0;  // the current round
  A totals[max_round_blocks];
  line_state<A> starts[max_round_blocks];

  split_line_job(const kernel_set<Op, T>& k, bool reverse_, bool exclusive_, bool stream_, std::size_t n_) noexcept
      : kernels(k), reverse(reverse_), exclusive(exclusive_), stream(stream_), n(n_) {}

  std::ptrdiff_t at(std::size_t block) const noexcept {
    const auto offset = static_cast<std::ptrdiff_t>(block * block_elements);
    return reverse ? -offset : offset;
  }
  std::size_t length(std::size_t block) const noexcept { return std::min(block_elements, n - block * block_elements); }
  std::size_t part_begin(std::size_t part) const noexcept { return blocks * part / parts; }

  static void reduce(void* self, std::size_t part) noexcept {
    auto& job = *static_cast<split_line_job*>(self);
    for (std::size_t b = job.part_begin(part); b < job.part_begin(part + 1); ++b) {
      const std::size_t block = job.first_block + b;
      job.totals[b] = job.kernels.reduce(job.in + job.at(block), job.reverse, job.length(block));
    }
  }
  static void scan(void* self, std::size_t part) noexcept {
    auto& job = *static_cast<split_line_job*>(self);
    for (std::size_t b = job.part_begin(part); b < job.part_begin(part + 1); ++b) {
      const std::size_t block = job.first_block + b;
      line_state<A> state = job.starts[b];
      job.kernels.line(state, job.in + job.at(block), job.out + job.at(block), job.reverse, job.length(block),
                       job.exclusive, job.stream);
    }
  }

  /// Scans the whole line continuing `state` (which must sit on a block boundary).
  void run(line_state<A>& state, const execution_options& options, unsigned threads) noexcept {
    const std::size_t total_blocks = (n + block_elements - 1) / block_elements;
    // Each part handles about 1 MiB of input per round; the round is re-read from cache.
    const std::size_t part_blocks = std::max<std::size_t>(1, (std::size_t{1} << 20) / (block_elements * sizeof(T)));
    for (first_block = 0; first_block < total_blocks; first_block += blocks) {
      blocks = std::min({total_blocks - first_block, part_blocks * threads, max_round_blocks});
      parts = std::min<std::size_t>(threads, blocks);
      run_tasks(options, threads, parts, &reduce, this);
      for (std::size_t b = 0; b < blocks; ++b) {
        starts[b] = state;
        state.offset = Op::combine(state.offset, totals[b]);
        state.last = state.offset;  // the last inclusive output of block b
      }
      run_tasks(options, threads, parts, &scan, this);
    }
  }
};

template <class Op, class T>
void run_scan(const scan_layout& layout, const scan_operands<T>& operands, bool exclusive,
              const execution_options& options) noexcept {
  const kernel_set<Op, T>& kernels = select_kernels<Op, T>();
  const std::size_t elements = layout.outer_count() * layout.axis_size;
  const bool in_place = static_cast<const void*>(operands.in) == static_cast<const void*>(operands.out);
  const bool stream = !in_place && elements * sizeof(T) >= nontemporal_bytes;
  const std::size_t worth = std::max<std::size_t>(1, elements / min_elements_per_part);
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(resolve_threads(options.threads), worth));
  const scan_plan plan = make_plan<T>(layout, threads);

  // Fewer lines than threads, and long ones: split each line across the threads instead.
  if (plan.shape == kernel_shape::lines && plan.tasks < threads && !sequential_order_v<Op, T> &&
      layout.axis_size >= 2 * threads * block_elements) {
    const scan_job<Op, T> job{plan, operands, exclusive, stream, kernels};
    split_line_job<Op, T> split(kernels, layout.axis_in_stride < 0, exclusive, stream, layout.axis_size);
    outer_walker w(plan.layout, plan.walked_dims, 0);
    for (std::size_t i = 0; i < plan.tasks; ++i, w.next()) {
      line_state<acc_t<T>> state = job.line_start(w.offset[carry_in_operand]);
      split.in = operands.in + w.offset[in_operand];
      split.out = operands.out + w.offset[out_operand];
      split.run(state, options, threads);
      job.finish_line(w.offset[carry_out_operand], state);
    }
    return;
  }
  scan_job<Op, T> job{plan, operands, exclusive, stream, kernels};
  parallel_ranges(options, plan.tasks, threads, job);
}

}  // namespace detail
TALLY_END_NAMESPACE
