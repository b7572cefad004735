// nancumsum / nancumprod of the SIMD engine's floating-point types (float, double, half,
// output type = input type). Along a contiguous line they run on the SIMD engine's own
// line kernel, so the results are those of tally::cumsum / cumprod of the input with NaN
// replaced by +0 or 1 (NumPy's definition), bitwise: the kernel's NaN-replacing form
// (kernel_set::line_nan_as_empty, one compare and blend per vector), or, on the scalar
// target, each piece of the line copied into an L1-sized buffer with NaN replaced and
// scanned from there with the running value carried (the pieces are multiples of
// block_elements, line_state.hpp). The copy costs a pass that the fused form does not:
// nancumsum of 4096 x 4096 float along axis 1 took 7.8 ms staged, 5.1 ms fused, cumsum
// 4.9 ms (2026-11-25). Packed lines of up to short_line_max elements, one after the
// other, run the engine's short-lines kernel on NaN-free copies, as cumsum runs them.
// Across a tile of neighbouring lines, float and double take the AVX2 rows of
// vector_arithmetic_rows.hpp, and half (or a CPU without AVX2) the engine's columns
// kernel on staged rows: either way each column is folded in order, as cumsum does.
// Exclusive scans, wider outputs and other element types keep the engine's scalar loops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "../dispatch/kernel_table.hpp"
#include "../ops/arithmetic.hpp"
#include "prefetch.hpp"
#include "vector_arithmetic_rows.hpp"
#include "vector_lines.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// The staging buffer's size: a piece stays in L1.
inline constexpr std::size_t nan_free_piece_bytes = 32768;

template <class T>
inline constexpr bool has_nan_free_kernels_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, half>;

/// x, or the operation's empty value (+0 or 1) where x is NaN.
template <class Base, class T>
inline T nan_free(T x) noexcept {
  if constexpr (std::is_same_v<T, half>) {
    // binary16 NaN: all exponent bits and a nonzero fraction (no conversion to float).
    return (x.bits & 0x7fffu) > 0x7c00u ? half(Base::template empty<float>()) : x;
  } else {
    return x != x ? Base::template empty<T>() : x;
  }
}

#if TALLY_X86_SIMD
TALLY_SIMD_WARNINGS_BEGIN
/// The copy in AVX2 vectors (a plain loop is not vectorized at -O2 by every compiler).
template <class Base, class T>
TALLY_TARGET_AVX2 void copy_nan_free_avx2(const T* from, T* to, std::size_t n) noexcept {
  std::size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    const __m256 empty = _mm256_set1_ps(Base::template empty<float>());
    for (; i + 8 <= n; i += 8) {
      const __m256 x = _mm256_loadu_ps(from + i);
      _mm256_storeu_ps(to + i, _mm256_blendv_ps(x, empty, _mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
    }
  } else if constexpr (std::is_same_v<T, double>) {
    const __m256d empty = _mm256_set1_pd(Base::template empty<double>());
    for (; i + 4 <= n; i += 4) {
      const __m256d x = _mm256_loadu_pd(from + i);
      _mm256_storeu_pd(to + i, _mm256_blendv_pd(x, empty, _mm256_cmp_pd(x, x, _CMP_UNORD_Q)));
    }
  } else {
    const __m256i empty = _mm256_set1_epi16(static_cast<short>(nan_free<Base>(half::from_bits(0x7e00)).bits));
    const __m256i magnitude = _mm256_set1_epi16(0x7fff), infinity = _mm256_set1_epi16(0x7c00);
    for (; i + 16 <= n; i += 16) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + i));
      const __m256i nan = _mm256_cmpgt_epi16(_mm256_and_si256(x, magnitude), infinity);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i), _mm256_blendv_epi8(x, empty, nan));
    }
  }
  for (; i < n; ++i) to[i] = nan_free<Base>(from[i]);
}
TALLY_SIMD_WARNINGS_END
#endif

/// Copies n elements from `from` to `to`, NaN replaced.
template <class Base, class T>
inline void copy_nan_free(const T* from, T* to, std::size_t n) noexcept {
#if TALLY_X86_SIMD
  if (active_target() != simd_variant::scalar) return copy_nan_free_avx2<Base>(from, to, n);
#endif
  for (std::size_t i = 0; i < n; ++i) to[i] = nan_free<Base>(from[i]);
}

