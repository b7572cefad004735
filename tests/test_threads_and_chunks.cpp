// Determinism across threads and chunks (issue 3):
//  1. results are bitwise identical for threads = 1, 2, 3, 8 and 0 and through a host's
//     parallel_for hook, through both front doors, on long lines, many lines, columns and
//     strided layouts;
//  2. a scan cut into chunks along the axis, each chunk's carry_out passed as the next
//     chunk's carry_in, equals one call bitwise (integers: any chunk lengths; floating
//     point: every chunk but the last a multiple of tally::scan_block_elements);
//  3. carries of the wrong shape are refused with status_code::invalid_carry.
#include <tally/tally.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "support/bits.hpp"
#include "support/calls.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

using tally_test::first_difference;
using tally_test::pick;
using tally_test::rng_t;
using tally_test::same_bits;
using tally_test::scan_op;
using tally_test::unit;

/// Options with this accuracy, the rest default.
tally::scan_options with_accuracy(tally::scan_accuracy accuracy) {
  tally::scan_options o;
  o.accuracy = accuracy;
  return o;
}

/// Random values: real-valued floats (sums in [-1, 1], products within 2^-10 of 1 so that
/// long products stay finite), or full-range integers (odd for products).
template <class T>
std::vector<T> random_values(rng_t& rng, std::size_t count, scan_op op) {
  std::vector<T> v(count);
  for (T& x : v) {
    if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(rng());
      if (op == scan_op::product) x = static_cast<T>(x | 1);
    } else if (op == scan_op::sum) {
      x = T(static_cast<float>(2 * unit(rng) - 1));
    } else {
      x = T(1.0f + static_cast<float>(static_cast<int>(pick(rng, 3)) - 1) * 0x1p-10f);
    }
  }
  return v;
}

/// Integer-valued floats small enough that every partial sum is exact in any order.
template <class T>
std::vector<T> small_integer_values(rng_t& rng, std::size_t count) {
  std::vector<T> v(count);
  for (T& x : v) x = T(static_cast<float>(static_cast<int>(pick(rng, 201)) - 100));
  return v;
}

// ---------------------------------------------------------------------------------------
// 1. Threads

/// A shape of the thread tests: sizes, axis, and the input's strides (output packed).
struct shape_case {
  const char* name;
  std::size_t rank;
  std::size_t sizes[3];
  std::size_t axis;
  std::ptrdiff_t in_strides[3];  // all 0: packed
  bool many_tasks;               // several independent lines: every thread count must split
};

const shape_case thread_shapes[] = {
    {"one line of 3*4096+123", 1, {3 * 4096 + 123}, 0, {}, false},
    {"one line of 200000", 1, {200000}, 0, {}, false},
    {"many lines on the innermost axis", 2, {400, 523}, 1, {}, true},
    // One column tile (narrower than tally's L1 tile): tally may run it as one task.
    {"columns: the outer axis", 2, {523, 400}, 0, {}, false},
    {"columns under walked outer dimensions", 3, {29, 131, 67}, 1, {}, true},
    {"strided: a transposed input", 2, {400, 523}, 1, {1, 400}, true},
};

/// The host's thread pool of the tests: counts its calls and runs the tasks in reverse
/// order on the calling thread, or each on its own std::thread.
struct test_pool {
  bool use_threads = false;
  std::atomic<int> calls{0};
  std::atomic<std::size_t> tasks{0};

  static void parallel_for(void* host, std::size_t count, void (*task)(void*, std::size_t), void* context) {
    auto& pool = *static_cast<test_pool*>(host);
    ++pool.calls;
    pool.tasks += count;
    if (pool.use_threads) {
      std::vector<std::thread> threads;
      for (std::size_t i = 0; i < count; ++i) threads.emplace_back(task, context, i);
      for (auto& t : threads) t.join();
    } else {
      for (std::size_t i = count; i-- > 0;) task(context, i);
    }
  }
};

/// How one run is launched.
struct launch {
  bool descriptor = false;
  unsigned threads = 1;
  test_pool* pool = nullptr;
  // The typed layer's mode (the descriptor layer always runs the fast mode's arithmetic).
  tally::scan_accuracy accuracy = tally::scan_accuracy::exact;
};

