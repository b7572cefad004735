// Vector forms of the exact sums and products (ops/exact_sum.hpp, scan_accuracy::exact).
// float32 elements are widened to double, scanned in double and rounded once on the way
// out; float64 lines fold a compensated pair per element, one line per lane where there are
// many (compensated_lines.hpp), else in the engine's scalar loop.
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
#include "../dispatch/kernel_table.hpp"
#include "avx2_lane_store.hpp"
#include "compensated_lines.hpp"
#include "lane_rows.hpp"
#include "narrow_row_walk.hpp"
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
///
/// This file's small vector helpers are always inlined. An out-of-line copy of one, folded
/// with an identical twin by GCC's identical code folding (double_lanes<true>::last and
/// double_lanes<false>::last are the same code), makes MinGW-w64 GCC warn "AVX512F vector
/// return without AVX512F enabled changes the ABI" (-Wpsabi), an error under -Werror.
template <bool Sum>
struct double_lanes {
  /// The identity shifted into a prefix: -0.0 keeps every addend's sign, 1 every factor.
  static constexpr double identity = Sum ? -0.0 : 1.0;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512d apply(__m512d x, __m512d y) { return Sum ? _mm512_add_pd(x, y) : _mm512_mul_pd(x, y); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256d apply(__m256d x, __m256d y) { return Sum ? _mm256_add_pd(x, y) : _mm256_mul_pd(x, y); }
  static double apply(double x, double y) { return Sum ? x + y : x * y; }

  /// Inclusive prefix of 8 lanes: three steps, the identity shifted in.
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512d prefix(__m512d v) {
    const __m512d id = _mm512_set1_pd(identity);
    v = apply(v, _mm512_mask_permutexvar_pd(id, 0xfe, _mm512_setr_epi64(0, 0, 1, 2, 3, 4, 5, 6), v));
    v = apply(v, _mm512_mask_permutexvar_pd(id, 0xfc, _mm512_setr_epi64(0, 0, 0, 1, 2, 3, 4, 5), v));
    return apply(v, _mm512_mask_permutexvar_pd(id, 0xf0, _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 2, 3), v));
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512d last(__m512d v) { return _mm512_permutexvar_pd(_mm512_set1_epi64(7), v); }

  /// Inclusive prefix of 4 lanes: two steps.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256d prefix(__m256d v) {
    const __m256d id = _mm256_set1_pd(identity);
    v = apply(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), id, 0x1));
    return apply(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(1, 0, 0, 0)), id, 0x3));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256d last(__m256d v) { return _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3)); }
};

/// 16 floats as two vectors of 8 doubles, and back.
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void widen16(__m512 x, __m512d& low, __m512d& high) {
  low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
  high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
}
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512 narrow16(__m512d low, __m512d high) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(low)), _mm512_cvtpd_ps(high), 1);
}
/// 8 floats as two vectors of 4 doubles, and back.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void widen8(__m256 x, __m256d& low, __m256d& high) {
  low = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
  high = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
}
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 narrow8(__m256d low, __m256d high) {
  return _mm256_set_m128(_mm256_cvtpd_ps(high), _mm256_cvtpd_ps(low));
}

