// The kernels of one (operation, element type, target) triple, as a table of function
// pointers with one signature per kernel shape. Every target, scalar included, fills it
// the same way: `kernels<Op, T>` in its namespace, found through target_kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../simd_variant.hpp"
#include "line_state.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Elements of T from p to the next multiple of `Bytes` (0 when p is on one).
template <std::size_t Bytes, class T>
std::size_t elements_to_boundary(const T* p) noexcept {
  return ((Bytes - reinterpret_cast<std::uintptr_t>(p) % Bytes) % Bytes) / sizeof(T);
}

/// Elements of T from p to the next 64-byte cache line boundary (0 when p is on one): where
/// non-temporal stores, and the tiles that feed them, can start whole lines.
template <class T>
std::size_t elements_to_line(const T* p) noexcept {
  return elements_to_boundary<64>(p);
}

/// `stream` asks for non-temporal stores (large outputs that will not be read back soon).
template <class Op, class T>
struct kernel_set {
  using A = acc_t<T>;
  /// A contiguous line: `reverse` walks memory downwards from `in`/`out`.
  void (*line)(line_state<A>&, const T* in, T* out, bool reverse, std::size_t n, bool exclusive,
               bool stream) noexcept;
  /// Rows of running values: see scalar::scan_columns. `next_in`: where the next call
  /// reads its first rows (the same row stride), prefetched with the last rows; or null.
  void (*columns)(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                  std::size_t width, std::size_t rows, A* acc, bool exclusive, bool starts_are_carries,
                  bool stream, const T* next_in) noexcept;
  /// The total of a contiguous block, bitwise as `line` combines it.
  A (*reduce)(const T* in, bool reverse, std::size_t n) noexcept;
  /// A tile to strided output: element (a, b) at tile[a * pitch + b] goes to
  /// out[a * stride_a + b * stride_b].
  void (*scatter)(const T* tile, std::size_t n_a, std::size_t n_b, std::size_t pitch, T* out, std::ptrdiff_t stride_a,
                  std::ptrdiff_t stride_b, bool stream) noexcept;
  /// `count` lines of `n` elements (n <= short_line_max) packed one after the other from
  /// `in`/`out` (the lowest addresses); `reverse` scans each line towards lower addresses.
  void (*short_lines)(const T* in, T* out, std::size_t n, std::size_t count, bool reverse, bool exclusive,
                      bool stream) noexcept;
  /// A reverse short_lines call on lines shorter than this takes them first to last (up
  /// through memory), on longer ones last first; short_lines_job orders its tasks alike, so
  /// that memory is one stream either way.
  std::size_t short_lines_upwards_below;
  /// Any line with its own strides.
  void (*strided)(line_state<A>&, const T* in, std::ptrdiff_t in_step, T* out, std::ptrdiff_t out_step,
                  std::size_t n, bool exclusive) noexcept;
  /// `line` with every NaN element read as the empty value, +0 or 1 (nancumsum,
  /// nancumprod); null where the target has no such kernel (the scalar target, integers).
  void (*line_nan_as_empty)(line_state<A>&, const T* in, T* out, bool reverse, std::size_t n, bool exclusive,
                            bool stream) noexcept;
};

/// The kernel tables of target V: `table<Op, T>` points at them, or is null where this
/// build does not compile V. Each kernels/<target>/target.hpp specializes it.
template <simd_variant V>
struct target_kernels {
  template <class Op, class T>
  static constexpr const kernel_set<Op, T>* table = nullptr;
};

/// Registers namespace detail::`name`'s `kernels<Op, T>` as the tables of target `name`
/// (used once in each target's folder, inside namespace detail).
#define TALLY_REGISTER_TARGET_KERNELS(name)                                 \
  template <>                                                               \
  struct target_kernels<simd_variant::name> {                               \
    template <class Op, class T>                                            \
    static constexpr const kernel_set<Op, T>* table = &name::kernels<Op, T>; \
  };

}  // namespace detail
TALLY_END_NAMESPACE
