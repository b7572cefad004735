// The accuracy table of issue 13: how far each cumulative-sum scheme's outputs are from the
// exact running sum, in ulp, beside the speed tables of benchmarks/run.sh. A plain program
// (not Google Benchmark): it prints one Markdown table on stdout.
//
//   element types  float32, float64 (2^24 elements each), float16 (tally::half, 2^16
//                  elements; 2^12 for its offset family, whose running sum would pass
//                  float16's largest value, 65504, after about 6200 elements)
//   input families uniform [0, 1); 1000 + uniform [0, 1) (float16: 10 + uniform [0, 1));
//                  standard normal (Box-Muller). Each value is drawn in double from a fixed
//                  seed and rounded to the element type; the rounded values are the input.
//   oracle         a double-double running sum (TwoSum, renormalised after every element);
//                  a triple-double variant gave the same hi and lo in the hardest case
//                  (float64, normal) and the same table
//   error          |y_i - exact_i| in ulp of exact_i rounded to the element type (the
//                  spacing above it; for a zero: the smallest subnormal), maximised over i
//
// Schemes (sums only; cumprod is not measured): tally's typed layer (tally::cumsum, 1-D)
// with threads = 1 under every SIMD variant the CPU has, and with threads = 2 (checked
// bitwise equal to threads = 1; a difference makes the exit status 1); a sequential loop
// in the element type (float16: every addition rounded to float16, as NumPy's float16
// cumsum); std::inclusive_scan; Eigen's Tensor cumsum (float32 and float64, when Eigen is
// found); a pairwise scan with leaves of 128 (see pairwise_scan); Kahan's compensated
// loop in the element type; a double accumulator rounded on every output (PyTorch's CPU
// scheme for float32; float16 also accumulates in double here), for float64 a long double
// accumulator (x87 80-bit on x86-64; where long double is double it equals the loop).
//
// The SIMD variant is chosen once per process (TALLY_SIMD caps it), so the tally rows of
// the other variants come from child processes: the program runs itself with
// TALLY_SIMD=<variant> and --tally-rows for every variant name tally knows, and keeps one
// row per variant the children report as active (a variant the CPU lacks falls back to a
// lower one, which is then a duplicate and dropped). Built by benchmarks/CMakeLists.txt as
// tally_bench_accuracy; benchmarks/run.sh runs it.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <tally/half.hpp>
#include <tally/simd.hpp>
#include <tally/tally.hpp>

#include "random_bits.hpp"

#if TALLY_BENCH_HAVE_EIGEN
#include <unsupported/Eigen/CXX11/Tensor>
#endif

namespace {

using tally::half;

// ---------------------------------------------------------------------------------------
// Element types: arithmetic rounded to the type (float16: computed in float, which is
// exact for one addition or subtraction of two float16 values, then rounded to float16).

template <class T>
struct element;

template <>
struct element<float> {
  static constexpr const char* name = "float32";
  static constexpr int digits = 24, min_exponent = -125;  // frexp convention
  static double to_double(float v) noexcept { return v; }
  static float from_double(double v) noexcept { return static_cast<float>(v); }
  static float add(float a, float b) noexcept { return a + b; }
  static float sub(float a, float b) noexcept { return a - b; }
};

template <>
struct element<double> {
  static constexpr const char* name = "float64";
  static constexpr int digits = 53, min_exponent = -1021;
  static double to_double(double v) noexcept { return v; }
  static double from_double(double v) noexcept { return v; }
  static double add(double a, double b) noexcept { return a + b; }
  static double sub(double a, double b) noexcept { return a - b; }
};

template <>
struct element<half> {
  static constexpr const char* name = "float16";
  static constexpr int digits = 11, min_exponent = -13;
  static double to_double(half v) noexcept { return static_cast<double>(static_cast<float>(v)); }
  // Through float: a double rounding, harmless for inputs and for the ulp unit.
  static half from_double(double v) noexcept { return half(static_cast<float>(v)); }
  static half add(half a, half b) noexcept { return half(static_cast<float>(a) + static_cast<float>(b)); }
  static half sub(half a, half b) noexcept { return half(static_cast<float>(a) - static_cast<float>(b)); }
};

// ---------------------------------------------------------------------------------------
// Inputs.

constexpr int family_count = 3;
const char* const family_names[family_count] = {"uniform [0, 1)", "1000 + uniform [0, 1)", "standard normal"};

template <class T>
std::size_t case_length(int family) {
  if constexpr (std::is_same_v<T, half>) return family == 1 ? std::size_t{1} << 12 : std::size_t{1} << 16;
  else return std::size_t{1} << 24;
}

template <class T>
std::vector<T> make_input(int type_index, int family) {
  const std::size_t n = case_length<T>(family);
  random_bits rng(0xacc0ac11ull + 16u * static_cast<unsigned>(type_index) + static_cast<unsigned>(family));
  const double offset = std::is_same_v<T, half> ? 10.0 : 1000.0;
  const double two_pi = 6.283185307179586476925286766559;
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    double v;
    if (family == 0) {
      v = rng.uniform();
    } else if (family == 1) {
      v = offset + rng.uniform();
    } else {  // Box-Muller, the cosine sample only
      const double u1 = 1.0 - rng.uniform();  // (0, 1]
      const double u2 = rng.uniform();
      v = std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
    }
    x[i] = element<T>::from_double(v);
  }
  return x;
}

