// AVX-512 (F, BW, DQ, VL) vectors for the generic kernels: one struct per lane kind, each
// with the same small vocabulary (see simd/kernels.hpp). Every function carries the
// target attribute, so nothing here needs -mavx512f and the code is only run after
// cpu.hpp has found the instructions.
//
// unmasked_steps: the in-register scans (scan<Op>) take each Hillis-Steele step as one
// VALIGND / VALIGNQ that shifts the operator's identity into the low lanes, then an
// unmasked combine (x + -0 == x and x * 1 == x, -0 and NaN included). Masked combines
// made GCC rebuild the four mask registers from immediates in every loop iteration and
// made each step wait on its destination's old value. 64K-element lines in L2, fast
// mode, pinned to one core, ns per element: float sums 0.155 -> 0.122, products 0.187 ->
// 0.148; double sums 0.240 -> 0.197; int32 sums 0.121 -> 0.094; int64 sums 0.185 ->
// 0.148. step<Op, k>(x, lanes), masked, stays for the scans that choose their lanes
// (segmented lines).
#pragma once

#include "../../config.hpp"

#if TALLY_X86_SIMD

#include <cstdint>
#include <limits>
#include <type_traits>

#include "../avx2/vectors.hpp"
#include "../ops.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace avx512 {

#define TALLY_T TALLY_TARGET_AVX512 inline

/// 16 float lanes: float32, and float16 converted on load and store (F16C).
struct f32 {
  using reg = __m512;
  static constexpr std::size_t width = 16;
  /// Lane i of permute(x, make_index(from)) is x[from[i]] (`from`: width bytes).
  using lane_index = __m512i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from))); }
  TALLY_T static reg permute(reg x, lane_index at) { return _mm512_permutexvar_ps(at, x); }
  static constexpr bool lane_ops = true;
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_ps(static_cast<__mmask16>(lanes), b, a); }
  TALLY_T static reg broadcast(float a) { return _mm512_set1_ps(a); }
  TALLY_T static reg load(const float* p) { return _mm512_loadu_ps(p); }
  TALLY_T static reg load(const half* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  TALLY_T static void store(float* p, reg v) { _mm512_storeu_ps(p, v); }
  TALLY_T static void store(half* p, reg v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  TALLY_T static void stream(float* p, reg v) { _mm512_stream_ps(p, v); }
  TALLY_T static reg reverse(reg v) {
    return _mm512_permutexvar_ps(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
  }
  TALLY_T static reg broadcast_last(reg v) { return _mm512_permutexvar_ps(_mm512_set1_epi32(15), v); }
  /// [prev[15], v[0], ..., v[14]]
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(v), _mm512_castps_si512(prev), 15));
  }
  TALLY_T static float first(reg v) { return _mm512_cvtss_f32(v); }
  TALLY_T static float last(reg v) { return _mm512_cvtss_f32(broadcast_last(v)); }
  /// Lanes [s, s + 16) of lo:hi.
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    const __m512i at = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                        _mm512_set1_epi32(static_cast<int>(s)));
    return _mm512_permutex2var_ps(lo, at, hi);
  }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, value); }
  TALLY_T static bool all_finite(reg v) {
    return _mm512_cmp_ps_mask(_mm512_abs_ps(v), broadcast(std::numeric_limits<float>::infinity()), _CMP_LT_OQ) == 0xffff;
  }
  /// Whether every lane's magnitude lies in [2^-100, 2^100] (false for 0, inf, NaN).
  TALLY_T static bool all_moderate(reg v) {
    const reg magnitude = _mm512_abs_ps(v);
    return (_mm512_cmp_ps_mask(magnitude, broadcast(0x1p-100f), _CMP_GE_OQ) &
            _mm512_cmp_ps_mask(magnitude, broadcast(0x1p100f), _CMP_LE_OQ)) == 0xffff;
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm512_add_ps(a, b);
    else return _mm512_mul_ps(a, b);
  }
  /// Lanes >= k (and in `lanes`) combine with the lane k below (Hillis-Steele step).
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes = ~std::uint64_t{0}) {
    const __m512i r = _mm512_castps_si512(x);
    const reg shifted = _mm512_castsi512_ps(_mm512_alignr_epi32(r, r, 16 - k));
    const __mmask16 m = static_cast<__mmask16>((0xffffu << k) & lanes);
    if constexpr (is_sum<Op>) return _mm512_mask_add_ps(x, m, x, shifted);
    else return _mm512_mask_mul_ps(x, m, x, shifted);
  }
  /// x moved up k lanes, fill's top lanes shifted in.
  template <int k>
  TALLY_T static reg shifted_in(reg x, __m512i fill) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(x), fill, 16 - k));
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    // Unmasked steps that shift the identity in (see unmasked_steps above).
    const __m512i id = _mm512_castps_si512(broadcast(Op::template identity<float>()));
    x = combine<Op>(x, shifted_in<1>(x, id));
    x = combine<Op>(x, shifted_in<2>(x, id));
    x = combine<Op>(x, shifted_in<4>(x, id));
    return combine<Op>(x, shifted_in<8>(x, id));
  }
  static constexpr bool has_tree_totals = true;
  /// Lane v = the last lane of scan<sum_op>(rows[v]) for 16 rows, bit for bit: that lane
  /// is the pairwise tree ((x15 + x14) + (x13 + x12)) + ..., added in the same operand
  /// order (higher + lower), but four levels of pairing across rows cost about 2
  /// shuffles and 1 add per row instead of the scan's 5 and 4.
  TALLY_T static reg tree_totals(const reg* rows) {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    reg level[16];
    TALLY_UNROLL
    for (int i = 0; i < 16; ++i) level[i] = rows[i];
    TALLY_UNROLL
    for (int n = 16; n > 1; n /= 2)
      TALLY_UNROLL
      for (int i = 0; i < n / 2; ++i)
        level[i] = _mm512_add_ps(_mm512_permutex2var_ps(level[2 * i], odd, level[2 * i + 1]),
                                 _mm512_permutex2var_ps(level[2 * i], even, level[2 * i + 1]));
    return level[0];
  }
};

