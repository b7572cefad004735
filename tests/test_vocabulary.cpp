// The scan vocabulary (shared/spec/scan-vocabulary.md) against the one oracle
// (tests/support/reference.hpp): wider outputs, include_initial, nancumsum / nancumprod,
// cummax / cummin with and without indices, logcumsumexp, user operators (a
// non-commutative one among them), segmented scans, complex and bfloat16 elements, on
// random layouts (permuted, padded, reversed, broadcast inputs, outputs overlapping the
// input), with the elements outside the output left untouched; thread-count
// independence; and every refusal (code, argument named, nothing written).
#include <tally/tally.hpp>

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "support/bits.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

using tally::scan_options;
using tally::status_code;
using tally::tensor_view;
using tally_test::line_mode;
using tally_test::pick;
using tally_test::rng_t;
using tally_test::scan_op;

/// A 2x2 integer matrix: multiplication is associative and not commutative, so any
/// swapped or regrouped application changes the result.
struct mat2 {
  std::int64_t a, b, c, d;
};
mat2 multiply(const mat2& x, const mat2& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
bool operator==(const mat2& x, const mat2& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

// ---------------------------------------------------------------------------------------
// Random layouts

/// A strided view's shape in a buffer: element (i...) is at base + sum i[d] * strides[d].
struct placement {
  std::vector<std::size_t> sizes;
  std::vector<std::ptrdiff_t> strides;
  std::ptrdiff_t base = 0;
  std::size_t span = 0;  // the buffer needs at least base-relative offsets below this

  std::size_t count() const {
    std::size_t n = 1;
    for (std::size_t s : sizes) n *= s;
    return n;
  }
  std::ptrdiff_t offset(const std::size_t* index) const {
    return base + tally_test::offset_of(sizes.size(), index, strides.data());
  }
};

/// Dimensions in a random memory order, sometimes padded, some reversed; with
/// `broadcast`, sometimes one dimension of stride 0 (inputs only). Offsets lie in [0, span).
placement random_placement(rng_t& rng, const std::vector<std::size_t>& sizes, bool broadcast) {
  placement p;
  p.sizes = sizes;
  const std::size_t rank = sizes.size();
  p.strides.assign(rank, 0);
  std::vector<std::size_t> order(rank);
  for (std::size_t d = 0; d < rank; ++d) order[d] = d;
  for (std::size_t d = rank; d > 1; --d) std::swap(order[d - 1], order[pick(rng, d)]);
  std::ptrdiff_t running = 1;
  for (std::size_t k = rank; k-- > 0;) {
    const std::size_t d = order[k];
    p.strides[d] = running;
    running *= static_cast<std::ptrdiff_t>(std::max<std::size_t>(sizes[d], 1));
    if (tally_test::one_in(rng, 3)) running += static_cast<std::ptrdiff_t>(pick(rng, 3));
  }
  if (broadcast && rank > 0 && tally_test::one_in(rng, 4)) p.strides[pick(rng, rank)] = 0;
  for (std::size_t d = 0; d < rank; ++d)
    if (tally_test::one_in(rng, 3)) {
      p.base += static_cast<std::ptrdiff_t>(std::max<std::size_t>(sizes[d], 1) - 1) * p.strides[d];
      p.strides[d] = -p.strides[d];
    }
  p.span = static_cast<std::size_t>(running) + 1;
  return p;
}

template <class T>
tensor_view<T> view_of(T* buffer, const placement& p) {
  return tensor_view<T>(buffer + p.base, p.sizes.size(), p.sizes.data(), p.strides.data());
}

/// Random sizes: rank 1..4, mostly 1..6, sometimes 0, sometimes one dimension long
/// enough to exceed the engine's tiles of 64 lines.
std::vector<std::size_t> random_sizes(rng_t& rng) {
  std::vector<std::size_t> sizes(1 + pick(rng, 4));
  for (std::size_t& s : sizes) s = tally_test::one_in(rng, 12) ? 0 : 1 + pick(rng, 6);
  if (tally_test::one_in(rng, 4)) sizes[pick(rng, sizes.size())] = 60 + pick(rng, 80);
  return sizes;
}

// ---------------------------------------------------------------------------------------
// Values

/// A random element; `specials` adds NaN, infinities and signed zeros; `exact` keeps
/// floats at halves of small integers (so sums are exact in any order).
template <class T>
T random_value(rng_t& rng, bool specials, bool exact = false) {
  if constexpr (std::is_same_v<T, mat2>) {
    const auto small = [&] { return static_cast<std::int64_t>(pick(rng, 5)) - 2; };
    return mat2{small(), small(), small(), small()};
  } else if constexpr (std::is_integral_v<T>) {
    std::uint64_t bits = rng();
    T v;
    std::memcpy(&v, &bits, sizeof v);
    if (tally_test::one_in(rng, 2)) v = static_cast<T>(static_cast<int>(pick(rng, 7)) - 3);  // small, also for products
    return v;
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    return T(random_value<R>(rng, specials, exact), random_value<R>(rng, specials, exact));
  } else {
    double v = static_cast<double>(static_cast<int>(pick(rng, 9)) - 4) * 0.5;  // exact sums
    if (!exact && tally_test::one_in(rng, 2)) v = (tally_test::unit(rng) - 0.5) * 8.0;
    if (specials && tally_test::one_in(rng, 8)) {
      const double s[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(), -0.0, 0.0};
      v = s[pick(rng, 5)];
    }
    if constexpr (std::is_same_v<T, tally::half> || std::is_same_v<T, tally::bfloat16>)
      return T(static_cast<float>(v));
    else
      return static_cast<T>(v);
  }
}

/// Same bits, or both NaN (payloads are not specified).
template <class T>
bool same_value(const T& a, const T& b) {
  if (tally_test::ref_is_nan(a) && tally_test::ref_is_nan(b)) return true;
  return tally_test::same_bits(a, b);
}

template <class T>
std::string show(const T& x) {
  if constexpr (std::is_same_v<T, mat2>)
    return "[" + std::to_string(x.a) + " " + std::to_string(x.b) + "; " + std::to_string(x.c) + " " +
           std::to_string(x.d) + "]";
  else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return "(" + std::to_string(x.real()) + "," + std::to_string(x.imag()) + ")";
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(static_cast<long long>(x));
  else if constexpr (std::is_class_v<T>)
    return std::to_string(tally_test::to_double(x));
  else
    return std::to_string(static_cast<double>(x));
}

// ---------------------------------------------------------------------------------------
// The randomized harness for one-output operators

/// What a test lets the harness vary.
struct allowed {
  bool exclusive = true, include_initial = true, overlap = true, specials = true, exact = false;
  tally::scan_accuracy accuracy = tally::scan_accuracy::exact;  // the options' (float32 / float64 cumsum, cumprod)
};

/// Runs `cases` random cases of call(in, out, axis, options), each compared line by line
/// with expect(line_in, mode) -> outputs in output order, by match(got, expected).
/// Elements of the buffers outside the output view must keep their bits.
template <class In, class Out, class Call, class Expect, class Match>
void random_cases(std::uint64_t seed, int cases, allowed a, Call&& call, Expect&& expect, Match&& match) {
  rng_t rng(seed);
  for (int c = 0; c < cases; ++c) {
    const std::vector<std::size_t> sizes = random_sizes(rng);
    const std::size_t rank = sizes.size(), axis = pick(rng, rank);
    const int axis_arg = tally_test::one_in(rng, 2) ? static_cast<int>(axis) - static_cast<int>(rank)
                                                    : static_cast<int>(axis);
    line_mode m;
    m.decreasing = tally_test::one_in(rng, 2);
    const std::uint64_t mode_pick = pick(rng, 3);
    m.include_initial = a.include_initial && mode_pick == 1;
    m.exclusive = a.exclusive && mode_pick == 2;
    scan_options options(m.decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing,
                         m.exclusive, 1 + static_cast<unsigned>(pick(rng, 3)));
    options.include_initial = m.include_initial;
    options.accuracy = a.accuracy;
    std::vector<std::size_t> out_sizes = sizes;
    out_sizes[axis] += m.include_initial ? 1 : 0;

    // Placement: separate buffers, in place, or the output elsewhere in the input's buffer.
    int overlap = 0;
    if constexpr (std::is_same_v<In, Out>)
      if (a.overlap) overlap = static_cast<int>(pick(rng, 3));
    if (overlap == 1 && m.include_initial) overlap = 2;  // shapes differ: cannot be exactly in place
    const placement in_p = random_placement(rng, sizes, overlap != 1);
    placement out_p = overlap == 1 ? in_p : random_placement(rng, out_sizes, false);
    std::vector<In> in_buffer(in_p.span);
    for (In& v : in_buffer) v = random_value<In>(rng, a.specials, a.exact);
    std::vector<Out> out_buffer;
    if (overlap == 2) {
      out_p.base += static_cast<std::ptrdiff_t>(pick(rng, in_p.span));
      if constexpr (std::is_same_v<In, Out>)
        in_buffer.resize(std::max(in_buffer.size(), static_cast<std::size_t>(out_p.base) + out_p.span),
                         random_value<In>(rng, a.specials));
    } else if (overlap == 0) {
      out_buffer.resize(out_p.span);
      for (Out& v : out_buffer) v = random_value<Out>(rng, a.specials);
    }
    Out* out_data;
    if constexpr (std::is_same_v<In, Out>)
      out_data = overlap ? in_buffer.data() : out_buffer.data();
    else
      out_data = out_buffer.data();
    const std::vector<In> in_before = in_buffer;
    const std::vector<Out> out_before = out_buffer;

    // The oracle reads the input lines before the call.
    std::vector<decltype(expect(std::declval<const std::vector<In>&>(), m))> expected;
    tally_test::for_each_line(rank, sizes.data(), axis, [&](const std::size_t* base) {
      std::vector<std::size_t> index(base, base + rank);
      std::vector<In> line(sizes[axis]);
      for (std::size_t i = 0; i < sizes[axis]; ++i) {
        index[axis] = i;
        line[i] = in_before[static_cast<std::size_t>(in_p.offset(index.data()))];
      }
      expected.push_back(expect(line, m));
    });

    INFO("seed " << seed << " case " << c << " rank " << rank << " axis " << axis_arg << " decreasing "
                 << m.decreasing << " exclusive " << m.exclusive << " include_initial " << m.include_initial
                 << " overlap " << overlap << " threads " << options.threads);
    call(tensor_view<const In>(view_of<const In>(in_buffer.data(), in_p)), view_of<Out>(out_data, out_p), axis_arg,
         options);

    // Every output element, and nothing else written.
    std::vector<bool> is_output(overlap ? in_buffer.size() : out_buffer.size(), false);
    std::size_t line_number = 0;
    bool all_match = true;
    tally_test::for_each_line(rank, sizes.data(), axis, [&](const std::size_t* base) {
      std::vector<std::size_t> index(base, base + rank);
      const auto& want = expected[line_number++];
      for (std::size_t i = 0; i < out_sizes[axis] && all_match; ++i) {
        index[axis] = i;
        const auto at = static_cast<std::size_t>(out_p.offset(index.data()));
        is_output[at] = true;
        if (!match(out_data[at], want[i])) {
          all_match = false;
          FAIL_CHECK("line " << line_number - 1 << " element " << i << ": got " << show(out_data[at]) << ", expected "
                             << show(want[i]));
        }
      }
    });
    if (!all_match) return;
    for (std::size_t k = 0; k < is_output.size(); ++k) {
      if (is_output[k]) continue;
      const bool kept = overlap ? tally_test::same_bits(in_buffer[k], in_before[k])
                                : tally_test::same_bits(out_buffer[k], out_before[k]);
      if (!kept) FAIL("element " << k << " outside the output was written");
    }
    if (!overlap && !tally_test::same_bits(in_buffer, in_before)) FAIL("the input was written");
  }
}

template <class T>
bool bitwise(const T& got, const T& want) {
  return same_value(got, want);
}

/// A complex product is a*c - b*d + i(a*d + b*c): where the compiler fuses multiply-adds
/// (GCC does by default on aarch64), tally's fold and the oracle's, inlined differently,
/// may round a step differently. Same bits, or within 64 eps of the oracle's magnitude.
template <class T>
bool close_complex(const T& got, const T& want) {
  using R = typename T::value_type;
  if (same_value(got, want)) return true;
  return std::isfinite(std::abs(want)) &&
         std::abs(got - want) <= 64 * std::numeric_limits<R>::epsilon() * std::abs(want);
}

// ---------------------------------------------------------------------------------------
// Sums and products into wider types, include_initial, NaN-skipping

template <class In, class Out>
void check_arithmetic(std::uint64_t seed, scan_op op, bool nan) {
  const auto call = [&](tensor_view<const In> in, tensor_view<Out> out, int axis, const scan_options& o) {
    if (nan)
      op == scan_op::sum ? tally::nancumsum<In, Out>(in, out, axis, o) : tally::nancumprod<In, Out>(in, out, axis, o);
    else
      op == scan_op::sum ? tally::cumsum<In, Out>(in, out, axis, o) : tally::cumprod<In, Out>(in, out, axis, o);
  };
  const auto expect = [&](const std::vector<In>& line, line_mode m) {
    return tally_test::arithmetic_line<In, Out>(op, nan, line, m);
  };
  allowed a;
  // Float sums on the SIMD engine's kernels (same types, NaN skipping or not) regroup
  // within the rounding bound: exact data (halves of small integers) makes every order
  // agree bitwise. NaN-skipping scans keep the specials (NaN, infinities, signed zeros).
  if constexpr (std::is_same_v<In, Out> && tally::is_element_type_v<In>) {
    a.exact = true;
    a.specials = nan;
    // float32 and float64: the fast mode here (the SIMD engine's kernels; float products
    // run in sequence, so they are the fold's bits too), the exact mode (the default) as
    // well: its sums are the fold's bits on exact data, its products the exact product
    // rounded once, which the fold in the element type may miss by an ulp.
    if constexpr (std::is_floating_point_v<In>) {
      allowed e = a;
      e.accuracy = tally::scan_accuracy::exact;
      if (op == scan_op::product)
        random_cases<In, Out>(seed + 500, 150, e, call, expect, [](const Out& got, const Out& want) {
          return same_value(got, want) ||
                 (std::isfinite(want) && std::abs(got - want) <= 2 * std::numeric_limits<Out>::epsilon() * std::abs(want));
        });
      else
        random_cases<In, Out>(seed + 500, 150, e, call, expect, bitwise<Out>);
      a.accuracy = tally::scan_accuracy::fast;
    }
  }
  if constexpr (std::is_same_v<Out, std::complex<float>> || std::is_same_v<Out, std::complex<double>>)
    if (op == scan_op::product) return random_cases<In, Out>(seed, 150, a, call, expect, close_complex<Out>);
  random_cases<In, Out>(seed, 150, a, call, expect, bitwise<Out>);
}

TEST_CASE("cumsum and cumprod into a wider type equal the sequential fold in that type (NumPy's dtype=)") {
  check_arithmetic<std::int8_t, std::int64_t>(1, scan_op::sum, false);
  check_arithmetic<std::int8_t, std::int16_t>(2, scan_op::sum, false);
  check_arithmetic<std::uint8_t, std::int32_t>(3, scan_op::product, false);
  check_arithmetic<std::uint16_t, std::uint64_t>(4, scan_op::sum, false);
  check_arithmetic<std::int32_t, std::int64_t>(5, scan_op::product, false);
  check_arithmetic<std::int16_t, float>(6, scan_op::sum, false);
  check_arithmetic<float, double>(7, scan_op::sum, false);
  check_arithmetic<float, double>(8, scan_op::product, false);
  check_arithmetic<tally::half, float>(9, scan_op::sum, false);
  check_arithmetic<tally::bfloat16, double>(10, scan_op::sum, false);
  check_arithmetic<std::complex<float>, std::complex<double>>(11, scan_op::sum, false);
}

TEST_CASE("include_initial on the SIMD engine's cumsum and cumprod: the identity first, in both directions") {
  check_arithmetic<float, float>(20, scan_op::sum, false);
  check_arithmetic<double, double>(21, scan_op::product, false);
  check_arithmetic<std::int32_t, std::int32_t>(22, scan_op::sum, false);
  check_arithmetic<std::uint8_t, std::uint8_t>(23, scan_op::product, false);
  check_arithmetic<tally::half, tally::half>(24, scan_op::sum, false);
}

/// An element for the widening rows: any integer (sums wrap in the output type), or a
/// float's value with, for half and bfloat16, a special now and then (signed zeros,
/// infinities, NaN, subnormals).
template <class In>
In widening_element(rng_t& rng, bool product) {
  if constexpr (std::is_integral_v<In>) {
    return static_cast<In>(rng());
  } else {
    const double v = product ? 0.9 + 0.2 * tally_test::unit(rng) : (tally_test::unit(rng) - 0.5) * 1e3;
    if constexpr (std::is_same_v<In, float>) {
      return static_cast<float>(v);
    } else {
      static const float specials[] = {0.0f, -0.0f, HUGE_VALF, -HUGE_VALF, std::numeric_limits<float>::quiet_NaN(),
                                       1e-6f, -3e-41f};
      return In(tally_test::one_in(rng, 50) ? specials[tally_test::pick(rng, 7)] : static_cast<float>(v));
    }
  }
}

/// cumsum<In, Out> (and cumprod for float -> double) of a rows x cols matrix along `axis`
/// (axis 0: neighbouring lines, the vector rows where the CPU has them; axis 1: lines
/// along memory, the line forms from 16 elements on), both directions, 1 and 2 threads,
/// the output placed `offset` elements into its buffer: the sequential fold in Out's
/// running type, computed here, bitwise.
template <class In, class Out>
void check_widening(int axis, bool product, std::size_t rows, std::size_t cols, std::size_t offset) {
  rng_t rng(40 + rows);
  std::vector<In> x(rows * cols);
  for (In& v : x) v = widening_element<In>(rng, product);
  // The fold: integers in unsigned arithmetic (wrapping), floats in Out.
  using R = typename std::conditional_t<std::is_integral_v<Out>, std::make_unsigned<Out>, std::common_type<Out>>::type;
  const auto widen = [](In v) {
    if constexpr (std::is_integral_v<Out>)
      return static_cast<R>(static_cast<Out>(v));
    else
      return static_cast<R>(static_cast<float>(v));
  };
  std::vector<R> want(x.size());
  std::vector<Out> buffer(x.size() + offset);
  Out* const y = buffer.data() + offset;
  const std::size_t lines = axis == 0 ? cols : rows, length = axis == 0 ? rows : cols;
  for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing}) {
    const bool reverse = direction == tally::axis_direction::decreasing;
    for (std::size_t line = 0; line < lines; ++line) {
      R running{};
      for (std::size_t k = 0; k < length; ++k) {
        const std::size_t i = reverse ? length - 1 - k : k;
        const std::size_t at = axis == 0 ? i * cols + line : line * cols + i;
        const R v = widen(x[at]);
        running = k == 0 ? v : product ? static_cast<R>(running * v) : static_cast<R>(running + v);
        want[at] = running;
      }
    }
    for (const unsigned threads : {1u, 2u}) {
      CAPTURE(axis, product, rows, cols, offset, reverse, threads);
      scan_options o{direction};
      o.threads = threads;
      const tensor_view<const In> in(x.data(), {rows, cols});
      const tensor_view<Out> out(y, {rows, cols});
      product ? tally::cumprod<In, Out>(in, out, axis, o) : tally::cumsum<In, Out>(in, out, axis, o);
      // Bitwise, but any NaN for a NaN: which operand's payload an addition keeps is the
      // compiler's choice (it may commute the reference's additions).
      std::size_t differ = 0;
      for (std::size_t i = 0; i < want.size(); ++i) differ += !same_value(y[i], static_cast<Out>(want[i]));
      CHECK(differ == 0);
    }
  }
}

