// logcumsumexp: log(exp(x0) + ... + exp(xk)) for each prefix, kept as a pair (base, sum)
// whose value is base + log(sum): `base` is an element of the prefix (a reference near its
// maximum) and `sum` is the sum of exp(x - base) over the prefix, in double for every
// element type. Each element costs one exp (and each output one log), and the sum of
// positive terms in double is accurate to far below an ulp of float however long the
// line, so a float, half or bfloat16 output is one rounding of a value within a few ulp
// of double of the exact one. Nothing overflows: an element more than `rebase_above` over
// the base becomes the new base (the sum is scaled down by exp(old - new)), so the sum
// stays below n * e^64 and never underflows (the element at the base adds 1).
// Rules: -inf is the identity; +inf absorbs everything but NaN; NaN propagates.
//
// The vector forms (detail/vocab/vector_logcumsumexp.hpp) combine with the same formulas
// and the same rebasing rule, and take this scalar combine for any step that rebases or
// meets an infinity or a NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "concept.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// `Fast` (scan_accuracy::fast) lets the vector forms compute exp and log at the element's
/// precision where they have such a form (float elements on AVX2 and AVX-512); the scalar
/// combine and values are the same.
template <class T, bool Fast = false>
struct logcumsumexp_op {
  static_assert(is_real_float_v<T>, "tally::logcumsumexp takes floating-point elements");
  using in_type = T;
  using out_type = T;
  struct state_type {
    double base;  // -inf: nothing but -inf yet; +inf: a +inf was seen
    double sum;   // NaN: a NaN was seen
  };
  static constexpr bool has_identity = true;
  static constexpr bool has_index = false;
  /// How far (in nats) an element may exceed the base before it becomes the base.
  static constexpr double rebase_above = 64;

  state_type start() const noexcept { return {-std::numeric_limits<double>::infinity(), 1}; }
  out_type empty() const noexcept { return value(start()); }
  state_type combine(state_type s, T element, std::int64_t) const noexcept {
    const double x = static_cast<double>(to_compute(element));
    if (std::isnan(s.sum) || std::isnan(x)) return {s.base, std::numeric_limits<double>::quiet_NaN()};
    if (s.base == std::numeric_limits<double>::infinity() || x == -std::numeric_limits<double>::infinity())
      return s;  // +inf absorbs; exp(-inf) adds nothing
    if (s.base == -std::numeric_limits<double>::infinity() || x == std::numeric_limits<double>::infinity())
      return {x, 1};  // the first finite element, or +inf
    const double d = x - s.base;
    if (d > rebase_above) return {x, s.sum * std::exp(-d) + 1};
    return {s.base, s.sum + std::exp(d)};
  }
  out_type value(const state_type& s) const noexcept {
    const double v = s.base + std::log(s.sum);  // +-inf stays; NaN sum gives NaN
    if constexpr (is_short_float_v<T>)
      return T(static_cast<float>(v));  // double -> float -> 16 bits: a double rounding, under an ulp of T
    else
      return static_cast<T>(v);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