/// 8 double lanes.
struct f64 {
  using reg = __m512d;
  static constexpr std::size_t width = 8;
  /// Lane i of permute(x, make_index(from)) is x[from[i]] (`from`: width bytes).
  using lane_index = __m512i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(from))); }
  TALLY_T static reg permute(reg x, lane_index at) { return _mm512_permutexvar_pd(at, x); }
  static constexpr bool lane_ops = true;
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_pd(static_cast<__mmask8>(lanes), b, a); }
  TALLY_T static reg broadcast(double a) { return _mm512_set1_pd(a); }
  TALLY_T static reg load(const double* p) { return _mm512_loadu_pd(p); }
  TALLY_T static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  TALLY_T static void stream(double* p, reg v) { _mm512_stream_pd(p, v); }
  TALLY_T static reg reverse(reg v) { return _mm512_permutexvar_pd(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v); }
  TALLY_T static reg broadcast_last(reg v) { return _mm512_permutexvar_pd(_mm512_set1_epi64(7), v); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_castpd_si512(prev), 7));
  }
  TALLY_T static double first(reg v) { return _mm512_cvtsd_f64(v); }
  TALLY_T static double last(reg v) { return _mm512_cvtsd_f64(broadcast_last(v)); }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    const __m512i at = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(static_cast<long long>(s)));
    return _mm512_permutex2var_pd(lo, at, hi);
  }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), x, value); }
  TALLY_T static bool all_finite(reg v) {
    return _mm512_cmp_pd_mask(_mm512_abs_pd(v), broadcast(std::numeric_limits<double>::infinity()), _CMP_LT_OQ) == 0xff;
  }
  /// Whether every lane's magnitude lies in [2^-1000, 2^1000] (false for 0, inf, NaN).
  TALLY_T static bool all_moderate(reg v) {
    const reg magnitude = _mm512_abs_pd(v);
    return (_mm512_cmp_pd_mask(magnitude, broadcast(0x1p-1000), _CMP_GE_OQ) &
            _mm512_cmp_pd_mask(magnitude, broadcast(0x1p1000), _CMP_LE_OQ)) == 0xff;
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm512_add_pd(a, b);
    else return _mm512_mul_pd(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes = ~std::uint64_t{0}) {
    const __m512i r = _mm512_castpd_si512(x);
    const reg shifted = _mm512_castsi512_pd(_mm512_alignr_epi64(r, r, 8 - k));
    const __mmask8 m = static_cast<__mmask8>((0xffu << k) & lanes);
    if constexpr (is_sum<Op>) return _mm512_mask_add_pd(x, m, x, shifted);
    else return _mm512_mask_mul_pd(x, m, x, shifted);
  }
  /// x moved up k lanes, fill's top lanes shifted in.
  template <int k>
  TALLY_T static reg shifted_in(reg x, __m512i fill) {
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(x), fill, 8 - k));
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    // Unmasked steps that shift the identity in (see unmasked_steps above).
    const __m512i id = _mm512_castpd_si512(broadcast(Op::template identity<double>()));
    x = combine<Op>(x, shifted_in<1>(x, id));
    x = combine<Op>(x, shifted_in<2>(x, id));
    return combine<Op>(x, shifted_in<4>(x, id));
  }
};

