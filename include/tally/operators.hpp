/// @file
/// @brief The descriptor layer: DirectML's cumulative summation and product operators.
#pragma once

#include <cstdint>

#include "data_type.hpp"
#include "detail/dispatch/element_type.hpp"
#include "detail/precompiled.hpp"
#include "detail/run/run_scan.hpp"
#include "detail/validate/descriptor.hpp"
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

/// The descriptor checks of an operator; on success `r` is its checked request.
template <class Desc>
status check_operator(const Desc& desc, const char* name, scan_request& r) noexcept {
  if (status s = check_descriptor(&desc, name, desc.axis, static_cast<std::uint32_t>(desc.direction), r); !s)
    return s;
  r.exclusive = is_exclusive(desc);
  return {};
}

/// Runs a checked request whose buffers have passed check_buffers.
template <class Op>
void execute_checked(const scan_request& r, const void* input, void* output,
                     const execution_options& options) noexcept {
  visit_data_type(r.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_scan<Op, T>(r, static_cast<const T*>(input), static_cast<T*>(output), nullptr, nullptr,
                    executor::from(options));
  });
}
TALLY_DECLARE_SEPARATE(TALLY_DESCRIPTOR_INSTANCES)

template <class Op, class Desc>
status execute_operator(const Desc& desc, const char* name, const void* input, void* output,
                        const execution_options& options) noexcept {
  scan_request r;
  if (status s = check_operator(desc, name, r); !s) return s;
  if (status s = check_buffers(*desc.input, *desc.output, r, input, output); !s) return s;
  execute_checked<Op>(r, input, output, options);
  return {};
}

}  // namespace detail

/// Checks a summation descriptor against DirectML's rules; nothing is executed.
[[nodiscard]] inline status validate(const cumulative_summation_desc& desc) noexcept {
  detail::scan_request r;
  return detail::check_operator(desc, "cumulative_summation_desc", r);
}

/// Checks a product descriptor against DirectML's rules; nothing is executed.
[[nodiscard]] inline status validate(const cumulative_product_desc& desc) noexcept {
  detail::scan_request r;
  return detail::check_operator(desc, "cumulative_product_desc", r);
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
