// Arm NEON (Advanced SIMD, 128-bit) vectors for the generic kernels; the same vocabulary
// and semantics as avx2/vectors.hpp at half the width. Like AVX2, NEON has no masked
// arithmetic, so the Hillis-Steele steps shift in the identity (-0.0 or 0 for sums, 1
// for products: both leave the other operand unchanged, signed zeros included) and
// combine in the same operand order, x (op) shifted. `stream` is a plain store (the
// kernels then call store_fence(), a no-op here).
#pragma once

#include "../../config.hpp"

#if TALLY_ARM_NEON

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../ops.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace neon {

#define TALLY_T TALLY_TARGET_NEON inline

/// Lane sets (bit i: lane i) as vector masks, for select(): lane i tests bit i.
namespace lane_bits {
alignas(16) inline constexpr std::uint16_t of16[8] = {1, 2, 4, 8, 16, 32, 64, 128};
alignas(16) inline constexpr std::uint32_t of32[4] = {1, 2, 4, 8};
alignas(16) inline constexpr std::uint64_t of64[2] = {1, 2};
TALLY_T uint16x8_t mask16(std::uint64_t lanes) {
  return vtstq_u16(vdupq_n_u16(static_cast<std::uint16_t>(lanes)), vld1q_u16(of16));
}
TALLY_T uint32x4_t mask32(std::uint64_t lanes) {
  return vtstq_u32(vdupq_n_u32(static_cast<std::uint32_t>(lanes)), vld1q_u32(of32));
}
TALLY_T uint64x2_t mask64(std::uint64_t lanes) { return vtstq_u64(vdupq_n_u64(lanes), vld1q_u64(of64)); }
}  // namespace lane_bits

/// 4 float lanes: float32, and float16 converted on load and store by the hardware
/// (FCVTL/FCVTN: round to nearest even, NaNs quieted with their sign and top payload
/// bits, like F16C and tally::half).
struct f32 {
  using reg = float32x4_t;
  static constexpr std::size_t width = 4;
  TALLY_T static reg broadcast(float a) { return vdupq_n_f32(a); }
  TALLY_T static reg load(const float* p) { return vld1q_f32(p); }
  TALLY_T static reg load(const half* p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const std::uint16_t*>(p))));
  }
  TALLY_T static void store(float* p, reg v) { vst1q_f32(p, v); }
  TALLY_T static void store(half* p, reg v) {
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpret_u16_f16(vcvt_f16_f32(v)));
  }
  TALLY_T static void stream(float* p, reg v) { store(p, v); }
  TALLY_T static void stream(half* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) {
    const reg pairs = vrev64q_f32(v);  // [1, 0, 3, 2]
    return vextq_f32(pairs, pairs, 2);
  }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_f32(v, 3); }
  /// [prev[3], v[0], v[1], v[2]]
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_f32(prev, v, 3); }
  TALLY_T static float first(reg v) { return vgetq_lane_f32(v, 0); }
  TALLY_T static float last(reg v) { return vgetq_lane_f32(v, 3); }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return vbslq_f32(vceqq_f32(x, x), x, value); }
  /// a in the lanes of `lanes` (bit i: lane i), b in the others.
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return vbslq_f32(lane_bits::mask32(lanes), a, b); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return vaddq_f32(a, b);
    else return vmulq_f32(a, b);
  }
  /// Lanes >= k combine with the lane k below; lanes < k with the identity.
  template <class Op, int k>
  TALLY_T static reg step(reg x) {
    return combine<Op>(x, vextq_f32(broadcast(Op::template identity<float>()), x, 4 - k));
  }
  /// Inclusive prefix; the last lane is the pairwise tree (x3 + x2) + (x1 + x0).
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return step<Op, 2>(step<Op, 1>(x));
  }
};

/// 2 double lanes.
struct f64 {
  using reg = float64x2_t;
  static constexpr std::size_t width = 2;
  TALLY_T static reg broadcast(double a) { return vdupq_n_f64(a); }
  TALLY_T static reg load(const double* p) { return vld1q_f64(p); }
  TALLY_T static void store(double* p, reg v) { vst1q_f64(p, v); }
  TALLY_T static void stream(double* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) { return vextq_f64(v, v, 1); }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_f64(v, 1); }
  /// [prev[1], v[0]]
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_f64(prev, v, 1); }
  TALLY_T static double first(reg v) { return vgetq_lane_f64(v, 0); }
  TALLY_T static double last(reg v) { return vgetq_lane_f64(v, 1); }
  /// x with its NaN lanes replaced by `value` (nancumsum's loads).
  TALLY_T static reg nan_to(reg x, reg value) { return vbslq_f64(vceqq_f64(x, x), x, value); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return vbslq_f64(lane_bits::mask64(lanes), a, b); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return vaddq_f64(a, b);
    else return vmulq_f64(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return combine<Op>(x, vextq_f64(broadcast(Op::template identity<double>()), x, 1));
  }
};

