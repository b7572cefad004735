// Random choices of the tests: one generator type and three helpers on top of it.
//
// Plain modulo and bit shifts instead of std::uniform_*_distribution: the sequence must
// not depend on the standard library, so that a printed seed reproduces the same case
// with every compiler (docs/testing.md, "Reproducing a failure").
#pragma once

#include <cstdint>
#include <random>

namespace tally_test {

using rng_t = std::mt19937_64;

/// A value in [0, n).
inline std::uint64_t pick(rng_t& rng, std::uint64_t n) { return rng() % n; }

/// True with probability 1/n.
inline bool one_in(rng_t& rng, std::uint64_t n) { return rng() % n == 0; }

/// A double in [0, 1) with 53 random bits.
inline double unit(rng_t& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

}  // namespace tally_test
