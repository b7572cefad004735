// The kernel shapes that depend on where a buffer sits and how lines are packed, on the
// buffers users have (std::vector, so 16-byte but rarely 64-byte aligned, at every
// element offset, and in place): short lines scanned many per vector, narrow columns
// scanned as one stream, outputs large enough to be streamed with non-temporal stores,
// and float products run as vectors with their special values put back in sequence.
// Each is compared with the independent reference (tests/support/reference.hpp): bitwise on data
// whose every partial result is exact, within the error bound otherwise, and bitwise
// between thread counts. The SIMD engine's kernels are the fast mode's; the exact mode
// (the typed layer's default for float32 and float64) runs beside them on exact data,
// where it must give the same bits, and on the transposed views it stages.
#include <tally/tally.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "support/bits.hpp"
#include "support/calls.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

namespace {

using tally_test::rng_t;
using tally_test::scan_op;

/// Values whose every partial sum is exact in T whatever the grouping (small integers;
/// for integer types any value: their arithmetic is modular and exact).
template <class T>
T exact_value(rng_t& rng) {
  const auto v = static_cast<int>(tally_test::pick(rng, 7)) - 3;
  if constexpr (std::is_same_v<T, tally::half>)
    return tally::half(static_cast<float>(v));
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(rng());
  else
    return static_cast<T>(v);
}

/// Values whose every partial product is exact: +-1, +-2 and signed zeros, rarely (a zero
/// ends every line's interesting part).
template <class T>
T exact_factor(rng_t& rng) {
  static const double factors[] = {1, -1, 2, -2, 0.5, 1, -1, 1};
  const double v = tally_test::one_in(rng, 64) ? (tally_test::one_in(rng, 2) ? 0.0 : -0.0)
                                               : factors[tally_test::pick(rng, 8)];
  if constexpr (std::is_same_v<T, tally::half>)
    return tally::half(static_cast<float>(v));
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(rng());
  else
    return static_cast<T>(v);
}

/// A std::vector holding `n` elements starting `offset` elements into it: the vector's
/// own alignment plus any element offset, as users' sub-ranges are.
template <class T>
struct offset_buffer {
  std::vector<T> storage;
  std::size_t offset;
  offset_buffer(std::size_t n, std::size_t offset_) : storage(n + offset_ + 1), offset(offset_) {}
  T* data() { return storage.data() + offset; }
  std::vector<T> values(std::size_t n) const {
    return std::vector<T>(storage.begin() + static_cast<std::ptrdiff_t>(offset),
                          storage.begin() + static_cast<std::ptrdiff_t>(offset + n));
  }
};

struct scan_case {
  std::vector<std::size_t> sizes;
  int axis = 0;
  bool product = false, decreasing = false, exclusive = false;
  unsigned threads = 1;
  std::size_t in_offset = 0, out_offset = 0;
  bool in_place = false;  // the output is the input's buffer
  int out_past_in = -1;   // at least 0: one buffer, the output this many bytes past the input modulo 4 KiB
  tally::scan_accuracy accuracy = tally::scan_accuracy::fast;  // float32 and float64 only

