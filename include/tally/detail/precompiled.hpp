// What a program may compile once instead of in every translation unit that calls it:
// the public entry points of the built-in sums and products (the typed layer's cumsum and
// cumprod of one element type, plain and chunked; the descriptor layer's dispatch) and
// the engines below them (the SIMD engine for every element type, the exact mode's
// float32 / float64 engine, also behind nancumsum and nancumprod).
//
// They are what a call of tally costs to compile: each brings every SIMD target's kernels
// for every kernel shape (several seconds of GCC -O2 per element type and operator). With
// TALLY_SEPARATE_KERNELS defined, every translation unit sees them as explicit
// instantiation declarations (`extern template`) and compiles none of them; one
// translation unit of the program includes <tally/compiled_kernels.hpp>, which holds the
// explicit instantiation definitions. Other operators and element types (cummax, a user
// operator, widening sums, complex...) are compiled where they are called, as always.
//
// Each list is a macro of HOW (EXTERN: `extern template`, DEFINE: `template`), expanded where its
// templates are declared (the declarations must come before any use): the engines here,
// TALLY_DESCRIPTOR_INSTANCES in operators.hpp's namespace detail, TALLY_TYPED_INSTANCES at
// the end of scan.hpp in namespace tally.
#pragma once

#include <cstdint>

#include "../half.hpp"
#include "ops/exact_sum.hpp"
#include "run/run_scan.hpp"
#include "vocab/engine.hpp"

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

#define TALLY_PREFIX_EXTERN extern template
#define TALLY_PREFIX_DEFINE template

// X(T) for every element type of the SIMD engine and of the typed cumsum / cumprod.
#define TALLY_FOR_EACH_ELEMENT_TYPE(X)                                                     \
  X(float) X(double) X(::tally::half) X(std::int8_t) X(std::uint8_t) X(std::int16_t)       \
  X(std::uint16_t) X(std::int32_t) X(std::uint32_t) X(std::int64_t) X(std::uint64_t)

// The engines (at global scope): run_scan<Op, T>, and vocab::scan of each exact_op.
#define TALLY_SIMD_ENGINE_INSTANCE(HOW, Op, T)                                                  \
  TALLY_PREFIX_##HOW void ::tally::detail::run_scan<::tally::detail::Op, T>(                    \
      const ::tally::detail::scan_request&, const T*, T*, const ::tally::detail::carry_t<T>*,  \
      ::tally::detail::carry_t<T>*, const ::tally::detail::executor&) noexcept;
#define TALLY_EXACT_INSTANCE(HOW, Op)                                                             \
  TALLY_PREFIX_##HOW void ::tally::detail::vocab::scan<::tally::detail::Op>(                      \
      const ::tally::detail::Op&, ::tally::detail::vocab::op_traits,                              \
      const ::tally::detail::Op::in_type*, const ::tally::detail::strided_layout&,                \
      ::tally::detail::Op::out_type*, const ::tally::detail::strided_layout&, std::int64_t*,      \
      const ::tally::detail::strided_layout&, const std::uint8_t*,                                \
      const ::tally::detail::strided_layout&, int, const ::tally::scan_options&,                  \
      ::tally::detail::vocab::operand<const ::tally::detail::Op::state_type>,                     \
      ::tally::detail::vocab::operand<::tally::detail::Op::state_type>);
#define TALLY_ENGINE_INSTANCES_OF_TYPE_EXTERN(T) \
  TALLY_SIMD_ENGINE_INSTANCE(EXTERN, sum_op, T) TALLY_SIMD_ENGINE_INSTANCE(EXTERN, product_op, T)
#define TALLY_ENGINE_INSTANCES_OF_TYPE_DEFINE(T) \
  TALLY_SIMD_ENGINE_INSTANCE(DEFINE, sum_op, T) TALLY_SIMD_ENGINE_INSTANCE(DEFINE, product_op, T)
#define TALLY_ENGINE_INSTANCES(HOW)                                                         \
  TALLY_FOR_EACH_ELEMENT_TYPE(TALLY_ENGINE_INSTANCES_OF_TYPE_##HOW)                         \
  TALLY_EXACT_INSTANCE(HOW, exact_sum_f32) TALLY_EXACT_INSTANCE(HOW, exact_sum_f64)         \
  TALLY_EXACT_INSTANCE(HOW, exact_product_f32) TALLY_EXACT_INSTANCE(HOW, exact_product_f64) \
  TALLY_EXACT_INSTANCE(HOW, exact_nansum_f32) TALLY_EXACT_INSTANCE(HOW, exact_nansum_f64)   \
  TALLY_EXACT_INSTANCE(HOW, exact_nanproduct_f32) TALLY_EXACT_INSTANCE(HOW, exact_nanproduct_f64)

// The descriptor layer's dispatch over element types (in namespace tally::detail).
#define TALLY_DESCRIPTOR_INSTANCES(HOW)                                                               \
  TALLY_PREFIX_##HOW void execute_checked<sum_op>(const scan_request&, const void*, void*,            \
                                                  const execution_options&) noexcept;                 \
  TALLY_PREFIX_##HOW void execute_checked<product_op>(const scan_request&, const void*, void*,        \
                                                      const execution_options&) noexcept;

// The typed layer's cumsum / cumprod of T into T, plain and chunked (in namespace tally).
#define TALLY_TYPED_INSTANCE(HOW, T)                                                                   \
  TALLY_PREFIX_##HOW void cumsum<T, T>(tensor_view<const T>, tensor_view<T>, int, scan_options);      \
  TALLY_PREFIX_##HOW void cumprod<T, T>(tensor_view<const T>, tensor_view<T>, int, scan_options);     \
  TALLY_PREFIX_##HOW void cumsum<T>(tensor_view<const T>, tensor_view<T>, int, scan_options,          \
                                    tensor_view<const carry_type<T>>, tensor_view<carry_type<T>>);    \
  TALLY_PREFIX_##HOW void cumprod<T>(tensor_view<const T>, tensor_view<T>, int, scan_options,         \
                                     tensor_view<const carry_type<T>>, tensor_view<carry_type<T>>);
#define TALLY_TYPED_INSTANCE_EXTERN(T) TALLY_TYPED_INSTANCE(EXTERN, T)
#define TALLY_TYPED_INSTANCE_DEFINE(T) TALLY_TYPED_INSTANCE(DEFINE, T)
#define TALLY_TYPED_INSTANCES(HOW) TALLY_FOR_EACH_ELEMENT_TYPE(TALLY_TYPED_INSTANCE_##HOW)

// LIST(EXTERN) where the program compiles the kernels separately, else nothing.
#if defined(TALLY_SEPARATE_KERNELS)
#define TALLY_DECLARE_SEPARATE(LIST) LIST(EXTERN)
#else
#define TALLY_DECLARE_SEPARATE(LIST)
#endif

TALLY_DECLARE_SEPARATE(TALLY_ENGINE_INSTANCES)
