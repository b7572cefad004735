// scan_accuracy::exact (issue 13) against an oracle written here, independent of the
// library: a double-double running sum (TwoSum) or product (an FMA's exact product
// error) of the inputs, renormalised after every element. The error of an output is
// |y - exact| in ulp of the exact value rounded to the element type; the bound asserted
// is 1 ulp, on long lines (2^20 elements) of three input families, along lines, across
// rows, on gathered (transposed) views, in both directions, exclusive and with
// include_initial, under every SIMD variant the test program is run with.
#include <tally/tally.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "catch.hpp"
#include "support/random.hpp"

namespace {

using tally::scan_accuracy;
using tally::scan_options;
using tally::tensor_view;
using tally_test::rng_t;

/// hi + lo, |lo| <= ulp(hi) / 2.
struct double_double {
  double hi = 0, lo = 0;
};

double_double renormalised(double a, double b) {
  const double s = a + b;
  const double bp = s - a;
  return {s, (a - (s - bp)) + (b - bp)};
}

double_double plus(double_double x, double y) {
  const double_double s = renormalised(x.hi, y);
  return renormalised(s.hi, s.lo + x.lo);
}

double_double times(double_double x, double y) {
  const double p = x.hi * y;
  return renormalised(p, std::fma(x.hi, y, -p) + x.lo * y);
}

/// |y - exact| in ulp of T at the exact value rounded to T (its spacing above it).
template <class T>
double ulp_error(T y, double_double exact) {
  const T rounded = static_cast<T>(exact.hi + exact.lo);
  const T magnitude = std::fabs(rounded);
  const T spacing = magnitude == 0 ? std::numeric_limits<T>::denorm_min()
                                   : std::nextafter(magnitude, std::numeric_limits<T>::infinity()) - magnitude;
  const double_double difference = plus({static_cast<double>(y), 0.0}, -exact.hi);
  return std::fabs((difference.hi - exact.lo) + difference.lo) / static_cast<double>(spacing);
}

enum class family { uniform, offset_uniform, normal, near_one };

template <class T>
std::vector<T> inputs(family f, std::size_t n, std::uint64_t seed) {
  rng_t rng(seed);
  std::vector<T> x(n);
  for (T& v : x) {
    const double u = tally_test::unit(rng);
    switch (f) {
      case family::uniform: v = static_cast<T>(u); break;
      case family::offset_uniform: v = static_cast<T>(1000 + u); break;
      case family::normal: {  // Box-Muller, the cosine sample
        const double u2 = tally_test::unit(rng);
        v = static_cast<T>(std::sqrt(-2 * std::log1p(-u)) * std::cos(6.283185307179586 * u2));
        break;
      }
      case family::near_one: v = static_cast<T>(1 + (u - 0.5) / 50); break;
    }
  }
  return x;
}

/// The largest error of `out` (elements out_step apart, in scan order) against the running
/// sum or product of `in` (in_step apart, scan order), n elements; exclusive shifts by one.
template <class T>
double worst_error(const T* in, std::ptrdiff_t in_step, const T* out, std::ptrdiff_t out_step, std::size_t n,
                   bool product, bool exclusive) {
  double_double running{product ? 1.0 : 0.0, 0.0};
  double worst = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double x = static_cast<double>(in[static_cast<std::ptrdiff_t>(k) * in_step]);
    if (!exclusive) running = product ? times(running, x) : plus(running, x);
    worst = std::max(worst, ulp_error<T>(out[static_cast<std::ptrdiff_t>(k) * out_step], running));
    if (exclusive) running = product ? times(running, x) : plus(running, x);
  }
  return worst;
}

scan_options exact_options(tally::axis_direction direction = tally::axis_direction::increasing, bool exclusive = false,
                           unsigned threads = 1) {
  scan_options o(direction, exclusive, threads);
  o.accuracy = scan_accuracy::exact;
  return o;
}

template <class T>
void run(const tensor_view<const T>& in, const tensor_view<T>& out, int axis, const scan_options& o, bool product) {
  product ? tally::cumprod(in, out, axis, o) : tally::cumsum(in, out, axis, o);
}

