// Hostile descriptors and views (issue 5), each a regression test: whatever a host passes
// in, tally refuses it with a clear status (or tally::error) and never reads or writes
// outside the buffers it was given. Buffers here end exactly where the descriptor says
// they end, against an inaccessible guard page, so any overrun crashes the test instead
// of passing silently; the 64-bit offset test runs over a sparse reserved address range
// in which only the addressed pages are accessible. Pages come from mmap/mprotect on
// POSIX systems and from VirtualAlloc on Windows (see `pages` below).
#include <tally/tally.hpp>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "support/reference.hpp"

namespace {

using tally::data_type;
using tally::status_code;

constexpr std::uint32_t u32_max = 0xFFFFFFFFu;
constexpr std::uint64_t u64_max = ~std::uint64_t{0};

/// Page-granular memory, the one platform-specific part of this test.
namespace pages {

std::size_t size() {
#if defined(_WIN32)
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return info.dwPageSize;
#else
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
#endif
}

/// `bytes` of inaccessible address space, no memory committed; null on failure.
unsigned char* reserve(std::size_t bytes) {
#if defined(_WIN32)
  return static_cast<unsigned char*>(VirtualAlloc(nullptr, bytes, MEM_RESERVE, PAGE_NOACCESS));
#else
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
#endif
}

/// Makes the whole pages [p, p + bytes) of a reservation readable and writable.
bool open(unsigned char* p, std::size_t bytes) {
#if defined(_WIN32)
  return VirtualAlloc(p, bytes, MEM_COMMIT, PAGE_READWRITE) != nullptr;
#else
  return mprotect(p, bytes, PROT_READ | PROT_WRITE) == 0;
#endif
}

void release(unsigned char* p, std::size_t bytes) {
#if defined(_WIN32)
  (void)bytes;
  VirtualFree(p, 0, MEM_RELEASE);
#else
  munmap(p, bytes);
#endif
}

}  // namespace pages

/// `bytes` of read-write memory between two PROT_NONE guard pages, ending exactly at the
/// upper guard: one byte too far in either direction faults. Filled with a pattern.
class guarded_buffer {
 public:
  explicit guarded_buffer(std::size_t bytes) : bytes_(bytes) {
    const std::size_t page = pages::size();
    const std::size_t body = (bytes + page - 1) / page * page;
    mapped_ = body + 2 * page;
    base_ = pages::reserve(mapped_);
    REQUIRE(base_ != nullptr);
    if (body > 0) REQUIRE(pages::open(base_ + page, body));
    data_ = base_ + page + body - bytes;
    for (std::size_t i = 0; i < bytes; ++i) data_[i] = pattern(i);
  }
  ~guarded_buffer() { pages::release(base_, mapped_); }
  guarded_buffer(const guarded_buffer&) = delete;
  guarded_buffer& operator=(const guarded_buffer&) = delete;

  unsigned char* data() const { return data_; }
  /// One past the last accessible byte: the first byte of the upper guard page.
  unsigned char* end() const { return data_ + bytes_; }
  std::size_t size() const { return bytes_; }
  bool unchanged() const {
    for (std::size_t i = 0; i < bytes_; ++i)
      if (data_[i] != pattern(i)) return false;
    return true;
  }

 private:
  static unsigned char pattern(std::size_t i) { return static_cast<unsigned char>(0x5A ^ (i * 31)); }
  std::size_t bytes_, mapped_;
  unsigned char* base_ = nullptr;
  unsigned char* data_ = nullptr;
};

/// `count` uint32 values placed against a guard page, so reading one more faults.
class guarded_u32s {
 public:
  explicit guarded_u32s(std::initializer_list<std::uint32_t> values)
      : buffer_(values.size() * sizeof(std::uint32_t)) {
    std::memcpy(buffer_.data(), values.begin(), buffer_.size());
  }
  const std::uint32_t* data() const { return reinterpret_cast<const std::uint32_t*>(buffer_.data()); }

