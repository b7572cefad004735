// cumsum<T, U> into a wider type in vectors:
// - across a tile of neighbouring lines, row by row (lane_rows.hpp), AVX-512 or AVX2:
//   integers into wider integers (int8 -> int64, uint16 -> int32, ...), half and
//   bfloat16 into float. One line per lane, each element widened (sign- or
//   zero-extended, or converted exactly as F16C converts) and added into its line's
//   running value in U: the scalar loop's sequential fold, the same bits (integers wrap
//   in U; float sums in the same order);
// - along a contiguous line, AVX-512, integers into 32- and 64-bit integers: an
//   in-register prefix of the widened elements plus the running value (integer sums are
//   the same in any grouping);
// - along contiguous lines, AVX2 or AVX-512, half and bfloat16 into float: 8 lines at
//   once, transposed in registers so that a vector holds one element of each line, so
//   that each line keeps its sequential order (float sums differ in another grouping).
//
// Without them these ran the engine's generic loops, which GCC at -O2 does not vectorize:
// 4096 x 4096, x memcpy of the output bytes, across rows: int8 -> int64 2.45, int16 ->
// int32 4.9, half -> float 5.5; along lines: int8 -> int32 1.15-1.44, half -> float
// 2.9-3.8 (docs/vocabulary.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../ops/arithmetic.hpp"
#include "lane_rows.hpp"
#include "vector_lines.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// Whether cumsum<T, U> has vector forms here (rows; lines into 32- and 64-bit integers):
/// T != U, both integers, or T half / bfloat16 and U float.
template <class T, class U>
inline constexpr bool widening_vector_pair_v =
    !std::is_same_v<T, U> && ((std::is_integral_v<T> && std::is_integral_v<U>) ||
                              (is_short_float_v<T> && std::is_same_v<U, float>));

/// 8 half or bfloat16 values as floats, exactly (F16C; bfloat16: its bits moved up 16).
template <class T>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 short_floats_avx2(__m128i bits) {
  return std::is_same_v<T, half> ? _mm256_cvtph_ps(bits)
                                 : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}

/// The most lines a tile holds here: 32 KiB of 64-bit running values.
inline constexpr std::size_t widening_tile_capacity = 4096;

/// A tile's running values, in U's running type (the op's own first / combine / value
/// for the elements the steps do not take).
template <class T, class U>
struct widening_running : lane_values<running_t<U>, widening_tile_capacity> {
  using base = lane_values<running_t<U>, widening_tile_capacity>;
  using base::base;
  using base::value;
  using op = arithmetic_op<sum_op, T, U, false>;
  U start(std::size_t j, T x) { return op().value(value[j] = op().first(x, 0)); }
  U combine(std::size_t j, T x, const std::uint8_t*) { return op().value(value[j] = op().combine(value[j], x, 0)); }
};

TALLY_SIMD_WARNINGS_BEGIN

/// 64 bytes of U a step (AVX-512 F/BW).
template <class T, class U>
struct widening_lanes_avx512 {
  using in_type = T;
  using out_type = U;
  using running_values = widening_running<T, U>;
  static constexpr std::size_t width = 64 / sizeof(U), align = 64;

  /// The next `width` elements of T, widened to U's lanes.
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512i widen(const T* in) {
    constexpr bool sign = std::is_signed_v<T>;
    if constexpr (sizeof(U) == 8) {
      if constexpr (sizeof(T) == 1) {
        const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in));
        return sign ? _mm512_cvtepi8_epi64(x) : _mm512_cvtepu8_epi64(x);
      } else if constexpr (sizeof(T) == 2) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
        return sign ? _mm512_cvtepi16_epi64(x) : _mm512_cvtepu16_epi64(x);
      } else {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
        return sign ? _mm512_cvtepi32_epi64(x) : _mm512_cvtepu32_epi64(x);
      }
    } else if constexpr (sizeof(U) == 4) {
      if constexpr (sizeof(T) == 1) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
        return sign ? _mm512_cvtepi8_epi32(x) : _mm512_cvtepu8_epi32(x);
      } else {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
        return sign ? _mm512_cvtepi16_epi32(x) : _mm512_cvtepu16_epi32(x);
      }
    } else {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
      return sign ? _mm512_cvtepi8_epi16(x) : _mm512_cvtepu8_epi16(x);
    }
  }

  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, U* out,
                                       const std::uint8_t*, bool stream) {
    if constexpr (std::is_integral_v<U>) {
      const __m512i running = _mm512_loadu_si512(r.value + j), x = widen(in);
      const __m512i y = sizeof(U) == 8   ? _mm512_add_epi64(running, x)
                        : sizeof(U) == 4 ? _mm512_add_epi32(running, x)
                                         : _mm512_add_epi16(running, x);
      _mm512_storeu_si512(r.value + j, y);
      stream ? _mm512_stream_si512(reinterpret_cast<__m512i*>(out), y) : _mm512_storeu_si512(out, y);
    } else {
      const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
      const __m512 x = std::is_same_v<T, half> ? _mm512_cvtph_ps(bits)
                                               : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
      const __m512 y = _mm512_add_ps(_mm512_loadu_ps(r.value + j), x);
      _mm512_storeu_ps(r.value + j, y);
      stream ? _mm512_stream_ps(out, y) : _mm512_storeu_ps(out, y);
    }
  }
};

