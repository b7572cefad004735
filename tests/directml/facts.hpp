// What a program sees of DirectML's API in one translation unit: the sizes and member
// offsets of the structs tally uses, the enum values, constants and HRESULTs, as a list
// of named numbers. real_header.cpp collects them from Microsoft's DirectML.h,
// tally_declarations.cpp from tally/directml.hpp's own declarations (no DirectML.h), and
// the test requires the two lists to agree wherever DirectML.h declares the entity.
//
// TALLY_DIRECTML_FACTS(X) calls X(the DML_TARGET_VERSION that introduced it, name, value)
// for every fact. Include this file after the DirectML declarations:
// TALLY_DIRECTML_FACT_ENTRY then makes an entry of a fact, {name, false, 0} when the
// header's DML_TARGET_VERSION is older than the fact (tally's own declarations, with no
// DML_TARGET_VERSION, have them all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#define TALLY_DIRECTML_FACTS(X)                                                                  \
  X(0x1000, sizeof_UINT, sizeof(UINT))                                                           \
  X(0x1000, sizeof_UINT64, sizeof(UINT64))                                                       \
  X(0x1000, sizeof_BOOL, sizeof(BOOL))                                                           \
  X(0x1000, sizeof_HRESULT, sizeof(HRESULT))                                                     \
  X(0x1000, TRUE, TRUE)                                                                          \
  X(0x1000, FALSE, FALSE)                                                                        \
  X(0x1000, S_OK, static_cast<std::uint32_t>(S_OK))                                              \
  X(0x1000, E_INVALIDARG, static_cast<std::uint32_t>(E_INVALIDARG))                              \
  X(0x1000, E_POINTER, static_cast<std::uint32_t>(E_POINTER))                                    \
  X(0x1000, DXGI_ERROR_UNSUPPORTED, static_cast<std::uint32_t>(DXGI_ERROR_UNSUPPORTED))          \
  X(0x1000, SUCCEEDED_S_OK, SUCCEEDED(S_OK))                                                     \
  X(0x1000, SUCCEEDED_E_INVALIDARG, SUCCEEDED(E_INVALIDARG))                                     \
  X(0x1000, FAILED_E_POINTER, FAILED(E_POINTER))                                                 \
  X(0x1000, DML_TENSOR_DIMENSION_COUNT_MAX, DML_TENSOR_DIMENSION_COUNT_MAX)                      \
  X(0x3000, DML_TENSOR_DIMENSION_COUNT_MAX1, DML_TENSOR_DIMENSION_COUNT_MAX1)                    \
  X(0x1000, DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)            \
  X(0x1000, sizeof_DML_TENSOR_DATA_TYPE, sizeof(DML_TENSOR_DATA_TYPE))                           \
  X(0x1000, DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_UNKNOWN)                          \
  X(0x1000, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT32)                          \
  X(0x1000, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT16)                          \
  X(0x1000, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT32)                            \
  X(0x1000, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT16)                            \
  X(0x1000, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT8)                              \
  X(0x1000, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT32)                              \
  X(0x1000, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT16)                              \
  X(0x1000, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT8)                                \
  X(0x1000, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT64)                          \
  X(0x1000, DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_UINT64)                            \
  X(0x1000, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT64)                              \
  X(0x6300, DML_TENSOR_DATA_TYPE_UINT4, DML_TENSOR_DATA_TYPE_UINT4)                              \
  X(0x6300, DML_TENSOR_DATA_TYPE_INT4, DML_TENSOR_DATA_TYPE_INT4)                                \
  X(0x1000, sizeof_DML_TENSOR_TYPE, sizeof(DML_TENSOR_TYPE))                                     \
  X(0x1000, DML_TENSOR_TYPE_INVALID, DML_TENSOR_TYPE_INVALID)                                    \
  X(0x1000, DML_TENSOR_TYPE_BUFFER, DML_TENSOR_TYPE_BUFFER)                                      \
  X(0x1000, sizeof_DML_TENSOR_FLAGS, sizeof(DML_TENSOR_FLAGS))                                   \
  X(0x1000, DML_TENSOR_FLAG_NONE, DML_TENSOR_FLAG_NONE)                                          \
  X(0x1000, DML_TENSOR_FLAG_OWNED_BY_DML, DML_TENSOR_FLAG_OWNED_BY_DML)                          \
  X(0x1000, flags_or, DML_TENSOR_FLAG_NONE | DML_TENSOR_FLAG_OWNED_BY_DML)                       \
  X(0x1000, sizeof_DML_OPERATOR_TYPE, sizeof(DML_OPERATOR_TYPE))                                 \
  X(0x1000, DML_OPERATOR_INVALID, DML_OPERATOR_INVALID)                                          \
  X(0x2100, DML_OPERATOR_CUMULATIVE_SUMMATION, DML_OPERATOR_CUMULATIVE_SUMMATION)                \
  X(0x3100, DML_OPERATOR_CUMULATIVE_PRODUCT, DML_OPERATOR_CUMULATIVE_PRODUCT)                    \
  X(0x2100, sizeof_DML_AXIS_DIRECTION, sizeof(DML_AXIS_DIRECTION))                               \
  X(0x2100, DML_AXIS_DIRECTION_INCREASING, DML_AXIS_DIRECTION_INCREASING)                        \
  X(0x2100, DML_AXIS_DIRECTION_DECREASING, DML_AXIS_DIRECTION_DECREASING)                        \
  X(0x1000, sizeof_DML_BUFFER_TENSOR_DESC, sizeof(DML_BUFFER_TENSOR_DESC))                       \
  X(0x1000, BUFFER_DataType, offsetof(DML_BUFFER_TENSOR_DESC, DataType))                         \
  X(0x1000, BUFFER_Flags, offsetof(DML_BUFFER_TENSOR_DESC, Flags))                               \
  X(0x1000, BUFFER_DimensionCount, offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount))             \
  X(0x1000, BUFFER_Sizes, offsetof(DML_BUFFER_TENSOR_DESC, Sizes))                               \
  X(0x1000, BUFFER_Strides, offsetof(DML_BUFFER_TENSOR_DESC, Strides))                           \
  X(0x1000, BUFFER_TotalTensorSizeInBytes, offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes)) \
  X(0x1000, BUFFER_GuaranteedBaseOffsetAlignment,                                                \
    offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment))                             \
  X(0x1000, sizeof_DML_TENSOR_DESC, sizeof(DML_TENSOR_DESC))                                     \
  X(0x1000, TENSOR_Type, offsetof(DML_TENSOR_DESC, Type))                                        \
  X(0x1000, TENSOR_Desc, offsetof(DML_TENSOR_DESC, Desc))                                        \
  X(0x1000, sizeof_DML_OPERATOR_DESC, sizeof(DML_OPERATOR_DESC))                                 \
  X(0x1000, OPERATOR_Type, offsetof(DML_OPERATOR_DESC, Type))                                    \
  X(0x1000, OPERATOR_Desc, offsetof(DML_OPERATOR_DESC, Desc))                                    \
  X(0x2100, sizeof_SUMMATION, sizeof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC))                    \
  X(0x2100, SUMMATION_InputTensor, offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, InputTensor)) \
  X(0x2100, SUMMATION_OutputTensor, offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, OutputTensor)) \
  X(0x2100, SUMMATION_Axis, offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, Axis))              \
  X(0x2100, SUMMATION_AxisDirection, offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, AxisDirection)) \
  X(0x2100, SUMMATION_HasExclusiveSum, offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum)) \
  X(0x3100, sizeof_PRODUCT, sizeof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC))                        \
  X(0x3100, PRODUCT_InputTensor, offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, InputTensor))    \
  X(0x3100, PRODUCT_OutputTensor, offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, OutputTensor))  \
  X(0x3100, PRODUCT_Axis, offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, Axis))                  \
  X(0x3100, PRODUCT_AxisDirection, offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, AxisDirection)) \
  X(0x3100, PRODUCT_HasExclusiveProduct, offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct))

