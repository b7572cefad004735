// Segmented and NaN-skipping cumsum / cumprod of float and double across a tile of
// neighbouring lines, row by row, in AVX2 registers (also used under AVX-512): one line
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
#include "prefetch.hpp"
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

/// One step of W lanes (W = 8 floats or 4 doubles): running and out get the new values.
template <class Base, row_rule Rule>
struct arithmetic_lanes {
  static constexpr bool sum = std::is_same_v<Base, sum_op>;

  TALLY_TARGET_AVX2 static void step(float* running, const float* in, float* out, const std::uint8_t* flags,
                                     bool stream) {
    __m256 x = _mm256_loadu_ps(in), y;
    const __m256 r = _mm256_loadu_ps(running);
    if constexpr (Rule == row_rule::skip_nan) {
      x = _mm256_blendv_ps(x, _mm256_set1_ps(Base::template empty<float>()), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
      y = sum ? _mm256_add_ps(r, x) : _mm256_mul_ps(r, x);
    } else {
      std::int64_t bytes;
      std::memcpy(&bytes, flags, sizeof bytes);
      const __m256i wide = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes));
      const __m256 continues = _mm256_castsi256_ps(_mm256_cmpeq_epi32(wide, _mm256_setzero_si256()));
      y = _mm256_blendv_ps(x, sum ? _mm256_add_ps(r, x) : _mm256_mul_ps(r, x), continues);
    }
    _mm256_storeu_ps(running, y);
    stream ? _mm256_stream_ps(out, y) : _mm256_storeu_ps(out, y);
  }
  TALLY_TARGET_AVX2 static void step(double* running, const double* in, double* out, const std::uint8_t* flags,
                                     bool stream) {
    __m256d x = _mm256_loadu_pd(in), y;
    const __m256d r = _mm256_loadu_pd(running);
    if constexpr (Rule == row_rule::skip_nan) {
      x = _mm256_blendv_pd(x, _mm256_set1_pd(Base::template empty<double>()), _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
      y = sum ? _mm256_add_pd(r, x) : _mm256_mul_pd(r, x);
    } else {
      std::int32_t bytes;
      std::memcpy(&bytes, flags, sizeof bytes);
      const __m256i wide = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
      const __m256d continues = _mm256_castsi256_pd(_mm256_cmpeq_epi64(wide, _mm256_setzero_si256()));
      y = _mm256_blendv_pd(x, sum ? _mm256_add_pd(r, x) : _mm256_mul_pd(r, x), continues);
    }
    _mm256_storeu_pd(running, y);
    stream ? _mm256_stream_pd(out, y) : _mm256_storeu_pd(out, y);
  }
};

/// A tile (row_tile, at most arithmetic_tile_capacity lines; flags only for
/// restart_at_flags). `stream`: non-temporal stores from each row's first 32-byte
/// boundary on (the elements before it, and a partial vector at the end, stored plainly).
template <class Base, row_rule Rule, class T>
TALLY_TARGET_AVX2 void arithmetic_rows_avx2(const row_tile<T, T>& t) {
  using lanes = arithmetic_lanes<Base, Rule>;
  constexpr std::size_t W = 32 / sizeof(T);
  const T empty = Base::template empty<T>();
  alignas(32) T running[arithmetic_tile_capacity];
  const T* in = t.in;
  T* out = t.out;
  const std::uint8_t* flags = t.resets;
  for (std::size_t j = 0; j < t.count; ++j)  // a line starts from its first element
    out[j] = running[j] = Rule == row_rule::skip_nan && in[j] != in[j] ? empty : in[j];
  const auto scalar = [&](std::size_t j) {
    const T x = in[j];
    if constexpr (Rule == row_rule::skip_nan)
      out[j] = running[j] = Base::combine(running[j], x != x ? empty : x);
    else
      out[j] = running[j] = flags[j] ? x : Base::combine(running[j], x);
  };
  for (std::size_t k = 1; k < t.rows; ++k) {
    in += t.in_row;
    out += t.out_row;
    prefetch_run(in, t.in_row, t.count);
    if constexpr (Rule == row_rule::restart_at_flags) {
      flags += t.resets_row;
      prefetch_run(flags, t.resets_row, t.count);
    }
    std::size_t j = 0;
    if (t.stream)
      for (const std::size_t head = elements_to_32_bytes(out, t.count);
           j < head; ++j)
        scalar(j);
    for (; j + W <= t.count; j += W) lanes::step(running + j, in + j, out + j, flags ? flags + j : nullptr, t.stream);
    for (; j < t.count; ++j) scalar(j);
  }
}

TALLY_SIMD_WARNINGS_END

/// Whether the AVX2 rows above take a tile of this operator (float and double, the CPU has
/// AVX2, the tile fits, flags exactly when segmented).
template <class T, row_rule Rule>
bool arithmetic_rows_apply(const row_tile<T, T>& t) noexcept {
  return (std::is_same_v<T, float> || std::is_same_v<T, double>) && active_target() != simd_variant::scalar &&
         t.count <= arithmetic_tile_capacity && !t.index && (t.resets != nullptr) == (Rule == row_rule::restart_at_flags);
}

/// Segmented sums and products (without flags these operators never reach the vocabulary
/// engine: same-type sums and products run on the SIMD engine).
template <class Base, class T>
struct vector_rows<arithmetic_op<Base, T, T, false>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static constexpr std::size_t max_lines = arithmetic_tile_capacity;
  static bool scan(const row_tile<T, T>& t) noexcept {
    if constexpr (exists) {
      if (!arithmetic_rows_apply<T, row_rule::restart_at_flags>(t)) return false;
      arithmetic_rows_avx2<Base, row_rule::restart_at_flags>(t);
      return true;
    }
    (void)t;
    return false;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