/// One line of 2^20: both directions, inclusive, exclusive and include_initial.
template <class T>
void check_long_line(family f, bool product) {
  const std::size_t n = std::size_t{1} << 20;
  const std::vector<T> x = inputs<T>(f, n, 7 + static_cast<std::uint64_t>(f));
  std::vector<T> y(n + 1);
  const tensor_view<const T> in(x.data(), {n});
  for (int direction = 0; direction < 2; ++direction) {
    const auto dir = direction ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    const T* first_in = direction ? x.data() + n - 1 : x.data();
    const std::ptrdiff_t step = direction ? -1 : 1;
    for (int mode = 0; mode < 3; ++mode) {
      CAPTURE(f, product, direction, mode);
      const bool exclusive = mode == 1, initial = mode == 2;
      scan_options o = exact_options(dir, exclusive);
      o.include_initial = initial;
      const tensor_view<T> out(y.data(), {initial ? n + 1 : n});
      run(in, out, 0, o, product);
      const T* first_out = direction ? y.data() + (initial ? n : n - 1) : y.data();
      if (initial) {
        CHECK(*first_out == (product ? T(1) : T(0)));
        first_out += step;
      }
      CHECK(worst_error(first_in, step, first_out, step, n, product, exclusive) <= 1.0);
    }
  }
}

/// A rows x cols matrix scanned along each axis, and its transpose seen through strides
/// (the gathered tiles); both placed `offset` elements into their buffers (an output of
/// 16 MiB or more is stored with non-temporal stores from its first vector boundary on).
template <class T>
void check_matrix(family f, bool product, std::size_t rows, std::size_t cols, unsigned threads,
                  std::size_t offset = 0) {
  std::vector<T> x = inputs<T>(f, rows * cols + offset, 11 + static_cast<std::uint64_t>(f));
  std::vector<T> y_buffer(rows * cols + offset);
  x.erase(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(offset));
  x.insert(x.begin(), offset, T(0));
  T* const y = y_buffer.data() + offset;
  const auto c = static_cast<std::ptrdiff_t>(cols);
  for (int transposed = 0; transposed < 2; ++transposed) {
    // transposed: a cols x rows view of the same memory, element (i, j) at j * cols + i.
    const std::size_t n0 = transposed ? cols : rows, n1 = transposed ? rows : cols;
    const std::ptrdiff_t s0 = transposed ? 1 : c, s1 = transposed ? c : 1;
    const tensor_view<const T> in(x.data() + offset, {n0, n1}, {s0, s1});
    const tensor_view<T> out(y, {n0, n1}, {s0, s1});
    for (int axis = 0; axis < 2; ++axis) {
      CAPTURE(f, product, rows, cols, threads, offset, transposed, axis);
      run(in, out, axis, exact_options(tally::axis_direction::increasing, false, threads), product);
      const std::size_t lines = axis ? n0 : n1, length = axis ? n1 : n0;
      const std::ptrdiff_t along = axis ? s1 : s0, across = axis ? s0 : s1;
      double worst = 0;
      for (std::size_t i = 0; i < lines; ++i) {
        const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(i) * across;
        worst = std::max(worst, worst_error(x.data() + offset + start, along, y + start, along, length, product, false));
      }
      CHECK(worst <= 1.0);
    }
  }
}

}  // namespace

TEST_CASE("accuracy: exact float32 and float64 sums of 2^20 elements stay within 1 ulp of the exact running sum") {
  for (family f : {family::uniform, family::offset_uniform, family::normal}) {
    check_long_line<float>(f, false);
    check_long_line<double>(f, false);
  }
}

TEST_CASE("accuracy: exact float32 and float64 products of 2^20 factors stay within 1 ulp of the exact product") {
  check_long_line<float>(family::near_one, true);
  check_long_line<double>(family::near_one, true);
}

TEST_CASE("accuracy: exact sums across rows, along lines and on transposed views, any thread count") {
  for (unsigned threads : {1u, 2u}) {
    check_matrix<float>(family::normal, false, 1024, 1000, threads);
    check_matrix<double>(family::normal, false, 1000, 1024, threads);
    check_matrix<float>(family::near_one, true, 300, 257, threads);
    check_matrix<double>(family::near_one, true, 257, 300, threads);
    // Rows wider than one tile of running values (4096 float lines, 2048 double lines).
    check_matrix<float>(family::offset_uniform, false, 40, 4096 + 21, threads);
    check_matrix<double>(family::offset_uniform, false, 40, 2048 + 13, threads);
  }
}

TEST_CASE("accuracy: exact scans of outputs large enough to be streamed, one element past a vector boundary") {
  check_matrix<float>(family::offset_uniform, false, 4096, 1025, 1, 1);
  check_matrix<double>(family::normal, false, 2049, 1025, 1, 1);
  check_matrix<double>(family::near_one, true, 2049, 1025, 1, 3);
}

