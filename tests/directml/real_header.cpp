// Microsoft's DirectML.h (microsoft/DirectX-Headers) first, then tally/directml.hpp, at
// the DML_TARGET_VERSION this program is built for (TALLY_TEST_DML_TARGET_VERSION; one
// program per version, since DirectML.h declares different types at each). Built by
// tests/cmake/directml_h.cmake where a DirectML.h is found: against the Windows SDK's
// d3d12.h under MinGW, and against windows_sdk_stub/d3d12.h elsewhere.
//
// Checked: directml.hpp compiles against the real header and uses its types (its own
// static_asserts check the 64-bit struct layouts here); DirectML.h's values are the
// documented ones (static_asserts below); tally's own declarations (facts.hpp, from
// tally_declarations.cpp) equal DirectML.h's in every size, offset and value the header
// declares at this version; and the operators work through DirectML.h's structs, or are
// refused as unsupported where this version does not declare them.
#define DML_TARGET_VERSION TALLY_TEST_DML_TARGET_VERSION
#include <DirectML.h>

#include <tally/directml.hpp>

#include <cstdio>
#include <cstring>
#include <string>

#include "catch.hpp"
#include "facts.hpp"

static_assert(TALLY_DIRECTML_NATIVE == 1, "DirectML.h was detected");
static_assert(DML_TARGET_VERSION == TALLY_TEST_DML_TARGET_VERSION, "DirectML.h kept the requested version");
static_assert(TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION == (DML_TARGET_VERSION >= 0x2100) &&
                  TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT == (DML_TARGET_VERSION >= 0x3100),
              "tally sees the operators this version declares");

// DirectML's documented values.
static_assert(sizeof(UINT) == 4 && sizeof(UINT64) == 8 && sizeof(BOOL) == 4 && sizeof(HRESULT) == 4, "base types");
static_assert(static_cast<std::uint32_t>(S_OK) == 0 && static_cast<std::uint32_t>(E_INVALIDARG) == 0x80070057u &&
                  static_cast<std::uint32_t>(E_POINTER) == 0x80004003u &&
                  static_cast<std::uint32_t>(DXGI_ERROR_UNSUPPORTED) == 0x887A0004u,
              "HRESULTs");
static_assert(DML_TENSOR_DATA_TYPE_FLOAT32 == 1 && DML_TENSOR_DATA_TYPE_FLOAT16 == 2 &&
                  DML_TENSOR_DATA_TYPE_UINT32 == 3 && DML_TENSOR_DATA_TYPE_UINT16 == 4 &&
                  DML_TENSOR_DATA_TYPE_UINT8 == 5 && DML_TENSOR_DATA_TYPE_INT32 == 6 &&
                  DML_TENSOR_DATA_TYPE_INT16 == 7 && DML_TENSOR_DATA_TYPE_INT8 == 8 &&
                  DML_TENSOR_DATA_TYPE_FLOAT64 == 9 && DML_TENSOR_DATA_TYPE_UINT64 == 10 &&
                  DML_TENSOR_DATA_TYPE_INT64 == 11,
              "data types");
static_assert(DML_TENSOR_TYPE_BUFFER == 1 && DML_TENSOR_FLAG_NONE == 0 && DML_TENSOR_FLAG_OWNED_BY_DML == 1,
              "tensor type and flags");
static_assert(DML_TENSOR_DIMENSION_COUNT_MAX == 5 && DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16, "constants");
#if DML_TARGET_VERSION >= 0x2100
static_assert(DML_OPERATOR_CUMULATIVE_SUMMATION == 105 && DML_AXIS_DIRECTION_INCREASING == 0 &&
                  DML_AXIS_DIRECTION_DECREASING == 1,
              "cumulative summation (DirectML 1.4)");
TALLY_DIRECTML_MEMBER_TYPES_CUMULATIVE(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum);
#endif
#if DML_TARGET_VERSION >= 0x3000
static_assert(DML_TENSOR_DIMENSION_COUNT_MAX1 == 8, "8 dimensions from feature level 3.0");
#endif
#if DML_TARGET_VERSION >= 0x3100
static_assert(DML_OPERATOR_CUMULATIVE_PRODUCT == 145, "cumulative product (DirectML 1.5)");
TALLY_DIRECTML_MEMBER_TYPES_CUMULATIVE(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct);
#endif
#if DML_TARGET_VERSION >= 0x6300
static_assert(DML_TENSOR_DATA_TYPE_UINT4 == 12 && DML_TENSOR_DATA_TYPE_INT4 == 13, "4-bit types (0x6300)");
#endif
TALLY_DIRECTML_MEMBER_TYPES_BASE;

const tally_test::directml_fact* tally_test::directml_h_facts(std::size_t& count) {
  static const directml_fact facts[] = {TALLY_DIRECTML_FACTS(TALLY_DIRECTML_FACT_ENTRY)};
  count = sizeof facts / sizeof facts[0];
  return facts;
}

