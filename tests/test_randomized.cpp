// Randomized comparison of both front doors against the independent scalar reference
// (tests/support/reference.hpp): every element type, ranks 1..8, odd sizes, every axis, both
// directions and modes, sum and product, over packed, permuted, padded, broadcast,
// reversed and in-place layouts. Output buffers carry canaries around and between the
// elements, and every byte outside the output view must come back unchanged.
//
// Every case is built from its own seed, printed on failure; set TALLY_TEST_SEED=<seed>
// to run that one case alone (see docs/testing.md).
#include <tally/tally.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "support/bits.hpp"
#include "support/calls.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

namespace {

using tally_test::for_each_index;
using tally_test::one_in;
using tally_test::pick;
using tally_test::rng_t;
using tally_test::scan_op;
using tally_test::type_count;
using tally_test::unit;

enum class front_door { descriptor, typed };
enum class data_kind { exact, real };

/// One randomized case, fully determined by its seed and the three fixed choices.
struct scan_case {
  std::uint64_t seed = 0;
  front_door door = front_door::descriptor;
  data_kind data = data_kind::exact;
  int type = 0;  // index into tally_test::element_types
  scan_op op = scan_op::sum;
  std::size_t rank = 1;
  std::size_t sizes[8] = {};
  std::size_t axis = 0;
  int axis_argument = 0;  // typed layer: the axis as passed (maybe negative)
  bool decreasing = false, exclusive = false, in_place = false;
  bool packed_in = false, packed_out = false;  // descriptor layer: strides = nullptr
  std::ptrdiff_t in_strides[8] = {}, out_strides[8] = {};
  unsigned threads = 1;
};

std::string describe(const scan_case& c) {
  std::ostringstream s;
  s << "seed " << c.seed << " (TALLY_TEST_SEED=" << c.seed << ")"
    << (c.door == front_door::descriptor ? " descriptor" : " typed") << " "
    << tally_test::type_name(static_cast<std::size_t>(c.type))
    << (c.op == scan_op::sum ? " sum" : " product") << (c.data == data_kind::exact ? " exact" : " real")
    << " sizes {";
  for (std::size_t d = 0; d < c.rank; ++d) s << (d ? "," : "") << c.sizes[d];
  s << "} axis " << c.axis << " (argument " << c.axis_argument << ")" << (c.decreasing ? " decreasing" : " increasing")
    << (c.exclusive ? " exclusive" : " inclusive") << (c.in_place ? " in-place" : "") << " threads " << c.threads
    << " in_strides " << (c.packed_in ? "null " : "") << "{";
  for (std::size_t d = 0; d < c.rank; ++d) s << (d ? "," : "") << c.in_strides[d];
  s << "} out_strides " << (c.packed_out ? "null " : "") << "{";
  for (std::size_t d = 0; d < c.rank; ++d) s << (d ? "," : "") << c.out_strides[d];
  s << "}";
  return s.str();
}

/// Strides of a random layout: dimensions nested in a random order (permuted), with gaps
/// (padded), zero strides (broadcast, inputs only), negative strides (reversed, typed layer
/// only), and arbitrary strides on size-1 dimensions, which must be ignored.
void make_layout(rng_t& rng, std::size_t rank, const std::size_t* sizes, bool allow_broadcast,
                 bool allow_negative, std::ptrdiff_t* strides, bool* is_packed) {
  std::size_t order[8];
  for (std::size_t d = 0; d < rank; ++d) order[d] = d;
  const bool permuted = one_in(rng, 2);
  const bool padded = one_in(rng, 3);
  if (permuted)
    for (std::size_t i = rank; i-- > 1;) std::swap(order[i], order[pick(rng, i + 1)]);
  std::ptrdiff_t stride = padded && one_in(rng, 3) ? 2 : 1;
  for (std::size_t k = rank; k-- > 0;) {
    const std::size_t d = order[k];
    strides[d] = stride;
    // An empty dimension counts as 1, as PyTorch does, so that the other strides stay
    // distinct (tally's own packed empty views are tested on their own below).
    stride = stride * static_cast<std::ptrdiff_t>(std::max<std::size_t>(sizes[d], 1)) +
             (padded ? static_cast<std::ptrdiff_t>(pick(rng, 4)) : 0);
  }
  bool odd_unit_strides = false;
  for (std::size_t d = 0; d < rank; ++d)
    if (sizes[d] == 1 && one_in(rng, 3)) {
      strides[d] = static_cast<std::ptrdiff_t>(pick(rng, 1000));
      odd_unit_strides = true;
    }
  bool broadcast = false;
  if (allow_broadcast && one_in(rng, 4))
    for (std::size_t d = 0; d < rank; ++d)
      if (one_in(rng, 3)) {
        strides[d] = 0;
        broadcast = true;
      }
  bool negative = false;
  if (allow_negative && one_in(rng, 3))
    for (std::size_t d = 0; d < rank; ++d)
      if (one_in(rng, 2)) {
        strides[d] = -strides[d];
        negative = true;
      }
  // The typed layer takes any stride on a size-1 dimension, as NumPy does, the extremes
  // of ptrdiff_t included: none of them may enter any arithmetic.
  if (allow_negative)
    for (std::size_t d = 0; d < rank; ++d)
      if (sizes[d] == 1 && one_in(rng, 8)) {
        strides[d] = one_in(rng, 2) ? PTRDIFF_MAX : PTRDIFF_MIN;
        odd_unit_strides = true;
      }
  *is_packed = !permuted && !padded && !odd_unit_strides && !broadcast && !negative;
}

/// `large`: 2 to 4 dimensions of 2,000 to 40,000 elements with some dimensions in the
/// thousands, to reach tally's tiled shapes (several column tiles, gathered tiles).
scan_case make_case(std::uint64_t seed, front_door door, data_kind data, bool large = false) {
  rng_t rng(seed);
  scan_case c;
  c.seed = seed;
  c.door = door;
  c.data = data;
  c.type = static_cast<int>(pick(rng, type_count));
  if (data == data_kind::real) c.type = static_cast<int>(pick(rng, 3));  // the floating-point types
  static_assert(std::is_same_v<tally_test::type_at_t<0>, float> &&
                    std::is_same_v<tally_test::type_at_t<1>, tally::half> &&
                    std::is_same_v<tally_test::type_at_t<2>, double>,
                "element_types starts with the three floating-point types");
  c.op = one_in(rng, 2) ? scan_op::sum : scan_op::product;
  c.rank = 1 + pick(rng, 8);
  c.axis = pick(rng, c.rank);
  c.decreasing = one_in(rng, 2);
  c.exclusive = one_in(rng, 2);
  c.threads = static_cast<unsigned>(1 + pick(rng, 3));

  // Sizes: odd and small on average, a few long lines along the axis.
  static const std::size_t small_sizes[] = {1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 13, 16, 17};
  static const std::size_t tiny_sizes[] = {1, 1, 2, 2, 3, 5};
  const bool long_line = !large && one_in(rng, 16);
  if (large) {
    static const std::size_t large_sizes[] = {2, 3, 5, 17, 33, 67, 300, 517, 4100, 5003};
    c.rank = 2 + pick(rng, 3);
    c.axis = pick(rng, c.rank);
    for (;;) {
      std::size_t count = 1;
      for (std::size_t d = 0; d < c.rank; ++d) count *= c.sizes[d] = large_sizes[pick(rng, 10)];
      if (count >= 2000 && count <= 40000) break;
    }
  }
  while (!large) {
    std::size_t count = 1;
    for (std::size_t d = 0; d < c.rank; ++d) {
      c.sizes[d] = c.rank >= 5 ? tiny_sizes[pick(rng, 6)] : small_sizes[pick(rng, 13)];
      if (long_line && d != c.axis) c.sizes[d] = 1 + pick(rng, 3);
      count *= c.sizes[d];
    }
    if (long_line) {
      static const std::size_t long_sizes[] = {67, 131, 67, 131, 4099};
      c.sizes[c.axis] = long_sizes[pick(rng, 5)];
      if (c.sizes[c.axis] == 4099)
        for (std::size_t d = 0; d < c.rank; ++d)
          if (d != c.axis) c.sizes[d] = 1 + (one_in(rng, 4) ? 1 : 0);
      break;
    }
    if (count <= 1500) break;
  }
  // Real-valued products stay short so that the magnitudes stay in range.
  if (data == data_kind::real && c.op == scan_op::product) c.sizes[c.axis] = std::min<std::size_t>(c.sizes[c.axis], 61);
  // The typed layer accepts empty tensors (a no-op that must write nothing).
  if (door == front_door::typed && one_in(rng, 60)) c.sizes[pick(rng, c.rank)] = 0;

  const bool negative = door == front_door::typed;
  c.in_place = one_in(rng, 6);
  make_layout(rng, c.rank, c.sizes, !c.in_place, negative, c.in_strides, &c.packed_in);
  if (c.in_place) {
    std::copy(c.in_strides, c.in_strides + c.rank, c.out_strides);
    c.packed_out = c.packed_in;
  } else {
    make_layout(rng, c.rank, c.sizes, false, negative, c.out_strides, &c.packed_out);
  }
  // The descriptor layer takes nullptr for packed strides; test both spellings.
  c.packed_in = door == front_door::descriptor && c.packed_in && one_in(rng, 2);
  c.packed_out = door == front_door::descriptor && (c.in_place ? c.packed_in : c.packed_out && one_in(rng, 2));
  c.axis_argument = static_cast<int>(c.axis) - (one_in(rng, 2) ? static_cast<int>(c.rank) : 0);
  return c;
}

/// Lowest and highest element offsets of a layout (0, 0 for an empty tensor).
void offset_range(const scan_case& c, const std::ptrdiff_t* strides, std::ptrdiff_t* low, std::ptrdiff_t* high) {
  *low = *high = 0;
  for (std::size_t d = 0; d < c.rank; ++d)
    if (c.sizes[d] == 0) return;
  for (std::size_t d = 0; d < c.rank; ++d) {
    const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(c.sizes[d] - 1) * strides[d];
    (reach < 0 ? *low : *high) += reach;
  }
}

/// DirectML's minimum buffer size of a layout whose highest element offset is `high`
/// (the reference's rule, not tally's).
std::uint64_t minimum_bytes(std::ptrdiff_t high, std::size_t element) {
  return static_cast<std::uint64_t>(
      tally_test::buffer_bytes(static_cast<std::uint64_t>(high) + 1, static_cast<std::uint32_t>(element)));
}

/// Makes input values for one case.
template <class T>
class value_maker {
 public:
  value_maker(rng_t& rng, const scan_case& c) : rng_(rng), c_(c) {
    const std::size_t length = std::max<std::size_t>(c.sizes[c.axis], 1);
    if constexpr (!std::is_integral_v<T>) {
      // Largest |x| for integer-valued sums so that every partial sum, in any order, is
      // exact in the accumulator (float32 for float16 too: float16 rounds only on writes).
      const double exact_limit = std::is_same_v<T, double> ? 0x1p53 : 0x1p24;
      int_limit_ = static_cast<std::int64_t>(std::clamp(exact_limit / static_cast<double>(length), 1.0, 1000.0));
      // Products: short lines of small integers, or signed powers of two whose exponents
      // make a bounded walk along the axis, so that every partial product (any segment,
      // in any order) is exact and in range.
      const std::size_t small_int_limit = std::is_same_v<T, double> ? 33 : 15;
      small_ints_ = length <= small_int_limit && one_in(rng, 2);
      const int bound = std::is_same_v<T, double> ? 400 : 50;
      const bool broadcast_axis = c.in_strides[c.axis] == 0;  // the whole line is one element
      int walk = 0;
      for (std::size_t i = 0; i < length; ++i) {
        int step = broadcast_axis ? 0 : static_cast<int>(pick(rng, 3)) - 1;
        if (walk + step > bound || walk + step < -bound) step = -step;
        walk += step;
        exponents_.push_back(step);
      }
      positive_ = one_in(rng, 3);
    } else {
      odd_ = one_in(rng, 2);  // keep integer products from collapsing to 0
    }
  }

