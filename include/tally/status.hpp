/// @file
/// @brief `tally::status` (descriptor layer) and `tally::error` (typed layer).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "detail/config.hpp"

TALLY_BEGIN_NAMESPACE

/// Why a call was refused. `ok` is the only success value.
enum class status_code : std::uint32_t {
  ok = 0,
  null_pointer,              ///< a descriptor, tensor desc, sizes or buffer pointer is null
  invalid_dimension_count,   ///< outside 1..8
  dimension_count_mismatch,  ///< input and output ranks differ
  unsupported_data_type,     ///< unknown, uint4/int4, or any other value
  data_type_mismatch,        ///< input and output types differ
  invalid_size,              ///< a size of 0 (descriptor layer: DirectML forbids empty tensors)
  size_mismatch,             ///< input and output sizes differ
  invalid_axis,              ///< axis outside the dimensions
  invalid_direction,         ///< axis_direction other than 0 or 1
  buffer_too_small,          ///< total_tensor_size_in_bytes below the layout's minimum
  size_overflow,             ///< a size or offset computation does not fit in 64 bits
  overlapping_output,        ///< two distinct output elements share one address
  misaligned_buffer,         ///< a buffer pointer not aligned to its element size
  overlapping_buffers,       ///< input and output overlap other than exactly (descriptor layer)
  invalid_carry,             ///< a carry view whose shape does not match (typed layer)
  unsupported_operator,      ///< an operator type tally does not implement (DirectML adapter)
  out_of_memory,             ///< a temporary could not be allocated; nothing was written
  invalid_option,            ///< scan_options that contradict each other or the operator (typed layer)
};

/// The enumerator's name, for messages and logs.
constexpr const char* to_string(status_code c) noexcept {
  switch (c) {
    case status_code::ok: return "ok";
    case status_code::null_pointer: return "null_pointer";
    case status_code::invalid_dimension_count: return "invalid_dimension_count";
    case status_code::dimension_count_mismatch: return "dimension_count_mismatch";
    case status_code::unsupported_data_type: return "unsupported_data_type";
    case status_code::data_type_mismatch: return "data_type_mismatch";
    case status_code::invalid_size: return "invalid_size";
    case status_code::size_mismatch: return "size_mismatch";
    case status_code::invalid_axis: return "invalid_axis";
    case status_code::invalid_direction: return "invalid_direction";
    case status_code::buffer_too_small: return "buffer_too_small";
    case status_code::size_overflow: return "size_overflow";
    case status_code::overlapping_output: return "overlapping_output";
    case status_code::misaligned_buffer: return "misaligned_buffer";
    case status_code::overlapping_buffers: return "overlapping_buffers";
    case status_code::invalid_carry: return "invalid_carry";
    case status_code::unsupported_operator: return "unsupported_operator";
    case status_code::out_of_memory: return "out_of_memory";
    case status_code::invalid_option: return "invalid_option";
  }
  return "invalid";
}

/// Result of a descriptor-layer call: a code and a message naming the field and the
/// values. Holds its message inline, so making one never allocates or throws.
class status {
 public:
  /// Success. The message buffer is left unwritten: the checks of every call return a
  /// status, and clearing 240 bytes each time was most of a small call's cost.
  status() noexcept {}
  /// Copies the code, and the message where there is one.
  status(const status& other) noexcept : code_(other.code_) {
    if (!other.ok()) std::memcpy(message_, other.message_, sizeof message_);
  }
  /// Copies the code, and the message where there is one.
  status& operator=(const status& other) noexcept {
    code_ = other.code_;
    if (!other.ok()) std::memcpy(message_, other.message_, sizeof message_);
    return *this;
  }

  /// A status with `code` and a printf-style message.
  TALLY_PRINTF_MEMBER(3, 4)
  status(status_code code, const char* format, ...) noexcept
      : code_(code) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(message_, sizeof message_, format, args);
    va_end(args);
  }

  /// True when the call succeeded.
  bool ok() const noexcept { return code_ == status_code::ok; }
  /// Same as ok().
  explicit operator bool() const noexcept { return ok(); }
  /// Why the call was refused, or status_code::ok.
  status_code code() const noexcept { return code_; }
  /// What was wrong, naming the field and the values; "ok" on success.
  const char* message() const noexcept { return ok() ? "ok" : message_; }

 private:
  status_code code_ = status_code::ok;
  char message_[240];  // written (terminated) whenever code_ is not ok
};

namespace detail {
/// A size for a status message's %llu. The messages use only conversions that every C
/// runtime prints (no %zu: MinGW's GCC checks formats against the Microsoft runtime's
/// rules, and tests/portability/check_include.sh rejects it).
constexpr unsigned long long ull(std::size_t n) noexcept { return n; }
}  // namespace detail

/// Thrown by the typed layer (cumsum, cumprod, tensor_view) for invalid arguments.
class error : public std::invalid_argument {
 public:
  /// An exception with this code and message.
  error(status_code code, const std::string& what) : std::invalid_argument(what), code_(code) {}
  /// Builds the exception from a non-ok status.
  explicit error(const status& s) : error(s.code(), s.message()) {}
  /// Why the call was refused.
  status_code code() const noexcept { return code_; }

 private:
  status_code code_;
};

TALLY_END_NAMESPACE
