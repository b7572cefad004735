// The benchmark suite of issues 3 and 10: tally beside memcpy of the same bytes and beside
// the peers (the plain loop a user writes, a naive stride-walking loop, std::inclusive_scan,
// Eigen's Tensor cumsum/cumprod), all in one run, so that every target is a ratio of two
// times measured under the same conditions. Four groups of cases:
//
//   B1 .. B9, B4t        the case table, on std::vector buffers (what users have) and again
//                        on 64-byte aligned buffers ("B1@aligned": tally and memcpy only)
//   sweep:<type>:a<axis>[d]:L=<L> / :w=<w>
//                        16M elements as [N/L, L] along axis 1 and [L, N/L] along axis 0
//                        (also decreasing: a1d, a0d), and narrow [N/w, w] along axis 0;
//                        tally, memcpy, plain loop
//   alias:<type>:<i|d>   one 64 MiB line, increasing or decreasing, its output 64 bytes
//                        past (behind) its input modulo 4 KiB; tally, exact, memcpy
//   small:<type>:n=<n> / :8x8:a1
//                        one small call, ns per call: both layers beside the plain loop;
//                        for n, also cummax (with and without indices), cumsum into
//                        double and logcumsumexp
//
// Names are "<case>/<implementation>" (for example "B1/tally", "B1@aligned/memcpy",
// "sweep:f32:a1:L=4K/plain"); Google Benchmark appends "/real_time". benchmarks/report.py
// parses them, so keep that shape. Every implementation is checked once against an
// independent double / unsigned reference before it is timed: a fast wrong answer is
// reported as an error, never as a time. Each row records where its buffers start
// (counters in_mod64 / out_mod64: the address modulo 64).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <tally/tally.hpp>

#include "random_bits.hpp"
#include "sequential_cummax.hpp"
#if __has_include(<tally/simd.hpp>)
#include <tally/simd.hpp>
#define TALLY_BENCH_HAVE_SIMD_QUERY 1
#else
#define TALLY_BENCH_HAVE_SIMD_QUERY 0
#endif

#if TALLY_BENCH_HAVE_EIGEN
#include <unsupported/Eigen/CXX11/Tensor>
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define TALLY_BENCH_X86 1
#else
#define TALLY_BENCH_X86 0
#endif

namespace {

using tally::half;

// ---------------------------------------------------------------------------------------
// Buffers: std::vector (what users have: for a large vector glibc's malloc returns an
// address 16 bytes past a 64-byte boundary) or 64-byte aligned, allocated once per case,
// every page touched before timing.

struct free_deleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

template <class T>
class aligned_array {
 public:
  explicit aligned_array(std::size_t n) : n_(n) {
    const std::size_t bytes = (std::max<std::size_t>(n * sizeof(T), 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    data_.reset(static_cast<T*>(p));
    std::uninitialized_fill_n(data_.get(), n, T{});  // also faults every page in
  }
  T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return n_; }

 private:
  std::unique_ptr<T, free_deleter> data_;
  std::size_t n_;
};

/// Inputs: floats in [-1, 1) (sums grow like a random walk, no overflow or subnormals);
/// integer sums in [-1000, 1000] (no signed overflow in any peer over 4096 elements);
/// integer products in {-1, 1} (no signed overflow either; multiply time does not depend on data);
/// float products in exp(+-step), step = min(0.01, 2 / sqrt(line_length)): the log of a
/// running product is a random walk with no drift whose spread stays within about 1.2 at
/// the end of any line, so no product overflows (float16 included) or goes subnormal, as
/// a growth-rate product does; the time is that of the vector path, not of subnormal
/// arithmetic. (Inputs 1 +- 0.01 drift by -1.7e-5 a step in the log: columns of 5.6M rows
/// went subnormal and ran 11x memcpy in the plain loop as in tally, 2026-12-07.)
/// `rounding`: float sums' inputs scaled by 0.1, so that a sum of two rounds at about
/// half the steps, as measured data do; unscaled, they lie on a 2^-52 grid where a double
/// sum of two is exact.
template <class T>
void fill_input(T* p, std::size_t n, bool product, bool rounding, std::size_t line_length) {
  random_bits rng(0x7a11e5);
  const double scale = rounding ? 0.1 : 1.0;
  const double step = std::min(0.01, 2.0 / std::sqrt(static_cast<double>(std::max<std::size_t>(line_length, 1))));
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, half> || std::is_floating_point_v<T>) {
      p[i] = static_cast<T>(product ? std::exp(step * rng.symmetric()) : scale * rng.symmetric());
    } else if (product) {
      p[i] = (rng.next() & 1) ? T(1) : T(-1);
    } else {
      p[i] = static_cast<T>(static_cast<std::int64_t>(rng.next() % 2001) - 1000);
    }
  }
}

// ---------------------------------------------------------------------------------------
// A case's shape and the naive line walker shared by the naive peer and the reference.

/// One benchmark case: sizes of a row-major tensor, the input's strides (empty: packed),
/// the axis, the direction and exclusivity, and whether its inputs round (fill_input).
/// The output is always packed.
struct shape {
  std::vector<std::size_t> sizes;
  std::vector<std::ptrdiff_t> in_strides;
  int axis = 0;
  bool reverse = false;
  bool exclusive = false;
  bool rounding_inputs = false;

  std::size_t elements() const {
    return std::accumulate(sizes.begin(), sizes.end(), std::size_t{1}, std::multiplies<>());
  }
  std::vector<std::ptrdiff_t> packed_strides() const {
    std::vector<std::ptrdiff_t> s(sizes.size());
    std::ptrdiff_t step = 1;
    for (std::size_t d = sizes.size(); d-- > 0;) {
      s[d] = step;
      step *= static_cast<std::ptrdiff_t>(sizes[d]);
    }
    return s;
  }
  std::vector<std::ptrdiff_t> input_strides() const { return in_strides.empty() ? packed_strides() : in_strides; }
};