TEST_CASE("accuracy: exact float32 lines of 16 MiB, both directions, one element past a vector boundary") {
  const std::size_t n = (std::size_t{1} << 22) + 5;
  std::vector<float> x = inputs<float>(family::normal, n + 1, 5), y(n + 1);
  for (int direction = 0; direction < 2; ++direction) {
    CAPTURE(direction);
    const auto dir = direction ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    tally::cumsum(tensor_view<const float>(x.data() + 1, {n}), tensor_view<float>(y.data() + 1, {n}), 0,
                  exact_options(dir));
    const std::ptrdiff_t step = direction ? -1 : 1;
    const std::size_t first = direction ? n : 1;
    CHECK(worst_error(x.data() + first, step, y.data() + first, step, n, false, false) <= 1.0);
  }
}

TEST_CASE("accuracy: exact scans in place, along lines and across rows") {
  const std::size_t rows = 300, cols = 1000;
  for (int axis = 0; axis < 2; ++axis) {
    const std::vector<float> x = inputs<float>(family::normal, rows * cols, 17);
    std::vector<float> separate(x.size()), in_place = x;
    tally::cumsum(tensor_view<const float>(x.data(), {rows, cols}), tensor_view<float>(separate.data(), {rows, cols}),
                  axis, exact_options());
    tally::cumsum(tensor_view<const float>(in_place.data(), {rows, cols}), tensor_view<float>(in_place.data(), {rows, cols}),
                  axis, exact_options());
    CHECK(in_place == separate);
    const std::vector<double> x64 = inputs<double>(family::normal, rows * cols, 17);
    std::vector<double> separate64(x64.size()), in_place64 = x64;
    tally::cumsum(tensor_view<const double>(x64.data(), {rows, cols}),
                  tensor_view<double>(separate64.data(), {rows, cols}), axis, exact_options());
    tally::cumsum(tensor_view<const double>(in_place64.data(), {rows, cols}),
                  tensor_view<double>(in_place64.data(), {rows, cols}), axis, exact_options());
    CHECK(in_place64 == separate64);
  }
}

TEST_CASE("accuracy: exact results do not depend on the thread count") {
  const std::size_t rows = 512, cols = 1030;
  const std::vector<float> x = inputs<float>(family::normal, rows * cols, 3);
  for (int axis = 0; axis < 2; ++axis) {
    std::vector<float> one(rows * cols), two(rows * cols);
    tally::cumsum(tensor_view<const float>(x.data(), {rows, cols}), tensor_view<float>(one.data(), {rows, cols}), axis,
                  exact_options());
    tally::cumsum(tensor_view<const float>(x.data(), {rows, cols}), tensor_view<float>(two.data(), {rows, cols}), axis,
                  exact_options(tally::axis_direction::increasing, false, 2));
    CHECK(one == two);
  }
}

TEST_CASE("accuracy: the exact mode's special values are the plain scan's") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float big = std::numeric_limits<float>::max();
  const auto exact_sum = [](std::vector<float> x) {
    std::vector<float> y(x.size());
    tally::cumsum(tensor_view<const float>(x.data(), {x.size()}), tensor_view<float>(y.data(), {y.size()}), 0,
                  exact_options());
    return y;
  };
  const auto exact_sum64 = [](std::vector<double> x) {
    std::vector<double> y(x.size());
    tally::cumsum(tensor_view<const double>(x.data(), {x.size()}), tensor_view<double>(y.data(), {y.size()}), 0,
                  exact_options());
    return y;
  };
  // -0.0 stays -0.0 (the identity is -0.0, as in the plain sum).
  for (float v : exact_sum(std::vector<float>(40, -0.0f))) CHECK(std::signbit(v));
  for (double v : exact_sum64(std::vector<double>(40, -0.0))) CHECK(std::signbit(v));
  // An infinity stays, inf - inf is NaN, NaN stays.
  std::vector<float> y = exact_sum({1, inf, 2, -inf, 3});
  CHECK(y[1] == inf);
  CHECK(y[2] == inf);
  CHECK(std::isnan(y[3]));
  CHECK(std::isnan(y[4]));
  std::vector<double> y64 = exact_sum64({1, HUGE_VAL, 2, -HUGE_VAL, 3});
  CHECK(y64[1] == HUGE_VAL);
  CHECK(y64[2] == HUGE_VAL);
  CHECK(std::isnan(y64[3]));
  CHECK(std::isnan(y64[4]));
  CHECK(std::isnan(exact_sum({nan, 1, 2})[2]));
  // float32: the running value is a double, so an output beyond float's range is inf and
  // the next one, back in range, is the exact sum rounded (the plain sum stays inf).
  y = exact_sum({big, big, -big});
  CHECK(y[1] == inf);
  CHECK(y[2] == big);
  // float64: the compensated value overflows as the plain sum does.
  const double big64 = std::numeric_limits<double>::max();
  y64 = exact_sum64({big64, big64, -big64});
  CHECK(y64[1] == HUGE_VAL);
  CHECK(y64[2] == HUGE_VAL);
  // What the compensation buys: 1 + 2^-60 + ... is exact where a double sum drops the tail.
  y64 = exact_sum64({1.0, 0x1p-60, 0x1p-60, -1.0});
  CHECK(y64[3] == 0x1p-59);
}

