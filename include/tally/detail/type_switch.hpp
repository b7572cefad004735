// data_type -> C++ element type, for the descriptor layer.
#pragma once

#include <cstdint>

#include "../data_type.hpp"
#include "../half.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}) with T the element type of `t`; `t` must be supported.
template <class F>
void visit_data_type(data_type t, F&& f) {
  switch (t) {
    case data_type::float32: return f(type_tag<float>{});
    case data_type::float16: return f(type_tag<half>{});
    case data_type::float64: return f(type_tag<double>{});
    case data_type::int8: return f(type_tag<std::int8_t>{});
    case data_type::int16: return f(type_tag<std::int16_t>{});
    case data_type::int32: return f(type_tag<std::int32_t>{});
    case data_type::int64: return f(type_tag<std::int64_t>{});
    case data_type::uint8: return f(type_tag<std::uint8_t>{});
    case data_type::uint16: return f(type_tag<std::uint16_t>{});
    case data_type::uint32: return f(type_tag<std::uint32_t>{});
    case data_type::uint64: return f(type_tag<std::uint64_t>{});
    default: return;
  }
}

}  // namespace detail
TALLY_END_NAMESPACE
