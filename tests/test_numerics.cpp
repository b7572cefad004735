// Numeric edge cases of the contract (spec section 4, issue 5): NaN and Inf propagation,
// signed zeros, float16 overflow and subnormals, integer wrap-around at every width, and
// the float32 error bound on a 10^7-element line. Every expectation comes from the
// independent reference (tests/support/reference.hpp: sequential double or uint64
// arithmetic, and its own float16 codec) or from bit patterns worked out by hand, never
// from tally itself. Each case runs through every kernel shape: a contiguous
// line, a column of a 2-D tensor (axis outer), a strided line, and the descriptor layer.
#include <tally/tally.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "support/calls.hpp"
#include "support/reference.hpp"

namespace {

using tally::half;
using tally_test::scan_op;

/// v as a T; a float16 through the reference's codec (independent of tally::half).
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, half>) return half::from_bits(tally_test::double_to_half(v));
  else return static_cast<T>(v);
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, half>) return tally_test::half_to_double(v.bits);
  else return static_cast<double>(v);
}

/// Same IEEE value, telling -0 from +0 and every NaN equal to every NaN.
bool same_value(double got, double expected) {
  if (std::isnan(expected)) return std::isnan(got);
  return got == expected && std::signbit(got) == std::signbit(expected);
}

struct scan_case {
  bool product = false;
  bool decreasing = false;
  bool exclusive = false;
  unsigned threads = 1;
};

std::string describe(const scan_case& c) {
  return std::string(c.product ? "product" : "sum") + (c.decreasing ? " decreasing" : " increasing") +
         (c.exclusive ? " exclusive" : " inclusive") + " threads " + std::to_string(c.threads);
}

/// Runs one 1-D scan of `x` through every kernel shape and both front doors; returns
/// (shape name, output line) pairs.
template <class T>
std::vector<std::pair<std::string, std::vector<T>>> scan_all_shapes(const std::vector<T>& x, const scan_case& c) {
  const std::size_t n = x.size();
  const tally::scan_options options{tally_test::direction_of(c.decreasing), c.exclusive, c.threads};
  const auto scan = [&](tally::tensor_view<const T> in, tally::tensor_view<T> out, int axis) {
    tally_test::typed_scan<T>(c.product, in, out, axis, options);
  };
  std::vector<std::pair<std::string, std::vector<T>>> results;

  {  // a contiguous line
    std::vector<T> y(n);
    scan(tally::tensor_view<const T>(x.data(), {n}), tally::tensor_view<T>(y.data(), {n}), 0);
    results.emplace_back("line", std::move(y));
  }
  {  // column 1 of a {n, 3} tensor scanned along axis 0 (every column holds x)
    std::vector<T> in(3 * n), out(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < 3; ++j) in[3 * i + j] = x[i];
    scan(tally::tensor_view<const T>(in.data(), {n, 3}), tally::tensor_view<T>(out.data(), {n, 3}), 0);
    std::vector<T> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = out[3 * i + 1];
    results.emplace_back("column", std::move(y));
  }
  {  // a strided line: input stride 2, output stride 3
    std::vector<T> in(2 * n), out(3 * n);
    for (std::size_t i = 0; i < n; ++i) in[2 * i] = x[i];
    scan(tally::tensor_view<const T>(in.data(), {n}, {2}), tally::tensor_view<T>(out.data(), {n}, {3}), 0);
    std::vector<T> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = out[3 * i];
    results.emplace_back("strided", std::move(y));
  }
  {  // the descriptor layer, packed 1-D
    std::vector<T> y(n);
    const std::uint32_t sizes[1] = {static_cast<std::uint32_t>(n)};
    const tally::tensor_desc t{tally::data_type_of_v<T>, 1, sizes, nullptr,
                               tally::calc_buffer_tensor_size(tally::data_type_of_v<T>, 1, sizes, nullptr)};
    const auto direction = options.direction;
    tally::execution_options exec;
    exec.threads = c.threads;
    // calc_buffer_tensor_size rounds up to 4 bytes: give the buffers that room.
    std::vector<T> in(x), out(n + 4);
    in.resize(n + 4);
    const tally::status s = tally_test::with_scan_desc(
        c.product, &t, &t, 0, direction, c.exclusive,
        [&](const auto& desc) { return tally::execute(desc, in.data(), out.data(), exec); });
    INFO(s.message());
    REQUIRE(s.ok());
    y.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
    results.emplace_back("descriptor", std::move(y));
  }
  return results;
}