/// 4 lanes of 32-bit integers.
struct i32 {
  using reg = uint32x4_t;
  using lane = std::uint32_t;
  static constexpr std::size_t width = 4;
  TALLY_T static reg broadcast(lane a) { return vdupq_n_u32(a); }
  // X is std::int32_t or std::uint32_t: read through its unsigned variant (allowed alias).
  template <class X>
  TALLY_T static reg load(const X* p) { return vld1q_u32(reinterpret_cast<const lane*>(p)); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { vst1q_u32(reinterpret_cast<lane*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) {
    const reg pairs = vrev64q_u32(v);
    return vextq_u32(pairs, pairs, 2);
  }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_u32(v, 3); }
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_u32(prev, v, 3); }
  TALLY_T static lane first(reg v) { return vgetq_lane_u32(v, 0); }
  TALLY_T static lane last(reg v) { return vgetq_lane_u32(v, 3); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return vbslq_u32(lane_bits::mask32(lanes), a, b); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return vaddq_u32(a, b);
    else return vmulq_u32(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x) {
    return combine<Op>(x, vextq_u32(broadcast(Op::template identity<lane>()), x, 4 - k));
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return step<Op, 2>(step<Op, 1>(x));
  }
  // Packed lines as differences of the running sum (see i8).
  TALLY_T static reg minus(reg a, reg b) { return vsubq_u32(a, b); }
  TALLY_T static reg next_positions(reg at, reg advance, reg last) {
    at = vaddq_u32(at, advance);
    return vsubq_u32(at, vandq_u32(vcgtq_u32(at, last), vaddq_u32(last, vdupq_n_u32(1))));
  }
  TALLY_T static reg line_bases(reg before, reg at, reg carried) {
    alignas(16) static constexpr lane iota[4] = {0, 1, 2, 3};
    const reg lanes = vld1q_u32(iota);
    // Lane s to bytes 4s .. 4s + 3 of `before`.
    const reg bytes = vaddq_u32(vmulq_n_u32(vsubq_u32(lanes, at), 0x04040404u), vdupq_n_u32(0x03020100u));
    const reg here = vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(before), vreinterpretq_u8_u32(bytes)));
    return vbslq_u32(vcgtq_u32(at, lanes), broadcast_last(carried), here);
  }
};

/// 2 lanes of 64-bit integers; NEON has no 64-bit multiply, so it is built from 32-bit
/// ones (modulo 2^64, like AVX2's).
struct i64 {
  using reg = uint64x2_t;
  using lane = std::uint64_t;
  static constexpr std::size_t width = 2;
  TALLY_T static reg broadcast(lane a) { return vdupq_n_u64(a); }
  template <class X>
  TALLY_T static reg load(const X* p) { return vld1q_u64(reinterpret_cast<const lane*>(p)); }
  template <class X>
  TALLY_T static void store(X* p, reg v) { vst1q_u64(reinterpret_cast<lane*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) { return vextq_u64(v, v, 1); }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_u64(v, 1); }
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_u64(prev, v, 1); }
  TALLY_T static lane first(reg v) { return vgetq_lane_u64(v, 0); }
  TALLY_T static lane last(reg v) { return vgetq_lane_u64(v, 1); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return vbslq_u64(lane_bits::mask64(lanes), a, b); }
  /// a * b mod 2^64 per lane: lo*lo + ((hi*lo + lo*hi) << 32).
  TALLY_T static reg multiply(reg a, reg b) {
    const uint32x2_t a_low = vmovn_u64(a), b_low = vmovn_u64(b);
    const uint32x2_t a_high = vshrn_n_u64(a, 32), b_high = vshrn_n_u64(b, 32);
    const reg cross = vmlal_u32(vmull_u32(a_high, b_low), a_low, b_high);
    return vaddq_u64(vmull_u32(a_low, b_low), vshlq_n_u64(cross, 32));
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return vaddq_u64(a, b);
    else return multiply(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return combine<Op>(x, vextq_u64(broadcast(Op::template identity<lane>()), x, 1));
  }
};

