// exp and log of four doubles (AVX2 + FMA), for the vector forms of logcumsumexp. Each is
// within about an ulp of double of the exact value on the domain logcumsumexp gives it,
// which is narrower than libm's: exp_pd takes x <= 709 (flushing x < -708 to 0, below
// anything a sum that holds a 1 can notice) and log_pd takes positive normal numbers and
// NaN.
#pragma once

#include "../config.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// 1.5 * 2^52: adding it rounds a double of magnitude below 2^51 to an integer, which
/// then sits in the low bits of the sum's representation.
inline constexpr double round_magic = 6755399441055744.0;

/// 0! .. 13!
inline constexpr double factorial[] = {1.0,     1.0,      2.0,       6.0,        24.0,        120.0,        720.0,
                                       5040.0, 40320.0, 362880.0, 3628800.0, 39916800.0, 479001600.0, 6227020800.0};

/// e^x for x <= 709 (NaN stays NaN); 0 for x < -708.
TALLY_TARGET_AVX2 inline __m256d exp_pd(__m256d x) {
  // x = k ln2 + r with |r| <= ln2 / 2; ln2 in two parts (the high one has trailing zero
  // bits, so k * ln2_hi is exact), then e^r = 1 + (r + r^2 q(r)) by its Taylor series to
  // r^13 (truncation below 2e-17 relative; the 1 added last, so that the rounding of the
  // small terms stays small) and e^x = 2^k e^r with 2^k built in the exponent field.
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(1.4426950408889634), _mm256_set1_pd(round_magic));
  const __m256d k = _mm256_sub_pd(t, _mm256_set1_pd(round_magic));
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(6.93147180369123816490e-01), x);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(1.90821492927058770002e-10), r);
  // q(r) = 1/2! + r/3! + ... + r^11/13! by Estrin's scheme (pairs, then pairs of pairs): a
  // dependency chain of 5 steps instead of Horner's 11, so that several calls overlap in
  // the core.
  const __m256d r2 = _mm256_mul_pd(r, r), r4 = _mm256_mul_pd(r2, r2), r8 = _mm256_mul_pd(r4, r4);
#define TALLY_EXP_PAIR(i) \
  _mm256_fmadd_pd(_mm256_set1_pd(1.0 / factorial[(i) + 1]), r, _mm256_set1_pd(1.0 / factorial[i]))
  const __m256d quad0 = _mm256_fmadd_pd(TALLY_EXP_PAIR(4), r2, TALLY_EXP_PAIR(2));
  const __m256d quad1 = _mm256_fmadd_pd(TALLY_EXP_PAIR(8), r2, TALLY_EXP_PAIR(6));
  const __m256d quad2 = _mm256_fmadd_pd(TALLY_EXP_PAIR(12), r2, TALLY_EXP_PAIR(10));
#undef TALLY_EXP_PAIR
  const __m256d q = _mm256_fmadd_pd(quad2, r8, _mm256_fmadd_pd(quad1, r4, quad0));
  const __m256d p = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_fmadd_pd(r2, q, r));
  // The low 12 bits of t's representation are k modulo 4096; k + 1023 is in [1, 2046].
  const __m256i scale = _mm256_slli_epi64(_mm256_add_epi64(_mm256_castpd_si256(t), _mm256_set1_epi64x(1023)), 52);
  const __m256d y = _mm256_mul_pd(p, _mm256_castsi256_pd(scale));
  return _mm256_blendv_pd(y, _mm256_setzero_pd(), _mm256_cmp_pd(x, _mm256_set1_pd(-708.0), _CMP_LT_OQ));
}

/// log(x) for positive normal x (NaN stays NaN): fdlibm's __ieee754_log, four lanes.
TALLY_TARGET_AVX2 inline __m256d log_pd(__m256d x) {
  // x = 2^e m with m in [sqrt(2)/2, sqrt(2)); f = m - 1; log(1 + f) = 2 atanh(s) with
  // s = f / (2 + f), whose odd series is fdlibm's minimax polynomial R in s^2.
  const __m256i bits = _mm256_castpd_si256(x);
  __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFF)),
                                                  _mm256_set1_epi64x(0x3FF0000000000000)));
  __m256i e = _mm256_sub_epi64(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(1023));
  const __m256d high = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
  m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), high);
  e = _mm256_sub_epi64(e, _mm256_castpd_si256(high));  // all ones is -1: one more
  const __m256d k = _mm256_sub_pd(
      _mm256_castsi256_pd(_mm256_add_epi64(e, _mm256_castpd_si256(_mm256_set1_pd(round_magic)))),
      _mm256_set1_pd(round_magic));
  const __m256d f = _mm256_sub_pd(m, _mm256_set1_pd(1.0));
  const __m256d s = _mm256_div_pd(f, _mm256_add_pd(f, _mm256_set1_pd(2.0)));
  const __m256d z = _mm256_mul_pd(s, s), w = _mm256_mul_pd(z, z);
  const __m256d t1 = _mm256_mul_pd(
      w, _mm256_fmadd_pd(w, _mm256_fmadd_pd(w, _mm256_set1_pd(1.531383769920937332e-01), _mm256_set1_pd(2.222219843214978396e-01)),
                         _mm256_set1_pd(3.999999999940941908e-01)));
  const __m256d t2 = _mm256_mul_pd(
      z, _mm256_fmadd_pd(
             w,
             _mm256_fmadd_pd(w, _mm256_fmadd_pd(w, _mm256_set1_pd(1.479819860511658591e-01), _mm256_set1_pd(1.818357216161805012e-01)),
                             _mm256_set1_pd(2.857142874366239149e-01)),
             _mm256_set1_pd(6.666666666666735130e-01)));
  const __m256d R = _mm256_add_pd(t1, t2);
  const __m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), f), f);
  // k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f)
  const __m256d low = _mm256_fmadd_pd(s, _mm256_add_pd(hfsq, R), _mm256_mul_pd(k, _mm256_set1_pd(1.90821492927058770002e-10)));
  const __m256d y =
      _mm256_fmsub_pd(k, _mm256_set1_pd(6.93147180369123816490e-01), _mm256_sub_pd(_mm256_sub_pd(hfsq, low), f));
  return _mm256_blendv_pd(y, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
