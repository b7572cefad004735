/// @file
/// @brief The descriptor layer: DirectML's cumulative summation and product operators.
#pragma once

#include <cstdint>

#include "data_type.hpp"
#include "detail/engine.hpp"
#include "detail/type_switch.hpp"
#include "detail/validate_desc.hpp"
#include "parallel.hpp"
#include "status.hpp"
#include "tensor_desc.hpp"

TALLY_BEGIN_NAMESPACE

/// DirectML's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC.
struct cumulative_summation_desc {
  const tensor_desc* input = nullptr;                     ///< the tensor to read
  const tensor_desc* output = nullptr;                    ///< the tensor to write; same sizes and type as input
  std::uint32_t axis = 0;                                 ///< dimension to sum along, below dimension_count
  axis_direction direction = axis_direction::increasing;  ///< increasing: from index 0; decreasing: from the last
  bool has_exclusive_sum = false;                         ///< Y[i] excludes X[i]; the first output is 0
};

/// DirectML's DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.
struct cumulative_product_desc {
  const tensor_desc* input = nullptr;                     ///< the tensor to read
  const tensor_desc* output = nullptr;                    ///< the tensor to write; same sizes and type as input
  std::uint32_t axis = 0;                                 ///< dimension to multiply along, below dimension_count
  axis_direction direction = axis_direction::increasing;  ///< increasing: from index 0; decreasing: from the last
  bool has_exclusive_product = false;                     ///< Y[i] excludes X[i]; the first output is 1
};

namespace detail {

inline bool is_exclusive(const cumulative_summation_desc& d) noexcept { return d.has_exclusive_sum; }
inline bool is_exclusive(const cumulative_product_desc& d) noexcept { return d.has_exclusive_product; }

template <class Desc>
status validate_operator(const Desc& desc, const char* name) noexcept {
  return validate_desc(&desc, name, desc.axis, static_cast<std::uint32_t>(desc.direction));
}

template <class Op, class Desc>
status execute_operator(const Desc& desc, const char* name, const void* input, void* output,
                        const execution_options& options) noexcept {
  if (status s = validate_operator(desc, name); !s) return s;
  if (status s = check_buffers(*desc.input, *desc.output, input, output); !s) return s;
  const tensor_desc& in = *desc.input;
  const std::size_t rank = in.dimension_count;
  std::size_t sizes[max_rank];
  std::ptrdiff_t in_strides[max_rank], out_strides[max_rank], no_carry[max_rank] = {};
  for (std::size_t d = 0; d < rank; ++d) sizes[d] = in.sizes[d];
  effective_strides(in, in_strides);
  effective_strides(*desc.output, out_strides);
  const std::ptrdiff_t* strides[operand_count] = {in_strides, out_strides, no_carry, no_carry};
  const scan_layout layout =
      normalize(rank, sizes, strides, desc.axis, desc.direction == axis_direction::decreasing);
  visit_data_type(in.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scan_operands<T> p;
    p.in = static_cast<const T*>(input) + layout.offset[in_operand];
    p.out = static_cast<T*>(output) + layout.offset[out_operand];
    run_scan<Op, T>(layout, p, is_exclusive(desc), options);
  });
  return {};
}

}  // namespace detail

/// Checks a summation descriptor against DirectML's rules; nothing is executed.
[[nodiscard]] inline status validate(const cumulative_summation_desc& desc) noexcept {
  return detail::validate_operator(desc, "cumulative_summation_desc");
}

/// Checks a product descriptor against DirectML's rules; nothing is executed.
[[nodiscard]] inline status validate(const cumulative_product_desc& desc) noexcept {
  return detail::validate_operator(desc, "cumulative_product_desc");
}

/// Validates, checks the buffers (non-null, aligned, disjoint or exactly in place) and
/// computes the cumulative sum. On any error nothing is written.
[[nodiscard]] inline status execute(const cumulative_summation_desc& desc, const void* input, void* output,
                                    const execution_options& options = {}) noexcept {
  return detail::execute_operator<detail::sum_op>(desc, "cumulative_summation_desc", input, output, options);
}

/// Validates, checks the buffers and computes the cumulative product. On any error
/// nothing is written.
[[nodiscard]] inline status execute(const cumulative_product_desc& desc, const void* input, void* output,
                                    const execution_options& options = {}) noexcept {
  return detail::execute_operator<detail::product_op>(desc, "cumulative_product_desc", input, output, options);
}

TALLY_END_NAMESPACE
