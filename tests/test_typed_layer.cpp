// The typed layer's NumPy conventions: negative axes, empty tensors as no-ops, errors thrown
// as tally::error with the right code (and nothing written), tensor_view's constructors,
// and outputs that overlap the input in any way giving the result of scanning a copy.
// Expected values come from the independent reference (tests/support/reference.hpp),
// never from tally.
#include <tally/tally.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "support/calls.hpp"
#include "support/reference.hpp"

namespace {

using tally::axis_direction;
using tally::status_code;
using tally::tensor_view;

/// A packed row-major shape with its element count and strides.
struct shape_t {
  std::vector<std::size_t> sizes;
  std::size_t count() const {
    std::size_t n = 1;
    for (std::size_t s : sizes) n *= s;
    return n;
  }
  std::vector<std::size_t> index(std::size_t linear) const {
    std::vector<std::size_t> i(sizes.size());
    for (std::size_t d = sizes.size(); d-- > 0;) {
      i[d] = linear % sizes[d];
      linear /= sizes[d];
    }
    return i;
  }
};

/// Offset (in elements) of a multi-index in a view.
template <class T>
std::ptrdiff_t offset_of(const tensor_view<T>& v, const std::vector<std::size_t>& i) {
  std::ptrdiff_t offset = 0;
  for (std::size_t d = 0; d < i.size(); ++d) offset += static_cast<std::ptrdiff_t>(i[d]) * v.stride(d);
  return offset;
}

/// The view's elements, packed row-major.
template <class T>
std::vector<std::remove_const_t<T>> gather(const tensor_view<T>& v) {
  const shape_t shape{std::vector<std::size_t>(v.extents(), v.extents() + v.rank())};
  std::vector<std::remove_const_t<T>> packed(shape.count());
  for (std::size_t k = 0; k < packed.size(); ++k) packed[k] = v.data()[offset_of(v, shape.index(k))];
  return packed;
}

/// The reference scan of a packed tensor.
template <class T>
std::vector<T> reference(const std::vector<T>& x, const shape_t& shape, std::size_t axis, axis_direction direction,
                         bool exclusive, bool product) {
  return tally_test::reference_scan_packed(product ? tally_test::scan_op::product : tally_test::scan_op::sum,
                                           shape.sizes, axis, direction == axis_direction::decreasing, exclusive, x);
}

/// Small values: every partial sum or product of up to 12 of them (3^12 < 2^24) is exact in
/// float, whatever order tally combines them in.
template <class T>
std::vector<T> small_values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    const int value = static_cast<int>((k * 7 + 3) % 3) + 1;  // 1..3
    v[k] = static_cast<T>(std::is_signed_v<T> && k % 3 == 1 ? -value : value);
  }
  return v;
}

/// An all-`fill` buffer, to see what a call writes.
template <class T>
std::vector<T> sentinel(std::size_t n) {
  return std::vector<T>(n, static_cast<T>(99));
}

/// Runs one overlapping case: `in` and `out` are views into `buffer`. The result must equal the
/// reference scan of a copy of the input, and no element outside `out` may change.
template <class T>
void check_overlap(std::vector<T>& buffer, tensor_view<const T> in, tensor_view<T> out) {
  const std::vector<T> original = buffer;
  const shape_t shape{std::vector<std::size_t>(in.extents(), in.extents() + in.rank())};
  const int rank = static_cast<int>(in.rank());
  for (int axis = -rank; axis < rank; ++axis)
    for (axis_direction direction : {axis_direction::increasing, axis_direction::decreasing})
      for (bool exclusive : {false, true})
        for (bool product : {false, true})
          for (unsigned threads : {1u, 3u}) {
            buffer = original;
            const std::vector<T> copy = gather(in);
            const std::size_t positive = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
            const std::vector<T> expected = reference(copy, shape, positive, direction, exclusive, product);
            const tally::scan_options options{direction, exclusive, threads};
            tally_test::typed_scan(product, in, out, axis, options);
            INFO("axis " << axis << (direction == axis_direction::decreasing ? " decreasing" : " increasing")
                         << (exclusive ? " exclusive" : " inclusive") << (product ? " cumprod" : " cumsum")
                         << " threads " << threads);
            CHECK(gather(out) == expected);
            std::set<std::ptrdiff_t> written;
            for (std::size_t k = 0; k < shape.count(); ++k)
              written.insert(out.data() - buffer.data() + offset_of(out, shape.index(k)));
            for (std::size_t k = 0; k < buffer.size(); ++k)
              if (!written.count(static_cast<std::ptrdiff_t>(k))) {
                INFO("buffer element " << k << " lies outside the output");
                CHECK(buffer[k] == original[k]);
              }
          }
  buffer = original;  // the caller's next case starts from the same small values
}

