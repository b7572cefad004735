// include/tally/eigen.hpp against Eigen's own Tensor cumsum/cumprod (a sequential scan,
// reversed through .reverse() for the decreasing direction). Data are small integers so
// that every type, float16 included, gives exact results in any summation order; one
// test uses non-integer floats with an error bound instead.
#include <tally/eigen.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"

namespace {

using Eigen::Index;
template <class S>
using matrix_t = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <class S>
using row_major_matrix_t = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class S>
double as_double(S v) {
  if constexpr (std::is_same_v<S, Eigen::half>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

/// One scan to check: which operator, axis (possibly negative), and options.
struct scan_case {
  bool product;
  int axis;
  bool exclusive;
  bool reverse;

  tally::scan_options options(unsigned threads = 1) const {
    tally::scan_options o;
    o.direction = reverse ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    o.exclusive = exclusive;
    o.threads = threads;
    return o;
  }
  std::string describe() const {
    std::ostringstream s;
    s << (product ? "cumprod" : "cumsum") << " axis " << axis << (exclusive ? " exclusive" : "")
      << (reverse ? " decreasing" : "");
    return s.str();
  }
};

/// Every axis (alternately written as a negative one), both operators, all four modes.
std::vector<scan_case> all_cases(int rank, bool product) {
  std::vector<scan_case> cases;
  for (int axis = 0; axis < rank; ++axis)
    for (int mode = 0; mode < 4; ++mode)
      cases.push_back({product, (axis + mode) % 2 ? axis - rank : axis, (mode & 1) != 0, (mode & 2) != 0});
  return cases;
}

/// Small integers: sums stay tiny, and products of lines up to 9 long stay below 2^11, so
/// float16 is exact too. Products draw 0 rarely so that most lines keep growing.
template <class S>
S draw(std::mt19937& rng, bool product) {
  static const int sum_values[] = {-3, -2, -1, 0, 1, 2, 3};
  static const int product_values[] = {-2, -1, 1, 2, -2, -1, 1, 2, 0};
  const int v = product ? product_values[rng() % 9] : sum_values[rng() % 7];
  return static_cast<S>(v);
}

/// Eigen's own scan of a tensor: decreasing direction by reversing the axis before and after.
template <class S, int N, int L>
Eigen::Tensor<S, N, L> eigen_reference(const Eigen::Tensor<S, N, L>& t, const scan_case& c) {
  const int axis = c.axis < 0 ? c.axis + N : c.axis;
  Eigen::array<bool, N> rev;
  rev.fill(false);
  rev[axis] = c.reverse;
  Eigen::Tensor<S, N, L> r;
  if (c.product)
    r = t.reverse(rev).cumprod(axis, c.exclusive).reverse(rev);
  else
    r = t.reverse(rev).cumsum(axis, c.exclusive).reverse(rev);
  return r;
}

/// Eigen's scan of a matrix: the same data seen as a column-major rank-2 tensor, whose
/// dimension 0 is the row index as for the matrix.
template <class S>
matrix_t<S> eigen_reference(const matrix_t<S>& m, const scan_case& c) {
  const Eigen::Tensor<S, 2> t = Eigen::TensorMap<const Eigen::Tensor<S, 2>>(m.data(), m.rows(), m.cols());
  const Eigen::Tensor<S, 2> r = eigen_reference(t, c);
  return Eigen::Map<const matrix_t<S>>(r.data(), m.rows(), m.cols());
}

template <class S>
void require_same_elements(const S* expected, const S* got, Index count) {
  Index mismatches = 0;
  std::string first;
  for (Index i = 0; i < count; ++i)
    if (as_double(expected[i]) != as_double(got[i]) && mismatches++ == 0) {
      std::ostringstream s;
      s << "at linear index " << i << ": expected " << as_double(expected[i]) << ", got " << as_double(got[i]);
      first = s.str();
    }
  INFO("first mismatch " << first);
  REQUIRE(mismatches == 0);
}

template <class A, class B>
void require_same_matrix(const A& expected, const B& got) {
  REQUIRE(got.rows() == expected.rows());
  REQUIRE(got.cols() == expected.cols());
  Index mismatches = 0;
  std::string first;
  for (Index j = 0; j < got.cols(); ++j)
    for (Index i = 0; i < got.rows(); ++i)
      if (as_double(expected(i, j)) != as_double(got(i, j)) && mismatches++ == 0) {
        std::ostringstream s;
        s << "(" << i << ", " << j << "): expected " << as_double(expected(i, j)) << ", got " << as_double(got(i, j));
        first = s.str();
      }
  INFO("first mismatch " << first);
  REQUIRE(mismatches == 0);
}

template <class In, class Out>
void scan_into(const scan_case& c, const In& in, Out&& out, unsigned threads = 1) {
  if (c.product)
    tally::cumprod(in, std::forward<Out>(out), c.axis, c.options(threads));
  else
    tally::cumsum(in, std::forward<Out>(out), c.axis, c.options(threads));
}

template <class In>
auto scan_returning(const scan_case& c, const In& in) {
  return c.product ? tally::eigen::cumprod(in, c.axis, c.options()) : tally::eigen::cumsum(in, c.axis, c.options());
}

// ---------------------------------------------------------------------------------------
// Tensors

template <class S, int N, int L>
void check_tensor(const std::array<Index, N>& dims, std::mt19937& rng) {
  using tensor = Eigen::Tensor<S, N, L>;
  for (const bool product : {false, true}) {
    tensor t(dims);
    for (Index i = 0; i < t.size(); ++i) t.data()[i] = draw<S>(rng, product);
    const Index size = t.size();
    for (const scan_case& c : all_cases(N, product)) {
      INFO(c.describe());
      const tensor expected = eigen_reference(t, c);

      tensor out(dims);
      out.setConstant(static_cast<S>(99));
      scan_into(c, t, out);
      require_same_elements(expected.data(), out.data(), size);

      const auto returned = scan_returning(c, t);
      static_assert(std::is_same_v<std::remove_const_t<decltype(returned)>, tensor>,
                    "a scan of a Tensor returns the same Tensor type");
      require_same_elements(expected.data(), returned.data(), size);

      // Maps over plain buffers, read-only input; and the returning form of a map.
      const std::vector<S> in_buffer(t.data(), t.data() + size);
      std::vector<S> out_buffer(static_cast<std::size_t>(size), static_cast<S>(99));
      const Eigen::TensorMap<const tensor> in_map(in_buffer.data(), dims);
      scan_into(c, in_map, Eigen::TensorMap<tensor>(out_buffer.data(), dims), 2);
      require_same_elements(expected.data(), out_buffer.data(), size);
      const auto from_map = scan_returning(c, in_map);
      static_assert(std::is_same_v<std::remove_const_t<decltype(from_map)>, tensor>,
                    "a scan of a TensorMap returns the mapped Tensor type");
      require_same_elements(expected.data(), from_map.data(), size);

      // In place.
      tensor in_place = t;
      scan_into(c, in_place, in_place);
      require_same_elements(expected.data(), in_place.data(), size);
    }
  }
}

template <class S, int L>
void check_tensor_ranks() {
  std::mt19937 rng(L == Eigen::RowMajor ? 17 : 29);
  check_tensor<S, 1, L>({9}, rng);
  check_tensor<S, 2, L>({4, 5}, rng);
  check_tensor<S, 3, L>({3, 1, 4}, rng);
  check_tensor<S, 4, L>({2, 3, 2, 5}, rng);
}

}  // namespace

TEMPLATE_TEST_CASE("Eigen tensors of rank 1 to 4 match Eigen's cumsum and cumprod", "[eigen]", float, double, int,
                   Eigen::half) {
  SECTION("column-major") { check_tensor_ranks<TestType, Eigen::ColMajor>(); }
  SECTION("row-major") { check_tensor_ranks<TestType, Eigen::RowMajor>(); }
}

TEST_CASE("tally::eigen::view addresses the same elements as Eigen", "[eigen]") {
  Eigen::Tensor<float, 3> col(2, 3, 4);
  Eigen::Tensor<float, 3, Eigen::RowMajor> row(2, 3, 4);
  const auto vc = tally::eigen::view(col);
  const auto vr = tally::eigen::view(row);
  static_assert(std::is_same_v<decltype(vc), const tally::tensor_view<float>>, "mutable tensor, mutable view");
  REQUIRE(vc.rank() == 3);
  REQUIRE(vr.rank() == 3);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 3; ++j)
      for (Index k = 0; k < 4; ++k) {
        CHECK(&vc(i, j, k) == &col(i, j, k));
        CHECK(&vr(i, j, k) == &row(i, j, k));
      }
  REQUIRE(vc.extent(0) == 2);
  REQUIRE(vc.extent(2) == 4);

  const Eigen::Tensor<float, 3>& const_col = col;
  static_assert(std::is_same_v<decltype(tally::eigen::view(const_col)), tally::tensor_view<const float>>,
                "a const tensor gives a read-only view");

  Eigen::MatrixXd m(7, 6);
  const auto block = m.block(1, 2, 4, 3);
  const auto vb = tally::eigen::view(block);
  const auto vt = tally::eigen::view(m.transpose());
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> strided(
      m.data(), 3, 2, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(14, 2));
  const auto vs = tally::eigen::view(strided);
  for (Index i = 0; i < 4; ++i)
    for (Index j = 0; j < 3; ++j) CHECK(&vb(i, j) == &block(i, j));
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 7; ++j) CHECK(&vt(i, j) == &m(j, i));
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 2; ++j) CHECK(&vs(i, j) == &strided(i, j));
}

