// The exact mode (scan_accuracy::exact, the default for float32 and float64 sums and
// products) on every path of the vocabulary engine, against a sequential fold written here:
//  - random layouts: ranks 1 to 4, extents from 1 up (short lines, single rows and single
//    columns included), dimensions permuted in memory, padded, reversed; transposed views
//    into packed outputs (the engine stages those); in place; every axis, both
//    directions, inclusive, exclusive and include_initial, 1 and 2 threads;
//  - on inputs whose every partial sum or product is exact in double (multiples of 2^-6 of
//    moderate size; factors of +-1, +-2 and +-0.5), so that any grouping of the additions
//    gives the same double: the result must be the sequential fold's, bitwise;
//  - chunked scans (carry_in / carry_out of tally::carry_type<T>) equal one call bitwise on
//    general inputs: float32 in chunks of scan_block_elements, float64 in chunks of any
//    length, both directions, exclusive too, along lines and across rows;
//  - a small call (the path that skips the engine's planning) gives the bits of the same
//    scan through the general path;
//  - an exclusive line along memory is the inclusive one moved one place on, bitwise, on
//    inputs whose grouping shows (carries, in place and threads too);
//  - a float32 line's carry_out is its double running value at every length of its last
//    step, on dyadic inputs where that value is known exactly;
//  - the default accuracy is exact, and it is what a plain call computes.
// The 1-ulp accuracy itself is test_accuracy.cpp's.
#include <tally/tally.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "support/random.hpp"

namespace {

using tally::scan_accuracy;
using tally::scan_options;
using tally::tensor_view;
using tally_test::rng_t;

static_assert(std::is_same_v<tally::carry_type<float>, double>, "float32 carries hand on the double running value");
static_assert(std::is_same_v<tally::carry_type<double>, tally::double_double>,
              "float64 carries hand on the compensated pair");
static_assert(std::is_same_v<tally::carry_type<tally::half>, float>, "float16 carries are the float32 running value");
static_assert(std::is_same_v<tally::carry_type<std::int32_t>, std::int32_t>, "integer carries are the element type");

/// A tensor inside a buffer: any strides (negative ones included), `origin` the offset of
/// element (0, ..., 0).
template <class T>
struct strided {
  std::vector<T> storage;
  std::vector<std::size_t> extents;
  std::vector<std::ptrdiff_t> strides;
  std::ptrdiff_t origin = 0;

