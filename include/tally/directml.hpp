/// @file
/// @brief DirectML source compatibility: run code written against DirectML's
/// `DML_CUMULATIVE_SUMMATION_OPERATOR_DESC` / `DML_CUMULATIVE_PRODUCT_OPERATOR_DESC`
/// on the CPU, with tally as the implementation.
///
/// When `<DirectML.h>` is included before this header (detected by its include guard
/// `DIRECTML_H` or by `DML_TARGET_VERSION`), DirectML's own types are used. Elsewhere
/// (Linux, macOS, or Windows without DirectML) this header declares, in the global
/// namespace as DirectML does, the structs and enums a cumulative operator needs, with
/// DirectML's names, member order, enum values and layout. Include `<DirectML.h>` first
/// if you use both: it cannot be included after these declarations.
///
/// The functions live in `tally::directml` and return HRESULTs; see docs/directml.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "data_type.hpp"
#include "operators.hpp"
#include "parallel.hpp"
#include "status.hpp"
#include "tensor_desc.hpp"

#if defined(DIRECTML_H) || defined(DML_TARGET_VERSION)
/// Defined to 1 when DirectML's own header provides the types, to 0 when tally declares them.
#define TALLY_DIRECTML_NATIVE 1
#else
/// 0: tally declares DirectML's types itself (no `<DirectML.h>` was included first).
#define TALLY_DIRECTML_NATIVE 0
#endif

#if TALLY_DIRECTML_NATIVE
// DirectML.h declares the cumulative summation and DML_AXIS_DIRECTION from target version
// 0x2100 (DirectML 1.4), the cumulative product from 0x3100 (DirectML 1.5). Below 0x2100
// (DirectML.h's default for an older NTDDI_VERSION, e.g. _WIN32_WINNT=0x0A00 or MinGW's
// default) tally::directml still compiles and refuses both operators as unsupported.
#if DML_TARGET_VERSION >= 0x2100
#define TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION 1
#else
#define TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION 0
#endif
#if DML_TARGET_VERSION >= 0x3100
#define TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT 1
#else
#define TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT 0
#endif
#else  // !TALLY_DIRECTML_NATIVE
/// 1 when DML_CUMULATIVE_SUMMATION_OPERATOR_DESC is declared (always without DirectML.h).
#define TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION 1
/// 1 when DML_CUMULATIVE_PRODUCT_OPERATOR_DESC is declared (always without DirectML.h).
#define TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT 1
#endif

#if !TALLY_DIRECTML_NATIVE

#if defined(_WIN32)
// The Windows SDK owns UINT, BOOL, HRESULT and the error codes; redefining them here
// would clash with <windows.h> included later. NOMINMAX is the user's choice: tally
// neither defines nor undefines it, and its own code is immune to the min/max macros.
#include <windows.h>
#else
// The Windows base types, as fixed-width types so that an identical typedef from another
// header (e.g. DirectX-Headers' WSL adapter, which uses the same <cstdint> types) is a
// harmless redeclaration rather than a conflict.
typedef std::uint32_t UINT;    ///< Windows' 32-bit unsigned integer
typedef std::int32_t INT;      ///< Windows' 32-bit signed integer
typedef std::uint64_t UINT64;  ///< Windows' 64-bit unsigned integer
typedef std::int32_t BOOL;     ///< Windows' 32-bit boolean: TRUE or FALSE
typedef std::int32_t HRESULT;  ///< Windows' status code: 32-bit signed, negative on failure
#endif

#ifndef TRUE
/// Windows' BOOL true value; defined only when missing.
#define TRUE 1
#endif
#ifndef FALSE
/// Windows' BOOL false value; defined only when missing.
#define FALSE 0
#endif

#ifndef TALLY_DIRECTML_TYPES_DECLARED
/// Set once tally has declared DirectML's types, so that they are declared only once.
#define TALLY_DIRECTML_TYPES_DECLARED 1

/// DirectML's largest dimension count before feature level 3.0.
static const UINT DML_TENSOR_DIMENSION_COUNT_MAX = 5;
/// DirectML's largest dimension count from feature level 3.0 (tally's limit).
static const UINT DML_TENSOR_DIMENSION_COUNT_MAX1 = 8;
/// DirectML's recommended base alignment of a bound buffer tensor, in bytes.
static const UINT DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16;

// The enums have a fixed underlying type (int, as MSVC gives DirectML's), so every value
// a caller casts in, valid or not, is representable and reaches validation.

