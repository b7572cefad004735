// Built twice by .ci/mingw-wine.sh, from the same source: by Clang posing as MSVC (so
// that detail/config.hpp takes its MSVC branches: CPUID through <intrin.h>, empty target
// attributes, MSVC's pragmas) and by MinGW's GCC (the GNU branches). Each build checks
// which branches it took (argv[1]: MSVC or GNU), runs both layers on every element type
// family and on several threads against plain loops, and prints the SIMD variant it
// chose, which the script compares between the two builds for every TALLY_SIMD value.
#include <tally/directml.hpp>
#include <tally/tally.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

/// Integer sums of a long line and of columns, on 1 and 2 threads: exact, so any
/// variant and thread count must give the plain loop's values.
template <class T>
void integer_sums(const char* what) {
  const std::size_t rows = 64, columns = 5000;
  std::vector<T> in(rows * columns), out(in.size()), expected(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>((i * 2654435761u) >> 7);
  for (unsigned threads : {1u, 2u}) {
    // along the rows
    const tally::tensor_view<const T> x(in.data(), {rows, columns});
    const tally::tensor_view<T> y(out.data(), {rows, columns});
    tally::cumsum(x, y, 1, {tally::axis_direction::increasing, false, threads});
    for (std::size_t r = 0; r < rows; ++r) {
      T running = 0;
      for (std::size_t c = 0; c < columns; ++c)
        expected[r * columns + c] = running = static_cast<T>(running + in[r * columns + c]);
    }
    check(out == expected, what);
    // down the columns, exclusive
    tally::cumsum(x, y, 0, {tally::axis_direction::increasing, true, threads});
    for (std::size_t c = 0; c < columns; ++c) {
      T running = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        expected[r * columns + c] = running;
        running = static_cast<T>(running + in[r * columns + c]);
      }
    }
    check(out == expected, what);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* expected_branch = argc > 1 ? argv[1] : "";
  const char* branch = TALLY_MSVC ? "MSVC" : TALLY_GNU_LIKE ? "GNU" : "other";
  if (std::strcmp(branch, expected_branch) != 0 || !TALLY_X86_SIMD) {
    std::fprintf(stderr, "config.hpp took the %s branches (x86 SIMD %d); expected %s with x86 SIMD\n", branch,
                 TALLY_X86_SIMD, expected_branch);
    return 2;
  }

  integer_sums<std::int32_t>("int32 sums");
  integer_sums<std::uint8_t>("uint8 sums");
  integer_sums<std::int64_t>("int64 sums");

  // Floats with small integer values: exact in every summation order.
  std::vector<float> f(100003), g(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  tally::cumsum(tally::tensor_view<const float>(f.data(), {f.size()}),
                tally::tensor_view<float>(g.data(), {g.size()}), 0, {tally::axis_direction::decreasing, false, 2});
  float running = 0;
  bool floats_ok = true;
  for (std::size_t i = f.size(); i-- > 0;) floats_ok = floats_ok && g[i] == (running += f[i]);
  check(floats_ok, "float32 decreasing sum");

  std::vector<tally::half> h(4099, tally::half(1.0f)), hout(h.size());
  tally::cumsum(tally::tensor_view<const tally::half>(h.data(), {h.size()}),
                tally::tensor_view<tally::half>(hout.data(), {hout.size()}), 0);
  check(static_cast<float>(hout[2047]) == 2048.0f, "float16 sum");

  // The descriptor layer through DirectML's structs, and an error's message.
  const float in[5] = {1, 2, 3, 4, 5};
  float out[5] = {};
  const UINT sizes[1] = {5};
  DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, sizes, nullptr, 20, 0};
  DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  DML_CUMULATIVE_PRODUCT_OPERATOR_DESC product{&tensor, &tensor, 0, DML_AXIS_DIRECTION_INCREASING, FALSE};
  check(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_PRODUCT, &product}, in, out) == S_OK &&
            out[4] == 120,
        "DirectML product");
  product.Axis = 3;
  tally::status details;
  check(tally::directml::validate(product, &details) == E_INVALIDARG &&
            std::strstr(details.message(), "axis") != nullptr,
        "DirectML error message");

  if (failures) return 1;
  std::printf("%s\n", tally::to_string(tally::active_simd_variant()));
  return 0;
}