// ---------------------------------------------------------------------------------------
// The oracle and the error measure.

/// The exact running sum as hi + lo (double-double), and the ulp unit of each output.
struct oracle {
  std::vector<double> hi, lo, ulp;
};

template <class T>
double ulp_unit(double exact) {
  const double r = std::fabs(element<T>::to_double(element<T>::from_double(exact)));
  if (!std::isfinite(r)) {
    std::fprintf(stderr, "bench_accuracy: exact sum %g overflows %s\n", exact, element<T>::name);
    std::exit(3);
  }
  if (r == 0) return std::ldexp(1.0, element<T>::min_exponent - element<T>::digits);
  int e = 0;
  std::frexp(r, &e);
  return std::ldexp(1.0, std::max(e, element<T>::min_exponent) - element<T>::digits);
}

template <class T>
oracle make_oracle(const std::vector<T>& x) {
  const std::size_t n = x.size();
  oracle o;
  o.hi.resize(n);
  o.lo.resize(n);
  o.ulp.resize(n);
  double s = 0, c = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = element<T>::to_double(x[i]);
    const double t = s + v, bb = t - s;  // TwoSum: t + e == s + v exactly
    const double e = (s - (t - bb)) + (v - bb);
    c += e;
    s = t;
    const double hi = s + c;  // renormalise: |lo| <= half an ulp of hi
    c = c - (hi - s);
    s = hi;
    o.hi[i] = s;
    o.lo[i] = c;
    o.ulp[i] = ulp_unit<T>(s);
  }
  return o;
}

/// max over i of |y_i - exact_i| / ulp_i; a NaN counts as infinity.
template <class T>
double max_ulp(const oracle& o, const std::vector<T>& y) {
  double worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double err = std::fabs((element<T>::to_double(y[i]) - o.hi[i]) - o.lo[i]) / o.ulp[i];
    if (!(err <= worst)) worst = std::isnan(err) ? std::numeric_limits<double>::infinity() : err;
  }
  return worst;
}

// ---------------------------------------------------------------------------------------
// The schemes.

template <class T>
void tally_scan(const std::vector<T>& x, std::vector<T>& y, unsigned threads,
                tally::scan_accuracy accuracy = tally::scan_accuracy::fast) {
  tally::scan_options options;
  options.threads = threads;
  options.accuracy = accuracy;
  tally::cumsum<T>(tally::tensor_view<const T>(x.data(), {x.size()}), tally::tensor_view<T>(y.data(), {y.size()}), 0,
                   options);
}

template <class T>
void sequential(const std::vector<T>& x, std::vector<T>& y) {
  T r = element<T>::from_double(0.0);
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = r = element<T>::add(r, x[i]);
}

template <class T>
void std_inclusive_scan(const std::vector<T>& x, std::vector<T>& y) {
  std::inclusive_scan(x.begin(), x.end(), y.begin(), [](T a, T b) { return element<T>::add(a, b); });
}

/// Pairwise prefix sum, recursive: a piece of at most 128 elements is scanned sequentially;
/// a longer one scans its halves independently, then adds the left half's total to every
/// output of the right half. An output sees its leaf's sequential prefix plus at most
/// log2(n / 128) further roundings (O(n log n) additions in all).
template <class T>
void pairwise_scan(const T* x, T* y, std::size_t n) {
  if (n <= 128) {
    T r = element<T>::from_double(0.0);
    for (std::size_t i = 0; i < n; ++i) y[i] = r = element<T>::add(r, x[i]);
    return;
  }
  const std::size_t h = n / 2;
  pairwise_scan(x, y, h);
  pairwise_scan(x + h, y + h, n - h);
  const T left = y[h - 1];
  for (std::size_t i = h; i < n; ++i) y[i] = element<T>::add(left, y[i]);
}

