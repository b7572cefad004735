// logcumsumexp of float and double elements in double lanes, with the scalar operator's
// state and formulas (ops/logcumsumexp.hpp), written once over a lane vector: `lanes4`
// (four doubles, AVX2 + FMA) and `lanes8` (eight doubles, AVX-512, whose table-driven exp
// and log cost about a third as much per element):
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
// vector and scalar paths agree to a few ulp of double: a float output is the same
// rounding of nearly the same double.
//
// The kernels carry no target attribute (one cannot come from a template parameter): each
// is instantiated for one lane vector inside a target-attributed entry point marked
// TALLY_FLATTEN, which inlines the kernel and, through it, the lane vector's
// (target-attributed) operations; a build that inlines nothing (-O0) still calls them
// correctly, the registers passing by reference.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../ops/logcumsumexp.hpp"
#include "prefetch.hpp"
#include "vector_math_avx2.hpp"
#include "vector_math_avx512.hpp"
#include "vector_math_float_avx2.hpp"

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
  TALLY_TARGET_AVX2 static void reverse(reg& v) { v = _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3)); }
  /// The inclusive prefix sums of the lanes, in place.
  TALLY_TARGET_AVX2 static void prefix_sum(reg& v) {
    v = _mm256_add_pd(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_pd(), 1));
    v = _mm256_add_pd(v, _mm256_permute2f128_pd(v, v, 0x08));
  }
  /// v's last lane in every lane.
  TALLY_TARGET_AVX2 static void last(reg& r, const reg& v) { r = _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3)); }
  TALLY_TARGET_AVX2 static double first(const reg& v) { return _mm256_cvtsd_f64(v); }
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
  TALLY_TARGET_AVX512 static void load_aligned(reg& r, const double* p) { r = _mm512_load_pd(p); }
  TALLY_TARGET_AVX512 static void store_aligned(double* p, const reg& v) { _mm512_store_pd(p, v); }
  TALLY_TARGET_AVX512 static void add(reg& r, const reg& a, const reg& b) { r = _mm512_add_pd(a, b); }
  TALLY_TARGET_AVX512 static void sub(reg& r, const reg& a, const reg& b) { r = _mm512_sub_pd(a, b); }
  TALLY_TARGET_AVX512 static void exp(reg& r, const reg& v) { r = exp_pd(v); }
  TALLY_TARGET_AVX512 static void log(reg& r, const reg& v) { r = log_pd(v); }
  TALLY_TARGET_AVX512 static bool any_beyond(const reg& v, double limit) {
    return _mm512_cmp_pd_mask(v, _mm512_set1_pd(limit), _CMP_NLE_UQ) != 0;
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
};

/// One scalar combine of a lane's state with an element.
template <class T>
inline void scalar_combine(double& base, double& sum, T x) noexcept {
  const typename logcumsumexp_op<T>::state_type s = logcumsumexp_op<T>().combine({base, sum}, x, 0);
  base = s.base;
  sum = s.sum;
}

/// Writes base[i] + log(sum[i]) for i < n to out[i * step] (T's rounding, as the scalar
/// value()): n a multiple of L::width, base and sum aligned to it.
template <class L, class T, std::ptrdiff_t Step>
inline void logsumexp_values(const double* base, const double* sum, T* out, std::size_t n) {
  typename L::reg b, y;
  for (std::size_t i = 0; i < n; i += L::width) {
    L::load_aligned(b, base + i);
    L::load_aligned(y, sum + i);
    L::log(y, y);
    L::add(y, b, y);
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
  using reg = typename L::reg;
  constexpr std::size_t width = L::width;
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  const double limit = logcumsumexp_op<T>::rebase_above;
  const auto start = logcumsumexp_op<T>().start();
  double base = start.base, sum = start.sum;
  // The state after each element of a piece, in scan order.
  alignas(64) double bases[logsumexp_piece], sums[logsumexp_piece];
  reg run, x, b, d;
  L::broadcast(run, sum);  // the running sum in every lane
  std::size_t k = 0;
  while (k + width <= n) {
    const std::size_t piece = (std::min)(logsumexp_piece, (n - k) / width * width);
    for (std::size_t i = 0; i < piece; i += width) {
      const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k + i);
      L::load(x, in + (Reverse ? at - static_cast<std::ptrdiff_t>(width - 1) : at));
      if (Reverse) L::reverse(x);
      L::broadcast(b, base);
      L::sub(d, x, b);
      if (L::any_beyond(d, limit)) {  // also a line's first element: the base is -inf
        sum = L::first(run);
        for (std::size_t j = 0; j < width; ++j) {
          scalar_combine(base, sum, in[at + step * static_cast<std::ptrdiff_t>(j)]);
          bases[i + j] = base;
          sums[i + j] = sum;
        }
        L::broadcast(run, sum);
        continue;
      }
      L::exp(d, d);
      L::prefix_sum(d);
      L::add(d, run, d);  // the running sum after each element
      L::store_aligned(sums + i, d);
      L::store_aligned(bases + i, b);
      L::last(run, d);
    }
    logsumexp_values<L, T, step>(bases, sums, out + step * static_cast<std::ptrdiff_t>(k), piece);
    k += piece;
  }
  sum = L::first(run);
  const logcumsumexp_op<T> op;
  for (; k < n; ++k) {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k);
    scalar_combine(base, sum, in[at]);
    out[at] = op.value({base, sum});
  }
}

