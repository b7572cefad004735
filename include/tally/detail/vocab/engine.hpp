// The vocabulary engine: one engine for every operator of detail/ops/ (widening and
// NaN-skipping sums and products, cummax / cummin, logcumsumexp, user operators, complex
// and bfloat16 elements, segmented scans). It validates with the typed layer's rules,
// stages overlapping inputs, and folds each line sequentially in scan order, with the
// lines split between threads. A line's arithmetic never depends on the threads or on
// the tiling, so results are bitwise the same for every thread count.
//
// Operands ("slots"): the input, the output (one longer along the axis with
// include_initial), an optional int64 index output (cummax / cummin), an optional uint8
// reset-flag input of the input's shape (segmented scans), and optional per-line running
// values ("carries": the input's shape without the axis) that lines start from and end
// in, so that a tensor scanned in chunks along the axis equals one call (the chunked
// forms of the exact sums and products).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../layout/overlap.hpp"
#include "../ops/concept.hpp"
#include "../plan/streaming_aliasing.hpp"
#include "../plan/tuning.hpp"
#include "../run/axis_of_one.hpp"
#include "../run/executor.hpp"
#include "prefetch.hpp"
#include "nan_skipping_kernels.hpp"
#include "vector_extremum_rows.hpp"
#include "vector_segmented_lines.hpp"
#include "vector_arithmetic_rows.hpp"
#include "vector_exact_lines.hpp"
#include "vector_lines.hpp"
#include "vector_widening_sums.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

enum slot : int { in_slot = 0, out_slot = 1, index_slot = 2, resets_slot = 3, starts_slot = 4, ends_slot = 5 };
inline constexpr int slot_count = 6;

/// Lines of `tile_lines<S>` neighbours are scanned together (row by row) when the axis is
/// not contiguous in the input: each row then reads a run of nearby addresses instead of
/// one element per cache line. About 16 KiB of running values (so they stay in L1), at
/// least 64 and at most 512 lines (a run of 512 floats is half a page, long enough for the
/// prefetchers; wider tiles would leave fewer tasks for threads).
template <class S>
inline constexpr std::size_t tile_lines = std::min<std::size_t>(512, std::max<std::size_t>(64, 16384 / sizeof(S)));

/// Lines shorter than this are scanned in tiles of neighbouring lines even where the axis
/// runs along memory (see tile_dim_of); up to gathered_length_below<Op> where the tiles are
/// gathered with the SIMD transposes (scan_tile_gathered: row forms that resume from
/// carries, no indices or resets). Exact float32 sums of 16M elements in lines of L, one
/// line form call per line / gathered tiles, ms: L = 16 50 / 15, 24 40 / 18, 31 36.5 /
/// 18; in tiles, the forms without gathered tiles (cummax) took 1.2x-2.6x longer. (Lines
/// that take a multi-line form, vector_line's scan_lines, start where it says.)
inline constexpr std::size_t short_line_length = 16, gathered_short_line_length = 32;

/// A validated scan: the axis in scan order (decreasing directions already folded into
/// negative strides and offsets), the outer dimensions, per slot.
struct layout {
  std::size_t length = 0;  // input elements per line
  bool decreasing = false, exclusive = false, include_initial = false;
  bool has_index = false, has_resets = false;
  bool has_starts = false, has_ends = false;  // carries in (each line's running value before it) and out
  bool in_place = false;  // the output is the input, element for element
  bool stream = false;    // non-temporal stores where a vector form can: a large output, not in place
  std::ptrdiff_t axis[slot_count] = {};
  std::size_t outer_rank = 0;
  // Only the first outer_rank entries are ever read. Left uninitialized by `layout l;`
  // (zeroed by `layout{}`): zeroing these 448 bytes was a quarter of a 16-float cummax on
  // the small path, which writes just its entries.
  std::size_t extents[max_rank];
  std::ptrdiff_t strides[slot_count][max_rank];
  std::ptrdiff_t offset[slot_count] = {};

  std::size_t lines() const noexcept {
    std::size_t n = 1;
    for (std::size_t d = 0; d < outer_rank; ++d) n *= extents[d];
    return n;
  }
};

/// Merges neighbouring outer dimensions that are one in every operand (the outer one's
/// stride is the inner one's times its extent), so that tiles of neighbouring lines
/// take whole runs of memory: 64^4 along axis 1 has 4096 neighbouring lines in its last
/// two dimensions, not 64 (exact float32: 44 ms against 12 ms for the SIMD engine, which
/// merges them too, before this).
inline void merge_outer_dims(layout& l) noexcept {
  for (std::size_t d = l.outer_rank; d-- > 1;) {
    bool one = true;
    for (int s = 0; s < slot_count; ++s)
      one = one && l.strides[s][d - 1] == l.strides[s][d] * static_cast<std::ptrdiff_t>(l.extents[d]);
    if (!one) continue;
    l.extents[d - 1] *= l.extents[d];
    for (int s = 0; s < slot_count; ++s) l.strides[s][d - 1] = l.strides[s][d];
    for (std::size_t k = d; k + 1 < l.outer_rank; ++k) {
      l.extents[k] = l.extents[k + 1];
      for (int s = 0; s < slot_count; ++s) l.strides[s][k] = l.strides[s][k + 1];
    }
    --l.outer_rank;
  }
}

/// Slot `s`'s step along the axis in scan order and its lines' first element, from its
/// `n` elements `stride` apart along the axis: a decreasing scan starts from the last one
/// and steps back.
inline void place_axis(layout& l, int s, std::size_t n, std::ptrdiff_t stride) noexcept {
  if (n <= 1) return;  // (no step: the axis entry stays 0)
  l.axis[s] = l.decreasing ? -stride : stride;
  if (l.decreasing) l.offset[s] = static_cast<std::ptrdiff_t>(n - 1) * stride;
}

/// The caller's operands, as placed layouts (rank 0: absent).
struct operands {
  placed_layout in, out, index, resets, starts, ends;
};

/// Whether an optional operand is there: a carry of a 1-D scan is a 0-d view with data.
inline bool present(const placed_layout& v) noexcept { return v.layout.rank != 0 || v.data != nullptr; }

/// What an operator allows, for the checks.
struct op_traits {
  bool has_identity = true;
  const char* name = "scan";
};