/// 32 bytes of U a step (AVX2, F16C).
template <class T, class U>
struct widening_lanes_avx2 {
  using in_type = T;
  using out_type = U;
  using running_values = widening_running<T, U>;
  static constexpr std::size_t width = 32 / sizeof(U), align = 32;

  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256i widen(const T* in) {
    constexpr bool sign = std::is_signed_v<T>;
    // The width * sizeof(T) bytes needed (4, 8 or 16), loaded alone: never past them.
    __m128i x;
    if constexpr (width * sizeof(T) == 4) {
      std::int32_t bytes;
      std::memcpy(&bytes, in, sizeof bytes);
      x = _mm_cvtsi32_si128(bytes);
    } else if constexpr (width * sizeof(T) == 8) {
      x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in));
    } else {
      x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    }
    if constexpr (sizeof(U) == 8 && sizeof(T) == 1) {
      return sign ? _mm256_cvtepi8_epi64(x) : _mm256_cvtepu8_epi64(x);
    } else if constexpr (sizeof(U) == 8 && sizeof(T) == 2) {
      return sign ? _mm256_cvtepi16_epi64(x) : _mm256_cvtepu16_epi64(x);
    } else if constexpr (sizeof(U) == 8) {
      return sign ? _mm256_cvtepi32_epi64(x) : _mm256_cvtepu32_epi64(x);
    } else if constexpr (sizeof(U) == 4 && sizeof(T) == 1) {
      return sign ? _mm256_cvtepi8_epi32(x) : _mm256_cvtepu8_epi32(x);
    } else if constexpr (sizeof(U) == 4) {
      return sign ? _mm256_cvtepi16_epi32(x) : _mm256_cvtepu16_epi32(x);
    } else {
      return sign ? _mm256_cvtepi8_epi16(x) : _mm256_cvtepu8_epi16(x);
    }
  }

  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, U* out,
                                     const std::uint8_t*, bool stream) {
    if constexpr (std::is_integral_v<U>) {
      const __m256i running = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.value + j)), x = widen(in);
      const __m256i y = sizeof(U) == 8   ? _mm256_add_epi64(running, x)
                        : sizeof(U) == 4 ? _mm256_add_epi32(running, x)
                                         : _mm256_add_epi16(running, x);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.value + j), y);
      auto* to = reinterpret_cast<__m256i*>(out);
      stream ? _mm256_stream_si256(to, y) : _mm256_storeu_si256(to, y);
    } else {
      const __m256 x = short_floats_avx2<T>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
      const __m256 y = _mm256_add_ps(_mm256_loadu_ps(r.value + j), x);
      _mm256_storeu_ps(r.value + j, y);
      stream ? _mm256_stream_ps(out, y) : _mm256_storeu_ps(out, y);
    }
  }
};

/// The inclusive prefix sums of U's lanes (Reverse: the suffix sums), in place; integer
/// lanes, so any grouping gives the sequential fold's values.
template <class U, bool Reverse>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512i integer_prefix(__m512i x) {
  const __m512i zero = _mm512_setzero_si512();
  if constexpr (sizeof(U) == 8) {
    if constexpr (Reverse) {
      x = _mm512_add_epi64(x, _mm512_alignr_epi64(zero, x, 1));
      x = _mm512_add_epi64(x, _mm512_alignr_epi64(zero, x, 2));
      return _mm512_add_epi64(x, _mm512_alignr_epi64(zero, x, 4));
    } else {
      x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, zero, 7));
      x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, zero, 6));
      return _mm512_add_epi64(x, _mm512_alignr_epi64(x, zero, 4));
    }
  } else {
    if constexpr (Reverse) {
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(zero, x, 1));
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(zero, x, 2));
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(zero, x, 4));
      return _mm512_add_epi32(x, _mm512_alignr_epi32(zero, x, 8));
    } else {
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 15));
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 14));
      x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 12));
      return _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 8));
    }
  }
}

