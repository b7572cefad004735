// One test per validation rule of the descriptor layer (spec section 5) and per rule of
// calc_buffer_tensor_size (spec section 3). Every refusal is checked four ways: the exact
// status_code, a message naming the field and the value, validate() and execute()
// agreeing, and both buffers byte-for-byte unchanged after the refused execute().
#include <tally/tally.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support/calls.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

namespace {

using tally::data_type;
using tally::status_code;

constexpr std::uint32_t u32_max = 0xFFFFFFFFu;
constexpr std::uint64_t u64_max = ~std::uint64_t{0};

/// A small valid problem (float32 {1,1,3,4}, axis 3) that each test breaks in one field.
/// Not copyable: the descs point into the object's own arrays.
struct problem {
  std::uint32_t in_sizes[9] = {1, 1, 3, 4, 1, 1, 1, 1, 1};
  std::uint32_t out_sizes[9] = {1, 1, 3, 4, 1, 1, 1, 1, 1};
  std::uint32_t in_strides[9] = {};
  std::uint32_t out_strides[9] = {};
  tally::tensor_desc in{data_type::float32, 4, in_sizes, nullptr, 48};
  tally::tensor_desc out{data_type::float32, 4, out_sizes, nullptr, 48};
  bool null_input_desc = false;
  bool null_output_desc = false;
  std::uint32_t axis = 3;
  std::uint32_t direction = 0;
  bool exclusive = false;

  problem() = default;
  problem(const problem&) = delete;
  problem& operator=(const problem&) = delete;

  /// Both tensors get `sizes` (packed until strides are set), scanned along `scan_axis`.
  void set_shape(std::initializer_list<std::uint32_t> sizes, std::uint32_t scan_axis) {
    in.dimension_count = out.dimension_count = static_cast<std::uint32_t>(sizes.size());
    std::uint32_t d = 0;
    for (std::uint32_t size : sizes) {
      in_sizes[d] = out_sizes[d] = size;
      ++d;
    }
    axis = scan_axis;
  }

  template <class Desc>
  Desc make() const {
    Desc d;
    d.input = null_input_desc ? nullptr : &in;
    d.output = null_output_desc ? nullptr : &out;
    d.axis = axis;
    d.direction = static_cast<tally::axis_direction>(direction);
    set_exclusive(d);
    return d;
  }
  void set_exclusive(tally::cumulative_summation_desc& d) const { d.has_exclusive_sum = exclusive; }
  void set_exclusive(tally::cumulative_product_desc& d) const { d.has_exclusive_product = exclusive; }
};

/// Two 64-byte aligned buffers filled with distinct patterns, so any write shows.
struct arena {
  alignas(64) unsigned char in[1024];
  alignas(64) unsigned char out[1024];
  arena() {
    for (std::size_t i = 0; i < sizeof in; ++i) {
      in[i] = static_cast<unsigned char>(0x3C ^ (i * 7));
      out[i] = static_cast<unsigned char>(0xA5 ^ (i * 13));
    }
  }
  bool unchanged() const {
    for (std::size_t i = 0; i < sizeof in; ++i)
      if (in[i] != static_cast<unsigned char>(0x3C ^ (i * 7)) || out[i] != static_cast<unsigned char>(0xA5 ^ (i * 13)))
        return false;
    return true;
  }
};

bool contains(const char* message, const std::string& word) { return std::string(message).find(word) != std::string::npos; }

void check_message(const tally::status& s, std::initializer_list<std::string> words) {
  INFO("message: " << s.message());
  for (const std::string& w : words) {
    INFO("expected the message to name '" << w << "'");
    CHECK(contains(s.message(), w));
  }
}

/// The problem is refused by validate() and execute() alike, for both operators, with
/// `code` and a message containing every one of `words`; nothing is written.
template <class Desc>
void expect_refused_as(const problem& p, status_code code, std::initializer_list<std::string> words) {
  const Desc desc = p.make<Desc>();
  const tally::status v = tally::validate(desc);
  INFO("validate: " << tally::to_string(v.code()) << ": " << v.message());
  CHECK_FALSE(v.ok());
  CHECK_FALSE(static_cast<bool>(v));
  CHECK(v.code() == code);
  check_message(v, words);

  arena a;
  for (unsigned threads : {1u, 2u}) {
    tally::execution_options options;
    options.threads = threads;
    const tally::status e = tally::execute(desc, a.in, a.out, options);
    INFO("execute: " << tally::to_string(e.code()) << ": " << e.message());
    CHECK(e.code() == code);
    CHECK(std::string(e.message()) == v.message());
    CHECK(a.unchanged());
  }
}

void expect_refused(const problem& p, status_code code, std::initializer_list<std::string> words) {
  {
    INFO("cumulative_summation_desc");
    expect_refused_as<tally::cumulative_summation_desc>(p, code, words);
  }
  {
    INFO("cumulative_product_desc");
    expect_refused_as<tally::cumulative_product_desc>(p, code, words);
  }
}

/// validate() accepts the problem for both operators (a positive control next to each rule).
void expect_valid(const problem& p) {
  const tally::status s = tally::validate(p.make<tally::cumulative_summation_desc>());
  INFO(s.message());
  CHECK(s.ok());
  const tally::status t = tally::validate(p.make<tally::cumulative_product_desc>());
  INFO(t.message());
  CHECK(t.ok());
}

/// validate() accepts, execute() refuses with `code` and writes nothing.
template <class Desc>
void expect_refused_at_execute(const problem& p, const void* in, void* out, const arena& a, status_code code,
                               std::initializer_list<std::string> words) {
  const Desc desc = p.make<Desc>();
  const tally::status v = tally::validate(desc);
  INFO("validate: " << v.message());
  REQUIRE(v.ok());
  const tally::status e = tally::execute(desc, in, out);
  INFO("execute: " << tally::to_string(e.code()) << ": " << e.message());
  CHECK(e.code() == code);
  check_message(e, words);
  CHECK(a.unchanged());
}

/// The independent reference (float32) over a descriptor pair's layouts, packed or strided
/// (the test values are small integers, so every result is exact).
void reference_scan(const tally::tensor_desc& in_desc, const tally::tensor_desc& out_desc, const float* in, float* out,
                    std::uint32_t axis, bool decreasing, bool exclusive, bool product) {
  const std::uint32_t rank = in_desc.dimension_count;
  std::size_t sizes[8];
  std::uint64_t in_elements[8], out_elements[8];
  std::ptrdiff_t in_strides[8], out_strides[8];
  tally_test::effective_strides(rank, in_desc.sizes, in_desc.strides, in_elements);
  tally_test::effective_strides(rank, out_desc.sizes, out_desc.strides, out_elements);
  for (std::uint32_t d = 0; d < rank; ++d) {
    sizes[d] = in_desc.sizes[d];
    in_strides[d] = static_cast<std::ptrdiff_t>(in_elements[d]);
    out_strides[d] = static_cast<std::ptrdiff_t>(out_elements[d]);
  }
  tally_test::reference_scan<float>(product ? tally_test::scan_op::product : tally_test::scan_op::sum, rank, sizes,
                                    axis, decreasing, exclusive, in, in_strides, out, out_strides);
}

/// Every supported type, by enum value (the random layout test below picks by index).
constexpr const auto& all_types = tally_test::all_data_types;

}  // namespace