/// The typed layer's rules for the vocabulary functions; on success `l` describes the scan.
inline status check(const operands& p, int axis_arg, const scan_options& options, op_traits op,
                    layout& l) noexcept {
  const std::size_t rank = p.in.layout.rank;
  if (options.direction != axis_direction::increasing && options.direction != axis_direction::decreasing)
    return status(status_code::invalid_direction, "%s: direction is %u; it must be 0 or 1", op.name,
                  static_cast<unsigned>(options.direction));
  if (options.accuracy != scan_accuracy::fast && options.accuracy != scan_accuracy::exact)
    return status(status_code::invalid_option, "%s: accuracy is %u; it must be 0 (fast) or 1 (exact)", op.name,
                  static_cast<unsigned>(options.accuracy));
  if (options.exclusive && options.include_initial)
    return status(status_code::invalid_option, "%s: exclusive and include_initial cannot both be set", op.name);
  if (!op.has_identity && (options.exclusive || options.include_initial))
    return status(status_code::invalid_option, "%s has no identity: exclusive and include_initial are not defined",
                  op.name);
  const auto signed_rank = static_cast<long long>(rank);
  if (axis_arg < -signed_rank || axis_arg >= signed_rank)
    return status(status_code::invalid_axis, "%s: axis %d is out of range for rank %llu (valid: -%llu .. %lld)",
                  op.name, axis_arg, ull(rank), ull(rank), signed_rank - 1);
  const std::size_t axis = static_cast<std::size_t>(axis_arg < 0 ? axis_arg + signed_rank : axis_arg);
  const std::size_t length = p.in.layout.extents[axis];
  struct named {
    const placed_layout* view;
    const char* name;
    std::size_t axis_extent;
  };
  const named others[] = {{&p.out, "output", length + (options.include_initial ? 1 : 0)},
                          {&p.index, "indices", length},
                          {&p.resets, "resets", length}};
  for (const named& o : others) {
    if (o.view != &p.out && o.view->layout.rank == 0) continue;  // absent optional operand
    if (o.view->layout.rank != rank)
      return status(status_code::dimension_count_mismatch, "%s: input rank %llu differs from %s rank %llu", op.name,
                    ull(rank), o.name, ull(o.view->layout.rank));
    for (std::size_t d = 0; d < rank; ++d) {
      const std::size_t want = d == axis ? o.axis_extent : p.in.layout.extents[d];
      if (o.view->layout.extents[d] != want)
        return status(status_code::size_mismatch, "%s: %s size %llu in dimension %llu; it must be %llu%s", op.name,
                      o.name, ull(o.view->layout.extents[d]), ull(d), ull(want),
                      d == axis && o.view == &p.out && options.include_initial
                          ? " (the input's length plus one: include_initial)"
                          : "");
    }
  }
  if (!p.out.layout.is_unique())
    return status(status_code::overlapping_output,
                  "%s: the output view has distinct elements at one address (a zero or interleaving stride)", op.name);
  if (p.index.layout.rank != 0) {
    if (!p.index.layout.is_unique())
      return status(status_code::overlapping_output,
                    "%s: the indices view has distinct elements at one address (a zero or interleaving stride)",
                    op.name);
    if (may_overlap(p.index, p.out))
      return status(status_code::overlapping_buffers, "%s: the indices overlap the values output", op.name);
  }
  // Carries: the input's shape without the axis, or with the axis at size 1 (keepdims).
  const auto carry_dim = [&](const strided_layout& c, std::size_t d) { return c.rank == rank ? d : d - (d > axis); };
  for (const placed_layout* c : {&p.starts, &p.ends}) {
    if (!present(*c)) continue;
    const char* name = c == &p.starts ? "carry_in" : "carry_out";
    const strided_layout& v = c->layout;
    if (!(v.rank == rank && v.extents[axis] == 1) && v.rank + 1 != rank)
      return status(status_code::invalid_carry,
                    "%s: %s has rank %llu; it must be the input's rank without the axis (%llu) or with the axis at "
                    "size 1",
                    op.name, name, ull(v.rank), ull(rank - 1));
    for (std::size_t d = 0; d < rank; ++d)
      if (d != axis && v.extents[carry_dim(v, d)] != p.in.layout.extents[d])
        return status(status_code::invalid_carry, "%s: %s has size %llu where the input has %llu (dimension %llu)",
                      op.name, name, ull(v.extents[carry_dim(v, d)]), ull(p.in.layout.extents[d]), ull(d));
  }
  if (present(p.ends)) {
    if (!p.ends.layout.is_unique())
      return status(status_code::overlapping_output, "%s: carry_out has distinct elements at one address", op.name);
    if (may_overlap(p.ends, p.in) || may_overlap(p.ends, p.out) || may_overlap(p.ends, p.index))
      return status(status_code::overlapping_buffers, "%s: carry_out overlaps the input or an output", op.name);
  }
  if (present(p.starts) && (may_overlap(p.starts, p.out) || may_overlap(p.starts, p.index)))
    return status(status_code::overlapping_buffers, "%s: carry_in overlaps an output", op.name);

  l = layout{};
  l.length = length;
  l.decreasing = options.direction == axis_direction::decreasing;
  l.exclusive = options.exclusive;
  l.include_initial = options.include_initial;
  l.has_index = p.index.layout.rank != 0;
  l.has_resets = p.resets.layout.rank != 0;
  l.has_starts = present(p.starts);
  l.has_ends = present(p.ends);
  const placed_layout* views[slot_count] = {&p.in, &p.out, &p.index, &p.resets, &p.starts, &p.ends};
  for (int s = 0; s < starts_slot; ++s)  // (a carry has no axis)
    if (views[s]->layout.rank != 0) place_axis(l, s, views[s]->layout.extents[axis], views[s]->layout.strides[axis]);
  for (std::size_t d = 0; d < rank; ++d) {
    if (d == axis || p.in.layout.extents[d] == 1) continue;
    l.extents[l.outer_rank] = p.in.layout.extents[d];
    for (int s = 0; s < starts_slot; ++s)
      l.strides[s][l.outer_rank] = views[s]->layout.rank ? views[s]->layout.strides[d] : 0;
    for (int s : {starts_slot, ends_slot}) {
      const strided_layout& c = views[s]->layout;
      l.strides[s][l.outer_rank] = c.rank ? c.strides[carry_dim(c, d)] : 0;
    }
    ++l.outer_rank;
  }
  if (length == 0)  // the input (and indices) have no elements: never step their pointers
    for (int s : {in_slot, index_slot, resets_slot})
      for (std::size_t d = 0; d < l.outer_rank; ++d) l.strides[s][d] = 0;
  merge_outer_dims(l);
  return {};
}

/// The base pointers, moved to each line's first element in scan order.
template <class Op>
struct pointers {
  const typename Op::in_type* in = nullptr;
  typename Op::out_type* out = nullptr;
  std::int64_t* index = nullptr;
  const std::uint8_t* resets = nullptr;
  const typename Op::state_type* starts = nullptr;
  typename Op::state_type* ends = nullptr;
  const typename Op::in_type* next_in = nullptr;  // the next tile's input (prefetched; moved() keeps it)
};

/// One line, folded in scan order: with include_initial the output's first element (in
/// scan order) is the empty value and element k goes one further; with exclusive each
/// output is the fold before its element; a nonzero reset flag restarts the fold.
/// The common mode (inclusive, no resets, at least one element): the first element
/// outside the loop, so the loop is one combine and one store per element.
template <class Op, bool WithIndex, bool WithResets>
void scan_line_inclusive(const Op& op, const layout& l, pointers<Op> p) {
  const std::ptrdiff_t si = l.axis[in_slot], so = l.axis[out_slot], sx = l.axis[index_slot],
                       sr = l.axis[resets_slot];
  const std::size_t n = l.length;
  const auto position = [&](std::size_t k) { return static_cast<std::int64_t>(l.decreasing ? n - 1 - k : k); };
  typename Op::state_type s = first_value(op, *p.in, position(0));
  for (std::size_t k = 0;;) {
    *p.out = op.value(s);
    if constexpr (WithIndex) {
      *p.index = op.index(s);
      p.index += sx;
    }
    if (++k == n) return;
    p.in += si;
    p.out += so;
    // Read after the previous write: the same element only in place.
    if constexpr (WithResets) {
      p.resets += sr;
      s = *p.resets ? first_value(op, *p.in, position(k)) : op.combine(s, *p.in, position(k));
    } else {
      s = op.combine(s, *p.in, position(k));
    }
  }
}

/// Whether the operator's line form can start from a running value and hand it back:
///   static bool scan(const line_span<In, Out>&, state_type& running, bool fresh);
/// (`fresh`: the line starts from its first element, not from `running`.)
template <class Op, class = void>
inline constexpr bool resumable_line = false;
template <class Op>
inline constexpr bool resumable_line<Op, std::void_t<decltype(vector_line<Op>::scan(
    std::declval<const line_span<typename Op::in_type, typename Op::out_type>&>(),
    std::declval<typename Op::state_type&>(), true))>> = true;

/// Whether the operator's line form takes many lines a call (scan_lines, vector_lines.hpp).
template <class Op, class = void>
inline constexpr bool multi_line_form = false;
template <class Op>
inline constexpr bool multi_line_form<Op, std::void_t<decltype(vector_line<Op>::scan_lines(
    std::declval<const line_span<typename Op::in_type, typename Op::out_type>&>(), std::size_t{}, std::ptrdiff_t{},
    std::ptrdiff_t{}))>> = true;

/// Whether the operator's multi-line form takes the index output (laid out as the values'
/// output): declared by the line form as `static constexpr bool takes_indices = true;`.
template <class Op, class = void>
inline constexpr bool multi_line_indices = false;
template <class Op>
inline constexpr bool multi_line_indices<Op, std::void_t<decltype(vector_line<Op>::takes_indices)>> =
    vector_line<Op>::takes_indices;

