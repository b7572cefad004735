/// @file
/// @brief `tally::tensor_view`: a typed, strided N-D view (strides in elements, as in
/// std::mdspan's layout_stride, but signed so that reversed views are expressible).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "detail/checked.hpp"
#include "status.hpp"

TALLY_BEGIN_NAMESPACE

/// A non-owning view of 1 to 8 dimensions over elements of type T. Strides count
/// elements and may be negative (reversed) or zero (broadcast); without strides the
/// view is packed row-major. Constructors throw tally::error for a rank outside 1..8,
/// mismatched size and stride counts, or an extent that overflows 64-bit offsets.
template <class T>
class tensor_view {
 public:
  using element_type = T;                     ///< the element type, const for a read-only view
  using value_type = std::remove_cv_t<T>;     ///< the element type without const
  static constexpr std::size_t max_rank = 8;  ///< the most dimensions a view has

  /// No tensor (rank 0): used for "absent", e.g. an optional carry.
  tensor_view() noexcept = default;

  /// Packed row-major.
  tensor_view(T* data, std::initializer_list<std::size_t> sizes)
      : tensor_view(data, sizes.size(), sizes.begin(), nullptr) {}

  /// Strided; one stride per size.
  tensor_view(T* data, std::initializer_list<std::size_t> sizes, std::initializer_list<std::ptrdiff_t> strides)
      : tensor_view(data, sizes.size(), sizes.begin(), strides.begin()) {
    if (strides.size() != sizes.size())
      throw error(status_code::dimension_count_mismatch, "tensor_view: " + std::to_string(sizes.size()) +
                                                             " sizes but " + std::to_string(strides.size()) +
                                                             " strides");
  }

  /// Rank known at run time; `strides == nullptr` means packed row-major.
  tensor_view(T* data, std::size_t rank, const std::size_t* sizes, const std::ptrdiff_t* strides = nullptr)
      : data_(data), rank_(rank) {
    if (rank < 1 || rank > max_rank)
      throw error(status_code::invalid_dimension_count,
                  "tensor_view: rank is " + std::to_string(rank) + "; it must be 1..8");
    detail::checked_u64 count{1}, span{0};
    for (std::size_t d = rank; d-- > 0;) {
      sizes_[d] = sizes[d];
      strides_[d] = strides ? strides[d] : static_cast<std::ptrdiff_t>(count.value);
      count = count * detail::checked_u64{sizes[d]};
      const std::uint64_t magnitude =
          strides_[d] < 0 ? 0 - static_cast<std::uint64_t>(strides_[d]) : static_cast<std::uint64_t>(strides_[d]);
      if (sizes[d] > 0) span = span + detail::checked_u64{sizes[d] - 1} * detail::checked_u64{magnitude};
    }
    const std::uint64_t limit = static_cast<std::uint64_t>(PTRDIFF_MAX) / sizeof(T);
    if (count.overflow || span.overflow || count.value > limit || span.value > limit)
      throw error(status_code::size_overflow, "tensor_view: the sizes and strides overflow 64-bit offsets");
    if (!data && count.value != 0) throw error(status_code::null_pointer, "tensor_view: data is null");
  }

  /// A view of const elements from a view of mutable ones.
  template <class U, std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
  tensor_view(const tensor_view<U>& other) noexcept : data_(other.data()), rank_(other.rank()) {
    for (std::size_t d = 0; d < rank_; ++d) {
      sizes_[d] = other.extent(d);
      strides_[d] = other.stride(d);
    }
  }

  /// Pointer to the element at index 0 in every dimension.
  T* data() const noexcept { return data_; }
  /// Number of dimensions: 1..8, or 0 for no tensor.
  std::size_t rank() const noexcept { return rank_; }
  /// Size of dimension d.
  std::size_t extent(std::size_t d) const noexcept { return sizes_[d]; }
  /// Stride of dimension d, in elements.
  std::ptrdiff_t stride(std::size_t d) const noexcept { return strides_[d]; }
  /// The rank() sizes.
  const std::size_t* extents() const noexcept { return sizes_; }
  /// The rank() strides, in elements.
  const std::ptrdiff_t* strides() const noexcept { return strides_; }
  /// Number of elements (1 for no dimensions is not used: rank 0 means no tensor).
  std::size_t size() const noexcept {
    if (rank_ == 0) return 0;
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank_; ++d) n *= sizes_[d];
    return n;
  }
  /// True when the view has no elements (or is no tensor).
  bool empty() const noexcept { return size() == 0; }

  /// The element at these indices (one per dimension; unchecked).
  template <class... I>
  T& operator()(I... indices) const noexcept {
    static_assert(sizeof...(I) <= max_rank, "too many indices");
    const std::ptrdiff_t index[] = {static_cast<std::ptrdiff_t>(indices)...};
    std::ptrdiff_t offset = 0;
    for (std::size_t d = 0; d < sizeof...(I); ++d) offset += index[d] * strides_[d];
    return data_[offset];
  }

 private:
  T* data_ = nullptr;
  std::size_t rank_ = 0;
  std::size_t sizes_[max_rank] = {};
  std::ptrdiff_t strides_[max_rank] = {};
};

TALLY_END_NAMESPACE
