// libFuzzer target for the descriptor layer (tally::validate / tally::execute).
//
// Arbitrary bytes become a cumulative summation or product descriptor (any type value,
// dimension count, sizes, strides, axis, direction, total sizes) and buffers allocated to
// exactly the declared total_tensor_size_in_bytes, so that any access past the declared
// end is an AddressSanitizer report. The property checked on every input:
//   - validate() is ok exactly when the reference rules (tests/support/reference.hpp)
//     say so;
//   - execute() is ok exactly when those rules and the buffer rules say so;
//   - a refused execute() leaves every buffer byte-for-byte unchanged;
//   - an accepted one writes exactly the reference result into the output elements and
//     nothing anywhere else (padding, the input buffer, the rounding slack).
// Declared sizes above 256 KiB are only validated: no buffer is passed that is smaller
// than declared. The input layout is documented in docs/hardening.md.
#include <tally/tally.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_input.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

namespace {

using fuzz::byte_reader;
using fuzz::fail;

constexpr std::uint64_t max_buffer_bytes = 1u << 18;  // 256 KiB: room for threads and long lines, still fast

std::uint32_t decode_type(byte_reader& r) {
  const std::uint8_t b = r.u8();
  // A supported type by enum value: b % 11 picks float32 (1) ... int64 (11).
  if (b < 0xe0) return static_cast<std::uint32_t>(tally_test::all_data_types[b % tally_test::type_count]);
  if (b < 0xff) return b & 0x1fu;  // 0, 12, 13 and other invalid values as well as valid ones
  return r.u32();
}

std::uint32_t decode_rank(byte_reader& r) {
  const std::uint8_t b = r.u8();
  if (b < 0xe0) return 1 + b % 8u;
  if (b < 0xff) return b & 0x0fu;  // 0..15: 0 and 9+ are invalid
  return r.u32();
}

std::uint32_t decode_descriptor_size(byte_reader& r) {  // DirectML sizes: uint32, 0 allowed
  const std::uint8_t b = r.u8();
  if (b < 0xc0) return 1 + b % 6u;
  if (b < 0xf0) return 1u + r.u8();
  if (b < 0xfe) return r.u16();
  if (b == 0xfe) return 0;
  return r.u32();
}

// Heap arrays of exactly `count` entries (count may be 0: a valid, non-null pointer to
// nothing), so that tally reading a sizes or strides entry past dimension_count is an
// ASan report.
using u32_array = std::unique_ptr<std::uint32_t[]>;

u32_array make_array(std::size_t count) { return u32_array(new std::uint32_t[count]()); }

u32_array decode_strides(byte_reader& r, std::size_t n, const std::uint32_t* sizes) {
  u32_array strides = make_array(n);
  const std::uint8_t mode = r.u8() % 4;
  if (mode == 0) {  // a permutation of packed strides, with padding
    std::vector<std::pair<std::uint8_t, std::size_t>> order;
    for (std::size_t d = 0; d < n; ++d) order.push_back({r.u8(), d});
    std::stable_sort(order.begin(), order.end());
    std::uint64_t running = 1;
    for (std::size_t k = n; k-- > 0;) {
      const std::size_t d = order[k].second;
      strides[d] = static_cast<std::uint32_t>(running);
      running = running * sizes[d] + r.u8() % 4;
    }
  } else if (mode == 1) {  // small arbitrary strides: broadcasts, overlaps, interleavings
    for (std::size_t d = 0; d < n; ++d) strides[d] = r.u8() % 8;
  } else if (mode == 2) {  // anything
    for (std::size_t d = 0; d < n; ++d) strides[d] = r.u32();
  } else {  // packed, scaled, with one broadcast dimension
    const std::uint32_t scale = 1 + r.u8() % 2;
    std::uint64_t running = 1;
    for (std::size_t d = n; d-- > 0;) {
      strides[d] = static_cast<std::uint32_t>(running * scale);
      running *= sizes[d];
    }
    if (n > 0) strides[r.u8() % n] = 0;
  }
  return strides;
}

std::uint64_t decode_total(byte_reader& r, std::uint64_t minimum) {
  const std::uint8_t mode = r.u8() % 4;
  if (mode == 2) return r.u64();
  if (minimum == 0) return r.u16();  // the layout itself is invalid
  if (mode == 0) return minimum;
  if (mode == 1) return minimum + r.u8();
  const std::uint64_t less = 1 + r.u8() % 4;
  return minimum > less ? minimum - less : 0;
}

// A host thread pool stand-in: runs the parts backwards on the calling thread, so a
// result that depended on the order of parts would show.
void reverse_pool(void*, std::size_t count, void (*task)(void*, std::size_t), void* context) {
  for (std::size_t i = count; i-- > 0;) task(context, i);
}

struct tensor {
  std::uint32_t type = 0, rank = 0;
  u32_array sizes, strides;
  std::size_t stored = 0;  // entries in sizes (and strides when present)
  std::uint64_t total = 0;
  tally::tensor_desc desc{};
  void bind() {
    desc.type = static_cast<tally::data_type>(type);
    desc.dimension_count = rank;
    desc.sizes = sizes.get();
    desc.strides = strides.get();
    desc.total_tensor_size_in_bytes = total;
  }
};

// The reference descriptor rules (spec section 5).
bool tensor_ok(const tally::tensor_desc* t) {
  if (!t || !t->sizes) return false;
  if (t->dimension_count < 1 || t->dimension_count > 8) return false;
  if (tally_test::element_bytes(static_cast<std::uint32_t>(t->type)) == 0) return false;
  for (std::uint32_t d = 0; d < t->dimension_count; ++d)
    if (t->sizes[d] == 0) return false;
  return true;
}

bool size_ok(const tally::tensor_desc& t) {
  const std::uint64_t need = tally_test::min_buffer_bytes(static_cast<std::uint32_t>(t.type), t.dimension_count,
                                                       t.sizes, t.strides);
  // tally additionally keeps every byte offset, and the declared total itself, within
  // ptrdiff_t: no object can be larger (its documented rule for hostile totals).
  return need != 0 && need <= static_cast<std::uint64_t>(INT64_MAX) && t.total_tensor_size_in_bytes >= need &&
         t.total_tensor_size_in_bytes <= static_cast<std::uint64_t>(INT64_MAX);
}

bool desc_ok(const tally::tensor_desc* in, const tally::tensor_desc* out, std::uint32_t axis, std::uint32_t direction) {
  if (!tensor_ok(in) || !tensor_ok(out)) return false;
  if (in->dimension_count != out->dimension_count || in->type != out->type) return false;
  for (std::uint32_t d = 0; d < in->dimension_count; ++d)
    if (in->sizes[d] != out->sizes[d]) return false;
  if (axis >= in->dimension_count || direction > 1) return false;
  if (!size_ok(*in) || !size_ok(*out)) return false;
  std::uint64_t sizes[8], strides[8];
  std::int64_t signed_strides[8];
  for (std::uint32_t d = 0; d < out->dimension_count; ++d) sizes[d] = out->sizes[d];
  tally_test::effective_strides(out->dimension_count, out->sizes, out->strides, strides);
  for (std::uint32_t d = 0; d < out->dimension_count; ++d) signed_strides[d] = static_cast<std::int64_t>(strides[d]);
  return !tally_test::interleaves(out->dimension_count, sizes, signed_strides);
}

bool buffers_ok(const tally::tensor_desc& in, const tally::tensor_desc& out, const unsigned char* input,
                const unsigned char* output) {
  if (!input || !output) return false;
  const std::uint32_t bytes = tally_test::element_bytes(static_cast<std::uint32_t>(in.type));
  const auto a = reinterpret_cast<std::uintptr_t>(input), b = reinterpret_cast<std::uintptr_t>(output);
  if (a % bytes != 0 || b % bytes != 0) return false;
  if (a + in.total_tensor_size_in_bytes <= b || b + out.total_tensor_size_in_bytes <= a) return true;
  // Overlapping: only the exact same binding is allowed (in place).
  if (a != b || in.total_tensor_size_in_bytes != out.total_tensor_size_in_bytes) return false;
  std::uint64_t si[8], so[8];
  tally_test::effective_strides(in.dimension_count, in.sizes, in.strides, si);
  tally_test::effective_strides(out.dimension_count, out.sizes, out.strides, so);
  for (std::uint32_t d = 0; d < in.dimension_count; ++d)
    if (si[d] != so[d]) return false;
  return true;
}

// One heap allocation whose end is where a descriptor says its buffer ends.
struct allocation {
  std::unique_ptr<unsigned char[]> data;
  std::size_t size = 0;
  std::vector<unsigned char> snapshot;
  explicit allocation(std::size_t n) : data(new unsigned char[n]), size(n) {}
};

// Computes the expected contents of the output allocation (already a copy of its
// snapshot) from the input snapshot, and marks unchecked bytes.
void expected_result(const tally::tensor_desc& in, const tally::tensor_desc& out, std::uint32_t axis,
                     bool decreasing, bool product, bool exclusive, const unsigned char* input_snapshot,
                     unsigned char* expected, std::vector<bool>& unchecked) {
  const std::uint32_t type = static_cast<std::uint32_t>(in.type);
  const std::uint32_t bytes = tally_test::element_bytes(type);
  const std::uint32_t rank = in.dimension_count;
  std::uint64_t si[8], so[8];
  tally_test::effective_strides(rank, in.sizes, in.strides, si);
  tally_test::effective_strides(rank, out.sizes, out.strides, so);
  std::size_t sizes[8];
  for (std::uint32_t d = 0; d < rank; ++d) sizes[d] = in.sizes[d];
  // The exact-distinctness check: the conservative rule must imply it.
  std::vector<bool> seen(out.total_tensor_size_in_bytes / bytes + 1);
  const tally_test::line_spec spec{type, product, exclusive, decreasing, in.sizes[axis]};
  tally_test::for_each_line(rank, sizes, axis, [&](const std::size_t* index) {
    const auto in_base = static_cast<std::uint64_t>(tally_test::offset_of(rank, index, si));
    const auto out_base = static_cast<std::uint64_t>(tally_test::offset_of(rank, index, so));
    auto read = [&](std::uint64_t i) {
      return tally_test::read_element(input_snapshot + (in_base + i * si[axis]) * bytes, type);
    };
    auto write = [&](std::uint64_t i, const tally_test::exact_value& value) {
      const std::uint64_t element = out_base + i * so[axis];
      if ((element + 1) * bytes > out.total_tensor_size_in_bytes) fail("an output element lies past the buffer");
      if (seen[element]) fail("tally accepted an output layout with two elements at one address");
      seen[element] = true;
      if (!tally_test::write_element(expected + element * bytes, type, value))
        for (std::uint32_t k = 0; k < bytes; ++k) unchecked[element * bytes + k] = true;
    };
    tally_test::exact_scan_line(spec, read, write, nullptr);
  });
}

void check_unchanged(const allocation& a, const char* what) {
  if (a.size != 0 && std::memcmp(a.data.get(), a.snapshot.data(), a.size) != 0) {
    std::fprintf(stderr, "%s\n", what);
    fail("a refused execute() changed a buffer");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  byte_reader r{data, size};
  const std::uint8_t flags = r.u8(), perturb = r.u8();
  const bool product = flags & 1, exclusive = flags & 2, in_place = flags & 4;
  const bool arena = (flags & 0x80) && !in_place;

  tensor in;
  in.type = decode_type(r);
  in.rank = decode_rank(r);
  const std::uint8_t axis_byte = r.u8();
  const std::uint32_t axis =
      axis_byte < 0xf0 ? static_cast<std::uint32_t>(axis_byte % (static_cast<std::uint64_t>(in.rank) + 1)) : r.u32();
  const std::uint8_t direction_byte = r.u8();
  const std::uint32_t direction = direction_byte < 0xf0 ? direction_byte & 1u : r.u32();

  in.stored = std::min<std::uint32_t>(in.rank, 16);
  in.sizes = make_array(in.stored);
  for (std::size_t d = 0; d < in.stored; ++d) in.sizes[d] = decode_descriptor_size(r);
  if (flags & 8) in.strides = decode_strides(r, in.stored, in.sizes.get());
  in.total = decode_total(r, tally_test::min_buffer_bytes(in.type, in.rank, in.sizes.get(), in.strides.get()));

  tensor out;
  out.type = (perturb & 1) ? decode_type(r) : in.type;
  out.rank = (perturb & 2) ? decode_rank(r) : in.rank;
  out.stored = std::min<std::uint32_t>(out.rank, 16);
  out.sizes = make_array(out.stored);
  for (std::size_t d = 0; d < out.stored; ++d) out.sizes[d] = d < in.stored ? in.sizes[d] : 1u + r.u8() % 3;
  if ((perturb & 4) && out.stored > 0) out.sizes[r.u8() % out.stored] += 1 + r.u8() % 3;
  if (in_place) {  // DirectML's in-place binding: the same layout and total
    if (in.strides) {
      out.strides = make_array(out.stored);
      for (std::size_t d = 0; d < std::min(in.stored, out.stored); ++d) out.strides[d] = in.strides[d];
    }
    out.total = in.total;
  } else {
    if (flags & 0x10) out.strides = decode_strides(r, out.stored, out.sizes.get());
    out.total = decode_total(r, tally_test::min_buffer_bytes(out.type, out.rank, out.sizes.get(), out.strides.get()));
  }
  in.bind();
  out.bind();

  tally::cumulative_summation_desc sum{&in.desc, &out.desc, axis, static_cast<tally::axis_direction>(direction),
                                       exclusive};
  tally::cumulative_product_desc prod{&in.desc, &out.desc, axis, static_cast<tally::axis_direction>(direction),
                                      exclusive};
  int null_choice = -1;
  if (perturb & 0x10) null_choice = r.u8() % 6;
  if (null_choice == 0) sum.input = prod.input = nullptr;
  if (null_choice == 1) sum.output = prod.output = nullptr;
  if (null_choice == 2) in.desc.sizes = nullptr;
  if (null_choice == 3) out.desc.sizes = nullptr;

  const bool expect_valid = desc_ok(sum.input, sum.output, axis, direction);
  const tally::status validated = product ? tally::validate(prod) : tally::validate(sum);
  if (validated.ok() != expect_valid) {
    std::fprintf(stderr, "validate(): tally says %s (%s), the reference says %s\n", to_string(validated.code()),
                 validated.message(), expect_valid ? "valid" : "invalid");
    fail("validate() disagrees with the reference rules");
  }
  if (in.total > max_buffer_bytes || out.total > max_buffer_bytes) return 0;  // validate only

  // Buffers: separate, in place, or two windows of one arena (partial overlaps).
  const std::uint32_t in_bytes = std::max<std::uint32_t>(1, tally_test::element_bytes(in.type));
  std::size_t misalign_in = 0, misalign_out = 0;
  if (perturb & 8) {
    const std::uint8_t m = r.u8();
    (m & 0x80 ? misalign_out : misalign_in) = 1 + m % 7u;
  }
  std::vector<allocation> blocks;
  unsigned char *input = nullptr, *output = nullptr;
  std::size_t in_block = 0, out_block = 0;
  if (in_place) {
    blocks.emplace_back(in.total + misalign_in);
    input = output = blocks[0].data.get() + misalign_in;
  } else if (arena) {
    const std::size_t in_offset = r.u16() % 2048u * in_bytes + misalign_in;
    const std::size_t out_offset = r.u16() % 2048u * in_bytes + misalign_out;
    blocks.emplace_back(std::max<std::size_t>(in_offset + in.total, out_offset + out.total));
    input = blocks[0].data.get() + in_offset;
    output = blocks[0].data.get() + out_offset;
  } else {
    blocks.emplace_back(in.total + misalign_in);
    blocks.emplace_back(out.total + misalign_out);
    input = blocks[0].data.get() + misalign_in;
    output = blocks[1].data.get() + misalign_out;
    out_block = 1;
  }
  fuzz::random_bits rng{r.u64()};
  // The output window's initial bytes are noise; the input window then gets data values
  // (in place and overlapping windows read data written as input).
  for (auto& b : blocks) fuzz::fill_elements(b.data.get(), b.size, 0, product, rng);
  if (!in_place && !arena) fuzz::fill_elements(output, out.total, 0, product, rng);
  fuzz::fill_elements(input, in.total, in.type, product, rng);
  if (null_choice == 4) input = nullptr;
  if (null_choice == 5) output = nullptr;
  for (auto& b : blocks) b.snapshot.assign(b.data.get(), b.data.get() + b.size);

  tally::execution_options options;
  options.threads = (flags & 0x20) ? 2 : 1;
  if (flags & 0x40) options.parallel_for = reverse_pool;
  const bool expect_ok = expect_valid && buffers_ok(in.desc, out.desc, input, output);
  const tally::status executed =
      product ? tally::execute(prod, input, output, options) : tally::execute(sum, input, output, options);
  if (executed.ok() != expect_ok) {
    std::fprintf(stderr, "execute(): tally says %s (%s), the reference says %s\n", to_string(executed.code()),
                 executed.message(), expect_ok ? "ok" : "refused");
    fail("execute() disagrees with the reference rules");
  }
  if (!executed.ok()) {
    for (const auto& b : blocks) check_unchanged(b, executed.message());
    return 0;
  }

  // Expected: every allocation as it was, but for the output elements.
  std::vector<std::vector<unsigned char>> expected;
  for (const auto& b : blocks) expected.push_back(b.snapshot);
  const unsigned char* input_snapshot = blocks[in_block].snapshot.data() + (input - blocks[in_block].data.get());
  const std::size_t out_offset = static_cast<std::size_t>(output - blocks[out_block].data.get());
  std::vector<bool> unchecked(blocks[out_block].size);
  std::vector<bool> unchecked_window(out.total);
  expected_result(in.desc, out.desc, axis, direction == 1, product, exclusive, input_snapshot,
                  expected[out_block].data() + out_offset, unchecked_window);
  for (std::size_t i = 0; i < out.total; ++i) unchecked[out_offset + i] = unchecked_window[i];
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    for (std::size_t i = 0; i < blocks[k].size; ++i) {
      if (k == out_block && unchecked[i]) continue;
      if (blocks[k].data[i] != expected[k][i]) {
        std::fprintf(stderr, "buffer %zu byte %zu: tally wrote 0x%02x, expected 0x%02x (type %u, %s, axis %u, %s, %s)\n",
                     k, i, blocks[k].data[i], expected[k][i], in.type, product ? "product" : "sum", axis,
                     direction ? "decreasing" : "increasing", exclusive ? "exclusive" : "inclusive");
        fail("execute() result differs from the reference");
      }
    }
  }
  return 0;
}
