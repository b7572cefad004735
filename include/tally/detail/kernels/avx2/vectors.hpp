// AVX2 (+F16C) vectors for the generic kernels; same vocabulary as avx512.hpp. AVX2 has
// no masked arithmetic, so the Hillis-Steele steps shift in the identity instead
// (-0.0 or 0 for sums, 1 for products: both leave the other operand unchanged, signed
// zeros included).
#pragma once

#include "../../config.hpp"

#if TALLY_X86_SIMD

#include <cstdint>
#include <limits>
#include <type_traits>

#include "../ops.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace avx2 {

#define TALLY_T TALLY_TARGET_AVX2 inline

/// The lane vocabulary (generic.hpp: select, step over a lane set, make_index/permute,
/// window) in 32-bit lanes; the 64-bit vectors use pairs of them. AVX2 has no mask
/// registers, so a lane set (bit i: lane i) becomes a vector mask on use.
namespace lanes32 {
/// All ones in the 32-bit lanes whose bit is set, zero in the others.
TALLY_T __m256i mask(std::uint64_t bits) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits & 0xff)), bit), bit);
}
/// All ones in the 64-bit lanes whose bit is set (4 lanes).
TALLY_T __m256i mask64(std::uint64_t bits) {
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(static_cast<long long>(bits & 0xf)), bit), bit);
}
/// The 32-bit lane index of lanes `per` 32-bit lanes wide: lane i takes lane from[i].
TALLY_T __m256i index(const std::uint8_t* from, int per) {
  alignas(32) std::int32_t at[8];
  for (int i = 0; i < 8; ++i) at[i] = from[i / per] * per + i % per;
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(at));
}
/// 32-bit lanes [s, s + 8) of lo:hi.
TALLY_T __m256i window(__m256i lo, __m256i hi, int s) {
  const __m256i at = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(s));
  return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, at), _mm256_permutevar8x32_epi32(hi, at),
                            _mm256_cmpgt_epi32(at, _mm256_set1_epi32(7)));
}
/// Each 128-bit half of x moved up k 32-bit lanes (k = 1 or 2), `fill`'s top lanes of
/// that half below: one byte-align, where a byte shift and a blend take two (a 64K-float
/// line in L2: 0.85x the time).
template <int k>
TALLY_T __m256i shift_halves_in(__m256i x, __m256i fill) {
  return _mm256_alignr_epi8(x, fill, 16 - 4 * k);
}
/// Lane i - k for lanes i >= k (the lanes below: any value, the step's lane set drops them).
constexpr int below(int i, int k) { return i >= k ? i - k : 0; }
/// The blend immediate of the lanes (of `lanes`) at least k into their group of n.
constexpr int group_mask(int n, int k, int lanes) {
  int mask = 0;
  for (int i = 0; i < lanes; ++i) mask |= (i % n >= k ? 1 : 0) << i;
  return mask;
}
/// All ones in the bytes (of 8) at least k into their group of n (n <= 8).
constexpr unsigned long long group_bytes(int n, int k) {
  unsigned long long bytes = 0;
  for (int i = 0; i < 8; ++i) bytes |= (i % n >= k ? 0xffull : 0) << (8 * i);
  return bytes;
}
}  // namespace lanes32

// Group scans (generic.hpp's short lines of n = 2, 4 or 8 elements, groups inside the
// 128-bit halves): byte shifts and blends with immediate masks, no lane-crossing permute
// and no mask built from lane bits (int32 lines of 4 with the segmented steps: 1.6x the
// time of a memcpy; so, 0.95x).