template <class In, class Out>
void check_widening_shapes(int axis, bool product) {
  for (std::size_t cols : {1, 3, 8, 15, 16, 17, 33, 100}) check_widening<In, Out>(axis, product, 61, cols, 0);
  check_widening<In, Out>(axis, product, 9, 4096 + 21, 0);  // wider than one tile of running values
  check_widening<In, Out>(axis, product, 5, 1000, 3);       // the output off its vectors' alignment
  check_widening<In, Out>(axis, product, 37, 48, 5);         // rows 64 bytes apart, off their alignment
  check_widening<In, Out>(axis, product, 21, 144, 7);
  // 16 MiB of output or more, streamed, one element past a line; then rows a multiple of
  // 64 bytes apart, off their alignment.
  check_widening<In, Out>(axis, product, 2049, (std::size_t{16} << 20) / sizeof(Out) / 2048 + 1, 1);
  check_widening<In, Out>(axis, product, 1025, (std::size_t{16} << 20) / sizeof(Out) / 1024, 3);
}

TEST_CASE("cumsum and cumprod<float, double> across neighbouring lines: the fold in double, bitwise") {
  for (const bool product : {false, true}) check_widening_shapes<float, double>(0, product);
}

TEST_CASE("cumsum into wider integers, half / bfloat16 into float, along either axis: bitwise") {
  for (const int axis : {0, 1}) {
    check_widening_shapes<std::int8_t, std::int64_t>(axis, false);
    check_widening_shapes<std::uint8_t, std::uint16_t>(axis, false);
    check_widening_shapes<std::int8_t, std::int32_t>(axis, false);
    check_widening_shapes<std::uint16_t, std::int32_t>(axis, false);
    check_widening_shapes<std::int16_t, std::int64_t>(axis, false);
    check_widening_shapes<std::int32_t, std::int64_t>(axis, false);
    check_widening_shapes<std::uint32_t, std::uint64_t>(axis, false);
    check_widening_shapes<tally::half, float>(axis, false);
    check_widening_shapes<tally::bfloat16, float>(axis, false);
  }
}

TEST_CASE("nancumsum and nancumprod: NaN counts as +0 and 1, with any output type") {
  check_arithmetic<float, float>(30, scan_op::sum, true);
  check_arithmetic<double, double>(31, scan_op::product, true);
  check_arithmetic<float, double>(32, scan_op::sum, true);
  check_arithmetic<tally::half, tally::half>(33, scan_op::sum, true);
  check_arithmetic<std::int16_t, std::int16_t>(34, scan_op::sum, true);
  check_arithmetic<std::complex<double>, std::complex<double>>(35, scan_op::sum, true);
}

/// n values in [-1.25, 1.25), about one in 13 NaN.
template <class T>
std::vector<T> values_with_nan(rng_t& rng, std::size_t n) {
  std::vector<T> x(n);
  for (T& v : x) v = T(static_cast<float>(tally_test::one_in(rng, 13) ? std::numeric_limits<float>::quiet_NaN()
                                                                      : (tally_test::unit(rng) - 0.5) * 2.5));
  return x;
}

/// x with its NaNs replaced by +0 (sums) or 1 (products).
template <class T>
std::vector<T> nan_replaced(std::vector<T> x, bool product) {
  for (T& v : x)
    if (std::isnan(static_cast<float>(v))) v = T(product ? 1.0f : 0.0f);
  return x;
}

/// nancumsum / nancumprod of T on long lines (several blocks, and a tail under every
/// vector width) and on tiles of neighbouring lines, both directions, in place too: the
/// same bits as cumsum / cumprod of the input with NaN replaced by +0 / 1 (the SIMD
/// engine's kernels run both; along lines, their NaN-replacing form).
template <class T>
void check_nan_skipping_matches_cleaned_input() {
  rng_t rng(36);
  const std::size_t rows = 19, cols = 9001;
  const std::vector<T> x = values_with_nan<T>(rng, rows * cols);
  for (const bool product : {false, true}) {
    const std::vector<T> cleaned = nan_replaced(x, product);
    for (const int axis : {0, 1})
      for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
        for (const bool in_place : {false, true}) {
          INFO("product " << product << " axis " << axis << " decreasing "
                          << (direction == tally::axis_direction::decreasing) << " in place " << in_place);
          std::vector<T> want(x.size()), got = in_place ? x : std::vector<T>(x.size());
          const tensor_view<const T> from(in_place ? got.data() : x.data(), {rows, cols});
          const tensor_view<T> to(got.data(), {rows, cols});
          const tensor_view<const T> clean(cleaned.data(), {rows, cols});
          const tensor_view<T> reference(want.data(), {rows, cols});
          if (product) {
            tally::nancumprod<T>(from, to, axis, {direction});
            tally::cumprod<T>(clean, reference, axis, {direction});
          } else {
            tally::nancumsum<T>(from, to, axis, {direction});
            tally::cumsum<T>(clean, reference, axis, {direction});
          }
          CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0);
        }
  }
}

