// Where a line's non-temporal stores would stall its own loads. A load whose address
// matches a recent store's in its low 12 bits (4K aliasing) waits for that store; for a
// non-temporal store, still gathering its 64-byte line in a write-combining buffer, the
// wait is long. A line read and written in step (same direction, same element size)
// whose output sits just past its input modulo 4 KiB meets this on every vector: a 16M
// float32 line, fast mode, AVX-512, x memcpy, by (out - in) mod 4096 in bytes (Zen 4,
// 2026-12-07): increasing 0-44 1.1-1.4, 48-236 3.3-3.9 (1.8-1.9 at 192-236), 240 and
// more 1.1-1.5; decreasing 4084-4092 1.2, 3904-4080 1.8-3.8, 3888 and less 1.3-1.5. Plain
// stores take 1.7-1.8 at every offset, so those lines store plainly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../version.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// Whether a line read from `in` and written to `out` in steps of `in_step` and
/// `out_step` elements is better stored plainly than streamed: the steps are the same
/// unit step and the output sits just past the input (in the direction of the walk)
/// modulo 4 KiB. Lines walked differently keep streaming: their offset drifts.
template <class In, class Out>
bool streaming_stalls_loads(const In* in, const Out* out, std::ptrdiff_t in_step, std::ptrdiff_t out_step) noexcept {
  if (sizeof(In) != sizeof(Out) || in_step != out_step || (in_step != 1 && in_step != -1)) return false;
  const std::size_t ahead =
      static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(out) - reinterpret_cast<std::uintptr_t>(in)) % 4096;
  if (in_step > 0) return ahead >= 48 && ahead < 240;
  const std::size_t behind = (4096 - ahead) % 4096;
  return behind >= 16 && behind < 200;
}

}  // namespace detail
TALLY_END_NAMESPACE