/// 8 float lanes: float32, and float16 converted on load and store (F16C).
struct f32 {
  using reg = __m256;
  static constexpr std::size_t width = 8;
  TALLY_T static reg broadcast(float a) { return _mm256_set1_ps(a); }
  TALLY_T static reg load(const float* p) { return _mm256_loadu_ps(p); }
  TALLY_T static reg load(const half* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  TALLY_T static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  TALLY_T static void store(half* p, reg v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  TALLY_T static void stream(float* p, reg v) { _mm256_stream_ps(p, v); }
  TALLY_T static void stream(half* p, reg v) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  TALLY_T static reg permute(reg v, int i0, int i1, int i2, int i3, int i4, int i5, int i6, int i7) {
    return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(i0, i1, i2, i3, i4, i5, i6, i7));
  }
  TALLY_T static reg reverse(reg v) { return permute(v, 7, 6, 5, 4, 3, 2, 1, 0); }
  TALLY_T static reg broadcast_last(reg v) { return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(7)); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm256_blend_ps(permute(v, 0, 0, 1, 2, 3, 4, 5, 6), broadcast_last(prev), 0x01);
  }
  static constexpr bool lane_ops = true;
  using lane_index = __m256i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return lanes32::index(from, 1); }
  TALLY_T static reg permute(reg v, lane_index at) { return _mm256_permutevar8x32_ps(v, at); }
  /// Lanes in `lanes` (bit i: lane i) from a, the others from b.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) {
    return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(lanes32::mask(lanes)));
  }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    return _mm256_castsi256_ps(lanes32::window(_mm256_castps_si256(lo), _mm256_castps_si256(hi), static_cast<int>(s)));
  }
  /// Lanes >= k and in `lanes` combine with the lane k below (Hillis-Steele step).
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes) {
    using lanes32::below;
    const reg shifted = permute(x, below(0, k), below(1, k), below(2, k), below(3, k), below(4, k), below(5, k),
                                below(6, k), below(7, k));
    return select(lanes & (0xffu << k), combine<Op>(x, shifted), x);
  }
  TALLY_T static float first(reg v) { return _mm256_cvtss_f32(v); }
  TALLY_T static float last(reg v) { return _mm256_cvtss_f32(broadcast_last(v)); }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return _mm256_blendv_ps(x, value, _mm256_cmp_ps(x, x, _CMP_UNORD_Q)); }
  TALLY_T static bool all_finite(reg v) {
    const reg magnitude = _mm256_andnot_ps(broadcast(-0.0f), v);
    return _mm256_movemask_ps(_mm256_cmp_ps(magnitude, broadcast(std::numeric_limits<float>::infinity()), _CMP_LT_OQ)) == 0xff;
  }
  /// Whether every lane's magnitude lies in [2^-100, 2^100] (false for 0, inf, NaN).
  TALLY_T static bool all_moderate(reg v) {
    const reg magnitude = _mm256_andnot_ps(broadcast(-0.0f), v);
    return _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(magnitude, broadcast(0x1p-100f), _CMP_GE_OQ),
                                            _mm256_cmp_ps(magnitude, broadcast(0x1p100f), _CMP_LE_OQ))) == 0xff;
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm256_add_ps(a, b);
    else return _mm256_mul_ps(a, b);
  }
  static constexpr int group_max = 4;
  /// Inclusive scans of each group of n neighbouring lanes (steps of k, 2k, ... < n).
  template <class Op, int n, int k = 1>
  TALLY_T static reg scan_groups(reg x) {
    if constexpr (k >= n) {
      return x;
    } else {
      constexpr int lanes = lanes32::group_mask(n, k, 8);  // a constant, also unoptimized
      const reg up = _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(x), 4 * k));
      return scan_groups<Op, n, 2 * k>(_mm256_blend_ps(x, combine<Op>(x, up), lanes));
    }
  }
  /// Lane i: lane i - 1 of y within its group of n, `empty` at a group's first lane.
  template <int n>
  TALLY_T static reg shift_in_groups(reg y, reg empty) {
    constexpr int lanes = lanes32::group_mask(n, 1, 8);
    return _mm256_blend_ps(empty, _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(y), 4)), lanes);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    // Steps of 1 and 2 lanes within each 128-bit half (byte shifts, cheaper than lane
    // permutes: a 64K-element line in L2 took 26 us with three permute steps, 18 us so),
    // then the low half's last lane into the high half.
    const reg id = broadcast(Op::template identity<float>());
    const __m256i fill = _mm256_castps_si256(id);
    x = combine<Op>(x, _mm256_castsi256_ps(lanes32::shift_halves_in<1>(_mm256_castps_si256(x), fill)));
    x = combine<Op>(x, _mm256_castsi256_ps(lanes32::shift_halves_in<2>(_mm256_castps_si256(x), fill)));
    return combine<Op>(x, _mm256_permute2f128_ps(_mm256_shuffle_ps(x, x, _MM_SHUFFLE(3, 3, 3, 3)), id, 0x02));
  }
};