/// The longest lines the multi-line form takes (any where it declares no
/// `longest_multi_line`): the engine asks once per call, not before each longer line.
template <class Op, class = void>
inline constexpr std::size_t longest_multi_line = SIZE_MAX;
template <class Op>
inline constexpr std::size_t longest_multi_line<Op, std::void_t<decltype(vector_line<Op>::longest_multi_line)>> =
    vector_line<Op>::longest_multi_line;

/// Whether the operator's multi-line form also takes lines long enough to stream, and
/// streams any lines itself where `first.stream` says (a large output; else long lines go
/// one at a time, to the line form's streamed stores): declared by the line form as
/// `static constexpr bool streams_lines = true;`.
template <class Op, class = void>
inline constexpr bool streams_lines = false;
template <class Op>
inline constexpr bool streams_lines<Op, std::void_t<decltype(vector_line<Op>::streams_lines)>> =
    vector_line<Op>::streams_lines;

/// Whether the operator's row form can start its lines from running values and hand them
/// back (`starts` null: from each line's first element; `ends` null: not wanted):
///   static bool scan(const row_tile<In, Out>&, const state_type* starts, state_type* ends);
template <class Op, class = void>
inline constexpr bool resumable_rows = false;
template <class Op>
inline constexpr bool resumable_rows<Op, std::void_t<decltype(vector_rows<Op>::scan(
    std::declval<const row_tile<typename Op::in_type, typename Op::out_type>&>(),
    std::declval<const typename Op::state_type*>(), std::declval<typename Op::state_type*>()))>> = true;

/// Whether the operator's row form takes gathered tiles of short lines (one chunk of
/// rows, no carries) without resuming from carries, and of any length: its combine costs
/// far more than the two transposes (logcumsumexp: an exp and a log per element). Declared
/// by the row form as `static constexpr bool gathers_short_lines = true;`.
template <class Op, class = void>
inline constexpr bool gathers_short_lines = false;
template <class Op>
inline constexpr bool gathers_short_lines<Op, std::void_t<decltype(vector_rows<Op>::gathers_short_lines)>> =
    vector_rows<Op>::gathers_short_lines;

/// The length from which lines whose row form takes gathered tiles (resumable_rows,
/// gathers_short_lines) keep their line form: where the row form declares it (`static
/// constexpr std::size_t gathered_below`), its own measure; else gathered_short_line_length
/// for float and short_line_length for the rest (logcumsumexp of doubles, 16M elements in
/// lines of L, line form / gathered, ms: L = 24 6.9 / 8.2, 48 5.2 / 8.3).
template <class Op, class = void>
inline constexpr std::size_t gathered_length_below =
    std::is_same_v<typename Op::in_type, float> ? gathered_short_line_length : short_line_length;
template <class Op>
inline constexpr std::size_t gathered_length_below<Op, std::void_t<decltype(vector_rows<Op>::gathered_below)>> =
    vector_rows<Op>::gathered_below;

/// The length from which lines take their line form rather than tiles of neighbouring
/// lines (see short_line_length): the one rule for the engine (tile_dim_of) and the
/// small-call path (small_exact.hpp), whose bits must agree. `multi_line`: the lines can
/// take a multi-line form (scan_line_run: inclusive, no carries in, contiguous along the
/// axis in input and output alike); `packed`: one after the other in both.
template <class Op>
std::size_t line_form_length(std::size_t lines, bool multi_line, bool packed, bool has_index, bool has_resets) noexcept {
  if constexpr (multi_line_form<Op>)
    if (lines > 1 && multi_line && (!has_index || multi_line_indices<Op>) && !has_resets)
      if (const std::size_t from = vector_line<Op>::shortest_line(packed); from != 0) return from;
  const bool gathered = (resumable_rows<Op> || gathers_short_lines<Op>) &&
                        std::is_same_v<typename Op::out_type, typename Op::in_type> && !has_index &&
                        !has_resets && lines > 1;
  return gathered ? gathered_length_below<Op> : short_line_length;
}

/// One line in any mode (exclusive, include_initial, resets, carries), folded in scan
/// order. `initial_written`: include_initial's first output is written already (and `p.out`
/// moved past it).
template <class Op>
void scan_line_from(const Op& op, const layout& l, pointers<Op> p, bool initial_written) {
  typename Op::state_type s = p.starts ? *p.starts : op.start();
  bool fresh = !p.starts;  // nothing combined yet (or since the last reset), and no carry
  const std::ptrdiff_t si = l.axis[in_slot], so = l.axis[out_slot], sx = l.axis[index_slot],
                       sr = l.axis[resets_slot];
  if (l.include_initial && !initial_written) {
    *p.out = fresh ? op.empty() : op.value(s);
    p.out += so;
  }
  const std::size_t n = l.length;
  for (std::size_t k = 0; k < n; ++k, p.in += si, p.out += so) {
    const auto position = static_cast<std::int64_t>(l.decreasing ? n - 1 - k : k);
    const typename Op::in_type x = *p.in;  // read before any write: in place is safe
    if (l.has_resets) {
      if (*p.resets) {
        s = op.start();
        fresh = true;
      }
      p.resets += sr;
    }
    if (l.exclusive) {
      *p.out = fresh ? op.empty() : op.value(s);
      s = fresh ? first_value(op, x, position) : op.combine(s, x, position);
    } else {
      s = fresh ? first_value(op, x, position) : op.combine(s, x, position);
      *p.out = op.value(s);
      if constexpr (Op::has_index) {
        if (p.index) {
          *p.index = op.index(s);
          p.index += sx;
        }
      }
    }
    fresh = false;
  }
  if (p.ends) *p.ends = s;
}

/// Whether each line runs along memory, in the input and the output alike (unit strides,
/// the same direction): what the multi-line forms take. A line of one element has no step
/// (its axis strides are 0) and qualifies: packed, such lines are one contiguous region,
/// which cummax's stream copies at memcpy's speed (the one-row tiles they took before
/// measured 2x memcpy, float32 [4M, 1]).
inline bool along_memory(const layout& l) noexcept {
  const std::ptrdiff_t si = l.axis[in_slot];
  return (si == 1 || si == -1 || l.length == 1) && l.axis[out_slot] == si;
}

/// Whether exclusive lines along memory run as their inclusive outputs moved one place on
/// (scan_exclusive_line_moved, and scan_line_run for many lines): the operator allows it
/// (exclusive_from_inclusive) and has a line form that goes on from a running value.
template <class Op>
inline constexpr bool exclusive_moves = exclusive_from_inclusive_v<Op> && resumable_line<Op>;

/// The elements an exclusive line (or run of lines) takes at a time (16 KiB of float, in
/// L1): a whole number of every line form's steps, so the pieces, each scanned from the
/// running value of those before, group the line's elements as one call does.
inline constexpr std::size_t exclusive_piece = 4096;

/// Moves the `n` outputs from `first` (in scan order, `step` +1 or -1) one place on, writes
/// `before` in the first place and returns the last output as it was. Short lines in a
/// loop: a call of memmove per line of 2 elements cost more than the scan (exact float32
/// [8M, 2]: 9.5x the time of a memcpy, 7.4x with the sequential loop).
template <class T>
T move_one_place(T* first, std::size_t n, std::ptrdiff_t step, T before) noexcept {
  T* last = first + static_cast<std::ptrdiff_t>(n - 1) * step;
  const T moved_out = *last;
  if (n <= 16)
    for (auto k = static_cast<std::ptrdiff_t>(n) - 1; k > 0; --k) first[k * step] = first[(k - 1) * step];
  else if (step > 0)
    std::memmove(first + 1, first, (n - 1) * sizeof(T));
  else
    std::memmove(last, last + 1, (n - 1) * sizeof(T));
  *first = before;
  return moved_out;
}

/// move_one_place on `count` lines of `n` packed one after the other from `lowest` (their
/// lowest address; `step` +1 or -1 within a line): one move of them all, then `empty` in
/// each line's first place, where the line before's last output arrived (exact float32
/// [8M, 2]: 5.9x the time of a memcpy with move_one_place line by line, 2.1x so).
template <class T>
void move_packed_lines_one_place(T* lowest, std::size_t n, std::size_t count, std::ptrdiff_t step, T empty) noexcept {
  const std::size_t total = n * count;
  if (step > 0)
    std::memmove(lowest + 1, lowest, (total - 1) * sizeof(T));
  else
    std::memmove(lowest, lowest + 1, (total - 1) * sizeof(T));
  T* first = step > 0 ? lowest : lowest + (n - 1);
  for (std::size_t j = 0; j < count; ++j) first[j * n] = empty;
}

