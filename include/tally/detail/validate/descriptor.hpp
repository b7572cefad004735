// DirectML's validation rules for the descriptor layer (spec section 5). The descriptor
// checks hand a scan_request forward; execute() adds the buffer checks on that request.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../status.hpp"
#include "../../tensor_desc.hpp"
#include "../layout/request.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

inline status check_tensor(const tensor_desc* t, const char* name) noexcept {
  if (!t) return status(status_code::null_pointer, "%s is null", name);
  if (!t->sizes) return status(status_code::null_pointer, "%s.sizes is null", name);
  if (t->dimension_count < 1 || t->dimension_count > max_dimension_count)
    return status(status_code::invalid_dimension_count, "%s.dimension_count is %u; it must be 1..%u",
                  name, t->dimension_count, max_dimension_count);
  if (!is_supported(t->type))
    return status(status_code::unsupported_data_type, "%s.type is %u (%s), which tally does not support",
                  name, static_cast<unsigned>(t->type), to_string(t->type));
  for (std::uint32_t d = 0; d < t->dimension_count; ++d)
    if (t->sizes[d] == 0)
      return status(status_code::invalid_size, "%s.sizes[%u] is 0; every size must be at least 1", name, d);
  return {};
}

inline status check_buffer_size(const tensor_desc& t, const char* name) noexcept {
  const std::uint64_t needed = calc_buffer_tensor_size(t.type, t.dimension_count, t.sizes, t.strides);
  // Offsets are signed pointer differences at execution: the layout must fit in ptrdiff_t.
  if (needed == 0 || needed > static_cast<std::uint64_t>(PTRDIFF_MAX))
    return status(status_code::size_overflow,
                  "%s: the sizes and strides address more than %lld bytes (the largest possible object)", name,
                  static_cast<long long>(PTRDIFF_MAX));
  if (t.total_tensor_size_in_bytes > static_cast<std::uint64_t>(PTRDIFF_MAX))
    return status(status_code::size_overflow,
                  "%s.total_tensor_size_in_bytes is %llu, larger than any object can be (%lld bytes)", name,
                  static_cast<unsigned long long>(t.total_tensor_size_in_bytes), static_cast<long long>(PTRDIFF_MAX));
  if (t.total_tensor_size_in_bytes < needed)
    return status(status_code::buffer_too_small,
                  "%s.total_tensor_size_in_bytes is %llu; its sizes and strides need at least %llu",
                  name, static_cast<unsigned long long>(t.total_tensor_size_in_bytes),
                  static_cast<unsigned long long>(needed));
  return {};
}

/// The output's dimension count, type and sizes are the input's.
inline status check_same_shape(const tensor_desc& in, const tensor_desc& out) noexcept {
  if (in.dimension_count != out.dimension_count)
    return status(status_code::dimension_count_mismatch,
                  "input.dimension_count (%u) differs from output.dimension_count (%u)",
                  in.dimension_count, out.dimension_count);
  if (in.type != out.type)
    return status(status_code::data_type_mismatch, "input.type (%s) differs from output.type (%s)",
                  to_string(in.type), to_string(out.type));
  for (std::uint32_t d = 0; d < in.dimension_count; ++d)
    if (in.sizes[d] != out.sizes[d])
      return status(status_code::size_mismatch, "input.sizes[%u] (%u) differs from output.sizes[%u] (%u)",
                    d, in.sizes[d], d, out.sizes[d]);
  return {};
}

