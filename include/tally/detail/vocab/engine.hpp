// The vocabulary engine: one engine for every operator of detail/ops/ (widening and
// NaN-skipping sums and products, cummax / cummin, logcumsumexp, user operators, complex
// and bfloat16 elements, segmented scans). It validates with the typed layer's rules,
// stages overlapping inputs, and folds each line sequentially in scan order, with the
// lines split between threads. A line's arithmetic never depends on the threads or on
// the tiling, so results are bitwise the same for every thread count.
//
// Operands ("slots"): the input, the output (one longer along the axis with
// include_initial), an optional int64 index output (cummax / cummin) and an optional
// uint8 reset-flag input of the input's shape (segmented scans).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "../../scan_options.hpp"
#include "../../status.hpp"
#include "../layout/overlap.hpp"
#include "../ops/concept.hpp"
#include "../plan/tuning.hpp"
#include "../run/executor.hpp"
#include "prefetch.hpp"
#include "nan_skipping_kernels.hpp"
#include "vector_extremum_rows.hpp"
#include "vector_segmented_lines.hpp"
#include "vector_arithmetic_rows.hpp"
#include "vector_exact_lines.hpp"
#include "vector_lines.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

enum slot : int { in_slot = 0, out_slot = 1, index_slot = 2, resets_slot = 3 };
inline constexpr int slot_count = 4;

/// Lines of `tile_lines<S>` neighbours are scanned together (row by row) when the axis is
/// not contiguous in the input: each row then reads a run of nearby addresses instead of
/// one element per cache line. About 16 KiB of running values (so they stay in L1), at
/// least 64 and at most 512 lines (a run of 512 floats is half a page, long enough for the
/// prefetchers; wider tiles would leave fewer tasks for threads).
template <class S>
inline constexpr std::size_t tile_lines = std::min<std::size_t>(512, std::max<std::size_t>(64, 16384 / sizeof(S)));

/// A validated scan: the axis in scan order (decreasing directions already folded into
/// negative strides and offsets), the outer dimensions, per slot.
struct layout {
  std::size_t length = 0;  // input elements per line
  bool decreasing = false, exclusive = false, include_initial = false;
  bool has_index = false, has_resets = false;
  bool stream = false;  // non-temporal stores where a vector form can: a large output, not in place
  std::ptrdiff_t axis[slot_count] = {};
  std::size_t outer_rank = 0;
  std::size_t extents[max_rank] = {};
  std::ptrdiff_t strides[slot_count][max_rank] = {};
  std::ptrdiff_t offset[slot_count] = {};

  std::size_t lines() const noexcept {
    std::size_t n = 1;
    for (std::size_t d = 0; d < outer_rank; ++d) n *= extents[d];
    return n;
  }
};

/// The caller's operands, as placed layouts (rank 0: absent).
struct operands {
  placed_layout in, out, index, resets;
};

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

  l = layout{};
  l.length = length;
  l.decreasing = options.direction == axis_direction::decreasing;
  l.exclusive = options.exclusive;
  l.include_initial = options.include_initial;
  l.has_index = p.index.layout.rank != 0;
  l.has_resets = p.resets.layout.rank != 0;
  const placed_layout* views[slot_count] = {&p.in, &p.out, &p.index, &p.resets};
  for (int s = 0; s < slot_count; ++s) {
    const strided_layout& v = views[s]->layout;
    if (v.rank == 0) continue;
    const std::size_t n = v.extents[axis];
    l.axis[s] = n > 1 ? v.strides[axis] : 0;
    if (l.decreasing && n > 1) {
      l.offset[s] = static_cast<std::ptrdiff_t>(n - 1) * l.axis[s];
      l.axis[s] = -l.axis[s];
    }
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (d == axis || p.in.layout.extents[d] == 1) continue;
    l.extents[l.outer_rank] = p.in.layout.extents[d];
    for (int s = 0; s < slot_count; ++s)
      l.strides[s][l.outer_rank] = views[s]->layout.rank ? views[s]->layout.strides[d] : 0;
    ++l.outer_rank;
  }
  if (length == 0)  // the input (and indices) have no elements: never step their pointers
    for (int s : {in_slot, index_slot, resets_slot})
      for (std::size_t d = 0; d < l.outer_rank; ++d) l.strides[s][d] = 0;
  return {};
}