/// An exclusive line as its inclusive outputs one place on, for the operators that allow
/// it (exclusive_from_inclusive): so it takes the inclusive line form, not the sequential
/// loop (tally_bench's sweep:f32:a1x rows, exact float32 sums of 16M elements in lines of
/// 4 to 16M: 3.9x-5.2x the time of a memcpy -> 1.8x-2.3x, 2026-12-03). Piece by
/// piece in scan order: a piece is scanned inclusive from the running value, then moved
/// one place on in cache, after the last output of the piece before (or the empty value,
/// or the carry's). In place too: a piece is read before anything in it moves. The lines
/// along memory in input and output alike (along_memory), without resets.
template <class Op>
void scan_exclusive_line_moved(const Op& op, const layout& l, pointers<Op> p) {
  using out_type = typename Op::out_type;
  typename Op::state_type s = p.starts ? *p.starts : op.start();
  bool fresh = !p.starts;
  out_type before = fresh ? op.empty() : op.value(s);  // the output one place before the piece
  const std::ptrdiff_t step = l.axis[out_slot];        // +1 or -1, the input's too
  for (std::size_t done = 0; done < l.length;) {
    const std::size_t n = (std::min)(exclusive_piece, l.length - done);
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(done) * step;
    const line_span<typename Op::in_type, out_type> piece{p.in + at, p.out + at, nullptr, nullptr,
                                                          n,         step < 0,   l.decreasing, false};
    if (!vector_line<Op>::scan(piece, s, fresh)) {  // no line form on this CPU: the sequential loop
      layout rest = l;
      rest.length = l.length - done;
      pointers<Op> q = p;
      q.in += at;
      q.out += at;
      q.starts = fresh ? nullptr : &s;
      return scan_line_from(op, rest, q, false);
    }
    fresh = false;
    before = move_one_place(p.out + at, n, step, before);
    done += n;
  }
  if (p.ends) *p.ends = s;
}

template <class Op>
void scan_line(const Op& op, const layout& l, pointers<Op> p) {
  if constexpr (exclusive_moves<Op>)
    if (l.exclusive && l.length > 0 && !l.has_resets && along_memory(l)) return scan_exclusive_line_moved(op, l, p);
  const bool carried = p.starts || p.ends;
  if (!l.exclusive && l.length > 0) {
    if (l.include_initial) {
      *p.out = p.starts ? op.value(*p.starts) : op.empty();
      p.out += l.axis[out_slot];
    }
    if constexpr (vector_line<Op>::exists) {
      const std::ptrdiff_t si = l.axis[in_slot];
      const line_span<typename Op::in_type, typename Op::out_type> line{
          p.in, p.out, l.has_resets ? p.resets : nullptr, p.index, l.length, si < 0, l.decreasing,
          l.stream && l.length * sizeof(typename Op::out_type) >= tuning::stream_line_bytes &&
              !streaming_stalls_loads(p.in, p.out, si, l.axis[out_slot])};
      if ((si == 1 || si == -1) && l.axis[out_slot] == si && (!l.has_resets || l.axis[resets_slot] == si) &&
          (!p.index || l.axis[index_slot] == si)) {
        if constexpr (resumable_line<Op>) {
          if (carried) {
            typename Op::state_type s = p.starts ? *p.starts : op.start();
            if (!vector_line<Op>::scan(line, s, !p.starts)) return scan_line_from(op, l, p, true);
            if (p.ends) *p.ends = s;
            return;
          }
        }
        if (!carried && vector_line<Op>::scan(line)) return;
      }
    }
    if (carried) return scan_line_from(op, l, p, true);
    // (A reset flag on a line's first element changes nothing: the line starts there.)
    if (l.has_resets) return scan_line_inclusive<Op, false, true>(op, l, p);
    if constexpr (Op::has_index)
      if (p.index) return scan_line_inclusive<Op, true, false>(op, l, p);
    return scan_line_inclusive<Op, false, false>(op, l, p);
  }
  scan_line_from(op, l, p, false);
}

/// The lines from the walker's position along its innermost dimension, upwards or
/// (`downwards`) towards its start, at most `limit`, in one call of the operator's
/// multi-line form, where it applies (inclusive lines from their first elements,
/// contiguous in input and output, not streamed unless the form streams them: the calls a
/// line costs weigh on short lines). Returns the lines scanned: 0 where the form does not
/// apply.
template <class Op>
std::size_t scan_line_run(const Op& op, const layout& l, const pointers<Op>& p, const nd_walker<slot_count>& w,
                          std::size_t limit, bool downwards) {
  (void)op;  // (read by exclusive runs only)
  if constexpr (multi_line_form<Op>) {
    const pointers<Op> q = moved(p, w.offset);
    const std::ptrdiff_t si = l.axis[in_slot];
    const bool streamed = l.stream && l.length * sizeof(typename Op::out_type) >= tuning::stream_line_bytes;
    const std::size_t d = w.dims > 0 ? w.dims - 1 : 0;  // the dimension the lines follow one another in
    const bool index_as_out = !q.index || (multi_line_indices<Op> && l.axis[index_slot] == si &&
                                           w.strides[index_slot][d] == w.strides[out_slot][d]);
    // Exclusive lines: inclusive, then moved one place on while in cache (a run of at most
    // exclusive_piece elements, not streamed).
    const bool moved_on = exclusive_moves<Op> && l.exclusive;
    if (w.dims > 0 && (!l.exclusive || moved_on) && !l.include_initial && !l.has_resets && index_as_out &&
        !q.starts && !q.ends && l.length > 0 && (!streamed || streams_lines<Op> || moved_on) && along_memory(l)) {
      if (moved_on) limit = (std::min)(limit, (std::max)(std::size_t{1}, exclusive_piece / l.length));
      const std::size_t count = (std::min)(limit, downwards ? w.index[d] + 1 : w.extents[d] - w.index[d]);
      const std::ptrdiff_t sign = downwards ? -1 : 1, out_step = sign * w.strides[out_slot][d];
      const line_span<typename Op::in_type, typename Op::out_type> first{
          q.in, q.out, nullptr, q.index, l.length, si < 0, l.decreasing,
          streams_lines<Op> && l.stream && !moved_on &&
              !(w.strides[in_slot][d] == w.strides[out_slot][d] &&
                streaming_stalls_loads(q.in, q.out, si, l.axis[out_slot]))};
      if (count > 1 && vector_line<Op>::scan_lines(first, count, sign * w.strides[in_slot][d], out_step)) {
        if (moved_on) {
          const std::ptrdiff_t step = l.axis[out_slot], to_last = static_cast<std::ptrdiff_t>(count - 1) * out_step;
          if (magnitude(out_step) == l.length)  // packed: from the lowest address of all
            move_packed_lines_one_place(q.out + (std::min)(to_last, std::ptrdiff_t{0}) +
                                            (step < 0 ? -static_cast<std::ptrdiff_t>(l.length - 1) : 0),
                                        l.length, count, step, op.empty());
          else
            for (std::size_t j = 0; j < count; ++j)
              move_one_place(q.out + static_cast<std::ptrdiff_t>(j) * out_step, l.length, step, op.empty());
        }
        return count;
      }
    }
  }
  return 0;
}

