// The lines and strided shapes: one line at a time along the axis, with the contiguous
// kernel (stride +1 or -1 in input and output) or the strided one.
#pragma once

#include <cstddef>

#include "../kernels/kernel_set.hpp"
#include "../plan/plan.hpp"
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
    auto w = outer_walker(l, plan.walked_dims, begin);
    for (std::size_t i = begin; i < end; ++i, w.next()) {
      auto state = carries.line_start(w.offset[carry_in_operand]);
      const T* in = carries.p.in + w.offset[in_operand];
      T* out = carries.p.out + w.offset[out_operand];
      if constexpr (Contiguous)
        kernels.line(state, in, out, l.axis_in_stride < 0, l.axis_size, plan.exclusive, plan.stream);
      else
        kernels.strided(state, in, l.axis_in_stride, out, l.axis_out_stride, l.axis_size, plan.exclusive);
      carries.finish_line(w.offset[carry_out_operand], state);
    }
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
