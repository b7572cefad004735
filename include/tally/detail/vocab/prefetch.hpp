// Software prefetch of a row of neighbouring lines, a few rows ahead: the vocabulary
// engine's tiles read rows far apart, and each row starts a stream that the hardware
// prefetchers learn too late.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../config.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// Prefetches the `count` elements at row + rows_ahead * stride (strides in elements). The
/// address is computed as an integer: it may lie past the tensor, and a prefetch never faults.
template <class E>
void prefetch_run(const E* row, std::ptrdiff_t stride, std::size_t count) noexcept {
  constexpr std::ptrdiff_t rows_ahead = 4;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(row) +
                               static_cast<std::uintptr_t>(rows_ahead * stride * static_cast<std::ptrdiff_t>(sizeof(E)));
  const std::size_t bytes = count * sizeof(E);
  for (std::size_t b = 0; b < bytes; b += 64) prefetch(reinterpret_cast<const void*>(first + b));
  prefetch(reinterpret_cast<const void*>(first + bytes - 1));
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