/// Lines begin to end (row-major positions of the walked dimensions), in runs of the
/// multi-line form where it applies, else one at a time. Lines read downwards go last
/// first, runs too, so that memory is one descending stream: lines taken upwards but each
/// read downwards defeat the hardware prefetchers (4096 x 4096 float32 decreasing along
/// axis 1: 1.5x the time of increasing; 65536 x 256: 4.5x).
template <class Op>
void scan_lines(const Op& op, const layout& l, const pointers<Op>& p, nd_walker<slot_count> w, std::size_t begin,
                std::size_t end) {
  const bool downwards = l.axis[in_slot] < 0 && w.dims > 0;
  // Whether the multi-line form may take these lines: this CPU has one (every form says 0
  // where not) and they are not too long for it.
  bool runs = false;
  if constexpr (multi_line_form<Op>)
    runs = vector_line<Op>::shortest_line(true) != 0 && l.length <= longest_multi_line<Op>;
  w.start(downwards ? end - 1 : begin);
  for (std::size_t left = end - begin; left > 0;) {
    const std::size_t run = runs ? scan_line_run(op, l, p, w, left, downwards) : 0;
    if (run == 0) {
      scan_line(op, l, moved(p, w.offset));
      --left;
      w.step(downwards);
    } else if ((left -= run) > 0) {
      w.start(downwards ? begin + left - 1 : end - left);
    }
  }
}

/// `count` neighbouring lines (`step` apart per slot) whose rows are not contiguous
/// (packed short lines: their rows step by the line length), inclusive, without carries:
/// one line after the other, each folded as scan_line folds it (the same combines). The
/// row loop of scan_tile_loops spent about 2 ns an element on such rows in its
/// bookkeeping (exact float32 [4M, 4] on the AVX2 and portable targets: 9x and 11x the
/// time of a memcpy; 3x so).
template <class Op>
void scan_tile_lines_in_turn(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step,
                             std::size_t count) {
  if (l.include_initial) {
    for (std::size_t j = 0; j < count; ++j) p.out[static_cast<std::ptrdiff_t>(j) * step[out_slot]] = op.empty();
    p.out += l.axis[out_slot];
  }
  if (!l.has_resets && !p.index) {  // the common case in one loop, its strides in registers
    const std::size_t n = l.length;
    const std::ptrdiff_t si = l.axis[in_slot], so = l.axis[out_slot];
    const auto position = [&](std::size_t k) { return static_cast<std::int64_t>(l.decreasing ? n - 1 - k : k); };
    const auto* in = p.in;
    auto* out = p.out;
    for (std::size_t j = 0; j < count; ++j, in += step[in_slot], out += step[out_slot]) {
      typename Op::state_type s = first_value(op, *in, position(0));
      *out = op.value(s);
      for (std::size_t k = 1; k < n; ++k) {
        s = op.combine(s, in[static_cast<std::ptrdiff_t>(k) * si], position(k));
        out[static_cast<std::ptrdiff_t>(k) * so] = op.value(s);
      }
    }
    return;
  }
  for (std::size_t j = 0; j < count; ++j) {
    pointers<Op> q = p;
    q.in += static_cast<std::ptrdiff_t>(j) * step[in_slot];
    q.out += static_cast<std::ptrdiff_t>(j) * step[out_slot];
    if (p.index) q.index += static_cast<std::ptrdiff_t>(j) * step[index_slot];
    if (p.resets) q.resets += static_cast<std::ptrdiff_t>(j) * step[resets_slot];
    if (l.has_resets)  // (as scan_line: resets and indices never come together)
      scan_line_inclusive<Op, false, true>(op, l, q);
    else
      scan_line_inclusive<Op, Op::has_index, false>(op, l, q);
  }
}