/// `count` (at most logsumexp_tile_capacity) neighbouring lines, next to each other in
/// memory, n rows `in_row` / `out_row` elements apart: one line per lane; each row first
/// combined into the states (exp), then written (log).
template <class L, class T>
inline void logsumexp_rows(const T* in, T* out, std::size_t count, std::size_t n, std::ptrdiff_t in_row,
                           std::ptrdiff_t out_row) {
  using reg = typename L::reg;
  constexpr std::size_t width = L::width;
  const std::size_t vectors = count / width * width;
  const double limit = logcumsumexp_op<T>::rebase_above;
  const logcumsumexp_op<T> op;
  alignas(64) double base[logsumexp_tile_capacity], sum[logsumexp_tile_capacity];
  reg b, d, s;
  for (std::size_t j = 0; j < count; ++j) base[j] = op.start().base, sum[j] = op.start().sum;
  for (std::size_t k = 0; k < n; ++k, in += in_row, out += out_row) {
    prefetch_run(in, in_row, count);
    std::size_t j = 0;
    for (; j < vectors; j += width) {
      L::load_aligned(b, base + j);
      L::load(d, in + j);
      L::sub(d, d, b);
      if (L::any_beyond(d, limit)) {  // also the first row: the bases are -inf
        for (std::size_t i = j; i < j + width; ++i) scalar_combine(base[i], sum[i], in[i]);
        continue;
      }
      L::exp(d, d);
      L::load_aligned(s, sum + j);
      L::add(s, s, d);
      L::store_aligned(sum + j, s);
    }
    for (; j < count; ++j) scalar_combine(base[j], sum[j], in[j]);
    logsumexp_values<L, T, 1>(base, sum, out, vectors);
    for (j = vectors; j < count; ++j) out[j] = op.value({base[j], sum[j]});
  }
}

// The fast form (scan_accuracy::fast, float elements, AVX2): the same two passes with the
// exp and the log in eight float lanes (vector_math_float_avx2.hpp), the running sums
// still in double. Each output is within about 2e-7 of the exact value at the scale of
// max(|y|, 1) (about 2 ulp of float there) instead of a few ulp of double, for 1.6x to 2.3x
// the speed (measured): exp and log are this operator's whole cost, and the double forms
// do each on four lanes with polynomials twice as long.

/// The longest line the fast form takes: its sums (at most n e^64, above) stay below
/// float's largest value, where its log takes them.
inline constexpr std::size_t logsumexp_fast_max_line = std::size_t{1} << 34;

/// The running sums after each of eight terms, in two double vectors, from `run` (the sum
/// before them in every lane), which becomes the last of them. (The terms' own prefix is
/// complete before `run` joins: one add and one permute from one `run` to the next.)
TALLY_TARGET_AVX2 inline void running_sums(__m256 terms, __m256d& run, __m256d& low, __m256d& high) {
  low = _mm256_cvtps_pd(_mm256_castps256_ps128(terms));
  high = _mm256_cvtps_pd(_mm256_extractf128_ps(terms, 1));
  lanes4::prefix_sum(low);
  lanes4::prefix_sum(high);
  __m256d low_total;
  lanes4::last(low_total, low);
  lanes4::add(high, high, low_total);
  lanes4::add(low, low, run);
  lanes4::add(high, high, run);
  lanes4::last(run, high);
}

/// Eight doubles as eight floats.
TALLY_TARGET_AVX2 inline __m256 to_floats(__m256d low, __m256d high) {
  return _mm256_set_m128(_mm256_cvtpd_ps(high), _mm256_cvtpd_ps(low));
}

