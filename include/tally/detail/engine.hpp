// Plan and run a normalized scan: pick the kernel shape, cut the work into independent
// tasks, hand them to threads. Shared by both front doors.
#pragma once

#include <algorithm>
#include <cstddef>

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
  lines,    // the axis is contiguous in input and output (stride +1 or -1 in both)
  columns,  // the innermost outer dimension is contiguous in both: rows of running values
  strided,  // anything else: one line at a time with its strides
};

struct scan_plan {
  kernel_shape shape = kernel_shape::strided;
  std::size_t walked_dims = 0;  // outer dimensions enumerated as tasks
  std::size_t tasks = 0;        // independent units of work
  std::size_t tiles = 1;        // column tiles per walked index (columns shape)
};

/// Columns per tile: the running row stays in L1 (16 KiB of accumulators).
template <class T>
constexpr std::size_t column_tile() noexcept {
  return 16384 / sizeof(acc_t<T>);
}

template <class T>
scan_plan make_plan(const scan_layout& layout) noexcept {
  scan_plan plan;
  const std::ptrdiff_t in_axis = layout.axis_in_stride, out_axis = layout.axis_out_stride;
  if (in_axis == out_axis && (in_axis == 1 || in_axis == -1)) {
    plan.shape = kernel_shape::lines;
  } else if (layout.outer_rank > 0 && layout.outer[layout.outer_rank - 1].stride[in_operand] == 1 &&
             layout.outer[layout.outer_rank - 1].stride[out_operand] == 1) {
    plan.shape = kernel_shape::columns;
  }
  plan.walked_dims = plan.shape == kernel_shape::columns ? layout.outer_rank - 1 : layout.outer_rank;
  if (plan.shape == kernel_shape::columns) {
    const std::size_t width = layout.outer[layout.outer_rank - 1].size;
    plan.tiles = (width + column_tile<T>() - 1) / column_tile<T>();
  }
  plan.tasks = layout.outer_count(0, plan.walked_dims) * plan.tiles;
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
      for (int op = 0; op < operand_count; ++op)
        offset[op] -= static_cast<std::ptrdiff_t>(dim.size) * dim.stride[op];
      index[d] = 0;
    }
  }
};

template <class Op, class T>
struct scan_job {
  using A = acc_t<T>;
  const scan_layout& layout;
  const scan_plan& plan;
  scan_operands<T> p;
  bool exclusive;
  bool stream;  // non-temporal stores: the output is too large to stay in cache
  const kernel_set<Op, T>& kernels;

  void operator()(std::size_t begin, std::size_t end) const noexcept {
    if (plan.shape == kernel_shape::columns)
      run_column_tiles(begin, end);
    else
      run_lines(begin, end);
  }

  void run_lines(std::size_t begin, std::size_t end) const noexcept {
    outer_walker w(layout, plan.walked_dims, begin);
    for (std::size_t i = begin; i < end; ++i, w.next()) {
      const A start = p.carry_in ? acc_from_carry<T>(p.carry_in[w.offset[carry_in_operand]])
                                 : Op::template identity<A>();
      auto state = line_state<A>::template begin<Op>(start, p.carry_in ? start : Op::template empty<A>());
      const T* in = p.in + w.offset[in_operand];
      T* out = p.out + w.offset[out_operand];
      if (plan.shape == kernel_shape::lines)
        kernels.line(state, in, out, layout.axis_in_stride < 0, layout.axis_size, exclusive, stream);
      else
        kernels.strided(state, in, layout.axis_in_stride, out, layout.axis_out_stride,
                        layout.axis_size, exclusive);
      if (p.carry_out) p.carry_out[w.offset[carry_out_operand]] = carry_from_acc<T>(state.template total<Op>());
    }
  }

  void run_column_tiles(std::size_t begin, std::size_t end) const noexcept {
    const layout_dim& inner = layout.outer[layout.outer_rank - 1];
    constexpr std::size_t tile = column_tile<T>();
    alignas(64) A acc[tile];
    outer_walker w(layout, plan.walked_dims, begin / plan.tiles);
    std::size_t t = begin % plan.tiles;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j0 = t * tile;
      const std::size_t width = std::min(tile, inner.size - j0);
      const auto at = [&](int op) { return w.offset[op] + static_cast<std::ptrdiff_t>(j0) * inner.stride[op]; };
      for (std::size_t j = 0; j < width; ++j)
        acc[j] = p.carry_in ? acc_from_carry<T>(p.carry_in[at(carry_in_operand) +
                                                           static_cast<std::ptrdiff_t>(j) * inner.stride[carry_in_operand]])
                            : Op::template identity<A>();
      kernels.columns(p.in + at(in_operand), layout.axis_in_stride, p.out + at(out_operand),
                      layout.axis_out_stride, width, layout.axis_size, acc, exclusive,
                      p.carry_in != nullptr, stream);
      if (p.carry_out)
        for (std::size_t j = 0; j < width; ++j)
          p.carry_out[at(carry_out_operand) + static_cast<std::ptrdiff_t>(j) * inner.stride[carry_out_operand]] =
              carry_from_acc<T>(acc[j]);
      if (++t == plan.tiles) {
        t = 0;
        w.next();
      }
    }
  }
};

/// Elements a task should cover at least before another thread is worth starting.
inline constexpr std::size_t min_elements_per_part = 1 << 16;

/// Outputs at least this large are written with non-temporal stores: they would only
/// evict the input from cache, and a write-allocate would read them from memory first.
inline constexpr std::size_t nontemporal_bytes = std::size_t{16} << 20;

template <class Op, class T>
void run_scan(const scan_layout& layout, const scan_operands<T>& operands, bool exclusive,
              const execution_options& options) noexcept {
  const scan_plan plan = make_plan<T>(layout);
  const kernel_set<Op, T>& kernels = select_kernels<Op, T>();
  const std::size_t elements = layout.outer_count() * layout.axis_size;
  const bool in_place = static_cast<const void*>(operands.in) == static_cast<const void*>(operands.out);
  const bool stream = !in_place && elements * sizeof(T) >= nontemporal_bytes;
  scan_job<Op, T> job{layout, plan, operands, exclusive, stream, kernels};
  const std::size_t worth = std::max<std::size_t>(1, elements / min_elements_per_part);
  const std::size_t parts = std::min<std::size_t>(resolve_threads(options.threads), worth);
  parallel_ranges(options, plan.tasks, parts, job);
}

}  // namespace detail
TALLY_END_NAMESPACE
