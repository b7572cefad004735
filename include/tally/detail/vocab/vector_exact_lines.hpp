// Vector forms of the exact sums and products (ops/exact_sum.hpp, scan_accuracy::exact).
// float32 elements are widened to double, scanned in double and rounded once on the way
// out; float64 lines stay on the engine's scalar loop (a TwoSum per element).
//
// Along a contiguous float32 line, either direction (AVX-512: 32 floats a step as four
// vectors of 8 doubles; AVX2: 16 floats as four vectors of 4 doubles): each vector's in-register prefix, the vectors
// chained inside the step, then the running value added. The loop-carried chain is one
// operation a step (run (op) the step's total), as in the SIMD engine's line kernels. The
// grouping differs from the sequential fold, so the double values may differ from it in
// their last bits (never more than the double rounding bound); with float inputs of a
// moderate range every double sum is exact anyway, and so equal.
//
// Across a tile of neighbouring lines (AVX-512 and AVX2 forms): one line per lane, each
// lane the scalar loop's fold (same bits): float32 with a double running value per line,
// float64 with a compensated pair per line (ops/exact_sum.hpp's operations, lane by lane;
// products take the FMA's exact error, as std::fma). cumsum / cumprod<float, double>
// (ops/arithmetic.hpp's widening sums) keep the same double running values as exact
// float32 rows and write them unrounded: the same row loop and lane steps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../ops/arithmetic.hpp"
#include "../ops/exact_sum.hpp"
#include "lane_rows.hpp"
#include "vector_lines.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

#if TALLY_X86_SIMD
TALLY_SIMD_WARNINGS_BEGIN

/// The most lines one exact float32 tile holds (32 KiB of double running values, which
/// then live in L2; float64 tiles half as many lines). The best width depends on the
/// machine: across the rows of a 4096 x 4096 float32 matrix (std::vector buffers, AVX2
/// rows) one Zen 4 host measured 4096 lines 5.9 ms, 512 lines 3.1 ms (memcpy 3.0 to 3.4
/// ms), another 7.0 ms and 9.3 ms (memcpy 3.8 to 4.9 ms); with the AVX-512 rows the second
/// measured 6.4 ms at 4096 lines and 8.2 ms at 512 to 1024. Whole rows keep the output one
/// stream, as the SIMD engine's columns kernel does.
inline constexpr std::size_t exact_tile_capacity = 4096;

/// x (op) y in doubles: Sum adds, else multiplies.
template <bool Sum>
struct double_lanes {
  /// The identity shifted into a prefix: -0.0 keeps every addend's sign, 1 every factor.
  static constexpr double identity = Sum ? -0.0 : 1.0;
  TALLY_TARGET_AVX512 static __m512d apply(__m512d x, __m512d y) { return Sum ? _mm512_add_pd(x, y) : _mm512_mul_pd(x, y); }
  TALLY_TARGET_AVX2 static __m256d apply(__m256d x, __m256d y) { return Sum ? _mm256_add_pd(x, y) : _mm256_mul_pd(x, y); }
  static double apply(double x, double y) { return Sum ? x + y : x * y; }

  /// Inclusive prefix of 8 lanes: three steps, the identity shifted in.
  TALLY_TARGET_AVX512 static __m512d prefix(__m512d v) {
    const __m512d id = _mm512_set1_pd(identity);
    v = apply(v, _mm512_mask_permutexvar_pd(id, 0xfe, _mm512_setr_epi64(0, 0, 1, 2, 3, 4, 5, 6), v));
    v = apply(v, _mm512_mask_permutexvar_pd(id, 0xfc, _mm512_setr_epi64(0, 0, 0, 1, 2, 3, 4, 5), v));
    return apply(v, _mm512_mask_permutexvar_pd(id, 0xf0, _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 2, 3), v));
  }
  TALLY_TARGET_AVX512 static __m512d last(__m512d v) { return _mm512_permutexvar_pd(_mm512_set1_epi64(7), v); }

  /// Inclusive prefix of 4 lanes: two steps.
  TALLY_TARGET_AVX2 static __m256d prefix(__m256d v) {
    const __m256d id = _mm256_set1_pd(identity);
    v = apply(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), id, 0x1));
    return apply(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(1, 0, 0, 0)), id, 0x3));
  }
  TALLY_TARGET_AVX2 static __m256d last(__m256d v) { return _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3)); }
};

