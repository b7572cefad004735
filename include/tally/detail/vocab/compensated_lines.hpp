// Exact float64 sums and products along contiguous lines, many lines a call: the
// compensated pair of ops/exact_sum.hpp (TwoSum, or an FMA's exact product error) folded
// one line per lane, so that each lane is the engine's scalar loop on its line, the same
// bits. Eight lines a step with AVX-512 (four with AVX2): a block of each line's next 8
// (4) elements is loaded, transposed in registers so that one vector holds the lines'
// elements at one position, folded position by position, transposed back and stored.
//
// One line's fold is a chain of dependent adds, whatever the vectors: the lines of a
// tensor are what runs in parallel. 16M float64 elements in lines of L, one line at a
// time in the scalar loop (compensated_line) / here, x memcpy, AVX-512, -O2: L = 4096
// 3.2 / 1.1-1.3, 128 3.6 / 1.6, 100 3.4 / 2.4-2.7, 64 4.3 / 1.7-1.9 (2026-12-08).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../dispatch/kernel_table.hpp"
#include "../kernels/avx2/vectors.hpp"
#include "../kernels/avx512/vectors.hpp"
#include "vector_lines.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

#if TALLY_X86_SIMD
TALLY_SIMD_WARNINGS_BEGIN

/// The compensated fold of float64 lanes (AVX2 + FMA, or AVX-512): x (a NaN read as the
/// empty value when skipping NaNs) into the pairs (high, low), TwoSum as add_compensated
/// or the FMA's exact error as multiply_compensated; returns the lanes rounded as
/// double_double::value (high + low where high is finite and low is not zero).
template <bool Sum, bool SkipNaN>
struct compensated_fold {
  static constexpr double empty = Sum ? 0.0 : 1.0;
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256d read(__m256d x) {
    return SkipNaN ? _mm256_blendv_pd(x, _mm256_set1_pd(empty), _mm256_cmp_pd(x, x, _CMP_UNORD_Q)) : x;
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512d read(__m512d x) {
    return SkipNaN ? _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), x, _mm512_set1_pd(empty)) : x;
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256d apply(__m256d x, __m256d& high, __m256d& low) {
    x = read(x);
    const __m256d h = high;
    if constexpr (Sum) {
      high = _mm256_add_pd(h, x);
      const __m256d x_part = _mm256_sub_pd(high, h);
      low = _mm256_add_pd(low, _mm256_add_pd(_mm256_sub_pd(h, _mm256_sub_pd(high, x_part)), _mm256_sub_pd(x, x_part)));
    } else {
      high = _mm256_mul_pd(h, x);
      low = _mm256_fmadd_pd(low, x, _mm256_fmsub_pd(h, x, high));
    }
    const __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), high);
    const __m256d adds =
        _mm256_and_pd(_mm256_cmp_pd(magnitude, _mm256_set1_pd(std::numeric_limits<double>::infinity()), _CMP_LT_OQ),
                      _mm256_cmp_pd(low, _mm256_setzero_pd(), _CMP_NEQ_UQ));
    return _mm256_blendv_pd(high, _mm256_add_pd(high, low), adds);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512d apply(__m512d x, __m512d& high, __m512d& low) {
    x = read(x);
    const __m512d h = high;
    if constexpr (Sum) {
      high = _mm512_add_pd(h, x);
      const __m512d x_part = _mm512_sub_pd(high, h);
      low = _mm512_add_pd(low, _mm512_add_pd(_mm512_sub_pd(h, _mm512_sub_pd(high, x_part)), _mm512_sub_pd(x, x_part)));
    } else {
      high = _mm512_mul_pd(h, x);
      low = _mm512_fmadd_pd(low, x, _mm512_fmsub_pd(h, x, high));
    }
    const __mmask8 adds =
        _mm512_cmp_pd_mask(_mm512_abs_pd(high), _mm512_set1_pd(std::numeric_limits<double>::infinity()), _CMP_LT_OQ) &
        _mm512_cmp_pd_mask(low, _mm512_setzero_pd(), _CMP_NEQ_UQ);
    return _mm512_mask_add_pd(high, adds, high, low);
  }
};

