/// @file
/// @brief `tally::scan_options`: the options of a typed scan.
#pragma once

#include "data_type.hpp"
#include "parallel.hpp"

TALLY_BEGIN_NAMESPACE

/// How float32 and float64 sums and products round (scan_options::accuracy;
/// docs/accuracy.md).
enum class scan_accuracy {
  /// The running value in the element type, blocked SIMD prefixes: memcpy speed, error at
  /// most about n * eps * sum|x| (README, numeric rules); the descriptor layer's arithmetic.
  fast,
  /// The default. The running value finer than the element type (float32: double; float64:
  /// a compensated pair, tally::double_double), each output rounded once: within 1 ulp of
  /// the exact running sum unless the finer value itself loses more than half an ulp
  /// (docs/accuracy.md gives the bound and the cost per shape). logcumsumexp of float
  /// keeps exp and log in double; fast takes them in float (AVX2: about 2 ulp of float at
  /// the scale of max(|y|, 1)). Other element types and operators are unaffected.
  exact,
};

/// Options of a typed scan: where to run (threads, a host pool: the execution_options
/// it extends) and what to compute.
struct scan_options : execution_options {
  /// `{direction, exclusive, threads}` in that order, each optional.
  scan_options(axis_direction direction_ = axis_direction::increasing, bool exclusive_ = false,
               unsigned threads_ = 1) noexcept
      : execution_options{threads_, nullptr, nullptr}, direction(direction_), exclusive(exclusive_) {}
  /// Copies member by member, as the implicit one would; user-provided (defaulted outside
  /// the class) so that the C++ ABIs pass the options by the address of the caller's
  /// object, as tensor_view (view.hpp). Passed by value, GCC built them field by field and
  /// then copied them into the argument area with 16- and 8-byte loads straddling those
  /// 4- and 1-byte stores, which the store buffer cannot forward (a 16-float cumsum with
  /// the default options, 2026-11-29: 37 -> 27 ns with the shorter last step of the exact
  /// line form, 33 ns with that step alone).
  scan_options(const scan_options&) noexcept;
  /// Assignment, member by member.
  scan_options& operator=(const scan_options&) noexcept = default;

  /// Increasing: scan from index 0; decreasing: from the last index.
  axis_direction direction = axis_direction::increasing;
  bool exclusive = false;  ///< Y[i] excludes X[i]; the first output is the identity (or the carry)
  /// The output is one longer along the axis and starts (in the scan's direction) with the
  /// identity (or the carry), as NumPy 2.1's cumulative_sum(include_initial=True). Not
  /// with `exclusive`.
  bool include_initial = false;
  /// cumsum / cumprod of float32 and float64, logcumsumexp of float32: exact (the default)
  /// or fast; see scan_accuracy.
  scan_accuracy accuracy = scan_accuracy::exact;
};

inline scan_options::scan_options(const scan_options&) noexcept = default;

TALLY_END_NAMESPACE
