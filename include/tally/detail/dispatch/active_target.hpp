// The kernel target every call uses, chosen once per process by walking the target list
// best first: the first entry usable on this CPU, at or below the one TALLY_SIMD names.
#pragma once

#include <cstdlib>
#include <cstring>

#include "../../simd_variant.hpp"
#include "cpu.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

/// `cap`: a variant's name, or null (or an unknown name) for no cap.
inline simd_variant choose_target(const cpu_features& cpu, const char* cap) noexcept {
  bool capped = false;  // true once the walk has reached the named variant
#define TALLY_CAPPED_AT(name, value, usable) capped = capped || std::strcmp(cap, #name) == 0;
  if (cap) {
    TALLY_SIMD_TARGETS(TALLY_CAPPED_AT)
  }
#undef TALLY_CAPPED_AT
  const bool has_cap = capped;
  capped = false;
#define TALLY_FIRST_USABLE(name, value, usable)                         \
  capped = capped || !has_cap || std::strcmp(cap, #name) == 0;          \
  if (capped && (usable)) return simd_variant::name;
  TALLY_SIMD_TARGETS(TALLY_FIRST_USABLE)
#undef TALLY_FIRST_USABLE
  return simd_variant::scalar;
}

inline simd_variant active_target() noexcept {
  static const simd_variant target = choose_target(detect_cpu(), std::getenv("TALLY_SIMD"));
  return target;
}

}  // namespace detail
TALLY_END_NAMESPACE
