/// @file
/// @brief The typed layer: `tally::cumsum` and `tally::cumprod` on tensor views, with
/// NumPy/PyTorch conventions (negative axis, empty tensors, any overlap, exceptions).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "data_type.hpp"
#include "detail/ops/arithmetic.hpp"
#include "detail/ops/exact_sum.hpp"
#include "detail/precompiled.hpp"
#include "detail/run/run_scan.hpp"
#include "detail/validate/typed.hpp"
#include "detail/vocab/front.hpp"
#include "detail/vocab/small_exact.hpp"
#include "scan_options.hpp"
#include "status.hpp"
#include "view.hpp"

TALLY_BEGIN_NAMESPACE

/// The type of a carry for element type T: the finest running value any mode keeps, so that
/// no chunk boundary rounds it: double for float, tally::double_double for double, float
/// for tally::half, T for the integers.
template <class T>
using carry_type = detail::carry_t<T>;

namespace detail {

template <class Op, class T>
void typed_scan(const tensor_view<const T>& in_view, const tensor_view<T>& out_view, int axis,
                const scan_options& options, tensor_view<const carry_t<T>> carry_in,
                tensor_view<carry_t<T>> carry_out);

/// include_initial on the SIMD engine: the scan goes to the output without its initial
/// slice (so it keeps the kernels' speed and bits), then the slice receives the carry or
/// the empty value. The slice is written last, after the input has been read, so an input
/// that overlaps it behaves as if copied first.
template <class Op, class T>
void typed_scan_with_initial(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options,
                             tensor_view<const carry_t<T>> carry_in, tensor_view<carry_t<T>> carry_out) {
  const std::size_t rank = in.rank();
  const std::size_t a = vocab::check_initial_output(in, out, axis, options.exclusive);
  const std::size_t length = in.extent(a);
  std::size_t extents[max_rank];
  for (std::size_t d = 0; d < rank; ++d) extents[d] = out.extent(d);
  const bool increasing = options.direction == axis_direction::increasing;
  const std::ptrdiff_t step = length > 0 ? out.stride(a) : 0;
  extents[a] = length;
  // (No pointer arithmetic on an empty output, whose data may be null.)
  const auto shifted = [&](std::ptrdiff_t k) { return out.empty() ? out.data() : out.data() + k; };
  const tensor_view<T> rest(shifted(increasing ? step : 0), rank, extents, out.strides());
  extents[a] = 1;
  const tensor_view<T> initial(shifted(increasing ? 0 : static_cast<std::ptrdiff_t>(length) * step), rank, extents,
                               out.strides());
  options.include_initial = false;
  typed_scan<Op, T>(in, rest, axis, options, carry_in, carry_out);
  // The carry (if any) has the input's shape without the axis, or with it at size 1: walk
  // it beside the initial slice.
  std::ptrdiff_t carry_strides[max_rank] = {};
  if (carry_in.rank() != 0)
    for (std::size_t d = 0, k = 0; d < rank; ++d) {
      if (d == a) {
        if (carry_in.rank() == rank) ++k;
        continue;
      }
      carry_strides[d] = carry_in.extent(k) > 1 ? carry_in.stride(k) : 0;
      ++k;
    }
  nd_walker<2> w;
  w.dims = rank;
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    w.extents[d] = extents[d];
    w.strides[0][d] = extents[d] > 1 ? out.stride(d) : 0;
    w.strides[1][d] = carry_strides[d];
    count *= extents[d];
  }
  if (count == 0) return;
  const T empty = from_acc<T>(Op::template empty<acc_t<T>>());
  w.start(0);
  for (std::size_t i = 0; i < count; ++i, w.next())
    initial.data()[w.offset[0]] =
        carry_in.rank() != 0 ? from_acc<T>(acc_from_carry<T>(carry_in.data()[w.offset[1]])) : empty;
}

/// Checks, stages an input that overlaps the output, and runs: the typed layer's one
/// place that throws.
/// (The views come by reference so that the small-call path before it copies nothing.)
template <class Op, class T>
void typed_scan(const tensor_view<const T>& in_view, const tensor_view<T>& out_view, int axis,
                const scan_options& options, tensor_view<const carry_t<T>> carry_in,
                tensor_view<carry_t<T>> carry_out) {
  tensor_view<const T> in = in_view;
  tensor_view<T> out = out_view;
  if (is_0d_scan(in, out, options.include_initial)) {
    in = as_scannable(in);
    out = as_scannable(out);
  }
  if (options.include_initial) return typed_scan_with_initial<Op, T>(in, out, axis, options, carry_in, carry_out);
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

/// cumsum / cumprod of T into T: float32 and float64 in the exact mode on exact_op's running
/// value (the vocabulary engine), everything else on the SIMD engine; both take carries of
/// carry_t<T>, the exact mode's running value.
template <class Op, class T>
void scan_same_type(const char* name, const tensor_view<const T>& in, const tensor_view<T>& out, int axis,
                    const scan_options& options, tensor_view<const carry_t<T>> carry_in,
                    tensor_view<carry_t<T>> carry_out) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    if (options.accuracy == scan_accuracy::exact)
      return vocab::call(exact_op<Op, T>{}, name, in, out, {}, {}, axis, options, carry_in, carry_out);
  typed_scan<Op, T>(in, out, axis, options, carry_in, carry_out);
}

}  // namespace detail