TEST_CASE("Eigen::half storage is seen as tally::half with the same bits", "[eigen]") {
  Eigen::Tensor<Eigen::half, 1> t(4);
  t(0) = Eigen::half(1.5f);
  t(1) = Eigen::half(-0.0f);
  t(2) = Eigen::half(65504.0f);
  t(3) = Eigen::half(std::numeric_limits<float>::infinity());
  const auto v = tally::eigen::view(t);
  static_assert(std::is_same_v<decltype(v), const tally::tensor_view<tally::half>>, "Eigen::half -> tally::half");
  for (Index i = 0; i < 4; ++i) {
    std::uint16_t eigen_bits;
    std::memcpy(&eigen_bits, &t(i), sizeof eigen_bits);
    CHECK(v(i).bits == eigen_bits);
    CHECK(static_cast<float>(v(i)) == static_cast<float>(t(i)));
  }
}

// ---------------------------------------------------------------------------------------
// Matrices, arrays, maps, blocks

TEMPLATE_TEST_CASE("Eigen matrices and arrays of both storage orders", "[eigen]", float, double, int, Eigen::half) {
  using S = TestType;
  std::mt19937 rng(5);
  for (const bool product : {false, true}) {
    matrix_t<S> m(6, 7);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = draw<S>(rng, product);
    const row_major_matrix_t<S> r = m;
    const Eigen::Array<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a = m.array();
    for (const scan_case& c : all_cases(2, product)) {
      INFO(c.describe());
      const matrix_t<S> expected = eigen_reference(m, c);

      matrix_t<S> out = matrix_t<S>::Constant(6, 7, static_cast<S>(99));
      scan_into(c, m, out);
      require_same_matrix(expected, out);
      row_major_matrix_t<S> out_r = row_major_matrix_t<S>::Constant(6, 7, static_cast<S>(99));
      scan_into(c, r, out_r);
      require_same_matrix(expected, out_r);
      // Across storage orders: only the elements' positions matter.
      scan_into(c, r, out, 2);
      require_same_matrix(expected, out);

      const auto returned = scan_returning(c, r);
      static_assert(std::is_same_v<std::remove_const_t<decltype(returned)>, row_major_matrix_t<S>>,
                    "a row-major matrix gives a row-major matrix");
      require_same_matrix(expected, returned);
      const auto returned_array = scan_returning(c, a);
      static_assert(std::is_same_v<std::remove_const_t<decltype(returned_array)>, std::remove_const_t<decltype(a)>>,
                    "an array gives an array");
      require_same_matrix(expected, returned_array);

      matrix_t<S> in_place = m;
      scan_into(c, in_place, in_place);
      require_same_matrix(expected, in_place);
    }
  }
}