/// 4 double lanes.
struct f64 {
  using reg = __m256d;
  static constexpr std::size_t width = 4;
  TALLY_T static reg broadcast(double a) { return _mm256_set1_pd(a); }
  TALLY_T static reg load(const double* p) { return _mm256_loadu_pd(p); }
  TALLY_T static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  TALLY_T static void stream(double* p, reg v) { _mm256_stream_pd(p, v); }
  TALLY_T static reg reverse(reg v) { return _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3)); }
  TALLY_T static reg broadcast_last(reg v) { return _mm256_permute4x64_pd(v, 0xff); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), broadcast_last(prev), 0x1);
  }
  static constexpr bool lane_ops = true;
  using lane_index = __m256i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return lanes32::index(from, 2); }
  TALLY_T static reg permute(reg v, lane_index at) {
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), at));
  }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) {
    return _mm256_blendv_pd(b, a, _mm256_castsi256_pd(lanes32::mask64(lanes)));
  }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    return _mm256_castsi256_pd(lanes32::window(_mm256_castpd_si256(lo), _mm256_castpd_si256(hi), 2 * static_cast<int>(s)));
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes) {
    const reg shifted = k == 1 ? _mm256_permute4x64_pd(x, _MM_SHUFFLE(2, 1, 0, 0)) : _mm256_permute4x64_pd(x, _MM_SHUFFLE(1, 0, 0, 0));
    return select(lanes & (0xfu << k), combine<Op>(x, shifted), x);
  }
  TALLY_T static double first(reg v) { return _mm256_cvtsd_f64(v); }
  TALLY_T static double last(reg v) { return _mm256_cvtsd_f64(broadcast_last(v)); }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return _mm256_blendv_pd(x, value, _mm256_cmp_pd(x, x, _CMP_UNORD_Q)); }
  TALLY_T static bool all_finite(reg v) {
    const reg magnitude = _mm256_andnot_pd(broadcast(-0.0), v);
    return _mm256_movemask_pd(_mm256_cmp_pd(magnitude, broadcast(std::numeric_limits<double>::infinity()), _CMP_LT_OQ)) == 0xf;
  }
  /// Whether every lane's magnitude lies in [2^-1000, 2^1000] (false for 0, inf, NaN).
  TALLY_T static bool all_moderate(reg v) {
    const reg magnitude = _mm256_andnot_pd(broadcast(-0.0), v);
    return _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(magnitude, broadcast(0x1p-1000), _CMP_GE_OQ),
                                            _mm256_cmp_pd(magnitude, broadcast(0x1p1000), _CMP_LE_OQ))) == 0xf;
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm256_add_pd(a, b);
    else return _mm256_mul_pd(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    const reg id = broadcast(Op::template identity<double>());
    x = combine<Op>(x, _mm256_blend_pd(_mm256_permute4x64_pd(x, _MM_SHUFFLE(2, 1, 0, 0)), id, 0x1));
    return combine<Op>(x, _mm256_blend_pd(_mm256_permute4x64_pd(x, _MM_SHUFFLE(1, 0, 0, 0)), id, 0x3));
  }
};