/// The spec's floating-point semantics in double (the reference's sequential scan), for
/// inputs whose every partial result is exact in T, so that double gives T's answer,
/// special values and zero signs included: sums start from -0.0, an exclusive scan
/// writes +0.0 (sum) or 1 (product) first.
std::vector<double> exact_reference(const std::vector<double>& x, const scan_case& c) {
  return tally_test::reference_scan_packed<double>(c.product ? scan_op::product : scan_op::sum, {x.size()}, 0,
                                                   c.decreasing, c.exclusive, x);
}

/// Checks every shape and mode against exact_reference (sums only when the products of
/// the values would not be exact in T).
template <class T>
void check_exact(const std::vector<double>& x_values, bool sums_only = false) {
  std::vector<T> x(x_values.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = from_double<T>(x_values[i]);
  for (bool product : {false, true})
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true})
        for (unsigned threads : {1u, 2u}) {
          if (product && sums_only) continue;
          const scan_case c{product, decreasing, exclusive, threads};
          const std::vector<double> expected = exact_reference(x_values, c);
          for (const auto& [shape, y] : scan_all_shapes(x, c)) {
            std::size_t bad = 0, first_bad = 0;
            for (std::size_t i = 0; i < y.size(); ++i)
              if (!same_value(to_double(y[i]), expected[i]) && bad++ == 0) first_bad = i;
            INFO(describe(c) << ", shape " << shape << ", length " << y.size());
            INFO("first mismatch at " << first_bad << ": got " << to_double(y[first_bad]) << ", expected "
                                      << expected[first_bad]);
            CHECK(bad == 0);
          }
        }
}

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

/// +1, -1, +1, ... : every partial sum is 1 or 0 and every product +-1, exact in every
/// floating type, across as many blocks (4096 elements) as the length spans.
std::vector<double> alternating(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = i % 2 == 0 ? 1.0 : -1.0;
  return x;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// NaN and Inf

TEMPLATE_TEST_CASE("numerics: NaN propagates from its position on", "", float, double, half) {
  for (std::size_t n : {7u, 9001u}) {
    for (std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, n - 1}) {
      if (at >= n) continue;
      std::vector<double> x = alternating(n);
      x[at] = nan_value;
      CAPTURE(n, at);
      check_exact<TestType>(x);
    }
  }
}

TEMPLATE_TEST_CASE("numerics: Inf propagates, Inf - Inf and Inf * 0 are NaN", "", float, double, half) {
  const std::size_t n = 5000;
  {  // +Inf at 3: the sum stays +Inf, the product alternates +-Inf
    std::vector<double> x = alternating(n);
    x[3] = inf_value;
    check_exact<TestType>(x);
  }
  {  // -Inf after +Inf (across the block boundary): NaN from there on
    std::vector<double> x = alternating(n);
    x[100] = inf_value;
    x[4100] = -inf_value;
    check_exact<TestType>(x);
  }
  {  // Inf then 0, and 0 then Inf: the product becomes NaN (0 * Inf)
    std::vector<double> x = alternating(n);
    x[10] = inf_value;
    x[20] = 0.0;
    check_exact<TestType>(x);
    std::vector<double> z = alternating(n);
    z[10] = -0.0;
    z[4500] = -inf_value;
    check_exact<TestType>(z);
  }
  {  // short lines with nothing but specials
    check_exact<TestType>({inf_value, -inf_value});
    check_exact<TestType>({-inf_value, -inf_value, 1.0});
    check_exact<TestType>({inf_value, 0.0, 2.0});
    check_exact<TestType>({nan_value});
  }
}

// ---------------------------------------------------------------------------------------
// Signed zero

