// The walk of a tile of narrow rows: the vocabulary's row forms for narrow columns (a
// tile of fewer lines than one step of its lanes form), which keep each line's running
// value in a register lane.
#pragma once

#include <cstddef>
#include <cstdint>

#include "prefetch.hpp"
#include "vector_lines.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// The walk of a tile of narrow rows (count lines, at most Lanes), a row per vector of
/// Lanes elements of E: the forms for narrow columns, where a row is shorter than one
/// step of the lanes forms (which would leave every element to lane_rows' scalar loop).
/// The running values stay in registers, so each line's fold is the scalar loop's.
///
/// A row sits in the low lanes, or in the high ones when the rows go down in memory, so
/// that the lanes past it are always the rows after it in scan order. Where the rows are
/// packed and the output is not the input, those lanes are loaded and stored whole (a
/// store's extra lanes land on rows still to be written); elsewhere, and for the rows
/// near the tile's end, loads and stores are masked to the row. Whole ones are faster:
/// exact float32 [4M, 4] along axis 0, 8.7 ms masked, 5.7 ms whole (memcpy 4.3).
template <class E, std::size_t Lanes>
struct narrow_row_walk {
  static constexpr std::size_t lanes = Lanes;
  const E* in;  // row k's vector (the row's first element, or Lanes - count before it)
  E* out;
  std::ptrdiff_t in_row, out_row, ahead, base;
  std::size_t whole_rows = 0;  // the rows before this go by whole vectors
  bool high;                   // the row in lanes [Lanes - count, Lanes)

  template <class Tile>
  explicit narrow_row_walk(const Tile& t) noexcept
      : in_row(t.in_row),
        out_row(t.out_row),
        base(t.in_row < 0 ? static_cast<std::ptrdiff_t>(t.count) - static_cast<std::ptrdiff_t>(Lanes) : 0),
        high(t.in_row < 0) {
    in = t.in + base;
    out = t.out + base;
    // Elements ahead that a row prefetches its input: about 2 KiB on when the rows are
    // packed, else 32 rows on. (Masked loads do not train the hardware prefetchers:
    // without it, masked float32 rows of 4 took 3.7 ns a row from memory, 2.1 with it.)
    const std::size_t size = static_cast<std::size_t>(in_row < 0 ? -in_row : in_row);
    const std::size_t line = 64 / sizeof(E);
    ahead = static_cast<std::ptrdiff_t>(size <= line ? 2048 / sizeof(E) / (size + (size == 0)) : 32) * in_row;
    const bool packed = size == t.count && out_row == in_row;
    const bool distinct = static_cast<const void*>(t.in) != static_cast<const void*>(t.out);
    // A whole vector from row k reaches Lanes - count elements into the rows after it:
    // the last ceil((Lanes - count) / count) = (Lanes - 1) / count rows are masked.
    if (packed && distinct && t.rows * t.count >= Lanes) whole_rows = t.rows - (Lanes - 1) / t.count;
  }
  /// Bit i: lane i holds an element of the row.
  std::uint32_t mask(std::size_t count) const noexcept {
    const std::uint32_t low = (1u << count) - 1;
    return high ? low << (Lanes - count) : low;
  }
  void next() noexcept {
    prefetch(in + ahead);
    in += in_row;
    out += out_row;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