/// DirectML's element types; the values equal tally::data_type's.
enum DML_TENSOR_DATA_TYPE : int {
  DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
  DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
  DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
  DML_TENSOR_DATA_TYPE_UINT32 = 3,
  DML_TENSOR_DATA_TYPE_UINT16 = 4,
  DML_TENSOR_DATA_TYPE_UINT8 = 5,
  DML_TENSOR_DATA_TYPE_INT32 = 6,
  DML_TENSOR_DATA_TYPE_INT16 = 7,
  DML_TENSOR_DATA_TYPE_INT8 = 8,
  DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
  DML_TENSOR_DATA_TYPE_UINT64 = 10,
  DML_TENSOR_DATA_TYPE_INT64 = 11,
  DML_TENSOR_DATA_TYPE_UINT4 = 12,  ///< DirectML 0x6300; tally rejects it
  DML_TENSOR_DATA_TYPE_INT4 = 13,   ///< DirectML 0x6300; tally rejects it
};

/// The kind of a DML_TENSOR_DESC; only buffer tensors exist.
enum DML_TENSOR_TYPE : int {
  DML_TENSOR_TYPE_INVALID = 0,
  DML_TENSOR_TYPE_BUFFER = 1,
};

/// Buffer tensor flags. OWNED_BY_DML only changes when DirectML binds a tensor; tally
/// binds nothing ahead of time and ignores it.
enum DML_TENSOR_FLAGS : int {
  DML_TENSOR_FLAG_NONE = 0x0,
  DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
};

/// Combines flags, as DEFINE_ENUM_FLAG_OPERATORS does for DirectML.
constexpr DML_TENSOR_FLAGS operator|(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<int>(a) | static_cast<int>(b));
}
/// Intersects flags, as DEFINE_ENUM_FLAG_OPERATORS does for DirectML.
constexpr DML_TENSOR_FLAGS operator&(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<int>(a) & static_cast<int>(b));
}

/// A tensor in a buffer. Strides count elements; a null Strides means packed row-major.
struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;       ///< type of the tensor's elements
  DML_TENSOR_FLAGS Flags;              ///< binding options (tally ignores them)
  UINT DimensionCount;                 ///< number of dimensions, 1..8; the length of Sizes and Strides
  const UINT* Sizes;                   ///< size of each dimension, outermost first
  const UINT* Strides;                 ///< optional: elements to step in each dimension; null means packed
  UINT64 TotalTensorSizeInBytes;       ///< size of the buffer in bytes, at least DMLCalcBufferTensorSize()
  UINT GuaranteedBaseOffsetAlignment;  ///< ignored by tally, which checks real alignment
};

/// A tagged pointer to a tensor description; Desc points at a DML_BUFFER_TENSOR_DESC.
struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;  ///< the kind of tensor Desc points at: DML_TENSOR_TYPE_BUFFER
  const void* Desc;      ///< the DML_BUFFER_TENSOR_DESC
};

/// Operator types. Only the two cumulative operators are declared, with DirectML's
/// values; tally implements no other operator.
enum DML_OPERATOR_TYPE : int {
  DML_OPERATOR_INVALID = 0,
  DML_OPERATOR_CUMULATIVE_SUMMATION = 105,
  DML_OPERATOR_CUMULATIVE_PRODUCT = 145,
};

/// Direction of a scan along its axis.
enum DML_AXIS_DIRECTION : int {
  DML_AXIS_DIRECTION_INCREASING = 0,
  DML_AXIS_DIRECTION_DECREASING = 1,
};

/// A tagged pointer to an operator description.
struct DML_OPERATOR_DESC {
  DML_OPERATOR_TYPE Type;  ///< the operator, which gives the type Desc points at
  const void* Desc;        ///< the operator's own description, e.g. a DML_CUMULATIVE_SUMMATION_OPERATOR_DESC
};

/// Running sums along an axis (DirectML 1.4, feature level 2.1).
struct DML_CUMULATIVE_SUMMATION_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;   ///< the tensor to read
  const DML_TENSOR_DESC* OutputTensor;  ///< the tensor to write; same sizes and data type as the input
  UINT Axis;                            ///< dimension to sum along, less than the input's DimensionCount
  DML_AXIS_DIRECTION AxisDirection;     ///< increasing: sum from index 0; decreasing: from the last index
  BOOL HasExclusiveSum;                 ///< TRUE: each output excludes its own input; the first output is 0
};