TEMPLATE_TEST_CASE("numerics: signed zeros follow IEEE, a line of -0.0 sums to -0.0", "", float, double, half) {
  // Long lines cross block boundaries (4096), where the running value restarts.
  for (std::size_t n : {1u, 3u, 4097u, 9000u}) {
    CAPTURE(n);
    check_exact<TestType>(std::vector<double>(n, -0.0));
    check_exact<TestType>(std::vector<double>(n, 0.0));
  }
  check_exact<TestType>({0.0, -0.0, -0.0});
  check_exact<TestType>({-0.0, 0.0, -0.0});
  check_exact<TestType>({-0.0, -0.0, 0.0});
  check_exact<TestType>({1.0, -1.0, -0.0});   // 1 + -1 = +0, then +0 + -0 = +0
  check_exact<TestType>({-1.0, -0.0, -1.0, 2.0, -0.0, -2.0});  // product signs
  check_exact<TestType>({-0.0, -1.0, -1.0, -1.0});
  // A first block (4096 elements) that sums to +0 makes the running value +0 at the next
  // block, where +0 + -0 = +0: the -0.0 elements after the boundary read +0, not -0.
  std::vector<double> plus_zero_then_minus_zeros(9000, -0.0);
  plus_zero_then_minus_zeros[0] = 1.0;
  plus_zero_then_minus_zeros[1] = -1.0;
  check_exact<TestType>(plus_zero_then_minus_zeros);
  check_exact<TestType>({plus_zero_then_minus_zeros.rbegin(), plus_zero_then_minus_zeros.rend()});
}