/// cumsum<T, U> of one contiguous line into 32- or 64-bit integers (AVX-512): 64 bytes of
/// U a step, the widened elements' in-register prefix plus the running value; streamed
/// from the output's first 64-byte boundary when `stream`. +1 steps from `in` / `out`
/// (-1 steps when Reverse).
template <class T, class U, bool Reverse>
TALLY_TARGET_AVX512 void widening_sum_line_avx512(const T* in, U* out, std::size_t n, bool stream) {
  using lanes = widening_lanes_avx512<T, U>;
  constexpr std::size_t W = lanes::width;
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  const arithmetic_op<sum_op, T, U, false> op;
  running_t<U> running = 0;
  const auto one_element = [&](std::size_t k) {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k);
    running = k == 0 ? op.first(in[at], 0) : op.combine(running, in[at], 0);
    out[at] = op.value(running);
  };
  // Streamed: the elements before the first vector whose output starts a 64-byte line.
  std::size_t k = 0;
  if (stream) {
    const std::size_t head = Reverse ? elements_to_boundary<64>(out + 1) : elements_to_boundary<64>(out);
    for (const std::size_t before = (std::min)(n, Reverse ? (W - head) % W : head); k < before; ++k) one_element(k);
  }
  __m512i carry = sizeof(U) == 8 ? _mm512_set1_epi64(static_cast<std::int64_t>(running))
                                 : _mm512_set1_epi32(static_cast<std::int32_t>(running));
  for (; k + W <= n; k += W) {
    const std::ptrdiff_t at = Reverse ? -static_cast<std::ptrdiff_t>(k + W - 1) : static_cast<std::ptrdiff_t>(k);
    __m512i y = integer_prefix<U, Reverse>(lanes::widen(in + at));
    y = sizeof(U) == 8 ? _mm512_add_epi64(y, carry) : _mm512_add_epi32(y, carry);
    // The line's running value: the last lane in scan order, in every lane.
    carry = sizeof(U) == 8 ? _mm512_permutexvar_epi64(_mm512_set1_epi64(Reverse ? 0 : 7), y)
                           : _mm512_permutexvar_epi32(_mm512_set1_epi32(Reverse ? 0 : 15), y);
    auto* to = reinterpret_cast<__m512i*>(out + at);
    stream ? _mm512_stream_si512(to, y) : _mm512_storeu_si512(to, y);
  }
  if (k > 0) running = static_cast<running_t<U>>(sizeof(U) == 8 ? _mm_cvtsi128_si64(_mm512_castsi512_si128(carry))
                                                                 : _mm_cvtsi128_si32(_mm512_castsi512_si128(carry)));
  for (; k < n; ++k) one_element(k);
}

