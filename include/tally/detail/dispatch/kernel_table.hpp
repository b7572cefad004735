// Kernel selection: the element type and operation pick the template, the target chosen
// once per process (active_target.hpp) picks the table.
#pragma once

#include "../kernels/avx2/target.hpp"
#include "../kernels/avx512/target.hpp"
#include "../kernels/neon/target.hpp"
#include "../kernels/scalar/kernels.hpp"
#include "active_target.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {

template <class Op, class T>
const kernel_set<Op, T>& select_kernels() noexcept {
  switch (active_target()) {
#define TALLY_TARGET_TABLE(name, value, usable)                                           \
  case simd_variant::name:                                                                \
    if (const kernel_set<Op, T>* table = target_kernels<simd_variant::name>::template table<Op, T>) \
      return *table;                                                                      \
    break;
    TALLY_SIMD_TARGETS(TALLY_TARGET_TABLE)
#undef TALLY_TARGET_TABLE
  }
  return scalar::kernels<Op, T>;
}

}  // namespace detail
TALLY_END_NAMESPACE
