// cummax / cummin across a tile of neighbouring lines, row by row: each lane is one line,
// and a row is one vector maximum (minimum) per vector of lines, with a blend that keeps a
// NaN for floats, so the bits are the scalar combine's. Values only (float, double, every
// integer type) run on lane_rows.hpp's loop with AVX-512 or AVX2 lanes, tiles narrower
// than a vector a row per vector, and tiles of one to two vectors a row per two; float and
// double values with indices, AVX2 loops of their own (also under AVX-512), for wide tiles
// and for narrow ones.
// Written with intrinsics rather than left to the compiler, which vectorizes the engine's
// generic row loop at -O3 but not at -O2.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "avx2_lane_store.hpp"
#include "lane_rows.hpp"
#include "narrow_row_walk.hpp"
#include "prefetch.hpp"
#include "vector_lines.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// The most lines a tile holds here: 16 KiB of float running values (32 KiB of double or
/// int64).
inline constexpr std::size_t extremum_tile_capacity = 4096;

/// The element types whose values-only rows have vector lanes.
template <class T>
inline constexpr bool has_extremum_lanes = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                           (std::is_integral_v<T> && !std::is_same_v<T, bool>);

/// The larger (Max) or smaller of two vectors of integers T, lane by lane (AVX2).
template <class T, bool Max>
TALLY_TARGET_AVX2 inline __m256i integer_extremum(__m256i a, __m256i b) {
  constexpr bool is_signed = std::is_signed_v<T>;
  if constexpr (sizeof(T) == 1)
    return is_signed ? (Max ? _mm256_max_epi8(a, b) : _mm256_min_epi8(a, b))
                     : (Max ? _mm256_max_epu8(a, b) : _mm256_min_epu8(a, b));
  else if constexpr (sizeof(T) == 2)
    return is_signed ? (Max ? _mm256_max_epi16(a, b) : _mm256_min_epi16(a, b))
                     : (Max ? _mm256_max_epu16(a, b) : _mm256_min_epu16(a, b));
  else if constexpr (sizeof(T) == 4)
    return is_signed ? (Max ? _mm256_max_epi32(a, b) : _mm256_min_epi32(a, b))
                     : (Max ? _mm256_max_epu32(a, b) : _mm256_min_epu32(a, b));
  else {  // no 64-bit maximum: a signed comparison (unsigned: with the sign bits flipped) and a blend
    const __m256i flip = _mm256_set1_epi64x(is_signed ? 0 : (std::numeric_limits<std::int64_t>::min)());
    const __m256i x = _mm256_xor_si256(a, flip), y = _mm256_xor_si256(b, flip);
    return _mm256_blendv_epi8(b, a, Max ? _mm256_cmpgt_epi64(x, y) : _mm256_cmpgt_epi64(y, x));
  }
}

/// The same with AVX-512 (byte and word lanes from AVX512BW).
template <class T, bool Max>
TALLY_TARGET_AVX512 inline __m512i integer_extremum(__m512i a, __m512i b) {
  constexpr bool is_signed = std::is_signed_v<T>;
  if constexpr (sizeof(T) == 1)
    return is_signed ? (Max ? _mm512_max_epi8(a, b) : _mm512_min_epi8(a, b))
                     : (Max ? _mm512_max_epu8(a, b) : _mm512_min_epu8(a, b));
  else if constexpr (sizeof(T) == 2)
    return is_signed ? (Max ? _mm512_max_epi16(a, b) : _mm512_min_epi16(a, b))
                     : (Max ? _mm512_max_epu16(a, b) : _mm512_min_epu16(a, b));
  else if constexpr (sizeof(T) == 4)
    return is_signed ? (Max ? _mm512_max_epi32(a, b) : _mm512_min_epi32(a, b))
                     : (Max ? _mm512_max_epu32(a, b) : _mm512_min_epu32(a, b));
  else
    return is_signed ? (Max ? _mm512_max_epi64(a, b) : _mm512_min_epi64(a, b))
                     : (Max ? _mm512_max_epu64(a, b) : _mm512_min_epu64(a, b));
}