template <class T>
void kahan(const std::vector<T>& x, std::vector<T>& y) {
  T s = element<T>::from_double(0.0), c = s;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T v = element<T>::sub(x[i], c);
    const T t = element<T>::add(s, v);
    c = element<T>::sub(element<T>::sub(t, s), v);
    s = t;
    y[i] = s;
  }
}

/// A wider accumulator, rounded to T on every output: double for float32 and float16
/// (PyTorch's CPU cumsum for float32), long double for float64.
template <class T>
void wide_accumulator(const std::vector<T>& x, std::vector<T>& y) {
  if constexpr (std::is_same_v<T, double>) {
    long double acc = 0;
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<double>(acc += x[i]);
  } else {
    double acc = 0;
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = element<T>::from_double(acc += element<T>::to_double(x[i]));
  }
}

#if TALLY_BENCH_HAVE_EIGEN
template <class T>
void eigen_cumsum(const std::vector<T>& x, std::vector<T>& y) {
  const Eigen::array<Eigen::Index, 1> dims{{static_cast<Eigen::Index>(x.size())}};
  Eigen::TensorMap<const Eigen::Tensor<T, 1, Eigen::RowMajor>> in(x.data(), dims);
  Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>> out(y.data(), dims);
  out = in.cumsum(0);
}
#endif

// ---------------------------------------------------------------------------------------
// Cases: 3 element types x 3 families, numbered type * 3 + family.

constexpr int type_count = 3, case_count = type_count * family_count;
const char* const type_names[type_count] = {"float32", "float64", "float16"};

/// tally's numbers for one variant: threads = 1, threads = 2, whether they are bitwise
/// equal, and scan_accuracy::exact with threads = 1.
struct tally_result {
  double one = -1, two = -1;
  bool equal = false;
  double exact = -1;
};
struct variant_rows {
  std::string name;
  tally_result cases[case_count];
};

struct peer_row {
  std::string scheme;
  double cases[case_count];
  bool present[case_count];
  bool same_as_loop[case_count];  ///< output bitwise equal to the sequential loop's
};

template <class T>
tally_result measure_tally(const std::vector<T>& x, const oracle& o) {
  std::vector<T> y1(x.size()), y2(x.size());
  tally_scan(x, y1, 1);
  tally_scan(x, y2, 2);
  tally_result r;
  r.one = max_ulp(o, y1);
  r.two = max_ulp(o, y2);
  r.equal = std::memcmp(y1.data(), y2.data(), x.size() * sizeof(T)) == 0;
  tally_scan(x, y2, 1, tally::scan_accuracy::exact);
  r.exact = max_ulp(o, y2);
  return r;
}

const char* const loop_scheme = "sequential loop in the element type";

/// Runs every case for element type T: tally always, the peers unless tally_only.
template <class T>
void run_type(int type_index, bool tally_only, variant_rows& own, std::vector<peer_row>& peers) {
  for (int family = 0; family < family_count; ++family) {
    const int c = type_index * family_count + family;
    const std::vector<T> x = make_input<T>(type_index, family);
    const oracle o = make_oracle(x);
    own.cases[c] = measure_tally(x, o);
    if (tally_only) continue;
    std::vector<T> y(x.size()), loop(x.size());
    sequential(x, loop);
    auto record = [&](const std::string& scheme) {
      auto it = std::find_if(peers.begin(), peers.end(), [&](const peer_row& p) { return p.scheme == scheme; });
      if (it == peers.end()) {
        peers.push_back(peer_row{scheme, {}, {}, {}});
        it = peers.end() - 1;
      }
      it->cases[c] = max_ulp(o, y);
      it->present[c] = true;
      it->same_as_loop[c] = std::memcmp(y.data(), loop.data(), y.size() * sizeof(T)) == 0;
    };
    y = loop;
    record(loop_scheme);
    std_inclusive_scan(x, y);
    record("`std::inclusive_scan`");
#if TALLY_BENCH_HAVE_EIGEN
    if constexpr (!std::is_same_v<T, half>) {
      eigen_cumsum(x, y);
      record("Eigen Tensor `cumsum(0)`");
    }
#endif
    pairwise_scan(x.data(), y.data(), x.size());
    record("pairwise (leaves of 128)");
    kahan(x, y);
    record("Kahan, in the element type");
    wide_accumulator(x, y);
    record("double accumulator (float64: long double)");
  }
}