/// One block's loads, stores and fold (compensated_lines) with AVX-512: 8 lines by 8
/// elements. `at`: where the block starts in memory in each line; a part of one (at a
/// line's two ends) is lanes [first, first + size) of it. Target-attributed, the
/// registers passed by reference: compensated_lines, written once without a target,
/// calls them, and its flattened entry points inline them (as lane_rows).
template <bool Sum, bool SkipNaN>
struct compensated_block8 {
  using fold = compensated_fold<Sum, SkipNaN>;
  static constexpr std::size_t width = 8;
  /// A block: a line a row, or a position a row once transposed; and the lines' pairs.
  struct registers {
    __m512d x[width];
    __m512d high, low;
  };
  static __mmask8 mask(std::size_t first, std::size_t size) { return static_cast<__mmask8>(((1u << size) - 1) << first); }
  TALLY_TARGET_AVX512 static void load(registers& b, const double* const* lines, std::ptrdiff_t at, std::size_t first,
                                       std::size_t size) {
    TALLY_UNROLL
    for (std::size_t r = 0; r < width; ++r)
      b.x[r] = size == width ? _mm512_loadu_pd(lines[r] + at) : _mm512_maskz_loadu_pd(mask(first, size), lines[r] + at);
    avx512::transpose_8x8(b.x);
  }
  TALLY_TARGET_AVX512 static void store(registers& b, double* const* lines, std::size_t count, std::ptrdiff_t at,
                                        std::size_t first, std::size_t size, bool stream) {
    avx512::transpose_8x8(b.x);
    TALLY_UNROLL
    for (std::size_t r = 0; r < width; ++r) {
      if (r >= count) continue;
      if (size < width)
        _mm512_mask_storeu_pd(lines[r] + at, mask(first, size), b.x[r]);
      else
        stream ? _mm512_stream_pd(lines[r] + at, b.x[r]) : _mm512_storeu_pd(lines[r] + at, b.x[r]);
    }
  }
  /// Rows [first, first + size) of the transposed block, in scan order (upwards, or
  /// downwards when Reverse); `starts`: the first starts the lines, the pair (x, -0.0) of
  /// exact_op::first, whose value is x.
  template <bool Reverse>
  TALLY_TARGET_AVX512 static void fold_rows(registers& b, std::size_t first, std::size_t size, bool starts) {
    TALLY_UNROLL
    for (std::size_t i = 0; i < width; ++i) {
      if (i >= size) continue;
      __m512d& x = b.x[Reverse ? first + size - 1 - i : first + i];
      if (i == 0 && starts) {
        x = b.high = fold::read(x);
        b.low = _mm512_set1_pd(-0.0);
      } else {
        x = fold::apply(x, b.high, b.low);
      }
    }
  }
};

/// compensated_block8 for AVX2 (and FMA): 4 lines by 4 elements, stored plainly (AVX2's
/// 32-byte streamed stores measured slower than plain ones, docs/benchmarks.md).
template <bool Sum, bool SkipNaN>
struct compensated_block4 {
  using fold = compensated_fold<Sum, SkipNaN>;
  static constexpr std::size_t width = 4;
  struct registers {
    __m256d x[width];
    __m256d high, low;
  };
  TALLY_TARGET_AVX2 static __m256i mask(std::size_t first, std::size_t size) {
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const auto low = static_cast<long long>(first), high = static_cast<long long>(first + size);
    return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(low), lane),
                               _mm256_cmpgt_epi64(_mm256_set1_epi64x(high), lane));
  }
  TALLY_TARGET_AVX2 static void load(registers& b, const double* const* lines, std::ptrdiff_t at, std::size_t first,
                                     std::size_t size) {
    TALLY_UNROLL
    for (std::size_t r = 0; r < width; ++r)
      b.x[r] = size == width ? _mm256_loadu_pd(lines[r] + at) : _mm256_maskload_pd(lines[r] + at, mask(first, size));
    avx2::transpose_4x4(b.x);
  }
  TALLY_TARGET_AVX2 static void store(registers& b, double* const* lines, std::size_t count, std::ptrdiff_t at,
                                      std::size_t first, std::size_t size, bool) {
    avx2::transpose_4x4(b.x);
    TALLY_UNROLL
    for (std::size_t r = 0; r < width; ++r) {
      if (r >= count) continue;
      if (size < width)
        _mm256_maskstore_pd(lines[r] + at, mask(first, size), b.x[r]);
      else
        _mm256_storeu_pd(lines[r] + at, b.x[r]);
    }
  }
  template <bool Reverse>
  TALLY_TARGET_AVX2 static void fold_rows(registers& b, std::size_t first, std::size_t size, bool starts) {
    TALLY_UNROLL
    for (std::size_t i = 0; i < width; ++i) {
      if (i >= size) continue;
      __m256d& x = b.x[Reverse ? first + size - 1 - i : first + i];
      if (i == 0 && starts) {
        x = b.high = fold::read(x);
        b.low = _mm256_set1_pd(-0.0);
      } else {
        x = fold::apply(x, b.high, b.low);
      }
    }
  }
};

