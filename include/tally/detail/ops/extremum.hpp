// cummax / cummin (PyTorch's), with or without the index where the extremum was reached.
// Ties take the element scanned last; a NaN wins and then stays (the index of the first
// NaN on the line). No identity: the first element starts every line, so exclusive and
// include_initial are refused for them (as PyTorch has neither).
#pragma once

#include <cstdint>

#include "concept.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T, bool Max, bool WithIndex>
struct extremum_op {
  static_assert(std::is_arithmetic_v<T> || is_short_float_v<T>,
                "tally::cummax / cummin take real numbers (integers, half, bfloat16, float, double)");
  using in_type = T;
  using out_type = T;
  struct state_type {
    T value;
    std::int64_t index;  // -1: nothing combined yet
  };
  static constexpr bool has_identity = false;
  static constexpr bool has_index = WithIndex;

  state_type start() const noexcept { return {T{}, -1}; }
  out_type empty() const noexcept { return T{}; }  // never written: no exclusive mode
  state_type combine(state_type running, T x, std::int64_t position) const noexcept {
    if (running.index < 0) return {x, position};
    if constexpr (is_real_float_v<T>) {
      if (is_nan_value(running.value)) return running;
      if (is_nan_value(x)) return {x, position};
    }
    const auto a = to_compute(running.value), b = to_compute(x);
    const bool take = Max ? b >= a : b <= a;  // `=`: ties take the later element
    return take ? state_type{x, position} : running;
  }
  out_type value(const state_type& s) const noexcept { return s.value; }
  std::int64_t index(const state_type& s) const noexcept { return s.index; }
};

/// Without indices the running value is the element alone: a line starts from its first
/// element, and a combine is two NaN tests and a comparison, which the compiler turns into
/// blends when it vectorizes a tile of neighbouring lines. Same results as with indices.
template <class T, bool Max>
struct extremum_op<T, Max, false> {
  static_assert(std::is_arithmetic_v<T> || is_short_float_v<T>,
                "tally::cummax / cummin take real numbers (integers, half, bfloat16, float, double)");
  using in_type = T;
  using out_type = T;
  using state_type = T;
  static constexpr bool has_identity = false;
  static constexpr bool has_index = false;
  static constexpr bool single_element_is_copy = true;  // first(x) is x

  T start() const noexcept { return T{}; }  // never combined: first() starts every line
  T empty() const noexcept { return T{}; }  // never written: no exclusive mode
  T first(T x, std::int64_t) const noexcept { return x; }
  T combine(T running, T x, std::int64_t) const noexcept {
    if constexpr (is_real_float_v<T>) {
      const auto a = to_compute(running), b = to_compute(x);
      // x != x: NaN. Non-short-circuit operators: a select the compiler vectorizes, not branches.
      const bool take = (a == a) & ((b != b) | (Max ? b >= a : b <= a));
      return take ? x : running;
    } else {
      return (Max ? x >= running : x <= running) ? x : running;
    }
  }
  T value(T s) const noexcept { return s; }
};

}  // namespace detail
TALLY_END_NAMESPACE