/// Calls line(in_offset, in_step, out_offset, out_step, n) once per line along the axis,
/// lines in row-major order of the other dimensions, each walked in scan order.
template <class F>
void for_each_line(const shape& s, F&& line) {
  const std::vector<std::ptrdiff_t> is = s.input_strides(), os = s.packed_strides();
  const std::size_t rank = s.sizes.size(), axis = static_cast<std::size_t>(s.axis), n = s.sizes[axis];
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(n) - 1;
  const std::ptrdiff_t in_step = s.reverse ? -is[axis] : is[axis], out_step = s.reverse ? -os[axis] : os[axis];
  const std::ptrdiff_t in_start = s.reverse ? last * is[axis] : 0, out_start = s.reverse ? last * os[axis] : 0;
  std::vector<std::size_t> index(rank, 0);
  for (;;) {
    std::ptrdiff_t io = in_start, oo = out_start;
    for (std::size_t d = 0; d < rank; ++d) {
      io += static_cast<std::ptrdiff_t>(index[d]) * is[d];
      oo += static_cast<std::ptrdiff_t>(index[d]) * os[d];
    }
    line(io, in_step, oo, out_step, n);
    std::size_t d = rank;
    while (d-- > 0) {  // odometer over every dimension but the axis
      if (d == axis) continue;
      if (++index[d] < s.sizes[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

template <class A, class T>
A load_as(T v) noexcept {
  if constexpr (std::is_same_v<T, half>) return static_cast<A>(static_cast<float>(v));
  else return static_cast<A>(v);
}
template <class T, class A>
T store_as(A v) noexcept {
  if constexpr (std::is_same_v<T, half>) return half(static_cast<float>(v));
  else return static_cast<T>(v);
}

/// The accumulator a straightforward loop uses: T itself for float types (float32 for
/// float16), the unsigned type of the same width for integers (wrapping is defined).
template <class T, class = void>
struct naive_acc {
  using type = T;
};
template <>
struct naive_acc<half> {
  using type = float;
};
template <class T>
struct naive_acc<T, std::enable_if_t<std::is_integral_v<T>>> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using naive_acc_t = typename naive_acc<T>::type;

/// One line at a time, one element at a time, walking the strides: what a first
/// implementation does (and what every peer in docs/benchmarks.md does per line).
template <class T, class A>
void naive_scan(const shape& s, bool product, const T* in, T* out) {
  const bool exclusive = s.exclusive;
  for_each_line(s, [&](std::ptrdiff_t io, std::ptrdiff_t is, std::ptrdiff_t oo, std::ptrdiff_t os, std::size_t n) {
    const T* p = in + io;
    T* q = out + oo;
    A acc = product ? A(1) : A(0);
    if (is == 1 && os == 1 && !exclusive) {  // the common contiguous case, written plainly
      if (product)
        for (std::size_t j = 0; j < n; ++j) q[j] = store_as<T>(acc = static_cast<A>(acc * load_as<A>(p[j])));
      else
        for (std::size_t j = 0; j < n; ++j) q[j] = store_as<T>(acc = static_cast<A>(acc + load_as<A>(p[j])));
      return;
    }
    for (std::size_t j = 0; j < n; ++j, p += is, q += os) {
      const A x = load_as<A>(*p);
      if (exclusive) *q = store_as<T>(acc);
      acc = product ? static_cast<A>(acc * x) : static_cast<A>(acc + x);
      if (!exclusive) *q = store_as<T>(acc);
    }
  });
}

#if TALLY_BENCH_X86
/// CPUID leaf 1, ECX bit 29 (asked directly, not through tally, so that TALLY_SIMD=scalar
/// caps tally alone and never the peer).
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}

/// The naive float16 loop with hardware conversions (F16C), as a hand-written loop on this
/// machine would use; float32 accumulation, rounded to float16 on each write. Only for
/// contiguous rows (case B6). A per-function target keeps the build free of -m flags.
__attribute__((target("f16c"))) void naive_half_rows_f16c(const half* in, half* out, std::size_t rows,
                                                          std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    float acc = 0.0f;
    const half* p = in + r * cols;
    half* q = out + r * cols;
    for (std::size_t j = 0; j < cols; ++j) {
      // The vector forms, one lane used: Clang's scalar _cvtss_sh macro is not -Wpedantic clean.
      acc += _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(p[j].bits)));
      const __m128i h = _mm_cvtps_ph(_mm_set_ss(acc), _MM_FROUND_TO_NEAREST_INT);
      q[j] = half::from_bits(static_cast<std::uint16_t>(_mm_cvtsi128_si32(h)));
    }
  }
}
#endif

// ---------------------------------------------------------------------------------------
// The plain loops: the best simple code a user writes by hand, compiled at the benchmark's
// optimisation level (-O3, no -march). Unlike the naive peer, which walks every line with
// its strides, they follow the memory order: along the last axis a nested loop keeping the
// running value in a register; along an outer axis row by row, out[i][k] = out[i-1][k] +
// in[i][k], which the compiler vectorises. Integers add in the unsigned type (the same
// instructions as int, without signed overflow); float16 converts to float32, keeps the
// running value (axis 1) or row (axis 0) in float32 and rounds on each write.

/// Sums (or products) along the last axis of `rows` packed lines of `cols` elements.
template <class T, bool Product>
void plain_rows(const T* in, T* out, std::size_t rows, std::size_t cols) {
  using A = naive_acc_t<T>;
  for (std::size_t r = 0; r < rows; ++r) {
    const T* p = in + r * cols;
    T* q = out + r * cols;
    A acc = Product ? A(1) : A(0);
    for (std::size_t j = 0; j < cols; ++j) {
      acc = Product ? static_cast<A>(acc * load_as<A>(p[j])) : static_cast<A>(acc + load_as<A>(p[j]));
      q[j] = store_as<T>(acc);
    }
  }
}

/// Exclusive sums along the last axis of `rows` packed lines of `cols` elements.
template <class T>
void plain_rows_exclusive(const T* in, T* out, std::size_t rows, std::size_t cols) {
  using A = naive_acc_t<T>;
  for (std::size_t r = 0; r < rows; ++r) {
    const T* p = in + r * cols;
    T* q = out + r * cols;
    A acc = A(0);
    for (std::size_t j = 0; j < cols; ++j) {
      q[j] = store_as<T>(acc);
      acc = static_cast<A>(acc + load_as<A>(p[j]));
    }
  }
}

/// Sums along the last axis of `rows` packed lines of `cols` elements, each line from its
/// last element down (the decreasing direction), lines in memory order.
template <class T>
void plain_rows_decreasing(const T* in, T* out, std::size_t rows, std::size_t cols) {
  using A = naive_acc_t<T>;
  for (std::size_t r = 0; r < rows; ++r) {
    const T* p = in + r * cols;
    T* q = out + r * cols;
    A acc = A(0);
    for (std::size_t j = cols; j-- > 0;) {
      acc = static_cast<A>(acc + load_as<A>(p[j]));
      q[j] = store_as<T>(acc);
    }
  }
}

/// Sums down the first axis of packed [rows, width] from the last row up (the decreasing
/// direction): each output row the one below it plus the input row.
template <class T>
void plain_columns_decreasing(const T* in, T* out, std::size_t rows, std::size_t width) {
  for (std::size_t k = 0; k < width; ++k) out[(rows - 1) * width + k] = in[(rows - 1) * width + k];
  for (std::size_t i = rows - 1; i-- > 0;)
    for (std::size_t k = 0; k < width; ++k) out[i * width + k] = out[(i + 1) * width + k] + in[i * width + k];
}

/// Along the middle axis of packed [outer, rows, width]: row by row, each output row the
/// previous output row combined with the input row. float16 keeps its running row in
/// float32 (`row`, width elements), since re-reading rounded float16 outputs would add a
/// rounding error per row.
template <class T, bool Product>
void plain_columns(const T* in, T* out, std::size_t outer, std::size_t rows, std::size_t width, float* row) {
  using A = naive_acc_t<T>;
  for (std::size_t o = 0; o < outer; ++o) {
    const T* p = in + o * rows * width;
    T* q = out + o * rows * width;
    if constexpr (std::is_same_v<T, half>) {
      for (std::size_t k = 0; k < width; ++k) q[k] = store_as<T>(row[k] = load_as<float>(p[k]));
      for (std::size_t i = 1; i < rows; ++i) {
        const T* x = p + i * width;
        T* y = q + i * width;
        for (std::size_t k = 0; k < width; ++k)
          y[k] = store_as<T>(row[k] = Product ? row[k] * load_as<float>(x[k]) : row[k] + load_as<float>(x[k]));
      }
    } else {
      for (std::size_t k = 0; k < width; ++k) q[k] = p[k];
      for (std::size_t i = 1; i < rows; ++i) {
        const T* x = p + i * width;
        const T* prev = q + (i - 1) * width;
        T* y = q + i * width;
        for (std::size_t k = 0; k < width; ++k)
          y[k] = Product ? static_cast<T>(static_cast<A>(static_cast<A>(prev[k]) * static_cast<A>(x[k])))
                         : static_cast<T>(static_cast<A>(static_cast<A>(prev[k]) + static_cast<A>(x[k])));
      }
    }
  }
}

/// A 2-D input seen through strides (B4t, B8), packed output, in the output's order.
template <class T, bool Product>
void plain_strided_2d(const T* in, T* out, std::size_t rows, std::size_t cols, std::ptrdiff_t s0,
                      std::ptrdiff_t s1, int axis) {
  using A = naive_acc_t<T>;
  const auto at = [&](std::size_t i, std::size_t j) {
    return load_as<A>(in[static_cast<std::ptrdiff_t>(i) * s0 + static_cast<std::ptrdiff_t>(j) * s1]);
  };
  const auto op = [](A a, A x) { return Product ? static_cast<A>(a * x) : static_cast<A>(a + x); };
  if (axis == 1) {
    for (std::size_t i = 0; i < rows; ++i) {
      A acc = Product ? A(1) : A(0);
      for (std::size_t j = 0; j < cols; ++j) out[i * cols + j] = store_as<T>(acc = op(acc, at(i, j)));
    }
    return;
  }
  for (std::size_t j = 0; j < cols; ++j) out[j] = store_as<T>(at(0, j));
  for (std::size_t i = 1; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      out[i * cols + j] = store_as<T>(op(load_as<A>(out[(i - 1) * cols + j]), at(i, j)));
}

// ---------------------------------------------------------------------------------------
// The independent reference and the check run before timing.

/// Checks `got` against a reference computed here in double (floating point) or in the
/// unsigned type (integers). Integers must match exactly. Floating point may differ by
/// rounding: the bound is 1e-5 of the running sum of |x| (sequential float rounding of a
/// 16M-element random walk stays far below it, a wrong answer does not), plus one float16
/// rounding step of the value for float16 outputs, plus, for products, 8 sqrt(j) roundings
/// of the value at step j. Returns an empty string when it matches.
template <class T>
std::string check_against_reference(const shape& s, bool product, const T* in, const T* got) {
  const std::size_t n = s.elements();
  std::string failure;
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    std::vector<T> ref(n);
    naive_scan<T, U>(s, product, in, ref.data());
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != ref[i]) {
        std::ostringstream m;
        m << "mismatch at flat index " << i << ": got " << +got[i] << ", expected " << +ref[i];
        return m.str();
      }
  } else {
    const bool exclusive = s.exclusive;
    // A running product's rounding errors are relative and add up as a random walk: about
    // sqrt(j) roundings of the accumulator (float for float16) at step j, whatever order
    // the multiplies took. 1e-5 alone failed the plain loop on rows of 7 (16M elements)
    // 230K rows down.
    const double unit_roundoff = std::is_same_v<T, double> ? 0x1.0p-53 : 0x1.0p-24;
    for_each_line(s, [&](std::ptrdiff_t io, std::ptrdiff_t is, std::ptrdiff_t oo, std::ptrdiff_t os, std::size_t len) {
      if (!failure.empty()) return;
      double acc = product ? 1.0 : 0.0, abs_acc = product ? 1.0 : 0.0;
      for (std::size_t j = 0; j < len; ++j) {
        const double x = load_as<double>(in[io + static_cast<std::ptrdiff_t>(j) * is]);
        double expected = acc, bound = abs_acc;
        acc = product ? acc * x : acc + x;
        abs_acc = product ? abs_acc * std::fabs(x) : abs_acc + std::fabs(x);
        if (!exclusive) expected = acc, bound = abs_acc;
        const double value = load_as<double>(got[oo + static_cast<std::ptrdiff_t>(j) * os]);
        double tolerance = 1e-5 * bound + 1e-4;
        if (std::is_same_v<T, half>) tolerance += std::fabs(expected) * 0x1.0p-10;
        if (product) tolerance += std::fabs(expected) * 8 * std::sqrt(static_cast<double>(j + 1)) * unit_roundoff;
        if (!(std::fabs(value - expected) <= tolerance)) {
          std::ostringstream m;
          m << "mismatch at line offset " << oo << ", step " << j << ": got " << value << ", expected " << expected;
          failure = m.str();
          return;
        }
      }
    });
  }
  return failure;
}

