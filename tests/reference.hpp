// An independent, deliberately dead-simple scalar reference for tally's scans.
//
// It shares nothing with the library but tally::half's conversions (the rounding rule the
// numeric contract names): no layout normalization, no blocks, no kernels. Every line is
// walked by multi-index with the caller's signed strides and accumulated strictly in
// sequence. The tests compare tally against it bitwise where the arithmetic is exact and
// within the classic error bound otherwise.
#pragma once

#include <tally/half.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace tally_test {

/// Which cumulative operator.
enum class scan_op { sum, product };

/// Accumulator and carry types of the numeric contract, restated independently:
/// integers wrap in their own width (computed here in uint64 and truncated), float16
/// accumulates in float32 and carries float32, float and double accumulate in themselves.
template <class T, bool = std::is_integral_v<T>>
struct ref_traits {
  using acc = T;
  using carry = T;
  static acc to_acc(T x) { return x; }
  static T from_acc(acc a) { return a; }
  static acc from_carry(carry c) { return c; }
  static carry to_carry(acc a) { return a; }
};

template <>
struct ref_traits<tally::half, false> {
  using acc = float;
  using carry = float;
  static acc to_acc(tally::half x) { return static_cast<float>(x); }
  static tally::half from_acc(acc a) { return tally::half(a); }  // rounds on every write
  static acc from_carry(carry c) { return c; }
  static carry to_carry(acc a) { return a; }
};

template <class T>
struct ref_traits<T, true> {
  using acc = std::uint64_t;
  using carry = T;
  // Sign-extends signed values; only the low bits of the sum/product matter after truncation.
  static acc to_acc(T x) { return static_cast<std::uint64_t>(x); }
  static T from_acc(acc a) {
    const auto low = static_cast<std::make_unsigned_t<T>>(a);  // modular truncation
    T result;
    std::memcpy(&result, &low, sizeof result);  // reinterpret, no out-of-range conversion
    return result;
  }
  static acc from_carry(carry c) { return to_acc(c); }
  static carry to_carry(acc a) { return from_acc(a); }
};

template <class A>
A ref_combine(scan_op op, A a, A b) {
  return op == scan_op::sum ? A(a + b) : A(a * b);
}

/// The running value before the first element: -0.0 for float sums (so that a line of
/// -0.0 sums to -0.0), 0 for integer sums, 1 for products.
template <class A>
A ref_identity(scan_op op) {
  if (op == scan_op::product) return A(1);
  if constexpr (std::is_floating_point_v<A>)
    return -A(0);
  else
    return A(0);
}

/// The value an exclusive scan writes first without a carry: +0 or 1.
template <class A>
A ref_empty(scan_op op) {
  return op == scan_op::product ? A(1) : A(0);
}

