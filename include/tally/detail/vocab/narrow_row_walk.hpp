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

/// The rooms of narrow_row_walk's in-place blocks and the state of the block walk, one for
/// every instantiation: the thread's own, outside the walk, so that the walk's fields stay
/// in registers (a room in the walk put them in memory, reloaded after every store: 5.3x
/// memcpy). A row's vector reaches up to 64 bytes past a block either side. Only copies
/// and vector loads and stores touch the rooms. One walk in place at a time on a thread:
/// a second, started before the first ends, would take its rooms (no form nests walks).
struct narrow_row_rooms {
  static constexpr std::size_t block_bytes = 4096, margin_bytes = 64;
  alignas(64) unsigned char in[block_bytes + 2 * margin_bytes];
  alignas(64) unsigned char out[block_bytes + 2 * margin_bytes];
  unsigned char* home;  // the block in the rooms: its lowest byte in the output
  std::size_t bytes;    // its size (0: none)
  std::size_t block_rows, rows_left;
};  // (no initializers: thread storage starts zeroed, with no guard to test on each use)
inline narrow_row_rooms& thread_narrow_row_rooms() noexcept {
  static thread_local narrow_row_rooms rooms;
  return rooms;
}

/// Whether narrow_row_walk walks a tile in place: packed rows, the output the input.
template <class Tile>
bool narrow_rows_in_place(const Tile& t) noexcept {
  const std::size_t size = static_cast<std::size_t>(t.in_row < 0 ? -t.in_row : t.in_row);
  return t.count > 0 && size == t.count && t.out_row == t.in_row &&
         static_cast<const void*>(t.in) == static_cast<const void*>(t.out);
}

/// The walk of a tile of narrow rows (count lines, at most Lanes), a row per vector of
/// Lanes elements of E: the forms for narrow columns, where a row is shorter than one
/// step of the lanes forms (which would leave every element to lane_rows' scalar loop).
/// The running values stay in registers, so each line's fold is the scalar loop's.
///
/// A row sits in the low lanes, or in the high ones when the rows go down in memory, so
/// that the lanes past it are always the rows after it in scan order. Where the rows are
/// packed, those lanes are loaded and stored whole (a store's extra lanes land on rows
/// still to be written); elsewhere, and for the rows near the tile's end, loads and
/// stores are masked to the row. Whole ones are faster: exact float32 [4M, 4] along axis
/// 0, 8.7 ms masked, 5.7 ms whole (memcpy 4.3).
///
/// In place (packed rows, the output the input), the rows go through two rooms of the
/// thread's own, 4 KiB of rows at a time: the walk reads them from a copy of the input
/// and stores them whole in a second room, which goes to the output when the block is
/// done. Masked loads straight from the output would overlap the masked store of the row
/// before, which the CPU does not forward, so every row waited for the one before to reach
/// the cache (exact float32 [4M, 3] down axis 0 in place with AVX-512: 7.6x memcpy, 1.15x
/// from a copy); and AVX2's masked stores (VMASKMOVPS) are slow on AMD's cores, which the
/// whole stores into the room avoid (3.4x memcpy with a copy in and masked stores out).
/// The rows not yet written are still the input, so a block is copied when the walk
/// reaches it. A form calls next() after every row, the last one included: that is when
/// the last block goes out.
///
/// InPlace (narrow_rows_in_place) is a parameter, not a field, so that the forms' loops
/// out of place have no call in them: with one, even never taken, GCC kept the walk's
/// pointers in memory (exact float32 [4M, 3] down axis 0: 2.2x memcpy, 1.25x without).
template <class E, std::size_t Lanes, bool InPlace>
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
    // A whole vector from row k reaches Lanes - count elements into the rows after it:
    // the last ceil((Lanes - count) / count) = (Lanes - 1) / count rows are masked.
    if (packed && t.rows * t.count >= Lanes) whole_rows = t.rows - (Lanes - 1) / t.count;
    source = in;
    if constexpr (InPlace) {
      narrow_row_rooms& rooms = thread_narrow_row_rooms();
      rooms.bytes = 0;
      rooms.block_rows = narrow_row_rooms::block_bytes / sizeof(E) / t.count;
      rooms.rows_left = t.rows;
      enter(next_block(source, in_row, base));
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
    in += in_row;  // within a block the rooms are laid out as memory is
    out += out_row;
    if constexpr (InPlace)
      if (--rows_in_block == 0) enter(next_block(source, in_row, base));
  }

 private:
  static_assert(Lanes * sizeof(E) <= narrow_row_rooms::margin_bytes, "a row's vector fits the rooms' margins");
  const E* source;  // row k's vector in the input
  std::size_t rows_in_block = 0;

  /// The block from row k on (its vector at `source`): the offset of its lowest element
  /// from row k's vector, and its rows (none: past the tile's last row).
  struct block {
    std::ptrdiff_t lowest;
    std::size_t rows;
  };
  void enter(block b) noexcept {
    if (b.rows == 0) return;  // past the tile's last row: `in` and `out` are not used again
    in = in_room() - b.lowest;
    out = out_room() - b.lowest;
    rows_in_block = b.rows;
  }
  static E* in_room() noexcept {
    return reinterpret_cast<E*>(thread_narrow_row_rooms().in + narrow_row_rooms::margin_bytes);
  }
  static E* out_room() noexcept {
    return reinterpret_cast<E*>(thread_narrow_row_rooms().out + narrow_row_rooms::margin_bytes);
  }

  /// Sends the block in the output room to the output, then copies the rows from the
  /// current one on, at most a block, from their lowest address into the input room. Out of
  /// the loop's code, with its state in the rooms' (see TALLY_NOINLINE).
  TALLY_NOINLINE static block next_block(const E* source, std::ptrdiff_t in_row, std::ptrdiff_t base) noexcept {
    narrow_row_rooms& rooms = thread_narrow_row_rooms();
    if (rooms.bytes > 0) std::memcpy(rooms.home, rooms.out + narrow_row_rooms::margin_bytes, rooms.bytes);
    const std::size_t rows = (std::min)(rooms.block_rows, rooms.rows_left);
    rooms.rows_left -= rows;
    rooms.bytes = 0;
    if (rows == 0) return {0, 0};
    const auto last = static_cast<std::ptrdiff_t>(rows - 1) * in_row;  // from the current row's vector
    const std::ptrdiff_t lowest = (std::min)(std::ptrdiff_t{0}, last) - base;  // of the rows' elements
    const std::size_t count = static_cast<std::size_t>(in_row < 0 ? -in_row : in_row);
    rooms.bytes = rows * count * sizeof(E);
    rooms.home = reinterpret_cast<unsigned char*>(const_cast<E*>(source + lowest));  // in place: the output
    std::memcpy(rooms.in + narrow_row_rooms::margin_bytes, source + lowest, rooms.bytes);
    return {lowest, rows};
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
