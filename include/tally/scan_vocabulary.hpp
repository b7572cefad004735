/// @file
/// @brief The typed layer's scans beyond cumsum / cumprod: segmented sums and products,
/// NaN-skipping sums and products, cummax / cummin (with or without indices),
/// logcumsumexp, and `tally::scan` with any associative operator. The contract is
/// shared/spec/scan-vocabulary.md; the choices it leaves open are in docs/vocabulary.md.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "bfloat16.hpp"
#include "detail/ops/arithmetic.hpp"
#include "detail/ops/extremum.hpp"
#include "detail/ops/logcumsumexp.hpp"
#include "detail/ops/user.hpp"
#include "detail/vocab/front.hpp"
#include "scan.hpp"

TALLY_BEGIN_NAMESPACE

namespace detail {
/// The flag view type of segmented scans: tensor_view<const std::uint8_t> (or a mutable
/// one). Deduced rather than spelled in the signature so that `cumsum(in, out, axis, {})`
/// still means empty scan_options, not an empty flag view.
template <class R>
using if_reset_flags = std::enable_if_t<std::is_same_v<std::remove_const_t<R>, std::uint8_t>, int>;
}  // namespace detail

/// Segmented cumulative sum: `resets` (a tensor_view<const std::uint8_t>) has the input's
/// shape (any strides, broadcast allowed); a nonzero flag at position i starts a new
/// segment there (the running value restarts from the identity before combining in[i]),
/// in the scan's direction. Lines are folded in sequence (no SIMD regrouping).
template <class T, class R, detail::if_reset_flags<R> = 0>
void cumsum(tensor_view<const T> in, tensor_view<T> out, int axis, tensor_view<R> resets, scan_options options = {}) {
  if (resets.rank() == 0 && !resets.is_scalar())
    throw error(status(status_code::invalid_dimension_count, "cumsum: resets is not a tensor"));
  detail::vocab::call(detail::widening_sum<T, T>{}, "cumsum", in, out, {}, tensor_view<const std::uint8_t>(resets),
                      axis, options);
}

/// Segmented cumulative product; see the segmented cumsum.
template <class T, class R, detail::if_reset_flags<R> = 0>
void cumprod(tensor_view<const T> in, tensor_view<T> out, int axis, tensor_view<R> resets,
             scan_options options = {}) {
  if (resets.rank() == 0 && !resets.is_scalar())
    throw error(status(status_code::invalid_dimension_count, "cumprod: resets is not a tensor"));
  detail::vocab::call(detail::widening_product<T, T>{}, "cumprod", in, out, {}, tensor_view<const std::uint8_t>(resets),
                      axis, options);
}

/// NumPy's nancumsum: a NaN element counts as 0 (integers have none). U as in cumsum;
/// float32 and float64 into themselves follow `options.accuracy` as cumsum does, so the
/// result is cumsum's of the input with its NaNs replaced by +0.
template <class T, class U = T>
void nancumsum(tensor_view<const T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  if constexpr (std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, double>))
    if (options.accuracy == scan_accuracy::exact)
      return detail::vocab::call(detail::exact_op<detail::sum_op, T, true>{}, "nancumsum", in, out, {}, {}, axis,
                                 options);
  detail::vocab::call(detail::nan_sum<T, U>{}, "nancumsum", in, out, {}, {}, axis, options);
}

/// NumPy's nancumprod: a NaN element counts as 1. U and the accuracy as in nancumsum.
template <class T, class U = T>
void nancumprod(tensor_view<const T> in, tensor_view<U> out, int axis, scan_options options = {}) {
  if constexpr (std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, double>))
    if (options.accuracy == scan_accuracy::exact)
      return detail::vocab::call(detail::exact_op<detail::product_op, T, true>{}, "nancumprod", in, out, {}, {}, axis,
                                 options);
  detail::vocab::call(detail::nan_product<T, U>{}, "nancumprod", in, out, {}, {}, axis, options);
}

namespace detail {
template <bool Max, class T>
void extremum(const char* name, tensor_view<const T> in, tensor_view<T> values, tensor_view<std::int64_t> indices,
              bool with_indices, int axis, const scan_options& options) {
  if (with_indices) {
    if (indices.rank() == 0 && !indices.is_scalar())
      throw error(status(status_code::invalid_dimension_count, "%s: indices is not a tensor", name));
    vocab::call(extremum_op<T, Max, true>{}, name, in, values, indices, {}, axis, options);
  } else {
    vocab::call(extremum_op<T, Max, false>{}, name, in, values, {}, {}, axis, options);
  }
}
}  // namespace detail

/// Running maximum and the index (along the axis, from 0 in the input's own order, whatever
/// the direction) where it was reached, as PyTorch's cummax: ties take the element scanned
/// last; once a NaN is seen the value stays NaN and the index is the first NaN's.
/// `exclusive` and `include_initial` are errors (no identity goes with an index).
template <class T>
void cummax(tensor_view<const T> in, tensor_view<T> values, tensor_view<std::int64_t> indices, int axis,
            scan_options options = {}) {
  detail::extremum<true, T>("cummax", in, values, indices, true, axis, options);
}
/// Running minimum and its index; see cummax.
template <class T>
void cummin(tensor_view<const T> in, tensor_view<T> values, tensor_view<std::int64_t> indices, int axis,
            scan_options options = {}) {
  detail::extremum<false, T>("cummin", in, values, indices, true, axis, options);
}
/// Running maximum without the indices; see cummax.
template <class T>
void cummax(tensor_view<const T> in, tensor_view<T> values, int axis, scan_options options = {}) {
  detail::extremum<true, T>("cummax", in, values, {}, false, axis, options);
}
/// Running minimum without the indices; see cummax.
template <class T>
void cummin(tensor_view<const T> in, tensor_view<T> values, int axis, scan_options options = {}) {
  detail::extremum<false, T>("cummin", in, values, {}, false, axis, options);
}

/// log(cumsum(exp(x))), computed stably (running maximum); float, double, half and
/// bfloat16. -inf is the identity (exclusive and include_initial write it), +inf absorbs
/// any number, NaN propagates. Every output is within a few ulp of double of the exact
/// value, then rounded to T; with `options.accuracy = scan_accuracy::fast`, float elements
/// may take exp and log in float (AVX2), within about 2e-7 at the scale of max(|y|, 1)
/// and 1.6x to 2.3x faster (docs/vocabulary.md).
template <class T>
void logcumsumexp(tensor_view<const T> in, tensor_view<T> out, int axis, scan_options options = {}) {
  if constexpr (std::is_same_v<T, float>)
    if (options.accuracy == scan_accuracy::fast)
      return detail::vocab::call(detail::logcumsumexp_op<T, true>{}, "logcumsumexp", in, out, {}, {}, axis, options);
  detail::vocab::call(detail::logcumsumexp_op<T>{}, "logcumsumexp", in, out, {}, {}, axis, options);
}

/// Scan with any associative operator: `op(a, b)` combines the running value `a` with the
/// next element `b` in the scan's direction and returns the new running value; `identity`
/// is its neutral element (exclusive, include_initial, empty lines). T is any trivially
/// copyable type. Each line is folded left to right in scan order, never reordered; lines
/// run on `options.threads` threads. `op` must not throw.
template <class T, class Op>
void scan(tensor_view<const T> in, tensor_view<T> out, int axis, Op op, T identity, scan_options options = {}) {
  detail::vocab::call(detail::user_op<T, Op>{op, identity}, "scan", in, out, {}, {}, axis, options);
}

TALLY_END_NAMESPACE