TEST_CASE("numerics: the exclusive first output is +0.0 and the inclusive sum of -0.0 is -0.0 (by bits)") {
  // The same facts as above spelled out by bit pattern, without any reference function.
  const std::vector<float> x(5, -0.0f);
  for (bool exclusive : {false, true}) {
    for (bool decreasing : {false, true}) {
      scan_case c;
      c.exclusive = exclusive;
      c.decreasing = decreasing;
      for (const auto& [shape, y] : scan_all_shapes(x, c)) {
        INFO(shape << (exclusive ? " exclusive" : " inclusive") << (decreasing ? " decreasing" : " increasing"));
        const std::size_t first = decreasing ? 4 : 0;
        for (std::size_t i = 0; i < 5; ++i) {
          std::uint32_t bits;
          std::memcpy(&bits, &y[i], 4);
          CAPTURE(i);
          CHECK(bits == (exclusive && i == first ? 0x00000000u : 0x80000000u));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// float16 conversions: the reference's codec, by hand and against tally::half

namespace {

/// Floats that probe rounding to float16: every half value, the midpoints to its
/// neighbours (ties to even) and the floats on either side of those, with both signs,
/// plus random bit patterns (NaNs with payloads, subnormals, huge values) and +Inf, -NaN.
std::vector<float> rounding_probes() {
  std::vector<float> probes;
  for (std::uint32_t b = 0; b < 0x7c00; ++b) {
    // `next` past the largest half (65504) is 65536, where the exponent would continue.
    const auto at = [](std::uint32_t k) {
      return static_cast<float>(tally_test::half_to_double(static_cast<std::uint16_t>(k)));
    };
    const float here = at(b), next = b + 1 == 0x7c00 ? 65536.0f : at(b + 1);
    const float middle = here + (next - here) / 2;  // exact: one more bit than a half has
    for (float f : {here, middle, std::nextafter(middle, 0.0f), std::nextafter(middle, 1e30f)}) {
      probes.push_back(f);
      probes.push_back(-f);
    }
  }
  std::mt19937_64 rng(16);
  for (int i = 0; i < 200000; ++i) {
    const auto raw = static_cast<std::uint32_t>(rng());
    float f;
    std::memcpy(&f, &raw, sizeof f);
    probes.push_back(f);
  }
  probes.push_back(std::numeric_limits<float>::infinity());
  probes.push_back(-std::numeric_limits<float>::quiet_NaN());
  return probes;
}

}  // namespace

TEST_CASE("numerics: the reference's float16 codec and tally::half's conversions agree") {
  // The encodings the special-value tests above rely on, worked out by hand.
  const std::pair<double, std::uint16_t> by_hand[] = {
      {nan_value, 0x7e00}, {inf_value, 0x7c00}, {-inf_value, 0xfc00}, {0.0, 0x0000}, {-0.0, 0x8000},
      {1.0, 0x3c00},       {-1.0, 0xbc00},      {2.0, 0x4000},        {-2.0, 0xc000}, {65504.0, 0x7bff},
      {0x1p-24, 0x0001},   {0x1p-14, 0x0400}};
  for (const auto& [value, bits] : by_hand) {
    CAPTURE(value, bits);
    CHECK(tally_test::double_to_half(value) == bits);
    CHECK(same_value(tally_test::half_to_double(bits), value));
  }

  // Every binary16 pattern decodes to the same value both ways, and re-encodes to itself
  // (a NaN to a NaN of its sign).
  std::size_t bad_decode = 0, bad_round_trip = 0, first_bad = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double value = tally_test::half_to_double(bits);
    if (!same_value(static_cast<double>(static_cast<float>(half::from_bits(bits))), value) && bad_decode++ == 0)
      first_bad = b;
    const std::uint16_t again = tally_test::double_to_half(value);
    const bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    if ((nan ? (again & 0x7fff) != 0x7e00 || (again & 0x8000) != (bits & 0x8000) : again != bits) &&
        bad_round_trip++ == 0)
      first_bad = b;
  }
  INFO("first bad pattern 0x" << std::hex << first_bad);
  CHECK(bad_decode == 0);
  CHECK(bad_round_trip == 0);

  // Rounding float -> half (rounding_probes); NaNs compare as NaN of the same sign
  // (payloads are not modelled by the reference).
  const std::vector<float> probes = rounding_probes();
  std::size_t bad_rounding = 0;
  float first_bad_float = 0;
  for (float f : probes) {
    const std::uint16_t library = half(f).bits, reference = tally_test::double_to_half(f);
    const bool agree = std::isnan(f) ? (library & 0x7c00) == 0x7c00 && (library & 0x3ff) != 0 &&
                                           (library & 0x8000) == (reference & 0x8000)
                                     : library == reference;
    if (!agree && bad_rounding++ == 0) first_bad_float = f;
  }
  INFO(probes.size() << " floats; first disagreement at " << std::hexfloat << first_bad_float);
  CHECK(bad_rounding == 0);
}

TEST_CASE("numerics: the active SIMD variant converts float16 bit for bit like tally::half") {
  // The vector conversions (F16C on x86, FCVTL/FCVTN on Arm) against tally::half, NaN
  // payloads included: tally::half is checked against the reference above, and the
  // scalar and SIMD paths must write the same bits for the same float32 running value.
  // The columns kernel of the variant in use converts whole vectors: an exclusive row
  // that continues carries writes its running values (float -> half), and an inclusive
  // row from -0.0 running values keeps each input's value (half -> float -> half). Both
  // pass their running values as carries: a kernel starting without carries does not read
  // them, and its identity (-0.0, a constant) lets the compiler drop the first row's add,
  // which quiets a signalling NaN in the conversion's place (GCC for NEON).
  using tally::detail::sum_op;
  const auto& kernels = tally::detail::select_kernels<sum_op, half>();
  INFO("SIMD variant " << tally::to_string(tally::active_simd_variant()));

  std::vector<float> running = rounding_probes();
  const std::size_t n = running.size();
  const std::vector<half> zeros(n, half::from_bits(0));
  std::vector<half> written(n);
  std::vector<float> expected_floats = running;
  kernels.columns(zeros.data(), 0, written.data(), 0, n, 1, running.data(), true, true, false, nullptr);
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (written[i].bits != half(expected_floats[i]).bits && bad++ == 0) first_bad = i;
  INFO(n << " floats; first disagreement at " << std::hexfloat << expected_floats[first_bad] << " -> 0x" << std::hex
          << written[first_bad].bits << ", tally::half 0x" << half(expected_floats[first_bad]).bits);
  CHECK(bad == 0);

  std::vector<half> patterns(0x10000);
  for (std::uint32_t b = 0; b <= 0xffff; ++b) patterns[b] = half::from_bits(static_cast<std::uint16_t>(b));
  std::vector<float> decoded(patterns.size(), -0.0f);
  written.assign(patterns.size(), half{});
  kernels.columns(patterns.data(), 0, written.data(), 0, patterns.size(), 1, decoded.data(), false, true, false, nullptr);
  std::size_t bad_decode = 0, bad_write = 0;
  for (std::size_t b = 0; b < patterns.size(); ++b) {
    const float value = static_cast<float>(patterns[b]);
    if (std::memcmp(&decoded[b], &value, sizeof value) != 0 && bad_decode++ == 0) first_bad = b;
    if (written[b].bits != half(value).bits && bad_write++ == 0) first_bad = b;
  }
  INFO("first bad float16 pattern 0x" << std::hex << first_bad);
  CHECK(bad_decode == 0);
  CHECK(bad_write == 0);
}

// ---------------------------------------------------------------------------------------
// float16: overflow and subnormals (bit patterns worked out by hand)

namespace {

/// Runs `in` (half bits) through every shape, both directions (the decreasing run gets
/// the reversed line), and checks the output bits.
void check_half_bits(bool product, const std::vector<std::uint16_t>& in, const std::vector<std::uint16_t>& expected) {
  for (bool decreasing : {false, true}) {
    std::vector<half> x(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) x[i] = half::from_bits(in[decreasing ? in.size() - 1 - i : i]);
    scan_case c;
    c.product = product;
    c.decreasing = decreasing;
    for (const auto& [shape, y] : scan_all_shapes(x, c)) {
      for (std::size_t i = 0; i < y.size(); ++i) {
        const std::size_t k = decreasing ? y.size() - 1 - i : i;
        INFO(describe(c) << ", shape " << shape << ", element " << i);
        CHECK(y[k].bits == expected[i]);
      }
    }
  }
}

}  // namespace

TEST_CASE("numerics: float16 sums round to infinity on write but accumulate on in float32") {
  // 60000 = 0x7B53; 60000 + 60000 = 120000 > 65504 writes +Inf (0x7C00); the float32 running
  // value 120000 - 60000 = 60000 is finite again. (NumPy, accumulating in float16, stays Inf.)
  check_half_bits(false, {0x7B53, 0x7B53, 0xFB53}, {0x7B53, 0x7C00, 0x7B53});
  check_half_bits(false, {0xFB53, 0xFB53, 0x7B53}, {0xFB53, 0xFC00, 0xFB53});
  // 65504 (0x7BFF) + 16 = 65520: the tie above the largest half rounds to Inf;
  // 65504 + 8 = 65512 rounds back down to 65504.
  check_half_bits(false, {0x7BFF, 0x4C00}, {0x7BFF, 0x7C00});
  check_half_bits(false, {0x7BFF, 0x4800}, {0x7BFF, 0x7BFF});
  check_half_bits(false, {0xFBFF, 0xCC00}, {0xFBFF, 0xFC00});
  // Products: 256 * 256 = 65536 writes Inf, * 2^-8 gives 256 again.
  check_half_bits(true, {0x5C00, 0x5C00, 0x1C00}, {0x5C00, 0x7C00, 0x5C00});
  // 1024 added 64 times reaches 65536 (Inf from element 63 on) and keeps counting in float32;
  // 64 subtractions of 1024 come back to finite values, and the final total is 0.
  std::vector<std::uint16_t> in, expected;
  for (int i = 1; i <= 128; ++i) {
    in.push_back(i <= 64 ? 0x6400 : 0xE400);  // +1024, -1024
    const int total = i <= 64 ? 1024 * i : 1024 * (128 - i);
    // Multiples of 1024 up to 65504 are exact: 1024 * m = 2^10 * m.
    if (total > 65504) {
      expected.push_back(0x7C00);
    } else if (total == 0) {
      expected.push_back(0x0000);  // 1024 + -1024 = +0 in round-to-nearest
    } else {
      int e = 0;
      while ((total >> (e + 1)) != 0) ++e;  // total = 2^e * (1 + f)
      const int mantissa = ((total - (1 << e)) << 10) >> e;
      expected.push_back(static_cast<std::uint16_t>(((e + 15) << 10) | mantissa));
    }
  }
  check_half_bits(false, in, expected);
}

TEST_CASE("numerics: float16 subnormals are kept, summed and rounded to nearest even") {
  // 0x0001 is 2^-24, the smallest subnormal. Its multiples k * 2^-24 for k < 2048 have
  // the bit pattern k itself (subnormal below 1024, normal with exponent 1 above).
  {
    const std::vector<std::uint16_t> in(2047, 0x0001);
    std::vector<std::uint16_t> expected(2047);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::uint16_t>(i + 1);
    check_half_bits(false, in, expected);
  }
  check_half_bits(false, {0x03FF, 0x0001}, {0x03FF, 0x0400});  // the largest subnormal + 2^-24 = 2^-14
  check_half_bits(false, {0x8001, 0x8001}, {0x8001, 0x8002});
  check_half_bits(false, {0x0001, 0x8001}, {0x0001, 0x0000});  // 2^-24 - 2^-24 = +0
  check_half_bits(false, {0x8400, 0x0001}, {0x8400, 0x83FF});  // -2^-14 + 2^-24 is subnormal
  // Products round each written value to nearest even, while float32 keeps the exact value:
  // 2^-24 * 0.5 = 2^-25 is the tie between 0 and 2^-24 and writes +0; * 4 writes 2^-23.
  check_half_bits(true, {0x0001, 0x3800, 0x4400}, {0x0001, 0x0000, 0x0002});
  // 2^-23 * 1.25 = 2.5 * 2^-24 -> 2 (even); 2^-23 * 1.75 = 3.5 * 2^-24 -> 4 (even).
  check_half_bits(true, {0x0002, 0x3D00}, {0x0002, 0x0002});
  check_half_bits(true, {0x0002, 0x3F00}, {0x0002, 0x0004});
  // 3 * 2^-24 * 0.5 = 1.5 * 2^-24 -> 2; negative: -1.5 * 2^-24 -> -2.
  check_half_bits(true, {0x0003, 0x3800}, {0x0003, 0x0002});
  check_half_bits(true, {0x0003, 0xB800}, {0x0003, 0x8002});
  // 2^-24 * 2^-24 = 2^-48 writes +0; times -1 writes -0 (the float32 value is -2^-48).
  check_half_bits(true, {0x0001, 0x0001, 0xBC00}, {0x0001, 0x0000, 0x8000});
}

TEST_CASE("numerics: float32 and float64 subnormals are not flushed to zero") {
  const float tiny_f = std::numeric_limits<float>::denorm_min();
  const double tiny_d = std::numeric_limits<double>::denorm_min();
  std::vector<double> xf(300, static_cast<double>(tiny_f)), xd(300, tiny_d);
  // k * denorm_min is exact for every k here. Products are left out for float: they
  // underflow to 0 in float32 but not in the float64 reference.
  check_exact<float>(xf, true);
  check_exact<double>(xd);
}

// ---------------------------------------------------------------------------------------
// Integer wrap-around

namespace {

using tally_test::wrap_to;

/// x[0] (+ or *) ... (+ or *) x[i] modulo 2^bits of T: the reference's sequential scan,
/// computed in uint64 (whose own wrap-around is modulo 2^64, a multiple of 2^bits) and
/// truncated.
template <class T>
std::vector<T> wrap_reference(const std::vector<T>& x, const scan_case& c) {
  return tally_test::reference_scan_packed<T>(c.product ? scan_op::product : scan_op::sum, {x.size()}, 0,
                                              c.decreasing, c.exclusive, x);
}

template <class T>
void check_wrap(const std::vector<T>& x) {
  for (bool product : {false, true})
    for (bool decreasing : {false, true})
      for (bool exclusive : {false, true})
        for (unsigned threads : {1u, 2u}) {
          const scan_case c{product, decreasing, exclusive, threads};
          const std::vector<T> expected = wrap_reference(x, c);
          for (const auto& [shape, y] : scan_all_shapes(x, c)) {
            INFO(describe(c) << ", shape " << shape << ", length " << x.size());
            std::size_t first_bad = y.size();
            for (std::size_t i = 0; i < y.size() && first_bad == y.size(); ++i)
              if (y[i] != expected[i]) first_bad = i;
            if (first_bad != y.size()) {
              INFO("first mismatch at " << first_bad << ": got " << +y[first_bad] << ", expected "
                                        << +expected[first_bad]);
              CHECK(first_bad == y.size());
            }
          }
        }
}

}  // namespace

TEMPLATE_TEST_CASE("numerics: integers wrap around in their own width, sum and product", "", std::int8_t,
                   std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t,
                   std::uint64_t) {
  using T = TestType;
  using L = std::numeric_limits<T>;
  constexpr int bits = 8 * sizeof(T);
  const T one = 1;
  const T two_to_half = static_cast<T>(std::uint64_t{1} << (bits / 2));  // squared: 2^bits == 0

  SECTION("edge values") {
    // max + 1 wraps to min; min + -1 (or max + max for unsigned) wraps the other way.
    check_wrap<T>({L::max(), one});
    check_wrap<T>({L::min(), static_cast<T>(L::max()), L::max()});
    check_wrap<T>({two_to_half, two_to_half, one});  // the product reaches exactly 2^bits -> 0
    check_wrap<T>({static_cast<T>(-1), L::min(), L::max()});
    check_wrap<T>({L::max(), L::max(), L::max(), L::max()});
    // Spelled out without the reference: max + 1 is min, and 2^(bits/2) squared is 0.
    std::vector<T> in = {L::max(), one}, out(2);
    tally::cumsum<T>(tally::tensor_view<const T>(in.data(), {2}), tally::tensor_view<T>(out.data(), {2}), 0);
    CHECK(out[1] == L::min());
    in = {two_to_half, two_to_half};
    tally::cumprod<T>(tally::tensor_view<const T>(in.data(), {2}), tally::tensor_view<T>(out.data(), {2}), 0);
    CHECK(out[1] == 0);
  }
  SECTION("random full-range values on long lines") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(bits) * 1000 + (std::is_signed_v<T> ? 1 : 0));
    for (std::size_t n : {5u, 4099u, 10000u}) {
      std::vector<T> x(n);
      // Odd values keep long products from collapsing to 0; a few evens make them wrap to 0.
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t r = rng();
        if (rng() % 64 != 0) r |= 1;
        x[i] = wrap_to<T>(r);
      }
      CAPTURE(n);
      check_wrap<T>(x);
    }
  }
}

// ---------------------------------------------------------------------------------------
// float32 error bound on a long line

TEST_CASE("numerics: float32 cumsum of 10^7 elements stays within i * eps * sum|x| of a float64 reference") {
  const std::size_t n = 10'000'000;
  const double eps = FLT_EPSILON;
  for (int distribution = 0; distribution < 2; ++distribution) {
    std::mt19937 rng(4242 + static_cast<unsigned>(distribution));
    // Values in [0, 1) or [-1, 1), built from 24 random bits so they are exact floats.
    std::vector<float> x(n);
    for (float& v : x) {
      const float u = static_cast<float>(rng() >> 8) * 0x1p-24f;
      v = distribution == 0 ? u : 2.0f * u - 1.0f;
    }
    std::vector<float> y1(n), y2(n);
    tally::scan_options options;
    options.threads = 1;
    tally::cumsum<float>(tally::tensor_view<const float>(x.data(), {n}), tally::tensor_view<float>(y1.data(), {n}), 0,
                         options);
    options.threads = 2;
    tally::cumsum<float>(tally::tensor_view<const float>(x.data(), {n}), tally::tensor_view<float>(y2.data(), {n}), 0,
                         options);
    INFO("distribution " << (distribution == 0 ? "[0, 1)" : "[-1, 1)"));
    CHECK(std::memcmp(y1.data(), y2.data(), n * sizeof(float)) == 0);  // bitwise for every thread count

    // Sequential float64 reference; its own error (about i * 2^-53 * sum|x|) is far below
    // the float32 bound being checked.
    double reference = 0, magnitude = 0, worst_ratio = 0;
    std::size_t violations = 0, first_violation = 0;
    for (std::size_t i = 0; i < n; ++i) {
      reference += static_cast<double>(x[i]);
      magnitude += std::fabs(static_cast<double>(x[i]));
      const double error = std::fabs(static_cast<double>(y1[i]) - reference);
      const double bound = static_cast<double>(i) * eps * magnitude;
      if (error > bound && violations++ == 0) first_violation = i;
      if (bound > 0) worst_ratio = std::max(worst_ratio, error / bound);
    }
    INFO("first violation at " << first_violation << "; worst error / bound " << worst_ratio);
    CHECK(violations == 0);
    CHECK(y1[0] == x[0]);  // a single term is exact
  }
}
