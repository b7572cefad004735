// <windows.h> before tally (issue 12): the Windows SDK's minwindef.h defines function-like
// min and max macros unless NOMINMAX is defined, and every DirectML user includes
// <windows.h> (DirectML.h pulls it in through d3d12.h). tally's headers must compile and
// work after those macros, and leave them, and NOMINMAX, as they found them.
//
// The standard library comes first. MSVC's and libc++'s headers protect themselves from
// the macros; libstdc++'s do not (so MinGW's libstdc++ defines NOMINMAX itself), and a
// program that defines the macros before including them is broken whatever tally does.
// <bits/stdc++.h> includes every libstdc++ header, so whichever tally uses is already in.
#if __has_include(<bits/stdc++.h>)
#include <bits/stdc++.h>
#endif
#include <cstdint>
#include <vector>

#include "catch.hpp"

// minwindef.h's definitions, character for character.
#ifndef max
#define max(a,b)            (((a) > (b)) ? (a) : (b))
#endif
#ifndef min
#define min(a,b)            (((a) < (b)) ? (a) : (b))
#endif
// minwindef.h's near and far, and rpcndr.h's small and hyper: object-like macros.
#define near
#define far
#define small char
#define hyper __int64

#if defined(NOMINMAX)
#define TEST_NOMINMAX_BEFORE 1
#else
#define TEST_NOMINMAX_BEFORE 0
#endif

#include "support/directml_stand_in.hpp"
#include <tally/tally.hpp>
#include <tally/directml.hpp>

#if !defined(min) || !defined(max)
#error "a tally header undefined the min/max macros"
#endif
#if defined(NOMINMAX) != TEST_NOMINMAX_BEFORE
#error "a tally header changed NOMINMAX"
#endif
static_assert(min(2, 3) == 2 && max(2, 3) == 3, "the macros are still the SDK's");

TEST_CASE("after <windows.h>'s min/max macros, the descriptor layer (DirectML's structs) works") {
  const float in[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
  float out[12] = {};
  const UINT sizes[2] = {3, 4};
  const DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes, nullptr,
                                      DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, nullptr), 0};
  const DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC sum{&tensor, &tensor, 1, DML_AXIS_DIRECTION_INCREASING, FALSE};
  REQUIRE(tally::directml::execute(DML_OPERATOR_DESC{DML_OPERATOR_CUMULATIVE_SUMMATION, &sum}, in, out) == S_OK);
  const float expected[12] = {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21};
  for (int i = 0; i < 12; ++i) CHECK(out[i] == expected[i]);
}

TEST_CASE("after <windows.h>'s min/max macros, the typed layer works on several threads") {
  // Long enough to be split into blocks and tiles (the code that calls (std::min)).
  const std::size_t rows = 300, columns = 1000;
  std::vector<std::int32_t> a(rows * columns, 1), out(a.size());
  const tally::tensor_view<const std::int32_t> in(a.data(), {rows, columns});
  for (int axis : {0, 1}) {
    tally::cumsum(in, tally::tensor_view<std::int32_t>(out.data(), {rows, columns}), axis,
                  {tally::axis_direction::increasing, false, 2});
    CHECK(out.back() == (axis == 0 ? 300 : 1000));
  }
  std::vector<std::int64_t> line(1 << 20, 1), scanned(line.size());
  tally::cumsum(tally::tensor_view<const std::int64_t>(line.data(), {line.size()}),
                tally::tensor_view<std::int64_t>(scanned.data(), {scanned.size()}), 0,
                {tally::axis_direction::decreasing, true, 0});
  CHECK(scanned.front() == (1 << 20) - 1);
  CHECK(scanned.back() == 0);
}