/// nancumprod along long contiguous lines (the SIMD engine's product kernel on NaN-free
/// pieces) where the running product meets zeros, infinities, huge and subnormal values:
/// the bits of cumprod of the input with NaN replaced by 1, both directions, in place too.
template <class T>
void check_nancumprod_lines_with_extremes() {
  rng_t rng(39);
  const std::size_t rows = 6, cols = 5003;
  const float tiny = std::numeric_limits<float>::denorm_min(), inf = std::numeric_limits<float>::infinity();
  std::vector<T> x(rows * cols), cleaned(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t k = pick(rng, 400);
    const float sign = tally_test::one_in(rng, 2) ? -1.0f : 1.0f;
    x[i] = T(k == 0   ? 0.0f * sign
             : k == 1 ? inf * sign
             : k == 2 ? std::numeric_limits<float>::quiet_NaN()
             : k == 3 ? 1e30f * sign
             : k == 4 ? 1e-30f * sign
             : k == 5 ? tiny * static_cast<float>(1 + pick(rng, 1000)) * sign
                      : static_cast<float>(0.6 + tally_test::unit(rng)) * sign);
    cleaned[i] = k == 2 ? T(1.0f) : x[i];
  }
  for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
    for (const bool in_place : {false, true}) {
      INFO("decreasing " << (direction == tally::axis_direction::decreasing) << " in place " << in_place);
      std::vector<T> got = in_place ? x : std::vector<T>(x.size()), want(x.size());
      tally::cumprod<T>(tensor_view<const T>(cleaned.data(), {rows, cols}), tensor_view<T>(want.data(), {rows, cols}), 1,
                        {direction});
      tally::nancumprod<T>(tensor_view<const T>(in_place ? got.data() : x.data(), {rows, cols}),
                           tensor_view<T>(got.data(), {rows, cols}), 1, {direction});
      CHECK(std::memcmp(got.data(), want.data(), x.size() * sizeof(T)) == 0);
    }
}

TEST_CASE("nancumprod along lines with zeros, infinities, huge and subnormal values: cumprod of the NaN-free input") {
  check_nancumprod_lines_with_extremes<float>();
  check_nancumprod_lines_with_extremes<double>();
  check_nancumprod_lines_with_extremes<tally::half>();
}

TEST_CASE("nancumsum and nancumprod: cumsum / cumprod of the NaN-free input, bitwise") {
  check_nan_skipping_matches_cleaned_input<float>();
  check_nan_skipping_matches_cleaned_input<double>();
  check_nan_skipping_matches_cleaned_input<tally::half>();
}

/// nancumsum / nancumprod in the fast mode on packed short lines (many lines a call: the
/// SIMD engine's short-lines kernel on NaN-free copies), on 1 and 2 threads: the bits of
/// cumsum / cumprod of the input with NaN replaced, in the same mode.
template <class T>
void check_nan_skipping_short_lines() {
  rng_t rng(37);
  for (const std::size_t cols : {2, 3, 4, 5, 7, 8, 12, 16, 24, 33, 64, 256, 300}) {
    const std::size_t rows = (std::size_t{1} << 17) / cols + 37;  // two parts on 2 threads
    const std::vector<T> x = values_with_nan<T>(rng, rows * cols);
    for (const bool product : {false, true}) {
      const std::vector<T> cleaned = nan_replaced(x, product);
      for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
        for (const bool in_place : {false, true})
          for (const unsigned threads : {1u, 2u}) {
            INFO("cols " << cols << " product " << product << " decreasing "
                         << (direction == tally::axis_direction::decreasing) << " in place " << in_place
                         << " threads " << threads);
            tally::scan_options o(direction, false, threads);
            o.accuracy = tally::scan_accuracy::fast;
            std::vector<T> want(x.size()), got = in_place ? x : std::vector<T>(x.size());
            const tensor_view<const T> from(in_place ? got.data() : x.data(), {rows, cols});
            const tensor_view<T> to(got.data(), {rows, cols}), reference(want.data(), {rows, cols});
            const tensor_view<const T> clean(cleaned.data(), {rows, cols});
            if (product) {
              tally::nancumprod<T>(from, to, 1, o);
              tally::cumprod<T>(clean, reference, 1, o);
            } else {
              tally::nancumsum<T>(from, to, 1, o);
              tally::cumsum<T>(clean, reference, 1, o);
            }
            CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0);
          }
    }
  }
}

TEST_CASE("nancumsum and nancumprod, fast mode, packed short lines: cumsum / cumprod of the NaN-free input, bitwise") {
  check_nan_skipping_short_lines<float>();
  check_nan_skipping_short_lines<double>();
  check_nan_skipping_short_lines<tally::half>();
}

// Vector forms on an output large enough to be streamed (16 MiB, at three alignments, 1 and
// 2 threads): cummax, cummin with indices, nancumsum and segmented cumsum equal sequential
// folds bitwise.
TEST_CASE("vector forms on a 16 MiB output (non-temporal stores) equal sequential folds") {
  rng_t rng(37);
  const std::size_t rows = 4100, cols = 1030;  // 16.9 MB of float output: non-temporal stores
  std::vector<float> x(rows * cols);
  std::vector<std::uint8_t> flags(rows * cols);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = tally_test::one_in(rng, 50) ? std::numeric_limits<float>::quiet_NaN()
                                       : static_cast<float>((tally_test::unit(rng) - 0.5) * 4.0);
    flags[i] = tally_test::one_in(rng, 30);
  }
  const tensor_view<const float> in(x.data(), {rows, cols});
  const tensor_view<const std::uint8_t> resets(flags.data(), {rows, cols});
  // Sequential folds down each column, as the scalar loop would do them.
  // (nancumsum in the exact mode, the default: the fold in double, rounded once.)
  std::vector<float> max_want(x.size()), nan_want(x.size()), segment_want(x.size());
  for (std::size_t j = 0; j < cols; ++j) {
    float m = x[j], g = x[j];
    double n = std::isnan(x[j]) ? 0.0 : x[j];
    for (std::size_t k = 0; k < rows; ++k) {
      const float v = x[k * cols + j];
      if (k > 0) {
        m = std::isnan(m) ? m : (std::isnan(v) || v >= m) ? v : m;
        n = n + (std::isnan(v) ? 0.0 : static_cast<double>(v));
        g = flags[k * cols + j] ? v : g + v;
      }
      max_want[k * cols + j] = m, nan_want[k * cols + j] = static_cast<float>(n), segment_want[k * cols + j] = g;
    }
  }
  for (const std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{3}})
    for (const unsigned threads : {1u, 2u}) {
      INFO("output " << shift << " elements past a 64-byte boundary, threads " << threads);
      std::vector<float> buffer(x.size() + 16, 7.0f);
      float* const y = buffer.data() + (16 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 / 4) % 16 + shift;
      const tensor_view<float> out(y, {rows, cols});
      const scan_options o({}, false, threads);
      const auto same = [&](const std::vector<float>& want) {
        return std::memcmp(y, want.data(), want.size() * sizeof(float)) == 0;
      };
      tally::cummax<float>(in, out, 0, o);
      CHECK(same(max_want));
      tally::nancumsum<float>(in, out, 0, o);
      CHECK(same(nan_want));
      tally::cumsum<float>(in, out, 0, resets, o);
      CHECK(same(segment_want));
      // Along the rows: the line kernel streams too; the same bits as cumsum of the NaN-free input.
      std::vector<float> cleaned(x), lines_want(x.size());
      for (float& v : cleaned) v = std::isnan(v) ? 0.0f : v;
      tally::cumsum<float>(tensor_view<const float>(cleaned.data(), {rows, cols}),
                           tensor_view<float>(lines_want.data(), {rows, cols}), 1, o);
      tally::nancumsum<float>(in, out, 1, o);
      CHECK(same(lines_want));
      // cummax along the rows (the line form streams from its first 32-byte boundary).
      std::vector<float> row_max(x.size());
      for (std::size_t k = 0; k < rows; ++k)
        for (std::size_t j = 0; j < cols; ++j) {
          const float v = x[k * cols + j], m = j ? row_max[k * cols + j - 1] : v;
          row_max[k * cols + j] = j == 0 || (!std::isnan(m) && (std::isnan(v) || v >= m)) ? v : m;
        }
      tally::cummax<float>(in, out, 1, o);
      CHECK(same(row_max));
      // With indices (the line form).
      std::vector<std::int64_t> row_at(x.size()), at(x.size());
      for (std::size_t k = 0; k < rows; ++k) {
        float m = 0;
        std::int64_t best = 0;
        for (std::size_t j = 0; j < cols; ++j) {
          const float v = x[k * cols + j];
          if (j == 0 || (!std::isnan(m) && (std::isnan(v) || v >= m))) m = v, best = static_cast<std::int64_t>(j);
          row_at[k * cols + j] = best;
        }
      }
      tally::cummax<float>(in, out, tensor_view<std::int64_t>(at.data(), {rows, cols}), 1, o);
      CHECK(same(row_max));
      CHECK(at == row_at);
    }
  // cummin with indices down the columns, both directions (indices in the input's order).
  for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing}) {
    const bool down = direction == tally::axis_direction::decreasing;
    INFO("cummin with indices, decreasing " << down);
    std::vector<float> values(x.size()), values_want(x.size());
    std::vector<std::int64_t> at(x.size()), at_want(x.size());
    for (std::size_t j = 0; j < cols; ++j) {
      float m = 0;
      std::int64_t i = 0;
      for (std::size_t step = 0; step < rows; ++step) {
        const std::size_t k = down ? rows - 1 - step : step;
        const float v = x[k * cols + j];
        if (step == 0 || (!std::isnan(m) && (std::isnan(v) || v <= m))) m = v, i = static_cast<std::int64_t>(k);
        values_want[k * cols + j] = m, at_want[k * cols + j] = i;
      }
    }
    tally::cummin<float>(in, tensor_view<float>(values.data(), {rows, cols}),
                         tensor_view<std::int64_t>(at.data(), {rows, cols}), 0, {direction});
    CHECK(std::memcmp(values.data(), values_want.data(), x.size() * sizeof(float)) == 0);
    CHECK(at == at_want);
  }
}

/// The row forms (segmented cumsum / cumprod, nancumsum / nancumprod, cummax / cummin
/// values; integers: sums and cummax / cummin) down the columns of a rows x cols matrix whose output starts `shift` elements
/// past a 64-byte boundary, both directions: each column the sequential fold, bitwise.
/// Widths around every vector width (4, 8, 16 lanes) leave every partial step. (One
/// column is a contiguous line: the line forms, which regroup sums.)
template <class T>
void check_row_forms(std::size_t rows, std::size_t cols, std::size_t shift, unsigned threads) {
  const auto is_nan = [](T v) { return v != v; };
  rng_t rng(41 + cols);
  std::vector<T> x(rows * cols);
  std::vector<std::uint8_t> flags(x.size());
  constexpr bool is_float = std::is_floating_point_v<T>;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (is_float)
      x[i] = tally_test::one_in(rng, 40) ? std::numeric_limits<T>::quiet_NaN()
                                         : static_cast<T>(0.5 + tally_test::unit(rng));
    else  // small values of either sign (unsigned: wrapped, near both ends): many ties
      x[i] = static_cast<T>(static_cast<int>(pick(rng, 101)) - 50);
    flags[i] = tally_test::one_in(rng, 7) ? static_cast<std::uint8_t>(1 + pick(rng, 255)) : 0;
  }
  std::vector<T> buffer(x.size() + 64 / sizeof(T) + shift);
  T* const y = buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64) % 64 / sizeof(T) + shift;
  const tensor_view<const T> in(x.data(), {rows, cols});
  const tensor_view<T> out(y, {rows, cols});
  const tensor_view<const std::uint8_t> resets(flags.data(), {rows, cols});
  // The NaN-skipping forms in both modes: the fast one folds in T, the exact one (the
  // default for float32 and float64) in double for float32, with a compensated pair
  // (TwoSum; an FMA's product error) for float64, rounded once per output.
  enum form { segmented_sum, segmented_product, nan_sum, nan_product, exact_nan_sum, exact_nan_product, max, min };
  for (const form f : {segmented_sum, segmented_product, nan_sum, nan_product, exact_nan_sum, exact_nan_product, max, min})
    for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing}) {
      if (!is_float && f != segmented_sum && f != nan_sum && f != max && f != min) continue;  // integer products overflow
      const bool down = direction == tally::axis_direction::decreasing;
      const bool exact = f == exact_nan_sum || f == exact_nan_product;
      std::vector<T> want(x.size());
      for (std::size_t j = 0; j < cols; ++j) {
        T running{};
        double high = 0, low = -0.0;  // the exact forms' running value (float32: high alone)
        for (std::size_t step = 0; step < rows; ++step) {
          const std::size_t at = (down ? rows - 1 - step : step) * cols + j;
          const T v = x[at], clean = is_nan(v) ? T(f == nan_sum || f == exact_nan_sum ? 0 : 1) : v;
          const bool first = step == 0;
          switch (f) {
            case segmented_sum: running = first || flags[at] ? v : static_cast<T>(running + v); break;
            case segmented_product: running = first || flags[at] ? v : running * v; break;
            case nan_sum: running = first ? clean : static_cast<T>(running + clean); break;
            case nan_product: running = first ? clean : running * clean; break;
            case exact_nan_sum:
            case exact_nan_product:
              if (first) {
                high = static_cast<double>(clean);
              } else if (f == exact_nan_sum) {
                const double t = high + static_cast<double>(clean), part = t - high;
                if (!std::is_same_v<T, float>) low += (high - (t - part)) + (static_cast<double>(clean) - part);
                high = t;
              } else {
                const double t = high * static_cast<double>(clean);
                if (!std::is_same_v<T, float>)
                  low = std::fma(low, static_cast<double>(clean), std::fma(high, static_cast<double>(clean), -t));
                high = t;
              }
              running = static_cast<T>(std::isfinite(high) && low != 0 ? high + low : high);
              break;
            case max: running = first || (!is_nan(running) && (is_nan(v) || v >= running)) ? v : running; break;
            case min: running = first || (!is_nan(running) && (is_nan(v) || v <= running)) ? v : running; break;
          }
          want[at] = running;
        }
      }
      scan_options o(direction, false, threads);
      o.accuracy = exact ? tally::scan_accuracy::exact : tally::scan_accuracy::fast;
      switch (f) {
        case segmented_sum: tally::cumsum<T>(in, out, 0, resets, o); break;
        case segmented_product: tally::cumprod<T>(in, out, 0, resets, o); break;
        case nan_sum: case exact_nan_sum: tally::nancumsum<T>(in, out, 0, o); break;
        case nan_product: case exact_nan_product: tally::nancumprod<T>(in, out, 0, o); break;
        case max: tally::cummax<T>(in, out, 0, o); break;
        case min: tally::cummin<T>(in, out, 0, o); break;
      }
      INFO("form " << f << ", " << rows << " x " << cols << ", output " << shift << " elements past a 64-byte boundary, "
                   << threads << " threads, decreasing " << down);
      CHECK(std::memcmp(y, want.data(), want.size() * sizeof(T)) == 0);
    }
}