  std::size_t rank() const { return extents.size(); }
  T* data() { return storage.data() + origin; }
  tensor_view<T> view() { return tensor_view<T>(data(), rank(), extents.data(), strides.data()); }
  std::ptrdiff_t offset(const std::vector<std::size_t>& index) const {
    std::ptrdiff_t at = 0;
    for (std::size_t d = 0; d < rank(); ++d) at += static_cast<std::ptrdiff_t>(index[d]) * strides[d];
    return at;
  }
};

/// Extents laid out in memory in a random order of dimensions, each padded by 0 to 2
/// elements and reversed one time in four (`packed`: row-major, no padding).
template <class T>
strided<T> make_layout(rng_t& rng, const std::vector<std::size_t>& extents, bool packed) {
  strided<T> t;
  t.extents = extents;
  t.strides.assign(extents.size(), 0);
  std::vector<std::size_t> order(extents.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (!packed) std::shuffle(order.begin(), order.end(), rng);
  std::ptrdiff_t step = 1;
  for (std::size_t k = order.size(); k-- > 0;) {  // order.back() is the innermost
    const std::size_t d = order[k];
    t.strides[d] = step;
    step *= static_cast<std::ptrdiff_t>(extents[d] + (packed ? 0 : tally_test::pick(rng, 3)));
  }
  std::ptrdiff_t low = 0, high = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (!packed && tally_test::one_in(rng, 4)) t.strides[d] = -t.strides[d];
    const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(extents[d] > 0 ? extents[d] - 1 : 0) * t.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  t.origin = -low;
  t.storage.assign(static_cast<std::size_t>(high - low + 1), T(0));
  return t;
}

/// Every multi-index of `extents`, row-major.
void for_each_index(const std::vector<std::size_t>& extents, const std::function<void(const std::vector<std::size_t>&)>& f) {
  std::size_t count = 1;
  for (std::size_t e : extents) count *= e;
  std::vector<std::size_t> index(extents.size(), 0);
  for (std::size_t i = 0; i < count; ++i) {
    f(index);
    for (std::size_t d = extents.size(); d-- > 0;) {
      if (++index[d] < extents[d]) break;
      index[d] = 0;
    }
  }
}

/// Inputs whose running sums and products are exact in double: k / 64 for |k| <= 4096
/// (sums), or +-1, +-2, +-0.5 (products; one factor in four is not 1 in magnitude).
template <class T>
T exact_input(rng_t& rng, bool product) {
  if (!product) return static_cast<T>(static_cast<double>(static_cast<long>(tally_test::pick(rng, 8193)) - 4096) / 64);
  static const T factors[] = {1, -1, 1, -1, 1, -1, 2, 0.5};
  return factors[tally_test::pick(rng, 8)];
}

struct config {
  bool product = false, exclusive = false, include_initial = false, decreasing = false, in_place = false,
       transposed = false;
  int axis = 0;
  unsigned threads = 1;
  std::vector<std::size_t> extents;
};

std::string describe(const config& c) {
  std::ostringstream s;
  s << (c.product ? "cumprod" : "cumsum") << " extents";
  for (std::size_t e : c.extents) s << ' ' << e;
  s << " axis " << c.axis << (c.decreasing ? " decreasing" : "") << (c.exclusive ? " exclusive" : "")
    << (c.include_initial ? " include_initial" : "") << (c.in_place ? " in place" : "")
    << (c.transposed ? " transposed input" : "") << " threads " << c.threads;
  return s.str();
}

/// The scan under `c` against the sequential fold of the same elements in double.
template <class T>
void check_against_fold(rng_t& rng, const config& c) {
  INFO(describe(c));
  const std::size_t rank = c.extents.size(), axis = static_cast<std::size_t>(c.axis);
  strided<T> in = make_layout<T>(rng, c.extents, false);
  if (c.transposed) {  // the input seen transposed: memory order reversed, the output packed
    in = make_layout<T>(rng, c.extents, true);
    std::reverse(in.strides.begin(), in.strides.end());
    std::ptrdiff_t step = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      in.strides[d] = step;
      step *= static_cast<std::ptrdiff_t>(c.extents[d]);
    }
  }
  for (T& x : in.storage) x = exact_input<T>(rng, c.product);
  std::vector<std::size_t> out_extents = c.extents;
  if (c.include_initial) ++out_extents[axis];
  strided<T> out = c.in_place ? in : make_layout<T>(rng, out_extents, c.transposed);
  const strided<T> original = in;  // the input's values before an in-place scan
  scan_options o(c.decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, c.exclusive,
                 c.threads);
  o.include_initial = c.include_initial;
  REQUIRE(o.accuracy == scan_accuracy::exact);  // the default
  tensor_view<T> result = c.in_place ? in.view() : out.view();
  if (c.product)
    tally::cumprod(tensor_view<const T>(in.view()), result, c.axis, o);
  else
    tally::cumsum(tensor_view<const T>(in.view()), result, c.axis, o);
  const strided<T>& got = c.in_place ? in : out;

  std::vector<std::size_t> outer = c.extents;
  outer[axis] = 1;
  const std::size_t n = c.extents[axis];
  std::size_t mismatches = 0;
  for_each_index(outer, [&](const std::vector<std::size_t>& line) {
    std::vector<std::size_t> at = line, out_at = line;
    double running = c.product ? 1 : 0;
    const auto write = [&](std::size_t k, double value) {  // output position k in scan order
      out_at[axis] = c.decreasing ? out_extents[axis] - 1 - k : k;
      const T want = static_cast<T>(value), have = got.storage[static_cast<std::size_t>(got.origin + got.offset(out_at))];
      if (std::memcmp(&want, &have, sizeof(T)) != 0 && mismatches++ < 5) {
        INFO("line at output position " << k << ": expected " << want << ", got " << have);
        CHECK(false);
      }
    };
    std::size_t position = 0;
    if (c.include_initial) write(position++, running);
    for (std::size_t k = 0; k < n; ++k) {
      at[axis] = c.decreasing ? n - 1 - k : k;
      const double x = static_cast<double>(original.storage[static_cast<std::size_t>(original.origin + original.offset(at))]);
      if (c.exclusive) write(position++, k == 0 ? (c.product ? 1 : 0) : running);
      running = k == 0 ? x : c.product ? running * x : running + x;
      if (!c.exclusive) write(position++, running);
    }
  });
  CHECK(mismatches == 0);
}

std::vector<std::size_t> random_extents(rng_t& rng, std::size_t rank) {
  static const std::size_t choices[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 100, 257};
  std::vector<std::size_t> e(rank);
  std::size_t total = 1;
  for (std::size_t& x : e) {
    x = choices[tally_test::pick(rng, std::size(choices))];
    if (total * x > 60000) x = 1;
    total *= x;
  }
  return e;
}

template <class T>
void random_layouts(std::uint64_t seed, int cases) {
  rng_t rng(seed);
  for (int i = 0; i < cases; ++i) {
    config c;
    c.extents = random_extents(rng, 1 + tally_test::pick(rng, 4));
    c.axis = static_cast<int>(tally_test::pick(rng, c.extents.size()));
    c.product = tally_test::one_in(rng, 3);
    c.decreasing = tally_test::one_in(rng, 2);
    const std::uint64_t mode = tally_test::pick(rng, 3);
    c.exclusive = mode == 1;
    c.include_initial = mode == 2;
    c.in_place = !c.include_initial && tally_test::one_in(rng, 5);
    c.transposed = !c.in_place && c.extents.size() > 1 && tally_test::one_in(rng, 4);
    c.threads = tally_test::one_in(rng, 3) ? 2 : 1;
    check_against_fold<T>(rng, c);
  }
}

TEST_CASE("exact mode: every layout gives the sequential fold's bits where double arithmetic is exact") {
  random_layouts<float>(0x5eed01, 400);
  random_layouts<double>(0x5eed02, 300);
}

TEST_CASE("exact mode: the shapes with paths of their own") {
  rng_t rng(0x5eed03);
  // (300 x 600 seen transposed: tiles of more than 256 lines and more than 64 rows, gathered
  // through the buffer on the way in along axis 0 and on the way out along axis 1. Packed
  // lines of 8 to 15 elements along the last axis (float64: 4 to 63): gathered on the way
  // in and out, float64 in tiles of 128 lines; float64 products from 2.)
  const std::vector<std::vector<std::size_t>> shapes = {
      {1000, 1}, {1, 1000},  {300, 4},   {4, 300}, {500, 3},  {3, 500},    {64, 64, 4}, {16, 17, 18}, {2000},
      {1},       {300, 600}, {500, 8},   {300, 13}, {40, 9, 15}, {300, 40}, {200, 100}, {700, 6},    {900, 2}};
  for (const auto& extents : shapes)
    for (std::size_t axis = 0; axis < extents.size(); ++axis)
      for (int variant = 0; variant < 12; ++variant) {
        config c;
        c.extents = extents;
        c.axis = static_cast<int>(axis);
        c.product = variant % 2 == 1;
        c.decreasing = variant % 4 >= 2;
        c.exclusive = variant / 4 == 1;
        c.include_initial = variant / 4 == 2;
        c.transposed = extents.size() > 1 && (extents[0] == 300 && extents[1] == 600 ? variant % 2 == 0
                                                                                    : axis == 0 && variant % 3 == 0);
        check_against_fold<float>(rng, c);
        check_against_fold<double>(rng, c);
      }
}

/// One call, and the same scan in chunks of `chunk` along the axis, each chunk's carry_out
/// the next one's carry_in: the outputs and the final carries must be bitwise equal.
/// `transposed`: the input's memory is column-major (a transposed view; the output packed).
template <class T>
void check_chunks(rng_t& rng, std::size_t rows, std::size_t cols, int axis, std::size_t chunk, bool product,
                  bool decreasing, bool exclusive, bool transposed = false) {
  INFO((product ? "cumprod " : "cumsum ") << rows << " x " << cols << " axis " << axis << " chunks of " << chunk
                                          << (decreasing ? " decreasing" : "") << (exclusive ? " exclusive" : "")
                                          << (transposed ? " transposed input" : ""));
  using C = tally::carry_type<T>;
  std::vector<T> in(rows * cols), one(rows * cols), chunked(rows * cols);
  for (T& x : in)
    x = product ? static_cast<T>(1 + (tally_test::unit(rng) - 0.5) / 64) : static_cast<T>(tally_test::unit(rng) - 0.25);
  scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, exclusive);
  const auto scan = [&](tensor_view<const T> i, tensor_view<T> out, tensor_view<const C> carry_in,
                        tensor_view<C> carry_out) {
    if (product)
      tally::cumprod(i, out, axis, o, carry_in, carry_out);
    else
      tally::cumsum(i, out, axis, o, carry_in, carry_out);
  };
  const std::size_t length = axis == 0 ? rows : cols, lines = axis == 0 ? cols : rows;
  std::vector<C> one_carry(lines), carry(lines);
  const std::ptrdiff_t strides[2] = {static_cast<std::ptrdiff_t>(cols), 1};
  const std::ptrdiff_t in_strides[2] = {transposed ? 1 : static_cast<std::ptrdiff_t>(cols),
                                        transposed ? static_cast<std::ptrdiff_t>(rows) : 1};
  const std::size_t whole[2] = {rows, cols};
  scan(tensor_view<const T>(in.data(), 2, whole, in_strides), tensor_view<T>(one.data(), {rows, cols}), {},
       tensor_view<C>(one_carry.data(), {lines}));
  for (std::size_t done = 0; done < length; done += chunk) {
    const std::size_t n = std::min(chunk, length - done);
    const std::size_t first = decreasing ? length - done - n : done;  // chunks in scan order
    const std::size_t sizes[2] = {axis == 0 ? n : rows, axis == 0 ? cols : n};
    const std::ptrdiff_t at[2] = {axis == 0 ? static_cast<std::ptrdiff_t>(first) : 0,
                                  axis == 0 ? 0 : static_cast<std::ptrdiff_t>(first)};
    const std::ptrdiff_t in_offset = at[0] * in_strides[0] + at[1] * in_strides[1];
    const std::ptrdiff_t out_offset = at[0] * strides[0] + at[1] * strides[1];
    const tensor_view<C> carry_view(carry.data(), {lines});
    scan(tensor_view<const T>(in.data() + in_offset, 2, sizes, in_strides),
         tensor_view<T>(chunked.data() + out_offset, 2, sizes, strides),
         done == 0 ? tensor_view<const C>() : tensor_view<const C>(carry_view), carry_view);
  }
  CHECK(std::memcmp(one.data(), chunked.data(), one.size() * sizeof(T)) == 0);
  CHECK(std::memcmp(one_carry.data(), carry.data(), carry.size() * sizeof(C)) == 0);
}

