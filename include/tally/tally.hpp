/// @file
/// @brief The whole core of tally: cumulative sums and products of strided N-D tensors.
/// Needs only the C++17 standard library.
#pragma once

#include "bfloat16.hpp"
#include "data_type.hpp"
#include "double_double.hpp"
#include "half.hpp"
#include "operators.hpp"
#include "parallel.hpp"
#include "scan.hpp"
#include "scan_options.hpp"
#include "scan_vocabulary.hpp"
#include "simd.hpp"
#include "simd_variant.hpp"
#include "status.hpp"
#include "tensor_desc.hpp"
#include "version.hpp"
#include "view.hpp"