// ---------------------------------------------------------------------------------------
// Null pointers

TEST_CASE("validation: a null input or output tensor desc is refused") {
  {
    problem p;
    p.null_input_desc = true;
    expect_refused(p, status_code::null_pointer, {"input", "null"});
  }
  {
    problem p;
    p.null_output_desc = true;
    expect_refused(p, status_code::null_pointer, {"output", "null"});
  }
  problem control;
  expect_valid(control);
}

TEST_CASE("validation: a null sizes pointer is refused, on input and on output") {
  {
    problem p;
    p.in.sizes = nullptr;
    expect_refused(p, status_code::null_pointer, {"input.sizes", "null"});
  }
  {
    problem p;
    p.out.sizes = nullptr;
    expect_refused(p, status_code::null_pointer, {"output.sizes", "null"});
  }
  // A null strides pointer is not an error: it means packed.
  problem control;
  control.in.strides = nullptr;
  control.out.strides = nullptr;
  expect_valid(control);
}

// ---------------------------------------------------------------------------------------
// Dimension counts

TEST_CASE("validation: dimension counts 0 and 9 are refused, on input and on output") {
  for (std::uint32_t count : {0u, 9u}) {
    for (bool on_input : {true, false}) {
      problem p;
      p.axis = 0;  // keep the axis valid for every count, so only the count is wrong
      (on_input ? p.in : p.out).dimension_count = count;
      (on_input ? p.out : p.in).dimension_count = count == 0 ? 1 : 8;
      CAPTURE(count, on_input);
      expect_refused(p, status_code::invalid_dimension_count,
                     {on_input ? "input.dimension_count" : "output.dimension_count", std::to_string(count)});
    }
  }
  // 1 and 8 are the limits that pass.
  for (std::uint32_t count : {1u, 8u}) {
    problem p;
    p.axis = 0;
    p.in.dimension_count = p.out.dimension_count = count;
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 4;  // every size is 1
    for (std::uint32_t d = 0; d < 9; ++d) p.in_sizes[d] = p.out_sizes[d] = 1;
    CAPTURE(count);
    expect_valid(p);
  }
}