/// Running products along an axis (DirectML 1.5, feature level 3.1).
struct DML_CUMULATIVE_PRODUCT_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;   ///< the tensor to read
  const DML_TENSOR_DESC* OutputTensor;  ///< the tensor to write; same sizes and data type as the input
  UINT Axis;                            ///< dimension to multiply along, less than the input's DimensionCount
  DML_AXIS_DIRECTION AxisDirection;     ///< increasing: multiply from index 0; decreasing: from the last index
  BOOL HasExclusiveProduct;             ///< TRUE: each output excludes its own input; the first output is 1
};

#ifndef TALLY_DIRECTML_NO_CALC_BUFFER_TENSOR_SIZE
/// DirectML's documented helper (not part of DirectML.h: its samples and DirectMLX.h
/// define it): the minimum TotalTensorSizeInBytes for these sizes and strides, rounded up
/// to 4 bytes. Returns 0 for an invalid type, sizes or overflow. Define
/// TALLY_DIRECTML_NO_CALC_BUFFER_TENSOR_SIZE if your code defines its own.
inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                      const UINT* strides) {
  return tally::calc_buffer_tensor_size(static_cast<tally::data_type>(dataType), dimensionCount, sizes, strides);
}
#endif

#endif  // TALLY_DIRECTML_TYPES_DECLARED
#endif  // !TALLY_DIRECTML_NATIVE

// HRESULT values, defined only where no Windows header did. The casts go through
// unsigned so that the bit patterns are exact in a 32-bit signed HRESULT.
#ifndef S_OK
/// HRESULT success; defined only when missing.
#define S_OK (static_cast<HRESULT>(0))
#endif
#ifndef E_INVALIDARG
/// HRESULT for an invalid argument; defined only when missing.
#define E_INVALIDARG (static_cast<HRESULT>(static_cast<std::int32_t>(0x80070057u)))
#endif
#ifndef E_POINTER
/// HRESULT for an invalid (null) pointer; defined only when missing.
#define E_POINTER (static_cast<HRESULT>(static_cast<std::int32_t>(0x80004003u)))
#endif
#ifndef DXGI_ERROR_UNSUPPORTED
/// HRESULT for an unsupported operation; defined only when missing.
#define DXGI_ERROR_UNSUPPORTED (static_cast<HRESULT>(static_cast<std::int32_t>(0x887A0004u)))
#endif
#ifndef SUCCEEDED
/// True when an HRESULT is a success (non-negative); defined only when missing.
#define SUCCEEDED(hr) (static_cast<HRESULT>(hr) >= 0)
#endif
#ifndef FAILED
/// True when an HRESULT is a failure (negative); defined only when missing.
#define FAILED(hr) (static_cast<HRESULT>(hr) < 0)
#endif

// The layout DirectML's ABI has on 64-bit targets; checked against DirectML.h too.
static_assert(sizeof(UINT) == 4 && sizeof(UINT64) == 8 && sizeof(BOOL) == 4 && sizeof(HRESULT) == 4,
              "DirectML's base types have these sizes");
static_assert(sizeof(DML_TENSOR_DATA_TYPE) == 4 && sizeof(DML_OPERATOR_TYPE) == 4 && sizeof(DML_TENSOR_TYPE) == 4,
              "DirectML's enums are 32-bit");
#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION  // DML_AXIS_DIRECTION came with it
static_assert(sizeof(DML_AXIS_DIRECTION) == 4, "DirectML's enums are 32-bit");
#endif
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
static_assert(offsetof(DML_BUFFER_TENSOR_DESC, DataType) == 0 && offsetof(DML_BUFFER_TENSOR_DESC, Flags) == 4 &&
                  offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8 &&
                  offsetof(DML_BUFFER_TENSOR_DESC, Sizes) == 16 && offsetof(DML_BUFFER_TENSOR_DESC, Strides) == 24 &&
                  offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32 &&
                  offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40 &&
                  sizeof(DML_BUFFER_TENSOR_DESC) == 48,
              "DML_BUFFER_TENSOR_DESC has DirectML's 64-bit layout");
static_assert(offsetof(DML_TENSOR_DESC, Type) == 0 && offsetof(DML_TENSOR_DESC, Desc) == 8 &&
                  sizeof(DML_TENSOR_DESC) == 16,
              "DML_TENSOR_DESC has DirectML's 64-bit layout");
