// logcumsumexp of float and double elements, with the scalar operator's state and
// formulas (ops/logcumsumexp.hpp), written once over an element lane vector (below): in
// double lanes, `lanes4` (AVX2 + FMA) or `lanes8` (AVX-512, whose table-driven exp and log
// cost about a third as much per element), or, for scan_accuracy::fast and float
// elements, exp and log in float lanes with the sums still in double:
//
// - along a contiguous line (scan_line), in pieces: a vector of elements at a time,
//   exp(x - base) for each, an in-register prefix sum added to the running sum, the state
//   after each element kept; then base + log(sum) for each output of the piece;
// - across a tile of neighbouring lines, row by row (scan_tile): one line per lane, each
//   with its own base and sum; each row first combined into the states, then written.
//
// The two passes (exp, then log) are what makes this fast: exp and log are each a long
// chain of dependent steps, and one loop doing both in turn holds too few elements in the
// core's out-of-order window to keep its units busy (measured on Zen 4: exp then log of
// 8 lanes 1.2 ns an element in one loop, 0.7 in two).
//
// A step whose element would rebase (more than `rebase_above` over the base), or meets an
// infinity or a NaN, is left to the scalar combine (one compare finds all three: the
// difference is then above the limit or unordered); its output comes from the same
// vector log as the others'. exp_pd / log_pd are within about an ulp of libm's, so the
// double lanes and the scalar path agree to a few ulp of double: a float output is the
// same rounding of nearly the same double.
//
// The kernels carry no target attribute (one cannot come from a template parameter): each
// is instantiated for one lane vector inside a target-attributed entry point marked
// TALLY_FLATTEN, which inlines the kernel and, through it, the lane vector's
// (target-attributed) operations; a build that inlines nothing (-O0) still calls them
// correctly, the registers passing by reference.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>

#include "../ops/logcumsumexp.hpp"
#include "prefetch.hpp"
#include "vector_math_avx2.hpp"
#include "vector_math_avx512.hpp"
#include "vector_math_float_avx2.hpp"
#include "vector_math_float_avx512.hpp"

#if TALLY_X86_SIMD

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// The most lines a tile of logcumsumexp rows holds (their states take 64 KiB of stack):
/// whole rows of a 4096-wide matrix, whose long runs of each row cost fewer TLB misses
/// and memory streams per element than narrower tiles (4096 x 4096 float along axis 0:
/// 27 ms with tiles of 512, 20 ms with 4096).
inline constexpr std::size_t logsumexp_tile_capacity = 4096;

// The lane vectors: a register type and its operations, each result written to its first
// argument. (Registers pass by reference: a kernel compiled without the target may not
// pass or return them by value, whose ABI changes with the target.)