TEST_CASE("row forms (segmented, NaN-skipping, cummax / cummin) down the columns: every width, the sequential fold") {
  for (std::size_t cols = 2; cols <= 40; ++cols) {
    check_row_forms<float>(9, cols, cols % 3, 1);
    check_row_forms<double>(9, cols, cols % 3, 1);
  }
  for (const std::size_t cols : {std::size_t{3}, std::size_t{9}, std::size_t{17}, std::size_t{33}, std::size_t{65}}) {
    check_row_forms<std::int8_t>(9, cols, cols % 3, 1);
    check_row_forms<std::uint8_t>(9, cols, cols % 3, 1);
    check_row_forms<std::int16_t>(9, cols, cols % 3, 1);
    check_row_forms<std::uint16_t>(9, cols, cols % 3, 1);
    check_row_forms<std::int32_t>(9, cols, cols % 3, 1);
    check_row_forms<std::uint32_t>(9, cols, cols % 3, 1);
    check_row_forms<std::int64_t>(9, cols, cols % 3, 1);
    check_row_forms<std::uint64_t>(9, cols, cols % 3, 1);
  }
  check_row_forms<float>(9, 4100, 1, 2);  // wider than one tile
  // Outputs of 16 MiB and more: the non-temporal stores from a vector boundary.
  check_row_forms<double>(520, 4100, 1, 1);
  check_row_forms<double>(520, 4100, 0, 2);
  check_row_forms<std::int64_t>(520, 4100, 1, 1);
  check_row_forms<std::int32_t>(1040, 4100, 1, 1);
}

/// cummax / cummin down `cols` narrow columns (a row per vector: 32 or 64 bytes of lanes;
/// or per two, overlapping, where a row is longer than one and shorter than two),
/// in the layouts that take its whole-vector and its masked rows: packed, padded rows
/// (the input's and the output's own padding), in place, and packed with padded index
/// rows, both directions. Values from a few, with -0.0 / +0.0 ties and NaN for floats:
/// each column is the sequential fold (`indices`: with indices too, in their own layout).
template <class T>
void check_narrow_extremum_columns(std::size_t rows, std::size_t cols, bool indices = std::is_same_v<T, float>) {
  const auto is_nan = [](T v) { return v != v; };
  rng_t rng(97 + cols);
  const std::size_t in_pitch = cols + 3, out_pitch = cols + 5;
  std::vector<T> x(rows * in_pitch);
  for (T& v : x) {
    if constexpr (std::is_floating_point_v<T>) {
      const T few[] = {T(-0.0), T(0.0), T(1), T(-2), T(3), std::numeric_limits<T>::quiet_NaN()};
      v = tally_test::one_in(rng, 60) ? few[5] : few[pick(rng, 5)];
    } else {
      v = static_cast<T>(static_cast<int>(pick(rng, 41)) - 20);
    }
  }
  enum layout { packed, padded, in_place, padded_indices };  // padded_indices: packed values
  for (const layout l : {packed, padded, in_place, padded_indices})
    for (const bool max : {true, false})
      for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing}) {
        const bool down = direction == tally::axis_direction::decreasing;
        const std::size_t ip = l == padded ? in_pitch : cols, op = l == padded ? out_pitch : cols;
        std::vector<T> input(rows * ip), output(rows * op + 1);  // one more: nothing written past the end
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t j = 0; j < cols; ++j) input[i * ip + j] = x[i * in_pitch + j];
        const std::size_t xp = l == padded || l == padded_indices ? cols + 2 : cols;  // the indices' rows
        std::vector<T> want(output);
        std::vector<std::int64_t> at(rows * xp + 1, -7), at_want(at);
        for (std::size_t j = 0; j < cols; ++j) {
          T running{};
          std::int64_t where = -1;
          for (std::size_t step = 0; step < rows; ++step) {
            const std::size_t i = down ? rows - 1 - step : step;
            const T v = input[i * ip + j];
            const bool take = step == 0 || (!is_nan(running) && (is_nan(v) || (max ? v >= running : v <= running)));
            if (take) running = v, where = static_cast<std::int64_t>(i);
            want[i * op + j] = running;
            at_want[i * xp + j] = where;
          }
        }
        if (l == in_place) output.assign(input.begin(), input.end()), output.push_back(T());
        const T* const source = l == in_place ? output.data() : input.data();
        const tensor_view<const T> in(source, {rows, cols}, {static_cast<std::ptrdiff_t>(ip), 1});
        const tensor_view<T> out(output.data(), {rows, cols}, {static_cast<std::ptrdiff_t>(op), 1});
        const scan_options o(direction, false, 1);
        const tensor_view<std::int64_t> index(at.data(), {rows, cols}, {static_cast<std::ptrdiff_t>(xp), 1});
        if (indices)
          max ? tally::cummax<T>(in, out, index, 0, o) : tally::cummin<T>(in, out, index, 0, o);
        else
          max ? tally::cummax<T>(in, out, 0, o) : tally::cummin<T>(in, out, 0, o);
        INFO(rows << " x " << cols << ", layout " << l << ", max " << max << ", decreasing " << down << ", indices "
                  << indices);
        CHECK(std::memcmp(output.data(), want.data(), want.size() * sizeof(T)) == 0);
        if (indices) CHECK(at == at_want);
      }
}

TEST_CASE("cummax / cummin down columns (narrow: a row per vector or two), with and without indices: the sequential fold") {
  for (std::size_t cols = 1; cols <= 33; ++cols) {
    const std::size_t rows = 150 + cols % 4;
    check_narrow_extremum_columns<float>(rows, cols);
    check_narrow_extremum_columns<double>(rows, cols);
    check_narrow_extremum_columns<double>(rows, cols, true);  // 4 lanes a step, the last 1 to 3 lines masked
    check_narrow_extremum_columns<std::int16_t>(rows, cols);
    check_narrow_extremum_columns<std::uint16_t>(rows, cols);
    check_narrow_extremum_columns<std::int32_t>(rows, cols);
    check_narrow_extremum_columns<std::uint32_t>(rows, cols);
    check_narrow_extremum_columns<std::int64_t>(rows, cols);
    check_narrow_extremum_columns<std::uint64_t>(rows, cols);
  }
  // Rows between one vector and two (two whole vectors a row, overlapping) of bytes and
  // 16-bit elements: 33 to 63 bytes with AVX2, 65 to 127 with AVX-512.
  for (std::size_t cols : {std::size_t{40}, std::size_t{63}, std::size_t{65}, std::size_t{100}, std::size_t{127}}) {
    check_narrow_extremum_columns<std::int8_t>(150, cols);
    check_narrow_extremum_columns<std::uint8_t>(150, cols);
    check_narrow_extremum_columns<std::int16_t>(150, cols);
  }
  // In place, the rows are read from a copy, 4 KiB of rows at a time: tiles of several.
  for (std::size_t cols : {std::size_t{1}, std::size_t{3}, std::size_t{5}, std::size_t{8}}) {
    check_narrow_extremum_columns<float>(2100 + cols, cols);
    check_narrow_extremum_columns<double>(2100 + cols, cols);
    check_narrow_extremum_columns<double>(2100 + cols, cols, true);
    check_narrow_extremum_columns<std::int16_t>(2100 + cols, cols);
    check_narrow_extremum_columns<std::uint64_t>(2100 + cols, cols);
  }
  // Wider than one tile (4096 lines), with indices.
  check_narrow_extremum_columns<float>(5, 4100);
  check_narrow_extremum_columns<double>(5, 4103, true);
}

/// cummax / cummin with indices of 24 lines of `cols` elements of T, against the sequential fold.
template <class T>
void check_extremum_index_lines(rng_t& rng, std::size_t cols) {
  const std::size_t rows = 24;
  // Few distinct values (ties) and signed zeros; every third line holds NaN: one as its last
  // element or the third from last (in the masked tail when there is one), one in the
  // middle, or several.
  std::vector<T> x(rows * cols);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = tally_test::one_in(rng, 8) ? (tally_test::one_in(rng, 2) ? -T(0) : T(0))
                                      : static_cast<T>(static_cast<int>(pick(rng, 9)) - 4) +
                                            static_cast<T>(i / cols % 2) * T(0.25);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t line = 0; line < rows; line += 3) {
    T* const l = x.data() + line * cols;
    switch (line / 3 % 4) {
      case 0: l[cols - 1] = nan; break;
      case 1: l[cols - 1 - (std::min)(cols - 1, std::size_t{2})] = nan; break;
      case 2: l[cols / 2] = nan; break;
      default:
        for (std::size_t k = 0; k < cols; ++k)
          if (tally_test::one_in(rng, cols > 64 ? 300 : 6)) l[k] = nan;
    }
  }
  std::vector<T> values(x.size() + 64);
  std::vector<std::int64_t> at(x.size() + 64);
  for (const bool max : {true, false})
    for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
      for (const bool mirrored : {false, true})  // views with stride -1 along the line: a decreasing scan steps +1
        for (const std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{7}})
          for (const std::size_t index_shift : {std::size_t{0}, std::size_t{1}}) {
            const bool down = direction == tally::axis_direction::decreasing;
            INFO((sizeof(T) == 4 ? "float" : "double") << " line " << cols << " max " << max << " decreasing " << down
                                                       << " mirrored " << mirrored << " value shift " << shift
                                                       << " index shift " << index_shift);
            std::fill(values.begin(), values.end(), T(9));
            std::fill(at.begin(), at.end(), -7);
            T* const y = values.data() + shift;
            std::int64_t* const i = at.data() + index_shift;
            const std::ptrdiff_t step = mirrored ? -1 : 1, first = mirrored ? static_cast<std::ptrdiff_t>(cols) - 1 : 0;
            const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(cols);
            const tensor_view<const T> in(x.data() + first, {rows, cols}, {row, step});
            const tensor_view<T> v(y + first, {rows, cols}, {row, step});
            const tensor_view<std::int64_t> ix(i + first, {rows, cols}, {row, step});
            const scan_options o(direction);
            max ? tally::cummax<T>(in, v, ix, 1, o) : tally::cummin<T>(in, v, ix, 1, o);
            std::size_t bad = 0;
            for (std::size_t r = 0; r < rows; ++r) {
              const auto offset = [&](std::size_t k) {
                return static_cast<std::ptrdiff_t>(r * cols) + first + step * static_cast<std::ptrdiff_t>(k);
              };
              T m = 0;
              std::int64_t best = 0;
              for (std::size_t s = 0; s < cols; ++s) {
                const std::size_t k = down ? cols - 1 - s : s;  // the logical position
                const T e = x[static_cast<std::size_t>(offset(k))];
                if (s == 0 || (!std::isnan(m) && (std::isnan(e) || (max ? e >= m : e <= m))))
                  m = e, best = static_cast<std::int64_t>(k);
                const std::size_t o_at = static_cast<std::size_t>(offset(k));
                bad += std::memcmp(&y[o_at], &m, sizeof m) != 0 || i[o_at] != best;
              }
            }
            CHECK(bad == 0);
            CHECK(values[shift + rows * cols] == T(9));  // nothing written outside the outputs
            CHECK(at[index_shift + rows * cols] == -7);
            CHECK((shift == 0 || values[shift - 1] == T(9)));
            CHECK((index_shift == 0 || at[index_shift - 1] == -7));
          }
}