/// Calls cumsum and requires tally::error with `code`; the output buffer stays unchanged.
template <class T>
void require_error(status_code code, tensor_view<const T> in, tensor_view<T> out, int axis,
                   const std::vector<T>& out_buffer, tally::scan_options options = {}) {
  const std::vector<T> before = out_buffer;
  try {
    tally::cumsum(in, out, axis, options);
    FAIL("no tally::error thrown; expected " << tally::to_string(code));
  } catch (const tally::error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(std::string(e.what()).size() > 0);
  }
  CHECK(out_buffer == before);
}

template <class T>
status_code view_error(T* data, std::size_t rank, const std::size_t* sizes, const std::ptrdiff_t* strides) {
  try {
    tensor_view<T> v(data, rank, sizes, strides);
    (void)v;
  } catch (const tally::error& e) {
    return e.code();
  }
  return status_code::ok;
}

}  // namespace

TEST_CASE("a negative axis counts from the back") {
  const shape_t shape{{2, 3, 4}};
  const std::vector<int> x = small_values<int>(shape.count());
  for (int axis = -3; axis < 0; ++axis) {
    std::vector<int> y(x.size(), 0);
    tally::cumsum(tensor_view<const int>(x.data(), {2, 3, 4}), tensor_view<int>(y.data(), {2, 3, 4}), axis);
    INFO("axis " << axis);
    CHECK(y == reference(x, shape, static_cast<std::size_t>(axis + 3), axis_direction::increasing, false, false));
  }
}