/// 16 floats as two vectors of 8 doubles, and back.
TALLY_TARGET_AVX512 inline void widen16(__m512 x, __m512d& low, __m512d& high) {
  low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
  high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
}
TALLY_TARGET_AVX512 inline __m512 narrow16(__m512d low, __m512d high) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(low)), _mm512_cvtpd_ps(high), 1);
}
/// 8 floats as two vectors of 4 doubles, and back.
TALLY_TARGET_AVX2 inline void widen8(__m256 x, __m256d& low, __m256d& high) {
  low = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
  high = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
}
TALLY_TARGET_AVX2 inline __m256 narrow8(__m256d low, __m256d high) {
  return _mm256_set_m128(_mm256_cvtpd_ps(high), _mm256_cvtpd_ps(low));
}

/// Vectors of a line in scan order: at p and up, or (Reverse) at p and down, lane 0 the
/// element at p either way.
template <bool Reverse>
struct scan_order {
  static const float* at(const float* p, std::size_t k) { return Reverse ? p - k : p + k; }
  static float* at(float* p, std::size_t k) { return Reverse ? p - k : p + k; }
  /// Elements from p to the first `Bytes` boundary in scan order, at most `limit` (a
  /// reversed vector ends at p, so it starts on a boundary when p + 1 is on one).
  template <std::size_t Bytes>
  static std::size_t to_boundary(const float* p, std::size_t limit) {
    const std::size_t n = Reverse ? reinterpret_cast<std::uintptr_t>(p + 1) % Bytes / sizeof(float)
                                  : elements_to_boundary<Bytes>(p);
    return (std::min)(n, limit);
  }
  TALLY_TARGET_AVX512 static __m512 load16(const float* p) {
    if constexpr (Reverse)
      return _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                   _mm512_loadu_ps(p - 15));
    else
      return _mm512_loadu_ps(p);
  }
  TALLY_TARGET_AVX512 static void store16(float* p, __m512 v, bool stream) {
    if constexpr (Reverse) {
      v = _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), v);
      p -= 15;
    }
    stream ? _mm512_stream_ps(p, v) : _mm512_storeu_ps(p, v);
  }
  TALLY_TARGET_AVX2 static __m256 load8(const float* p) {
    if constexpr (Reverse)
      return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p - 7), _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    else
      return _mm256_loadu_ps(p);
  }
  TALLY_TARGET_AVX2 static void store8(float* p, __m256 v, bool stream) {
    if constexpr (Reverse) {
      v = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
      p -= 7;
    }
    stream ? _mm256_stream_ps(p, v) : _mm256_storeu_ps(p, v);
  }
};

/// n floats of a line in scan order (+1 steps from `in` and `out`, or -1 when Reverse; in
/// place allowed) after the running value `running`; returns the running value after them.
/// `stream`: non-temporal stores from the output's first 64-byte boundary (in scan order)
/// on.
template <bool Sum, bool Reverse>
TALLY_TARGET_AVX512 double exact_line_avx512(const float* in, float* out, std::size_t n, double running, bool stream) {
  using lanes = double_lanes<Sum>;
  using order = scan_order<Reverse>;
  std::size_t k = 0;
  const auto scalar_step = [&](std::size_t i) {
    *order::at(out, i) = static_cast<float>(running = lanes::apply(running, *order::at(in, i)));
  };
  if (stream)
    for (const std::size_t head = order::template to_boundary<64>(out, n); k < head; ++k) scalar_step(k);
  __m512d run = _mm512_set1_pd(running);
  for (; k + 32 <= n; k += 32) {
    __m512d a, b, c, d;
    widen16(order::load16(order::at(in, k)), a, b);
    widen16(order::load16(order::at(in, k + 16)), c, d);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    c = lanes::prefix(c);
    d = lanes::apply(lanes::last(c), lanes::prefix(d));
    const __m512d ab = lanes::last(b);  // the first half's total
    c = lanes::apply(ab, c);
    d = lanes::apply(ab, d);
    const __m512 y0 = narrow16(lanes::apply(run, a), lanes::apply(run, b));
    const __m512 y1 = narrow16(lanes::apply(run, c), lanes::apply(run, d));
    run = lanes::apply(run, lanes::last(d));
    order::store16(order::at(out, k), y0, stream);
    order::store16(order::at(out, k + 16), y1, stream);
  }
  running = _mm512_cvtsd_f64(run);
  for (; k < n; ++k) scalar_step(k);
  return running;
}

