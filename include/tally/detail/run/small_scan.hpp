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

/// A small call's shape: packed operands seen as `before` blocks of `length` rows of
/// `after` elements, scanned along the rows.
struct small_shape {
  std::size_t before = 1, length = 0, after = 1;
  bool decreasing = false, exclusive = false;

  std::size_t count() const noexcept { return before * length * after; }
};

/// The shape of packed extents scanned along `axis`.
inline small_shape small_shape_from(std::size_t rank, const std::size_t* extents, std::size_t axis, bool decreasing,
                                    bool exclusive) noexcept {
  small_shape s;
  for (std::size_t d = 0; d < axis; ++d) s.before *= extents[d];
  for (std::size_t d = axis + 1; d < rank; ++d) s.after *= extents[d];
  s.length = extents[axis];
  s.decreasing = decreasing;
  s.exclusive = exclusive;
  return s;
}

/// Runs the scan when it is small (see above) and returns true; else returns false having
/// done nothing. `in` and `out` are packed with this shape, and either the same buffer or
/// disjoint.
template <class Op, class T>
bool small_scan(const T* in, T* out, const small_shape& s) noexcept {
  using A = acc_t<T>;
  const std::size_t n = s.length, before = s.before, after = s.after, count = s.count();
  if (count == 0 || count * sizeof(T) > tuning::small_call_bytes || after > column_tile<T>()) return false;
  const kernel_set<Op, T>& kernels = select_kernels<Op, T>();
  const auto last = static_cast<std::ptrdiff_t>(n) - 1;
  if (after == 1 && n <= short_line_max && before > 1) {
    kernels.short_lines(in, out, n, before, s.decreasing, s.exclusive, false);
  } else if (after == 1) {
    for (std::size_t line = 0; line < before; ++line) {
      const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(line * n) + (s.decreasing ? last : 0);
      auto state = line_state<A>::template begin<Op>(Op::template identity<A>(), Op::template empty<A>());
      kernels.line(state, in + start, out + start, s.decreasing, n, s.exclusive, false);
    }
  } else {
    const auto row = static_cast<std::ptrdiff_t>(after);
    alignas(64) A acc[column_tile<T>()];
    for (std::size_t block = 0; block < before; ++block) {
      const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(block * n * after) + (s.decreasing ? last * row : 0);
      kernels.columns(in + start, s.decreasing ? -row : row, out + start, s.decreasing ? -row : row, after, n, acc,
                      s.exclusive, false, false, nullptr);
    }
  }
  return true;
}

/// The typed layer's way in: the same conditions checked on the views themselves, in one
/// pass over the dimensions, so a small call skips the general validation too (every rule
/// it enforces holds for packed, equal-shaped, same-or-disjoint views with a valid axis
/// and direction, no include_initial and a valid accuracy). False for anything else.
/// (The vocabulary's wider outputs, In != Out, take it too: disjoint views only.)
/// Inlined, so that the shape stays in registers: returned through memory, it cost an
/// 8x8 exact cumsum 3 to 5 ns of its 40.
template <class In, class Out>
TALLY_ALWAYS_INLINE bool small_shape_of(const tensor_view<const In>& in, const tensor_view<Out>& out, int axis,
                                        const scan_options& options, small_shape& shape) noexcept {
  constexpr std::size_t widest = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
  const std::size_t rank = in.rank();
  const auto signed_rank = static_cast<int>(rank);
  if (rank == 0 || rank != out.rank() || axis < -signed_rank || axis >= signed_rank) return false;
  if (options.direction != axis_direction::increasing && options.direction != axis_direction::decreasing) return false;
  if (options.include_initial) return false;  // its own output shape and rules: the general path
  if (options.accuracy != scan_accuracy::fast && options.accuracy != scan_accuracy::exact) return false;
  const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis);
  std::size_t step = 1;  // the packed stride of dimension d, then the elements from d on
  for (std::size_t d = rank; d-- > 0;) {
    const std::size_t e = in.extent(d);
    if (e != out.extent(d)) return false;
    const auto packed = static_cast<std::ptrdiff_t>(step);
    if (e != 1 && (in.stride(d) != packed || out.stride(d) != packed)) return false;
    if (d > a) shape.after *= e;
    if (d < a) shape.before *= e;
    step *= e;
    if (step * widest > tuning::small_call_bytes) return false;
  }
  // (A view's element count fits in 64 bits, so no product above wrapped, unless an
  // extent is 0: then the last one is 0, whatever the others were.)
  if (step == 0) return false;
  const auto first = reinterpret_cast<std::uintptr_t>(in.data()), second = reinterpret_cast<std::uintptr_t>(out.data());
  const bool in_place = first == second && std::is_same_v<In, Out>;
  if (!in_place && first < second + step * sizeof(Out) && second < first + step * sizeof(In))
    return false;  // partly overlapping: staged
  shape.length = in.extent(a);
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
  return small_shape_of(in, out, axis, options, s) && small_scan<Op, T>(in.data(), out.data(), s);
}

}  // namespace detail
TALLY_END_NAMESPACE