/// The 8 x 8 block of floats in r, transposed in registers: lane b of r[a] becomes lane a
/// of r[b].
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void transpose8x8(__m256 (&r)[8]) {
  __m256 t[8];
  TALLY_UNROLL
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  TALLY_UNROLL
  for (int i = 0; i < 2; ++i) {
    r[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    r[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  TALLY_UNROLL
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x20);
    t[4 + i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x31);
  }
  TALLY_UNROLL
  for (int i = 0; i < 8; ++i) r[i] = t[i];
}

/// Blocks for widening_sum_lines, AVX2 (F16C): 16 elements of 8 lines of half or
/// bfloat16, as two 8 x 8 halves, so that each line's 64 bytes are stored together (a
/// 32-byte non-temporal store per line and half left 8 cache lines half written: half ->
/// float [512K, 32] took 6.8x memcpy). The same under AVX-512 (below), where 16 x 16
/// blocks of 512-bit vectors measured slower: 4096 x 4096, 0.9x memcpy against 0.55x.
template <class T>
struct short_float_blocks_avx2 {
  static constexpr std::size_t lines = 8, elements = 16;
  /// The lines' running values; -0.0 to start: the identity that keeps a first element's
  /// bits (+0.0 + -0.0 is +0.0).
  alignas(32) float running[lines];
  short_float_blocks_avx2() noexcept {
    for (float& s : running) s = -0.0f;
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256 widen(__m128i bits) { return short_floats_avx2<T>(bits); }
  /// r[j]: elements 0 .. 7 of line j, of which lo .. hi - 1 are the line's. Adds those into
  /// `sums` in scan order and leaves in r[j] line j's running values after them.
  template <bool Reverse, bool Whole>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void add_rows(__m256 (&r)[lines], __m256& sums, unsigned lo = 0,
                                                             unsigned hi = lines) {
    transpose8x8(r);  // r[i]: element i of every line
    TALLY_UNROLL
    for (unsigned i = 0; i < lines; ++i) {
      const unsigned row = Reverse ? lines - 1 - i : i;
      if (Whole || (row >= lo && row < hi)) r[row] = sums = _mm256_add_ps(sums, r[row]);
    }
    transpose8x8(r);
  }
  /// The elements at + 0 .. at + 15 of the 8 lines (at + lo .. at + hi - 1 where not
  /// Whole: the others are not the lines'), added into the running values in scan order.
  /// A partial block goes one element at a time, each line from its running value (AVX2
  /// has no 16-bit masked loads, and its masked stores are slow: float [4M, 4] took 8.9x
  /// memcpy with them).
  template <bool Reverse, bool Whole>
  TALLY_TARGET_AVX2 void block(const T* const* in, float* const* out, std::ptrdiff_t at, unsigned lo, unsigned hi,
                               bool stream) {
    if constexpr (!Whole) {
      const arithmetic_op<sum_op, T, float, false> op;
      for (std::size_t j = 0; j < lines; ++j) {
        float s = running[j];
        for (unsigned i = 0; i < hi - lo; ++i) {
          const std::ptrdiff_t e = at + (Reverse ? hi - 1 - i : lo + i);
          s = op.combine(s, in[j][e], 0);
          out[j][e] = op.value(s);
        }
        running[j] = s;
      }
    } else {
      __m256 sums = _mm256_load_ps(running);
      __m256 r[2][lines];  // elements 0 .. 7 and 8 .. 15 of the block
      for (unsigned i = 0; i < 2; ++i) {
        const unsigned part = Reverse ? 1 - i : i;
        TALLY_UNROLL
        for (std::size_t j = 0; j < lines; ++j)
          r[part][j] = widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in[j] + at + 8 * part)));
        add_rows<Reverse, true>(r[part], sums);
      }
      TALLY_UNROLL
      for (std::size_t j = 0; j < lines; ++j) {
        for (unsigned part = 0; part < 2; ++part)
          stream ? _mm256_stream_ps(out[j] + at + 8 * part, r[part][j])
                 : _mm256_storeu_ps(out[j] + at + 8 * part, r[part][j]);
      }
      _mm256_store_ps(running, sums);
    }
  }
};

/// The AVX2 blocks, whose partial blocks AVX-512 masks (the 16-bit masked loads of
/// AVX-512 BW / VL): float [4M, 4] 4.5x -> 2.6x memcpy, [2M, 8] 3.9x -> 1.4x.
template <class T>
struct short_float_blocks_avx512 : short_float_blocks_avx2<T> {
  using base = short_float_blocks_avx2<T>;
  using base::lines;
  using base::running;
  template <bool Reverse, bool Whole>
  TALLY_TARGET_AVX512 void block(const T* const* in, float* const* out, std::ptrdiff_t at, unsigned lo, unsigned hi,
                                 bool stream) {
    if constexpr (Whole) {
      base::template block<Reverse, true>(in, out, at, lo, hi, stream);
    } else {
      __m256 sums = _mm256_load_ps(running);
      for (unsigned i = 0; i < 2; ++i) {
        const unsigned part = Reverse ? 1 - i : i, first = 8 * part;
        if (hi <= first || lo >= first + 8) continue;
        // This half's share of lo .. hi - 1 (masked: no fault, nor a read, past the line).
        const unsigned from = (std::max)(lo, first) - first, to = (std::min)(hi, first + 8) - first;
        const auto mask = static_cast<__mmask8>(((1u << to) - 1) & ~((1u << from) - 1));
        __m256 r[lines];
        TALLY_UNROLL
        for (std::size_t j = 0; j < lines; ++j) r[j] = base::widen(_mm_maskz_loadu_epi16(mask, in[j] + at + first));
        base::template add_rows<Reverse, false>(r, sums, from, to);
        TALLY_UNROLL
        for (std::size_t j = 0; j < lines; ++j) _mm256_mask_storeu_ps(out[j] + at + first, mask, r[j]);
      }
      _mm256_store_ps(running, sums);
    }
  }
};