static_assert(offsetof(DML_OPERATOR_DESC, Type) == 0 && offsetof(DML_OPERATOR_DESC, Desc) == 8 &&
                  sizeof(DML_OPERATOR_DESC) == 16,
              "DML_OPERATOR_DESC has DirectML's 64-bit layout");
#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION
static_assert(offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, InputTensor) == 0 &&
                  offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, OutputTensor) == 8 &&
                  offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, Axis) == 16 &&
                  offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, AxisDirection) == 20 &&
                  offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum) == 24 &&
                  sizeof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC) == 32,
              "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC has DirectML's 64-bit layout");
#endif
#if TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT
static_assert(offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, InputTensor) == 0 &&
                  offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, OutputTensor) == 8 &&
                  offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, Axis) == 16 &&
                  offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, AxisDirection) == 20 &&
                  offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct) == 24 &&
                  sizeof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC) == 32,
              "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC has DirectML's 64-bit layout");
#endif
#endif

// tally's enums reuse DirectML's values, so the conversions below are plain casts.
static_assert(static_cast<int>(DML_TENSOR_DATA_TYPE_FLOAT32) == static_cast<int>(tally::data_type::float32) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_FLOAT16) == static_cast<int>(tally::data_type::float16) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_UINT32) == static_cast<int>(tally::data_type::uint32) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_UINT16) == static_cast<int>(tally::data_type::uint16) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_UINT8) == static_cast<int>(tally::data_type::uint8) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_INT32) == static_cast<int>(tally::data_type::int32) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_INT16) == static_cast<int>(tally::data_type::int16) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_INT8) == static_cast<int>(tally::data_type::int8) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_FLOAT64) == static_cast<int>(tally::data_type::float64) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_UINT64) == static_cast<int>(tally::data_type::uint64) &&
                  static_cast<int>(DML_TENSOR_DATA_TYPE_INT64) == static_cast<int>(tally::data_type::int64),
              "DML_TENSOR_DATA_TYPE and tally::data_type share their values");
#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION
static_assert(static_cast<int>(DML_AXIS_DIRECTION_INCREASING) == static_cast<int>(tally::axis_direction::increasing) &&
                  static_cast<int>(DML_AXIS_DIRECTION_DECREASING) ==
                      static_cast<int>(tally::axis_direction::decreasing),
              "DML_AXIS_DIRECTION and tally::axis_direction share their values");
#endif

TALLY_BEGIN_NAMESPACE
/// DirectML's structs in, tally's descriptor layer underneath, HRESULTs out.
namespace directml {

/// DirectML's operator type values for the two operators tally implements.
inline constexpr int cumulative_summation_type = 105;
inline constexpr int cumulative_product_type = 145;  ///< DML_OPERATOR_CUMULATIVE_PRODUCT

/// The HRESULT for a tally status: S_OK for success, DXGI_ERROR_UNSUPPORTED for an
/// operator type tally does not implement, E_INVALIDARG for every other refusal
/// (DirectML's code for an invalid description or binding), including unsupported data
/// types, which DirectML also reports as E_INVALIDARG when an operator does not take them.
/// (execute() itself returns E_POINTER for a null buffer, which no status alone tells.)
constexpr HRESULT to_hresult(status_code code) noexcept {
  return code == status_code::ok                     ? S_OK
         : code == status_code::unsupported_operator ? DXGI_ERROR_UNSUPPORTED
                                                     : E_INVALIDARG;
}

/// Same as to_hresult(s.code()).
inline HRESULT to_hresult(const status& s) noexcept { return to_hresult(s.code()); }

/// A DirectML operator description in tally's terms. It owns the two tensor descs that
/// summation() / product() point at, so those stay valid while this object lives.
struct operator_desc {
  int type = 0;                                           ///< 105 (summation) or 145 (product)
  tensor_desc input;                                      ///< the converted InputTensor
  tensor_desc output;                                     ///< the converted OutputTensor
  std::uint32_t axis = 0;                                 ///< Axis
  axis_direction direction = axis_direction::increasing;  ///< AxisDirection
  bool exclusive = false;                                 ///< HasExclusiveSum or HasExclusiveProduct

