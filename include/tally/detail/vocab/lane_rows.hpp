// The row loop of the vocabulary's vector row forms: a tile of neighbouring lines
// (row_tile), row by row, one line per lane, so each lane runs its line's sequential
// fold and gives the scalar loop's bits. A form supplies only its lanes:
//
//   struct Lanes {
//     using in_type = ...; using out_type = ...;
//     using running_values = ...;  // the tile's running values, on the stack (lane_values):
//       explicit running_values(std::size_t head);                             // see lane_values
//       lanes_type lanes() const;  // what a step takes (pointers to the values)
//       out_type start(std::size_t j, in_type x);                              // line j's first element
//       out_type combine(std::size_t j, in_type x, const std::uint8_t* flags); // a later one
//       // optional, for tiles that start from carries and hand them on (resumable):
//       using state_type = ...;
//       void resume(std::size_t j, const state_type&);  // line j goes on from a running value
//       state_type state(std::size_t j) const;          // line j's running value
//     static constexpr std::size_t width = ..., align = ...;  // lanes a step; its vector bytes
//     static void step(running_values::lanes_type, std::size_t j, const in_type* in, out_type* out,
//                      const std::uint8_t* flags, bool stream);  // lines j .. j + width - 1
//   };
//
// `flags` is the row's reset flags (null without them; element j's flag is flags[j]).
// The loop is written once without a target attribute, like logsumexp_rows, and
// instantiated in the flattened, target-attributed entry points below, which inline the
// lanes' target-attributed steps into it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../dispatch/active_target.hpp"
#include "../kernels/kernel_set.hpp"
#include "prefetch.hpp"
#include "vector_lines.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// Storage for one running value of type V per line of a tile (Capacity lines at most),
/// placed so that the value of line j lies at the same offset from a 64-byte boundary as
/// the output element j of a row whose first `head` elements go before the steps: when the
/// output is streamed, the steps start at its 64-byte boundary, and misplaced values would
/// split a cache line in every step's load and store of them. (Measured: cummax across a
/// 4096 x 4096 float matrix in a std::vector, 16 bytes past a boundary, took 7.1 ms with
/// the values 64-byte aligned and 6.1 ms placed; memcpy 4.9 ms.)
template <class V, std::size_t Capacity>
struct lane_values {
  static constexpr std::size_t per_line = 64 / sizeof(V);
  alignas(64) V storage[Capacity + per_line];
  V* const value;
  explicit lane_values(std::size_t head) noexcept : value(storage + (per_line - head % per_line) % per_line) {}
  /// What a step takes: the pointer by value, so that the loop keeps it in a register
  /// (the steps' stores through intrinsics may alias anything, and would make the
  /// compiler reload it from the running values after every one).
  struct lanes_type {
    V* value;
  };
  lanes_type lanes() const noexcept { return {value}; }
};