/// A tile's running values, combined as the scalar loop does.
template <class T, bool Max>
struct extremum_running : lane_values<T, extremum_tile_capacity> {
  using lane_values<T, extremum_tile_capacity>::lane_values;
  using lane_values<T, extremum_tile_capacity>::value;
  T start(std::size_t j, T x) { return value[j] = x; }
  T combine(std::size_t j, T x, const std::uint8_t*) { return value[j] = extremum_op<T, Max, false>().combine(value[j], x, 0); }
};

/// The running values (earlier) and a row (later) of T combined (AVX-512): VMAXPS / VMAXPD
/// (and the minima) return their second operand for ties and NaN, as the AVX2 forms do;
/// the lanes whose running value is NaN keep it (a mask). Integers: ties are the same
/// value, so the plain maximum or minimum. Every row form below combines with it.
template <class T, bool Max>
TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE __m512i extremum_of(__m512i earlier, __m512i later) {
  if constexpr (std::is_same_v<T, float>) {
    const __m512 a = _mm512_castsi512_ps(earlier), b = _mm512_castsi512_ps(later);
    const __m512 pick = Max ? _mm512_max_ps(a, b) : _mm512_min_ps(a, b);
    return _mm512_castps_si512(_mm512_mask_mov_ps(pick, _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a));
  } else if constexpr (std::is_same_v<T, double>) {
    const __m512d a = _mm512_castsi512_pd(earlier), b = _mm512_castsi512_pd(later);
    const __m512d pick = Max ? _mm512_max_pd(a, b) : _mm512_min_pd(a, b);
    return _mm512_castpd_si512(_mm512_mask_mov_pd(pick, _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), a));
  } else {
    return integer_extremum<T, Max>(earlier, later);
  }
}
/// The same with AVX2: keep_extremum (vector_lines.hpp: MAXPS / MINPS return their second
/// operand, the later element, for ties and NaN; a blend keeps a running NaN).
template <class T, bool Max>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256i extremum_of(__m256i earlier, __m256i later) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_castps_si256(keep_extremum<Max>(_mm256_castsi256_ps(earlier), _mm256_castsi256_ps(later)));
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_castpd_si256(keep_extremum<Max>(_mm256_castsi256_pd(earlier), _mm256_castsi256_pd(later)));
  } else {
    return integer_extremum<T, Max>(earlier, later);
  }
}

/// 32 bytes of lines a step (AVX2), the running values in memory.
template <class T, bool Max>
struct extremum_lanes_avx2 {
  using in_type = T;
  using out_type = T;
  using running_values = extremum_running<T, Max>;
  static constexpr std::size_t width = 32 / sizeof(T), align = 32;
  TALLY_TARGET_AVX2 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, T* out,
                                     const std::uint8_t*, bool stream) {
    const __m256i y = extremum_of<T, Max>(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.value + j)),
                                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.value + j), y);
    stream ? _mm256_stream_si256(reinterpret_cast<__m256i*>(out), y)
           : _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), y);
  }
};

/// 64 bytes of lines a step (AVX-512), the running values in memory.
template <class T, bool Max>
struct extremum_lanes_avx512 {
  using in_type = T;
  using out_type = T;
  using running_values = extremum_running<T, Max>;
  static constexpr std::size_t width = 64 / sizeof(T), align = 64;
  TALLY_TARGET_AVX512 static void step(typename running_values::lanes_type r, std::size_t j, const T* in, T* out,
                                       const std::uint8_t*, bool stream) {
    const __m512i y = extremum_of<T, Max>(_mm512_loadu_si512(r.value + j), _mm512_loadu_si512(in));
    _mm512_storeu_si512(r.value + j, y);
    stream ? _mm512_stream_si512(reinterpret_cast<__m512i*>(out), y) : _mm512_storeu_si512(out, y);
  }
};