  std::string describe() const {
    std::ostringstream s;
    s << (product ? "cumprod" : "cumsum") << " sizes {";
    for (std::size_t d = 0; d < sizes.size(); ++d) s << (d ? ", " : "") << sizes[d];
    s << "} axis " << axis << (decreasing ? " decreasing" : " increasing") << (exclusive ? " exclusive" : "")
      << " threads " << threads << " element offsets in " << in_offset << " out " << out_offset
      << (in_place ? " in place" : "")
      << (accuracy == tally::scan_accuracy::exact ? " exact" : " fast");
    return s.str();
  }
  std::size_t count() const {
    std::size_t n = 1;
    for (std::size_t s : sizes) n *= s;
    return n;
  }
};

/// Runs the case on packed views of std::vector storage at the case's element offsets.
template <class T>
std::vector<T> run(const scan_case& c, const std::vector<T>& x) {
  const std::size_t n = c.count();
  const auto scan = [&](const T* in, T* out) {
    tally::scan_options options;
    options.direction = tally_test::direction_of(c.decreasing);
    options.exclusive = c.exclusive;
    options.threads = c.threads;
    options.accuracy = c.accuracy;
    tally_test::typed_scan<T>(c.product, tally::tensor_view<const T>(in, c.sizes.size(), c.sizes.data()),
                              tally::tensor_view<T>(out, c.sizes.size(), c.sizes.data()), c.axis, options);
  };
  if (c.out_past_in >= 0) {
    const std::size_t page = 4096 / sizeof(T);
    const std::size_t gap = (n + page - 1) / page * page + static_cast<std::size_t>(c.out_past_in) / sizeof(T);
    offset_buffer<T> both(gap + n, c.in_offset);
    std::copy(x.begin(), x.end(), both.data());
    scan(both.data(), both.data() + gap);
    return std::vector<T>(both.data() + gap, both.data() + gap + n);
  }
  offset_buffer<T> in(n, c.in_offset), out(n, c.out_offset);
  std::copy(x.begin(), x.end(), in.data());
  offset_buffer<T>& result = c.in_place ? in : out;
  scan(in.data(), result.data());
  return result.values(n);
}

template <class T>
std::vector<T> reference(const scan_case& c, const std::vector<T>& x) {
  return tally_test::reference_scan_packed<T>(c.product ? scan_op::product : scan_op::sum, c.sizes,
                                              static_cast<std::size_t>(c.axis), c.decreasing, c.exclusive, x);
}

/// Exact data: tally equals the reference bit for bit, in both modes.
template <class T>
void check_exact(scan_case c, rng_t& rng) {
  std::vector<T> x(c.count());
  for (T& v : x) v = c.product ? exact_factor<T>(rng) : exact_value<T>(rng);
  const std::vector<T> want = reference(c, x);
  for (tally::scan_accuracy accuracy : {tally::scan_accuracy::fast, tally::scan_accuracy::exact}) {
    if (accuracy == tally::scan_accuracy::exact && !std::is_floating_point_v<T>) continue;  // one mode
    c.accuracy = accuracy;
    const std::vector<T> got = run(c, x);
    const std::size_t at = tally_test::first_difference(want, got);
    INFO(c.describe() << ": first difference at element " << at);
    CHECK(at == want.size());
  }
}

template <class F>
void for_exact_types(F&& f) {
  f(tally_test::type_tag<float>{});
  f(tally_test::type_tag<double>{});
  f(tally_test::type_tag<tally::half>{});
  f(tally_test::type_tag<std::int8_t>{});
  f(tally_test::type_tag<std::uint16_t>{});
  f(tally_test::type_tag<std::int32_t>{});
  f(tally_test::type_tag<std::int64_t>{});
}

// Each target's vectors offer the operations that choose a kernel, as the traits (one set
// per target namespace) find them. A trait that missed one (a wrong spelling is silently
// false) would fall back to another correct form, which no result below could show.
#if TALLY_X86_SIMD
namespace avx512_traits {
using namespace tally::detail::avx512;
static_assert(has_lane_ops<f32> && has_select<f32> && has_window<f32> && has_nan_to<f32> && has_magnitude_tests<f32>);
static_assert(has_lane_ops<f64> && has_select<f64> && has_window<f64> && has_nan_to<f64> && has_magnitude_tests<f64>);
static_assert(has_lane_ops<i32> && has_select<i32> && has_window<i32>);
static_assert(has_lane_ops<i64> && has_select<i64> && has_window<i64>);
static_assert(has_lane_ops<i16> && has_select<i16> && has_window<i16>);
static_assert(has_line_window_ops<byte_line_sums>, "8-bit short lines from shifted loads");
}  // namespace avx512_traits
namespace avx2_traits {
using namespace tally::detail::avx2;
static_assert(has_lane_ops<f32> && has_select<f32> && has_window<f32> && has_nan_to<f32> && has_magnitude_tests<f32>);
static_assert(has_lane_ops<f64> && has_select<f64> && has_window<f64> && has_nan_to<f64> && has_magnitude_tests<f64>);
static_assert(has_lane_ops<i32> && has_select<i32> && has_window<i32>);
static_assert(has_lane_ops<i64> && has_select<i64> && has_window<i64>);
static_assert(has_lane_ops<i16> && has_select<i16> && has_window<i16>);
static_assert(has_select<i8> && has_line_bases<i8>, "other 8-bit short lines from differences");
static_assert(has_line_window_ops<byte_line_sums>, "8-bit short lines from shifted loads");
}  // namespace avx2_traits
#endif
#if TALLY_ARM_NEON
namespace neon_traits {
using namespace tally::detail::neon;
static_assert(has_select<f32> && has_nan_to<f32> && has_select<f64> && has_nan_to<f64>);
static_assert(has_select<i64> && has_line_bases<i32> && has_line_bases<i16> && has_line_bases<i8>,
              "short integer lines from differences");
}  // namespace neon_traits
#endif

TEST_CASE("shapes: short lines packed one after the other, every length to 70, then to and past 256", "[shapes]") {
  rng_t rng(0x5047);
  for_exact_types([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t length = 1; length <= 260; length += length < 70 ? 1 : 47)
      for (std::size_t lines : {1u, 3u, 64u, 131u})
        for (bool product : {false, true})
          for (bool decreasing : {false, true})
            for (bool exclusive : {false, true}) {
              scan_case c{{lines, length}, 1, product, decreasing, exclusive};
              c.threads = 1 + static_cast<unsigned>(tally_test::pick(rng, 2));
              c.in_offset = tally_test::pick(rng, 8);
              c.out_offset = tally_test::pick(rng, 8);
              c.in_place = tally_test::one_in(rng, 3);  // overlapping stores must read nothing late
              check_exact<T>(c, rng);
            }
  });
}

TEST_CASE("shapes: narrow columns scanned down the rows, every width below a vector", "[shapes]") {
  rng_t rng(0xc01);
  for_exact_types([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t width = 1; width <= 72; width += width < 40 ? 1 : 8)
      for (std::size_t rows : {1u, 2u, 7u, 33u, 300u})
        for (bool product : {false, true})
          for (bool decreasing : {false, true})
            for (bool exclusive : {false, true}) {
              scan_case c{{rows, width}, 0, product, decreasing, exclusive};
              c.in_offset = tally_test::pick(rng, 8);
              c.out_offset = tally_test::pick(rng, 8);
              c.in_place = tally_test::one_in(rng, 3);  // rows in registers must load before they store
              check_exact<T>(c, rng);
            }
  });
}