std::string describe(const launch& l) {
  std::ostringstream s;
  s << (l.descriptor ? "descriptor" : l.accuracy == tally::scan_accuracy::fast ? "typed fast" : "typed")
    << " threads " << l.threads;
  if (l.pool) s << (l.pool->use_threads ? " with a std::thread pool hook" : " with a reverse-order hook");
  return s.str();
}

template <class T>
std::vector<T> run_shape(const shape_case& shape, const std::vector<T>& input, scan_op op, bool decreasing,
                         bool exclusive, const launch& l) {
  std::size_t count = 1;
  for (std::size_t d = 0; d < shape.rank; ++d) count *= shape.sizes[d];
  std::vector<T> output(count);
  const bool strided = shape.in_strides[0] != 0;
  const tally::axis_direction direction = tally_test::direction_of(decreasing);
  if (l.descriptor) {
    std::uint32_t sizes[3], strides[3];
    std::uint64_t last = 0;
    for (std::size_t d = 0; d < shape.rank; ++d) {
      sizes[d] = static_cast<std::uint32_t>(shape.sizes[d]);
      strides[d] = static_cast<std::uint32_t>(shape.in_strides[d]);
      last += (shape.sizes[d] - 1) * static_cast<std::uint64_t>(shape.in_strides[d]);
    }
    const auto bytes = [](std::uint64_t elements) {
      return static_cast<std::uint64_t>(tally_test::buffer_bytes(elements, sizeof(T)));
    };
    const auto r = static_cast<std::uint32_t>(shape.rank);
    const tally::tensor_desc in{tally::data_type_of_v<T>, r, sizes, strided ? strides : nullptr,
                                bytes(strided ? last + 1 : count)};
    const tally::tensor_desc out{tally::data_type_of_v<T>, r, sizes, nullptr, bytes(count)};
    tally::execution_options options;
    options.threads = l.threads;
    if (l.pool) {
      options.parallel_for = &test_pool::parallel_for;
      options.host = l.pool;
    }
    const tally::status s = tally_test::with_scan_desc(
        op == scan_op::product, &in, &out, static_cast<std::uint32_t>(shape.axis), direction, exclusive,
        [&](const auto& desc) { return tally::execute(desc, input.data(), output.data(), options); });
    INFO(s.message());
    REQUIRE(s.ok());
  } else {
    tally::scan_options options{direction, exclusive, l.threads};
    options.accuracy = l.accuracy;
    if (l.pool) {
      options.parallel_for = &test_pool::parallel_for;
      options.host = l.pool;
    }
    const tally::tensor_view<const T> in(input.data(), shape.rank, shape.sizes, strided ? shape.in_strides : nullptr);
    const tally::tensor_view<T> out(output.data(), shape.rank, shape.sizes);
    tally_test::typed_scan<T>(op == scan_op::product, in, out, static_cast<int>(shape.axis), options);
  }
  return output;
}