/// Tiles of fewer lines than one vector (narrow columns, as the running maximum of the x,
/// y, z of points down axis 0), which the lanes forms above would leave to lane_rows'
/// scalar loop: a row per vector (narrow_row_walk), the running values in a register,
/// combined as the lanes forms combine them. Elements of 2 (AVX-512), 4 and 8 bytes.
template <class T, bool Max, bool InPlace>
struct extremum_narrow_rows {
  /// The most lines a tile may have here: a vector's lanes (0: not here; 16-bit: 31, the
  /// widest row mask narrow_row_walk has).
  static std::size_t max_lines(simd_variant target) noexcept {
    if (target == simd_variant::avx512) return sizeof(T) == 2 ? 31 : sizeof(T) >= 4 ? 64 / sizeof(T) : 0;
    return target == simd_variant::avx2 && sizeof(T) >= 4 ? 32 / sizeof(T) : 0;
  }

  TALLY_TARGET_AVX512 static void avx512(const row_tile<T, T>& t) {
    narrow_row_walk<T, 64 / sizeof(T), InPlace> w(t);
    const std::uint32_t mask = w.mask(t.count);
    __m512i run = load(mask, w.in);
    store(mask, w.out, run);
    w.next();
    std::size_t k = 1;
    for (; k < w.whole_rows; ++k, w.next()) {
      run = extremum_of<T, Max>(run, _mm512_loadu_si512(w.in));
      _mm512_storeu_si512(w.out, run);
    }
    for (; k < t.rows; ++k, w.next()) {
      run = extremum_of<T, Max>(run, load(mask, w.in));
      store(mask, w.out, run);
    }
  }

  /// 16-bit rows of at most 16 elements: 32 bytes a row, as the AVX2 form has for wider
  /// types (AVX-512VL masks: AVX2 has no masked 16-bit loads).
  TALLY_TARGET_AVX512 static void avx512_32_bytes(const row_tile<T, T>& t) {
    static_assert(sizeof(T) == 2, "the AVX2 form takes wider types");
    narrow_row_walk<T, 16, InPlace> w(t);
    const auto mask = static_cast<__mmask16>(w.mask(t.count));
    __m256i run = _mm256_maskz_loadu_epi16(mask, w.in);
    _mm256_mask_storeu_epi16(w.out, mask, run);
    w.next();
    std::size_t k = 1;
    for (; k < w.whole_rows; ++k, w.next()) {
      run = integer_extremum<T, Max>(run, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.in)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w.out), run);
    }
    for (; k < t.rows; ++k, w.next()) {
      run = integer_extremum<T, Max>(run, _mm256_maskz_loadu_epi16(mask, w.in));
      _mm256_mask_storeu_epi16(w.out, mask, run);
    }
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<T, T>& t) {
    narrow_row_walk<T, 32 / sizeof(T), InPlace> w(t);
    const __m256i mask = avx2_row_mask<T>(w.mask(t.count));
    const auto store = avx2_lane_store::of_row<T>(t.count, w.high);
    __m256i run = load(mask, w.in);
    store(w.out, run);
    w.next();
    std::size_t k = 1;
    for (; k < w.whole_rows; ++k, w.next()) {
      run = extremum_of<T, Max>(run, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.in)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w.out), run);
    }
    for (; k < t.rows; ++k, w.next()) {
      run = extremum_of<T, Max>(run, load(mask, w.in));
      store(w.out, run);
    }
  }

 private:
  // A row's lanes, masked (the others read as zero and are not written; AVX2 stores them
  // with avx2_lane_store).
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static __m512i load(std::uint32_t mask, const T* p) {
    if constexpr (sizeof(T) == 2) return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(mask), p);
    else if constexpr (sizeof(T) == 4) return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(mask), p);
    else return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(mask), p);
  }
  TALLY_TARGET_AVX512 TALLY_ALWAYS_INLINE static void store(std::uint32_t mask, T* p, __m512i x) {
    if constexpr (sizeof(T) == 2) _mm512_mask_storeu_epi16(p, static_cast<__mmask32>(mask), x);
    else if constexpr (sizeof(T) == 4) _mm512_mask_storeu_epi32(p, static_cast<__mmask16>(mask), x);
    else _mm512_mask_storeu_epi64(p, static_cast<__mmask8>(mask), x);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256i load(__m256i mask, const T* p) {
    if constexpr (sizeof(T) == 4) return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), mask);
    else return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), mask);
  }
};

