// Every compiler- and platform-specific spelling tally uses, in one place: overflow
// checks, the printf format attribute, diagnostic pragmas, the spin-wait hint, the x86
// SIMD target attributes, the Arm NEON test and header, CPU identification, the
// environment, prefetch and the store fence after non-temporal stores, and whether tally
// may start threads. Nothing else under include/ names a compiler (the test command greps
// for it: tests/portability/check_include.sh).
//
// Three families, told apart once here:
//   GNU-like  GCC and Clang (also MinGW, and clang-cl, which is Clang in MSVC mode):
//             attributes, builtins and pragmas spelled the GNU way;
//   MSVC      Microsoft's compiler (_MSC_VER without __clang__): no attributes needed
//             for intrinsics, <intrin.h> for CPUID and XGETBV;
//   other     a standard C++17 compiler: portable code, scalar kernels.
#pragma once

#include "../version.hpp"

#if defined(_MSC_VER) && !defined(__clang__)
#define TALLY_MSVC 1
#else
#define TALLY_MSVC 0
#endif

// (MSVC never defines __GNUC__. "&& !TALLY_MSVC" lets .ci/mingw-wine.sh take the MSVC
// branches with Clang posing as MSVC, which keeps __GNUC__ for its own headers.)
#if (defined(__GNUC__) || defined(__clang__)) && !TALLY_MSVC
#define TALLY_GNU_LIKE 1
#else
#define TALLY_GNU_LIKE 0
#endif

/// printf-style checking of a member function's format argument (`this` is argument 1).
/// MinGW's GCC checks `printf` formats against the Microsoft runtime's rules (no %zu),
/// which keeps tally's messages portable to every runtime.
#if TALLY_GNU_LIKE
#define TALLY_PRINTF_MEMBER(format_index, first_arg) __attribute__((format(printf, format_index, first_arg)))
#else
#define TALLY_PRINTF_MEMBER(format_index, first_arg)
#endif

// Inlining the hot helpers of a kernel loop (a call there spills every vector register).
#if TALLY_GNU_LIKE
#define TALLY_ALWAYS_INLINE __attribute__((always_inline)) inline
#elif TALLY_MSVC
#define TALLY_ALWAYS_INLINE __forceinline
#else
#define TALLY_ALWAYS_INLINE inline
#endif

// Keeps a rare step of a kernel loop out of the loop's code (so that the loop's values stay
// in registers: a call inlined there with its own state moved them to memory).
#if TALLY_GNU_LIKE
#define TALLY_NOINLINE __attribute__((noinline))
#elif TALLY_MSVC
#define TALLY_NOINLINE __declspec(noinline)
#else
#define TALLY_NOINLINE
#endif

/// Unrolls the next loop, whose trip count is a constant, completely: the loops over
/// arrays of registers in the transposes. GCC at -O2 keeps them as loops, and the arrays
/// in memory (a 4096 x 4096 float scan through transposed strides: 13.1 ms at -O2
/// against 11.0 ms unrolled at -O3, 2026-11-25).
#if defined(__clang__)
#define TALLY_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TALLY_UNROLL _Pragma("GCC unroll 16")
#else
#define TALLY_UNROLL
#endif

/// Inlines everything a function calls into it: a kernel template without a target
/// attribute, instantiated inside a target-attributed entry point, gets the target's
/// instructions (and its vector helpers) this way. Empty where not needed (MSVC needs no
/// target for intrinsics).
#if TALLY_GNU_LIKE
#define TALLY_FLATTEN __attribute__((flatten))
#else
#define TALLY_FLATTEN
#endif

// ---- x86 SIMD ------------------------------------------------------------------------

/// The x86-64 SIMD kernels (AVX2, AVX-512), chosen at run time. GCC and Clang compile
/// them with per-function target attributes (never with -m flags for a whole translation
/// unit), so one binary carries every variant. MSVC compiles AVX2 and AVX-512 intrinsics
/// in any function without flags, so its attributes are empty. clang-cl before Clang 19
/// declares no AVX intrinsics in <immintrin.h> unless the whole translation unit enables
/// them (llvm-project issue 53520), so there the portable kernels are used. ARM64EC
/// defines _M_X64 but has no AVX: excluded.
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(_M_ARM64EC) && !defined(TALLY_NO_SIMD) && \
    (TALLY_MSVC || (TALLY_GNU_LIKE && !(defined(_MSC_VER) && defined(__clang__) && __clang_major__ < 19)))
