/// @file
/// @brief Eigen interop: `tally::cumsum` / `tally::cumprod` directly on Eigen's Tensor,
/// TensorFixedSize and TensorMap (row- and column-major), and on Matrix, Array, Map (with
/// inner/outer strides), Block, Ref and Transpose. The only tally header that includes Eigen.
///
/// Axis numbering is Eigen's own: for a tensor, `axis` is Eigen's dimension index whatever
/// the layout, so `tally::cumsum(t, axis)` equals `t.cumsum(axis)`; for a matrix or array,
/// axis 0 scans down each column (the row index varies, like NumPy's axis 0 and Eigen's
/// `colwise()`), axis 1 along each row. Negative axes count from the back.
#pragma once

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include <cstddef>
#include <type_traits>

#include "tally.hpp"

TALLY_BEGIN_NAMESPACE

namespace eigen {

/// tally's element type for an Eigen scalar type S: `Eigen::half` becomes `tally::half`
/// (both are IEEE binary16 bits, so the storage is reinterpreted, never converted); every
/// other type stays itself. A const S gives a const element.
template <class S>
struct element {
  using type = S;  ///< S itself
};
/// Eigen::half is stored as binary16 bits, exactly like tally::half.
template <>
struct element<Eigen::half> {
  using type = half;  ///< tally::half
};
/// Read-only Eigen::half storage.
template <>
struct element<const Eigen::half> {
  using type = const half;  ///< const tally::half
};
/// Shorthand for `element<S>::type`.
template <class S>
using element_t = typename element<S>::type;

namespace detail {

// The reinterpretation of Eigen::half storage as tally::half is sound only if both are
// 16 bits of the same alignment with nothing else in them.
static_assert(sizeof(Eigen::half) == sizeof(half) && alignof(Eigen::half) == alignof(half),
              "Eigen::half and tally::half must have the same size and alignment");
static_assert(std::is_trivially_copyable_v<Eigen::half> && std::is_standard_layout_v<Eigen::half>,
              "Eigen::half must be plain binary16 storage");

template <class X>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<X>>;

// Eigen's base classes identify its objects; deducing through a pointer conversion finds
// the base without instantiating anything for non-Eigen types. Tensors derive from
// TensorBase<D, ReadOnlyAccessors> exactly once (the write-access base derives from it).
template <class D>
std::true_type derives_from_tensor_base(const Eigen::TensorBase<D, Eigen::ReadOnlyAccessors>*);
std::false_type derives_from_tensor_base(...);
template <class D>
std::true_type derives_from_dense_base(const Eigen::DenseBase<D>*);
std::false_type derives_from_dense_base(...);
template <class D>
std::true_type derives_from_plain_object(const Eigen::PlainObjectBase<D>*);
std::false_type derives_from_plain_object(...);

template <class X>
inline constexpr bool is_tensor_expression_v =
    decltype(derives_from_tensor_base(static_cast<const X*>(nullptr)))::value;
template <class X>
inline constexpr bool is_dense_expression_v = decltype(derives_from_dense_base(static_cast<const X*>(nullptr)))::value;

/// Tensor kinds with storage that tally can address: Tensor, TensorFixedSize, and a
/// TensorMap of either. `plain` is the owning type a returning scan gives back.
template <class X>
struct tensor_traits {
  static constexpr bool supported = false;
  static constexpr bool owns_storage = false;
};
template <class S, int N, int O, class I>
struct tensor_traits<Eigen::Tensor<S, N, O, I>> {
  static constexpr bool supported = true;
  static constexpr bool owns_storage = true;
  using plain = Eigen::Tensor<S, N, O, I>;
  template <class X>
  static void size_like(plain& out, const X& like) {
    out.resize(like.dimensions());
  }
};
template <class S, class Dims, int O, class I>
struct tensor_traits<Eigen::TensorFixedSize<S, Dims, O, I>> {
  static constexpr bool supported = true;
  static constexpr bool owns_storage = true;
  using plain = Eigen::TensorFixedSize<S, Dims, O, I>;
  template <class X>
  static void size_like(plain&, const X&) {}  // the sizes are part of the type
};
template <class P, int O, template <class> class MakePointer>
struct tensor_traits<Eigen::TensorMap<P, O, MakePointer>> : tensor_traits<std::remove_const_t<P>> {
  static constexpr bool owns_storage = false;
};

template <class X>
inline constexpr bool owns_storage_v =
    tensor_traits<X>::owns_storage || decltype(derives_from_plain_object(static_cast<const X*>(nullptr)))::value;

/// The pointer Eigen hands out, as a pointer to tally's element type.
template <class S>
element_t<S>* element_pointer(S* p) noexcept {
  return reinterpret_cast<element_t<S>*>(p);
}

template <class X>
auto tensor_view_of(X& x) {
  using D = std::remove_const_t<X>;
  static_assert(tensor_traits<D>::supported,
                "tally::eigen: this tensor expression has no storage of its own; evaluate it into an "
                "Eigen::Tensor first (TensorRef and lazy expressions are not addressable)");
  using pointer = decltype(x.data());
  static_assert(std::is_pointer_v<pointer>, "tally::eigen: a TensorMap with a custom MakePointer is not supported");
  using E = element_t<std::remove_pointer_t<pointer>>;
  constexpr std::size_t rank = static_cast<std::size_t>(D::NumIndices);
  static_assert(rank >= 1 && rank <= tensor_view<E>::max_rank, "tally scans tensors of rank 1 to 8");
  std::size_t sizes[tensor_view<E>::max_rank] = {};
  std::ptrdiff_t strides[tensor_view<E>::max_rank] = {};
  for (std::size_t d = 0; d < rank; ++d) sizes[d] = static_cast<std::size_t>(x.dimension(static_cast<Eigen::Index>(d)));
  // Packed in Eigen's order: the last dimension is contiguous in a row-major tensor, the
  // first in a column-major one. Dimensions keep Eigen's numbering either way.
  std::ptrdiff_t stride = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t d = static_cast<int>(D::Layout) == static_cast<int>(Eigen::RowMajor) ? rank - 1 - i : i;
    strides[d] = stride;
    // A size 0 would make later strides 0; an empty tensor has no addresses, but keep the
    // strides distinct so no overlap check reads it as one address for many elements.
    stride *= static_cast<std::ptrdiff_t>(sizes[d] > 0 ? sizes[d] : 1);
  }
  return tensor_view<E>(element_pointer(x.data()), rank, sizes, strides);
}

template <class X>
auto dense_view_of(X& x) {
  using D = std::remove_const_t<X>;
  static_assert((static_cast<unsigned>(D::Flags) & Eigen::DirectAccessBit) != 0,
                "tally::eigen: this Eigen expression has no direct access to storage; evaluate it first "
                "(.eval()) or scan a Matrix, Array, Map, Block, Ref or Transpose of one");
  using E = element_t<std::remove_pointer_t<decltype(x.data())>>;
  // rowStride()/colStride() already resolve inner/outer strides through the storage order,
  // including the vector cases where Eigen flips IsRowMajor.
  const std::size_t sizes[2] = {static_cast<std::size_t>(x.rows()), static_cast<std::size_t>(x.cols())};
  std::ptrdiff_t strides[2] = {static_cast<std::ptrdiff_t>(x.rowStride()), static_cast<std::ptrdiff_t>(x.colStride())};
  // An empty matrix reports an outer stride of 0 (e.g. 0 rows, column-major); it has no
  // addresses, so give it packed strides rather than one an overlap check would refuse.
  if (sizes[0] == 0 || sizes[1] == 0) {
    strides[0] = static_cast<std::ptrdiff_t>(sizes[1] > 0 ? sizes[1] : 1);
    strides[1] = 1;
  }
  return tensor_view<E>(element_pointer(x.data()), 2, sizes, strides);
}

template <class X>
auto view_of(X& x) {
  if constexpr (is_tensor_expression_v<std::remove_const_t<X>>)
    return tensor_view_of(x);
  else
    return dense_view_of(x);
}

template <bool product, class In, class Out>
void scan_into(const In& in, Out& out, int axis, const scan_options& options) {
  const auto in_view = view_of(in);
  const auto out_view = view_of(out);
  using T = typename decltype(out_view)::element_type;
  static_assert(!std::is_const_v<T>,
                "tally::eigen: the output is read-only (a const object, a Map of const data, or a block of one)");
  static_assert(std::is_same_v<typename decltype(in_view)::value_type, T>,
                "tally::eigen: the input and output scalar types differ");
  const tensor_view<const T> input(in_view);
  if constexpr (product)
    ::tally::cumprod<T>(input, out_view, axis, options);
  else
    ::tally::cumsum<T>(input, out_view, axis, options);
}

/// The owning type a returning scan gives back for In.
template <class In, bool = is_tensor_expression_v<In>>
struct plain_of {
  using type = typename tensor_traits<In>::plain;
};
template <class In>
struct plain_of<In, false> {
  using type = typename In::PlainObject;
};

/// Sizes `out` like `in`. The object is built first and sized afterwards so that it is
/// never copied or moved before the scan writes it (fixed sizes are uninitialized until then).
template <class Out, class In>
void size_like(Out& out, const In& in) {
  if constexpr (is_tensor_expression_v<In>) {
    tensor_traits<In>::size_like(out, in);
  } else {
    // resize, not the (rows, cols) constructor: for a fixed 2-vector that one sets coefficients.
    out.resize(in.rows(), in.cols());
  }
}

}  // namespace detail

