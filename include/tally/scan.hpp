/// @file
/// @brief The typed layer: `tally::cumsum` and `tally::cumprod` on tensor views, with
/// NumPy/PyTorch conventions (negative axis, empty tensors, any overlap, exceptions).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "data_type.hpp"
#include "detail/engine.hpp"
#include "detail/overlap.hpp"
#include "parallel.hpp"
#include "status.hpp"
#include "view.hpp"

TALLY_BEGIN_NAMESPACE

/// Options of a typed scan: where to run (threads, a host pool: the execution_options
/// it extends) and what to compute.
struct scan_options : execution_options {
  /// `{direction, exclusive, threads}` in that order, each optional.
  scan_options(axis_direction direction_ = axis_direction::increasing, bool exclusive_ = false,
               unsigned threads_ = 1) noexcept
      : execution_options{threads_, nullptr, nullptr}, direction(direction_), exclusive(exclusive_) {}

  /// Increasing: scan from index 0; decreasing: from the last index.
  axis_direction direction = axis_direction::increasing;
  bool exclusive = false;  ///< Y[i] excludes X[i]; the first output is the identity (or the carry)
};

/// The type of a carry for element type T: the running value itself, so float for
/// tally::half (no rounding at chunk boundaries) and T for every other type.
template <class T>
using carry_type = detail::carry_t<T>;

namespace detail {

template <class T>
std::size_t checked_axis(const tensor_view<T>& v, int axis) {
  const int rank = static_cast<int>(v.rank());
  if (axis < -rank || axis >= rank)
    throw error(status_code::invalid_axis, "axis " + std::to_string(axis) + " is out of range for rank " +
                                               std::to_string(rank) + " (valid: -" + std::to_string(rank) +
                                               " .. " + std::to_string(rank - 1) + ")");
  return static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
}

/// Fills `strides` with the carry's strides at full rank (0 on the axis). A carry is the
/// input's shape without the axis, or with the axis kept at size 1 (NumPy's keepdims).
template <class C, class T>
void carry_strides(const tensor_view<C>& carry, const tensor_view<T>& in, std::size_t axis,
                   const char* name, std::ptrdiff_t* strides) {
  const std::size_t rank = in.rank();
  const bool keepdims = carry.rank() == rank && carry.extent(axis) == 1;
  if (!keepdims && carry.rank() + 1 != rank)
    throw error(status_code::invalid_carry, std::string(name) + " has rank " + std::to_string(carry.rank()) +
                                                "; it must be the input's rank without the axis (" +
                                                std::to_string(rank - 1) + ") or with the axis at size 1");
  for (std::size_t d = 0, c = 0; d < rank; ++d) {
    if (d == axis) {
      strides[d] = 0;
      if (keepdims) ++c;
      continue;
    }
    if (carry.extent(c) != in.extent(d))
      throw error(status_code::invalid_carry, std::string(name) + " has size " + std::to_string(carry.extent(c)) +
                                                  " where the input has " + std::to_string(in.extent(d)));
    strides[d] = carry.stride(c++);
  }
}

/// carry_out = carry_in (or the identity) for every line of a tensor whose axis is empty.
template <class Op, class T>
void pass_carries(const tensor_view<const T>& in, std::size_t axis, const tensor_view<const carry_t<T>>& carry_in,
                  const std::ptrdiff_t* in_strides, const tensor_view<carry_t<T>>& carry_out,
                  const std::ptrdiff_t* out_strides) noexcept {
  std::size_t count = 1;
  for (std::size_t d = 0; d < in.rank(); ++d)
    if (d != axis) count *= in.extent(d);
  std::size_t index[max_rank] = {};
  std::ptrdiff_t from = 0, to = 0;
  for (std::size_t i = 0; i < count; ++i) {
    carry_out.data()[to] = carry_in.rank() != 0 ? carry_in.data()[from]
                                                : carry_from_acc<T>(Op::template identity<acc_t<T>>());
    for (std::size_t d = in.rank(); d-- > 0;) {
      if (d == axis) continue;
      from += in_strides[d];
      to += out_strides[d];
      if (++index[d] < in.extent(d)) break;
      from -= static_cast<std::ptrdiff_t>(in.extent(d)) * in_strides[d];
      to -= static_cast<std::ptrdiff_t>(in.extent(d)) * out_strides[d];
      index[d] = 0;
    }
  }
}

template <class Op, class T>
void typed_scan(tensor_view<const T> in, tensor_view<T> out, int axis_arg, const scan_options& options,
                tensor_view<const carry_t<T>> carry_in, tensor_view<carry_t<T>> carry_out) {
  static_assert(tally::is_element_type_v<T>,
                "tally scans float, double, tally::half and 8/16/32/64-bit integers");
  if (in.rank() != out.rank())
    throw error(status_code::dimension_count_mismatch, "input rank " + std::to_string(in.rank()) +
                                                           " differs from output rank " + std::to_string(out.rank()));
  const std::size_t axis = checked_axis(in, axis_arg);
  for (std::size_t d = 0; d < in.rank(); ++d)
    if (in.extent(d) != out.extent(d))
      throw error(status_code::size_mismatch, "input size " + std::to_string(in.extent(d)) + " differs from output size " +
                                                  std::to_string(out.extent(d)) + " in dimension " + std::to_string(d));
  if (options.direction != axis_direction::increasing && options.direction != axis_direction::decreasing)
    throw error(status_code::invalid_direction,
                "direction is " + std::to_string(static_cast<unsigned>(options.direction)) + "; it must be 0 or 1");
  if (has_self_overlap(out.rank(), out.extents(), out.strides()))
    throw error(status_code::overlapping_output,
                "the output view has distinct elements at one address (a zero or interleaving stride)");

  const std::size_t rank = in.rank();
  std::ptrdiff_t carry_in_strides[max_rank] = {}, carry_out_strides[max_rank] = {};
  if (carry_in.rank() != 0) carry_strides(carry_in, in, axis, "carry_in", carry_in_strides);
  if (carry_out.rank() != 0) {
    carry_strides(carry_out, in, axis, "carry_out", carry_out_strides);
    if (has_self_overlap(carry_out.rank(), carry_out.extents(), carry_out.strides()))
      throw error(status_code::overlapping_output, "carry_out has distinct elements at one address");
    if (may_overlap(carry_out, in) || may_overlap(carry_out, out))
      throw error(status_code::overlapping_buffers, "carry_out overlaps the input or the output");
  }
  if (carry_in.rank() != 0 && may_overlap(carry_in, out))
    throw error(status_code::overlapping_buffers, "carry_in overlaps the output");
  if (out.empty()) {
    // A zero-length axis still has lines (when the other sizes are not 0): each total
    // is its start, so carry_out receives carry_in, or the identity.
    if (carry_out.rank() != 0 && in.extent(axis) == 0) pass_carries<Op, T>(in, axis, carry_in, carry_in_strides,
                                                                           carry_out, carry_out_strides);
    return;
  }

  // Input memory that the output would overwrite before it is read: stage it.
  std::unique_ptr<T[]> staged;
  if (may_overlap(in, out) && !same_elements(in, out)) {
    staged = packed_copy(in);
    in = tensor_view<const T>(staged.get(), rank, in.extents());
  }

  const std::ptrdiff_t* strides[operand_count] = {in.strides(), out.strides(), carry_in_strides, carry_out_strides};
  const scan_layout layout =
      normalize(rank, in.extents(), strides, axis, options.direction == axis_direction::decreasing);
  scan_operands<T> p;
  p.in = in.data() + layout.offset[in_operand];
  p.out = out.data() + layout.offset[out_operand];
  if (carry_in.rank() != 0) p.carry_in = carry_in.data() + layout.offset[carry_in_operand];
  if (carry_out.rank() != 0) p.carry_out = carry_out.data() + layout.offset[carry_out_operand];
  run_scan<Op, T>(layout, p, options.exclusive, options);
}

}  // namespace detail

