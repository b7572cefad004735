// The kernels a program may compile once instead of in every translation unit that calls
// them: the SIMD engine for each element type (sums and products, both front doors) and
// the exact mode's float32 / float64 engine (cumsum, cumprod, nancumsum, nancumprod).
//
// They are what a call of tally costs to compile: each instantiation brings every SIMD
// target's kernels for every kernel shape (about 2 s of GCC -O2 per element type and
// operator). With TALLY_SEPARATE_KERNELS defined, every translation unit sees them as
// explicit instantiation declarations (`extern template`) and compiles none of them; one
// translation unit of the program includes <tally/compiled_kernels.hpp>, which holds the
// explicit instantiation definitions. Other operators and element types (cummax, a user
// operator, widening sums, complex...) are compiled where they are called, as always.
#pragma once

#include <cstdint>

#include "../half.hpp"
#include "ops/exact_sum.hpp"
#include "run/run_scan.hpp"
#include "vocab/engine.hpp"

// X(Op, T) for every operator and element type of the SIMD engine.
#define TALLY_FOR_EACH_SIMD_ENGINE_TYPE(X)                                                  \
  X(sum_op, float) X(sum_op, double) X(sum_op, ::tally::half) X(sum_op, std::int8_t)        \
  X(sum_op, std::uint8_t) X(sum_op, std::int16_t) X(sum_op, std::uint16_t)                 \
  X(sum_op, std::int32_t) X(sum_op, std::uint32_t) X(sum_op, std::int64_t)                 \
  X(sum_op, std::uint64_t) X(product_op, float) X(product_op, double)                      \
  X(product_op, ::tally::half) X(product_op, std::int8_t) X(product_op, std::uint8_t)      \
  X(product_op, std::int16_t) X(product_op, std::uint16_t) X(product_op, std::int32_t)     \
  X(product_op, std::uint32_t) X(product_op, std::int64_t) X(product_op, std::uint64_t)

// X(Op) for every operator of the exact mode (the vocabulary engine's exact_op).
#define TALLY_FOR_EACH_EXACT_OP(X)                                                           \
  X(exact_sum_f32) X(exact_sum_f64) X(exact_product_f32) X(exact_product_f64)                \
  X(exact_nansum_f32) X(exact_nansum_f64) X(exact_nanproduct_f32) X(exact_nanproduct_f64)

TALLY_BEGIN_NAMESPACE
namespace detail {

using exact_sum_f32 = exact_op<sum_op, float>;
using exact_sum_f64 = exact_op<sum_op, double>;
using exact_product_f32 = exact_op<product_op, float>;
using exact_product_f64 = exact_op<product_op, double>;
using exact_nansum_f32 = exact_op<sum_op, float, true>;
using exact_nansum_f64 = exact_op<sum_op, double, true>;
using exact_nanproduct_f32 = exact_op<product_op, float, true>;
using exact_nanproduct_f64 = exact_op<product_op, double, true>;

}  // namespace detail
TALLY_END_NAMESPACE

// The declarations (PREFIX `extern template`) or definitions (PREFIX `template`).
#define TALLY_SIMD_ENGINE_INSTANCE(PREFIX, Op, T)                                               \
  PREFIX void ::tally::detail::run_scan<::tally::detail::Op, T>(                                \
      const ::tally::detail::scan_request&, const T*, T*, const ::tally::detail::carry_t<T>*,  \
      ::tally::detail::carry_t<T>*, const ::tally::detail::executor&) noexcept;
#define TALLY_EXACT_INSTANCE(PREFIX, Op)                                                          \
  PREFIX void ::tally::detail::vocab::scan<::tally::detail::Op>(                                  \
      const ::tally::detail::Op&, ::tally::detail::vocab::op_traits,                              \
      const ::tally::detail::Op::in_type*, const ::tally::detail::strided_layout&,                \
      ::tally::detail::Op::out_type*, const ::tally::detail::strided_layout&, std::int64_t*,      \
      const ::tally::detail::strided_layout&, const std::uint8_t*,                                \
      const ::tally::detail::strided_layout&, int, const ::tally::scan_options&,                  \
      ::tally::detail::vocab::operand<const ::tally::detail::Op::state_type>,                     \
      ::tally::detail::vocab::operand<::tally::detail::Op::state_type>);

#if defined(TALLY_SEPARATE_KERNELS)
#define TALLY_DECLARE_SIMD_ENGINE(Op, T) TALLY_SIMD_ENGINE_INSTANCE(extern template, Op, T)
#define TALLY_DECLARE_EXACT(Op) TALLY_EXACT_INSTANCE(extern template, Op)
TALLY_FOR_EACH_SIMD_ENGINE_TYPE(TALLY_DECLARE_SIMD_ENGINE)
TALLY_FOR_EACH_EXACT_OP(TALLY_DECLARE_EXACT)
#undef TALLY_DECLARE_SIMD_ENGINE
#undef TALLY_DECLARE_EXACT
#endif