// ---------------------------------------------------------------------------------------
// Implementations under test. Each is a function (in, out) over the case's buffers.

template <class T>
using run_fn = std::function<void(const T* in, T* out)>;

/// tally's typed layer. The case table's and the sweep's "tally" rows run the fast mode
/// (the SIMD engine's kernels, issue 10's targets); their "exact" rows the exact mode,
/// the default for float32 and float64 (issue 13), whose cost they show.
template <class T>
run_fn<T> tally_fn(const shape& s, bool product, unsigned threads,
                   tally::scan_accuracy accuracy = tally::scan_accuracy::fast) {
  return [s, product, threads, accuracy](const T* in, T* out) {
    const std::vector<std::ptrdiff_t> is = s.input_strides();
    tally::tensor_view<const T> vin(in, s.sizes.size(), s.sizes.data(), is.data());
    tally::tensor_view<T> vout(out, s.sizes.size(), s.sizes.data());
    tally::scan_options options;
    options.direction = s.reverse ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    options.exclusive = s.exclusive;
    options.threads = threads;
    options.accuracy = accuracy;
    if (product)
      tally::cumprod(vin, vout, s.axis, options);
    else
      tally::cumsum(vin, vout, s.axis, options);
  };
}

template <class T>
run_fn<T> memcpy_fn(const shape& s) {
  const std::size_t bytes = s.elements() * sizeof(T);
  return [bytes](const T* in, T* out) { std::memcpy(out, in, bytes); };
}

template <class T>
run_fn<T> naive_fn(const shape& s, bool product) {
#if TALLY_BENCH_X86
  if constexpr (std::is_same_v<T, half>) {
    if (cpu_has_f16c() && s.in_strides.empty() && !s.reverse && !s.exclusive &&
        s.axis + 1 == static_cast<int>(s.sizes.size()) && !product) {
      const std::size_t cols = s.sizes.back(), rows = s.elements() / cols;
      return [rows, cols](const half* in, half* out) { naive_half_rows_f16c(in, out, rows, cols); };
    }
  }
#endif
  return [s, product](const T* in, T* out) { naive_scan<T, naive_acc_t<T>>(s, product, in, out); };
}