/// Four double lanes (AVX2 + FMA).
struct lanes4 {
  using reg = __m256d;
  static constexpr std::size_t width = 4;
  TALLY_TARGET_AVX2 static void broadcast(reg& r, double v) { r = _mm256_set1_pd(v); }
  TALLY_TARGET_AVX2 static void load(reg& r, const float* p) { r = _mm256_cvtps_pd(_mm_loadu_ps(p)); }
  TALLY_TARGET_AVX2 static void load(reg& r, const double* p) { r = _mm256_loadu_pd(p); }
  TALLY_TARGET_AVX2 static void store(float* p, const reg& v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
  TALLY_TARGET_AVX2 static void store(double* p, const reg& v) { _mm256_storeu_pd(p, v); }
  /// Lanes [0, n) from or to p (n < width), the others loaded as 0.
  TALLY_TARGET_AVX2 static void load_part(reg& r, const float* p, std::size_t n) {
    r = _mm256_cvtps_pd(_mm_maskload_ps(p, part_mask32(n)));
  }
  TALLY_TARGET_AVX2 static void load_part(reg& r, const double* p, std::size_t n) {
    r = _mm256_maskload_pd(p, part_mask64(n));
  }
  TALLY_TARGET_AVX2 static void store_part(float* p, const reg& v, std::size_t n) {
    _mm_maskstore_ps(p, part_mask32(n), _mm256_cvtpd_ps(v));
  }
  TALLY_TARGET_AVX2 static void store_part(double* p, const reg& v, std::size_t n) {
    _mm256_maskstore_pd(p, part_mask64(n), v);
  }
  TALLY_TARGET_AVX2 static __m128i part_mask32(std::size_t n) {
    return _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(n)), _mm_setr_epi32(0, 1, 2, 3));
  }
  TALLY_TARGET_AVX2 static __m256i part_mask64(std::size_t n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  TALLY_TARGET_AVX2 static void load_aligned(reg& r, const double* p) { r = _mm256_load_pd(p); }
  TALLY_TARGET_AVX2 static void store_aligned(double* p, const reg& v) { _mm256_store_pd(p, v); }
  TALLY_TARGET_AVX2 static void add(reg& r, const reg& a, const reg& b) { r = _mm256_add_pd(a, b); }
  TALLY_TARGET_AVX2 static void sub(reg& r, const reg& a, const reg& b) { r = _mm256_sub_pd(a, b); }
  TALLY_TARGET_AVX2 static void exp(reg& r, const reg& v) { r = exp_pd(v); }
  TALLY_TARGET_AVX2 static void log(reg& r, const reg& v) { r = log_pd(v); }
  /// True when some lane is above `limit` or unordered.
  TALLY_TARGET_AVX2 static bool any_beyond(const reg& v, double limit) {
    return _mm256_movemask_pd(_mm256_cmp_pd(v, _mm256_set1_pd(limit), _CMP_NLE_UQ)) != 0;
  }
  /// True when some lane is at most `limit` or unordered.
  TALLY_TARGET_AVX2 static bool any_not_above(const reg& v, double limit) {
    return _mm256_movemask_pd(_mm256_cmp_pd(v, _mm256_set1_pd(limit), _CMP_NGT_UQ)) != 0;
  }
  TALLY_TARGET_AVX2 static void reverse(reg& v) { v = _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3)); }
  /// The inclusive prefix sums of the lanes, in place.
  TALLY_TARGET_AVX2 static void prefix_sum(reg& v) {
    v = _mm256_add_pd(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_pd(), 1));
    v = _mm256_add_pd(v, _mm256_permute2f128_pd(v, v, 0x08));
  }
  /// v's last lane in every lane.
  TALLY_TARGET_AVX2 static void last(reg& r, const reg& v) { r = _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3)); }
  TALLY_TARGET_AVX2 static double first(const reg& v) { return _mm256_cvtsd_f64(v); }
  /// Lanes picked from two registers (pick, below): for each lane, the float pair of its
  /// source lane, whether that lies in the second register, and whether it is one (or 0).
  struct index {
    __m256i floats;
    __m256d second, keep;
  };
  /// source[l]: lane l's source, a lane of (a, b) as one register of 8 lanes; -1: a zero.
  TALLY_TARGET_AVX2 static void make_index(index& i, const int* source) {
    alignas(32) int floats[8];
    alignas(32) long long second[4], keep[4];
    for (std::size_t l = 0; l < 4; ++l) {
      const int at = source[l] < 0 ? 0 : source[l];
      floats[2 * l] = 2 * (at & 3), floats[2 * l + 1] = 2 * (at & 3) + 1;
      second[l] = at >= 4 ? -1 : 0, keep[l] = source[l] < 0 ? 0 : -1;
    }
    i.floats = _mm256_load_si256(reinterpret_cast<const __m256i*>(floats));
    i.second = _mm256_castsi256_pd(_mm256_load_si256(reinterpret_cast<const __m256i*>(second)));
    i.keep = _mm256_castsi256_pd(_mm256_load_si256(reinterpret_cast<const __m256i*>(keep)));
  }
  TALLY_TARGET_AVX2 static void pick(reg& r, const reg& a, const reg& b, const index& i) {
    const reg from_a = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(a), i.floats));
    const reg from_b = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(b), i.floats));
    r = _mm256_and_pd(_mm256_blendv_pd(from_a, from_b, i.second), i.keep);
  }
};

