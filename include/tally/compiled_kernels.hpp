/// @file
/// @brief Compiles tally's built-in kernels in this translation unit: include it in
/// exactly one source file of a program whose other files define TALLY_SEPARATE_KERNELS
/// (docs/compile-time.md). It may itself be compiled with or without that macro.
#pragma once

#include "detail/precompiled.hpp"
#include "tally.hpp"

TALLY_ENGINE_INSTANCES(DEFINE)
TALLY_BEGIN_NAMESPACE
TALLY_TYPED_INSTANCES(DEFINE)
namespace detail {
TALLY_DESCRIPTOR_INSTANCES(DEFINE)
}  // namespace detail
TALLY_END_NAMESPACE