/// Vectors of a line in scan order: at p and up, or (Reverse) at p and down, lane 0 the
/// element at p either way. The `partial` forms take the first `count` lanes only (a
/// line's last, short step): masked loads and stores, which never touch memory outside
/// those lanes, the other lanes read as `fill`.
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
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512 reverse16(__m512 v) {
    return _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), v);
  }
  /// The memory lanes of a vector's first `count` lanes in scan order (count <= 16).
  static __mmask16 mask16(std::size_t count) {
    const auto lanes = static_cast<__mmask16>((1u << count) - 1);
    return Reverse ? static_cast<__mmask16>(lanes << (16 - count)) : lanes;
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512 load16(const float* p) {
    return Reverse ? reverse16(_mm512_loadu_ps(p - 15)) : _mm512_loadu_ps(p);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512 load16(const float* p, std::size_t count, __m512 fill) {
    const __m512 v = _mm512_mask_loadu_ps(fill, mask16(count), Reverse ? p - 15 : p);
    return Reverse ? reverse16(v) : v;
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store16(float* p, __m512 v, bool stream) {
    if constexpr (Reverse) {
      v = reverse16(v);
      p -= 15;
    }
    stream ? _mm512_stream_ps(p, v) : _mm512_storeu_ps(p, v);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store16(float* p, __m512 v, std::size_t count) {
    _mm512_mask_storeu_ps(Reverse ? p - 15 : p, mask16(count), Reverse ? reverse16(v) : v);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 reverse8(__m256 v) {
    return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  /// AVX2's masks are vectors: lane i's sign bit set where it is taken.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256i mask8(std::size_t count) {
    const __m256i lane = Reverse ? _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0) : _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 load8(const float* p) {
    return Reverse ? reverse8(_mm256_loadu_ps(p - 7)) : _mm256_loadu_ps(p);
  }
  // The AVX2 counted forms take the plain loads and stores for a whole vector: a masked
  // store (VMASKMOVPS) costs many cycles on AMD's cores, and a line of 8 is all last step
  // (8 x 8 floats in the exact mode with AVX2: 70 ns a call before).
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 load8(const float* p, std::size_t count, __m256 fill) {
    if (count >= 8) return load8(p);
    const __m256i mask = mask8(count);
    const __m256 v = _mm256_blendv_ps(fill, _mm256_maskload_ps(Reverse ? p - 7 : p, mask), _mm256_castsi256_ps(mask));
    return Reverse ? reverse8(v) : v;
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store8(float* p, __m256 v, bool stream) {
    if constexpr (Reverse) {
      v = reverse8(v);
      p -= 7;
    }
    stream ? _mm256_stream_ps(p, v) : _mm256_storeu_ps(p, v);
  }
  /// The first `count` lanes (in scan order) from `p`: in pieces of 4, 2 and 1 lanes, not
  /// with VMASKMOVPS (lines of 6 floats in the exact mode, AVX2: 3.5x memcpy with it).
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store8(float* p, __m256 v, std::size_t count) {
    if (count >= 8) return store8(p, v, false);
    const auto last = static_cast<int>(count) - 1;
    if constexpr (Reverse) {  // the lanes in memory order from lane 0, stored from the lowest address
      v = _mm256_permutevar8x32_ps(v, _mm256_sub_epi32(_mm256_set1_epi32(last), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
      p -= last;
    }
    __m128 x = _mm256_castps256_ps128(v);
    if (count & 4) {
      _mm_storeu_ps(p, x);
      x = _mm256_extractf128_ps(v, 1);
      p += 4;
    }
    if (count & 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), x);
      x = _mm_movehl_ps(x, x);
      p += 2;
    }
    if (count & 1) _mm_store_ss(p, x);
  }
};

/// Lines ahead that exact_lines_avx512 / _avx2 prefetch: about 1 KiB of input. Their
/// masked loads (each line's last step) do not train the hardware prefetchers: lines of 16
/// to 31 elements took 14 to 25 ns a line from memory, 5 to 9 in L1.
inline std::size_t lines_ahead(std::size_t n) noexcept { return 1 + 1024 / (n * sizeof(float)); }

/// Prefetches the line of n floats whose first element in scan order is at `in`: every
/// cache line it spans. Its two ends only, the form before, left the middle of longer
/// lines to the hardware prefetchers, and the loads waited: float32 lines of 64 / 256 /
/// 300, x memcpy, AVX2 1.9 / 1.75 / 2.1 -> 1.3 / 1.4 / 1.4, AVX-512 1.35 / 1.45 / 1.67 ->
/// 1.14 / 1.16 / 1.15 (2026-11-30).
template <bool Reverse>
void prefetch_line(const float* in, std::size_t n) noexcept {
  const char* low = reinterpret_cast<const char*>(Reverse ? in - (n - 1) : in);
  const char* last = low + (n - 1) * sizeof(float);
  for (const char* p = low; p < last; p += 64) detail::prefetch(p);  // one address in each line before last's
  detail::prefetch(last);
}

/// One step of an exact float32 line: 32 elements (AVX-512) or 16 (AVX2) in scan order
/// from `in` after the running value in every lane of `run`, which it advances; `y0` and
/// `y1` receive the outputs, in scan order. `count` below a whole step takes the first
/// `count` elements only (masked loads; the missing lanes read as the identity, so they
/// change neither the prefixes nor the total). Each vector's in-register prefix, chained
/// inside the step, then the running value added: the loop-carried chain is one operation
/// a step. A step's arithmetic depends only on its elements, so the grouping (and so the
/// double values) depends only on the positions along the line.
template <bool Sum, bool Reverse, bool SkipNaN>
struct exact_line_step {
  using lanes = double_lanes<Sum>;
  using order = scan_order<Reverse>;
  /// The empty value a skipped NaN reads as: +0 (as NumPy's nancumsum), or 1.
  static constexpr float empty = Sum ? 0.0f : 1.0f;

  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512 read(__m512 x) {
    return SkipNaN ? _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, _mm512_set1_ps(empty)) : x;
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 read(__m256 x) {
    return SkipNaN ? _mm256_blendv_ps(x, _mm256_set1_ps(empty), _mm256_cmp_ps(x, x, _CMP_UNORD_Q)) : x;
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m128 read(__m128 x) {
    return SkipNaN ? _mm_blendv_ps(x, _mm_set1_ps(empty), _mm_cmpunord_ps(x, x)) : x;
  }

  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void avx512(const float* in, __m512d& run, std::size_t count,
                                                            __m512& y0, __m512& y1) {
    const bool whole = count >= 32;
    const __m512 fill = _mm512_set1_ps(static_cast<float>(lanes::identity));
    const std::size_t second = count > 16 ? count - 16 : 0;
    __m512d a, b, c, d;
    widen16(read(whole ? order::load16(in) : order::load16(in, (std::min)(count, std::size_t{16}), fill)), a, b);
    widen16(read(whole ? order::load16(order::at(in, 16)) : order::load16(order::at(in, 16), second, fill)), c, d);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    c = lanes::prefix(c);
    d = lanes::apply(lanes::last(c), lanes::prefix(d));
    const __m512d ab = lanes::last(b);  // the first half's total
    c = lanes::apply(ab, c);
    d = lanes::apply(ab, d);
    y0 = narrow16(lanes::apply(run, a), lanes::apply(run, b));
    y1 = narrow16(lanes::apply(run, c), lanes::apply(run, d));
    run = lanes::apply(run, lanes::last(d));
  }

  /// avx512() on a step of `count` <= 16 elements, with the same bits: its second half
  /// reads as the identity, so c and d are the first half's total and the running value
  /// advances by it (x (op) -0.0 and x * 1.0 are x). A short line's one step at half the
  /// work (a line of 16: most of a small call's time).
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void avx512_half(const float* in, __m512d& run, std::size_t count,
                                                                 __m512& y) {
    __m512d a, b;
    widen16(read(order::load16(in, count, _mm512_set1_ps(static_cast<float>(lanes::identity)))), a, b);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    y = narrow16(lanes::apply(run, a), lanes::apply(run, b));
    run = lanes::apply(run, lanes::last(b));
  }

  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void avx2(const float* in, __m256d& run, std::size_t count, __m256& y0,
                                                        __m256& y1) {
    const bool whole = count >= 16;
    const __m256 fill = _mm256_set1_ps(static_cast<float>(lanes::identity));
    const std::size_t second = count > 8 ? count - 8 : 0;
    __m256d a, b, c, d;
    widen8(read(whole ? order::load8(in) : order::load8(in, (std::min)(count, std::size_t{8}), fill)), a, b);
    widen8(read(whole ? order::load8(order::at(in, 8)) : order::load8(order::at(in, 8), second, fill)), c, d);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    c = lanes::prefix(c);
    d = lanes::apply(lanes::last(c), lanes::prefix(d));
    const __m256d ab = lanes::last(b);
    c = lanes::apply(ab, c);
    d = lanes::apply(ab, d);
    y0 = narrow8(lanes::apply(run, a), lanes::apply(run, b));
    y1 = narrow8(lanes::apply(run, c), lanes::apply(run, d));
    run = lanes::apply(run, lanes::last(d));
  }

  /// avx2() on a step of `count` <= 8 elements, with the same bits (see avx512_half).
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void avx2_half(const float* in, __m256d& run, std::size_t count,
                                                             __m256& y) {
    __m256d a, b;
    widen8(read(order::load8(in, count, _mm256_set1_ps(static_cast<float>(lanes::identity)))), a, b);
    a = lanes::prefix(a);
    b = lanes::apply(lanes::last(a), lanes::prefix(b));
    y = narrow8(lanes::apply(run, a), lanes::apply(run, b));
    run = lanes::apply(run, lanes::last(b));
  }
};

/// n floats of a line in scan order (+1 steps from `in` and `out`, or -1 when Reverse; in
/// place allowed) after the running value `running`; returns the running value after them.
/// Steps of 32 from the line's first element, the last one masked (so a short line costs
/// about what its vectors cost, and a chunk that starts a multiple of 32 elements into a
/// line groups its elements as the whole line does). `stream`: non-temporal stores of the
/// output's whole 64-byte lines, assembled across neighbouring vectors wherever the
/// output lies (the SIMD engine's streaming writer), so the grouping never depends on
/// the output's address.
template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE double exact_line_avx512_inline(const float* in, float* out, std::size_t n,
                                                                        double running, bool stream) {
  using order = scan_order<Reverse>;
  using step = exact_line_step<Sum, Reverse, SkipNaN>;
  avx512::streaming_writer<avx512::f32, float> writer(stream && n >= 64);
  __m512d run = _mm512_set1_pd(running);
  __m512 y0, y1;
  std::size_t k = 0;
  for (; k + 32 <= n; k += 32) {
    step::avx512(order::at(in, k), run, 32, y0, y1);
    writer.put(Reverse ? out - k - 15 : out + k, Reverse ? order::reverse16(y0) : y0);
    writer.put(Reverse ? out - k - 31 : out + k + 16, Reverse ? order::reverse16(y1) : y1);
  }
  writer.flush();
  if (const std::size_t rest = n - k; rest > 16) {
    step::avx512(order::at(in, k), run, rest, y0, y1);
    order::store16(order::at(out, k), y0, false);
    order::store16(order::at(out, k + 16), y1, rest - 16);
  } else if (rest > 0) {
    step::avx512_half(order::at(in, k), run, rest, y0);
    order::store16(order::at(out, k), y0, rest);
  }
  return _mm512_cvtsd_f64(run);
}

template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX512 double exact_line_avx512(const float* in, float* out, std::size_t n, double running, bool stream) {
  return exact_line_avx512_inline<Sum, Reverse, SkipNaN>(in, out, n, running, stream);
}

/// `count` fresh lines of n (not streamed), `in_step` and `out_step` elements apart:
/// exact_line_avx512 on each, with no call or setup per line (lines of 32 elements took
/// twice the time of a memcpy more one call a line than in one loop).
template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX512 void exact_lines_avx512(const float* in, float* out, std::size_t n, std::size_t count,
                                            std::ptrdiff_t in_step, std::ptrdiff_t out_step) {
  const std::size_t ahead = lines_ahead(n);
  for (std::size_t j = 0; j < count; ++j, in += in_step, out += out_step) {
    if (j + ahead < count) prefetch_line<Reverse>(in + static_cast<std::ptrdiff_t>(ahead) * in_step, n);
    exact_line_avx512_inline<Sum, Reverse, SkipNaN>(in, out, n, double_lanes<Sum>::identity, false);
  }
}

/// One vector of 8 doubles of packed lines (exact_short_lines_avx512): each lane combined
/// with the lane `s` before it (s = 1, 2, 4) where that lies in its line (its position
/// `pos` is s or more), from the previous vector's lanes at the same step (`before`, which
/// it then takes this vector's) where it reaches back: the line form's in-register prefix
/// (double_lanes::prefix, whose shifted-in identity leaves a lane as it is) on each line.
template <bool Sum, int Shift>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512d segmented_step8(__m512d v, __m512i pos, __m512d& before) {
  const __m512d back =
      _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_castpd_si512(before), 8 - Shift));
  const __mmask8 in_line = _mm512_cmpge_epu64_mask(pos, _mm512_set1_epi64(Shift));
  before = v;
  return Sum ? _mm512_mask_add_pd(v, in_line, v, back) : _mm512_mask_mul_pd(v, in_line, v, back);
}
template <bool Sum, int Steps>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512d segmented_prefix8(__m512d v, __m512i pos, __m512d (&before)[3]) {
  v = segmented_step8<Sum, 1>(v, pos, before[0]);
  if constexpr (Steps >= 2) v = segmented_step8<Sum, 2>(v, pos, before[1]);
  if constexpr (Steps >= 3) v = segmented_step8<Sum, 4>(v, pos, before[2]);
  return v;
}

/// `pos` with the lanes at `limit` or more moved back by it (positions in lines of `limit`).
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512i wrap_positions(__m512i pos, __m512i limit) {
  return _mm512_mask_sub_epi64(pos, _mm512_cmpge_epu64_mask(pos, limit), pos, limit);
}

/// Lines of 9 to 16: the lanes at position 8 and on (`pos`) combined with their line's
/// lane at position 7, 1 to 8 lanes back in this vector or `previous` (the vector before,
/// its prefixes done; this step leaves lanes at position 7 as they are). That lane holds
/// the first 8 elements' total: the line form's lanes::apply(lanes::last(a),
/// lanes::prefix(b)) on its second vector.
template <bool Sum>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512d second_half_step8(__m512d v, __m512i pos, __m512d previous) {
  const __mmask8 second = _mm512_cmpgt_epu64_mask(pos, _mm512_set1_epi64(7));
  // Lane i reads lane i - (pos - 7) of [previous, v], index i + 15 - pos of the pair.
  const __m512i from = _mm512_sub_epi64(_mm512_setr_epi64(15, 16, 17, 18, 19, 20, 21, 22), pos);
  const __m512d total = _mm512_permutex2var_pd(previous, from, v);
  return Sum ? _mm512_mask_add_pd(v, second, total, v) : _mm512_mask_mul_pd(v, second, total, v);
}

/// Lines of 17 to 32: the lanes at position 16 and on (`pos`) combined with their line's
/// lane at position 15, which holds the first 16 elements' total: the line form's
/// lanes::apply(ab, c) and lanes::apply(ab, d) (ab first, as there: with two NaNs, the
/// first operand's payload is the one kept). That lane is in this vector when it lies at
/// or before the lane, else it is the last lane at position 15 before the vector
/// (`total15`, which this step then takes from this vector where it has one: a line of
/// more than 8 elements has at most one such lane a vector).
template <bool Sum>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512d third_step8(__m512d v, __m512i pos, __m512d& total15) {
  const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  const __m512i back = _mm512_sub_epi64(pos, _mm512_set1_epi64(15));  // lanes back to position 15
  const __mmask8 later = _mm512_cmpgt_epu64_mask(pos, _mm512_set1_epi64(15));
  const __mmask8 here = _mm512_mask_cmple_epi64_mask(later, back, lane);
  const __m512d total = _mm512_mask_permutexvar_pd(total15, here, _mm512_sub_epi64(lane, back), v);
  const __mmask8 at15 = _mm512_cmpeq_epi64_mask(pos, _mm512_set1_epi64(15));
  const __m512d found = _mm512_maskz_compress_pd(at15, v);  // that lane in lane 0
  const auto any15 = static_cast<__mmask8>(at15 != 0 ? 0xff : 0);
  total15 = _mm512_mask_permutexvar_pd(total15, any15, _mm512_setzero_si512(), found);
  return Sum ? _mm512_mask_add_pd(v, later, total, v) : _mm512_mask_mul_pd(v, later, total, v);
}

/// One vector of 16 floats of exact_short_lines_avx512: elements k to k + 15 of `total`
/// (fewer in the last), its lanes at `pos_low` / `pos_high` in their lines; `before` and
/// `previous` carry the vector before's lanes.
template <bool Sum, bool Reverse, bool SkipNaN, int Steps>
struct short_lines_vector {
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void scan(const float* in, float* out, std::size_t k,
                                                           std::size_t total, __m512i pos_low, __m512i pos_high,
                                                           __m512d (&before)[3], __m512d& previous, __m512d& total15) {
    using order = scan_order<Reverse>;
    using step = exact_line_step<Sum, Reverse, SkipNaN>;  // its read(): a NaN skipped reads as the empty value
    const std::size_t count = (std::min)(std::size_t{16}, total - k);
    const __m512 fill = _mm512_set1_ps(static_cast<float>(double_lanes<Sum>::identity));
    __m512d low, high;
    widen16(step::read(count == 16 ? order::load16(order::at(in, k)) : order::load16(order::at(in, k), count, fill)),
            low, high);
    if constexpr (Steps <= 3) {
      low = segmented_prefix8<Sum, Steps>(low, pos_low, before);
      high = segmented_prefix8<Sum, Steps>(high, pos_high, before);
    } else {
      // Positions in each group of 8 for the prefix steps, then in each group of 16 for the
      // second halves, then (lines of 17 to 32) the second 16 elements.
      const __m512i seven = _mm512_set1_epi64(7), fifteen = _mm512_set1_epi64(15);
      low = segmented_prefix8<Sum, 3>(low, _mm512_and_si512(pos_low, seven), before);
      high = segmented_prefix8<Sum, 3>(high, _mm512_and_si512(pos_high, seven), before);
      // (The lanes read are never changed by second_half_step8: no chain across vectors.)
      const __m512d low_prefixes = low;
      low = second_half_step8<Sum>(low, _mm512_and_si512(pos_low, fifteen), previous);
      previous = high;
      high = second_half_step8<Sum>(high, _mm512_and_si512(pos_high, fifteen), low_prefixes);
      if constexpr (Steps == 5) {
        low = third_step8<Sum>(low, pos_low, total15);
        high = third_step8<Sum>(high, pos_high, total15);
      }
    }
    const __m512 y = narrow16(low, high);
    if (count == 16)
      order::store16(order::at(out, k), y, false);
    else
      order::store16(order::at(out, k), y, count);
  }
};

/// The longest packed lines vector_line::scan_lines hands to exact_short_lines_avx512
/// (below): from there a step of the line form a line costs about what that stream's 5
/// steps a vector cost, or less. Float32 `[16M / n, n]`, `std::vector` buffers, one core,
/// x memcpy, line form / stream (2026-11-29, increasing; decreasing alike; runs differed
/// by up to 0.3): n = 17 1.83-2.05 / 1.53-1.85, 18 1.81 / 1.55, 20 1.62-1.84 / 1.50-1.62,
/// 21 1.71 / 1.53, 22 1.64 / 1.57, 23 1.23-1.65 / 1.55-1.70, 24 1.28-1.50 / 1.46, 28 1.13
/// / 1.56, 32 1.04 / 1.48.
inline constexpr std::size_t short_lines_stream_max = 22;

/// `total` elements of packed lines of n (2 to 32) in scan order from `in` (down from it
/// when Reverse), whole lines: each line's bits are exact_line_avx512's on that line alone
/// (one masked step: the prefix of its first 8 doubles, and of its next 8 after their
/// total; the same on its next 16, then the first 16's total before them), up to eight
/// lines a vector of 16 floats instead of a step of 32 a line.
/// Steps: 1 for n <= 2, 2 for n <= 4, 3 for n <= 8, 4 for n <= 16 (the three steps on
/// each group of 8, then second_half_step8), 5 for n <= 32 (then third_step8).
template <bool Sum, bool Reverse, bool SkipNaN, int Steps>
TALLY_TARGET_AVX512 void exact_short_lines_avx512(const float* in, float* out, std::size_t n, std::size_t total) {
  const __m512d identity = _mm512_set1_pd(double_lanes<Sum>::identity);
  // Lanes' positions in their lines (lane % n), and `next`, the next vector's first lane's
  // (16 % n), by subtractions: 16 divisions were a third of a call on 8 x 8 elements.
  const __m512i length = _mm512_set1_epi64(static_cast<std::int64_t>(n));
  __m512i pos_low = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), pos_high = _mm512_setr_epi64(8, 9, 10, 11, 12, 13, 14, 15);
  std::int64_t next = 16;
  for (; next >= static_cast<std::int64_t>(n); next -= static_cast<std::int64_t>(n)) {
    pos_low = wrap_positions(pos_low, length);
    pos_high = wrap_positions(pos_high, length);
  }
  __m512d before[3] = {identity, identity, identity}, previous = identity, total15 = identity;
  using vector = short_lines_vector<Sum, Reverse, SkipNaN, Steps>;
  if (next == 0) {
    // Every vector's lanes at the same positions: the compiler computes their masks once
    // (16M elements in lines of 16: 7.6 ms before, 5.2 after; of 8: 4.9, 4.2).
    for (std::size_t k = 0; k < total; k += 16) {
      prefetch_stream_ahead(scan_order<Reverse>::at(in, k), Reverse);
      vector::scan(in, out, k, total, pos_low, pos_high, before, previous, total15);
    }
    return;
  }
  // The positions repeat every n / gcd(n, 16) vectors (at most 31): a table of them,
  // cycled, instead of an update each vector (float32 [4M/n, n], x memcpy, with the CI
  // busy on the other core: n = 3 1.7-1.85 -> 1.3-1.4, 5 2.2-2.6 -> 1.85-2.0, 6 2.3-2.45
  // -> 1.75-1.85; 7 and 9 to 15 within the noise).
  const __m512i advance = _mm512_set1_epi64(next);
  __m512i table[2][31];
  std::size_t period = 0;
  do {
    table[0][period] = pos_low, table[1][period] = pos_high;
    pos_low = wrap_positions(_mm512_add_epi64(pos_low, advance), length);
    pos_high = wrap_positions(_mm512_add_epi64(pos_high, advance), length);
    ++period;
  } while (_mm512_cmpneq_epi64_mask(pos_low, table[0][0]) != 0);
  for (std::size_t k = 0, v = 0; k < total; k += 16) {
    prefetch_stream_ahead(scan_order<Reverse>::at(in, k), Reverse);
    vector::scan(in, out, k, total, table[0][v], table[1][v], before, previous, total15);
    if (++v == period) v = 0;
  }
}

/// The AVX2 form of exact_line_avx512 (16 floats a step). It streams only an output line
/// that starts on a 32-byte boundary (in scan order), whose vectors then all do: AVX2
/// cannot assemble 64-byte lines across vectors cheaply (see generic.hpp's streaming
/// writer).
template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE double exact_line_avx2_inline(const float* in, float* out, std::size_t n,
                                                                    double running, bool stream) {
  using order = scan_order<Reverse>;
  using step = exact_line_step<Sum, Reverse, SkipNaN>;
  const bool streamed = stream && order::template to_boundary<32>(out, n) == 0;
  __m256d run = _mm256_set1_pd(running);
  __m256 y0, y1;
  std::size_t k = 0;
  for (; k + 16 <= n; k += 16) {
    step::avx2(order::at(in, k), run, 16, y0, y1);
    order::store8(order::at(out, k), y0, streamed);
    order::store8(order::at(out, k + 8), y1, streamed);
  }
  if (const std::size_t rest = n - k; rest > 8) {
    step::avx2(order::at(in, k), run, rest, y0, y1);
    order::store8(order::at(out, k), y0, false);
    order::store8(order::at(out, k + 8), y1, rest - 8);
  } else if (rest > 0) {
    step::avx2_half(order::at(in, k), run, rest, y0);
    order::store8(order::at(out, k), y0, rest);
  }
  return _mm256_cvtsd_f64(run);
}

template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX2 double exact_line_avx2(const float* in, float* out, std::size_t n, double running, bool stream) {
  return exact_line_avx2_inline<Sum, Reverse, SkipNaN>(in, out, n, running, stream);
}

/// The AVX2 form of exact_lines_avx512.
template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX2 void exact_lines_avx2(const float* in, float* out, std::size_t n, std::size_t count,
                                        std::ptrdiff_t in_step, std::ptrdiff_t out_step) {
  const std::size_t ahead = lines_ahead(n);
  for (std::size_t j = 0; j < count; ++j, in += in_step, out += out_step) {
    if (j + ahead < count) prefetch_line<Reverse>(in + static_cast<std::ptrdiff_t>(ahead) * in_step, n);
    exact_line_avx2_inline<Sum, Reverse, SkipNaN>(in, out, n, double_lanes<Sum>::identity, false);
  }
}

/// n float64 elements of a line in scan order (+1 steps, or -1 when Reverse; in place
/// allowed) folded with exact_op's compensated pair from `s` (`fresh`: from the line's
/// first element instead): the engine's scalar loop, in a function compiled for AVX2 and
/// FMA, where std::fma is one instruction. The generic loop, built for the baseline x86-64,
/// calls libm's fma for every element of a product (2048 x 4096 float64 products along
/// lines: 4.7x the time of a memcpy, three quarters of it in the call).
template <class Op, bool Reverse>
TALLY_TARGET_AVX2 compensated compensated_line(const double* in, double* out, std::size_t n, compensated s,
                                               bool fresh) {
  const Op op;
  const std::ptrdiff_t step = Reverse ? -1 : 1;
  std::size_t k = 0;
  if (fresh) {
    s = op.first(in[0], 0);
    out[0] = s.value();
    k = 1;
  }
  for (; k < n; ++k) {
    const auto at = static_cast<std::ptrdiff_t>(k) * step;
    s = op.combine(s, in[at], 0);
    out[at] = s.value();  // (exact_op::value's bits; its branch predicts along a long line)
  }
  return s;
}

/// The running values of a tile's float32 lines, in double: start() takes a line's first
/// element, combine() each later one; both return the output, the running value rounded
/// once (Out float, the exact mode) or as it is (Out double, cumsum<float, double>).
template <bool Sum, class Out, bool SkipNaN = false>
struct double_running : lane_values<double, exact_tile_capacity> {
  using lane_values::lane_values;
  using state_type = double;
  static float read(float x) { return SkipNaN && x != x ? (Sum ? 0.0f : 1.0f) : x; }
  Out start(std::size_t j, float x) { return static_cast<Out>(value[j] = read(x)); }
  Out combine(std::size_t j, float x, const std::uint8_t*) {
    return static_cast<Out>(value[j] = double_lanes<Sum>::apply(value[j], read(x)));
  }
  void resume(std::size_t j, double s) { value[j] = s; }
  double state(std::size_t j) const { return value[j]; }
};

/// The compensated pairs of a tile's float64 lines (at most exact_tile_capacity / 2).
template <bool Sum, bool SkipNaN = false>
struct compensated_running {
  static constexpr std::size_t capacity = exact_tile_capacity / 2;
  using op = exact_op<std::conditional_t<Sum, sum_op, product_op>, double, SkipNaN>;
  lane_values<double, capacity> high, low;
  explicit compensated_running(std::size_t head) noexcept : high(head), low(head) {}
  struct lanes_type {
    double* high;
    double* low;
  };
  lanes_type lanes() const noexcept { return {high.value, low.value}; }
  double start(std::size_t j, double x) {
    low.value[j] = -0.0;
    return high.value[j] = op::read(x);
  }
  double combine(std::size_t j, double x, const std::uint8_t*) {
    const compensated s = op().combine({high.value[j], low.value[j]}, x, 0);
    resume(j, s);
    return op().value(s);
  }
  using state_type = compensated;
  void resume(std::size_t j, const compensated& s) {
    high.value[j] = s.high;
    low.value[j] = s.low;
  }
  compensated state(std::size_t j) const { return {high.value[j], low.value[j]}; }
};

/// Eight float32 lines a step (AVX2): widened, combined into their doubles, written
/// rounded once (Out float, the exact mode) or as they are (Out double, cumsum / cumprod
/// <float, double>, NumPy's dtype=float64).
template <bool Sum, class Out, bool SkipNaN = false>
struct exact_lanes8 {
  using in_type = float;
  using out_type = Out;
  using running_values = double_running<Sum, Out, SkipNaN>;
  static constexpr std::size_t width = 8, align = 32;
  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const float* in, Out* out,
                                     const std::uint8_t*, bool stream) {
    using lanes = double_lanes<Sum>;
    __m256d low, high;
    widen8(exact_line_step<Sum, false, SkipNaN>::read(_mm256_loadu_ps(in)), low, high);
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
template <bool Sum, class Out, bool SkipNaN = false>
struct exact_lanes16 {
  using in_type = float;
  using out_type = Out;
  using running_values = double_running<Sum, Out, SkipNaN>;
  static constexpr std::size_t width = 16, align = 64;
  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const float* in, Out* out,
                                     const std::uint8_t*, bool stream) {
    using lanes = double_lanes<Sum>;
    __m512d low, high;
    widen16(exact_line_step<Sum, false, SkipNaN>::read(_mm512_loadu_ps(in)), low, high);
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

/// Tiles of at most 8 float32 lines (narrow columns, as the x, y, z of points down axis 0;
/// 16 with AVX-512), in the exact mode: a row per 8-lane (16-lane; 4-lane for tiles of at
/// most 4 lines) load, widened, folded into the lines' running doubles, narrowed and
/// stored. `starts` / `ends`: as lane_rows.
///
/// The lanes outside the row read as the identity (a masked load, or a blend of the floats
/// loaded whole), so that the running doubles need no blend: their chain is one add (or
/// multiply) a row, which bounds a tile of few lines. Exact float32 [4M, 3] down axis 0
/// took 1.5x-1.9x memcpy with AVX2 with a blend of both double vectors after each add and
/// 8 lanes a row, 1.1x with this and the 4-lane form (AVX-512: 1.2x-1.4x, 1.1x-1.2x).
template <bool Sum, bool SkipNaN, bool InPlace>
struct exact_narrow_rows {
  using lanes = double_lanes<Sum>;
  using step = exact_line_step<Sum, false, SkipNaN>;
  static std::size_t max_lines(simd_variant target) noexcept { return target == simd_variant::avx512 ? 16 : 8; }
  static constexpr float identity = static_cast<float>(lanes::identity);

  TALLY_TARGET_AVX512 static void avx512(const row_tile<float, float>& t, const double* starts, double* ends) {
    narrow_row_walk<float, 8, InPlace> w(t);
    const auto mask = static_cast<__mmask8>(w.mask(t.count));
    const std::ptrdiff_t base = w.base;
    const __m256 fill = _mm256_set1_ps(identity);
    __m512d run = _mm512_set1_pd(lanes::identity);
    if (starts) run = _mm512_mask_loadu_pd(run, mask, starts + base);
    std::size_t k = 0;
    for (; k < w.whole_rows; ++k, w.next()) {
      run = lanes::apply(run, _mm512_cvtps_pd(_mm256_mask_blend_ps(mask, fill, step::read(_mm256_loadu_ps(w.in)))));
      _mm256_storeu_ps(w.out, _mm512_cvtpd_ps(run));
    }
    for (; k < t.rows; ++k, w.next()) {
      run = lanes::apply(run, _mm512_cvtps_pd(step::read(_mm256_mask_loadu_ps(fill, mask, w.in))));
      _mm256_mask_storeu_ps(w.out, mask, _mm512_cvtpd_ps(run));
    }
    if (ends) _mm512_mask_storeu_pd(ends + base, mask, run);
  }

  /// 9 to 16 lines (AVX-512): a row per 16-lane load, two vectors of running doubles.
  TALLY_TARGET_AVX512 static void avx512_wide(const row_tile<float, float>& t, const double* starts, double* ends) {
    narrow_row_walk<float, 16, InPlace> w(t);
    const auto mask = static_cast<__mmask16>(w.mask(t.count));
    const auto mask_low = static_cast<__mmask8>(mask), mask_high = static_cast<__mmask8>(mask >> 8);
    const std::ptrdiff_t base = w.base;
    const __m512 fill = _mm512_set1_ps(identity);
    __m512d low = _mm512_set1_pd(lanes::identity), high = low;
    if (starts) {
      low = _mm512_mask_loadu_pd(low, mask_low, starts + base);
      high = _mm512_mask_loadu_pd(high, mask_high, starts + base + 8);
    }
    std::size_t k = 0;
    for (; k < w.whole_rows; ++k, w.next()) {
      __m512d x_low, x_high;
      widen16(_mm512_mask_blend_ps(mask, fill, step::read(_mm512_loadu_ps(w.in))), x_low, x_high);
      low = lanes::apply(low, x_low);
      high = lanes::apply(high, x_high);
      _mm512_storeu_ps(w.out, narrow16(low, high));
    }
    for (; k < t.rows; ++k, w.next()) {
      __m512d x_low, x_high;
      widen16(step::read(_mm512_mask_loadu_ps(fill, mask, w.in)), x_low, x_high);
      low = lanes::apply(low, x_low);
      high = lanes::apply(high, x_high);
      _mm512_mask_storeu_ps(w.out, mask, narrow16(low, high));
    }
    if (ends) {
      _mm512_mask_storeu_pd(ends + base, mask_low, low);
      _mm512_mask_storeu_pd(ends + base + 8, mask_high, high);
    }
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<float, float>& t, const double* starts, double* ends) {
    narrow_row_walk<float, 8, InPlace> w(t);
    const __m256i mask = avx2_row_mask<float>(w.mask(t.count));
    const __m256i low_mask = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(mask));
    const __m256i high_mask = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(mask, 1));
    const std::ptrdiff_t base = w.base;
    const __m256d identity_lanes = _mm256_set1_pd(lanes::identity);
    __m256d low = identity_lanes, high = identity_lanes;
    if (starts) {
      low = _mm256_blendv_pd(identity_lanes, _mm256_maskload_pd(starts + base, low_mask), _mm256_castsi256_pd(low_mask));
      high = _mm256_blendv_pd(identity_lanes, _mm256_maskload_pd(starts + base + 4, high_mask),
                              _mm256_castsi256_pd(high_mask));
    }
    const auto store = avx2_lane_store::of_row<float>(t.count, w.high);
    const __m256 row_mask = _mm256_castsi256_ps(mask);
    std::size_t k = 0;
    for (; k < w.whole_rows; ++k, w.next())
      _mm256_storeu_ps(w.out, row_avx2(_mm256_loadu_ps(w.in), row_mask, low, high));
    for (; k < t.rows; ++k, w.next()) store(w.out, row_avx2(_mm256_maskload_ps(w.in, mask), row_mask, low, high));
    if (ends) {
      _mm256_maskstore_pd(ends + base, low_mask, low);
      _mm256_maskstore_pd(ends + base + 4, high_mask, high);
    }
  }
  /// A row of 8 lanes into the running values, the lanes outside `mask` the identity.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 row_avx2(__m256 x, __m256 mask, __m256d& low, __m256d& high) {
    __m256d x_low, x_high;
    widen8(_mm256_blendv_ps(_mm256_set1_ps(identity), step::read(x), mask), x_low, x_high);
    low = lanes::apply(low, x_low);
    high = lanes::apply(high, x_high);
    return narrow8(low, high);
  }

  /// At most 4 lines (AVX-512): a row per 4-lane load, one vector of running doubles (the
  /// 8-lane form did twice the work for them: [4M, 3] 1.2x-1.4x memcpy, 1.1x-1.2x so).
  TALLY_TARGET_AVX512 static void avx512_quad(const row_tile<float, float>& t, const double* starts, double* ends) {
    narrow_row_walk<float, 4, InPlace> w(t);
    const auto mask = static_cast<__mmask8>(w.mask(t.count));
    const std::ptrdiff_t base = w.base;
    const __m128 fill = _mm_set1_ps(identity);
    __m256d run = _mm256_set1_pd(lanes::identity);
    if (starts) run = _mm256_mask_loadu_pd(run, mask, starts + base);
    std::size_t k = 0;
    for (; k < w.whole_rows; ++k, w.next()) {
      run = lanes::apply(run, _mm256_cvtps_pd(_mm_mask_blend_ps(mask, fill, step::read(_mm_loadu_ps(w.in)))));
      _mm_storeu_ps(w.out, _mm256_cvtpd_ps(run));
    }
    for (; k < t.rows; ++k, w.next()) {
      run = lanes::apply(run, _mm256_cvtps_pd(step::read(_mm_mask_loadu_ps(fill, mask, w.in))));
      _mm_mask_storeu_ps(w.out, mask, _mm256_cvtpd_ps(run));
    }
    if (ends) _mm256_mask_storeu_pd(ends + base, mask, run);
  }

  /// At most 4 lines (AVX2): as avx512_quad, the rows that are not a whole vector stored in
  /// pieces.
  TALLY_TARGET_AVX2 static void avx2_quad(const row_tile<float, float>& t, const double* starts, double* ends) {
    narrow_row_walk<float, 4, InPlace> w(t);
    const __m128i mask = _mm256_castsi256_si128(avx2_row_mask<float>(w.mask(t.count)));
    const __m256i wide_mask = _mm256_cvtepi32_epi64(mask);
    const std::ptrdiff_t base = w.base;
    __m256d run = _mm256_set1_pd(lanes::identity);
    if (starts) run = _mm256_blendv_pd(run, _mm256_maskload_pd(starts + base, wide_mask), _mm256_castsi256_pd(wide_mask));
    const auto store = avx2_lane_store::of_row<float>(t.count, w.high, 4);
    const __m128 row_mask = _mm_castsi128_ps(mask);
    std::size_t k = 0;
    for (; k < w.whole_rows; ++k, w.next()) _mm_storeu_ps(w.out, row_quad(_mm_loadu_ps(w.in), row_mask, run));
    for (; k < t.rows; ++k, w.next())
      store(w.out, _mm256_castps128_ps256(row_quad(_mm_maskload_ps(w.in, mask), row_mask, run)));
    if (ends) _mm256_maskstore_pd(ends + base, wide_mask, run);
  }
  /// A row of 4 lanes into the running values, the lanes outside `mask` the identity.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m128 row_quad(__m128 x, __m128 mask, __m256d& run) {
    run = lanes::apply(run, _mm256_cvtps_pd(_mm_blendv_ps(_mm_set1_ps(identity), step::read(x), mask)));
    return _mm256_cvtpd_ps(run);
  }
};

/// Tiles of 17 to 31 float32 lines (9 to 15 with AVX2), in the exact mode: a row per two
/// whole vectors, one on the row's first lines and one on its last, overlapping, each
/// widened into two vectors of running doubles in registers. The lines both vectors hold
/// are folded in each from the same doubles, the same bits, and stored twice. (lane_rows
/// kept the doubles in memory and folded the lines past its last whole step one at a time:
/// exact float32 sums of 16M elements down rows of 31 took 1.55x memcpy with AVX-512, rows
/// of 12 1.7x with AVX2.) `starts` / `ends`: as lane_rows.
template <bool Sum, bool SkipNaN>
struct exact_two_vector_rows {
  using lanes = double_lanes<Sum>;
  using step = exact_line_step<Sum, false, SkipNaN>;
  static bool fits(simd_variant target, std::size_t count) noexcept {
    const std::size_t width = target == simd_variant::avx512 ? 16 : 8;
    return target != simd_variant::scalar && count > width && count < 2 * width;
  }

  TALLY_TARGET_AVX512 static void avx512(const row_tile<float, float>& t, const double* starts, double* ends) {
    const std::size_t last = t.count - 16;  // the second vector's first line
    const __m512d identity = _mm512_set1_pd(lanes::identity);
    __m512d run0 = identity, run1 = identity, run2 = identity, run3 = identity;  // lines 0-7, 8-15, last on
    if (starts) {
      run0 = _mm512_loadu_pd(starts), run1 = _mm512_loadu_pd(starts + 8);
      run2 = _mm512_loadu_pd(starts + last), run3 = _mm512_loadu_pd(starts + last + 8);
    }
    const float* in = t.in;
    float* out = t.out;
    const std::ptrdiff_t ahead = 32 * t.in_row;  // elements ahead the input is prefetched
    for (std::size_t k = 0; k < t.rows; ++k, in += t.in_row, out += t.out_row) {
      prefetch(in + ahead);
      prefetch(in + ahead + t.count - 1);
      __m512d x0, x1, x2, x3;
      widen16(step::read(_mm512_loadu_ps(in)), x0, x1);
      widen16(step::read(_mm512_loadu_ps(in + last)), x2, x3);
      run0 = lanes::apply(run0, x0), run1 = lanes::apply(run1, x1);
      run2 = lanes::apply(run2, x2), run3 = lanes::apply(run3, x3);
      _mm512_storeu_ps(out, narrow16(run0, run1));
      _mm512_storeu_ps(out + last, narrow16(run2, run3));
    }
    if (ends) {
      _mm512_storeu_pd(ends + last, run2), _mm512_storeu_pd(ends + last + 8, run3);
      _mm512_storeu_pd(ends, run0), _mm512_storeu_pd(ends + 8, run1);
    }
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<float, float>& t, const double* starts, double* ends) {
    const std::size_t last = t.count - 8;
    const __m256d identity = _mm256_set1_pd(lanes::identity);
    __m256d run0 = identity, run1 = identity, run2 = identity, run3 = identity;
    if (starts) {
      run0 = _mm256_loadu_pd(starts), run1 = _mm256_loadu_pd(starts + 4);
      run2 = _mm256_loadu_pd(starts + last), run3 = _mm256_loadu_pd(starts + last + 4);
    }
    const float* in = t.in;
    float* out = t.out;
    const std::ptrdiff_t ahead = 32 * t.in_row;
    for (std::size_t k = 0; k < t.rows; ++k, in += t.in_row, out += t.out_row) {
      prefetch(in + ahead);
      prefetch(in + ahead + t.count - 1);
      __m256d x0, x1, x2, x3;
      widen8(step::read(_mm256_loadu_ps(in)), x0, x1);
      widen8(step::read(_mm256_loadu_ps(in + last)), x2, x3);
      run0 = lanes::apply(run0, x0), run1 = lanes::apply(run1, x1);
      run2 = lanes::apply(run2, x2), run3 = lanes::apply(run3, x3);
      _mm256_storeu_ps(out, narrow8(run0, run1));
      _mm256_storeu_ps(out + last, narrow8(run2, run3));
    }
    if (ends) {
      _mm256_storeu_pd(ends + last, run2), _mm256_storeu_pd(ends + last + 4, run3);
      _mm256_storeu_pd(ends, run0), _mm256_storeu_pd(ends + 4, run1);
    }
  }
};

/// Four float64 lines a step (AVX2 + FMA), each a compensated pair (compensated_fold).
template <bool Sum, bool SkipNaN = false>
struct compensated_lanes4 {
  using in_type = double;
  using out_type = double;
  using running_values = compensated_running<Sum, SkipNaN>;
  static constexpr std::size_t width = 4, align = 32;
  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const double* in, double* out,
                                     const std::uint8_t*, bool stream) {
    __m256d h = _mm256_loadu_pd(r.high + j), l = _mm256_loadu_pd(r.low + j);
    const __m256d y = compensated_fold<Sum, SkipNaN>::apply(_mm256_loadu_pd(in), h, l);
    _mm256_storeu_pd(r.high + j, h);
    _mm256_storeu_pd(r.low + j, l);
    stream ? _mm256_stream_pd(out, y) : _mm256_storeu_pd(out, y);
  }
};