/// 8 lanes of 32-bit integers.
struct i32 {
  using reg = __m256i;
  using lane = std::uint32_t;
  static constexpr std::size_t width = 8;
  TALLY_T static reg broadcast(lane a) { return _mm256_set1_epi32(static_cast<int>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
  TALLY_T static reg permute(reg v, int i0, int i1, int i2, int i3, int i4, int i5, int i6, int i7) {
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(i0, i1, i2, i3, i4, i5, i6, i7));
  }
  TALLY_T static reg reverse(reg v) { return permute(v, 7, 6, 5, 4, 3, 2, 1, 0); }
  TALLY_T static reg broadcast_last(reg v) { return _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm256_blend_epi32(permute(v, 0, 0, 1, 2, 3, 4, 5, 6), broadcast_last(prev), 0x01);
  }
  static constexpr bool lane_ops = true;
  using lane_index = __m256i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return lanes32::index(from, 1); }
  TALLY_T static reg permute(reg v, lane_index at) { return _mm256_permutevar8x32_epi32(v, at); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm256_blendv_epi8(b, a, lanes32::mask(lanes)); }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) { return lanes32::window(lo, hi, static_cast<int>(s)); }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes) {
    using lanes32::below;
    const reg shifted = permute(x, below(0, k), below(1, k), below(2, k), below(3, k), below(4, k), below(5, k),
                                below(6, k), below(7, k));
    return select(lanes & (0xffu << k), combine<Op>(x, shifted), x);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm256_cvtsi256_si32(v)); }
  TALLY_T static lane last(reg v) { return first(broadcast_last(v)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm256_add_epi32(a, b);
    else return _mm256_mullo_epi32(a, b);
  }
  static constexpr int group_max = 4;
  template <class Op, int n, int k = 1>
  TALLY_T static reg scan_groups(reg x) {  // see f32
    if constexpr (k >= n) {
      return x;
    } else {
      constexpr int lanes = lanes32::group_mask(n, k, 8);
      return scan_groups<Op, n, 2 * k>(_mm256_blend_epi32(x, combine<Op>(x, _mm256_slli_si256(x, 4 * k)), lanes));
    }
  }
  template <int n>
  TALLY_T static reg shift_in_groups(reg y, reg empty) {
    constexpr int lanes = lanes32::group_mask(n, 1, 8);
    return _mm256_blend_epi32(empty, _mm256_slli_si256(y, 4), lanes);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {  // the steps of f32::scan
    const reg id = broadcast(Op::template identity<lane>());
    x = combine<Op>(x, lanes32::shift_halves_in<1>(x, id));
    x = combine<Op>(x, lanes32::shift_halves_in<2>(x, id));
    return combine<Op>(x, _mm256_permute2x128_si256(_mm256_shuffle_epi32(x, _MM_SHUFFLE(3, 3, 3, 3)), id, 0x02));
  }
};

/// 4 lanes of 64-bit integers; AVX2 has no 64-bit multiply, so it is built from 32-bit ones.
struct i64 {
  using reg = __m256i;
  using lane = std::uint64_t;
  static constexpr std::size_t width = 4;
  TALLY_T static reg broadcast(lane a) { return _mm256_set1_epi64x(static_cast<long long>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
  TALLY_T static reg reverse(reg v) { return _mm256_permute4x64_epi64(v, _MM_SHUFFLE(0, 1, 2, 3)); }
  TALLY_T static reg broadcast_last(reg v) { return _mm256_permute4x64_epi64(v, 0xff); }
  TALLY_T static reg shift_in(reg v, reg prev) {
    return _mm256_blend_epi32(_mm256_permute4x64_epi64(v, _MM_SHUFFLE(2, 1, 0, 0)), broadcast_last(prev), 0x03);
  }
  static constexpr bool lane_ops = true;
  using lane_index = __m256i;
  TALLY_T static lane_index make_index(const std::uint8_t* from) { return lanes32::index(from, 2); }
  TALLY_T static reg permute(reg v, lane_index at) { return _mm256_permutevar8x32_epi32(v, at); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return _mm256_blendv_epi8(b, a, lanes32::mask64(lanes)); }
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) { return lanes32::window(lo, hi, 2 * static_cast<int>(s)); }
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes) {
    const reg shifted = k == 1 ? _mm256_permute4x64_epi64(x, _MM_SHUFFLE(2, 1, 0, 0)) : _mm256_permute4x64_epi64(x, _MM_SHUFFLE(1, 0, 0, 0));
    return select(lanes & (0xfu << k), combine<Op>(x, shifted), x);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm256_extract_epi64(v, 0)); }
  TALLY_T static lane last(reg v) { return static_cast<lane>(_mm256_extract_epi64(v, 3)); }
  TALLY_T static reg multiply(reg a, reg b) {
    const reg low = _mm256_mul_epu32(a, b);
    const reg cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                       _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm256_add_epi64(a, b);
    else return multiply(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    const reg id = broadcast(Op::template identity<lane>());
    x = combine<Op>(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, _MM_SHUFFLE(2, 1, 0, 0)), id, 0x03));
    return combine<Op>(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, _MM_SHUFFLE(1, 0, 0, 0)), id, 0x0f));
  }
};