/// `count` (at most tile_lines) neighbouring lines (`step` apart per slot), row by row:
/// the same folds as scan_line, in another loop order.
template <class Op>
void scan_tile_loops(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count) {
  // Neighbouring lines next to each other in memory (unit steps) go row by row; others
  // line by line where they can.
  const bool unit = step[in_slot] == 1 && step[out_slot] == 1 && (!p.index || step[index_slot] == 1) &&
                    (!p.resets || step[resets_slot] == 1);
  const bool inclusive = !l.exclusive && l.length > 0 && !p.starts && !p.ends;
  if (inclusive && !unit) return scan_tile_lines_in_turn(op, l, p, step, count);
  using S = typename Op::state_type;
  S s[tile_lines<S>];
  bool fresh[tile_lines<S>];
  const auto at = [&](auto* base, int slot, std::size_t j) { return base + static_cast<std::ptrdiff_t>(j) * step[slot]; };
  for (std::size_t j = 0; j < count; ++j) {
    s[j] = p.starts ? *at(p.starts, starts_slot, j) : op.start();
    fresh[j] = !p.starts;
  }
  if (l.include_initial) {
    for (std::size_t j = 0; j < count; ++j) *at(p.out, out_slot, j) = fresh[j] ? op.empty() : op.value(s[j]);
    p.out += l.axis[out_slot];
  }
  const std::size_t n = l.length;
  // The common mode: inclusive, no carries. After the first row every line has combined
  // something, so a row is one combine and one store per line, in a loop the compiler can
  // vectorize.
  if (inclusive) {
    const auto* in = p.in;
    auto* out = p.out;
    std::int64_t* index = p.index;
    const std::uint8_t* resets = p.resets;
    const auto position = [&](std::size_t k) { return static_cast<std::int64_t>(l.decreasing ? n - 1 - k : k); };
    for (std::size_t j = 0; j < count; ++j) s[j] = first_value(op, in[j], position(0));
    for (std::size_t k = 0;;) {
      for (std::size_t j = 0; j < count; ++j) out[j] = op.value(s[j]);
      if constexpr (Op::has_index)
        if (index) {
          for (std::size_t j = 0; j < count; ++j) index[j] = op.index(s[j]);
          index += l.axis[index_slot];
        }
      if (++k == n) return;
      in += l.axis[in_slot];
      out += l.axis[out_slot];
      // Rows far apart each start a stream the hardware prefetchers learn too late: the
      // row `rows_ahead` on is fetched now (an integer address: it may lie past the tensor).
      prefetch_run(in, l.axis[in_slot], count);
      const std::int64_t at_k = position(k);
      if (resets) {
        resets += l.axis[resets_slot];
        prefetch_run(resets, l.axis[resets_slot], count);
        for (std::size_t j = 0; j < count; ++j)
          s[j] = resets[j] ? first_value(op, in[j], at_k) : op.combine(s[j], in[j], at_k);
      } else {
        for (std::size_t j = 0; j < count; ++j) s[j] = op.combine(s[j], in[j], at_k);
      }
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const auto position = static_cast<std::int64_t>(l.decreasing ? n - 1 - k : k);
    for (std::size_t j = 0; j < count; ++j) {
      const typename Op::in_type x = *at(p.in, in_slot, j);
      if (l.has_resets && *at(p.resets, resets_slot, j)) {
        s[j] = op.start();
        fresh[j] = true;
      }
      typename Op::out_type* out = at(p.out, out_slot, j);
      if (l.exclusive) {
        *out = fresh[j] ? op.empty() : op.value(s[j]);
        s[j] = fresh[j] ? first_value(op, x, position) : op.combine(s[j], x, position);
      } else {
        s[j] = fresh[j] ? first_value(op, x, position) : op.combine(s[j], x, position);
        *out = op.value(s[j]);
        if constexpr (Op::has_index)
          if (p.index) *at(p.index, index_slot, j) = op.index(s[j]);
      }
      fresh[j] = false;
    }
    p.in += l.axis[in_slot];
    p.out += l.axis[out_slot];
    if (p.index) p.index += l.axis[index_slot];
    if (p.resets) p.resets += l.axis[resets_slot];
  }
  if (p.ends)
    for (std::size_t j = 0; j < count; ++j) *at(p.ends, ends_slot, j) = s[j];
}

/// The most neighbouring lines one tile task takes: a thread's share of the tile's extent
/// in multiples of 64 lines, at most the widest tile of the operator. One with a vector
/// form for rows takes wider tiles (whole rows of a matrix), since its running values are
/// small and a row of 16 KiB keeps the memory streams long; the generic loops take
/// tile_lines and run a wider tile in pieces of that.
template <class Op>
std::size_t tile_width(std::size_t extent, unsigned threads) noexcept {
  std::size_t widest = tile_lines<typename Op::state_type>;
  if constexpr (vector_rows<Op>::exists) widest = vector_rows<Op>::max_lines;
  const std::size_t per_thread = (extent + threads - 1) / threads;
  return (std::min)(widest, (std::max)(std::size_t{64}, (per_thread + 63) / 64 * 64));
}

/// Inlined: GCC, calling it, wrote the copy's fields with 8-byte stores and read them back
/// with 16-byte loads, which the store buffer cannot forward (exact float32 lines of 64
/// elements: 10.6 -> 5.8 ms for 16M elements, memcpy about 3.5).
template <class Op>
TALLY_ALWAYS_INLINE pointers<Op> moved(pointers<Op> p, const std::ptrdiff_t* offset) noexcept {
  p.in += offset[in_slot];
  p.out += offset[out_slot];
  if (p.index) p.index += offset[index_slot];
  if (p.resets) p.resets += offset[resets_slot];
  if (p.starts) p.starts += offset[starts_slot];
  if (p.ends) p.ends += offset[ends_slot];
  return p;
}

/// The row form over a tile, where it applies: the lines next to each other in memory;
/// include_initial and exclusive as the inclusive rows one row further on, after a row of
/// empty values (or the carries); exclusive reads row k - 1 where it writes row k, so not
/// in place, nor with resets (which restart a line at its own row); carries only where the
/// form can start from them (resumable_rows). Returns false, having written nothing that
/// the generic loops will not write again, where the form does not apply.
template <class Op>
bool scan_tile_rows(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count) {
  using S = typename Op::state_type;
  const bool carried = p.starts || p.ends;
  if (step[in_slot] != 1 || step[out_slot] != 1 || (p.resets && step[resets_slot] != 1) ||
      (p.index && step[index_slot] != 1) || (l.exclusive && (l.in_place || p.resets)) ||
      (l.length == 0 && !l.include_initial))
    return false;
  if constexpr (!resumable_rows<Op>)
    if (carried) return false;
  const bool shifted = l.include_initial || l.exclusive;
  const std::size_t rows = l.exclusive ? l.length - 1 : l.length;
  // Rows narrower than tuning::stream_row_bytes are stored plainly: their ends share
  // cache lines with the non-temporal steps, and a line written partly by each is flushed
  // and fetched again (exact float32 [1M, 16] down axis 0 with AVX2: 3.9x memcpy
  // increasing, 54x decreasing).
  const bool stream = l.stream && count * sizeof(typename Op::out_type) >= tuning::stream_row_bytes;
  const row_tile<typename Op::in_type, typename Op::out_type> tile{
      p.in,     shifted ? p.out + l.axis[out_slot] : p.out,
      p.resets, p.index, count, rows, l.axis[in_slot], l.axis[out_slot], l.axis[resets_slot],
      l.axis[index_slot], l.decreasing, stream, p.next_in};
  if (!carried) {
    if (shifted)
      for (std::size_t j = 0; j < count; ++j) p.out[j] = op.empty();
    return rows == 0 || vector_rows<Op>::scan(tile);
  }
  if constexpr (resumable_rows<Op>) {
    // The carries, packed for the form: each line's start, then its end.
    std::unique_ptr<S[]> packed(new (std::nothrow) S[2 * count]);
    if (!packed) return false;
    S* starts = p.starts ? packed.get() : nullptr;
    S* ends = packed.get() + count;
    for (std::size_t j = 0; p.starts && j < count; ++j)
      starts[j] = p.starts[static_cast<std::ptrdiff_t>(j) * step[starts_slot]];
    if (shifted)
      for (std::size_t j = 0; j < count; ++j) p.out[j] = starts ? op.value(starts[j]) : op.empty();
    if (rows == 0) {
      for (std::size_t j = 0; j < count; ++j) ends[j] = starts ? starts[j] : op.start();
    } else if (!vector_rows<Op>::scan(tile, starts, ends)) {
      return false;
    }
    if (l.exclusive) {  // the last row is read but not written
      const typename Op::in_type* last = p.in + static_cast<std::ptrdiff_t>(rows) * l.axis[in_slot];
      const auto position = static_cast<std::int64_t>(l.decreasing ? 0 : rows);
      for (std::size_t j = 0; j < count; ++j)
        ends[j] = rows == 0 && !starts ? first_value(op, last[j], position) : op.combine(ends[j], last[j], position);
    }
    for (std::size_t j = 0; p.ends && j < count; ++j) p.ends[static_cast<std::ptrdiff_t>(j) * step[ends_slot]] = ends[j];
  }
  return true;
}

/// transpose_plane, with the SIMD engine's block transposes (kernel_set::scatter) for
/// float and double whose source runs along +1. In strips of 16 source runs: each of a
/// strip's cache lines is used whole before the next strip starts, where one pass of the
/// block transposes over all runs would come back to every line once per block, after runs
/// a power of two apart (16 KiB, as in a 4096 x 4096 matrix) had evicted it from their few
/// cache sets.
template <class T>
void transpose_plane_simd(const T* src, std::size_t na, std::size_t nb, std::ptrdiff_t sa, std::ptrdiff_t sb, T* dst,
                          std::ptrdiff_t da) noexcept {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (sa == 1 && sb > 0) {
      // scatter's tile: element (j, i) at src[j * sb + i]; its output element (j, i) at dst[j + i * da].
      constexpr std::size_t strip = 16;
      for (std::size_t j = 0; j < nb; j += strip)
        select_kernels<sum_op, T>().scatter(src + static_cast<std::ptrdiff_t>(j) * sb, (std::min)(strip, nb - j), na,
                                            static_cast<std::size_t>(sb), dst + j, 1, da, false);
      return;
    }
  }
  transpose_plane(src, na, nb, sa, sb, dst, da);
}

/// A gathered tile's shape: at most gathered_lines<T> lines (T: the input's element),
/// chunks of gathered_depth rows (64 KiB of float or double in the buffer, which stays in
/// L2: exact float64 sums of 16M elements in lines of 48 took 73 ms in tiles of 256 lines,
/// 23 ms in tiles of 128).
inline constexpr std::size_t gathered_depth = 64;
template <class T>
inline constexpr std::size_t gathered_lines = sizeof(T) == 8 ? 128 : 256;

/// The shortest lines that go through the two transposes of a gathered tile, vector ones
/// from 8 rows: shorter lines are faster in the generic loops (exact float32 [4M, 4]: 50
/// ms there, 58 ms gathered; [2M, 8]: 46 and 32 ms; [1M, 15]: 59 and 33 ms), unless the
/// operator's combine is the greater cost (gathers_short_lines: any length) or its row form
/// declares its own measure (`static constexpr std::size_t gathered_from`).
template <class Op, class = void>
inline constexpr std::size_t gathered_length_from = gathers_short_lines<Op> ? 0 : 8;
template <class Op>
inline constexpr std::size_t gathered_length_from<Op, std::void_t<decltype(vector_rows<Op>::gathered_from)>> =
    vector_rows<Op>::gathered_from;

/// Whether the gathered tile below takes a tile whose rows do not run along memory in both
/// operands: each operand's rows run along memory or its axis does (a transposed view, on
/// one side; short lines, on both).
template <class Op>
bool gathered_layout(const layout& l, const std::ptrdiff_t* step) noexcept {
  if constexpr (!resumable_rows<Op> && !gathers_short_lines<Op>) {
    (void)l, (void)step;
    return false;
  } else {
    if (l.has_index || l.has_resets || l.length == 0) return false;
    if (!resumable_rows<Op> && (l.length > gathered_depth || l.has_starts || l.has_ends)) return false;
    const bool in_ok = step[in_slot] == 1 || magnitude(l.axis[in_slot]) == 1;
    const bool out_ok = step[out_slot] == 1 || magnitude(l.axis[out_slot]) == 1;
    const bool both = step[in_slot] != 1 && step[out_slot] != 1;
    return in_ok && out_ok && (step[in_slot] != 1 || step[out_slot] != 1) &&
           !(both && l.length < gathered_length_from<Op>);
  }
}

