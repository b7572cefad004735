// The benchmark suite of issue 3: tally beside memcpy of the same bytes and beside the
// peers (a naive scalar loop, std::inclusive_scan, Eigen's Tensor cumsum/cumprod), all in
// one run, so that every target is a ratio of two times measured under the same conditions.
//
// Names are "<case>/<implementation>" (for example "B1/tally", "B1/memcpy"); Google
// Benchmark appends "/real_time". benchmarks/report.py parses them, so keep that shape.
// Every implementation is checked once against an independent double / unsigned reference
// before it is timed: a fast wrong answer is reported as an error, never as a time.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <tally/tally.hpp>
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
// Buffers: 64-byte aligned, allocated once per benchmark, every page touched before timing.

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

// A small, fast generator (splitmix64): the inputs only need to be reproducible and to
// avoid overflow and subnormals, not to be statistically strong.
class random_bits {
 public:
  explicit random_bits(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  double symmetric() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

 private:
  std::uint64_t state_;
};

/// Inputs: floats in [-1, 1) (sums grow like a random walk, no overflow or subnormals);
/// integer sums in [-1000, 1000] (no signed overflow in any peer over 4096 elements);
/// integer products in {-1, 1} (no signed overflow either; multiply time does not depend on data).
template <class T>
void fill_input(T* p, std::size_t n, bool product) {
  random_bits rng(0x7a11e5);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, half>) {
      p[i] = half(static_cast<float>(rng.symmetric()));
    } else if constexpr (std::is_floating_point_v<T>) {
      p[i] = static_cast<T>(rng.symmetric());
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
/// the axis, the direction and exclusivity. The output is always packed.
struct shape {
  std::vector<std::size_t> sizes;
  std::vector<std::ptrdiff_t> in_strides;
  int axis = 0;
  bool reverse = false;
  bool exclusive = false;

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
// The independent reference and the check run before timing.

/// Checks `got` against a reference computed here in double (floating point) or in the
/// unsigned type (integers). Integers must match exactly. Floating point may differ by
/// rounding: the bound is 1e-5 of the running sum of |x| (sequential float rounding of a
/// 16M-element random walk stays far below it, a wrong answer does not), plus one float16
/// rounding step of the value for float16 outputs. Returns an empty string when it matches.
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

template <class T>
run_fn<T> tally_fn(const shape& s, bool product, unsigned threads) {
  return [s, product, threads](const T* in, T* out) {
    const std::vector<std::ptrdiff_t> is = s.input_strides();
    tally::tensor_view<const T> vin(in, s.sizes.size(), s.sizes.data(), is.data());
    tally::tensor_view<T> vout(out, s.sizes.size(), s.sizes.data());
    tally::scan_options options;
    options.direction = s.reverse ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    options.exclusive = s.exclusive;
    options.threads = threads;
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
  const bool transposed = !s.in_strides.empty();  // only B8: strides {1, n}, i.e. a transposed packed buffer
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

/// The buffers of the benchmark running now. Google Benchmark calls a benchmark's function
/// several times (to size the iteration count, then once per repetition); the buffers are
/// filled, warmed and checked on the first call only and kept until another benchmark
/// starts, so one set is alive at a time (the largest case needs 256 MiB).
struct workspace {
  virtual ~workspace() = default;
};
template <class T>
struct typed_workspace final : workspace {
  explicit typed_workspace(std::size_t n) : in(n), out(n) {}
  aligned_array<T> in, out;
  std::string failure;  ///< the check's verdict; empty when the output matched
};
std::unique_ptr<workspace> current_workspace;
int current_owner = -1;

/// Registers "<name>" timing fn on the case's buffers. Bytes processed are the input plus
/// the output bytes for every implementation of a case, so GB/s compare directly.
/// Real time throughout: threaded runs need it, and one clock makes every ratio fair.
template <class T>
void add(const std::string& name, const shape& s, bool product, run_fn<T> fn, bool check = true) {
  static int registered = 0;
  const int id = registered++;
  benchmark::RegisterBenchmark(name.c_str(), [s, product, fn, check, id](benchmark::State& state) {
    const std::size_t n = s.elements();
    if (current_owner != id) {
      current_workspace.reset();  // free the previous benchmark's buffers first
      auto w = std::make_unique<typed_workspace<T>>(n);
      fill_input(w->in.data(), n, product);
      fn(w->in.data(), w->out.data());  // warm-up: first touch and lazy initialisation stay out of the timing
      if (check) w->failure = check_against_reference(s, product, w->in.data(), w->out.data());
      current_workspace = std::move(w);
      current_owner = id;
    }
    auto& w = static_cast<typed_workspace<T>&>(*current_workspace);
    if (!w.failure.empty()) {
      state.SkipWithError(w.failure.c_str());
      for (auto _ : state) {
      }
      return;
    }
    const T* in = w.in.data();
    T* out = w.out.data();
    for (auto _ : state) {
      fn(in, out);
      benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(out);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(2 * n * sizeof(T)));
  })->UseRealTime()->Unit(benchmark::kMillisecond);
}

/// tally, memcpy and the naive loop for one case; the caller adds the other peers.
template <class T>
void add_core(const std::string& id, const shape& s, bool product) {
  add<T>(id + "/tally", s, product, tally_fn<T>(s, product, 1));
  add<T>(id + "/memcpy", s, product, memcpy_fn<T>(s), false);
  add<T>(id + "/naive", s, product, naive_fn<T>(s, product));
}

template <class T, int R>
void add_eigen([[maybe_unused]] const std::string& id, [[maybe_unused]] const shape& s,
               [[maybe_unused]] bool product) {
#if TALLY_BENCH_HAVE_EIGEN
  add<T>(id + "/eigen", s, product, eigen_fn<T, R>(s, product));
#endif
}

void register_all() {
  constexpr std::size_t big = 4096;
  const shape b1{{16u << 20}, {}, 0};
  const shape b2{{64u << 10}, {}, 0};
  const shape b3{{big, big}, {}, 1};
  const shape b4{{big, big}, {}, 0};
  const shape b5{{64, 64, 64, 64}, {}, 1, true, true};
  const shape b8{{big, big}, {1, static_cast<std::ptrdiff_t>(big)}, 1};

  for (const auto& [id, s] : {std::pair<const char*, shape>{"B1", b1}, {"B2", b2}}) {
    add_core<float>(id, s, false);
    add<float>(std::string(id) + "/inclusive_scan", s, false, inclusive_scan_fn<float>(s));
    add_eigen<float, 1>(id, s, false);
  }
  add_core<float>("B3", b3, false);
  add_eigen<float, 2>("B3", b3, false);
  add_core<float>("B4", b4, false);
  add_eigen<float, 2>("B4", b4, false);
  add_core<float>("B5", b5, false);
  add_eigen<float, 4>("B5", b5, false);
  add_core<half>("B6", b3, false);  // Eigen::half would accumulate in half: not the same operation
  add_core<std::int32_t>("B7a", b3, false);
  add_eigen<std::int32_t, 2>("B7a", b3, false);
  add_core<std::int64_t>("B7b", b3, false);
  add_eigen<std::int64_t, 2>("B7b", b3, false);
  add_core<std::int32_t>("B7c", b3, true);
  add_eigen<std::int32_t, 2>("B7c", b3, true);
  add_core<float>("B8", b8, false);
  add_eigen<float, 2>("B8", b8, false);
  // B9: 2 threads against 1 thread, both measured here with the same clock.
  for (const auto& [id, s] : {std::pair<const char*, shape>{"B9a", b1}, {"B9b", b3}})
    for (unsigned threads : {1u, 2u})
      add<float>(std::string(id) + "/tally_" + std::to_string(threads) + "t", s, false,
                 tally_fn<float>(s, false, threads));
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