TEST_CASE("validation: input and output dimension counts that differ are refused") {
  problem p;
  // output {1,3,4}: the same elements, but a different rank.
  p.out.dimension_count = 3;
  p.out_sizes[0] = 1;
  p.out_sizes[1] = 3;
  p.out_sizes[2] = 4;
  p.axis = 2;
  expect_refused(p, status_code::dimension_count_mismatch, {"dimension_count", "4", "3"});
}

// ---------------------------------------------------------------------------------------
// Data types

TEST_CASE("validation: unknown and unsupported data types are refused, on input and on output") {
  for (std::uint32_t value : {0u, 12u, 13u, 255u, 0x80000000u, u32_max}) {
    for (bool on_input : {true, false}) {
      problem p;
      const auto t = static_cast<data_type>(value);
      p.in.type = on_input ? t : data_type::float32;
      p.out.type = on_input ? data_type::float32 : t;
      CAPTURE(value, on_input);
      expect_refused(p, status_code::unsupported_data_type,
                     {on_input ? "input.type" : "output.type", std::to_string(value)});
    }
  }
}

TEST_CASE("validation: input and output types that differ are refused") {
  // uint32/int32 and float32/int32 share the element size: the rule must compare types,
  // not sizes. float16/float32 also differ in size.
  const std::pair<data_type, data_type> pairs[] = {{data_type::float32, data_type::int32},
                                                   {data_type::uint32, data_type::int32},
                                                   {data_type::float16, data_type::float32}};
  for (const auto& pr : pairs) {
    problem p;
    p.in.type = pr.first;
    p.out.type = pr.second;
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 48;
    CAPTURE(tally::to_string(pr.first), tally::to_string(pr.second));
    expect_refused(p, status_code::data_type_mismatch,
                   {"input.type", "output.type", tally::to_string(pr.first), tally::to_string(pr.second)});
  }
  // Every supported type passes when both sides agree.
  for (data_type t : all_types) {
    problem p;
    p.in.type = p.out.type = t;
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 96;  // 12 float64s
    CAPTURE(tally::to_string(t));
    expect_valid(p);
  }
}

// ---------------------------------------------------------------------------------------
// Sizes

TEST_CASE("validation: a size of 0 in any dimension is refused, on input and on output") {
  for (std::uint32_t d = 0; d < 4; ++d) {
    for (bool on_input : {true, false}) {
      problem p;
      p.in_sizes[d] = 0;
      p.out_sizes[d] = 0;
      if (!on_input) p.in_sizes[d] = d < 2 ? 1 : (d == 2 ? 3 : 4);
      CAPTURE(d, on_input);
      const std::string field = std::string(on_input ? "input" : "output") + ".sizes[" + std::to_string(d) + "]";
      expect_refused(p, status_code::invalid_size, {field, "0"});
    }
  }
}

TEST_CASE("validation: sizes that differ between input and output are refused") {
  for (std::uint32_t d = 0; d < 4; ++d) {
    problem p;
    p.out_sizes[d] += 1;  // stays within the 1024-byte arena, and the totals are generous
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 512;
    CAPTURE(d);
    expect_refused(p, status_code::size_mismatch,
                   {"sizes[" + std::to_string(d) + "]", std::to_string(p.in_sizes[d]), std::to_string(p.out_sizes[d])});
  }
}

// ---------------------------------------------------------------------------------------
// Axis and direction

TEST_CASE("validation: an axis at or beyond the dimension count is refused") {
  for (std::uint32_t axis : {4u, 5u, 8u, u32_max}) {
    problem p;
    p.axis = axis;
    CAPTURE(axis);
    expect_refused(p, status_code::invalid_axis, {"axis", std::to_string(axis), "4"});
  }
  for (std::uint32_t count : {1u, 8u}) {
    problem p;
    p.in.dimension_count = p.out.dimension_count = count;
    for (std::uint32_t d = 0; d < 9; ++d) p.in_sizes[d] = p.out_sizes[d] = 1;
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 4;
    p.axis = count;
    CAPTURE(count);
    expect_refused(p, status_code::invalid_axis, {"axis", std::to_string(count)});
    p.axis = count - 1;
    expect_valid(p);
  }
}

TEST_CASE("validation: a direction other than 0 or 1 is refused") {
  for (std::uint32_t direction : {2u, 3u, 0x80000000u, u32_max}) {
    problem p;
    p.direction = direction;
    CAPTURE(direction);
    expect_refused(p, status_code::invalid_direction, {"direction", std::to_string(direction)});
  }
  for (std::uint32_t direction : {0u, 1u}) {
    problem p;
    p.direction = direction;
    expect_valid(p);
  }
}

// ---------------------------------------------------------------------------------------
// total_tensor_size_in_bytes