TEST_CASE("accuracy: double_double::value() rounds high + low once, and keeps high where low adds nothing") {
  using tally::double_double;
  const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(double_double{1.0, 0x1p-60}.value() == 1.0);             // below half an ulp
  CHECK(double_double{1.0, 0x1p-52}.value() == 1.0 + 0x1p-52);   // a whole ulp
  CHECK(double_double{0x1p-60, 0x1p-61}.value() == 0x1.8p-60);   // high + low
  CHECK(double_double{0.0, -0x1p-70}.value() == -0x1p-70);       // low alone
  // low is +-0: high as it is, -0.0 included (-0.0 + +0.0 would be +0.0).
  CHECK(std::signbit(double_double{-0.0, 0.0}.value()));
  CHECK(std::signbit(double_double{-0.0, -0.0}.value()));
  CHECK(!std::signbit(double_double{0.0, -0.0}.value()));
  CHECK(double_double{3.0, 0.0}.value() == 3.0);
  // high not finite: high, whatever low holds.
  CHECK(double_double{inf, nan}.value() == inf);
  CHECK(double_double{-inf, 1.0}.value() == -inf);
  CHECK(std::isnan(double_double{nan, 1.0}.value()));
}

TEST_CASE("accuracy: the exact scans' outputs of a float64 pair select double_double::value()'s bits") {
  // exact_op::value selects without a branch; it must give value()'s bits for every pair.
  const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
  const double values[] = {0.0, -0.0, 1.0, -1.5, 0x1p-60, -0x1p-1074, 0x1.fffffffffffffp1023, inf, -inf, nan};
  const tally::detail::exact_op<tally::detail::sum_op, double> op;
  const auto bits = [](double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  for (const double high : values)
    for (const double low : values) {
      INFO("high " << high << " low " << low);
      CHECK(bits(op.value({high, low})) == bits(tally::double_double{high, low}.value()));
    }
}

TEST_CASE("accuracy: scan_accuracy is validated and leaves other types alone") {
  std::vector<float> x(64, 1.5f), y(64);
  scan_options bad;
  bad.accuracy = static_cast<scan_accuracy>(7);
  CHECK_THROWS_AS(tally::cumsum(tensor_view<const float>(x.data(), {64}), tensor_view<float>(y.data(), {64}), 0, bad),
                  tally::error);
  CHECK_THROWS_AS(tally::cumsum(tensor_view<const float>(x.data(), {8, 8}), tensor_view<float>(y.data(), {8, 8}), 1, bad),
                  tally::error);
  double carry = 0;
  CHECK_THROWS_AS(tally::cumsum(tensor_view<const float>(x.data(), {64}), tensor_view<float>(y.data(), {64}), 0, bad,
                                tensor_view<const double>(&carry, {1}), tensor_view<double>(&carry, {1})),
                  tally::error);
  // Integers and half: the same bits in both modes.
  std::vector<std::int32_t> i(100), a(100), b(100);
  for (std::size_t k = 0; k < i.size(); ++k) i[k] = static_cast<std::int32_t>(k * 7919 % 1000) - 500;
  tally::cumsum(tensor_view<const std::int32_t>(i.data(), {100}), tensor_view<std::int32_t>(a.data(), {100}), 0);
  tally::cumsum(tensor_view<const std::int32_t>(i.data(), {100}), tensor_view<std::int32_t>(b.data(), {100}), 0,
                exact_options());
  CHECK(a == b);
  std::vector<tally::half> h(100), hf(100), he(100);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = tally::half(static_cast<float>(k % 13) / 7);
  tally::cumsum(tensor_view<const tally::half>(h.data(), {100}), tensor_view<tally::half>(hf.data(), {100}), 0);
  tally::cumsum(tensor_view<const tally::half>(h.data(), {100}), tensor_view<tally::half>(he.data(), {100}), 0,
                exact_options());
  for (std::size_t k = 0; k < h.size(); ++k) CHECK(hf[k].bits == he[k].bits);
}
