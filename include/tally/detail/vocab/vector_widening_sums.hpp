// cumsum<T, U> into a wider type in vectors:
// - across a tile of neighbouring lines, row by row (lane_rows.hpp), AVX-512 or AVX2:
//   integers into wider integers (int8 -> int64, uint16 -> int32, ...), half and
//   bfloat16 into float. One line per lane, each element widened (sign- or
//   zero-extended, or converted exactly as F16C converts) and added into its line's
//   running value in U: the scalar loop's sequential fold, the same bits (integers wrap
//   in U; float sums in the same order);
// - along a contiguous line, AVX-512, integers into 32- and 64-bit integers: an
//   in-register prefix of the widened elements plus the running value (integer sums are
//   the same in any grouping). Float sums keep their sequential order: no line form.
//
// Without them these ran the engine's generic loops, which GCC at -O2 does not vectorize:
// 4096 x 4096, x memcpy of the output bytes, across rows: int8 -> int64 2.45, int16 ->
// int32 4.9, half -> float 5.5; along lines: int8 -> int32 1.15-1.44 (docs/vocabulary.md).
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

/// Whether cumsum<T, U> has these rows: T != U, both integers, or T half / bfloat16 and U
/// float.
template <class T, class U>
inline constexpr bool widening_rows_v =
    !std::is_same_v<T, U> && ((std::is_integral_v<T> && std::is_integral_v<U>) ||
                              (is_short_float_v<T> && std::is_same_v<U, float>));

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
      const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
      const __m256 x = std::is_same_v<T, half> ? _mm256_cvtph_ps(bits)
                                               : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
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

TALLY_SIMD_WARNINGS_END

/// cumsum<T, U> across neighbouring lines, without reset flags.
template <class T, class U>
struct vector_rows<arithmetic_op<sum_op, T, U, false>, std::enable_if_t<widening_rows_v<T, U>>> {
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
                   std::enable_if_t<widening_rows_v<T, U> && std::is_integral_v<U> && sizeof(U) >= 4>> {
  static constexpr bool exists = true;
  static bool scan(const line_span<T, U>& l) noexcept {
    if (l.resets || active_target() != simd_variant::avx512) return false;
    l.reverse ? widening_sum_line_avx512<T, U, true>(l.in, l.out, l.n, l.stream)
              : widening_sum_line_avx512<T, U, false>(l.in, l.out, l.n, l.stream);
    return true;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
