// tally/directml.hpp after a DirectML.h: it must use the types DirectML.h declared and
// declare none of its own. This test runs everywhere with a stand-in in DirectML.h's
// shape (tests/support/directml_stand_in.hpp); tests/cmake/directml_h.cmake compiles
// against Microsoft's real header where one is found.
#include <cstdint>

#include "support/directml_stand_in.hpp"

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