// Outputs of 16 MiB and more are written with non-temporal stores, realigned to whole
// 64-byte lines in registers: every element offset of the output must give the same values.
TEST_CASE("shapes: streamed outputs at every element offset from a cache line", "[shapes]") {
  rng_t rng(0x57e);
  const std::size_t big = (std::size_t{16} << 20) / sizeof(float) + 37;  // just above the streaming size
  for (std::size_t out_offset : {0u, 1u, 3u, 4u, 9u, 15u})
    for (bool decreasing : {false, true}) {
      // One long line, then 1000-element rows scanned along the line and down the columns.
      scan_case line{{big}, 0, false, decreasing, out_offset % 2 == 1};
      line.out_offset = out_offset;
      line.in_offset = (out_offset * 7) % 16;
      check_exact<float>(line, rng);
      scan_case rows{{big / 1000, 1000}, 1, false, decreasing, false};
      rows.out_offset = out_offset;
      check_exact<float>(rows, rng);
      scan_case columns{{big / 1001, 1001}, 0, false, decreasing, out_offset % 2 == 0};
      columns.out_offset = out_offset;
      check_exact<float>(columns, rng);
      // Short lines, streamed where a kernel puts its vectors back to back: lines that
      // divide a vector (2, 4) or are whole vectors (16, 32). Lines of 17 store plainly.
      // On two threads the threads' runs meet inside one 64-byte cache line.
      for (std::size_t n : {2u, 4u, 16u, 17u, 32u}) {
        scan_case lines{{big / n, n}, 1, false, decreasing, out_offset % 2 == 1};
        lines.out_offset = out_offset;
        lines.threads = out_offset % 3 == 0 ? 2 : 1;
        check_exact<float>(lines, rng);
      }
    }
  // Packed rows of whole 64-byte vectors down the columns (one stream of whole vectors,
  // streamed with AVX-512; exactly two: their own loop): both directions, sums and
  // products, in place too.
  const auto vector_rows = [&](auto tag, std::size_t width) {
    using T = typename decltype(tag)::type;
    for (int k = 0; k < 4; ++k) {
      scan_case rows{{(std::size_t{16} << 20) / (width * sizeof(T)) + 3, width}, 0, k == 3, k % 2 == 1, k == 2};
      rows.out_offset = static_cast<std::size_t>(1 + 2 * k);
      rows.in_place = k == 1;
      check_exact<T>(rows, rng);
    }
  };
  vector_rows(tally_test::type_tag<float>{}, 32);
  vector_rows(tally_test::type_tag<double>{}, 16);
  vector_rows(tally_test::type_tag<std::int32_t>{}, 32);
  vector_rows(tally_test::type_tag<std::int64_t>{}, 16);
  vector_rows(tally_test::type_tag<float>{}, 64);
  vector_rows(tally_test::type_tag<double>{}, 24);
  // Packed rows that are no multiple of a vector, streamed from an L1 buffer in blocks of
  // rows: rows of one to two vectors (their own loop), of more (the general loop), and
  // wider than the buffer (pieces of a row); on two threads, every task's rows continue
  // the running row and leave a part vector to store plainly.
  const auto staged_rows = [&](auto tag, std::size_t width) {
    using T = typename decltype(tag)::type;
    for (int k = 0; k < 4; ++k) {
      scan_case rows{{(std::size_t{16} << 20) / (width * sizeof(T)) + 7, width}, 0, k == 3, k % 2 == 1, k == 2};
      rows.out_offset = static_cast<std::size_t>(3 * k);
      rows.in_place = k == 1;
      rows.threads = k == 0 ? 2 : 1;
      check_exact<T>(rows, rng);
    }
  };
  staged_rows(tally_test::type_tag<float>{}, 20);
  staged_rows(tally_test::type_tag<float>{}, 100);
  staged_rows(tally_test::type_tag<double>{}, 12);
  staged_rows(tally_test::type_tag<double>{}, 1500);
  staged_rows(tally_test::type_tag<std::int32_t>{}, 37);
  staged_rows(tally_test::type_tag<std::int64_t>{}, 2051);
  scan_case wide{{(std::size_t{16} << 20) / 8 + 5}, 0, false, false, false};
  wide.out_offset = 3;
  check_exact<std::int64_t>(wide, rng);
  check_exact<double>(wide, rng);
  scan_case narrow{{(std::size_t{16} << 20) / 2 + 5}, 0, false, true, true};
  narrow.out_offset = 5;
  check_exact<std::int16_t>(narrow, rng);
  scan_case byte_lines{{(std::size_t{16} << 20) / 64 + 3, 64}, 1, false, true, false};
  byte_lines.out_offset = 7;
  check_exact<std::int8_t>(byte_lines, rng);
  // Lines of exactly a vector, back to back: int8 lines of 32, int32 lines of 16 (AVX-512) and 8 (AVX2).
  scan_case vector_lines{{(std::size_t{16} << 20) / 32 + 3, 32}, 1, false, false, true};
  vector_lines.out_offset = 5;
  check_exact<std::int8_t>(vector_lines, rng);
  for (std::size_t n : {8u, 16u}) {
    scan_case int_lines{{(std::size_t{16} << 20) / 4 / n + 3, n}, 1, false, n == 16, n == 8};
    int_lines.out_offset = n / 8;
    check_exact<std::int32_t>(int_lines, rng);
  }
  scan_case double_lines{{(std::size_t{16} << 20) / 64 + 3, 8}, 1, false, false, true};
  double_lines.out_offset = 3;
  check_exact<double>(double_lines, rng);
}