/// The plain loop for a case, or an empty function where a user has no plain loop to
/// write (a decreasing or exclusive scan: B5) or none is written here (strided float16).
template <class T>
run_fn<T> plain_fn(const shape& s, bool product) {
  if (s.reverse && !s.exclusive && !product && s.in_strides.empty()) {  // the decreasing sweep rows
    const std::size_t cols = s.sizes.back(), rows = s.elements() / cols;
    if (s.axis + 1 == static_cast<int>(s.sizes.size()))
      return [rows, cols](const T* in, T* out) { plain_rows_decreasing<T>(in, out, rows, cols); };
    if constexpr (!std::is_same_v<T, half>)
      if (s.sizes.size() == 2 && s.axis == 0)
        return [rows, cols](const T* in, T* out) { plain_columns_decreasing<T>(in, out, rows, cols); };
  }
  if (s.exclusive && !s.reverse && !product && s.in_strides.empty() && s.axis + 1 == static_cast<int>(s.sizes.size())) {
    const std::size_t cols = s.sizes.back(), rows = s.elements() / cols;  // the exclusive sweep rows
    return [rows, cols](const T* in, T* out) { plain_rows_exclusive<T>(in, out, rows, cols); };
  }
  if (s.reverse || s.exclusive) return {};
  const std::size_t axis = static_cast<std::size_t>(s.axis), rank = s.sizes.size();
  if (!s.in_strides.empty()) {
    if (rank != 2 || std::is_same_v<T, half>) return {};
    const std::size_t rows = s.sizes[0], cols = s.sizes[1];
    const std::ptrdiff_t s0 = s.in_strides[0], s1 = s.in_strides[1];
    const int ax = s.axis;
    if (product)
      return [=](const T* in, T* out) { plain_strided_2d<T, true>(in, out, rows, cols, s0, s1, ax); };
    return [=](const T* in, T* out) { plain_strided_2d<T, false>(in, out, rows, cols, s0, s1, ax); };
  }
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= s.sizes[d];
  for (std::size_t d = axis + 1; d < rank; ++d) inner *= s.sizes[d];
  const std::size_t len = s.sizes[axis];
  if (inner == 1) {
#if TALLY_BENCH_X86
    if constexpr (std::is_same_v<T, half>)
      if (!product && cpu_has_f16c())
        return [outer, len](const half* in, half* out) { naive_half_rows_f16c(in, out, outer, len); };
#endif
    if (product) return [outer, len](const T* in, T* out) { plain_rows<T, true>(in, out, outer, len); };
    return [outer, len](const T* in, T* out) { plain_rows<T, false>(in, out, outer, len); };
  }
  // The float16 running row lives with the function; benchmarks run one at a time.
  auto row = std::make_shared<std::vector<float>>(std::is_same_v<T, half> ? inner : 0);
  if (product)
    return [=](const T* in, T* out) { plain_columns<T, true>(in, out, outer, len, inner, row->data()); };
  return [=](const T* in, T* out) { plain_columns<T, false>(in, out, outer, len, inner, row->data()); };
}

/// std::inclusive_scan over the whole (1-D) buffer.
template <class T>
run_fn<T> inclusive_scan_fn(const shape& s) {
  const std::size_t n = s.elements();
  return [n](const T* in, T* out) { std::inclusive_scan(in, in + n, out); };
}

#if TALLY_BENCH_HAVE_EIGEN
/// Eigen's Tensor scan over TensorMaps of the same buffers, row-major so that the axis
/// numbers match, on the default (single-thread) device. A decreasing direction goes
/// through .reverse(); a transposed input (strides reversed) through .shuffle().
template <class T, int R>
run_fn<T> eigen_fn(const shape& s, bool product) {
  using index = Eigen::Index;
  Eigen::array<index, R> dims, in_dims;
  Eigen::array<bool, R> flip;
  Eigen::array<int, R> transpose;
  for (int d = 0; d < R; ++d) {
    dims[d] = static_cast<index>(s.sizes[static_cast<std::size_t>(d)]);
    in_dims[d] = static_cast<index>(s.sizes[static_cast<std::size_t>(R - 1 - d)]);
    flip[d] = d == s.axis && s.reverse;
    transpose[d] = R - 1 - d;
  }
  const bool transposed = !s.in_strides.empty();  // B8, B4t: strides {1, n}, a transposed packed buffer
  const index axis = s.axis;
  const bool reverse = s.reverse, exclusive = s.exclusive;
  return [=](const T* in, T* out) {
    using in_map = Eigen::TensorMap<const Eigen::Tensor<T, R, Eigen::RowMajor>>;
    Eigen::TensorMap<Eigen::Tensor<T, R, Eigen::RowMajor>> y(out, dims);
    if (transposed) {
      in_map x(in, in_dims);
      if (product) y = x.shuffle(transpose).cumprod(axis, exclusive);
      else y = x.shuffle(transpose).cumsum(axis, exclusive);
    } else if (reverse) {
      in_map x(in, dims);
      if (product) y = x.reverse(flip).cumprod(axis, exclusive).reverse(flip);
      else y = x.reverse(flip).cumsum(axis, exclusive).reverse(flip);
    } else {
      in_map x(in, dims);
      if (product) y = x.cumprod(axis, exclusive);
      else y = x.cumsum(axis, exclusive);
    }
  };
}
#endif

// ---------------------------------------------------------------------------------------
// Registration.

/// Where a case's buffers come from: std::vector<T>(n), as a user allocates them, or
/// 64-byte aligned (the "@aligned" rows), or both in one std::vector with the output 64
/// bytes past (or behind) the input modulo 4 KiB (the "alias:" rows).
enum class buffer_kind { vector, aligned, out_64_past_in, out_64_behind_in };

/// The buffers of the case running now. Google Benchmark calls a benchmark's function
/// several times (to size the iteration count, then once per repetition); the buffers are
/// allocated and filled on the first call of a case and shared by its implementations (so
/// tally, memcpy and the peers of a row run on the same addresses), until another case
/// starts: one set is alive at a time (the largest case needs 256 MiB). Each
/// implementation is warmed up and checked on its first call.
struct workspace {
  virtual ~workspace() = default;
  std::map<int, std::string> verdicts;  ///< per implementation: empty when its output matched
};
template <class T>
struct typed_workspace final : workspace {
  typed_workspace(std::size_t n, buffer_kind kind) {
    if (kind == buffer_kind::vector) {
      vin = std::vector<T>(n);  // value-initialised: every page touched
      vout = std::vector<T>(n);
      in = vin.data();
      out = vout.data();
    } else if (kind == buffer_kind::out_64_past_in || kind == buffer_kind::out_64_behind_in) {
      const std::size_t page = 4096 / sizeof(T), shift = 64 / sizeof(T);
      const std::size_t gap = (n + page - 1) / page * page + (kind == buffer_kind::out_64_past_in ? shift : page - shift);
      vin = std::vector<T>(gap + n);
      in = vin.data();
      out = in + gap;
    } else {
      ain = std::make_unique<aligned_array<T>>(n);
      aout = std::make_unique<aligned_array<T>>(n);
      in = ain->data();
      out = aout->data();
    }
  }
  std::vector<T> vin, vout;
  std::unique_ptr<aligned_array<T>> ain, aout;
  T* in = nullptr;
  T* out = nullptr;
};
std::unique_ptr<workspace> current_workspace;
std::string current_case;