/// compensated_lanes4 with 8 lanes (AVX-512).
template <bool Sum, bool SkipNaN = false>
struct compensated_lanes8 {
  using in_type = double;
  using out_type = double;
  using running_values = compensated_running<Sum, SkipNaN>;
  static constexpr std::size_t width = 8, align = 64;
  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const double* in, double* out,
                                     const std::uint8_t*, bool stream) {
    __m512d h = _mm512_loadu_pd(r.high + j), l = _mm512_loadu_pd(r.low + j);
    const __m512d y = compensated_fold<Sum, SkipNaN>::apply(_mm512_loadu_pd(in), h, l);
    _mm512_storeu_pd(r.high + j, h);
    _mm512_storeu_pd(r.low + j, l);
    stream ? _mm512_stream_pd(out, y) : _mm512_storeu_pd(out, y);
  }
};

/// Tiles of at most 8 float64 lines (4 with AVX2), in the exact mode: a row per vector
/// (narrow_row_walk), the compensated pairs in registers. Without starts the first row
/// begins each pair as compensated_running::start does: (x, -0.0). `starts` / `ends`: as
/// lane_rows. The lanes outside the row hold (empty, -0.0): no NaN, no subnormal.
template <bool Sum, bool SkipNaN, bool InPlace>
struct compensated_narrow_rows {
  using fold = compensated_fold<Sum, SkipNaN>;
  static std::size_t max_lines(simd_variant target) noexcept { return target == simd_variant::avx512 ? 8 : 4; }