/// Runs every case; fills own (tally under this process's variant) and, unless tally_only, peers.
void run_all(bool tally_only, variant_rows& own, std::vector<peer_row>& peers) {
  run_type<float>(0, tally_only, own, peers);
  run_type<double>(1, tally_only, own, peers);
  run_type<half>(2, tally_only, own, peers);
}

// ---------------------------------------------------------------------------------------
// Child processes, one per other SIMD variant.

std::string self_path(const char* argv0) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && !p.empty()) return p.string();
  return argv0;
}

/// Runs `self --tally-rows` under TALLY_SIMD=variant; false when it fails or says nothing.
bool run_child(const std::string& self, const char* variant, variant_rows& rows) {
  std::fflush(stdout);
#if defined(_WIN32)
  if (_putenv_s("TALLY_SIMD", variant) != 0) return false;
  const std::string command = "\"" + self + "\" --tally-rows";
  FILE* pipe = _popen(command.c_str(), "r");
#else
  std::string quoted = "'";
  for (char ch : self) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  quoted += "'";
  const std::string command = std::string("TALLY_SIMD=") + variant + " " + quoted + " --tally-rows";
  FILE* pipe = popen(command.c_str(), "r");
#endif
  if (!pipe) return false;
  char line[512];
  int seen = 0;
  while (std::fgets(line, sizeof line, pipe)) {
    char name[64];
    int c = 0, equal = 0;
    double one = 0, two = 0, exact = 0;
    if (std::sscanf(line, "variant %63s", name) == 1) {
      rows.name = name;
    } else if (std::sscanf(line, "case %d %lg %lg %d %lg", &c, &one, &two, &equal, &exact) == 5 && c >= 0 &&
               c < case_count) {
      rows.cases[c] = tally_result{one, two, equal != 0, exact};
      ++seen;
    }
  }
#if defined(_WIN32)
  const int status = _pclose(pipe);
#else
  const int status = pclose(pipe);
#endif
  return status == 0 && seen == case_count && !rows.name.empty();
}

// ---------------------------------------------------------------------------------------
// Output.

/// Three significant digits up to 999, whole numbers up to 999999, then 2.2e10 style.
std::string format_ulp(double v) {
  char buf[64];
  if (std::isinf(v)) return "inf";
  if (v < 999.5) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (v < 999999.5) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    const int e = static_cast<int>(std::floor(std::log10(v)));
    double m = v / std::pow(10.0, e);
    int ee = e;
    if (std::round(m * 10) >= 100) {
      m /= 10;
      ++ee;
    }
    std::snprintf(buf, sizeof buf, "%.1fe%d", m, ee);
  }
  return buf;
}

