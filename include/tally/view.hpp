/// @file
/// @brief `tally::tensor_view`: a typed, strided N-D view (strides in elements, as in
/// std::mdspan's layout_stride, but signed so that reversed views are expressible).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "detail/layout/strided_layout.hpp"
#include "status.hpp"

TALLY_BEGIN_NAMESPACE

/// A non-owning view of 0 to 8 dimensions over elements of type T. Strides count
/// elements and may be negative (reversed) or zero (broadcast); without strides the
/// view is packed row-major. Rank 0 with data is a 0-d tensor: one element, which the
/// scans accept with axis 0 or -1 (PyTorch's rule: the output is the input). Constructors
/// throw tally::error for a rank above 8, mismatched size and stride counts, or an extent
/// that overflows 64-bit offsets.
template <class T>
class tensor_view {
 public:
  using element_type = T;                     ///< the element type, const for a read-only view
  using value_type = std::remove_cv_t<T>;     ///< the element type without const
  static constexpr std::size_t max_rank = detail::max_rank;  ///< the most dimensions a view has (8)

  /// No tensor (rank 0, no data): used for "absent", e.g. an optional carry.
  tensor_view() noexcept = default;
  /// A copy, member by member. Defined (as defaulted) outside the class so that it is
  /// user-provided: the C++ ABIs then pass a view argument as the address of the caller's
  /// object instead of copying its 144 bytes. Inlined, GCC copied both views of a small
  /// cumsum with 16-byte loads straddling the constructor's 8-byte stores, which the store
  /// buffer cannot forward (16 floats: 46 -> 41 ns exact, 44 -> 36 ns fast, min of 60 runs).
  tensor_view(const tensor_view&) noexcept;
  /// Assignment, member by member.
  tensor_view& operator=(const tensor_view&) noexcept = default;

  /// Packed row-major.
  tensor_view(T* data, std::initializer_list<std::size_t> sizes)
      : tensor_view(data, sizes.size(), sizes.begin(), nullptr) {}

  /// Strided; one stride per size.
  tensor_view(T* data, std::initializer_list<std::size_t> sizes, std::initializer_list<std::ptrdiff_t> strides)
      : tensor_view(data, sizes.size(), sizes.begin(), strides.begin()) {
    if (strides.size() != sizes.size())
      throw error(status(status_code::dimension_count_mismatch, "tensor_view: %llu sizes but %llu strides",
                         detail::ull(sizes.size()), detail::ull(strides.size())));
  }

  /// Rank known at run time; `strides == nullptr` means packed row-major. Rank 0 (a 0-d
  /// tensor) needs data.
  tensor_view(T* data, std::size_t rank, const std::size_t* sizes, const std::ptrdiff_t* strides = nullptr)
      : data_(data), layout_(detail::strided_layout::make(rank <= max_rank ? rank : 0, sizes, strides)) {
    // The layout is built in place, before the checks: copying a just-written layout
    // stalls on store forwarding, a large part of a small call's cost.
    if (rank > max_rank)
      throw error(status(status_code::invalid_dimension_count, "tensor_view: rank is %llu; it must be 0..%llu",
                         detail::ull(rank), detail::ull(max_rank)));
    if (rank == 0) {
      if (!data) throw error(status(status_code::null_pointer, "tensor_view: the 0-d tensor's data is null"));
      return;
    }
    // A packed layout spans exactly its elements (the sum of (extent - 1) * stride
    // telescopes to the product of the extents), so only a strided one sums its span: the
    // second pass over the dimensions took 4 ns of a 16-float cumsum's 28.
    const detail::checked_u64 count = layout_.checked_count(), span = strides ? layout_.required_span() : count;
    const std::uint64_t limit = static_cast<std::uint64_t>(PTRDIFF_MAX) / sizeof(T);
    if (count.overflow || span.overflow || count.value > limit || span.value > limit)
      throw error(status(status_code::size_overflow, "tensor_view: the sizes and strides overflow 64-bit offsets"));
    if (!data && count.value != 0) throw error(status(status_code::null_pointer, "tensor_view: data is null"));
  }

  /// A view of const elements from a view of mutable ones.
  template <class U, std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
  tensor_view(const tensor_view<U>& other) noexcept
      : data_(other.data()), layout_(detail::strided_layout::make(other.rank(), other.extents(), other.strides())) {}

  /// Pointer to the element at index 0 in every dimension.
  T* data() const noexcept { return data_; }
  /// Number of dimensions: 1..8, or 0 for a 0-d tensor (data() not null) or no tensor.
  std::size_t rank() const noexcept { return layout_.rank; }
  /// True for a 0-d tensor: rank 0 with one element.
  bool is_scalar() const noexcept { return layout_.rank == 0 && data_ != nullptr; }
  /// Size of dimension d.
  std::size_t extent(std::size_t d) const noexcept { return layout_.extents[d]; }
  /// Stride of dimension d, in elements.
  std::ptrdiff_t stride(std::size_t d) const noexcept { return layout_.strides[d]; }
  /// The rank() sizes.
  const std::size_t* extents() const noexcept { return layout_.extents; }
  /// The rank() strides, in elements.
  const std::ptrdiff_t* strides() const noexcept { return layout_.strides; }
  /// Number of elements: 1 for a 0-d tensor, 0 for no tensor.
  std::size_t size() const noexcept { return is_scalar() ? 1 : layout_.count(); }
  /// True when the view has no elements (or is no tensor).
  bool empty() const noexcept { return size() == 0; }

  /// The element at these indices (one per dimension; unchecked).
  template <class... I>
  T& operator()(I... indices) const noexcept {
    static_assert(sizeof...(I) <= max_rank, "too many indices");
    const std::ptrdiff_t index[] = {static_cast<std::ptrdiff_t>(indices)...};
    std::ptrdiff_t offset = 0;
    for (std::size_t d = 0; d < sizeof...(I); ++d) offset += index[d] * layout_.strides[d];
    return data_[offset];
  }

 private:
  T* data_ = nullptr;
  detail::strided_layout layout_;
};

template <class T>
tensor_view<T>::tensor_view(const tensor_view&) noexcept = default;

namespace detail {
/// A 0-d tensor as the rank-1 view of its one element, which every scan handles (axis 0
/// or -1, the output equal to the input); any other view as it is.
template <class T>
tensor_view<T> as_scannable(const tensor_view<T>& v) {
  if (!v.is_scalar()) return v;
  const std::size_t one = 1;
  return tensor_view<T>(v.data(), 1, &one);
}

/// Whether a scan of `in` into `out` is a 0-d scan, run as the rank-1 scan of its one
/// element: a 0-d input with a 0-d output or, with include_initial, a rank-1 output (of
/// two elements). Any other rank mismatch stays one, for the checks to refuse.
template <class T, class U>
bool is_0d_scan(const tensor_view<T>& in, const tensor_view<U>& out, bool include_initial) {
  return in.is_scalar() && (out.is_scalar() || (include_initial && out.rank() == 1));
}
}  // namespace detail

TALLY_END_NAMESPACE
