// Every tuning number of the planner, the runner and the thread pool, in one place (as
// CUB's policy types). None of them changes a result: the arithmetic of a line depends only on
// block_elements (kernels/line_state.hpp), which is part of the numeric contract.
#pragma once

#include <chrono>
#include <cstddef>

#include "../../version.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

struct tuning {
  /// Elements of the tile of the gathered shapes (64 KiB of float32: it stays in L2):
  /// `gather_short_side` lines times `gather_elements / gather_short_side` axis positions,
  /// or the other way round. The side that is contiguous in the input is the long one, so
  /// memory is read in long runs; the scatter then writes runs of the short side, 256
  /// bytes of float32 per output row (runs of 16 elements, 4x the pages touched per byte
  /// written, measured 1.2-1.5x slower on B4t and B8).
  static constexpr std::size_t gather_elements = 16384;
  static constexpr std::size_t gather_short_side = 64;  // a multiple of every vector width
  /// Bytes of the running row of the columns shape: it stays in L1.
  static constexpr std::size_t column_tile_bytes = 16384;
  /// Columns a tile keeps at least, when a wide row is cut between threads.
  static constexpr std::size_t min_column_tile = 64;
  /// Scans of packed operands up to this size with no carries take the small-call path
  /// (run/small_scan.hpp): half of a typical L1 data cache.
  static constexpr std::size_t small_call_bytes = std::size_t{16} << 10;
  /// Elements per task of the short_lines shape (rounded to whole multiples of 64 lines).
  static constexpr std::size_t short_lines_tile_elements = std::size_t{1} << 14;
  /// Elements a task should cover at least before another thread is worth using.
  static constexpr std::size_t min_elements_per_part = std::size_t{1} << 16;
  /// Outputs at least this large are written with non-temporal stores: they would only
  /// evict the input from cache, and a write-allocate would read them from memory first.
  static constexpr std::size_t nontemporal_bytes = std::size_t{16} << 20;
  /// The shortest line (output bytes) written with non-temporal stores when the output
  /// is: a shorter line shares its first and last cache lines with its neighbours, and
  /// plain stores into a line that a neighbour has just written with non-temporal stores
  /// cost more than streaming saves. Exact float32 lines of 64 elements across 64 MiB: 17x
  /// the time of a memcpy streamed, 2.4x stored plainly; fast float32 lines of 7, 17 and
  /// 300 elements: 1.5x, 1.8x and 2.2x streamed, 1.0x-1.2x stored plainly (2026-11-28).
  static constexpr std::size_t stream_line_bytes = std::size_t{16} << 10;
  /// The same for the rows of every vocabulary row form (a tile's lines side
  /// by side, a row at a time): a narrower row's ends share cache lines with its steps'
  /// non-temporal stores. Exact float32 down axis 0 of 64 MiB, x memcpy, increasing /
  /// decreasing, AVX2: rows of 16 elements 3.9 / 54 streamed, 0.9 / 0.9 plainly; 64: 1.8 /
  /// 12 and 1.2 / 0.9; 256: 1.1 / 2.9 and 0.8 / 0.7; 1024: 0.75 streamed, 1.05 plainly
  /// (AVX-512: 0.7 and 1.0) (2026-11-29).
  static constexpr std::size_t stream_row_bytes = std::size_t{4} << 10;
  /// A long line split across threads goes in rounds of this many input bytes per part,
  /// re-read from cache by the second pass...
  static constexpr std::size_t split_part_bytes = std::size_t{1} << 20;
  /// ...and at most this many blocks per round (keeps the job small enough for any stack).
  static constexpr std::size_t split_max_round_blocks = 256;
  /// How long an idle pool worker, or a caller waiting for its workers, spins before
  /// sleeping (waking a sleeping thread takes 5 to 60 microseconds, more in virtual
  /// machines), and how long of that it spins with `pause` only: after that it also
  /// yields the core between checks, in case the thread it waits for needs it.
  static constexpr std::chrono::microseconds pool_spin_time{100}, pool_pause_only_time{10};
};

}  // namespace detail
TALLY_END_NAMESPACE
