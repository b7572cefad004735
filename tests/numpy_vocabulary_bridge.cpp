// A C entry point over tally's scan vocabulary, loaded by tests/test_numpy_vocabulary.py
// through ctypes: cumsum / cumprod with an output dtype (NumPy's dtype=), include_initial,
// nancumsum / nancumprod and complex elements, on NumPy-described strided arrays.
#include <tally/tally.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>

namespace {

constexpr std::size_t max_rank = tally::tensor_view<float>::max_rank;

/// The bridge's own failures, above tally::status_code.
enum bridge_code : int { bad_pair = 100, bad_function = 101, bad_stride = 102, other_exception = 105 };

void write_message(char* message, std::size_t capacity, const char* text) noexcept {
  if (!message || capacity == 0) return;
  std::strncpy(message, text, capacity - 1);
  message[capacity - 1] = '\0';
}

struct call {
  int function;  // 0 cumsum, 1 cumprod, 2 nancumsum, 3 nancumprod
  int rank;
  const std::int64_t *in_sizes, *out_sizes;
  const void* in;
  const std::int64_t* in_strides;  // bytes
  void* out;
  const std::int64_t* out_strides;  // bytes
  int axis;
  tally::scan_options options;
};

template <class T>
bool view_args(int rank, const std::int64_t* sizes, const std::int64_t* bytes, std::size_t* s, std::ptrdiff_t* e) {
  for (int d = 0; d < rank; ++d) {
    if (bytes[d] % static_cast<std::int64_t>(sizeof(T)) != 0 || sizes[d] < 0) return false;
    s[d] = static_cast<std::size_t>(sizes[d]);
    e[d] = static_cast<std::ptrdiff_t>(bytes[d] / static_cast<std::int64_t>(sizeof(T)));
  }
  return true;
}

template <class T, class U>
int scan(const call& c) {
  std::size_t in_sizes[max_rank], out_sizes[max_rank];
  std::ptrdiff_t in_strides[max_rank], out_strides[max_rank];
  if (!view_args<T>(c.rank, c.in_sizes, c.in_strides, in_sizes, in_strides) ||
      !view_args<U>(c.rank, c.out_sizes, c.out_strides, out_sizes, out_strides))
    return bad_stride;
  const auto r = static_cast<std::size_t>(c.rank);
  const tally::tensor_view<const T> in(static_cast<const T*>(c.in), r, in_sizes, in_strides);
  const tally::tensor_view<U> out(static_cast<U*>(c.out), r, out_sizes, out_strides);
  switch (c.function) {
    case 0: tally::cumsum<T, U>(in, out, c.axis, c.options); return 0;
    case 1: tally::cumprod<T, U>(in, out, c.axis, c.options); return 0;
    case 2: tally::nancumsum<T, U>(in, out, c.axis, c.options); return 0;
    case 3: tally::nancumprod<T, U>(in, out, c.axis, c.options); return 0;
    default: return bad_function;
  }
}

/// The pairs the test uses, by NumPy dtype name: types into themselves, and the widening
/// pairs of the spec's section 1.
int dispatch(const char* in, const char* out, const call& c) {
#define TALLY_PAIR(T, U, tn, un) \
  if (std::strcmp(in, tn) == 0 && std::strcmp(out, un) == 0) return scan<T, U>(c);
  TALLY_PAIR(std::int8_t, std::int8_t, "int8", "int8")
  TALLY_PAIR(std::int8_t, std::int16_t, "int8", "int16")
  TALLY_PAIR(std::int8_t, std::int64_t, "int8", "int64")
  TALLY_PAIR(std::uint8_t, std::uint8_t, "uint8", "uint8")
  TALLY_PAIR(std::uint8_t, std::int32_t, "uint8", "int32")
  TALLY_PAIR(std::uint8_t, std::uint64_t, "uint8", "uint64")
  TALLY_PAIR(std::int16_t, std::int64_t, "int16", "int64")
  TALLY_PAIR(std::int16_t, float, "int16", "float32")
  TALLY_PAIR(std::uint16_t, std::uint32_t, "uint16", "uint32")
  TALLY_PAIR(std::int32_t, std::int32_t, "int32", "int32")
  TALLY_PAIR(std::int32_t, std::int64_t, "int32", "int64")
  TALLY_PAIR(std::int32_t, double, "int32", "float64")
  TALLY_PAIR(std::uint32_t, std::uint64_t, "uint32", "uint64")
  TALLY_PAIR(std::int64_t, std::int64_t, "int64", "int64")
  TALLY_PAIR(tally::half, tally::half, "float16", "float16")
  TALLY_PAIR(tally::half, float, "float16", "float32")
  TALLY_PAIR(tally::half, double, "float16", "float64")
  TALLY_PAIR(float, float, "float32", "float32")
  TALLY_PAIR(float, double, "float32", "float64")
  TALLY_PAIR(double, double, "float64", "float64")
  TALLY_PAIR(std::complex<float>, std::complex<float>, "complex64", "complex64")
  TALLY_PAIR(std::complex<float>, std::complex<double>, "complex64", "complex128")
  TALLY_PAIR(std::complex<double>, std::complex<double>, "complex128", "complex128")
#undef TALLY_PAIR
  return bad_pair;
}

}  // namespace

/// Runs function (0 cumsum, 1 cumprod, 2 nancumsum, 3 nancumprod) from an array of dtype
/// `in_dtype` into one of `out_dtype` (NumPy dtype names), strides in bytes. Returns 0, a
/// tally::status_code value, or a bridge_code (>= 100) with the reason in `message`.
extern "C"
#if defined(__GNUC__)
    __attribute__((visibility("default")))
#endif
    int tally_numpy_vocabulary(int function, const char* in_dtype, const char* out_dtype, int rank,
                               const std::int64_t* in_sizes, const void* in, const std::int64_t* in_strides,
                               const std::int64_t* out_sizes, void* out, const std::int64_t* out_strides, int axis,
                               int reverse, int include_initial, unsigned threads, char* message,
                               std::size_t message_capacity) noexcept {
  write_message(message, message_capacity, "");
  try {
    if (rank < 1 || rank > static_cast<int>(max_rank)) {
      write_message(message, message_capacity, "rank must be 1..8");
      return static_cast<int>(tally::status_code::invalid_dimension_count);
    }
    call c{function, rank, in_sizes, out_sizes, in, in_strides, out, out_strides, axis, {}};
    c.options.direction = reverse ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    c.options.include_initial = include_initial != 0;
    c.options.threads = threads;
    const int code = dispatch(in_dtype, out_dtype, c);
    if (code == bad_pair) write_message(message, message_capacity, "dtype pair not in the bridge");
    if (code == bad_stride) write_message(message, message_capacity, "a byte stride is not a multiple of the element size");
    return code;
  } catch (const tally::error& e) {
    write_message(message, message_capacity, e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    write_message(message, message_capacity, e.what());
    return other_exception;
  } catch (...) {
    write_message(message, message_capacity, "unknown exception");
    return other_exception;
  }
}