namespace {

/// Layouts whose minimum size is known by hand (DirectML's formula written out).
struct layout_case {
  const char* name;
  data_type type;
  std::uint32_t rank;
  std::uint32_t sizes[4];
  bool strided;
  std::uint32_t strides[4];
  std::uint64_t minimum;
};

const layout_case layout_cases[] = {
    // packed float32 {1,1,3,4}: 12 elements, 48 bytes
    {"packed float32", data_type::float32, 4, {1, 1, 3, 4}, false, {}, 48},
    // padded rows: last index 2*6 + 3 = 15, 16 elements * 4 bytes
    {"padded float32", data_type::float32, 2, {3, 4}, true, {6, 1}, 64},
    // broadcast rows (stride 0): last index 3, 4 elements * 4 bytes
    {"broadcast float32", data_type::float32, 2, {3, 4}, true, {0, 1}, 16},
    // int8 {3}: 3 bytes round up to 4
    {"packed int8", data_type::int8, 1, {3}, false, {}, 4},
    // float16 {3}: 6 bytes round up to 8
    {"packed float16", data_type::float16, 1, {3}, false, {}, 8},
    // float64 padded: last index 1*5 + 2*1 = 7, 8 elements * 8 bytes
    {"padded float64", data_type::float64, 2, {2, 3}, true, {5, 1}, 64},
    // uint16 transposed with padding: last index 1*1 + 2*3 = 7, 8 elements * 2 bytes
    {"transposed uint16", data_type::uint16, 2, {2, 3}, true, {1, 3}, 16},
};

}  // namespace

TEST_CASE("validation: total_tensor_size_in_bytes one byte below the minimum is refused") {
  for (const layout_case& c : layout_cases) {
    for (bool on_input : {true, false}) {
      // Broadcast layouts are legal only on the input.
      if (!on_input && c.strided && std::find(c.strides, c.strides + c.rank, 0u) != c.strides + c.rank) continue;
      problem p;
      p.in.type = p.out.type = c.type;
      p.in.dimension_count = p.out.dimension_count = c.rank;
      p.axis = c.rank - 1;
      for (std::uint32_t d = 0; d < c.rank; ++d) {
        p.in_sizes[d] = p.out_sizes[d] = c.sizes[d];
        (on_input ? p.in_strides : p.out_strides)[d] = c.strides[d];
      }
      tally::tensor_desc& t = on_input ? p.in : p.out;
      tally::tensor_desc& other = on_input ? p.out : p.in;
      t.strides = c.strided ? (on_input ? p.in_strides : p.out_strides) : nullptr;
      other.total_tensor_size_in_bytes = 1024;
      CAPTURE(c.name, on_input);
      REQUIRE(tally::calc_buffer_tensor_size(c.type, c.rank, c.sizes, c.strided ? c.strides : nullptr) == c.minimum);

      t.total_tensor_size_in_bytes = c.minimum - 1;
      expect_refused(p, status_code::buffer_too_small,
                     {std::string(on_input ? "input" : "output") + ".total_tensor_size_in_bytes",
                      std::to_string(c.minimum - 1), std::to_string(c.minimum)});
      t.total_tensor_size_in_bytes = 0;
      expect_refused(p, status_code::buffer_too_small, {"total_tensor_size_in_bytes", std::to_string(c.minimum)});
      t.total_tensor_size_in_bytes = c.minimum;
      expect_valid(p);
    }
  }
}

TEST_CASE("validation: exactly the minimum total size passes and computes the right result") {
  // float32 layouts only: the independent reference is float32.
  std::mt19937 rng(12345);
  for (const layout_case& c : layout_cases) {
    if (c.type != data_type::float32) continue;
    const bool broadcast = c.strided && std::find(c.strides, c.strides + c.rank, 0u) != c.strides + c.rank;
    const tally::tensor_desc in{c.type, c.rank, c.sizes, c.strided ? c.strides : nullptr, c.minimum};
    // The output is packed when the case's layout is only legal for an input.
    const std::uint64_t packed_bytes = tally::calc_buffer_tensor_size(c.type, c.rank, c.sizes, nullptr);
    const tally::tensor_desc out{c.type, c.rank, c.sizes, broadcast ? nullptr : in.strides,
                                 broadcast ? packed_bytes : c.minimum};
    std::vector<float> x(in.total_tensor_size_in_bytes / 4), y(out.total_tensor_size_in_bytes / 4, -7.0f);
    for (float& v : x) v = static_cast<float>(rng() % 5) + 1.0f;
    for (std::uint32_t axis = 0; axis < c.rank; ++axis) {
      for (std::uint32_t direction : {0u, 1u}) {
        for (bool exclusive : {false, true}) {
          for (bool product : {false, true}) {
            std::vector<float> got = y, expected = y;
            const tally::status s = tally_test::with_scan_desc(
                product, &in, &out, axis, static_cast<tally::axis_direction>(direction), exclusive,
                [&](const auto& d) { return tally::execute(d, x.data(), got.data()); });
            reference_scan(in, out, x.data(), expected.data(), axis, direction == 1, exclusive, product);
            CAPTURE(c.name, axis, direction, exclusive, product);
            INFO(s.message());
            REQUIRE(s.ok());
            CHECK(got == expected);  // padding keeps -7 in both
          }
        }
      }
    }
  }
}

