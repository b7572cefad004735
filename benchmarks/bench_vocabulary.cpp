// Benchmark rows for the scan vocabulary (issue 14): each operator on a 4096 x 4096
// float32 tensor along each axis, beside memcpy of the same output bytes in the same
// binary (the targets are ratios: 1.5x memcpy, 2x for logcumsumexp). Names are
// "V<n><axis>[@aligned]/<implementation>", for example "V1a1/tally" and "V1a1/memcpy" (a1:
// along the last axis, contiguous lines; a0: along the first axis, rows of running
// values); V2d is V2 of doubles; V1w3 / V2w3 run cummax down 3 narrow columns of the same
// elements (V1w3ip in place), V2dw3 / V2dw5 / V2dw7 and V2w13 down 3, 5 and 7 columns of
// doubles and 13 of floats, V1l1 / V1l4 / V1l16 along packed lines of 1, 4 and 16 elements,
// V2l2 / V2l4 / V2l9 / V2l16 with indices along packed lines of 2, 4, 9 and 16, V2dl2 /
// V2dl9 / V2dl32 the same of doubles along lines of 2, 9 and 32.
// Like the case table's rows, every buffer (inputs, outputs, memcpy's) is a std::vector,
// what users have (glibc places a large one 16 bytes past a 64-byte boundary); the
// "@aligned" rows repeat each row on 64-byte aligned buffers.
// Every tally call is checked once against a plain sequential loop before it is timed
// (on outputs filled with NaN first, so an unwritten element fails).
// Where the build found libtorch (TALLY_BENCH_HAVE_TORCH, benchmarks/CMakeLists.txt), the
// rows PyTorch has an operator for also time its CPU kernels, "V<n><axis>/torch", on the
// same input and output buffers and through the same check; without it the context says
// the PyTorch rows were skipped.

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
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tally/tally.hpp>

#include "sequential_cummax.hpp"

#if TALLY_BENCH_HAVE_TORCH
// ATen, not the whole of <torch/torch.h>: the rows call the CPU kernels directly, with no
// autograd or module API in between (and the file compiles in seconds, not a minute).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>
#endif

namespace {

constexpr std::size_t side = 4096, count = side * side;

struct free_deleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

/// n zeroed elements (every page touched before timing) in a std::vector, or 64-byte
/// aligned when `aligned`.
template <class T>
std::shared_ptr<T> buffer(std::size_t n, bool aligned) {
  if (!aligned) {
    const auto v = std::make_shared<std::vector<T>>(n);
    return std::shared_ptr<T>(v, v->data());  // shares the vector's ownership
  }
  void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, n * sizeof(T));
  return std::shared_ptr<T>(static_cast<T*>(p), free_deleter{});
}

/// Reproducible inputs in [-1, 1), with a NaN every 97 elements for the NaN-skipping rows
/// and a reset flag every 61; the same values as float64 for V9 and as half for V5h, and
/// any int8 for V5i8.
struct inputs {
  std::shared_ptr<float> x, x_nan;
  std::shared_ptr<double> x64;
  std::shared_ptr<std::uint8_t> flags;
  std::shared_ptr<std::int8_t> x8;
  std::shared_ptr<tally::half> x16;
  explicit inputs(bool aligned)
      : x(buffer<float>(count, aligned)), x_nan(buffer<float>(count, aligned)), x64(buffer<double>(count, aligned)),
        flags(buffer<std::uint8_t>(count, aligned)), x8(buffer<std::int8_t>(count, aligned)),
        x16(buffer<tally::half>(count, aligned)) {
    std::uint64_t s = 14;
    for (std::size_t i = 0; i < count; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const float v = static_cast<float>(static_cast<double>(s >> 11) * 0x1p-52 - 1.0);
      x.get()[i] = v;
      x64.get()[i] = v;
      x8.get()[i] = static_cast<std::int8_t>(s >> 56);
      x16.get()[i] = tally::half(v);
      x_nan.get()[i] = i % 97 == 0 ? NAN : v;
      flags.get()[i] = i % 61 == 0;
    }
  }
};

