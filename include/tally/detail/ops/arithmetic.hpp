// Sums and products with the running value kept in an output type U at least as wide as
// the input type T (NumPy's `dtype=`), optionally skipping NaNs (nancumsum: NaN counts as
// +0; nancumprod: as 1). The arithmetic is sum_op / product_op of kernels/ops.hpp on U's
// accumulator: integers wrap in U's width without undefined behaviour, half and bfloat16
// accumulate in float32 and round on every write, complex numbers add and multiply as
// std::complex (NumPy's formulas for finite values).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../kernels/ops.hpp"
#include "concept.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// True when U can represent every value of T: the pairs cumsum<T, U> accepts.
template <class T, class U>
constexpr bool widens_to() noexcept {
  if constexpr (std::is_same_v<T, U>) {
    return true;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>)
      return (std::is_signed_v<U> || !std::is_signed_v<T>) &&
             std::numeric_limits<U>::digits >= std::numeric_limits<T>::digits;
    else if constexpr (std::is_floating_point_v<U>)
      return std::numeric_limits<U>::digits >= std::numeric_limits<T>::digits;
    else
      return false;
  } else if constexpr (is_short_float_v<T>) {
    return std::is_same_v<U, float> || std::is_same_v<U, double>;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::is_same_v<U, double>;
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return std::is_same_v<U, std::complex<double>>;
  } else {
    return false;
  }
}

template <class U, bool = std::is_integral_v<U>>
struct running {
  using type = std::conditional_t<is_short_float_v<U>, float, U>;
};
template <class U>
struct running<U, true> {
  using type = std::make_unsigned_t<U>;
};
/// The type a running value of output type U is kept in: the unsigned type of U's width
/// for integers (modular, no undefined behaviour), float for half and bfloat16, else U.
template <class U>
using running_t = typename running<U>::type;

/// x converted to U ("each input is converted to U first"), then to U's running type.
template <class U, class T>
inline running_t<U> to_running(T x) noexcept {
  if constexpr (is_short_float_v<T>) {
    return static_cast<running_t<U>>(static_cast<float>(x));  // U is T, float or double
  } else if constexpr (std::is_integral_v<U>) {
    return static_cast<running_t<U>>(static_cast<U>(x));  // modular: well defined
  } else if constexpr (is_short_float_v<U>) {
    return static_cast<float>(x);  // only T == U reaches here (handled above)
  } else {
    return static_cast<U>(x);
  }
}

template <class U>
inline U from_running(running_t<U> a) noexcept {
  if constexpr (is_short_float_v<U>) {
    return U(a);
  } else if constexpr (std::is_integral_v<U>) {
    U result;  // reinterpret the unsigned bits: no out-of-range conversion to a signed type
    std::memcpy(&result, &a, sizeof result);
    return result;
  } else {
    return a;
  }
}

/// Sum (Base = sum_op) or product (product_op) of T elements into U; SkipNaN treats a
/// NaN element as the identity.
template <class Base, class T, class U, bool SkipNaN>
struct arithmetic_op {
  static_assert(widens_to<T, U>(), "tally: the output type U cannot represent every value of the input type T "
                                   "(allowed: U is T, or U is wider; see scan-vocabulary.md section 1)");
  using in_type = T;
  using out_type = U;
  using state_type = running_t<U>;
  static constexpr bool has_identity = true;
  static constexpr bool has_index = false;
  /// Integer sums and products wrap: every grouping gives the same outputs.
  static constexpr bool exclusive_from_inclusive = std::is_integral_v<U>;

  state_type start() const noexcept { return Base::template identity<state_type>(); }
  out_type empty() const noexcept { return from_running<U>(Base::template empty<state_type>()); }
  /// A line's (or a segment's) first element is taken as it is, not combined with the
  /// identity: the same for real numbers (x + -0 == x, x * 1 == x), and for complex ones it
  /// keeps NaN parts and signed zeros as NumPy does ((1+0i) * (NaN+1i) would be NaN+NaNi).
  state_type first(in_type x, std::int64_t) const noexcept {
    if constexpr (SkipNaN)
      if (is_nan_value(x)) return Base::template empty<state_type>();
    return to_running<U>(x);
  }
  state_type combine(state_type running, in_type x, std::int64_t) const noexcept {
    // NumPy replaces a NaN by 0 (or 1) and then adds: +0, not the -0 identity, so a NaN
    // after -0.0 or at a line's start gives +0 as in NumPy.
    // A select, not a branch: the row loops over neighbouring lines then vectorize.
    if constexpr (SkipNaN)
      return Base::combine(running, is_nan_value(x) ? Base::template empty<state_type>() : to_running<U>(x));
    else
      return Base::combine(running, to_running<U>(x));
  }
  out_type value(state_type s) const noexcept { return from_running<U>(s); }
};

template <class T, class U>
using widening_sum = arithmetic_op<sum_op, T, U, false>;
template <class T, class U>
using widening_product = arithmetic_op<product_op, T, U, false>;
template <class T, class U>
using nan_sum = arithmetic_op<sum_op, T, U, true>;
template <class T, class U>
using nan_product = arithmetic_op<product_op, T, U, true>;

}  // namespace detail
TALLY_END_NAMESPACE