template <class T>
void check_thread_counts(std::uint64_t seed) {
  rng_t rng(seed);
  int variant = 0;
  for (const shape_case& shape : thread_shapes) {
    std::size_t count = 1, span = 1;
    for (std::size_t d = 0; d < shape.rank; ++d) {
      count *= shape.sizes[d];
      if (shape.in_strides[0] != 0) span += (shape.sizes[d] - 1) * static_cast<std::size_t>(shape.in_strides[d]);
    }
    for (scan_op op : {scan_op::sum, scan_op::product}) {
      // Alternate the direction and mode across the shapes to cover all four cheaply.
      const bool decreasing = (variant & 1) != 0, exclusive = (variant & 2) != 0;
      ++variant;
      const std::vector<T> input = random_values<T>(rng, shape.in_strides[0] != 0 ? span : count, op);
      INFO(shape.name << (op == scan_op::sum ? " sum" : " product") << (decreasing ? " decreasing" : " increasing")
                      << (exclusive ? " exclusive" : " inclusive") << " seed " << seed);
      // One baseline per arithmetic: the typed layer's default (exact for float32) and the
      // SIMD engine's (the descriptor layer, and the typed layer's fast mode: the same bits).
      const std::vector<T> baseline = run_shape<T>(shape, input, op, decreasing, exclusive, launch{});
      const std::vector<T> fast_baseline = run_shape<T>(shape, input, op, decreasing, exclusive, launch{true});

      if constexpr (std::is_integral_v<T>) {  // exact: the baseline itself must be right
        std::vector<T> expected(count);
        std::ptrdiff_t packed[3], in_strides[3];
        for (std::size_t d = shape.rank, n = 1; d-- > 0; n *= shape.sizes[d]) {
          packed[d] = static_cast<std::ptrdiff_t>(n);
          in_strides[d] = shape.in_strides[0] != 0 ? shape.in_strides[d] : packed[d];
        }
        tally_test::reference_scan<T>(op, shape.rank, shape.sizes, shape.axis, decreasing, exclusive, input.data(),
                                      in_strides, expected.data(), packed);
        CHECK(first_difference(baseline, expected) == count);
      }

      for (int path = 0; path < 3; ++path) {  // typed (default), typed fast, descriptor
        const bool descriptor = path == 2;
        const tally::scan_accuracy accuracy = path == 0 ? tally::scan_accuracy::exact : tally::scan_accuracy::fast;
        const std::vector<T>& expected = path == 0 ? baseline : fast_baseline;
        for (unsigned threads : {1u, 2u, 3u, 8u, 0u}) {
          const launch l{descriptor, threads, nullptr, accuracy};
          INFO(describe(l));
          CHECK(first_difference(run_shape<T>(shape, input, op, decreasing, exclusive, l), expected) == count);
        }
        for (bool use_threads : {false, true}) {
          for (unsigned threads : {1u, 3u}) {
            test_pool pool;
            pool.use_threads = use_threads;
            const launch l{descriptor, threads, &pool, accuracy};
            INFO(describe(l));
            CHECK(first_difference(run_shape<T>(shape, input, op, decreasing, exclusive, l), expected) == count);
            // threads == 1 runs on the calling thread; more threads over several
            // independent lines (about 2^18 elements here) must go through the hook.
            if (threads == 1) CHECK(pool.calls == 0);
            if (threads > 1 && shape.many_tasks) CHECK(pool.calls > 0);
            if (pool.calls > 0) CHECK(pool.tasks >= 2u);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("threads: float32 results are bitwise identical for every thread count and hook", "[threads]") {
  check_thread_counts<float>(11);
}

TEST_CASE("threads: float16 results are bitwise identical for every thread count and hook", "[threads]") {
  check_thread_counts<tally::half>(12);
}

TEST_CASE("threads: int32 results are identical for every thread count and hook", "[threads]") {
  check_thread_counts<std::int32_t>(13);
}

// Issue 3 asks that one long line be split across threads (reduce, then scan with
// offsets): a line of 2^20 elements must reach the host's pool and keep its bits. (The
// fast mode: the exact mode never splits a line, docs/accuracy.md.)
TEST_CASE("threads: one long line is handed to the host's pool", "[threads]") {
  rng_t rng(14);
  const std::vector<float> input = random_values<float>(rng, 1 << 20, scan_op::sum);
  std::vector<float> baseline(input.size()), output(input.size());
  const tally::tensor_view<const float> in(input.data(), {input.size()});
  tally::cumsum(in, tally::tensor_view<float>(baseline.data(), {input.size()}), 0,
                with_accuracy(tally::scan_accuracy::fast));
  test_pool pool;
  tally::scan_options options = with_accuracy(tally::scan_accuracy::fast);
  options.threads = 4;
  options.parallel_for = &test_pool::parallel_for;
  options.host = &pool;
  tally::cumsum(in, tally::tensor_view<float>(output.data(), {output.size()}), 0, options);
  CHECK(same_bits(output, baseline));
  CHECK(pool.calls > 0);
}

// ---------------------------------------------------------------------------------------
// 2. Chunks with carries

namespace {

enum class carry_form { dropped, keepdims };

struct chunk_case {
  bool columns = false;  // axis outer ({L, width}, axis 0) or innermost ({lines, L}, axis 1)
  std::size_t width = 19;  // columns: the rows' width
  std::size_t length = 0;
  std::vector<std::size_t> chunks;  // in scan order
  scan_op op = scan_op::sum;
  bool decreasing = false, exclusive = false;
  carry_form form = carry_form::dropped;
  bool same_view = false;  // carry_in and carry_out are one view
  bool initial_carry = false;
  bool integer_valued = false;  // floats: exact data (any chunking is then bitwise)
  unsigned threads = 1;
  tally::scan_accuracy accuracy = tally::scan_accuracy::exact;  // float32 / float64 only
};

std::string describe(const chunk_case& c) {
  std::ostringstream s;
  s << (c.columns ? "columns of width " + std::to_string(c.width) : std::string("lines")) << " length " << c.length
    << " chunks {";
  for (std::size_t i = 0; i < c.chunks.size(); ++i) s << (i ? "," : "") << c.chunks[i];
  s << "}" << (c.op == scan_op::sum ? " sum" : " product") << (c.decreasing ? " decreasing" : " increasing")
    << (c.exclusive ? " exclusive" : " inclusive") << (c.form == carry_form::keepdims ? " keepdims" : " dropped-axis")
    << (c.same_view ? " carry_in==carry_out" : " separate carries") << (c.initial_carry ? " initial carry" : "")
    << (c.integer_valued ? " integer-valued" : "") << " threads " << c.threads
    << (c.accuracy == tally::scan_accuracy::fast ? " fast" : " exact");
  return s.str();
}

template <class T>
using carry_t = tally::carry_type<T>;

/// A carry of value v (a float64 carry is a tally::double_double: {v, -0.0}).
template <class C>
C carry_of(double v) {
  if constexpr (std::is_same_v<C, tally::double_double>)
    return {v, -0.0};
  else
    return static_cast<C>(v);
}

/// The carries' values (a double_double rounded once), for comparing with the reference's.
template <class C>
auto carry_values(const std::vector<C>& carries) {
  if constexpr (std::is_same_v<C, tally::double_double>) {
    std::vector<double> values;
    for (const C& c : carries) values.push_back(c.value());
    return values;
  } else {
    return carries;
  }
}


/// A carry view over `data` for the input sizes `sizes` (rank 2) and axis.
template <class C>
tally::tensor_view<C> carry_view(C* data, const std::size_t* sizes, std::size_t axis, carry_form form) {
  if (form == carry_form::keepdims) {
    const std::size_t shape[2] = {axis == 0 ? 1 : sizes[0], axis == 1 ? 1 : sizes[1]};
    return tally::tensor_view<C>(data, 2, shape);
  }
  const std::size_t shape[1] = {sizes[1 - axis]};
  return tally::tensor_view<C>(data, 1, shape);
}

template <class T>
void scan(scan_op op, tally::tensor_view<const T> in, tally::tensor_view<T> out, int axis,
          const tally::scan_options& options, tally::tensor_view<const carry_t<T>> carry_in,
          tally::tensor_view<carry_t<T>> carry_out) {
  tally_test::typed_scan<T>(op == scan_op::product, in, out, axis, options, carry_in, carry_out);
}

template <class T>
void check_chunks(const chunk_case& c, std::uint64_t seed) {
  INFO(describe(c) << " seed " << seed);
  using C = carry_t<T>;
  rng_t rng(seed);
  const std::size_t other = c.columns ? c.width : 3;
  const std::size_t axis = c.columns ? 0 : 1;
  const std::size_t sizes[2] = {c.columns ? c.length : other, c.columns ? other : c.length};
  const std::size_t count = c.length * other;
  std::vector<T> input;
  if constexpr (!std::is_integral_v<T>)
    if (c.integer_valued && c.op == scan_op::sum) input = small_integer_values<T>(rng, count);
  if (input.empty()) input = random_values<T>(rng, count, c.op);
  std::vector<C> initial(other);
  for (C& x : initial) {
    if constexpr (std::is_integral_v<T>)
      x = static_cast<C>(rng());
    else if (c.op == scan_op::sum)
      x = carry_of<C>(c.integer_valued ? std::round(200 * unit(rng) - 100) : 2 * unit(rng) - 1);
    else
      x = carry_of<C>(c.integer_valued ? 2.0 : 0.5 + unit(rng));
  }

  tally::scan_options options{tally_test::direction_of(c.decreasing), c.exclusive, c.threads};
  options.accuracy = c.accuracy;
  const tally::tensor_view<const T> whole_in(input.data(), 2, sizes);
  const int axis_argument = static_cast<int>(axis);

  // One call.
  std::vector<T> one(count);
  std::vector<C> one_carry(other);
  scan<T>(c.op, whole_in, tally::tensor_view<T>(one.data(), 2, sizes), axis_argument, options,
          c.initial_carry ? tally::tensor_view<const C>(carry_view(initial.data(), sizes, axis, c.form))
                          : tally::tensor_view<const C>(),
          carry_view(one_carry.data(), sizes, axis, c.form));

  // The one call against the independent reference, where the arithmetic is exact.
  if (std::is_integral_v<T> || c.integer_valued) {
    // The reference's carries are its own accumulator's (float for float32); the values
    // here are integers, exact in every type.
    using R = typename tally_test::ref_traits<T>::carry;
    std::vector<T> expected(count);
    std::vector<R> reference_initial(other), expected_carry(other);
    for (std::size_t k = 0; k < other; ++k) reference_initial[k] = static_cast<R>(carry_values(initial)[k]);
    const std::ptrdiff_t packed[2] = {static_cast<std::ptrdiff_t>(sizes[1]), 1};
    const std::ptrdiff_t carry_strides[2] = {axis == 0 ? 0 : 1, axis == 1 ? 0 : 1};
    tally_test::reference_scan<T>(c.op, 2, sizes, axis, c.decreasing, c.exclusive, input.data(), packed,
                                  expected.data(), packed, c.initial_carry ? reference_initial.data() : nullptr,
                                  carry_strides, expected_carry.data(), carry_strides);
    CHECK(first_difference(one, expected) == count);
    const auto got = carry_values(one_carry);
    const std::vector<typename decltype(got)::value_type> want(expected_carry.begin(), expected_carry.end());
    CHECK(first_difference(got, want) == other);
  }

  // The same scan in chunks along the axis; a decreasing scan starts at the far end.
  std::vector<T> chunked(count);
  std::vector<C> carries[2] = {std::vector<C>(other), std::vector<C>(other)};
  if (c.initial_carry) carries[0] = initial;
  const std::ptrdiff_t axis_stride = c.columns ? static_cast<std::ptrdiff_t>(other) : 1;
  std::size_t done = 0;
  int current = 0;  // carries[current] holds the carry into the next chunk
  for (std::size_t k = 0; k < c.chunks.size(); ++k) {
    const std::size_t length = c.chunks[k];
    const std::size_t start = c.decreasing ? c.length - done - length : done;
    std::size_t chunk_sizes[2] = {sizes[0], sizes[1]};
    chunk_sizes[axis] = length;
    const std::ptrdiff_t strides[2] = {static_cast<std::ptrdiff_t>(sizes[1]), 1};
    const std::ptrdiff_t shift = static_cast<std::ptrdiff_t>(start) * axis_stride;
    const tally::tensor_view<const T> in(input.data() + shift, 2, chunk_sizes, strides);
    const tally::tensor_view<T> out(chunked.data() + shift, 2, chunk_sizes, strides);
    const bool has_carry_in = k > 0 || c.initial_carry;
    const int next = c.same_view ? current : 1 - current;
    const tally::tensor_view<const C> carry_in =
        has_carry_in ? tally::tensor_view<const C>(carry_view(carries[current].data(), sizes, axis, c.form))
                     : tally::tensor_view<const C>();
    scan<T>(c.op, in, out, axis_argument, options, carry_in, carry_view(carries[next].data(), sizes, axis, c.form));
    current = next;
    done += length;
  }
  REQUIRE(done == c.length);
  CHECK(first_difference(chunked, one) == count);
  CHECK(first_difference(carries[current], one_carry) == other);
}

std::vector<std::size_t> random_chunks(rng_t& rng, std::size_t length) {
  std::vector<std::size_t> chunks;
  for (std::size_t done = 0; done < length;) {
    std::size_t n = pick(rng, 4) == 0 ? 1 : 1 + pick(rng, 300);
    n = std::min(n, length - done);
    chunks.push_back(n);
    done += n;
  }
  return chunks;
}

template <class T>
void check_chunk_modes(std::uint64_t seed, tally::scan_accuracy accuracy) {
  rng_t rng(seed);
  constexpr std::size_t block = tally::scan_block_elements;
  static_assert(block > 0, "scan_block_elements must be positive");
  int variant = 0;
  for (bool columns : {false, true})
    for (scan_op op : {scan_op::sum, scan_op::product})
      for (bool exclusive : {false, true})
        for (bool decreasing : {false, true})
          for (carry_form form : {carry_form::dropped, carry_form::keepdims}) {
            chunk_case c;
            c.columns = columns;
            c.op = op;
            c.exclusive = exclusive;
            c.decreasing = decreasing;
            c.form = form;
            c.same_view = (variant & 1) != 0;
            c.initial_carry = (variant & 2) != 0;
            c.threads = (variant % 3 == 0) ? 3 : 1;
            c.accuracy = accuracy;
            ++variant;
            if constexpr (std::is_integral_v<T>) {
              c.length = 1000;
              c.chunks = random_chunks(rng, c.length);
              check_chunks<T>(c, seed + static_cast<std::uint64_t>(variant));
            } else {
              // Whole blocks, then any remainder.
              c.length = 2 * block + 333;
              c.chunks = (variant & 4) ? std::vector<std::size_t>{block, block, 333}
                                       : std::vector<std::size_t>{2 * block, 333};
              check_chunks<T>(c, seed + static_cast<std::uint64_t>(variant));
              // Rows narrower than a vector, and of one to two vectors, too, which keep the
              // running row in registers that a carry enters and leaves (float products:
              // scan_narrow_product_rows; every operator: scan_register_rows).
              if (columns) {
                for (std::size_t width : {3u, 12u}) {
                  c.width = width;
                  check_chunks<T>(c, seed + 1000 * width + static_cast<std::uint64_t>(variant));
                }
                c.width = 19;
              }
              // Integer-valued sums are exact, so any chunking must give the same bits.
              if (op == scan_op::sum) {
                c.integer_valued = true;
                c.length = 1000;
                c.chunks = random_chunks(rng, c.length);
                check_chunks<T>(c, seed + 1000 + static_cast<std::uint64_t>(variant));
              }
            }
          }
}

}  // namespace

TEMPLATE_TEST_CASE("chunks: carries reproduce one call", "[chunks]", float, tally::half, double, std::int32_t,
                   std::uint16_t, std::int64_t) {
  const std::uint64_t seed = 100 + sizeof(TestType) * 7 + std::is_integral_v<TestType>;
  check_chunk_modes<TestType>(seed, tally::scan_accuracy::exact);  // the default
  if constexpr (std::is_same_v<TestType, float> || std::is_same_v<TestType, double>)
    check_chunk_modes<TestType>(seed, tally::scan_accuracy::fast);
}

TEST_CASE("chunks: a line of -0.0 summed in chunks stays -0.0", "[chunks]") {
  // The carry between chunks is the running value itself, so the sign of zero survives.
  const std::vector<float> input(10, -0.0f);
  std::vector<float> output(10, 1.0f);
  for (tally::scan_accuracy accuracy : {tally::scan_accuracy::exact, tally::scan_accuracy::fast}) {
    double carry = 1.0;
    const std::size_t one[1] = {1};
    std::fill(output.begin(), output.end(), 1.0f);
    for (std::size_t start : {0u, 5u}) {
      const tally::tensor_view<const double> carry_in(&carry, 1, one);
      tally::cumsum<float>(tally::tensor_view<const float>(input.data() + start, {1, 5}),
                           tally::tensor_view<float>(output.data() + start, {1, 5}), 1, with_accuracy(accuracy),
                           start == 0 ? tally::tensor_view<const double>() : carry_in,
                           tally::tensor_view<double>(&carry, 1, one));
    }
    for (float y : output) CHECK(std::signbit(y));
    CHECK(std::signbit(carry));
  }
}

// ---------------------------------------------------------------------------------------
// 3. Carry errors

namespace {

template <class F>
tally::status_code code_of(F&& f) {
  try {
    f();
  } catch (const tally::error& e) {
    return e.code();
  }
  return tally::status_code::ok;
}

}  // namespace

namespace {

/// The carry checks of one path: float32 in the exact mode (the vocabulary engine, double
/// carries), float32 in the fast mode (the SIMD engine, double carries) and int32 (the
/// SIMD engine, int32 carries).
template <class T>
void check_carry_shapes(const tally::scan_options& options) {
  using C = carry_t<T>;
  std::vector<T> input(4 * 5, T(1)), output(4 * 5, T(7));
  std::vector<C> carry(16, C(3));
  const tally::tensor_view<const T> in(input.data(), {4, 5});
  const tally::tensor_view<T> out(output.data(), {4, 5});
  struct bad_shape {
    const char* what;
    std::vector<std::size_t> sizes;
  };
  // For axis 1 the carry is {4} or {4, 1}.
  const bad_shape shapes[] = {
      {"rank 1 with the axis's size", {5}},
      {"rank 1, one short", {3}},
      {"rank 1, two long", {6}},
      {"keepdims with the axis at size 2", {4, 2}},
      {"keepdims with the wrong other size", {3, 1}},
      {"rank 2 without keepdims", {4, 5}},
      {"rank 3", {4, 1, 1}},
      {"the transposed keepdims", {1, 4}},
  };
  for (const bad_shape& s : shapes) {
    for (bool product : {false, true}) {
      for (bool as_carry_out : {false, true}) {
        INFO(s.what << (product ? " cumprod" : " cumsum") << (as_carry_out ? " carry_out" : " carry_in"));
        const tally::tensor_view<C> bad(carry.data(), s.sizes.size(), s.sizes.data());
        const auto call = [&] {
          const tally::tensor_view<const C> carry_in =
              as_carry_out ? tally::tensor_view<const C>() : tally::tensor_view<const C>(bad);
          const tally::tensor_view<C> carry_out = as_carry_out ? bad : tally::tensor_view<C>();
          if (product)
            tally::cumprod<T>(in, out, 1, options, carry_in, carry_out);
          else
            tally::cumsum<T>(in, out, 1, options, carry_in, carry_out);
        };
        CHECK(code_of(call) == tally::status_code::invalid_carry);
        // Nothing written: neither the output nor the carry.
        CHECK(std::count(output.begin(), output.end(), T(7)) == 20);
        CHECK(std::count(carry.begin(), carry.end(), C(3)) == 16);
      }
    }
  }
  // The right shapes are accepted (so the cases above fail for their shape alone).
  for (const std::vector<std::size_t>& good : {std::vector<std::size_t>{4}, std::vector<std::size_t>{4, 1}}) {
    const tally::tensor_view<C> c(carry.data(), good.size(), good.data());
    CHECK(code_of([&] { tally::cumsum<T>(in, out, 1, options, c, c); }) == tally::status_code::ok);
    CHECK(code_of([&] { tally::cumsum<T>(in, out, -1, options, c, c); }) == tally::status_code::ok);
  }
  // Axis 0: the carry is {5} or {1, 5}.
  const tally::tensor_view<C> column_carry(carry.data(), {5});
  CHECK(code_of([&] { tally::cumsum<T>(in, out, 0, options, column_carry, column_carry); }) ==
        tally::status_code::ok);
  const tally::tensor_view<C> wrong_for_axis0(carry.data(), {4});
  CHECK(code_of([&] { tally::cumsum<T>(in, out, 0, options, wrong_for_axis0, {}); }) ==
        tally::status_code::invalid_carry);
}

/// carry_out overlapping the data, and carry_in overlapping the output, are refused
/// (carries wider than the element are placed inside the data buffers by address only:
/// a refused call reads nothing).
template <class T>
void check_carry_overlaps(const tally::scan_options& options) {
  using C = carry_t<T>;
  std::vector<T> input(4 * 8, T(1)), output(4 * 8, T(7));
  const tally::tensor_view<const T> in(input.data(), {4, 5});
  const tally::tensor_view<T> out(output.data(), {4, 5});
  const tally::tensor_view<C> inside_output(reinterpret_cast<C*>(output.data() + 8), {4});
  const tally::tensor_view<C> inside_input(reinterpret_cast<C*>(input.data() + 8), {4});
  CHECK(code_of([&] { tally::cumsum<T>(in, out, 1, options, {}, inside_output); }) ==
        tally::status_code::overlapping_buffers);
  CHECK(code_of([&] { tally::cumsum<T>(in, out, 1, options, {}, inside_input); }) ==
        tally::status_code::overlapping_buffers);
  CHECK(code_of([&] { tally::cumsum<T>(in, out, 1, options, inside_output, {}); }) ==
        tally::status_code::overlapping_buffers);
  CHECK(std::count(output.begin(), output.end(), T(7)) == 32);
}

}  // namespace

TEST_CASE("chunks: carries of the wrong shape are refused with invalid_carry", "[chunks][errors]") {
  check_carry_shapes<float>(with_accuracy(tally::scan_accuracy::exact));
  check_carry_shapes<float>(with_accuracy(tally::scan_accuracy::fast));
  check_carry_shapes<std::int32_t>({});
}

TEST_CASE("chunks: a carry_out that overlaps the input or output is refused", "[chunks][errors]") {
  check_carry_overlaps<float>(with_accuracy(tally::scan_accuracy::exact));
  check_carry_overlaps<float>(with_accuracy(tally::scan_accuracy::fast));
  check_carry_overlaps<std::int32_t>({});
}