TEMPLATE_TEST_CASE("Eigen maps with inner, outer and general strides", "[eigen]", float, double, int, Eigen::half) {
  using S = TestType;
  using dynamic_stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  const S sentinel = static_cast<S>(77);
  std::mt19937 rng(11);
  for (const bool product : {false, true}) {
    // A 5x4 column-major matrix every other element of a buffer (inner stride 2, outer 11).
    std::vector<S> in_buffer(64, sentinel);
    Eigen::Map<matrix_t<S>, 0, dynamic_stride> in(in_buffer.data(), 5, 4, dynamic_stride(11, 2));
    for (Index j = 0; j < 4; ++j)
      for (Index i = 0; i < 5; ++i) in(i, j) = draw<S>(rng, product);
    const matrix_t<S> plain = in;

    for (const scan_case& c : all_cases(2, product)) {
      INFO(c.describe());
      const matrix_t<S> expected = eigen_reference(plain, c);
      {  // Output: row-major with an inner stride.
        std::vector<S> buffer(64, sentinel);
        Eigen::Map<row_major_matrix_t<S>, 0, Eigen::InnerStride<3>> out(buffer.data(), 5, 4);
        scan_into(c, Eigen::Map<const matrix_t<S>, 0, dynamic_stride>(in_buffer.data(), 5, 4, dynamic_stride(11, 2)),
                  out);
        require_same_matrix(expected, out);
        // Every element the map does not cover is untouched.
        std::vector<bool> covered(buffer.size(), false);
        for (Index i = 0; i < 5; ++i)
          for (Index j = 0; j < 4; ++j) covered[static_cast<std::size_t>(&out(i, j) - buffer.data())] = true;
        for (std::size_t k = 0; k < buffer.size(); ++k)
          if (!covered[k]) REQUIRE(as_double(buffer[k]) == as_double(sentinel));
      }
      {  // Output: column-major with an outer stride (a padded leading dimension).
        std::vector<S> buffer(64, sentinel);
        Eigen::Map<matrix_t<S>, 0, Eigen::OuterStride<>> out(buffer.data(), 5, 4, Eigen::OuterStride<>(8));
        scan_into(c, in, out);
        require_same_matrix(expected, out);
        for (Index j = 0; j < 4; ++j)
          for (Index k = 5; k < 8; ++k) REQUIRE(as_double(buffer[static_cast<std::size_t>(j * 8 + k)]) == 77.0);
      }
      const auto returned = scan_returning(c, in);
      static_assert(std::is_same_v<std::remove_const_t<decltype(returned)>, matrix_t<S>>, "a map gives its matrix");
      require_same_matrix(expected, returned);
    }
  }
}

