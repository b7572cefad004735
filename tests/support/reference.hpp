// The one independent reference (oracle) of tally's tests and fuzzers.
//
// Written from the spec of the cumulative operators (its sections are cited below),
// deliberately dead simple and sharing no code with the library: no layout normalization, no blocks, no kernels,
// no tally conversions. It uses only the storage type tally::half (its `bits`); float16
// values are encoded and decoded here, by arithmetic on doubles (ldexp, nearbyint) rather
// than by bit manipulation. A bug in tally therefore cannot hide in its own checker, and a
// numeric rule changes here, once, for every test.
//
// Contents, top to bottom:
//   - DirectML's element types and buffer rules (element sizes by data_type value,
//     DMLCalcBufferTensorSize in 128 bits, packed strides, the no-interleaving rule);
//   - walking a layout: multi-indices, lines along an axis, offsets;
//   - scan_line: the one statement of what direction, exclusive mode and carries mean;
//   - reference_scan: the sequential scan in the accumulator of the numeric contract,
//     over any signed strides, with optional carries (tests compare bitwise where exact);
//   - wide_reference_scan: the same in long double with what the error bound needs;
//   - exact_scan_line: exact values for the fuzzers' data, by data_type value over raw
//     bytes, with the elements whose value depends on the order of the arithmetic left
//     unchecked (see "Exact values" below);
//   - the scan vocabulary (shared/spec/scan-vocabulary.md): bfloat16 by arithmetic on
//     doubles, vocabulary_line (what direction, exclusive, include_initial and resets
//     mean for every operator), and the operators' oracles: sums and products into a
//     wider type, NaN-skipping ones, cummax / cummin by brute force over each prefix,
//     logcumsumexp in long double over each prefix.
#pragma once

#include <tally/bfloat16.hpp>
#include <tally/half.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace tally_test {

/// Which cumulative operator.
enum class scan_op { sum, product };

// 128-bit integers: the buffer rules are computed where nothing can wrap.
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

// ---------------------------------------------------------------------------------------
// DirectML's element types (spec section 4), by data_type value

/// Element size in bytes of a data_type value; 0 for unknown (0) and unsupported values.
inline std::uint32_t element_bytes(std::uint32_t type) {
  switch (type) {
    case 5: case 8: return 1;            // uint8, int8
    case 2: case 4: case 7: return 2;    // float16, uint16, int16
    case 1: case 3: case 6: return 4;    // float32, uint32, int32
    case 9: case 10: case 11: return 8;  // float64, uint64, int64
    default: return 0;
  }
}

/// float32 = 1, float16 = 2, float64 = 9.
inline bool is_float_type(std::uint32_t type) { return type == 1 || type == 2 || type == 9; }

// ---------------------------------------------------------------------------------------
// float16 (IEEE 754 binary16), by arithmetic on doubles

/// binary16 bits -> double (exact).
inline double half_to_double(std::uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double magnitude;
  if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  return negative ? -magnitude : magnitude;
}

