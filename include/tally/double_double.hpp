/// @file
/// @brief `tally::double_double`: the running value of a float64 scan in
/// scan_accuracy::exact, and the carry of every float64 chunked scan.
#pragma once

#include <cmath>

#include "version.hpp"

TALLY_BEGIN_NAMESPACE

/// An unevaluated sum `high + low` of two doubles: a running float64 sum or product as the
/// exact mode keeps it (`high` the value rounded to double, `low` what the roundings
/// have dropped), about 106 bits. As the carry of a chunked float64 scan
/// (`tally::carry_type<double>`) it hands the whole running value to the next chunk, so
/// that chunks reproduce one call bitwise; the fast mode reads `value()` and writes
/// `{total, -0.0}`.
struct double_double {
  double high;  ///< the running value rounded to double
  double low;  ///< -0.0 when nothing was dropped (x + -0.0 is x, -0.0 included)

  /// `high + low` rounded once; `high` where `low` is zero (so -0.0 stays -0.0) or `high`
  /// is not finite (its `low` is then NaN or meaningless).
  double value() const noexcept { return std::isfinite(high) && low != 0 ? high + low : high; }
};

TALLY_END_NAMESPACE