  TALLY_TARGET_AVX512 static void avx512(const row_tile<double, double>& t, const compensated* starts,
                                         compensated* ends) {
    narrow_row_walk<double, 8, InPlace> w(t);
    const auto mask = static_cast<__mmask8>(w.mask(t.count));
    const __m512d empty = _mm512_set1_pd(fold::empty);
    alignas(64) double high_lanes[8], low_lanes[8];
    load_starts(w, t.count, starts, high_lanes, low_lanes);
    __m512d high = _mm512_load_pd(high_lanes), low = _mm512_load_pd(low_lanes);
    std::size_t k = 0;
    if (!starts && t.rows > 0) {
      high = fold::read(_mm512_mask_loadu_pd(empty, mask, w.in));
      _mm512_mask_storeu_pd(w.out, mask, high);
      ++k, w.next();
    }
    for (; k < w.whole_rows; ++k, w.next())
      _mm512_storeu_pd(w.out, fold::apply(_mm512_mask_mov_pd(empty, mask, _mm512_loadu_pd(w.in)), high, low));
    for (; k < t.rows; ++k, w.next())
      _mm512_mask_storeu_pd(w.out, mask, fold::apply(_mm512_mask_loadu_pd(empty, mask, w.in), high, low));
    _mm512_store_pd(high_lanes, high);
    _mm512_store_pd(low_lanes, low);
    store_ends(w, t.count, high_lanes, low_lanes, ends);
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<double, double>& t, const compensated* starts, compensated* ends) {
    narrow_row_walk<double, 4, InPlace> w(t);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3), count = _mm256_set1_epi64x(static_cast<long long>(t.count));
    const __m256i mask = w.high ? _mm256_cmpgt_epi64(_mm256_add_epi64(lane, count), _mm256_set1_epi64x(3))
                                : _mm256_cmpgt_epi64(count, lane);  // as narrow_row_walk::mask
    const __m256d empty = _mm256_set1_pd(fold::empty), row_lanes = _mm256_castsi256_pd(mask);
    alignas(32) double high_lanes[4], low_lanes[4];
    load_starts(w, t.count, starts, high_lanes, low_lanes);
    __m256d high = _mm256_load_pd(high_lanes), low = _mm256_load_pd(low_lanes);
    const auto store = avx2_lane_store::of_row<double>(t.count, w.high);
    std::size_t k = 0;
    if (!starts && t.rows > 0) {
      high = fold::read(_mm256_blendv_pd(empty, _mm256_maskload_pd(w.in, mask), row_lanes));
      store(w.out, high);
      ++k, w.next();
    }
    for (; k < w.whole_rows; ++k, w.next())
      _mm256_storeu_pd(w.out, fold::apply(_mm256_blendv_pd(empty, _mm256_loadu_pd(w.in), row_lanes), high, low));
    for (; k < t.rows; ++k, w.next())
      store(w.out, fold::apply(_mm256_blendv_pd(empty, _mm256_maskload_pd(w.in, mask), row_lanes), high, low));
    _mm256_store_pd(high_lanes, high);
    _mm256_store_pd(low_lanes, low);
    store_ends(w, t.count, high_lanes, low_lanes, ends);
  }

  /// The pairs' lanes: line j in lane j - w.base; from `starts`, else (empty, -0.0).
  template <class Walk>
  static void load_starts(const Walk& w, std::size_t count, const compensated* starts, double* high,
                          double* low) noexcept {
    for (std::size_t i = 0; i < Walk::lanes; ++i) high[i] = fold::empty, low[i] = -0.0;
    for (std::size_t j = 0; starts && j < count; ++j) {
      high[j - w.base] = starts[j].high;
      low[j - w.base] = starts[j].low;
    }
  }
  template <class Walk>
  static void store_ends(const Walk& w, std::size_t count, const double* high, const double* low,
                         compensated* ends) noexcept {
    for (std::size_t j = 0; ends && j < count; ++j) ends[j] = {high[j - w.base], low[j - w.base]};
  }
};