/// 16 lanes of 16-bit integers; 8-bit elements are widened on load and truncated on store.
struct i16 {
  using reg = __m256i;
  using lane = std::uint16_t;
  static constexpr std::size_t width = 16;
  TALLY_T static reg broadcast(unsigned a) { return _mm256_set1_epi16(static_cast<short>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    if constexpr (sizeof(X) == 1)
      return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    else
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  /// The low bytes of the 16 lanes, in order.
  TALLY_T static __m128i narrow(reg v) {
    const reg bytes = _mm256_shuffle_epi8(v, _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1,
                                                              0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) {
    if constexpr (sizeof(X) == 1)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), narrow(v));
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  template <class X>
  TALLY_T static void stream(X* p, reg v) {
    if constexpr (sizeof(X) == 1)
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), narrow(v));
    else
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  }
  TALLY_T static reg reverse(reg v) {
    const reg within = _mm256_shuffle_epi8(v, _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
                                                               14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1));
    return _mm256_permute4x64_epi64(within, _MM_SHUFFLE(1, 0, 3, 2));
  }
  TALLY_T static reg broadcast_last(reg v) {
    const reg high = _mm256_permute2x128_si256(v, v, 0x11);
    return _mm256_shuffle_epi8(high, _mm256_set1_epi16(0x0f0e));
  }
  /// Lanes >= k take lane i - k, lanes < k are 0 (across the two 128-bit halves).
  template <int k>
  TALLY_T static reg shift_up(reg v) {
    const reg low_to_high = _mm256_permute2x128_si256(v, v, 0x08);  // [0, low half]
    if constexpr (k == 8) return low_to_high;
    else return _mm256_alignr_epi8(v, low_to_high, 16 - 2 * k);
  }
  TALLY_T static reg shift_in(reg v, reg prev) {
    const reg joined = _mm256_permute2x128_si256(prev, v, 0x21);  // [prev high half, v low half]
    return _mm256_alignr_epi8(v, joined, 14);
  }
  static constexpr bool lane_ops = true;
  /// A permutation of 16-bit lanes: AVX2 shuffles bytes within 128-bit halves only, so
  /// both halves are shuffled from each source half and `high` picks the second.
  struct lane_index {
    __m256i bytes, high;
  };
  TALLY_T static lane_index make_index(const std::uint8_t* from) {
    alignas(32) std::int8_t bytes[32];
    alignas(32) std::int16_t high[16];
    for (int i = 0; i < 16; ++i) {
      bytes[2 * i] = static_cast<std::int8_t>(2 * (from[i] % 8));
      bytes[2 * i + 1] = static_cast<std::int8_t>(2 * (from[i] % 8) + 1);
      high[i] = from[i] >= 8 ? -1 : 0;
    }
    return {_mm256_load_si256(reinterpret_cast<const __m256i*>(bytes)), _mm256_load_si256(reinterpret_cast<const __m256i*>(high))};
  }
  TALLY_T static reg permute(reg v, const lane_index& at) {
    const reg from_low = _mm256_shuffle_epi8(_mm256_permute2x128_si256(v, v, 0x00), at.bytes);
    const reg from_high = _mm256_shuffle_epi8(_mm256_permute2x128_si256(v, v, 0x11), at.bytes);
    return _mm256_blendv_epi8(from_low, from_high, at.high);
  }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) {
    const reg bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, -32768);
    const reg mask = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16(static_cast<short>(lanes & 0xffff)), bit), bit);
    return _mm256_blendv_epi8(b, a, mask);
  }
  /// Lanes [s, s + 16) of lo:hi, through memory (s varies; only exclusive narrow columns).
  TALLY_T static reg window(reg lo, reg hi, std::size_t s) {
    alignas(32) std::uint16_t both[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(both), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(both + 16), hi);
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(both + s));
  }
  /// Lanes >= k and in `lanes` combine with the lane k below.
  template <class Op, int k>
  TALLY_T static reg step(reg x, std::uint64_t lanes) {
    return select(lanes & (0xffffu << k), combine<Op>(x, shift_up<k>(x)), x);
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm256_extract_epi16(v, 0)); }
  TALLY_T static lane last(reg v) { return static_cast<lane>(_mm256_extract_epi16(v, 15)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return _mm256_add_epi16(a, b);
    else return _mm256_mullo_epi16(a, b);
  }
  static constexpr int group_max = 8;
  /// See f32 (the immediate of a 16-bit blend covers one half; both halves take it).
  template <class Op, int n, int k = 1>
  TALLY_T static reg scan_groups(reg x) {
    if constexpr (k >= n) {
      return x;
    } else {
      constexpr int lanes = lanes32::group_mask(n, k, 8);
      return scan_groups<Op, n, 2 * k>(_mm256_blend_epi16(x, combine<Op>(x, _mm256_slli_si256(x, 2 * k)), lanes));
    }
  }
  template <int n>
  TALLY_T static reg shift_in_groups(reg y, reg empty) {
    constexpr int lanes = lanes32::group_mask(n, 1, 8);
    return _mm256_blend_epi16(empty, _mm256_slli_si256(y, 2), lanes);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x) {
    reg shifted = shift_up<k>(x);
    if constexpr (!is_sum<Op>) {  // the zeros shifted in must become the product's identity, 1
      const reg low_lanes = _mm256_andnot_si256(shift_up<k>(_mm256_set1_epi16(-1)), _mm256_set1_epi16(1));
      shifted = _mm256_or_si256(shifted, low_lanes);
    }
    return combine<Op>(x, shifted);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return step<Op, 8>(step<Op, 4>(step<Op, 2>(step<Op, 1>(x))));
  }
};