  T operator()(std::size_t axis_index) {
    if constexpr (std::is_integral_v<T>) {
      auto bits = static_cast<std::make_unsigned_t<T>>(rng_());
      if (c_.op == scan_op::product && odd_) bits |= 1u;
      T x;
      std::memcpy(&x, &bits, sizeof x);
      return x;
    } else if (c_.data == data_kind::exact) {
      if (c_.op == scan_op::sum) {
        if (one_in(rng_, 16)) return T(-0.0f);  // signed zeros: -0 only when all terms are -0
        return T(static_cast<float>(static_cast<std::int64_t>(pick(rng_, 2 * int_limit_ + 1)) - int_limit_));
      }
      if (small_ints_) return T(static_cast<float>(static_cast<int>(pick(rng_, 7)) - 3));
      if (one_in(rng_, 40)) return T(one_in(rng_, 2) ? 0.0f : -0.0f);
      const float magnitude = std::ldexp(1.0f, exponents_[axis_index]);
      return T(one_in(rng_, 2) ? magnitude : -magnitude);
    } else {
      double x;
      if (c_.op == scan_op::sum) {
        x = positive_ ? unit(rng_) : 2 * unit(rng_) - 1;
      } else {
        // Magnitudes near 1 keep a 61-element product inside float16's range.
        x = std::is_same_v<T, tally::half> ? 0.9 + 0.2 * unit(rng_) : std::exp2(2 * unit(rng_) - 1);
        if (!positive_ && one_in(rng_, 2)) x = -x;
      }
      return T(static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(x));
    }
  }