TEST_CASE("cummax / cummin with indices along contiguous lines (the line form): the sequential fold's values and indices") {
  rng_t rng(38);
  // Lines whose last vector is whole or 1 to 7 (float) or 1 to 3 (double) elements (the
  // masked tail) long, and long ones; doubles take the vector form from 48 elements on.
  for (const std::size_t cols : {2, 4, 8, 9, 10, 12, 15, 16, 17, 23, 1030}) check_extremum_index_lines<float>(rng, cols);
  for (const std::size_t cols : {2, 47, 48, 49, 50, 51, 1030}) check_extremum_index_lines<double>(rng, cols);
}

/// A value for the packed-lines test: for floats ties, signed zeros, and NaN of distinct
/// payloads in some lines only (the first NaN's bits stick); for integers few distinct
/// values on both sides of the top bit, where a signed / unsigned compare mix-up shows.
template <class T>
T extremum_test_value(rng_t& rng, std::size_t line) {
  if constexpr (std::is_floating_point_v<T>) {
    if (line % 3 == 1 && tally_test::one_in(rng, 20)) {
      using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      const auto quiet = static_cast<U>(sizeof(T) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull);
      const U bits = quiet | static_cast<U>(pick(rng, 1u << 20));
      T nan;
      std::memcpy(&nan, &bits, sizeof nan);
      return nan;
    }
    if (tally_test::one_in(rng, 8)) return tally_test::one_in(rng, 2) ? -T(0) : T(0);
    return static_cast<T>(static_cast<int>(pick(rng, 9)) - 4) * (line % 2 ? T(0.5) : T(1));
  } else {
    using U = std::make_unsigned_t<T>;
    const U bits = static_cast<U>(static_cast<U>(U{1} << (8 * sizeof(T) - 1)) + static_cast<U>(pick(rng, 9)) - U{4});
    T value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
}

template <class T>
bool extremum_test_is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(x);
  else
    return (void)x, false;
}

/// cummax / cummin along packed lines (and mirrored ones, rows upwards, in place, on 1
/// and 2 threads) against the sequential fold. `indices`: with the index output too, laid
/// out as the values (the multi-line form takes it) or packed upwards whatever the values
/// do (the lines go one at a time where that differs).
template <class T>
void check_extremum_packed_lines(std::uint64_t seed, bool indices = false) {
  rng_t rng(seed);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (const std::size_t n : {47, 63, 64, 65, 100, 257}) lengths.push_back(n);
  const T guard = static_cast<T>(9);
  const std::int64_t index_guard = -7;
  for (const std::size_t n : lengths) {
    const std::size_t rows = 1 + (700 + n) / n;  // at least a few vectors, rarely a whole number of them
    std::vector<T> x(rows * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = extremum_test_value<T>(rng, i / n);
    std::vector<T> y(x.size() + 16);
    std::vector<std::int64_t> at_index(x.size() + 16);
    for (const bool max : {true, false})
      for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
        for (const int strides : {0, 1, 2, 3})
          for (const bool in_place : {false, true})
            for (const unsigned threads : {1u, 2u})
              for (const int index_layout : {0, 1, 2}) {  // none, as the values, packed upwards
                if ((index_layout != 0) != indices) continue;
                const bool down = direction == tally::axis_direction::decreasing;
                const bool mirrored = strides & 1;      // lines with stride -1
                const bool rows_upwards = strides & 2;  // the first line last in memory
                INFO("n " << n << " max " << max << " decreasing " << down << " mirrored " << mirrored
                          << " rows upwards " << rows_upwards << " in place " << in_place << " threads " << threads
                          << " index layout " << index_layout);
                std::fill(y.begin(), y.end(), guard);
                std::fill(at_index.begin(), at_index.end(), index_guard);
                if (in_place) std::copy(x.begin(), x.end(), y.begin());
                const auto length = static_cast<std::ptrdiff_t>(n);
                const std::ptrdiff_t step = mirrored ? -1 : 1, first = mirrored ? length - 1 : 0;
                const std::ptrdiff_t row = rows_upwards ? -length : length;
                const std::ptrdiff_t origin = first + (rows_upwards ? static_cast<std::ptrdiff_t>((rows - 1) * n) : 0);
                const tensor_view<const T> in((in_place ? y.data() : x.data()) + origin, {rows, n}, {row, step});
                const tensor_view<T> out(y.data() + origin, {rows, n}, {row, step});
                const scan_options o(direction, false, threads);
                if (index_layout == 0) {
                  max ? tally::cummax<T>(in, out, 1, o) : tally::cummin<T>(in, out, 1, o);
                } else {
                  const tensor_view<std::int64_t> index =
                      index_layout == 1 ? tensor_view<std::int64_t>(at_index.data() + origin, {rows, n}, {row, step})
                                        : tensor_view<std::int64_t>(at_index.data(), {rows, n});
                  max ? tally::cummax<T>(in, out, index, 1, o) : tally::cummin<T>(in, out, index, 1, o);
                }
                std::size_t bad = 0, bad_index = 0;
                for (std::size_t r = 0; r < rows; ++r) {
                  T m{};
                  std::int64_t m_at = -1;
                  for (std::size_t s = 0; s < n; ++s) {
                    const std::size_t k = down ? n - 1 - s : s;  // the logical position
                    const auto at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(r * n) + first +
                                                             step * static_cast<std::ptrdiff_t>(k));
                    const T e = x[at];
                    if (s == 0 ||
                        (!extremum_test_is_nan(m) && (extremum_test_is_nan(e) || (max ? e >= m : e <= m)))) {
                      m = e;
                      m_at = static_cast<std::int64_t>(k);
                    }
                    bad += std::memcmp(&y[at], &m, sizeof m) != 0;
                    const std::size_t logical_row = rows_upwards ? rows - 1 - r : r;
                    if (index_layout != 0) bad_index += at_index[index_layout == 1 ? at : logical_row * n + k] != m_at;
                  }
                }
                CHECK(bad == 0);
                CHECK(bad_index == 0);
                CHECK(y[rows * n] == guard);  // nothing written past the output
                CHECK(at_index[rows * n] == index_guard);
              }
  }
}

TEST_CASE("cummax / cummin values along packed lines of every length (one stream of vectors): the sequential fold") {
  check_extremum_packed_lines<float>(39);
  check_extremum_packed_lines<double>(40);
  check_extremum_packed_lines<std::int32_t>(41);
  check_extremum_packed_lines<std::uint32_t>(42);
  check_extremum_packed_lines<std::int64_t>(43);
  check_extremum_packed_lines<std::uint64_t>(44);
  check_extremum_packed_lines<std::int16_t>(45);  // (no vector form: the engine's loops)
}

TEST_CASE("cummax / cummin with indices along packed lines of every length (one stream): the sequential fold") {
  check_extremum_packed_lines<float>(46, true);
  check_extremum_packed_lines<double>(47, true);
}

TEST_CASE("complex and bfloat16 cumsum and cumprod") {
  check_arithmetic<std::complex<float>, std::complex<float>>(40, scan_op::sum, false);
  check_arithmetic<std::complex<double>, std::complex<double>>(41, scan_op::product, false);
  check_arithmetic<tally::bfloat16, tally::bfloat16>(42, scan_op::sum, false);
  check_arithmetic<tally::bfloat16, float>(43, scan_op::product, false);
}

TEST_CASE("nancumsum of an all-NaN line writes +0 (NumPy replaces NaN by 0), a line of -0.0 keeps -0.0") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, -0.0f, nan};
  std::vector<float> y(3, 7.0f);
  tally::nancumsum<float>(tensor_view<const float>(x.data(), {3}), tensor_view<float>(y.data(), {3}), 0);
  CHECK(tally_test::same_bits(y, tally_test::arithmetic_line<float, float>(scan_op::sum, true, x, {})));
  CHECK_FALSE(std::signbit(y[0]));
  const std::vector<float> z = {-0.0f, -0.0f};
  tally::nancumsum<float>(tensor_view<const float>(z.data(), {2}), tensor_view<float>(y.data(), {2}), 0);
  CHECK(std::signbit(y[1]));
}

// ---------------------------------------------------------------------------------------
// logcumsumexp

template <class T>
void check_logcumsumexp(std::uint64_t seed) {
  const auto call = [](tensor_view<const T> in, tensor_view<T> out, int axis, const scan_options& o) {
    tally::logcumsumexp<T>(in, out, axis, o);
  };
  const auto expect = [](const std::vector<T>& line, line_mode m) {
    const std::vector<long double> wide = tally_test::logcumsumexp_line(line, m);
    std::vector<long double> out(wide.begin(), wide.end());
    return out;
  };
  // Within 4 ulp of T (the engine keeps a double and rounds once per output; for double
  // outputs each of the n steps may add an ulp of the running value, hence n ulp).
  const auto match = [](const T& got, long double want) {
    const double g = tally_test::to_double(got);
    if (std::isnan(want)) return std::isnan(g);
    if (std::isinf(want)) return g == static_cast<double>(want);
    constexpr int digits = std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24
                           : std::is_same_v<T, tally::half> ? 11 : 8;
    // Ulps of the result, or of the inputs' scale (|x| <= 4 here) when the result is
    // smaller: max + log1p(...) cancels near 0, where only absolute accuracy exists.
    const double scale = std::max(std::fabs(static_cast<double>(want)), 4.0);
    const long double ulp = std::ldexp(1.0L, std::ilogb(scale) - digits + 1);
    const long double slack = std::is_same_v<T, double> ? 140.0L : 4.0L;  // lines are at most 140 long
    return std::fabs(static_cast<long double>(g) - want) <= slack * ulp;
  };
  random_cases<T, T>(seed, 150, allowed{}, call, expect,
                     [&](const T& got, long double want) { return match(got, want); });
}

// random_cases compares outputs of type Out with expected values of the expect's type.
TEST_CASE("logcumsumexp within a few ulp of the long double prefix formula; -inf, +inf and NaN rules") {
  check_logcumsumexp<float>(50);
  check_logcumsumexp<double>(51);
  check_logcumsumexp<tally::half>(52);
  check_logcumsumexp<tally::bfloat16>(53);
}

TEST_CASE("logcumsumexp special values: -inf is the identity, +inf absorbs, NaN propagates") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {-inf, -inf, 0.0f, inf, 1.0f, -inf, nan, 2.0f};
  std::vector<float> y(x.size());
  tally::logcumsumexp<float>(tensor_view<const float>(x.data(), {x.size()}), tensor_view<float>(y.data(), {y.size()}),
                             0);
  const std::vector<long double> want = tally_test::logcumsumexp_line(x, {});
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(want[i]))
      CHECK(std::isnan(y[i]));
    else
      CHECK(static_cast<long double>(y[i]) == want[i]);  // -inf, 0 (exactly log(1)) and +inf
  }
  // Large values do not overflow: log(exp(1000) + exp(1000)) = 1000 + log 2.
  const std::vector<double> big = {1000.0, 1000.0};
  std::vector<double> r(2);
  tally::logcumsumexp<double>(tensor_view<const double>(big.data(), {2}), tensor_view<double>(r.data(), {2}), 0);
  CHECK(std::fabs(r[1] - (1000.0 + std::log(2.0))) <= 1e-12);
}

/// logcumsumexp of one line in long double, sequentially (hi + log1p(exp(lo - hi)) per
/// step, the rules of the spec for infinities and NaN): an O(n) oracle for long lines,
/// independent of tally's (base, sum) state.
template <class T>
std::vector<long double> sequential_logcumsumexp(const std::vector<T>& x) {
  const long double inf = std::numeric_limits<long double>::infinity();
  std::vector<long double> y;
  long double r = -inf;
  for (const T& e : x) {
    const long double v = tally_test::to_double(e);
    const long double hi = std::max(r, v), lo = std::min(r, v);
    if (std::isnan(r) || std::isnan(v))
      r = std::numeric_limits<long double>::quiet_NaN();
    else if (!(std::isinf(lo) && lo == hi) && hi != inf)
      r = hi + std::log1p(std::exp(lo - hi));
    else
      r = hi;
    y.push_back(r);
  }
  return y;
}

