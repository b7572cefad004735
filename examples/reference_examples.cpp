// Prints the eight reference examples of the spec, computed through the DirectML-style
// descriptor layer: fill tensor descs, an operator desc, validate, execute.
#include <tally/tally.hpp>

#include <cstdint>
#include <cstdio>

int main() {
  const float input[12] = {2, 1, 3, 5,  //
                           3, 8, 7, 3,  //
                           9, 6, 2, 4};
  const std::uint32_t sizes[4] = {1, 1, 3, 4};
  // Packed float32 {1,1,3,4}: 48 bytes, as tally::calc_buffer_tensor_size says.
  const tally::tensor_desc tensor{tally::data_type::float32, 4, sizes, nullptr,
                                  tally::calc_buffer_tensor_size(tally::data_type::float32, 4, sizes, nullptr)};

  struct row {
    const char* op;
    std::uint32_t axis;
    tally::axis_direction direction;
    bool exclusive;
  };
  const row rows[8] = {
      {"sum", 3, tally::axis_direction::increasing, false},     {"sum", 3, tally::axis_direction::increasing, true},
      {"sum", 3, tally::axis_direction::decreasing, false},     {"sum", 2, tally::axis_direction::increasing, false},
      {"product", 3, tally::axis_direction::increasing, false}, {"product", 3, tally::axis_direction::increasing, true},
      {"product", 3, tally::axis_direction::decreasing, false}, {"product", 2, tally::axis_direction::increasing, false},
  };

  for (int i = 0; i < 8; ++i) {
    const row& r = rows[i];
    float output[12] = {};
    tally::status s;
    if (r.op[0] == 's') {
      const tally::cumulative_summation_desc desc{&tensor, &tensor, r.axis, r.direction, r.exclusive};
      s = tally::execute(desc, input, output);
    } else {
      const tally::cumulative_product_desc desc{&tensor, &tensor, r.axis, r.direction, r.exclusive};
      s = tally::execute(desc, input, output);
    }
    if (!s) {
      std::fprintf(stderr, "example %d failed: %s\n", i + 1, s.message());
      return 1;
    }
    std::printf("%d  %-7s axis %u  %-10s %-9s ", i + 1, r.op, r.axis,
                r.direction == tally::axis_direction::increasing ? "increasing" : "decreasing",
                r.exclusive ? "exclusive" : "inclusive");
    for (int line = 0; line < 3; ++line) {
      std::printf("[");
      for (int k = 0; k < 4; ++k) std::printf(k ? ",%g" : "%g", static_cast<double>(output[line * 4 + k]));
      std::printf("] ");
    }
    std::printf("\n");
  }

  // An invalid descriptor is refused with a message naming the field and the value.
  const tally::cumulative_summation_desc bad{&tensor, &tensor, 4, tally::axis_direction::increasing, false};
  std::printf("\nvalidate(axis = 4): %s: %s\n", tally::to_string(tally::validate(bad).code()),
              tally::validate(bad).message());
  return 0;
}