TEST_CASE("shapes: streamed lines whose output sits just past their input modulo 4 KiB", "[shapes]") {
  // Lines read and written in step store plainly there (plan/streaming_aliasing.hpp): the
  // offsets at both ends of the windows of either direction, one line and lines split
  // across two threads, rows along the line, both modes, sums and products.
  rng_t rng(0xa11a5);
  const std::size_t big = (std::size_t{16} << 20) / sizeof(float) + 37;
  for (int past : {44, 48, 236, 240, 3896, 3900, 4080, 4084})
    for (bool decreasing : {false, true}) {
      scan_case line{{big}, 0, past % 3 == 0, decreasing, past % 8 == 0};
      line.out_past_in = past;
      line.in_offset = static_cast<std::size_t>(past % 5);
      line.threads = past > 4000 ? 2 : 1;
      check_exact<float>(line, rng);
    }
  scan_case rows{{(std::size_t{16} << 20) / 8 / 5000 + 1, 5000}, 1, false, true, false};
  rows.out_past_in = 4000;
  check_exact<double>(rows, rng);
  rows.decreasing = false;
  rows.out_past_in = 128;
  check_exact<std::int64_t>(rows, rng);
}

/// A streamed scan of an input seen transposed (the gathered tiles: axis 0 reads lines
/// contiguous in the input, axis 1 rows of columns), into a packed output at an element
/// offset: the tiles and pieces then start on the output's lines, not on the tensor's.
template <class T>
void check_transposed(std::size_t out_offset, int axis, bool decreasing, bool exclusive, unsigned threads,
                      rng_t& rng, tally::scan_accuracy accuracy = tally::scan_accuracy::fast) {
  const std::size_t rows = 2051, cols = 2053;  // above the streaming size, tiles cut unevenly
  const std::size_t n = rows * cols;
  std::vector<T> x(n);  // the logical tensor, row-major
  for (T& v : x) v = exact_value<T>(rng);
  std::vector<T> storage(n);  // the input's memory: column-major, so seen transposed
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) storage[i + j * rows] = x[i * cols + j];
  offset_buffer<T> out(n, out_offset);
  tally::scan_options options;
  options.direction = tally_test::direction_of(decreasing);
  options.exclusive = exclusive;
  options.threads = threads;
  options.accuracy = accuracy;
  tally_test::typed_scan<T>(false,
                            tally::tensor_view<const T>(storage.data(), {rows, cols},
                                                        {1, static_cast<std::ptrdiff_t>(rows)}),
                            tally::tensor_view<T>(out.data(), {rows, cols}), axis, options);
  const std::vector<T> want = tally_test::reference_scan_packed<T>(
      scan_op::sum, {rows, cols}, static_cast<std::size_t>(axis), decreasing, exclusive, x);
  const std::vector<T> got = out.values(n);
  const std::size_t at = tally_test::first_difference(want, got);
  INFO("transposed " << rows << "x" << cols << " axis " << axis << (decreasing ? " decreasing" : "")
                     << (exclusive ? " exclusive" : "") << " threads " << threads << " out offset " << out_offset
                     << (accuracy == tally::scan_accuracy::exact ? " exact" : " fast")
                     << ": first difference at element " << at);
  CHECK(at == want.size());
}

TEST_CASE("shapes: streamed transposed inputs (gathered tiles) at element offsets from a cache line", "[shapes]") {
  rng_t rng(0x7a9);
  for (std::size_t out_offset : {0u, 1u, 4u, 15u})
    for (int axis : {0, 1}) {
      check_transposed<float>(out_offset, axis, out_offset == 4, out_offset == 1, out_offset == 15 ? 2 : 1, rng);
      check_transposed<float>(out_offset, axis, out_offset == 1, out_offset == 4, out_offset == 0 ? 2 : 1, rng,
                              tally::scan_accuracy::exact);
      check_transposed<std::int32_t>(out_offset, axis, out_offset == 1, out_offset == 15, out_offset == 4 ? 2 : 1, rng);
    }
}

/// Any value of T, specials included (+-0, +-inf, a quiet NaN, subnormals) but not a
/// signalling NaN, which arithmetic quiets and a copy keeps.
template <class T>
T any_value(rng_t& rng) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(rng());
  } else {
    using F = std::conditional_t<std::is_same_v<T, tally::half>, float, T>;
    static const F specials[] = {F(0), -F(0), std::numeric_limits<F>::infinity(), -std::numeric_limits<F>::infinity(),
                                 std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::denorm_min(),
                                 -std::numeric_limits<F>::min() / 2};
    const F v = tally_test::one_in(rng, 8) ? specials[tally_test::pick(rng, 7)]
                                           : static_cast<F>((tally_test::unit(rng) - 0.5) * 1e4);
    if constexpr (std::is_same_v<T, tally::half>)
      return tally::half(std::isnan(v) || std::isinf(v) ? v : v * 1e-7f);  // half's subnormals too
    else
      return v;
  }
}

