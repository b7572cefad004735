// The spec's eight reference examples (section 2) and the ONNX backend vectors (section 7),
// through both front doors.
#include <tally/tally.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "support/calls.hpp"
#include "support/spec_examples.hpp"

namespace {

using tally_test::direction_of;
using tally_test::spec_example;
using tally_test::spec_example_input;
using tally_test::spec_examples;

}  // namespace

TEST_CASE("the spec's reference examples through the descriptor layer") {
  const tally::tensor_desc tensor{tally::data_type::float32, tally_test::spec_example_rank,
                                  tally_test::spec_example_sizes, nullptr, 48};
  for (const spec_example& e : spec_examples) {
    std::array<float, 12> out{};
    const auto run = [&](const auto& desc) {
      REQUIRE(tally::validate(desc));
      return tally::execute(desc, spec_example_input.data(), out.data());
    };
    const tally::status s =
        tally_test::with_scan_desc(e.product, &tensor, &tensor, e.axis, direction_of(e.decreasing), e.exclusive, run);
    INFO("product " << e.product << " axis " << e.axis << " exclusive " << e.exclusive);
    REQUIRE(s.ok());
    CHECK(out == e.expected);
  }
}

TEST_CASE("the spec's reference examples through the typed layer") {
  for (const spec_example& e : spec_examples) {
    std::array<float, 12> out{};
    const tally::tensor_view<const float> in(spec_example_input.data(), {1, 1, 3, 4});
    const tally::tensor_view<float> view(out.data(), {1, 1, 3, 4});
    const tally::scan_options options{direction_of(e.decreasing), e.exclusive};
    // Negative axes count from the back: -1 is axis 3, -2 is axis 2.
    const int axis = static_cast<int>(e.axis) - 4;
    tally_test::typed_scan(e.product, in, view, axis, options);
    INFO("product " << e.product << " axis " << e.axis << " exclusive " << e.exclusive);
    CHECK(out == e.expected);
  }
}

TEST_CASE("the ONNX backend vectors") {
  std::vector<double> x = {1, 2, 3, 4, 5};
  std::vector<double> m = {1, 2, 3, 4, 5, 6};
  struct onnx_case {
    bool product, matrix;
    int axis;
    bool reverse, exclusive;
    std::vector<double> expected;
  };
  const onnx_case cases[] = {
      {false, false, 0, false, false, {1, 3, 6, 10, 15}},
      {false, false, 0, false, true, {0, 1, 3, 6, 10}},
      {false, false, 0, true, false, {15, 14, 12, 9, 5}},
      {false, false, 0, true, true, {14, 12, 9, 5, 0}},
      {false, true, 0, false, false, {1, 2, 3, 5, 7, 9}},
      {false, true, 1, false, false, {1, 3, 6, 4, 9, 15}},
      {false, true, -1, false, false, {1, 3, 6, 4, 9, 15}},
      {true, false, 0, false, false, {1, 2, 6, 24, 120}},
      {true, false, 0, false, true, {1, 1, 2, 6, 24}},
      {true, false, 0, true, false, {120, 120, 60, 20, 5}},
      {true, false, 0, true, true, {120, 60, 20, 5, 1}},
      {true, true, 0, false, false, {1, 2, 3, 4, 10, 18}},
      {true, true, 1, false, false, {1, 2, 6, 4, 20, 120}},
      {true, true, -1, false, false, {1, 2, 6, 4, 20, 120}},
  };
  for (const onnx_case& c : cases) {
    std::vector<double> out(c.expected.size());
    const tally::tensor_view<const double> in =
        c.matrix ? tally::tensor_view<const double>(m.data(), {2, 3}) : tally::tensor_view<const double>(x.data(), {5});
    const tally::tensor_view<double> view =
        c.matrix ? tally::tensor_view<double>(out.data(), {2, 3}) : tally::tensor_view<double>(out.data(), {5});
    const tally::scan_options options{direction_of(c.reverse), c.exclusive};
    tally_test::typed_scan(c.product, in, view, c.axis, options);
    INFO("product " << c.product << " matrix " << c.matrix << " axis " << c.axis << " reverse " << c.reverse
                    << " exclusive " << c.exclusive);
    CHECK(out == c.expected);
  }
}