 private:
  guarded_buffer buffer_;
};

template <class Desc>
Desc make_desc(const tally::tensor_desc* in, const tally::tensor_desc* out, std::uint32_t axis,
               std::uint32_t direction) {
  Desc d;
  d.input = in;
  d.output = out;
  d.axis = axis;
  d.direction = static_cast<tally::axis_direction>(direction);
  return d;
}

/// For both operators and 1 or 2 threads: validate() gives `validate_code` (ok for the
/// execution-time rules), execute() gives `code`, and no byte of either buffer changes.
void expect_refused(const tally::tensor_desc* in, const tally::tensor_desc* out, std::uint32_t axis,
                    std::uint32_t direction, const guarded_buffer* in_buffer, const void* in_pointer,
                    const guarded_buffer* out_buffer, void* out_pointer, status_code code,
                    status_code validate_code) {
  const auto run = [&](auto desc, const char* name) {
    INFO(name);
    const tally::status v = tally::validate(desc);
    INFO("validate: " << tally::to_string(v.code()) << ": " << v.message());
    CHECK(v.code() == validate_code);
    for (unsigned threads : {1u, 2u}) {
      tally::execution_options options;
      options.threads = threads;
      const tally::status e = tally::execute(desc, in_pointer, out_pointer, options);
      INFO("execute: " << tally::to_string(e.code()) << ": " << e.message());
      CHECK(e.code() == code);
      CHECK(std::strlen(e.message()) > 10);
      if (in_buffer) CHECK(in_buffer->unchanged());
      if (out_buffer) CHECK(out_buffer->unchanged());
    }
  };
  run(make_desc<tally::cumulative_summation_desc>(in, out, axis, direction), "summation");
  run(make_desc<tally::cumulative_product_desc>(in, out, axis, direction), "product");
}

/// A descriptor rule: validate() and execute() both refuse with `code`. The buffers are
/// real, small and guarded: `in_bytes` and `out_bytes` long.
void expect_desc_refused(const tally::tensor_desc* in, const tally::tensor_desc* out, std::uint32_t axis,
                         std::uint32_t direction, status_code code, std::size_t in_bytes = 64,
                         std::size_t out_bytes = 64) {
  guarded_buffer a(in_bytes), b(out_bytes);
  expect_refused(in, out, axis, direction, &a, a.data(), &b, b.data(), code, code);
}

}  // namespace

TEST_CASE("hostile: sizes whose product overflows 64 bits") {
  // 8 dimensions of 2^32 - 1: the product is about 2^256.
  const guarded_u32s huge({u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max});
  const tally::tensor_desc t{data_type::float32, 8, huge.data(), nullptr, u64_max};
  expect_desc_refused(&t, &t, 0, 0, status_code::size_overflow);
  expect_desc_refused(&t, &t, 7, 1, status_code::size_overflow);

  // A legal small input with a hostile output, and the reverse.
  const guarded_u32s small({1, 1, 1, 1, 1, 1, 1, 4});
  const tally::tensor_desc s{data_type::float32, 8, small.data(), nullptr, 16};
  // A broadcast input (all strides 0) is legal in 4 bytes; its packed output overflows.
  const guarded_u32s zeros({0, 0, 0, 0, 0, 0, 0, 0});
  const tally::tensor_desc broadcast{data_type::float32, 8, huge.data(), zeros.data(), 4};
  expect_desc_refused(&broadcast, &t, 3, 0, status_code::size_overflow);
  // Control: the same broadcast input into a small output of the legal sizes runs.
  const tally::tensor_desc small_broadcast{data_type::float32, 8, small.data(), zeros.data(), 4};
  guarded_buffer a(4), b(16);
  const float one = 1.0f;
  std::memcpy(a.data(), &one, 4);
  REQUIRE(tally::execute(make_desc<tally::cumulative_summation_desc>(&small_broadcast, &s, 7, 0), a.data(), b.data()).ok());
  float y[4];
  std::memcpy(y, b.data(), sizeof y);
  CHECK((y[0] == 1.0f && y[1] == 2.0f && y[2] == 3.0f && y[3] == 4.0f));

  // 2^62 float64 elements: the count fits in 64 bits, the bytes do not.
  const guarded_u32s half_range({0x80000000u, 0x80000000u});
  const tally::tensor_desc f64{data_type::float64, 2, half_range.data(), nullptr, u64_max};
  expect_desc_refused(&f64, &f64, 1, 0, status_code::size_overflow);
}

TEST_CASE("hostile: strides that reach past the declared total size") {
  const guarded_u32s sizes({3, 4});
  const guarded_u32s distant({100, 1}), farthest({u32_max, u32_max}), packed({4, 1});
  for (const std::uint32_t* strides : {distant.data(), farthest.data()}) {
    const tally::tensor_desc bad{data_type::float32, 2, sizes.data(), strides, 48};
    const tally::tensor_desc good{data_type::float32, 2, sizes.data(), packed.data(), 48};
    CAPTURE(strides[0], strides[1]);
    expect_desc_refused(&bad, &good, 1, 0, status_code::buffer_too_small, 48, 48);
    expect_desc_refused(&good, &bad, 0, 1, status_code::buffer_too_small, 48, 48);
  }
  // Control: a broadcast input reads exactly its 16 declared bytes, the packed output
  // writes exactly its 48, each against a guard page.
  const guarded_u32s broadcast({0, 1});
  const tally::tensor_desc in{data_type::float32, 2, sizes.data(), broadcast.data(), 16};
  const tally::tensor_desc out{data_type::float32, 2, sizes.data(), nullptr, 48};
  guarded_buffer a(16), b(48);
  const float x[4] = {1, 2, 3, 4};
  std::memcpy(a.data(), x, sizeof x);
  for (std::uint32_t direction : {0u, 1u}) {
    const auto d = make_desc<tally::cumulative_summation_desc>(&in, &out, 0, direction);
    REQUIRE(tally::execute(d, a.data(), b.data()).ok());
    float y[12];
    std::memcpy(y, b.data(), sizeof y);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(y[i * 4 + j] == x[j] * static_cast<float>(direction == 0 ? i + 1 : 3 - i));
  }
}

