// Contracts of the library's structure, each checked through the public API where it
// can be: the element-type list (data_type_of_v), the target list (simd_variant, its
// names, the TALLY_SIMD cap), hostile strides on dimensions that never step, allocation
// failure reported as a status, and the DirectML adapter's operator-type refusal.
#include <tally/directml.hpp>
#include <tally/tally.hpp>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__unix__)
#include <sys/mman.h>
#endif

#include "catch.hpp"

namespace {

using tally::data_type;

static_assert(tally::data_type_of_v<float> == data_type::float32);
static_assert(tally::data_type_of_v<const tally::half> == data_type::float16);
static_assert(tally::data_type_of_v<double> == data_type::float64);
static_assert(tally::data_type_of_v<std::int8_t> == data_type::int8);
static_assert(tally::data_type_of_v<std::uint8_t> == data_type::uint8);
static_assert(tally::data_type_of_v<std::int16_t> == data_type::int16);
static_assert(tally::data_type_of_v<std::uint16_t> == data_type::uint16);
static_assert(tally::data_type_of_v<std::int32_t> == data_type::int32);
static_assert(tally::data_type_of_v<std::uint32_t> == data_type::uint32);
static_assert(tally::data_type_of_v<std::int64_t> == data_type::int64);
static_assert(tally::data_type_of_v<std::uint64_t> == data_type::uint64);
static_assert(tally::data_type_of_v<long long> == data_type::int64);
static_assert(tally::data_type_of_v<unsigned long long> == data_type::uint64);
static_assert(tally::data_type_of_v<bool> == data_type::unknown);
static_assert(tally::data_type_of_v<long double> == data_type::unknown);
static_assert(!tally::is_element_type_v<bool> && tally::is_element_type_v<char>);

TEST_CASE("every supported data_type has exactly one C++ type of its size") {
  for (std::uint32_t v = 0; v <= 16; ++v) {
    const auto t = static_cast<data_type>(v);
    int matches = 0;
    std::size_t size = 0;
    const auto count = [&](auto tag) {
      using T = decltype(tag);
      if (tally::data_type_of_v<T> == t) {
        ++matches;
        size = sizeof(T);
      }
    };
    count(float{}), count(tally::half{}), count(double{}), count(std::int8_t{}), count(std::int16_t{});
    count(std::int32_t{}), count(std::int64_t{}), count(std::uint8_t{}), count(std::uint16_t{});
    count(std::uint32_t{}), count(std::uint64_t{});
    INFO("data_type " << v << " " << tally::to_string(t));
    CHECK(matches == (tally::is_supported(t) ? 1 : 0));
    CHECK(size == tally::element_size(t));
  }
}

TEST_CASE("the SIMD variants, their names and the TALLY_SIMD cap come from one list") {
  CHECK(std::string(tally::to_string(tally::simd_variant::scalar)) == "scalar");
  CHECK(std::string(tally::to_string(tally::simd_variant::avx2)) == "avx2");
  CHECK(std::string(tally::to_string(tally::simd_variant::avx512)) == "avx512");
  CHECK(std::string(tally::to_string(tally::simd_variant::neon)) == "neon");
  CHECK(static_cast<unsigned>(tally::simd_variant::avx512) == 2);  // stable values
  CHECK(static_cast<unsigned>(tally::simd_variant::neon) == 3);

  tally::detail::cpu_features all;
  all.avx2 = all.avx512 = true;
  const tally::detail::cpu_features none;
  using tally::detail::choose_target;
  const bool x86 = TALLY_X86_SIMD != 0, neon = TALLY_ARM_NEON != 0;
  // Without x86 features: neon where the build has it (it needs no CPU test), else scalar.
  const tally::simd_variant portable = neon ? tally::simd_variant::neon : tally::simd_variant::scalar;
  CHECK(choose_target(none, nullptr) == portable);
  CHECK(choose_target(all, nullptr) == (x86 ? tally::simd_variant::avx512 : portable));
  CHECK(choose_target(all, "avx2") == (x86 ? tally::simd_variant::avx2 : portable));
  CHECK(choose_target(all, "neon") == portable);  // below the x86 targets in the list
  CHECK(choose_target(all, "scalar") == tally::simd_variant::scalar);
  CHECK(choose_target(all, "no-such-variant") == choose_target(all, nullptr));  // unknown: no cap
  tally::detail::cpu_features avx2_only;
  avx2_only.avx2 = true;
  CHECK(choose_target(avx2_only, "avx512") == (x86 ? tally::simd_variant::avx2 : portable));

  // The variant in use is the one the cap in this process's environment allows.
  const char* cap = std::getenv("TALLY_SIMD");
  CHECK(tally::active_simd_variant() == choose_target(tally::detail::detect_cpu(), cap));
}

TEST_CASE("strides of dimensions that never step may hold any value") {
  // NumPy allows any stride on a dimension of size 1; none of them may enter arithmetic.
  const std::ptrdiff_t hostile[] = {PTRDIFF_MAX, PTRDIFF_MIN, PTRDIFF_MIN + 1, -1, 0};
  for (const std::ptrdiff_t s : hostile) {
    INFO("stride " << s);
    std::vector<int> a = {1, 2, 3, 4, 5, 6}, out(6, 0);
    // [2, 1, 3]: the middle dimension never steps.
    const tally::tensor_view<const int> in(a.data(), {2, 1, 3}, {3, s, 1});
    const tally::tensor_view<int> o(out.data(), {2, 1, 3}, {3, s, 1});
    for (int axis = 0; axis < 3; ++axis) {
      std::fill(out.begin(), out.end(), 0);
      tally::cumsum(in, o, axis);
      const std::vector<int> expected = axis == 0   ? std::vector<int>{1, 2, 3, 5, 7, 9}
                                        : axis == 1 ? a
                                                    : std::vector<int>{1, 3, 6, 4, 9, 15};
      CHECK(out == expected);
    }
    // Decreasing along an axis of size 1, and overlapping in place with staging.
    tally::scan_options decreasing(tally::axis_direction::decreasing);
    tally::cumsum(in, o, 1, decreasing);
    CHECK(out == a);
    const tally::tensor_view<int> reversed(a.data() + 5, {2, 1, 3}, {-3, s, -1});
    tally::cumsum(tally::tensor_view<const int>(a.data(), {2, 1, 3}, {3, s, 1}), reversed, 2);
    CHECK(a == std::vector<int>{15, 9, 4, 6, 3, 1});

    // Carries whose only dimension never steps, and an empty axis passing them on.
    std::vector<int> carry_in = {10}, carry_out = {0};
    std::vector<int> line = {1, 2, 3}, line_out(3);
    tally::cumsum(tally::tensor_view<const int>(line.data(), {1, 3}), tally::tensor_view<int>(line_out.data(), {1, 3}),
                  1, {}, tally::tensor_view<const int>(carry_in.data(), {1}, {s}),
                  tally::tensor_view<int>(carry_out.data(), {1}, {s}));
    CHECK(line_out == std::vector<int>{11, 13, 16});
    CHECK(carry_out[0] == 16);
    tally::cumsum(tally::tensor_view<const int>(line.data(), {1, 0}, {s, 1}),
                  tally::tensor_view<int>(line_out.data(), {1, 0}, {s, 1}), 1, {},
                  tally::tensor_view<const int>(carry_in.data(), {1}, {s}),
                  tally::tensor_view<int>(carry_out.data(), {1}, {s}));
    CHECK(carry_out[0] == 10);
  }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TALLY_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TALLY_TEST_ASAN 1
#endif

#if defined(__linux__) && defined(__x86_64__) && !defined(TALLY_TEST_ASAN)  // not under qemu-user, whose address space is smaller
TEST_CASE("a staging copy that cannot be allocated is tally::error(out_of_memory), nothing written") {
  // 2^40 output floats (4 TiB) reserved but never touched; the input is the output's
  // first element broadcast, so it overlaps and must be staged: 4 TiB more, refused.
  const std::size_t n = std::size_t{1} << 40;
  if (std::FILE* policy = std::fopen("/proc/sys/vm/overcommit_memory", "r")) {
    const int mode = std::fgetc(policy);
    std::fclose(policy);
    if (mode == '1') {  // "always overcommit": the 4 TiB copy would be granted, then touched
      WARN("vm.overcommit_memory is 1 here; test skipped");
      return;
    }
  }
  void* memory = mmap(nullptr, n * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
  if (memory == MAP_FAILED) {
    WARN("cannot reserve 4 TiB of address space here; test skipped");
    return;
  }
  auto* out = static_cast<float*>(memory);
  out[0] = 7.0f;
  const tally::tensor_view<const float> in(out, {n}, {0});
  try {
    tally::cumsum(in, tally::tensor_view<float>(out, {n}), 0);
    FAIL("a 4 TiB staging copy was allocated");
  } catch (const tally::error& e) {
    CHECK(e.code() == tally::status_code::out_of_memory);
  }
  CHECK(out[0] == 7.0f);
  CHECK(out[1] == 0.0f);
  munmap(memory, n * sizeof(float));
}
#endif

TEST_CASE("the DirectML adapter refuses other operators with unsupported_operator") {
  const std::uint32_t sizes[1] = {4};
  DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, sizes, nullptr, 16, 0};
  DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  DML_CUMULATIVE_SUMMATION_OPERATOR_DESC sum{&tensor, &tensor, 0, DML_AXIS_DIRECTION_INCREASING, FALSE};
  const DML_OPERATOR_DESC other{static_cast<DML_OPERATOR_TYPE>(1), &sum};
  tally::status details;
  CHECK(tally::directml::validate(other, &details) == DXGI_ERROR_UNSUPPORTED);
  CHECK(details.code() == tally::status_code::unsupported_operator);
  CHECK(tally::directml::to_hresult(tally::status_code::unsupported_operator) == DXGI_ERROR_UNSUPPORTED);
  float data[4] = {1, 2, 3, 4};
  CHECK(tally::directml::execute(other, data, data, {}, &details) == DXGI_ERROR_UNSUPPORTED);
  CHECK(data[3] == 4);
  const DML_OPERATOR_DESC real{static_cast<DML_OPERATOR_TYPE>(tally::directml::cumulative_summation_type), &sum};
  CHECK(tally::directml::execute(real, data, data, {}, &details) == S_OK);
  CHECK(data[3] == 10);
}

}  // namespace
