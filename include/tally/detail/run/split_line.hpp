// The split_line shape: one long contiguous line on several threads, in rounds that stay
// in cache: each part reduces its blocks, the block offsets are combined in order on the
// calling thread, then each part scans its blocks from its offset. The blocks are
// line_state's fixed blocks, so the result is bitwise that of one thread.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../kernels/kernel_set.hpp"
#include "../plan/plan.hpp"
#include "../plan/streaming_aliasing.hpp"
#include "carries.hpp"
#include "executor.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class Op, class T>
struct split_line_job {
  using A = acc_t<T>;
  static constexpr std::size_t max_round_blocks = tuning::split_max_round_blocks;
  const kernel_set<Op, T>& kernels;
  const T* in = nullptr;
  T* out = nullptr;
  bool reverse, exclusive, stream;
  std::size_t n;
  std::size_t first_block = 0, blocks = 0, parts = 0;  // the current round
  A totals[max_round_blocks];
  line_state<A> starts[max_round_blocks];

  split_line_job(const kernel_set<Op, T>& k, const scan_plan& plan) noexcept
      : kernels(k),
        reverse(plan.layout.axis_in_stride < 0),
        exclusive(plan.exclusive),
        stream(plan.stream),
        n(plan.layout.axis_size) {}

  std::ptrdiff_t at(std::size_t block) const noexcept {
    const auto offset = static_cast<std::ptrdiff_t>(block * block_elements);
    return reverse ? -offset : offset;
  }
  std::size_t length(std::size_t block) const noexcept { return (std::min)(block_elements, n - block * block_elements); }
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
    if (job.stream) store_fence();
  }

  /// Scans the whole line continuing `state` (which must sit on a block boundary).
  void run(line_state<A>& state, const executor& exec, unsigned threads) noexcept {
    const std::size_t total_blocks = (n + block_elements - 1) / block_elements;
    const std::size_t part_blocks = std::max<std::size_t>(1, tuning::split_part_bytes / (block_elements * sizeof(T)));
    for (first_block = 0; first_block < total_blocks; first_block += blocks) {
      blocks = (std::min)({total_blocks - first_block, part_blocks * threads, max_round_blocks});
      parts = std::min<std::size_t>(threads, blocks);
      run_tasks(exec, threads, parts, &reduce, this);
      for (std::size_t b = 0; b < blocks; ++b) {
        starts[b] = state;
        state.offset = Op::combine(state.offset, totals[b]);
        state.last = state.offset;  // the last inclusive output of block b
      }
      run_tasks(exec, threads, parts, &scan, this);
    }
  }
};

/// Every line of the plan, one after the other, each split across the threads.
template <class Op, class T>
void run_split_lines(const scan_plan& plan, const line_carries<Op, T>& carries, const kernel_set<Op, T>& kernels,
                     const executor& exec) noexcept {
  split_line_job<Op, T> split(kernels, plan);
  auto w = outer_walker(plan.layout, plan.walked_dims, 0);
  for (std::size_t i = 0; i < plan.tasks; ++i, w.next()) {
    auto state = carries.line_start(w.offset[carry_in_operand]);
    split.in = carries.p.in + w.offset[in_operand];
    split.out = carries.p.out + w.offset[out_operand];
    split.stream = plan.stream && !streaming_stalls_loads(split.in, split.out, plan.layout.axis_in_stride,
                                                          plan.layout.axis_out_stride);
    split.run(state, exec, plan.threads);
    carries.finish_line(w.offset[carry_out_operand], state);
  }
}

}  // namespace detail
TALLY_END_NAMESPACE
