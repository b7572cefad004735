// Segmented and NaN-skipping cumsum / cumprod of float and double across a tile of
// neighbouring lines, row by row (lane_rows.hpp), in AVX-512 or AVX2 registers: one line
// per lane, each lane the scalar loop's sequential fold (same bits):
//   segmented:     running = flag ? x : running (op) x
//   NaN-skipping:  running = running (op) (x is NaN ? empty : x)   (empty: +0 or 1)
#pragma once

#include <algorithm>
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

TALLY_SIMD_WARNINGS_BEGIN

/// The most lines a tile holds here: 32 KiB of double running values.
inline constexpr std::size_t arithmetic_tile_capacity = 4096;

/// What a lane does with its element besides combining it.
enum class row_rule { restart_at_flags, skip_nan };

/// A tile's running values, in the element type (float or double).
template <class Base, row_rule Rule, class T>
struct arithmetic_running : lane_values<T, arithmetic_tile_capacity> {
  using lane_values<T, arithmetic_tile_capacity>::lane_values;
  using lane_values<T, arithmetic_tile_capacity>::value;
  static T clean(T x) { return Rule == row_rule::skip_nan && x != x ? Base::template empty<T>() : x; }
  T start(std::size_t j, T x) { return value[j] = clean(x); }
  T combine(std::size_t j, T x, const std::uint8_t* flags) {
    if constexpr (Rule == row_rule::skip_nan)
      return value[j] = Base::combine(value[j], clean(x));
    else
      return value[j] = flags[j] ? x : Base::combine(value[j], x);
  }
};

/// 32 bytes of lines a step (8 floats or 4 doubles, AVX2).
template <class Base, row_rule Rule, class T>
struct arithmetic_lanes_avx2 {
  using in_type = T;
  using out_type = T;
  using running_values = arithmetic_running<Base, Rule, T>;
  static constexpr std::size_t width = 32 / sizeof(T), align = 32;
  static constexpr bool sum = std::is_same_v<Base, sum_op>;

  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, T* out,
                                     const std::uint8_t* flags, bool stream) {
    if constexpr (std::is_same_v<T, float>) {
      __m256 x = _mm256_loadu_ps(in), y;
      const __m256 running = _mm256_loadu_ps(r.value + j);
      if constexpr (Rule == row_rule::skip_nan) {
        x = _mm256_blendv_ps(x, _mm256_set1_ps(Base::template empty<float>()), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        y = sum ? _mm256_add_ps(running, x) : _mm256_mul_ps(running, x);
      } else {
        std::int64_t bytes;
        std::memcpy(&bytes, flags + j, sizeof bytes);
        const __m256i wide = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes));
        const __m256 continues = _mm256_castsi256_ps(_mm256_cmpeq_epi32(wide, _mm256_setzero_si256()));
        y = _mm256_blendv_ps(x, sum ? _mm256_add_ps(running, x) : _mm256_mul_ps(running, x), continues);
      }
      _mm256_storeu_ps(r.value + j, y);
      stream ? _mm256_stream_ps(out, y) : _mm256_storeu_ps(out, y);
    } else {
      __m256d x = _mm256_loadu_pd(in), y;
      const __m256d running = _mm256_loadu_pd(r.value + j);
      if constexpr (Rule == row_rule::skip_nan) {
        x = _mm256_blendv_pd(x, _mm256_set1_pd(Base::template empty<double>()), _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
        y = sum ? _mm256_add_pd(running, x) : _mm256_mul_pd(running, x);
      } else {
        std::int32_t bytes;
        std::memcpy(&bytes, flags + j, sizeof bytes);
        const __m256i wide = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
        const __m256d continues = _mm256_castsi256_pd(_mm256_cmpeq_epi64(wide, _mm256_setzero_si256()));
        y = _mm256_blendv_pd(x, sum ? _mm256_add_pd(running, x) : _mm256_mul_pd(running, x), continues);
      }
      _mm256_storeu_pd(r.value + j, y);
      stream ? _mm256_stream_pd(out, y) : _mm256_storeu_pd(out, y);
    }
  }
};

/// 64 bytes of lines a step (16 floats or 8 doubles, AVX-512): the lanes to restart, or
/// to take as empty, are a mask.
template <class Base, row_rule Rule, class T>
struct arithmetic_lanes_avx512 {
  using in_type = T;
  using out_type = T;
  using running_values = arithmetic_running<Base, Rule, T>;
  static constexpr std::size_t width = 64 / sizeof(T), align = 64;
  static constexpr bool sum = std::is_same_v<Base, sum_op>;

  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, T* out,
                                       const std::uint8_t* flags, bool stream) {
    if constexpr (std::is_same_v<T, float>) {
      const __m512 x = _mm512_loadu_ps(in), running = _mm512_loadu_ps(r.value + j);
      __m512 y;
      if constexpr (Rule == row_rule::skip_nan) {
        const __m512 clean = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q),
                                                _mm512_set1_ps(Base::template empty<float>()));
        y = sum ? _mm512_add_ps(running, clean) : _mm512_mul_ps(running, clean);
      } else {
        const __m128i f = _mm_loadu_si128(reinterpret_cast<const __m128i*>(flags + j));
        y = _mm512_mask_mov_ps(sum ? _mm512_add_ps(running, x) : _mm512_mul_ps(running, x), _mm_test_epi8_mask(f, f), x);
      }
      _mm512_storeu_ps(r.value + j, y);
      stream ? _mm512_stream_ps(out, y) : _mm512_storeu_ps(out, y);
    } else {
      const __m512d x = _mm512_loadu_pd(in), running = _mm512_loadu_pd(r.value + j);
      __m512d y;
      if constexpr (Rule == row_rule::skip_nan) {
        const __m512d clean = _mm512_mask_mov_pd(x, _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q),
                                                 _mm512_set1_pd(Base::template empty<double>()));
        y = sum ? _mm512_add_pd(running, clean) : _mm512_mul_pd(running, clean);
      } else {
        const __m128i f = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags + j));
        const auto restart = static_cast<__mmask8>(_mm_test_epi8_mask(f, f));
        y = _mm512_mask_mov_pd(sum ? _mm512_add_pd(running, x) : _mm512_mul_pd(running, x), restart, x);
      }
      _mm512_storeu_pd(r.value + j, y);
      stream ? _mm512_stream_pd(out, y) : _mm512_storeu_pd(out, y);
    }
  }
};

TALLY_SIMD_WARNINGS_END

/// Runs a tile of this operator when the lanes above take it (the CPU has AVX2, the tile
/// fits, flags exactly when segmented); false: not done.
template <class Base, row_rule Rule, class T>
bool scan_arithmetic_rows(const row_tile<T, T>& t) noexcept {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float and double lanes only");
  return t.count <= arithmetic_tile_capacity && !t.index &&
         (t.resets != nullptr) == (Rule == row_rule::restart_at_flags) &&
         scan_lane_rows<arithmetic_lanes_avx2<Base, Rule, T>, arithmetic_lanes_avx512<Base, Rule, T>>(t);
}

/// Segmented sums and products (without flags these operators never reach the vocabulary
/// engine: same-type sums and products run on the SIMD engine).
template <class Base, class T>
struct vector_rows<arithmetic_op<Base, T, T, false>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static constexpr std::size_t max_lines = arithmetic_tile_capacity;
  static bool scan(const row_tile<T, T>& t) noexcept {
    if constexpr (exists) return scan_arithmetic_rows<Base, row_rule::restart_at_flags>(t);
    (void)t;
    return false;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