TEST_CASE("exact mode: chunked scans equal one call bitwise, carries and all") {
  rng_t rng(0x5eed04);
  const std::size_t block = tally::scan_block_elements;
  for (bool product : {false, true})
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true}) {
        check_chunks<float>(rng, 3, 3 * block + 77, 1, block, product, decreasing, exclusive);
        check_chunks<float>(rng, 2 * block + 5, 40, 0, block, product, decreasing, exclusive);
        check_chunks<float>(rng, 300, 200, 0, 7, product, decreasing, exclusive);  // rows: any chunk length
        check_chunks<float>(rng, 3000, 5, 0, 700, product, decreasing, exclusive);  // narrow columns
        check_chunks<float>(rng, 3000, 13, 0, 700, product, decreasing, exclusive);
        check_chunks<double>(rng, 3000, 3, 0, 700, product, decreasing, exclusive);
        check_chunks<double>(rng, 3, 5000, 1, 777, product, decreasing, exclusive);
        check_chunks<double>(rng, 1000, 40, 0, 13, product, decreasing, exclusive);
        // Transposed inputs: the gathered tiles, chunks resuming across their buffers.
        check_chunks<float>(rng, 300, 700, 0, 100, product, decreasing, exclusive, true);
        check_chunks<float>(rng, 700, 300, 1, 2 * 32, product, decreasing, exclusive, true);
        check_chunks<double>(rng, 300, 700, 0, 77, product, decreasing, exclusive, true);
      }
}