/// The gathered tiles' buffers, made once for all the tiles of a scan_tile call (made for
/// each tile, short lines spent more time in malloc and page faults than in their scans).
template <class Op>
struct gathered_buffers {
  std::unique_ptr<typename Op::in_type[]> in;
  std::unique_ptr<typename Op::out_type[]> out;
  std::unique_ptr<typename Op::state_type[]> running;  // two chunks' running values
  bool ready = false;
  gathered_buffers(const layout& l, const std::ptrdiff_t* step, std::size_t lines) {
    const std::size_t depth = (std::min)(gathered_depth, l.length);
    if (step[in_slot] != 1) in.reset(new (std::nothrow) typename Op::in_type[depth * lines]);
    if (step[out_slot] != 1) out.reset(new (std::nothrow) typename Op::out_type[(depth + 1) * lines]);
    running.reset(new (std::nothrow) typename Op::state_type[2 * lines]);
    ready = (step[in_slot] == 1 || in) && (step[out_slot] == 1 || out) && running;
  }
};

/// A tile of at most gathered_lines<In> lines whose rows do not run along memory in an
/// operand (gathered_layout): chunks of gathered_depth rows go through the buffers, transposed on
/// the way in (the input's lines gathered into rows) and/or on the way out, and the row
/// form runs between them, each chunk resuming from the last one's running values
/// (resumable row forms). Returns false where the row form did not run; the generic loops
/// then write every output again.
template <class Op>
bool scan_tile_gathered(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count,
                        gathered_buffers<Op>& buffers) {
  using In = typename Op::in_type;
  using Out = typename Op::out_type;
  using S = typename Op::state_type;
  In* const in_buffer = buffers.in.get();
  Out* const out_buffer = buffers.out.get();
  S* const running = buffers.running.get();
  const auto row_count = static_cast<std::ptrdiff_t>(count);
  std::ptrdiff_t chunk_step[slot_count] = {1, 1, 0, 0, 1, 1};
  for (std::size_t k0 = 0, chunk = 0; k0 < l.length; k0 += gathered_depth, ++chunk) {
    const std::size_t rows = (std::min)(gathered_depth, l.length - k0);
    const bool first = k0 == 0, initial = l.include_initial && first;
    // This chunk's first output row: row k0, one further after include_initial's row.
    const std::ptrdiff_t out_row = static_cast<std::ptrdiff_t>(k0) + (l.include_initial && !first ? 1 : 0);
    layout c = l;
    c.length = rows;
    c.include_initial = initial;
    pointers<Op> q;
    if constexpr (resumable_rows<Op>) {
      q.starts = first ? p.starts : running + (chunk + 1) % 2 * count;
      q.ends = running + chunk % 2 * count;
    }  // (else one chunk without carries: gathered_layout)
    chunk_step[starts_slot] = first && p.starts ? step[starts_slot] : 1;
    // A buffer holds its rows in memory order (the transposes read and write ascending
    // runs); along a decreasing axis the row form walks it downwards.
    const bool in_down = l.axis[in_slot] < 0, out_down = l.axis[out_slot] < 0;
    const std::size_t written = rows + (initial ? 1 : 0);  // output rows
    if (in_buffer) {
      const In* rows_in = p.in + static_cast<std::ptrdiff_t>(k0) * l.axis[in_slot];
      transpose_plane_simd(in_down ? rows_in - (rows - 1) : rows_in, rows, count, 1, step[in_slot], in_buffer,
                           row_count);
      q.in = in_down ? in_buffer + static_cast<std::ptrdiff_t>(rows - 1) * row_count : in_buffer;
      c.axis[in_slot] = in_down ? -row_count : row_count;
    } else {
      q.in = p.in + static_cast<std::ptrdiff_t>(k0) * l.axis[in_slot];
      q.next_in = k0 + rows < l.length ? q.in + static_cast<std::ptrdiff_t>(rows) * l.axis[in_slot] : p.next_in;
    }
    if (out_buffer) {
      q.out = out_down ? out_buffer + static_cast<std::ptrdiff_t>(written - 1) * row_count : out_buffer;
      c.axis[out_slot] = out_down ? -row_count : row_count;
      c.stream = false;
    } else {
      q.out = p.out + out_row * l.axis[out_slot];
    }
    if (!scan_tile_rows(op, c, q, chunk_step, count)) return false;
    if (out_buffer) {  // buffer row m, lane j -> the output row at the m-th lowest address of line j
      Out* to = p.out + out_row * l.axis[out_slot];
      transpose_plane_simd(out_buffer, count, written, 1, row_count,
                           out_down ? to - static_cast<std::ptrdiff_t>(written - 1) : to, step[out_slot]);
    }
  }
  const S* ends = running + (l.length - 1) / gathered_depth % 2 * count;
  for (std::size_t j = 0; p.ends && j < count; ++j) p.ends[static_cast<std::ptrdiff_t>(j) * step[ends_slot]] = ends[j];
  return true;
}

/// `count` neighbouring lines: the operator's vector form for rows where it applies (as
/// they are, or through gathered chunks), else the generic loops in pieces of tile_lines.
template <class Op>
void scan_tile(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count) {
  if constexpr (vector_rows<Op>::exists) {
    if (scan_tile_rows(op, l, p, step, count)) return;
    if constexpr (resumable_rows<Op> || gathers_short_lines<Op>) {
      if (gathered_layout<Op>(l, step)) {
        constexpr std::size_t lines = gathered_lines<typename Op::in_type>;
        gathered_buffers<Op> buffers(l, step, (std::min)(lines, count));
        bool done = buffers.ready;
        for (std::size_t first = 0; first < count && done; first += lines) {
          std::ptrdiff_t offset[slot_count];
          for (int s = 0; s < slot_count; ++s) offset[s] = static_cast<std::ptrdiff_t>(first) * step[s];
          done = scan_tile_gathered(op, l, moved(p, offset), step, (std::min)(lines, count - first), buffers);
        }
        if (done) return;
      }
    }
  }
  constexpr std::size_t narrow = tile_lines<typename Op::state_type>;
  for (std::size_t first = 0; first < count; first += narrow) {
    std::ptrdiff_t offset[slot_count];
    for (int s = 0; s < slot_count; ++s) offset[s] = static_cast<std::ptrdiff_t>(first) * step[s];
    scan_tile_loops(op, l, moved(p, offset), step, (std::min)(narrow, count - first));
  }
}

/// The outer dimension whose neighbouring lines are scanned together (row by row), or
/// l.outer_rank for none: the one with the smallest input stride, where that is smaller
/// than the axis's (the axis does not run along the input's memory).
template <class Op>
std::size_t tile_dim_of(const layout& l) noexcept {
  std::size_t tile_dim = l.outer_rank;
  if constexpr (std::is_default_constructible_v<typename Op::state_type>) {
    // Short lines are tiled whatever their strides: a line costs a few nanoseconds to
    // start, more than its elements do (exact float32 lines of 4 elements: 8 ns per
    // element one line at a time, 2 ns in tiles; a line of one element: 7 ns and 0.8 ns).
    // Not a chunk that goes on from carries: it is the end of a longer line, whose arithmetic
    // (a line form's grouping) it keeps.
    // (Lines with carries out take the line form one at a time, in the same arithmetic: a
    // carry_out must not change the outputs.)
    // (Indices, where wanted, laid out as the output: what a multi-line form takes.)
    const bool multi_line = (!l.exclusive || exclusive_moves<Op>) && !l.include_initial && !l.has_starts &&
                            along_memory(l) && (!l.has_index || l.axis[index_slot] == l.axis[out_slot]);
    const std::size_t last = l.outer_rank - 1;  // the innermost of the dimensions walked, if not tiled
    const bool packed = l.outer_rank > 0 && l.strides[in_slot][last] == l.strides[out_slot][last] &&
                        magnitude(l.strides[in_slot][last]) == l.length &&
                        (!l.has_index || l.strides[index_slot][last] == l.strides[out_slot][last]);
    const bool short_lines =
        l.length < line_form_length<Op>(l.lines(), multi_line, packed, l.has_index, l.has_resets) && !l.has_starts;
    const auto along = short_lines ? (std::numeric_limits<std::uint64_t>::max)() : magnitude(l.axis[in_slot]);
    for (std::size_t d = 0; d < l.outer_rank; ++d)
      if (magnitude(l.strides[in_slot][d]) < along &&
          (tile_dim == l.outer_rank || magnitude(l.strides[in_slot][d]) < magnitude(l.strides[in_slot][tile_dim])))
        tile_dim = d;
  }
  if constexpr (resumable_rows<Op>) {
    // The axis along the input's memory but not the output's (a transposed view into a
    // packed output, say): tiles across the output's contiguous dimension, gathered
    // (scan_tile_gathered) instead of lines that write one element per cache line.
    if (tile_dim == l.outer_rank && !l.has_index && !l.has_resets && l.length > 0 &&
        magnitude(l.axis[in_slot]) == 1 && l.axis[out_slot] != l.axis[in_slot])
      for (std::size_t d = 0; d < l.outer_rank; ++d)
        if (l.strides[out_slot][d] == 1) tile_dim = d;
  }
  return tile_dim;
}

