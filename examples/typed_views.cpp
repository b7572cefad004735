// The typed layer: tally::cumsum / tally::cumprod on strided views, with NumPy's
// conventions (negative axis, reversed views through negative strides, in place).
#include <tally/tally.hpp>

#include <cstdio>
#include <vector>

static void print(const char* title, const tally::tensor_view<const int>& v) {
  std::printf("%s\n", title);
  for (std::size_t i = 0; i < v.extent(0); ++i) {
    std::printf("  ");
    for (std::size_t j = 0; j < v.extent(1); ++j) std::printf("%5d", v(i, j));
    std::printf("\n");
  }
}

int main() {
  // A 3x4 matrix stored in a 3x6 buffer: a padded (strided) view of it.
  std::vector<int> storage = {1, 2, 3, 4, -1, -1,  //
                              5, 6, 7, 8, -1, -1,  //
                              9, 10, 11, 12, -1, -1};
  const tally::tensor_view<const int> matrix(storage.data(), {3, 4}, {6, 1});
  print("input (a 3x4 view with row stride 6):", matrix);

  std::vector<int> result(12);
  const tally::tensor_view<int> out(result.data(), {3, 4});

  tally::cumsum(matrix, out, -1);  // along rows, like numpy.cumsum(a, axis=-1)
  print("cumsum, axis -1:", out);

  tally::cumsum(matrix, out, 0, {tally::axis_direction::decreasing});  // from the bottom up
  print("cumsum, axis 0, decreasing:", out);

  tally::cumprod(matrix, out, 1, {tally::axis_direction::increasing, /*exclusive=*/true});
  print("cumprod, axis 1, exclusive:", out);

  // The transpose is just another view (strides swapped); the output is packed 4x3.
  std::vector<int> transposed(12);
  const tally::tensor_view<const int> matrix_t(storage.data(), {4, 3}, {1, 6});
  tally::cumsum(matrix_t, tally::tensor_view<int>(transposed.data(), {4, 3}), 1);
  print("cumsum of the transpose, axis 1:", tally::tensor_view<const int>(transposed.data(), {4, 3}));

  // In place: the output may be the input itself.
  const tally::tensor_view<int> in_place(storage.data(), {3, 4}, {6, 1});
  tally::cumsum(in_place, in_place, 1);
  print("in place, axis 1 (the padding columns are untouched):", matrix);
  std::printf("padding still %d\n", storage[4]);
  return 0;
}
