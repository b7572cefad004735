// The program every packaging consumer builds: one cumsum through the installed (or
// added) headers, checked against sums written out by hand, plus a check that the
// package's version (TALLY_EXPECTED_VERSION, from CMake or pkg-config) matches the headers.
#include <tally/tally.hpp>

#include <cstdio>
#include <string>

int main() {
  // A 2x3 matrix, summed along its rows (axis 1) and along its columns (axis 0).
  const int input[6] = {1, 2, 3, 10, 20, 30};
  const int expected_rows[6] = {1, 3, 6, 10, 30, 60};
  const int expected_columns[6] = {1, 2, 3, 11, 22, 33};
  int rows[6] = {};
  int columns[6] = {};
  tally::cumsum(tally::tensor_view<const int>(input, {2, 3}), tally::tensor_view<int>(rows, {2, 3}), 1);
  tally::cumsum(tally::tensor_view<const int>(input, {2, 3}), tally::tensor_view<int>(columns, {2, 3}), 0);
  int failures = 0;
  for (int i = 0; i < 6; ++i) {
    if (rows[i] != expected_rows[i] || columns[i] != expected_columns[i]) {
      std::printf("element %d: rows %d (expected %d), columns %d (expected %d)\n", i, rows[i], expected_rows[i],
                  columns[i], expected_columns[i]);
      ++failures;
    }
  }
  const std::string header_version = std::to_string(TALLY_VERSION_MAJOR) + "." +
                                     std::to_string(TALLY_VERSION_MINOR) + "." +
                                     std::to_string(TALLY_VERSION_PATCH);
#ifdef TALLY_EXPECTED_VERSION
  if (header_version != TALLY_EXPECTED_VERSION) {
    std::printf("package version %s but the headers say %s\n", TALLY_EXPECTED_VERSION, header_version.c_str());
    ++failures;
  }
#endif
  std::printf("tally %s consumer: %s\n", header_version.c_str(), failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