struct row_options {
  bool check = true;                                   ///< compare with the reference before timing
  benchmark::TimeUnit unit = benchmark::kMillisecond;  ///< the console's unit (the JSON says which)
  /// The check of a row that is no cumsum or cumprod (input, output): empty if right, else
  /// what is wrong. Without it, the case's sum or product reference.
  std::function<std::string(const void*, const void*)> verify = {};
};

/// Registers "<case_id>/<impl>" timing fn on the case's buffers. Bytes processed are the
/// input plus the output bytes for every implementation of a case, so GB/s compare
/// directly. Real time throughout: threaded runs need it, and one clock makes every ratio
/// fair. F is any callable (const T*, T*): small calls pass lambdas so that nothing but the
/// call itself is timed.
template <class T, class F>
void add(const std::string& case_id, const std::string& impl, const shape& s, bool product, buffer_kind kind, F fn,
         row_options opt = {}) {
  static int registered = 0;
  const int id = registered++;
  benchmark::RegisterBenchmark((case_id + "/" + impl).c_str(), [=](benchmark::State& state) {
    const std::size_t n = s.elements();
    if (current_case != case_id) {
      current_workspace.reset();  // free the previous case's buffers first
      auto w = std::make_unique<typed_workspace<T>>(n, kind);
      fill_input(w->in, n, product, s.rounding_inputs, s.sizes.empty() ? 1 : s.sizes[static_cast<std::size_t>(s.axis)]);
      current_workspace = std::move(w);
      current_case = case_id;
    }
    auto& w = static_cast<typed_workspace<T>&>(*current_workspace);
    if (w.verdicts.count(id) == 0) {
      // Poison the output (NaN for floating point, -1 for integers) so that an
      // implementation that skips elements cannot pass on the previous one's results.
      std::memset(static_cast<void*>(w.out), 0xff, n * sizeof(T));
      fn(static_cast<const T*>(w.in), w.out);  // warm-up: first touch and lazy initialisation stay out of the timing
      w.verdicts[id] = !opt.check  ? std::string()
                       : opt.verify ? opt.verify(w.in, w.out)
                                    : check_against_reference(s, product, w.in, w.out);
      // Once more after the check: the first call after the integer check's 64 MiB
      // reference was freed measured 30x slower on a virtual machine (2026-11-28), and
      // with --benchmark_min_time=0.1 that one call became the row's time.
      fn(static_cast<const T*>(w.in), w.out);
    }
    const std::string& failure = w.verdicts[id];
    if (!failure.empty()) {
      state.SkipWithError(failure.c_str());
      for (auto _ : state) {
      }
      return;
    }
    const T* in = w.in;
    T* out = w.out;
    for (auto _ : state) {
      fn(in, out);
      benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(out);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(2 * n * sizeof(T)));
    state.counters["in_mod64"] = static_cast<double>(reinterpret_cast<std::uintptr_t>(in) % 64);
    state.counters["out_mod64"] = static_cast<double>(reinterpret_cast<std::uintptr_t>(out) % 64);
  })->UseRealTime()->Unit(opt.unit);
}

/// The exact mode's row of a float32 or float64 case ("exact"); none for other types.
template <class T>
void add_exact(const std::string& id, const shape& s, bool product) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    add<T>(id, "exact", s, product, buffer_kind::vector, tally_fn<T>(s, product, 1, tally::scan_accuracy::exact));
}

/// A B-case on std::vector buffers: tally, memcpy, the plain loop (where one exists) and
/// the naive loop; the caller adds the other peers.
template <class T>
void add_core(const std::string& id, const shape& s, bool product) {
  add<T>(id, "tally", s, product, buffer_kind::vector, tally_fn<T>(s, product, 1));
  add_exact<T>(id, s, product);
  add<T>(id, "memcpy", s, product, buffer_kind::vector, memcpy_fn<T>(s), {false});
  if (run_fn<T> plain = plain_fn<T>(s, product)) add<T>(id, "plain", s, product, buffer_kind::vector, plain);
  add<T>(id, "naive", s, product, buffer_kind::vector, naive_fn<T>(s, product));
}

/// The same case on 64-byte aligned buffers: tally and memcpy, as "<id>@aligned".
template <class T>
void add_aligned(const std::string& id, const shape& s, bool product) {
  add<T>(id + "@aligned", "tally", s, product, buffer_kind::aligned, tally_fn<T>(s, product, 1));
  add<T>(id + "@aligned", "memcpy", s, product, buffer_kind::aligned, memcpy_fn<T>(s), {false});
}

template <class T, int R>
void add_eigen([[maybe_unused]] const std::string& id, [[maybe_unused]] const shape& s,
               [[maybe_unused]] bool product) {
#if TALLY_BENCH_HAVE_EIGEN
  add<T>(id, "eigen", s, product, buffer_kind::vector, eigen_fn<T, R>(s, product));
#endif
}