/// cumsum<T, float> of `count` (1 to Blocks::lines) lines of n half or bfloat16 elements
/// at once, each line's sequential fold in float, as the scalar loop adds: blocks of
/// Blocks::elements elements of every line are converted, transposed so that a vector
/// holds one element of each line, added row after row into the lines' running values
/// (one vector), and transposed back. (One line's adds depend on each other, 3 cycles
/// apiece: one line at a time, half -> float along a 4096 x 4096 matrix took 3.8x a
/// memcpy of the output.) Line j runs from in[j] / out[j] in +1 steps (-1 when Reverse).
/// The blocks start `skew` elements below each line's lowest output address (its 64-byte
/// boundary, where all the lines have it at the same place), and the whole ones are
/// streamed when `stream`; the first and last may be partial. Fewer than a quarter of
/// Blocks::lines lines take the scalar loop: a block costs that many lines' work.
template <class Blocks, class T, bool Reverse>
inline void widening_sum_lines(const T* const* in, float* const* out, std::size_t count, std::size_t n,
                               std::size_t skew, bool stream) {
  constexpr std::size_t lines = Blocks::lines, elements = Blocks::elements;
  if (count < lines / 4) {
    const arithmetic_op<sum_op, T, float, false> op;
    for (std::size_t j = 0; j < count; ++j) {
      float s = 0.0f;
      for (std::size_t k = 0; k < n; ++k) {
        const std::ptrdiff_t at = Reverse ? -static_cast<std::ptrdiff_t>(k) : static_cast<std::ptrdiff_t>(k);
        s = k == 0 ? op.first(in[j][at], 0) : op.combine(s, in[j][at], 0);
        out[j][at] = op.value(s);
      }
    }
    return;
  }
  // Lines past `count` repeat the last one (their loads and stores, of the same values).
  const T* from[lines];
  float* to[lines];
  for (std::size_t j = 0; j < lines; ++j) {
    from[j] = in[(std::min)(j, count - 1)];
    to[j] = out[(std::min)(j, count - 1)];
  }
  // The lines' elements: offsets low .. high - 1 from in[j] / out[j].
  const auto w = static_cast<std::ptrdiff_t>(elements);
  const std::ptrdiff_t low = Reverse ? 1 - static_cast<std::ptrdiff_t>(n) : 0;
  const std::ptrdiff_t high = low + static_cast<std::ptrdiff_t>(n), first = low - static_cast<std::ptrdiff_t>(skew);
  const std::ptrdiff_t blocks = (high - first + w - 1) / w;
  Blocks running;
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    const std::ptrdiff_t at = first + w * (Reverse ? blocks - 1 - b : b);
    const auto lo = static_cast<unsigned>((std::max)(low - at, std::ptrdiff_t{0}));
    const auto hi = static_cast<unsigned>((std::min)(high - at, w));
    lo == 0 && hi == elements ? running.template block<Reverse, true>(from, to, at, 0, elements, stream)
                              : running.template block<Reverse, false>(from, to, at, lo, hi, false);
  }
}

template <class T, bool Reverse>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void widening_sum_lines_avx512(const T* const* in, float* const* out,
                                                                        std::size_t lines, std::size_t n,
                                                                        std::size_t skew, bool stream) {
  widening_sum_lines<short_float_blocks_avx512<T>, T, Reverse>(in, out, lines, n, skew, stream);
}
template <class T, bool Reverse>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void widening_sum_lines_avx2(const T* const* in, float* const* out,
                                                                    std::size_t lines, std::size_t n,
                                                                    std::size_t skew, bool stream) {
  widening_sum_lines<short_float_blocks_avx2<T>, T, Reverse>(in, out, lines, n, skew, stream);
}

TALLY_SIMD_WARNINGS_END

/// cumsum<T, U> across neighbouring lines, without reset flags.
template <class T, class U>
struct vector_rows<arithmetic_op<sum_op, T, U, false>, std::enable_if_t<widening_vector_pair_v<T, U>>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = widening_tile_capacity;
  static bool scan(const row_tile<T, U>& t) noexcept {
    return !t.resets && !t.index && t.count <= max_lines &&
           scan_lane_rows<widening_lanes_avx2<T, U>, widening_lanes_avx512<T, U>>(t);
  }
};