/// True for a type that names an Eigen object or expression (dense or tensor); the scan
/// overloads below accept only these, and tell at compile time when one has no storage.
template <class X>
inline constexpr bool is_eigen_v =
    detail::is_tensor_expression_v<detail::remove_cvref_t<X>> || detail::is_dense_expression_v<detail::remove_cvref_t<X>>;

/// A tally::tensor_view of an Eigen object's storage: the tensor's dimensions in Eigen's
/// numbering with strides from its layout, or a matrix's (rows, cols) with its row and
/// column strides. The element type is `element_t` of the scalar, const when `x` is
/// read-only. Refuses a temporary that owns its storage (the view would dangle).
template <class X, std::enable_if_t<is_eigen_v<X>, int> = 0>
auto view(X&& x) {
  static_assert(!(std::is_rvalue_reference_v<X&&> && detail::owns_storage_v<detail::remove_cvref_t<X>>),
                "tally::eigen::view: the argument is a temporary Tensor/Matrix/Array; the view would dangle");
  return detail::view_of(x);
}

/// Cumulative sum of `in` along `axis` into `out` (any Eigen object with storage of the
/// same scalar type and sizes, e.g. a Block of a bigger matrix; the rest stays untouched).
/// `out` may be `in` itself or overlap it. Throws tally::error on a bad axis or sizes.
template <class In, class Out, std::enable_if_t<is_eigen_v<In> && is_eigen_v<Out>, int> = 0>
void cumsum(const In& in, Out&& out, int axis, scan_options options = {}) {
  detail::scan_into<false>(in, out, axis, options);
}