/// Cumulative sum of `in` along `axis` (negative counts from the back) into `out`.
/// `out` may overlap `in` in any way. Throws tally::error on invalid arguments.
/// The output type U may be wider than T (NumPy's `dtype=`): each element is converted to
/// U, and the running value is kept in U (integers wrap in U). Pairs where U cannot hold
/// every value of T do not compile. T and U may also be std::complex or tally::bfloat16.
/// `options.accuracy` chooses how float32 and float64 sums round (scan_accuracy).
template <class T, class U = T>
void cumsum(tensor_view<const T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  if constexpr (std::is_same_v<T, U> && is_element_type_v<T>) {
    if (!detail::small_typed_scan<detail::sum_op, T>(in, out, axis, options) &&
        !detail::vocab::small_exact_scan<detail::sum_op, T>(in, out, axis, options))
      detail::scan_same_type<detail::sum_op, T>("cumsum", in, out, axis, options, {}, {});
  } else {
    detail::vocab::call(detail::widening_sum<T, U>{}, "cumsum", in, out, {}, {}, axis, options);
  }
}

/// Cumulative product of `in` along `axis` into `out`; see cumsum.
template <class T, class U = T>
void cumprod(tensor_view<const T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  if constexpr (std::is_same_v<T, U> && is_element_type_v<T>) {
    if (!detail::small_typed_scan<detail::product_op, T>(in, out, axis, options) &&
        !detail::vocab::small_exact_scan<detail::product_op, T>(in, out, axis, options))
      detail::scan_same_type<detail::product_op, T>("cumprod", in, out, axis, options, {}, {});
  } else {
    detail::vocab::call(detail::widening_product<T, U>{}, "cumprod", in, out, {}, {}, axis, options);
  }
}

/// Chunked cumulative sum: each line starts from `carry_in` (absent: from 0) and its
/// running value at the end is written to `carry_out` (absent: not written). Both have the
/// input's shape without the axis (or with the axis at size 1) and may be the same view.
/// A carry is a `carry_type<T>`: the finest running value any mode keeps (double for
/// float, tally::double_double for double, float for tally::half, else T), so that
/// scanning a tensor in chunks along the axis, passing each chunk's carry_out as the next
/// chunk's carry_in, equals one call: bitwise for integers and in the exact mode, and in
/// the fast mode when every chunk but the last is a multiple of `scan_block_elements` long.
template <class T>
void cumsum(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options,
            tensor_view<const carry_type<T>> carry_in, tensor_view<carry_type<T>> carry_out) {
  detail::scan_same_type<detail::sum_op, T>("cumsum", in, out, axis, options, carry_in, carry_out);
}

/// Chunked cumulative product (absent carry_in: from 1); see the chunked cumsum.
template <class T>
void cumprod(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options,
             tensor_view<const carry_type<T>> carry_in, tensor_view<carry_type<T>> carry_out) {
  detail::scan_same_type<detail::product_op, T>("cumprod", in, out, axis, options, carry_in, carry_out);
}

/// Convenience overloads for mutable input views (a tensor_view<T> does not deduce
/// tensor_view<const T>).
template <class T, class U = T, std::enable_if_t<!std::is_const_v<T>, int> = 0>
void cumsum(tensor_view<T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  cumsum<T, U>(tensor_view<const T>(in), out, axis, options);
}
/// cumprod() for a mutable input view; see the cumsum overload above.
template <class T, class U = T, std::enable_if_t<!std::is_const_v<T>, int> = 0>
void cumprod(tensor_view<T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  cumprod<T, U>(tensor_view<const T>(in), out, axis, options);
}

/// Elements per float block: chunk lengths that are multiples of it reproduce one call bitwise.
inline constexpr std::size_t scan_block_elements = detail::block_elements;

TALLY_DECLARE_SEPARATE(TALLY_TYPED_INSTANCES)

TALLY_END_NAMESPACE
