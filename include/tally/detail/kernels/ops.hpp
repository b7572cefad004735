// The two operations (sum, product) and the element -> accumulator mapping that gives
// tally's numeric rules: integers wrap in their own width without undefined behaviour
// (accumulated in the unsigned type of the same width; narrow types are widened to
// unsigned int for the operation so nothing is promoted to signed int), float16
// accumulates in float32, float32 and float64 in themselves.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../double_double.hpp"
#include "../../half.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T, bool = std::is_integral_v<T>>
struct accumulator {
  using type = T;  // float, double
};
template <>
struct accumulator<half, false> {
  using type = float;
};
template <class T>
struct accumulator<T, true> {
  using type = std::make_unsigned_t<T>;
};

/// The type the running value is kept in.
template <class T>
using acc_t = typename accumulator<T>::type;

template <class T>
inline acc_t<T> to_acc(T value) noexcept {
  if constexpr (std::is_same_v<T, half>)
    return static_cast<float>(value);
  else
    return static_cast<acc_t<T>>(value);  // modular for integers: well defined
}

template <class T>
inline T from_acc(acc_t<T> value) noexcept {
  if constexpr (std::is_same_v<T, half>) {
    return half(value);
  } else if constexpr (std::is_integral_v<T>) {
    // Truncate in the unsigned type, then reinterpret: no implementation-defined
    // out-of-range conversion to a signed type.
    const auto bits = static_cast<std::make_unsigned_t<T>>(value);
    T result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
  } else {
    return value;
  }
}

/// The carry a caller passes between chunks: the finest running value any mode keeps, so
/// that no rounding happens at a chunk boundary: float for half, double for float (the
/// exact mode's running value), double_double for double (the exact mode's compensated
/// pair), else the element type. The fast mode reads it rounded to its own running value
/// (exactly the value it wrote, when it wrote it) and writes its running value.
template <class T>
using carry_t = std::conditional_t<
    std::is_same_v<T, half>, float,
    std::conditional_t<std::is_same_v<T, float>, double, std::conditional_t<std::is_same_v<T, double>, double_double, T>>>;

template <class T>
inline acc_t<T> acc_from_carry(carry_t<T> c) noexcept {
  if constexpr (std::is_same_v<T, half>)
    return c;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(c);
  else if constexpr (std::is_same_v<T, double>)
    return c.value();
  else
    return to_acc<T>(c);
}

template <class T>
inline carry_t<T> carry_from_acc(acc_t<T> a) noexcept {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, float>)
    return a;
  else if constexpr (std::is_same_v<T, double>)
    return {a, -0.0};
  else
    return from_acc<T>(a);
}

struct sum_op {
  template <class A>
  static A combine(A a, A b) noexcept {
    return static_cast<A>(a + b);  // uint8/uint16 promote to int: no overflow, then truncate
  }
  /// The running value before the first element: -0.0 for floats, the IEEE additive
  /// identity (x + -0.0 == x for every x, so a line of -0.0 sums to -0.0 as in NumPy).
  template <class A>
  static constexpr A identity() noexcept {
    if constexpr (std::is_floating_point_v<A>)
      return -A(0);
    else
      return A(0);
  }
  /// The value written at the start of an exclusive scan: the empty sum, +0.
  template <class A>
  static constexpr A empty() noexcept {
    return A(0);
  }
};

struct product_op {
  template <class A>
  static A combine(A a, A b) noexcept {
    if constexpr (std::is_integral_v<A> && sizeof(A) < sizeof(unsigned))
      return static_cast<A>(static_cast<unsigned>(a) * static_cast<unsigned>(b));  // no signed overflow
    else
      return a * b;
  }
  template <class A>
  static constexpr A identity() noexcept {
    return A(1);
  }
  template <class A>
  static constexpr A empty() noexcept {
    return A(1);
  }
};

template <class Op>
inline constexpr bool is_sum = std::is_same_v<Op, sum_op>;

/// Floating-point products run in the plain sequential order. Regrouping them is not
/// just a rounding matter: a sub-product can overflow to inf (or underflow to 0) where
/// the running product does not, and 0 * inf then writes NaN where NumPy writes 0. In
/// sequential order the results equal NumPy's bit for bit, for every layout, thread
/// count and chunking. (Sums keep the faster trees: their regrouping stays within the
/// rounding bound.)
template <class Op, class T>
inline constexpr bool sequential_order_v = std::is_same_v<Op, product_op> && !std::is_integral_v<T>;

}  // namespace detail
TALLY_END_NAMESPACE