/// 16 lanes of 32-bit integers (signed and unsigned share the modular arithmetic).
struct i32 {
  using reg = __m512i;
  using lane = std::uint32_t;
  static constexpr std::size_t width = 16;
  /// Lane i of permute(x, make_index(from)) is x[from[i]] (`from`: width bytes).
  using lane_index = __m512i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from))); }
  TALLY_T static reg permute(reg x, lane_index at) { return _mm512_permutexvar_epi32(at, x); }
  static constexpr bool lane_ops = true;
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_epi32(static_cast<__mmask16>(lanes), b, a); }
  TALLY_T static reg broadcast(lane a) { return _mm512_set1_epi32(static_cast<int>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) { return _mm512_loadu_si512(p); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm512_storeu_si512(p, v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
  TALLY_T static reg reverse(reg v) {
    return _mm512_permutexvar_epi32(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
  }
  TALLY_T static reg broadcast_last(reg v) { return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v); }
  TALLY_T static reg shift_in(reg v, reg prev) { return _mm512_alignr_epi32(v, prev, 15); }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    const __m512i at = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                        _mm512_set1_epi32(static_cast<int>(s)));
    return _mm512_permutex2var_epi32(lo, at, hi);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm_cvtsi128_si32(_mm512_castsi512_si128(v))); }
  TALLY_T static lane last(reg v) { return first(broadcast_last(v)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm512_add_epi32(a, b);
    else return _mm512_mullo_epi32(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes = ~std::uint64_t{0}) {
    const reg shifted = _mm512_alignr_epi32(x, x, 16 - k);
    const __mmask16 m = static_cast<__mmask16>((0xffffu << k) & lanes);
    if constexpr (is_sum<Op>) return _mm512_mask_add_epi32(x, m, x, shifted);
    else return _mm512_mask_mullo_epi32(x, m, x, shifted);
  }
  /// x moved up k lanes, fill's top lanes shifted in.
  template <int k>
  TALLY_T static reg shifted_in(reg x, reg fill) {
    return _mm512_alignr_epi32(x, fill, 16 - k);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    // Unmasked steps that shift the identity in (see unmasked_steps above).
    const reg id = broadcast(Op::template identity<lane>());
    x = combine<Op>(x, shifted_in<1>(x, id));
    x = combine<Op>(x, shifted_in<2>(x, id));
    x = combine<Op>(x, shifted_in<4>(x, id));
    return combine<Op>(x, shifted_in<8>(x, id));
  }
};

/// 8 lanes of 64-bit integers.
struct i64 {
  using reg = __m512i;
  using lane = std::uint64_t;
  static constexpr std::size_t width = 8;
  /// Lane i of permute(x, make_index(from)) is x[from[i]] (`from`: width bytes).
  using lane_index = __m512i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(from))); }
  TALLY_T static reg permute(reg x, lane_index at) { return _mm512_permutexvar_epi64(at, x); }
  static constexpr bool lane_ops = true;
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_epi64(static_cast<__mmask8>(lanes), b, a); }
  TALLY_T static reg broadcast(lane a) { return _mm512_set1_epi64(static_cast<long long>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) { return _mm512_loadu_si512(p); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm512_storeu_si512(p, v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
  TALLY_T static reg reverse(reg v) { return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v); }
  TALLY_T static reg broadcast_last(reg v) { return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v); }
  TALLY_T static reg shift_in(reg v, reg prev) { return _mm512_alignr_epi64(v, prev, 7); }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    const __m512i at = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(static_cast<long long>(s)));
    return _mm512_permutex2var_epi64(lo, at, hi);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm_cvtsi128_si64(_mm512_castsi512_si128(v))); }
  TALLY_T static lane last(reg v) { return first(broadcast_last(v)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm512_add_epi64(a, b);
    else return _mm512_mullo_epi64(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes = ~std::uint64_t{0}) {
    const reg shifted = _mm512_alignr_epi64(x, x, 8 - k);
    const __mmask8 m = static_cast<__mmask8>((0xffu << k) & lanes);
    if constexpr (is_sum<Op>) return _mm512_mask_add_epi64(x, m, x, shifted);
    else return _mm512_mask_mullo_epi64(x, m, x, shifted);
  }
  /// x moved up k lanes, fill's top lanes shifted in.
  template <int k>
  TALLY_T static reg shifted_in(reg x, reg fill) {
    return _mm512_alignr_epi64(x, fill, 8 - k);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    // Unmasked steps that shift the identity in (see unmasked_steps above).
    const reg id = broadcast(Op::template identity<lane>());
    x = combine<Op>(x, shifted_in<1>(x, id));
    x = combine<Op>(x, shifted_in<2>(x, id));
    return combine<Op>(x, shifted_in<4>(x, id));
  }
};

/// 32 lanes of 16-bit integers; 8-bit elements are widened on load and truncated on
/// store (modular arithmetic in 16 bits truncates to the right 8-bit result).
struct i16 {
  using reg = __m512i;
  using lane = std::uint16_t;
  static constexpr std::size_t width = 32;
  /// Lane i of permute(x, make_index(from)) is x[from[i]] (`from`: width bytes).
  using lane_index = __m512i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(from))); }
  TALLY_T static reg permute(reg x, lane_index at) { return _mm512_permutexvar_epi16(at, x); }
  static constexpr bool lane_ops = true;
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_epi16(static_cast<__mmask32>(lanes), b, a); }
  TALLY_T static reg broadcast(unsigned a) { return _mm512_set1_epi16(static_cast<short>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    if constexpr (sizeof(X) == 1)
      return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    else
      return _mm512_loadu_si512(p);
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) {
    if constexpr (sizeof(X) == 1)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi16_epi8(v));
    else
      _mm512_storeu_si512(p, v);
  }
  template <class X>
  TALLY_T static void stream(X* p, reg v) {
    if constexpr (sizeof(X) == 1)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi16_epi8(v));
    else
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
  }
  TALLY_T static reg index(const std::uint16_t (&lanes)[32]) { return _mm512_loadu_si512(lanes); }
  TALLY_T static reg reverse(reg v) {
    alignas(64) static const std::uint16_t lanes[32] = {31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
                                                        15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0};
    return _mm512_permutexvar_epi16(index(lanes), v);
  }
  TALLY_T static reg broadcast_last(reg v) { return _mm512_permutexvar_epi16(_mm512_set1_epi16(31), v); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    // Index bit 5 selects the second table (v): lane 0 takes prev[31], lane i takes v[i-1].
    alignas(64) static const std::uint16_t lanes[32] = {31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46,
                                                        47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62};
    return _mm512_permutex2var_epi16(prev, index(lanes), v);
  }
  /// Lanes [s, s + 32) of lo:hi (16-bit elements only: 8-bit ones are 32-byte vectors).
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    alignas(64) static const std::uint16_t lanes[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    return _mm512_permutex2var_epi16(lo, _mm512_add_epi16(index(lanes), _mm512_set1_epi16(static_cast<short>(s))), hi);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm_cvtsi128_si32(_mm512_castsi512_si128(v))); }
  TALLY_T static lane last(reg v) { return first(broadcast_last(v)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm512_add_epi16(a, b);
    else return _mm512_mullo_epi16(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes = ~std::uint64_t{0}) {
    // Lane i (>= k) takes lane i - k: indices i - k, wrapped; the mask keeps lanes < k.
    alignas(64) static const std::uint16_t from[32] = {
        (0 - k) & 31,  (1 - k) & 31,  (2 - k) & 31,  (3 - k) & 31,  (4 - k) & 31,  (5 - k) & 31,  (6 - k) & 31,
        (7 - k) & 31,  (8 - k) & 31,  (9 - k) & 31,  (10 - k) & 31, (11 - k) & 31, (12 - k) & 31, (13 - k) & 31,
        (14 - k) & 31, (15 - k) & 31, (16 - k) & 31, (17 - k) & 31, (18 - k) & 31, (19 - k) & 31, (20 - k) & 31,
        (21 - k) & 31, (22 - k) & 31, (23 - k) & 31, (24 - k) & 31, (25 - k) & 31, (26 - k) & 31, (27 - k) & 31,
        (28 - k) & 31, (29 - k) & 31, (30 - k) & 31, (31 - k) & 31};
    const reg shifted = _mm512_permutexvar_epi16(index(from), x);
    const __mmask32 m = static_cast<__mmask32>((0xffffffffu << k) & lanes);
    if constexpr (is_sum<Op>) return _mm512_mask_add_epi16(x, m, x, shifted);
    else return _mm512_mask_mullo_epi16(x, m, x, shifted);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return step<Op, 16>(step<Op, 8>(step<Op, 4>(step<Op, 2>(step<Op, 1>(x)))));
  }
};

/// The vector of 8-bit sums (generic.hpp: line_vec_for): AVX2's native 8-bit lanes (32
/// bytes, in-lane byte shifts), callable here since AVX-512 code may inline AVX2 code.
/// The same 32 elements as i16 widened, in fewer and cheaper steps: 64K int8 in L2, fast
/// mode, pinned to one core, six alternated runs: 0.075 -> 0.056 ns per element.
using byte_sums = avx2::i8;

/// The vector of 8-bit sums along lines of at least two of its vectors (generic.hpp:
/// scan_contiguous, reduce_contiguous, scan_lines_by_vectors): 64 lanes, the in-register
/// prefix as byte shifts inside each 128-bit block, then each block's total added to the
/// blocks above it in two block shuffles. Integer sums are exact, so the grouping is free
/// and the bits are byte_sums'. Along a long line (scan_contiguous), its last 63 elements
/// at most go to byte_sums (32 lanes and a scalar tail); packed lines of 128 to 256 end on
/// an overlapping vector. Raw loops over 32 KiB of int8 in L1, pinned to one core: 0.050 ns
/// per element with byte_sums' 256-bit form, 0.041 with this one.
struct byte_long_sums {
  using reg = __m512i;
  using lane = std::uint8_t;
  static constexpr std::size_t width = 64;
  TALLY_T static reg broadcast(unsigned a) { return _mm512_set1_epi8(static_cast<char>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    static_assert(sizeof(X) == 1, "8-bit elements");
    return _mm512_loadu_si512(p);
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm512_storeu_si512(p, v); }
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm512_mask_blend_epi8(lanes, b, a); }
  TALLY_T static reg reverse(reg v) {
    const reg within = _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                                                                   5, 4, 3, 2, 1, 0)));
    return _mm512_shuffle_i64x2(within, within, _MM_SHUFFLE(0, 1, 2, 3));
  }
  TALLY_T static reg broadcast_last(reg v) {
    return _mm512_shuffle_epi8(_mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(3, 3, 3, 3)), _mm512_set1_epi8(15));
  }
  /// [prev[63], v[0], ..., v[62]]
  TALLY_T static reg shift_in(reg v, reg prev) {
    const reg below = _mm512_alignr_epi64(v, prev, 6);  // block i: v's block i - 1, prev's last for i = 0
    return _mm512_alignr_epi8(v, below, 15);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm_cvtsi128_si32(_mm512_castsi512_si128(v))); }
  TALLY_T static lane last(reg v) { return static_cast<lane>(_mm_extract_epi8(_mm512_extracti32x4_epi32(v, 3), 15)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    static_assert(is_sum<Op>, "8-bit lanes add only");
    return _mm512_add_epi8(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    x = combine<Op>(x, _mm512_bslli_epi128(x, 1));
    x = combine<Op>(x, _mm512_bslli_epi128(x, 2));
    x = combine<Op>(x, _mm512_bslli_epi128(x, 4));
    x = combine<Op>(x, _mm512_bslli_epi128(x, 8));
    // Each block's total in all its lanes, summed up the blocks: block b holds blocks 0..b.
    reg totals = _mm512_shuffle_epi8(x, _mm512_set1_epi8(15));
    totals = combine<Op>(totals, _mm512_maskz_shuffle_i64x2(0xfc, totals, totals, _MM_SHUFFLE(2, 1, 0, 0)));
    totals = combine<Op>(totals, _mm512_maskz_shuffle_i64x2(0xf0, totals, totals, _MM_SHUFFLE(1, 0, 0, 0)));
    return combine<Op>(x, _mm512_maskz_shuffle_i64x2(0xfc, totals, totals, _MM_SHUFFLE(2, 1, 0, 0)));
  }
  static constexpr bool has_scan_down = true;
  TALLY_T static reg broadcast_first(reg v) { return _mm512_broadcastb_epi8(_mm512_castsi512_si128(v)); }
  /// The suffix scan: lane i sums lanes i to 63 (scan's steps mirrored: block b takes the
  /// totals of the blocks above it).
  template <class Op>
  TALLY_T static reg scan_down(reg x) {
    x = combine<Op>(x, _mm512_bsrli_epi128(x, 1));
    x = combine<Op>(x, _mm512_bsrli_epi128(x, 2));
    x = combine<Op>(x, _mm512_bsrli_epi128(x, 4));
    x = combine<Op>(x, _mm512_bsrli_epi128(x, 8));
    reg totals = _mm512_shuffle_epi8(x, _mm512_setzero_si512());
    totals = combine<Op>(totals, _mm512_maskz_shuffle_i64x2(0x3f, totals, totals, _MM_SHUFFLE(3, 3, 2, 1)));
    totals = combine<Op>(totals, _mm512_maskz_shuffle_i64x2(0x0f, totals, totals, _MM_SHUFFLE(3, 3, 3, 2)));
    return combine<Op>(x, _mm512_maskz_shuffle_i64x2(0x3f, totals, totals, _MM_SHUFFLE(3, 3, 2, 1)));
  }
  TALLY_T static reg minus(reg a, reg b) { return _mm512_sub_epi8(a, b); }
};

/// The vectors of narrow rows of float products (generic.hpp: narrow_rows_vec_for): AVX2's
/// 256 bits. A row's vector is loaded and stored whole a row, and 64-byte stores 12 bytes
/// apart (rows of 3 float32) cross a cache line on nearly every row: a raw loop over 16M
/// float32 elements in rows of 3, prefetched, took 9.3-12.2 ms with 512-bit vectors and
/// 5.2-5.3 ms with 256 (memcpy 3.5-3.9).
using narrow_f32 = avx2::f32;
using narrow_f64 = avx2::f64;
/// The transpose of tiles of lines shorter than transpose32's 16 (generic.hpp:
/// scan_product_lines_gathered): AVX2's 8x8 blocks, in narrow_f32's rows.
using narrow_transpose32 = avx2::transpose32;

/// 64 lanes of 8-bit sums for packed lines summed from shifted loads (generic.hpp:
/// scan_short_sums_by_loads): a compare into a mask and a masked add a load, where
/// byte_sums takes a compare, an and and an add on half the bytes. Raw loops of int8 lines
/// of 5 in L1, pinned to one core: 3.5 ns per 32 bytes with byte_sums' form, 1.8 ns with
/// this one. Its registers, loads and stores are byte_long_sums'.
struct byte_line_sums : byte_long_sums {
  /// The positions a vector later (avx2::i8::next_positions).
  TALLY_T static reg next_positions(reg at, reg advance, reg last) {
    at = _mm512_add_epi8(at, advance);
    return _mm512_mask_sub_epi8(at, _mm512_cmpgt_epi8_mask(at, last), at, _mm512_add_epi8(last, _mm512_set1_epi8(1)));
  }
  /// y + x in the lanes where at > floor, y elsewhere.
  TALLY_T static reg plus_above(reg y, reg x, reg at, reg floor) {
    return _mm512_mask_add_epi8(y, _mm512_cmpgt_epi8_mask(at, floor), y, x);
  }
  /// Lane i: v[i - w], or before[64 - w + i] in the first w lanes (w a multiple of 4).
  template <int w>
  TALLY_T static reg lanes_up(reg v, reg before) {
    static_assert(w % 4 == 0, "whole 32-bit lanes");
    return _mm512_alignr_epi32(v, before, 16 - w / 4);
  }
  /// Lane i: v[i + w], or after[i + w - 64] in the last w lanes.
  template <int w>
  TALLY_T static reg lanes_down(reg v, reg after) {
    static_assert(w % 4 == 0, "whole 32-bit lanes");
    return _mm512_alignr_epi32(after, v, w / 4);
  }
};

/// 16x16 blocks of 4-byte elements, transposed in registers: the scatter of a tile
/// into an output whose lines run across the tile writes whole 64-byte lines.
struct transpose32 {
  static constexpr std::size_t width = 16;
  /// Row a of the block is at tile + a * pitch; column b lands at out + b * out_stride.
  TALLY_T static void block(const void* tile, std::size_t pitch, void* out, std::ptrdiff_t out_stride, bool stream) {
    const float* in = static_cast<const float*>(tile);
    float* dst = static_cast<float*>(out);
    __m512 r[16];
    TALLY_UNROLL
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(in + static_cast<std::size_t>(i) * pitch);
    transpose(r);
    TALLY_UNROLL
    for (int i = 0; i < 16; ++i) {
      float* row = dst + i * out_stride;
      if (stream)
        _mm512_stream_ps(row, r[i]);
      else
        _mm512_storeu_ps(row, r[i]);
    }
  }
  /// block() between float16 and float rows (`From` / `To`: half or float, converted by
  /// f32's loads and stores: float16 products, generic.hpp, scan_product_lines_gathered).
  template <class From, class To>
  TALLY_T static void block_converted(const From* tile, std::size_t pitch, To* out, std::ptrdiff_t out_stride) {
    __m512 r[16];
    TALLY_UNROLL
    for (int i = 0; i < 16; ++i) r[i] = f32::load(tile + static_cast<std::size_t>(i) * pitch);
    transpose(r);
    TALLY_UNROLL
    for (int i = 0; i < 16; ++i) f32::store(out + i * out_stride, r[i]);
  }
  /// Rows r[0..15] to columns, in registers.
  TALLY_T static void transpose(__m512 (&r)[16]) {
    __m512 t[16];
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) {
      const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
      const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
      r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
      r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
      r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
      r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm512_shuffle_f32x4(r[i], r[4 + i], 0x88);
      t[4 + i] = _mm512_shuffle_f32x4(r[i], r[4 + i], 0xdd);
      t[8 + i] = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0x88);
      t[12 + i] = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0xdd);
    }
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) {
      r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
      r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xdd);
    }
  }
};