/// The first row starts the running values (or, with `starts`, every row goes on from
/// them); in each later row the elements before the
/// output's `Lanes::align`-byte boundary (when streaming, so that the non-temporal stores
/// write whole vectors) and, but as below, those after the last whole step go one at a
/// time, the others `Lanes::width` a step. Each step prefetches its input `rows_ahead`
/// rows on (where tile_row_ahead gives a row): the same
/// prefetches issued all at once at a row's start (prefetch_run) stalled the loop behind
/// them (exact float32 rows of a 4096 x 4096 matrix: 7.1 ms -> 5.9 ms; cummax 5.9 ->
/// 5.2 ms; memcpy 4.6 ms). `ends` (if not null) receives the running values after the
/// last row. State: void, or the running values' state_type (resumable forms).
///
/// A row stored plainly whose end falls inside a step ends on one more step, over its last
/// `Lanes::width` lines, after the others: it overlaps the last whole one, and runs on a
/// second copy of those lines' running values (`tail_values`, another running_values on
/// the stack: 32 KiB more), so each lane folds its line's elements once, in order, and the
/// lines both copies hold get the same bits from both. One at a time, those elements took
/// cummax down float32 rows of 31 (one step of 16 and 15 elements, AVX-512) 1.6x-1.7x
/// memcpy, 0.95x-1.05x so (tally_bench_vocabulary V1w31a0; such rows, of one to two
/// vectors, now take extremum_two_vector_rows). Not taken by:
/// - rows in place: the step's input is then output the whole steps have written (copied
///   aside first, it took exact float32 rows of 20 with AVX2 about twice the time: the copy's
///   stores did not forward to the step's load);
/// - streamed rows (4 KiB or more, whose steps start at the output's boundary, a different
///   place in each row, while each copy keeps only its own lanes current): their last
///   elements are few beside the row, and a plain store over lines just streamed costs a
///   flush and a fetch of the line.
template <class Lanes, class State = void>
inline void lane_rows(const row_tile<typename Lanes::in_type, typename Lanes::out_type>& t,
                      const State* starts = nullptr, State* ends = nullptr) {
  // The tile's fields in locals: the steps' stores through intrinsics may alias anything,
  // and the compiler would reload them from the tile after every one.
  const std::size_t count = t.count, rows = t.rows;
  const std::ptrdiff_t in_row = t.in_row, out_row = t.out_row, resets_row = t.resets_row;
  constexpr std::size_t width = Lanes::width;
  const bool stream = t.stream;
  const typename Lanes::in_type* const first_row = t.in;
  const typename Lanes::in_type* in = t.in;
  typename Lanes::out_type* out = t.out;
  const std::uint8_t* flags = t.resets;
  // Where the steps of the first streamed row start (every row's, when a row is a whole
  // number of 64-byte lines, as in most matrices).
  const auto head = [&](const typename Lanes::out_type* row) {
    return stream ? (std::min)(count, elements_to_boundary<Lanes::align>(row)) : 0;
  };
  const bool resumed = starts != nullptr;
  typename Lanes::running_values running(resumed ? head(out) : rows > 1 ? head(out + out_row) : 0);
  const auto lanes = running.lanes();
  // The tail step's lines (from tail_at on), when a plainly stored row ends inside a step:
  // their second copy, placed so that the step's values start on a 64-byte boundary.
  const std::size_t tail_at = count - width;
  const bool tail = !stream && count > width && count % width != 0 &&
                    static_cast<const void*>(t.in) != static_cast<const void*>(t.out);
  typename Lanes::running_values tail_values(tail ? tail_at : 0);
  const auto tail_lanes = tail_values.lanes();
  if constexpr (!std::is_void_v<State>) {
    if (resumed) {
      for (std::size_t j = 0; j < count; ++j) running.resume(j, starts[j]);
      if (tail)
        for (std::size_t j = tail_at; j < count; ++j) tail_values.resume(j, starts[j]);
    }
  }
  if (!resumed) {
    for (std::size_t j = 0; j < count; ++j) out[j] = running.start(j, in[j]);
    if (tail)
      for (std::size_t j = tail_at; j < count; ++j) tail_values.start(j, in[j]);
  }
  for (std::size_t k = resumed ? 0 : 1; k < rows; ++k) {
    if (k != 0) {
      in += in_row;
      out += out_row;
    }
    // The input `rows_ahead` rows on: its ends here, the rest a line per step below.
    const std::uintptr_t ahead = tile_row_ahead(first_row, k, rows, count, in_row, t.next_in);
    prefetch_in_row<typename Lanes::in_type>(ahead, 0);
    prefetch_in_row<typename Lanes::in_type>(ahead, count - 1);
    if (flags) {
      if (k != 0) flags += resets_row;
      prefetch_run(flags, resets_row, count);
    }
    const std::size_t first_step = head(out);
    const std::size_t last_step = first_step + (count - first_step) / width * width;  // past it
    const std::size_t one_by_one_to = tail ? last_step : count;  // past the elements that go one at a time
    if (in_row >= 0) {
      std::size_t j = 0;
      for (; j < first_step; ++j) out[j] = running.combine(j, in[j], flags);
      for (; j < last_step; j += width) {
        prefetch_in_row<typename Lanes::in_type>(ahead, j);
        Lanes::step(lanes, j, in + j, out + j, flags, stream);
      }
      for (; j < one_by_one_to; ++j) out[j] = running.combine(j, in[j], flags);
    } else {
      // Rows that go down in memory (a decreasing axis) are walked right to left, the same
      // steps in the other order (the lanes are independent lines): one descending stream
      // for the prefetchers. Left to right, exact float32 [65536, 256] decreasing along
      // axis 0 took 1.5x the increasing time.
      std::size_t j = one_by_one_to;
      for (; j > last_step; --j) out[j - 1] = running.combine(j - 1, in[j - 1], flags);
      for (; j > first_step; j -= width) {
        const std::size_t at = j - width;
        prefetch_in_row<typename Lanes::in_type>(ahead, at);
        Lanes::step(lanes, at, in + at, out + at, flags, stream);
      }
      for (; j > 0; --j) out[j - 1] = running.combine(j - 1, in[j - 1], flags);
    }
    if (tail) Lanes::step(tail_lanes, tail_at, in + tail_at, out + tail_at, flags, false);
  }
  if constexpr (!std::is_void_v<State>) {
    if (ends)
      for (std::size_t j = 0; j < count; ++j) ends[j] = tail && j >= tail_at ? tail_values.state(j) : running.state(j);
  }
}

template <class Lanes, class State>
TALLY_TARGET_AVX2 TALLY_FLATTEN inline void lane_rows_avx2(
    const row_tile<typename Lanes::in_type, typename Lanes::out_type>& t, const State* starts, State* ends) {
  lane_rows<Lanes, State>(t, starts, ends);
}
template <class Lanes, class State>
TALLY_TARGET_AVX512 TALLY_FLATTEN inline void lane_rows_avx512(
    const row_tile<typename Lanes::in_type, typename Lanes::out_type>& t, const State* starts, State* ends) {
  lane_rows<Lanes, State>(t, starts, ends);
}

/// Runs a tile with the AVX-512 lanes or the AVX2 ones, as the CPU has; false (not done)
/// without AVX2. `starts` / `ends`: see lane_rows (resumable forms only).
template <class Avx2Lanes, class Avx512Lanes, class State = void>
bool scan_lane_rows(const row_tile<typename Avx2Lanes::in_type, typename Avx2Lanes::out_type>& t,
                    const State* starts = nullptr, State* ends = nullptr) noexcept {
  switch (active_target()) {
    case simd_variant::avx512: lane_rows_avx512<Avx512Lanes, State>(t, starts, ends); return true;
    case simd_variant::avx2: lane_rows_avx2<Avx2Lanes, State>(t, starts, ends); return true;
    default: return false;
  }
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
