// An inclusive scan along an axis of one element ([N, 1] along axis 1, [1, N] along
// axis 0) writes every element as it is: the identity combined with one element is that
// element, bit for bit, for every operator that takes this path (x + -0.0, x * 1, the
// exact mode's float -> double -> float, an integer's sum or product). So it is a copy,
// run here at memory's speed instead of through the scan kernels (exact float32 [16M, 1]:
// 2.1x memcpy through the packed-lines stream, a copy's time here). The one difference is
// a signalling NaN, which arithmetic would quiet and a copy keeps as it is (NumPy's
// cumsum keeps it too: its accumulate copies each line's first element).
//
// Both engines take it (run_scan and the vocabulary engine's exact sums and products),
// for layouts whose innermost outer dimension is contiguous in the input and the output;
// any other layout goes through the engines as before.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../layout/strided_layout.hpp"
#include "../plan/tuning.hpp"
#include "executor.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Copies `bytes` from `in` to `out` (not overlapping unless equal); `stream`: with
/// non-temporal stores (SSE2's, which every x86-64 has: as fast as 64-byte ones for a copy)
/// from the output's first 64-byte line, the head and tail around the lines copied plainly.
inline void copy_bytes(const unsigned char* in, unsigned char* out, std::size_t bytes, bool stream) noexcept {
  if (in == out) return;
#if TALLY_X86_SIMD
  if (stream) {
    const std::size_t head = (std::min)(bytes, (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
    std::memcpy(out, in, head);
    std::size_t i = head;
    for (; i + 64 <= bytes; i += 64) {
      const auto* s = reinterpret_cast<const __m128i*>(in + i);
      auto* d = reinterpret_cast<__m128i*>(out + i);
      const __m128i x0 = _mm_loadu_si128(s), x1 = _mm_loadu_si128(s + 1);
      const __m128i x2 = _mm_loadu_si128(s + 2), x3 = _mm_loadu_si128(s + 3);
      _mm_stream_si128(d, x0);
      _mm_stream_si128(d + 1, x1);
      _mm_stream_si128(d + 2, x2);
      _mm_stream_si128(d + 3, x3);
    }
    std::memcpy(out + i, in + i, bytes - i);
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(out, in, bytes);
}

/// The outer dimensions of a scan along an axis of one element, outermost first, with
/// the input's and the output's element strides.
struct axis_of_one_layout {
  std::size_t rank = 0;
  std::size_t extents[max_rank] = {};
  std::ptrdiff_t strides[2][max_rank] = {};  // [0]: input, [1]: output
};

/// Copies each element of `in` to its place in `out` when the layout's innermost dimension
/// is contiguous in both (or there is none: one element); false otherwise, having written
/// nothing. The output is not `in` shifted (the callers stage overlapping inputs), and is
/// streamed when `stream` and its runs are long. The work is cut into parts of whole
/// elements for the executor's threads, as a scan's tasks are.
template <class T>
bool copy_axis_of_one(const axis_of_one_layout& l, const T* in, T* out, bool stream, const executor& exec) noexcept {
  const bool contiguous = l.rank == 0 || (l.strides[0][l.rank - 1] == 1 && l.strides[1][l.rank - 1] == 1);
  if (!contiguous) return false;
  const std::size_t run = l.rank == 0 ? 1 : l.extents[l.rank - 1];
  nd_walker<2> origin;
  origin.dims = l.rank == 0 ? 0 : l.rank - 1;
  std::size_t runs = 1;
  for (std::size_t d = 0; d < origin.dims; ++d) {
    origin.extents[d] = l.extents[d];
    origin.strides[0][d] = l.strides[0][d];
    origin.strides[1][d] = l.strides[1][d];
    runs *= l.extents[d];
  }
  // Short runs share their end lines with their neighbours: stored plainly (as lines of
  // the scan kernels are, below tuning::stream_line_bytes).
  stream = stream && run * sizeof(T) >= tuning::stream_line_bytes;
  const std::size_t total = runs * run;
  const std::size_t parts =
      (std::min)(std::size_t{exec.threads}, (std::max)(std::size_t{1}, total / tuning::min_elements_per_part));
  // Part of [begin, end) of the elements in row-major order: the runs it touches, each
  // from where the part starts in it.
  auto part = [&](std::size_t begin, std::size_t end) {
    nd_walker<2> w = origin;
    w.start(begin / run);
    for (std::size_t at = begin % run; begin < end; at = 0) {
      const std::size_t n = (std::min)(run - at, end - begin);
      const auto* from = reinterpret_cast<const unsigned char*>(in + w.offset[0] + static_cast<std::ptrdiff_t>(at));
      auto* to = reinterpret_cast<unsigned char*>(out + w.offset[1] + static_cast<std::ptrdiff_t>(at));
      copy_bytes(from, to, n * sizeof(T), stream);
      begin += n;
      w.next();
    }
    if (stream) store_fence();
  };
  parallel_ranges(exec, total, parts, part);
  return true;
}

}  // namespace detail
TALLY_END_NAMESPACE