TEST_CASE("validation: a size computation that overflows 64 bits is refused") {
  SECTION("packed sizes whose product overflows") {
    problem p;
    p.in.dimension_count = p.out.dimension_count = 8;
    p.axis = 0;
    for (std::uint32_t d = 0; d < 8; ++d) p.in_sizes[d] = p.out_sizes[d] = u32_max;
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = u64_max;
    expect_refused(p, status_code::size_overflow, {"input", "sizes"});
  }
  SECTION("the element count fits but its bytes do not (float64, 2^62 elements)") {
    problem p;
    p.in.type = p.out.type = data_type::float64;
    p.set_shape({0x80000000u, 0x80000000u}, 1);
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = u64_max;
    expect_refused(p, status_code::size_overflow, {"input", "sizes"});
  }
  SECTION("bytes that fit in 64 bits unsigned but not in a signed offset (float32, 2^62 - 1 elements)") {
    problem p;
    p.in.dimension_count = p.out.dimension_count = 3;
    p.axis = 0;
    const std::uint32_t sizes[3] = {2147483647u, 3u, 715827883u};  // product 2^62 - 1
    for (int d = 0; d < 3; ++d) p.in_sizes[d] = p.out_sizes[d] = sizes[d];
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = u64_max;
    REQUIRE(tally::calc_buffer_tensor_size(data_type::float32, 3, sizes, nullptr) == u64_max - 3);
    expect_refused(p, status_code::size_overflow, {"input", "sizes"});
  }
  SECTION("strides whose last index overflows, on the output only") {
    problem p;
    p.out.dimension_count = p.in.dimension_count = 3;
    p.axis = 2;
    for (int d = 0; d < 3; ++d) {
      p.in_sizes[d] = p.out_sizes[d] = u32_max;
      p.out_strides[d] = u32_max;
    }
    p.in_strides[0] = p.in_strides[1] = p.in_strides[2] = 0;  // a legal broadcast input
    p.in.strides = p.in_strides;
    p.out.strides = p.out_strides;
    p.in.total_tensor_size_in_bytes = 4;
    p.out.total_tensor_size_in_bytes = u64_max;
    expect_refused(p, status_code::size_overflow, {"output", "sizes"});
  }
}

// ---------------------------------------------------------------------------------------
// Output layouts with distinct elements at one address

TEST_CASE("validation: an output whose distinct elements share an address is refused") {
  SECTION("a zero stride on a dimension of size > 1") {
    problem p;
    p.set_shape({3, 4}, 1);
    p.out_strides[0] = 0;
    p.out_strides[1] = 1;
    p.out.strides = p.out_strides;
    p.out.total_tensor_size_in_bytes = 16;
    expect_refused(p, status_code::overlapping_output, {"output.strides"});
    // The same layout is a legal broadcast on the input.
    problem q;
    q.set_shape({3, 4}, 0);
    q.in_strides[0] = 0;
    q.in_strides[1] = 1;
    q.in.strides = q.in_strides;
    q.in.total_tensor_size_in_bytes = 16;
    expect_valid(q);
    // A zero stride on a dimension of size 1 is harmless on the output.
    p.out_sizes[0] = p.in_sizes[0] = 1;
    expect_valid(p);
  }
  SECTION("interleaving strides") {
    problem p;
    p.set_shape({3, 4}, 1);
    p.out_strides[0] = 2;  // element (1,0) is element (0,2)
    p.out_strides[1] = 1;
    p.out.strides = p.out_strides;
    p.out.total_tensor_size_in_bytes = 48;
    expect_refused(p, status_code::overlapping_output, {"output.strides"});
    // The permuted and the padded layouts are fine.
    p.out_strides[0] = 1;
    p.out_strides[1] = 3;
    expect_valid(p);
    p.out_strides[0] = 4;
    p.out_strides[1] = 1;
    expect_valid(p);
  }
}