 private:
  rng_t& rng_;
  const scan_case& c_;
  std::int64_t int_limit_ = 1;
  bool small_ints_ = false, positive_ = false, odd_ = false;
  std::vector<int> exponents_;
};

/// Error bound of the contract for a floating-point output: n * eps * sum|x| for sums,
/// n * eps * |product| for products, plus half an ulp of the final rounding to float16.
template <class T>
long double allowed_error(const tally_test::wide_value& w) {
  using acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const long double eps = std::numeric_limits<acc>::epsilon();
  long double bound = static_cast<long double>(w.terms) * eps * w.magnitude;
  if (std::is_same_v<T, tally::half>) bound += (std::fabs(w.value) + bound) * 0x1p-11L + 0x1p-25L;
  return bound;
}

/// Runs one case: builds the buffers, computes the reference, calls tally and checks
/// every output element and every canary byte.
template <class T>
void run_case(const scan_case& c) {
  INFO(describe(c));
  rng_t rng(c.seed ^ 0x9e3779b97f4a7c15ull);  // data and canaries, independent of the case's shape
  const std::size_t rank = c.rank;

  std::ptrdiff_t in_low, in_high, out_low, out_high;
  offset_range(c, c.in_strides, &in_low, &in_high);
  offset_range(c, c.out_strides, &out_low, &out_high);
  const std::uint64_t in_bytes = minimum_bytes(in_high, sizeof(T));
  const std::uint64_t out_bytes = minimum_bytes(out_high, sizeof(T));

  // Output buffer: canary elements before and after the view's span, and canaries in
  // every gap between the view's elements (random bytes, remembered).
  constexpr std::size_t guard = 16;
  const std::size_t out_span = static_cast<std::size_t>(out_high - out_low) + 1;
  const std::size_t out_elements =
      c.door == front_door::descriptor ? static_cast<std::size_t>(out_bytes / sizeof(T)) : out_span;
  std::vector<T> out_buffer(guard + out_elements + guard);
  {
    std::vector<unsigned char> noise(out_buffer.size() * sizeof(T));
    for (auto& b : noise) b = static_cast<unsigned char>(rng());
    std::memcpy(static_cast<void*>(out_buffer.data()), noise.data(), noise.size());
  }
  T* const out = out_buffer.data() + guard - out_low;  // element (0,...,0)

  // Input buffer: exactly the bytes the descriptor declares (so ASan sees any overread);
  // the gaps hold NaN or extreme values that would show if they were ever read.
  std::vector<T> in_buffer;
  const T* in = out;
  if (!c.in_place) {
    const std::size_t in_elements = c.door == front_door::descriptor ? static_cast<std::size_t>(in_bytes / sizeof(T))
                                                                     : static_cast<std::size_t>(in_high - in_low) + 1;
    in_buffer.resize(in_elements);
    for (T& x : in_buffer) {
      if constexpr (std::is_integral_v<T>)
        x = std::numeric_limits<T>::max();
      else
        x = T(std::numeric_limits<float>::quiet_NaN());
    }
    in = in_buffer.data() - in_low;
  }
  value_maker<T> make(rng, c);
  T* const writable_in = c.in_place ? out : in_buffer.data() - in_low;
  for_each_index(rank, c.sizes, [&](const std::size_t* index) {
    writable_in[tally_test::offset_of(rank, index, c.in_strides)] = make(index[c.axis]);
  });
  const std::vector<T> before = out_buffer;

  // References, computed before tally runs (the input may be the output).
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) count *= c.sizes[d];
  const std::vector<std::ptrdiff_t> packed = tally_test::packed_strides(rank, c.sizes);
  std::vector<T> expected(count);
  tally_test::reference_scan<T>(c.op, rank, c.sizes, c.axis, c.decreasing, c.exclusive, in, c.in_strides,
                                expected.data(), packed.data());
  std::vector<tally_test::wide_value> wide_expected;
  if (c.data == data_kind::real)
    wide_expected = tally_test::wide_reference_scan<T>(c.op, rank, c.sizes, c.axis, c.decreasing, c.exclusive, in,
                                                       c.in_strides);