TEST_CASE("hostile: a total size larger than the address space") {
  // A real 48-byte buffer whose descriptor claims more bytes than fit above its address:
  // UINT64_MAX, and exactly one byte more than the address space holds above the pointer.
  // Both exceed PTRDIFF_MAX (no object is that large), so validate() refuses already;
  // execute() must refuse too and touch nothing.
  const guarded_u32s sizes({3, 4});
  const tally::tensor_desc normal{data_type::float32, 2, sizes.data(), nullptr, 48};
  guarded_buffer a(48), b(48);
  const auto past_end = [](const void* p) {
    return u64_max - static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)) + 1;
  };
  for (int which = 0; which < 2; ++which) {
    const std::uint64_t total_in = which == 0 ? u64_max : past_end(a.data());
    const std::uint64_t total_out = which == 0 ? u64_max : past_end(b.data());
    const tally::tensor_desc huge_in{data_type::float32, 2, sizes.data(), nullptr, total_in};
    const tally::tensor_desc huge_out{data_type::float32, 2, sizes.data(), nullptr, total_out};
    const tally::tensor_desc huge_a{data_type::float32, 2, sizes.data(), nullptr, total_in};
    CAPTURE(which, total_in, total_out);
    expect_refused(&huge_in, &normal, 1, 0, &a, a.data(), &b, b.data(), status_code::size_overflow,
                   status_code::size_overflow);
    expect_refused(&normal, &huge_out, 1, 0, &a, a.data(), &b, b.data(), status_code::size_overflow,
                   status_code::size_overflow);
    expect_refused(&huge_in, &huge_out, 0, 1, &a, a.data(), &b, b.data(), status_code::size_overflow,
                   status_code::size_overflow);
    // The same claim on an exact in-place binding.
    expect_refused(&huge_a, &huge_a, 1, 0, &a, a.data(), nullptr, a.data(), status_code::size_overflow,
                   status_code::size_overflow);
  }
  // Control: the honest 48 bytes run, and touch nothing beyond them (guard pages).
  REQUIRE(tally::execute(make_desc<tally::cumulative_summation_desc>(&normal, &normal, 1, 0), a.data(), b.data()).ok());
  CHECK_FALSE(b.unchanged());
}

TEST_CASE("hostile: a total size beyond any object size (2^63 bytes)") {
  // 2^63 bytes does not overflow the pointer arithmetic above a user-space address, but
  // exceeds PTRDIFF_MAX, the largest object C++ can have: no real buffer has that size,
  // and issue 5 asks for it to be refused. The guard pages prove that tally touches only
  // the 48 bytes the layout addresses whatever it decides.
  const guarded_u32s sizes({3, 4});
  const tally::tensor_desc normal{data_type::float32, 2, sizes.data(), nullptr, 48};
  const tally::tensor_desc huge{data_type::float32, 2, sizes.data(), nullptr, std::uint64_t{1} << 63};
  guarded_buffer a(48), b(48);
  const tally::status v = tally::validate(make_desc<tally::cumulative_summation_desc>(&huge, &normal, 1, 0));
  INFO("validate: " << tally::to_string(v.code()) << ": " << v.message());
  CHECK_FALSE(v.ok());
  // Both orders of the two buffers, so that the declared ranges do not overlap once.
  expect_refused(&huge, &normal, 1, 0, &a, a.data(), &b, b.data(), status_code::size_overflow,
                 status_code::size_overflow);
  expect_refused(&huge, &normal, 1, 0, &b, b.data(), &a, a.data(), status_code::size_overflow,
                 status_code::size_overflow);
  expect_refused(&huge, &huge, 1, 0, &a, a.data(), nullptr, a.data(), status_code::size_overflow,
                 status_code::size_overflow);
}

TEST_CASE("hostile: dimension counts 0, 9 and 2^32 - 1, with sizes that end at a guard page") {
  // The sizes arrays end exactly at an inaccessible page: reading sizes[count] (or sizes[0]
  // for count 0) before checking the count would fault.
  const guarded_buffer nothing(0);
  const auto* no_sizes = reinterpret_cast<const std::uint32_t*>(nothing.end());
  const guarded_u32s eight({1, 1, 1, 1, 1, 1, 3, 4});
  const guarded_u32s twelve({12});
  const tally::tensor_desc valid{data_type::float32, 1, twelve.data(), nullptr, 48};
  struct case_t {
    std::uint32_t count;
    const std::uint32_t* sizes;
  };
  for (const case_t& c : {case_t{0, no_sizes}, case_t{9, eight.data()}, case_t{u32_max, eight.data()}}) {
    const tally::tensor_desc bad{data_type::float32, c.count, c.sizes, nullptr, 48};
    CAPTURE(c.count);
    expect_desc_refused(&bad, &valid, 0, 0, status_code::invalid_dimension_count, 48, 48);
    expect_desc_refused(&valid, &bad, 0, 0, status_code::invalid_dimension_count, 48, 48);
    expect_desc_refused(&bad, &bad, 0, 0, status_code::invalid_dimension_count, 48, 48);
  }
}

