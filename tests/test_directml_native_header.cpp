// tally/directml.hpp after a DirectML.h: it must use the types DirectML.h declared and
// declare none of its own. DirectML.h itself needs the Windows SDK, so this test stands
// in for it with a minimal header in its shape: DirectML.h's include guard and
// DML_TARGET_VERSION, plain (not fixed-type) enums, and a host-defined
// DMLCalcBufferTensorSize, as DirectML's samples and DirectMLX.h define one. Any
// redeclaration by tally would fail to compile.
#include <cstdint>

// ---- stand-in for <windows.h> + <DirectML.h> ----
#define DIRECTML_H
#define DML_TARGET_VERSION 0x6400
typedef std::uint32_t UINT;
typedef std::uint64_t UINT64;
typedef std::int32_t BOOL;
typedef std::int32_t HRESULT;
#define TRUE 1
#define FALSE 0
#define S_OK ((HRESULT)0L)
#define E_INVALIDARG ((HRESULT)0x80070057L)
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
// ---- end of the stand-in ----

#include <tally/directml.hpp>

#include "catch.hpp"

static_assert(TALLY_DIRECTML_NATIVE == 1, "DirectML.h was detected");

TEST_CASE("tally/directml.hpp uses DirectML.h's types when it is included first") {
  const UINT sizes[2] = {2, 3};
  const DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes, nullptr,
                                      DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, nullptr), 0};
  const DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC desc{&tensor, &tensor, 0, DML_AXIS_DIRECTION_INCREASING, FALSE};
  const DML_OPERATOR_DESC op{DML_OPERATOR_CUMULATIVE_PRODUCT, &desc};
  const float in[6] = {1, 2, 3, 4, 5, 6};
  float out[6] = {};
  REQUIRE(tally::directml::execute(op, in, out) == S_OK);
  const float expected[6] = {1, 2, 3, 4, 10, 18};  // column products
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);

  DML_CUMULATIVE_SUMMATION_OPERATOR_DESC bad{&tensor, &tensor, 2, DML_AXIS_DIRECTION_INCREASING, FALSE};
  CHECK(tally::directml::validate(bad) == E_INVALIDARG);
  // E_POINTER was not defined by the stand-in, so tally supplied it.
  CHECK(static_cast<std::uint32_t>(E_POINTER) == 0x80004003u);
}
