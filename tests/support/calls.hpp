// Calling a scan by operator: the tests choose sum or product at run time, while tally
// spells them as two descs (differing only in the exclusive flag's name) and two
// functions. These helpers make that choice once, and call exactly the overload a test
// would have called by hand.
#pragma once

#include <tally/tally.hpp>

#include <cstdint>

namespace tally_test {

/// axis_direction::decreasing or ::increasing.
inline tally::axis_direction direction_of(bool decreasing) {
  return decreasing ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
}

/// Hands f the cumulative_product_desc (product) or cumulative_summation_desc with these
/// fields, and returns what f returns: with_scan_desc(..., [&](const auto& desc) {
/// return tally::execute(desc, in, out); }).
template <class F>
decltype(auto) with_scan_desc(bool product, const tally::tensor_desc* in, const tally::tensor_desc* out,
                              std::uint32_t axis, tally::axis_direction direction, bool exclusive, F&& f) {
  if (product) return f(tally::cumulative_product_desc{in, out, axis, direction, exclusive});
  return f(tally::cumulative_summation_desc{in, out, axis, direction, exclusive});
}

/// tally::cumprod (product) or tally::cumsum on typed views.
template <class T>
void typed_scan(bool product, const tally::tensor_view<const T>& in, const tally::tensor_view<T>& out, int axis,
                const tally::scan_options& options = {}) {
  if (product)
    tally::cumprod<T>(in, out, axis, options);
  else
    tally::cumsum<T>(in, out, axis, options);
}

/// The same with chunk carries (the overload that takes them, even when they are empty).
template <class T>
void typed_scan(bool product, const tally::tensor_view<const T>& in, const tally::tensor_view<T>& out, int axis,
                const tally::scan_options& options, const tally::tensor_view<const tally::carry_type<T>>& carry_in,
                const tally::tensor_view<tally::carry_type<T>>& carry_out) {
  if (product)
    tally::cumprod<T>(in, out, axis, options, carry_in, carry_out);
  else
    tally::cumsum<T>(in, out, axis, options, carry_in, carry_out);
}

}  // namespace tally_test