TEST_CASE("exact mode: a chunk's carries go on where one call would (include_initial, empty chunks)") {
  std::vector<float> x = {1.5f, 2.25f, -1.0f, 0x1p-30f, 3.0f};
  std::vector<float> y(6);
  double carry = 10.0;
  scan_options o;
  o.include_initial = true;
  tally::cumsum(tensor_view<const float>(x.data(), {5}), tensor_view<float>(y.data(), {6}), 0, o,
                tensor_view<const double>(&carry, {1}), tensor_view<double>(&carry, {1}));
  CHECK(y == std::vector<float>{10.0f, 11.5f, 13.75f, 12.75f, static_cast<float>(12.75 + 0x1p-30), 15.75f});
  CHECK(carry == 15.75 + 0x1p-30);  // the running value, not rounded to float
  // An empty chunk hands its carry_in on.
  double before = 2.5, after = 0;
  tally::cumsum(tensor_view<const float>(x.data(), {0}), tensor_view<float>(y.data(), {0}), 0, scan_options{},
                tensor_view<const double>(&before, {1}), tensor_view<double>(&after, {1}));
  CHECK(after == 2.5);
  // float64: the pair keeps what a double drops.
  std::vector<double> d = {1.0, 0x1p-60, 0x1p-60};
  std::vector<double> e(3);
  tally::double_double pair{};
  tally::cumsum(tensor_view<const double>(d.data(), {3}), tensor_view<double>(e.data(), {3}), 0, scan_options{}, {},
                tensor_view<tally::double_double>(&pair, {1}));
  CHECK(pair.high == 1.0);
  CHECK(pair.low == 0x1p-59);
  std::vector<double> minus_one = {-1.0};
  tally::cumsum(tensor_view<const double>(minus_one.data(), {1}), tensor_view<double>(e.data(), {1}), 0, scan_options{},
                tensor_view<const tally::double_double>(&pair, {1}), {});
  CHECK(e[0] == 0x1p-59);
}

TEST_CASE("exact mode: a small call gives the general path's bits") {
  rng_t rng(0x5eed05);
  for (const auto& extents : std::vector<std::vector<std::size_t>>{{16}, {200}, {37}, {8, 20}, {20, 8}, {6, 24}, {5, 3, 40}})
    for (std::size_t axis = 0; axis < extents.size(); ++axis)
      for (int variant = 0; variant < 8; ++variant) {
        const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, exclusive = variant >= 4;
        std::size_t count = 1;
        for (std::size_t e : extents) count *= e;
        std::vector<float> in(count), small(count), general(count);
        // Sums of small values and of +-2^60, which cancel: the double additions round
        // (1 + 2^60 - 2^60 is 0 in sequence, 1 grouped as 1 + (2^60 - 2^60)), so another
        // grouping than the general path's shows in the outputs.
        for (float& x : in) {
          const double u = tally_test::unit(rng);
          x = product ? static_cast<float>(1 + (u - 0.5) / 16)
                      : u < 0.3 ? (u < 0.15 ? 0x1p60f : -0x1p60f) : static_cast<float>(u - 0.6);
        }
        scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, exclusive);
        const std::size_t rank = extents.size();
        std::vector<std::size_t> carry_extents;  // the extents without the axis
        for (std::size_t d = 0; d < rank; ++d)
          if (d != axis) carry_extents.push_back(extents[d]);
        std::vector<double> carries(count / extents[axis]);
        const tensor_view<const float> input(in.data(), rank, extents.data());
        const tensor_view<float> to_small(small.data(), rank, extents.data());
        const tensor_view<float> to_general(general.data(), rank, extents.data());
        // A carry_out view: the same layout, but the call takes the engine's general path.
        const tensor_view<double> carry_out(carries.data(), rank - 1, carry_extents.data());
        const int a = static_cast<int>(axis);
        if (product) {
          tally::cumprod(input, to_small, a, o);
          tally::cumprod(input, to_general, a, o, {}, carry_out);
        } else {
          tally::cumsum(input, to_small, a, o);
          tally::cumsum(input, to_general, a, o, {}, carry_out);
        }
        for (std::size_t k = 0; k < count; ++k)
          if (std::memcmp(&small[k], &general[k], sizeof(float)) != 0) {
            INFO("extents rank " << rank << " axis " << axis << " variant " << variant << " element " << k);
            CHECK(small[k] == general[k]);
            break;
          }
      }
}