/// The AVX2 form of exact_line_avx512 (16 floats a step; non-temporal stores from the
/// output's first 32-byte boundary on).
template <bool Sum, bool Reverse>
TALLY_TARGET_AVX2 double exact_line_avx2(const float* in, float* out, std::size_t n, double running, bool stream) {
  using lanes = double_lanes<Sum>;
  using order = scan_order<Reverse>;
  std::size_t k = 0;
  const auto scalar_step = [&](std::size_t i) {
    *order::at(out, i) = static_cast<float>(running = lanes::apply(running, *order::at(in, i)));
  };
  if (stream)
    for (const std::size_t head = order::template to_boundary<32>(out, n); k < head; ++k) scalar_step(k);
  __m256d run = _mm256_set1_pd(running);
  for (; k + 16 <= n; k += 16) {
    __m256d a, b, c, d;
    widen8(order::load8(order::at(in, k)), a, b);
    widen8(order::load8(order::at(in, k + 8)), c, d);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    c = lanes::prefix(c);
    d = lanes::apply(lanes::last(c), lanes::prefix(d));
    const __m256d ab = lanes::last(b);
    c = lanes::apply(ab, c);
    d = lanes::apply(ab, d);
    const __m256 y0 = narrow8(lanes::apply(run, a), lanes::apply(run, b));
    const __m256 y1 = narrow8(lanes::apply(run, c), lanes::apply(run, d));
    run = lanes::apply(run, lanes::last(d));
    order::store8(order::at(out, k), y0, stream);
    order::store8(order::at(out, k + 8), y1, stream);
  }
  running = _mm256_cvtsd_f64(run);
  for (; k < n; ++k) scalar_step(k);
  return running;
}

/// The running values of a tile's float32 lines, in double: start() takes a line's first
/// element, combine() each later one; both return the output, the running value rounded
/// once (Out float, the exact mode) or as it is (Out double, cumsum<float, double>).
template <bool Sum, class Out>
struct double_running : lane_values<double, exact_tile_capacity> {
  using lane_values::lane_values;
  Out start(std::size_t j, float x) { return static_cast<Out>(value[j] = x); }
  Out combine(std::size_t j, float x, const std::uint8_t*) { return static_cast<Out>(value[j] = double_lanes<Sum>::apply(value[j], x)); }
};

/// The compensated pairs of a tile's float64 lines (at most exact_tile_capacity / 2).
template <bool Sum>
struct compensated_running {
  static constexpr std::size_t capacity = exact_tile_capacity / 2;
  using op = exact_op<std::conditional_t<Sum, sum_op, product_op>, double>;
  lane_values<double, capacity> high, low;
  explicit compensated_running(std::size_t head) noexcept : high(head), low(head) {}
  struct lanes_type {
    double* high;
    double* low;
  };
  lanes_type lanes() const noexcept { return {high.value, low.value}; }
  double start(std::size_t j, double x) {
    low.value[j] = -0.0;
    return high.value[j] = x;
  }
  double combine(std::size_t j, double x, const std::uint8_t*) {
    const compensated s = op().combine({high.value[j], low.value[j]}, x, 0);
    high.value[j] = s.high;
    low.value[j] = s.low;
    return op().value(s);
  }
};

