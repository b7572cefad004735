// logcumsumexp: log(exp(a) + exp(b)) as max + log1p(exp(min - max)), which neither
// overflows nor underflows. The running value is kept in double for float, half and
// bfloat16 inputs (one rounding per output, so outputs are within an ulp of the exact
// value however long the line) and in double for double inputs. Rules: -inf is the
// identity; +inf absorbs everything but NaN; NaN propagates.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "concept.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T>
struct logcumsumexp_op {
  static_assert(is_real_float_v<T>, "tally::logcumsumexp takes floating-point elements");
  using in_type = T;
  using out_type = T;
  using state_type = double;
  static constexpr bool has_identity = true;
  static constexpr bool has_index = false;

  state_type start() const noexcept { return -std::numeric_limits<double>::infinity(); }
  out_type empty() const noexcept { return value(start()); }
  state_type combine(double running, T element, std::int64_t) const noexcept {
    const double x = static_cast<double>(to_compute(element));
    if (std::isnan(x) || std::isnan(running)) return std::numeric_limits<double>::quiet_NaN();
    const double high = running < x ? x : running, low = running < x ? running : x;
    // Two infinities of one sign: their sum is that infinity (low - high would be NaN).
    if (std::isinf(low) && low == high) return high;
    return high + std::log1p(std::exp(low - high));
  }
  out_type value(double s) const noexcept {
    if constexpr (is_short_float_v<T>)
      return T(static_cast<float>(s));  // double -> float -> 16 bits: a double rounding, under an ulp of T
    else
      return static_cast<T>(s);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