/// `ulps` of T at the scale of max(|want|, `floor`): the vector forms' bound.
template <class T>
void check_logcumsumexp_vector_paths(tally::scan_accuracy accuracy = tally::scan_accuracy::exact, long double ulps = 8,
                                     long double floor = 4) {
  rng_t rng(55);
  const auto value = [&](std::size_t i) -> T {
    switch (tally_test::pick(rng, 400)) {  // rare specials and jumps that rebase
      case 0: return std::numeric_limits<T>::infinity();
      case 1: return -std::numeric_limits<T>::infinity();
      case 2: return std::numeric_limits<T>::quiet_NaN();
      case 3: return static_cast<T>(100 + static_cast<double>(i) * 0.5);
      default: return static_cast<T>(std::uniform_real_distribution<double>(-3, 3)(rng) + static_cast<double>(i % 700) * 0.2);
    }
  };
  // Within 4 ulp of T of the result or of the inputs' scale (the vector paths use their own
  // exp and log, within an ulp of libm's; double sums of a long line add a few ulp more).
  const auto close_enough = [&](T got, long double want) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return static_cast<long double>(got) == want;
    const long double scale = std::max(std::fabs(want), floor);
    const int digits = std::numeric_limits<T>::digits;
    return std::fabs(static_cast<long double>(got) - want) <= ulps * std::ldexp(1.0L, std::ilogb(scale) - digits + 1);
  };
  // Long lines and wide rows; packed short lines (gathered tiles, a first vector or row
  // that starts from its first element) and narrow columns.
  const std::pair<std::size_t, std::size_t> shapes[] = {{37, 3000}, {37, 1027}, {700, 1}, {700, 2}, {700, 3},
                                                        {700, 5},   {700, 8},   {700, 15}, {700, 16}, {700, 17},
                                                        {300, 31},  {300, 33},  {300, 64}, {100, 65}};
  for (const auto& shape : shapes) {
    const std::size_t rows = shape.first, cols = shape.second;  // (lambdas below capture them: no bindings)
    std::vector<T> x(rows * cols);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = value(i % cols);
    for (const bool in_place : {false, true})
      for (const int axis : {0, 1})
        for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing}) {
          INFO("rows " << rows << " cols " << cols << " axis " << axis << " decreasing " << (direction == tally::axis_direction::decreasing)
                       << " in place " << in_place);
          std::vector<T> y = in_place ? x : std::vector<T>(x.size());
          const T* in = in_place ? y.data() : x.data();
          tally::scan_options options(direction);
          options.accuracy = accuracy;
          tally::logcumsumexp<T>(tensor_view<const T>(in, {rows, cols}), tensor_view<T>(y.data(), {rows, cols}), axis,
                                 options);
          std::size_t bad = 0;
          const std::size_t lines = axis == 1 ? rows : cols, length = axis == 1 ? cols : rows;
          for (std::size_t l = 0; l < lines; ++l) {
            const auto at = [&](std::size_t k) {
              const std::size_t along = direction == tally::axis_direction::decreasing ? length - 1 - k : k;
              return axis == 1 ? l * cols + along : along * cols + l;
            };
            std::vector<T> line(length);
            for (std::size_t k = 0; k < length; ++k) line[k] = x[at(k)];
            const std::vector<long double> want = sequential_logcumsumexp(line);
            for (std::size_t k = 0; k < length; ++k) bad += !close_enough(y[at(k)], want[k]);
          }
          CHECK(bad == 0);
        }
  }
}

// Long contiguous lines both ways, tiles of neighbouring lines, in place; infinities, NaN
// and jumps that rebase.
TEST_CASE("logcumsumexp's vector forms match a sequential long double fold") {
  check_logcumsumexp_vector_paths<float>();
  check_logcumsumexp_vector_paths<double>();
  // scan_accuracy::fast: float's exp and log (AVX2, AVX-512), within 4 ulp of float at the
  // scale of max(|y|, 1); double elements keep their double form.
  check_logcumsumexp_vector_paths<float>(tally::scan_accuracy::fast, 4, 1);
  check_logcumsumexp_vector_paths<double>(tally::scan_accuracy::fast);
}

// The fast form's exp and log at the ends of their domains: differences from -100 (terms
// that vanish) to +63 (the largest that does not rebase), sums from 1 to about 1e30, and
// elements near 1e4 (whose differences must be taken exactly), along lines and across rows.
TEST_CASE("logcumsumexp's fast form keeps its bound over the whole range of exp and log") {
  rng_t rng(71);
  const std::size_t rows = 67, cols = 1029;
  std::vector<std::vector<float>> inputs(4, std::vector<float>(rows * cols));
  for (std::size_t i = 0; i < rows * cols; ++i) {
    inputs[0][i] = 0.5f;                                                // sums growing to 1029
    inputs[1][i] = -3.0f * static_cast<float>(i % cols + i / cols);     // terms that vanish
    inputs[2][i] = std::uniform_real_distribution<float>(-100, 63)(rng);  // every difference
    inputs[3][i] = 1e4f + std::uniform_real_distribution<float>(-3, 3)(rng);
  }
  for (std::size_t i = 0; i < rows * cols; i += cols) inputs[2][i] = 0;  // a first element to rebase from
  for (std::size_t c = 0; c < cols; ++c) inputs[2][c] = 0;
  for (std::size_t which = 0; which < inputs.size(); ++which)
    for (const int axis : {0, 1}) {
      INFO("input " << which << " axis " << axis);
      const std::vector<float>& x = inputs[which];
      std::vector<float> y(x.size());
      tally::scan_options options;
      options.accuracy = tally::scan_accuracy::fast;
      tally::logcumsumexp<float>(tensor_view<const float>(x.data(), {rows, cols}), tensor_view<float>(y.data(), {rows, cols}),
                                 axis, options);
      const std::size_t lines = axis == 1 ? rows : cols, length = axis == 1 ? cols : rows;
      long double worst = 0;  // in ulps of float at the scale of max(|want|, 1)
      for (std::size_t l = 0; l < lines; ++l) {
        const auto at = [&](std::size_t k) { return axis == 1 ? l * cols + k : k * cols + l; };
        std::vector<float> line(length);
        for (std::size_t k = 0; k < length; ++k) line[k] = x[at(k)];
        const std::vector<long double> want = sequential_logcumsumexp(line);
        for (std::size_t k = 0; k < length; ++k) {
          const long double scale = std::ldexp(1.0L, std::ilogb(std::max(std::fabs(want[k]), 1.0L)) - 23);
          worst = std::max(worst, std::fabs(static_cast<long double>(y[at(k)]) - want[k]) / scale);
        }
      }
      CHECK(worst <= 4);
    }
}

// ---------------------------------------------------------------------------------------
// cummax / cummin

template <class T>
void check_extremum(std::uint64_t seed, bool max) {
  rng_t rng(seed);
  for (int c = 0; c < 200; ++c) {
    const std::vector<std::size_t> sizes = random_sizes(rng);
    const std::size_t rank = sizes.size(), axis = pick(rng, rank);
    const bool decreasing = tally_test::one_in(rng, 2), with_indices = !tally_test::one_in(rng, 4);
    scan_options options(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing, false,
                         1 + static_cast<unsigned>(pick(rng, 3)));
    const int overlap = static_cast<int>(pick(rng, 3));  // 0 separate, 1 in place, 2 shifted into the input
    const placement in_p = random_placement(rng, sizes, overlap != 1);
    placement values_p = overlap == 1 ? in_p : random_placement(rng, sizes, false);
    const placement index_p = random_placement(rng, sizes, false);
    std::vector<T> buffer(in_p.span);
    // Few distinct values, so that ties are common.
    for (T& v : buffer) v = tally_test::one_in(rng, 2) ? T(static_cast<int>(pick(rng, 4))) : random_value<T>(rng, true);
    std::vector<T> values_buffer;
    if (overlap == 2) {
      values_p.base += static_cast<std::ptrdiff_t>(pick(rng, in_p.span));
      buffer.resize(std::max(buffer.size(), static_cast<std::size_t>(values_p.base) + values_p.span), T(7));
    } else if (overlap == 0) {
      values_buffer.assign(values_p.span, T(9));
    }
    std::vector<std::int64_t> index_buffer(index_p.span, -7);
    const std::vector<T> before = buffer;
    T* values_data = overlap ? buffer.data() : values_buffer.data();
    INFO("seed " << seed << " case " << c << " max " << max << " decreasing " << decreasing << " overlap " << overlap);
    const tensor_view<const T> in = view_of<const T>(buffer.data(), in_p);
    const tensor_view<T> values = view_of<T>(values_data, values_p);
    const tensor_view<std::int64_t> indices = view_of<std::int64_t>(index_buffer.data(), index_p);
    const int axis_arg = static_cast<int>(axis);
    if (with_indices)
      max ? tally::cummax<T>(in, values, indices, axis_arg, options) : tally::cummin<T>(in, values, indices, axis_arg, options);
    else
      max ? tally::cummax<T>(in, values, axis_arg, options) : tally::cummin<T>(in, values, axis_arg, options);
    bool ok = true;
    tally_test::for_each_line(rank, sizes.data(), axis, [&](const std::size_t* base) {
      std::vector<std::size_t> index(base, base + rank);
      std::vector<T> line(sizes[axis]);
      for (std::size_t i = 0; i < sizes[axis]; ++i) {
        index[axis] = i;
        line[i] = before[static_cast<std::size_t>(in_p.offset(index.data()))];
      }
      const std::vector<std::int64_t> want = tally_test::extremum_line(max, line, decreasing);
      for (std::size_t i = 0; i < sizes[axis] && ok; ++i) {
        index[axis] = i;
        const T got = values_data[values_p.offset(index.data())];
        const std::int64_t got_index = index_buffer[static_cast<std::size_t>(index_p.offset(index.data()))];
        const T& want_value = line[static_cast<std::size_t>(want[i])];
        if (!same_value(got, want_value) || (with_indices ? got_index != want[i] : got_index != -7)) {
          ok = false;
          FAIL_CHECK("element " << i << ": got " << show(got) << " at " << got_index << ", expected "
                                << show(want_value) << " at " << want[i]);
        }
      }
    });
    if (!ok) return;
  }
}

TEST_CASE("cummax and cummin: ties take the later element, NaN sticks at its first index, input-order indices") {
  check_extremum<float>(60, true);
  check_extremum<float>(61, false);
  check_extremum<double>(62, true);
  check_extremum<std::int32_t>(63, false);
  check_extremum<std::uint8_t>(64, true);
  check_extremum<tally::half>(65, true);
  check_extremum<tally::bfloat16>(66, false);
  check_extremum<std::int64_t>(67, true);
}

TEST_CASE("cummax worked example: ties, NaN, decreasing direction") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1, 3, 2, 3, nan, 5, nan};
  std::vector<float> v(x.size());
  std::vector<std::int64_t> i(x.size());
  tally::cummax<float>(tensor_view<const float>(x.data(), {7}), tensor_view<float>(v.data(), {7}),
                       tensor_view<std::int64_t>(i.data(), {7}), 0);
  CHECK(i == tally_test::extremum_line(true, x, false));
  CHECK(i == std::vector<std::int64_t>{0, 1, 1, 3, 4, 4, 4});  // the spec's rules, read off by hand
  tally::cummax<float>(tensor_view<const float>(x.data(), {4}), tensor_view<float>(v.data(), {4}),
                       tensor_view<std::int64_t>(i.data(), {4}), 0, {tally::axis_direction::decreasing});
  CHECK(std::vector<std::int64_t>(i.begin(), i.begin() + 4) == std::vector<std::int64_t>{1, 1, 3, 3});
}

// ---------------------------------------------------------------------------------------
// User operators

template <class T, class Op>
void check_user(std::uint64_t seed, Op op, T identity, allowed a) {
  const auto call = [&](tensor_view<const T> in, tensor_view<T> out, int axis, const scan_options& o) {
    tally::scan<T>(in, out, axis, op, identity, o);
  };
  // A left fold from the first element: op(op(x0, x1), x2), the identity written only
  // where nothing is combined.
  struct state {
    bool any;
    T value;
  };
  const auto expect = [&](const std::vector<T>& line, line_mode m) {
    return tally_test::vocabulary_line<T, state>(
        line.size(), m.decreasing, m.exclusive, m.include_initial, state{false, identity}, identity,
        [&](state& s, std::size_t i) {
          s.value = s.any ? op(s.value, line[i]) : line[i];
          s.any = true;
        },
        [](const state& s) { return s.value; }, [](std::size_t) { return false; });
  };
  random_cases<T, T>(seed, 200, a, call, expect, [](const T& got, const T& want) {
    return std::memcmp(&got, &want, sizeof(T)) == 0;
  });
}