/// Tiles of W + 1 to 2W - 1 lines, W a vector's lanes (float32: 17 to 31 with AVX-512, 9
/// to 15 with AVX2): a row per two whole vectors, one on the row's first lines and one on
/// its last, overlapping, the running values of both in registers. The lines both vectors
/// hold are combined in each from the same values, the same bits, and stored twice. In
/// place too: a row's loads come before its stores. (lane_rows kept the values in memory
/// and took its last lines in a second, overlapping step: cummax down float32 rows of 20
/// took 1.6x-1.8x memcpy with AVX-512.)
template <class T, bool Max>
struct extremum_two_vector_rows {
  static bool fits(simd_variant target, std::size_t count) noexcept {
    const std::size_t width = (target == simd_variant::avx512 ? 64 : 32) / sizeof(T);
    return target != simd_variant::scalar && count > width && count < 2 * width;
  }

  TALLY_TARGET_AVX512 static void avx512(const row_tile<T, T>& t) {
    const std::size_t last = t.count - 64 / sizeof(T);  // the second vector's first line
    const T* in = t.in;
    T* out = t.out;
    __m512i run0 = _mm512_loadu_si512(in), run1 = _mm512_loadu_si512(in + last);
    _mm512_storeu_si512(out, run0);
    _mm512_storeu_si512(out + last, run1);
    const input_prefetch ahead(t);
    for (std::size_t k = 1; k < t.rows; ++k) {
      in += t.in_row, out += t.out_row;
      ahead(in);
      const __m512i x0 = _mm512_loadu_si512(in), x1 = _mm512_loadu_si512(in + last);
      run0 = extremum_of<T, Max>(run0, x0), run1 = extremum_of<T, Max>(run1, x1);
      _mm512_storeu_si512(out, run0);
      _mm512_storeu_si512(out + last, run1);
    }
  }

  TALLY_TARGET_AVX2 static void avx2(const row_tile<T, T>& t) {
    const std::size_t last = t.count - 32 / sizeof(T);
    const T* in = t.in;
    T* out = t.out;
    __m256i run0 = load(in), run1 = load(in + last);
    store(out, run0);
    store(out + last, run1);
    const input_prefetch ahead(t);
    for (std::size_t k = 1; k < t.rows; ++k) {
      in += t.in_row, out += t.out_row;
      ahead(in);
      const __m256i x0 = load(in), x1 = load(in + last);
      run0 = extremum_of<T, Max>(run0, x0), run1 = extremum_of<T, Max>(run1, x1);
      store(out, run0);
      store(out + last, run1);
    }
  }

