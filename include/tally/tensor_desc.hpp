/// @file
/// @brief `tally::tensor_desc` (DirectML's DML_BUFFER_TENSOR_DESC) and its minimum buffer size.
#pragma once

#include <cstdint>

#include "data_type.hpp"
#include "detail/layout/strided_layout.hpp"

TALLY_BEGIN_NAMESPACE

/// Largest dimension count tally accepts (DirectML's DML_TENSOR_DIMENSION_COUNT_MAX1).
inline constexpr std::uint32_t max_dimension_count = static_cast<std::uint32_t>(detail::max_rank);

/// A tensor in a buffer, exactly DirectML's DML_BUFFER_TENSOR_DESC without the flags and
/// guaranteed base alignment. Strides count elements; nullptr means packed row-major.
struct tensor_desc {
  data_type type = data_type::unknown;           ///< type of the elements
  std::uint32_t dimension_count = 0;             ///< number of dimensions, 1..8; the length of sizes and strides
  const std::uint32_t* sizes = nullptr;          ///< size of each dimension, outermost first
  const std::uint32_t* strides = nullptr;        ///< nullptr: packed row-major; in elements
  std::uint64_t total_tensor_size_in_bytes = 0;  ///< bytes in the buffer, at least calc_buffer_tensor_size()
};

/// DirectML's DMLCalcBufferTensorSize: bytes from the first to one past the last element,
/// rounded up to a multiple of 4. Returns 0 for a null `sizes`, a dimension count outside
/// 1..8, an unsupported type, a size of 0, or any computation that overflows 64 bits.
inline std::uint64_t calc_buffer_tensor_size(data_type type, std::uint32_t dimension_count,
                                             const std::uint32_t* sizes,
                                             const std::uint32_t* strides) noexcept {
  const std::uint64_t element = element_size(type);
  if (!sizes || element == 0 || dimension_count == 0 || dimension_count > max_dimension_count)
    return 0;
  for (std::uint32_t d = 0; d < dimension_count; ++d)
    if (sizes[d] == 0) return 0;
  // Elements up to the last one: the element count when packed (whose strides could
  // themselves overflow), else the strided span.
  detail::checked_u64 span{1};
  if (strides) {
    span = detail::strided_layout::make(dimension_count, sizes, strides).required_span();
  } else {  // packed: the element count (checked: its own strides could overflow)
    for (std::uint32_t d = 0; d < dimension_count; ++d) span = span * detail::checked_u64{sizes[d]};
  }
  const detail::checked_u64 bytes = span * detail::checked_u64{element};
  const detail::checked_u64 rounded = (bytes + detail::checked_u64{3}) / 4 * detail::checked_u64{4};
  return rounded.overflow ? 0 : rounded.value;
}

TALLY_END_NAMESPACE
