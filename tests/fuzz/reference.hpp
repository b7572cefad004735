/// @file
/// @brief The fuzzers' own scalar reference: validity rules, minimum buffer sizes, a
/// float16 codec and one-line scans, written from the spec without using tally's code,
/// so that a bug in tally's implementation cannot hide itself in its own checker.
///
/// Exactness: the fuzzers put only small integers (|x| <= 8, and -0.0) into float sums,
/// and only 0, -0.0, +-1, +-2 into float products. Every partial sum then fits in the
/// 24-bit float mantissa and every partial product is +-2^k, so any summation tree tally
/// uses gives the same bits as the exact value computed here; results are compared
/// bitwise. A product with more factors of 2 than the accumulator's exponent range (k
/// above 127 for float/half, 1023 for double) depends on the multiplication order, also
/// when a zero makes the exact value 0 (a block product overflows to inf, inf * 0 is
/// NaN: tally's blocked kernels do give NaN there), so such elements are unchecked.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace fuzzref {

/// Aborts with a message: libFuzzer reports the abort as a finding with the input.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "FUZZ PROPERTY VIOLATED: %s\n", what);
  std::abort();
}

/// DirectML's element sizes by data type value (spec section 4); 0 = unsupported.
inline std::uint32_t element_bytes(std::uint32_t type) {
  switch (type) {
    case 5: case 8: return 1;           // uint8, int8
    case 2: case 4: case 7: return 2;   // float16, uint16, int16
    case 1: case 3: case 6: return 4;   // float32, uint32, int32
    case 9: case 10: case 11: return 8; // float64, uint64, int64
    default: return 0;
  }
}

/// float16 = 2, float32 = 1, float64 = 9.
inline bool is_float_type(std::uint32_t type) { return type == 1 || type == 2 || type == 9; }

// ---- float16 codec, by arithmetic on doubles rather than by bit manipulation ----

/// binary16 bits -> double (exact).
inline double half_to_double(std::uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double magnitude;
  if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  return negative ? -magnitude : magnitude;
}