TEST_CASE("hostile: data type values 0, 12, 13 and 255") {
  const guarded_u32s sizes({3, 4});
  for (std::uint32_t value : {0u, 12u, 13u, 255u, u32_max}) {
    const tally::tensor_desc bad{static_cast<data_type>(value), 2, sizes.data(), nullptr, 48};
    const tally::tensor_desc good{data_type::float32, 2, sizes.data(), nullptr, 48};
    CAPTURE(value);
    expect_desc_refused(&bad, &good, 1, 0, status_code::unsupported_data_type, 48, 48);
    expect_desc_refused(&good, &bad, 1, 0, status_code::unsupported_data_type, 48, 48);
    expect_desc_refused(&bad, &bad, 1, 0, status_code::unsupported_data_type, 48, 48);
  }
}

TEST_CASE("hostile: direction values 2 and 2^32 - 1") {
  const guarded_u32s sizes({3, 4});
  const tally::tensor_desc t{data_type::float32, 2, sizes.data(), nullptr, 48};
  for (std::uint32_t direction : {2u, u32_max})
    for (std::uint32_t axis : {0u, 1u}) {
      CAPTURE(direction, axis);
      expect_desc_refused(&t, &t, axis, direction, status_code::invalid_direction, 48, 48);
    }
}

TEST_CASE("hostile: an axis equal to the dimension count") {
  const guarded_u32s sizes({2, 1, 1, 1, 1, 1, 1, 1});
  for (std::uint32_t count = 1; count <= 8; ++count) {
    const tally::tensor_desc t{data_type::float32, count, sizes.data(), nullptr, 8};
    CAPTURE(count);
    expect_desc_refused(&t, &t, count, 0, status_code::invalid_axis, 8, 8);
    expect_desc_refused(&t, &t, u32_max, 0, status_code::invalid_axis, 8, 8);
  }
}

TEST_CASE("hostile: null pointers in each field") {
  const guarded_u32s sizes({3, 4});
  const tally::tensor_desc t{data_type::float32, 2, sizes.data(), nullptr, 48};
  const tally::tensor_desc no_sizes{data_type::float32, 2, nullptr, nullptr, 48};
  expect_desc_refused(nullptr, &t, 1, 0, status_code::null_pointer, 48, 48);
  expect_desc_refused(&t, nullptr, 1, 0, status_code::null_pointer, 48, 48);
  expect_desc_refused(nullptr, nullptr, 1, 0, status_code::null_pointer, 48, 48);
  expect_desc_refused(&no_sizes, &t, 1, 0, status_code::null_pointer, 48, 48);
  expect_desc_refused(&t, &no_sizes, 1, 0, status_code::null_pointer, 48, 48);
  // The buffers: validate() accepts, execute() refuses.
  guarded_buffer a(48), b(48);
  expect_refused(&t, &t, 1, 0, &a, nullptr, &b, b.data(), status_code::null_pointer, status_code::ok);
  expect_refused(&t, &t, 1, 0, &a, a.data(), &b, nullptr, status_code::null_pointer, status_code::ok);
  expect_refused(&t, &t, 1, 0, &a, nullptr, &b, nullptr, status_code::null_pointer, status_code::ok);
  // Typed layer: a null data pointer for a non-empty view is refused at construction.
  try {
    tally::tensor_view<float> v(nullptr, {3, 4});
    FAIL("a null non-empty view was accepted");
  } catch (const tally::error& e) {
    CHECK(e.code() == status_code::null_pointer);
  }
}

TEST_CASE("hostile: a misaligned buffer") {
  const guarded_u32s sizes({3});
  for (data_type type : {data_type::float16, data_type::int16, data_type::float32, data_type::uint32,
                         data_type::float64, data_type::int64}) {
    const std::size_t element = tally::element_size(type);
    const std::uint64_t total = tally::calc_buffer_tensor_size(type, 1, sizes.data(), nullptr);
    const tally::tensor_desc t{type, 1, sizes.data(), nullptr, total};
    // One extra byte in front, so that the misaligned view still ends at the guard page.
    guarded_buffer a(total + element), b(total + element);
    CAPTURE(tally::to_string(type));
    expect_refused(&t, &t, 0, 0, &a, a.data() + 1, &b, b.data() + element, status_code::misaligned_buffer,
                   status_code::ok);
    expect_refused(&t, &t, 0, 0, &a, a.data() + element, &b, b.data() + 1, status_code::misaligned_buffer,
                   status_code::ok);
  }
}