TEST_CASE("scan with 2x2 matrix multiplication keeps the order: op(running, next) in the scan's direction") {
  // Products of up to 140 random matrices would overflow int64: reduce every entry modulo
  // a prime (matrix multiplication modulo p is still associative and not commutative).
  const auto op = [](const mat2& x, const mat2& y) {
    const mat2 r = multiply(x, y);
    const auto mod = [](std::int64_t v) { return v % 1000003; };
    return mat2{mod(r.a), mod(r.b), mod(r.c), mod(r.d)};
  };
  check_user<mat2>(70, op, mat2{1, 0, 0, 1}, allowed{});
}

TEST_CASE("scan with a non-commutative operator on a worked example") {
  const std::vector<mat2> x = {{1, 1, 0, 1}, {1, 0, 1, 1}, {2, 0, 0, 1}};
  std::vector<mat2> y(3);
  tally::scan<mat2>(tensor_view<const mat2>(x.data(), {3}), tensor_view<mat2>(y.data(), {3}), 0, multiply,
                    mat2{1, 0, 0, 1});
  CHECK(y[2] == multiply(multiply(x[0], x[1]), x[2]));
  CHECK_FALSE(y[2] == multiply(multiply(x[2], x[1]), x[0]));  // the data really is order-sensitive
  tally::scan<mat2>(tensor_view<const mat2>(x.data(), {3}), tensor_view<mat2>(y.data(), {3}), 0, multiply,
                    mat2{1, 0, 0, 1}, {tally::axis_direction::decreasing});
  CHECK(y[0] == multiply(multiply(x[2], x[1]), x[0]));  // running value first, next element second
  // The identity is never combined with an element: a wrong "identity" shows only where
  // nothing is combined (here, include_initial's extra element).
  std::vector<mat2> z(4);
  tally::scan_options initial;
  initial.include_initial = true;
  tally::scan<mat2>(tensor_view<const mat2>(x.data(), {3}), tensor_view<mat2>(z.data(), {4}), 0, multiply,
                    mat2{7, 7, 7, 7}, initial);
  CHECK(z[0] == mat2{7, 7, 7, 7});
  CHECK(z[1] == x[0]);
  CHECK(z[3] == multiply(multiply(x[0], x[1]), x[2]));
}

TEST_CASE("scan with ordinary operators (max of ints, sums of doubles), exclusive and include_initial") {
  check_user<std::int32_t>(71, [](std::int32_t p, std::int32_t q) { return p > q ? p : q; },
                           std::numeric_limits<std::int32_t>::min(), allowed{});
  check_user<double>(72, [](double p, double q) { return p + q; }, 0.0, allowed{true, true, true, false});
}

// ---------------------------------------------------------------------------------------
// Segmented scans

template <class T>
void check_segmented(std::uint64_t seed, scan_op op) {
  rng_t rng(seed);
  for (int c = 0; c < 200; ++c) {
    const std::vector<std::size_t> sizes = random_sizes(rng);
    const std::size_t rank = sizes.size(), axis = pick(rng, rank);
    line_mode m;
    m.decreasing = tally_test::one_in(rng, 2);
    m.exclusive = tally_test::one_in(rng, 3);
    m.include_initial = !m.exclusive && tally_test::one_in(rng, 3);
    scan_options options(m.decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing,
                         m.exclusive, 1 + static_cast<unsigned>(pick(rng, 3)));
    options.include_initial = m.include_initial;
    std::vector<std::size_t> out_sizes = sizes;
    out_sizes[axis] += m.include_initial ? 1 : 0;
    const placement in_p = random_placement(rng, sizes, true), out_p = random_placement(rng, out_sizes, false);
    const placement resets_p = random_placement(rng, sizes, true);  // broadcast flags too
    std::vector<T> in_buffer(in_p.span), out_buffer(out_p.span, T(5));
    // Segmented float sums along a contiguous line regroup (an in-register segmented scan),
    // within the rounding bound: exact data (halves of small integers) keeps every order
    // bitwise equal to the sequential fold.
    for (T& v : in_buffer) v = random_value<T>(rng, false, op == scan_op::sum);
    std::vector<std::uint8_t> resets_buffer(resets_p.span);
    for (std::uint8_t& r : resets_buffer) r = tally_test::one_in(rng, 4) ? static_cast<std::uint8_t>(1 + pick(rng, 255)) : 0;
    INFO("seed " << seed << " case " << c);
    const tensor_view<const T> in = view_of<const T>(in_buffer.data(), in_p);
    const tensor_view<T> out = view_of<T>(out_buffer.data(), out_p);
    const tensor_view<const std::uint8_t> resets = view_of<const std::uint8_t>(resets_buffer.data(), resets_p);
    op == scan_op::sum ? tally::cumsum<T>(in, out, static_cast<int>(axis), resets, options)
                       : tally::cumprod<T>(in, out, static_cast<int>(axis), resets, options);
    bool ok = true;
    tally_test::for_each_line(rank, sizes.data(), axis, [&](const std::size_t* base) {
      std::vector<std::size_t> index(base, base + rank);
      std::vector<T> line(sizes[axis]);
      std::vector<std::uint8_t> flags(sizes[axis]);
      for (std::size_t i = 0; i < sizes[axis]; ++i) {
        index[axis] = i;
        line[i] = in_buffer[static_cast<std::size_t>(in_p.offset(index.data()))];
        flags[i] = resets_buffer[static_cast<std::size_t>(resets_p.offset(index.data()))];
      }
      const std::vector<T> want = tally_test::arithmetic_line<T, T>(op, false, line, m, flags);
      for (std::size_t i = 0; i < out_sizes[axis] && ok; ++i) {
        index[axis] = i;
        const T got = out_buffer[static_cast<std::size_t>(out_p.offset(index.data()))];
        if (!same_value(got, want[i])) {
          ok = false;
          FAIL_CHECK("element " << i << ": got " << show(got) << ", expected " << show(want[i]));
        }
      }
    });
    if (!ok) return;
  }
}

/// Segmented sums on long contiguous lines (the in-register segmented scan), both
/// directions, in place too, on exact data: bitwise the sequential fold.
template <class T>
void check_segmented_long_lines(std::size_t rows, std::size_t cols) {
  rng_t rng(85);
  std::vector<T> x(rows * cols);
  std::vector<std::uint8_t> flags(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = random_value<T>(rng, false, true);
    flags[i] = tally_test::one_in(rng, 9) ? static_cast<std::uint8_t>(1 + pick(rng, 255)) : 0;
  }
  for (const auto direction : {tally::axis_direction::increasing, tally::axis_direction::decreasing})
    for (const bool in_place : {false, true}) {
      const bool down = direction == tally::axis_direction::decreasing;
      INFO("decreasing " << down << " in place " << in_place);
      std::vector<T> want(x.size()), buffer(x.size() + 64 / sizeof(T));
      // The output on a 64-byte boundary: lines of whole cache lines may stream.
      T* const got = buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64) % 64 / sizeof(T);
      if (in_place) std::copy(x.begin(), x.end(), got);
      for (std::size_t r = 0; r < rows; ++r) {
        T running{};
        for (std::size_t step = 0; step < cols; ++step) {
          const std::size_t at = r * cols + (down ? cols - 1 - step : step);
          running = step == 0 || flags[at] ? x[at] : static_cast<T>(running + x[at]);
          want[at] = running;
        }
      }
      tally::cumsum<T>(tensor_view<const T>(in_place ? got : x.data(), {rows, cols}), tensor_view<T>(got, {rows, cols}),
                       1, tensor_view<const std::uint8_t>(flags.data(), {rows, cols}), {direction});
      CHECK(std::memcmp(got, want.data(), x.size() * sizeof(T)) == 0);
    }
}

TEST_CASE("segmented cumsum on long contiguous lines (streamed too): the sequential fold's bits on exact data") {
  check_segmented_long_lines<float>(5, 5003);
  check_segmented_long_lines<double>(5, 5003);
  // Outputs of 16 MiB and more, lines of whole cache lines: the non-temporal stores.
  check_segmented_long_lines<float>(1025, 4096);
  check_segmented_long_lines<double>(513, 4096);
}

TEST_CASE("segmented cumsum and cumprod restart at every nonzero flag, in the scan's direction") {
  check_segmented<float>(80, scan_op::sum);
  check_segmented<double>(81, scan_op::product);
  check_segmented<std::int32_t>(82, scan_op::sum);
  check_segmented<std::uint8_t>(83, scan_op::product);
  check_segmented<tally::half>(84, scan_op::sum);
}

// ---------------------------------------------------------------------------------------
// Threads

TEST_CASE("every vocabulary operator gives the same bits on 1, 2 and 5 threads (lines split, tiles too)") {
  rng_t rng(90);
  for (const std::vector<std::size_t>& sizes :
       {std::vector<std::size_t>{300, 700}, std::vector<std::size_t>{2, 90, 1100}, std::vector<std::size_t>{70000},
        std::vector<std::size_t>{3000, 20}}) {  // (axis 0: a tile of 20 lines, its last in part of a vector)
    for (std::size_t axis = 0; axis < sizes.size(); ++axis) {
      std::size_t n = 1;
      for (std::size_t s : sizes) n *= s;
      std::vector<float> x(n);
      for (float& v : x) v = random_value<float>(rng, true);
      std::vector<std::uint8_t> flags(n);
      for (std::uint8_t& f : flags) f = tally_test::one_in(rng, 50);
      const tensor_view<const float> in(x.data(), sizes.size(), sizes.data());
      const tensor_view<const std::uint8_t> resets(flags.data(), sizes.size(), sizes.data());
      const auto run_all = [&](unsigned threads) {
        std::vector<std::vector<unsigned char>> results;
        const auto keep = [&](const auto& v) {
          results.emplace_back(reinterpret_cast<const unsigned char*>(v.data()),
                               reinterpret_cast<const unsigned char*>(v.data() + v.size()));
        };
        std::vector<float> y(n);
        std::vector<double> w(n);
        std::vector<std::int64_t> idx(n);
        const tensor_view<float> out(y.data(), sizes.size(), sizes.data());
        const scan_options o({}, false, threads);
        const int a = static_cast<int>(axis);
        tally::cummax<float>(in, out, tensor_view<std::int64_t>(idx.data(), sizes.size(), sizes.data()), a, o);
        keep(y);
        keep(idx);
        tally::logcumsumexp<float>(in, out, a, o);
        keep(y);
        tally::nancumsum<float>(in, out, a, o);
        keep(y);
        tally::cumsum<float, double>(in, tensor_view<double>(w.data(), sizes.size(), sizes.data()), a, o);
        keep(w);
        tally::cumsum<float>(in, out, a, resets, o);
        keep(y);
        tally::scan<float>(in, out, a, [](float p, float q) { return p * 0.5f + q; }, 0.0f, o);  // not associative:
        keep(y);  // still the same bits, since each line is folded in order on one thread
        return results;
      };
      CHECK(run_all(1) == run_all(2));
      CHECK(run_all(1) == run_all(5));
    }
  }
}

/// The vocabulary's small path (packed calls within L1, detail::vocab::small_vocab_scan)
/// against the general path (detail::vocab::scan, which that path skips) on the same
/// views: the same bits in the values and the indices, for every shape, axis, direction
/// and mode, in place too where the types allow it.
template <class Op>
void check_small_path_bits(const Op& op, rng_t& rng, bool with_index) {
  using In = typename Op::in_type;
  using Out = typename Op::out_type;
  constexpr bool one_type = std::is_same_v<In, Out>;
  for (const auto& extents : std::vector<std::vector<std::size_t>>{
           {2}, {16}, {37}, {300}, {8, 8}, {20, 8}, {6, 24}, {3, 1, 7}, {5, 3, 40}, {4, 9, 2, 5}})
    for (std::size_t axis = 0; axis < extents.size(); ++axis)
      for (int variant = 0; variant < 6; ++variant) {
        const bool decreasing = variant % 2 == 1, exclusive = variant / 2 == 1, in_place = variant / 2 == 2;
        if ((exclusive && !Op::has_identity) || (in_place && !one_type)) continue;
        const std::size_t rank = extents.size();
        std::size_t count = 1;
        for (std::size_t e : extents) count *= e;
        std::vector<In> in(count);
        std::vector<Out> small(count), general(count);
        for (In& x : in) x = random_value<In>(rng, true);
        if constexpr (one_type)
          if (in_place) small = general = in;
        std::vector<std::int64_t> small_index(count, -7), general_index(count, -7);
        const scan_options o(decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing,
                             exclusive);
        const int a = static_cast<int>(axis);
        const auto view = [&](std::vector<Out>& v) { return tensor_view<Out>(v.data(), rank, extents.data()); };
        const auto input = [&](std::vector<Out>& out) {
          if constexpr (one_type)
            if (in_place) return tensor_view<const In>(out.data(), rank, extents.data());
          return tensor_view<const In>(in.data(), rank, extents.data());
        };
        const auto index_view = [&](std::vector<std::int64_t>& v) {
          return with_index ? tensor_view<std::int64_t>(v.data(), rank, extents.data()) : tensor_view<std::int64_t>();
        };
        tally::detail::vocab::call(op, "small", input(small), view(small), index_view(small_index), {}, a, o);
        const auto layout_of = [&](const auto& v) { return tally::detail::vocab::layout_of(v); };
        const tensor_view<const In> general_in = input(general);
        const tensor_view<Out> general_out = view(general);
        const tensor_view<std::int64_t> general_indices = index_view(general_index);
        tally::detail::vocab::scan<Op>(op, {Op::has_identity, "general"}, general_in.data(), layout_of(general_in),
                                       general_out.data(), layout_of(general_out), general_indices.data(),
                                       layout_of(general_indices), nullptr, tally::detail::strided_layout{}, a, o);
        INFO("rank " << rank << " axis " << axis << " variant " << variant);
        CHECK(std::memcmp(small.data(), general.data(), count * sizeof(Out)) == 0);
        CHECK(small_index == general_index);
      }
}