/// Eight double lanes (AVX-512 F/DQ).
struct lanes8 {
  using reg = __m512d;
  static constexpr std::size_t width = 8;
  TALLY_TARGET_AVX512 static void broadcast(reg& r, double v) { r = _mm512_set1_pd(v); }
  TALLY_TARGET_AVX512 static void load(reg& r, const float* p) { r = _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
  TALLY_TARGET_AVX512 static void load(reg& r, const double* p) { r = _mm512_loadu_pd(p); }
  TALLY_TARGET_AVX512 static void store(float* p, const reg& v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
  TALLY_TARGET_AVX512 static void store(double* p, const reg& v) { _mm512_storeu_pd(p, v); }
  TALLY_TARGET_AVX512 static void load_part(reg& r, const float* p, std::size_t n) {
    r = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(part_mask(n), p));
  }
  TALLY_TARGET_AVX512 static void load_part(reg& r, const double* p, std::size_t n) {
    r = _mm512_maskz_loadu_pd(part_mask(n), p);
  }
  TALLY_TARGET_AVX512 static void store_part(float* p, const reg& v, std::size_t n) {
    _mm256_mask_storeu_ps(p, part_mask(n), _mm512_cvtpd_ps(v));
  }
  TALLY_TARGET_AVX512 static void store_part(double* p, const reg& v, std::size_t n) {
    _mm512_mask_storeu_pd(p, part_mask(n), v);
  }
  static __mmask8 part_mask(std::size_t n) { return static_cast<__mmask8>((1u << n) - 1); }
  TALLY_TARGET_AVX512 static void load_aligned(reg& r, const double* p) { r = _mm512_load_pd(p); }
  TALLY_TARGET_AVX512 static void store_aligned(double* p, const reg& v) { _mm512_store_pd(p, v); }
  TALLY_TARGET_AVX512 static void add(reg& r, const reg& a, const reg& b) { r = _mm512_add_pd(a, b); }
  TALLY_TARGET_AVX512 static void sub(reg& r, const reg& a, const reg& b) { r = _mm512_sub_pd(a, b); }
  TALLY_TARGET_AVX512 static void exp(reg& r, const reg& v) { r = exp_pd(v); }
  TALLY_TARGET_AVX512 static void log(reg& r, const reg& v) { r = log_pd(v); }
  TALLY_TARGET_AVX512 static bool any_beyond(const reg& v, double limit) {
    return _mm512_cmp_pd_mask(v, _mm512_set1_pd(limit), _CMP_NLE_UQ) != 0;
  }
  TALLY_TARGET_AVX512 static bool any_not_above(const reg& v, double limit) {
    return _mm512_cmp_pd_mask(v, _mm512_set1_pd(limit), _CMP_NGT_UQ) != 0;
  }
  TALLY_TARGET_AVX512 static void reverse(reg& v) {
    v = _mm512_permutexvar_pd(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), v);
  }
  TALLY_TARGET_AVX512 static void prefix_sum(reg& v) {
    // VALIGNQ of (v, 0) moves the lanes up by 1, 2, 4, zeros shifted in.
    const __m512i zero = _mm512_setzero_si512();
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), zero, 7)));
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), zero, 6)));
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), zero, 4)));
  }
  TALLY_TARGET_AVX512 static void last(reg& r, const reg& v) { r = _mm512_permutexvar_pd(_mm512_set1_epi64(7), v); }
  TALLY_TARGET_AVX512 static double first(const reg& v) { return _mm512_cvtsd_f64(v); }
  struct index {
    __m512i lanes;
    __mmask8 keep;
  };
  TALLY_TARGET_AVX512 static void make_index(index& i, const int* source) {
    alignas(64) long long lanes[8];
    unsigned keep = 0;
    for (std::size_t l = 0; l < 8; ++l) {
      lanes[l] = source[l] < 0 ? 0 : source[l];
      keep |= (source[l] < 0 ? 0u : 1u) << l;
    }
    i.lanes = _mm512_load_si512(lanes);
    i.keep = static_cast<__mmask8>(keep);
  }
  TALLY_TARGET_AVX512 static void pick(reg& r, const reg& a, const reg& b, const index& i) {
    r = _mm512_maskz_permutex2var_pd(i.keep, a, i.lanes, b);
  }
};

/// One scalar combine of a lane's state with an element.
template <class T>
inline void scalar_combine(double& base, double& sum, T x) noexcept {
  const typename logcumsumexp_op<T>::state_type s = logcumsumexp_op<T>().combine({base, sum}, x, 0);
  base = s.base;
  sum = s.sum;
}

// The element lanes the kernels run on: a register of `width` elements, the bases kept as
// `base_type`, and the running sums in `parts` vectors of the double lane vector `sums`:
//
// - logsumexp_in_double<D>: the elements in D's double lanes (one part), exp and log in
//   double;
// - logsumexp_in_float8 / logsumexp_in_float16 (scan_accuracy::fast, float elements): exp
//   and log in eight (AVX2) or sixteen (AVX-512) float lanes (vector_math_float_*.hpp),
//   the sums in two parts of lanes4 / lanes8, the bases as floats (they are elements or
//   infinities).
//   Each output is within about 2e-7 of the exact value at the scale of max(|y|, 1) (about
//   2 ulp of float there) instead of a few ulp of double, for about twice the speed: exp
//   and log are this operator's whole cost, and the double forms do each on half the
//   lanes with longer polynomials.
//
// Their operations: broadcast(b, base), load / store of elements (load_part / store_part:
// lanes [0, n) only, the others loaded as 0), load_aligned /
// store_aligned of bases, reverse, beyond(x, b, limit) (some lane's x - b above limit or
// unordered), any_not_above(x, limit) (some lane's x at most limit or unordered),
// exp_difference(t, x, b), to_sums(parts, t) (the terms widened into the parts) and
// values(y, b, parts) (b + log(sum), T's rounding after the store).

/// Elements in the double lanes of D (lanes4 or lanes8).
template <class D>
struct logsumexp_in_double {
  using reg = typename D::reg;
  using sums = D;
  using base_type = double;
  static constexpr std::size_t width = D::width, parts = 1;
  static void broadcast(reg& r, double v) { D::broadcast(r, v); }
  template <class T>
  static void load(reg& r, const T* p) {
    D::load(r, p);
  }
  template <class T>
  static void store(T* p, const reg& v) {
    D::store(p, v);
  }
  template <class T>
  static void load_part(reg& r, const T* p, std::size_t n) {
    D::load_part(r, p, n);
  }
  template <class T>
  static void store_part(T* p, const reg& v, std::size_t n) {
    D::store_part(p, v, n);
  }
  static void load_aligned(reg& r, const double* p) { D::load_aligned(r, p); }
  static void store_aligned(double* p, const reg& v) { D::store_aligned(p, v); }
  static void reverse(reg& v) { D::reverse(v); }
  static bool beyond(const reg& x, const reg& b, double limit) {
    reg d;
    D::sub(d, x, b);
    return D::any_beyond(d, limit);
  }
  static bool any_not_above(const reg& x, double limit) { return D::any_not_above(x, limit); }
  static void exp_difference(reg& t, const reg& x, const reg& b) {
    D::sub(t, x, b);
    D::exp(t, t);
  }
  static void to_sums(reg* parts, const reg& t) { parts[0] = t; }
  static void values(reg& y, const reg& b, const reg* parts) {
    D::log(y, parts[0]);
    D::add(y, b, y);
  }
};

