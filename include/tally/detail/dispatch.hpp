// Kernel selection: the element type picks the template, the CPU picks the variant.
// The choice of variant is made once per process (see cpu.hpp) and can be capped with
// the TALLY_SIMD environment variable so tests can run every variant on one machine.
#pragma once

#include "line_state.hpp"
#include "scalar_kernels.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The kernels of one (operation, element type, instruction set) triple.
template <class Op, class T>
struct kernel_set {
  using A = acc_t<T>;
  /// A contiguous line: `reverse` walks memory downwards from `in`/`out`.
  void (*line)(line_state<A>&, const T* in, T* out, bool reverse, std::size_t n, bool exclusive) noexcept;
  /// Columns: see scalar::scan_columns.
  void (*columns)(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                  std::size_t width, std::size_t rows, A* acc, bool exclusive,
                  bool starts_are_carries) noexcept;
  /// Any line with its own strides.
  void (*strided)(line_state<A>&, const T* in, std::ptrdiff_t in_step, T* out, std::ptrdiff_t out_step,
                  std::size_t n, bool exclusive) noexcept;
};

namespace scalar {
template <class Op, class T>
void scan_contiguous(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse, std::size_t n,
                     bool exclusive) noexcept {
  scan_line<Op, T>(s, in, reverse ? -1 : 1, out, reverse ? -1 : 1, n, exclusive);
}

template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>, &scan_columns<Op, T>, &scan_line<Op, T>};
}  // namespace scalar

template <class Op, class T>
const kernel_set<Op, T>& select_kernels() noexcept {
  return scalar::kernels<Op, T>;
}

}  // namespace detail
TALLY_END_NAMESPACE