/// Tiles of 9 to 15 float64 lines (5 to 7 with AVX2), in the exact mode: a row per two
/// whole vectors, one on the row's first lines and one on its last, overlapping, the
/// compensated pairs of both in registers. The lines both vectors hold are folded in each
/// from the same pairs, the same bits, and stored twice. (lane_rows kept the pairs in
/// memory and folded the lines past its last whole step one at a time: exact float64 sums
/// of 16M elements down rows of 12 took 1.8x memcpy, rows of 15 2.15x.) `starts` /
/// `ends`: as lane_rows.
template <bool Sum, bool SkipNaN>
struct compensated_two_vector_rows {
  using fold = compensated_fold<Sum, SkipNaN>;
  static bool fits(simd_variant target, std::size_t count) noexcept {
    const std::size_t lanes = target == simd_variant::avx512 ? 8 : 4;
    return target != simd_variant::scalar && count > lanes && count < 2 * lanes;
  }

  TALLY_TARGET_AVX512 static void avx512(const row_tile<double, double>& t, const compensated* starts,
                                         compensated* ends) {
    const std::size_t last = t.count - 8;  // the second vector's first line
    alignas(64) double lanes[4][8];  // the pairs' high and low parts, first vector then second
    load_starts<8>(t.count, starts, lanes);
    __m512d high0 = _mm512_load_pd(lanes[0]), low0 = _mm512_load_pd(lanes[1]);
    __m512d high1 = _mm512_load_pd(lanes[2]), low1 = _mm512_load_pd(lanes[3]);
    const double* in = t.in;
    double* out = t.out;
    const std::ptrdiff_t ahead = 32 * t.in_row;  // elements ahead the input is prefetched
    for (std::size_t k = 0; k < t.rows; ++k, in += t.in_row, out += t.out_row) {
      prefetch(in + ahead);
      prefetch(in + ahead + t.count - 1);
      const __m512d x0 = _mm512_loadu_pd(in), x1 = _mm512_loadu_pd(in + last);
      if (k == 0 && !starts) {
        high0 = fold::read(x0), high1 = fold::read(x1);
        _mm512_storeu_pd(out, high0);
        _mm512_storeu_pd(out + last, high1);
      } else {
        _mm512_storeu_pd(out, fold::apply(x0, high0, low0));
        _mm512_storeu_pd(out + last, fold::apply(x1, high1, low1));
      }
    }
    _mm512_store_pd(lanes[0], high0), _mm512_store_pd(lanes[1], low0);
    _mm512_store_pd(lanes[2], high1), _mm512_store_pd(lanes[3], low1);
    store_ends<8>(t.count, lanes, ends);
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<double, double>& t, const compensated* starts, compensated* ends) {
    const std::size_t last = t.count - 4;
    alignas(32) double lanes[4][4];
    load_starts<4>(t.count, starts, lanes);
    __m256d high0 = _mm256_load_pd(lanes[0]), low0 = _mm256_load_pd(lanes[1]);
    __m256d high1 = _mm256_load_pd(lanes[2]), low1 = _mm256_load_pd(lanes[3]);
    const double* in = t.in;
    double* out = t.out;
    const std::ptrdiff_t ahead = 32 * t.in_row;
    for (std::size_t k = 0; k < t.rows; ++k, in += t.in_row, out += t.out_row) {
      prefetch(in + ahead);
      prefetch(in + ahead + t.count - 1);
      const __m256d x0 = _mm256_loadu_pd(in), x1 = _mm256_loadu_pd(in + last);
      if (k == 0 && !starts) {
        high0 = fold::read(x0), high1 = fold::read(x1);
        _mm256_storeu_pd(out, high0);
        _mm256_storeu_pd(out + last, high1);
      } else {
        _mm256_storeu_pd(out, fold::apply(x0, high0, low0));
        _mm256_storeu_pd(out + last, fold::apply(x1, high1, low1));
      }
    }
    _mm256_store_pd(lanes[0], high0), _mm256_store_pd(lanes[1], low0);
    _mm256_store_pd(lanes[2], high1), _mm256_store_pd(lanes[3], low1);
    store_ends<4>(t.count, lanes, ends);
  }

