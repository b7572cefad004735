// The typed layer's rules (NumPy/PyTorch conventions): matching ranks and sizes, an axis
// in -rank..rank-1, a unique output, carries shaped like the input without the axis and
// disjoint from the data. Like the descriptor checks, they return a status and hand a
// scan_request forward; the typed door throws tally::error for a refusal, in one place.
#pragma once

#include <cstddef>

#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../../view.hpp"
#include "../layout/overlap.hpp"
#include "../layout/request.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// A view's data, layout (size-1 strides zeroed: they never enter any arithmetic) and element size.
template <class T>
placed_layout placed(const tensor_view<T>& v) noexcept {
  return {v.data(), strided_layout::make(v.rank(), v.extents(), v.strides()).without_unit_strides(), sizeof(T)};
}

/// Sets the request's strides of carry operand `op` at full rank (0 on the axis). A carry
/// is the input's shape without the axis, or with the axis kept at size 1 (NumPy's keepdims).
inline status check_carry(const placed_layout& carry, int op, const char* name, scan_request& r) noexcept {
  const strided_layout& c = carry.layout;
  const bool keepdims = c.rank == r.rank && c.extents[r.axis] == 1;
  if (!keepdims && c.rank + 1 != r.rank)
    return status(status_code::invalid_carry,
                  "%s has rank %llu; it must be the input's rank without the axis (%llu) or with the axis at size 1",
                  name, ull(c.rank), ull(r.rank - 1));
  for (std::size_t d = 0, k = 0; d < r.rank; ++d) {
    if (d == r.axis) {
      r.strides[op][d] = 0;
      if (keepdims) ++k;
      continue;
    }
    if (c.extents[k] != r.extents[d])
      return status(status_code::invalid_carry, "%s has size %llu where the input has %llu (dimension %llu)",
                    name, ull(c.extents[k]), ull(r.extents[d]), ull(d));
    r.strides[op][d] = c.strides[k++];
  }
  return {};
}

/// Everything the typed layer checks; on success `r` is the request. A carry view without data
/// is absent.
inline status check_typed(const placed_layout& in, const placed_layout& out, int axis_arg,
                          const scan_options& options, const placed_layout& carry_in,
                          const placed_layout& carry_out, scan_request& r) noexcept {
  const std::size_t rank = in.layout.rank;
  if (rank != out.layout.rank)
    return status(status_code::dimension_count_mismatch, "input rank %llu differs from output rank %llu", ull(rank),
                  ull(out.layout.rank));
  const auto signed_rank = static_cast<long long>(rank);
  if (axis_arg < -signed_rank || axis_arg >= signed_rank)
    return status(status_code::invalid_axis, "axis %d is out of range for rank %llu (valid: -%llu .. %lld)", axis_arg,
                  ull(rank), ull(rank), signed_rank - 1);
  for (std::size_t d = 0; d < rank; ++d)
    if (in.layout.extents[d] != out.layout.extents[d])
      return status(status_code::size_mismatch, "input size %llu differs from output size %llu in dimension %llu",
                    ull(in.layout.extents[d]), ull(out.layout.extents[d]), ull(d));
  if (options.direction != axis_direction::increasing && options.direction != axis_direction::decreasing)
    return status(status_code::invalid_direction, "direction is %u; it must be 0 or 1",
                  static_cast<unsigned>(options.direction));
  if (options.accuracy != scan_accuracy::fast && options.accuracy != scan_accuracy::exact)
    return status(status_code::invalid_option, "accuracy is %u; it must be 0 (fast) or 1 (exact)",
                  static_cast<unsigned>(options.accuracy));
  if (!out.layout.is_unique())
    return status(status_code::overlapping_output,
                  "the output view has distinct elements at one address (a zero or interleaving stride)");

  r.set_rank(rank);
  for (std::size_t d = 0; d < rank; ++d) r.extents[d] = in.layout.extents[d];
  r.axis = static_cast<std::size_t>(axis_arg < 0 ? axis_arg + static_cast<int>(rank) : axis_arg);
  r.decreasing = options.direction == axis_direction::decreasing;
  r.exclusive = options.exclusive;
  r.set_strides(in_operand, in.layout);
  r.set_strides(out_operand, out.layout);
  // A carry is absent when its view is empty-handed (no data): a 0-d carry with data is
  // the carry of a 1-D scan's one line.
  r.has_carry_in = carry_in.layout.rank != 0 || carry_in.data != nullptr;
  r.has_carry_out = carry_out.layout.rank != 0 || carry_out.data != nullptr;
  if (r.has_carry_in)
    if (status s = check_carry(carry_in, carry_in_operand, "carry_in", r); !s) return s;
  if (r.has_carry_out) {
    if (status s = check_carry(carry_out, carry_out_operand, "carry_out", r); !s) return s;
    if (!carry_out.layout.is_unique())
      return status(status_code::overlapping_output, "carry_out has distinct elements at one address");
    if (may_overlap(carry_out, in) || may_overlap(carry_out, out))
      return status(status_code::overlapping_buffers, "carry_out overlaps the input or the output");
  }
  if (r.has_carry_in && may_overlap(carry_in, out))
    return status(status_code::overlapping_buffers, "carry_in overlaps the output");
  return {};
}

}  // namespace detail
TALLY_END_NAMESPACE
