// The spec's eight reference examples (spec section 2), typed in by hand from the spec:
// one float32 tensor of sizes {1, 1, 3, 4} scanned along axis 3 or 2. Each front door's
// test (descriptor, typed, DirectML) reproduces every row exactly.
#pragma once

#include <array>
#include <cstdint>

namespace tally_test {

constexpr std::uint32_t spec_example_rank = 4;
constexpr std::uint32_t spec_example_sizes[spec_example_rank] = {1, 1, 3, 4};

/// The input X, packed row-major.
constexpr std::array<float, 12> spec_example_input = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};

struct spec_example {
  bool product;  // cumulative product (else summation)
  std::uint32_t axis;
  bool decreasing;
  bool exclusive;
  std::array<float, 12> expected;
};

constexpr spec_example spec_examples[] = {
    {false, 3, false, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}},
    {false, 3, false, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}},
    {false, 3, true, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}},
    {false, 2, false, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}},
    {true, 3, false, false, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
    {true, 3, false, true, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
    {true, 3, true, false, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
    {true, 2, false, false, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
};

}  // namespace tally_test