  /// Line j's pair in lane j of the first vector (j < Lanes) and lane j - (count - Lanes) of
  /// the second (j >= count - Lanes): from `starts`, else (empty, -0.0).
  template <std::size_t Lanes>
  static void load_starts(std::size_t count, const compensated* starts, double (*lanes)[Lanes]) noexcept {
    for (std::size_t i = 0; i < Lanes; ++i) {
      const compensated first = starts ? starts[i] : compensated{fold::empty, -0.0};
      const compensated second = starts ? starts[count - Lanes + i] : first;
      lanes[0][i] = first.high, lanes[1][i] = first.low, lanes[2][i] = second.high, lanes[3][i] = second.low;
    }
  }
  template <std::size_t Lanes>
  static void store_ends(std::size_t count, const double (*lanes)[Lanes], compensated* ends) noexcept {
    for (std::size_t j = 0; ends && j < count; ++j)
      ends[j] = j < Lanes ? compensated{lanes[0][j], lanes[1][j]}
                          : compensated{lanes[2][j - (count - Lanes)], lanes[3][j - (count - Lanes)]};
  }
};

// The entry points, one per target.
TALLY_SIMD_WARNINGS_END

template <class Base, bool SkipNaN>
struct vector_line<exact_op<Base, float, SkipNaN>> {
  static constexpr bool exists = true;
  static constexpr bool sum = std::is_same_v<Base, sum_op>;
  /// Scans a whole contiguous line (either direction) when the CPU has AVX2; false: not done.
  static bool scan(const line_span<float, float>& l) noexcept {
    double running = 0;
    return scan(l, running, true);
  }
  /// The same from the running value `running` (`fresh`: from the line's first element
  /// instead), which then holds the line's total. A fresh line starts from the identity
  /// (-0.0 + x and 1 * x are x, signed zeros and specials included), so its steps start at
  /// its first element, as a chunk's steps do at the chunk's.
  static bool scan(const line_span<float, float>& l, double& running, bool fresh) noexcept {
    const simd_variant target = active_target();
    if (target == simd_variant::scalar || l.n == 0 || l.resets) return false;
    if (fresh) running = double_lanes<sum>::identity;
    if (target == simd_variant::avx512)
      running = l.reverse ? exact_line_avx512<sum, true, SkipNaN>(l.in, l.out, l.n, running, l.stream)
                          : exact_line_avx512<sum, false, SkipNaN>(l.in, l.out, l.n, running, l.stream);
    else
      running = l.reverse ? exact_line_avx2<sum, true, SkipNaN>(l.in, l.out, l.n, running, l.stream)
                          : exact_line_avx2<sum, false, SkipNaN>(l.in, l.out, l.n, running, l.stream);
    return true;
  }
  /// Lines of `in_step` elements apart packed one after the other (either way round), as
  /// many outputs.
  static bool packed(std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step) noexcept {
    return out_step == in_step && static_cast<std::size_t>(in_step < 0 ? -in_step : in_step) == n;
  }
  /// The shortest lines scan_lines takes (0: none, on this CPU): from 2 elements packed,
  /// with AVX-512 (exact_short_lines_avx512), else from 6 (one step of the line form a
  /// line: exact float32 sums of 16M elements in lines of L, tiles / line form, ms: L = 4
  /// 23 / 24, 6 24 / 17, 8 21.5 / 13.6, 12 23.5 / 9.6, 16 15 / 6.5; with AVX2 and its
  /// last steps stored in pieces, x memcpy, tiles / line form: L = 4 1.5-1.6 / 2.2, 5
  /// 1.5-1.65 / 1.8-1.9, 6 1.6-1.7 / 1.6, 7 1.5-1.6 / 1.45-1.5, 2026-11-29).
  static std::size_t shortest_line(bool packed) noexcept { return shortest_line(active_target(), packed); }
  static std::size_t shortest_line(simd_variant target, bool packed) noexcept {
    return target == simd_variant::scalar ? 0 : packed && target == simd_variant::avx512 ? 2 : 6;
  }
  /// `count` lines like `first` (fresh, not streamed), each `in_step` and `out_step`
  /// elements after the one before: the same bits as scan() on each, in one call.
  static bool scan_lines(const line_span<float, float>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    const simd_variant target = active_target();
    if (target == simd_variant::scalar || first.n == 0 || first.resets || first.stream) return false;
    const std::size_t n = first.n;
    if (n < shortest_line(target, packed(n, in_step, out_step))) return false;  // (the engine asks first)
    if (n <= short_lines_stream_max && target == simd_variant::avx512 && packed(n, in_step, out_step)) {
      // One stream of whole lines, from its first element in scan order: the lowest
      // address, or the highest when reversed (each line starts at its highest).
      const std::ptrdiff_t to_last = static_cast<std::ptrdiff_t>(count - 1) * in_step;
      const std::ptrdiff_t start = (to_last < 0) != first.reverse ? to_last : 0;
      using short_lines = void (*)(const float*, float*, std::size_t, std::size_t);
      static constexpr short_lines by_steps[2][5] = {
          {&exact_short_lines_avx512<sum, false, SkipNaN, 1>, &exact_short_lines_avx512<sum, false, SkipNaN, 2>,
           &exact_short_lines_avx512<sum, false, SkipNaN, 3>, &exact_short_lines_avx512<sum, false, SkipNaN, 4>,
           &exact_short_lines_avx512<sum, false, SkipNaN, 5>},
          {&exact_short_lines_avx512<sum, true, SkipNaN, 1>, &exact_short_lines_avx512<sum, true, SkipNaN, 2>,
           &exact_short_lines_avx512<sum, true, SkipNaN, 3>, &exact_short_lines_avx512<sum, true, SkipNaN, 4>,
           &exact_short_lines_avx512<sum, true, SkipNaN, 5>}};
      const std::size_t steps = n <= 2 ? 1 : n <= 4 ? 2 : n <= 8 ? 3 : n <= 16 ? 4 : 5;  // prefix steps a line needs
      by_steps[first.reverse][steps - 1](first.in + start, first.out + start, n, n * count);
      return true;
    }
    const auto lines = target == simd_variant::avx512
                           ? (first.reverse ? &exact_lines_avx512<sum, true, SkipNaN> : &exact_lines_avx512<sum, false, SkipNaN>)
                           : (first.reverse ? &exact_lines_avx2<sum, true, SkipNaN> : &exact_lines_avx2<sum, false, SkipNaN>);
    lines(first.in, first.out, first.n, count, in_step, out_step);
    return true;
  }
};