TEST_CASE("exact mode: many short lines in one call give the bits of one line at a time") {
  // Packed (and padded) rows of L elements along the last axis, too many for the small
  // path: the engine hands runs of lines to the multi-line form (vector_line::scan_lines;
  // packed lines of 2 to 16 with AVX-512: several lines a vector), which must give each
  // line the bits of the line form alone. A carry_out view makes the engine take the
  // lines one at a time (the line form resumes from a carry). nancumsum / nancumprod take
  // the same forms, a NaN read as +0 / 1: their bits are cumsum's / cumprod's of the
  // input with its NaNs so replaced.
  rng_t rng(0x5eed07);
  const std::size_t rows = 5000;  // 40 KiB and more: past the small path
  for (std::size_t n : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 23, 24, 25, 29, 31, 32, 33, 64, 100})
    for (int variant = 0; variant < 32; ++variant) {
      const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, padded = variant % 8 >= 4,
                 in_place = variant % 16 >= 8, skip_nan = variant >= 16;
      INFO((skip_nan ? "nan" : "") << (product ? "cumprod" : "cumsum") << " lines of " << n
                                   << (decreasing ? " decreasing" : "") << (padded ? " padded" : "")
                                   << (in_place ? " in place" : ""));
      const std::size_t row = padded ? n + 5 : n;
      std::vector<float> in(rows * row), clean(in.size()), one(in.size()), each(in.size());
      for (std::size_t k = 0; k < in.size(); ++k) {
        const double u = tally_test::unit(rng);  // as in the small-call test: cancelling +-2^60
        in[k] = product ? static_cast<float>(1 + (u - 0.5) / 16)
                        : u < 0.3 ? (u < 0.15 ? 0x1p60f : -0x1p60f) : static_cast<float>(u - 0.6);
        const bool nan = skip_nan && tally_test::unit(rng) < 0.1;
        clean[k] = nan ? (product ? 1.0f : 0.0f) : in[k];
        if (nan) in[k] = std::numeric_limits<float>::quiet_NaN();
      }
      std::vector<double> carries(rows);
      const auto row_stride = static_cast<std::ptrdiff_t>(row);
      const auto view = [&](float* data) { return tensor_view<float>(data, {rows, n}, {row_stride, 1}); };
      const scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing);
      const tensor_view<double> carry_out(carries.data(), {rows});
      if (in_place) one = in, each = clean;
      const tensor_view<const float> from = view(in_place ? one.data() : in.data());
      const tensor_view<const float> from_each = view(in_place ? each.data() : clean.data());
      if (skip_nan)
        product ? tally::nancumprod(from, view(one.data()), 1, o) : tally::nancumsum(from, view(one.data()), 1, o);
      else
        product ? tally::cumprod(from, view(one.data()), 1, o) : tally::cumsum(from, view(one.data()), 1, o);
      if (product)
        tally::cumprod(from_each, view(each.data()), 1, o, {}, carry_out);
      else
        tally::cumsum(from_each, view(each.data()), 1, o, {}, carry_out);
      // (Padding: the input's, copied in place, or never written.)
      for (std::size_t r = 0; r < rows; ++r)
        if (std::memcmp(&one[r * row], &each[r * row], n * sizeof(float)) != 0) {
          INFO("row " << r);
          CHECK(std::memcmp(&one[r * row], &each[r * row], n * sizeof(float)) == 0);
          break;
        }
    }
}

/// The exact mode's fold of one line, element after element, as docs/accuracy.md defines
/// it: float32 into a running double; float64 into a compensated pair (TwoSum, or the
/// FMA's exact error), rounded as double_double::value. Starts from the first element.
template <class T>
struct sequential_fold;
template <>
struct sequential_fold<float> {
  bool product;
  double running;
  sequential_fold(bool p, float first) : product(p), running(first) {}
  void add(float x) { running = product ? running * x : running + x; }
  float value() const { return static_cast<float>(running); }
};
template <>
struct sequential_fold<double> {
  bool product;
  double high, low = -0.0;
  sequential_fold(bool p, double first) : product(p), high(first) {}
  void add(double x) {
    // (fused_multiply_add: a * b + c rounded once. MinGW-w64's std::fma is not, which
    // ops/exact_sum.hpp measured; there it is the FMA instruction.)
    using tally::detail::fused_multiply_add;
    if (product) {
      const double p = high * x;
      low = fused_multiply_add(low, x, fused_multiply_add(high, x, -p));
      high = p;
    } else {
      const double s = high + x, part = s - high;
      low = low + ((high - (s - part)) + (x - part));
      high = s;
    }
  }
  double value() const { return std::isfinite(high) && low != 0 ? high + low : high; }
};