const inputs& data(bool aligned) {
  static const inputs in_vectors(false), in_aligned(true);
  return aligned ? in_aligned : in_vectors;
}

/// The rows' outputs, one set shared by every row (tally's and PyTorch's alike, so that one
/// check serves both).
struct outputs {
  std::shared_ptr<float> y;
  std::shared_ptr<double> wide;
  std::shared_ptr<std::int64_t> index;
  explicit outputs(bool aligned)
      : y(buffer<float>(count, aligned)), wide(buffer<double>(count, aligned)),
        index(buffer<std::int64_t>(count, aligned)) {}
};

const outputs& results(bool aligned) {
  static const outputs in_vectors(false), in_aligned(true);
  return aligned ? in_aligned : in_vectors;
}

/// Sets every output bit (NaN, index -1) before a row's checked run: a row that leaves its
/// output unwritten then fails the check instead of passing on an earlier row's result.
void poison(bool aligned) {
  std::memset(results(aligned).y.get(), 0xff, count * sizeof(float));
  std::memset(results(aligned).wide.get(), 0xff, count * sizeof(double));
  std::memset(results(aligned).index.get(), 0xff, count * sizeof(std::int64_t));
}

/// PyTorch's form of a row: `run` writes the row's outputs; `note` (the row's label) says
/// where it does more or other than tally's row. A null `run`: no PyTorch row.
struct peer {
  std::function<void()> run;
  std::string note;
};

/// PyTorch's form of row V<row> along `axis`, where PyTorch has the operator: its CPU kernels
/// (ATen, one thread: see main) on tensors over the same buffers as tally's row (from_blob
/// copies nothing and owns nothing), through the out= forms so that no call allocates its
/// output. Null without libtorch, and for V6 (PyTorch has no segmented scan) and V7 (nor a
/// scan with a user operator).
peer torch_peer([[maybe_unused]] int row, [[maybe_unused]] int axis, [[maybe_unused]] bool aligned) {
#if TALLY_BENCH_HAVE_TORCH
  constexpr std::int64_t n = side;
  // from_blob takes a void*; PyTorch only reads the inputs.
  const auto tensor = [](const void* p, at::ScalarType type) {
    return at::from_blob(const_cast<void*>(p), {n, n}, type);
  };
  const inputs& d = data(aligned);
  const outputs& r = results(aligned);
  const at::Tensor x = tensor(d.x.get(), at::kFloat), x_nan = tensor(d.x_nan.get(), at::kFloat);
  const at::Tensor x64 = tensor(d.x64.get(), at::kDouble);
  // The out= forms take the outputs by non-const reference: the lambdas are mutable.
  at::Tensor y = tensor(r.y.get(), at::kFloat), wide = tensor(r.wide.get(), at::kDouble);
  at::Tensor index = tensor(r.index.get(), at::kLong);
  switch (row) {
    case 0: return {[=]() mutable { at::cumsum_out(y, x, axis); }, ""};
    case 1:
      return {[=]() mutable { at::cummax_out(y, index, x, axis); },
              "cummax with indices: PyTorch has no values-only cummax"};
    case 2: return {[=]() mutable { at::cummax_out(y, index, x, axis); }, ""};
    case 3: return {[=]() mutable { at::logcumsumexp_out(y, x, axis); }, ""};
    case 4: {
      // Two ops into a preallocated scratch tensor, the best PyTorch 1.13 offers (no
      // nancumsum); nan_to_num also clamps infinities, which these inputs do not have.
      at::Tensor zeroed = at::empty_like(x);
      return {[=]() mutable {
                at::nan_to_num_out(zeroed, x_nan, 0.0);
                at::cumsum_out(y, zeroed, axis);
              },
              "nan_to_num_out + cumsum_out: PyTorch has no nancumsum"};
    }
    case 5:
      return {[=]() mutable { at::cumsum_out(wide, x, axis, at::kDouble); },
              "cumsum_out(dtype=float64): PyTorch converts the whole input to float64 first"};
    case 8:
      return {[=]() mutable { at::cumsum_out(y, x, axis); },
              "cumsum_out: PyTorch's float32 cumsum adds into a double, one element at a time"};
    case 9:
      return {[=]() mutable { at::cumsum_out(wide, x64, axis); },
              "cumsum_out: float64 in a double, no compensation (less accurate than tally's row)"};
    default: return {};
  }
#else
  return {};
#endif
}

