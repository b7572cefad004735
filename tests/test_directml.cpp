// DirectML source compatibility: code written exactly as against DirectML.h (the structs
// filled the DirectML way) runs on tally and reproduces the spec's reference examples;
// errors come back as HRESULTs.
#include <tally/directml.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support/spec_examples.hpp"

namespace {

const float* const example_input = tally_test::spec_example_input.data();

/// One row of the spec's table (tests/support/spec_examples.hpp) in DirectML's terms.
struct example {
  DML_OPERATOR_TYPE type;
  UINT axis;
  DML_AXIS_DIRECTION direction;
  BOOL exclusive;
  std::array<float, 12> expected;

  explicit example(const tally_test::spec_example& e)
      : type(e.product ? DML_OPERATOR_CUMULATIVE_PRODUCT : DML_OPERATOR_CUMULATIVE_SUMMATION),
        axis(e.axis),
        direction(e.decreasing ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING),
        exclusive(e.exclusive ? TRUE : FALSE),
        expected(e.expected) {}
};

// What a DirectML host writes: one buffer tensor used as input and output description.
struct float_tensor_4d {
  UINT sizes[4] = {1, 1, 3, 4};
  DML_BUFFER_TENSOR_DESC buffer{};
  DML_TENSOR_DESC tensor{};
  float_tensor_4d() {
    buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    buffer.Flags = DML_TENSOR_FLAG_NONE;
    buffer.DimensionCount = 4;
    buffer.Sizes = sizes;
    buffer.Strides = nullptr;
    buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(buffer.DataType, buffer.DimensionCount, buffer.Sizes,
                                                            buffer.Strides);
    buffer.GuaranteedBaseOffsetAlignment = 0;
    tensor = DML_TENSOR_DESC{DML_TENSOR_TYPE_BUFFER, &buffer};
  }
  float_tensor_4d(const float_tensor_4d&) = delete;
  float_tensor_4d& operator=(const float_tensor_4d&) = delete;
};

HRESULT run(const example& e, const DML_TENSOR_DESC& tensor, const void* in, void* out,
            tally::status* details = nullptr) {
  // The operator desc filled field by field, as DirectML code does; the two descs differ
  // only in the name of the exclusive flag.
  const auto execute = [&](auto& desc, DML_OPERATOR_TYPE type) {
    desc.InputTensor = &tensor;
    desc.OutputTensor = &tensor;
    desc.Axis = e.axis;
    desc.AxisDirection = e.direction;
    const DML_OPERATOR_DESC op_desc{type, &desc};
    return tally::directml::execute(op_desc, in, out, {}, details);
  };
  if (e.type == DML_OPERATOR_CUMULATIVE_SUMMATION) {
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC sum_desc{};
    sum_desc.HasExclusiveSum = e.exclusive;
    return execute(sum_desc, DML_OPERATOR_CUMULATIVE_SUMMATION);
  }
  DML_CUMULATIVE_PRODUCT_OPERATOR_DESC product_desc{};
  product_desc.HasExclusiveProduct = e.exclusive;
  return execute(product_desc, DML_OPERATOR_CUMULATIVE_PRODUCT);
}

}  // namespace

TEST_CASE("DirectML's enum values and HRESULTs") {
  // Values read from DirectML.h (microsoft/DirectX-Headers include/directx/DirectML.h).
  CHECK(static_cast<int>(DML_OPERATOR_CUMULATIVE_SUMMATION) == 105);
  CHECK(static_cast<int>(DML_OPERATOR_CUMULATIVE_PRODUCT) == 145);
  CHECK(static_cast<int>(DML_TENSOR_TYPE_BUFFER) == 1);
  CHECK(static_cast<int>(DML_AXIS_DIRECTION_DECREASING) == 1);
  CHECK(static_cast<int>(DML_TENSOR_DATA_TYPE_FLOAT16) == 2);
  CHECK(static_cast<int>(DML_TENSOR_DATA_TYPE_INT64) == 11);
  CHECK(static_cast<int>(DML_TENSOR_FLAG_OWNED_BY_DML) == 1);
  CHECK(static_cast<std::uint32_t>(E_INVALIDARG) == 0x80070057u);
  CHECK(static_cast<std::uint32_t>(E_POINTER) == 0x80004003u);
  CHECK(static_cast<std::uint32_t>(DXGI_ERROR_UNSUPPORTED) == 0x887A0004u);
  CHECK(S_OK == 0);
  CHECK(FAILED(E_INVALIDARG));
  CHECK(SUCCEEDED(S_OK));
  CHECK(sizeof(HRESULT) == 4);
  CHECK(HRESULT(-1) < 0);  // signed, so FAILED works
}

