// The kernel target every call uses, chosen once per process by walking the target list
// best first: the first entry usable on this CPU, at or below the one TALLY_SIMD names.
#pragma once

#include <cstring>

#include "../../simd_variant.hpp"
#include "cpu.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// True when `cap` is the name of a target in the list.
inline bool names_a_target(const char* cap) noexcept {
#define TALLY_NAMED(name, value, usable) \
  if (std::strcmp(cap, #name) == 0) return true;
  TALLY_SIMD_TARGETS(TALLY_NAMED)
#undef TALLY_NAMED
  return false;
}

/// The first usable target at or below `cap` (a target's name; null or an unknown name
/// caps nothing).
inline simd_variant choose_target(const cpu_features& cpu, const char* cap) noexcept {
  bool reached = cap == nullptr || !names_a_target(cap);
#define TALLY_FIRST_USABLE(name, value, usable)         \
  reached = reached || std::strcmp(cap, #name) == 0; \
  if (reached && (usable)) return simd_variant::name;
  TALLY_SIMD_TARGETS(TALLY_FIRST_USABLE)
#undef TALLY_FIRST_USABLE
  return simd_variant::scalar;
}

inline simd_variant active_target() noexcept {
  static const simd_variant target = choose_target(detect_cpu(), environment_variable("TALLY_SIMD"));
  return target;
}

}  // namespace detail
TALLY_END_NAMESPACE