template <class T>
void check_narrow_columns(rng_t& rng, std::size_t w, int variant) {
  const std::size_t rows = 3000;  // 12 KiB and more: past the small path
  const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, padded = variant % 8 >= 4,
             exclusive = variant % 16 >= 8, in_place = variant % 32 >= 16 && !exclusive, skip_nan = variant >= 32;
  INFO((skip_nan ? "nan" : "") << (product ? "cumprod " : "cumsum ") << (sizeof(T) == 4 ? "float32" : "float64")
                               << " [" << rows << ", " << w << "] axis 0" << (decreasing ? " decreasing" : "")
                               << (padded ? " padded" : "") << (exclusive ? " exclusive" : "")
                               << (in_place ? " in place" : ""));
  const std::size_t row = padded ? w + 3 : w;
  std::vector<T> in(rows * row), out(in.size()), expected(in.size());
  for (T& x : in) {
    const double u = tally_test::unit(rng);
    x = product ? static_cast<T>(1 + (u - 0.5) / 16) : u < 0.3 ? (u < 0.15 ? T(0x1p40) : T(-0x1p40)) : static_cast<T>(u - 0.6);
    if (skip_nan && tally_test::unit(rng) < 0.1) x = std::numeric_limits<T>::quiet_NaN();
  }
  const T empty = product ? T(1) : T(0);
  for (std::size_t j = 0; j < w; ++j) {
    const auto at = [&](std::size_t t) { return (decreasing ? rows - 1 - t : t) * row + j; };
    const auto read = [&](std::size_t k) { return skip_nan && std::isnan(in[k]) ? empty : in[k]; };
    sequential_fold<T> fold(product, read(at(0)));
    expected[at(0)] = exclusive ? empty : fold.value();
    for (std::size_t t = 1; t < rows; ++t) {
      const T before = fold.value();
      fold.add(read(at(t)));
      expected[at(t)] = exclusive ? before : fold.value();
    }
  }
  if (in_place) out = in;
  const auto row_stride = static_cast<std::ptrdiff_t>(row);
  const tensor_view<const T> from(in_place ? out.data() : in.data(), {rows, w}, {row_stride, 1});
  const tensor_view<T> to(out.data(), {rows, w}, {row_stride, 1});
  const scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, exclusive);
  if (skip_nan)
    product ? tally::nancumprod(from, to, 0, o) : tally::nancumsum(from, to, 0, o);
  else
    product ? tally::cumprod(from, to, 0, o) : tally::cumsum(from, to, 0, o);
  for (std::size_t k = 0; k < in.size(); ++k)
    if (k % row < w && std::memcmp(&out[k], &expected[k], sizeof(T)) != 0) {
      INFO("row " << k / row << " column " << k % row << ": " << out[k] << " expected " << expected[k]);
      CHECK(std::memcmp(&out[k], &expected[k], sizeof(T)) == 0);
      break;
    }
}

/// [rows, n] float64 along axis 1 against each line's sequential fold, bitwise: on general
/// inputs (cancelling +-2^60, so that the pair's low part shows), with infinities and NaNs
/// in some lines, NaNs read as +0 / 1 by nancumsum / nancumprod. `row`: the elements from
/// one line to the next (n: packed); `shift`: the tensor starts that many elements into
/// its buffer.
void check_float64_lines(rng_t& rng, std::size_t rows, std::size_t n, std::size_t row, std::size_t shift, int variant) {
  const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, exclusive = variant % 8 >= 4,
             in_place = variant % 16 >= 8 && !exclusive, skip_nan = variant % 32 >= 16, specials = variant >= 32;
  INFO((skip_nan ? "nan" : "") << (product ? "cumprod " : "cumsum ") << rows << " lines of " << n << " every " << row
                               << ", from element " << shift << (decreasing ? ", decreasing" : "")
                               << (exclusive ? ", exclusive" : "") << (in_place ? ", in place" : "")
                               << (specials ? ", infinities and NaNs" : ""));
  std::vector<double> in(shift + rows * row), out(in.size()), expected(in.size());
  for (double& x : in) {
    const double u = tally_test::unit(rng);
    x = product ? 1 + (u - 0.5) / 16 : u < 0.3 ? (u < 0.15 ? 0x1p60 : -0x1p60) : u - 0.6;
    if (skip_nan && tally_test::unit(rng) < 0.05) x = std::numeric_limits<double>::quiet_NaN();
  }
  if (specials)
    for (std::size_t r = 0; r < rows; r += 3)
      in[shift + r * row + tally_test::pick(rng, n)] = r % 2 == 0 ? std::numeric_limits<double>::quiet_NaN()
                                                                  : (r % 4 == 1 ? 1 : -1) * HUGE_VAL;
  const double empty = product ? 1 : 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto at = [&](std::size_t k) { return shift + r * row + (decreasing ? n - 1 - k : k); };
    const auto read = [&](std::size_t k) { return skip_nan && std::isnan(in[k]) ? empty : in[k]; };
    sequential_fold<double> fold(product, read(at(0)));
    expected[at(0)] = exclusive ? empty : fold.value();
    for (std::size_t k = 1; k < n; ++k) {
      const double before = fold.value();
      fold.add(read(at(k)));
      expected[at(k)] = exclusive ? before : fold.value();
    }
  }
  if (in_place) out = in;
  const auto row_stride = static_cast<std::ptrdiff_t>(row);
  const tensor_view<const double> from((in_place ? out : in).data() + shift, {rows, n}, {row_stride, 1});
  const tensor_view<double> to(out.data() + shift, {rows, n}, {row_stride, 1});
  const scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, exclusive);
  if (skip_nan)
    product ? tally::nancumprod(from, to, 1, o) : tally::nancumsum(from, to, 1, o);
  else
    product ? tally::cumprod(from, to, 1, o) : tally::cumsum(from, to, 1, o);
  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t at = shift + r * row + k;
      if (std::memcmp(&out[at], &expected[at], sizeof(double)) != 0 && mismatches++ == 0) {
        INFO("line " << r << " element " << k << ": " << out[at] << " expected " << expected[at]);
        CHECK(false);
      }
    }
  CHECK(mismatches == 0);
}

