// libFuzzer target for the scan vocabulary (shared/spec/scan-vocabulary.md): cumsum into a
// wider type, cumprod float -> double, nancumsum, nancumprod, cummax with indices, cummin
// without, logcumsumexp, a user operator (2x2 matrices modulo a prime: associative, not
// commutative), segmented cumsum, and the SIMD engine's cumsum with include_initial.
//
// Arbitrary bytes choose the function, a rank 1..4, sizes (0 included), an axis, the
// direction, exclusive, include_initial (sometimes with a wrong output length), strided
// layouts (fuzz_input.hpp) and, for functions whose input and output share a type, one
// buffer for both (in place, shifted, interleaved). The property: a call either throws
// tally::error having written nothing, or leaves every buffer as the oracle
// (tests/support/reference.hpp) computes from a copy of the input taken before the call,
// and a call the rules accept never throws (except the conservative overlapping_output
// refusal of interleaving outputs).
#include <tally/tally.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "fuzz_input.hpp"
#include "support/bits.hpp"
#include "support/reference.hpp"

namespace {

using fuzz::byte_reader;
using fuzz::fail;
using fuzz::layout;
using tally_test::scan_op;

struct mat2 {
  std::int64_t a, b, c, d;
};
constexpr std::int64_t prime = 1000003;
mat2 multiply_mod(const mat2& x, const mat2& y) {
  return {(x.a * y.a + x.b * y.c) % prime, (x.a * y.b + x.b * y.d) % prime, (x.c * y.a + x.d * y.c) % prime,
          (x.c * y.b + x.d * y.d) % prime};
}

enum function : int {
  widening_sum,   // cumsum int16 -> int64
  product_f64,    // cumprod float -> double
  nan_sum,        // nancumsum float
  nan_product,    // nancumprod double
  max_indices,    // cummax float with indices
  min_values,     // cummin int32 without indices
  log_sum_exp,    // logcumsumexp float (scan_accuracy::fast without flag 0x80)
  user_matrices,  // scan of mat2
  segmented_sum,  // cumsum float with resets
  simd_initial,   // cumsum int32 on the SIMD engine (include_initial among the modes); with
                  // flag 0x80 float32 under scan_accuracy::exact instead (the elements are
                  // half-integers: every sum is exact, so the sequential fold's bits)
  function_count
};

template <class T>
T element(fuzz::random_bits& rng, bool nans) {
  static_cast<void>(nans);  // floats only
  const std::uint64_t v = rng.next();
  if constexpr (std::is_same_v<T, mat2>) {
    const auto small = [&](int shift) { return static_cast<std::int64_t>((v >> shift) % 5) - 2; };
    return mat2{small(0), small(8), small(16), small(24)};
  } else if constexpr (std::is_integral_v<T>) {
    T x;
    std::memcpy(&x, &v, sizeof x);
    return x;
  } else {
    if (nans && v % 5 == 0) return std::numeric_limits<T>::quiet_NaN();
    if (v % 13 == 1) return (v & 64) ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    return static_cast<T>(static_cast<int>((v >> 8) % 17) - 8) / 2;
  }
}

/// Same bits, or both NaN (payloads are not specified).
template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct decoded {
  int fn;
  std::size_t rank, axis;
  int axis_arg;
  bool axis_ok, decreasing, exclusive, include_initial, wrong_length, separate, threads, exact;
  std::size_t sizes[9], out_sizes[9];
  layout in_l, out_l, aux_l;  // aux: indices (cummax) or resets (segmented)
  std::int64_t in_base, out_base;
};

template <class In, class Out>
void run(byte_reader& r, decoded& c) {
  constexpr bool shareable = std::is_same_v<In, Out>;
  const bool has_aux = c.fn == max_indices || c.fn == segmented_sum;
  // Buffers: the input (and the output when shared), the output, the auxiliary operand.
  const std::int64_t in_end = c.in_base + c.in_l.high + 1, out_end = c.out_base + c.out_l.high + 1;
  const bool separate = c.separate || !shareable;
  if (std::max(in_end, out_end) > fuzz::max_arena_elements || in_end + out_end > fuzz::max_arena_elements) return;
  const std::int64_t aux_base = -c.aux_l.low;
  const std::int64_t aux_end = has_aux ? aux_base + c.aux_l.high + 1 : 1;
  if (aux_end > fuzz::max_arena_elements) return;

  // The oracle walks each line with buffers of its own: bound one input's work. (An empty
  // axis with include_initial gave 2^18 lines of one output each, 50 s under ASan.)
  std::size_t lines = 1;
  for (std::size_t d = 0; d < c.rank; ++d)
    if (d != c.axis) lines *= c.sizes[d];
  if (lines > (std::size_t{1} << 12) || lines * c.out_sizes[c.axis] > (std::size_t{1} << 16)) return;

  fuzz::random_bits rng{r.u64()};
  const bool nans = c.fn == nan_sum || c.fn == nan_product || (rng.next() & 1);
  std::vector<In> a(static_cast<std::size_t>(separate ? in_end : std::max(in_end, out_end)));
  for (In& x : a) x = element<In>(rng, nans);
  std::vector<Out> b(separate ? static_cast<std::size_t>(out_end) : 0);
  for (Out& x : b) x = element<Out>(rng, nans);
  std::vector<std::int64_t> indices(static_cast<std::size_t>(aux_end), -5);
  std::vector<std::uint8_t> resets(static_cast<std::size_t>(aux_end));
  for (std::uint8_t& f : resets) f = (rng.next() % 4 == 0) ? static_cast<std::uint8_t>(rng.next() | 1) : 0;
  const std::vector<In> a_before = a;
  const std::vector<Out> b_before = b;
  Out* out_arena;
  if constexpr (shareable)
    out_arena = separate ? b.data() : a.data();
  else
    out_arena = b.data();

  const bool no_identity = c.fn == max_indices || c.fn == min_values;
  const bool out_shape_ok = !c.wrong_length;
  bool must_succeed = c.axis_ok && out_shape_ok && !(c.exclusive && c.include_initial) &&
                      !(no_identity && (c.exclusive || c.include_initial)) && fuzz::distinct_addresses(c.out_l) &&
                      (c.fn != max_indices || fuzz::distinct_addresses(c.aux_l));
  const bool may_refuse_as_overlap =
      (fuzz::interleaving(c.out_l) && !c.out_l.empty()) ||
      (c.fn == max_indices && fuzz::interleaving(c.aux_l) && !c.aux_l.empty());

  tally::scan_options options(c.decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing,
                              c.exclusive, c.threads ? 3u : 1u);
  options.include_initial = c.include_initial;
  if (c.exact) options.accuracy = tally::scan_accuracy::exact;
  if (c.fn == log_sum_exp && !c.exact) options.accuracy = tally::scan_accuracy::fast;
  bool threw = false;
  try {
    const tally::tensor_view<const In> in(a.data() + c.in_base, c.rank, c.sizes, c.in_l.strides);
    const tally::tensor_view<Out> out(out_arena + c.out_base, c.rank, c.out_sizes, c.out_l.strides);
    const int axis = c.axis_arg;
    switch (c.fn) {
      case widening_sum:
        if constexpr (std::is_same_v<In, std::int16_t>) tally::cumsum<In, Out>(in, out, axis, options);
        break;
      case product_f64:
        if constexpr (std::is_same_v<Out, double> && std::is_same_v<In, float>)
          tally::cumprod<In, Out>(in, out, axis, options);
        break;
      case nan_sum:
        if constexpr (shareable && std::is_floating_point_v<In>) tally::nancumsum<In>(in, out, axis, options);
        break;
      case nan_product:
        if constexpr (shareable && std::is_floating_point_v<In>) tally::nancumprod<In>(in, out, axis, options);
        break;
      case max_indices:
        if constexpr (shareable && std::is_arithmetic_v<In>)
          tally::cummax<In>(in, out,
                            tally::tensor_view<std::int64_t>(indices.data() + aux_base, c.rank, c.sizes,
                                                             c.aux_l.strides),
                            axis, options);
        break;
      case min_values:
        if constexpr (shareable && std::is_arithmetic_v<In>) tally::cummin<In>(in, out, axis, options);
        break;
      case log_sum_exp:
        if constexpr (shareable && std::is_floating_point_v<In>) tally::logcumsumexp<In>(in, out, axis, options);
        break;
      case user_matrices:
        if constexpr (std::is_same_v<In, mat2>)
          tally::scan<mat2>(in, out, axis, multiply_mod, mat2{1, 0, 0, 1}, options);
        break;
      case segmented_sum:
        if constexpr (shareable && std::is_arithmetic_v<In>)
          tally::cumsum<In>(in, out, axis,
                            tally::tensor_view<const std::uint8_t>(resets.data() + aux_base, c.rank, c.sizes,
                                                                   c.aux_l.strides),
                            options);
        break;
      case simd_initial:
        if constexpr (shareable && std::is_arithmetic_v<In>) tally::cumsum<In>(in, out, axis, options);
        break;
    }
  } catch (const tally::error& e) {
    threw = true;
    if (must_succeed && !(may_refuse_as_overlap && e.code() == tally::status_code::overlapping_output)) {
      std::fprintf(stderr, "function %d threw %s: %s\n", c.fn, to_string(e.code()), e.what());
      fail("a vocabulary call the rules accept was refused");
    }
  }
  const bool indices_kept = std::all_of(indices.begin(), indices.end(), [](std::int64_t v) { return v == -5; });
  if (threw) {
    if (!tally_test::same_bits(a, a_before) || !tally_test::same_bits(b, b_before) || !indices_kept)
      fail("a refused vocabulary call changed a buffer");
    return;
  }
  if (!must_succeed) fail("a vocabulary call the rules refuse was accepted");

  // Expected: the snapshots, with every output element replaced by the oracle's line.
  std::vector<In> want_a = a_before;
  std::vector<Out> want_b = b_before;
  std::vector<std::int64_t> want_indices(indices.size(), -5);
  Out* want_out;
  if constexpr (shareable)
    want_out = separate ? want_b.data() : want_a.data();
  else
    want_out = want_b.data();
  const tally_test::line_mode m{c.decreasing, c.exclusive, c.include_initial};
  std::vector<bool> tolerant(separate ? want_b.size() : want_a.size(), false);
  std::vector<long double> wide(tolerant.size());
  const std::size_t n = c.sizes[c.axis];
  tally_test::for_each_line(c.rank, c.sizes, c.axis, [&](const std::size_t* index) {
    std::vector<std::size_t> i(index, index + c.rank);
    std::vector<In> line(n);
    std::vector<std::uint8_t> flags(n);
    const auto at = [&](const layout& l, std::int64_t base) { return base + tally_test::offset_of(c.rank, i.data(), l.strides); };
    for (std::size_t k = 0; k < n; ++k) {
      i[c.axis] = k;
      line[k] = a_before[static_cast<std::size_t>(at(c.in_l, c.in_base))];
      if (c.fn == segmented_sum) flags[k] = resets[static_cast<std::size_t>(at(c.aux_l, aux_base))];
    }
    const std::size_t out_n = c.out_sizes[c.axis];
    const auto put = [&](std::size_t k, const Out& v) {
      i[c.axis] = k;
      want_out[at(c.out_l, c.out_base)] = v;
    };
    if constexpr (std::is_same_v<In, mat2>) {
      const std::vector<mat2> y = tally_test::vocabulary_line<mat2, mat2>(
          n, m.decreasing, m.exclusive, m.include_initial, mat2{1, 0, 0, 1}, mat2{1, 0, 0, 1},
          [&](mat2& s, std::size_t k) { s = multiply_mod(s, line[k]); }, [](const mat2& s) { return s; },
          [](std::size_t) { return false; });
      for (std::size_t k = 0; k < out_n; ++k) put(k, y[k]);
    } else if (c.fn == max_indices || c.fn == min_values) {
      const std::vector<std::int64_t> y = tally_test::extremum_line(c.fn == max_indices, line, c.decreasing);
      for (std::size_t k = 0; k < out_n; ++k) {
        put(k, static_cast<Out>(line[static_cast<std::size_t>(y[k])]));
        if (c.fn == max_indices) want_indices[static_cast<std::size_t>(at(c.aux_l, aux_base))] = y[k];
      }
    } else if (c.fn == log_sum_exp) {
      const std::vector<long double> y = tally_test::logcumsumexp_line(line, m);
      for (std::size_t k = 0; k < out_n; ++k) {
        i[c.axis] = k;
        const auto e = static_cast<std::size_t>(at(c.out_l, c.out_base));
        tolerant[e] = true;
        wide[e] = y[k];
      }
    } else {
      const scan_op op = c.fn == product_f64 || c.fn == nan_product ? scan_op::product : scan_op::sum;
      const bool nan = c.fn == nan_sum || c.fn == nan_product;
      const std::vector<Out> y = tally_test::arithmetic_line<In, Out>(op, nan, line, m, flags);
      for (std::size_t k = 0; k < out_n; ++k) put(k, y[k]);
    }
  });
  const auto check = [&](const std::vector<Out>& got, const std::vector<Out>& want, bool is_output_buffer) {
    for (std::size_t k = 0; k < got.size(); ++k) {
      if (is_output_buffer && tolerant[k]) {
        if constexpr (std::is_floating_point_v<Out>) {
          const long double w = wide[k], g = got[k];
          const bool ok = std::isnan(w) ? std::isnan(g)
                          : std::isinf(w) ? g == w
                                          : std::fabs(g - w) <= 4 * std::max(std::fabs(w), 8.0L) *
                                                                    std::numeric_limits<Out>::epsilon();
          if (!ok) fail("logcumsumexp differs from the oracle by more than a few ulp");
        }
        continue;
      }
      // nancumprod along a contiguous line runs the SIMD engine's product kernel, which
      // regroups the multiplications (docs/vocabulary.md): a finite nonzero product may
      // round differently from the sequential fold, by at most a few eps per factor (at
      // most 2^16 factors here); zeros, infinities and NaN land where the fold puts them.
      if constexpr (std::is_floating_point_v<Out>)
        if (c.fn == nan_product && is_output_buffer && std::isfinite(want[k]) && want[k] != 0 &&
            std::fabs(got[k] - want[k]) <= std::ldexp(std::fabs(want[k]), -34))
          continue;
      if (!same(got[k], want[k])) {
        std::fprintf(stderr, "function %d element %zu differs (rank %zu axis %d decreasing %d exclusive %d initial %d)\n",
                     c.fn, k, c.rank, c.axis_arg, c.decreasing, c.exclusive, c.include_initial);
        fail("a vocabulary result differs from the oracle");
      }
    }
  };
  if constexpr (shareable) {
    check(a, want_a, !separate);
    check(b, want_b, separate);
  } else {
    if (!tally_test::same_bits(a, want_a)) fail("the input changed");
    check(b, want_b, true);
  }
  if (indices != want_indices) fail("cummax indices differ from the oracle");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  byte_reader r{data, size};
  decoded c{};
  c.fn = r.u8() % function_count;
  const std::uint8_t flags = r.u8();
  c.decreasing = flags & 1;
  c.exclusive = flags & 2;
  c.include_initial = flags & 4;
  c.wrong_length = (flags & 0x18) == 0x18;
  c.separate = flags & 0x20;
  c.threads = flags & 0x40;
  c.exact = flags & 0x80;
  c.rank = 1 + r.u8() % 4u;
  const int axis_byte = static_cast<std::int8_t>(r.u8()) % 6;
  c.axis_arg = axis_byte;
  const int signed_rank = static_cast<int>(c.rank);
  c.axis_ok = axis_byte >= -signed_rank && axis_byte < signed_rank;
  c.axis = c.axis_ok ? static_cast<std::size_t>(axis_byte < 0 ? axis_byte + signed_rank : axis_byte) : 0;
  for (std::size_t d = 0; d < c.rank; ++d) c.out_sizes[d] = c.sizes[d] = fuzz::decode_size(r);
  if (c.axis_ok && c.include_initial) c.out_sizes[c.axis] += 1;
  if (c.wrong_length) c.out_sizes[c.axis] += 1;
  c.in_l = fuzz::decode_layout(r, c.rank, c.sizes);
  c.out_l = fuzz::decode_layout(r, c.rank, c.out_sizes);
  c.aux_l = fuzz::decode_layout(r, c.rank, c.sizes);
  c.in_base = -c.in_l.low + r.u8() % 16;
  c.out_base = -c.out_l.low + r.u8() % 16;
  if (!c.axis_ok) c.axis = 0;  // the oracle is not consulted: the call must throw
  switch (c.fn) {
    case widening_sum: run<std::int16_t, std::int64_t>(r, c); break;
    case product_f64: run<float, double>(r, c); break;
    case nan_sum: run<float, float>(r, c); break;
    case nan_product: run<double, double>(r, c); break;
    case max_indices: run<float, float>(r, c); break;
    case min_values: run<std::int32_t, std::int32_t>(r, c); break;
    case log_sum_exp: run<float, float>(r, c); break;
    case user_matrices: run<mat2, mat2>(r, c); break;
    case segmented_sum: run<float, float>(r, c); break;
    default: c.exact ? run<float, float>(r, c) : run<std::int32_t, std::int32_t>(r, c); break;
  }
  return 0;
}