/// double -> binary16 bits, round to nearest, ties to even; finite inputs only.
inline std::uint16_t double_to_half(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  double a = std::fabs(v);
  if (a >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (a == 0.0) return sign;
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit has weight 2^(e-1)
  const int quantum_exp = std::max(e - 1, -14) - 10;      // spacing of halfs near a
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

// ---- element codec ----

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

/// Stores an exactly representable (for half: rounded) double as a float element.
inline void store_float(unsigned char* p, std::uint32_t type, double v) {
  if (type == 2) { store_bits(p, 2, double_to_half(v)); return; }
  if (type == 1) { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
  std::memcpy(p, &v, 8);
}

/// A data value the fuzzers put into float tensors (see the file comment).
inline double small_float_value(std::uint64_t random, bool product) {
  if (product) {
    static const double table[8] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 1.0, -1.0};
    return table[random % 8];
  }
  const int v = static_cast<int>(random % 18) - 8;  // -8..9; 9 means -0.0
  return v == 9 ? -0.0 : static_cast<double>(v);
}

// ---- one line ----

/// The exact running value of one line, in the representation the data allows.
struct running {
  std::uint32_t type = 0;
  bool product = false;
  std::uint64_t bits = 0;   // integers: modular value in 64 bits
  std::int64_t sum = 0;     // float sums: exact integer value
  bool all_negative_zero = true;  // float sums: every term so far was -0.0 (the identity is -0.0)
  bool zero = false, negative = false;  // float products: +-0 or +-2^k
  std::int64_t exponent = 0;

  running(std::uint32_t t, bool p) : type(t), product(p) { bits = p ? 1 : 0; }

  /// Starts from a value instead of the identity (a typed-layer carry_in): the identity
  /// (-0.0 or 1) combined with v is exactly v, so this is one more term.
  void start_from_float(double v) { add_float(v); }

  void add_bits(std::uint64_t x) { bits = product ? bits * x : bits + x; }

  void add_float(double v) {
    if (!(v == std::floor(v)) || std::fabs(v) > 8) fail("harness: float data is not a small integer");
    if (product) {
      const double a = std::fabs(v);
      if (a == 0) zero = true;
      else if (a == 2) ++exponent;
      else if (a != 1) fail("harness: float product data is not 0, +-1 or +-2");
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

/// Scans one line. `in` and `out` point at the element for line index 0 and step by the
/// (byte) strides; `in_bytes` and `out_bytes` give the element sizes. Writes the expected
/// elements into `out` and sets checked[out_index] = 0 for unchecked ones when given.
/// `carry_in`: start value (nullptr: identity); `carry_out`: receives the total.
struct line_spec {
  std::uint32_t type;
  bool product, exclusive, decreasing;
  std::uint64_t length;
};

/// Visits the line in scan order and calls write(position, value-or-nullopt) for each.
template <class Read, class Write>
void scan_line(const line_spec& s, Read read, Write write, const double* carry_in_float,
               const std::uint64_t* carry_in_bits, running* total_out) {
  running acc(s.type, s.product);
  const bool is_float = is_float_type(s.type);
  if (carry_in_float) acc.start_from_float(*carry_in_float);
  if (carry_in_bits) acc.bits = *carry_in_bits;
  // The exclusive first value: the identity +0 / 1, or the carry.
  running first(s.type, s.product);
  if (!s.product) first.all_negative_zero = false;  // an empty sum is written as +0
  if (carry_in_float || carry_in_bits) first = acc;
  for (std::uint64_t step = 0; step < s.length; ++step) {
    const std::uint64_t i = s.decreasing ? s.length - 1 - step : step;
    if (s.exclusive) {
      write(i, step == 0 ? first : acc);
      if (is_float) acc.add_float(read(i).f); else acc.add_bits(read(i).b);
    } else {
      if (is_float) acc.add_float(read(i).f); else acc.add_bits(read(i).b);
      write(i, acc);
    }
  }
  if (total_out) *total_out = acc;
}

/// What read() returns: bits for integers, the value for floats.
struct element_value {
  std::uint64_t b = 0;
  double f = 0;
};

inline element_value read_element(const unsigned char* p, std::uint32_t type) {
  element_value v;
  const std::uint32_t bytes = element_bytes(type);
  if (is_float_type(type)) v.f = load_float(p, type);
  else v.b = load_bits(p, bytes);
  return v;
}

/// Writes a running value as an element; false when it is not checkable (nothing written).
inline bool write_element(unsigned char* p, std::uint32_t type, const running& r) {
  if (is_float_type(type)) {
    double v;
    if (!r.float_value(v)) return false;
    store_float(p, type, v);
    return true;
  }
  store_bits(p, element_bytes(type), r.bits);  // truncation to the width = modular result
  return true;
}

// ---- descriptor rules (spec section 3 and 5) ----

/// DMLCalcBufferTensorSize in 128-bit arithmetic; 0 when invalid or above 2^64 - 1.
inline std::uint64_t min_buffer_bytes(std::uint32_t type, std::uint32_t rank, const std::uint32_t* sizes,
                                      const std::uint32_t* strides) {
  const std::uint32_t bytes = element_bytes(type);
  if (!sizes || bytes == 0 || rank < 1 || rank > 8) return 0;
  unsigned __int128 last = 0, packed = 1;
  for (std::uint32_t d = rank; d-- > 0;) {
    if (sizes[d] == 0) return 0;
    const unsigned __int128 stride = strides ? strides[d] : packed;
    last += static_cast<unsigned __int128>(sizes[d] - 1) * stride;
    packed *= sizes[d];
  }
  unsigned __int128 total = (last + 1) * bytes;
  total = (total + 3) / 4 * 4;
  if (total > UINT64_MAX) return 0;
  return static_cast<std::uint64_t>(total);
}

/// Effective element strides (packed when none), in 128 bits so nothing wraps.
inline void effective_strides(std::uint32_t rank, const std::uint32_t* sizes, const std::uint32_t* strides,
                              std::uint64_t* out) {
  std::uint64_t packed = 1;
  for (std::uint32_t d = rank; d-- > 0;) {
    out[d] = strides ? strides[d] : packed;
    packed *= sizes[d];  // only used when valid: fits because the minimum size fitted
  }
}

/// DirectML's "no two output elements at one address" rule as tally documents it: over
/// the dimensions of size > 1 sorted by stride, each stride must reach past the span of
/// the smaller ones. Conservative: it also refuses a few exotic disjoint interleavings.
inline bool interleaves(std::uint32_t rank, const std::uint64_t* sizes, const std::int64_t* strides) {
  std::vector<std::pair<unsigned __int128, std::uint64_t>> dims;  // (|stride|, size)
  for (std::uint32_t d = 0; d < rank; ++d)
    if (sizes[d] > 1)
      dims.push_back({static_cast<unsigned __int128>(strides[d] < 0 ? -static_cast<__int128>(strides[d])
                                                                    : static_cast<__int128>(strides[d])),
                      sizes[d]});
  std::sort(dims.begin(), dims.end());
  unsigned __int128 span = 1;
  for (const auto& [stride, size] : dims) {
    if (stride < span) return true;
    span += stride * (size - 1);
  }
  return false;
}

// ---- turning fuzz bytes into choices ----

/// Reads the fuzz input front to back; past its end every value is 0, so every input,
/// however short, decodes to some call.
struct byte_reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;

  std::uint8_t u8() { return pos < size ? data[pos++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | (static_cast<std::uint32_t>(u16()) << 16); }
  std::uint64_t u64() { return static_cast<std::uint64_t>(u32()) | (static_cast<std::uint64_t>(u32()) << 32); }
};

/// splitmix64: fills buffers from an 8-byte seed taken from the input, so that short
/// inputs still describe large tensors.
struct random_bits {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

/// Fills `bytes` bytes at `p` with elements of `type`: arbitrary bits for integers (and
/// for unsupported types), small exact values for floats (see the file comment).
inline void fill_elements(unsigned char* p, std::size_t bytes, std::uint32_t type, bool product,
                          random_bits& rng) {
  const std::uint32_t size = element_bytes(type);
  if (size == 0 || !is_float_type(type)) {
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      const std::uint64_t bits = rng.next();
      std::memcpy(p + i, &bits, 8);
    }
    for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.next());
    return;
  }
  std::size_t i = 0;
  for (; i + size <= bytes; i += size) store_float(p + i, type, small_float_value(rng.next(), product));
  for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.next());
}

}  // namespace fuzzref