TEST_CASE("exact mode: float64 lines side by side keep each line's sequential fold") {
  // Many float64 lines along memory take a form that folds a line per lane
  // (compensated_lines.hpp: blocks of 8 lines by 8 elements with AVX-512, 4 by 4 with
  // AVX2, transposed in registers): each line must be its sequential fold, bitwise. Line
  // counts that leave a part group, lengths that leave a part block, padded rows, a
  // tensor that starts off a cache line, and outputs of 16 MiB and more, which stream
  // (after a head of elements to the first line's 64-byte boundary) where every line sits
  // at the same place in its cache line.
  rng_t rng(0x5eed0c);
  struct shape {
    std::size_t rows, n, row, shift;
  };
  const shape shapes[] = {{37, 64, 64, 0},    {300, 67, 67, 0},  {13, 100, 105, 3}, {9, 129, 129, 1},
                          {70, 1000, 1000, 5}, {2, 77, 80, 0},    {1029, 2056, 2056, 0}, {1029, 2056, 2056, 3},
                          {1031, 2051, 2059, 1}};
  for (const shape& sh : shapes)
    for (int variant = 0; variant < 64; ++variant) {
      if (sh.rows > 1000 && variant % 8 >= 4 && variant % 16 != 4) continue;  // (large: fewer variants)
      check_float64_lines(rng, sh.rows, sh.n, sh.row, sh.shift, variant);
    }
}

TEST_CASE("exact mode: an exclusive line is the inclusive one, one place on, bit for bit") {
  // Exclusive lines along memory run as their inclusive outputs moved one place on
  // (engine.hpp, scan_exclusive_line_moved and scan_line_run), so that they take the line
  // forms. On inputs whose grouping shows in the outputs (cancelling +-2^60, as in the
  // small-call test) the sequential loop they took before gives other bits. Lines of every
  // path: packed short lines (runs of lines), padded ones (one at a time), single lines
  // across the 4096-element pieces, small calls; both directions, in place, 2 threads; and
  // with carries: a carry_out changes no output, and equals the inclusive scan's.
  rng_t rng(0x5eed0b);
  struct shape {
    std::size_t rows, n, row;  // row: the elements from one line to the next (n: packed)
  };
  const shape shapes[] = {{5000, 2, 2},  {5000, 3, 3},   {5000, 8, 8},   {3000, 13, 13}, {2000, 33, 33},
                          {600, 100, 100}, {4000, 20, 27}, {1, 20000, 20000}, {3, 8197, 8197}, {1, 37, 37},
                          {12, 40, 40},  {2, 4096, 4099}};
  for (const shape& sh : shapes)
    for (int variant = 0; variant < 16; ++variant) {
      const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, in_place = variant % 8 >= 4,
                 threads = variant >= 8;
      INFO((product ? "cumprod " : "cumsum ") << sh.rows << " lines of " << sh.n << " every " << sh.row
                                              << (decreasing ? " decreasing" : "") << (in_place ? " in place" : "")
                                              << (threads ? ", 2 threads" : ""));
      std::vector<float> in(sh.rows * sh.row), inclusive(in.size()), exclusive(in.size()), with_carry(in.size());
      for (float& x : in) {
        const double u = tally_test::unit(rng);
        x = product ? static_cast<float>(1 + (u - 0.5) / 16)
                    : u < 0.3 ? (u < 0.15 ? 0x1p60f : -0x1p60f) : static_cast<float>(u - 0.6);
      }
      const std::size_t extents[2] = {sh.rows, sh.n};
      const std::ptrdiff_t strides[2] = {static_cast<std::ptrdiff_t>(sh.row), 1};
      const auto view = [&](std::vector<float>& v) { return tensor_view<float>(v.data(), 2, extents, strides); };
      scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, false,
                     threads ? 2 : 1);
      const auto scan = [&](std::vector<float>& from, std::vector<float>& to, bool exclusive_scan,
                            std::vector<double>* carry_out) {
        scan_options options = o;
        options.exclusive = exclusive_scan;
        if (in_place) to = from;
        const tensor_view<const float> source = in_place ? tensor_view<const float>(view(to)) : view(from);
        const tensor_view<double> carry =
            carry_out ? tensor_view<double>(carry_out->data(), {sh.rows}) : tensor_view<double>();
        if (product)
          tally::cumprod(source, view(to), 1, options, {}, carry);
        else
          tally::cumsum(source, view(to), 1, options, {}, carry);
      };
      std::vector<double> inclusive_carry(sh.rows), exclusive_carry(sh.rows);
      scan(in, inclusive, false, &inclusive_carry);
      scan(in, exclusive, true, nullptr);
      scan(in, with_carry, true, &exclusive_carry);
      std::size_t mismatches = 0;
      for (std::size_t r = 0; r < sh.rows; ++r)
        for (std::size_t k = 0; k < sh.n; ++k) {  // k: the position in scan order
          const std::size_t at = r * sh.row + (decreasing ? sh.n - 1 - k : k);
          const std::size_t before = r * sh.row + (decreasing ? sh.n - k : k - 1);
          const float want = k == 0 ? (product ? 1.0f : 0.0f) : inclusive[before];
          if (std::memcmp(&exclusive[at], &want, sizeof(float)) != 0 && mismatches++ < 3) {
            INFO("line " << r << " position " << k << ": exclusive " << exclusive[at] << ", inclusive before it "
                         << want);
            CHECK(false);
          }
        }
      CHECK(mismatches == 0);
      CHECK(std::memcmp(exclusive.data(), with_carry.data(), in.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(inclusive_carry.data(), exclusive_carry.data(), sh.rows * sizeof(double)) == 0);
    }
}

