/// @file
/// @brief Element types and axis directions, with DirectML's enum values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "half.hpp"
#include "version.hpp"

TALLY_BEGIN_NAMESPACE

/// Element type of a tensor. Values equal DirectML's `DML_TENSOR_DATA_TYPE`, so a host
/// can cast between the two. DirectML's uint4 (12) and int4 (13) are not supported.
enum class data_type : std::uint32_t {
  unknown = 0,
  float32 = 1,
  float16 = 2,
  uint32 = 3,
  uint16 = 4,
  uint8 = 5,
  int32 = 6,
  int16 = 7,
  int8 = 8,
  float64 = 9,
  uint64 = 10,
  int64 = 11,
};

/// Direction of the scan along the axis. Values equal DirectML's `DML_AXIS_DIRECTION`.
enum class axis_direction : std::uint32_t {
  increasing = 0,  ///< Y[i] combines X[0..i]
  decreasing = 1,  ///< Y[i] combines X[i..L-1]
};

/// Size in bytes of one element, or 0 for an unknown or unsupported type.
constexpr std::size_t element_size(data_type t) noexcept {
  switch (t) {
    case data_type::int8:
    case data_type::uint8:
      return 1;
    case data_type::float16:
    case data_type::int16:
    case data_type::uint16:
      return 2;
    case data_type::float32:
    case data_type::int32:
    case data_type::uint32:
      return 4;
    case data_type::float64:
    case data_type::int64:
    case data_type::uint64:
      return 8;
    default:
      return 0;
  }
}

/// True for the eleven element types tally computes.
constexpr bool is_supported(data_type t) noexcept { return element_size(t) != 0; }

/// The enumerator's name ("float32", ...), or "invalid" for any other value.
constexpr const char* to_string(data_type t) noexcept {
  switch (t) {
    case data_type::unknown: return "unknown";
    case data_type::float32: return "float32";
    case data_type::float16: return "float16";
    case data_type::uint32: return "uint32";
    case data_type::uint16: return "uint16";
    case data_type::uint8: return "uint8";
    case data_type::int32: return "int32";
    case data_type::int16: return "int16";
    case data_type::int8: return "int8";
    case data_type::float64: return "float64";
    case data_type::uint64: return "uint64";
    case data_type::int64: return "int64";
  }
  return "invalid";
}

/// The data_type of C++ element type T (cv-qualifiers ignored): float32, float16 for
/// tally::half, float64, and the integer types by width and signedness (so `char`,
/// `long` and `long long` map like the fixed-width types of their size). Any other type
/// maps to data_type::unknown. This is the one type list of the library: what scans
/// accept and what the descriptor layer dispatches to are both derived from it.
template <class T, class = void>
struct data_type_of : std::integral_constant<data_type, data_type::unknown> {};
/// float32.
template <>
struct data_type_of<float> : std::integral_constant<data_type, data_type::float32> {};
/// float16.
template <>
struct data_type_of<half> : std::integral_constant<data_type, data_type::float16> {};
/// float64.
template <>
struct data_type_of<double> : std::integral_constant<data_type, data_type::float64> {};
/// Integers of 1, 2, 4 or 8 bytes (bool and 128-bit integers excluded).
template <class T>
struct data_type_of<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8>>
    : std::integral_constant<data_type, std::is_signed_v<T> ? (sizeof(T) == 1   ? data_type::int8
                                                               : sizeof(T) == 2 ? data_type::int16
                                                               : sizeof(T) == 4 ? data_type::int32
                                                                                : data_type::int64)
                                                            : (sizeof(T) == 1   ? data_type::uint8
                                                               : sizeof(T) == 2 ? data_type::uint16
                                                               : sizeof(T) == 4 ? data_type::uint32
                                                                                : data_type::uint64)> {};

/// `data_type_of<T>::value`: for example data_type_of_v<std::int16_t> == data_type::int16.
template <class T>
inline constexpr data_type data_type_of_v = data_type_of<std::remove_cv_t<T>>::value;

/// True for the C++ types tally scans (those with a data_type).
template <class T>
inline constexpr bool is_element_type_v = data_type_of_v<T> != data_type::unknown;

TALLY_END_NAMESPACE
