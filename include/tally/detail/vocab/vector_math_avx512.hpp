// exp and log of eight doubles (AVX-512 F/DQ), for the vector forms of logcumsumexp, on
// the same domains as the AVX2 forms (vector_math_avx2.hpp): exp_pd takes x <= 709 (0 for
// x < -708), log_pd positive normal numbers and NaN. Both reduce the argument with
// 16-entry tables held in two registers each and read with one VPERMT2PD, so they need
// shorter polynomials than the AVX2 forms, and log needs no division: about a third of
// their time per element. Worst errors measured against long double on 2^24 random
// arguments per range and the tables' boundaries: exp 0.56 ulp, log 0.78 ulp.
//
// The tables' entries are the doubles nearest to 2^(j/16) (and to what that rounding
// lost), to 1/c, and to -log of that double (in two parts, the high one rounded to a
// multiple of 2^-32), computed in 60-digit decimal arithmetic.
#pragma once

#include <cstdint>

#include "../config.hpp"
#include "vector_math_avx2.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// Entry (low 4 bits of `index`) of the 16-entry table `low` (entries 0-7), `high` (8-15).
TALLY_TARGET_AVX512 inline __m512d lookup16(__m512d low, __m512d high, __m512i index) {
  return _mm512_permutex2var_pd(low, index, high);
}

/// e^x for x <= 709 (NaN stays NaN); 0 for x < -708.
TALLY_TARGET_AVX512 inline __m512d exp_pd(__m512d x) {
  // x = k ln2/16 + r with |r| <= ln2/32 and k = 16 m + j: e^x = 2^m 2^(j/16) e^r, with
  // 2^(j/16) = hi + lo from two tables (lo holds what rounding hi lost), e^r - 1 by its
  // Taylor series to r^7 (truncation below 2e-18) and 2^m applied by VSCALEFPD, which
  // takes floor(k / 16) itself.
  const __m512d t = _mm512_fmadd_pd(x, _mm512_set1_pd(23.083120654223414), _mm512_set1_pd(round_magic));
  const __m512d k = _mm512_sub_pd(t, _mm512_set1_pd(round_magic));
  // ln2/16 in two parts (the high one has trailing zero bits, so k * hi is exact).
  __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(6.93147180369123816490e-01 / 16), x);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10 / 16), r);
  const __m512d r2 = _mm512_mul_pd(r, r), r4 = _mm512_mul_pd(r2, r2);
#define TALLY_EXP_PAIR(i) \
  _mm512_fmadd_pd(_mm512_set1_pd(1.0 / factorial[(i) + 1]), r, _mm512_set1_pd(1.0 / factorial[i]))
  // e^r - 1 = r + r^2 (1/2! + r/3! + ... + r^5/7!), Estrin's scheme.
  const __m512d q = _mm512_fmadd_pd(TALLY_EXP_PAIR(6), r4, _mm512_fmadd_pd(TALLY_EXP_PAIR(4), r2, TALLY_EXP_PAIR(2)));
#undef TALLY_EXP_PAIR
  const __m512d p = _mm512_fmadd_pd(r2, q, r);
  // The low 4 bits of t's representation are k modulo 16.
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d hi =
      lookup16(_mm512_setr_pd(1.0, 1.0442737824274138, 1.0905077326652577, 1.1387886347566916, 1.189207115002721,
                              1.241857812073484, 1.2968395546510096, 1.3542555469368927),
               _mm512_setr_pd(1.4142135623730951, 1.4768261459394993, 1.5422108254079407, 1.6104903319492543,
                              1.681792830507429, 1.7562521603732995, 1.8340080864093424, 1.9152065613971474),
               j);
  const __m512d lo =
      lookup16(_mm512_setr_pd(0.0, 8.551889705537965e-17, -3.046782079812471e-17, 8.912812676025408e-17,
                              3.982015231465646e-17, 4.658027591836937e-17, 2.5382502794888315e-17,
                              7.70094837980299e-17),
               _mm512_setr_pd(-9.667293313452913e-17, -3.483994556892796e-17, 7.949834809697621e-17,
                              2.4707192569797888e-17, 8.199010020581497e-17, 2.960140695448873e-17,
                              3.283107224245627e-17, -1.0619946056195963e-16),
               j);
  const __m512d y = _mm512_add_pd(hi, _mm512_fmadd_pd(hi, p, lo));
  // Zero-masking writes the 0 of x < -708; an unordered compare keeps NaN.
  return _mm512_maskz_scalef_pd(_mm512_cmp_pd_mask(x, _mm512_set1_pd(-708.0), _CMP_NLT_UQ), y,
                                _mm512_mul_pd(k, _mm512_set1_pd(1.0 / 16)));
}