/// Eight float lanes (AVX2 + FMA), the fast form.
struct logsumexp_in_float8 {
  using reg = __m256;
  using sums = lanes4;
  using base_type = float;
  static constexpr std::size_t width = 8, parts = 2;
  TALLY_TARGET_AVX2 static void broadcast(reg& r, double v) { r = _mm256_set1_ps(static_cast<float>(v)); }
  TALLY_TARGET_AVX2 static void load(reg& r, const float* p) { r = _mm256_loadu_ps(p); }
  TALLY_TARGET_AVX2 static void store(float* p, const reg& v) { _mm256_storeu_ps(p, v); }
  TALLY_TARGET_AVX2 static void load_part(reg& r, const float* p, std::size_t n) {
    r = _mm256_maskload_ps(p, part_mask(n));
  }
  TALLY_TARGET_AVX2 static void store_part(float* p, const reg& v, std::size_t n) {
    _mm256_maskstore_ps(p, part_mask(n), v);
  }
  TALLY_TARGET_AVX2 static __m256i part_mask(std::size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  TALLY_TARGET_AVX2 static void load_aligned(reg& r, const float* p) { r = _mm256_load_ps(p); }
  TALLY_TARGET_AVX2 static void store_aligned(float* p, const reg& v) { _mm256_store_ps(p, v); }
  TALLY_TARGET_AVX2 static void reverse(reg& v) {
    v = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  TALLY_TARGET_AVX2 static bool beyond(const reg& x, const reg& b, double limit) {
    const __m256 over = _mm256_cmp_ps(_mm256_sub_ps(x, b), _mm256_set1_ps(static_cast<float>(limit)), _CMP_NLE_UQ);
    return _mm256_movemask_ps(over) != 0;
  }
  TALLY_TARGET_AVX2 static bool any_not_above(const reg& x, double limit) {
    return _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(static_cast<float>(limit)), _CMP_NGT_UQ)) != 0;
  }
  TALLY_TARGET_AVX2 static void exp_difference(reg& t, const reg& x, const reg& b) { t = vocab::exp_difference(x, b); }
  TALLY_TARGET_AVX2 static void to_sums(__m256d* parts, const reg& t) {
    parts[0] = _mm256_cvtps_pd(_mm256_castps256_ps128(t));
    parts[1] = _mm256_cvtps_pd(_mm256_extractf128_ps(t, 1));
  }
  TALLY_TARGET_AVX2 static void values(reg& y, const reg& b, const __m256d* parts) {
    y = plus_log(b, _mm256_set_m128(_mm256_cvtpd_ps(parts[1]), _mm256_cvtpd_ps(parts[0])));
  }
};

/// Sixteen float lanes (AVX-512 F/DQ), the fast form.
struct logsumexp_in_float16 {
  using reg = __m512;
  using sums = lanes8;
  using base_type = float;
  static constexpr std::size_t width = 16, parts = 2;
  TALLY_TARGET_AVX512 static void broadcast(reg& r, double v) { r = _mm512_set1_ps(static_cast<float>(v)); }
  TALLY_TARGET_AVX512 static void load(reg& r, const float* p) { r = _mm512_loadu_ps(p); }
  TALLY_TARGET_AVX512 static void store(float* p, const reg& v) { _mm512_storeu_ps(p, v); }
  TALLY_TARGET_AVX512 static void load_part(reg& r, const float* p, std::size_t n) {
    r = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p);
  }
  TALLY_TARGET_AVX512 static void store_part(float* p, const reg& v, std::size_t n) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v);
  }
  TALLY_TARGET_AVX512 static void load_aligned(reg& r, const float* p) { r = _mm512_load_ps(p); }
  TALLY_TARGET_AVX512 static void store_aligned(float* p, const reg& v) { _mm512_store_ps(p, v); }
  TALLY_TARGET_AVX512 static void reverse(reg& v) {
    v = _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), v);
  }
  TALLY_TARGET_AVX512 static bool beyond(const reg& x, const reg& b, double limit) {
    return _mm512_cmp_ps_mask(_mm512_sub_ps(x, b), _mm512_set1_ps(static_cast<float>(limit)), _CMP_NLE_UQ) != 0;
  }
  TALLY_TARGET_AVX512 static bool any_not_above(const reg& x, double limit) {
    return _mm512_cmp_ps_mask(x, _mm512_set1_ps(static_cast<float>(limit)), _CMP_NGT_UQ) != 0;
  }
  TALLY_TARGET_AVX512 static void exp_difference(reg& t, const reg& x, const reg& b) {
    t = vocab::exp_difference(x, b);
  }
  TALLY_TARGET_AVX512 static void to_sums(__m512d* parts, const reg& t) {
    parts[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(t));
    parts[1] = _mm512_cvtps_pd(_mm512_extractf32x8_ps(t, 1));
  }
  TALLY_TARGET_AVX512 static void values(reg& y, const reg& b, const __m512d* parts) {
    const __m512 low = _mm512_castps256_ps512(_mm512_cvtpd_ps(parts[0]));
    y = plus_log(b, _mm512_insertf32x8(low, _mm512_cvtpd_ps(parts[1]), 1));
  }
};

