// Sums and products whose outputs are rounded once from a running value finer than the
// element type (scan_accuracy::exact, issue 13): float32 runs in double; float64 as a
// compensated pair, the double value and the rounding error it has dropped so far
// (TwoSum for sums, Kahan-Babuska; an FMA's exact product error for products). Specials
// behave as in the plain scan: an infinity or a NaN in the input, or an overflow of the
// running value, gives the plain scan's value from there on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../double_double.hpp"
#include "../dispatch/cpu.hpp"
#include "../kernels/ops.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The running value of a float64 exact scan: `high + low`, up to the rounding errors of
/// `low` itself (public as tally::double_double: the carry of chunked float64 scans).
/// `low` starts at -0.0 (x + -0.0 == x), so that a line of -0.0 stays -0.0.
using compensated = double_double;

/// `s + x`, the rounding error added to `low` (TwoSum: the exact error, no branch).
inline compensated add_compensated(compensated s, double x) noexcept {
  const double t = s.high + x;
  const double x_part = t - s.high;
  const double error = (s.high - (t - x_part)) + (x - x_part);
  return {t, s.low + error};
}

#if defined(__MINGW32__) && TALLY_X86_SIMD
/// The FMA instruction, for fused_multiply_add below.
TALLY_TARGET_AVX2 inline double fma_instruction(double a, double b, double c) noexcept {
  return _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c)));
}

/// `a * b + c` rounded once, as the vector forms' FMA instructions compute it: the scalar
/// and vector paths of one scan must agree to the bit. MinGW-w64's std::fma does not
/// round once (measured under wine: 31% of products of factors near 1 off in the last
/// bit, the exact error term too), so where the CPU has the instruction it is used; a CPU
/// without it runs no vector form either, and keeps std::fma.
inline double fused_multiply_add(double a, double b, double c) noexcept {
  static const bool instruction = detect_cpu().avx2;
  return instruction ? fma_instruction(a, b, c) : std::fma(a, b, c);
}
#else
/// `a * b + c` rounded once (std::fma is the instruction or an exact emulation).
inline double fused_multiply_add(double a, double b, double c) noexcept { return std::fma(a, b, c); }
#endif

/// `s * x`: the product's exact rounding error from an FMA, plus `low * x`.
inline compensated multiply_compensated(compensated s, double x) noexcept {
  const double t = s.high * x;
  return {t, fused_multiply_add(s.low, x, fused_multiply_add(s.high, x, -t))};
}

/// Base: sum_op or product_op; T: float or double; SkipNaN: a NaN element counts as +0
/// (sum) or 1 (product), as nancumsum / nancumprod read it.
template <class Base, class T, bool SkipNaN = false>
struct exact_op {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "exact scans are for float and double");
  static constexpr bool sum = std::is_same_v<Base, sum_op>;
  using in_type = T;
  using out_type = T;
  using state_type = std::conditional_t<std::is_same_v<T, float>, double, compensated>;
  static constexpr bool has_identity = true;
  static constexpr bool has_index = false;
  /// x + -0.0 and x * 1 are x, in double as in T (a skipped NaN is not: it becomes +0 or 1).
  static constexpr bool single_element_is_copy = !SkipNaN;
  /// The line forms regroup, with the sequential fold's outputs where double arithmetic is
  /// exact (the exact mode's contract, vector_exact_lines.hpp): an exclusive line may be
  /// its inclusive outputs one place on.
  static constexpr bool exclusive_from_inclusive = true;

  state_type start() const noexcept {
    if constexpr (std::is_same_v<T, float>)
      return Base::template identity<double>();
    else
      return {Base::template identity<double>(), -0.0};
  }
  out_type empty() const noexcept { return Base::template empty<T>(); }
  /// x as the scan reads it (a NaN as the empty value, when skipped).
  static in_type read(in_type x) noexcept {
    if constexpr (SkipNaN)
      return x != x ? Base::template empty<T>() : x;
    else
      return x;
  }
  state_type first(in_type x, std::int64_t) const noexcept {
    x = read(x);
    if constexpr (std::is_same_v<T, float>)
      return x;
    else
      return {x, -0.0};
  }
  state_type combine(state_type running, in_type x, std::int64_t) const noexcept {
    x = read(x);
    if constexpr (std::is_same_v<T, float>)
      return Base::combine(running, static_cast<double>(x));
    else if constexpr (sum)
      return add_compensated(running, x);
    else
      return multiply_compensated(running, x);
  }
  /// The output: a float32 line's double rounded once; a float64 line's pair as
  /// double_double::value() gives it, the same bits, without its branch on `low`, which
  /// is zero at each line's start and then zero or not as the data fall: along short
  /// lines the mispredictions cost more than the scan (exact float64 sums of 16M elements
  /// in the generic loops, branching / selecting, ms: [8M, 2] of values k / 1000 80 / 18,
  /// [5.6M, 3] 87 / 23; [1M, 16] of random doubles, scalar target, 58 / 30). Where low
  /// stays zero (sums that are exact, as the benchmark suite's inputs) the branch predicts
  /// and the select costs more ([8M, 2] 12 / 17 ms). Along lines of 4096 on the scalar
  /// target the two measured the same (28.2 / 28.7 ms on values k / 1000, 29.4 / 28.4 on
  /// random doubles); the AVX2 target's long lines keep the branch (compensated_line).
  out_type value(const state_type& s) const noexcept {
    if constexpr (std::is_same_v<T, float>) {
      return static_cast<float>(s);
    } else {
      // high + -0.0 is high, -0.0, infinities and NaN included.
      const bool adds = std::isfinite(s.high) && s.low != 0;
      constexpr std::uint64_t minus_zero_bits = std::uint64_t{1} << 63;
      std::uint64_t low_bits;
      std::memcpy(&low_bits, &s.low, sizeof low_bits);
      const std::uint64_t mask = std::uint64_t{0} - static_cast<std::uint64_t>(adds);
      const std::uint64_t picked_bits = (low_bits & mask) | (minus_zero_bits & ~mask);
      double picked;
      std::memcpy(&picked, &picked_bits, sizeof picked);
      return s.high + picked;
    }
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