  const tally::axis_direction direction = tally_test::direction_of(c.decreasing);
  if (c.door == front_door::descriptor) {
    std::uint32_t sizes[8], in_strides[8], out_strides[8];
    for (std::size_t d = 0; d < rank; ++d) {
      sizes[d] = static_cast<std::uint32_t>(c.sizes[d]);
      in_strides[d] = static_cast<std::uint32_t>(c.in_strides[d]);
      out_strides[d] = static_cast<std::uint32_t>(c.out_strides[d]);
    }
    const auto type = tally::data_type_of_v<T>;
    const auto r = static_cast<std::uint32_t>(rank);
    const tally::tensor_desc in_desc{type, r, sizes, c.packed_in ? nullptr : in_strides, in_bytes};
    const tally::tensor_desc out_desc{type, r, sizes, c.packed_out ? nullptr : out_strides, out_bytes};
    tally::execution_options options;
    options.threads = c.threads;
    const tally::status s = tally_test::with_scan_desc(
        c.op == scan_op::product, &in_desc, &out_desc, static_cast<std::uint32_t>(c.axis), direction, c.exclusive,
        [&](const auto& desc) {
          const tally::status v = tally::validate(desc);
          INFO(v.message());
          REQUIRE(v.ok());
          return tally::execute(desc, in, out, options);
        });
    INFO(s.message());
    REQUIRE(s.ok());
  } else {
    const tally::scan_options options{direction, c.exclusive, c.threads};
    const tally::tensor_view<T> out_view(out, rank, c.sizes, c.out_strides);
    const tally::tensor_view<const T> in_view =
        c.in_place ? tally::tensor_view<const T>(out_view) : tally::tensor_view<const T>(in, rank, c.sizes, c.in_strides);
    tally_test::typed_scan<T>(c.op == scan_op::product, in_view, out_view, c.axis_argument, options);
  }