namespace {

/// A DML_OPERATOR_DESC whose Type holds `type`, written as bytes: DirectML.h's enums have
/// no fixed underlying type, so casting a value outside the enumerators' range (145 where
/// the header stops at 0x2100's operators) to the enum would itself be undefined.
DML_OPERATOR_DESC operator_of_type(int type, const void* desc) {
  DML_OPERATOR_DESC op{};
  std::memcpy(&op.Type, &type, sizeof type);
  op.Desc = desc;
  return op;
}

std::string version_name() {
  char name[16];
  std::snprintf(name, sizeof name, "0x%X", static_cast<unsigned>(DML_TARGET_VERSION));
  return name;
}

#if DML_TARGET_VERSION >= 0x2100
/// A packed float32 tensor desc of DirectML.h's types.
struct float_tensor {
  UINT sizes[2];
  DML_BUFFER_TENSOR_DESC buffer;
  DML_TENSOR_DESC tensor;
  float_tensor(UINT rows, UINT columns) : sizes{rows, columns}, buffer(), tensor() {
    buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    buffer.Flags = DML_TENSOR_FLAG_NONE;
    buffer.DimensionCount = 2;
    buffer.Sizes = sizes;
    buffer.Strides = nullptr;
    buffer.TotalTensorSizeInBytes = tally::calc_buffer_tensor_size(tally::data_type::float32, 2, sizes, nullptr);
    tensor.Type = DML_TENSOR_TYPE_BUFFER;
    tensor.Desc = &buffer;
  }
};

const float input[6] = {1, 2, 3, 4, 5, 6};  // 2 x 3
#endif

}  // namespace

TEST_CASE("tally's DirectML declarations equal DirectML.h's at this DML_TARGET_VERSION") {
  INFO("DML_TARGET_VERSION " << version_name());
  std::size_t n_tally = 0, n_real = 0;
  const tally_test::directml_fact* ours = tally_test::tally_declaration_facts(n_tally);
  const tally_test::directml_fact* real = tally_test::directml_h_facts(n_real);
  REQUIRE(n_tally == n_real);
  std::size_t compared = 0;
  for (std::size_t i = 0; i < n_real; ++i) {
    INFO(real[i].name);
    REQUIRE(std::strcmp(ours[i].name, real[i].name) == 0);
    CHECK(ours[i].declared);  // tally declares everything, as the newest DirectML.h does
    if (!real[i].declared) continue;
    CHECK(ours[i].value == real[i].value);
    ++compared;
  }
  // The oldest version still has the base types, HRESULTs and the tensor structs.
  CHECK(compared >= 40);
  if (DML_TARGET_VERSION >= 0x6300) CHECK(compared == n_real);
}

#if DML_TARGET_VERSION >= 0x2100
TEST_CASE("DirectML.h's cumulative summation runs on tally") {
  float_tensor t(2, 3);
  float out[6] = {};
  DML_CUMULATIVE_SUMMATION_OPERATOR_DESC sum{&t.tensor, &t.tensor, 1, DML_AXIS_DIRECTION_DECREASING, TRUE};
  REQUIRE(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_SUMMATION, &sum}, input, out) == S_OK);
  const float expected[6] = {5, 3, 0, 11, 6, 0};  // exclusive, from the end of each row
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);

  sum.Axis = 2;  // out of range: DirectML's E_INVALIDARG, nothing written
  tally::status details;
  float untouched[6] = {};
  CHECK(tally::directml::execute(sum, input, untouched, {}, &details) == E_INVALIDARG);
  CHECK(details.code() == tally::status_code::invalid_axis);
  CHECK(untouched[0] == 0);
  sum.Axis = 1;
  CHECK(tally::directml::execute(sum, nullptr, untouched) == E_POINTER);

  // A direction of 2, outside DML_AXIS_DIRECTION's range: stored as bytes (a cast would
  // be undefined), read by tally as bytes, refused.
  const int two = 2;
  std::memcpy(&sum.AxisDirection, &two, sizeof two);
  CHECK(tally::directml::execute(sum, input, untouched, {}, &details) == E_INVALIDARG);
  CHECK(details.code() == tally::status_code::invalid_direction);
}
#endif

#if DML_TARGET_VERSION >= 0x3100
TEST_CASE("DirectML.h's cumulative product runs on tally") {
  float_tensor t(2, 3);
  float out[6] = {};
  const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC product{&t.tensor, &t.tensor, 0, DML_AXIS_DIRECTION_INCREASING, FALSE};
  REQUIRE(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_PRODUCT, &product}, input, out) == S_OK);
  const float expected[6] = {1, 2, 3, 4, 10, 18};
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);
}
#endif

TEST_CASE("operators this DML_TARGET_VERSION does not declare are refused as unsupported") {
  INFO("DML_TARGET_VERSION " << version_name());
  const int opaque = 0;  // never read: the type is refused first
  for (int type : {105, 145}) {
    const bool declared = type == 105 ? DML_TARGET_VERSION >= 0x2100 : DML_TARGET_VERSION >= 0x3100;
    if (declared) continue;
    tally::status details;
    CHECK(tally::directml::validate(operator_of_type(type, &opaque), &details) == DXGI_ERROR_UNSUPPORTED);
    CHECK(details.code() == tally::status_code::unsupported_operator);
    CHECK(std::string(details.message()).find("DML_TARGET_VERSION") != std::string::npos);
  }
  // Any version: an operator tally does not implement (DML_OPERATOR_ELEMENT_WISE_IDENTITY).
  CHECK(tally::directml::validate(operator_of_type(1, &opaque)) == DXGI_ERROR_UNSUPPORTED);
  // A type beyond every enumerator of any version, read without undefined behaviour.
  CHECK(tally::directml::validate(operator_of_type(100000, &opaque)) == DXGI_ERROR_UNSUPPORTED);
}
