// cumsum<T, U> into a wider type across a tile of neighbouring lines, row by row
// (lane_rows.hpp), in AVX-512 or AVX2 registers: integers into wider integers (int8 ->
// int64, uint16 -> int32, ...), half and bfloat16 into float. One line per lane, each
// element widened (sign- or zero-extended, or converted exactly as F16C converts) and
// added into its line's running value in U: the scalar loop's sequential fold, the same
// bits (integers wrap in U; float sums in the same order).
//
// Without it these ran the engine's generic row loop, which GCC at -O2 does not vectorize:
// 4096 x 4096 along axis 0, x memcpy of the output bytes: int8 -> int64 2.45, int16 ->
// int32 4.9, half -> float 5.5 (docs/benchmarks.md, 2026-11-29, evening).
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
  TALLY_TARGET_AVX512 static __m512i widen(const T* in) {
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

  TALLY_TARGET_AVX2 static __m256i widen(const T* in) {
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

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