  // Every element of the view against the reference.
  std::vector<char> is_view(out_buffer.size(), 0);
  std::size_t wrong = 0, linear = 0;
  std::string first_wrong;
  for_each_index(rank, c.sizes, [&](const std::size_t* index) {
    const std::ptrdiff_t at = tally_test::offset_of(rank, index, c.out_strides);
    is_view[static_cast<std::size_t>(out - out_buffer.data() + at)] = 1;
    const T got = out[at];
    const T want = expected[linear];
    const bool ok = c.data == data_kind::exact
                        ? tally_test::same_bits(got, want)
                        : std::fabs(tally_test::to_wide(got) - wide_expected[linear].value) <=
                              allowed_error<T>(wide_expected[linear]);  // false for NaN
    if (!ok && wrong++ == 0) {
      std::ostringstream s;
      s << "first wrong element at index {";
      for (std::size_t d = 0; d < rank; ++d) s << (d ? "," : "") << index[d];
      s << "}: got " << tally_test::describe(got) << ", sequential reference " << tally_test::describe(want);
      if (c.data == data_kind::real) {
        const tally_test::wide_value& w = wide_expected[linear];
        s << ", wide reference " << static_cast<double>(w.value) << " error "
          << static_cast<double>(std::fabs(tally_test::to_wide(got) - w.value)) << " allowed "
          << static_cast<double>(allowed_error<T>(w)) << " (n " << w.terms << ")";
      }
      first_wrong = s.str();
    }
    ++linear;
  });
  INFO(first_wrong);
  CHECK(wrong == 0);

  // Every byte outside the view unchanged (padding, gaps, guards).
  std::size_t touched = 0, first_touched = 0;
  for (std::size_t i = 0; i < out_buffer.size(); ++i)
    if (!is_view[i] && !tally_test::same_bits(out_buffer[i], before[i]) && touched++ == 0) first_touched = i;
  INFO("first written canary: buffer element " << first_touched << " (view starts at " << guard << ")");
  CHECK(touched == 0);
}

void run_case(const scan_case& c) {
  tally_test::with_type(static_cast<std::size_t>(c.type),
                        [&](auto tag) { run_case<typename decltype(tag)::type>(c); });
}

/// TALLY_TEST_SEED=<seed> narrows every randomized test to that one seed.
bool selected(std::uint64_t seed) {
  static const char* const only = std::getenv("TALLY_TEST_SEED");
  return !only || std::strtoull(only, nullptr, 10) == seed;
}

void run_cases(std::uint64_t first_seed, std::uint64_t count, front_door door, data_kind data,
               bool large = false) {
  for (std::uint64_t seed = first_seed; seed < first_seed + count; ++seed)
    if (selected(seed)) {
      // One case that throws must not hide the others: report it and go on.
      const scan_case c = make_case(seed, door, data, large);
      std::string exception;
      try {
        run_case(c);
      } catch (const std::exception& e) {
        exception = e.what();
      }
      INFO(describe(c) << "\nthrew: " << exception);
      CHECK(exception.empty());
    }
}

}  // namespace

// Seeds are fixed and disjoint between the tests so that a printed seed names one case.
TEST_CASE("randomized: descriptor layer, exact data, every type and layout", "[randomized]") {
  run_cases(1000000, 3000, front_door::descriptor, data_kind::exact);
}

TEST_CASE("randomized: typed layer, exact data, every type and signed layout", "[randomized]") {
  run_cases(2000000, 3000, front_door::typed, data_kind::exact);
}

TEST_CASE("randomized: descriptor layer, real-valued floats within the error bound", "[randomized]") {
  run_cases(3000000, 400, front_door::descriptor, data_kind::real);
}

TEST_CASE("randomized: typed layer, real-valued floats within the error bound", "[randomized]") {
  run_cases(4000000, 400, front_door::typed, data_kind::real);
}

TEST_CASE("randomized: larger tensors through tally's tiled shapes, both layers", "[randomized]") {
  run_cases(5000000, 120, front_door::descriptor, data_kind::exact, true);
  run_cases(6000000, 120, front_door::typed, data_kind::exact, true);
  run_cases(7000000, 30, front_door::descriptor, data_kind::real, true);
  run_cases(8000000, 30, front_door::typed, data_kind::real, true);
}