 private:
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256i load(const T* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static void store(T* p, __m256i x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
  }
  /// Prefetches a row's input 32 rows on, where rows_worth_prefetching says it gains: a
  /// pointer walked along with the row's, unchecked, so up to 32 rows past the tile (a
  /// prefetch never faults). Cummax down float32 rows of 20 in rows of 32 (AVX-512) took
  /// 1.3x-1.9x the time when it stopped at the tile's end (a compare per row), and about 1.7x
  /// with lane_rows' address per row (tile_row_ahead, 4 rows on).
  struct input_prefetch {
    static constexpr std::size_t rows_on = 32;
    std::ptrdiff_t bytes_on = 0, last_byte;  // bytes_on 0: none
    explicit input_prefetch(const row_tile<T, T>& t) noexcept
        : last_byte(static_cast<std::ptrdiff_t>((t.count - 1) * sizeof(T))) {
      if (rows_worth_prefetching<T>(t.count, t.in_row, rows_on))
        bytes_on = static_cast<std::ptrdiff_t>(rows_on) * t.in_row * static_cast<std::ptrdiff_t>(sizeof(T));
    }
    void operator()(const T* row) const noexcept {
      if (bytes_on == 0) return;
      const auto at = reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(bytes_on);
      prefetch(reinterpret_cast<const void*>(at));
      prefetch(reinterpret_cast<const void*>(at + static_cast<std::uintptr_t>(last_byte)));
    }
  };
};

/// With indices: the lanes whose running value (earlier) takes the row's element (later),
/// the same choice as keep_extremum: the running value is not NaN, and the element is NaN
/// or wins or ties.
template <bool Max>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 takes_element(__m256 earlier, __m256 later) {
  const __m256 wins = Max ? _mm256_cmp_ps(later, earlier, _CMP_GE_OQ) : _mm256_cmp_ps(later, earlier, _CMP_LE_OQ);
  return _mm256_and_ps(_mm256_cmp_ps(earlier, earlier, _CMP_ORD_Q),
                       _mm256_or_ps(_mm256_cmp_ps(later, later, _CMP_UNORD_Q), wins));
}
template <bool Max>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256d takes_element(__m256d earlier, __m256d later) {
  const __m256d wins = Max ? _mm256_cmp_pd(later, earlier, _CMP_GE_OQ) : _mm256_cmp_pd(later, earlier, _CMP_LE_OQ);
  return _mm256_and_pd(_mm256_cmp_pd(earlier, earlier, _CMP_ORD_Q),
                       _mm256_or_pd(_mm256_cmp_pd(later, later, _CMP_UNORD_Q), wins));
}

/// 32 bytes of a row into the running values (`running`, 32-byte aligned) and their
/// indices (`at`, aligned): the lanes that take their element take the row's position
/// (`here`). Eight float lanes, their indices in two registers of four; four double lanes.
template <bool Max>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void index_row_step(float* running, std::int64_t* at, const float* in, float* out,
                                                         std::int64_t* index, __m256i here) {
  const __m256 a = _mm256_load_ps(running), b = _mm256_loadu_ps(in);
  const __m256 take = takes_element<Max>(a, b);
  const __m256 y = _mm256_blendv_ps(a, b, take);
  const __m256i take_bits = _mm256_castps_si256(take);
  const __m256i low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(take_bits));
  const __m256i high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(take_bits, 1));
  const __m256i i0 = _mm256_blendv_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(at)), here, low);
  const __m256i i1 = _mm256_blendv_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(at + 4)), here, high);
  _mm256_store_ps(running, y);
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), i0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(at + 4), i1);
  _mm256_storeu_ps(out, y);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), i0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(index + 4), i1);
}
template <bool Max>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void index_row_step(double* running, std::int64_t* at, const double* in,
                                                         double* out, std::int64_t* index, __m256i here) {
  const __m256d a = _mm256_load_pd(running), b = _mm256_loadu_pd(in);
  const __m256d take = takes_element<Max>(a, b);
  const __m256d y = _mm256_blendv_pd(a, b, take);
  const __m256i i = _mm256_blendv_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(at)), here,
                                       _mm256_castpd_si256(take));
  _mm256_store_pd(running, y);
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), i);
  _mm256_storeu_pd(out, y);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), i);
}

/// The indices of a narrow tile's lines in registers, the row in lanes [first, end) of its
/// vector: the lanes that take their element (takes_element) take the row's position.
/// Float: two registers of four, stored in two pieces; double: one.
template <class T, bool Max>
struct narrow_indices;
template <bool Max>
struct narrow_indices<float, Max> {
  __m256i low, high;
  avx2_lane_store store_low, store_high;
  /// The row's indices: lanes [first, end) of 8, in two vectors of 4.
  TALLY_TARGET_AVX2 narrow_indices(__m256i here, std::size_t first, std::size_t end) noexcept
      : low(here),
        high(here),
        store_low((std::min)(first, std::size_t{4}) * 8,
                  ((std::min)(end, std::size_t{4}) - (std::min)(first, std::size_t{4})) * 8),
        store_high(((std::max)(first, std::size_t{4}) - 4) * 8,
                   ((std::max)(end, std::size_t{4}) - (std::max)(first, std::size_t{4})) * 8) {}
  /// A row (later) into the running values and these indices.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void take(__m256 later, __m256i here, __m256& running) {
    const __m256 take = takes_element<Max>(running, later);
    running = _mm256_blendv_ps(running, later, take);
    const __m256i take_bits = _mm256_castps_si256(take);
    low = _mm256_blendv_epi8(low, here, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(take_bits)));
    high = _mm256_blendv_epi8(high, here, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(take_bits, 1)));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void store(std::int64_t* index) const {
    store_low(index, low);
    store_high(index + 4, high);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void store_whole(std::int64_t* index) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), low);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index + 4), high);
  }
};
template <bool Max>
struct narrow_indices<double, Max> {
  __m256i at;
  avx2_lane_store store_at;
  TALLY_TARGET_AVX2 narrow_indices(__m256i here, std::size_t first, std::size_t end) noexcept
      : at(here), store_at(first * 8, (end - first) * 8) {}
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void take(__m256d later, __m256i here, __m256d& running) {
    const __m256d take = takes_element<Max>(running, later);
    running = _mm256_blendv_pd(running, later, take);
    at = _mm256_blendv_epi8(at, here, _mm256_castpd_si256(take));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void store(std::int64_t* index) const { store_at(index, at); }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void store_whole(std::int64_t* index) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index), at);
  }
};