TEST_CASE("an axis out of range throws invalid_axis, both ways") {
  std::vector<float> x(6, 1.0f), y = sentinel<float>(6);
  const tensor_view<const float> in(x.data(), {2, 3});
  const tensor_view<float> out(y.data(), {2, 3});
  for (int axis : {2, 3, 100, -3, -4, -100, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    INFO("axis " << axis);
    require_error<float>(status_code::invalid_axis, in, out, axis, y);
  }
}

TEST_CASE("empty tensors are no-ops that write nothing") {
  // The output view points into a non-empty buffer: any write would show.
  std::vector<double> x(8, 2.0), y = sentinel<double>(8);
  const std::vector<double> before = y;
  for (std::size_t empty_dim = 0; empty_dim < 3; ++empty_dim) {
    std::size_t sizes[3] = {2, 3, 1};
    sizes[empty_dim] = 0;
    const tensor_view<const double> in(x.data(), 3, sizes);
    const tensor_view<double> out(y.data(), 3, sizes);
    for (int axis = -3; axis < 3; ++axis) {
      INFO("size 0 in dimension " << empty_dim << ", axis " << axis);
      tally::cumsum(in, out, axis);
      tally::cumprod(in, out, axis, {axis_direction::decreasing, true});
      CHECK(y == before);
    }
    // Even an empty tensor has to name a valid axis.
    require_error<double>(status_code::invalid_axis, in, out, 3, y);
  }
  SECTION("null data is fine when there are no elements") {
    const std::size_t sizes[2] = {0, 5};
    tally::cumsum(tensor_view<const double>(nullptr, 2, sizes), tensor_view<double>(nullptr, 2, sizes), 1);
  }
}

TEST_CASE("an empty output with zero strides is a no-op, as NumPy makes them") {
  // np.empty((3, 0, 2)).strides is (0, 0, 0): no two elements share an address because
  // there are no elements, so this must not be refused as a self-overlapping output.
  std::vector<float> x(4, 1.0f), y = sentinel<float>(4);
  const std::vector<float> before = y;
  const tensor_view<const float> in(x.data(), {3, 0, 2}, {0, 0, 0});
  const tensor_view<float> out(y.data(), {3, 0, 2}, {0, 0, 0});
  for (int axis = -3; axis < 3; ++axis) {
    INFO("axis " << axis);
    try {
      tally::cumsum(in, out, axis);
    } catch (const tally::error& e) {
      FAIL("an empty tensor was refused: " << e.what());
    }
  }
  CHECK(y == before);
}

TEST_CASE("invalid calls throw tally::error with the right code and write nothing") {
  std::vector<std::int32_t> x(24, 1), y = sentinel<std::int32_t>(24);
  const tensor_view<const std::int32_t> in(x.data(), {2, 3, 4});

  SECTION("rank mismatch") {
    require_error<std::int32_t>(status_code::dimension_count_mismatch, in, tensor_view<std::int32_t>(y.data(), {6, 4}),
                                0, y);
  }
  SECTION("size mismatch") {
    require_error<std::int32_t>(status_code::size_mismatch, in, tensor_view<std::int32_t>(y.data(), {2, 4, 3}), 0, y);
  }
  SECTION("bad direction") {
    tally::scan_options options;
    options.direction = static_cast<axis_direction>(2);
    require_error<std::int32_t>(status_code::invalid_direction, in, tensor_view<std::int32_t>(y.data(), {2, 3, 4}), 0,
                                y, options);
  }
  SECTION("self-overlapping output: a zero stride on a dimension of size > 1") {
    require_error<std::int32_t>(status_code::overlapping_output, in,
                                tensor_view<std::int32_t>(y.data(), {2, 3, 4}, {12, 0, 1}), 2, y);
  }
  SECTION("self-overlapping output: interleaving strides") {
    // Rows of 4 that start 2 apart share elements.
    require_error<std::int32_t>(status_code::overlapping_output, in,
                                tensor_view<std::int32_t>(y.data(), {2, 3, 4}, {8, 2, 1}), 1, y);
  }
  SECTION("self-overlapping output that is also reversed") {
    require_error<std::int32_t>(status_code::overlapping_output, in,
                                tensor_view<std::int32_t>(y.data() + 23, {2, 3, 4}, {-12, -4, -2}), 1, y);
  }
}

TEST_CASE("tensor_view constructors") {
  float data[16] = {};
  const std::size_t sizes[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

  SECTION("packed strides are row-major") {
    const tensor_view<float> v(data, {2, 3, 2});
    CHECK(v.rank() == 3);
    CHECK(v.size() == 12);
    CHECK(v.stride(0) == 6);
    CHECK(v.stride(1) == 2);
    CHECK(v.stride(2) == 1);
    CHECK(&v(1, 2, 1) == data + 11);
  }
  SECTION("rank 9 throws invalid_dimension_count; rank 0 is a 0-d tensor, which needs data") {
    CHECK(view_error<float>(data, 0, sizes, nullptr) == status_code::ok);
    CHECK(view_error<float>(nullptr, 0, sizes, nullptr) == status_code::null_pointer);
    CHECK(view_error<float>(data, 9, sizes, nullptr) == status_code::invalid_dimension_count);
    CHECK(view_error<float>(data, 8, sizes, nullptr) == status_code::ok);
    CHECK(view_error<float>(data, 1, sizes, nullptr) == status_code::ok);
  }
  SECTION("a stride count that differs from the size count throws") {
    status_code code = status_code::ok;
    try {
      tensor_view<float> v(data, {2, 3}, {3, 1, 1});
      (void)v;
    } catch (const tally::error& e) {
      code = e.code();
    }
    CHECK(code == status_code::dimension_count_mismatch);
  }
  SECTION("sizes or strides that overflow 64-bit offsets throw size_overflow") {
    const std::size_t huge[2] = {std::size_t{1} << 40, std::size_t{1} << 40};
    CHECK(view_error<float>(data, 2, huge, nullptr) == status_code::size_overflow);
    const std::size_t two[2] = {2, 2};
    const std::ptrdiff_t far[2] = {std::numeric_limits<std::ptrdiff_t>::max() / 2, 1};
    CHECK(view_error<float>(data, 2, two, far) == status_code::size_overflow);
    const std::ptrdiff_t far_back[2] = {std::numeric_limits<std::ptrdiff_t>::min() / 2, 1};
    CHECK(view_error<float>(data, 2, two, far_back) == status_code::size_overflow);
  }
  SECTION("null data with elements throws null_pointer; without elements it is fine") {
    const std::size_t some[2] = {2, 3}, none[2] = {2, 0};
    CHECK(view_error<float>(nullptr, 2, some, nullptr) == status_code::null_pointer);
    CHECK(view_error<float>(nullptr, 2, none, nullptr) == status_code::ok);
  }
  SECTION("errors are std::invalid_argument") {
    CHECK_THROWS_AS(tensor_view<float>(data, 9, sizes), std::invalid_argument);
  }
}

TEST_CASE("tensor_view<const T> from tensor_view<T>, and not the other way") {
  static_assert(std::is_convertible_v<tensor_view<float>, tensor_view<const float>>, "");
  static_assert(!std::is_convertible_v<tensor_view<const float>, tensor_view<float>>, "");
  static_assert(!std::is_convertible_v<tensor_view<float>, tensor_view<const double>>, "");
  float data[12] = {};
  const tensor_view<float> v(data + 11, {3, 4}, {-4, -1});
  const tensor_view<const float> c = v;
  CHECK(c.data() == data + 11);
  REQUIRE(c.rank() == 2);
  CHECK(c.extent(0) == 3);
  CHECK(c.extent(1) == 4);
  CHECK(c.stride(0) == -4);
  CHECK(c.stride(1) == -1);
}

TEST_CASE("the mutable-input overloads") {
  std::vector<std::int64_t> x = {1, 2, 3, 4, 5, 6};
  std::vector<std::int64_t> y(6, 0);
  const tensor_view<std::int64_t> in(x.data(), {2, 3}), out(y.data(), {2, 3});
  tally::cumsum(in, out, -1);  // tensor_view<T> input: no tensor_view<const T> to deduce from
  CHECK(y == std::vector<std::int64_t>{1, 3, 6, 4, 9, 15});
  tally::cumprod(in, out, 0, {axis_direction::decreasing, false});
  CHECK(y == std::vector<std::int64_t>{4, 10, 18, 4, 5, 6});
  tally::cumsum(out, out, 1);  // in place through the same overload
  CHECK(y == std::vector<std::int64_t>{4, 14, 32, 4, 9, 15});
}

TEMPLATE_TEST_CASE("overlapping input and output give the result of scanning a copy", "", std::int32_t, float,
                   double, std::int8_t, std::uint16_t, std::int64_t) {
  using T = TestType;

  SECTION("in place (the same elements)") {
    std::vector<T> buffer = small_values<T>(12);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {3, 4}), tensor_view<T>(buffer.data(), {3, 4}));
  }
  SECTION("out = in shifted forward by one element") {
    std::vector<T> buffer = small_values<T>(13);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {13 - 1}), tensor_view<T>(buffer.data() + 1, {12}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {3, 4}), tensor_view<T>(buffer.data() + 1, {3, 4}));
  }
  SECTION("out = in shifted back by one element") {
    std::vector<T> buffer = small_values<T>(13);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data() + 1, {12}), tensor_view<T>(buffer.data(), {12}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data() + 1, {3, 4}), tensor_view<T>(buffer.data(), {3, 4}));
  }
  SECTION("out = in shifted by one row of a lattice whose stride is not a power of two") {
    // Strides 15 and 3 (common divisor 3): out(i, j) is in(i, j + 1). A modulo test on the
    // base addresses must see that a shift of 3 elements keeps the lattices on each other.
    std::vector<T> buffer = small_values<T>(64);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {4, 5}, {15, 3}),
                     tensor_view<T>(buffer.data() + 3, {4, 5}, {15, 3}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data() + 3, {4, 5}, {15, 3}),
                     tensor_view<T>(buffer.data(), {4, 5}, {15, 3}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data() + 45, {4, 5}, {-15, 3}),
                     tensor_view<T>(buffer.data() + 48, {4, 5}, {-15, 3}));
  }
  SECTION("lattices shifted by one element (disjoint though interleaved)") {
    std::vector<T> buffer = small_values<T>(64);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data() + 46, {4, 5}, {-15, 3}),
                     tensor_view<T>(buffer.data() + 47, {4, 5}, {-15, 3}));
  }
  SECTION("out = reversed in") {
    std::vector<T> buffer = small_values<T>(12);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {12}), tensor_view<T>(buffer.data() + 11, {12}, {-1}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {3, 4}),
                     tensor_view<T>(buffer.data() + 3, {3, 4}, {4, -1}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {3, 4}),
                     tensor_view<T>(buffer.data() + 11, {3, 4}, {-4, -1}));
  }
  SECTION("out = transposed in (square)") {
    std::vector<T> buffer = small_values<T>(25);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {5, 5}), tensor_view<T>(buffer.data(), {5, 5}, {1, 5}));
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {5, 5}, {1, 5}), tensor_view<T>(buffer.data(), {5, 5}));
  }
  SECTION("partially overlapping 2-D views") {
    std::vector<T> buffer = small_values<T>(64);  // an 8x8 matrix
    // in: rows 0..4, columns 0..4; out: rows 2..6, columns 1..5.
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {5, 5}, {8, 1}),
                     tensor_view<T>(buffer.data() + 2 * 8 + 1, {5, 5}, {8, 1}));
    // out: every other column from column 1, overlapping in's odd columns only.
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {4, 4}, {8, 1}),
                     tensor_view<T>(buffer.data() + 1, {4, 4}, {8, 2}));
    // out transposed and shifted into in's lower-right corner.
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {5, 5}, {8, 1}),
                     tensor_view<T>(buffer.data() + 3 * 8 + 3, {5, 5}, {1, 8}));
  }
  SECTION("disjoint lattices in one buffer (even and odd elements) need no staging and stay correct") {
    std::vector<T> buffer = small_values<T>(24);
    check_overlap<T>(buffer, tensor_view<const T>(buffer.data(), {3, 4}, {8, 2}),
                     tensor_view<T>(buffer.data() + 1, {3, 4}, {8, 2}));
  }
}