/// An axis of one element, inclusive: each output is its input element, bit for bit
/// (tally copies it), in both modes, in cummax, for every direction and thread count, at
/// element offsets from a cache line, streamed or not, and into an output whose rows are
/// padded (runs of the copy apart); exclusive: the identity (no copy).
template <class T>
void check_axis_of_one(std::size_t n, rng_t& rng) {
  const std::size_t rows = 3, width = (n + 2) / 3, pitch = width + 5;
  struct layout {
    std::vector<std::size_t> sizes;
    int axis;
    std::vector<std::ptrdiff_t> out_strides;  // empty: packed
  };
  const layout layouts[] = {{{n, 1}, 1, {}},
                            {{1, n}, 0, {}},
                            {{rows, 1, width}, 1, {}},
                            {{rows, 1, width}, 1, {static_cast<std::ptrdiff_t>(pitch), 1, 1}}};
  for (const layout& l : layouts)
    for (bool product : {false, true})
      for (bool exclusive : {false, true}) {
        scan_case c{l.sizes, l.axis, product, tally_test::one_in(rng, 2), exclusive};
        c.threads = 1 + static_cast<unsigned>(tally_test::pick(rng, 2));
        c.in_offset = tally_test::pick(rng, 16);
        c.out_offset = tally_test::pick(rng, 16);
        c.in_place = l.out_strides.empty() && tally_test::one_in(rng, 4);
        const std::size_t count = c.count();
        std::vector<T> x(count);
        for (T& v : x) v = any_value<T>(rng);
        // Inclusive: x itself (the logical order is the memory order of a packed tensor).
        const std::vector<T> want = exclusive ? reference(c, x) : x;
        for (int mode = 0; mode < 3; ++mode) {  // fast, exact, cummax
          if (mode == 1 && !std::is_floating_point_v<T>) continue;
          if (mode == 2 && (product || exclusive)) continue;
          c.accuracy = mode == 1 ? tally::scan_accuracy::exact : tally::scan_accuracy::fast;
          offset_buffer<T> in(count, c.in_offset);
          std::copy(x.begin(), x.end(), in.data());
          const std::size_t span = l.out_strides.empty() ? count : rows * pitch;
          offset_buffer<T> out(span, c.out_offset);
          offset_buffer<T>& result = c.in_place ? in : out;
          tally::scan_options options(tally_test::direction_of(c.decreasing), exclusive);
          options.threads = c.threads;
          options.accuracy = c.accuracy;
          const tally::tensor_view<const T> in_view(in.data(), l.sizes.size(), l.sizes.data());
          const tally::tensor_view<T> out_view =
              l.out_strides.empty() ? tally::tensor_view<T>(result.data(), l.sizes.size(), l.sizes.data())
                                    : tally::tensor_view<T>(result.data(), l.sizes.size(), l.sizes.data(),
                                                            l.out_strides.data());
          if (mode == 2)
            tally::cummax<T>(in_view, out_view, l.axis, options);
          else
            tally_test::typed_scan<T>(product, in_view, out_view, l.axis, options);
          std::vector<T> got(count);
          const T* base = result.data();
          for (std::size_t i = 0; i < count; ++i)
            got[i] = l.out_strides.empty() ? base[i] : base[i / width * pitch + i % width];
          const std::size_t at = tally_test::first_difference(want, got);
          INFO(c.describe() << (mode == 2 ? " (cummax)" : "") << (l.out_strides.empty() ? "" : " padded output")
                            << ": first difference at element " << at);
          CHECK(at == want.size());
        }
      }
}

TEST_CASE("shapes: an inclusive scan along an axis of one element writes its elements bit for bit", "[shapes]") {
  rng_t rng(0x1e1);
  for_exact_types([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{5003}, std::size_t{70001}})
      check_axis_of_one<T>(n, rng);
  });
  // Outputs large enough to be streamed (16 MiB), run lengths off every cache line.
  check_axis_of_one<float>((std::size_t{16} << 20) / sizeof(float) + 37, rng);
  check_axis_of_one<std::int16_t>((std::size_t{16} << 20) / sizeof(std::int16_t) + 11, rng);
}

// Sums of real data: the grouping depends only on the layout, so one thread and two give
// the same bits, for short lines and narrow columns too.
TEST_CASE("shapes: real-valued short lines and narrow columns give the same bits on 1 and 2 threads", "[shapes]") {
  rng_t rng(0x2b17);
  for (auto sizes_axis : {std::pair<std::vector<std::size_t>, int>{{40000, 5}, 1}, {{20000, 13}, 1}, {{3000, 63}, 1},
                          {{70000, 3}, 0}, {{9000, 11}, 0}})
    for (bool decreasing : {false, true}) {
      scan_case c{sizes_axis.first, sizes_axis.second, false, decreasing, false};
      std::vector<float> x(c.count());
      for (float& v : x) v = static_cast<float>(tally_test::pick(rng, 1u << 20)) * 0x1p-20f - 0.5f;
      c.threads = 1;
      const std::vector<float> one = run(c, x);
      c.threads = 2;
      const std::vector<float> two = run(c, x);
      INFO(c.describe());
      CHECK(tally_test::first_difference(one, two) == one.size());
      // ...and both are within the spec's bound n * eps * sum |x| of the exact sums.
      const std::vector<std::ptrdiff_t> strides = tally_test::packed_strides(c.sizes.size(), c.sizes.data());
      const auto want = tally_test::wide_reference_scan<float>(scan_op::sum, c.sizes.size(), c.sizes.data(),
                                                               static_cast<std::size_t>(c.axis), decreasing, false,
                                                               x.data(), strides.data());
      for (std::size_t i = 0; i < want.size(); ++i) {
        const long double bound = static_cast<long double>(want[i].terms) * 0x1p-24L * want[i].magnitude;
        if (!(std::fabs(static_cast<long double>(one[i]) - want[i].value) <= bound)) {
          FAIL_CHECK("element " << i << ": " << one[i] << " where the exact sum is "
                                << static_cast<double>(want[i].value));
          break;
        }
      }
    }
}