/// Calls `line(base)` for every line along `axis`: `base` is the multi-index of the
/// line's element 0 (its axis entry is 0).
template <class F>
void for_each_line(std::size_t rank, const std::size_t* sizes, std::size_t axis, F&& line) {
  for (std::size_t d = 0; d < rank; ++d)
    if (sizes[d] == 0) return;
  std::vector<std::size_t> index(rank, 0);
  for (;;) {
    line(index.data());
    std::size_t d = rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (d == axis) continue;
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

/// Offset in elements of a multi-index.
inline std::ptrdiff_t offset_of(std::size_t rank, const std::size_t* index, const std::ptrdiff_t* strides) {
  std::ptrdiff_t offset = 0;
  for (std::size_t d = 0; d < rank; ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides[d];
  return offset;
}

/// Sequential reference scan. `in`/`out` point at element (0,...,0) and are walked with
/// their signed strides; `out` must not alias `in` (the tests pass a separate array).
/// Carries are optional; their strides are given at full rank and the axis entry is
/// ignored. The carry-out is the total of the whole line including the carry-in, also in
/// exclusive mode.
template <class T>
void reference_scan(scan_op op, std::size_t rank, const std::size_t* sizes, std::size_t axis, bool decreasing,
                    bool exclusive, const T* in, const std::ptrdiff_t* in_strides, T* out,
                    const std::ptrdiff_t* out_strides,
                    const typename ref_traits<T>::carry* carry_in = nullptr,
                    const std::ptrdiff_t* carry_in_strides = nullptr,
                    typename ref_traits<T>::carry* carry_out = nullptr,
                    const std::ptrdiff_t* carry_out_strides = nullptr) {
  using traits = ref_traits<T>;
  using A = typename traits::acc;
  const std::size_t length = sizes[axis];
  std::vector<std::ptrdiff_t> carry_in_s(rank, 0), carry_out_s(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    if (carry_in_strides && d != axis) carry_in_s[d] = carry_in_strides[d];
    if (carry_out_strides && d != axis) carry_out_s[d] = carry_out_strides[d];
  }
  for_each_line(rank, sizes, axis, [&](const std::size_t* base) {
    const std::ptrdiff_t in0 = offset_of(rank, base, in_strides);
    const std::ptrdiff_t out0 = offset_of(rank, base, out_strides);
    A acc = carry_in ? traits::from_carry(carry_in[offset_of(rank, base, carry_in_s.data())]) : ref_identity<A>(op);
    for (std::size_t j = 0; j < length; ++j) {
      const std::size_t i = decreasing ? length - 1 - j : j;
      const T x = in[in0 + static_cast<std::ptrdiff_t>(i) * in_strides[axis]];
      T& y = out[out0 + static_cast<std::ptrdiff_t>(i) * out_strides[axis]];
      if (exclusive) {
        y = traits::from_acc(j == 0 && !carry_in ? ref_empty<A>(op) : acc);
        acc = ref_combine(op, acc, traits::to_acc(x));
      } else {
        acc = ref_combine(op, acc, traits::to_acc(x));
        y = traits::from_acc(acc);
      }
    }
    if (carry_out) carry_out[offset_of(rank, base, carry_out_s.data())] = traits::to_carry(acc);
  });
}

/// One output of the wide (long double) reference: the sequential value, the number of
/// terms combined (n) and the sum of their magnitudes (for the error bound).
struct wide_value {
  long double value = 0;
  std::size_t terms = 0;
  long double magnitude = 0;  // sum |x| for sums, |value| for products
};

template <class T>
long double to_wide(T x) {
  if constexpr (std::is_same_v<T, tally::half>)
    return static_cast<long double>(static_cast<float>(x));
  else
    return static_cast<long double>(x);
}

/// Sequential scan in long double (no carries), written packed in logical row-major order.
template <class T>
std::vector<wide_value> wide_reference_scan(scan_op op, std::size_t rank, const std::size_t* sizes,
                                            std::size_t axis, bool decreasing, bool exclusive, const T* in,
                                            const std::ptrdiff_t* in_strides) {
  std::size_t count = 1;
  std::vector<std::ptrdiff_t> packed(rank);
  for (std::size_t d = rank; d-- > 0;) {
    packed[d] = static_cast<std::ptrdiff_t>(count);
    count *= sizes[d];
  }
  std::vector<wide_value> out(count);
  const std::size_t length = sizes[axis];
  for_each_line(rank, sizes, axis, [&](const std::size_t* base) {
    const std::ptrdiff_t in0 = offset_of(rank, base, in_strides);
    const std::ptrdiff_t out0 = offset_of(rank, base, packed.data());
    long double acc = op == scan_op::sum ? 0.0L : 1.0L, magnitude = 0;
    for (std::size_t j = 0; j < length; ++j) {
      const std::size_t i = decreasing ? length - 1 - j : j;
      const long double x = to_wide(in[in0 + static_cast<std::ptrdiff_t>(i) * in_strides[axis]]);
      wide_value& y = out[static_cast<std::size_t>(out0 + static_cast<std::ptrdiff_t>(i) * packed[axis])];
      if (exclusive) y = {acc, j, op == scan_op::sum ? magnitude : std::fabs(acc)};
      acc = op == scan_op::sum ? acc + x : acc * x;
      magnitude += std::fabs(x);
      if (!exclusive) y = {acc, j + 1, op == scan_op::sum ? magnitude : std::fabs(acc)};
    }
  });
  return out;
}

}  // namespace tally_test