// The generator must really reach what the suite claims to cover; a silent narrowing of
// make_case would otherwise leave the cases above passing on nothing interesting.
TEST_CASE("randomized: the generated cases cover every type, rank, axis and layout", "[randomized]") {
  bool type_seen[type_count] = {}, rank_seen[9] = {}, long_seen = false, huge_seen = false;
  int in_place = 0, broadcast = 0, negative = 0, padded = 0, permuted = 0, null_strides = 0, exclusive = 0,
      decreasing = 0, product = 0, axis_not_last = 0;
  for (std::uint64_t seed = 1000000; seed < 1003000; ++seed) {
    for (front_door door : {front_door::descriptor, front_door::typed}) {
      const scan_case c = make_case(door == front_door::descriptor ? seed : seed + 1000000, door, data_kind::exact);
      type_seen[c.type] = rank_seen[c.rank] = true;
      long_seen = long_seen || c.sizes[c.axis] > 64;
      huge_seen = huge_seen || c.sizes[c.axis] > 4096;
      in_place += c.in_place;
      null_strides += c.packed_in || c.packed_out;
      exclusive += c.exclusive;
      decreasing += c.decreasing;
      product += c.op == scan_op::product;
      axis_not_last += c.axis + 1 != c.rank;
      bool is_broadcast = false, is_negative = false, is_padded = false, is_permuted = false;
      std::ptrdiff_t packed = 1;
      for (std::size_t d = c.rank; d-- > 0;) {
        if (c.sizes[d] > 1) {
          is_broadcast = is_broadcast || c.in_strides[d] == 0;
          is_negative = is_negative || c.in_strides[d] < 0 || c.out_strides[d] < 0;
          is_padded = is_padded || std::abs(c.out_strides[d]) > packed;
          is_permuted = is_permuted || std::abs(c.out_strides[d]) < packed;
        }
        packed *= static_cast<std::ptrdiff_t>(c.sizes[d]);
      }
      broadcast += is_broadcast;
      negative += is_negative;
      padded += is_padded;
      permuted += is_permuted;
    }
  }
  for (bool seen : type_seen) CHECK(seen);
  for (std::size_t r = 1; r <= 8; ++r) CHECK(rank_seen[r]);
  CHECK(long_seen);
  CHECK(huge_seen);
  CHECK(in_place > 300);
  CHECK(broadcast > 300);
  CHECK(negative > 300);
  CHECK(padded > 300);
  CHECK(permuted > 300);
  CHECK(null_strides > 100);
  CHECK(exclusive > 1000);
  CHECK(decreasing > 1000);
  CHECK(product > 1000);
  CHECK(axis_not_last > 1000);
}

