// The checked request: what each front door's validation hands forward, and all that
// normalization, planning and running need to know of the call. Every field has passed
// validation: sizes and strides address no more than PTRDIFF_MAX bytes, the output is
// unique, operands do not overlap unless exactly in place.
#pragma once

#include <cstddef>

#include "../../data_type.hpp"
#include "strided_layout.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Operands of a scan. The carries have the input's shape without the axis.
enum operand : int { in_operand = 0, out_operand = 1, carry_in_operand = 2, carry_out_operand = 3 };
inline constexpr int operand_count = 4;

/// Only the first `rank` entries of `extents` and `strides` are set and read: zeroing the
/// whole 330-byte request (a `rep stosq`) was a fifth of a 16-float descriptor call.
struct scan_request {
  data_type type = data_type::unknown;  // the element type
  std::size_t rank = 0;
  std::size_t extents[max_rank];
  /// Signed element strides per operand at full rank; an absent carry has all-zero
  /// strides, and a present carry stride 0 along the axis. (The typed door zeroes the
  /// strides of dimensions that never step; normalize() never multiplies by them.)
  std::ptrdiff_t strides[operand_count][max_rank];
  bool has_carry_in = false, has_carry_out = false;
  std::size_t axis = 0;
  bool decreasing = false;
  bool exclusive = false;

  /// Sets the rank, with both carries absent: their strides zero up to `n`. Extents and
  /// the data's strides are the caller's to set.
  void set_rank(std::size_t n) noexcept {
    rank = n;
    for (std::size_t d = 0; d < n; ++d) strides[carry_in_operand][d] = strides[carry_out_operand][d] = 0;
  }

  /// Sets operand op's strides from `layout` (same rank).
  void set_strides(int op, const strided_layout& layout) noexcept {
    for (std::size_t d = 0; d < rank; ++d) strides[op][d] = layout.strides[d];
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