/// The member types, which numbers cannot show: checked by static_assert in both files.
#define TALLY_DIRECTML_MEMBER_TYPES_BASE                                                             \
  static_assert(std::is_same<decltype(DML_BUFFER_TENSOR_DESC::DataType), DML_TENSOR_DATA_TYPE>::value && \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::Flags), DML_TENSOR_FLAGS>::value &&     \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::DimensionCount), UINT>::value &&        \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::Sizes), const UINT*>::value &&          \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::Strides), const UINT*>::value &&        \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::TotalTensorSizeInBytes), UINT64>::value && \
                    std::is_same<decltype(DML_BUFFER_TENSOR_DESC::GuaranteedBaseOffsetAlignment), UINT>::value && \
                    std::is_same<decltype(DML_TENSOR_DESC::Type), DML_TENSOR_TYPE>::value &&              \
                    std::is_same<decltype(DML_TENSOR_DESC::Desc), const void*>::value &&                  \
                    std::is_same<decltype(DML_OPERATOR_DESC::Type), DML_OPERATOR_TYPE>::value &&          \
                    std::is_same<decltype(DML_OPERATOR_DESC::Desc), const void*>::value,                  \
                "the members of DirectML's tensor and operator descs have DirectML's types")
#define TALLY_DIRECTML_MEMBER_TYPES_CUMULATIVE(Desc, Exclusive)                                      \
  static_assert(std::is_same<decltype(Desc::InputTensor), const DML_TENSOR_DESC*>::value &&         \
                    std::is_same<decltype(Desc::OutputTensor), const DML_TENSOR_DESC*>::value &&    \
                    std::is_same<decltype(Desc::Axis), UINT>::value &&                              \
                    std::is_same<decltype(Desc::AxisDirection), DML_AXIS_DIRECTION>::value &&       \
                    std::is_same<decltype(Desc::Exclusive), BOOL>::value,                           \
                #Desc " has DirectML's member types")

namespace tally_test {

/// One fact: its name, its value where the header declares the entity, else declared = false.
struct directml_fact {
  const char* name;
  bool declared;
  unsigned long long value;
};

/// The facts of tally's own declarations (tally_declarations.cpp) and of DirectML.h
/// (real_header.cpp); `count` receives the length.
const directml_fact* tally_declaration_facts(std::size_t& count);
const directml_fact* directml_h_facts(std::size_t& count);

}  // namespace tally_test

#define TALLY_FACT_DECLARED(name, value) {#name, true, static_cast<unsigned long long>(value)},
#define TALLY_FACT_ABSENT(name, value) {#name, false, 0},
#define TALLY_FACT_AT(version) TALLY_FACT_##version
#define TALLY_DIRECTML_FACT_ENTRY(version, name, value) TALLY_FACT_AT(version)(name, value)

#define TALLY_FACT_0x1000 TALLY_FACT_DECLARED
#if !defined(DML_TARGET_VERSION) || DML_TARGET_VERSION >= 0x2100
#define TALLY_FACT_0x2100 TALLY_FACT_DECLARED
#else
#define TALLY_FACT_0x2100 TALLY_FACT_ABSENT
#endif
#if !defined(DML_TARGET_VERSION) || DML_TARGET_VERSION >= 0x3000
#define TALLY_FACT_0x3000 TALLY_FACT_DECLARED
#else
#define TALLY_FACT_0x3000 TALLY_FACT_ABSENT
#endif
#if !defined(DML_TARGET_VERSION) || DML_TARGET_VERSION >= 0x3100
#define TALLY_FACT_0x3100 TALLY_FACT_DECLARED
#else
#define TALLY_FACT_0x3100 TALLY_FACT_ABSENT
#endif
#if !defined(DML_TARGET_VERSION) || DML_TARGET_VERSION >= 0x6300
#define TALLY_FACT_0x6300 TALLY_FACT_DECLARED
#else
#define TALLY_FACT_0x6300 TALLY_FACT_ABSENT
#endif