/// Eight float32 lines a step (AVX2): widened, combined into their doubles, written
/// rounded once (Out float, the exact mode) or as they are (Out double, cumsum / cumprod
/// <float, double>, NumPy's dtype=float64).
template <bool Sum, class Out>
struct exact_lanes8 {
  using in_type = float;
  using out_type = Out;
  using running_values = double_running<Sum, Out>;
  static constexpr std::size_t width = 8, align = 32;
  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const float* in, Out* out,
                                     const std::uint8_t*, bool stream) {
    using lanes = double_lanes<Sum>;
    __m256d low, high;
    widen8(_mm256_loadu_ps(in), low, high);
    low = lanes::apply(_mm256_loadu_pd(r.value + j), low);
    high = lanes::apply(_mm256_loadu_pd(r.value + j + 4), high);
    _mm256_storeu_pd(r.value + j, low);
    _mm256_storeu_pd(r.value + j + 4, high);
    if constexpr (std::is_same_v<Out, float>) {
      const __m256 y = narrow8(low, high);
      stream ? _mm256_stream_ps(out, y) : _mm256_storeu_ps(out, y);
    } else if (stream) {
      _mm256_stream_pd(out, low);
      _mm256_stream_pd(out + 4, high);
    } else {
      _mm256_storeu_pd(out, low);
      _mm256_storeu_pd(out + 4, high);
    }
  }
};

/// exact_lanes8 with sixteen lines a step (AVX-512, two vectors of 8 doubles).
template <bool Sum, class Out>
struct exact_lanes16 {
  using in_type = float;
  using out_type = Out;
  using running_values = double_running<Sum, Out>;
  static constexpr std::size_t width = 16, align = 64;
  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const float* in, Out* out,
                                     const std::uint8_t*, bool stream) {
    using lanes = double_lanes<Sum>;
    __m512d low, high;
    widen16(_mm512_loadu_ps(in), low, high);
    low = lanes::apply(_mm512_loadu_pd(r.value + j), low);
    high = lanes::apply(_mm512_loadu_pd(r.value + j + 8), high);
    _mm512_storeu_pd(r.value + j, low);
    _mm512_storeu_pd(r.value + j + 8, high);
    if constexpr (std::is_same_v<Out, float>) {
      const __m512 y = narrow16(low, high);
      stream ? _mm512_stream_ps(out, y) : _mm512_storeu_ps(out, y);
    } else if (stream) {
      _mm512_stream_pd(out, low);
      _mm512_stream_pd(out + 8, high);
    } else {
      _mm512_storeu_pd(out, low);
      _mm512_storeu_pd(out + 8, high);
    }
  }
};

/// Four float64 lines a step (AVX2 + FMA), each a compensated pair: TwoSum as
/// add_compensated, or the FMA's exact error as multiply_compensated; rounded as
/// round_compensated (high + low where high is finite and low is not zero).
template <bool Sum>
struct compensated_lanes4 {
  using in_type = double;
  using out_type = double;
  using running_values = compensated_running<Sum>;
  static constexpr std::size_t width = 4, align = 32;
  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const double* in, double* out,
                                     const std::uint8_t*, bool stream) {
    const __m256d x = _mm256_loadu_pd(in), h = _mm256_loadu_pd(r.high + j), l = _mm256_loadu_pd(r.low + j);
    __m256d sum, error;
    if constexpr (Sum) {
      sum = _mm256_add_pd(h, x);
      const __m256d x_part = _mm256_sub_pd(sum, h);
      error = _mm256_add_pd(l, _mm256_add_pd(_mm256_sub_pd(h, _mm256_sub_pd(sum, x_part)), _mm256_sub_pd(x, x_part)));
    } else {
      sum = _mm256_mul_pd(h, x);
      error = _mm256_fmadd_pd(l, x, _mm256_fmsub_pd(h, x, sum));
    }
    _mm256_storeu_pd(r.high + j, sum);
    _mm256_storeu_pd(r.low + j, error);
    const __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), sum);
    const __m256d adds =
        _mm256_and_pd(_mm256_cmp_pd(magnitude, _mm256_set1_pd(std::numeric_limits<double>::infinity()), _CMP_LT_OQ),
                      _mm256_cmp_pd(error, _mm256_setzero_pd(), _CMP_NEQ_UQ));
    const __m256d y = _mm256_blendv_pd(sum, _mm256_add_pd(sum, error), adds);
    stream ? _mm256_stream_pd(out, y) : _mm256_storeu_pd(out, y);
  }
};