/// [planes, lines, n] along the last axis, the planes padded apart (so that the two outer
/// dimensions do not merge into one): lines read downwards are taken last first, plane
/// by plane, tile by tile and in the multi-line runs, and must still each be written once
/// with their own sums. The shapes give the short lines' tiles (4096 lines of 4, 2048 of
/// 8, 5440 of 3) two or more tiles a plane, and the long lines several planes.
template <class T>
void check_lines_taken_last_first(rng_t& rng) {
  const std::vector<std::size_t> shapes[] = {{3, 4500, 4}, {2, 2100, 8}, {2, 6000, 3}, {3, 40, 256},
                                             {2, 3, 1500}, {4, 9, 33}};
  for (const std::vector<std::size_t>& sizes : shapes)
    for (bool decreasing : {true, false})
      for (unsigned threads : {1u, 2u})
        for (tally::scan_accuracy accuracy : {tally::scan_accuracy::fast, tally::scan_accuracy::exact}) {
          if (accuracy == tally::scan_accuracy::exact && !std::is_floating_point_v<T>) continue;  // one mode
          const std::size_t plane = sizes[1] * sizes[2], padded = plane + 5, count = sizes[0] * plane;
          std::vector<T> x(count);
          for (T& v : x) v = exact_value<T>(rng);
          std::vector<T> in(sizes[0] * padded), got(count);
          const auto at = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
          for (std::size_t p = 0; p < sizes[0]; ++p)
            std::copy(x.begin() + at(p * plane), x.begin() + at((p + 1) * plane), in.begin() + at(p * padded));
          const std::ptrdiff_t strides[] = {at(padded), at(sizes[2]), 1};
          tally::scan_options o(tally_test::direction_of(decreasing), false, threads);
          o.accuracy = accuracy;
          tally::cumsum<T>(tally::tensor_view<const T>(in.data(), 3, sizes.data(), strides),
                           tally::tensor_view<T>(got.data(), 3, sizes.data()), 2, o);
          const std::vector<T> want =
              tally_test::reference_scan_packed<T>(scan_op::sum, sizes, 2, decreasing, false, x);
          INFO("sizes {" << sizes[0] << ", " << sizes[1] << ", " << sizes[2] << "} decreasing " << decreasing
                         << " threads " << threads << (accuracy == tally::scan_accuracy::exact ? " exact" : " fast"));
          CHECK(tally_test::first_difference(want, got) == want.size());
        }
}

TEST_CASE("shapes: lines read downwards over padded planes, taken last first", "[shapes]") {
  rng_t rng(0xdec1);
  check_lines_taken_last_first<float>(rng);
  check_lines_taken_last_first<double>(rng);
  check_lines_taken_last_first<tally::half>(rng);
  check_lines_taken_last_first<std::int32_t>(rng);
  check_lines_taken_last_first<std::int8_t>(rng);
}

TEST_CASE("shapes: 8-bit sums along long lines, 64-byte vectors then the rest of the line", "[shapes]") {
  // AVX-512 takes lines of 128 elements and more in 64 lanes up to their last whole
  // vector, then 32 lanes and single elements (byte_long_sums), and packed lines of 33 to
  // 256 in 64 lanes (one line a vector up to 64, then the by-vector scan): lengths on
  // either side of each change, both directions, exclusive, at odd offsets; a long 1-D
  // line on two threads sums its halves (reduce_contiguous) before it scans them. Lines
  // of 17 to 64 read downwards take the suffix scan (scan_down) in 32 or 64 lanes.
  rng_t rng(0xb17e);
  for (std::size_t n : {17u, 24u, 31u, 32u, 33u, 40u, 63u, 64u, 65u, 96u, 127u, 128u, 129u, 159u, 191u, 192u, 255u,
                        257u, 300u, 1000u, 4097u})
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true}) {
        scan_case lines{{5, n}, 1, false, decreasing, exclusive};
        lines.in_offset = 1;
        lines.out_offset = n % 7;
        check_exact<std::int8_t>(lines, rng);
        check_exact<std::uint8_t>(lines, rng);
      }
  for (bool decreasing : {false, true}) {
    scan_case line{{(std::size_t{1} << 21) + 37}, 0, false, decreasing, decreasing};
    line.threads = 2;
    line.out_offset = 3;
    check_exact<std::int8_t>(line, rng);
  }
}

/// Packed short lines of real data in the fast mode: every line has the bits it has when
/// the lines around it are scanned in other calls (the rows split at several places), so
/// neither tiles nor threads nor a staged copy of some of the lines (nancumsum's) can
/// change a result. The lines at a call's end that no whole vector covers once took a
/// sequential loop, other bits than the vector scan's.
template <class T>
void check_short_lines_independent_of_their_neighbours(rng_t& rng) {
  const std::size_t rows = 500;
  for (const std::size_t cols : {2, 3, 4, 5, 6, 7, 8, 12, 13, 24, 33})
    for (const bool decreasing : {false, true})
      for (const bool exclusive : {false, true}) {
        std::vector<T> x(rows * cols), whole(x.size()), parts(x.size());
        // Values off any coarse grid, so that sums grouped otherwise round otherwise.
        for (T& v : x) v = T(static_cast<float>(tally_test::unit(rng) * 8 - 4));
        tally::scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing,
                              exclusive);
        o.accuracy = tally::scan_accuracy::fast;
        tally::cumsum<T>(tally::tensor_view<const T>(x.data(), {rows, cols}),
                         tally::tensor_view<T>(whole.data(), {rows, cols}), 1, o);
        // (Not a lone line: that is a 1-D call, whose bits are the line kernel's.)
        for (const std::size_t split : {std::size_t{2}, std::size_t{7}, std::size_t{250}, rows - 2}) {
          for (const auto& [from, to] : {std::pair<std::size_t, std::size_t>{0, split}, {split, rows}})
            tally::cumsum<T>(tally::tensor_view<const T>(x.data() + from * cols, {to - from, cols}),
                             tally::tensor_view<T>(parts.data() + from * cols, {to - from, cols}), 1, o);
          INFO("cols " << cols << " decreasing " << decreasing << " exclusive " << exclusive << " split " << split);
          CHECK(tally_test::first_difference(whole, parts) == whole.size());
        }
      }
}

