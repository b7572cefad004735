// The operator concept of the vocabulary engine (detail/vocab/engine.hpp): everything an
// operator says about itself, so that adding one is one small file in this folder.
//
//   struct my_op {
//     using in_type = ...;     // the element read from the input
//     using out_type = ...;    // the element written to the output
//     using state_type = ...;  // the running value of a line
//     static constexpr bool has_identity = ...;  // exclusive, include_initial and resets allowed
//     static constexpr bool has_index = ...;     // also writes an int64 index per element
//     state_type start() const;   // the running value before the first element (the identity)
//     out_type empty() const;     // written where nothing is combined yet (exclusive start,
//                                 // include_initial's extra element, a segment's start)
//     state_type combine(state_type running, in_type x, std::int64_t position) const;
//                                 // `running` first, the next element in scan order second;
//                                 // `position` is x's index along the axis in the input's order
//     out_type value(const state_type&) const;
//     std::int64_t index(const state_type&) const;  // only when has_index
//     state_type first(in_type x, std::int64_t position) const;
//                                 // optional: the running value after a line's first
//                                 // element, when combine(start(), x) would differ from it
//     static constexpr bool single_element_is_copy = true;
//                                 // optional: a line of one element writes that element
//                                 // bit for bit (a signalling NaN aside), so an inclusive
//                                 // scan along an axis of one element may be a copy
//     static constexpr bool exclusive_from_inclusive = true;
//                                 // optional: the vector forms' regrouped folds give the
//                                 // sequential fold's outputs (integer sums, exact sums),
//                                 // so an exclusive line may be scanned inclusive and its
//                                 // outputs moved one place on (engine.hpp)
//   };
//
// The engine combines every line sequentially in scan order, so the result of a line
// never depends on how lines are grouped into tiles or threads.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../../bfloat16.hpp"
#include "../../half.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

/// half and bfloat16: 16-bit storage formats computed in float32.
template <class T>
inline constexpr bool is_short_float_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

/// Real floating-point element types (storage formats included).
template <class T>
inline constexpr bool is_real_float_v = std::is_floating_point_v<T> || is_short_float_v<T>;

/// Whether Op declares `single_element_is_copy` (see above).
template <class Op, class = void>
inline constexpr bool single_element_is_copy_v = false;
template <class Op>
inline constexpr bool single_element_is_copy_v<Op, std::void_t<decltype(Op::single_element_is_copy)>> =
    Op::single_element_is_copy;

/// Whether Op declares `exclusive_from_inclusive` (see above).
template <class Op, class = void>
inline constexpr bool exclusive_from_inclusive_v = false;
template <class Op>
inline constexpr bool exclusive_from_inclusive_v<Op, std::void_t<decltype(Op::exclusive_from_inclusive)>> =
    Op::exclusive_from_inclusive;

/// The value of a real element as the type it is compared and computed in.
template <class T>
using compute_t = std::conditional_t<is_short_float_v<T>, float, T>;

template <class T>
inline compute_t<T> to_compute(T x) noexcept {
  if constexpr (is_short_float_v<T>)
    return static_cast<float>(x);
  else
    return x;
}

/// NaN test for every element type (false for integers; either part for complex, as NumPy).
template <class T>
inline bool is_nan_value(const T& x) noexcept {
  if constexpr (is_complex_v<T>)
    return std::isnan(x.real()) || std::isnan(x.imag());
  else if constexpr (is_real_float_v<T>)
    return std::isnan(to_compute(x));
  else
    return false;
}

/// The running value after the first element of a line or segment: op.first(x) where the
/// operator defines it, else combine(start(), x).
template <class Op>
auto first_value(const Op& op, const typename Op::in_type& x, std::int64_t position)
    -> decltype(op.first(x, position)) {
  return op.first(x, position);
}
template <class Op, class... Ignored>
typename Op::state_type first_value(const Op& op, const typename Op::in_type& x, std::int64_t position,
                                    Ignored...) {
  return op.combine(op.start(), x, position);
}

}  // namespace detail
TALLY_END_NAMESPACE
