// The element types of the tests: one list of the C++ types tally scans, walked by
// for_each_type / with_type, and the type <-> data_type map derived from the library's
// public tally::data_type_of_v (checked at compile time to cover every data_type value
// 1..11 exactly once, each with an element of its own size).
#pragma once

#include <tally/data_type.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace tally_test {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

/// A type as a value, so that a generic lambda can receive it: f(type_tag<T>{}).
template <class T>
struct type_tag {
  using type = T;
};

/// The eleven element types. The order is part of the randomized suite's seeds: a seed
/// picks a type by its index here, and real-valued cases pick among the first three (the
/// floating-point types). Do not reorder; a new type goes at the end.
using element_types = type_list<float, tally::half, double, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                                std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;

constexpr std::size_t type_count = element_types::size;

/// The I-th type of List.
template <std::size_t I, class List>
struct type_at;
template <class T, class... Ts>
struct type_at<0, type_list<T, Ts...>> {
  using type = T;
};
template <std::size_t I, class T, class... Ts>
struct type_at<I, type_list<T, Ts...>> : type_at<I - 1, type_list<Ts...>> {};
template <std::size_t I, class List = element_types>
using type_at_t = typename type_at<I, List>::type;

namespace types_detail {

template <class... Ts, class F>
void for_each(type_list<Ts...>, F& f) {
  (f(type_tag<Ts>{}), ...);
}

template <class... Ts, class F>
void at(type_list<Ts...>, std::size_t index, F& f) {
  std::size_t i = 0;
  ((i++ == index ? void(f(type_tag<Ts>{})) : void()), ...);
}

template <class... Ts>
constexpr std::array<tally::data_type, sizeof...(Ts)> by_value(type_list<Ts...>) {
  std::array<tally::data_type, sizeof...(Ts)> types{tally::data_type_of_v<Ts>...};
  for (std::size_t i = 1; i < types.size(); ++i)  // insertion sort (std::sort is not constexpr in C++17)
    for (std::size_t j = i; j > 0 && types[j - 1] > types[j]; --j) {
      const tally::data_type t = types[j];
      types[j] = types[j - 1];
      types[j - 1] = t;
    }
  return types;
}

template <class... Ts>
constexpr bool sizes_match(type_list<Ts...>) {
  return ((tally::is_element_type_v<Ts> && tally::element_size(tally::data_type_of_v<Ts>) == sizeof(Ts)) && ...);
}

}  // namespace types_detail

/// Calls f(type_tag<T>{}) for every T of List, in the list's order.
template <class List = element_types, class F>
void for_each_type(F&& f) {
  types_detail::for_each(List{}, f);
}

/// Calls f(type_tag<T>{}) for the index-th type of List; no call when index >= List::size.
template <class List = element_types, class F>
void with_type(std::size_t index, F&& f) {
  types_detail::at(List{}, index, f);
}

/// Every data_type of element_types, by enum value: float32 (1), float16 (2), uint32,
/// uint16, uint8, int32, int16, int8, float64, uint64, int64 (11).
constexpr std::array<tally::data_type, type_count> all_data_types = types_detail::by_value(element_types{});

/// Calls f(type_tag<T>{}) for the element type whose data_type is `type`; returns false
/// (and calls nothing) for a value without one.
template <class F>
bool with_data_type(tally::data_type type, F&& f) {
  bool found = false;
  for_each_type([&](auto tag) {
    if (tally::data_type_of_v<typename decltype(tag)::type> == type) {
      found = true;
      f(tag);
    }
  });
  return found;
}

/// The data_type name of the index-th element type ("float32", "float16", "float64", ...).
inline const char* type_name(std::size_t index) {
  const char* name = "invalid";
  with_type(index, [&](auto tag) { name = tally::to_string(tally::data_type_of_v<typename decltype(tag)::type>); });
  return name;
}

namespace types_detail {
constexpr bool values_are_one_to_eleven() {
  for (std::size_t i = 0; i < all_data_types.size(); ++i)
    if (static_cast<std::uint32_t>(all_data_types[i]) != i + 1) return false;
  return true;
}
}  // namespace types_detail

static_assert(types_detail::values_are_one_to_eleven(),
              "element_types must map onto data_type values 1..11, each exactly once");
static_assert(types_detail::sizes_match(element_types{}),
              "every element type has a data_type whose element size is its own");

}  // namespace tally_test