TEST_CASE("validation: one tensor_desc for input and output is checked as both") {
  // The descriptor checks skip a second look at a desc passed twice: every rule must still
  // hold of it, the output's included (its strides' uniqueness), and it must compute.
  std::uint32_t sizes[2] = {3, 4};
  std::uint32_t strides[2] = {0, 1};
  tally::tensor_desc t{data_type::float32, 2, sizes, nullptr, 48};
  tally::cumulative_summation_desc op;
  op.input = op.output = &t;
  op.axis = 1;
  alignas(64) float in[12], out[12] = {};
  for (int i = 0; i < 12; ++i) in[i] = static_cast<float>(i + 1);
  REQUIRE(tally::execute(op, in, out).ok());
  for (int r = 0; r < 3; ++r) {
    float running = 0;
    for (int c = 0; c < 4; ++c) CHECK(out[r * 4 + c] == (running += in[r * 4 + c]));
  }
  REQUIRE(tally::execute(op, out, out).ok());  // in place
  CHECK(out[11] == 4 * 9 + 3 * 10 + 2 * 11 + 12);  // the last row, 9 to 12, summed twice

  t.total_tensor_size_in_bytes = 44;
  CHECK(tally::validate(op).code() == status_code::buffer_too_small);
  t.total_tensor_size_in_bytes = 48;
  sizes[0] = 0;
  CHECK(tally::validate(op).code() == status_code::invalid_size);
  sizes[0] = 3;
  t.strides = strides;  // a broadcast: fine to read, but as the output every row shares an address
  t.total_tensor_size_in_bytes = 16;
  CHECK(tally::execute(op, in, out).code() == status_code::overlapping_output);
  op.axis = 2;
  CHECK(tally::validate(op).code() == status_code::invalid_axis);
}

// ---------------------------------------------------------------------------------------
// Execution-time rules

TEST_CASE("validation: a null input or output buffer is refused at execution") {
  problem p;
  arena a;
  expect_refused_at_execute<tally::cumulative_summation_desc>(p, nullptr, a.out, a, status_code::null_pointer,
                                                              {"input", "null"});
  expect_refused_at_execute<tally::cumulative_product_desc>(p, nullptr, a.out, a, status_code::null_pointer,
                                                            {"input", "null"});
  expect_refused_at_execute<tally::cumulative_summation_desc>(p, a.in, nullptr, a, status_code::null_pointer,
                                                              {"output", "null"});
  expect_refused_at_execute<tally::cumulative_product_desc>(p, a.in, nullptr, a, status_code::null_pointer,
                                                            {"output", "null"});
}

TEST_CASE("validation: a buffer not aligned to its element size is refused at execution") {
  for (data_type t : all_types) {
    const std::size_t element = tally::element_size(t);
    if (element == 1) continue;
    problem p;
    p.in.type = p.out.type = t;
    p.set_shape({4}, 0);
    p.in.total_tensor_size_in_bytes = p.out.total_tensor_size_in_bytes = 4 * element;
    CAPTURE(tally::to_string(t));
    for (std::size_t shift = 1; shift < element; ++shift) {
      CAPTURE(shift);
      arena a;
      const std::string size = std::to_string(element) + "-byte";
      expect_refused_at_execute<tally::cumulative_summation_desc>(p, a.in + shift, a.out, a,
                                                                  status_code::misaligned_buffer, {"input", size});
      expect_refused_at_execute<tally::cumulative_product_desc>(p, a.in, a.out + shift, a,
                                                                status_code::misaligned_buffer, {"output", size});
    }
    // Aligned to the element (and no more) is enough.
    arena a;
    CHECK(tally::execute(p.make<tally::cumulative_summation_desc>(), a.in + element, a.out + element).ok());
  }
}

TEST_CASE("validation: input and output overlapping partially are refused at execution") {
  problem p;  // float32 {1,1,3,4}, 48 bytes
  for (int shift : {4, -4, 24, -44}) {
    arena a;
    // Both views live in a.out; a.in stays as a witness.
    unsigned char* base = a.out + 256;
    CAPTURE(shift);
    expect_refused_at_execute<tally::cumulative_summation_desc>(p, base, base + shift, a,
                                                                status_code::overlapping_buffers, {"overlap"});
    expect_refused_at_execute<tally::cumulative_product_desc>(p, base + shift, base, a,
                                                              status_code::overlapping_buffers, {"overlap"});
  }
  // Adjacent buffers do not overlap.
  arena a;
  CHECK(tally::execute(p.make<tally::cumulative_summation_desc>(), a.out, a.out + 48).ok());
  CHECK(tally::execute(p.make<tally::cumulative_summation_desc>(), a.out + 48, a.out).ok());
}

TEST_CASE("validation: in place with different strides or a different total size is refused") {
  SECTION("different strides") {
    problem p;
    p.set_shape({3, 4}, 1);
    p.out_strides[0] = 1;  // transposed: the same 48 bytes, other elements
    p.out_strides[1] = 3;
    p.out.strides = p.out_strides;
    arena a;
    expect_refused_at_execute<tally::cumulative_summation_desc>(p, a.out, a.out, a, status_code::overlapping_buffers,
                                                                {"overlap", "strides"});
    expect_refused_at_execute<tally::cumulative_product_desc>(p, a.out, a.out, a, status_code::overlapping_buffers,
                                                              {"overlap", "strides"});
  }
  SECTION("different total size") {
    problem p;
    p.out.total_tensor_size_in_bytes = 52;
    arena a;
    expect_refused_at_execute<tally::cumulative_summation_desc>(p, a.out, a.out, a, status_code::overlapping_buffers,
                                                                {"overlap", "total size"});
  }
}