/// Cumulative product of `in` along `axis` into `out`; see cumsum.
template <class In, class Out, std::enable_if_t<is_eigen_v<In> && is_eigen_v<Out>, int> = 0>
void cumprod(const In& in, Out&& out, int axis, scan_options options = {}) {
  detail::scan_into<true>(in, out, axis, options);
}

/// Cumulative sum of `in` along `axis`, returned as a new plain object of the input's
/// kind: an Eigen::Tensor (or TensorFixedSize) of the same layout for tensors and maps,
/// `In::PlainObject` (a Matrix or Array of the same storage order) for dense objects.
template <class In, std::enable_if_t<is_eigen_v<In>, int> = 0>
[[nodiscard]] auto cumsum(const In& in, int axis, scan_options options = {}) {
  typename detail::plain_of<In>::type out;
  detail::size_like(out, in);
  detail::scan_into<false>(in, out, axis, options);
  return out;
}

/// Cumulative product of `in` along `axis`, returned as a new plain object; see cumsum.
template <class In, std::enable_if_t<is_eigen_v<In>, int> = 0>
[[nodiscard]] auto cumprod(const In& in, int axis, scan_options options = {}) {
  typename detail::plain_of<In>::type out;
  detail::size_like(out, in);
  detail::scan_into<true>(in, out, axis, options);
  return out;
}

}  // namespace eigen

// `tally::cumsum(eigen_object, ...)` works as well: the Eigen overloads are constrained to
// Eigen types, so they never compete with the tensor_view ones.
using eigen::cumprod;
using eigen::cumsum;

TALLY_END_NAMESPACE