template <class Base, class T>
struct vector_line<arithmetic_op<Base, T, T, true>> {
  static constexpr bool exists = has_nan_free_kernels_v<T>;
  /// A whole contiguous line (without reset flags), in pieces of block_elements.
  static bool scan(const line_span<T, T>& l) noexcept {
    if constexpr (exists) {
      using A = acc_t<T>;
      if (l.resets) return false;
      const T* const in = l.in;
      T* const out = l.out;
      const std::size_t n = l.n;
      const bool reverse = l.reverse;
      constexpr std::size_t piece = block_elements;
      static_assert(piece * sizeof(T) <= nan_free_piece_bytes, "the piece is a block: keep it small");
      alignas(64) T staged[piece];
      const kernel_set<Base, T>& kernels = select_kernels<Base, T>();
      auto state = line_state<A>::template begin<Base>(Base::template identity<A>(), Base::template empty<A>());
      if (kernels.line_nan_as_empty) {
        kernels.line_nan_as_empty(state, in, out, reverse, n, false, l.stream);
        return true;
      }
      for (std::size_t at = 0; at < n; at += piece) {
        const std::size_t m = (std::min)(piece, n - at);
        // The piece's lowest address: reversed lines run downwards from `in`.
        const auto low = reverse ? -static_cast<std::ptrdiff_t>(at + m - 1) : static_cast<std::ptrdiff_t>(at);
        copy_nan_free<Base>(in + low, staged, m);
        kernels.line(state, reverse ? staged + (m - 1) : staged, reverse ? out - at : out + at, reverse, m, false,
                     l.stream);
      }
      return true;
    }
    (void)l;
    return false;
  }
  /// Packed lines (in_step == out_step == +-n) of 2 to short_line_max elements go in one
  /// call (scan_lines), every CPU: a line costs no call of its own.
  static std::size_t shortest_line(bool packed) noexcept { return exists && packed ? 2 : 0; }
  /// `count` lines like `first`, each `in_step` / `out_step` elements after the one before:
  /// pieces of whole lines copied NaN-free into the output and scanned there, in place, by
  /// the SIMD engine's short-lines kernel, which cumsum / cumprod of such lines run: the
  /// same bits (the kernel gives a line the same bits whatever lines share its call). One
  /// call a line (the line kernel from 16 elements, the generic loops below) took 3.7x-7.4x
  /// memcpy on float32 lines of 2 to 24 elements, and gave other bits than cumsum's.
  static bool scan_lines(const line_span<T, T>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    if constexpr (exists) {
      const std::size_t n = first.n;
      const auto length = static_cast<std::ptrdiff_t>(n);
      if (first.resets || first.stream || n < 2 || n > short_line_max || in_step != out_step ||
          (in_step != length && in_step != -length))
        return false;
      // The region's lowest address: the last line's when they run downwards, and a
      // reversed line starts at its highest.
      const std::ptrdiff_t low =
          (in_step < 0 ? static_cast<std::ptrdiff_t>(count - 1) * in_step : 0) - (first.reverse ? length - 1 : 0);
      const T* const in = first.in + low;
      T* const out = first.out + low;
      const std::size_t piece = (std::max<std::size_t>)(1, block_elements / n);  // whole lines
      const kernel_set<Base, T>& kernels = select_kernels<Base, T>();
      for (std::size_t line = 0; line < count; line += piece) {
        const std::size_t m = (std::min)(piece, count - line);
        copy_nan_free<Base>(in + line * n, out + line * n, m * n);
        kernels.short_lines(out + line * n, out + line * n, n, m, first.reverse, false, false);
      }
      return true;
    }
    (void)first, (void)count, (void)in_step, (void)out_step;
    return false;
  }
};

template <class Base, class T>
struct vector_rows<arithmetic_op<Base, T, T, true>> {
  static constexpr bool exists = has_nan_free_kernels_v<T>;
  static constexpr std::size_t max_lines = 4096;
  /// A tile of rows (without reset flags), in pieces of whole rows.
  static bool scan(const row_tile<T, T>& t) noexcept {
    if constexpr (exists) {
      using A = acc_t<T>;
      if (t.resets || t.index || t.count > max_lines) return false;
#if TALLY_X86_SIMD
      if constexpr (!std::is_same_v<T, half>)  // float and double: one pass, no staging
        if (scan_arithmetic_rows<Base, row_rule::skip_nan>(t)) return true;
#endif
      constexpr std::size_t capacity = nan_free_piece_bytes / sizeof(T);
      alignas(64) T staged[capacity];
      A running[max_lines];
      std::fill(running, running + t.count, Base::template identity<A>());
      const kernel_set<Base, T>& kernels = select_kernels<Base, T>();
      const std::size_t rows = (std::max<std::size_t>)(1, capacity / t.count);
      for (std::size_t k = 0; k < t.rows; k += rows) {
        const std::size_t r = (std::min)(rows, t.rows - k);
        for (std::size_t i = 0; i < r; ++i) {
          const T* row = t.in + static_cast<std::ptrdiff_t>(k + i) * t.in_row;
          prefetch_run(row, t.in_row, t.count);
          copy_nan_free<Base>(row, staged + i * t.count, t.count);
        }
        kernels.columns(staged, static_cast<std::ptrdiff_t>(t.count), t.out + static_cast<std::ptrdiff_t>(k) * t.out_row,
                        t.out_row, t.count, r, running, false, k > 0, t.stream, nullptr);
      }
      return true;
    }
    (void)t;
    return false;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