/// "1", "4", ..., "1K", "16M": the sweep's L in names.
std::string count_label(std::size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

/// One sweep row: tally, memcpy and the plain loop on std::vector buffers.
template <class T>
void add_sweep(const std::string& id, const shape& s, bool product = false) {
  add<T>(id, "tally", s, product, buffer_kind::vector, tally_fn<T>(s, product, 1));
  add_exact<T>(id, s, product);
  add<T>(id, "memcpy", s, product, buffer_kind::vector, memcpy_fn<T>(s), {false});
  if (run_fn<T> plain = plain_fn<T>(s, product)) add<T>(id, "plain", s, product, buffer_kind::vector, plain);
}

/// The descriptor layer's call, with its descriptors built once, outside the timing.
struct prebuilt_desc {
  std::uint32_t sizes[2] = {0, 0};
  tally::tensor_desc tensor;
  tally::cumulative_summation_desc op;

  prebuilt_desc(std::initializer_list<std::uint32_t> extents, std::uint32_t axis) {
    std::copy(extents.begin(), extents.end(), sizes);
    const auto rank = static_cast<std::uint32_t>(extents.size());
    tensor = {tally::data_type::float32, rank, sizes, nullptr,
              tally::calc_buffer_tensor_size(tally::data_type::float32, rank, sizes, nullptr)};
    op.input = op.output = &tensor;
    op.axis = axis;
  }
  /// The call, as a benchmark row's function.
  static auto row(std::shared_ptr<const prebuilt_desc> d) {
    return [d](const float* in, float* out) {
      const tally::status st = tally::execute(d->op, in, out);
      if (!st) {
        std::fprintf(stderr, "tally::execute failed: %s\n", st.message());
        std::abort();
      }
    };
  }
};

/// The vocabulary's small calls on the same n floats: cummax (values; with indices),
/// cumsum into double and logcumsumexp, each checked against a sequential loop (exactly;
/// logcumsumexp within 1e-5 of the double formula).
void add_small_vocabulary(const std::string& id, std::size_t n) {
  const shape s{{n}, {}, 0};
  // The side outputs start poisoned (-1, NaN) like the rows' own: a call that skips an
  // element cannot pass.
  const auto indices = std::make_shared<std::vector<std::int64_t>>(n, -1);
  const auto check_max = [n, indices](bool with_indices) {
    return [n, indices, with_indices](const void* in, const void* out) -> std::string {
      const std::size_t k = cummax_mismatch(static_cast<const float*>(in), static_cast<const float*>(out),
                                            with_indices ? indices->data() : nullptr, n);
      return k == n ? std::string() : "cummax differs from a sequential loop at element " + std::to_string(k);
    };
  };
  const row_options max_values{true, benchmark::kNanosecond, check_max(false)};
  const row_options max_indices{true, benchmark::kNanosecond, check_max(true)};
  add<float>(id, "cummax", s, false, buffer_kind::vector,
             [n](const float* in, float* out) {
               tally::cummax(tally::tensor_view<const float>(in, {n}), tally::tensor_view<float>(out, {n}), 0);
             },
             max_values);
  add<float>(id, "cummax_indices", s, false, buffer_kind::vector,
             [n, indices](const float* in, float* out) {
               tally::cummax(tally::tensor_view<const float>(in, {n}), tally::tensor_view<float>(out, {n}),
                             tally::tensor_view<std::int64_t>(indices->data(), {n}), 0);
             },
             max_indices);
  const row_options lse{true, benchmark::kNanosecond, [n](const void* in_bytes, const void* out_bytes) -> std::string {
                          const auto* in = static_cast<const float*>(in_bytes);
                          const auto* out = static_cast<const float*>(out_bytes);
                          double sum = 0;
                          for (std::size_t k = 0; k < n; ++k) {
                            sum += std::exp(static_cast<double>(in[k]));
                            const double want = std::log(sum);
                            if (!(std::fabs(out[k] - want) <= 1e-5 * std::max(1.0, std::fabs(want))))
                              return "logcumsumexp is off at element " + std::to_string(k);
                          }
                          return {};
                        }};
  // cumsum into double (NumPy's dtype=): the fold in double, bitwise.
  const auto wide = std::make_shared<std::vector<double>>(n, std::numeric_limits<double>::quiet_NaN());
  const row_options wide_sum{true, benchmark::kNanosecond, [n, wide](const void* in_bytes, const void*) -> std::string {
                               const auto* in = static_cast<const float*>(in_bytes);
                               double sum = 0;
                               for (std::size_t k = 0; k < n; ++k)
                                 if ((*wide)[k] != (sum += in[k]))
                                   return "cumsum into double differs from the fold at element " + std::to_string(k);
                               return {};
                             }};
  add<float>(id, "cumsum_to_f64", s, false, buffer_kind::vector,
             [n, wide](const float* in, float*) {
               tally::cumsum(tally::tensor_view<const float>(in, {n}), tally::tensor_view<double>(wide->data(), {n}),
                             0);
             },
             wide_sum);
  add<float>(id, "logcumsumexp", s, false, buffer_kind::vector,
             [n](const float* in, float* out) {
               tally::logcumsumexp(tally::tensor_view<const float>(in, {n}), tally::tensor_view<float>(out, {n}), 0);
             },
             lse);
}

void register_small_calls() {
  const row_options ns{true, benchmark::kNanosecond};
  for (std::size_t n : {std::size_t{16}, std::size_t{256}, std::size_t{4096}}) {
    const std::string id = "small:f32:n=" + std::to_string(n);
    const shape s{{n}, {}, 0};
    add<float>(id, "typed", s, false, buffer_kind::vector,
               [n](const float* in, float* out) {
                 tally::cumsum(tally::tensor_view<const float>(in, {n}), tally::tensor_view<float>(out, {n}), 0);
               },
               ns);
    add<float>(id, "descriptor", s, false, buffer_kind::vector,
               prebuilt_desc::row(std::make_shared<prebuilt_desc>(
                   std::initializer_list<std::uint32_t>{static_cast<std::uint32_t>(n)}, 0)),
               ns);
    add<float>(id, "plain", s, false, buffer_kind::vector,
               [n](const float* in, float* out) { plain_rows<float, false>(in, out, 1, n); }, ns);
    add_small_vocabulary(id, n);
  }
  // 8x8 along axis 1 with threads = 2: far below any threading threshold.
  const shape s8{{8, 8}, {}, 1};
  for (unsigned threads : {2u, 1u})
    add<float>("small:f32:8x8:a1", "tally_" + std::to_string(threads) + "t", s8, false, buffer_kind::vector,
               [threads](const float* in, float* out) {
                 tally::scan_options options;
                 options.threads = threads;
                 tally::cumsum(tally::tensor_view<const float>(in, {8, 8}), tally::tensor_view<float>(out, {8, 8}),
                               1, options);
               },
               ns);
  // The fast mode and the descriptor layer: 8 lines of 8 in vectors (a division per lane
  // made these 55 and 72 ns until 2026-11-29).
  add<float>("small:f32:8x8:a1", "typed_fast", s8, false, buffer_kind::vector,
             [](const float* in, float* out) {
               tally::scan_options options;
               options.accuracy = tally::scan_accuracy::fast;
               tally::cumsum(tally::tensor_view<const float>(in, {8, 8}), tally::tensor_view<float>(out, {8, 8}), 1,
                             options);
             },
             ns);
  add<float>("small:f32:8x8:a1", "descriptor", s8, false, buffer_kind::vector,
             prebuilt_desc::row(std::make_shared<prebuilt_desc>(std::initializer_list<std::uint32_t>{8, 8}, 1)), ns);
  add<float>("small:f32:8x8:a1", "plain", s8, false, buffer_kind::vector,
             [](const float* in, float* out) { plain_rows<float, false>(in, out, 8, 8); }, ns);
}

void register_sweep() {
  constexpr std::size_t n = 16u << 20;
  std::vector<std::size_t> lengths;
  for (std::size_t len = 1; len <= n; len *= 4) lengths.push_back(len);  // 1, 4, 16, ..., 16M
  // Along axis 1 also lengths that are no power of two: lines that end inside a vector,
  // lines of one vector and one element, and lines of 257..4095 elements that take the
  // line kernel one line at a time.
  for (std::size_t len : {std::size_t{7}, std::size_t{17}, std::size_t{33}, std::size_t{300}}) lengths.push_back(len);
  std::sort(lengths.begin(), lengths.end());
  for (std::size_t len : lengths)
    add_sweep<float>("sweep:f32:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1});
  // Decreasing along axis 1 ("a1d"): lines read downwards, which once went upwards line
  // after line and took up to 5x memcpy.
  for (std::size_t len : {std::size_t{16}, std::size_t{256}, std::size_t{4096}, std::size_t{1} << 16})
    add_sweep<float>("sweep:f32:a1d:L=" + count_label(len), shape{{n / len, len}, {}, 1, true});
  // Exclusive along axis 1 ("a1x"), the ONNX / TensorFlow option: lines scanned inclusive
  // and moved one place on (the exact mode's sequential loop took 4x-8x memcpy before).
  for (std::size_t len : {std::size_t{4}, std::size_t{16}, std::size_t{256}, std::size_t{4096}, n})
    add_sweep<float>("sweep:f32:a1x:L=" + count_label(len), shape{{n / len, len}, {}, 1, false, true});
  for (std::size_t len = 1; len <= n; len *= 4)
    add_sweep<float>("sweep:f32:a0:L=" + count_label(len), shape{{len, n / len}, {}, 0});
  // Decreasing along axis 0 ("a0d"): rows from the last up; 1M rows are 16 columns.
  for (std::size_t len : {std::size_t{16}, std::size_t{4096}, std::size_t{1} << 16, std::size_t{1} << 20})
    add_sweep<float>("sweep:f32:a0d:L=" + count_label(len), shape{{len, n / len}, {}, 0, true});
  // Narrow rows along axis 0 ("points xyz"); 4 columns is the a0 row L=4M above.
  for (std::size_t width : {std::size_t{3}, std::size_t{7}})
    add_sweep<float>("sweep:f32:a0:w=" + std::to_string(width), shape{{n / width, width}, {}, 0});
  // Rows wider than a vector and no multiple of one: whole vectors, then one over the last
  // columns (these took 1.8x-3x memcpy when the last columns went one at a time).
  add_sweep<float>("sweep:f32:a0:w=100", shape{{n / 100, 100}, {}, 0});
  add_sweep<double>("sweep:f64:a0:w=20", shape{{n / 20, 20}, {}, 0});
  // Rows of one to two vectors, no multiple of one: the running row in two registers
  // (AVX-512: float32 rows of 20, float64 rows of 12; AVX2: float32 rows of 12). These took
  // 1.5x-2x memcpy in the general row loop.
  // The exact mode (the "exact" rows) keeps them in two overlapping vectors of running
  // values too (vector_exact_lines.hpp): float32 rows of 31 and float64 rows of 15 took
  // 1.5x-2.5x memcpy with AVX-512, float64 rows of 7 2.5x-3.2x with AVX2 (these rows'
  // exact column before the change), folding the columns past the last whole vector one
  // at a time.
  // Rows of exactly two vectors with AVX-512 (float32 32, float64 16): the fast mode keeps
  // them in two registers too; the general row loop streamed them at 1.4x-1.7x memcpy.
  for (std::size_t width : {std::size_t{12}, std::size_t{20}, std::size_t{31}, std::size_t{32}})
    add_sweep<float>("sweep:f32:a0:w=" + std::to_string(width), shape{{n / width, width}, {}, 0});
  for (std::size_t width : {std::size_t{7}, std::size_t{12}, std::size_t{15}, std::size_t{16}})
    add_sweep<double>("sweep:f64:a0:w=" + std::to_string(width), shape{{n / width, width}, {}, 0});
  const std::size_t few[] = {1, 4, 16, 256, 4096};
  // int8 also at lengths that are no power of two (sums as differences, 8-bit lanes), and
  // at 64 (one line a 64-lane vector with AVX-512), and decreasing at 24, 64 and 4K (the
  // suffix scan of 8-bit lines read downwards).
  for (std::size_t len : {std::size_t{1}, std::size_t{4}, std::size_t{5}, std::size_t{16}, std::size_t{24},
                          std::size_t{64}, std::size_t{256}, std::size_t{4096}})
    add_sweep<std::int8_t>("sweep:i8:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1});
  for (std::size_t len : {std::size_t{24}, std::size_t{64}, std::size_t{4096}})
    add_sweep<std::int8_t>("sweep:i8:a1d:L=" + count_label(len), shape{{n / len, len}, {}, 1, true});
  for (std::size_t len : {std::size_t{1}, std::size_t{4}, std::size_t{7}, std::size_t{16}, std::size_t{33},
                          std::size_t{256}, std::size_t{4096}})
    add_sweep<std::int32_t>("sweep:i32:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1});
  for (std::size_t len : few)
    add_sweep<half>("sweep:f16:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1});
  // float16 products ("p"), which run in sequence: short lines and narrow rows went one
  // element at a time through software conversions (28x-100x memcpy) before they were
  // staged through float blocks, where they go as float32 lines go (below); lines of 2 to
  // 4 convert in the vector instead, whole lines a vector; lines of 8 to 47 convert in the
  // gathered tiles' transposes (AVX-512: 8 and 12 to 15 in AVX2's narrow tiles, 9 to 11
  // staged); lines of 5 to 7 are staged, in narrow tiles.
  for (std::size_t len : {std::size_t{2}, std::size_t{4}, std::size_t{6}, std::size_t{8}, std::size_t{12},
                          std::size_t{16}, std::size_t{33}, std::size_t{100}, std::size_t{256}})
    add_sweep<half>("sweep:f16:a1p:L=" + count_label(len), shape{{n / len, len}, {}, 1}, true);
  add_sweep<half>("sweep:f16:a0p:w=3", shape{{n / 3, 3}, {}, 0}, true);
  // Products down narrow rows: each column one chain of multiplies (the sequence's bits);
  // rows of 3 read downwards ("a0dp") too, rows of a whole AVX2 vector of float64, and
  // rows of one to two vectors (float64 7 on AVX2, float32 24 on AVX-512).
  add_sweep<float>("sweep:f32:a0p:w=3", shape{{n / 3, 3}, {}, 0}, true);
  add_sweep<float>("sweep:f32:a0dp:w=3", shape{{n / 3, 3}, {}, 0, true}, true);
  add_sweep<float>("sweep:f32:a0p:w=7", shape{{n / 7, 7}, {}, 0}, true);
  add_sweep<double>("sweep:f64:a0p:w=3", shape{{n / 3, 3}, {}, 0}, true);
  add_sweep<double>("sweep:f64:a0p:w=4", shape{{n / 4, 4}, {}, 0}, true);
  add_sweep<double>("sweep:f64:a0p:w=7", shape{{n / 7, 7}, {}, 0}, true);
  add_sweep<float>("sweep:f32:a0p:w=24", shape{{n / 24, 24}, {}, 0}, true);
  add_sweep<double>("sweep:f64:a0p:w=31", shape{{n / 31, 31}, {}, 0}, true);
  // float32 / float64 products along packed lines: the line kernel's vectors line by line
  // from 48 elements (the plain loop took 3x-10x memcpy there); below, float32 from a
  // vector in gathered tiles (the plain loop took about 2x; AVX-512 lines of 8 and 12 in
  // AVX2's narrow tiles), lines of 2 to 4 whole lines a vector (float32 4, float64 2), the
  // rest the plain loop (float32 7, float64 3).
  for (std::size_t len : {std::size_t{4}, std::size_t{7}, std::size_t{8}, std::size_t{12}, std::size_t{16},
                          std::size_t{33}, std::size_t{100}, std::size_t{256}})
    add_sweep<float>("sweep:f32:a1p:L=" + count_label(len), shape{{n / len, len}, {}, 1}, true);
  // Decreasing ("a1dp"): lines below 48 go first to last, tiles and tasks alike.
  add_sweep<float>("sweep:f32:a1dp:L=16", shape{{n / 16, 16}, {}, 1, true}, true);
  add_sweep<float>("sweep:f32:a1dp:L=33", shape{{n / 33, 33}, {}, 1, true}, true);
  add_sweep<float>("sweep:f32:a1dp:L=100", shape{{n / 100, 100}, {}, 1, true}, true);
  add_sweep<double>("sweep:f64:a1dp:L=32", shape{{n / 32, 32}, {}, 1, true}, true);
  add_sweep<half>("sweep:f16:a1dp:L=16", shape{{n / 16, 16}, {}, 1, true}, true);
  add_sweep<double>("sweep:f64:a1p:L=100", shape{{n / 100, 100}, {}, 1}, true);
  // float64 along packed lines, whose exact mode (the typed layer's default) folds a
  // compensated pair per line: one line at a time from 64 elements, gathered tiles below
  // (sums from 4, products from 2), the generic loops below those.
  for (std::size_t len : {std::size_t{2}, std::size_t{4}, std::size_t{16}, std::size_t{24}, std::size_t{4096}})
    add_sweep<double>("sweep:f64:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1});
  add_sweep<double>("sweep:f64:a1p:L=2", shape{{n / 2, 2}, {}, 1}, true);
  add_sweep<double>("sweep:f64:a1p:L=3", shape{{n / 3, 3}, {}, 1}, true);
  // The same sums on inputs that round ("f64r"): a compensated pair's low part is zero at
  // some steps and not at others, as on measured data, so a branch on it mispredicts
  // (exact, lines of 2 and 3: about 4x the time of the select, 2026-12-03).
  for (std::size_t len : {std::size_t{2}, std::size_t{3}, std::size_t{16}, std::size_t{4096}})
    add_sweep<double>("sweep:f64r:a1:L=" + count_label(len), shape{{n / len, len}, {}, 1, false, false, true});
}

/// Lines whose output sits 64 bytes past the input modulo 4 KiB (64 bytes behind where
/// they are read downwards): their loads would wait on their own non-temporal stores
/// (plan/streaming_aliasing.hpp); tally and memcpy on the same two addresses.
template <class T>
void add_aliased(const std::string& type, bool reverse) {
  const shape s{{(std::size_t{64} << 20) / sizeof(T)}, {}, 0, reverse};
  const std::string id = "alias:" + type + (reverse ? ":d" : ":i");
  const buffer_kind kind = reverse ? buffer_kind::out_64_behind_in : buffer_kind::out_64_past_in;
  add<T>(id, "tally", s, false, kind, tally_fn<T>(s, false, 1));
  if constexpr (std::is_floating_point_v<T>)
    add<T>(id, "exact", s, false, kind, tally_fn<T>(s, false, 1, tally::scan_accuracy::exact));
  add<T>(id, "memcpy", s, false, kind, memcpy_fn<T>(s), {false});
}

void register_aliased_buffers() {
  for (bool reverse : {false, true}) {
    add_aliased<float>("f32", reverse);
    add_aliased<double>("f64", reverse);
    add_aliased<std::int32_t>("i32", reverse);
  }
}

void register_cases() {
  constexpr std::size_t big = 4096;
  const shape b1{{16u << 20}, {}, 0};
  const shape b2{{64u << 10}, {}, 0};
  const shape b3{{big, big}, {}, 1};
  const shape b4{{big, big}, {}, 0};
  const shape b4t{{big, big}, {1, static_cast<std::ptrdiff_t>(big)}, 0};
  const shape b5{{64, 64, 64, 64}, {}, 1, true, true};
  const shape b8{{big, big}, {1, static_cast<std::ptrdiff_t>(big)}, 1};

  for (const auto& [id, s] : {std::pair<const char*, shape>{"B1", b1}, {"B2", b2}}) {
    add_core<float>(id, s, false);
    add<float>(id, "inclusive_scan", s, false, buffer_kind::vector, inclusive_scan_fn<float>(s));
    add_eigen<float, 1>(id, s, false);
    add_aligned<float>(id, s, false);
  }
  add_core<float>("B3", b3, false);
  add_eigen<float, 2>("B3", b3, false);
  add_aligned<float>("B3", b3, false);
  add_core<float>("B4", b4, false);
  add_eigen<float, 2>("B4", b4, false);
  add_aligned<float>("B4", b4, false);
  add_core<float>("B4t", b4t, false);
  add_eigen<float, 2>("B4t", b4t, false);
  add_aligned<float>("B4t", b4t, false);
  add_core<float>("B5", b5, false);
  add_eigen<float, 4>("B5", b5, false);
  add_aligned<float>("B5", b5, false);
  add_core<half>("B6", b3, false);  // Eigen::half would accumulate in half: not the same operation
  add_aligned<half>("B6", b3, false);
  add_core<std::int32_t>("B7a", b3, false);
  add_eigen<std::int32_t, 2>("B7a", b3, false);
  add_aligned<std::int32_t>("B7a", b3, false);
  add_core<std::int64_t>("B7b", b3, false);
  add_eigen<std::int64_t, 2>("B7b", b3, false);
  add_aligned<std::int64_t>("B7b", b3, false);
  add_core<std::int32_t>("B7c", b3, true);
  add_eigen<std::int32_t, 2>("B7c", b3, true);
  add_aligned<std::int32_t>("B7c", b3, true);
  add_core<float>("B10a", b3, true);
  add_eigen<float, 2>("B10a", b3, true);
  add_aligned<float>("B10a", b3, true);
  const shape b10b{{2048, big}, {}, 1};
  add_core<double>("B10b", b10b, true);
  add_eigen<double, 2>("B10b", b10b, true);
  add_aligned<double>("B10b", b10b, true);
  add_core<float>("B8", b8, false);
  add_eigen<float, 2>("B8", b8, false);
  add_aligned<float>("B8", b8, false);
  // B9: 2 threads against 1 thread, both measured here with the same clock, on both kinds
  // of buffer (the ratio to memcpy uses B1's and B3's memcpy of the same kind).
  for (const auto& [id, s] : {std::pair<const char*, shape>{"B9a", b1}, {"B9b", b3}})
    for (const auto& [suffix, kind] :
         {std::pair<const char*, buffer_kind>{"", buffer_kind::vector}, {"@aligned", buffer_kind::aligned}})
      for (unsigned threads : {1u, 2u})
        add<float>(std::string(id) + suffix, "tally_" + std::to_string(threads) + "t", s, false, kind,
                   tally_fn<float>(s, false, threads));
  // B9c: B1's line of int32 sums (the ratio to memcpy uses B7a's memcpy, the same bytes):
  // integers take their own first pass of the thread split (vectors folded lane by lane).
  for (unsigned threads : {1u, 2u})
    add<std::int32_t>("B9c", "tally_" + std::to_string(threads) + "t", b1, false, buffer_kind::vector,
                      tally_fn<std::int32_t>(b1, false, threads));
}

void register_all() {
  register_cases();
  register_sweep();
  register_aliased_buffers();
  register_small_calls();
}

/// The SIMD variant tally's dispatcher runs in this process.
std::string tally_simd_name() {
#if TALLY_BENCH_HAVE_SIMD_QUERY
  return tally::to_string(tally::active_simd_variant());
#else
  const char* cap = std::getenv("TALLY_SIMD");
  return cap ? std::string("unknown (TALLY_SIMD=") + cap + ")" : "unknown";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const std::string simd = tally_simd_name();
  benchmark::AddCustomContext("tally_simd", simd);
#if TALLY_BENCH_HAVE_EIGEN
  benchmark::AddCustomContext("eigen_version", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                                   std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                                   std::to_string(EIGEN_MINOR_VERSION));
#else
  benchmark::AddCustomContext("eigen_version", "not found (Eigen peers not built)");
#endif
  benchmark::AddCustomContext("compiler", __VERSION__);
  std::fprintf(stderr, "tally SIMD variant: %s\n", simd.c_str());
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
