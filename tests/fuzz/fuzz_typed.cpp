// libFuzzer target for the typed layer (tally::cumsum / tally::cumprod on tensor views).
//
// Arbitrary bytes become an element type, a rank (sometimes 0 or 9), sizes (including
// 0), an axis in -9..9, a direction (sometimes invalid), signed strides for an input and
// an output view that usually live in ONE buffer (so they overlap in every way: in place,
// shifted, reversed, interleaved), and optional chunk carries (sometimes mis-shaped).
// The property: a call either throws tally::error having written nothing, or leaves the
// buffers exactly as the reference computes from a copy of the input taken before the
// call ("as if the input had been copied first"). Refusals are checked too: a call the
// reference rules accept must not throw, except that an interleaving (but not
// overlapping) output may be refused as overlapping_output (tally's conservative rule).
#include <tally/tally.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <type_traits>
#include <vector>

#include "fuzz_input.hpp"
#include "support/bits.hpp"
#include "support/calls.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

namespace {

using fuzz::byte_reader;
using fuzz::decode_layout;
using fuzz::decode_size;
using fuzz::distinct_addresses;
using fuzz::fail;
using fuzz::interleaving;
using fuzz::layout;
using fuzz::max_arena_elements;

/// The nine types the input's type byte picks from (byte % 9), in the order the seed
/// corpus and docs/hardening.md assume.
using fuzzed_types = tally_test::type_list<float, double, tally::half, std::int8_t, std::uint8_t, std::int16_t,
                                           std::int32_t, std::uint64_t, std::int64_t>;

/// The data_type value of T (DirectML's), as the reference takes it.
template <class T>
constexpr std::uint32_t type_code() {
  return static_cast<std::uint32_t>(tally::data_type_of_v<T>);
}

template <class T>
struct arena {
  std::vector<T> data;
  std::vector<T> snapshot;
};

template <class T>
void fill(std::vector<T>& v, std::uint32_t code, bool product, fuzz::random_bits& rng) {
  if constexpr (std::is_same_v<T, tally::double_double>) {  // a float64 carry: {value, -0.0}
    std::vector<double> values(v.size());
    fill(values, code, product, rng);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = {values[i], -0.0};
  } else {
    fuzz::fill_elements(reinterpret_cast<unsigned char*>(v.data()), v.size() * sizeof(T), code, product, rng);
  }
}

/// Carries as the reference's values: a float64 carry (tally::double_double, whose first
/// member is the double the reference reads and writes) by its value rounded once.
template <class C>
auto carry_values(const std::vector<C>& v) {
  if constexpr (std::is_same_v<C, tally::double_double>) {
    std::vector<double> values;
    for (const C& c : v) values.push_back(c.value());
    return values;
  } else {
    return v;
  }
}

template <class T>
void run(byte_reader& r, std::uint8_t flags) {
  using C = tally::carry_type<T>;
  constexpr std::uint32_t code = type_code<T>();
  // The carry's element: float32 for half, float64 for float32 and float64, else T.
  constexpr std::uint32_t carry_code = std::is_same_v<T, tally::half>                                 ? 1
                                       : std::is_same_v<T, float> || std::is_same_v<T, double> ? type_code<double>()
                                                                                               : code;
  const bool product = flags & 1, exclusive = flags & 2;
  const std::uint8_t more = r.u8();
  const bool use_carry_in = more & 1, use_carry_out = more & 2, same_carry = (more & 4) && use_carry_in && use_carry_out;
  const bool keepdims = more & 8, bad_carry = (more & 0x30) == 0x30, separate = more & 0x40;
  const bool out_rank_differs = (more & 0x80) && (r.u8() & 1);

  const std::uint8_t rank_byte = r.u8();
  const std::size_t rank = rank_byte < 0xf8 ? 1 + rank_byte % 8u : (rank_byte & 1 ? 9 : 0);
  const int axis = static_cast<std::int8_t>(r.u8()) % 10;
  const std::uint8_t direction_byte = r.u8();
  const std::uint32_t direction = direction_byte < 0xf0 ? direction_byte & 1u : r.u32();
  std::size_t sizes[9] = {};
  for (std::size_t d = 0; d < rank; ++d) sizes[d] = decode_size(r);
  std::size_t out_sizes[9];
  std::copy(sizes, sizes + 9, out_sizes);
  if ((flags & 0x10) && rank > 0) out_sizes[r.u8() % rank] += 1;
  const std::size_t out_rank = out_rank_differs ? (rank <= 1 ? rank + 1 : rank - 1) : rank;
  // A 0-d input and output with axis 0 or -1 is a valid scan since the scan vocabulary
  // (spec section 5); fuzz_vocabulary and test_vocabulary check those. Here rank 0 is
  // only fuzzed where it must be refused (mixed ranks, other axes).
  if (rank == 0 && out_rank == 0 && (axis == 0 || axis == -1)) return;
  if (out_rank > rank) out_sizes[rank] = 1;

  const layout in_l = decode_layout(r, rank, sizes);
  const layout out_l = decode_layout(r, out_rank, out_sizes);
  const std::int64_t in_extra = r.u8() % 16, out_extra = r.u8() % 16;
  // Bases: each view starts far enough in to keep its lowest element in the arena.
  const std::int64_t in_base = -in_l.low + in_extra, out_base = -out_l.low + out_extra;
  const std::int64_t in_end = in_base + in_l.high + 1, out_end = out_base + out_l.high + 1;
  if (std::max(in_end, out_end) > max_arena_elements || in_end + out_end > max_arena_elements) return;

  arena<T> a, b;  // b holds the output when the views are in separate buffers
  a.data.resize(static_cast<std::size_t>(separate ? in_end : std::max(in_end, out_end)));
  if (separate) b.data.resize(static_cast<std::size_t>(out_end));
  fuzz::random_bits rng{r.u64()};
  fill(a.data, code, product, rng);
  fill(b.data, code, product, rng);
  T* out_arena = separate ? b.data.data() : a.data.data();

  // Carries: the input's shape without the axis (or with it at size 1), packed, in their
  // own buffer of carry_type<T>; carry_out may be the very same view as carry_in.
  const int signed_rank = static_cast<int>(rank);
  const bool axis_ok = rank >= 1 && rank <= 8 && axis >= -signed_rank && axis < signed_rank;
  const std::size_t axis_index = axis_ok ? static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis) : 0;
  std::size_t carry_sizes[9] = {};
  std::size_t carry_rank = 0;
  std::size_t carry_count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (d == axis_index && !keepdims) continue;
    carry_sizes[carry_rank++] = d == axis_index ? 1 : sizes[d];
  }
  if (bad_carry && carry_rank > 0) carry_sizes[r.u8() % carry_rank] += 1;
  for (std::size_t d = 0; d < carry_rank; ++d) {
    carry_count *= carry_sizes[d];
    // A broadcast input can have far more elements than the arena: its carry would too.
    if (carry_count > static_cast<std::size_t>(max_arena_elements)) return;
  }
  arena<C> carries;
  const std::size_t carry_in_at = 0, carry_out_at = same_carry ? 0 : carry_count;
  carries.data.resize(std::max<std::size_t>(1, 2 * carry_count));
  fill(carries.data, carry_code, product, rng);

  a.snapshot = a.data;
  b.snapshot = b.data;
  carries.snapshot = carries.data;

  const tally::scan_options options{static_cast<tally::axis_direction>(direction), exclusive,
                                    (flags & 0x20) ? 2u : 1u};

  // The reference rules for "this call must succeed".
  // A rank-1 input's carry is 0-d (one line), or rank 1 with keepdims.
  const bool carry_shape_ok = carry_rank >= 1 ? !bad_carry : rank == 1;
  const bool wants_carry = use_carry_in || use_carry_out;
  bool must_succeed = axis_ok && out_rank == rank && direction <= 1 && (flags & 0x10) == 0 &&
                      distinct_addresses(out_l) && (!wants_carry || carry_shape_ok);
  // Empty views are valid whatever their strides (nothing can overlap).
  const bool may_refuse_as_overlap = interleaving(out_l) && !out_l.empty();

  bool threw = false;
  try {
    const tally::tensor_view<const T> in(a.data.data() + in_base, rank, sizes, in_l.strides);
    const tally::tensor_view<T> out(out_arena + out_base, out_rank, out_sizes, out_l.strides);
    tally::tensor_view<const C> carry_in;
    tally::tensor_view<C> carry_out;
    if (use_carry_in) carry_in = tally::tensor_view<const C>(carries.data.data() + carry_in_at, carry_rank, carry_sizes);
    if (use_carry_out) carry_out = tally::tensor_view<C>(carries.data.data() + carry_out_at, carry_rank, carry_sizes);
    if (wants_carry)
      tally_test::typed_scan<T>(product, in, out, axis, options, carry_in, carry_out);
    else
      tally_test::typed_scan<T>(product, in, out, axis, options);
  } catch (const tally::error& e) {
    threw = true;
    if (must_succeed && !(may_refuse_as_overlap && e.code() == tally::status_code::overlapping_output)) {
      std::fprintf(stderr, "tally threw %s: %s\n", to_string(e.code()), e.what());
      fail("the typed layer refused a call the reference rules accept");
    }
  }
  if (threw) {
    if (a.data != a.snapshot || b.data != b.snapshot || !tally_test::same_bits(carries.data, carries.snapshot))
      fail("a refused typed call changed a buffer");
    return;
  }
  if (!must_succeed) fail("the typed layer accepted a call the reference rules refuse");

  // Expected buffers: the snapshots, with the output (and carry_out) elements replaced by
  // the scan of the snapshot's input elements.
  std::vector<T> expected_a = a.snapshot, expected_b = b.snapshot;
  std::vector<C> expected_carries = carries.snapshot;
  std::vector<bool> unchecked_out((separate ? expected_b : expected_a).size());
  std::vector<bool> unchecked_carry(expected_carries.size());
  T* expected_out = separate ? expected_b.data() : expected_a.data();
  const auto* in_bytes = reinterpret_cast<const unsigned char*>(a.snapshot.data());
  const auto* carry_bytes = reinterpret_cast<const unsigned char*>(carries.snapshot.data());

  // Every line, also the lines of a zero-length axis (their carry-out is the carry-in or
  // the identity); none when another dimension is empty.
  const tally_test::line_spec spec{code, product, exclusive, direction == 1, sizes[axis_index]};
  tally_test::for_each_line(rank, sizes, axis_index, [&](const std::size_t* index) {
    std::int64_t in_at = in_base, out_at = out_base, carry_at = 0;
    for (std::size_t d = 0, c = 0, packed = carry_count; d < rank; ++d) {
      in_at += static_cast<std::int64_t>(index[d]) * in_l.strides[d];
      out_at += static_cast<std::int64_t>(index[d]) * out_l.strides[d];
      if (d == axis_index && !keepdims) continue;
      packed /= carry_sizes[c];
      carry_at += static_cast<std::int64_t>(index[d] * packed);
      ++c;
    }
    auto read = [&](std::uint64_t i) {
      const std::int64_t element = in_at + static_cast<std::int64_t>(i) * in_l.strides[axis_index];
      return tally_test::read_element(in_bytes + element * static_cast<std::int64_t>(sizeof(T)), code);
    };
    auto write = [&](std::uint64_t i, const tally_test::exact_value& value) {
      const std::int64_t element = out_at + static_cast<std::int64_t>(i) * out_l.strides[axis_index];
      if (!tally_test::write_element(reinterpret_cast<unsigned char*>(expected_out + element), code, value))
        unchecked_out[static_cast<std::size_t>(element)] = true;
    };
    tally_test::element_value carry_value;
    if (use_carry_in)
      carry_value = tally_test::read_element(
          carry_bytes + (carry_in_at + static_cast<std::size_t>(carry_at)) * sizeof(C), carry_code);
    tally_test::exact_value total =
        tally_test::exact_scan_line(spec, read, write, use_carry_in ? &carry_value : nullptr);
    if (use_carry_out) {
      const std::size_t element = carry_out_at + static_cast<std::size_t>(carry_at);
      // A half scan's carry is its float32 running value: the exact value, as float.
      total.type = carry_code;
      if (!tally_test::write_element(reinterpret_cast<unsigned char*>(expected_carries.data() + element), carry_code,
                                     total))
        unchecked_carry[element] = true;
    }
  });

  auto describe = [&](const char* name, const layout& l, std::int64_t base) {
    std::fprintf(stderr, "  %s: base %lld sizes/strides", name, static_cast<long long>(base));
    for (std::size_t d = 0; d < l.rank; ++d) std::fprintf(stderr, " %zu/%td", l.sizes[d], l.strides[d]);
    std::fprintf(stderr, "\n");
  };
  auto compare = [&](const auto& actual, auto& expected, const std::vector<bool>* unchecked, const char* what) {
    for (std::size_t i = 0; i < actual.size(); ++i) {
      if (unchecked && (*unchecked)[i]) continue;
      if (!tally_test::same_bits(actual[i], expected[i])) {
        std::fprintf(stderr, "%s element %zu differs: bits 0x%llx, expected 0x%llx\n", what, i,
                     static_cast<unsigned long long>(tally_test::bits_of(actual[i])),
                     static_cast<unsigned long long>(tally_test::bits_of(expected[i])));
        std::fprintf(stderr, "  type %u %s %s %s axis %d threads %u carry_in %d carry_out %d same %d keepdims %d separate %d\n",
                     code, product ? "cumprod" : "cumsum", exclusive ? "exclusive" : "inclusive",
                     direction ? "decreasing" : "increasing", axis, options.threads, use_carry_in, use_carry_out,
                     same_carry, keepdims, separate);
        describe("in", in_l, in_base);
        describe("out", out_l, out_base);
        fail("typed result differs from the reference");
      }
    }
  };
  compare(a.data, expected_a, separate ? nullptr : &unchecked_out, "buffer");
  compare(b.data, expected_b, separate ? &unchecked_out : nullptr, "output buffer");
  auto carry_values_got = carry_values(carries.data), carry_values_expected = carry_values(expected_carries);
  compare(carry_values_got, carry_values_expected, &unchecked_carry, "carry buffer");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  byte_reader r{data, size};
  const std::uint8_t flags = r.u8();
  tally_test::with_type<fuzzed_types>(r.u8() % fuzzed_types::size,
                                      [&](auto tag) { run<typename decltype(tag)::type>(r, flags); });
  return 0;
}
