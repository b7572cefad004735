// Every compiler-specific spelling tally uses, in one place: overflow checks, the printf
// format attribute, diagnostic pragmas, the spin-wait hint, the x86 SIMD target
// attributes, the Arm NEON test and header, and the store fence after non-temporal
// stores. Nothing else under include/ names a compiler or an architecture macro.
#pragma once

#include "../version.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define TALLY_GNU_LIKE 1
#else
#define TALLY_GNU_LIKE 0
#endif

/// printf-style checking of a member function's format argument (`this` is argument 1).
#if TALLY_GNU_LIKE
#define TALLY_PRINTF_MEMBER(format_index, first_arg) __attribute__((format(printf, format_index, first_arg)))
#else
#define TALLY_PRINTF_MEMBER(format_index, first_arg)
#endif

// Inlining the hot helpers of a kernel loop (a call there spills every vector register).
#if TALLY_GNU_LIKE
#define TALLY_ALWAYS_INLINE __attribute__((always_inline)) inline
#elif defined(_MSC_VER)
#define TALLY_ALWAYS_INLINE __forceinline
#else
#define TALLY_ALWAYS_INLINE inline
#endif

/// The x86 SIMD kernels: compiled with per-function target attributes (never with -m
/// flags for a whole translation unit), so one binary carries every variant.
#if (defined(__x86_64__) || defined(_M_X64)) && TALLY_GNU_LIKE && !defined(TALLY_NO_SIMD)
#define TALLY_X86_SIMD 1
#define TALLY_TARGET_AVX2 __attribute__((target("avx2,f16c,fma,bmi,bmi2,popcnt")))
#define TALLY_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,f16c,fma,bmi,bmi2,popcnt")))
#else
#define TALLY_X86_SIMD 0
#endif

/// The Arm NEON kernels: 64-bit Arm always has Advanced SIMD (and its float16
/// conversions), so they need no target attribute and no run-time CPU test.
#if (defined(__aarch64__) || defined(_M_ARM64)) && !defined(TALLY_NO_SIMD)
#define TALLY_ARM_NEON 1
#define TALLY_TARGET_NEON
#else
#define TALLY_ARM_NEON 0
#endif

/// GCC 12 reports its own intrinsics (which start from _mm*_undefined_*()) as "maybe
/// uninitialized" once they are inlined into target-attributed code: a false positive,
/// silenced around the SIMD kernels only.
#if defined(__GNUC__) && !defined(__clang__)
#define TALLY_SIMD_WARNINGS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")
#define TALLY_SIMD_WARNINGS_END _Pragma("GCC diagnostic pop")
#else
#define TALLY_SIMD_WARNINGS_BEGIN
#define TALLY_SIMD_WARNINGS_END
#endif

/// pthread_atfork, for the thread pool's fork handler.
#if defined(__unix__) || defined(__APPLE__)
#define TALLY_HAS_PTHREAD_ATFORK 1
#include <pthread.h>
#else
#define TALLY_HAS_PTHREAD_ATFORK 0
#endif

#include <cstdint>
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <immintrin.h>
#endif
#if TALLY_ARM_NEON
#include <arm_neon.h>
#endif
#include <thread>

TALLY_BEGIN_NAMESPACE
namespace detail {

/// a + b into *r; true on unsigned 64-bit overflow.
inline bool add_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t* r) noexcept {
#if TALLY_GNU_LIKE
  return __builtin_add_overflow(a, b, r);
#else
  *r = a + b;
  return *r < a;
#endif
}

/// a * b into *r; true on unsigned 64-bit overflow.
inline bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t* r) noexcept {
#if TALLY_GNU_LIKE
  return __builtin_mul_overflow(a, b, r);
#else
  *r = a * b;
  return a != 0 && *r / a != b;
#endif
}

/// A spin-wait hint: the pause instruction where there is one, else a yield.
inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Asks for the cache line at p ahead of its use (where the CPU has the instruction).
inline void prefetch(const void* p) noexcept {
#if TALLY_X86_SIMD
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#else
  (void)p;
#endif
}

/// Orders this thread's non-temporal stores before its later stores (and so before the
/// task's completion is published): once per task that streamed, not once per line.
inline void store_fence() noexcept {
#if TALLY_X86_SIMD
  _mm_sfence();
#endif
}

}  // namespace detail
TALLY_END_NAMESPACE