TEST_CASE("validation: exact in place is accepted and equals out of place") {
  // Packed, padded and permuted layouts; explicit packed strides equal nullptr's.
  struct in_place_case {
    std::uint32_t sizes[3];
    bool strided;
    std::uint32_t strides[3];
    std::uint64_t total;
  };
  const in_place_case cases[] = {
      {{2, 3, 4}, false, {}, 96},
      {{2, 3, 4}, true, {12, 4, 1}, 96},
      {{2, 3, 4}, true, {20, 6, 1}, 4 * (20 + 2 * 6 + 3 + 1)},  // padded
      {{2, 3, 4}, true, {1, 2, 6}, 96},                         // permuted
  };
  std::mt19937 rng(777);
  for (const in_place_case& c : cases) {
    const tally::tensor_desc t{data_type::float32, 3, c.sizes, c.strided ? c.strides : nullptr, c.total};
    std::vector<float> x(c.total / 4);
    for (float& v : x) v = static_cast<float>(rng() % 4) + 1.0f;
    for (std::uint32_t axis = 0; axis < 3; ++axis)
      for (std::uint32_t direction : {0u, 1u})
        for (bool exclusive : {false, true})
          for (bool product : {false, true}) {
            std::vector<float> out_of_place(x.size(), -1.0f), in_place = x, expected(x.size(), -1.0f);
            tally::status a, b;
            tally_test::with_scan_desc(product, &t, &t, axis, static_cast<tally::axis_direction>(direction), exclusive,
                                       [&](const auto& d) {
                                         a = tally::execute(d, x.data(), out_of_place.data());
                                         b = tally::execute(d, in_place.data(), in_place.data());
                                       });
            reference_scan(t, t, x.data(), expected.data(), axis, direction == 1, exclusive, product);
            CAPTURE(c.strides[0], c.strides[1], c.strides[2], axis, direction, exclusive, product);
            INFO(a.message() << " / " << b.message());
            REQUIRE(a.ok());
            REQUIRE(b.ok());
            CHECK(out_of_place == expected);
            // Padding keeps the input's values in place, -1 out of place; elements agree.
            for (std::size_t i = 0; i < x.size(); ++i)
              if (expected[i] != -1.0f) CHECK(in_place[i] == out_of_place[i]);
              else CHECK(in_place[i] == x[i]);
          }
  }
  // Explicit packed strides and nullptr are the same binding.
  const std::uint32_t sizes[2] = {3, 4}, strides[2] = {4, 1};
  const tally::tensor_desc packed{data_type::float32, 2, sizes, nullptr, 48};
  const tally::tensor_desc explicit_packed{data_type::float32, 2, sizes, strides, 48};
  float buffer[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const tally::cumulative_summation_desc d{&packed, &explicit_packed, 1, tally::axis_direction::increasing, false};
  const tally::status s = tally::execute(d, buffer, buffer);
  INFO(s.message());
  CHECK(s.ok());
  CHECK(buffer[3] == 10.0f);
  CHECK(buffer[11] == 42.0f);
}

// ---------------------------------------------------------------------------------------
// calc_buffer_tensor_size (DMLCalcBufferTensorSize)

TEST_CASE("calc_buffer_tensor_size: DirectML's formula, rounded up to 4 bytes") {
  const std::uint32_t three[1] = {3};
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 1, three, nullptr) == 4);
  CHECK(tally::calc_buffer_tensor_size(data_type::uint8, 1, three, nullptr) == 4);
  CHECK(tally::calc_buffer_tensor_size(data_type::float16, 1, three, nullptr) == 8);
  CHECK(tally::calc_buffer_tensor_size(data_type::int16, 1, three, nullptr) == 8);
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 1, three, nullptr) == 12);
  CHECK(tally::calc_buffer_tensor_size(data_type::float64, 1, three, nullptr) == 24);
  const std::uint32_t one[1] = {1}, four[1] = {4}, five[1] = {5};
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 1, one, nullptr) == 4);
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 1, four, nullptr) == 4);
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 1, five, nullptr) == 8);
  CHECK(tally::calc_buffer_tensor_size(data_type::uint64, 1, one, nullptr) == 8);

  // Strided: (sum of (size-1)*stride + 1) * element, rounded up.
  const std::uint32_t sizes[2] = {2, 3};
  const std::uint32_t padded[2] = {5, 1}, transposed[2] = {1, 2}, broadcast[2] = {0, 0}, gappy[2] = {7, 3};
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 2, sizes, padded) == 32);     // 8 elements
  CHECK(tally::calc_buffer_tensor_size(data_type::int16, 2, sizes, transposed) == 12);   // 6 elements, 12 bytes
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 2, sizes, transposed) == 8);     // 6 bytes -> 8
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 2, sizes, broadcast) == 4);      // 1 byte -> 4
  CHECK(tally::calc_buffer_tensor_size(data_type::float64, 2, sizes, broadcast) == 8);
  CHECK(tally::calc_buffer_tensor_size(data_type::uint16, 2, sizes, gappy) == 28);       // 14 elements
  // A huge stride on a size-1 dimension costs nothing.
  const std::uint32_t big_stride[1] = {u32_max};
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 1, one, big_stride) == 4);
  // The largest 1-D tensor: 2^32 - 1 float64 elements.
  const std::uint32_t largest[1] = {u32_max};
  CHECK(tally::calc_buffer_tensor_size(data_type::float64, 1, largest, nullptr) == std::uint64_t{u32_max} * 8);
}

