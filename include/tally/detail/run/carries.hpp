// What every job shares: the operands of a scan, the walk over its outer dimensions, and
// the carries (where a line starts, where its total goes).
#pragma once

#include <cstddef>

#include "../kernels/line_state.hpp"
#include "../layout/normalize.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// The base pointers of a scan, already moved by the layout's offsets.
template <class T>
struct scan_operands {
  const T* in = nullptr;
  T* out = nullptr;
  const carry_t<T>* carry_in = nullptr;  // optional: per-line start values
  carry_t<T>* carry_out = nullptr;       // optional: per-line totals
};

/// An odometer over the first `dims` outer dimensions of `l`, at row-major position `linear`.
inline nd_walker<operand_count> outer_walker(const scan_layout& l, std::size_t dims, std::size_t linear) noexcept {
  nd_walker<operand_count> w;
  w.dims = dims;
  for (std::size_t d = 0; d < dims; ++d) {
    w.extents[d] = l.outer[d].size;
    for (int op = 0; op < operand_count; ++op) w.strides[op][d] = l.outer[d].stride[op];
  }
  w.start(linear);
  return w;
}

/// The carries of a scan: each line starts from its carry_in (or the identity) and
/// leaves its total in carry_out.
template <class Op, class T>
struct line_carries {
  using A = acc_t<T>;
  scan_operands<T> p;

  /// The start of a line: its carry, or the identity.
  A start_value(std::ptrdiff_t carry_offset) const noexcept {
    return p.carry_in ? acc_from_carry<T>(p.carry_in[carry_offset]) : Op::template identity<A>();
  }
  line_state<A> line_start(std::ptrdiff_t carry_offset) const noexcept {
    const A start = start_value(carry_offset);
    return line_state<A>::template begin<Op>(start, p.carry_in ? start : Op::template empty<A>());
  }
  void finish_line(std::ptrdiff_t carry_offset, const line_state<A>& s) const noexcept {
    if (p.carry_out) p.carry_out[carry_offset] = carry_from_acc<T>(s.template total<Op>());
  }
  void finish_column(std::ptrdiff_t carry_offset, A total) const noexcept {
    if (p.carry_out) p.carry_out[carry_offset] = carry_from_acc<T>(total);
  }
};

/// carry_out = carry_in (or the identity) for every line of a request whose axis is
/// empty: each line's total is its start.
template <class Op, class T>
void pass_carries(const scan_request& r, const carry_t<T>* carry_in, carry_t<T>* carry_out) noexcept {
  nd_walker<2> w;
  std::size_t lines = 1;
  for (std::size_t d = 0; d < r.rank; ++d) {
    if (d == r.axis) continue;
    w.extents[w.dims] = r.extents[d];
    w.strides[0][w.dims] = r.strides[carry_in_operand][d];
    w.strides[1][w.dims] = r.strides[carry_out_operand][d];
    ++w.dims;
    lines *= r.extents[d];
  }
  if (lines == 0) return;
  w.start(0);
  for (std::size_t i = 0; i < lines; ++i, w.next())
    carry_out[w.offset[1]] = r.has_carry_in ? carry_in[w.offset[0]]
                                            : carry_from_acc<T>(Op::template identity<acc_t<T>>());
}

}  // namespace detail
TALLY_END_NAMESPACE
