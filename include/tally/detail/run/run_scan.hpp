// Running a checked request: normalize, plan, select the kernels, then branch once on
// the plan's shape to the job that runs it. Shared by both front doors.
#pragma once

#include "../dispatch/kernel_table.hpp"
#include "../layout/normalize.hpp"
#include "../plan/plan.hpp"
#include "axis_of_one.hpp"
#include "executor.hpp"
#include "lines.hpp"
#include "small_scan.hpp"
#include "split_line.hpp"
#include "tiles.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Runs the plan's tasks; a part that streamed fences once at its end.
template <class Job>
void run_parts(const executor& exec, const scan_plan& plan, Job job) noexcept {
  auto part = [&job, stream = plan.stream](std::size_t begin, std::size_t end) {
    job(begin, end);
    if (stream) store_fence();
  };
  parallel_ranges(exec, plan.tasks, plan.threads, part);
}

/// `in`, `out` and the optional carries are the base pointers of the request's operands.
template <class Op, class T>
void run_scan(const scan_request& request, const T* in, T* out, const carry_t<T>* carry_in, carry_t<T>* carry_out,
              const executor& exec) noexcept {
  if (!carry_in && !carry_out && is_packed(request.rank, request.extents, request.strides[in_operand]) &&
      is_packed(request.rank, request.extents, request.strides[out_operand]) &&
      small_scan<Op, T>(in, out, small_shape_from(request.rank, request.extents, request.axis, request.decreasing,
                                                      request.exclusive)))
    return;
  const scan_layout layout = normalize(request);
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  if (layout.axis_size == 1 && !request.exclusive && !carry_in && !carry_out) {
    axis_of_one_layout copy;
    copy.rank = layout.outer_rank;
    for (std::size_t d = 0; d < layout.outer_rank; ++d) {
      copy.extents[d] = layout.outer[d].size;
      copy.strides[0][d] = layout.outer[d].stride[in_operand];
      copy.strides[1][d] = layout.outer[d].stride[out_operand];
    }
    const bool stream = !in_place && layout.outer_count() * sizeof(T) >= tuning::nontemporal_bytes;
    if (copy_axis_of_one(copy, in + layout.offset[in_operand], out + layout.offset[out_operand], stream, exec)) return;
  }
  const scan_plan plan =
      make_plan<Op, T>(layout, request.exclusive, in_place, carry_in || carry_out, exec.threads);
  const kernel_set<Op, T>& kernels = select_kernels<Op, T>();
  line_carries<Op, T> carries;
  carries.p.in = in + layout.offset[in_operand];
  carries.p.out = out + layout.offset[out_operand];
  if (carry_in) carries.p.carry_in = carry_in + layout.offset[carry_in_operand];
  if (carry_out) carries.p.carry_out = carry_out + layout.offset[carry_out_operand];
  switch (plan.shape) {
    case kernel_shape::lines: return run_parts(exec, plan, lines_job<Op, T, true>{plan, carries, kernels});
    case kernel_shape::strided: return run_parts(exec, plan, lines_job<Op, T, false>{plan, carries, kernels});
    case kernel_shape::short_lines:
      return run_parts(exec, plan, short_lines_job<Op, T>{plan, carries, kernels});
    case kernel_shape::split_line: return run_split_lines<Op, T>(plan, carries, kernels, exec);
    case kernel_shape::columns:
      return run_parts(exec, plan, tiles_job<Op, T, kernel_shape::columns>{plan, carries, kernels});
    case kernel_shape::gathered_columns:
      return run_parts(exec, plan, tiles_job<Op, T, kernel_shape::gathered_columns>{plan, carries, kernels});
    case kernel_shape::gathered_lines:
      return run_parts(exec, plan, tiles_job<Op, T, kernel_shape::gathered_lines>{plan, carries, kernels});
  }
}

}  // namespace detail
TALLY_END_NAMESPACE
