// A C entry point over tally's typed layer, loaded by tests/test_numpy.py through ctypes,
// so that NumPy arrays (any dtype, any strided view, any overlap) can be scanned by tally
// exactly as NumPy describes them and compared with np.cumsum / np.cumprod.
#include <tally/tally.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>

namespace {

/// tally's largest rank (the same for every element type).
constexpr std::size_t max_rank = tally::tensor_view<float>::max_rank;

/// Failures found by the bridge itself, above the range of tally::status_code.
enum bridge_code : int {
  bad_dtype = 100,       ///< not one of tally's data_type values
  bad_op = 101,          ///< op is neither 0 (sum) nor 1 (product)
  bad_stride = 102,      ///< a byte stride that is not a multiple of the element size
  negative_size = 103,   ///< a dimension size below 0
  out_of_memory = 104,   ///< std::bad_alloc (staging an overlapping input)
  other_exception = 105  ///< any other exception: a bug, reported instead of crossing the C boundary
};

void write_message(char* message, std::size_t capacity, const char* text) noexcept {
  if (!message || capacity == 0) return;
  std::strncpy(message, text, capacity - 1);
  message[capacity - 1] = '\0';
}

/// Everything the C function received, passed on to the typed instantiation.
struct call {
  int rank;
  const std::int64_t* sizes;
  const void* in;
  const std::int64_t* in_strides;  // bytes
  void* out;
  const std::int64_t* out_strides;  // bytes
  int axis;
  tally::scan_options options;
  int op;
};

/// NumPy strides are bytes; tally's are elements. A stride that does not divide (possible
/// with np.lib.stride_tricks or record fields) cannot be an element stride.
template <class T>
bool to_elements(int rank, const std::int64_t* bytes, std::ptrdiff_t* elements) noexcept {
  constexpr auto size = static_cast<std::int64_t>(sizeof(T));
  for (int d = 0; d < rank; ++d) {
    if (bytes[d] % size != 0) return false;
    elements[d] = static_cast<std::ptrdiff_t>(bytes[d] / size);
  }
  return true;
}

template <class T>
int scan(const call& c) {
  // NumPy permits unaligned arrays; dereferencing them as T would be undefined behaviour.
  if (reinterpret_cast<std::uintptr_t>(c.in) % alignof(T) != 0 ||
      reinterpret_cast<std::uintptr_t>(c.out) % alignof(T) != 0)
    return static_cast<int>(tally::status_code::misaligned_buffer);
  std::size_t sizes[max_rank];
  std::ptrdiff_t in_strides[max_rank], out_strides[max_rank];
  for (int d = 0; d < c.rank; ++d) {
    if (c.sizes[d] < 0) return negative_size;
    sizes[d] = static_cast<std::size_t>(c.sizes[d]);
  }
  if (!to_elements<T>(c.rank, c.in_strides, in_strides) || !to_elements<T>(c.rank, c.out_strides, out_strides))
    return bad_stride;
  const tally::tensor_view<const T> in(static_cast<const T*>(c.in), static_cast<std::size_t>(c.rank), sizes,
                                       in_strides);
  const tally::tensor_view<T> out(static_cast<T*>(c.out), static_cast<std::size_t>(c.rank), sizes, out_strides);
  if (c.op == 0)
    tally::cumsum(in, out, c.axis, c.options);
  else
    tally::cumprod(in, out, c.axis, c.options);
  return 0;
}

int dispatch(tally::data_type type, const call& c) {
  switch (type) {
    case tally::data_type::float32: return scan<float>(c);
    case tally::data_type::float16: return scan<tally::half>(c);
    case tally::data_type::float64: return scan<double>(c);
    case tally::data_type::int8: return scan<std::int8_t>(c);
    case tally::data_type::int16: return scan<std::int16_t>(c);
    case tally::data_type::int32: return scan<std::int32_t>(c);
    case tally::data_type::int64: return scan<std::int64_t>(c);
    case tally::data_type::uint8: return scan<std::uint8_t>(c);
    case tally::data_type::uint16: return scan<std::uint16_t>(c);
    case tally::data_type::uint32: return scan<std::uint32_t>(c);
    case tally::data_type::uint64: return scan<std::uint64_t>(c);
    default: return bad_dtype;
  }
}

}  // namespace

/// Scans a NumPy-described array with tally's typed layer.
///
/// `dtype` is a tally::data_type value; `sizes`, `in_strides` and `out_strides` hold `rank`
/// entries, strides in BYTES as in ndarray.strides (converted to elements here). `axis` may
/// be negative; `reverse` selects axis_direction::decreasing; `op` is 0 for cumsum and 1 for
/// cumprod; `threads` is scan_options::threads. Returns 0 on success, a tally::status_code
/// value when tally refuses the call, or a bridge_code (>= 100). On failure the reason is
/// copied into `message` (may be null). No exception crosses this function.
extern "C"
#if defined(__GNUC__)
    __attribute__((visibility("default")))
#endif
    int tally_numpy_scan(int dtype, int rank, const std::int64_t* sizes, const void* in,
                         const std::int64_t* in_strides, void* out, const std::int64_t* out_strides, int axis,
                         int reverse, int exclusive, int op, unsigned threads, char* message,
                         std::size_t message_capacity) noexcept {
  write_message(message, message_capacity, "");
  try {
    if (op != 0 && op != 1) {
      write_message(message, message_capacity, "op must be 0 (sum) or 1 (product)");
      return bad_op;
    }
    if (rank < 1 || rank > static_cast<int>(max_rank)) {
      // Checked here because the arrays above hold at most max_rank entries.
      write_message(message, message_capacity, "rank must be 1..8");
      return static_cast<int>(tally::status_code::invalid_dimension_count);
    }
    call c{rank, sizes, in, in_strides, out, out_strides, axis, {}, op};
    c.options.direction = reverse ? tally::axis_direction::decreasing : tally::axis_direction::increasing;
    c.options.exclusive = exclusive != 0;
    c.options.threads = threads;
    const int code = dispatch(static_cast<tally::data_type>(dtype), c);
    if (code == bad_dtype) write_message(message, message_capacity, "unknown dtype code");
    if (code == bad_stride) write_message(message, message_capacity, "a byte stride is not a multiple of the element size");
    if (code == negative_size) write_message(message, message_capacity, "a size is negative");
    if (code == static_cast<int>(tally::status_code::misaligned_buffer))
      write_message(message, message_capacity, "a data pointer is not aligned to the element size");
    return code;
  } catch (const tally::error& e) {
    write_message(message, message_capacity, e.what());
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    write_message(message, message_capacity, "out of memory");
    return out_of_memory;
  } catch (const std::exception& e) {
    write_message(message, message_capacity, e.what());
    return other_exception;
  } catch (...) {
    write_message(message, message_capacity, "unknown exception");
    return other_exception;
  }
}
