// What the libFuzzer targets share besides the reference (tests/support/reference.hpp):
// reading the fuzz bytes, a seeded generator for buffer contents, the data values the
// reference can check exactly, how a finding is reported, and the typed targets' strided
// layouts (decoded sizes and strides, exact address checks).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

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

/// The most elements a typed target's buffers hold together.
constexpr std::int64_t max_arena_elements = 1 << 18;

inline std::size_t decode_size(byte_reader& r) {
  const std::uint8_t b = r.u8();
  if (b < 0xd0) return 1 + b % 4u;
  if (b < 0xe0) return 0;
  if (b < 0xf0) return 5 + r.u8() % 60u;
  return 64 + r.u16() % 2000u;
}

/// A view's layout before it is placed: signed strides, and the lowest and highest
/// element offsets it reaches from its base.
struct layout {
  std::size_t rank = 0;
  std::size_t sizes[9] = {};
  std::ptrdiff_t strides[9] = {};
  std::int64_t low = 0, high = 0;
  bool empty() const {
    for (std::size_t d = 0; d < rank; ++d)
      if (sizes[d] == 0) return true;
    return false;
  }
};

/// Strides for `sizes`: packed, a permutation with padding and random signs, small
/// arbitrary signed values (broadcasts and interleavings), or packed with one dimension
/// reversed or broadcast.
inline layout decode_layout(byte_reader& r, std::size_t rank, const std::size_t* sizes) {
  layout l;
  l.rank = rank;
  std::copy(sizes, sizes + rank, l.sizes);
  const std::uint8_t mode = r.u8() % 4;
  if (mode == 2) {
    for (std::size_t d = 0; d < rank; ++d) l.strides[d] = static_cast<std::int8_t>(r.u8()) % 7;
  } else {
    std::vector<std::pair<std::uint8_t, std::size_t>> order;
    for (std::size_t d = 0; d < rank; ++d) order.push_back({mode == 1 ? r.u8() : std::uint8_t{0}, d});
    std::stable_sort(order.begin(), order.end());
    std::int64_t running = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::size_t d = order[k].second;
      l.strides[d] = running;
      running = running * static_cast<std::int64_t>(std::max<std::size_t>(sizes[d], 1));
      if (running > max_arena_elements) running = max_arena_elements + 1;  // too big: skipped by the caller
      if (mode == 1) {
        running += r.u8() % 3;
        if (r.u8() & 1) l.strides[d] = -l.strides[d];
      }
    }
    if (mode == 3 && rank > 0) {
      const std::uint8_t b = r.u8();
      l.strides[b % rank] = (b & 0x80) ? 0 : -l.strides[b % rank];
    }
  }
  // NumPy allows any stride on a dimension that never steps (size 0 or 1), so some are
  // hostile: the extreme small strides of mode 2 become the extremes of ptrdiff_t there
  // (no extra input byte, so the corpus decodes as before).
  for (std::size_t d = 0; d < rank; ++d)
    if (sizes[d] <= 1 && (l.strides[d] == 6 || l.strides[d] == -6 || l.strides[d] == 5 || l.strides[d] == -5))
      l.strides[d] = l.strides[d] == 6    ? PTRDIFF_MAX
                     : l.strides[d] == -6 ? PTRDIFF_MIN
                     : l.strides[d] == 5  ? PTRDIFF_MAX - 1
                                          : PTRDIFF_MIN + 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) continue;
    const std::int64_t reach = static_cast<std::int64_t>(sizes[d] - 1) * l.strides[d];
    (reach < 0 ? l.low : l.high) += reach;
  }
  return l;
}

/// True when every index tuple of the layout has its own address (exact, by enumeration).
inline bool distinct_addresses(const layout& l) {
  if (l.empty()) return true;
  std::vector<bool> seen(static_cast<std::size_t>(l.high - l.low + 1));
  bool distinct = true;
  tally_test::for_each_index(l.rank, l.sizes, [&](const std::size_t* index) {
    const auto offset = static_cast<std::size_t>(tally_test::offset_of(l.rank, index, l.strides) - l.low);
    distinct = !seen[offset];
    seen[offset] = true;
    return distinct;  // the first shared address ends the walk (the span bounds it)
  });
  return distinct;
}

inline bool interleaving(const layout& l) {
  std::uint64_t sizes[9];
  std::int64_t strides[9];
  for (std::size_t d = 0; d < l.rank; ++d) {
    sizes[d] = l.sizes[d];
    strides[d] = l.strides[d];
  }
  return tally_test::interleaves(static_cast<std::uint32_t>(l.rank), sizes, strides);
}

}  // namespace fuzz