/// Runs f over every line of the matrix along `axis` with a sequential state: the
/// independent check of each operator (in the input's own order).
template <class F>
void for_lines(int axis, F&& f) {
  for (std::size_t line = 0; line < side; ++line) {
    const std::size_t start = axis == 1 ? line * side : line;
    const std::size_t step = axis == 1 ? 1 : side;
    f(start, step);
  }
}

/// |got - want| <= bound (a NaN only where want is NaN).
bool near(double got, double want, double bound) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(got - want) <= bound;
}

/// The float32 rounding bound of a sum of n terms with sum|x| = magnitude.
double sum_bound(std::size_t n, double magnitude) { return static_cast<double>(n + 1) * 0x1p-24 * magnitude; }

/// One implementation's row, "<name>/<implementation>": `run` is timed after one checked run
/// (`check` reads the shared outputs; `prepare`, where given, runs before it, after the
/// outputs are poisoned: an in-place row's input).
void add_timed(const std::string& name, bool aligned, const std::string& label, std::function<void()> run,
               std::function<bool()> check, std::function<void()> prepare = {}) {
  benchmark::RegisterBenchmark(name.c_str(), [aligned, label, run, check, prepare](benchmark::State& state) {
    poison(aligned);
    if (prepare) prepare();
    run();
    if (!check()) {
      state.SkipWithError("result differs from the sequential loop");
      return;
    }
    if (!label.empty()) state.SetLabel(label);
    for (auto _ : state) run();
  })->UseRealTime()->Unit(benchmark::kMillisecond);
}

/// One row: tally's `run` is timed, `check` verifies its output once first, and so PyTorch's
/// where it has the operator (`torch`, checked by the same loop); `bytes` are the output
/// bytes (for the matching memcpy row, between buffers of the row's kind).
void add(const std::string& name, bool aligned, std::size_t bytes, std::function<void()> run,
         std::function<bool()> check, const peer& torch, std::function<void()> prepare = {}) {
  add_timed(name + "/tally", aligned, "", std::move(run), check, std::move(prepare));
  if (torch.run) add_timed(name + "/torch", aligned, torch.note, torch.run, check);
  benchmark::RegisterBenchmark((name + "/memcpy").c_str(), [bytes, aligned](benchmark::State& state) {
    const auto from = buffer<unsigned char>(bytes, aligned), to = buffer<unsigned char>(bytes, aligned);
    for (auto _ : state) {
      std::memcpy(to.get(), from.get(), bytes);
      benchmark::ClobberMemory();
    }
  })->UseRealTime()->Unit(benchmark::kMillisecond);
}