/// cumsum<T, U> along a contiguous line into 32- or 64-bit integers, without reset flags
/// (AVX-512; elsewhere the generic loop).
template <class T, class U>
struct vector_line<arithmetic_op<sum_op, T, U, false>,
                   std::enable_if_t<widening_vector_pair_v<T, U> && std::is_integral_v<U> && sizeof(U) >= 4>> {
  static constexpr bool exists = true;
  static bool scan(const line_span<T, U>& l) noexcept {
    if (l.resets || active_target() != simd_variant::avx512) return false;
    l.reverse ? widening_sum_line_avx512<T, U, true>(l.in, l.out, l.n, l.stream)
              : widening_sum_line_avx512<T, U, false>(l.in, l.out, l.n, l.stream);
    return true;
  }
};

/// cumsum<half / bfloat16, float> along contiguous lines, without reset flags: 8 lines at
/// once (AVX2, AVX-512); one line alone, and without AVX2, the generic loop.
template <class T>
struct vector_line<arithmetic_op<sum_op, T, float, false>, std::enable_if_t<is_short_float_v<T>>> {
  static constexpr bool exists = true;
  /// Lines long enough to stream come here too (streaming where `first.stream` says).
  static constexpr bool streams_lines = true;
  static bool scan(const line_span<T, float>&) noexcept { return false; }
  /// From 4 elements with AVX-512, 16 with AVX2 (whose shorter lines are all partial
  /// blocks, one element at a time). half -> float, 16M elements as [16M / L, L], x memcpy
  /// of the output, here / in the engine's tiles, AVX-512: L = 2 5.3 / 3.3, 3 3.6 / 3.3,
  /// 4 2.6 / 3.2, 8 1.4 / 3.2, 12 0.94 / 3.2; AVX2: L = 4 4.5 / 3.2, 8 3.8 / 3.2.
  static std::size_t shortest_line(bool) noexcept {
    switch (active_target()) {
      case simd_variant::avx512: return 4;
      case simd_variant::avx2: return short_float_blocks_avx2<T>::elements;
      default: return 0;
    }
  }
  static bool scan_lines(const line_span<T, float>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    if (first.resets || first.index) return false;
    switch (active_target()) {
      case simd_variant::avx512:
        in_groups<short_float_blocks_avx512<T>>(
            first, count, in_step, out_step,
            first.reverse ? &widening_sum_lines_avx512<T, true> : &widening_sum_lines_avx512<T, false>);
        return true;
      case simd_variant::avx2:
        in_groups<short_float_blocks_avx2<T>>(
            first, count, in_step, out_step,
            first.reverse ? &widening_sum_lines_avx2<T, true> : &widening_sum_lines_avx2<T, false>);
        return true;
      default: return false;
    }
  }

 private:
  /// The lines in groups of Blocks::lines, each group in one call of `lines`.
  template <class Blocks, class Lines>
  static void in_groups(const line_span<T, float>& first, std::size_t count, std::ptrdiff_t in_step,
                        std::ptrdiff_t out_step, Lines lines) noexcept {
    constexpr std::size_t group_lines = Blocks::lines, elements = Blocks::elements;
    // Blocks from each output line's 64-byte boundary below it, and streamed, where all
    // the lines have it at the same place (their outputs a multiple of 64 bytes apart) and
    // are long enough for the one more block this may take (half -> float [256K, 64]:
    // 0.9x memcpy from the lines' first elements, 1.25x aligned).
    const bool aligned = (out_step * static_cast<std::ptrdiff_t>(sizeof(float))) % 64 == 0 && first.n >= 8 * elements;
    const float* const lowest = first.reverse ? first.out + 1 - first.n : first.out;
    const std::size_t skew = aligned ? (elements - elements_to_boundary<64>(lowest)) % elements : 0;
    for (std::size_t j0 = 0; j0 < count; j0 += group_lines) {
      const T* in[group_lines];
      float* out[group_lines];
      const std::size_t group = (std::min)(group_lines, count - j0);
      for (std::size_t j = 0; j < group; ++j) {
        in[j] = first.in + static_cast<std::ptrdiff_t>(j0 + j) * in_step;
        out[j] = first.out + static_cast<std::ptrdiff_t>(j0 + j) * out_step;
      }
      lines(in, out, group, first.n, skew, aligned && first.stream);
    }
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
