// A caller's associative operator (tally::scan): `op(running, next)` applied exactly as a
// left fold in the scan's direction, never with its arguments swapped or regrouped (the
// engine folds every line sequentially).
#pragma once

#include <cstdint>
#include <type_traits>

#include "concept.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T, class Op>
struct user_op {
  static_assert(std::is_trivially_copyable_v<T>, "tally::scan takes trivially copyable element types");
  static_assert(std::is_convertible_v<std::invoke_result_t<const Op&, const T&, const T&>, T>,
                "tally::scan: op(a, b) must return a value convertible to the element type");
  using in_type = T;
  using out_type = T;
  using state_type = T;
  static constexpr bool has_identity = true;
  static constexpr bool has_index = false;

  const Op& op;
  T identity;

  T start() const { return identity; }
  T empty() const { return identity; }
  /// A line starts from its first element, as a left fold (and Thrust's inclusive_scan)
  /// does: op(x0, x1), never op(identity, x0). The identity is only written where nothing
  /// is combined (exclusive starts, include_initial, segment starts).
  T first(const T& x, std::int64_t) const { return x; }
  T combine(const T& running, const T& x, std::int64_t) const { return static_cast<T>(op(running, x)); }
  T value(const T& s) const { return s; }
};

}  // namespace detail
TALLY_END_NAMESPACE
