// data_type -> C++ element type, for the descriptor layer: the element types are listed
// once, and each is matched through tally::data_type_of_v.
#pragma once

#include <cstdint>

#include "../../data_type.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}) with T the element type of `t`; nothing for an unsupported `t`.
template <class F>
void visit_data_type(data_type t, F&& f) {
  const auto visit = [&](auto tag) {
    if (data_type_of_v<typename decltype(tag)::type> != t) return false;
    f(tag);
    return true;
  };
  (void)(visit(type_tag<float>{}) || visit(type_tag<half>{}) || visit(type_tag<double>{}) ||
         visit(type_tag<std::int8_t>{}) || visit(type_tag<std::int16_t>{}) || visit(type_tag<std::int32_t>{}) ||
         visit(type_tag<std::int64_t>{}) || visit(type_tag<std::uint8_t>{}) || visit(type_tag<std::uint16_t>{}) ||
         visit(type_tag<std::uint32_t>{}) || visit(type_tag<std::uint64_t>{}));
}

}  // namespace detail
TALLY_END_NAMESPACE
