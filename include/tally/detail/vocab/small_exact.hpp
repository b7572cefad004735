// The small-call path of the exact sums and products (scan_accuracy::exact): the SIMD
// engine's small path (run/small_scan.hpp) for exact_op. A call on packed operands small
// enough to stay in L1 skips the vocabulary engine's validation and planning, and gives
// the bits that engine gives the same shape: lines of line_form_length or more (the
// engine's one rule) through the line form, every other line (short ones, exclusive
// ones, columns) folded in sequence, as the engine's row form, gathered tiles and loops
// fold them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../view.hpp"
#include "../ops/exact_sum.hpp"
#include "../run/small_scan.hpp"
#include "engine.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// One line of exact_op, folded in sequence: n elements `step` apart from in and out.
template <class Op>
void fold_line(const Op& op, const typename Op::in_type* in, typename Op::out_type* out, std::ptrdiff_t step,
               std::size_t n, bool exclusive) noexcept {
  typename Op::state_type s = first_value(op, in[0], 0);
  if (exclusive) {
    out[0] = op.empty();
    for (std::size_t k = 1; k < n; ++k) {
      const auto at = static_cast<std::ptrdiff_t>(k) * step;
      const typename Op::in_type x = in[at];  // before the write: in place
      out[at] = op.value(s);
      s = op.combine(s, x, 0);
    }
    return;
  }
  out[0] = op.value(s);
  for (std::size_t k = 1; k < n; ++k) {
    s = op.combine(s, in[static_cast<std::ptrdiff_t>(k) * step], 0);
    out[static_cast<std::ptrdiff_t>(k) * step] = op.value(s);
  }
}

/// Runs a small exact scan of float or double (Base: sum_op or product_op) and returns
/// true; false, having done nothing, for anything else (the general path then runs).
template <class Base, class T>
bool small_exact_scan(const tensor_view<const T>& in, const tensor_view<T>& out, int axis,
                      const scan_options& options) noexcept {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (options.accuracy != scan_accuracy::exact) return false;
    small_shape shape;
    if (!small_shape_of(in, out, axis, options, shape)) return false;
    using Op = exact_op<Base, T>;
    const Op op;
    const std::size_t before = shape.before, after = shape.after, n = shape.length;
    const bool lines_along_memory = after == 1 && (!shape.exclusive || exclusive_moves<Op>);
    const std::size_t line_form_from = line_form_length<Op>(before * after, lines_along_memory, after == 1, false, false);
    const auto row = static_cast<std::ptrdiff_t>(after);
    const std::ptrdiff_t step = shape.decreasing ? -row : row;
    const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(n - 1) * row;
    if constexpr (multi_line_form<Op>) {  // all the lines in one call, as the engine runs them
      const std::ptrdiff_t first = shape.decreasing ? last : 0, next = static_cast<std::ptrdiff_t>(n);
      if (lines_along_memory && before > 1 && n >= line_form_from &&
          vector_line<Op>::scan_lines(line_span<T, T>{in.data() + first, out.data() + first, nullptr, nullptr, n,
                                                      shape.decreasing, shape.decreasing, false},
                                      before, next, next)) {
        if (shape.exclusive)  // as the engine's scan_line_run (an L1-sized call: one run)
          for (std::size_t b = 0; b < before; ++b)
            move_one_place(out.data() + first + static_cast<std::ptrdiff_t>(b) * next, n, step, op.empty());
        return true;
      }
    }
    for (std::size_t b = 0; b < before; ++b)
      for (std::size_t j = 0; j < after; ++j) {
        const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(b * n * after + j) + (shape.decreasing ? last : 0);
        if constexpr (vector_line<Op>::exists) {
          if (after == 1 && shape.exclusive && n >= line_form_from) {  // as the engine's scan_line
            layout l;
            l.length = n;
            l.decreasing = shape.decreasing;
            l.exclusive = true;
            for (int slot : {in_slot, out_slot}) place_axis(l, slot, n, 1);
            scan_exclusive_line_moved(op, l, pointers<Op>{in.data() + start, out.data() + start});
            continue;
          }
          if (after == 1 && !shape.exclusive && n >= line_form_from &&
              vector_line<Op>::scan(line_span<T, T>{in.data() + start, out.data() + start, nullptr, nullptr, n,
                                                    shape.decreasing, shape.decreasing, false}))
            continue;
        }
        fold_line(op, in.data() + start, out.data() + start, step, n, shape.exclusive);
      }
    return true;
  } else {
    (void)in, (void)out, (void)axis, (void)options;
    return false;
  }
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