// The reference itself, on hand-checked lines, so that a bug in it cannot hide one in tally.
TEST_CASE("randomized: the reference scan agrees with hand-computed lines", "[randomized]") {
  const std::size_t sizes[2] = {2, 3};
  const std::ptrdiff_t strides[2] = {3, 1};
  const std::int8_t x[6] = {100, 100, 100, -128, -1, 2};
  std::int8_t y[6] = {};
  tally_test::reference_scan<std::int8_t>(scan_op::sum, 2, sizes, 1, false, false, x, strides, y, strides);
  const std::int8_t sums[6] = {100, -56, 44, -128, 127, -127};  // 200 wraps to -56, 300 to 44
  CHECK(std::memcmp(y, sums, sizeof y) == 0);
  tally_test::reference_scan<std::int8_t>(scan_op::product, 2, sizes, 1, true, true, x, strides, y, strides);
  const std::int8_t products[6] = {16, 100, 1, -2, 2, 1};  // 10000 wraps to 16; -1*2 = -2
  CHECK(std::memcmp(y, products, sizeof y) == 0);

  const std::size_t line[1] = {3};
  const std::ptrdiff_t unit_stride[1] = {1};
  const float zeros[3] = {-0.0f, -0.0f, -0.0f};
  float sums_of_zeros[3] = {1, 1, 1};
  tally_test::reference_scan<float>(scan_op::sum, 1, line, 0, false, true, zeros, unit_stride, sums_of_zeros,
                                    unit_stride);
  CHECK(!std::signbit(sums_of_zeros[0]));  // the exclusive start is +0
  CHECK(std::signbit(sums_of_zeros[1]));   // a sum of -0 terms is -0
  const tally::half h[3] = {tally::half(2048.0f), tally::half(1.0f), tally::half(1.0f)};
  tally::half hs[3];
  tally_test::reference_scan<tally::half>(scan_op::sum, 1, line, 0, false, false, h, unit_stride, hs, unit_stride);
  // 2049 rounds to 2048 in float16, but the float32 running sum keeps the 1: 2050.
  CHECK(static_cast<float>(hs[1]) == 2048.0f);
  CHECK(static_cast<float>(hs[2]) == 2050.0f);

  // Carries: each line starts from its carry-in, and the carry-out is the line's total
  // including the carry-in, in both modes; a zero-length axis passes the carry-in (or
  // the identity, -0.0 for a float sum) through.
  const std::int32_t a[6] = {1, 2, 3, 4, 5, 6}, carry_in[2] = {10, 20};
  const std::ptrdiff_t carry_strides[2] = {1, 0};  // one carry per row; the axis entry is ignored
  std::int32_t b[6] = {}, carry_out[2] = {};
  tally_test::reference_scan<std::int32_t>(scan_op::sum, 2, sizes, 1, false, false, a, strides, b, strides, carry_in,
                                           carry_strides, carry_out, carry_strides);
  const std::int32_t inclusive[6] = {11, 13, 16, 24, 29, 35};
  CHECK(std::memcmp(b, inclusive, sizeof b) == 0);
  CHECK((carry_out[0] == 16 && carry_out[1] == 35));
  tally_test::reference_scan<std::int32_t>(scan_op::sum, 2, sizes, 1, false, true, a, strides, b, strides, carry_in,
                                           carry_strides, carry_out, carry_strides);
  const std::int32_t exclusive[6] = {10, 11, 13, 20, 24, 29};
  CHECK(std::memcmp(b, exclusive, sizeof b) == 0);
  CHECK((carry_out[0] == 16 && carry_out[1] == 35));
  const std::size_t empty_axis[2] = {2, 0};
  tally_test::reference_scan<std::int32_t>(scan_op::product, 2, empty_axis, 1, false, false, a, strides, b, strides,
                                           carry_in, carry_strides, carry_out, carry_strides);
  CHECK((carry_out[0] == 10 && carry_out[1] == 20));
  float float_carry[2] = {1, 1};
  tally_test::reference_scan<float>(scan_op::sum, 2, empty_axis, 1, false, false, zeros, strides, sums_of_zeros,
                                    strides, nullptr, nullptr, float_carry, carry_strides);
  CHECK((float_carry[0] == 0 && std::signbit(float_carry[0]) && std::signbit(float_carry[1])));
}

namespace {

/// The spec's definition written out element by element (section 1): Y[k] combines X[0..k]
/// (increasing) or X[k..L-1] (decreasing), without X[k] when exclusive; integers wrap.
template <class T>
T by_definition(const std::vector<T>& x, std::size_t k, bool product, bool decreasing, bool exclusive) {
  T y = product ? T(1) : T(0);
  for (std::size_t j = 0; j < x.size(); ++j) {
    const bool taken = decreasing ? (exclusive ? j > k : j >= k) : (exclusive ? j < k : j <= k);
    if (!taken) continue;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const unsigned long long a = static_cast<U>(y), b = static_cast<U>(x[j]);  // never promoted to int
      y = tally_test::wrap_to<T>(product ? a * b : a + b);
    } else {
      y = product ? y * x[j] : y + x[j];
    }
  }
  return y;
}

}  // namespace

// The sequential reference against the definition, on every line of up to 9 elements,
// in rows (axis 1) and columns (axis 0) of 3: both must say the same.
TEMPLATE_TEST_CASE("randomized: the reference scan agrees with the spec's definition", "[randomized]", std::int8_t,
                   std::uint16_t, std::int64_t, float, double) {
  using T = TestType;
  rng_t rng(sizeof(T) * 10 + std::is_integral_v<T>);
  for (std::size_t length = 0; length <= 9; ++length)
    for (bool product : {false, true})
      for (bool decreasing : {false, true})
        for (bool exclusive : {false, true})
          for (std::size_t axis : {0u, 1u}) {
            std::vector<std::vector<T>> lines(3, std::vector<T>(length));
            for (auto& line : lines)
              for (T& v : line)  // floats: small integers, exact in any order (no -0.0: the definition starts at +0)
                v = std::is_integral_v<T> ? static_cast<T>(rng()) : static_cast<T>(static_cast<int>(pick(rng, 7)) - 3);
            const std::vector<std::size_t> sizes = axis == 1 ? std::vector<std::size_t>{3, length}
                                                             : std::vector<std::size_t>{length, 3};
            std::vector<T> x(3 * length);
            for (std::size_t l = 0; l < 3; ++l)
              for (std::size_t k = 0; k < length; ++k) x[axis == 1 ? l * length + k : k * 3 + l] = lines[l][k];
            const std::vector<T> y = tally_test::reference_scan_packed(product ? scan_op::product : scan_op::sum, sizes,
                                                                       axis, decreasing, exclusive, x);
            for (std::size_t l = 0; l < 3; ++l)
              for (std::size_t k = 0; k < length; ++k) {
                INFO("length " << length << (product ? " product" : " sum") << (decreasing ? " decreasing" : "")
                               << (exclusive ? " exclusive" : "") << " axis " << axis << " line " << l << " k " << k);
                CHECK(tally_test::same_bits(y[axis == 1 ? l * length + k : k * 3 + l],
                                            by_definition(lines[l], k, product, decreasing, exclusive)));
              }
          }
}