TEST_CASE("hostile: input and output overlapping partially") {
  SECTION("the descriptor layer refuses") {
    const guarded_u32s sizes({3, 4});
    const tally::tensor_desc t{data_type::int32, 2, sizes.data(), nullptr, 48};
    guarded_buffer shared(52);
    // Output one element above the input, then below it; a second shift by a whole row.
    expect_refused(&t, &t, 1, 0, &shared, shared.data(), nullptr, shared.data() + 4,
                   status_code::overlapping_buffers, status_code::ok);
    expect_refused(&t, &t, 1, 0, &shared, shared.data() + 4, nullptr, shared.data(),
                   status_code::overlapping_buffers, status_code::ok);
    guarded_buffer row(64);
    expect_refused(&t, &t, 0, 1, &row, row.data() + 16, nullptr, row.data(), status_code::overlapping_buffers,
                   status_code::ok);
  }
  SECTION("the typed layer computes as if the input had been copied first") {
    std::mt19937 rng(99);
    // Each case: input and output views of one 64-element int32 array.
    struct case_t {
      const char* name;
      std::ptrdiff_t in_offset, out_offset;
      std::ptrdiff_t in_strides[2], out_strides[2];
    };
    const case_t cases[] = {
        {"output one element above", 0, 1, {6, 1}, {6, 1}},
        {"output one element below", 1, 0, {6, 1}, {6, 1}},
        {"output reversed over the input", 0, 35, {6, 1}, {-6, -1}},
        {"output transposed over the input", 0, 0, {6, 1}, {1, 6}},
        {"output one row above, wider", 0, 6, {6, 1}, {7, 1}},
        {"input broadcast inside the output", 3, 0, {0, 1}, {6, 1}},
    };
    for (const case_t& c : cases) {
      for (int axis : {0, 1, -1}) {
        for (bool exclusive : {false, true}) {
          for (bool product : {false, true}) {
            std::vector<std::int32_t> memory(64);
            for (auto& v : memory) v = static_cast<std::int32_t>(rng() % 7) - 3;
            // The expected result: the input copied to its own array, scanned out of place
            // into a copy of the memory, and independently by hand.
            const std::vector<std::int32_t> before = memory;
            std::vector<std::int32_t> expected = memory;
            std::int32_t x[6][6];
            for (int i = 0; i < 6; ++i)
              for (int j = 0; j < 6; ++j) x[i][j] = before[c.in_offset + i * c.in_strides[0] + j * c.in_strides[1]];
            const int a = axis < 0 ? axis + 2 : axis;
            for (int line = 0; line < 6; ++line) {
              std::int64_t running = product ? 1 : 0;
              for (int k = 0; k < 6; ++k) {
                const int i = a == 0 ? k : line, j = a == 0 ? line : k;
                const std::int64_t previous = running;
                running = product ? running * x[i][j] : running + x[i][j];
                expected[c.out_offset + i * c.out_strides[0] + j * c.out_strides[1]] =
                    static_cast<std::int32_t>(exclusive ? previous : running);  // |values| <= 3^6
              }
            }
            std::vector<std::int32_t> copy_in(36), copied_result = before;
            for (int i = 0; i < 6; ++i)
              for (int j = 0; j < 6; ++j) copy_in[i * 6 + j] = x[i][j];
            tally::scan_options options;
            options.exclusive = exclusive;
            const tally::tensor_view<const std::int32_t> packed_in(copy_in.data(), {6, 6});
            const tally::tensor_view<std::int32_t> copy_out(copied_result.data() + c.out_offset, {6, 6},
                                                            {c.out_strides[0], c.out_strides[1]});
            const tally::tensor_view<const std::int32_t> in(memory.data() + c.in_offset, {6, 6},
                                                            {c.in_strides[0], c.in_strides[1]});
            const tally::tensor_view<std::int32_t> out(memory.data() + c.out_offset, {6, 6},
                                                       {c.out_strides[0], c.out_strides[1]});
            if (product) {
              tally::cumprod(packed_in, copy_out, axis, options);
              tally::cumprod(in, out, axis, options);
            } else {
              tally::cumsum(packed_in, copy_out, axis, options);
              tally::cumsum(in, out, axis, options);
            }
            CAPTURE(c.name, axis, exclusive, product);
            CHECK(copied_result == expected);
            CHECK(memory == expected);  // elements outside the output keep their values too
          }
        }
      }
    }
  }
}