TEMPLATE_TEST_CASE("Eigen blocks: reading from one and writing into one leaves the rest untouched", "[eigen]", float,
                   double, int, Eigen::half) {
  using S = TestType;
  const S sentinel = static_cast<S>(55);
  std::mt19937 rng(23);
  for (const bool product : {false, true}) {
    matrix_t<S> source(8, 9);
    for (Index i = 0; i < source.size(); ++i) source.data()[i] = draw<S>(rng, product);
    const matrix_t<S> block_values = source.block(1, 2, 4, 5);
    for (const scan_case& c : all_cases(2, product)) {
      INFO(c.describe());
      const matrix_t<S> expected = eigen_reference(block_values, c);

      row_major_matrix_t<S> target = row_major_matrix_t<S>::Constant(7, 10, sentinel);
      scan_into(c, source.block(1, 2, 4, 5), target.block(2, 3, 4, 5));
      require_same_matrix(expected, target.block(2, 3, 4, 5));
      for (Index i = 0; i < 7; ++i)
        for (Index j = 0; j < 10; ++j)
          if (i < 2 || i >= 6 || j < 3 || j >= 8) REQUIRE(as_double(target(i, j)) == 55.0);

      // A block of a map, scanned in place inside the bigger matrix.
      matrix_t<S> copy = source;
      Eigen::Map<matrix_t<S>> map(copy.data(), 8, 9);
      scan_into(c, map.block(1, 2, 4, 5), map.block(1, 2, 4, 5));
      require_same_matrix(expected, copy.block(1, 2, 4, 5));
      copy.block(1, 2, 4, 5) = source.block(1, 2, 4, 5);
      require_same_matrix(source, copy);

      const auto returned = scan_returning(c, source.block(1, 2, 4, 5));
      require_same_matrix(expected, returned);
    }
    // Rows and columns are 1xN and Nx1 blocks; a row of a column-major matrix is strided.
    const scan_case along_row{product, 1, false, false}, down_column{product, 0, true, true};
    matrix_t<S> out = matrix_t<S>::Constant(8, 9, sentinel);
    scan_into(along_row, source.row(3), out.row(5));
    require_same_matrix(eigen_reference(matrix_t<S>(source.row(3)), along_row), out.row(5));
    scan_into(down_column, source.col(4), out.col(1));
    require_same_matrix(eigen_reference(matrix_t<S>(source.col(4)), down_column), out.col(1));
    const auto transposed = scan_returning(along_row, source.transpose());
    require_same_matrix(eigen_reference(matrix_t<S>(source.transpose()), along_row), transposed);
  }
}