/// log(x) for positive normal x (NaN stays NaN).
TALLY_TARGET_AVX512 inline __m512d log_pd(__m512d x) {
  // x = 2^k z with z in [0.734375, 1.46875) (k = 0 for every x in that range, so k ln2
  // never cancels against log c near 1): subtracting the representation of 0.734375
  // leaves k in the exponent field and, in the top four fraction bits, the index i of one
  // of 16 intervals, each centred on its c: 0.75 + i/32 (width 1/32) for i < 8, 1 +
  // (i - 8)/16 (width 1/16) from i = 8. log(x) = k ln2 + log(c) + log(1 + r) with
  // r = z/c - 1, |r| <= 1/32, and log(1 + r) by its Taylor series to r^11 (truncation
  // below 2^-58 relative). No step loses more than a small part of an ulp:
  // - r is exact: z * (1/c) rounded, minus 1 (exact), plus that product's rounding error
  //   (an FMA), which enters log(1 + r) as err (1 - r); c is the number that the rounded
  //   1/c stands for, so the table holds -log(1/c);
  // - log c comes in two parts, the high one a multiple of 2^-32 like k ln2_hi, so that
  //   their sum is exact (next to c = 1, log c is up to twice the result);
  // - entry 8 has c = 1 and log c = 0: log(1) is 0, and x near 1 keeps its relative
  //   accuracy.
  const __m512i bits = _mm512_castpd_si512(x);
  const __m512i offset = _mm512_sub_epi64(bits, _mm512_set1_epi64(0x3FE7800000000000));
  const __m512d k = _mm512_cvtepi64_pd(_mm512_srai_epi64(offset, 52));
  const __m512i exponent_field = _mm512_set1_epi64(static_cast<std::int64_t>(0xFFF0000000000000));
  const __m512d z = _mm512_castsi512_pd(_mm512_sub_epi64(bits, _mm512_and_si512(offset, exponent_field)));
  const __m512i i = _mm512_srli_epi64(offset, 48);
  const __m512d inverse =
      lookup16(_mm512_setr_pd(1.3333333333333333, 1.28, 1.2307692307692308, 1.1851851851851851, 1.1428571428571428,
                              1.103448275862069, 1.0666666666666667, 1.032258064516129),
               _mm512_setr_pd(1.0, 0.9411764705882353, 0.8888888888888888, 0.8421052631578947, 0.8,
                              0.7619047619047619, 0.7272727272727273, 0.6956521739130435),
               i);
  const __m512d logc_hi =
      lookup16(_mm512_setr_pd(-0.28768207249231637, -0.2468600778374821, -0.20763936475850642, -0.16989903687499464,
                              -0.13353139255195856, -0.09844007273204625, -0.0645385212264955, -0.03174869832582772),
               _mm512_setr_pd(0.0, 0.0606246218085289, 0.11778303561732173, 0.17185025685466826, 0.22314355126582086,
                              0.27193371555767953, 0.3184537310153246, 0.3629054937046021),
               i);
  const __m512d logc_lo =
      lookup16(_mm512_setr_pd(4.053549331393662e-11, -9.404372393661418e-11, -1.9738139852117177e-11,
                              7.959721819269656e-11, -7.256400669158887e-11, -8.120625949647528e-11,
                              8.892434658413635e-11, 1.1247444379646227e-11),
               _mm512_setr_pd(0.0, 7.905956311909564e-12, 3.906178038991116e-11, 7.199101823058367e-11,
                              4.8388839392411926e-11, -7.403771961561434e-11, 1.0320999546433957e-10,
                              -1.523364141342377e-11),
               i);
  const __m512d prod = _mm512_mul_pd(z, inverse);
  const __m512d prod_lo = _mm512_fmsub_pd(z, inverse, prod);
  const __m512d r = _mm512_sub_pd(prod, _mm512_set1_pd(1.0));
  const __m512d r2 = _mm512_mul_pd(r, r), r4 = _mm512_mul_pd(r2, r2), r8 = _mm512_mul_pd(r4, r4);
  // log(1 + r) = r + r^2 (-1/2 + r/3 - r^2/4 + ... + r^9/11), Estrin's scheme.
#define TALLY_LOG_PAIR(n) _mm512_fmadd_pd(_mm512_set1_pd(1.0 / ((n) + 3)), r, _mm512_set1_pd(-1.0 / ((n) + 2)))
  const __m512d q = _mm512_fmadd_pd(
      TALLY_LOG_PAIR(8), r8,
      _mm512_fmadd_pd(_mm512_fmadd_pd(TALLY_LOG_PAIR(6), r2, TALLY_LOG_PAIR(4)), r4,
                      _mm512_fmadd_pd(TALLY_LOG_PAIR(2), r2, TALLY_LOG_PAIR(0))));
#undef TALLY_LOG_PAIR
  // (k ln2_hi + log c's high part) + (r + (r^2 q + the low parts)): the small terms first.
  __m512d tail = _mm512_fmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10), logc_lo);
  tail = _mm512_add_pd(tail, _mm512_fnmadd_pd(prod_lo, r, prod_lo));
  const __m512d near_zero = _mm512_add_pd(r, _mm512_fmadd_pd(r2, q, tail));
  const __m512d y = _mm512_add_pd(_mm512_fmadd_pd(k, _mm512_set1_pd(6.93147180369123816490e-01), logc_hi), near_zero);
  return _mm512_mask_mov_pd(y, _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), x);
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