TEST_CASE("exact mode: narrow columns down an outer axis keep each column's sequential fold") {
  // [rows, w] along axis 0 for w = 2 to 33 (rows of at most one vector of running values,
  // 8 float32 or 4 float64 with AVX2, twice that with AVX-512, take forms of their own, a
  // row per vector; rows of one to two vectors, two overlapping vectors a row; w = 1 is a
  // contiguous line, which takes the line form and its grouping), on general inputs
  // (cancelling +-2^40): each column must be its sequential fold, bitwise. Padded rows
  // too; NaNs read as +0 / 1 by nancumsum / nancumprod; both directions; exclusive; in
  // place. (float64 from 18 on is what float32 shows: whole steps, then one at a time.)
  rng_t rng(0x5eed08);
  for (std::size_t w = 2; w <= 33; ++w)
    for (int variant = 0; variant < 64; ++variant) {
      check_narrow_columns<float>(rng, w, variant);
      if (w <= 17) check_narrow_columns<double>(rng, w, variant);
    }
}

TEST_CASE("exact mode: a float32 line's carry_out is its double running value, at every step length") {
  // Lines of 1 to 70 elements: a line form step is 32 elements (AVX-512) or 16 (AVX2), and
  // a line's last step, shorter, may take half a step's vectors; the carry it hands on
  // must still be the line's running value. On dyadic inputs (sums: multiples of 2^-3 up to
  // 64; products: factors +-0.5, +-1, +-2, +-1.25, at most 20 of them) every double sum or
  // product is exact, so the running value is known without tally: the sequential fold in
  // double, from carry_in. The outputs are that value rounded once, with and without
  // carries (a call without them takes the small path).
  rng_t rng(0x5eed08);
  for (std::size_t n = 1; n <= 70; ++n)
    for (int variant = 0; variant < 16; ++variant) {
      const bool product = variant % 2 == 1, decreasing = variant % 4 >= 2, exclusive = variant % 8 >= 4,
                 with_carry_in = variant >= 8;
      if (product && n > 20) continue;
      INFO((product ? "cumprod" : "cumsum") << " of " << n << (decreasing ? " decreasing" : "")
                                            << (exclusive ? " exclusive" : "") << (with_carry_in ? " from a carry" : ""));
      std::vector<float> in(n), out(n), small(n), expected(n);
      static const float factors[] = {0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 1.25f, -1.25f};
      for (float& x : in) {
        const double u = tally_test::unit(rng);
        x = product ? factors[static_cast<std::size_t>(u * 8)] : static_cast<float>(std::floor(u * 1024) / 8 - 64);
      }
      const double start = with_carry_in ? (product ? -1.5 : 0.375) : (product ? 1.0 : 0.0);
      double running = start;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = decreasing ? n - 1 - k : k;
        const double before = running;
        running = product ? running * in[i] : running + in[i];
        expected[i] = static_cast<float>(exclusive ? before : running);
      }
      scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, exclusive);
      double carry_in = start, carry_out = 0;
      const tensor_view<const float> input(in.data(), {n});
      const tensor_view<const double> from =
          with_carry_in ? tensor_view<const double>(&carry_in, {1}) : tensor_view<const double>();
      if (product) {
        tally::cumprod(input, tensor_view<float>(out.data(), {n}), 0, o, from, tensor_view<double>(&carry_out, {1}));
        tally::cumprod(input, tensor_view<float>(small.data(), {n}), 0, o);
      } else {
        tally::cumsum(input, tensor_view<float>(out.data(), {n}), 0, o, from, tensor_view<double>(&carry_out, {1}));
        tally::cumsum(input, tensor_view<float>(small.data(), {n}), 0, o);
      }
      CHECK(carry_out == running);
      CHECK(out == expected);
      if (!with_carry_in) CHECK(small == expected);
    }
}

TEST_CASE("exact mode: the default, and what it changes") {
  CHECK(scan_options{}.accuracy == scan_accuracy::exact);
  // 2^20 uniform floats: the default gives the exact mode's bits, and the fast mode (whose
  // errors reach tens of ulp here, docs/accuracy.md) differs somewhere.
  rng_t rng(0x5eed06);
  std::vector<float> x(std::size_t{1} << 20), plain(x.size()), exact(x.size()), fast(x.size());
  for (float& v : x) v = static_cast<float>(tally_test::unit(rng));
  const std::size_t n = x.size();
  scan_options e, f;
  e.accuracy = scan_accuracy::exact;
  f.accuracy = scan_accuracy::fast;
  tally::cumsum(tensor_view<const float>(x.data(), {n}), tensor_view<float>(plain.data(), {n}), 0);
  tally::cumsum(tensor_view<const float>(x.data(), {n}), tensor_view<float>(exact.data(), {n}), 0, e);
  tally::cumsum(tensor_view<const float>(x.data(), {n}), tensor_view<float>(fast.data(), {n}), 0, f);
  CHECK(plain == exact);
  CHECK(fast != exact);
}

}  // namespace