TEST_CASE("fixed-size Eigen objects", "[eigen]") {
  const Eigen::Vector2i v(3, 4);
  const Eigen::Vector2i s = tally::eigen::cumsum(v, 0);
  CHECK(s(0) == 3);
  CHECK(s(1) == 7);
  const Eigen::Vector2i along_cols = tally::eigen::cumsum(v, -1);  // a column vector's axis 1 has size 1
  CHECK(along_cols == v);

  Eigen::TensorFixedSize<double, Eigen::Sizes<2, 3>> t;
  t.setValues({{1, 2, 3}, {4, 5, 6}});
  const auto p = tally::eigen::cumprod(t, 1);
  static_assert(std::is_same_v<std::remove_const_t<decltype(p)>, decltype(t)>, "fixed size stays fixed size");
  // Eigen 3.4's scan of a TensorFixedSize itself crashes: scan the same data as a Tensor.
  const Eigen::TensorMap<const Eigen::Tensor<double, 2>> as_dynamic(t.data(), 2, 3);
  const Eigen::Tensor<double, 2> expected = as_dynamic.cumprod(1);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 3; ++j) CHECK(p(i, j) == expected(i, j));
}

TEST_CASE("long lines and several threads through the Eigen front door", "[eigen]") {
  std::mt19937 rng(99);
  SECTION("integer-valued float, exact") {
    Eigen::Tensor<float, 2, Eigen::RowMajor> t(3, 10000);
    for (Index i = 0; i < t.size(); ++i) t.data()[i] = draw<float>(rng, false);
    for (const unsigned threads : {1u, 2u})
      for (const scan_case& c : all_cases(2, false)) {
        INFO(c.describe() << ", threads " << threads);
        Eigen::Tensor<float, 2, Eigen::RowMajor> out(3, 10000);
        scan_into(c, t, out, threads);
        const Eigen::Tensor<float, 2, Eigen::RowMajor> expected = eigen_reference(t, c);
        require_same_elements(expected.data(), out.data(), t.size());
      }
  }
  SECTION("non-integer double and float, within n * eps * sum|x|") {
    Eigen::Tensor<double, 2> td(5000, 3);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (Index i = 0; i < td.size(); ++i) td.data()[i] = uniform(rng);
    const Eigen::Tensor<float, 2> tf = td.cast<float>();
    const Eigen::Tensor<double, 2> exact = td.cumsum(0);  // double reference for both
    const Eigen::Tensor<double, 2> abs_sums = td.abs().cumsum(0);
    const Eigen::Tensor<float, 2> got_f = tally::eigen::cumsum(tf, 0, {tally::axis_direction::increasing, false, 2});
    const Eigen::Tensor<double, 2> got_d = tally::eigen::cumsum(td, -2);
    const Eigen::Tensor<double, 2> tf_in_double = tf.cast<double>();
    const Eigen::Tensor<double, 2> exact_f = tf_in_double.cumsum(0);
    const Eigen::Tensor<double, 2> abs_f = tf_in_double.abs().cumsum(0);
    Index bad = 0;
    for (Index j = 0; j < 3; ++j)
      for (Index i = 0; i < 5000; ++i) {
        const double n = static_cast<double>(i + 1);
        if (std::abs(got_d(i, j) - exact(i, j)) > n * std::numeric_limits<double>::epsilon() * abs_sums(i, j)) ++bad;
        if (std::abs(static_cast<double>(got_f(i, j)) - exact_f(i, j)) >
            n * std::numeric_limits<float>::epsilon() * abs_f(i, j))
          ++bad;
      }
    REQUIRE(bad == 0);
  }
}

