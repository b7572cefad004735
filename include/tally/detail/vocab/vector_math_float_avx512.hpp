// exp and log of sixteen floats (AVX-512 F), for logcumsumexp's fast form: the functions
// of vector_math_float_avx2.hpp, with the same contracts and the same care where float's
// precision costs most (x - b taken exactly; b + log(s) with e ln2 split so that its high
// part joins b exactly), but reduced by 16-entry tables held in one register and read with
// one VPERMPS, so that their polynomials are of degree 4 instead of 6 and 8, and with the
// exponent handled by VSCALEFPS / VGETEXPPS / VGETMANTPS instead of integer steps.
//
// The tables' entries are the floats nearest to 2^(j/16), to 1/c_j with c_j the middle of
// [1 + j/16, 1 + (j+1)/16), and to -log of that float (computed in double).
#pragma once

#include "../config.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// e^(x - b), the difference taken exactly, for x - b <= 64 (NaN stays NaN); 0 where
/// x - b < -87.
TALLY_TARGET_AVX512 inline __m512 exp_difference(__m512 x, __m512 b) {
  // d + err = x - b exactly (Knuth's two-sum).
  const __m512 d = _mm512_sub_ps(x, b);
  const __m512 b_virtual = _mm512_sub_ps(x, d);
  const __m512 err = _mm512_add_ps(_mm512_sub_ps(x, _mm512_add_ps(d, b_virtual)), _mm512_sub_ps(b_virtual, b));
  // d = k ln2/16 + r, |r| <= ln2/32: ln2/16 in two parts, the high one of 9 bits, so that
  // k * hi and d - k * hi are exact; err joins r. e^r - 1 by its Taylor series to r^4
  // (what it leaves out is below 5e-11).
  const __m512 magic = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23: rounds to an integer
  const __m512 t = _mm512_fmadd_ps(d, _mm512_set1_ps(23.0831203f), magic);
  const __m512 k = _mm512_sub_ps(t, magic);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.0433349609375f), d);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-1.32621525e-05f), r);
  r = _mm512_add_ps(r, err);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 24), r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
  // 2^(j/16) with j = k mod 16, the low 4 bits of t (VPERMPS reads only those), then
  // times 2^floor(k/16) by VSCALEFPS; zero where d < -87 (also d = -inf, where r is NaN).
  const __m512 two_j16 = _mm512_permutexvar_ps(
      _mm512_castps_si512(t),
      _mm512_setr_ps(1.0f, 1.04427373f, 1.09050775f, 1.13878858f, 1.18920708f, 1.24185777f, 1.29683959f,
                     1.35425556f, 1.41421354f, 1.47682619f, 1.54221082f, 1.61049032f, 1.68179286f, 1.75625217f,
                     1.8340081f, 1.91520655f));
  const __mmask16 kept = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-87.0f), _CMP_NLT_UQ);
  return _mm512_maskz_scalef_ps(kept, _mm512_fmadd_ps(two_j16, p, two_j16), _mm512_mul_ps(k, _mm512_set1_ps(0.0625f)));
}

/// b + log(s) for s >= 1 (s NaN gives NaN; b = +-inf gives b).
TALLY_TARGET_AVX512 inline __m512 plus_log(__m512 b, __m512 s) {
  // s = 2^e m with m in [1, 2); j = m's top 4 fraction bits, c_j the middle of its
  // sixteenth: log(m) = log(c_j) + log(m / c_j), with u = m / c_j - 1 (one rounding, by
  // FMA with the float nearest 1/c_j, and -log of that float from the table) at most
  // 1/32 or so, whose log1p to u^5 leaves out less than 2e-10.
  const __m512 e = _mm512_getexp_ps(s);
  const __m512 m = _mm512_getmant_ps(s, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
  const __m512i j = _mm512_srli_epi32(_mm512_castps_si512(s), 19);
  const __m512 recip = _mm512_permutexvar_ps(
      j, _mm512_setr_ps(0.969696999f, 0.914285719f, 0.864864886f, 0.820512831f, 0.780487776f, 0.744186044f,
                        0.711111128f, 0.680851042f, 0.653061211f, 0.627451003f, 0.603773594f, 0.581818163f,
                        0.561403513f, 0.542372882f, 0.524590135f, 0.507936537f));
  const __m512 log_c = _mm512_permutexvar_ps(
      j, _mm512_setr_ps(0.030771628f, 0.0896121562f, 0.145181984f, 0.19782573f, 0.247836202f, 0.295464218f,
                        0.340926558f, 0.384411722f, 0.426084429f, 0.466089696f, 0.504556f, 0.541597307f,
                        0.577315331f, 0.611801565f, 0.645138025f, 0.677398741f));
  const __m512 u = _mm512_fmsub_ps(m, recip, _mm512_set1_ps(1.0f));
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.2f), u, _mm512_set1_ps(-0.25f));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(1.0f / 3));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(-0.5f));
  const __m512 log1p_u = _mm512_fmadd_ps(p, _mm512_mul_ps(u, u), u);
  // As in the AVX2 form: ln2's low part times e first, b + e ln2_hi (exact product) last.
  const __m512 log_m = _mm512_add_ps(_mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f), log_c), log1p_u);
  return _mm512_add_ps(_mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), b), log_m);
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