TEST_CASE("shapes: a short line's bits do not depend on the lines that share its call", "[shapes]") {
  rng_t rng(0x51de);
  check_short_lines_independent_of_their_neighbours<float>(rng);
  check_short_lines_independent_of_their_neighbours<double>(rng);
  check_short_lines_independent_of_their_neighbours<tally::half>(rng);
}

/// Float products of real data with special values mixed in: where the sequential loop
/// gives inf, 0 or NaN, tally gives the very same bits; elsewhere the relative error stays
/// within the bound of the blocked scan.
template <class T>
void check_products_with_specials(rng_t& rng) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::numeric_limits<T>::max() / 4, tiny = std::numeric_limits<T>::min() * 4;
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + tally_test::pick(rng, 700);
    std::vector<T> x(n);
    const int specials = static_cast<int>(tally_test::pick(rng, 4));
    for (T& v : x) {
      v = static_cast<T>(0.5 + static_cast<double>(tally_test::pick(rng, 1000)) / 1000);
      if (tally_test::one_in(rng, 2)) v = -v;
      if (specials > 0 && tally_test::one_in(rng, 50)) {
        const T choices[] = {0, -T(0), inf, -inf, nan, big, tiny, 1 / big, 1 / tiny};
        v = choices[tally_test::pick(rng, 9)];
      }
    }
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true}) {
        const scan_case c{{n}, 0, true, decreasing, exclusive};
        const std::vector<T> got = run(c, x), want = reference(c, x);
        for (std::size_t i = 0; i < n; ++i) {
          const bool special = std::isnan(want[i]) || std::isinf(want[i]) || want[i] == 0;
          const bool ok = special ? (std::isnan(want[i]) ? std::isnan(got[i]) : tally_test::same_bits(got[i], want[i]))
                                  : std::fabs(got[i] - want[i]) <=
                                        static_cast<T>(n + 16) * std::numeric_limits<T>::epsilon() * std::fabs(want[i]);
          if (!ok) {
            FAIL_CHECK(c.describe() << ": element " << i << " is " << got[i] << " where the sequence gives "
                                    << want[i]);
            break;
          }
        }
      }
  }
}

TEST_CASE("shapes: float products keep inf, 0 and NaN where the sequence has them", "[shapes]") {
  rng_t rng(0x9d0);
  check_products_with_specials<float>(rng);
  check_products_with_specials<double>(rng);
}

/// Packed short lines of float products, lines of 2 to 256 (the short-lines kernel's
/// lengths): from 64 elements (past generic.hpp's product_lines_by_vectors_min, 48) each
/// line has the bits of the same line scanned alone in a 1-D call (the line kernel's
/// vectors, or the sequence where the target has none); shorter ones those bits or the
/// sequence's (the plain loop, faster there). inf, 0 and NaN wherever the sequence has them. Both directions,
/// exclusive too, in place too. float16 runs in float, rounded once an output.
template <class T>
void check_packed_product_lines_as_lone_lines(rng_t& rng) {
  using A = std::conditional_t<std::is_same_v<T, tally::half>, float, T>;
  const A inf = std::numeric_limits<A>::infinity();
  const A big = (std::is_same_v<T, tally::half> ? A(65504) : std::numeric_limits<A>::max()) / 4;
  const A specials[] = {0, -A(0), inf, -inf, std::numeric_limits<A>::quiet_NaN(), big, 1 / big};
  for (const std::size_t n : {2, 7, 16, 31, 32, 33, 63, 64, 65, 100, 128, 200, 256})
    for (int round = 0; round < 4; ++round) {
      const std::size_t lines = 3 + tally_test::pick(rng, 20);
      std::vector<T> x(lines * n);
      for (T& v : x) {
        A a = static_cast<A>(0.5 + static_cast<double>(tally_test::pick(rng, 1000)) / 997);
        if (tally_test::one_in(rng, 2)) a = -a;
        if (round > 1 && tally_test::one_in(rng, 60)) a = specials[tally_test::pick(rng, 7)];
        v = static_cast<T>(a);
      }
      for (const bool decreasing : {false, true})
        for (const bool exclusive : {false, true})
          for (const bool in_place : {false, true}) {
            scan_case c{{lines, n}, 1, true, decreasing, exclusive};
            c.in_place = in_place;
            const std::vector<T> got = run(c, x);
            std::size_t wrong_lines = 0;
            for (std::size_t line = 0; line < lines; ++line) {
              const std::vector<T> one(x.begin() + static_cast<std::ptrdiff_t>(line * n),
                                       x.begin() + static_cast<std::ptrdiff_t>((line + 1) * n));
              const std::vector<T> alone = run(scan_case{{n}, 0, true, decreasing, exclusive}, one);
              // The sequence in A, in scan order.
              std::vector<T> sequence(n);
              A running = 1;
              for (std::size_t k = 0; k < n; ++k) {
                const std::size_t i = decreasing ? n - 1 - k : k;
                sequence[i] = static_cast<T>(exclusive ? running : running * static_cast<A>(one[i]));
                running = running * static_cast<A>(one[i]);
              }
              const auto same = [](T a, T b) {
                return tally_test::same_bits(a, b) || (std::isnan(static_cast<A>(a)) && std::isnan(static_cast<A>(b)));
              };
              for (std::size_t i = 0; i < n; ++i) {
                const T g = got[line * n + i], w = sequence[i];
                const A wa = static_cast<A>(w);
                const bool special = std::isnan(wa) || std::isinf(wa) || wa == 0;
                if (!same(g, alone[i]) && (n >= 64 || !same(g, w))) {
                  UNSCOPED_INFO(c.describe() << ": line " << line << " element " << i << " is " << static_cast<A>(g)
                                             << ", alone " << static_cast<A>(alone[i]) << ", the sequence " << wa);
                  ++wrong_lines;
                  break;
                }
                if (special && !same(g, w)) {
                  UNSCOPED_INFO(c.describe() << ": line " << line << " element " << i << " is " << static_cast<A>(g)
                                             << " where the sequence has " << wa);
                  ++wrong_lines;
                  break;
                }
              }
            }
            CHECK(wrong_lines == 0);
          }
    }
}