/// double -> binary16 bits, rounded to nearest, ties to even, subnormals kept, overflow
/// to infinity. A NaN becomes the quiet NaN 0x7e00 with its sign (payloads are not
/// modelled: no test compares a NaN's payload).
inline std::uint16_t double_to_half(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  double a = std::fabs(v);
  if (a >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7c00u);  // Inf, or rounds past 65504
  if (a == 0.0) return sign;
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit has weight 2^(e-1)
  const int quantum_exp = std::max(e - 1, -14) - 10;                  // spacing of halfs near a
  const double units = std::nearbyint(std::ldexp(a, -quantum_exp));  // ties to even (default mode)
  a = std::ldexp(units, quantum_exp);
  if (a >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (a < std::ldexp(1.0, -14))  // subnormal: units of 2^-24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 24)));
  std::frexp(a, &e);
  const int biased = e - 1 + 15;
  const auto mantissa = static_cast<std::uint32_t>(std::ldexp(a, -(e - 1) + 10)) - 1024u;
  return static_cast<std::uint16_t>(sign | (biased << 10) | mantissa);
}

// ---------------------------------------------------------------------------------------
// Buffer rules (spec sections 3 and 5)

/// DirectML's buffer size for `elements` elements (the highest element index + 1) of
/// `element_size` bytes: rounded up to a multiple of 4.
inline u128 buffer_bytes(u128 elements, std::uint32_t element_size) { return (elements * element_size + 3) / 4 * 4; }

/// DMLCalcBufferTensorSize: 0 for an invalid type, rank or size, or a result at or above
/// 2^64. `strides` null means packed. Computed in 128 bits; a packed element count is
/// checked for overflow after every factor (8 sizes of 2^32 - 1 would wrap 128 bits).
inline std::uint64_t min_buffer_bytes(std::uint32_t type, std::uint32_t rank, const std::uint32_t* sizes,
                                      const std::uint32_t* strides) {
  const std::uint32_t bytes = element_bytes(type);
  if (!sizes || bytes == 0 || rank < 1 || rank > 8) return 0;
  for (std::uint32_t d = 0; d < rank; ++d)
    if (sizes[d] == 0) return 0;
  u128 elements = 1;
  if (strides) {
    u128 last = 0;  // each term is below 2^64, eight of them fit easily
    for (std::uint32_t d = 0; d < rank; ++d) last += static_cast<u128>(sizes[d] - 1u) * strides[d];
    elements = last + 1;
  } else {
    for (std::uint32_t d = 0; d < rank; ++d) {
      elements *= sizes[d];
      if ((elements >> 64) != 0) return 0;
    }
  }
  const u128 total = buffer_bytes(elements, bytes);
  return (total >> 64) != 0 ? 0 : static_cast<std::uint64_t>(total);
}

/// Effective element strides of a descriptor: `strides` itself, or packed row-major ones
/// when it is null. Only for layouts whose minimum size fits (so nothing wraps).
inline void effective_strides(std::uint32_t rank, const std::uint32_t* sizes, const std::uint32_t* strides,
                              std::uint64_t* out) {
  std::uint64_t packed = 1;
  for (std::uint32_t d = rank; d-- > 0;) {
    out[d] = strides ? strides[d] : packed;
    packed *= sizes[d];
  }
}

/// DirectML's "no two output elements at one address" rule as tally documents it: over
/// the dimensions of size > 1 sorted by |stride|, each stride must reach past the span of
/// the smaller ones. Conservative: it also refuses a few exotic disjoint interleavings.
inline bool interleaves(std::uint32_t rank, const std::uint64_t* sizes, const std::int64_t* strides) {
  std::vector<std::pair<u128, std::uint64_t>> dims;  // (|stride|, size)
  for (std::uint32_t d = 0; d < rank; ++d)
    if (sizes[d] > 1) {
      const i128 s = strides[d];
      dims.push_back({static_cast<u128>(s < 0 ? -s : s), sizes[d]});
    }
  std::sort(dims.begin(), dims.end());
  u128 span = 1;
  for (const auto& [stride, size] : dims) {
    if (stride < span) return true;
    span += stride * (size - 1);
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Walking a layout

/// Packed row-major strides of `sizes` (in elements).
inline std::vector<std::ptrdiff_t> packed_strides(std::size_t rank, const std::size_t* sizes) {
  std::vector<std::ptrdiff_t> strides(rank);
  std::ptrdiff_t running = 1;
  for (std::size_t d = rank; d-- > 0;) {
    strides[d] = running;
    running *= static_cast<std::ptrdiff_t>(sizes[d]);
  }
  return strides;
}

/// Offset in elements of a multi-index.
template <class Stride>
std::ptrdiff_t offset_of(std::size_t rank, const std::size_t* index, const Stride* strides) {
  std::ptrdiff_t offset = 0;
  for (std::size_t d = 0; d < rank; ++d)
    offset += static_cast<std::ptrdiff_t>(index[d]) * static_cast<std::ptrdiff_t>(strides[d]);
  return offset;
}

namespace reference_detail {

/// The odometer: f(index) for every multi-index of `sizes` in row-major order, with the
/// entry `held` kept at 0 (held >= rank: none). Nothing when a walked size is 0. When f
/// returns bool, false stops the walk.
template <class F>
void walk(std::size_t rank, const std::size_t* sizes, std::size_t held, F& f) {
  for (std::size_t d = 0; d < rank; ++d)
    if (d != held && sizes[d] == 0) return;
  std::vector<std::size_t> index(rank, 0);
  for (;;) {
    if constexpr (std::is_same_v<decltype(f(static_cast<const std::size_t*>(index.data()))), bool>) {
      if (!f(static_cast<const std::size_t*>(index.data()))) return;
    } else {
      f(static_cast<const std::size_t*>(index.data()));
    }
    std::size_t d = rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (d == held) continue;
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace reference_detail

/// Calls f(index) for every multi-index of `sizes`, row-major; nothing for an empty
/// tensor. If f returns bool, false stops the walk.
template <class F>
void for_each_index(std::size_t rank, const std::size_t* sizes, F&& f) {
  reference_detail::walk(rank, sizes, rank, f);
}

/// Calls f(base) for every line along `axis`: `base` is the multi-index of the line's
/// element 0 (its axis entry is 0). A zero-length axis still has its lines (they pass
/// the carry-in, or the identity, to the carry-out); a zero size elsewhere has none.
template <class F>
void for_each_line(std::size_t rank, const std::size_t* sizes, std::size_t axis, F&& f) {
  reference_detail::walk(rank, sizes, axis, f);
}

// ---------------------------------------------------------------------------------------
// One line

/// A line of `length` elements in scan order, the single statement of what the
/// direction, the mode and a carry mean, shared by every scan in this file. `running` is
/// the value before the first element: the identity, or the carry-in. An inclusive scan
/// writes the running value after each element; an exclusive one writes `first` (the
/// carry-in, else +0 or 1) and then the running value before each element.
/// add(running, i) folds element i in; write(i, running) stores output i. Returns the
/// total, which is the carry-out: it includes the carry-in, in both modes.
template <class Acc, class Add, class Write>
Acc scan_line(std::size_t length, bool decreasing, bool exclusive, Acc running, const Acc& first, Add&& add,
              Write&& write) {
  for (std::size_t step = 0; step < length; ++step) {
    const std::size_t i = decreasing ? length - 1 - step : step;
    if (exclusive) {
      write(i, step == 0 ? first : running);
      add(running, i);
    } else {
      add(running, i);
      write(i, running);
    }
  }
  return running;
}

// ---------------------------------------------------------------------------------------
// The sequential reference in the numeric contract's accumulators (spec section 4)

/// Accumulator and carry types of the numeric contract, restated independently:
/// integers wrap in their own width (computed here in uint64 and truncated), float16
/// accumulates in float32, rounds to float16 on every write and carries float32, float
/// and double accumulate in themselves.
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
  static acc to_acc(tally::half x) { return static_cast<float>(half_to_double(x.bits)); }  // exact
  static tally::half from_acc(acc a) { return tally::half::from_bits(double_to_half(a)); }  // rounds every write
  static acc from_carry(carry c) { return c; }
  static carry to_carry(acc a) { return a; }
};

/// The integer T whose bits are the low bits of `value` (modular truncation, also for
/// signed T: reinterpreted, never an out-of-range conversion).
template <class T>
T wrap_to(std::uint64_t value) {
  const auto low = static_cast<std::make_unsigned_t<T>>(value);
  T result;
  std::memcpy(&result, &low, sizeof result);
  return result;
}

template <class T>
struct ref_traits<T, true> {
  using acc = std::uint64_t;
  using carry = T;
  // Sign-extends signed values; only the low bits of the sum/product matter after truncation.
  static acc to_acc(T x) { return static_cast<std::uint64_t>(x); }
  static T from_acc(acc a) { return wrap_to<T>(a); }
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

/// Sequential reference scan. `in`/`out` point at element (0,...,0) and are walked with
/// their signed strides; `out` must not alias `in` (the tests pass a separate array).
/// Carries are optional; their strides are given at full rank and the axis entry is
/// ignored. The carry-out is the total of the whole line including the carry-in, also in
/// exclusive mode and for a zero-length axis.
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
  std::vector<std::ptrdiff_t> carry_in_s(rank, 0), carry_out_s(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    if (carry_in_strides && d != axis) carry_in_s[d] = carry_in_strides[d];
    if (carry_out_strides && d != axis) carry_out_s[d] = carry_out_strides[d];
  }
  for_each_line(rank, sizes, axis, [&](const std::size_t* base) {
    const std::ptrdiff_t in0 = offset_of(rank, base, in_strides);
    const std::ptrdiff_t out0 = offset_of(rank, base, out_strides);
    const A start = carry_in ? traits::from_carry(carry_in[offset_of(rank, base, carry_in_s.data())])
                             : ref_identity<A>(op);
    const A total = scan_line(
        sizes[axis], decreasing, exclusive, start, carry_in ? start : ref_empty<A>(op),
        [&](A& acc, std::size_t i) {
          acc = ref_combine(op, acc, traits::to_acc(in[in0 + static_cast<std::ptrdiff_t>(i) * in_strides[axis]]));
        },
        [&](std::size_t i, A acc) {
          out[out0 + static_cast<std::ptrdiff_t>(i) * out_strides[axis]] = traits::from_acc(acc);
        });
    if (carry_out) carry_out[offset_of(rank, base, carry_out_s.data())] = traits::to_carry(total);
  });
}

/// reference_scan of a packed row-major tensor, returned packed.
template <class T>
std::vector<T> reference_scan_packed(scan_op op, const std::vector<std::size_t>& sizes, std::size_t axis,
                                     bool decreasing, bool exclusive, const std::vector<T>& x) {
  const std::vector<std::ptrdiff_t> strides = packed_strides(sizes.size(), sizes.data());
  std::vector<T> y(x.size());
  reference_scan<T>(op, sizes.size(), sizes.data(), axis, decreasing, exclusive, x.data(), strides.data(), y.data(),
                    strides.data());
  return y;
}

// ---------------------------------------------------------------------------------------
// The wide reference, for the error bound of inexact data

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
    return static_cast<long double>(half_to_double(x.bits));
  else
    return static_cast<long double>(x);
}

/// Sequential scan in long double (no carries), written packed in logical row-major order.
template <class T>
std::vector<wide_value> wide_reference_scan(scan_op op, std::size_t rank, const std::size_t* sizes,
                                            std::size_t axis, bool decreasing, bool exclusive, const T* in,
                                            const std::ptrdiff_t* in_strides) {
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) count *= sizes[d];
  const std::vector<std::ptrdiff_t> packed = packed_strides(rank, sizes);
  std::vector<wide_value> out(count);
  struct running {
    long double value;
    std::size_t terms;
    long double magnitude;  // sum |x|
  };
  const running start{op == scan_op::sum ? 0.0L : 1.0L, 0, 0};
  for_each_line(rank, sizes, axis, [&](const std::size_t* base) {
    const std::ptrdiff_t in0 = offset_of(rank, base, in_strides);
    const std::ptrdiff_t out0 = offset_of(rank, base, packed.data());
    scan_line(
        sizes[axis], decreasing, exclusive, start, start,
        [&](running& acc, std::size_t i) {
          const long double x = to_wide(in[in0 + static_cast<std::ptrdiff_t>(i) * in_strides[axis]]);
          acc.value = op == scan_op::sum ? acc.value + x : acc.value * x;
          acc.terms += 1;
          acc.magnitude += std::fabs(x);
        },
        [&](std::size_t i, const running& acc) {
          out[static_cast<std::size_t>(out0 + static_cast<std::ptrdiff_t>(i) * packed[axis])] = {
              acc.value, acc.terms, op == scan_op::sum ? acc.magnitude : std::fabs(acc.value)};
        });
  });
  return out;
}

// ---------------------------------------------------------------------------------------
// Exact values (the fuzzers' reference), by data_type value over raw bytes
//
// For data in a small exact domain, the exact value of every prefix is known whatever
// order tally combines the elements in, so results compare bitwise without tolerance:
// float sums of small integers (|x| <= 8, and -0.0: every partial sum of any summation
// tree is far below 2^24, and a zero sum is -0.0 exactly when every term is -0.0), and
// float products of 0, -0.0, +-1, +-2 (every partial product is +-2^k or a signed zero).
// A product with more factors of 2 than the accumulator's exponent range (k above 127 for
// float32/float16, whose accumulator is float32; 1023 for float64) depends on the order,
// also when a zero makes the exact value 0 (a block's product overflows to inf, and
// inf * 0 is NaN: tally's blocked kernels do give NaN there), so such elements are
// unchecked. Integers take any bits (modular arithmetic in 64 bits, truncated).

/// Aborts: the caller handed exact values data outside their domain (a harness bug).
[[noreturn]] inline void outside_exact_domain(const char* what) {
  std::fprintf(stderr, "tests/support/reference.hpp: %s\n", what);
  std::abort();
}

/// Reads one element's raw bits (little or big endian: whatever the host stores).
inline std::uint64_t load_bits(const unsigned char* p, std::uint32_t bytes) {
  std::uint64_t v = 0;
  switch (bytes) {
    case 1: { std::uint8_t x; std::memcpy(&x, p, 1); v = x; break; }
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
    default: std::memcpy(&v, p, 8); break;
  }
  return v;
}

inline void store_bits(unsigned char* p, std::uint32_t bytes, std::uint64_t v) {
  switch (bytes) {
    case 1: { auto x = static_cast<std::uint8_t>(v); std::memcpy(p, &x, 1); break; }
    case 2: { auto x = static_cast<std::uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case 4: { auto x = static_cast<std::uint32_t>(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

/// A float element as a double (type 1, 2 or 9).
inline double load_float(const unsigned char* p, std::uint32_t type) {
  if (type == 2) return half_to_double(static_cast<std::uint16_t>(load_bits(p, 2)));
  if (type == 1) { float f; std::memcpy(&f, p, 4); return f; }
  double d; std::memcpy(&d, p, 8); return d;
}

/// Stores an exactly representable (for float16: rounded) double as a float element.
inline void store_float(unsigned char* p, std::uint32_t type, double v) {
  if (type == 2) { store_bits(p, 2, double_to_half(v)); return; }
  if (type == 1) { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
  std::memcpy(p, &v, 8);
}

/// One element as read: its bits for integers, its value for floats.
struct element_value {
  std::uint64_t b = 0;
  double f = 0;
};

inline element_value read_element(const unsigned char* p, std::uint32_t type) {
  element_value v;
  if (is_float_type(type)) v.f = load_float(p, type);
  else v.b = load_bits(p, element_bytes(type));
  return v;
}

/// The exact running value of one line, in the representation the data allows.
struct exact_value {
  std::uint32_t type = 0;
  bool product = false;
  std::uint64_t bits = 0;         // integers: modular value in 64 bits
  std::int64_t sum = 0;           // float sums: exact integer value
  bool all_negative_zero = true;  // float sums: every term so far was -0.0 (the identity is -0.0)
  bool zero = false, negative = false;  // float products: +-0 or +-2^k
  std::int64_t exponent = 0;

  /// The identity of the operator: -0.0 (float sums), 0 (integer sums) or 1.
  exact_value(std::uint32_t t, bool p) : type(t), product(p), bits(p ? 1 : 0) {}

  /// What an exclusive scan writes first without a carry: +0 or 1.
  static exact_value empty(std::uint32_t t, bool p) {
    exact_value v(t, p);
    if (!p) v.all_negative_zero = false;
    return v;
  }

  /// Combines one more element (or a carry-in: the identity combined with c is exactly c).
  void add(const element_value& x) {
    if (is_float_type(type)) add_float(x.f);
    else add_bits(x.b);
  }

  void add_bits(std::uint64_t x) { bits = product ? bits * x : bits + x; }

  void add_float(double v) {
    if (!(v == std::floor(v)) || std::fabs(v) > 8) outside_exact_domain("float data is not a small integer");
    if (product) {
      const double a = std::fabs(v);
      if (a == 0) zero = true;
      else if (a == 2) ++exponent;
      else if (a != 1) outside_exact_domain("float product data is not 0, +-1 or +-2");
      negative = negative != std::signbit(v);
    } else {
      all_negative_zero = all_negative_zero && v == 0 && std::signbit(v);
      sum += static_cast<std::int64_t>(v);
    }
  }

  /// The exact value as a double, or false when it is order dependent (overflowed product).
  bool float_value(double& out) const {
    if (product) {
      // With more than `limit` factors of 2, some multiplication order overflows to inf,
      // and inf * 0 is NaN: even a line with a zero is order dependent then.
      const std::int64_t limit = type == 9 ? 1023 : 127;
      if (exponent > limit) return false;
      if (zero) { out = negative ? -0.0 : 0.0; return true; }
      out = std::ldexp(negative ? -1.0 : 1.0, static_cast<int>(exponent));
      return true;
    }
    out = (sum == 0 && all_negative_zero) ? -0.0 : static_cast<double>(sum);
    return true;
  }
};

/// Writes an exact value as an element of `type`; false when it is not checkable (then
/// nothing is written).
inline bool write_element(unsigned char* p, std::uint32_t type, const exact_value& r) {
  if (is_float_type(type)) {
    double v;
    if (!r.float_value(v)) return false;
    store_float(p, type, v);
    return true;
  }
  store_bits(p, element_bytes(type), r.bits);  // truncation to the width = modular result
  return true;
}

/// What one line is: its type, operator, mode, direction and length.
struct line_spec {
  std::uint32_t type;
  bool product, exclusive, decreasing;
  std::uint64_t length;
};

/// Scans one line exactly: read(i) returns element i's element_value, write(i, value)
/// receives output i's exact_value (write_element encodes it). `carry_in` (nullptr: the
/// identity) is read as the accumulator's type (float32 for float16). Returns the total.
template <class Read, class Write>
exact_value exact_scan_line(const line_spec& s, Read&& read, Write&& write, const element_value* carry_in) {
  exact_value start(s.type, s.product);
  if (carry_in) start.add(*carry_in);
  return scan_line(
      static_cast<std::size_t>(s.length), s.decreasing, s.exclusive, start,
      carry_in ? start : exact_value::empty(s.type, s.product),
      [&](exact_value& acc, std::size_t i) { acc.add(read(static_cast<std::uint64_t>(i))); },
      [&](std::size_t i, const exact_value& acc) { write(static_cast<std::uint64_t>(i), acc); });
}

// ---------------------------------------------------------------------------------------
// The scan vocabulary (shared/spec/scan-vocabulary.md)

/// bfloat16 bits -> double (exact).
inline double bfloat16_to_double(std::uint16_t b) {
  const bool negative = (b & 0x8000u) != 0;
  const int exponent = (b >> 7) & 0xff;
  const int mantissa = b & 0x7f;
  double magnitude;
  if (exponent == 255)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -133);
  else
    magnitude = std::ldexp(static_cast<double>(128 + mantissa), exponent - 134);
  return negative ? -magnitude : magnitude;
}

/// double -> bfloat16 bits, rounded to nearest, ties to even, subnormals kept, overflow to
/// infinity; a NaN becomes the quiet NaN 0x7fc0 with its sign.
inline std::uint16_t double_to_bfloat16(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7fc0u);
  double a = std::fabs(v);
  if (a == 0.0) return sign;
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | 0x7f80u);
  int e;
  std::frexp(a, &e);
  const int quantum_exp = std::max(e - 1, -126) - 7;
  a = std::ldexp(std::nearbyint(std::ldexp(a, -quantum_exp)), quantum_exp);
  if (a >= std::ldexp(1.0, 128)) return static_cast<std::uint16_t>(sign | 0x7f80u);
  if (a < std::ldexp(1.0, -126)) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 133)));
  std::frexp(a, &e);
  const int biased = e - 1 + 127;
  const auto mantissa = static_cast<std::uint32_t>(std::ldexp(a, -(e - 1) + 7)) - 128u;
  return static_cast<std::uint16_t>(sign | (biased << 7) | mantissa);
}

/// Any element as a double (complex excluded): the value the vocabulary's oracles compare.
template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, tally::half>)
    return half_to_double(x.bits);
  else if constexpr (std::is_same_v<T, tally::bfloat16>)
    return bfloat16_to_double(x.bits);
  else
    return static_cast<double>(x);
}

/// One line of any vocabulary operator, the single statement of what the direction,
/// exclusive, include_initial and reset flags mean. Returns the outputs in the output's
/// index order (length + 1 of them with include_initial: the extra one, `empty`, comes
/// first in the scan's direction). add(state, i) folds input i in; value(state) is what an
/// output holds; reset(i) is true where a new segment starts.
template <class Out, class State, class Add, class Value, class Reset>
std::vector<Out> vocabulary_line(std::size_t length, bool decreasing, bool exclusive, bool include_initial,
                                 const State& start, const Out& empty, Add&& add, Value&& value, Reset&& reset) {
  std::vector<Out> out(length + (include_initial ? 1 : 0), empty);
  State s = start;
  bool fresh = true;
  for (std::size_t step = 0; step < length; ++step) {
    const std::size_t i = decreasing ? length - 1 - step : step;
    if (reset(i)) {
      s = start;
      fresh = true;
    }
    const std::size_t at = include_initial && !decreasing ? i + 1 : i;
    if (exclusive) {
      out[at] = fresh ? empty : value(s);
      add(s, i);
    } else {
      add(s, i);
      out[at] = value(s);
    }
    fresh = false;
  }
  return out;
}

/// The running value of a sum or product whose output type is Out, restated: integers
/// wrap in Out's width (uint64, truncated), half and bfloat16 accumulate in float32 and
/// round on every write, float, double and complex accumulate in themselves.
template <class Out>
struct running_of {
  using type = std::conditional_t<std::is_integral_v<Out>, std::uint64_t,
                                  std::conditional_t<std::is_same_v<Out, tally::half> ||
                                                         std::is_same_v<Out, tally::bfloat16>,
                                                     float, Out>>;
};

/// Element x of type In as Out's running value ("converted to Out first").
template <class Out, class In>
typename running_of<Out>::type to_running(In x) {
  using R = typename running_of<Out>::type;
  if constexpr (std::is_integral_v<Out>)
    return static_cast<std::uint64_t>(static_cast<Out>(x));  // In is an integer no wider than Out
  else if constexpr (std::is_same_v<In, tally::half> || std::is_same_v<In, tally::bfloat16>)
    return static_cast<R>(to_double(x));
  else
    return static_cast<R>(x);
}

template <class Out>
Out from_running(typename running_of<Out>::type a) {
  if constexpr (std::is_integral_v<Out>)
    return wrap_to<Out>(a);
  else if constexpr (std::is_same_v<Out, tally::half>)
    return tally::half::from_bits(double_to_half(a));
  else if constexpr (std::is_same_v<Out, tally::bfloat16>)
    return tally::bfloat16::from_bits(double_to_bfloat16(a));
  else
    return a;
}

template <class T>
bool ref_is_nan(const T& x) {
  if constexpr (std::is_integral_v<T>)
    return false;
  else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return std::isnan(x.real()) || std::isnan(x.imag());
  else
    return std::isnan(to_double(x));
}

/// Options of one vocabulary line.
struct line_mode {
  bool decreasing = false, exclusive = false, include_initial = false;
};

/// cumsum / cumprod (nan: nancumsum / nancumprod, NaN replaced by +0 / 1 first) of one
/// line of In into Out; `resets` (empty: none) flags segment starts.
template <class In, class Out>
std::vector<Out> arithmetic_line(scan_op op, bool nan, const std::vector<In>& x, line_mode m,
                                 const std::vector<std::uint8_t>& resets = {}) {
  using R = typename running_of<Out>::type;
  const R empty = op == scan_op::product ? R(1) : R(0);
  // NumPy's fold: the first element as it is, then running (op) next.
  struct state {
    bool any;
    R value;
  };
  return vocabulary_line<Out, state>(
      x.size(), m.decreasing, m.exclusive, m.include_initial, state{false, empty}, from_running<Out>(empty),
      [&](state& s, std::size_t i) {
        const R v = nan && ref_is_nan(x[i]) ? empty : to_running<Out>(x[i]);
        s.value = !s.any ? v : op == scan_op::sum ? R(s.value + v) : R(s.value * v);
        s.any = true;
      },
      [&](const state& s) { return from_running<Out>(s.value); },
      [&](std::size_t i) { return !resets.empty() && resets[i]; });
}

/// cummax (max) / cummin of one line: for each output, the prefix (in scan order) is
/// searched afresh: its first NaN if it has one, else the element scanned last among
/// those equal to the extremum. Returns the indices (the values are x at them).
template <class T>
std::vector<std::int64_t> extremum_line(bool max, const std::vector<T>& x, bool decreasing) {
  const std::size_t n = x.size();
  std::vector<std::int64_t> result(n);
  const auto at_step = [&](std::size_t step) { return decreasing ? n - 1 - step : step; };
  for (std::size_t step = 0; step < n; ++step) {
    std::int64_t chosen = -1;
    for (std::size_t k = 0; k <= step && chosen < 0; ++k)
      if (ref_is_nan(x[at_step(k)])) chosen = static_cast<std::int64_t>(at_step(k));
    if (chosen < 0) {
      double best = to_double(x[at_step(0)]);
      for (std::size_t k = 1; k <= step; ++k) {
        const double v = to_double(x[at_step(k)]);
        if (max ? v > best : v < best) best = v;
      }
      for (std::size_t k = 0; k <= step; ++k)
        if (to_double(x[at_step(k)]) == best) chosen = static_cast<std::int64_t>(at_step(k));
    }
    result[decreasing ? n - 1 - step : step] = chosen;
  }
  return result;
}

/// logcumsumexp of one line in long double, each output from its whole prefix afresh:
/// NaN if the prefix has a NaN, +inf if it has +inf, else m + log(sum exp(x - m)) with m
/// the prefix maximum (-inf for a prefix of -infs or an empty one).
template <class T>
std::vector<long double> logcumsumexp_line(const std::vector<T>& x, line_mode m) {
  const long double minus_inf = -std::numeric_limits<long double>::infinity();
  return vocabulary_line<long double, std::vector<long double>>(
      x.size(), m.decreasing, m.exclusive, m.include_initial, {}, minus_inf,
      [&](std::vector<long double>& prefix, std::size_t i) { prefix.push_back(to_double(x[i])); },
      [&](const std::vector<long double>& prefix) {
        long double high = minus_inf;
        for (long double v : prefix) {
          if (std::isnan(v)) return std::numeric_limits<long double>::quiet_NaN();
          high = std::max(high, v);
        }
        if (std::isinf(high)) return high;
        long double sum = 0;
        for (long double v : prefix) sum += std::exp(v - high);
        return high + std::log(sum);
      },
      [](std::size_t) { return false; });
}

}  // namespace tally_test
