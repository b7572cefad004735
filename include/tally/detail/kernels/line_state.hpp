// The running state of one line, kept between the pieces a line is cut into (SIMD
// vectors, cache tiles, thread blocks, caller chunks).
//
// Floating-point lines are summed in fixed blocks of `block_elements`: inside a block the
// kernel keeps a `local` combination from the block start, and every output is
// `offset (op) local`, where `offset` combines all earlier blocks. Because the blocks do
// not depend on the thread count, a line split across threads (each thread reduces its
// blocks, the offsets are combined in order, then each thread scans) produces the same
// bits as one thread. For integers the arithmetic is exact, so the blocks change nothing.
#pragma once

#include <cstddef>

#include "ops.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Elements per block; a multiple of every SIMD width. Chunked scans of floating-point
/// data reproduce one call bitwise when each chunk is a multiple of this length.
inline constexpr std::size_t block_elements = 4096;

/// The longest line the short_lines kernel takes (longer lines fill vectors on their own).
inline constexpr std::size_t short_line_max = 256;

template <class A>
struct line_state {
  A offset;                  // combination of all elements before the current block
  A local;                   // combination of the current block's elements so far
  A last;                    // last inclusive output, or the exclusive start value
  std::size_t position = 0;  // elements of the current block already scanned

  /// A line with nothing before it (start = identity, last = empty) or after a carry.
  template <class Op>
  static line_state begin(A start, A exclusive_start) noexcept {
    return line_state{start, Op::template identity<A>(), exclusive_start, 0};
  }
  /// The running total after everything scanned so far (the carry-out). Exact when
  /// `local` is the identity: x + -0.0 == x and x * 1 == x for every x.
  template <class Op>
  A total() const noexcept {
    return Op::combine(offset, local);
  }
};

}  // namespace detail
TALLY_END_NAMESPACE
