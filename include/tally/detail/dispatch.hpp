// Kernel selection: the element type picks the template, the CPU picks the variant.
// The variant is chosen once per process (cpu.hpp) and can be capped with the
// TALLY_SIMD environment variable, so that tests run every variant on one machine.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cpu.hpp"
#include "line_state.hpp"
#include "scalar_kernels.hpp"
// GCC 12 reports its own intrinsics (which start from _mm*_undefined_*()) as "maybe
// uninitialized" once they are inlined into target-attributed code: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "simd/avx2.hpp"
#include "simd/avx512.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The kernels of one (operation, element type, instruction set) triple. `stream` asks
/// for non-temporal stores (large outputs that will not be read back from cache soon).
template <class Op, class T>
struct kernel_set {
  using A = acc_t<T>;
  /// A contiguous line: `reverse` walks memory downwards from `in`/`out`.
  void (*line)(line_state<A>&, const T* in, T* out, bool reverse, std::size_t n, bool exclusive,
               bool stream) noexcept;
  /// Rows of running values: see scalar::scan_columns.
  void (*columns)(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                  std::size_t width, std::size_t rows, A* acc, bool exclusive, bool starts_are_carries,
                  bool stream) noexcept;
  /// The total of a contiguous block, bitwise as `line` combines it (see reduce_contiguous).
  A (*reduce)(const T* in, bool reverse, std::size_t n) noexcept;
  /// A tile to strided output: element (a, b) at tile[a * pitch + b] goes to
  /// out[a * stride_a + b * stride_b].
  void (*scatter)(const T* tile, std::size_t n_a, std::size_t n_b, std::size_t pitch, T* out, std::ptrdiff_t stride_a,
                  std::ptrdiff_t stride_b, bool stream) noexcept;
  /// Any line with its own strides.
  void (*strided)(line_state<A>&, const T* in, std::ptrdiff_t in_step, T* out, std::ptrdiff_t out_step,
                  std::size_t n, bool exclusive) noexcept;
};

namespace scalar {
template <class Op, class T>
void scan_contiguous(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse, std::size_t n, bool exclusive,
                     bool /*stream*/) noexcept {
  scan_line<Op, T>(s, in, reverse ? -1 : 1, out, reverse ? -1 : 1, n, exclusive);
}
template <class Op, class T>
void scan_columns_plain(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                        std::size_t width, std::size_t rows, acc_t<T>* acc, bool exclusive, bool starts_are_carries,
                        bool /*stream*/) noexcept {
  scan_columns<Op, T>(in, in_row_stride, out, out_row_stride, width, rows, acc, exclusive, starts_are_carries);
}
template <class Op, class T>
acc_t<T> reduce_contiguous(const T* in, bool reverse, std::size_t n) noexcept {
  return reduce_line<Op, T>(in, reverse ? -1 : 1, n);
}
template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>, &scan_columns_plain<Op, T>,
                                           &reduce_contiguous<Op, T>, &scatter_tile<T>, &scan_line<Op, T>};
}  // namespace scalar

#if TALLY_X86_SIMD
namespace avx2 {
#define TALLY_SIMD_TARGET TALLY_TARGET_AVX2
#include "simd/kernels.hpp"
#undef TALLY_SIMD_TARGET
template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>, &scan_columns<Op, T>, &reduce_contiguous<Op, T>,
                                           &scatter_tile<T>, &scalar::scan_line<Op, T>};
}  // namespace avx2

namespace avx512 {
#define TALLY_SIMD_TARGET TALLY_TARGET_AVX512
#include "simd/kernels.hpp"
#undef TALLY_SIMD_TARGET
template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>, &scan_columns<Op, T>, &reduce_contiguous<Op, T>,
                                           &scatter_tile<T>, &scalar::scan_line<Op, T>};
}  // namespace avx512
#endif

template <class Op, class T>
const kernel_set<Op, T>& select_kernels() noexcept {
#if TALLY_X86_SIMD
  switch (active_simd_level()) {
    case level_avx512: return avx512::kernels<Op, T>;
    case level_avx2: return avx2::kernels<Op, T>;
    default: break;
  }
#endif
  return scalar::kernels<Op, T>;
}

}  // namespace detail
TALLY_END_NAMESPACE

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