/// The longest line the fast forms take: their sums (at most n e^64, above) stay below
/// float's largest value, where their log takes them.
inline constexpr std::size_t logsumexp_fast_max_line = std::size_t{1} << 34;

/// The running sums after each term of `terms`, into L's parts, from `run` (the sum
/// before them in every lane), which becomes the last of them. (The terms' own prefix is
/// complete before `run` joins: one add and one permute from one `run` to the next.)
template <class L>
inline void running_sums(typename L::sums::reg* parts, const typename L::reg& terms, typename L::sums::reg& run) {
  using D = typename L::sums;
  typename D::reg total;
  L::to_sums(parts, terms);
  for (std::size_t p = 0; p < L::parts; ++p) D::prefix_sum(parts[p]);
  for (std::size_t p = 1; p < L::parts; ++p) {
    D::last(total, parts[p - 1]);
    D::add(parts[p], parts[p], total);
  }
  for (std::size_t p = 0; p < L::parts; ++p) D::add(parts[p], parts[p], run);
  D::last(run, parts[L::parts - 1]);
}

/// Writes base[i] + log(sum[i]) for i < n to out[i * step] (T's rounding, as the scalar
/// value()): n a multiple of L::width, base and sum aligned to it.
template <class L, class T, std::ptrdiff_t Step>
inline void logsumexp_values(const typename L::base_type* base, const double* sum, T* out, std::size_t n) {
  using D = typename L::sums;
  typename L::reg b, y;
  typename D::reg parts[L::parts];
  for (std::size_t i = 0; i < n; i += L::width) {
    L::load_aligned(b, base + i);
    for (std::size_t p = 0; p < L::parts; ++p) D::load_aligned(parts[p], sum + i + p * D::width);
    L::values(y, b, parts);
    if (Step < 0) {
      L::reverse(y);
      L::store(out - static_cast<std::ptrdiff_t>(i + L::width - 1), y);
    } else {
      L::store(out + i, y);
    }
  }
}

/// The elements of a line go through in pieces of this many: first the states after each
/// element (exp and sums), then the outputs (log).
inline constexpr std::size_t logsumexp_piece = 256;

/// A whole line of n elements, +1 steps from `in` and `out` (-1 steps when Reverse), in
/// place allowed, in pieces of logsumexp_piece elements, L::width at a time.
template <class L, class T, bool Reverse>
inline void logsumexp_line(const T* in, T* out, std::size_t n) {
  using D = typename L::sums;
  using base_type = typename L::base_type;
  constexpr std::size_t width = L::width;
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  const double limit = logcumsumexp_op<T>::rebase_above;
  const logcumsumexp_op<T> op;
  double base = op.start().base, sum = op.start().sum;
  // The state after each element of a piece, in scan order.
  alignas(64) base_type bases[logsumexp_piece];
  alignas(64) double sums[logsumexp_piece];
  typename L::reg x, b, terms;
  typename D::reg run, parts[L::parts];
  // A finite first element is the base, a sum of 0 before it: its term exp(0) = 1 makes
  // the scalar combine's first state {x0, 1}, and the first vector need not go through the
  // scalar combine as a base of -inf would make it (all of a line of one vector).
  if (n >= width && in[0] > -std::numeric_limits<T>::infinity() && in[0] < std::numeric_limits<T>::infinity())
    base = static_cast<double>(in[0]), sum = 0;
  D::broadcast(run, sum);  // the running sum in every lane
  L::broadcast(b, base);
  std::size_t k = 0;
  while (k + width <= n) {
    const std::size_t piece = (std::min)(logsumexp_piece, (n - k) / width * width);
    for (std::size_t i = 0; i < piece; i += width) {
      const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k + i);
      L::load(x, in + (Reverse ? at - static_cast<std::ptrdiff_t>(width - 1) : at));
      if (Reverse) L::reverse(x);
      if (L::beyond(x, b, limit)) {  // also a line's first element: the base is -inf
        sum = D::first(run);
        for (std::size_t j = 0; j < width; ++j) {
          scalar_combine(base, sum, in[at + step * static_cast<std::ptrdiff_t>(j)]);
          bases[i + j] = static_cast<base_type>(base);
          sums[i + j] = sum;
        }
        D::broadcast(run, sum);
        L::broadcast(b, base);
        continue;
      }
      L::exp_difference(terms, x, b);
      running_sums<L>(parts, terms, run);
      for (std::size_t p = 0; p < L::parts; ++p) D::store_aligned(sums + i + p * D::width, parts[p]);
      L::store_aligned(bases + i, b);
    }
    logsumexp_values<L, T, step>(bases, sums, out + step * static_cast<std::ptrdiff_t>(k), piece);
    k += piece;
  }
  sum = D::first(run);
  for (; k < n; ++k) {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k);
    scalar_combine(base, sum, in[at]);
    out[at] = op.value({base, sum});
  }
}