/// 32 lanes of 8-bit integers, for sums only (x86 has no 8-bit multiply: 8-bit products
/// take i16). Twice i16's lanes and no widening or narrowing: int8 lines with i16 were
/// bound by the shuffles (4096x4096 along axis 1: 1.6x the time of a memcpy). Sums in
/// 8-bit lanes are the same modular sums. It offers the basic vocabulary, select and the
/// group scans; the lane vocabulary (narrow columns, segmented short lines) stays i16's.
struct i8 {
  using reg = __m256i;
  using lane = std::uint8_t;
  static constexpr std::size_t width = 32;
  TALLY_T static reg broadcast(unsigned a) { return _mm256_set1_epi8(static_cast<char>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    static_assert(sizeof(X) == 1, "8-bit elements");
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
  TALLY_T static reg reverse(reg v) {
    const reg within = _mm256_shuffle_epi8(v, _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                                               15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    return _mm256_permute4x64_epi64(within, _MM_SHUFFLE(1, 0, 3, 2));
  }
  TALLY_T static reg broadcast_last(reg v) {
    return _mm256_shuffle_epi8(_mm256_permute2x128_si256(v, v, 0x11), _mm256_set1_epi8(15));
  }
  TALLY_T static reg shift_in(reg v, reg prev) {
    const reg joined = _mm256_permute2x128_si256(prev, v, 0x21);  // [prev high half, v low half]
    return _mm256_alignr_epi8(v, joined, 15);
  }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) {
    // Byte i of the lane bits to the 8 lanes 8i..8i+7 (each 128-bit half sees all four
    // bytes: the broadcast repeats them in every 32-bit lane), then one bit per lane.
    const reg bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(lanes & 0xffffffffu)),
                                          _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2,
                                                           2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const reg bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    return _mm256_blendv_epi8(b, a, _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit));
  }
  TALLY_T static lane first(reg v) { return static_cast<lane>(_mm256_cvtsi256_si32(v)); }
  TALLY_T static lane last(reg v) { return static_cast<lane>(_mm256_extract_epi8(v, 31)); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    static_assert(is_sum<Op>, "8-bit lanes add only");
    return _mm256_add_epi8(a, b);
  }
  /// All ones in the lanes at least k into their group of n (groups inside 128-bit halves).
  template <int n, int k>
  TALLY_T static reg group_lanes() {
    if constexpr (n == 16) {
      return _mm256_slli_si256(_mm256_set1_epi8(-1), k);
    } else {
      constexpr unsigned long long bytes = lanes32::group_bytes(n, k);  // a constant, also unoptimized
      return _mm256_set1_epi64x(static_cast<long long>(bytes));
    }
  }
  static constexpr int group_max = 16;
  /// Inclusive sums of each group of n neighbouring lanes: byte shifts, and the lanes the
  /// shift brings from the group below zeroed (the sum's identity).
  template <class Op, int n, int k = 1>
  TALLY_T static reg scan_groups(reg x) {
    if constexpr (k >= n) {
      return x;
    } else {
      const reg up = _mm256_slli_si256(x, k);
      return scan_groups<Op, n, 2 * k>(combine<Op>(x, n == 16 ? up : _mm256_and_si256(up, group_lanes<n, k>())));
    }
  }
  template <int n>
  TALLY_T static reg shift_in_groups(reg y, reg empty) {
    return _mm256_blendv_epi8(empty, _mm256_slli_si256(y, 1), group_lanes<n, 1>());
  }
  // Packed lines of any length as differences of the stream's running sum (generic.hpp:
  // scan_short_sums_by_difference); positions in lines are lane values below 64.
  TALLY_T static reg minus(reg a, reg b) { return _mm256_sub_epi8(a, b); }
  /// The positions a vector later: plus `advance` (32 % n in every lane), less n where
  /// that reaches n (`last` = n - 1 in every lane).
  TALLY_T static reg next_positions(reg at, reg advance, reg last) {
    at = _mm256_add_epi8(at, advance);
    return _mm256_sub_epi8(at, _mm256_and_si256(_mm256_cmpgt_epi8(at, last), _mm256_add_epi8(last, _mm256_set1_epi8(1))));
  }
  /// y + x in the lanes where at > floor, y elsewhere (packed lines summed from shifted loads).
  TALLY_T static reg plus_above(reg y, reg x, reg at, reg floor) {
    return _mm256_add_epi8(y, _mm256_and_si256(x, _mm256_cmpgt_epi8(at, floor)));
  }
  /// Lane i: v[i - w], or before[32 - w + i] in the first w lanes.
  template <int w>
  TALLY_T static reg lanes_up(reg v, reg before) {
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(before, v, 0x21), 16 - w);
  }
  /// Lane i: v[i + w], or after[i + w - 32] in the last w lanes.
  template <int w>
  TALLY_T static reg lanes_down(reg v, reg after) {
    return _mm256_alignr_epi8(_mm256_permute2x128_si256(v, after, 0x21), v, w);
  }
  /// Lane i: before[i - at[i]] where lane i's line starts in this vector, else the last
  /// lane of `carried` (the line began in an earlier vector).
  TALLY_T static reg line_bases(reg before, reg at, reg carried) {
    const reg start = _mm256_sub_epi8(_mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                                       20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31),
                                      at);
    const reg from_low = _mm256_shuffle_epi8(_mm256_permute2x128_si256(before, before, 0x00), start);
    const reg from_high = _mm256_shuffle_epi8(_mm256_permute2x128_si256(before, before, 0x11), start);
    const reg here = _mm256_blendv_epi8(from_low, from_high, _mm256_cmpgt_epi8(start, _mm256_set1_epi8(15)));
    return _mm256_blendv_epi8(here, broadcast_last(carried), _mm256_cmpgt_epi8(_mm256_setzero_si256(), start));
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    x = scan_groups<Op, 16>(x);  // within each half, then the low half's last lane into the high half
    const reg low_last = _mm256_shuffle_epi8(x, _mm256_set1_epi8(15));
    return combine<Op>(x, _mm256_permute2x128_si256(low_last, low_last, 0x08));
  }
  static constexpr bool has_scan_down = true;
  TALLY_T static reg broadcast_first(reg v) { return _mm256_broadcastb_epi8(_mm256_castsi256_si128(v)); }
  /// The suffix scan: lane i sums lanes i to 31 (scan's steps mirrored), for lines read
  /// downwards without reversing them in the register (generic.hpp: scan_lines_in_vector).
  template <class Op>
  TALLY_T static reg scan_down(reg x) {
    x = combine<Op>(x, _mm256_srli_si256(x, 1));
    x = combine<Op>(x, _mm256_srli_si256(x, 2));
    x = combine<Op>(x, _mm256_srli_si256(x, 4));
    x = combine<Op>(x, _mm256_srli_si256(x, 8));
    const reg high_first = _mm256_shuffle_epi8(x, _mm256_setzero_si256());
    return combine<Op>(x, _mm256_permute2x128_si256(high_first, high_first, 0x81));  // [high half's, zero]
  }
};

