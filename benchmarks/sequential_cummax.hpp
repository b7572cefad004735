// The benchmark programs' reference for cummax rows: the sequential fold, element by element.
#pragma once

#include <cstddef>
#include <cstdint>

/// Where a line of `n` cummax values (and positions, unless `index` is null), `step`
/// elements apart like its input, first differs from the sequential fold of `in` (ties take
/// the later element; the benchmarks' inputs hold no NaN): that element's position, or n.
template <class T>
std::size_t cummax_mismatch(const T* in, const T* out, const std::int64_t* index, std::size_t n,
                            std::size_t step = 1) {
  T best = in[0];
  std::int64_t at = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t e = k * step;
    if (in[e] >= best) best = in[e], at = static_cast<std::int64_t>(k);
    if (out[e] != best || (index && index[e] != at)) return k;
  }
  return n;
}