/// The longest lines whose blocks prefetch the next group's (compensated_lines).
inline constexpr std::size_t compensated_prefetched_line_bytes = 4096;

/// One block of a group of Block::width lines (compensated_lines): `size` elements from
/// scan position k of each, loaded, transposed, folded position by position into the
/// lines' pairs (position 0 starts them), transposed back and stored for the group's
/// `count` lines. A block covers Block::width elements of memory from `at` up, downwards
/// in scan order when Reverse (memory lane i is scan position width - 1 - i).
template <class Block, bool Reverse>
void compensated_block(typename Block::registers& b, const double* const* src, double* const* dst, std::size_t count,
                       std::size_t k, std::size_t size, bool stream, std::ptrdiff_t ahead) {
  constexpr std::size_t W = Block::width;
  const std::ptrdiff_t at = Reverse ? -static_cast<std::ptrdiff_t>(k + W - 1) : static_cast<std::ptrdiff_t>(k);
  const std::size_t first = Reverse ? W - size : 0;
  if (ahead != 0) {
    TALLY_UNROLL
    for (std::size_t r = 0; r < W; ++r) prefetch(src[r] + at + ahead);
  }
  Block::load(b, src, at, first, size);
  Block::template fold_rows<Reverse>(b, first, size, k == 0);
  Block::store(b, dst, count, at, first, size, stream);
}

/// `count` fresh lines of n float64 elements in scan order (+1 steps, or -1 when Reverse;
/// in place allowed), `in_step` / `out_step` elements apart, Block::width lines at a time.
/// A group of fewer lines loads its last line again in the spare lanes and stores only
/// its own. `stream` (AVX-512): non-temporal stores of whole 64-byte lines, where every
/// line's output sits at the same place in its cache line, after a head of elements up
/// to the first line's boundary.
template <class Block, bool Reverse>
void compensated_lines(const double* in, double* out, std::size_t n, std::size_t count, std::ptrdiff_t in_step,
                       std::ptrdiff_t out_step, bool stream) {
  constexpr std::size_t W = Block::width;
  stream = stream && W == 8 && out_step % 8 == 0 && reinterpret_cast<std::uintptr_t>(out) % sizeof(double) == 0;
  const std::size_t head = !stream  ? 0
                           : Reverse ? reinterpret_cast<std::uintptr_t>(out + 1) % 64 / sizeof(double)
                                     : elements_to_boundary<64>(out);
  // Short lines: each block prefetches the same block of the next group's lines (each
  // group starts Block::width streams, too short for the hardware prefetchers to learn).
  const bool short_lines = n * sizeof(double) <= compensated_prefetched_line_bytes;
  for (std::size_t group = 0; group < count; group += W) {
    const std::size_t lines = (std::min)(W, count - group);
    const double* src[W];
    double* dst[W];
    for (std::size_t r = 0; r < W; ++r) {
      const auto line = static_cast<std::ptrdiff_t>(group + (std::min)(r, lines - 1));
      src[r] = in + line * in_step;
      dst[r] = out + line * out_step;
    }
    const std::ptrdiff_t ahead = short_lines && group + W < count ? static_cast<std::ptrdiff_t>(W) * in_step : 0;
    typename Block::registers b;  // the pairs: set by each line's first element
    std::size_t k = (std::min)(head, n);
    if (k > 0) compensated_block<Block, Reverse>(b, src, dst, lines, 0, k, false, ahead);
    for (; k + W <= n; k += W) compensated_block<Block, Reverse>(b, src, dst, lines, k, W, stream, ahead);
    if (k < n) compensated_block<Block, Reverse>(b, src, dst, lines, k, n - k, false, ahead);
  }
}

template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void compensated_lines_avx512(const double* in, double* out, std::size_t n,
                                                                      std::size_t count, std::ptrdiff_t in_step,
                                                                      std::ptrdiff_t out_step, bool stream) {
  compensated_lines<compensated_block8<Sum, SkipNaN>, Reverse>(in, out, n, count, in_step, out_step, stream);
}

template <bool Sum, bool Reverse, bool SkipNaN>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void compensated_lines_avx2(const double* in, double* out, std::size_t n,
                                                                  std::size_t count, std::ptrdiff_t in_step,
                                                                  std::ptrdiff_t out_step, bool stream) {
  compensated_lines<compensated_block4<Sum, SkipNaN>, Reverse>(in, out, n, count, in_step, out_step, stream);
}

TALLY_SIMD_WARNINGS_END
#endif

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