/// logsumexp_line's fast form: float elements, n at most logsumexp_fast_max_line.
template <bool Reverse>
TALLY_TARGET_AVX2 inline void logsumexp_line_fast_avx2(const float* in, float* out, std::size_t n) {
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  const __m256 limit = _mm256_set1_ps(static_cast<float>(logcumsumexp_op<float>::rebase_above));
  const __m256i backwards = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  const logcumsumexp_op<float> op;
  double base = op.start().base, sum = op.start().sum;  // base is an element, or -inf / +inf
  alignas(32) float bases[logsumexp_piece];
  alignas(32) double sums[logsumexp_piece];
  __m256d run = _mm256_set1_pd(sum), low, high;
  __m256 b = _mm256_set1_ps(static_cast<float>(base));
  std::size_t k = 0;
  while (k + 8 <= n) {
    const std::size_t piece = (std::min)(logsumexp_piece, (n - k) / 8 * 8);
    for (std::size_t i = 0; i < piece; i += 8) {
      const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k + i);
      __m256 x = _mm256_loadu_ps(in + (Reverse ? at - 7 : at));
      if (Reverse) x = _mm256_permutevar8x32_ps(x, backwards);
      // A step that would rebase, an infinity or a NaN (also a line's first element: the
      // base is -inf): the scalar combine, as in logsumexp_line.
      if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(x, b), limit, _CMP_NLE_UQ)) != 0) {
        sum = _mm256_cvtsd_f64(run);
        for (std::size_t j = 0; j < 8; ++j) {
          scalar_combine(base, sum, in[at + step * static_cast<std::ptrdiff_t>(j)]);
          bases[i + j] = static_cast<float>(base);
          sums[i + j] = sum;
        }
        run = _mm256_set1_pd(sum);
        b = _mm256_set1_ps(static_cast<float>(base));
        continue;
      }
      running_sums(exp_difference(x, b), run, low, high);
      _mm256_store_pd(sums + i, low);
      _mm256_store_pd(sums + i + 4, high);
      _mm256_store_ps(bases + i, b);
    }
    for (std::size_t i = 0; i < piece; i += 8) {
      __m256 y = plus_log(_mm256_load_ps(bases + i), to_floats(_mm256_load_pd(sums + i), _mm256_load_pd(sums + i + 4)));
      const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k + i);
      if (Reverse) y = _mm256_permutevar8x32_ps(y, backwards);
      _mm256_storeu_ps(out + (Reverse ? at - 7 : at), y);
    }
    k += piece;
  }
  sum = _mm256_cvtsd_f64(run);
  for (; k < n; ++k) {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k);
    scalar_combine(base, sum, in[at]);
    out[at] = op.value({base, sum});
  }
}

/// logsumexp_rows's fast form: float elements, n at most logsumexp_fast_max_line.
TALLY_TARGET_AVX2 inline void logsumexp_rows_fast_avx2(const float* in, float* out, std::size_t count, std::size_t n,
                                                       std::ptrdiff_t in_row, std::ptrdiff_t out_row) {
  const std::size_t vectors = count / 8 * 8;
  const __m256 limit = _mm256_set1_ps(static_cast<float>(logcumsumexp_op<float>::rebase_above));
  const logcumsumexp_op<float> op;
  alignas(32) float base[logsumexp_tile_capacity];  // elements, or -inf / +inf
  alignas(32) double sum[logsumexp_tile_capacity];
  const auto combine = [&](std::size_t j, float x) {
    double b = base[j];
    scalar_combine(b, sum[j], x);
    base[j] = static_cast<float>(b);
  };
  for (std::size_t j = 0; j < count; ++j) base[j] = static_cast<float>(op.start().base), sum[j] = op.start().sum;
  for (std::size_t k = 0; k < n; ++k, in += in_row, out += out_row) {
    prefetch_run(in, in_row, count);
    std::size_t j = 0;
    for (; j < vectors; j += 8) {
      const __m256 b = _mm256_load_ps(base + j), x = _mm256_loadu_ps(in + j);
      if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(x, b), limit, _CMP_NLE_UQ)) != 0) {
        for (std::size_t i = j; i < j + 8; ++i) combine(i, in[i]);  // as in logsumexp_rows
        continue;
      }
      const __m256 terms = exp_difference(x, b);
      _mm256_store_pd(sum + j, _mm256_add_pd(_mm256_load_pd(sum + j), _mm256_cvtps_pd(_mm256_castps256_ps128(terms))));
      _mm256_store_pd(sum + j + 4,
                      _mm256_add_pd(_mm256_load_pd(sum + j + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(terms, 1))));
    }
    for (; j < count; ++j) combine(j, in[j]);
    for (j = 0; j < vectors; j += 8)
      _mm256_storeu_ps(out + j, plus_log(_mm256_load_ps(base + j),
                                         to_floats(_mm256_load_pd(sum + j), _mm256_load_pd(sum + j + 4))));
    for (; j < count; ++j) out[j] = op.value({base[j], sum[j]});
  }
}

// The entry points, one per target.
template <class T, bool Reverse>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void logsumexp_line_avx2(const T* in, T* out, std::size_t n) {
  logsumexp_line<lanes4, T, Reverse>(in, out, n);
}
template <class T, bool Reverse>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void logsumexp_line_avx512(const T* in, T* out, std::size_t n) {
  logsumexp_line<lanes8, T, Reverse>(in, out, n);
}
template <class T>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void logsumexp_rows_avx2(const T* in, T* out, std::size_t count,
                                                                    std::size_t n, std::ptrdiff_t in_row,
                                                                    std::ptrdiff_t out_row) {
  logsumexp_rows<lanes4>(in, out, count, n, in_row, out_row);
}
template <class T>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void logsumexp_rows_avx512(const T* in, T* out, std::size_t count,
                                                                        std::size_t n, std::ptrdiff_t in_row,
                                                                        std::ptrdiff_t out_row) {
  logsumexp_rows<lanes8>(in, out, count, n, in_row, out_row);
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