  /// The summation descriptor, pointing into this object.
  cumulative_summation_desc summation() const noexcept { return {&input, &output, axis, direction, exclusive}; }
  /// The product descriptor, pointing into this object.
  cumulative_product_desc product() const noexcept { return {&input, &output, axis, direction, exclusive}; }
};

namespace detail {
/// The value stored in an enum member, read as its underlying integer. DirectML.h's enums
/// have no fixed underlying type, so a value outside the range of their enumerators (an
/// operator newer than the header, a direction of 2, bytes from a file) cannot be
/// loaded as the enum without undefined behaviour; its bytes can be, and validation then
/// refuses it. (tally's own declarations fix the type to int, where both reads agree.)
template <class Enum>
int stored_value(const Enum& e) noexcept {
  std::underlying_type_t<Enum> value;
  static_assert(sizeof value == sizeof e, "an enum is as large as its underlying type");
  std::memcpy(&value, &e, sizeof value);
  return static_cast<int>(value);
}
}  // namespace detail

/// Converts a buffer tensor description. Flags and GuaranteedBaseOffsetAlignment have no
/// tally counterpart and are dropped; the data type is converted unchecked (validate()
/// rejects the values tally does not support).
inline tensor_desc convert(const DML_BUFFER_TENSOR_DESC& d) noexcept {
  tensor_desc t;
  t.type = static_cast<data_type>(detail::stored_value(d.DataType));
  t.dimension_count = d.DimensionCount;
  t.sizes = d.Sizes;
  t.strides = d.Strides;
  t.total_tensor_size_in_bytes = d.TotalTensorSizeInBytes;
  return t;
}

/// Converts a tensor description; it must be a non-null DML_TENSOR_TYPE_BUFFER with a
/// non-null Desc. `name` appears in the message.
inline status convert(const DML_TENSOR_DESC* d, tensor_desc& out, const char* name = "tensor") noexcept {
  if (!d) return status(status_code::null_pointer, "%s (a DML_TENSOR_DESC*) is null", name);
  const int type = detail::stored_value(d->Type);
  if (type != static_cast<int>(DML_TENSOR_TYPE_BUFFER))
    return status(status_code::unsupported_data_type, "%s->Type is %d; it must be DML_TENSOR_TYPE_BUFFER (1)", name,
                  type);
  if (!d->Desc) return status(status_code::null_pointer, "%s->Desc is null", name);
  out = convert(*static_cast<const DML_BUFFER_TENSOR_DESC*>(d->Desc));
  return {};
}

namespace detail {
template <class Desc>
status convert_cumulative(const Desc& d, BOOL exclusive, int type, operator_desc& out) noexcept {
  operator_desc o;
  o.type = type;
  if (status s = convert(d.InputTensor, o.input, "InputTensor"); !s) return s;
  if (status s = convert(d.OutputTensor, o.output, "OutputTensor"); !s) return s;
  o.axis = d.Axis;
  o.direction = static_cast<axis_direction>(stored_value(d.AxisDirection));
  o.exclusive = exclusive != 0;
  out = o;
  return {};
}
}  // namespace detail

#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION
/// Converts a DML_CUMULATIVE_SUMMATION_OPERATOR_DESC (its tensor descs are checked for
/// null and type; everything else is left to validate()).
inline status convert(const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC& d, operator_desc& out) noexcept {
  return detail::convert_cumulative(d, d.HasExclusiveSum, cumulative_summation_type, out);
}
#endif

#if TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT
/// Converts a DML_CUMULATIVE_PRODUCT_OPERATOR_DESC; see the summation overload.
inline status convert(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& d, operator_desc& out) noexcept {
  return detail::convert_cumulative(d, d.HasExclusiveProduct, cumulative_product_type, out);
}
#endif

/// Converts a DML_OPERATOR_DESC whose Type is DML_OPERATOR_CUMULATIVE_SUMMATION or
/// DML_OPERATOR_CUMULATIVE_PRODUCT. Any other type is refused with unsupported_operator.
inline status convert(const DML_OPERATOR_DESC& d, operator_desc& out) noexcept {
  const int type = detail::stored_value(d.Type);
  if (type != cumulative_summation_type && type != cumulative_product_type)
    return status(status_code::unsupported_operator,
                  "DML_OPERATOR_DESC.Type is %d; tally implements only DML_OPERATOR_CUMULATIVE_SUMMATION (105) "
                  "and DML_OPERATOR_CUMULATIVE_PRODUCT (145)",
                  type);
  if (!d.Desc) return status(status_code::null_pointer, "DML_OPERATOR_DESC.Desc is null");
#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION
  if (type == cumulative_summation_type)
    return convert(*static_cast<const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC*>(d.Desc), out);
#endif
#if TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT
  if (type == cumulative_product_type)
    return convert(*static_cast<const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC*>(d.Desc), out);
#endif
  // Only reachable with a DirectML.h older than the operator: the struct is not declared.
  (void)out;
  return status(status_code::unsupported_operator,
                "DML_OPERATOR_DESC.Type %d needs a newer DML_TARGET_VERSION than this DirectML.h declares", type);
}

namespace detail {
inline void report(status* details, const status& s) noexcept {
  if (details) *details = s;
}

/// Converts and checks `desc` once; on success `op` and `r` describe it.
inline status check(const DML_OPERATOR_DESC& desc, operator_desc& op, tally::detail::scan_request& r) noexcept {
  if (status s = convert(desc, op); !s) return s;
  return op.type == cumulative_summation_type
             ? tally::detail::check_operator(op.summation(), "cumulative_summation_desc", r)
             : tally::detail::check_operator(op.product(), "cumulative_product_desc", r);
}
}  // namespace detail

/// Checks a cumulative operator description as DirectML's CreateOperator would: S_OK,
/// E_INVALIDARG for an invalid description, DXGI_ERROR_UNSUPPORTED for an operator type
/// other than the two cumulative ones. When `details` is given it receives the tally
/// status (its message names the field and the values).
inline HRESULT validate(const DML_OPERATOR_DESC& desc, status* details = nullptr) noexcept {
  operator_desc op;
  tally::detail::scan_request r;
  const status s = detail::check(desc, op, r);
  detail::report(details, s);
  return to_hresult(s);
}

/// Validates `desc` and computes it from `input` into `output` (host memory, laid out as
/// the buffer tensor descs say). Returns S_OK; E_INVALIDARG for an invalid description,
/// a misaligned buffer or buffers that overlap other than exactly (in place);
/// E_POINTER for a null buffer; DXGI_ERROR_UNSUPPORTED for another operator type. On any
/// error nothing is written. `details` (optional) receives the tally status.
inline HRESULT execute(const DML_OPERATOR_DESC& desc, const void* input, void* output,
                       const execution_options& options = {}, status* details = nullptr) noexcept {
  operator_desc op;
  tally::detail::scan_request r;
  status s = detail::check(desc, op, r);
  if (s && (!input || !output)) {
    detail::report(details, status(status_code::null_pointer, "the %s buffer pointer is null",
                                   input ? "output" : "input"));
    return E_POINTER;
  }
  if (s) s = tally::detail::check_buffers(op.input, op.output, r, input, output);
  if (s) {
    if (op.type == cumulative_summation_type)
      tally::detail::execute_checked<tally::detail::sum_op>(r, input, output, options);
    else
      tally::detail::execute_checked<tally::detail::product_op>(r, input, output, options);
  }
  detail::report(details, s);
  return to_hresult(s);
}

#if TALLY_DIRECTML_HAS_CUMULATIVE_SUMMATION
/// validate() for a bare summation description (no DML_OPERATOR_DESC around it).
inline HRESULT validate(const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC& desc, status* details = nullptr) noexcept {
  return validate(DML_OPERATOR_DESC{static_cast<DML_OPERATOR_TYPE>(cumulative_summation_type), &desc}, details);
}
/// execute() for a bare summation description.
inline HRESULT execute(const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC& desc, const void* input, void* output,
                       const execution_options& options = {}, status* details = nullptr) noexcept {
  return execute(DML_OPERATOR_DESC{static_cast<DML_OPERATOR_TYPE>(cumulative_summation_type), &desc}, input,
                 output, options, details);
}
#endif

#if TALLY_DIRECTML_HAS_CUMULATIVE_PRODUCT
/// validate() for a bare product description.
inline HRESULT validate(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& desc, status* details = nullptr) noexcept {
  return validate(DML_OPERATOR_DESC{static_cast<DML_OPERATOR_TYPE>(cumulative_product_type), &desc}, details);
}
/// execute() for a bare product description.
inline HRESULT execute(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& desc, const void* input, void* output,
                       const execution_options& options = {}, status* details = nullptr) noexcept {
  return execute(DML_OPERATOR_DESC{static_cast<DML_OPERATOR_TYPE>(cumulative_product_type), &desc}, input, output,
                 options, details);
}
#endif

}  // namespace directml
TALLY_END_NAMESPACE
