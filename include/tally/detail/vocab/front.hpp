// The typed front door of the vocabulary engine: tensor views in, the engine's checks and
// run, tally::error out. Shared by cumsum / cumprod (wider outputs, complex, bfloat16,
// resets), nancumsum / nancumprod, cummax / cummin, logcumsumexp and scan.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../view.hpp"
#include "engine.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// The axis argument as a dimension index (an axis already checked to be in range).
inline std::size_t axis_index(std::size_t rank, int axis) noexcept {
  return static_cast<std::size_t>(axis < 0 ? axis + static_cast<long long>(rank) : axis);
}

template <class T>
strided_layout layout_of(const tensor_view<T>& v) noexcept {
  return strided_layout::make(v.rank(), v.extents(), v.strides());
}

/// include_initial's own rules for the SIMD engine's cumsum / cumprod (the engine checks
/// the rest): not with exclusive, and an output one longer along the axis. Returns the
/// axis index; throws tally::error.
template <class In, class Out>
std::size_t check_initial_output(const tensor_view<In>& in, const tensor_view<Out>& out, int axis, bool exclusive) {
  const std::size_t in_rank = in.rank(), out_rank = out.rank();
  if (exclusive)
    throw error(status(status_code::invalid_option, "exclusive and include_initial cannot both be set"));
  if (in_rank != out_rank || in_rank == 0)
    throw error(status(status_code::dimension_count_mismatch, "input rank %llu differs from output rank %llu", ull(in_rank),
                       ull(out_rank)));
  const auto signed_rank = static_cast<long long>(in_rank);
  if (axis < -signed_rank || axis >= signed_rank)
    throw error(status(status_code::invalid_axis, "axis %d is out of range for rank %llu (valid: -%llu .. %lld)", axis,
                       ull(in_rank), ull(in_rank), signed_rank - 1));
  const std::size_t a = axis_index(in_rank, axis), length = in.extent(a);
  if (out.extent(a) != length + 1)
    throw error(status(status_code::size_mismatch,
                       "output size %llu in dimension %llu; it must be %llu (the input's length plus one: "
                       "include_initial)",
                       ull(out.extent(a)), ull(a), ull(length + 1)));
  // The scan checks its part of the output and the initial slice is unique alone: only the
  // whole view tells whether the two share addresses.
  if (!layout_of(out).without_unit_strides().is_unique())
    throw error(status(status_code::overlapping_output,
                       "the output view has distinct elements at one address (a zero or interleaving stride)"));
  return a;
}

/// Runs `op` on views; `index`, `resets` and the carries may be absent (default-constructed
/// views).
template <class Op>
void call(const Op& op, const char* name, tensor_view<const typename Op::in_type> in,
          tensor_view<typename Op::out_type> out, tensor_view<std::int64_t> index,
          tensor_view<const std::uint8_t> resets, int axis, const scan_options& options,
          tensor_view<const typename Op::state_type> carry_in = {},
          tensor_view<typename Op::state_type> carry_out = {}) {
  if (is_0d_scan(in, out, options.include_initial)) {
    in = as_scannable(in);
    out = as_scannable(out);
    index = as_scannable(index);
    resets = as_scannable(resets);
  }
  if (in.rank() == 0 && out.rank() != 0)
    throw error(status(status_code::dimension_count_mismatch, "%s: input rank 0 differs from output rank %llu", name,
                       ull(out.rank())));
  if (in.rank() == 0)
    throw error(status(status_code::invalid_dimension_count, "%s: the input is not a tensor (rank 0)", name));
  scan<Op>(op, op_traits{Op::has_identity, name}, in.data(), layout_of(in), out.data(), layout_of(out), index.data(),
           layout_of(index), resets.data(), layout_of(resets), axis, options, {carry_in.data(), layout_of(carry_in)},
           {carry_out.data(), layout_of(carry_out)});
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