/// Cumulative sum of `in` along `axis` (negative counts from the back) into `out`.
/// `out` may overlap `in` in any way. Throws tally::error on invalid arguments.
template <class T>
void cumsum(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options = {}) {
  detail::typed_scan<detail::sum_op, T>(in, out, axis, options, {}, {});
}

/// Cumulative product of `in` along `axis` into `out`; see cumsum.
template <class T>
void cumprod(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options = {}) {
  detail::typed_scan<detail::product_op, T>(in, out, axis, options, {}, {});
}

/// Chunked cumulative sum: each line starts from `carry_in` (absent: from 0) and its
/// total is written to `carry_out` (absent: not written). Both have the input's shape
/// without the axis (or with the axis at size 1) and may be the same view. Scanning a
/// tensor in chunks along the axis, passing each chunk's carry_out as the next chunk's
/// carry_in, equals one call: bitwise for integers, and for floating point when every
/// chunk but the last is a multiple of `scan_block_elements` long.
template <class T>
void cumsum(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options,
            tensor_view<const carry_type<T>> carry_in, tensor_view<carry_type<T>> carry_out) {
  detail::typed_scan<detail::sum_op, T>(in, out, axis, options, carry_in, carry_out);
}

/// Chunked cumulative product (absent carry_in: from 1); see the chunked cumsum.
template <class T>
void cumprod(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options,
             tensor_view<const carry_type<T>> carry_in, tensor_view<carry_type<T>> carry_out) {
  detail::typed_scan<detail::product_op, T>(in, out, axis, options, carry_in, carry_out);
}

/// Convenience overloads for mutable input views (a tensor_view<T> does not deduce
/// tensor_view<const T>).
template <class T, std::enable_if_t<!std::is_const_v<T>, int> = 0>
void cumsum(tensor_view<T> in, tensor_view<T> out, int axis, scan_options options = {}) {
  cumsum<T>(tensor_view<const T>(in), out, axis, options);
}
/// cumprod() for a mutable input view; see the cumsum overload above.
template <class T, std::enable_if_t<!std::is_const_v<T>, int> = 0>
void cumprod(tensor_view<T> in, tensor_view<T> out, int axis, scan_options options = {}) {
  cumprod<T>(tensor_view<const T>(in), out, axis, options);
}

/// Elements per float block: chunk lengths that are multiples of it reproduce one call bitwise.
inline constexpr std::size_t scan_block_elements = detail::block_elements;

TALLY_END_NAMESPACE