TEST_CASE("invalid Eigen arguments throw tally::error and write nothing", "[eigen]") {
  Eigen::MatrixXf m = Eigen::MatrixXf::Ones(3, 4);
  Eigen::MatrixXf out = Eigen::MatrixXf::Constant(3, 4, 5.0f);
  for (const int axis : {2, -3}) {
    try {
      tally::cumsum(m, out, axis);
      FAIL("no exception for axis " << axis);
    } catch (const tally::error& e) {
      CHECK(e.code() == tally::status_code::invalid_axis);
    }
  }
  Eigen::MatrixXf wrong = Eigen::MatrixXf::Constant(4, 3, 5.0f);
  try {
    tally::eigen::cumprod(m, wrong, 0);
    FAIL("no exception for transposed sizes");
  } catch (const tally::error& e) {
    CHECK(e.code() == tally::status_code::size_mismatch);
  }
  Eigen::Tensor<float, 3> t3(3, 4, 1);
  t3.setZero();
  try {
    tally::cumsum(t3, out, 0);
    FAIL("no exception for a rank mismatch");
  } catch (const tally::error& e) {
    CHECK(e.code() == tally::status_code::dimension_count_mismatch);
  }
  CHECK((out.array() == 5.0f).all());
  CHECK((wrong.array() == 5.0f).all());

  // Empty objects are valid and do nothing.
  const Eigen::MatrixXf empty(0, 4);
  const Eigen::MatrixXf empty_sum = tally::eigen::cumsum(empty, 1);
  CHECK(empty_sum.rows() == 0);
  const Eigen::Tensor<int, 3> empty_tensor(3, 0, 2);
  const Eigen::Tensor<int, 3> empty_product = tally::eigen::cumprod(empty_tensor, 2);
  CHECK(empty_product.dimension(0) == 3);
  CHECK(empty_product.size() == 0);
}

TEST_CASE("the README's Eigen snippet", "[eigen]") {
  // --- README snippet begins ---
  Eigen::Tensor<float, 3, Eigen::RowMajor> t(2, 3, 4);
  t.setRandom();
  Eigen::Tensor<float, 3, Eigen::RowMajor> out(2, 3, 4);
  tally::cumsum(t, out, 1);  // the same as t.cumsum(1)
  auto r = tally::eigen::cumprod(t, -1, {tally::axis_direction::decreasing});  // a new Tensor

  Eigen::MatrixXd m = Eigen::MatrixXd::Random(6, 8);
  Eigen::MatrixXd big = Eigen::MatrixXd::Zero(10, 10);
  tally::cumsum(m.block(1, 2, 4, 5), big.block(3, 3, 4, 5), 0);  // the rest of big stays 0
  Eigen::MatrixXd c = tally::eigen::cumsum(m, 1);                 // axis 1: along each row
  // --- README snippet ends ---

  const Eigen::Tensor<float, 3, Eigen::RowMajor> expected = t.cumsum(1);
  const Eigen::array<bool, 3> rev{{false, false, true}};
  const Eigen::Tensor<float, 3, Eigen::RowMajor> expected_r = t.reverse(rev).cumprod(2).reverse(rev);
  for (Index i = 0; i < t.size(); ++i) {
    CHECK(std::abs(out.data()[i] - expected.data()[i]) <= 4 * std::numeric_limits<float>::epsilon() * 3);
    CHECK(std::abs(r.data()[i] - expected_r.data()[i]) <= 4 * std::numeric_limits<float>::epsilon());
  }
  for (Index i = 0; i < 10; ++i)
    for (Index j = 0; j < 10; ++j) {
      const bool inside = i >= 3 && i < 7 && j >= 3 && j < 8;
      const double want = inside ? m.block(1 + 0, 2 + (j - 3), i - 3 + 1, 1).sum() : 0.0;
      CHECK(std::abs(big(i, j) - want) <= 1e-12);
    }
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 8; ++j) CHECK(std::abs(c(i, j) - m.row(i).head(j + 1).sum()) <= 1e-12);
}