/// logsumexp_rows's tile when its rows are packed (one after the other, `row` = count or
/// -count elements apart) and at most half a vector wide: several rows to a vector, m =
/// L::width / count of them, lane l holding line l % count. A vector's terms exp(x - b)
/// (b its line's base in every row) go through a prefix sum across its rows, shifts of
/// 1, 2, 4 .. rows in turn; the running sums of the group's last row go on to the next.
/// A row a vector, lanes past the tile idle, did m times the exp and log (fast float32
/// logcumsumexp down rows of 3, AVX-512: 10x-19x memcpy in V3fw3a0, 4.2x-4.9x so). (The
/// sum kernels' narrow columns shift rows through `window`, in their own vector types;
/// these sums are the double lanes', hence `pick`.)
///
/// The first group (its states start from -inf), a group whose element would rebase or
/// is an infinity or a NaN, and the last rows (fewer than m) take the scalar combine. The
/// groups depend only on count, so a line's bits do not depend on the thread count.
template <class L, class T>
inline void logsumexp_packed_rows(const T* in, T* out, std::size_t count, std::size_t n, std::ptrdiff_t row) {
  using D = typename L::sums;
  using base_type = typename L::base_type;
  constexpr std::size_t width = L::width, parts = L::parts;
  const std::size_t m = width / count, used = m * count;
  const bool down = row < 0;  // rows at falling addresses: a group's last row in its first lanes
  // A group's lowest element, from its first row's first one.
  const std::ptrdiff_t low = down ? static_cast<std::ptrdiff_t>(m - 1) * row : 0;
  const double limit = logcumsumexp_op<T>::rebase_above;
  const logcumsumexp_op<T> op;
  // The lane of row r (in scan order) of a group, line j; and lane l's row.
  const auto lane = [&](std::size_t r, std::size_t j) { return static_cast<int>((down ? m - 1 - r : r) * count + j); };
  const auto row_of = [&](std::size_t l) { return down ? m - 1 - l / count : l / count; };
  // The sources of each lane: the same line `d` rows before (d = 1, 2, 4, 8: m is at
  // most 16 lanes), and the group's last row.
  typename D::index shift[4][parts], last[parts];
  int source[width];
  std::size_t steps = 0;
  for (std::size_t d = 1; d < m; d *= 2, ++steps) {
    for (std::size_t l = 0; l < width; ++l) source[l] = l < used && row_of(l) >= d ? lane(row_of(l) - d, l % count) : -1;
    for (std::size_t p = 0; p < parts; ++p) D::make_index(shift[steps][p], source + p * D::width);
  }
  for (std::size_t l = 0; l < width; ++l) source[l] = l < used ? lane(m - 1, l % count) : -1;
  for (std::size_t p = 0; p < parts; ++p) D::make_index(last[p], source + p * D::width);

  // The states of the lines between groups: in `base` and `sum` for the scalar combines,
  // in b and run (each line's in each of its lanes; the lanes past `used` 0) for vectors.
  base_type base[width];
  double sum[width];
  alignas(64) base_type bases[width];
  alignas(64) double sums[width];
  typename L::reg x, b, terms, y;
  typename D::reg run[parts], s[parts], moved[parts];
  for (std::size_t j = 0; j < count; ++j) base[j] = static_cast<base_type>(op.start().base), sum[j] = op.start().sum;
  const auto to_vectors = [&] {
    for (std::size_t l = 0; l < width; ++l) {
      bases[l] = l < used ? base[l % count] : base_type(0);
      sums[l] = l < used ? sum[l % count] : 0;
    }
    L::load_aligned(b, bases);
    for (std::size_t p = 0; p < parts; ++p) D::load_aligned(run[p], sums + p * D::width);
  };
  const auto from_vectors = [&] {
    L::store_aligned(bases, b);
    for (std::size_t p = 0; p < parts; ++p) D::store_aligned(sums + p * D::width, run[p]);
    for (std::size_t j = 0; j < count; ++j) base[j] = bases[j], sum[j] = sums[j];
  };
  // `rows` rows from the first at `from`, in scan order.
  const auto scalar_rows = [&](const T* from, T* to, std::size_t rows) {
    for (std::size_t r = 0; r < rows; ++r, from += row, to += row)
      for (std::size_t j = 0; j < count; ++j) {
        double bj = base[j];
        scalar_combine(bj, sum[j], from[j]);
        base[j] = static_cast<base_type>(bj);
        to[j] = op.value({static_cast<double>(base[j]), sum[j]});
      }
  };
  std::size_t k = (std::min)(m, n);
  scalar_rows(in, out, k);
  to_vectors();
  for (; k + m <= n; k += m) {
    const T* from = in + static_cast<std::ptrdiff_t>(k) * row;
    T* to = out + static_cast<std::ptrdiff_t>(k) * row;
    // 16 groups ahead: masked loads do not train the hardware prefetchers (narrow_row_walk.hpp).
    prefetch(reinterpret_cast<const void*>(rows_ahead_of(from + low, 4 * static_cast<std::ptrdiff_t>(m) * row)));
    used == width ? L::load(x, from + low) : L::load_part(x, from + low, used);
    if (L::beyond(x, b, limit)) {
      from_vectors();
      scalar_rows(from, to, m);
      to_vectors();
      continue;
    }
    L::exp_difference(terms, x, b);
    L::to_sums(s, terms);
    for (std::size_t step = 0; step < steps; ++step) {
      for (std::size_t p = 0; p < parts; ++p) D::pick(moved[p], s[0], s[parts - 1], shift[step][p]);
      for (std::size_t p = 0; p < parts; ++p) D::add(s[p], s[p], moved[p]);
    }
    for (std::size_t p = 0; p < parts; ++p) D::add(s[p], s[p], run[p]);
    L::values(y, b, s);
    used == width ? L::store(to + low, y) : L::store_part(to + low, y, used);
    for (std::size_t p = 0; p < parts; ++p) D::pick(run[p], s[0], s[parts - 1], last[p]);
  }
  if (k < n) {
    from_vectors();
    scalar_rows(in + static_cast<std::ptrdiff_t>(k) * row, out + static_cast<std::ptrdiff_t>(k) * row, n - k);
  }
}

