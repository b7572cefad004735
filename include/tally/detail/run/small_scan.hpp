// The small-call fast path: a scan of packed (row-major) operands small enough to stay in
// L1, with no carries, runs straight on the kernels, with no normalization, plan or
// executor, so a call on a few elements costs about what its loop costs. It is only
// taken where the general path would have planned exactly this too: one task on one
// thread, no streaming (and the shape's arithmetic is the same, so results are too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../scan_options.hpp"
#include "../../view.hpp"
#include "../dispatch/kernel_table.hpp"
#include "../plan/plan.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Whether `strides` (elements) are the packed row-major strides of `extents`.
template <class Stride>
bool is_packed(std::size_t rank, const std::size_t* extents, const Stride* strides) noexcept {
  std::size_t step = 1;
  for (std::size_t d = rank; d-- > 0;) {
    if (extents[d] != 1 && static_cast<std::ptrdiff_t>(strides[d]) != static_cast<std::ptrdiff_t>(step)) return false;
    step *= extents[d];
  }
  return true;
}

/// Runs the scan when it is small (see above) and returns true; else returns false having
/// done nothing. `in` and `out` are packed with these extents, and either the same
/// buffer or disjoint.
template <class Op, class T>
bool small_scan(const T* in, T* out, std::size_t rank, const std::size_t* extents, std::size_t axis, bool decreasing,
                bool exclusive) noexcept {
  using A = acc_t<T>;
  std::size_t before = 1, after = 1;  // elements of the dimensions before and after the axis
  for (std::size_t d = 0; d < axis; ++d) before *= extents[d];
  for (std::size_t d = axis + 1; d < rank; ++d) after *= extents[d];
  const std::size_t n = extents[axis], count = before * n * after;
  if (count == 0 || count * sizeof(T) > tuning::small_call_bytes || after > column_tile<T>()) return false;
  const kernel_set<Op, T>& kernels = select_kernels<Op, T>();
  const auto last = static_cast<std::ptrdiff_t>(n) - 1;
  if (after == 1 && n <= short_line_max && before > 1) {
    kernels.short_lines(in, out, n, before, decreasing, exclusive, false);
  } else if (after == 1) {
    for (std::size_t line = 0; line < before; ++line) {
      const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(line * n) + (decreasing ? last : 0);
      auto state = line_state<A>::template begin<Op>(Op::template identity<A>(), Op::template empty<A>());
      kernels.line(state, in + start, out + start, decreasing, n, exclusive, false);
    }
  } else {
    const auto row = static_cast<std::ptrdiff_t>(after);
    alignas(64) A acc[column_tile<T>()];
    for (std::size_t block = 0; block < before; ++block) {
      const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(block * n * after) + (decreasing ? last * row : 0);
      kernels.columns(in + start, decreasing ? -row : row, out + start, decreasing ? -row : row, after, n, acc,
                      exclusive, false, false, nullptr);
    }
  }
  return true;
}

/// A small call's shape: packed operands, at most tuning::small_call_bytes.
struct small_shape {
  std::size_t rank = 0, axis = 0;
  std::size_t extents[max_rank];
  bool decreasing = false, exclusive = false;
};

/// The typed layer's way in: the same conditions checked on the views themselves, so a
/// small call skips the general validation too (every rule it enforces holds for packed,
/// equal-shaped, same-or-disjoint views with a valid axis and direction, no
/// include_initial and a valid accuracy). False for anything else.
template <class T>
bool small_shape_of(const tensor_view<const T>& in, const tensor_view<T>& out, int axis, const scan_options& options,
                    small_shape& shape) noexcept {
  const std::size_t rank = in.rank();
  const auto signed_rank = static_cast<int>(rank);
  if (rank == 0 || rank != out.rank() || axis < -signed_rank || axis >= signed_rank) return false;
  if (options.direction != axis_direction::increasing && options.direction != axis_direction::decreasing) return false;
  if (options.include_initial) return false;  // its own output shape and rules: the general path
  if (options.accuracy != scan_accuracy::fast && options.accuracy != scan_accuracy::exact) return false;
  std::ptrdiff_t in_strides[max_rank], out_strides[max_rank];
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (in.extent(d) != out.extent(d)) return false;
    shape.extents[d] = in.extent(d);
    in_strides[d] = in.stride(d);
    out_strides[d] = out.stride(d);
    count *= shape.extents[d];
  }
  const std::size_t bytes = count * sizeof(T);
  if (count == 0 || bytes > tuning::small_call_bytes) return false;
  if (!is_packed(rank, shape.extents, in_strides) || !is_packed(rank, shape.extents, out_strides)) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(in.data()), b = reinterpret_cast<std::uintptr_t>(out.data());
  if (a != b && a < b + bytes && b < a + bytes) return false;  // partly overlapping: the general path stages
  shape.rank = rank;
  shape.axis = static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis);
  shape.decreasing = options.direction == axis_direction::decreasing;
  shape.exclusive = options.exclusive;
  return true;
}

/// The SIMD engine's small calls (scan_accuracy::fast, and every type without an exact mode).
template <class Op, class T>
bool small_typed_scan(const tensor_view<const T>& in, const tensor_view<T>& out, int axis,
                      const scan_options& options) noexcept {
  if ((std::is_same_v<T, float> || std::is_same_v<T, double>) && options.accuracy != scan_accuracy::fast) return false;
  small_shape s;
  return small_shape_of(in, out, axis, options, s) &&
         small_scan<Op, T>(in.data(), out.data(), s.rank, s.extents, s.axis, s.decreasing, s.exclusive);
}

}  // namespace detail
TALLY_END_NAMESPACE
