// Vector forms of vocabulary operators for contiguous lines, found by a trait: an
// operator with a `vector_line<Op>` specialization may scan a line with +1 steps in input
// and output in registers; every other operator (and every target without the
// instructions) takes the engine's scalar loop. The vector forms give the scalar loop's
// bits exactly.
//
// cummax / cummin of float32 values (AVX2, also used under AVX-512): the operator
// "keep the first NaN, else the larger (max) or smaller (min), the later one on ties" is
// associative and always returns one of its operands, so an in-register prefix (three
// shift steps of 8 lanes) followed by the running value gives the sequential result.
// MAXPS / MINPS return their second operand for equal values (signed zeros included) and
// for a NaN in either operand; a blend restores the first operand where it is the NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "../config.hpp"
#include "../dispatch/active_target.hpp"
#include "../ops/extremum.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// No vector form: the engine's scalar loop.
template <class Op>
struct vector_line {
  static constexpr bool exists = false;
};

#if TALLY_X86_SIMD
TALLY_SIMD_WARNINGS_BEGIN

/// `earlier (op) later` for 8 lanes.
template <bool Max>
TALLY_TARGET_AVX2 inline __m256 keep_extremum(__m256 earlier, __m256 later) {
  const __m256 pick = Max ? _mm256_max_ps(earlier, later) : _mm256_min_ps(earlier, later);
  return _mm256_blendv_ps(pick, earlier, _mm256_cmp_ps(earlier, earlier, _CMP_UNORD_Q));
}

/// Lanes moved up by `Shift`, the identity (-inf for max, +inf for min) shifted in: it
/// never wins against a later lane (ties and NaN go to the later operand).
template <bool Max, int Shift>
TALLY_TARGET_AVX2 inline __m256 shifted(__m256 v) {
  const __m256i index = Shift == 1   ? _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)
                        : Shift == 2 ? _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)
                                     : _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
  const __m256 identity = _mm256_set1_ps(Max ? -std::numeric_limits<float>::infinity()
                                             : std::numeric_limits<float>::infinity());
  return _mm256_blend_ps(_mm256_permutevar8x32_ps(v, index), identity, (1 << Shift) - 1);
}

/// Scans n contiguous floats from `in` to `out` (in place allowed); returns the running
/// value after them.
template <bool Max>
TALLY_TARGET_AVX2 inline float extremum_line_avx2(const float* in, float* out, std::size_t n, float running) {
  const extremum_op<float, Max, false> op;
  __m256 run = _mm256_set1_ps(running);
  const __m256i last = _mm256_set1_epi32(7);
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m256 x = _mm256_loadu_ps(in + k);
    x = keep_extremum<Max>(shifted<Max, 1>(x), x);
    x = keep_extremum<Max>(shifted<Max, 2>(x), x);
    x = keep_extremum<Max>(shifted<Max, 4>(x), x);
    x = keep_extremum<Max>(run, x);
    _mm256_storeu_ps(out + k, x);
    run = _mm256_permutevar8x32_ps(x, last);
  }
  running = _mm256_cvtss_f32(run);
  for (; k < n; ++k) {
    running = op.combine(running, in[k], 0);
    out[k] = running;
  }
  return running;
}

TALLY_SIMD_WARNINGS_END

template <bool Max>
struct vector_line<extremum_op<float, Max, false>> {
  static constexpr bool exists = true;
  /// Scans a whole contiguous increasing line when the CPU has AVX2; false: not done.
  static bool scan(const float* in, float* out, std::size_t n) noexcept {
    if (active_target() == simd_variant::scalar || n == 0) return false;
    out[0] = in[0];  // the line starts from its first element
    extremum_line_avx2<Max>(in + 1, out + 1, n - 1, in[0]);
    return true;
  }
};
#endif

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
