// cummax / cummin of lines packed one after the other (AVX-512: float, double, 32- and
// 64-bit integers; AVX2: float; with indices, float and double on both): the region is
// scanned as one stream of vectors, each a segmented in-register scan whose lane masks say
// where the lines start, then a combine with the running value (the last lane of the
// vector before) in the lanes whose line started before the vector. A line costs no call
// and no setup of its own, whatever its length. The operator keeps the sequential fold's
// bits in any grouping (vector_lines.hpp): it is associative and always returns one of its
// operands.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../config.hpp"

#if TALLY_X86_SIMD

#include <immintrin.h>

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// Where a vector's lanes lie in their lines, as lane masks (bit i: lane i).
struct line_lanes {
  std::uint16_t step[4];  // lanes at position 1, 2, 4, 8 or more of their line: they combine with lane i - 1, 2, 4, 8
  std::uint16_t carried;  // lanes whose line started before the vector: they combine with the running value
};

/// The lane masks of every vector a stream of packed lines can have, made once: for lines
/// of n < W elements, the n / gcd(n, W) vectors after which the lanes' places repeat; for
/// lines of W or more (at most one line start a vector), one entry by the lane a line
/// starts at (W: none), the same for every such n.
template <std::size_t W>
struct line_lane_tables {
  line_lanes lanes[W + 1][W + 1];  // [min(n, W)][vector]
  std::size_t size[W + 1];

  static const line_lane_tables& get() noexcept {
    static const line_lane_tables tables;
    return tables;
  }

 private:
  line_lane_tables() noexcept : lanes{}, size{} {
    for (std::size_t n = 1; n < W; ++n) {
      std::size_t first = 0;
      do {
        lanes[n][size[n]++] = lanes_of(first, n);
        first = (first + W) % n;
      } while (first != 0);
    }
    for (std::size_t start = 0; start <= W; ++start) lanes[W][start] = lanes_of(start == 0 ? 0 : 2 * W - start, 2 * W);
    size[W] = W + 1;
  }
  /// The masks of a vector whose lane 0 is at `first` of its line. A step reaches lanes
  /// in the vector only.
  static line_lanes lanes_of(std::size_t first, std::size_t n) noexcept {
    line_lanes m{};
    for (std::size_t i = 0; i < W; ++i) {
      const std::size_t position = (first + i) % n;
      for (std::size_t s = 0; s < 4; ++s)
        if (position >= std::size_t{1} << s && i >= std::size_t{1} << s) m.step[s] |= static_cast<std::uint16_t>(1u << i);
      if (position > i) m.carried |= static_cast<std::uint16_t>(1u << i);
    }
    return m;
  }
};

/// Where the lanes of each vector of W lanes lie in a stream of lines of n elements, in
/// turn, as an index into table() (line_lane_tables); for lines of W or more, found from
/// where lane 0 is.
template <std::size_t W>
class packed_line_lanes {
 public:
  explicit packed_line_lanes(std::size_t n) noexcept
      : n_(n),
        table_(line_lane_tables<W>::get().lanes[(std::min)(n, W)]),
        size_(line_lane_tables<W>::get().size[(std::min)(n, W)]) {}
  std::size_t next() noexcept {
    if (n_ < W) {
      const std::size_t at = phase_;
      phase_ = phase_ + 1 == size_ ? 0 : phase_ + 1;
      return at;
    }
    const std::size_t start = first_ == 0 ? 0 : (std::min<std::size_t>)(W, n_ - first_);
    first_ += W;
    if (first_ >= n_) first_ -= n_;
    return start;
  }
  const line_lanes* table() const noexcept { return table_; }
  std::size_t size() const noexcept { return size_; }

 private:
  std::size_t n_;
  const line_lanes* table_;
  std::size_t size_, first_ = 0, phase_ = 0;
};