TEST_CASE("hostile: typed views that are refused before anything is written") {
  std::vector<float> data(16, 1.0f), out(16, 7.0f);
  const std::vector<float> out_before = out;
  const auto expect_error = [&](status_code code, auto&& call) {
    try {
      call();
      FAIL("accepted");
    } catch (const tally::error& e) {
      INFO(e.what());
      CHECK(e.code() == code);
    }
    CHECK(out == out_before);
  };
  // Views whose extent overflows 64-bit offsets.
  expect_error(status_code::size_overflow, [&] {
    const std::size_t sizes[8] = {1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31};
    tally::tensor_view<float> v(data.data(), 8, sizes);
  });
  expect_error(status_code::size_overflow, [&] {
    tally::tensor_view<float> v(data.data(), {3, 2}, {PTRDIFF_MAX / 2, 1});
  });
  expect_error(status_code::size_overflow, [&] {
    tally::tensor_view<float> v(data.data(), {3, 2}, {PTRDIFF_MIN + 1, 1});
  });
  // Rank 9; rank 0 (a 0-d tensor) without data.
  const std::size_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 16};
  expect_error(status_code::null_pointer, [&] { tally::tensor_view<float> v(nullptr, 0, nine); });
  expect_error(status_code::invalid_dimension_count, [&] { tally::tensor_view<float> v(data.data(), 9, nine); });
  const tally::tensor_view<const float> in(data.data(), {4, 4});
  const tally::tensor_view<float> o(out.data(), {4, 4});
  // Axis out of range, both signs; a direction other than 0 or 1.
  for (int axis : {2, -3, 1 << 30, -(1 << 30)})
    expect_error(status_code::invalid_axis, [&] { tally::cumsum(in, o, axis); });
  for (std::uint32_t direction : {2u, u32_max}) {
    tally::scan_options options;
    options.direction = static_cast<tally::axis_direction>(direction);
    expect_error(status_code::invalid_direction, [&] { tally::cumprod(in, o, 0, options); });
  }
  // An output with distinct elements at one address.
  const tally::tensor_view<float> zero_stride(out.data(), {4, 4}, {0, 1});
  const tally::tensor_view<float> interleaved(out.data(), {4, 4}, {2, 1});
  expect_error(status_code::overlapping_output, [&] { tally::cumsum(in, zero_stride, 1); });
  expect_error(status_code::overlapping_output, [&] { tally::cumsum(in, interleaved, 0); });
}

// ---------------------------------------------------------------------------------------
// 64-bit offsets

namespace {

/// A sparse range of address space: reserved, inaccessible and never committed, except
/// for the pages made accessible with open(). Any access elsewhere faults.
class reservation {
 public:
  explicit reservation(std::uint64_t bytes) : bytes_(static_cast<std::size_t>(bytes)) {
    base_ = pages::reserve(bytes_);
  }
  ~reservation() {
    if (base_) pages::release(base_, bytes_);
  }
  reservation(const reservation&) = delete;
  reservation& operator=(const reservation&) = delete;

  bool ok() const { return base_ != nullptr; }
  unsigned char* base() const { return base_; }
  /// Makes the pages holding [offset, offset + length) readable and writable.
  bool open(std::uint64_t offset, std::size_t length) {
    const std::size_t page = pages::size();
    const std::size_t first = static_cast<std::size_t>(offset) / page * page;
    const std::size_t last = (static_cast<std::size_t>(offset) + length + page - 1) / page * page;
    return pages::open(base_ + first, last - first);
  }

