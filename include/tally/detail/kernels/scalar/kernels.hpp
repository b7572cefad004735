// Portable kernels: plain C++ that any compiler can vectorize across columns. They are
// the reference shape of every SIMD target, a target of their own (the only one off
// x86-64), and the strided kernel of every target.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "../kernel_set.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace scalar {

/// Scans `n` elements of one line, `in_step`/`out_step` elements apart, continuing `s`.
template <class Op, class T>
void scan_strided(line_state<acc_t<T>>& s, const T* in, std::ptrdiff_t in_step, T* out,
                  std::ptrdiff_t out_step, std::size_t n, bool exclusive) noexcept {
  using A = acc_t<T>;
  if constexpr (sequential_order_v<Op, T>) {  // one running value, no blocks
    A running = Op::combine(s.offset, s.local), last = s.last;
    for (std::size_t i = 0; i < n; ++i, in += in_step, out += out_step) {
      running = Op::combine(running, to_acc(*in));
      *out = from_acc<T>(exclusive ? last : running);
      last = running;
    }
    s = line_state<A>{running, Op::template identity<A>(), last, 0};
    return;
  }
  A offset = s.offset, local = s.local, last = s.last;
  std::size_t position = s.position;
  for (std::size_t i = 0; i < n; ++i) {
    const A x = to_acc(*in);
    local = Op::combine(local, x);
    const A inclusive = Op::combine(offset, local);
    *out = from_acc<T>(exclusive ? last : inclusive);
    last = inclusive;
    if (++position == block_elements) {
      offset = inclusive;
      local = Op::template identity<A>();
      position = 0;
    }
    in += in_step;
    out += out_step;
  }
  s.offset = offset;
  s.local = local;
  s.last = last;
  s.position = position;
}

/// A contiguous line, walking memory downwards when `reverse`.
template <class Op, class T>
void scan_contiguous(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse, std::size_t n, bool exclusive,
                     bool /*stream*/) noexcept {
  scan_strided<Op, T>(s, in, reverse ? -1 : 1, out, reverse ? -1 : 1, n, exclusive);
}

/// The block-local total of `n` contiguous elements, combined in the order scan_strided uses.
template <class Op, class T>
acc_t<T> reduce_contiguous(const T* in, bool reverse, std::size_t n) noexcept {
  const std::ptrdiff_t step = reverse ? -1 : 1;
  acc_t<T> local = Op::template identity<acc_t<T>>();
  for (std::size_t i = 0; i < n; ++i, in += step) local = Op::combine(local, to_acc(*in));
  return local;
}

/// Packed short lines (see kernel_set::short_lines): the plain nested loop, which is what
/// these lines need when a target has no segmented in-register scan.
template <class Op, class T>
void scan_short_lines(const T* in, T* out, std::size_t n, std::size_t count, bool reverse, bool exclusive,
                      bool /*stream*/) noexcept {
  using A = acc_t<T>;
  if (n == 1) {  // lines of one element: a copy, or the empty value (as the SIMD targets')
    if (exclusive)
      std::fill(out, out + count, from_acc<T>(Op::template empty<A>()));
    else if (out != in)
      std::memcpy(static_cast<void*>(out), in, count * sizeof(T));
    return;
  }
  const std::ptrdiff_t step = reverse ? -1 : 1;
  const std::size_t first = reverse ? n - 1 : 0;
  for (std::size_t c = 0; c < count; ++c) {
    const T* p = in + c * n + first;
    T* q = out + c * n + first;
    A running = Op::template identity<A>(), last = Op::template empty<A>();
    for (std::size_t j = 0; j < n; ++j, p += step, q += step) {
      running = Op::combine(running, to_acc(*p));
      *q = from_acc<T>(exclusive ? last : running);
      last = running;
    }
  }
}

/// Axis outer, `width` contiguous columns: row k of every column combines into the
/// running row `acc` and is written out. `acc` holds each column's start when the starts
/// are caller carries; otherwise it is not read, and every column starts at the identity.
/// In exclusive mode row 0 receives `acc` itself when the starts are caller carries, else
/// the empty value (+0 rather than the internal -0 identity of float sums).
template <class Op, class T>
void scan_columns(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                  std::size_t width, std::size_t rows, acc_t<T>* acc, bool exclusive,
                  bool starts_are_carries, bool /*stream*/, const T* /*next_in*/) noexcept {
  using A = acc_t<T>;
  if (!starts_are_carries) std::fill_n(acc, width, Op::template identity<A>());
  for (std::size_t k = 0; k < rows; ++k) {
    const T* row_in = in + static_cast<std::ptrdiff_t>(k) * in_row_stride;
    T* row_out = out + static_cast<std::ptrdiff_t>(k) * out_row_stride;
    if (exclusive) {
      const bool empty_row = k == 0 && !starts_are_carries;
      for (std::size_t j = 0; j < width; ++j) {
        const A x = to_acc(row_in[j]);  // read before the write: in place is safe
        row_out[j] = from_acc<T>(empty_row ? Op::template empty<A>() : acc[j]);
        acc[j] = Op::combine(acc[j], x);
      }
    } else {
      for (std::size_t j = 0; j < width; ++j) {
        acc[j] = Op::combine(acc[j], to_acc(row_in[j]));
        row_out[j] = from_acc<T>(acc[j]);
      }
    }
  }
}

/// Copies a tile, element (a, b) at tile[a * pitch + b], to out[a * stride_a + b * stride_b],
/// walking the output along its smaller stride.
template <class T>
void scatter_tile(const T* tile, std::size_t n_a, std::size_t n_b, std::size_t pitch, T* out,
                  std::ptrdiff_t stride_a, std::ptrdiff_t stride_b, bool /*stream*/ = false) noexcept {
  if (std::abs(stride_b) <= std::abs(stride_a)) {
    for (std::size_t a = 0; a < n_a; ++a)
      for (std::size_t b = 0; b < n_b; ++b)
        out[static_cast<std::ptrdiff_t>(a) * stride_a + static_cast<std::ptrdiff_t>(b) * stride_b] = tile[a * pitch + b];
  } else {
    for (std::size_t b = 0; b < n_b; ++b)
      for (std::size_t a = 0; a < n_a; ++a)
        out[static_cast<std::ptrdiff_t>(a) * stride_a + static_cast<std::ptrdiff_t>(b) * stride_b] = tile[a * pitch + b];
  }
}

template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>,  &scan_columns<Op, T>,    &reduce_contiguous<Op, T>,
                                           &scatter_tile<T>,          &scan_short_lines<Op, T>, short_line_max + 1,
                                           &scan_strided<Op, T>,      nullptr};

}  // namespace scalar

TALLY_REGISTER_TARGET_KERNELS(scalar)

}  // namespace detail
TALLY_END_NAMESPACE
