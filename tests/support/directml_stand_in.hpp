// A stand-in for <DirectML.h> (and, outside Windows, the part of <windows.h> it needs) in
// DirectML.h's shape: its include guard and DML_TARGET_VERSION, plain (not fixed-type)
// enums, and a host-defined DMLCalcBufferTensorSize, as DirectML's samples and
// DirectMLX.h define one. tally/directml.hpp included after it must use these types and
// declare none of its own: any redeclaration fails to compile. Needs nothing, so it runs
// everywhere; tests/cmake/directml_h.cmake tests against the real DirectML.h where found.
#pragma once

#include <cstdint>

#define DIRECTML_H
#define DML_TARGET_VERSION 0x6400
#if defined(_WIN32)
#include <windows.h>  // the base types and HRESULTs, as DirectML.h gets them through d3d12.h
#else
typedef std::uint32_t UINT;
typedef std::uint64_t UINT64;
typedef std::int32_t BOOL;
typedef std::int32_t HRESULT;
#define TRUE 1
#define FALSE 0
#define S_OK ((HRESULT)0L)
#define E_INVALIDARG ((HRESULT)0x80070057L)
#endif
enum DML_TENSOR_DATA_TYPE {
  DML_TENSOR_DATA_TYPE_UNKNOWN,
  DML_TENSOR_DATA_TYPE_FLOAT32,
  DML_TENSOR_DATA_TYPE_FLOAT16,
  DML_TENSOR_DATA_TYPE_UINT32,
  DML_TENSOR_DATA_TYPE_UINT16,
  DML_TENSOR_DATA_TYPE_UINT8,
  DML_TENSOR_DATA_TYPE_INT32,
  DML_TENSOR_DATA_TYPE_INT16,
  DML_TENSOR_DATA_TYPE_INT8,
  DML_TENSOR_DATA_TYPE_FLOAT64,
  DML_TENSOR_DATA_TYPE_UINT64,
  DML_TENSOR_DATA_TYPE_INT64,
};
enum DML_TENSOR_TYPE { DML_TENSOR_TYPE_INVALID, DML_TENSOR_TYPE_BUFFER };
enum DML_TENSOR_FLAGS { DML_TENSOR_FLAG_NONE = 0x0, DML_TENSOR_FLAG_OWNED_BY_DML = 0x1 };
struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;
  DML_TENSOR_FLAGS Flags;
  UINT DimensionCount;
  const UINT* Sizes;
  const UINT* Strides;
  UINT64 TotalTensorSizeInBytes;
  UINT GuaranteedBaseOffsetAlignment;
};
struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;
  const void* Desc;
};
enum DML_OPERATOR_TYPE { DML_OPERATOR_INVALID, DML_OPERATOR_CUMULATIVE_SUMMATION = 105, DML_OPERATOR_CUMULATIVE_PRODUCT = 145 };
enum DML_AXIS_DIRECTION { DML_AXIS_DIRECTION_INCREASING = 0, DML_AXIS_DIRECTION_DECREASING = 1 };
struct DML_OPERATOR_DESC {
  DML_OPERATOR_TYPE Type;
  const void* Desc;
};
struct DML_CUMULATIVE_SUMMATION_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
  UINT Axis;
  DML_AXIS_DIRECTION AxisDirection;
  BOOL HasExclusiveSum;
};
struct DML_CUMULATIVE_PRODUCT_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
  UINT Axis;
  DML_AXIS_DIRECTION AxisDirection;
  BOOL HasExclusiveProduct;
};
inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE, UINT count, const UINT* sizes, const UINT*) {
  UINT64 n = 1;  // packed float32 only: all this test needs
  for (UINT i = 0; i < count; ++i) n *= sizes[i];
  return (n * 4 + 3) & ~UINT64{3};
}
