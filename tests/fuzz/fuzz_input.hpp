// What the two libFuzzer targets share besides the reference (tests/support/reference.hpp):
// reading the fuzz bytes, a seeded generator for buffer contents, the data values the
// reference can check exactly, and how a finding is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/reference.hpp"

namespace fuzz {

/// Aborts with a message: libFuzzer reports the abort as a finding with the input.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "FUZZ PROPERTY VIOLATED: %s\n", what);
  std::abort();
}

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

/// A data value for float tensors, inside the reference's exact domain (see "Exact
/// values" in tests/support/reference.hpp): 0, -0.0, +-1, +-2 for products; the integers
/// -8..8 and -0.0 for sums.
inline double small_float_value(std::uint64_t random, bool product) {
  if (product) {
    static const double table[8] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 1.0, -1.0};
    return table[random % 8];
  }
  const int v = static_cast<int>(random % 18) - 8;  // -8..9; 9 means -0.0
  return v == 9 ? -0.0 : static_cast<double>(v);
}

/// Fills `bytes` bytes at `p` with elements of data_type value `type`: arbitrary bits for
/// integers (and for unsupported types), small exact values for floats.
inline void fill_elements(unsigned char* p, std::size_t bytes, std::uint32_t type, bool product, random_bits& rng) {
  const std::uint32_t size = tally_test::element_bytes(type);
  if (size == 0 || !tally_test::is_float_type(type)) {
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      const std::uint64_t bits = rng.next();
      std::memcpy(p + i, &bits, 8);
    }
    for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.next());
    return;
  }
  std::size_t i = 0;
  for (; i + size <= bytes; i += size) tally_test::store_float(p + i, type, small_float_value(rng.next(), product));
  for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(rng.next());
}

}  // namespace fuzz