/// The base pointers, moved to each line's first element in scan order.
template <class Op>
struct pointers {
  const typename Op::in_type* in = nullptr;
  typename Op::out_type* out = nullptr;
  std::int64_t* index = nullptr;
  const std::uint8_t* resets = nullptr;
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

template <class Op>
void scan_line(const Op& op, const layout& l, pointers<Op> p) {
  if (!l.exclusive && l.length > 0) {
    if (l.include_initial) {
      *p.out = op.empty();
      p.out += l.axis[out_slot];
    }
    if constexpr (vector_line<Op>::exists) {
      const std::ptrdiff_t si = l.axis[in_slot];
      const line_span<typename Op::in_type, typename Op::out_type> line{
          p.in, p.out, l.has_resets ? p.resets : nullptr, p.index, l.length, si < 0, l.decreasing, l.stream};
      if ((si == 1 || si == -1) && l.axis[out_slot] == si && (!l.has_resets || l.axis[resets_slot] == si) &&
          (!p.index || l.axis[index_slot] == si) && vector_line<Op>::scan(line))
        return;
    }
    // (A reset flag on a line's first element changes nothing: the line starts there.)
    if (l.has_resets) return scan_line_inclusive<Op, false, true>(op, l, p);
    if constexpr (Op::has_index)
      if (p.index) return scan_line_inclusive<Op, true, false>(op, l, p);
    return scan_line_inclusive<Op, false, false>(op, l, p);
  }
  typename Op::state_type s = op.start();
  bool fresh = true;  // nothing combined since the start (or the last reset)
  const std::ptrdiff_t si = l.axis[in_slot], so = l.axis[out_slot], sx = l.axis[index_slot],
                       sr = l.axis[resets_slot];
  if (l.include_initial) {
    *p.out = op.empty();
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
}

/// `count` (at most tile_lines) neighbouring lines (`step` apart per slot), row by row:
/// the same folds as scan_line, in another loop order.
template <class Op>
void scan_tile_loops(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count) {
  using S = typename Op::state_type;
  S s[tile_lines<S>];
  bool fresh[tile_lines<S>];
  for (std::size_t j = 0; j < count; ++j) {
    s[j] = op.start();
    fresh[j] = true;
  }
  const auto at = [&](auto* base, int slot, std::size_t j) { return base + static_cast<std::ptrdiff_t>(j) * step[slot]; };
  if (l.include_initial) {
    for (std::size_t j = 0; j < count; ++j) *at(p.out, out_slot, j) = op.empty();
    p.out += l.axis[out_slot];
  }
  const std::size_t n = l.length;
  // The common mode: inclusive, no resets. After the first row every line has combined
  // something, so a row is one combine and one store per line; unit steps (neighbouring
  // lines next to each other in memory) get a loop the compiler can vectorize.
  const bool unit = step[in_slot] == 1 && step[out_slot] == 1 && (!p.index || step[index_slot] == 1) &&
                    (!p.resets || step[resets_slot] == 1);
  if (!l.exclusive && n > 0 && unit) {
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
}

/// The most neighbouring lines one tile task takes: an operator with a vector form for
/// rows takes wider tiles (whole rows of a matrix where threads allow), since its running
/// values are small and a row of 16 KiB keeps the memory streams long; the generic loops
/// then run the tile in pieces of tile_lines.
template <class Op>
std::size_t tile_width(std::size_t extent, unsigned threads) noexcept {
  constexpr std::size_t narrow = tile_lines<typename Op::state_type>;
  if constexpr (vector_rows<Op>::exists) {
    const std::size_t per_thread = (extent + threads - 1) / threads;
    return std::min<std::size_t>(vector_rows<Op>::max_lines, std::max<std::size_t>(narrow, (per_thread + 63) / 64 * 64));
  }
  return narrow;
}

template <class Op>
pointers<Op> moved(pointers<Op> p, const std::ptrdiff_t* offset) noexcept {
  p.in += offset[in_slot];
  p.out += offset[out_slot];
  if (p.index) p.index += offset[index_slot];
  if (p.resets) p.resets += offset[resets_slot];
  return p;
}

/// `count` neighbouring lines: the operator's vector form for rows where it applies
/// (inclusive, no indices or resets, the lines next to each other in memory), else the
/// generic loops in pieces of tile_lines.
template <class Op>
void scan_tile(const Op& op, const layout& l, pointers<Op> p, const std::ptrdiff_t* step, std::size_t count) {
  if constexpr (vector_rows<Op>::exists) {
    const row_tile<typename Op::in_type, typename Op::out_type> tile{
        p.in,           p.out,           p.resets,           p.index,           count,        l.length,
        l.axis[in_slot], l.axis[out_slot], l.axis[resets_slot], l.axis[index_slot], l.decreasing, l.stream};
    if (!l.exclusive && !l.include_initial && l.length > 0 && step[in_slot] == 1 && step[out_slot] == 1 &&
        (!p.resets || step[resets_slot] == 1) && (!p.index || step[index_slot] == 1) && vector_rows<Op>::scan(tile))
      return;
  }
  constexpr std::size_t narrow = tile_lines<typename Op::state_type>;
  for (std::size_t first = 0; first < count; first += narrow) {
    std::ptrdiff_t offset[slot_count];
    for (int s = 0; s < slot_count; ++s) offset[s] = static_cast<std::ptrdiff_t>(first) * step[s];
    scan_tile_loops(op, l, moved(p, offset), step, (std::min)(narrow, count - first));
  }
}

/// Runs a checked scan whose operands do not overlap (except exactly in place).
template <class Op>
void run(const Op& op, layout l, pointers<Op> p, const executor& exec) {
  p = moved(p, l.offset);
  // Tile neighbouring lines when the axis does not run along the input's memory and
  // some outer dimension does better (the smallest input stride goes last).
  std::size_t tile_dim = l.outer_rank;
  if constexpr (std::is_default_constructible_v<typename Op::state_type>) {
    for (std::size_t d = 0; d < l.outer_rank; ++d)
      if (magnitude(l.strides[in_slot][d]) < magnitude(l.axis[in_slot]) &&
          (tile_dim == l.outer_rank || magnitude(l.strides[in_slot][d]) < magnitude(l.strides[in_slot][tile_dim])))
        tile_dim = d;
  }
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
    nd_walker<slot_count> w = origin;
    if (!tiled) {
      w.start(begin);
      for (std::size_t i = begin; i < end; ++i, w.next()) scan_line(op, l, moved(p, w.offset));
      return;
    }
    std::ptrdiff_t step[slot_count];
    for (int s = 0; s < slot_count; ++s) step[s] = l.strides[s][l.outer_rank - 1];
    for (std::size_t t = begin; t < end; ++t) {
      w.start(t / tiles);
      const std::size_t first = (t - t / tiles * tiles) * width;  // (t mod tiles): no printf-like "%t" for the check
      std::ptrdiff_t offset[slot_count];
      for (int s = 0; s < slot_count; ++s) offset[s] = w.offset[s] + static_cast<std::ptrdiff_t>(first) * step[s];
      scan_tile(op, l, moved(p, offset), step, (std::min)(width, tile_extent - first));
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

/// Checks, stages inputs that overlap an output, and runs: throws tally::error on invalid
/// arguments, before writing anything. `index` and `resets` may be null (absent).
template <class Op>
void scan(const Op& op, op_traits traits, const typename Op::in_type* in, const strided_layout& in_layout,
          typename Op::out_type* out, const strided_layout& out_layout, std::int64_t* index,
          const strided_layout& index_layout, const std::uint8_t* resets, const strided_layout& resets_layout,
          int axis, const scan_options& options) {
  using In = typename Op::in_type;
  operands p{place(in, in_layout), place(out, out_layout), place(index, index_layout),
             place(resets, resets_layout)};
  layout l;
  if (status s = check(p, axis, options, traits, l); !s) throw error(s);
  if (p.out.layout.empty()) return;

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
  l.stream = !same_elements(p.in, p.out) &&
             p.out.layout.count() * sizeof(typename Op::out_type) >= tuning::nontemporal_bytes;
  pointers<Op> ptr{in, out, index, resets};
  run(op, l, ptr, executor::from(options));
}

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