/// 8 lanes of 16-bit integers; 8-bit elements are widened on load and truncated on store
/// (the arithmetic is modular, so the low byte of a 16-bit lane is the 8-bit result).
struct i16 {
  using reg = uint16x8_t;
  using lane = std::uint16_t;
  static constexpr std::size_t width = 8;
  TALLY_T static reg broadcast(unsigned a) { return vdupq_n_u16(static_cast<lane>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    if constexpr (sizeof(X) == 1)
      return vmovl_u8(vld1_u8(reinterpret_cast<const std::uint8_t*>(p)));
    else
      return vld1q_u16(reinterpret_cast<const lane*>(p));
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) {
    if constexpr (sizeof(X) == 1)
      vst1_u8(reinterpret_cast<std::uint8_t*>(p), vmovn_u16(v));
    else
      vst1q_u16(reinterpret_cast<lane*>(p), v);
  }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) {
    const reg quads = vrev64q_u16(v);  // [3, 2, 1, 0, 7, 6, 5, 4]
    return vextq_u16(quads, quads, 4);
  }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_u16(v, 7); }
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_u16(prev, v, 7); }
  TALLY_T static lane first(reg v) { return vgetq_lane_u16(v, 0); }
  TALLY_T static lane last(reg v) { return vgetq_lane_u16(v, 7); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) { return vbslq_u16(lane_bits::mask16(lanes), a, b); }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    if constexpr (is_sum<Op>) return vaddq_u16(a, b);
    else return vmulq_u16(a, b);
  }
  template <class Op, int k>
  TALLY_T static reg step(reg x) {
    return combine<Op>(x, vextq_u16(broadcast(Op::template identity<lane>()), x, 8 - k));
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    return step<Op, 4>(step<Op, 2>(step<Op, 1>(x)));
  }
  // Packed lines as differences of the running sum (see i8).
  TALLY_T static reg minus(reg a, reg b) { return vsubq_u16(a, b); }
  TALLY_T static reg next_positions(reg at, reg advance, reg last) {
    at = vaddq_u16(at, advance);
    return vsubq_u16(at, vandq_u16(vcgtq_u16(at, last), vaddq_u16(last, vdupq_n_u16(1))));
  }
  TALLY_T static reg line_bases(reg before, reg at, reg carried) {
    alignas(16) static constexpr lane iota[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const reg lanes = vld1q_u16(iota);
    // Lane s to bytes 2s, 2s + 1 of `before`.
    const reg bytes = vaddq_u16(vmulq_n_u16(vsubq_u16(lanes, at), 0x0202), vdupq_n_u16(0x0100));
    const reg here = vreinterpretq_u16_u8(vqtbl1q_u8(vreinterpretq_u8_u16(before), vreinterpretq_u8_u16(bytes)));
    return vbslq_u16(vcgtq_u16(at, lanes), broadcast_last(carried), here);
  }
};

/// 16 lanes of 8-bit integers, for sums (generic.hpp: line_vec_for): twice i16's lanes and
/// no widening or narrowing. Besides the basic vocabulary it has select and the packed
/// lines as differences of the running sum (see avx2::i8); the rest stays i16's.
struct i8 {
  using reg = uint8x16_t;
  using lane = std::uint8_t;
  static constexpr std::size_t width = 16;
  TALLY_T static reg broadcast(unsigned a) { return vdupq_n_u8(static_cast<lane>(a)); }
  template <class X>
  TALLY_T static reg load(const X* p) {
    static_assert(sizeof(X) == 1, "8-bit elements");
    return vld1q_u8(reinterpret_cast<const lane*>(p));
  }
  template <class X>
  TALLY_T static void store(X* p, reg v) { vst1q_u8(reinterpret_cast<lane*>(p), v); }
  template <class X>
  TALLY_T static void stream(X* p, reg v) { store(p, v); }
  TALLY_T static reg reverse(reg v) {
    const reg halves = vrev64q_u8(v);  // [7..0, 15..8]
    return vextq_u8(halves, halves, 8);
  }
  TALLY_T static reg broadcast_last(reg v) { return vdupq_laneq_u8(v, 15); }
  TALLY_T static reg shift_in(reg v, reg prev) { return vextq_u8(prev, v, 15); }
  TALLY_T static lane first(reg v) { return vgetq_lane_u8(v, 0); }
  TALLY_T static lane last(reg v) { return vgetq_lane_u8(v, 15); }
  TALLY_T static reg select(std::uint64_t lanes, reg a, reg b) {
    alignas(16) static constexpr lane bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const reg bytes = vcombine_u8(vdup_n_u8(static_cast<lane>(lanes & 0xff)), vdup_n_u8(static_cast<lane>((lanes >> 8) & 0xff)));
    return vbslq_u8(vtstq_u8(bytes, vld1q_u8(bit)), a, b);
  }
  template <class Op>
  TALLY_T static reg combine(reg a, reg b) {
    static_assert(is_sum<Op>, "8-bit lanes add only here");
    return vaddq_u8(a, b);
  }
  template <class Op>
  TALLY_T static reg scan(reg x) {
    const reg zero = vdupq_n_u8(0);
    x = vaddq_u8(x, vextq_u8(zero, x, 15));
    x = vaddq_u8(x, vextq_u8(zero, x, 14));
    x = vaddq_u8(x, vextq_u8(zero, x, 12));
    return vaddq_u8(x, vextq_u8(zero, x, 8));
  }
  TALLY_T static reg minus(reg a, reg b) { return vsubq_u8(a, b); }
  TALLY_T static reg next_positions(reg at, reg advance, reg last) {
    at = vaddq_u8(at, advance);
    return vsubq_u8(at, vandq_u8(vcgtq_u8(at, last), vaddq_u8(last, vdupq_n_u8(1))));
  }
  TALLY_T static reg line_bases(reg before, reg at, reg carried) {
    alignas(16) static constexpr lane iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const reg lanes = vld1q_u8(iota);
    // A line that began in an earlier vector has at > lane (its start would be negative).
    return vbslq_u8(vcgtq_u8(at, lanes), broadcast_last(carried), vqtbl1q_u8(before, vsubq_u8(lanes, at)));
  }
};