template <class Base, bool SkipNaN>
struct vector_line<exact_op<Base, double, SkipNaN>> {
  static constexpr bool exists = true;
  using op = exact_op<Base, double, SkipNaN>;
  /// A whole contiguous line (either direction) when the CPU has AVX2 and FMA; false: not done.
  static bool scan(const line_span<double, double>& l) noexcept {
    compensated running = op().start();
    return scan(l, running, true);
  }
  /// From the running value (`fresh`: from the line's first element), which then holds the
  /// line's total.
  static bool scan(const line_span<double, double>& l, compensated& running, bool fresh) noexcept {
    if (active_target() == simd_variant::scalar || l.n == 0 || l.resets) return false;
    running = l.reverse ? compensated_line<op, true>(l.in, l.out, l.n, running, fresh)
                        : compensated_line<op, false>(l.in, l.out, l.n, running, fresh);
    return true;
  }
  /// Lines below this length go gathered into tiles (vector_rows' gathered_below).
  static std::size_t shortest_line(bool) noexcept {
    return active_target() == simd_variant::scalar ? 0 : vector_rows<op>::gathered_below;
  }
  static constexpr bool streams_lines = true;
  /// `count` fresh lines like `first`, each `in_step` and `out_step` elements after the
  /// one before, a line per lane (compensated_lines.hpp): the bits of scan() on each.
  static bool scan_lines(const line_span<double, double>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    const simd_variant target = active_target();
    if (target == simd_variant::scalar || first.n == 0 || first.resets) return false;
    const auto lines = target == simd_variant::avx512
                           ? (first.reverse ? &compensated_lines_avx512<sum, true, SkipNaN>
                                            : &compensated_lines_avx512<sum, false, SkipNaN>)
                           : (first.reverse ? &compensated_lines_avx2<sum, true, SkipNaN>
                                            : &compensated_lines_avx2<sum, false, SkipNaN>);
    lines(first.in, first.out, first.n, count, in_step, out_step, first.stream);
    return true;
  }
};