TEST_CASE("DirectML's struct layouts (64-bit)") {
  if (sizeof(void*) != 8) return;  // the header asserts the 64-bit layout only
  CHECK(offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8);
  CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Sizes) == 16);
  CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Strides) == 24);
  CHECK(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32);
  CHECK(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40);
  CHECK(sizeof(DML_BUFFER_TENSOR_DESC) == 48);
  CHECK(sizeof(DML_TENSOR_DESC) == 16);
  CHECK(sizeof(DML_OPERATOR_DESC) == 16);
  CHECK(offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, Axis) == 16);
  CHECK(offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum) == 24);
  CHECK(sizeof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC) == 32);
  CHECK(offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, AxisDirection) == 20);
  CHECK(offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct) == 24);
  CHECK(sizeof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC) == 32);
}

TEST_CASE("DMLCalcBufferTensorSize follows DirectML's formula") {
  const UINT sizes[4] = {1, 1, 3, 4};
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, nullptr) == 48);
  // Padded rows: last index (3-1)*8 + (4-1)*1 = 19, so 20 elements of 4 bytes.
  const UINT padded[4] = {12, 12, 8, 1};
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, padded) == 80);
  // 3 float16 values are 6 bytes, rounded up to 8.
  const UINT three[1] = {3};
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, three, nullptr) == 8);
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, three, nullptr) == 24);
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, three, nullptr) == 0);
}

TEST_CASE("the spec's reference examples written as DirectML code") {
  float_tensor_4d t;
  REQUIRE(t.buffer.TotalTensorSizeInBytes == 48);
  for (const tally_test::spec_example& row : tally_test::spec_examples) {
    const example e(row);
    float out[12] = {};
    tally::status details;
    const HRESULT hr = run(e, t.tensor, example_input, out, &details);
    INFO("type " << e.type << " axis " << e.axis << " direction " << e.direction << " exclusive " << e.exclusive
                 << ": " << details.message());
    REQUIRE(hr == S_OK);
    for (int i = 0; i < 12; ++i) CHECK(out[i] == e.expected[static_cast<std::size_t>(i)]);
  }
}

TEST_CASE("bare operator descs, validate and in-place execution") {
  float_tensor_4d t;
  DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc{&t.tensor, &t.tensor, 3, DML_AXIS_DIRECTION_INCREASING, FALSE};
  CHECK(tally::directml::validate(desc) == S_OK);
  CHECK(tally::directml::validate(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_SUMMATION, &desc}) == S_OK);
  float data[12];
  std::memcpy(data, example_input, sizeof data);
  REQUIRE(tally::directml::execute(desc, data, data) == S_OK);  // DirectML allows binding one buffer twice
  const std::array<float, 12>& expected = tally_test::spec_examples[0].expected;  // sum, axis 3
  for (int i = 0; i < 12; ++i) CHECK(data[i] == expected[static_cast<std::size_t>(i)]);

  DML_CUMULATIVE_PRODUCT_OPERATOR_DESC product{&t.tensor, &t.tensor, 2, DML_AXIS_DIRECTION_INCREASING, FALSE};
  float out[12] = {};
  tally::execution_options two_threads;
  two_threads.threads = 2;
  REQUIRE(tally::directml::execute(product, example_input, out, two_threads) == S_OK);
  CHECK(out[11] == 60);
}

TEST_CASE("int32 with padded input strides") {
  // A 2x3 int32 input inside rows of 4 (padding -1), packed output, sum along axis 1.
  const std::int32_t input[8] = {1, 2, 3, -1, 4, 5, 6, -1};
  const UINT sizes[2] = {2, 3};
  const UINT in_strides[2] = {4, 1};
  DML_BUFFER_TENSOR_DESC in_buffer{DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_FLAG_NONE, 2, sizes, in_strides, 0, 0};
  in_buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT32, 2, sizes, in_strides);
  CHECK(in_buffer.TotalTensorSizeInBytes == 28);  // last index 1*4 + 2 = 6: 7 elements
  DML_BUFFER_TENSOR_DESC out_buffer{DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_FLAG_NONE, 2, sizes, nullptr, 24, 0};
  const DML_TENSOR_DESC in_tensor{DML_TENSOR_TYPE_BUFFER, &in_buffer};
  const DML_TENSOR_DESC out_tensor{DML_TENSOR_TYPE_BUFFER, &out_buffer};
  const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc{&in_tensor, &out_tensor, 1, DML_AXIS_DIRECTION_DECREASING, TRUE};
  std::int32_t out[6] = {};
  REQUIRE(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_SUMMATION, &desc}, input, out) == S_OK);
  const std::int32_t expected[6] = {5, 3, 0, 11, 6, 0};  // reverse exclusive sums of 1 2 3 and 4 5 6
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);
}