// The fuzzers' exact values and the sequential reference are two models of one contract:
// on data where both apply (floats: small integers and -0.0 for sums, 0, -0.0, +-1, +-2
// for products) they must give the same bits, outputs and carry-out, for every type.
TEST_CASE("randomized: the reference's exact values agree with its sequential scan", "[randomized]") {
  rng_t rng(77);
  tally_test::for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = typename tally_test::ref_traits<T>::carry;
    const auto type = static_cast<std::uint32_t>(tally::data_type_of_v<T>);
    const auto carry_type = static_cast<std::uint32_t>(tally::data_type_of_v<C>);
    const auto exact_data = [&](bool product) {
      if (product) {
        static const double factors[6] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0};
        return factors[pick(rng, 6)];
      }
      return one_in(rng, 8) ? -0.0 : static_cast<double>(static_cast<int>(pick(rng, 17)) - 8);
    };
    for (int round = 0; round < 200; ++round) {
      const bool product = one_in(rng, 2), decreasing = one_in(rng, 2), exclusive = one_in(rng, 2);
      const bool with_carry = one_in(rng, 2);
      const std::size_t length = pick(rng, 60);
      std::vector<T> x(length);
      C carry{};
      for (T& v : x) {
        if constexpr (std::is_integral_v<T>) v = static_cast<T>(rng());
        else tally_test::store_float(reinterpret_cast<unsigned char*>(&v), type, exact_data(product));
      }
      if constexpr (std::is_integral_v<C>) carry = static_cast<C>(rng());
      else tally_test::store_float(reinterpret_cast<unsigned char*>(&carry), carry_type, exact_data(product));

      std::vector<T> sequential(length), exact(length);
      C sequential_total{}, exact_total{};
      const std::ptrdiff_t unit_stride[1] = {1}, no_stride[1] = {0};
      tally_test::reference_scan<T>(product ? scan_op::product : scan_op::sum, 1, &length, 0, decreasing, exclusive,
                                    x.data(), unit_stride, sequential.data(), unit_stride,
                                    with_carry ? &carry : nullptr, no_stride, &sequential_total, no_stride);
      const tally_test::element_value carry_value =
          tally_test::read_element(reinterpret_cast<const unsigned char*>(&carry), carry_type);
      const auto element = [&](std::uint64_t i) { return reinterpret_cast<const unsigned char*>(&x[i]); };
      tally_test::exact_value total = tally_test::exact_scan_line(
          {type, product, exclusive, decreasing, length},
          [&](std::uint64_t i) { return tally_test::read_element(element(i), type); },
          [&](std::uint64_t i, const tally_test::exact_value& v) {
            REQUIRE(tally_test::write_element(reinterpret_cast<unsigned char*>(&exact[i]), type, v));
          },
          with_carry ? &carry_value : nullptr);
      total.type = carry_type;  // a float16 scan's carry is its float32 running value
      REQUIRE(tally_test::write_element(reinterpret_cast<unsigned char*>(&exact_total), carry_type, total));
      INFO(tally::to_string(tally::data_type_of_v<T>) << (product ? " product" : " sum") << " length " << length
                                                      << (decreasing ? " decreasing" : "")
                                                      << (exclusive ? " exclusive" : "")
                                                      << (with_carry ? " carry" : ""));
      CHECK(tally_test::first_difference(exact, sequential) == length);
      CHECK(tally_test::same_bits(exact_total, sequential_total));
    }
  });
}

// NumPy conventions: an empty tensor is a no-op. tally's own packed view of an empty
// shape has zero strides in front of the empty dimension (the packed stride product
// becomes 0), which must not count as distinct elements sharing an address.
TEST_CASE("randomized: packed empty views are a no-op", "[randomized][empty]") {
  float x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
  const std::size_t shapes[][3] = {{2, 0, 3}, {0, 2, 3}, {2, 3, 0}};
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < 3; ++axis) {
      INFO("sizes {" << shape[0] << "," << shape[1] << "," << shape[2] << "} axis " << axis);
      const tally::tensor_view<const float> in(x, 3, shape);
      const tally::tensor_view<float> out(y, 3, shape);
      std::string exception;
      try {
        tally::cumsum(in, out, axis);
        tally::cumprod(in, out, axis);
      } catch (const std::exception& e) {
        exception = e.what();
      }
      CHECK(exception == "");
      CHECK(y[0] == 5);
      CHECK(y[3] == 8);
    }
  }
}