/// The AVX-512 lanes of an element type with a vector maximum and minimum: 16 floats or
/// 32-bit integers, 8 doubles or 64-bit integers. Every vector helper of this file is
/// always inlined: an out-of-line copy, folded with an identical twin (int32 and uint32
/// load the same way), makes MinGW-w64 GCC warn "AVX512F vector return without AVX512F
/// enabled changes the ABI" (-Wpsabi), an error under -Werror (see vector_exact_lines.hpp).
template <class T>
struct extremum_zmm {
  static constexpr bool exists = false;
};
template <>
struct extremum_zmm<float> {
  static constexpr bool exists = true, floating = true;
  static constexpr std::size_t width = 16;
  using reg = __m512;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg load(const float* p) { return _mm512_loadu_ps(p); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store(float* p, reg x) { _mm512_storeu_ps(p, x); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg broadcast(float a) { return _mm512_set1_ps(a); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg permute(__m512i at, reg x) { return _mm512_permutexvar_ps(at, x); }
  template <int S>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg rotate(reg x) {  // lane i: x[i - S mod 16]
    const __m512i bits = _mm512_castps_si512(x);
    return _mm512_castsi512_ps(_mm512_alignr_epi32(bits, bits, 16 - S));
  }
  template <bool Max>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg pick(reg x, __mmask16 lanes, reg earlier) {
    return Max ? _mm512_mask_max_ps(x, lanes, earlier, x) : _mm512_mask_min_ps(x, lanes, earlier, x);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 unordered(reg a, reg b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
  /// In `lanes`, where a is greater (less) than b.
  template <bool Max>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 beats(__mmask16 lanes, reg a, reg b) {
    return _mm512_mask_cmp_ps_mask(lanes, a, b, Max ? _CMP_GT_OQ : _CMP_LT_OQ);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg move(reg x, __mmask16 lanes, reg from) { return _mm512_mask_mov_ps(x, lanes, from); }
};
template <>
struct extremum_zmm<double> {
  static constexpr bool exists = true, floating = true;
  static constexpr std::size_t width = 8;
  using reg = __m512d;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg load(const double* p) { return _mm512_loadu_pd(p); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store(double* p, reg x) { _mm512_storeu_pd(p, x); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg broadcast(double a) { return _mm512_set1_pd(a); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg permute(__m512i at, reg x) { return _mm512_permutexvar_pd(at, x); }
  template <int S>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg rotate(reg x) {
    const __m512i bits = _mm512_castpd_si512(x);
    return _mm512_castsi512_pd(_mm512_alignr_epi64(bits, bits, 8 - S));
  }
  template <bool Max>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg pick(reg x, __mmask16 lanes, reg earlier) {
    const auto m = static_cast<__mmask8>(lanes);
    return Max ? _mm512_mask_max_pd(x, m, earlier, x) : _mm512_mask_min_pd(x, m, earlier, x);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 unordered(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q); }
  template <bool Max>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 beats(__mmask16 lanes, reg a, reg b) {
    return _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(lanes), a, b, Max ? _CMP_GT_OQ : _CMP_LT_OQ);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg move(reg x, __mmask16 lanes, reg from) {
    return _mm512_mask_mov_pd(x, static_cast<__mmask8>(lanes), from);
  }
};
/// 32- and 64-bit integers: equal values are equal bits, and no NaN.
template <class T, std::size_t Width>
struct extremum_zmm_integers {
  static constexpr bool exists = true, floating = false;
  static constexpr std::size_t width = Width;
  using reg = __m512i;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg load(const T* p) { return _mm512_loadu_si512(p); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store(T* p, reg x) { _mm512_storeu_si512(p, x); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg broadcast(T a) {
    return Width == 16 ? _mm512_set1_epi32(static_cast<int>(a)) : _mm512_set1_epi64(static_cast<long long>(a));
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg permute(__m512i at, reg x) {
    return Width == 16 ? _mm512_permutexvar_epi32(at, x) : _mm512_permutexvar_epi64(at, x);
  }
  template <int S>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg rotate(reg x) {
    return Width == 16 ? _mm512_alignr_epi32(x, x, (16 - S) % 16) : _mm512_alignr_epi64(x, x, (8 - S) % 8);
  }
  template <bool Max>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg pick(reg x, __mmask16 lanes, reg earlier) {
    const auto m8 = static_cast<__mmask8>(lanes);
    if constexpr (Width == 16 && std::is_signed_v<T>)
      return Max ? _mm512_mask_max_epi32(x, lanes, earlier, x) : _mm512_mask_min_epi32(x, lanes, earlier, x);
    else if constexpr (Width == 16)
      return Max ? _mm512_mask_max_epu32(x, lanes, earlier, x) : _mm512_mask_min_epu32(x, lanes, earlier, x);
    else if constexpr (std::is_signed_v<T>)
      return Max ? _mm512_mask_max_epi64(x, m8, earlier, x) : _mm512_mask_min_epi64(x, m8, earlier, x);
    else
      return Max ? _mm512_mask_max_epu64(x, m8, earlier, x) : _mm512_mask_min_epu64(x, m8, earlier, x);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 unordered(reg, reg) { return 0; }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg move(reg x, __mmask16, reg) { return x; }
};
template <>
struct extremum_zmm<std::int32_t> : extremum_zmm_integers<std::int32_t, 16> {};
template <>
struct extremum_zmm<std::uint32_t> : extremum_zmm_integers<std::uint32_t, 16> {};
template <>
struct extremum_zmm<std::int64_t> : extremum_zmm_integers<std::int64_t, 8> {};
template <>
struct extremum_zmm<std::uint64_t> : extremum_zmm_integers<std::uint64_t, 8> {};

/// `earlier (op) x` in `lanes`, x elsewhere. MAXPS / MAXPD (MINPS / MINPD) return their
/// second operand for ties and for a NaN in either; where `MayHoldNaN`, a NaN earlier is
/// kept (the first NaN sticks).
template <class Z, bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE typename Z::reg extremum_into(typename Z::reg x, __mmask16 lanes,
                                                                    typename Z::reg earlier) {
  const typename Z::reg r = Z::template pick<Max>(x, lanes, earlier);
  if (!MayHoldNaN) return r;
  return Z::move(r, static_cast<__mmask16>(lanes & Z::unordered(earlier, earlier)), earlier);
}

/// The segmented scan of a vector, the steps a line of n needs: in step S, the lanes of
/// `step` (none below S) combine with the lane S below.
template <class Z, bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE typename Z::reg extremum_segmented_scan(typename Z::reg x, const line_lanes& m,
                                                                              std::size_t n) {
  if (n > 1) x = extremum_into<Z, Max, MayHoldNaN>(x, m.step[0], Z::template rotate<1>(x));
  if (n > 2) x = extremum_into<Z, Max, MayHoldNaN>(x, m.step[1], Z::template rotate<2>(x));
  if (n > 4) x = extremum_into<Z, Max, MayHoldNaN>(x, m.step[2], Z::template rotate<4>(x));
  if constexpr (Z::width > 8)
    if (n > 8) x = extremum_into<Z, Max, MayHoldNaN>(x, m.step[3], Z::template rotate<8>(x));
  return x;
}

/// Two vectors of the stream (scan order) from the running value, which becomes the
/// second one's last lane. The second takes the first one's last lane before the running
/// value reaches either, so the loop-carried chain (a combine and a broadcast) is paid once
/// per two vectors; it takes the running value too where no line starts in the first.
template <class Z, bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void extremum_stream_pair(typename Z::reg& a, typename Z::reg& b,
                                                                 typename Z::reg& running, const line_lanes& ma,
                                                                 const line_lanes& mb, std::size_t n) {
  constexpr auto all = static_cast<std::uint16_t>((1u << Z::width) - 1);
  const __m512i last = Z::width == 16 ? _mm512_set1_epi32(15) : _mm512_set1_epi64(7);
  a = extremum_segmented_scan<Z, Max, MayHoldNaN>(a, ma, n);
  b = extremum_segmented_scan<Z, Max, MayHoldNaN>(b, mb, n);
  b = extremum_into<Z, Max, MayHoldNaN>(b, mb.carried, Z::permute(last, a));
  a = extremum_into<Z, Max, MayHoldNaN>(a, ma.carried, running);
  b = extremum_into<Z, Max, MayHoldNaN>(b, static_cast<__mmask16>(ma.carried == all ? mb.carried : 0), running);
  running = Z::permute(last, b);
}

/// The last `count` elements in scan order of a stream of `total`, fewer than two vectors
/// of W, staged as a pair of vectors (`vector(0)` the first in scan order) that they fill
/// from its first lane in scan order; the other lanes hold zeros and are not copied back.
/// In memory they are the stream's highest addresses, or its lowest (`Reverse`: the stream
/// runs downwards).
template <class T, std::size_t W, bool Reverse>
struct staged_pair {
  alignas(64) T lanes[2 * W] = {};
  std::size_t rest, first, offset;  // how many; where in `lanes`; where in the stream
  staged_pair(std::size_t total, std::size_t count)
      : rest(count), first(Reverse ? 2 * W - count : 0), offset(Reverse ? 0 : total - count) {}
  T* vector(std::size_t k) { return lanes + (Reverse ? W - W * k : W * k); }
  void load(const T* stream) { std::copy(stream + offset, stream + offset + rest, lanes + first); }
  void store(T* stream) const { std::copy(lanes + first, lanes + first + rest, stream + offset); }
};

/// `total` elements from `in` (lowest address) to `out`: lines of n one after the other,
/// each scanned upwards, or downwards (`Reverse`: the stream runs from the highest
/// address, each vector's lanes reversed). In place allowed: each vector is loaded before
/// it is stored, and no other vector touches its elements. Vectors whose lanes and running
/// value hold no NaN (one compare tells) take the vector maximum (minimum) alone.
template <class T, bool Max, bool Reverse>
TALLY_TARGET_AVX512 void extremum_packed_lines_avx512(const T* in, T* out, std::size_t n, std::size_t total) {
  using Z = extremum_zmm<T>;
  using reg = typename Z::reg;
  constexpr std::size_t W = Z::width;
  const __m512i reversed = W == 16 ? _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                                   : _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  packed_line_lanes<W> lanes(n);
  reg running = Z::broadcast(Max ? std::numeric_limits<T>::lowest() : (std::numeric_limits<T>::max)());
  if constexpr (Z::floating)
    running = Z::broadcast(Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
  // Vectors in scan order: vector j holds elements [W j, W j + W) of the stream.
  const auto at = [total](std::size_t j) { return Reverse ? total - W * j - W : W * j; };
  const std::size_t vectors = total / W;
  std::size_t j = 0;
  for (; j + 2 <= vectors; j += 2) {
    reg a = Z::load(in + at(j)), b = Z::load(in + at(j + 1));
    if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
    const line_lanes &ma = lanes.table()[lanes.next()], &mb = lanes.table()[lanes.next()];
    if ((Z::unordered(a, b) | Z::unordered(running, running)) == 0)
      extremum_stream_pair<Z, Max, false>(a, b, running, ma, mb, n);
    else
      extremum_stream_pair<Z, Max, true>(a, b, running, ma, mb, n);
    if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
    Z::store(out + at(j), a);
    Z::store(out + at(j + 1), b);
  }
  // A last whole vector, and the elements after it in scan order, fewer than a vector:
  // staged as a pair (the second vector's lanes past the elements are not written).
  if (total == W * j) return;
  staged_pair<T, W, Reverse> staged(total, total - W * j);
  staged.load(in);
  reg a = Z::load(staged.vector(0)), b = Z::load(staged.vector(1));
  if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
  const line_lanes &ma = lanes.table()[lanes.next()], &mb = lanes.table()[lanes.next()];
  extremum_stream_pair<Z, Max, true>(a, b, running, ma, mb, n);
  if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
  Z::store(staged.vector(0), a);
  Z::store(staged.vector(1), b);
  staged.store(out);
}

/// The positions beside a stream vector's W lanes, for cummax / cummin with indices: 32-bit
/// lanes beside 16 floats (lines of at most 2^31 - 1; widened to int64 at the store), 64-bit
/// beside 8 doubles.
template <std::size_t W>
struct position_zmm;
template <>
struct position_zmm<16> : extremum_zmm_integers<std::int32_t, 16> {
  using value = std::int32_t;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg lane_numbers() {
    return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  /// a + b, less n where that reaches n (a, b below n): where it does not, subtracting n
  /// wraps it above 2^31 (unsigned), so the minimum is the one wanted.
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg add_below(reg a, reg b, reg n) {
    const reg sum = _mm512_add_epi32(a, b);
    return _mm512_min_epu32(sum, _mm512_sub_epi32(sum, n));
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 at_least(reg a, reg b) {
    return _mm512_cmpge_epu32_mask(a, b);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 above(reg a, reg b) { return _mm512_cmpgt_epu32_mask(a, b); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg take(reg x, __mmask16 lanes, reg from) {
    return _mm512_mask_mov_epi32(x, lanes, from);
  }
  /// Indices (`flip` - position, made positive), widened to 64 bits, in memory order.
  template <bool Reverse>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store_indices(std::int64_t* index, reg reached, reg flip,
                                                                    reg reversed) {
    reg at = _mm512_abs_epi32(_mm512_sub_epi32(flip, reached));
    if (Reverse) at = permute(reversed, at);
    _mm512_storeu_si512(index, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(at)));
    _mm512_storeu_si512(index + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(at, 1)));
  }
};
template <>
struct position_zmm<8> : extremum_zmm_integers<std::int64_t, 8> {
  using value = std::int64_t;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg lane_numbers() {
    return _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg add_below(reg a, reg b, reg n) {
    const reg sum = _mm512_add_epi64(a, b);
    return _mm512_min_epu64(sum, _mm512_sub_epi64(sum, n));
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 at_least(reg a, reg b) {
    return _mm512_cmpge_epu64_mask(a, b);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __mmask16 above(reg a, reg b) { return _mm512_cmpgt_epu64_mask(a, b); }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static reg take(reg x, __mmask16 lanes, reg from) {
    return _mm512_mask_mov_epi64(x, static_cast<__mmask8>(lanes), from);
  }
  template <bool Reverse>
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store_indices(std::int64_t* index, reg reached, reg flip,
                                                                    reg reversed) {
    reg at = _mm512_abs_epi64(_mm512_sub_epi64(flip, reached));
    if (Reverse) at = permute(reversed, at);
    _mm512_storeu_si512(index, at);
  }
};

/// Where the W lanes of a stream's first vector lie in their lines of n (scan order, 0 at
/// each line's first element). Each next vector's are the last one's plus W mod n, less n
/// where that reaches n (add_below; both terms are below n), so no table is needed.
template <class Position, std::size_t W>
struct first_line_positions {
  alignas(64) Position lane[W];
  explicit first_line_positions(std::size_t n) noexcept {
    for (std::size_t i = 0; i < W; ++i) lane[i] = static_cast<Position>(i % n);
  }
};

/// The positions of a stream's vectors, one after the other (first_line_positions).
template <std::size_t W>
struct packed_line_positions {
  using P = position_zmm<W>;
  typename P::reg at, n, advance;
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE explicit packed_line_positions(std::size_t length) {
    at = P::load(first_line_positions<typename P::value, W>(length).lane);
    n = P::broadcast(static_cast<typename P::value>(length));
    advance = P::broadcast(static_cast<typename P::value>(W % length));
  }
  /// This vector's positions; moves on to the next vector's.
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE typename P::reg next() {
    const typename P::reg here = at;
    at = P::add_below(at, advance, n);
    return here;
  }
};

/// Float (double) lanes with the positions their values were reached at (`reached`), for
/// cummax / cummin with indices: in `lanes`, the earlier lane replaces x where it wins,
/// that is where it is greater (less) or NaN (the first NaN sticks); ties and a later NaN
/// keep x. The values are extremum_into's, bit for bit; the positions follow them.
template <class Z, bool Max, bool MayHoldNaN, class P = position_zmm<Z::width>>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void indexed_extremum_into(typename Z::reg& x, typename P::reg& reached,
                                                                   __mmask16 lanes, typename Z::reg earlier,
                                                                   typename P::reg earlier_reached) {
  __mmask16 wins = Z::template beats<Max>(lanes, earlier, x);
  if (MayHoldNaN) wins |= lanes & Z::unordered(earlier, earlier);
  x = Z::move(x, wins, earlier);
  reached = P::take(reached, wins, earlier_reached);
}

/// One step of the segmented scan with positions: the lanes at `position` S or more, and
/// S or more lanes into the vector, take the lane S below (extremum_segmented_scan's step
/// masks, from the positions).
template <class Z, bool Max, bool MayHoldNaN, int S, class P = position_zmm<Z::width>>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void indexed_segmented_step(typename Z::reg& x, typename P::reg& reached,
                                                                    typename P::reg position) {
  const auto lanes = static_cast<__mmask16>(P::at_least(position, P::broadcast(S)) & (0xffffu << S));
  indexed_extremum_into<Z, Max, MayHoldNaN>(x, reached, lanes, Z::template rotate<S>(x),
                                            P::template rotate<S>(reached));
}

/// extremum_segmented_scan with positions (`reached`: the lanes' own positions on entry).
template <class Z, bool Max, bool MayHoldNaN, class P = position_zmm<Z::width>>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void indexed_segmented_scan(typename Z::reg& x, typename P::reg& reached,
                                                                    std::size_t n) {
  const typename P::reg position = reached;
  if (n > 1) indexed_segmented_step<Z, Max, MayHoldNaN, 1>(x, reached, position);
  if (n > 2) indexed_segmented_step<Z, Max, MayHoldNaN, 2>(x, reached, position);
  if (n > 4) indexed_segmented_step<Z, Max, MayHoldNaN, 4>(x, reached, position);
  if constexpr (Z::width > 8)
    if (n > 8) indexed_segmented_step<Z, Max, MayHoldNaN, 8>(x, reached, position);
}

/// extremum_stream_pair with positions: two vectors of the stream (a, b: values; ra, rb:
/// where they were reached, their own positions on entry) from the running value and its
/// position.
template <class Z, bool Max, bool MayHoldNaN, class P = position_zmm<Z::width>>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE void indexed_stream_pair(typename Z::reg& a, typename P::reg& ra,
                                                                 typename Z::reg& b, typename P::reg& rb,
                                                                 typename Z::reg& running, typename P::reg& running_at,
                                                                 std::size_t n) {
  constexpr auto all = static_cast<__mmask16>((1u << Z::width) - 1);
  const typename P::reg pa = ra, pb = rb, last = P::broadcast(static_cast<typename P::value>(Z::width - 1));
  indexed_segmented_scan<Z, Max, MayHoldNaN>(a, ra, n);
  indexed_segmented_scan<Z, Max, MayHoldNaN>(b, rb, n);
  // A lane whose position exceeds its lane number belongs to a line started before the vector.
  const __mmask16 carried_a = P::above(pa, P::lane_numbers()), carried_b = P::above(pb, P::lane_numbers());
  indexed_extremum_into<Z, Max, MayHoldNaN>(b, rb, carried_b, Z::permute(last, a), P::permute(last, ra));
  indexed_extremum_into<Z, Max, MayHoldNaN>(a, ra, carried_a, running, running_at);
  indexed_extremum_into<Z, Max, MayHoldNaN>(b, rb, static_cast<__mmask16>(carried_a == all ? carried_b : 0), running,
                                            running_at);
  running = Z::permute(last, b);
  running_at = P::permute(last, rb);
}

/// extremum_packed_lines_avx512 of floats or doubles with indices (`index` laid out as
/// `out`; element k of a line is position n - 1 - k along the axis where `decreasing`):
/// the positions where the values were reached travel beside them (position_zmm). Lines
/// of 2 to 16 one at a time through the AVX2 line form or in tiles took 1.6x-5.4x the
/// time of a memcpy of their values and indices (16M floats), about 11x in the caches;
/// doubles 1.4x-1.9x.
template <class T, bool Max, bool Reverse>
TALLY_TARGET_AVX512 void extremum_index_packed_lines_avx512(const T* in, T* out, std::int64_t* index, std::size_t n,
                                                            std::size_t total, bool decreasing) {
  using Z = extremum_zmm<T>;
  constexpr std::size_t W = Z::width;
  using P = position_zmm<W>;
  using reg = typename Z::reg;
  using preg = typename P::reg;
  const __m512i reversed = W == 16 ? _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                                   : _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  const preg flip = P::broadcast(static_cast<typename P::value>(decreasing ? n - 1 : 0));
  packed_line_positions<W> positions(n);
  constexpr T inf = std::numeric_limits<T>::infinity();
  reg running = Z::broadcast(Max ? -inf : inf);
  preg running_at = P::broadcast(0);
  const auto at = [total](std::size_t j) { return Reverse ? total - W * j - W : W * j; };
  const std::size_t vectors = total / W;
  std::size_t j = 0;
  for (; j + 2 <= vectors; j += 2) {
    reg a = Z::load(in + at(j)), b = Z::load(in + at(j + 1));
    if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
    preg ra = positions.next(), rb = positions.next();
    if ((Z::unordered(a, b) | Z::unordered(running, running)) == 0)
      indexed_stream_pair<Z, Max, false>(a, ra, b, rb, running, running_at, n);
    else
      indexed_stream_pair<Z, Max, true>(a, ra, b, rb, running, running_at, n);
    if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
    Z::store(out + at(j), a);
    Z::store(out + at(j + 1), b);
    P::template store_indices<Reverse>(index + at(j), ra, flip, reversed);
    P::template store_indices<Reverse>(index + at(j + 1), rb, flip, reversed);
  }
  // The rest, fewer than two vectors, staged as extremum_packed_lines_avx512 stages it.
  if (total == W * j) return;
  staged_pair<T, W, Reverse> staged(total, total - W * j);
  staged_pair<std::int64_t, W, Reverse> staged_index(total, total - W * j);
  staged.load(in);
  reg a = Z::load(staged.vector(0)), b = Z::load(staged.vector(1));
  if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
  preg ra = positions.next(), rb = positions.next();
  indexed_stream_pair<Z, Max, true>(a, ra, b, rb, running, running_at, n);
  if (Reverse) a = Z::permute(reversed, a), b = Z::permute(reversed, b);
  Z::store(staged.vector(0), a);
  Z::store(staged.vector(1), b);
  P::template store_indices<Reverse>(staged_index.vector(0), ra, flip, reversed);
  P::template store_indices<Reverse>(staged_index.vector(1), rb, flip, reversed);
  staged.store(out);
  staged_index.store(index);
}

/// The AVX2 form: 8 lanes, the masks as vectors (all ones in the lanes in the mask) and
/// blends.
struct line_lanes_avx2 {
  __m256 step[3], carried;
  bool carries_all;  // no line starts in the vector
};

/// A lane mask as a vector, from its bits.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 lanes_avx2(std::uint16_t bits) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lane_bit), lane_bit));
}

/// extremum_into in 8 lanes.
template <bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 extremum_into_avx2(__m256 x, __m256 lanes, __m256 earlier) {
  __m256 pick = Max ? _mm256_max_ps(earlier, x) : _mm256_min_ps(earlier, x);
  if (MayHoldNaN) pick = _mm256_blendv_ps(pick, earlier, _mm256_cmp_ps(earlier, earlier, _CMP_UNORD_Q));
  return _mm256_blendv_ps(x, pick, lanes);
}

/// extremum_segmented_step in 8 lanes.
template <bool Max, int S, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 extremum_segmented_step_avx2(__m256 x, __m256 lanes) {
  const __m256i from = _mm256_and_si256(_mm256_setr_epi32(8 - S, 9 - S, 10 - S, 11 - S, 12 - S, 13 - S, 14 - S, 15 - S),
                                        _mm256_set1_epi32(7));  // lane i - S (lanes < S: masked out)
  return extremum_into_avx2<Max, MayHoldNaN>(x, lanes, _mm256_permutevar8x32_ps(x, from));
}

/// extremum_stream_pair in 8 lanes (a line of n needs at most three steps in a vector).
template <bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void extremum_stream_pair_avx2(__m256& a, __m256& b, __m256& running,
                                                                    const line_lanes_avx2& ma,
                                                                    const line_lanes_avx2& mb, std::size_t n) {
  const __m256i last = _mm256_set1_epi32(7);
  if (n > 1) a = extremum_segmented_step_avx2<Max, 1, MayHoldNaN>(a, ma.step[0]);
  if (n > 1) b = extremum_segmented_step_avx2<Max, 1, MayHoldNaN>(b, mb.step[0]);
  if (n > 2) a = extremum_segmented_step_avx2<Max, 2, MayHoldNaN>(a, ma.step[1]);
  if (n > 2) b = extremum_segmented_step_avx2<Max, 2, MayHoldNaN>(b, mb.step[1]);
  if (n > 4) a = extremum_segmented_step_avx2<Max, 4, MayHoldNaN>(a, ma.step[2]);
  if (n > 4) b = extremum_segmented_step_avx2<Max, 4, MayHoldNaN>(b, mb.step[2]);
  b = extremum_into_avx2<Max, MayHoldNaN>(b, mb.carried, _mm256_permutevar8x32_ps(a, last));
  a = extremum_into_avx2<Max, MayHoldNaN>(a, ma.carried, running);
  if (ma.carries_all) b = extremum_into_avx2<Max, MayHoldNaN>(b, mb.carried, running);
  running = _mm256_permutevar8x32_ps(b, last);
}

/// extremum_packed_lines_avx512 in 8 lanes.
template <bool Max, bool Reverse>
TALLY_TARGET_AVX2 void extremum_packed_lines_avx2(const float* in, float* out, std::size_t n, std::size_t total) {
  const __m256i reversed = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  packed_line_lanes<8> lanes(n);
  line_lanes_avx2 masks[9];
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const line_lanes& m = lanes.table()[i];
    masks[i] = {{lanes_avx2(m.step[0]), lanes_avx2(m.step[1]), lanes_avx2(m.step[2])}, lanes_avx2(m.carried),
                m.carried == 0xff};
  }
  __m256 running = _mm256_set1_ps(Max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
  const auto at = [total](std::size_t j) { return Reverse ? total - 8 * j - 8 : 8 * j; };
  const std::size_t vectors = total / 8;
  std::size_t j = 0;
  for (; j + 2 <= vectors; j += 2) {
    __m256 a = _mm256_loadu_ps(in + at(j)), b = _mm256_loadu_ps(in + at(j + 1));
    if (Reverse) a = _mm256_permutevar8x32_ps(a, reversed), b = _mm256_permutevar8x32_ps(b, reversed);
    const line_lanes_avx2 &ma = masks[lanes.next()], &mb = masks[lanes.next()];
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q),
                                        _mm256_cmp_ps(running, running, _CMP_UNORD_Q))) == 0)
      extremum_stream_pair_avx2<Max, false>(a, b, running, ma, mb, n);
    else
      extremum_stream_pair_avx2<Max, true>(a, b, running, ma, mb, n);
    if (Reverse) a = _mm256_permutevar8x32_ps(a, reversed), b = _mm256_permutevar8x32_ps(b, reversed);
    _mm256_storeu_ps(out + at(j), a);
    _mm256_storeu_ps(out + at(j + 1), b);
  }
  if (total == 8 * j) return;
  staged_pair<float, 8, Reverse> staged(total, total - 8 * j);
  staged.load(in);
  __m256 a = _mm256_load_ps(staged.vector(0)), b = _mm256_load_ps(staged.vector(1));
  if (Reverse) a = _mm256_permutevar8x32_ps(a, reversed), b = _mm256_permutevar8x32_ps(b, reversed);
  const line_lanes_avx2 &ma = masks[lanes.next()], &mb = masks[lanes.next()];
  extremum_stream_pair_avx2<Max, true>(a, b, running, ma, mb, n);
  if (Reverse) a = _mm256_permutevar8x32_ps(a, reversed), b = _mm256_permutevar8x32_ps(b, reversed);
  _mm256_store_ps(staged.vector(0), a);
  _mm256_store_ps(staged.vector(1), b);
  staged.store(out);
}

/// The AVX2 lanes of cummax / cummin with indices: 8 floats beside 32-bit positions (lines
/// of at most 2^31 - 1; widened to int64 at the store), 4 doubles beside 64-bit ones. The
/// masks are vectors, all ones in the lanes they hold.
template <class T>
struct indexed_ymm;
template <>
struct indexed_ymm<float> {
  static constexpr std::size_t width = 8;
  using reg = __m256;
  using preg = __m256i;
  using position = std::int32_t;
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg load(const float* p) { return _mm256_loadu_ps(p); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store(float* p, reg x) { _mm256_storeu_ps(p, x); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg broadcast(float a) { return _mm256_set1_ps(a); }
  template <bool Max>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg beats(reg a, reg b) {
    return _mm256_cmp_ps(a, b, Max ? _CMP_GT_OQ : _CMP_LT_OQ);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg unordered(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static bool any(reg mask) { return _mm256_movemask_ps(mask) != 0; }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg both(reg a, reg b) { return _mm256_and_ps(a, b); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg either(reg a, reg b) { return _mm256_or_ps(a, b); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg blend(reg x, reg from, reg mask) {
    return _mm256_blendv_ps(x, from, mask);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg blend(preg x, preg from, reg mask) {
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(from), mask));
  }
  /// Lane i from lane `from`[i].
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg permute(reg x, __m256i from) {
    return _mm256_permutevar8x32_ps(x, from);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg permute(preg x, __m256i from) {
    return _mm256_permutevar8x32_epi32(x, from);
  }
  template <int S, class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R rotate(R x) {  // lane i: x[i - S mod 8]
    return permute(x, _mm256_setr_epi32((8 - S) % 8, (9 - S) % 8, (10 - S) % 8, (11 - S) % 8, (12 - S) % 8,
                                        (13 - S) % 8, (14 - S) % 8, (15 - S) % 8));
  }
  template <class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R last(R x) {  // the last lane in every lane
    return permute(x, _mm256_set1_epi32(7));
  }
  template <class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R reverse(R x) {
    return permute(x, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg lane_numbers() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg broadcast_position(position a) { return _mm256_set1_epi32(a); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg above(preg a, preg b) {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b));
  }
  /// a + b, less n where that reaches n (a, b below n): where it does not, subtracting n
  /// wraps it above 2^31 (unsigned), so the minimum is the one wanted.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg add_below(preg a, preg b, preg n) {
    const preg sum = _mm256_add_epi32(a, b);
    return _mm256_min_epu32(sum, _mm256_sub_epi32(sum, n));
  }
  /// Indices (`flip` - position, made positive), widened to 64 bits, in memory order.
  template <bool Reverse>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store_indices(std::int64_t* index, preg reached, preg flip) {
    preg at = _mm256_abs_epi32(_mm256_sub_epi32(flip, reached));
    if (Reverse) at = reverse(at);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(at)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(at, 1)));
  }
};
template <>
struct indexed_ymm<double> {
  static constexpr std::size_t width = 4;
  using reg = __m256d;
  using preg = __m256i;
  using position = std::int64_t;
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg load(const double* p) { return _mm256_loadu_pd(p); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store(double* p, reg x) { _mm256_storeu_pd(p, x); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg broadcast(double a) { return _mm256_set1_pd(a); }
  template <bool Max>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg beats(reg a, reg b) {
    return _mm256_cmp_pd(a, b, Max ? _CMP_GT_OQ : _CMP_LT_OQ);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg unordered(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_UNORD_Q); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static bool any(reg mask) { return _mm256_movemask_pd(mask) != 0; }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg both(reg a, reg b) { return _mm256_and_pd(a, b); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg either(reg a, reg b) { return _mm256_or_pd(a, b); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg blend(reg x, reg from, reg mask) {
    return _mm256_blendv_pd(x, from, mask);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg blend(preg x, preg from, reg mask) {
    return _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(x), _mm256_castsi256_pd(from), mask));
  }
  /// Lane i from lane (Order >> 2 i) & 3.
  template <int Order>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg permute(reg x) { return _mm256_permute4x64_pd(x, Order); }
  template <int Order>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg permute(preg x) { return _mm256_permute4x64_epi64(x, Order); }
  template <int S, class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R rotate(R x) {  // lane i: x[i - S mod 4]
    static_assert(S == 1 || S == 2, "4 lanes take steps of 1 and 2");
    return permute<S == 1 ? _MM_SHUFFLE(2, 1, 0, 3) : _MM_SHUFFLE(1, 0, 3, 2)>(x);
  }
  template <class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R last(R x) { return permute<_MM_SHUFFLE(3, 3, 3, 3)>(x); }
  template <class R>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static R reverse(R x) { return permute<_MM_SHUFFLE(0, 1, 2, 3)>(x); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg lane_numbers() { return _mm256_setr_epi64x(0, 1, 2, 3); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg broadcast_position(position a) { return _mm256_set1_epi64x(a); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static reg above(preg a, preg b) {
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b));
  }
  /// a + b, less n where that reaches n (a, b below n).
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static preg add_below(preg a, preg b, preg n) {
    const preg sum = _mm256_add_epi64(a, b);
    return _mm256_sub_epi64(sum, _mm256_andnot_si256(_mm256_cmpgt_epi64(n, sum), n));
  }
  /// Indices (`flip` - position, made positive: no 64-bit absolute value in AVX2), in
  /// memory order.
  template <bool Reverse>
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store_indices(std::int64_t* index, preg reached, preg flip) {
    const preg difference = _mm256_sub_epi64(flip, reached);
    const preg negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), difference);
    preg at = _mm256_sub_epi64(_mm256_xor_si256(difference, negative), negative);
    if (Reverse) at = reverse(at);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), at);
  }
};

/// indexed_extremum_into in AVX2 lanes (`lanes`: a mask vector).
template <class Y, bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void indexed_extremum_into_avx2(typename Y::reg& x, typename Y::preg& reached,
                                                                      typename Y::reg lanes, typename Y::reg earlier,
                                                                      typename Y::preg earlier_reached) {
  typename Y::reg wins = Y::template beats<Max>(earlier, x);
  if (MayHoldNaN) wins = Y::either(wins, Y::unordered(earlier, earlier));
  wins = Y::both(wins, lanes);
  x = Y::blend(x, earlier, wins);
  reached = Y::blend(reached, earlier_reached, wins);
}

/// indexed_segmented_step in AVX2 lanes.
template <class Y, bool Max, bool MayHoldNaN, int S>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void indexed_segmented_step_avx2(typename Y::reg& x, typename Y::preg& reached,
                                                                       typename Y::preg position) {
  const typename Y::preg below_s = Y::broadcast_position(S - 1);
  const typename Y::reg lanes = Y::both(Y::above(position, below_s), Y::above(Y::lane_numbers(), below_s));
  indexed_extremum_into_avx2<Y, Max, MayHoldNaN>(x, reached, lanes, Y::template rotate<S>(x),
                                                 Y::template rotate<S>(reached));
}

/// indexed_stream_pair in AVX2 lanes (a line of n needs at most three steps in a vector).
template <class Y, bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void indexed_stream_pair_avx2(typename Y::reg& a, typename Y::preg& ra,
                                                                    typename Y::reg& b, typename Y::preg& rb,
                                                                    typename Y::reg& running,
                                                                    typename Y::preg& running_at, std::size_t n) {
  const typename Y::preg pa = ra, pb = rb;
  if (n > 1) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 1>(a, ra, pa);
  if (n > 1) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 1>(b, rb, pb);
  if (n > 2) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 2>(a, ra, pa);
  if (n > 2) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 2>(b, rb, pb);
  if constexpr (Y::width > 4) {
    if (n > 4) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 4>(a, ra, pa);
    if (n > 4) indexed_segmented_step_avx2<Y, Max, MayHoldNaN, 4>(b, rb, pb);
  }
  // Carried: the lane's line started before the vector. The last lane carried means the
  // whole vector is (its line started a vector or more back): then b takes the running
  // value too.
  const typename Y::reg carried_a = Y::above(pa, Y::lane_numbers()), carried_b = Y::above(pb, Y::lane_numbers());
  indexed_extremum_into_avx2<Y, Max, MayHoldNaN>(b, rb, carried_b, Y::last(a), Y::last(ra));
  indexed_extremum_into_avx2<Y, Max, MayHoldNaN>(a, ra, carried_a, running, running_at);
  indexed_extremum_into_avx2<Y, Max, MayHoldNaN>(b, rb, Y::both(carried_b, Y::last(carried_a)), running, running_at);
  running = Y::last(b);
  running_at = Y::last(rb);
}

/// extremum_index_packed_lines_avx512 in AVX2 lanes. Lines of 2 to 16 one at a time
/// through the line form or in tiles took 1.5x-3x the time of a memcpy of their values and
/// indices (4M floats), up to 16x in the caches; doubles 1.4x-2.25x.
template <class T, bool Max, bool Reverse>
TALLY_TARGET_AVX2 void extremum_index_packed_lines_avx2(const T* in, T* out, std::int64_t* index, std::size_t n,
                                                        std::size_t total, bool decreasing) {
  using Y = indexed_ymm<T>;
  using reg = typename Y::reg;
  using preg = typename Y::preg;
  using position = typename Y::position;
  constexpr std::size_t W = Y::width;
  const preg flip = Y::broadcast_position(decreasing ? static_cast<position>(n - 1) : 0);
  const preg length = Y::broadcast_position(static_cast<position>(n));
  const preg advance = Y::broadcast_position(static_cast<position>(W % n));
  // The lanes' positions in their lines, as packed_line_positions keeps them.
  preg positions = _mm256_load_si256(reinterpret_cast<const __m256i*>(first_line_positions<position, W>(n).lane));
  constexpr T inf = std::numeric_limits<T>::infinity();
  reg running = Y::broadcast(Max ? -inf : inf);
  preg running_at = _mm256_setzero_si256();
  const auto at = [total](std::size_t j) { return Reverse ? total - W * j - W : W * j; };
  const std::size_t vectors = total / W;
  std::size_t j = 0;
  for (; j + 2 <= vectors; j += 2) {
    reg a = Y::load(in + at(j)), b = Y::load(in + at(j + 1));
    if (Reverse) a = Y::reverse(a), b = Y::reverse(b);
    preg ra = positions, rb = Y::add_below(positions, advance, length);
    positions = Y::add_below(rb, advance, length);
    if (!Y::any(Y::either(Y::unordered(a, b), Y::unordered(running, running))))
      indexed_stream_pair_avx2<Y, Max, false>(a, ra, b, rb, running, running_at, n);
    else
      indexed_stream_pair_avx2<Y, Max, true>(a, ra, b, rb, running, running_at, n);
    if (Reverse) a = Y::reverse(a), b = Y::reverse(b);
    Y::store(out + at(j), a);
    Y::store(out + at(j + 1), b);
    Y::template store_indices<Reverse>(index + at(j), ra, flip);
    Y::template store_indices<Reverse>(index + at(j + 1), rb, flip);
  }
  if (total == W * j) return;
  staged_pair<T, W, Reverse> staged(total, total - W * j);
  staged_pair<std::int64_t, W, Reverse> staged_index(total, total - W * j);
  staged.load(in);
  reg a = Y::load(staged.vector(0)), b = Y::load(staged.vector(1));
  if (Reverse) a = Y::reverse(a), b = Y::reverse(b);
  preg ra = positions, rb = Y::add_below(positions, advance, length);
  indexed_stream_pair_avx2<Y, Max, true>(a, ra, b, rb, running, running_at, n);
  if (Reverse) a = Y::reverse(a), b = Y::reverse(b);
  Y::store(staged.vector(0), a);
  Y::store(staged.vector(1), b);
  Y::template store_indices<Reverse>(staged_index.vector(0), ra, flip);
  Y::template store_indices<Reverse>(staged_index.vector(1), rb, flip);
  staged.store(out);
  staged_index.store(index);
}

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE

#endif