TEST_CASE("shapes: packed lines of float products have the bits of lone lines", "[shapes]") {
  rng_t rng(0x9d1);
  check_packed_product_lines_as_lone_lines<float>(rng);
  check_packed_product_lines_as_lone_lines<double>(rng);
  check_packed_product_lines_as_lone_lines<tally::half>(rng);
}

/// Float products along packed lines shorter than product_lines_by_vectors_min and down
/// rows narrower than a vector have the sequence's bits: the plain loop, whole lines a
/// vector one lane a step (generic.hpp, scan_lines_in_vector: lines of 2 to 4, at most
/// half a vector), or gathered tiles (scan_product_lines_gathered: float32, and float16
/// converted in the tiles' transposes from a vector's length on x86, in staged blocks below,
/// staged_halves; AVX-512 lines of 8 to 15 in AVX2's narrow tiles, float16 lines of 9 to 11
/// staged, of 5 to 7 staged in narrow tiles) whose lanes each multiply one line in
/// sequence; narrow rows as one vector a row, staged in blocks (scan_columns). float16
/// runs in float, rounded once per output. Inexact values and specials (zeros, infinities, NaN,
/// subnormals of float16, values near the largest half) over several tiles and blocks and
/// a remainder of lines, both directions, exclusive too, in place too. (Longer lines have
/// the bits of lone lines: the test above.)
template <class T>
void check_products_in_sequence(rng_t& rng) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 60000.0f, 0x1p-20f,
                            -0x1p-24f};
  const auto draw = [&] {
    if (tally_test::one_in(rng, 40)) return T(specials[tally_test::pick(rng, 8)]);
    const float v = 0.5f + static_cast<float>(tally_test::pick(rng, 1000)) / 1000.0f;
    return T(tally_test::one_in(rng, 2) ? -v : v);
  };
  std::vector<scan_case> cases;
  for (std::size_t length : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 10u, 13u, 15u, 16u, 17u, 24u, 31u, 32u, 40u, 47u})
    cases.push_back({{9000 / length, length}, 1, true});
  // (A column of width 1 is one line along memory: the line kernel's, as a 1-D call.)
  // Rows of a vector's width too (8 and 16 float32, 4 and 8 float64: the narrow row form's
  // vector, or the target's), and rows of one to two vectors (12, 24, 31), whose second
  // vector overlaps the first. (Carries into these rows: tests/test_threads_and_chunks.cpp.)
  for (std::size_t width : {3u, 4u, 7u, 8u, 12u, 15u, 16u, 24u, 31u})
    cases.push_back({{5000 / width, width}, 0, true});
  // Lines of several tasks (short_lines_job), which a decreasing call takes first to last
  // here (kernel_set::short_lines_upwards_below).
  for (std::size_t length : {16u, 33u}) cases.push_back({{40000 / length, length}, 1, true});
  for (scan_case c : cases)
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true})
        for (bool in_place : {false, true}) {
          c.decreasing = decreasing;
          c.exclusive = exclusive;
          c.in_place = in_place;
          std::vector<T> x(c.count());
          for (T& v : x) v = draw();
          const std::vector<T> got = run(c, x), want = reference(c, x);
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < x.size(); ++i) {
            const bool both_nan = std::isnan(static_cast<float>(got[i])) && std::isnan(static_cast<float>(want[i]));
            if (!both_nan && !tally_test::same_bits(got[i], want[i]) && wrong++ < 3)
              FAIL_CHECK(c.describe() << ": element " << i << " is " << static_cast<float>(got[i])
                                      << " where the sequence gives " << static_cast<float>(want[i]));
          }
          CHECK(wrong == 0);
        }
}

TEST_CASE("shapes: float products along short lines and down narrow rows run in sequence", "[shapes]") {
  rng_t rng(0xf16);
  check_products_in_sequence<tally::half>(rng);
  check_products_in_sequence<float>(rng);
  check_products_in_sequence<double>(rng);
}

}  // namespace