/// Float or double values with indices across a tile, row by row: whole vectors of lines
/// through index_row_step, the lines past the last one (fewer than a vector holds) as a
/// narrow tile's row goes (narrow_indices: a masked load, plain stores of the lanes, the
/// running values and indices in registers), where the scalar combine took about 1.4x the
/// time of a memcpy (double [N, 5..7], float [N, 9..15]).
template <class T, bool Max>
TALLY_TARGET_AVX2 void extremum_index_rows_avx2(const row_tile<T, T>& t) {
  constexpr std::size_t width = 32 / sizeof(T);
  alignas(32) T running[extremum_tile_capacity];
  alignas(32) std::int64_t at[extremum_tile_capacity];
  const std::int64_t last = static_cast<std::int64_t>(t.rows) - 1;
  const T* in = t.in;
  T* out = t.out;
  std::int64_t* index = t.index;
  const std::int64_t first = t.decreasing ? last : 0;
  const std::size_t whole = t.count - t.count % width, left = t.count - whole;
  for (std::size_t j = 0; j < t.count; ++j) {  // a line starts from its first element
    out[j] = in[j];
    index[j] = first;
  }
  for (std::size_t j = 0; j < whole; ++j) {  // the lines past `whole` run in registers
    running[j] = in[j];
    at[j] = first;
  }
  const __m256i left_lanes = avx2_row_mask<T>((1u << left) - 1);
  const avx2_lane_store store_left(0, left * sizeof(T));
  ymm_of<T> running_left = masked_load(in + whole, left_lanes);
  narrow_indices<T, Max> at_left(_mm256_set1_epi64x(first), 0, left);
  for (std::size_t k = 1; k < t.rows; ++k) {
    in += t.in_row;
    out += t.out_row;
    index += t.index_row;
    const std::uintptr_t ahead = tile_row_ahead(t.in, k, t.rows, t.count, t.in_row, t.next_in);
    prefetch_in_row<T>(ahead, 0);  // the row `rows_ahead` on: its ends, the rest a line per step
    prefetch_in_row<T>(ahead, t.count - 1);
    const std::int64_t position = t.decreasing ? last - static_cast<std::int64_t>(k) : static_cast<std::int64_t>(k);
    const __m256i here = _mm256_set1_epi64x(position);
    for (std::size_t j = 0; j < whole; j += width) {
      prefetch_in_row<T>(ahead, j);
      index_row_step<Max>(running + j, at + j, in + j, out + j, index + j, here);
    }
    if (left == 0) continue;
    at_left.take(masked_load(in + whole, left_lanes), here, running_left);
    store_left(out + whole, running_left);
    at_left.store(index + whole);
  }
}