 private:
  std::size_t bytes_;
  unsigned char* base_ = nullptr;
};

/// Element offsets of every index of a 3-D tensor {3, 2, 2} with the given strides.
std::vector<std::uint64_t> offsets_of(const std::uint32_t* sizes, const std::uint64_t* strides) {
  std::vector<std::uint64_t> result;
  for (std::uint32_t i = 0; i < sizes[0]; ++i)
    for (std::uint32_t j = 0; j < sizes[1]; ++j)
      for (std::uint32_t k = 0; k < sizes[2]; ++k) result.push_back(i * strides[0] + j * strides[1] + k * strides[2]);
  return result;
}

/// The independent reference over the 12 elements, held by index (i, j, k) in row-major order.
template <class T>
std::vector<T> reference_3d(const std::vector<T>& x, std::uint32_t axis, bool decreasing, bool product) {
  return tally_test::reference_scan_packed(product ? tally_test::scan_op::product : tally_test::scan_op::sum,
                                           {3, 2, 2}, axis, decreasing, false, x);
}

/// A {3, 2, 2} tensor with element strides {2^32 - 1, 2^31, 1} (the descriptor layer's
/// widest): its last element lies about 2.5 * 2^32 elements from the first, so a 32-bit
/// offset anywhere would address the wrong (inaccessible) page and fault.
template <class T>
void run_descriptor_64_bit_offsets() {
  const std::uint32_t sizes[3] = {3, 2, 2};
  const std::uint32_t strides[3] = {u32_max, 0x80000000u, 1};
  const std::uint64_t strides64[3] = {u32_max, 0x80000000u, 1};
  const data_type type = tally::data_type_of_v<T>;
  const std::uint64_t total = tally::calc_buffer_tensor_size(type, 3, sizes, strides);
  REQUIRE(total == (std::uint64_t{5} << 31) * sizeof(T));  // last index 5 * 2^31 - 1
  const std::vector<std::uint64_t> offsets = offsets_of(sizes, strides64);
  REQUIRE(offsets.back() > (std::uint64_t{1} << 33));

  reservation in(total), out(total);
  if (!in.ok() || !out.ok()) {
    WARN("skipped: could not reserve 2 x " << total << " bytes of address space for the 64-bit offset test");
    return;
  }
  for (std::uint64_t o : offsets) {
    REQUIRE(in.open(o * sizeof(T), sizeof(T)));
    REQUIRE(out.open(o * sizeof(T), sizeof(T)));
  }
  std::vector<T> x(12);
  for (std::size_t i = 0; i < 12; ++i) x[i] = static_cast<T>(static_cast<int>(i % 5) + 1);
  const auto at = [&](const reservation& r, std::size_t i) { return reinterpret_cast<T*>(r.base()) + offsets[i]; };
  for (std::size_t i = 0; i < 12; ++i) *at(in, i) = x[i];

  const tally::tensor_desc t{type, 3, sizes, strides, total};
  REQUIRE(tally::validate(make_desc<tally::cumulative_summation_desc>(&t, &t, 0, 0)).ok());
  for (std::uint32_t axis = 0; axis < 3; ++axis)
    for (std::uint32_t direction : {0u, 1u})
      for (bool product : {false, true})
        for (unsigned threads : {1u, 2u})
          for (bool in_place : {false, true}) {
            tally::execution_options options;
            options.threads = threads;
            tally::status s;
            if (in_place)
              for (std::size_t i = 0; i < 12; ++i) *at(out, i) = x[i];
            const void* source = in_place ? static_cast<const void*>(out.base()) : in.base();
            if (product)
              s = tally::execute(make_desc<tally::cumulative_product_desc>(&t, &t, axis, direction), source,
                                 out.base(), options);
            else
              s = tally::execute(make_desc<tally::cumulative_summation_desc>(&t, &t, axis, direction), source,
                                 out.base(), options);
            CAPTURE(axis, direction, product, threads, in_place);
            INFO(s.message());
            REQUIRE(s.ok());
            const std::vector<T> expected = reference_3d(x, axis, direction == 1, product);
            for (std::size_t i = 0; i < 12; ++i) {
              CAPTURE(i, offsets[i]);
              CHECK(*at(out, i) == expected[i]);
              CHECK(*at(in, i) == x[i]);
            }
          }
}

/// Narrow columns (fewer lines than a vector, as the x, y, z of points down axis 0) go
/// down their rows a vector at a time, masked near the tensor's ends and, in place,
/// through rooms of the thread's own: nothing may reach past the first or last element.
/// Each buffer is a whole number of pages (4096 rows, or as many rows as a page has bytes
/// where pages are larger), so both its ends touch a guard page. Rows go up or down in
/// memory (a row stride of -columns puts the row last in scan order first in memory), out
/// of place and in place. `scan(in, out, reversed)` runs the operator down axis 0, and
/// `fold(run, x)` is its running value; the values are small integers (or distinct, for an
/// index), so every result is exact and compared bit for bit.
template <class T, class Scan, class Fold>
void narrow_columns_at_guards(Scan scan, Fold fold, bool distinct = false) {
  const std::size_t rows = (std::max)(std::size_t{4096}, pages::size());
  std::mt19937 random(29);
  for (std::size_t columns = 1; columns <= 33; ++columns)
    for (bool reversed : {false, true})
      for (bool in_place : {false, true}) {
        const std::size_t n = rows * columns;
        guarded_buffer in_buffer(n * sizeof(T)), out_buffer(n * sizeof(T));
        T* const in = reinterpret_cast<T*>(in_buffer.data());
        T* const out = reinterpret_cast<T*>(out_buffer.data());
        for (std::size_t i = 0; i < n; ++i)
          in[i] = distinct ? static_cast<T>((i / columns * 2654435761u) % 1048573)
                           : static_cast<T>(static_cast<int>(random() % 17) - 8);
        const std::vector<T> x(in, in + n);
        if (in_place) std::memcpy(out, in, n * sizeof(T));
        const auto row = static_cast<std::ptrdiff_t>(columns);
        const auto view = [&](T* p) {
          return reversed ? tally::tensor_view<T>(p + n - columns, {rows, columns}, {-row, 1})
                          : tally::tensor_view<T>(p, {rows, columns}, {row, 1});
        };
        const tally::tensor_view<T> out_view = view(out);
        CAPTURE(columns, reversed, in_place);
        scan(tally::tensor_view<const T>(in_place ? out_view : view(in)), out_view, reversed);
        std::size_t wrong = 0;
        for (std::size_t j = 0; j < columns; ++j) {
          T run{};
          for (std::size_t k = 0; k < rows; ++k) {
            const std::size_t at = (reversed ? rows - 1 - k : k) * columns + j;
            run = k == 0 ? x[at] : fold(run, x[at]);
            wrong += out[at] != run;
          }
        }
        CHECK(wrong == 0);
      }
}

}  // namespace

TEST_CASE("64-bit offsets: descriptor strides reaching beyond 2^32 elements") {
  SECTION("int8") { run_descriptor_64_bit_offsets<std::int8_t>(); }
  SECTION("float32") { run_descriptor_64_bit_offsets<float>(); }
  SECTION("float64") { run_descriptor_64_bit_offsets<double>(); }
}