/// compensated_lanes4 with 8 lanes (AVX-512).
template <bool Sum>
struct compensated_lanes8 {
  using in_type = double;
  using out_type = double;
  using running_values = compensated_running<Sum>;
  static constexpr std::size_t width = 8, align = 64;
  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const double* in, double* out,
                                     const std::uint8_t*, bool stream) {
    const __m512d x = _mm512_loadu_pd(in), h = _mm512_loadu_pd(r.high + j), l = _mm512_loadu_pd(r.low + j);
    __m512d sum, error;
    if constexpr (Sum) {
      sum = _mm512_add_pd(h, x);
      const __m512d x_part = _mm512_sub_pd(sum, h);
      error = _mm512_add_pd(l, _mm512_add_pd(_mm512_sub_pd(h, _mm512_sub_pd(sum, x_part)), _mm512_sub_pd(x, x_part)));
    } else {
      sum = _mm512_mul_pd(h, x);
      error = _mm512_fmadd_pd(l, x, _mm512_fmsub_pd(h, x, sum));
    }
    _mm512_storeu_pd(r.high + j, sum);
    _mm512_storeu_pd(r.low + j, error);
    const __mmask8 adds =
        _mm512_cmp_pd_mask(_mm512_abs_pd(sum), _mm512_set1_pd(std::numeric_limits<double>::infinity()), _CMP_LT_OQ) &
        _mm512_cmp_pd_mask(error, _mm512_setzero_pd(), _CMP_NEQ_UQ);
    const __m512d y = _mm512_mask_add_pd(sum, adds, sum, error);
    stream ? _mm512_stream_pd(out, y) : _mm512_storeu_pd(out, y);
  }
};

// The entry points, one per target.
TALLY_SIMD_WARNINGS_END

template <class Base>
struct vector_line<exact_op<Base, float>> {
  static constexpr bool exists = true;
  static constexpr bool sum = std::is_same_v<Base, sum_op>;
  /// Scans a whole contiguous line (either direction) when the CPU has AVX2; false: not done.
  static bool scan(const line_span<float, float>& l) noexcept {
    const simd_variant target = active_target();
    if (target == simd_variant::scalar || l.n == 0 || l.resets) return false;
    l.out[0] = l.in[0];  // the line starts from its first element
    const float* in = l.reverse ? l.in - 1 : l.in + 1;
    float* out = l.reverse ? l.out - 1 : l.out + 1;
    if (target == simd_variant::avx512)
      l.reverse ? exact_line_avx512<sum, true>(in, out, l.n - 1, l.in[0], l.stream)
                : exact_line_avx512<sum, false>(in, out, l.n - 1, l.in[0], l.stream);
    else
      l.reverse ? exact_line_avx2<sum, true>(in, out, l.n - 1, l.in[0], l.stream)
                : exact_line_avx2<sum, false>(in, out, l.n - 1, l.in[0], l.stream);
    return true;
  }
};

template <class Base>
struct vector_rows<exact_op<Base, float>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = exact_tile_capacity;
  static bool scan(const row_tile<float, float>& t) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    return !t.resets && !t.index && t.count <= max_lines &&
           scan_lane_rows<exact_lanes8<sum, float>, exact_lanes16<sum, float>>(t);
  }
};

/// cumsum / cumprod<float, double> across neighbouring lines, without reset flags: each
/// lane the scalar loop's fold, (double) x added into (or multiplied with) its line's
/// double, the same bits.
template <class Base>
struct vector_rows<arithmetic_op<Base, float, double, false>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = exact_tile_capacity;
  static bool scan(const row_tile<float, double>& t) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    return !t.resets && !t.index && t.count <= max_lines &&
           scan_lane_rows<exact_lanes8<sum, double>, exact_lanes16<sum, double>>(t);
  }
};

template <class Base>
struct vector_rows<exact_op<Base, double>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = exact_tile_capacity / 2;
  static bool scan(const row_tile<double, double>& t) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    return !t.resets && !t.index && t.count <= max_lines &&
           scan_lane_rows<compensated_lanes4<sum>, compensated_lanes8<sum>>(t);
  }
};
#endif

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