/// `count` (at most logsumexp_tile_capacity) neighbouring lines, next to each other in
/// memory, n rows `in_row` / `out_row` elements apart: one line per lane; each row first
/// combined into the states (exp), then written (log). The first row's states are its
/// elements with sums of 1, no exp (lines of a few elements, gathered: a scalar combine
/// for each element of the first row was a third of [4M, 4]'s time). The lines past the
/// last whole vector (all of them, in a tile narrower than one) take a vector too, loaded
/// and stored in part, its other lanes running lines of zeros that nothing reads: each
/// element's scalar combine and log cost a vector's (fast float32 logcumsumexp down rows
/// of 7, AVX-512: 38x-40x memcpy in V3fw7a0, 7x-9x so; rows of 31, 16 lanes and 15 one at
/// a time: 15x).
template <class L, class T>
inline void logsumexp_rows(const T* in, T* out, std::size_t count, std::size_t n, std::ptrdiff_t in_row,
                           std::ptrdiff_t out_row, const T* next_in) {
  const auto size = static_cast<std::ptrdiff_t>(count);
  if (count > 0 && 2 * count <= L::width && out_row == in_row && (in_row == size || in_row == -size))
    return logsumexp_packed_rows<L>(in, out, count, n, in_row);
  const T* const first_row = in;
  using D = typename L::sums;
  using base_type = typename L::base_type;
  constexpr std::size_t width = L::width;
  const std::size_t vectors = count / width * width, rest = count - vectors;
  const std::size_t lanes = rest == 0 ? count : vectors + width;  // the states, the part's other lanes included
  const double limit = logcumsumexp_op<T>::rebase_above;
  const logcumsumexp_op<T> op;
  alignas(64) base_type base[logsumexp_tile_capacity];  // (lanes <= the capacity, a multiple of width)
  alignas(64) double sum[logsumexp_tile_capacity];
  const auto combine = [&](std::size_t j, T x) {
    double b = base[j];
    scalar_combine(b, sum[j], x);
    base[j] = static_cast<base_type>(b);
  };
  typename L::reg x, b, terms, y;
  typename D::reg s, parts[L::parts];
  for (std::size_t j = 0; j < lanes; ++j) base[j] = static_cast<base_type>(op.start().base), sum[j] = op.start().sum;
  // Lines j .. j + width - 1 of row k, their elements x: into the states.
  const auto fold = [&](std::size_t k, std::size_t j, const T* row) {
    const auto each = [&] {  // the scalar combines (a part's other lanes: zeros, as loaded)
      for (std::size_t i = j; i < j + width; ++i) combine(i, i < count ? row[i] : T(0));
    };
    if (k == 0) {  // the states {x, 1} (the scalar combine's first), unless x is -inf or NaN
      if (L::any_not_above(x, -std::numeric_limits<double>::infinity())) return each();
      L::store_aligned(base + j, x);
      D::broadcast(s, 1);
      for (std::size_t p = 0; p < L::parts; ++p) D::store_aligned(sum + j + p * D::width, s);
      return;
    }
    L::load_aligned(b, base + j);
    if (L::beyond(x, b, limit)) return each();
    L::exp_difference(terms, x, b);
    L::to_sums(parts, terms);
    for (std::size_t p = 0; p < L::parts; ++p) {
      D::load_aligned(s, sum + j + p * D::width);
      D::add(s, s, parts[p]);
      D::store_aligned(sum + j + p * D::width, s);
    }
  };
  for (std::size_t k = 0; k < n; ++k, in += in_row, out += out_row) {
    // Packed rows too (not tile_row_ahead): fast float32 rows of 20 down axis 0 took
    // 4.6x-5.2x memcpy without, 3.6x-4.5x with (measured, not profiled: why this slower
    // loop needs them where the others do not is not known).
    const std::uintptr_t ahead =
        row_to_prefetch(first_row, k, n, in_row, static_cast<std::size_t>(rows_ahead), next_in);
    for (std::size_t j = 0; j < vectors; j += width) {
      // The rows ahead a vector at a time, as in lane_rows.hpp (a whole row's prefetches
      // at its start stalled the loop: 4096 x 4096 float, AVX-512, fast 12.5 -> 8.6 ms,
      // exact 23.2 -> 17.3 ms).
      prefetch_in_row<T>(ahead, j);
      L::load(x, in + j);
      fold(k, j, in);
    }
    if (rest != 0) {
      prefetch_in_row<T>(ahead, vectors);
      L::load_part(x, in + vectors, rest);
      fold(k, vectors, in);
    }
    logsumexp_values<L, T, 1>(base, sum, out, vectors);
    if (rest != 0) {
      L::load_aligned(b, base + vectors);
      for (std::size_t p = 0; p < L::parts; ++p) D::load_aligned(parts[p], sum + vectors + p * D::width);
      L::values(y, b, parts);
      L::store_part(out + vectors, y, rest);
    }
  }
}

