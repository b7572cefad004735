// exp and log of eight floats (AVX2 + FMA), for logcumsumexp's fast form (float elements,
// scan_accuracy::fast): twice the lanes of the double forms (vector_math_avx2.hpp) and
// shorter polynomials, at float's precision. They are written for how that form uses them,
// where float's precision costs least:
//
// - exp_difference(x, b) is e^(x - b) with x - b taken exactly (a float difference loses
//   up to 2^-24 |x - b|, which e^(x - b) would turn into a relative error of that much,
//   up to 4e-6 for the differences of 64 that logcumsumexp allows): the rounding error of
//   the difference is added back to the reduced argument;
// - plus_log(b, s) is b + log(s) for s >= 1, with log(s) = e ln2 + log(m) split so that
//   the exponent's part is added to b exactly (e * ln2_hi has no rounding) and the
//   polynomial only covers m in [sqrt(1/2), sqrt(2)), whose log is below 0.35: its error
//   is absolute, about 3e-8, whatever e and b are.
//
// Both polynomials are Cephes' expf / logf minimax ones (relative error about 1 ulp of
// float on those ranges).
#pragma once

#include "../config.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// e^(x - b), the difference taken exactly, for x - b <= 64 (NaN stays NaN); 0 where
/// x - b < -87 (e^-87 is below 2^-125: nothing next to a sum that holds a 1).
TALLY_TARGET_AVX2 inline __m256 exp_difference(__m256 x, __m256 b) {
  // d + err = x - b exactly (Knuth's two-sum).
  const __m256 d = _mm256_sub_ps(x, b);
  const __m256 b_virtual = _mm256_sub_ps(x, d);
  const __m256 err = _mm256_add_ps(_mm256_sub_ps(x, _mm256_add_ps(d, b_virtual)), _mm256_sub_ps(b_virtual, b));
  // d = k ln2 + r, |r| <= ln2 / 2: ln2 in two parts, the high one of 9 bits, so k * hi is
  // exact and so is d - k * hi (Sterbenz); err joins r.
  const __m256 magic = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23: rounds to an integer
  const __m256 t = _mm256_fmadd_ps(d, _mm256_set1_ps(1.44269504088896341f), magic);
  const __m256 k = _mm256_sub_ps(t, magic);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), d);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  r = _mm256_add_ps(r, err);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^k in the exponent field: t's low bits hold k, and k + 127 is in [1, 220].
  const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(127)), 23);
  const __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
  return _mm256_andnot_ps(_mm256_cmp_ps(d, _mm256_set1_ps(-87.0f), _CMP_LT_OQ), y);
}

/// b + log(s) for s >= 1 (s NaN gives NaN; b = +-inf gives b).
TALLY_TARGET_AVX2 inline __m256 plus_log(__m256 b, __m256 s) {
  // s = 2^e m with m in [sqrt(1/2), sqrt(2)): e from s's bits less sqrt(1/2)'s (s >= 1,
  // so they do not borrow into the sign), m = s with e taken off its exponent.
  const __m256i bits = _mm256_castps_si256(s);
  const __m256i e = _mm256_srli_epi32(_mm256_sub_epi32(bits, _mm256_set1_epi32(0x3F3504F3)), 23);
  const __m256 m = _mm256_castsi256_ps(_mm256_sub_epi32(bits, _mm256_slli_epi32(e, 23)));
  const __m256 ef = _mm256_cvtepi32_ps(e);
  // f = m - 1 (exact) and s - s (0, or NaN where s is NaN, whose bits made m a number).
  const __m256 f = _mm256_add_ps(_mm256_sub_ps(m, _mm256_set1_ps(1.0f)), _mm256_sub_ps(s, s));
  const __m256 z = _mm256_mul_ps(f, f);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(7.0376836292e-2f), f, _mm256_set1_ps(-1.1514610310e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.1676998740e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-1.2420140846e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.4249322787e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-1.6668057665e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.0000714765e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-2.4999993993e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(3.3333331174e-1f));
  // log(m) = f - z/2 + f z p; then ln2's low part times e, and last b + e ln2_hi (exact
  // product), so that the one rounding with b's magnitude comes last.
  __m256 log_m = _mm256_fmadd_ps(_mm256_mul_ps(f, z), p, _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), z, f));
  log_m = _mm256_fmadd_ps(ef, _mm256_set1_ps(-2.12194440e-4f), log_m);
  return _mm256_add_ps(_mm256_fmadd_ps(ef, _mm256_set1_ps(0.693359375f), b), log_m);
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