TEST_CASE("64-bit offsets: typed views with strides beyond 2^32 elements, positive and negative") {
  // A {3, 2} float view with an outer stride of 2^32 + 3 elements: rows lie 16 GiB apart.
  const std::uint64_t stride = (std::uint64_t{1} << 32) + 3;
  const std::uint64_t span = 2 * stride + 2;  // elements from the first to one past the last
  reservation r(span * sizeof(float));
  if (!r.ok()) {
    WARN("skipped: could not reserve " << span * sizeof(float) << " bytes of address space");
    return;
  }
  std::uint64_t offsets[6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      offsets[i * 2 + j] = static_cast<std::uint64_t>(i) * stride + static_cast<std::uint64_t>(j);
      REQUIRE(r.open(offsets[i * 2 + j] * sizeof(float), sizeof(float)));
    }
  float* base = reinterpret_cast<float*>(r.base());
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const auto s = static_cast<std::ptrdiff_t>(stride);
  for (bool reversed : {false, true}) {
    for (int axis : {0, 1}) {
      for (unsigned threads : {1u, 2u}) {
        // In place, over the same sparse elements; reversed walks from the last element.
        for (int k = 0; k < 6; ++k) base[offsets[k]] = x[k];
        float* origin = reversed ? base + offsets[5] : base;
        const tally::tensor_view<float> v =
            reversed ? tally::tensor_view<float>(origin, {3, 2}, {-s, -1}) : tally::tensor_view<float>(origin, {3, 2}, {s, 1});
        tally::scan_options options;
        options.threads = threads;
        tally::cumsum(v, v, axis, options);
        // Expected in view coordinates (i, j) -> memory element (2 - i, 1 - j) when reversed.
        float view_x[3][2], expected[3][2];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 2; ++j) view_x[i][j] = reversed ? x[(2 - i) * 2 + (1 - j)] : x[i * 2 + j];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 2; ++j) {
            float sum = 0;
            for (int k = 0; k <= (axis == 0 ? i : j); ++k) sum += axis == 0 ? view_x[k][j] : view_x[i][k];
            expected[i][j] = sum;
          }
        CAPTURE(reversed, axis, threads);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 2; ++j) {
            const int m = reversed ? (2 - i) * 2 + (1 - j) : i * 2 + j;
            CAPTURE(i, j);
            CHECK(base[offsets[m]] == expected[i][j]);
          }
      }
    }
  }
}

TEST_CASE("hostile: narrow columns reach no element outside the tensor, either end, in place or not") {
  const auto sum = [](auto a, auto b) { return a + b; };
  SECTION("float32 cumsum, exact and fast") {
    for (auto accuracy : {tally::scan_accuracy::exact, tally::scan_accuracy::fast}) {
      tally::scan_options options;
      options.accuracy = accuracy;
      narrow_columns_at_guards<float>(
          [&](tally::tensor_view<const float> in, tally::tensor_view<float> out, bool) { tally::cumsum(in, out, 0, options); },
          sum);
    }
  }
  SECTION("float64 cumsum") {
    narrow_columns_at_guards<double>(
        [](tally::tensor_view<const double> in, tally::tensor_view<double> out, bool) { tally::cumsum(in, out, 0); }, sum);
  }
  SECTION("int32 and int16 cummax") {
    const auto larger = [](auto a, auto b) { return a < b ? b : a; };
    narrow_columns_at_guards<std::int32_t>(
        [](tally::tensor_view<const std::int32_t> in, tally::tensor_view<std::int32_t> out, bool) {
          tally::cummax(in, out, 0);
        },
        larger);
    narrow_columns_at_guards<std::int16_t>(
        [](tally::tensor_view<const std::int16_t> in, tally::tensor_view<std::int16_t> out, bool) {
          tally::cummax(in, out, 0);
        },
        larger);
  }
  SECTION("float cummin with indices (the indices against guard pages too)") {
    // Distinct values down each column: the index of each running minimum is the row (in
    // scan order) where it was met.
    narrow_columns_at_guards<float>(
        [](tally::tensor_view<const float> in, tally::tensor_view<float> out, bool reversed) {
          const std::size_t rows = in.extent(0), columns = in.extent(1), n = rows * columns;
          guarded_buffer index_buffer(n * sizeof(std::int64_t));
          auto* const index = reinterpret_cast<std::int64_t*>(index_buffer.data());
          const auto row = static_cast<std::ptrdiff_t>(columns);
          const auto index_view = reversed ? tally::tensor_view<std::int64_t>(index + n - columns, {rows, columns}, {-row, 1})
                                           : tally::tensor_view<std::int64_t>(index, {rows, columns}, {row, 1});
          std::vector<float> x(n);  // the input in scan order (in place, `out` overwrites it)
          for (std::size_t k = 0; k < rows; ++k)
            for (std::size_t j = 0; j < columns; ++j) x[k * columns + j] = in(k, j);
          tally::cummin(in, out, index_view, 0);
          std::size_t wrong = 0;
          for (std::size_t j = 0; j < columns; ++j) {
            std::size_t best = 0;
            for (std::size_t k = 0; k < rows; ++k) {
              if (x[k * columns + j] < x[best * columns + j]) best = k;
              wrong += index_view(k, j) != static_cast<std::int64_t>(best);
            }
          }
          CHECK(wrong == 0);
        },
        [](float a, float b) { return b < a ? b : a; }, true);
  }
}