#define TALLY_X86_SIMD 1
#else
#define TALLY_X86_SIMD 0
#endif

#if TALLY_X86_SIMD && TALLY_GNU_LIKE
#define TALLY_TARGET_AVX2 __attribute__((target("avx2,f16c,fma,bmi,bmi2,popcnt")))
#define TALLY_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,f16c,fma,bmi,bmi2,popcnt")))
#elif TALLY_X86_SIMD
#define TALLY_TARGET_AVX2
#define TALLY_TARGET_AVX512
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
#if TALLY_GNU_LIKE && !defined(__clang__)
#define TALLY_SIMD_WARNINGS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")
#define TALLY_SIMD_WARNINGS_END _Pragma("GCC diagnostic pop")
#else
#define TALLY_SIMD_WARNINGS_BEGIN
#define TALLY_SIMD_WARNINGS_END
#endif

/// MSVC warns (C4324, level 4, an error under /W4 /WX) that a struct was padded because
/// of alignas: in the thread pool that padding is the point (a cache line per thread).
#if TALLY_MSVC
#define TALLY_ALIGNAS_PADDING_BEGIN __pragma(warning(push)) __pragma(warning(disable : 4324))
#define TALLY_ALIGNAS_PADDING_END __pragma(warning(pop))
#else
#define TALLY_ALIGNAS_PADDING_BEGIN
#define TALLY_ALIGNAS_PADDING_END
#endif

// ---- threads -------------------------------------------------------------------------

/// TALLY_THREADS: 1 when tally may start threads of its own. Defining TALLY_NO_THREADS
/// (or a standard library without std::thread: libstdc++ without gthreads, as MinGW's
/// win32 thread model before GCC 13, or libc++ built without threads) makes it 0: tally
/// then includes no <thread>, <mutex>, <condition_variable> or <pthread.h>, starts no
/// thread, and runs every task on the calling thread unless a host's parallel_for hook
/// takes it (docs/threads.md). <cstddef> comes first so that the standard library's
/// configuration macros exist.
#include <cstddef>
#if defined(TALLY_NO_THREADS) || (defined(__GLIBCXX__) && !defined(_GLIBCXX_HAS_GTHREADS)) || \
    defined(_LIBCPP_HAS_NO_THREADS) || (defined(_LIBCPP_HAS_THREADS) && !_LIBCPP_HAS_THREADS)
#define TALLY_THREADS 0
#else
#define TALLY_THREADS 1
#endif

/// pthread_atfork, for the thread pool's fork handler.
#if (defined(__unix__) || defined(__APPLE__)) && TALLY_THREADS
#define TALLY_HAS_PTHREAD_ATFORK 1
#include <pthread.h>
#else
#define TALLY_HAS_PTHREAD_ATFORK 0
#endif

#include <cstdint>
#include <cstdlib>
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define TALLY_X86 1
#include <immintrin.h>
#else
#define TALLY_X86 0
#endif
#if TALLY_ARM_NEON
#include <arm_neon.h>
#endif
#if TALLY_X86_SIMD && defined(_MSC_VER)
#include <intrin.h>  // __cpuid, __cpuidex, _xgetbv (MSVC and clang-cl)
#elif TALLY_X86_SIMD
#include <cpuid.h>
#endif
#if TALLY_THREADS && !TALLY_X86
#include <thread>
#endif

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

#if TALLY_THREADS
/// A spin-wait hint: the pause instruction where there is one, else a yield.
inline void spin_pause() noexcept {
#if TALLY_X86
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}
#endif

/// The value of an environment variable, or null. Read once per process, at start-up.
/// The Microsoft runtime deprecates getenv (warning C4996, an error under /WX) because a
/// later putenv may free the string; tally reads the value at once and keeps no pointer.
#if defined(_MSC_VER)
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#else
#pragma warning(push)
#pragma warning(disable : 4996)
#endif
#endif
inline const char* environment_variable(const char* name) noexcept { return std::getenv(name); }
#if defined(_MSC_VER)
#if defined(__clang__)
#pragma clang diagnostic pop
#else
#pragma warning(pop)
#endif
#endif

