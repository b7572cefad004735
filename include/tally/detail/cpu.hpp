// Run-time CPU detection, done once per process. The kernels for each instruction set
// are compiled with per-function target attributes (never with -m flags for a whole
// translation unit), so one binary carries every variant and runs the best one the CPU
// and the operating system (XSAVE state) support.
#pragma once

#include <cstdlib>
#include <cstring>

#include "../version.hpp"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(TALLY_NO_SIMD)
#define TALLY_X86_SIMD 1
#include <cpuid.h>
#include <immintrin.h>
#define TALLY_TARGET_AVX2 __attribute__((target("avx2,f16c,fma,bmi,bmi2,popcnt")))
#define TALLY_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,f16c,fma,bmi,bmi2,popcnt")))
#else
#define TALLY_X86_SIMD 0
#endif

TALLY_BEGIN_NAMESPACE
namespace detail {

/// 0 scalar, 1 avx2, 2 avx512 (the values of tally::simd_variant).
enum simd_level : unsigned { level_scalar = 0, level_avx2 = 1, level_avx512 = 2 };

#if TALLY_X86_SIMD
inline unsigned long long read_xcr0() noexcept {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

inline simd_level detect_simd_level() noexcept {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return level_scalar;
  const bool osxsave = c & (1u << 27), f16c = c & (1u << 29), fma = c & (1u << 12);
  if (!osxsave || !f16c || !fma) return level_scalar;
  const unsigned long long xcr0 = read_xcr0();
  if ((xcr0 & 0x6) != 0x6) return level_scalar;  // the OS saves XMM and YMM state
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return level_scalar;
  const bool avx2 = b & (1u << 5), bmi1 = b & (1u << 3), bmi2 = b & (1u << 8);
  if (!avx2 || !bmi1 || !bmi2) return level_scalar;
  const bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31));  // F DQ BW VL
  if (avx512 && (xcr0 & 0xe0) == 0xe0) return level_avx512;  // opmask and ZMM state saved
  return level_avx2;
}
#else
inline simd_level detect_simd_level() noexcept { return level_scalar; }
#endif

/// The variant in use: detected once, capped by TALLY_SIMD=scalar|avx2|avx512.
inline simd_level active_simd_level() noexcept {
  static const simd_level level = [] {
    simd_level best = detect_simd_level();
    if (const char* cap = std::getenv("TALLY_SIMD")) {
      simd_level wanted = best;
      if (std::strcmp(cap, "scalar") == 0) wanted = level_scalar;
      else if (std::strcmp(cap, "avx2") == 0) wanted = level_avx2;
      else if (std::strcmp(cap, "avx512") == 0) wanted = level_avx512;
      if (wanted < best) best = wanted;
    }
    return best;
  }();
  return level;
}

}  // namespace detail
TALLY_END_NAMESPACE