// The entry points, one per target, L one of its lane vectors.
template <class L, class T, bool Reverse>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void logsumexp_line_avx2(const T* in, T* out, std::size_t n) {
  logsumexp_line<L, T, Reverse>(in, out, n);
}
template <class L, class T, bool Reverse>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void logsumexp_line_avx512(const T* in, T* out, std::size_t n) {
  logsumexp_line<L, T, Reverse>(in, out, n);
}
template <class L, class T>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void logsumexp_rows_avx2(const T* in, T* out, std::size_t count,
                                                                    std::size_t n, std::ptrdiff_t in_row,
                                                                    std::ptrdiff_t out_row, const T* next_in) {
  logsumexp_rows<L>(in, out, count, n, in_row, out_row, next_in);
}
template <class L, class T>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void logsumexp_rows_avx512(const T* in, T* out, std::size_t count,
                                                                        std::size_t n, std::ptrdiff_t in_row,
                                                                        std::ptrdiff_t out_row, const T* next_in) {
  logsumexp_rows<L>(in, out, count, n, in_row, out_row, next_in);
}

/// logcumsumexp of one whole contiguous line on `target` (+1 steps, -1 when `reverse`):
/// the fast form's float lanes for Fast float elements (lines up to
/// logsumexp_fast_max_line), double lanes otherwise. False: no vector form for `target`.
template <bool Fast, class T>
inline bool logsumexp_line_on(simd_variant target, const T* in, T* out, std::size_t n, bool reverse) {
  if constexpr (Fast && std::is_same_v<T, float>) {
    if (n <= logsumexp_fast_max_line) {
      if (target == simd_variant::avx512) {
        reverse ? logsumexp_line_avx512<logsumexp_in_float16, T, true>(in, out, n)
                : logsumexp_line_avx512<logsumexp_in_float16, T, false>(in, out, n);
        return true;
      }
      if (target == simd_variant::avx2) {
        reverse ? logsumexp_line_avx2<logsumexp_in_float8, T, true>(in, out, n)
                : logsumexp_line_avx2<logsumexp_in_float8, T, false>(in, out, n);
        return true;
      }
    }
  }
  if (target == simd_variant::avx512)
    reverse ? logsumexp_line_avx512<logsumexp_in_double<lanes8>, T, true>(in, out, n)
            : logsumexp_line_avx512<logsumexp_in_double<lanes8>, T, false>(in, out, n);
  else if (target == simd_variant::avx2)
    reverse ? logsumexp_line_avx2<logsumexp_in_double<lanes4>, T, true>(in, out, n)
            : logsumexp_line_avx2<logsumexp_in_double<lanes4>, T, false>(in, out, n);
  else
    return false;
  return true;
}

/// logcumsumexp of logsumexp_rows's tile on `target`, with the lanes logsumexp_line_on
/// takes. False: no vector form for `target`.
template <bool Fast, class T>
inline bool logsumexp_rows_on(simd_variant target, const T* in, T* out, std::size_t count, std::size_t n,
                              std::ptrdiff_t in_row, std::ptrdiff_t out_row, const T* next_in) {
  if constexpr (Fast && std::is_same_v<T, float>) {
    if (n <= logsumexp_fast_max_line) {
      if (target == simd_variant::avx512) {
        logsumexp_rows_avx512<logsumexp_in_float16>(in, out, count, n, in_row, out_row, next_in);
        return true;
      }
      if (target == simd_variant::avx2) {
        logsumexp_rows_avx2<logsumexp_in_float8>(in, out, count, n, in_row, out_row, next_in);
        return true;
      }
    }
  }
  if (target == simd_variant::avx512)
    logsumexp_rows_avx512<logsumexp_in_double<lanes8>>(in, out, count, n, in_row, out_row, next_in);
  else if (target == simd_variant::avx2)
    logsumexp_rows_avx2<logsumexp_in_double<lanes4>>(in, out, count, n, in_row, out_row, next_in);
  else
    return false;
  return true;
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