/// Runs a checked scan whose operands do not overlap (except exactly in place).
template <class Op>
void run(const Op& op, layout l, pointers<Op> p, const executor& exec) {
  p = moved(p, l.offset);
  const std::size_t tile_dim = tile_dim_of<Op>(l);
  const bool tiled = tile_dim < l.outer_rank;
  if (tiled) {  // move tile_dim last (loop order only: lines are independent)
    for (std::size_t d = tile_dim; d + 1 < l.outer_rank; ++d) {
      std::swap(l.extents[d], l.extents[d + 1]);
      for (int s = 0; s < slot_count; ++s) std::swap(l.strides[s][d], l.strides[s][d + 1]);
    }
  }
  const std::size_t walked = tiled ? l.outer_rank - 1 : l.outer_rank;
  nd_walker<slot_count> origin;
  origin.dims = walked;
  for (std::size_t d = 0; d < walked; ++d) {
    origin.extents[d] = l.extents[d];
    for (int s = 0; s < slot_count; ++s) origin.strides[s][d] = l.strides[s][d];
  }
  std::size_t walked_count = 1;
  for (std::size_t d = 0; d < walked; ++d) walked_count *= l.extents[d];
  const std::size_t tile_extent = tiled ? l.extents[l.outer_rank - 1] : 1;
  const std::size_t width = tile_width<Op>(tile_extent, exec.threads);
  const std::size_t tiles = (tile_extent + width - 1) / width;
  const std::size_t tasks = tiled ? walked_count * tiles : walked_count;
  if (tasks == 0) return;

  const std::size_t elements = l.lines() * std::max<std::size_t>(l.length, 1);
  const std::size_t parts =
      std::min<std::size_t>(exec.threads, std::max<std::size_t>(1, elements / tuning::min_elements_per_part));
  auto lines_and_tiles = [&](std::size_t begin, std::size_t end) {
    if (!tiled) return scan_lines(op, l, p, origin, begin, end);
    nd_walker<slot_count> w = origin;
    std::ptrdiff_t step[slot_count];
    for (int s = 0; s < slot_count; ++s) step[s] = l.strides[s][l.outer_rank - 1];
    // Tile t's first column (t mod tiles: no printf-like "%t" for the check) and offsets.
    const auto first_of = [&](std::size_t t) { return (t - t / tiles * tiles) * width; };
    const auto offsets_of = [&](std::size_t t, std::ptrdiff_t* offset) {
      w.start(t / tiles);
      for (int s = 0; s < slot_count; ++s) offset[s] = w.offset[s] + static_cast<std::ptrdiff_t>(first_of(t)) * step[s];
    };
    for (std::size_t t = begin; t < end; ++t) {
      std::ptrdiff_t offset[slot_count];
      pointers<Op> q = p;
      if (t + 1 < tasks) {  // the next tile's input, which the row forms prefetch with this tile's last rows
        offsets_of(t + 1, offset);
        q.next_in = p.in + offset[in_slot];
      }
      offsets_of(t, offset);
      scan_tile(op, l, moved(q, offset), step, (std::min)(width, tile_extent - first_of(t)));
    }
  };
  auto job = [&](std::size_t begin, std::size_t end) {
    lines_and_tiles(begin, end);
    if (l.stream) store_fence();  // a part that may have streamed fences once at its end
  };
  parallel_ranges(exec, tasks, parts, job);
}

/// A view's data, layout (size-1 strides zeroed) and element size.
template <class T>
placed_layout place(const T* data, const strided_layout& layout) noexcept {
  return {data, layout.without_unit_strides(), sizeof(T)};
}

/// An operand's data and layout.
template <class T>
struct operand {
  T* data;
  strided_layout layout;
};

/// Checks, stages inputs that overlap an output, and runs: throws tally::error on invalid
/// arguments, before writing anything. `index`, `resets`, `starts` and `ends` may be
/// absent (null data and rank 0; a carry of a 1-D scan is rank 0 with data).
template <class Op>
void scan(const Op& op, op_traits traits, const typename Op::in_type* in, const strided_layout& in_layout,
          typename Op::out_type* out, const strided_layout& out_layout, std::int64_t* index,
          const strided_layout& index_layout, const std::uint8_t* resets, const strided_layout& resets_layout,
          int axis, const scan_options& options, operand<const typename Op::state_type> starts = {},
          operand<typename Op::state_type> ends = {}) {
  using In = typename Op::in_type;
  operands p{place(in, in_layout),         place(out, out_layout),           place(index, index_layout),
             place(resets, resets_layout), place(starts.data, starts.layout), place(ends.data, ends.layout)};
  layout l;
  if (status s = check(p, axis, options, traits, l); !s) throw error(s);
  // (An empty axis still has lines, whose carries pass through: carry_out = carry_in.)
  if (p.out.layout.empty() && !(l.has_ends && l.lines() > 0)) return;

  // Inputs that an output would overwrite before they are read: stage them.
  const auto overlaps_an_output = [&](const placed_layout& input, bool exact_in_place_ok) {
    if (input.layout.rank == 0) return false;
    const bool in_place = exact_in_place_ok && same_elements(input, p.out) && input.element == p.out.element;
    return (may_overlap(input, p.out) && !in_place) || (p.index.layout.rank != 0 && may_overlap(input, p.index));
  };
  std::unique_ptr<In[]> staged_in;
  std::unique_ptr<std::uint8_t[]> staged_resets;
  const auto stage = [&](auto& holder, auto*& data, placed_layout& view, const char* name) {
    holder = packed_copy(data, view.layout);
    if (!holder)
      throw error(status(status_code::out_of_memory,
                         "%s: cannot allocate the %llu-element copy of the %s, which overlaps an output", traits.name,
                         ull(view.layout.count()), name));
    data = holder.get();
  };
  // Staging changes only where the data lives (packed), not its shape: recheck to get
  // the new strides.
  bool restaged = false;
  if (!in_layout.empty() && overlaps_an_output(p.in, true)) {
    stage(staged_in, in, p.in, "input");
    p.in = place(in, strided_layout::packed(in_layout.rank, in_layout.extents));
    restaged = true;
  }
  if (resets && overlaps_an_output(p.resets, false)) {
    stage(staged_resets, resets, p.resets, "resets");
    p.resets = place(resets, strided_layout::packed(resets_layout.rank, resets_layout.extents));
    restaged = true;
  }
  if (restaged)
    if (status s = check(p, axis, options, traits, l); !s) throw error(s);
  // Non-temporal stores for outputs too large to stay in cache (as the SIMD engine's plan):
  // not in place, where the output lines are read just before they are written.
  l.in_place = same_elements(p.in, p.out);
  l.stream = !l.in_place && p.out.layout.count() * sizeof(typename Op::out_type) >= tuning::nontemporal_bytes;
  const executor exec = executor::from(options);
  if constexpr (single_element_is_copy_v<Op>)
    if (l.length == 1 && !l.exclusive && !l.include_initial && !l.has_index && !l.has_resets && !l.has_starts &&
        !l.has_ends) {
      axis_of_one_layout copy;
      copy.rank = l.outer_rank;
      for (std::size_t d = 0; d < l.outer_rank; ++d) {
        copy.extents[d] = l.extents[d];
        copy.strides[0][d] = l.strides[in_slot][d];
        copy.strides[1][d] = l.strides[out_slot][d];
      }
      if (copy_axis_of_one(copy, in + l.offset[in_slot], out + l.offset[out_slot], l.stream, exec)) return;
    }
  pointers<Op> ptr{in, out, index, resets, starts.data, ends.data};
  run(op, l, ptr, exec);
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