/// The vector of 8-bit sums (generic.hpp: line_vec_for), along long lines too.
using byte_sums = i8;
using byte_long_sums = i8;

/// The vectors of narrow rows of float products (generic.hpp: narrow_rows_vec_for).
using narrow_f32 = f32;
using narrow_f64 = f64;
/// The vector of 8-bit packed line sums from shifted loads (generic.hpp: scan_short_lines).
using byte_line_sums = i8;

/// 8x8 blocks of 4-byte elements, transposed in registers (see avx512::transpose32).
struct transpose32 {
  static constexpr std::size_t width = 8;
  TALLY_T static void block(const void* tile, std::size_t pitch, void* out, std::ptrdiff_t out_stride, bool stream) {
    const float* in = static_cast<const float*>(tile);
    float* dst = static_cast<float*>(out);
    __m256 r[8];
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + static_cast<std::size_t>(i) * pitch);
    transpose(r);
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) {
      float* row = dst + i * out_stride;
      if (stream)
        _mm256_stream_ps(row, r[i]);
      else
        _mm256_storeu_ps(row, r[i]);
    }
  }
  /// block() between float16 and float rows (`From` / `To`: half or float, converted by
  /// f32's loads and stores: float16 products, generic.hpp, scan_product_lines_gathered).
  template <class From, class To>
  TALLY_T static void block_converted(const From* tile, std::size_t pitch, To* out, std::ptrdiff_t out_stride) {
    __m256 r[8];
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) r[i] = f32::load(tile + static_cast<std::size_t>(i) * pitch);
    transpose(r);
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) f32::store(out + i * out_stride, r[i]);
  }
  /// Rows r[0..7] to columns, in registers.
  TALLY_T static void transpose(__m256 (&r)[8]) {
    __m256 t[8];
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; ++i) {
      r[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      r[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      r[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      r[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x20);
      t[4 + i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x31);
    }
    TALLY_UNROLL
    for (int i = 0; i < 8; ++i) r[i] = t[i];
  }
};
/// The transpose of tiles of lines shorter than transpose32's (avx512: AVX2's); here the same.
using narrow_transpose32 = transpose32;

/// The transpose of a 4 x 4 block of doubles in registers: 8 shuffles, its own inverse.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void transpose_4x4(__m256d (&r)[4]) {
  // Columns 0 and 2 (t0: rows 0 and 1, t2: rows 2 and 3), 1 and 3 (t1, t3), a 128-bit half each.
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/// 4x4 blocks of 8-byte elements, transposed in registers (see avx512::transpose32).
struct transpose64 {
  static constexpr std::size_t width = 4;
  TALLY_T static void block(const void* tile, std::size_t pitch, void* out, std::ptrdiff_t out_stride, bool stream) {
    const double* in = static_cast<const double*>(tile);
    double* dst = static_cast<double*>(out);
    __m256d r[4];
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) r[i] = _mm256_loadu_pd(in + static_cast<std::size_t>(i) * pitch);
    transpose_4x4(r);
    TALLY_UNROLL
    for (int i = 0; i < 4; ++i) {
      double* row = dst + i * out_stride;
      if (stream)
        _mm256_stream_pd(row, r[i]);
      else
        _mm256_storeu_pd(row, r[i]);
    }
  }
};

#undef TALLY_T

}  // namespace avx2
}  // namespace detail
TALLY_END_NAMESPACE

#endif  // TALLY_X86_SIMD