TEST_CASE("the vocabulary's small calls give the general path's bits (values and indices)") {
  namespace d = tally::detail;
  rng_t rng(0x5a11);
  check_small_path_bits(d::extremum_op<float, true, true>{}, rng, true);
  check_small_path_bits(d::extremum_op<float, false, true>{}, rng, true);
  check_small_path_bits(d::extremum_op<float, true, false>{}, rng, false);
  check_small_path_bits(d::extremum_op<std::int32_t, false, false>{}, rng, false);
  check_small_path_bits(d::extremum_op<double, true, true>{}, rng, true);
  check_small_path_bits(d::logcumsumexp_op<float, true>{}, rng, false);
  check_small_path_bits(d::logcumsumexp_op<float>{}, rng, false);
  check_small_path_bits(d::logcumsumexp_op<double>{}, rng, false);
  check_small_path_bits(d::nan_sum<float, float>{}, rng, false);
  check_small_path_bits(d::nan_sum<float, double>{}, rng, false);
  check_small_path_bits(d::nan_product<double, double>{}, rng, false);
  check_small_path_bits(d::exact_op<d::sum_op, float, true>{}, rng, false);
  check_small_path_bits(d::widening_sum<std::int32_t, std::int64_t>{}, rng, false);
  check_small_path_bits(d::widening_sum<std::int8_t, std::int64_t>{}, rng, false);
  check_small_path_bits(d::widening_sum<float, double>{}, rng, false);
  check_small_path_bits(d::widening_sum<tally::half, float>{}, rng, false);
  check_small_path_bits(d::widening_product<std::int16_t, std::int64_t>{}, rng, false);
  check_small_path_bits(d::widening_sum<std::complex<float>, std::complex<float>>{}, rng, false);
  const auto halve_and_add = [](float p, float q) { return p * 0.5f + q; };
  check_small_path_bits(d::user_op<float, decltype(halve_and_add)>{halve_and_add, 0.0f}, rng, false);
}

// ---------------------------------------------------------------------------------------
// Refusals: a code, a message naming the argument, nothing written

template <class F>
void check_refused(F&& f, status_code code, const char* word) {
  try {
    f();
    FAIL("no error");
  } catch (const tally::error& e) {
    CHECK(e.code() == code);
    CHECK(std::string(e.what()).find(word) != std::string::npos);
  }
}

TEST_CASE("invalid calls throw tally::error naming the argument, and write nothing") {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> y(8, 42.0f);
  std::vector<std::int64_t> idx(8, 42);
  const tensor_view<const float> in(x.data(), {2, 3});
  const auto out = [&](std::size_t rows, std::size_t cols) { return tensor_view<float>(y.data(), {rows, cols}); };
  scan_options both;
  both.exclusive = true;
  both.include_initial = true;
  scan_options initial;
  initial.include_initial = true;
  const scan_options exclusive({}, true);

  check_refused([&] { tally::cumsum<float>(in, out(2, 4), 1, both); }, status_code::invalid_option, "include_initial");
  check_refused([&] { tally::cumsum<float, double>(in, tensor_view<double>(nullptr, {2, 0}), 1, both); },
                status_code::invalid_option, "include_initial");
  check_refused([&] { tally::cumsum<float>(in, out(2, 3), 1, initial); }, status_code::size_mismatch, "plus one");
  check_refused([&] { tally::cumsum<float>(in, out(2, 4), 7, initial); }, status_code::invalid_axis, "axis");
  check_refused([&] { tally::cumsum<float>(in, out(2, 4), -3, initial); }, status_code::invalid_axis, "axis");
  check_refused([&] { tally::cumprod<float>(in, out(2, 3), -1, initial); }, status_code::size_mismatch, "plus one");
  check_refused([&] { tally::logcumsumexp<float>(in, out(2, 3), 1, initial); }, status_code::size_mismatch, "output");
  check_refused([&] { tally::logcumsumexp<float>(in, out(2, 4), 0); }, status_code::size_mismatch, "output");
  check_refused([&] { tally::nancumsum<float>(in, out(2, 3), 2); }, status_code::invalid_axis, "axis");
  check_refused([&] { tally::cummax<float>(in, out(2, 3), tensor_view<std::int64_t>(idx.data(), {2, 3}), 1, exclusive); },
                status_code::invalid_option, "cummax");
  check_refused([&] { tally::cummin<float>(in, out(2, 3), 1, exclusive); }, status_code::invalid_option, "cummin");
  check_refused([&] { tally::cummax<float>(in, out(3, 3), 1, initial); }, status_code::invalid_option, "cummax");
  check_refused([&] { tally::cummax<float>(in, out(2, 3), tensor_view<std::int64_t>(idx.data(), {3, 2}), 1); },
                status_code::size_mismatch, "indices");
  check_refused([&] { tally::cummax<float>(in, out(2, 3), tensor_view<std::int64_t>(), 1); },
                status_code::invalid_dimension_count, "indices");
  check_refused(
      [&] {
        tally::cummax<float>(in, out(2, 3),
                             tensor_view<std::int64_t>(reinterpret_cast<std::int64_t*>(y.data()), {2, 3}), 1);
      },
      status_code::overlapping_buffers, "indices");
  check_refused([&] { tally::cummax<float>(in, tensor_view<float>(y.data(), {2, 3}, {0, 1}), 1); },
                status_code::overlapping_output, "output");
  // include_initial on the SIMD engine: the scanned part and the initial slice are each
  // unique, but a zero stride along the axis puts them at one address.
  check_refused([&] { tally::cumsum<float>(tensor_view<const float>(x.data(), {2, 1}),
                                           tensor_view<float>(y.data(), {2, 2}, {1, 0}), 1, initial); },
                status_code::overlapping_output, "output");
  std::vector<std::uint8_t> flags(6, 0);
  check_refused([&] { tally::cumsum<float>(in, out(2, 3), 1, tensor_view<const std::uint8_t>(flags.data(), {3, 2})); },
                status_code::size_mismatch, "resets");
  check_refused([&] { tally::cumsum<float>(in, out(2, 3), 1, tensor_view<const std::uint8_t>()); },
                status_code::invalid_dimension_count, "resets");
  check_refused([&] { tally::scan<float>(in, out(2, 2), 1, [](float p, float q) { return p + q; }, 0.0f); },
                status_code::size_mismatch, "scan");
  CHECK(y == std::vector<float>(8, 42.0f));
  CHECK(idx == std::vector<std::int64_t>(8, 42));
}

TEST_CASE("include_initial with an empty axis writes just the identity (or the carry)") {
  std::vector<float> y(3, 42.0f);
  scan_options initial;
  initial.include_initial = true;
  tally::cumsum<float>(tensor_view<const float>(nullptr, {3, 0}), tensor_view<float>(y.data(), {3, 1}), 1, initial);
  CHECK(tally_test::same_bits(y, std::vector<float>(3, 0.0f)));
  std::vector<std::int64_t> z(2, 42);
  tally::cumprod<std::int8_t, std::int64_t>(tensor_view<const std::int8_t>(nullptr, {0, 2}),
                                            tensor_view<std::int64_t>(z.data(), {1, 2}), 0, initial);
  CHECK(z == std::vector<std::int64_t>{1, 1});
  // Chunked scans: the extra element is the carry.
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<double> carry = {10, 20};  // tally::carry_type<float>
  std::vector<float> w(6);
  for (tally::scan_accuracy accuracy : {tally::scan_accuracy::exact, tally::scan_accuracy::fast}) {
    initial.accuracy = accuracy;
    tally::cumsum<float>(tensor_view<const float>(x.data(), {2, 2}), tensor_view<float>(w.data(), {2, 3}), 1, initial,
                         tensor_view<const double>(carry.data(), {2}), {});
    CHECK(w == std::vector<float>{10, 11, 13, 20, 23, 27});
  }
}

TEST_CASE("bfloat16 converts like the oracle's rounding on a sweep of floats") {
  rng_t rng(100);
  for (int k = 0; k < 200000; ++k) {
    std::uint32_t bits = static_cast<std::uint32_t>(rng());
    if (k < 1024) bits = static_cast<std::uint32_t>(k) << 22 | (k & 1 ? 0x8000u : 0x7fffu);  // halfway-ish patterns
    float f;
    std::memcpy(&f, &bits, sizeof f);
    const tally::bfloat16 b(f);
    if (std::isnan(f)) {
      CHECK(std::isnan(static_cast<float>(b)));
      continue;
    }
    if (b.bits != tally_test::double_to_bfloat16(f)) FAIL("float bits " << bits);
    if (tally_test::bfloat16_to_double(b.bits) != static_cast<double>(static_cast<float>(b))) FAIL("decode " << bits);
  }
}

}  // namespace

namespace {

TEST_CASE("0-d tensors: one element, axis 0 or -1, the output is the input (PyTorch)") {
  const float x = -2.5f;
  const std::int8_t small = -7;
  for (int axis : {0, -1}) {
    INFO("axis " << axis);
    const tensor_view<const float> in(&x, {});
    float y = 0;
    std::int64_t at = 9;
    const tensor_view<float> out(&y, {});
    CHECK(in.rank() == 0);
    CHECK(in.size() == 1);
    tally::cumsum(in, out, axis);
    CHECK(y == x);
    y = 0;
    tally::cumprod(in, out, axis, {tally::axis_direction::decreasing});
    CHECK(y == x);
    y = 0;
    tally::cummax(in, out, tensor_view<std::int64_t>(&at, {}), axis);
    CHECK((y == x && at == 0));
    y = 0;
    tally::logcumsumexp(in, out, axis);
    CHECK(y == x);
    y = 0;
    tally::scan(in, out, axis, [](float p, float q) { return p - q; }, 0.0f);
    CHECK(y == x);  // op is not applied to a single element
    std::int64_t wide = 0;
    tally::cumsum<std::int8_t, std::int64_t>(tensor_view<const std::int8_t>(&small, {}),
                                             tensor_view<std::int64_t>(&wide, {}), axis);
    CHECK(wide == -7);
    // Exclusive: the empty sum.
    y = 5;
    tally::cumsum(in, out, axis, {tally::axis_direction::increasing, true});
    CHECK(y == 0.0f);
  }
  float y = 42;
  const tensor_view<const float> in(&x, {});
  check_refused([&] { tally::cumsum(in, tensor_view<float>(&y, {}), 1); }, status_code::invalid_axis, "axis");
  check_refused([&] { tally::cummin(in, tensor_view<float>(&y, {}), -2); }, status_code::invalid_axis, "axis");
  scan_options initial;
  initial.include_initial = true;
  check_refused([&] { tally::cumsum(in, tensor_view<float>(&y, {}), 0, initial); }, status_code::size_mismatch,
                "plus one");
  // Rank 0 against rank 1 of one element: the ranks differ only on the surface.
  float two[2] = {1, 1};
  tally::cumsum(in, tensor_view<float>(two, {2}), 0, initial);
  CHECK((two[0] == 0.0f && two[1] == x));
  CHECK(y == 42);
  // Without include_initial, a 0-d input and a rank-1 output are a rank mismatch (found by fuzz_typed).
  float one[1] = {42};
  check_refused([&] { tally::cumsum(in, tensor_view<float>(one, {1}), 0); }, status_code::dimension_count_mismatch,
                "rank");
  check_refused([&] { tally::cummax(in, tensor_view<float>(one, {1}), 0); }, status_code::dimension_count_mismatch,
                "rank");
  CHECK(one[0] == 42);
}

}  // namespace