template <class Base, bool SkipNaN>
struct vector_rows<exact_op<Base, float, SkipNaN>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = exact_tile_capacity;
  static bool scan(const row_tile<float, float>& t) noexcept { return scan(t, nullptr, nullptr); }
  /// From running values (`starts` null: from each line's first element), handing them on
  /// (`ends`, if not null).
  static bool scan(const row_tile<float, float>& t, const double* starts, double* ends) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    if (t.resets || t.index || t.count > max_lines) return false;
    const simd_variant target = active_target();
    if (target != simd_variant::scalar && t.count <= exact_narrow_rows<sum, SkipNaN, false>::max_lines(target)) {
      const auto run = [&](auto form) {
        using narrow = decltype(form);
        if (target == simd_variant::avx2)
          t.count <= 4 ? narrow::avx2_quad(t, starts, ends) : narrow::avx2(t, starts, ends);
        else if (t.count <= 4)
          narrow::avx512_quad(t, starts, ends);
        else
          t.count <= 8 ? narrow::avx512(t, starts, ends) : narrow::avx512_wide(t, starts, ends);
      };
      narrow_rows_in_place(t) ? run(exact_narrow_rows<sum, SkipNaN, true>{}) : run(exact_narrow_rows<sum, SkipNaN, false>{});
      return true;
    }
    if (exact_two_vector_rows<sum, SkipNaN>::fits(target, t.count)) {
      using form = exact_two_vector_rows<sum, SkipNaN>;
      target == simd_variant::avx512 ? form::avx512(t, starts, ends) : form::avx2(t, starts, ends);
      return true;
    }
    return scan_lane_rows<exact_lanes8<sum, float, SkipNaN>, exact_lanes16<sum, float, SkipNaN>>(t, starts, ends);
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

template <class Base, bool SkipNaN>
struct vector_rows<exact_op<Base, double, SkipNaN>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = exact_tile_capacity / 2;
  /// The line form folds a compensated pair in sequence, one call per line; gathered
  /// tiles fold the same pairs, one lane per line, and take the packed lines below 64
  /// (the engine's gathered_length_below). Exact float64 sums of 16M elements in lines of
  /// L, line form / gathered, ms: L = 16 50 / 24, 32 41 / 24, 48 37 / 23 (lines of 100
  /// measured 34 / 29 too, but products of lines of 100 took 10% longer gathered in the
  /// benchmark suite's sweep:f64:a1p:L=100).
  static constexpr std::size_t gathered_below = 64;
  /// A compensated pair costs more a step than a float32 sum: sums go gathered from 4
  /// rows, not 8, and products from 2, whose generic loops, built for the baseline
  /// x86-64, call libm's fma (the engine's gathered_length_from; 16M elements of random doubles,
  /// generic loops / gathered, ms: sums [4M, 4] 28 / 27, [5.6M, 3] 23 / 29; products [8M,
  /// 2] 41 / 34, [5.6M, 3] 52 / 27, [4M, 4] 60 / 34).
  static constexpr std::size_t gathered_from = std::is_same_v<Base, sum_op> ? 4 : 2;
  static bool scan(const row_tile<double, double>& t) noexcept { return scan(t, nullptr, nullptr); }
  /// See vector_rows<exact_op<Base, float>>.
  static bool scan(const row_tile<double, double>& t, const compensated* starts, compensated* ends) noexcept {
    constexpr bool sum = std::is_same_v<Base, sum_op>;
    if (t.resets || t.index || t.count > max_lines) return false;
    const simd_variant target = active_target();
    if (target != simd_variant::scalar && t.count <= compensated_narrow_rows<sum, SkipNaN, false>::max_lines(target)) {
      const auto run = [&](auto form) {
        using narrow = decltype(form);
        target == simd_variant::avx512 ? narrow::avx512(t, starts, ends) : narrow::avx2(t, starts, ends);
      };
      narrow_rows_in_place(t) ? run(compensated_narrow_rows<sum, SkipNaN, true>{})
                              : run(compensated_narrow_rows<sum, SkipNaN, false>{});
      return true;
    }
    if (compensated_two_vector_rows<sum, SkipNaN>::fits(target, t.count)) {
      using form = compensated_two_vector_rows<sum, SkipNaN>;
      target == simd_variant::avx512 ? form::avx512(t, starts, ends) : form::avx2(t, starts, ends);
      return true;
    }
    return scan_lane_rows<compensated_lanes4<sum, SkipNaN>, compensated_lanes8<sum, SkipNaN>>(t, starts, ends);
  }
};
#endif

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
