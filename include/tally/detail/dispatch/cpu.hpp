// Run-time CPU detection, done once per process: which instruction-set groups the CPU
// has and the operating system saves (XSAVE state). The target list (../targets.hpp)
// turns these bits into the kernel variant in use.
#pragma once

#include "../config.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The instruction-set groups the kernel targets need.
struct cpu_features {
  bool avx2 = false;    // AVX2, FMA, F16C, BMI1/2, with YMM state saved
  bool avx512 = false;  // AVX-512 F, DQ, BW, VL, with opmask and ZMM state saved
};

#if TALLY_X86_SIMD
/// CPUID and XCR0 are read through config.hpp (<cpuid.h> or <intrin.h>).
inline cpu_features detect_cpu() noexcept {
  cpu_features f;
  unsigned r[4];
  if (!cpuid(1, 0, r)) return f;
  const unsigned c = r[2];
  const bool osxsave = c & (1u << 27), f16c = c & (1u << 29), fma = c & (1u << 12);
  if (!osxsave || !f16c || !fma) return f;
  const unsigned long long xcr0 = read_xcr0();
  if ((xcr0 & 0x6) != 0x6) return f;  // the OS saves XMM and YMM state
  if (!cpuid(7, 0, r)) return f;
  const unsigned b = r[1];
  const bool avx2 = b & (1u << 5), bmi1 = b & (1u << 3), bmi2 = b & (1u << 8);
  f.avx2 = avx2 && bmi1 && bmi2;
  const bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31));  // F DQ BW VL
  f.avx512 = f.avx2 && avx512 && (xcr0 & 0xe0) == 0xe0;
  return f;
}
#else
inline cpu_features detect_cpu() noexcept { return {}; }
#endif

}  // namespace detail
TALLY_END_NAMESPACE