/// extremum_index_rows_avx2 on tiles narrower than a vector (at most 8 float or 4 double
/// lines: narrow columns), where its walk would take a masked step a row: a row per
/// vector (narrow_row_walk, whole loads and stores where the rows are packed), the running
/// values and their indices in registers, the same choice of lanes. The indices are stored
/// as whole vectors where the walk's rows are, and the index rows are packed as they are.
template <class T, bool Max, bool InPlace>
TALLY_TARGET_AVX2 void extremum_index_narrow_rows_avx2(const row_tile<T, T>& t) {
  constexpr std::size_t lanes = 32 / sizeof(T);
  narrow_row_walk<T, lanes, InPlace> w(t);
  const __m256i mask = avx2_row_mask<T>(w.mask(t.count));
  const auto store = avx2_lane_store::of_row<T>(t.count, w.high);
  std::int64_t* index = t.index + w.base;
  const std::ptrdiff_t index_row = t.index_row;
  const std::size_t whole_rows = index_row == t.in_row ? w.whole_rows : 0;
  __m256i here = _mm256_set1_epi64x(t.decreasing ? static_cast<std::int64_t>(t.rows) - 1 : 0);
  const __m256i step = _mm256_set1_epi64x(t.decreasing ? -1 : 1);
  const std::size_t first = w.high ? lanes - t.count : 0;
  ymm_of<T> running = masked_load(w.in, mask);
  narrow_indices<T, Max> at(here, first, first + t.count);  // a line starts from its first element
  store(w.out, running);
  at.store(index);
  w.next();
  for (std::size_t k = 1; k < t.rows; ++k, w.next()) {
    index += index_row;
    here = _mm256_add_epi64(here, step);
    if (k < whole_rows) {
      at.take(avx2_lanes_of<T>::load(w.in), here, running);
      avx2_lanes_of<T>::store(w.out, running);
      at.store_whole(index);
    } else {
      at.take(masked_load(w.in, mask), here, running);
      store(w.out, running);
      at.store(index);
    }
  }
}

TALLY_SIMD_WARNINGS_END

/// cummax / cummin with indices of float and double.
template <class T, bool Max>
struct vector_rows<extremum_op<T, Max, true>, std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, double>>> {
  static constexpr bool exists = true;
  static constexpr std::size_t max_lines = extremum_tile_capacity;
  /// A tile of rows with its index output, when the CPU has AVX2.
  static bool scan(const row_tile<T, T>& t) noexcept {
    if (active_target() == simd_variant::scalar || t.resets || !t.index || t.count > max_lines) return false;
    if (t.count <= 32 / sizeof(T) && t.rows != 0)
      narrow_rows_in_place(t) ? extremum_index_narrow_rows_avx2<T, Max, true>(t)
                              : extremum_index_narrow_rows_avx2<T, Max, false>(t);
    else
      extremum_index_rows_avx2<T, Max>(t);
    return true;
  }
};

template <class T, bool Max>
struct vector_rows<extremum_op<T, Max, false>> {
  static constexpr bool exists = has_extremum_lanes<T>;
  static constexpr std::size_t max_lines = extremum_tile_capacity;
  /// A tile of rows, when the CPU has AVX2 (AVX-512 lanes when it has them).
  static bool scan(const row_tile<T, T>& t) noexcept {
    if constexpr (exists) {
      if (t.resets || t.index || t.count > max_lines) return false;
      const simd_variant target = active_target();
      if constexpr (sizeof(T) >= 2) {
        // (16-bit rows: AVX-512 only, max_lines is 0 otherwise.) Rows that fit 32 bytes take
        // 32-byte vectors under AVX-512 too: whole 64-byte loads and stores of them were
        // twice as slow (float [5.6M, 3]: 15.9 against 7.5 ms, memcpy 4.2; int16 [11M, 3]:
        // 18.9 against 8.0 ms, memcpy 3.6).
        if (t.count <= extremum_narrow_rows<T, Max, false>::max_lines(target) && t.rows != 0) {
          const bool fits_32_bytes = t.count <= 32 / sizeof(T);
          const auto run = [&](auto form) {
            using narrow = decltype(form);
            if constexpr (sizeof(T) == 2)
              fits_32_bytes ? narrow::avx512_32_bytes(t) : narrow::avx512(t);
            else
              target == simd_variant::avx512 && !fits_32_bytes ? narrow::avx512(t) : narrow::avx2(t);
          };
          narrow_rows_in_place(t) ? run(extremum_narrow_rows<T, Max, true>{}) : run(extremum_narrow_rows<T, Max, false>{});
          return true;
        }
      }
      if (extremum_two_vector_rows<T, Max>::fits(target, t.count) && t.rows != 0) {
        using form = extremum_two_vector_rows<T, Max>;
        target == simd_variant::avx512 ? form::avx512(t) : form::avx2(t);
        return true;
      }
      return scan_lane_rows<extremum_lanes_avx2<T, Max>, extremum_lanes_avx512<T, Max>>(t);
    }
    (void)t;
    return false;
  }
};

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