/// Everything DirectML checks of a cumulative operator's descriptor; on success `r`
/// holds the request (all but `exclusive`, which the operator's own field gives).
template <class Desc>
status check_descriptor(const Desc* desc, const char* op_name, std::uint32_t axis, std::uint32_t direction,
                        scan_request& r) noexcept {
  if (!desc) return status(status_code::null_pointer, "%s is null", op_name);
  // One tensor_desc for both operands (the usual case) is checked once: a small call's
  // checks are a third of its time.
  const bool one_desc = desc->output == desc->input;
  if (status s = check_tensor(desc->input, "input"); !s) return s;
  if (!one_desc)
    if (status s = check_tensor(desc->output, "output"); !s) return s;
  const tensor_desc& in = *desc->input;
  const tensor_desc& out = *desc->output;
  if (!one_desc)
    if (status s = check_same_shape(in, out); !s) return s;
  if (axis >= in.dimension_count)
    return status(status_code::invalid_axis, "%s.axis is %u; it must be below dimension_count (%u)",
                  op_name, axis, in.dimension_count);
  if (direction > 1)
    return status(status_code::invalid_direction,
                  "%s.direction is %u; it must be 0 (increasing) or 1 (decreasing)", op_name, direction);
  if (status s = check_buffer_size(in, "input"); !s) return s;
  if (!one_desc)
    if (status s = check_buffer_size(out, "output"); !s) return s;
  // Packed strides are unique by construction (and need no layout built: small calls).
  if (out.strides && !strided_layout::make(out.dimension_count, out.sizes, out.strides).is_unique())
    return status(status_code::overlapping_output,
                  "output.strides make distinct output elements share an address (a zero or "
                  "interleaving stride on a dimension of size > 1)");
  r.type = in.type;
  r.set_rank(in.dimension_count);
  // Unsigned: with explicit strides (broadcast ones) the product of the sizes may wrap, but
  // it is only used for an operand without strides, whose buffer check bounds it.
  std::size_t packed = 1;
  for (std::size_t d = r.rank; d-- > 0;) {
    r.extents[d] = in.sizes[d];
    r.strides[in_operand][d] = static_cast<std::ptrdiff_t>(in.strides ? in.strides[d] : packed);
    r.strides[out_operand][d] = static_cast<std::ptrdiff_t>(out.strides ? out.strides[d] : packed);
    packed *= in.sizes[d];
  }
  r.axis = axis;
  r.decreasing = direction == static_cast<std::uint32_t>(axis_direction::decreasing);
  return {};
}

/// The execution-time rules: buffers present, aligned, and either disjoint or the same
/// binding exactly (same base pointer, strides and total size: DirectML's in-place rule).
/// `r` is the checked request of the descriptor that `in` and `out` belong to.
inline status check_buffers(const tensor_desc& in, const tensor_desc& out, const scan_request& r, const void* input,
                            const void* output) noexcept {
  if (!input) return status(status_code::null_pointer, "the input buffer pointer is null");
  if (!output) return status(status_code::null_pointer, "the output buffer pointer is null");
  const std::size_t element = element_size(in.type);
  const auto in_address = reinterpret_cast<std::uintptr_t>(input);
  const auto out_address = reinterpret_cast<std::uintptr_t>(output);
  // Element sizes are powers of two: a mask, not a division (two divisions were a tenth of a small call).
  if ((in_address & (element - 1)) != 0)
    return status(status_code::misaligned_buffer, "the input buffer %p is not aligned to its %llu-byte elements",
                  input, ull(element));
  if ((out_address & (element - 1)) != 0)
    return status(status_code::misaligned_buffer, "the output buffer %p is not aligned to its %llu-byte elements",
                  output, ull(element));
  if (in.total_tensor_size_in_bytes > UINTPTR_MAX - in_address)
    return status(status_code::size_overflow, "input.total_tensor_size_in_bytes (%llu) runs past the end of the address space",
                  static_cast<unsigned long long>(in.total_tensor_size_in_bytes));
  if (out.total_tensor_size_in_bytes > UINTPTR_MAX - out_address)
    return status(status_code::size_overflow, "output.total_tensor_size_in_bytes (%llu) runs past the end of the address space",
                  static_cast<unsigned long long>(out.total_tensor_size_in_bytes));
  const bool disjoint = in_address + in.total_tensor_size_in_bytes <= out_address ||
                        out_address + out.total_tensor_size_in_bytes <= in_address;
  if (disjoint) return {};
  const bool same_binding = in_address == out_address &&
                            in.total_tensor_size_in_bytes == out.total_tensor_size_in_bytes &&
                            std::memcmp(r.strides[in_operand], r.strides[out_operand], r.rank * sizeof(std::ptrdiff_t)) == 0;
  if (!same_binding)
    return status(status_code::overlapping_buffers,
                  "the input and output buffers overlap; in-place execution needs the same base "
                  "pointer, strides and total size");
  return {};
}

}  // namespace detail
TALLY_END_NAMESPACE
