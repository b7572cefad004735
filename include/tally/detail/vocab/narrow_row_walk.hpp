// The walk of a tile of narrow rows: the vocabulary's row forms for narrow columns (a
// tile of fewer lines than one step of its lanes form), which keep each line's running
// value in a register lane.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

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
///
/// In place (packed rows, the output the input), the rows are read from a copy, 4 KiB of
/// rows at a time, in a buffer of the thread's own: each masked load would otherwise
/// overlap the masked store of the row before, which the CPU does not forward, so every
/// row waited for the one before to reach the cache (exact float32 [4M, 3] down axis 0 in
/// place with AVX-512: 7.6x memcpy, 1.15x from the copy). The rows not yet written are
/// still the input, so a block is copied when the walk reaches it. AVX2's masked stores
/// stay the cost of its rows in place (3.4x).
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
    source = in;
    if (packed && !distinct && t.count > 0) {
      block_rows = block_elements / t.count;
      copy = copy_room();
      rows_to_copy = t.rows;
      copy_block();
    }
  }
  /// Bit i: lane i holds an element of the row.
  std::uint32_t mask(std::size_t count) const noexcept {
    const std::uint32_t low = (1u << count) - 1;
    return high ? low << (Lanes - count) : low;
  }
  void next() noexcept {
    prefetch(source + ahead);
    source += in_row;
    in += in_row;  // within a block the copy is laid out as memory is
    out += out_row;
    if (block_rows > 0 && --rows_in_block == 0) copy_block();
  }

 private:
  static constexpr std::size_t block_elements = 4096 / sizeof(E);
  const E* source;  // row k's vector in the input
  std::size_t block_rows = 0, rows_to_copy = 0, rows_in_block = 0;  // block_rows 0: no copy
  E* copy = nullptr;

  /// The block's room, with a vector's room either side (a row's vector reaches past it):
  /// the thread's own, outside the walk, so that the walk's fields stay in registers
  /// (a buffer in the walk put them in memory, reloaded after every store: 5.3x memcpy).
  static E* copy_room() noexcept {
    static thread_local E room[block_elements + 2 * Lanes];  // (read with unaligned loads)
    return room;
  }

  /// The rows from the current one on, at most block_rows: copied whole, from their lowest
  /// address, `in` set to the current row's vector in the copy.
  void copy_block() noexcept {
    const std::size_t rows = (std::min)(block_rows, rows_to_copy);
    if (rows == 0) return;  // past the tile's last row: `in` is not read again
    rows_to_copy -= rows;
    rows_in_block = rows;
    const auto last = static_cast<std::ptrdiff_t>(rows - 1) * in_row;  // from the current row's vector
    const std::ptrdiff_t lowest = (std::min)(std::ptrdiff_t{0}, last) - base;  // of the rows' elements
    const std::size_t count = static_cast<std::size_t>(in_row < 0 ? -in_row : in_row);
    std::memcpy(copy + Lanes, source + lowest, rows * count * sizeof(E));
    in = copy + Lanes - lowest;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