TEST_CASE("calc_buffer_tensor_size: 0 for invalid inputs") {
  const std::uint32_t sizes[9] = {2, 3, 4, 1, 1, 1, 1, 1, 1};
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 3, nullptr, nullptr) == 0);
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 0, sizes, nullptr) == 0);
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 9, sizes, nullptr) == 0);
  CHECK(tally::calc_buffer_tensor_size(data_type::float32, 8, sizes, nullptr) == 96);
  for (std::uint32_t value : {0u, 12u, 13u, 255u, u32_max})
    CHECK(tally::calc_buffer_tensor_size(static_cast<data_type>(value), 3, sizes, nullptr) == 0);
  for (int d = 0; d < 3; ++d) {
    std::uint32_t with_zero[3] = {2, 3, 4};
    with_zero[d] = 0;
    CAPTURE(d);
    CHECK(tally::calc_buffer_tensor_size(data_type::float32, 3, with_zero, nullptr) == 0);
    const std::uint32_t strides[3] = {12, 4, 1};
    CHECK(tally::calc_buffer_tensor_size(data_type::float32, 3, with_zero, strides) == 0);
  }
}

TEST_CASE("calc_buffer_tensor_size: 0 on overflow, never a wrapped value") {
  const std::uint32_t eight_max[8] = {u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max};
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 8, eight_max, nullptr) == 0);
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 3, eight_max, nullptr) == 0);   // 2^96 elements
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 3, eight_max, eight_max) == 0);  // last index ~2^65
  // 2^62 elements fit, their float64 bytes (2^65) do not.
  const std::uint32_t half_sizes[2] = {0x80000000u, 0x80000000u};
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 2, half_sizes, nullptr) == std::uint64_t{1} << 62);
  CHECK(tally::calc_buffer_tensor_size(data_type::float64, 2, half_sizes, nullptr) == 0);
  // 2^64 - 1 int8 elements: the bytes fit, the rounding up to 4 does not.
  const std::uint32_t all_ones[3] = {65535u, 42009217u, 6700417u};  // 3*5*17*257 * 641*65537 * 6700417
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 3, all_ones, nullptr) == 0);
  // 2^64 - 4 int8 elements round to themselves: the largest value that can be returned.
  const std::uint32_t almost[4] = {4u, 2147483647u, 3u, 715827883u};
  CHECK(tally::calc_buffer_tensor_size(data_type::int8, 4, almost, nullptr) == u64_max - 3);
}

TEST_CASE("calc_buffer_tensor_size: agrees with a 128-bit reference on random layouts") {
  std::mt19937_64 rng(2024);
  const auto pick_u32 = [&]() -> std::uint32_t {
    switch (rng() % 4) {
      case 0: return static_cast<std::uint32_t>(rng() % 8);
      case 1: return static_cast<std::uint32_t>(rng() % 100000);
      case 2: return u32_max - static_cast<std::uint32_t>(rng() % 4);
      default: return static_cast<std::uint32_t>(rng());
    }
  };
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const data_type type = all_types[rng() % 11];
    const std::uint32_t rank = 1 + static_cast<std::uint32_t>(rng() % 8);
    std::uint32_t sizes[8], strides[8];
    for (std::uint32_t d = 0; d < rank; ++d) {
      sizes[d] = pick_u32();
      strides[d] = pick_u32();
    }
    const bool strided = rng() % 2 == 0;
    // Reference: the formula in 128 bits, where no intermediate can wrap; anything at or
    // above 2^64 is an overflow (0).
    const std::uint64_t expected = tally_test::min_buffer_bytes(static_cast<std::uint32_t>(type), rank, sizes,
                                                                strided ? strides : nullptr);
    const std::uint64_t got = tally::calc_buffer_tensor_size(type, rank, sizes, strided ? strides : nullptr);
    if (got != expected) {
      CAPTURE(iteration, tally::to_string(type), rank, strided, sizes[0], strides[0]);
      CHECK(got == expected);
      break;
    }
  }
}
