// Software prefetch of the rows of neighbouring lines, a few rows ahead: the vocabulary
// engine's tiles read rows far apart, and each row starts a stream that the hardware
// prefetchers learn too late.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../config.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// How many rows ahead the row loops prefetch (2, 4 and 8 measured alike across a 4096 x
/// 4096 float matrix).
inline constexpr std::ptrdiff_t rows_ahead = 4;

/// The row the row loops prefetch while at row k of a tile of `rows` rows of `count`
/// elements from `first`: `rows_ahead` rows on, past the last row the next tile's (`next`,
/// null: none; see row_to_prefetch), or none (0) where rows_worth_prefetching says so.
/// Prefetching past a tile into whatever memory lies there cost exact float32 sums of
/// [4, 4M] along axis 0 2.3x memcpy; 1.5x so.
template <class E>
std::uintptr_t tile_row_ahead(const E* first, std::size_t k, std::size_t rows, std::size_t count,
                              std::ptrdiff_t stride, const E* next) noexcept {
  constexpr auto ahead = static_cast<std::size_t>(rows_ahead);
  return rows_worth_prefetching<E>(count, stride, ahead) ? row_to_prefetch(first, k, rows, stride, ahead, next) : 0;
}

/// The address of the element `rows_ahead` rows after p (stride in elements), computed as
/// an integer: it may lie past the tensor, and a prefetch never faults.
template <class E>
std::uintptr_t rows_ahead_of(const E* p, std::ptrdiff_t stride) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) +
         static_cast<std::uintptr_t>(rows_ahead * stride * static_cast<std::ptrdiff_t>(sizeof(E)));
}

/// Prefetches the `count` elements `rows_ahead` rows after `row`, all at once. (A loop
/// that reads the row a vector at a time does better to prefetch once per vector: see
/// lane_rows.hpp.)
template <class E>
void prefetch_run(const E* row, std::ptrdiff_t stride, std::size_t count) noexcept {
  const std::uintptr_t first = rows_ahead_of(row, stride);
  const std::size_t bytes = count * sizeof(E);
  for (std::size_t b = 0; b < bytes; b += 64) prefetch(reinterpret_cast<const void*>(first + b));
  prefetch(reinterpret_cast<const void*>(first + bytes - 1));
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