#if TALLY_X86_SIMD
/// CPUID: `leaf` (and `subleaf`) into regs = {eax, ebx, ecx, edx}; false (and zeros)
/// when the CPU does not have that leaf.
inline bool cpuid(unsigned leaf, unsigned subleaf, unsigned (&regs)[4]) noexcept {
  regs[0] = regs[1] = regs[2] = regs[3] = 0;
#if defined(_MSC_VER)
  int r[4];
  __cpuid(r, static_cast<int>(leaf & 0x80000000u));  // the highest leaf of this range
  if (static_cast<unsigned>(r[0]) < leaf) return false;
  __cpuidex(r, static_cast<int>(leaf), static_cast<int>(subleaf));
  for (int i = 0; i < 4; ++i) regs[i] = static_cast<unsigned>(r[i]);
  return true;
#else
  return __get_cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]) != 0;
#endif
}

/// XCR0: the register states the operating system saves. Only valid when CPUID leaf 1
/// reports OSXSAVE (ECX bit 27).
inline unsigned long long read_xcr0() noexcept {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
#endif
}
#endif  // TALLY_X86_SIMD

/// Asks for the cache line at p ahead of its use (where the CPU has the instruction).
inline void prefetch(const void* p) noexcept {
#if TALLY_X86_SIMD
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#else
  (void)p;
#endif
}

/// Prefetches the cache line 2 KiB on from p in a stream read up (or down, when
/// `descending`) through memory, where the hardware prefetchers alone fell behind (fast
/// float32 [4M, 3] down axis 0: 1.2x memcpy with AVX-512 and 1.4x with AVX2, 0.9x and
/// 1.2x so; exact float32 lines of 16 along axis 1 with AVX-512: 1.3x, 1.1x so). An
/// address as an integer: it may lie past the buffer, and a prefetch never faults.
inline void prefetch_stream_ahead(const void* p, bool descending) noexcept {
  constexpr std::uintptr_t ahead = 2048;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  prefetch(reinterpret_cast<const void*>(descending ? at - ahead : at + ahead));
}

/// The row a tile's row loop prefetches while at row k of `rows` rows from `first`
/// (`stride` elements of E apart): the row `ahead` rows on, and past the last row the
/// same-numbered row of the next tile (`next`; null: none, and 0 is returned). Rows far
/// apart each start a stream the hardware prefetchers learn too late. An address as an
/// integer: it may lie past the tensor, and a prefetch never faults.
template <class E>
std::uintptr_t row_to_prefetch(const E* first, std::size_t k, std::size_t rows, std::ptrdiff_t stride,
                               std::size_t ahead, const E* next) noexcept {
  const std::size_t row = k + ahead;
  if (row >= rows && next == nullptr) return 0;
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(row < rows ? first : next);
  const auto at = static_cast<std::ptrdiff_t>(row < rows ? row : (row - rows) % rows);
  return base + static_cast<std::uintptr_t>(at * stride * static_cast<std::ptrdiff_t>(sizeof(E)));
}

/// Whether a row loop gains by prefetching its rows of `count` elements of E, `stride`
/// elements apart, `ahead` rows on. Not when they are packed (|stride| == count: one
/// stream) and the row ahead starts less than a page (4 KiB) on: the hardware
/// prefetchers, which follow a stream within a page, have it already, and the prefetches
/// only cost (AVX-512, fast float64 rows of 20 down axis 0: 1.35x-1.5x memcpy, 1.1x-1.2x
/// without them; exact float32 rows of 100: 1.3x-1.45x, 0.9x-1.2x). Rows a page or more
/// on gain (exact float32 4096 x 4096 down axis 0: 1.1x-1.2x memcpy, 1.5x-2.0x without).
template <class E>
bool rows_worth_prefetching(std::size_t count, std::ptrdiff_t stride, std::size_t ahead) noexcept {
  const bool packed = stride == static_cast<std::ptrdiff_t>(count) || stride == -static_cast<std::ptrdiff_t>(count);
  return !packed || ahead * count * sizeof(E) >= 4096;
}

/// Prefetches element j of a row from row_to_prefetch (nothing for 0).
template <class E>
void prefetch_in_row(std::uintptr_t row, std::size_t j) noexcept {
  if (row != 0) prefetch(reinterpret_cast<const void*>(row + j * sizeof(E)));
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