void register_axis(int axis, bool aligned) {
  const std::string a = std::string(axis == 1 ? "a1" : "a0") + (aligned ? "@aligned" : "");
  const inputs& d = data(aligned);
  const outputs& r = results(aligned);
  const tally::tensor_view<const float> in(d.x.get(), {side, side});
  const tally::tensor_view<const float> in_nan(d.x_nan.get(), {side, side});
  const tally::tensor_view<const std::uint8_t> resets(d.flags.get(), {side, side});
  const tally::tensor_view<const double> in64(d.x64.get(), {side, side});
  const auto out = r.y;
  const auto wide = r.wide;
  const auto index = r.index;
  const tally::tensor_view<float> y(out.get(), {side, side});
  const tally::tensor_view<double> w(wide.get(), {side, side});
  const tally::tensor_view<std::int64_t> idx(index.get(), {side, side});
  const float* x = d.x.get();
  const double* x64 = d.x64.get();
  const float* xn = d.x_nan.get();
  const std::uint8_t* f = d.flags.get();

  // V0: the SIMD engine's cumsum, for reference.
  add("V0" + a, aligned, count * 4, [=] { tally::cumsum(in, y, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      double sum = 0, magnitude = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x[s + k * step];
        magnitude += std::fabs(x[s + k * step]);
        ok = ok && near(out.get()[s + k * step], sum, sum_bound(k + 1, magnitude));
      }
    });
    return ok;
  }, torch_peer(0, axis, aligned));
  // V1: cummax values; V2: with indices.
  const auto check_max = [=](bool with_indices) {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      ok = ok && cummax_mismatch(x + s, out.get() + s, with_indices ? index.get() + s : nullptr, side, step) == side;
    });
    return ok;
  };
  add("V1" + a, aligned, count * 4, [=] { tally::cummax(in, y, axis); }, [=] { return check_max(false); },
      torch_peer(1, axis, aligned));
  add("V2" + a, aligned, count * 12, [=] { tally::cummax(in, y, idx, axis); }, [=] { return check_max(true); },
      torch_peer(2, axis, aligned));
  // V2d: V2 of doubles.
  add("V2d" + a, aligned, count * 16, [=] { tally::cummax(in64, w, idx, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      ok = ok && cummax_mismatch(x64 + s, wide.get() + s, index.get() + s, side, step) == side;
    });
    return ok;
  }, peer{});
  // V1w3 / V2w3: V1 and V2 down 3 narrow columns ([5592405, 3] along axis 0, the x, y, z of
  // points): rows shorter than a vector.
  if (axis == 0) {
    constexpr std::size_t points = count / 3;
    const tally::tensor_view<const float> in3(x, {points, 3});
    const tally::tensor_view<float> y3(out.get(), {points, 3});
    const tally::tensor_view<std::int64_t> idx3(index.get(), {points, 3});
    const auto check_columns = [=](bool with_indices) {
      bool ok = true;
      for (std::size_t j = 0; j < 3; ++j)
        ok = ok && cummax_mismatch(x + j, out.get() + j, with_indices ? index.get() + j : nullptr, points, 3) == points;
      return ok;
    };
    add("V1w3" + a, aligned, points * 3 * 4, [=] { tally::cummax(in3, y3, 0); }, [=] { return check_columns(false); },
        peer{});
    add("V2w3" + a, aligned, points * 3 * 12, [=] { tally::cummax(in3, y3, idx3, 0); },
        [=] { return check_columns(true); }, peer{});
    // V1w12 / V1w20 / V1w31: V1 down rows of one vector and part of another (AVX2: 8 lanes
    // and 4 more; AVX-512: 16 and 4 or 15 more), a row per two overlapping vectors
    // (extremum_two_vector_rows; AVX2 takes 20 and 31 on lane_rows.hpp's steps of 8 and its
    // last, overlapping one). lane_rows' steps took rows of 20 in 1.6x-1.8x memcpy with
    // AVX-512, its elements one at a time rows of 31 in 1.6x-1.7x.
    for (const std::size_t c : {std::size_t{12}, std::size_t{20}, std::size_t{31}}) {
      const std::size_t rows = count / c;
      const tally::tensor_view<const float> in_c(x, {rows, c});
      const tally::tensor_view<float> y_c(out.get(), {rows, c});
      add("V1w" + std::to_string(c) + a, aligned, rows * c * 4, [=] { tally::cummax(in_c, y_c, 0); }, [=] {
        bool ok = true;
        for (std::size_t j = 0; j < c; ++j) ok = ok && cummax_mismatch(x + j, out.get() + j, nullptr, rows, c) == rows;
        return ok;
      }, peer{});
    }
    // V2dw<c> / V2w<c>: V2 of doubles and of floats down c columns ([count / c, c] along axis
    // 0): tiles narrower than a vector (double 3), and wider ones whose last lines are fewer
    // than a vector holds (double 5 and 7, float 13).
    const auto add_columns = [&](const std::string& name, auto in_data, auto out_data, std::size_t c) {
      const std::size_t rows = count / c;
      using T = std::remove_const_t<std::remove_pointer_t<decltype(in_data)>>;
      const tally::tensor_view<const T> in_c(in_data, {rows, c});
      const tally::tensor_view<T> y_c(out_data, {rows, c});
      const tally::tensor_view<std::int64_t> idx_c(index.get(), {rows, c});
      const std::size_t bytes = rows * c * (sizeof(T) + 8);  // values and int64 indices
      add(name + std::to_string(c) + a, aligned, bytes, [=] { tally::cummax(in_c, y_c, idx_c, 0); }, [=] {
        bool ok = true;
        for (std::size_t j = 0; j < c; ++j)
          ok = ok && cummax_mismatch(in_data + j, out_data + j, index.get() + j, rows, c) == rows;
        return ok;
      }, peer{});
    };
    for (const std::size_t c : {std::size_t{3}, std::size_t{5}, std::size_t{7}})
      add_columns("V2dw", x64, wide.get(), c);
    add_columns("V2w", x, out.get(), 13);
    // V1w3ip: V1w3 in place (the output, holding the input, is its own input). cummax of a
    // running maximum is itself, so every timed run reads what the checked run wrote.
    const tally::tensor_view<const float> y3_in(out.get(), {points, 3});
    add("V1w3ip" + a, aligned, points * 3 * 4, [=] { tally::cummax(y3_in, y3, 0); },
        [=] { return check_columns(false); }, peer{}, [=] { std::memcpy(out.get(), x, points * 3 * sizeof(float)); });
  }
  // V1l<L>: V1 along short packed lines ([16M / L, L] along axis 1): one stream of vectors
  // for every line length (L = 1: the stream without in-register steps).
  if (axis == 1) {
    for (const std::size_t length : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
      const std::size_t lines = count / length;
      const tally::tensor_view<const float> in_l(x, {lines, length});
      const tally::tensor_view<float> y_l(out.get(), {lines, length});
      const auto check_lines = [=] {
        bool ok = true;
        for (std::size_t s = 0; s < lines * length; s += length) {
          float best = x[s];
          for (std::size_t k = 0; k < length; ++k) {
            if (x[s + k] >= best) best = x[s + k];
            ok = ok && out.get()[s + k] == best;
          }
        }
        return ok;
      };
      add("V1l" + std::to_string(length) + a, aligned, lines * length * 4, [=] { tally::cummax(in_l, y_l, 1); },
          check_lines, peer{});
    }
    // V2l<L> / V2dl<L>: V2 of floats / doubles along packed lines of L (the indices travel
    // in the stream).
    const auto add_lines = [&](const std::string& name, auto in_data, auto out_data, std::size_t length) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(in_data)>>;
      const std::size_t lines = count / length;
      const tally::tensor_view<const T> in_l(in_data, {lines, length});
      const tally::tensor_view<T> y_l(out_data, {lines, length});
      const tally::tensor_view<std::int64_t> idx_l(index.get(), {lines, length});
      const auto check_lines = [=] {
        bool ok = true;
        for (std::size_t s = 0; s < lines * length; s += length)
          ok = ok && cummax_mismatch(in_data + s, out_data + s, index.get() + s, length, 1) == length;
        return ok;
      };
      add(name + std::to_string(length) + a, aligned, lines * length * (sizeof(T) + 8),
          [=] { tally::cummax(in_l, y_l, idx_l, 1); }, check_lines, peer{});
    };
    for (const std::size_t length : {std::size_t{2}, std::size_t{4}, std::size_t{9}, std::size_t{16}})
      add_lines("V2l", x, out.get(), length);
    for (const std::size_t length : {std::size_t{2}, std::size_t{9}, std::size_t{32}})
      add_lines("V2dl", x64, wide.get(), length);
  }
  // V3: logcumsumexp; V3f with scan_accuracy::fast (float's exp and log: 4 ulp of float at
  // the scale of max(|y|, 1) instead of 2).
  // One line of n elements `step` apart from s: within `ulps` ulp of float of its
  // logcumsumexp at the scale of max(|y|, 1).
  const auto logsumexp_line_near = [=](std::size_t s, std::size_t step, std::size_t n, double ulps) {
    bool ok = true;
    double r = -INFINITY;
    for (std::size_t k = 0; k < n; ++k) {
      const double v = x[s + k * step], hi = std::max(r, v), lo = std::min(r, v);
      r = hi + std::log1p(std::exp(lo - hi));
      ok = ok && near(out.get()[s + k * step], r, ulps * 0x1p-23 * std::max(1.0, std::fabs(r)));
    }
    return ok;
  };
  const auto check_logsumexp = [=](double ulps) {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) { ok = logsumexp_line_near(s, step, side, ulps) && ok; });
    return ok;
  };
  add("V3" + a, aligned, count * 4, [=] { tally::logcumsumexp(in, y, axis); }, [=] { return check_logsumexp(2); },
      torch_peer(3, axis, aligned));
  tally::scan_options fast;
  fast.accuracy = tally::scan_accuracy::fast;
  add("V3f" + a, aligned, count * 4, [=] { tally::logcumsumexp(in, y, axis, fast); },
      [=] { return check_logsumexp(4); }, torch_peer(3, axis, aligned));
  // V3w<c> / V3fw<c>: V3 and V3f down c columns ([count / c, c] along axis 0): points
  // (3) and a tile narrower than a vector (7), several rows to a vector (they took a
  // vector a row: fast, AVX-512, 10x-19x and 6.5x-9x memcpy), and one whose last lines are
  // fewer than a vector holds (20). Those lines took a scalar exp and log each (fast,
  // AVX-512: 28x-40x and 8.7x-9.5x memcpy).
  if (axis == 0) {
    for (const std::size_t c : {std::size_t{3}, std::size_t{7}, std::size_t{20}}) {
      const std::size_t rows = count / c;
      const tally::tensor_view<const float> in_c(x, {rows, c});
      const tally::tensor_view<float> y_c(out.get(), {rows, c});
      const auto check_columns = [=](double ulps) {
        bool ok = true;
        for (std::size_t j = 0; j < c; ++j) ok = logsumexp_line_near(j, c, rows, ulps) && ok;
        return ok;
      };
      add("V3w" + std::to_string(c) + a, aligned, rows * c * 4, [=] { tally::logcumsumexp(in_c, y_c, 0); },
          [=] { return check_columns(2); }, peer{});
      add("V3fw" + std::to_string(c) + a, aligned, rows * c * 4, [=] { tally::logcumsumexp(in_c, y_c, 0, fast); },
          [=] { return check_columns(4); }, peer{});
    }
  }
  // V4: nancumsum.
  add("V4" + a, aligned, count * 4, [=] { tally::nancumsum(in_nan, y, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      double sum = 0, magnitude = 0;
      for (std::size_t k = 0; k < side; ++k) {
        const double v = std::isnan(xn[s + k * step]) ? 0.0 : xn[s + k * step];
        sum += v;
        magnitude += std::fabs(v);
        ok = ok && near(out.get()[s + k * step], sum, sum_bound(k + 1, magnitude));
      }
    });
    return ok;
  }, torch_peer(4, axis, aligned));
  // V5: cumsum float32 -> float64 (8 output bytes per element).
  add("V5" + a, aligned, count * 8, [=] { tally::cumsum<float, double>(in, w, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      double sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x[s + k * step];
        ok = ok && wide.get()[s + k * step] == sum;
      }
    });
    return ok;
  }, torch_peer(5, axis, aligned));
  // V5i8: cumsum int8 -> int64 (NumPy's dtype=int64 for byte data), into the index buffer;
  // V5h: cumsum half -> float. Both the sequential fold's bits.
  const tally::tensor_view<const std::int8_t> in8(d.x8.get(), {side, side});
  const tally::tensor_view<const tally::half> in16(d.x16.get(), {side, side});
  const std::int8_t* x8 = d.x8.get();
  const tally::half* x16 = d.x16.get();
  add("V5i8" + a, aligned, count * 8, [=] { tally::cumsum<std::int8_t, std::int64_t>(in8, idx, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      std::int64_t sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x8[s + k * step];
        ok = ok && index.get()[s + k * step] == sum;
      }
    });
    return ok;
  }, peer{});
  add("V5h" + a, aligned, count * 4, [=] { tally::cumsum<tally::half, float>(in16, y, axis); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      float sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum = k == 0 ? static_cast<float>(x16[s]) : sum + static_cast<float>(x16[s + k * step]);
        ok = ok && out.get()[s + k * step] == sum;
      }
    });
    return ok;
  }, peer{});
  // V6: segmented cumsum. Its line form regroups within the rounding bound, like the SIMD
  // engine's cumsum (docs/vocabulary.md), so the bound is that of each segment's sum.
  add("V6" + a, aligned, count * 4, [=] { tally::cumsum(in, y, axis, resets); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      double sum = 0, magnitude = 0;
      std::size_t n = 0;
      for (std::size_t k = 0; k < side; ++k) {
        if (f[s + k * step]) sum = 0, magnitude = 0, n = 0;
        sum += x[s + k * step];
        magnitude += std::fabs(x[s + k * step]);
        ++n;
        ok = ok && near(out.get()[s + k * step], sum, sum_bound(n, magnitude));
      }
    });
    return ok;
  }, torch_peer(6, axis, aligned));
  // V8: cumsum float32, scan_accuracy::exact (a double running value, each output rounded
  // once): within an ulp of the sequential double sum (itself exact on these inputs, up to
  // its own rounding).
  tally::scan_options exact;
  exact.accuracy = tally::scan_accuracy::exact;
  add("V8" + a, aligned, count * 4, [=] { tally::cumsum(in, y, axis, exact); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      double sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x[s + k * step];
        ok = ok && near(out.get()[s + k * step], sum, 0x1p-23 * std::fabs(sum) + 0x1p-60);
      }
    });
    return ok;
  }, torch_peer(8, axis, aligned));
  // V9: cumsum float64, scan_accuracy::exact (a compensated double running value).
  add("V9" + a, aligned, count * 8, [=] { tally::cumsum(in64, w, axis, exact); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      long double sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x[s + k * step];
        const double want = static_cast<double>(sum);
        ok = ok && near(wide.get()[s + k * step], want, 0x1p-51 * std::fabs(want) + 1e-300);
      }
    });
    return ok;
  }, torch_peer(9, axis, aligned));
  // V7: a user operator (a plain sum as a lambda: the speed of a scalar loop).
  add("V7" + a, aligned, count * 4, [=] { tally::scan(in, y, axis, [](float p, float q) { return p + q; }, 0.0f); }, [=] {
    bool ok = true;
    for_lines(axis, [&](std::size_t s, std::size_t step) {
      float sum = 0;
      for (std::size_t k = 0; k < side; ++k) {
        sum += x[s + k * step];
        ok = ok && out.get()[s + k * step] == sum;
      }
    });
    return ok;
  }, torch_peer(7, axis, aligned));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("tally_simd", tally::to_string(tally::active_simd_variant()));
#if TALLY_BENCH_HAVE_TORCH
  // One thread for PyTorch as for tally (whose default is the calling thread): these ops
  // split their lines over the intra-op pool; the inter-op pool, which they do not use, is
  // held to one thread as well. Both must be set before PyTorch runs anything.
  at::set_num_threads(1);
  at::set_num_interop_threads(1);
  benchmark::AddCustomContext("pytorch", std::string(TORCH_VERSION) + ", ATen CPU kernels, " +
                                             std::to_string(at::get_num_threads()) +
                                             " thread; no rows for V6 (segmented) and V7 (user operator)");
#else
  benchmark::AddCustomContext("pytorch", "skipped: libtorch is not linked into this benchmark");
#endif
  benchmark::AddCustomContext("compiler", __VERSION__);
  for (const bool aligned : {false, true}) {
    register_axis(1, aligned);
    register_axis(0, aligned);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