/// The vector of 8-bit sums (generic.hpp: line_vec_for), along long lines too.
using byte_sums = i8;
using byte_long_sums = i8;

/// The vectors of narrow rows of float products (generic.hpp: narrow_rows_vec_for).
using narrow_f32 = f32;
using narrow_f64 = f64;
/// The vector of 8-bit packed line sums (generic.hpp: scan_short_lines; without the line
/// window operations, plus_above and the lane shifts, they take the difference form).
using byte_line_sums = i8;

/// 4x4 blocks of 4-byte elements, transposed in registers (see avx512::transpose32).
/// Integers move as uint32 lanes, floats as float lanes (each read through its own type
/// or its unsigned variant); the bits are unchanged either way.
struct transpose32 {
  static constexpr std::size_t width = 4;
  template <class T>
  TALLY_T static uint32x4_t load_bits(const T* p) {
    if constexpr (std::is_floating_point_v<T>)
      return vreinterpretq_u32_f32(vld1q_f32(p));
    else
      return vld1q_u32(reinterpret_cast<const std::uint32_t*>(p));
  }
  template <class T>
  TALLY_T static void store_bits(T* p, uint32x4_t v) {
    if constexpr (std::is_floating_point_v<T>)
      vst1q_f32(p, vreinterpretq_f32_u32(v));
    else
      vst1q_u32(reinterpret_cast<std::uint32_t*>(p), v);
  }
  /// out[i * out_stride + j] = tile[j * pitch + i] for i, j < 4 (`stream` changes
  /// nothing on NEON).
  template <class T>
  TALLY_T static void block(const T* tile, std::size_t pitch, T* out, std::ptrdiff_t out_stride, bool /*stream*/) {
    static_assert(sizeof(T) == 4, "transpose32 moves 4-byte elements");
    uint32x4_t r[4];
    for (std::size_t i = 0; i < 4; ++i) r[i] = load_bits(tile + i * pitch);
    // Pairs of rows interleaved by 32-bit lanes, then by 64-bit halves.
    const uint32x4_t t0 = vtrn1q_u32(r[0], r[1]), t1 = vtrn2q_u32(r[0], r[1]);  // [r0_0 r1_0 r0_2 r1_2], [.._1 .._3]
    const uint32x4_t t2 = vtrn1q_u32(r[2], r[3]), t3 = vtrn2q_u32(r[2], r[3]);
    const auto join_low = [](uint32x4_t a, uint32x4_t b) {
      return vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)));
    };
    const auto join_high = [](uint32x4_t a, uint32x4_t b) {
      return vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)));
    };
    store_bits(out, join_low(t0, t2));                   // column 0
    store_bits(out + out_stride, join_low(t1, t3));      // column 1
    store_bits(out + 2 * out_stride, join_high(t0, t2));  // column 2
    store_bits(out + 3 * out_stride, join_high(t1, t3));  // column 3
  }
};
/// The transpose of tiles of lines shorter than transpose32's (avx512: AVX2's); here the same.
using narrow_transpose32 = transpose32;

/// 2x2 blocks of 8-byte elements (see transpose32), moved as uint64 lanes.
struct transpose64 {
  static constexpr std::size_t width = 2;
  TALLY_T static void block(const void* tile, std::size_t pitch, void* out, std::ptrdiff_t out_stride, bool /*stream*/) {
    const auto* in = static_cast<const std::uint64_t*>(tile);
    auto* dst = static_cast<std::uint64_t*>(out);
    const uint64x2_t r0 = vld1q_u64(in), r1 = vld1q_u64(in + pitch);
    vst1q_u64(dst, vtrn1q_u64(r0, r1));               // column 0
    vst1q_u64(dst + out_stride, vtrn2q_u64(r0, r1));  // column 1
  }
};

#undef TALLY_T

}  // namespace neon
}  // namespace detail
TALLY_END_NAMESPACE

#endif  // TALLY_ARM_NEON
