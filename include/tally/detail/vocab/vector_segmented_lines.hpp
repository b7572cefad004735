// Segmented cumsum of float and double along a contiguous line, in AVX2 or AVX-512
// registers: an in-register segmented prefix (Hillis-Steele steps in which a
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

/// AVX-512 lanes for the segmented line: sixteen floats or eight doubles, the segment
/// starts as the bits of a mask (an unsigned, the lowest bit the first lane in scan order).
template <class T, bool Reverse>
struct segment_lanes512;

template <bool Reverse>
struct segment_lanes512<float, Reverse> {
  using reg = __m512;
  static constexpr std::size_t width = 16;
  static constexpr unsigned all = 0xffff;
  TALLY_TARGET_AVX512 static __m512i reversed() {
    return _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  TALLY_TARGET_AVX512 static reg load(const float* p) {
    return Reverse ? _mm512_permutexvar_ps(reversed(), _mm512_loadu_ps(p)) : _mm512_loadu_ps(p);
  }
  TALLY_TARGET_AVX512 static void store(float* p, reg x, bool stream) {
    if (Reverse) x = _mm512_permutexvar_ps(reversed(), x);
    stream ? _mm512_stream_ps(p, x) : _mm512_storeu_ps(p, x);
  }
  TALLY_TARGET_AVX512 static unsigned starts(const std::uint8_t* p) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (Reverse) bytes = _mm_shuffle_epi8(bytes, _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    return _mm_test_epi8_mask(bytes, bytes);
  }
  /// x + (x moved up D lanes) in the lanes of `take`, x elsewhere.
  template <unsigned D>
  TALLY_TARGET_AVX512 static reg add_up(reg x, unsigned take) {
    const __m512i bits = _mm512_castps_si512(x);
    return _mm512_mask_add_ps(x, static_cast<__mmask16>(take), x, _mm512_castsi512_ps(_mm512_alignr_epi32(bits, bits, 16 - D)));
  }
  /// x + y in the lanes of `take`.
  TALLY_TARGET_AVX512 static reg add(reg x, reg y, unsigned take) { return _mm512_mask_add_ps(x, static_cast<__mmask16>(take), x, y); }
  TALLY_TARGET_AVX512 static reg last(reg x) { return _mm512_permutexvar_ps(_mm512_set1_epi32(15), x); }
  TALLY_TARGET_AVX512 static float first(reg x) { return _mm512_cvtss_f32(x); }
  TALLY_TARGET_AVX512 static reg zero() { return _mm512_setzero_ps(); }
};

template <bool Reverse>
struct segment_lanes512<double, Reverse> {
  using reg = __m512d;
  static constexpr std::size_t width = 8;
  static constexpr unsigned all = 0xff;
  TALLY_TARGET_AVX512 static __m512i reversed() { return _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0); }
  TALLY_TARGET_AVX512 static reg load(const double* p) {
    return Reverse ? _mm512_permutexvar_pd(reversed(), _mm512_loadu_pd(p)) : _mm512_loadu_pd(p);
  }
  TALLY_TARGET_AVX512 static void store(double* p, reg x, bool stream) {
    if (Reverse) x = _mm512_permutexvar_pd(reversed(), x);
    stream ? _mm512_stream_pd(p, x) : _mm512_storeu_pd(p, x);
  }
  TALLY_TARGET_AVX512 static unsigned starts(const std::uint8_t* p) {
    __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    if (Reverse) bytes = _mm_shuffle_epi8(bytes, _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm_test_epi8_mask(bytes, bytes) & all;
  }
  template <unsigned D>
  TALLY_TARGET_AVX512 static reg add_up(reg x, unsigned take) {
    const __m512i bits = _mm512_castpd_si512(x);
    return _mm512_mask_add_pd(x, static_cast<__mmask8>(take), x, _mm512_castsi512_pd(_mm512_alignr_epi64(bits, bits, 8 - D)));
  }
  TALLY_TARGET_AVX512 static reg add(reg x, reg y, unsigned take) { return _mm512_mask_add_pd(x, static_cast<__mmask8>(take), x, y); }
  TALLY_TARGET_AVX512 static reg last(reg x) { return _mm512_permutexvar_pd(_mm512_set1_epi64(7), x); }
  TALLY_TARGET_AVX512 static double first(reg x) { return _mm512_cvtsd_f64(x); }
  TALLY_TARGET_AVX512 static reg zero() { return _mm512_setzero_pd(); }
};

/// One step of the AVX-512 form: the lanes whose segment has not started within reach,
/// above the lowest D, add the lane D below; the starts spread up D lanes.
template <class L, unsigned D>
TALLY_TARGET_AVX512 inline void segmented_step512(typename L::reg& x, unsigned& start) {
  x = L::template add_up<D>(x, ~start & L::all & ~((1u << D) - 1));
  start |= (start << D) & L::all;
}

/// The AVX-512 form of segmented_sum_line_avx2: a step is one masked add and a shift of
/// the starts' bits. The vectors are grouped from the line's first element (which starts
/// a segment), so the results do not depend on the output's address; when the line's
/// vectors fall on 64-byte boundaries anyway (lines of whole cache lines in an aligned
/// buffer) and `stream` allows, their stores are non-temporal.
template <class T, bool Reverse>
TALLY_TARGET_AVX512 void segmented_sum_line_avx512(const T* in, T* out, const std::uint8_t* resets, std::size_t n,
                                                   bool stream) {
  using L = segment_lanes512<T, Reverse>;
  constexpr std::size_t W = L::width;
  constexpr std::ptrdiff_t step = Reverse ? -1 : 1;
  const auto low_of = [](std::size_t k) {  // the vector's lowest address: a reversed line runs downwards
    return Reverse ? -static_cast<std::ptrdiff_t>(k + W - 1) : static_cast<std::ptrdiff_t>(k);
  };
  const bool streamed = stream && reinterpret_cast<std::uintptr_t>(out + low_of(0)) % 64 == 0;
  typename L::reg run = L::zero();
  std::size_t k = 0;
  for (; k + W <= n; k += W) {
    const std::ptrdiff_t low = low_of(k);
    typename L::reg x = L::load(in + low);
    unsigned start = L::starts(resets + low) | (k == 0 ? 1u : 0u);  // the line's first element starts a segment
    segmented_step512<L, 1>(x, start);
    segmented_step512<L, 2>(x, start);
    segmented_step512<L, 4>(x, start);
    if constexpr (W == 16) segmented_step512<L, 8>(x, start);
    x = L::add(x, run, ~start & L::all);  // the lanes before the vector's first start continue the line
    run = L::last(x);
    L::store(out + low, x, streamed);
  }
  T running = L::first(run);
  for (; k < n; ++k) {
    const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(k);
    running = k == 0 || resets[at] ? in[at] : static_cast<T>(running + in[at]);
    out[at] = running;
  }
}

TALLY_SIMD_WARNINGS_END

/// Segmented sums of float and double along contiguous lines, when the CPU has AVX2.
template <class T>
struct vector_line<arithmetic_op<sum_op, T, T, false>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static bool scan(const line_span<T, T>& l) noexcept {
    if constexpr (exists) {
      using lanes = std::conditional_t<std::is_same_v<T, float>, segment_floats, segment_doubles>;
      const simd_variant target = active_target();
      if (target == simd_variant::scalar || !l.resets) return false;
      if (target == simd_variant::avx512) {
        l.reverse ? segmented_sum_line_avx512<T, true>(l.in, l.out, l.resets, l.n, l.stream)
                  : segmented_sum_line_avx512<T, false>(l.in, l.out, l.resets, l.n, l.stream);
        return true;
      }
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
