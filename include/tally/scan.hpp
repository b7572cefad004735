/// @file
/// @brief The typed layer: `tally::cumsum` and `tally::cumprod` on tensor views, with
/// NumPy/PyTorch conventions (negative axis, empty tensors, any overlap, exceptions).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "data_type.hpp"
#include "detail/run/run_scan.hpp"
#include "detail/validate/typed.hpp"
#include "scan_options.hpp"
#include "status.hpp"
#include "view.hpp"

TALLY_BEGIN_NAMESPACE

/// The type of a carry for element type T: the running value itself, so float for
/// tally::half (no rounding at chunk boundaries) and T for every other type.
template <class T>
using carry_type = detail::carry_t<T>;

namespace detail {

/// Checks, stages an input that overlaps the output, and runs: the typed layer's one
/// place that throws.
template <class Op, class T>
void typed_scan(tensor_view<const T> in, tensor_view<T> out, int axis, const scan_options& options,
                tensor_view<const carry_t<T>> carry_in, tensor_view<carry_t<T>> carry_out) {
  static_assert(tally::is_element_type_v<T>,
                "tally scans float, double, tally::half and 8/16/32/64-bit integers");
  scan_request r;
  r.type = data_type_of_v<T>;
  const placed_layout in_layout = placed(in), out_layout = placed(out);
  if (status s = check_typed(in_layout, out_layout, axis, options, placed(carry_in), placed(carry_out), r); !s)
    throw error(s);
  if (out.empty()) {
    // A zero-length axis still has lines (when the other sizes are not 0): each total
    // is its start, so carry_out receives carry_in, or the identity.
    if (r.has_carry_out && r.extents[r.axis] == 0) pass_carries<Op, T>(r, carry_in.data(), carry_out.data());
    return;
  }
  // Input memory that the output would overwrite before it is read: stage it.
  std::unique_ptr<T[]> staged;
  const T* in_data = in.data();
  if (may_overlap(in_layout, out_layout) && !same_elements(in_layout, out_layout)) {
    staged = packed_copy(in.data(), in_layout.layout);
    if (!staged)
      throw error(status(status_code::out_of_memory, "cannot allocate the %llu-element copy of an input that overlaps "
                                                     "the output", detail::ull(in.size())));
    in_data = staged.get();
    r.set_strides(in_operand, strided_layout::packed(r.rank, r.extents));
  }
  run_scan<Op, T>(r, in_data, out.data(), carry_in.data(), carry_out.data(), executor::from(options));
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
