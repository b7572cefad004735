// Segmented cumsum of float and double along a contiguous line, in AVX2 registers (also
// used under AVX-512): an in-register segmented prefix (Hillis-Steele steps in which a
// lane whose segment starts within reach takes nothing from below, the start flags OR-ed
// along), then the running value added to the lanes before the vector's first segment
// start. Like tally's cumsum the sums are regrouped, within the same rounding bound (a
// lane that takes nothing adds -0.0, which changes no value), so the results are the
// sequential fold's for exactly representable sums and within its bound otherwise.
// Products keep the sequential loop: a regrouped sub-product can overflow or underflow
// where the running product does not (kernels/ops.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../ops/arithmetic.hpp"
#include "vector_lines.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// Eight float lanes: values, and masks of "a segment starts here".
struct segment_floats {
  using reg = __m256;
  static constexpr std::size_t width = 8;
  TALLY_TARGET_AVX2 static reg load(const float* p) { return _mm256_loadu_ps(p); }
  TALLY_TARGET_AVX2 static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  TALLY_TARGET_AVX2 static reg starts(const std::uint8_t* flags) {
    std::int64_t bytes;
    std::memcpy(&bytes, flags, sizeof bytes);
    const __m256i wide = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes));
    return _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(wide, _mm256_setzero_si256()), _mm256_set1_epi32(-1)));
  }
  TALLY_TARGET_AVX2 static reg reverse(reg v) {
    return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  TALLY_TARGET_AVX2 static reg broadcast(float v) { return _mm256_set1_ps(v); }
  TALLY_TARGET_AVX2 static reg last(reg v) { return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(7)); }
  TALLY_TARGET_AVX2 static float first(reg v) { return _mm256_cvtss_f32(v); }
  TALLY_TARGET_AVX2 static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  /// a where `mask` is clear, b where it is set.
  TALLY_TARGET_AVX2 static reg select(reg a, reg b, reg mask) { return _mm256_blendv_ps(a, b, mask); }
  TALLY_TARGET_AVX2 static reg either(reg a, reg b) { return _mm256_or_ps(a, b); }
  /// Lanes moved up by `Shift` (1, 2, 4), `fill` shifted in.
  template <int Shift>
  TALLY_TARGET_AVX2 static reg shifted(reg v, reg fill) {
    const __m256i index = Shift == 1   ? _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)
                          : Shift == 2 ? _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)
                                       : _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
    return _mm256_blend_ps(_mm256_permutevar8x32_ps(v, index), fill, (1 << Shift) - 1);
  }
};

/// Four double lanes.
struct segment_doubles {
  using reg = __m256d;
  static constexpr std::size_t width = 4;
  TALLY_TARGET_AVX2 static reg load(const double* p) { return _mm256_loadu_pd(p); }
  TALLY_TARGET_AVX2 static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  TALLY_TARGET_AVX2 static reg starts(const std::uint8_t* flags) {
    std::int32_t bytes;
    std::memcpy(&bytes, flags, sizeof bytes);
    const __m256i wide = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
    return _mm256_castsi256_pd(_mm256_xor_si256(_mm256_cmpeq_epi64(wide, _mm256_setzero_si256()), _mm256_set1_epi64x(-1)));
  }
  TALLY_TARGET_AVX2 static reg reverse(reg v) { return _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3)); }
  TALLY_TARGET_AVX2 static reg broadcast(double v) { return _mm256_set1_pd(v); }
  TALLY_TARGET_AVX2 static reg last(reg v) { return _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3)); }
  TALLY_TARGET_AVX2 static double first(reg v) { return _mm256_cvtsd_f64(v); }
  TALLY_TARGET_AVX2 static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  TALLY_TARGET_AVX2 static reg select(reg a, reg b, reg mask) { return _mm256_blendv_pd(a, b, mask); }
  TALLY_TARGET_AVX2 static reg either(reg a, reg b) { return _mm256_or_pd(a, b); }
  /// Lanes moved up by `Shift` (1, 2), `fill` shifted in.
  template <int Shift>
  TALLY_TARGET_AVX2 static reg shifted(reg v, reg fill) {
    return Shift == 1 ? _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), fill, 0x1)
                      : _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(1, 0, 0, 0)), fill, 0x3);
  }
};

/// One Hillis-Steele step: a lane whose segment has not started within the lanes it
/// covers so far takes the sum `Shift` lanes down; the start masks spread up as well.
template <class L, int Shift>
TALLY_TARGET_AVX2 inline void segmented_step(typename L::reg& x, typename L::reg& start) {
  const typename L::reg minus_zero = L::broadcast(-0.0), no_start = L::broadcast(0.0);
  x = L::add(x, L::select(L::template shifted<Shift>(x, minus_zero), minus_zero, start));
  start = L::either(start, L::template shifted<Shift>(start, no_start));
}

/// A whole line of n elements (n >= 1), +1 steps in input, output and flags (-1 steps
/// when Reverse), in place allowed. Plain stores: peeling to the output's alignment for
/// non-temporal ones would move the vectors' grouping, and with it the rounding, with the
/// output's address.
template <class L, class T, bool Reverse>
TALLY_TARGET_AVX2 void segmented_sum_line_avx2(const T* in, T* out, const std::uint8_t* resets, std::size_t n) {
  using reg = typename L::reg;
  constexpr std::size_t W = L::width;
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  T running = in[0];  // the line starts from its first element (a flag there changes nothing)
  out[0] = running;
  std::size_t k = 1;
  const auto scalar_step = [&] {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k++);
    running = resets[at] ? in[at] : static_cast<T>(running + in[at]);
    out[at] = running;
  };
  reg run = L::broadcast(running);
  for (; k + W <= n; k += W) {
    // The vector's lowest address: a reversed line runs downwards.
    const std::ptrdiff_t low = Reverse ? -static_cast<std::ptrdiff_t>(k + W - 1) : static_cast<std::ptrdiff_t>(k);
    reg x = L::load(in + low), start = L::starts(resets + low);
    if (Reverse) x = L::reverse(x), start = L::reverse(start);
    segmented_step<L, 1>(x, start);
    segmented_step<L, 2>(x, start);
    if constexpr (W == 8) segmented_step<L, 4>(x, start);
    x = L::add(x, L::select(run, L::broadcast(-0.0), start));  // the lanes before the first start continue the line
    run = L::last(x);
    L::store(out + low, Reverse ? L::reverse(x) : x);
  }
  running = L::first(run);
  while (k < n) scalar_step();
}

TALLY_SIMD_WARNINGS_END

/// Segmented sums of float and double along contiguous lines, when the CPU has AVX2.
template <class T>
struct vector_line<arithmetic_op<sum_op, T, T, false>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static bool scan(const line_span<T, T>& l) noexcept {
    if constexpr (exists) {
      using lanes = std::conditional_t<std::is_same_v<T, float>, segment_floats, segment_doubles>;
      if (active_target() == simd_variant::scalar || !l.resets) return false;
      l.reverse ? segmented_sum_line_avx2<lanes, T, true>(l.in, l.out, l.resets, l.n)
                : segmented_sum_line_avx2<lanes, T, false>(l.in, l.out, l.resets, l.n);
      return true;
    }
    (void)l;
    return false;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