TEST_CASE("convert maps DirectML's fields onto tally's") {
  const UINT sizes[3] = {2, 3, 4};
  const UINT strides[3] = {12, 4, 1};
  const DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_FLAG_OWNED_BY_DML, 3, sizes, strides,
                                      64, 16};
  const DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC desc{&tensor, &tensor, 1, DML_AXIS_DIRECTION_DECREASING, TRUE};
  tally::directml::operator_desc op;
  REQUIRE(tally::directml::convert(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_PRODUCT, &desc}, op));
  CHECK(op.type == 145);
  CHECK(op.input.type == tally::data_type::float16);
  CHECK(op.input.dimension_count == 3);
  CHECK(op.input.sizes == sizes);
  CHECK(op.input.strides == strides);
  CHECK(op.input.total_tensor_size_in_bytes == 64);
  CHECK(op.axis == 1);
  CHECK(op.direction == tally::axis_direction::decreasing);
  CHECK(op.exclusive);
  const tally::cumulative_product_desc product = op.product();
  CHECK(product.input == &op.input);
  CHECK(product.has_exclusive_product);
  CHECK(tally::validate(product));
}

TEST_CASE("errors map to HRESULTs and write nothing") {
  float_tensor_4d t;
  DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc{&t.tensor, &t.tensor, 3, DML_AXIS_DIRECTION_INCREASING, FALSE};
  const DML_OPERATOR_DESC op{DML_OPERATOR_CUMULATIVE_SUMMATION, &desc};
  float out[12];
  for (float& v : out) v = -7;
  tally::status details;
  auto untouched = [&] {
    for (float v : out)
      if (v != -7) return false;
    return true;
  };

  SECTION("axis out of range") {
    desc.Axis = 4;
    CHECK(tally::directml::validate(op, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::invalid_axis);
    CHECK(tally::directml::execute(op, example_input, out) == E_INVALIDARG);
    CHECK(std::string(details.message()).find("axis") != std::string::npos);
  }
  SECTION("direction out of range") {
    desc.AxisDirection = static_cast<DML_AXIS_DIRECTION>(2);
    CHECK(tally::directml::execute(op, example_input, out, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::invalid_direction);
  }
  SECTION("buffer too small") {
    t.buffer.TotalTensorSizeInBytes = 44;
    CHECK(tally::directml::execute(op, example_input, out, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::buffer_too_small);
  }
  SECTION("a type tally does not take") {
    t.buffer.DataType = DML_TENSOR_DATA_TYPE_UINT4;
    CHECK(tally::directml::execute(op, example_input, out, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::unsupported_data_type);
  }
  SECTION("a size of 0") {
    t.sizes[2] = 0;
    CHECK(tally::directml::validate(op, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::invalid_size);
  }
  SECTION("null tensor desc and null buffer desc") {
    desc.OutputTensor = nullptr;
    CHECK(tally::directml::execute(op, example_input, out, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::null_pointer);
    const DML_TENSOR_DESC empty{DML_TENSOR_TYPE_BUFFER, nullptr};
    desc.OutputTensor = &empty;
    CHECK(tally::directml::execute(op, example_input, out, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::null_pointer);
  }
  SECTION("a tensor desc that is not a buffer") {
    const DML_TENSOR_DESC invalid{DML_TENSOR_TYPE_INVALID, &t.buffer};
    desc.InputTensor = &invalid;
    CHECK(tally::directml::validate(op, &details) == E_INVALIDARG);
    CHECK(std::string(details.message()).find("DML_TENSOR_TYPE_BUFFER") != std::string::npos);
  }
  SECTION("null operator desc pointer") {
    CHECK(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_SUMMATION, nullptr}, example_input,
                                   out) == E_INVALIDARG);
  }
  SECTION("an operator tally does not implement") {
    CHECK(tally::directml::execute(DML_OPERATOR_DESC{static_cast<DML_OPERATOR_TYPE>(4), &desc}, example_input, out,
                                   {}, &details) == DXGI_ERROR_UNSUPPORTED);
    CHECK(std::string(details.message()).find("105") != std::string::npos);
    CHECK(tally::directml::validate(DML_OPERATOR_DESC{DML_OPERATOR_INVALID, &desc}) == DXGI_ERROR_UNSUPPORTED);
  }
  SECTION("null buffers") {
    CHECK(tally::directml::execute(op, nullptr, out, {}, &details) == E_POINTER);
    CHECK(details.code() == tally::status_code::null_pointer);
    CHECK(tally::directml::execute(op, example_input, nullptr) == E_POINTER);
  }
  SECTION("overlapping buffers other than in place") {
    float big[13] = {};
    CHECK(tally::directml::execute(op, big, big + 1, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::overlapping_buffers);
  }
  SECTION("misaligned buffer") {
    alignas(8) unsigned char bytes[64] = {};
    CHECK(tally::directml::execute(op, example_input, bytes + 2, {}, &details) == E_INVALIDARG);
    CHECK(details.code() == tally::status_code::misaligned_buffer);
  }
  CHECK(untouched());
}

TEST_CASE("to_hresult") {
  CHECK(tally::directml::to_hresult(tally::status_code::ok) == S_OK);
  CHECK(tally::directml::to_hresult(tally::status_code::invalid_axis) == E_INVALIDARG);
  CHECK(tally::directml::to_hresult(tally::status(tally::status_code::buffer_too_small, "x")) == E_INVALIDARG);
}