void print_row(const char* type, const std::string& scheme, const double* values, const bool* present, int type_index) {
  std::printf("| %s | %s |", type, scheme.c_str());
  for (int f = 0; f < family_count; ++f) {
    const int c = type_index * family_count + f;
    std::printf(" %s |", present && !present[c] ? "-" : format_ulp(values[c]).c_str());
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool tally_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tally-rows") == 0) {
      tally_only = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--tally-rows]\n"
                   "  prints the accuracy table (max ulp of each cumsum scheme against an exact\n"
                   "  running sum); --tally-rows: only tally's numbers under this process's\n"
                   "  SIMD variant, as lines for the parent process\n",
                   argv[0]);
      return 2;
    }
  }
  const std::string active = tally::to_string(tally::active_simd_variant());  // reads TALLY_SIMD now

  if (tally_only) {
    variant_rows own;
    std::vector<peer_row> unused;
    run_all(true, own, unused);
    std::printf("variant %s\n", active.c_str());
    for (int c = 0; c < case_count; ++c)
      std::printf("case %d %.17g %.17g %d %.17g\n", c, own.cases[c].one, own.cases[c].two, own.cases[c].equal ? 1 : 0,
                  own.cases[c].exact);
    return 0;
  }

  // Every variant name tally knows (simd_variant's values are small and stable), best
  // first by the list's order of value: children run before this process allocates.
  std::vector<variant_rows> variants(1);
  variants[0].name = active;
  const std::string self = self_path(argv[0]);
  bool child_failed = false;
  for (unsigned v = 8; v-- > 0;) {
    const char* name = tally::to_string(static_cast<tally::simd_variant>(v));
    if (std::strcmp(name, "invalid") == 0 || active == name) continue;
    variant_rows rows;
    if (!run_child(self, name, rows)) {
      std::fprintf(stderr, "bench_accuracy: the child run with TALLY_SIMD=%s failed\n", name);
      child_failed = true;
      continue;
    }
    const bool duplicate = std::any_of(variants.begin(), variants.end(),
                                       [&](const variant_rows& r) { return r.name == rows.name; });
    if (!duplicate) variants.push_back(rows);
  }
  std::vector<peer_row> peers;
  run_all(false, variants[0], peers);
  // Best variant first: the order of the target list (avx512, avx2, neon, scalar).
  auto rank = [](const std::string& n) {
    const char* order[] = {"avx512", "avx2", "neon", "scalar"};
    for (int i = 0; i < 4; ++i)
      if (n == order[i]) return i;
    return 4;
  };
  std::stable_sort(variants.begin(), variants.end(),
                   [&](const variant_rows& a, const variant_rows& b) { return rank(a.name) < rank(b.name); });

  std::string names;
  for (const variant_rows& r : variants) names += (names.empty() ? "" : ", ") + r.name;
  std::printf("### Accuracy\n\n");
  std::printf(
      "Max error of the inclusive cumsum in ulp of the exact running sum (double-double oracle), "
      "over all outputs; 0.5 is correct rounding. float32, float64: 2^24 elements; float16: 2^16 "
      "(the second family: 10 + uniform [0, 1), 2^12 elements). tally: typed layer, 1-D, "
      "threads = 1 unless said; SIMD variants measured: %s (this process: %s).\n\n",
      names.c_str(), active.c_str());
  std::printf("| type | scheme | %s | %s | %s |\n", family_names[0], family_names[1], family_names[2]);
  std::printf("|---|---|---|---|---|\n");
  bool all_equal = true;
  int compared = 0;
  for (int t = 0; t < type_count; ++t) {
    double values[case_count];
    for (const variant_rows& r : variants) {
      for (int c = 0; c < case_count; ++c) values[c] = r.cases[c].one;
      print_row(type_names[t], "tally, " + r.name + ", `scan_accuracy::fast`", values, nullptr, t);
    }
    for (int c = 0; c < case_count; ++c) values[c] = variants[0].cases[c].two;
    print_row(type_names[t], "tally, " + variants[0].name + ", `scan_accuracy::fast`, threads = 2", values, nullptr, t);
    for (const variant_rows& r : variants) {
      for (int c = 0; c < case_count; ++c) values[c] = r.cases[c].exact;
      print_row(type_names[t], "tally, " + r.name + ", `scan_accuracy::exact` (the default)", values, nullptr, t);
    }
    for (const peer_row& p : peers)
      if (std::any_of(p.present + t * family_count, p.present + (t + 1) * family_count, [](bool b) { return b; }))
        print_row(type_names[t], p.scheme, p.cases, p.present, t);
  }
  for (const variant_rows& r : variants)
    for (int c = 0; c < case_count; ++c) {
      ++compared;
      if (!r.cases[c].equal) {
        all_equal = false;
        std::fprintf(stderr, "bench_accuracy: %s, %s, %s: threads = 2 differs from threads = 1\n", r.name.c_str(),
                     type_names[c / family_count], family_names[c % family_count]);
      }
    }
  std::printf("\ntally threads = 2 bitwise equal to threads = 1: %s (%d cases: every variant, type and family).\n",
              all_equal ? "yes" : "**NO**", compared);
  for (const peer_row& p : peers) {
    if (p.scheme == loop_scheme) continue;
    int present = 0, same = 0;
    for (int c = 0; c < case_count; ++c) {
      present += p.present[c];
      same += p.present[c] && p.same_as_loop[c];
    }
    if (same > 0)
      std::printf("%s: output bitwise equal to the sequential loop's in %d of its %d cases.\n", p.scheme.c_str(), same,
                  present);
  }
#if !TALLY_BENCH_HAVE_EIGEN
  std::printf("Eigen was not found at build time: no Eigen rows.\n");
#endif
  if (!all_equal) return 1;
  return child_failed ? 2 : 0;
}
