/// @file
/// @brief Which SIMD variant of the kernels runs, and how to cap it.
#pragma once

#include "detail/dispatch/active_target.hpp"

TALLY_BEGIN_NAMESPACE

/// The variant every call in this process uses: the best the CPU and OS support, capped by
/// the environment variable TALLY_SIMD (a variant's name, see to_string) read once, at
/// first use: the named variant or, where it is not usable, the next usable one below it.
inline simd_variant active_simd_variant() noexcept { return detail::active_target(); }

TALLY_END_NAMESPACE