/// The transpose of an 8 x 8 block of doubles in registers (row i, lane j -> row j,
/// lane i): 24 shuffles, its own inverse.
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void transpose_8x8(__m512d (&r)[8]) {
  __m512d t[8];
  // t[2i] holds columns 0, 2, 4, 6 of rows 2i and 2i + 1 (a 128-bit lane each), t[2i + 1]
  // columns 1, 3, 5, 7.
  TALLY_UNROLL
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
  TALLY_UNROLL
  for (int p = 0; p < 2; ++p) {  // columns p, p + 2, p + 4, p + 6
    // Rows 0-3 (u) and 4-7 (v) of columns p and p + 4 (lo), p + 2 and p + 6 (hi).
    const __m512d u_lo = _mm512_shuffle_f64x2(t[p], t[2 + p], 0x88);
    const __m512d u_hi = _mm512_shuffle_f64x2(t[p], t[2 + p], 0xdd);
    const __m512d v_lo = _mm512_shuffle_f64x2(t[4 + p], t[6 + p], 0x88);
    const __m512d v_hi = _mm512_shuffle_f64x2(t[4 + p], t[6 + p], 0xdd);
    r[p] = _mm512_shuffle_f64x2(u_lo, v_lo, 0x88);
    r[p + 4] = _mm512_shuffle_f64x2(u_lo, v_lo, 0xdd);
    r[p + 2] = _mm512_shuffle_f64x2(u_hi, v_hi, 0x88);
    r[p + 6] = _mm512_shuffle_f64x2(u_hi, v_hi, 0xdd);
  }
}

/// 8x8 blocks of 8-byte elements, transposed in registers (see transpose32).
struct transpose64 {
  static constexpr std::size_t width = 8;
  TALLY_T static void block(const void* tile, std::size_t pitch, void* out, std::ptrdiff_t out_stride, bool stream) {
    const double* in = static_cast<const double*>(tile);
    double* dst = static_cast<double*>(out);
    __m512d r[8];
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(in + static_cast<std::size_t>(i) * pitch);
    transpose_8x8(r);
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) {
      double* row = dst + i * out_stride;
      if (stream)
        _mm512_stream_pd(row, r[i]);
      else
        _mm512_storeu_pd(row, r[i]);
    }
  }
};

#undef TALLY_T

}  // namespace avx512
}  // namespace detail
TALLY_END_NAMESPACE

#endif  // TALLY_X86_SIMD
