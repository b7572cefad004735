// Vector forms of vocabulary operators, found by two traits: an operator with a
// `vector_line<Op>` specialization may scan a contiguous line (+1 steps in input and
// output, or -1 steps in both) in registers, and one with a `vector_rows<Op>`
// specialization a tile of neighbouring lines that lie next to each other in memory, row
// by row. Every other operator (and every target without the instructions) takes the
// engine's scalar loops. The cummax / cummin forms give the scalar loop's bits exactly;
// logcumsumexp's agree with it to a few ulp of double (vector_logcumsumexp.hpp).
//
// cummax / cummin of float32 values (AVX2, also used under AVX-512): the operator
// "keep the first NaN, else the larger (max) or smaller (min), the later one on ties" is
// associative and always returns one of its operands, so an in-register prefix (three
// shift steps of 8 lanes) followed by the running value gives the sequential result.
// MAXPS / MINPS return their second operand for equal values (signed zeros included) and
// for a NaN in either operand; a blend restores the first operand where it is the NaN.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../config.hpp"
#include "../dispatch/active_target.hpp"
#include "../kernels/avx2/vectors.hpp"
#include "../kernels/kernel_set.hpp"
#include "../ops/extremum.hpp"
#include "vector_extremum_packed_lines.hpp"
#include "vector_logcumsumexp.hpp"

TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

/// A tile of `count` neighbouring lines that lie next to each other in memory (unit steps
/// in every operand), `rows` elements long, each row `*_row` elements after the last.
template <class In, class Out>
struct row_tile {
  const In* in;
  Out* out;
  const std::uint8_t* resets;  // null: no reset flags
  std::int64_t* index;         // null: no index output (cummax / cummin)
  std::size_t count, rows;
  std::ptrdiff_t in_row, out_row, resets_row, index_row;
  bool decreasing;  // row k is element n - 1 - k of its lines (for indices)
  bool stream;      // non-temporal stores allowed (a large output, not in place)
  const In* next_in = nullptr;  // where the next tile's rows start (prefetched), or null
};

/// A whole line of n elements, +1 steps in every operand (-1 steps when `reverse`).
template <class In, class Out>
struct line_span {
  const In* in;
  Out* out;
  const std::uint8_t* resets;  // null: no reset flags
  std::int64_t* index;         // null: no index output (cummax / cummin)
  std::size_t n;
  bool reverse;
  bool decreasing;  // element k of the line is position n - 1 - k along the axis (for indices)
  bool stream;      // non-temporal stores allowed (a large output, not in place)
};

/// Elements of T from p to the next 32-byte boundary (0 on one), at most `limit`: where a
/// vector form's non-temporal stores of 32-byte vectors can start.
template <class T>
std::size_t elements_to_32_bytes(const T* p, std::size_t limit) noexcept {
  return (std::min)(limit, elements_to_boundary<32>(p));
}

/// No vector form: the engine's scalar loops. A specialization of vector_line has
///   static bool scan(const line_span<In, Out>&);
/// (a whole inclusive line; false: not done), and may have
///   static bool scan_lines(const line_span<In, Out>& first, std::size_t count,
///                          std::ptrdiff_t in_step, std::ptrdiff_t out_step);
/// (`count` such lines, each `in_step` / `out_step` elements after the one before, in one
/// call: what short lines need) with
///   static std::size_t shortest_line(bool packed);
/// (the shortest lines it takes on this CPU, 0 for none; `packed`: in_step == out_step ==
/// +-n) and may have `static constexpr std::size_t longest_multi_line` (the longest it
/// takes); one of vector_rows has `max_lines` (the widest tile it takes) and
///   static bool scan(const row_tile<In, Out>&);
/// (a whole inclusive tile; false: not done).
// (The second parameters: for specializations that test Op's types.)
template <class Op, class = void>
struct vector_line {
  static constexpr bool exists = false;
};
template <class Op, class = void>
struct vector_rows {
  static constexpr bool exists = false;
};

#if TALLY_X86_SIMD
TALLY_SIMD_WARNINGS_BEGIN

/// `earlier (op) later` for 8 float or 4 double lanes.
template <bool Max>
TALLY_TARGET_AVX2 inline __m256 keep_extremum(__m256 earlier, __m256 later) {
  const __m256 pick = Max ? _mm256_max_ps(earlier, later) : _mm256_min_ps(earlier, later);
  return _mm256_blendv_ps(pick, earlier, _mm256_cmp_ps(earlier, earlier, _CMP_UNORD_Q));
}
template <bool Max>
TALLY_TARGET_AVX2 inline __m256d keep_extremum(__m256d earlier, __m256d later) {
  const __m256d pick = Max ? _mm256_max_pd(earlier, later) : _mm256_min_pd(earlier, later);
  return _mm256_blendv_pd(pick, earlier, _mm256_cmp_pd(earlier, earlier, _CMP_UNORD_Q));
}

/// The AVX2 lanes of float or double (kernels/avx2/vectors.hpp: reg, broadcast, load,
/// store, first, broadcast_last). (A specialization, not std::conditional: GCC warns that
/// a vector type as a template argument loses its attributes.)
template <class T>
struct ymm_lanes;
template <>
struct ymm_lanes<float> {
  using type = avx2::f32;
};
template <>
struct ymm_lanes<double> {
  using type = avx2::f64;
};
template <class T>
using avx2_lanes_of = typename ymm_lanes<T>::type;
template <class T>
using ymm_of = typename avx2_lanes_of<T>::reg;

/// The operator's identity in every lane, -inf for max and +inf for min: it never wins
/// against a later operand (ties and NaN go to the later one).
template <bool Max, class T = float>
TALLY_TARGET_AVX2 inline ymm_of<T> extremum_identity() {
  return avx2_lanes_of<T>::broadcast(Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
}

/// Lanes moved up by `Shift`, the identity shifted in.
template <bool Max, int Shift>
TALLY_TARGET_AVX2 inline __m256 shifted(__m256 v) {
  const __m256i index = Shift == 1   ? _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)
                        : Shift == 2 ? _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)
                                     : _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
  return _mm256_blend_ps(_mm256_permutevar8x32_ps(v, index), extremum_identity<Max>(), (1 << Shift) - 1);
}

/// The last elements of a line, fewer than a vector holds, as one vector: `valid` holds its
/// first `left` lanes, `x` their elements and the identity past them (it wins no lane and
/// takes no stored one: a lane's value comes from lanes at or below it).
template <class T>
struct masked_tail {
  __m256i valid;
  ymm_of<T> x;
};
template <bool Max>
TALLY_TARGET_AVX2 inline masked_tail<float> load_masked_tail(const float* in, std::size_t left) {
  const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(left)),
                                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return {valid, _mm256_blendv_ps(extremum_identity<Max>(), _mm256_maskload_ps(in, valid), _mm256_castsi256_ps(valid))};
}
template <bool Max>
TALLY_TARGET_AVX2 inline masked_tail<double> load_masked_tail(const double* in, std::size_t left) {
  const __m256i valid =
      _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(left)), _mm256_setr_epi64x(0, 1, 2, 3));
  return {valid, _mm256_blendv_pd(extremum_identity<Max, double>(), _mm256_maskload_pd(in, valid),
                                  _mm256_castsi256_pd(valid))};
}

/// `earlier (op) later` for lanes that hold no NaN: MAXPS / MINPS (MAXPD / MINPD) alone,
/// which take the later operand on ties.
template <bool Max>
TALLY_TARGET_AVX2 inline __m256 pick_extremum(__m256 earlier, __m256 later) {
  return Max ? _mm256_max_ps(earlier, later) : _mm256_min_ps(earlier, later);
}
template <bool Max>
TALLY_TARGET_AVX2 inline __m256d pick_extremum(__m256d earlier, __m256d later) {
  return Max ? _mm256_max_pd(earlier, later) : _mm256_min_pd(earlier, later);
}

/// The inclusive prefix of the operator inside 8 lanes (three shift steps); `MayHoldNaN`
/// false takes the cheaper combine.
template <bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 inline __m256 extremum_prefix(__m256 x) {
  x = MayHoldNaN ? keep_extremum<Max>(shifted<Max, 1>(x), x) : pick_extremum<Max>(shifted<Max, 1>(x), x);
  x = MayHoldNaN ? keep_extremum<Max>(shifted<Max, 2>(x), x) : pick_extremum<Max>(shifted<Max, 2>(x), x);
  return MayHoldNaN ? keep_extremum<Max>(shifted<Max, 4>(x), x) : pick_extremum<Max>(shifted<Max, 4>(x), x);
}

/// Scans n contiguous floats from `in` to `out` (in place allowed); returns the running
/// value after them. `stream`: non-temporal stores from the output's first 32-byte
/// boundary on (the elements before it go one at a time; the result is the same).
template <bool Max>
TALLY_TARGET_AVX2 inline float extremum_line_avx2(const float* in, float* out, std::size_t n, float running,
                                                  bool stream) {
  const extremum_op<float, Max, false> op;
  std::size_t k = 0;
  if (stream)
    for (const std::size_t head = elements_to_32_bytes(out, n);
         k < head; ++k)
      out[k] = running = op.combine(running, in[k], 0);
  __m256 run = _mm256_set1_ps(running);
  const __m256i last = _mm256_set1_epi32(7);
  // Two vectors a step: the second one's prefix takes the first one's last lane before the
  // running value reaches either, so the loop-carried chain (a combine with the running
  // value and a broadcast of its last lane) is paid once per 16 elements. Vectors without
  // a NaN (one compare finds one in either) combine with MAXPS / MINPS alone; the running
  // value may be NaN, so its combine keeps the blend.
  for (; k + 16 <= n; k += 16) {
    __m256 x = _mm256_loadu_ps(in + k), y = _mm256_loadu_ps(in + k + 8);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q)) == 0) {
      x = extremum_prefix<Max, false>(x);
      y = pick_extremum<Max>(_mm256_permutevar8x32_ps(x, last), extremum_prefix<Max, false>(y));
    } else {
      x = extremum_prefix<Max, true>(x);
      y = keep_extremum<Max>(_mm256_permutevar8x32_ps(x, last), extremum_prefix<Max, true>(y));
    }
    x = keep_extremum<Max>(run, x);
    y = keep_extremum<Max>(run, y);
    stream ? _mm256_stream_ps(out + k, x) : _mm256_storeu_ps(out + k, x);
    stream ? _mm256_stream_ps(out + k + 8, y) : _mm256_storeu_ps(out + k + 8, y);
    run = _mm256_permutevar8x32_ps(y, last);
  }
  for (; k + 8 <= n; k += 8) {
    __m256 x = extremum_prefix<Max, true>(_mm256_loadu_ps(in + k));
    x = keep_extremum<Max>(run, x);
    stream ? _mm256_stream_ps(out + k, x) : _mm256_storeu_ps(out + k, x);
    run = _mm256_permutevar8x32_ps(x, last);
  }
  if (k < n) {
    const masked_tail tail = load_masked_tail<Max>(in + k, n - k);
    const __m256 x = keep_extremum<Max>(run, extremum_prefix<Max, true>(tail.x));
    _mm256_maskstore_ps(out + k, tail.valid, x);
    run = _mm256_permutevar8x32_ps(x, _mm256_set1_epi32(static_cast<std::int32_t>(n - k - 1)));
  }
  return _mm256_cvtss_f32(run);
}

/// The element numbers (counted from the line's start; the vector's first lane is element
/// k) of the elements that 8 lanes' inclusive values `v` of `x` took, given no NaN in
/// either: the lanes whose element equals its value are those that took it (a loser is
/// strictly beaten by the value it lost to), so each lane's is that of the last such lane at
/// or below it (a prefix maximum of element numbers), or the running value's `run_element`.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256i taken_elements(__m256 x, __m256 v, std::size_t k,
                                                             __m256i run_element) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), none = _mm256_set1_epi32(-1);
  const __m256i up1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), up2 = _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5),
                up4 = _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
  __m256i at = _mm256_blendv_epi8(none, _mm256_add_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(k)), lane),
                                  _mm256_castps_si256(_mm256_cmp_ps(x, v, _CMP_EQ_OQ)));
  at = _mm256_max_epi32(at, _mm256_blend_epi32(_mm256_permutevar8x32_epi32(at, up1), none, 0x01));
  at = _mm256_max_epi32(at, _mm256_blend_epi32(_mm256_permutevar8x32_epi32(at, up2), none, 0x03));
  at = _mm256_max_epi32(at, _mm256_blend_epi32(_mm256_permutevar8x32_epi32(at, up4), none, 0x0f));
  return _mm256_max_epi32(at, run_element);
}

/// taken_elements for 4 double lanes, element numbers in 64-bit lanes. They lie in
/// [-1, 2^31), so a 32-bit maximum of each half is their maximum: -1 is -1 in both halves,
/// the others 0 in the upper one.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256i taken_elements(__m256d x, __m256d v, std::size_t k,
                                                             __m256i run_element) {
  const __m256i none = _mm256_set1_epi64x(-1);
  __m256i at = _mm256_blendv_epi8(none, _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(k)),
                                                         _mm256_setr_epi64x(0, 1, 2, 3)),
                                  _mm256_castpd_si256(_mm256_cmp_pd(x, v, _CMP_EQ_OQ)));
  at = _mm256_max_epi32(at, _mm256_blend_epi32(_mm256_permute4x64_epi64(at, 0x90), none, 0x03));
  at = _mm256_max_epi32(at, _mm256_blend_epi32(_mm256_permute4x64_epi64(at, 0x40), none, 0x0f));
  return _mm256_max_epi32(at, run_element);
}

/// The inclusive prefix of the operator inside 4 double lanes (two shift steps, the identity
/// shifted in). Only without NaN: no double form needs the other.
template <bool Max, bool MayHoldNaN>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256d extremum_prefix(__m256d x) {
  static_assert(!MayHoldNaN, "the double prefix takes vectors without NaN");
  const __m256d identity = extremum_identity<Max, double>();
  x = pick_extremum<Max>(_mm256_blend_pd(_mm256_permute4x64_pd(x, 0x90), identity, 0x1), x);
  return pick_extremum<Max>(_mm256_blend_pd(_mm256_permute4x64_pd(x, 0x40), identity, 0x3), x);
}

/// Overloads for float and double lanes: a masked load, whether any lane of either is NaN.
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256 masked_load(const float* p, __m256i mask) {
  return _mm256_maskload_ps(p, mask);
}
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256d masked_load(const double* p, __m256i mask) {
  return _mm256_maskload_pd(p, mask);
}
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE bool any_nan(__m256 a, __m256 b) {
  return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q)) != 0;
}
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE bool any_nan(__m256d a, __m256d b) {
  return _mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_UNORD_Q)) != 0;
}

/// With indices, n (< 2^31) contiguous floats or doubles from `in` to `out` and their
/// positions along the axis to `index` (element k's: first + k, or first - k when
/// Decreasing), the line's first element already written. Vectors without NaN, in them or
/// in the running value, go through taken_elements; a vector with a NaN goes one element at
/// a time through the scalar combine. The last elements, fewer than a vector holds, go as
/// one masked vector (load_masked_tail).
/// Plain stores: non-temporal ones of values and indices, three streams written 32 bytes
/// at a time, measured slower (4096 x 4096 floats along lines: 15.1 ms against 11.4).
/// (Members, not lambdas: GCC's lambdas do not take the function's target.)
template <class T, bool Max, bool Decreasing>
struct extremum_index_line {
  static constexpr bool is_float = std::is_same_v<T, float>;
  static constexpr std::size_t width = 32 / sizeof(T);
  using lanes = avx2_lanes_of<T>;
  using vector = typename lanes::reg;

  const T* in;
  T* out;
  std::int64_t* index;
  std::int64_t first;
  __m256i first4;  // `first` in every 64-bit lane (a member: GCC did not hoist it out of the loop)
  // The running value and its element number in every lane (32-bit lanes for float, 64-bit
  // for double): the loop-carried chain stays in registers (a max and a permute each).
  vector run;
  __m256i run_element;

  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void operator()(std::size_t n) {
    std::size_t k = 1;
    for (; k + width <= n; k += width) {
      const vector x = lanes::load(in + k);
      has_nan(x) ? scalar_steps(k, k + width) : whole_step(k, x);
    }
    if (k == n) return;
    const masked_tail<T> tail = load_masked_tail<Max>(in + k, n - k);
    has_nan(tail.x) ? scalar_steps(k, n) : tail_step(k, tail, n - k);
  }

  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE static __m256i splat_element(std::int32_t element) {
    return is_float ? _mm256_set1_epi32(element) : _mm256_set1_epi64x(element);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE std::int64_t position(std::size_t element) const {
    return Decreasing ? first - static_cast<std::int64_t>(element) : first + static_cast<std::int64_t>(element);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE std::int32_t element(std::int64_t position) const {
    return static_cast<std::int32_t>(Decreasing ? first - position : position - first);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE bool has_nan(vector x) const { return any_nan(x, run); }
  /// Elements k to end through the scalar combine, from and back to the vector state.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void scalar_steps(std::size_t k, std::size_t end) {
    const extremum_op<T, Max, true> op;
    typename extremum_op<T, Max, true>::state_type s{
        lanes::first(run), position(static_cast<std::size_t>(_mm256_cvtsi256_si32(run_element)))};
    for (; k < end; ++k) {
      s = op.combine(s, in[k], position(k));
      out[k] = s.value;
      index[k] = s.index;
    }
    run = lanes::broadcast(s.value);
    run_element = splat_element(element(s.index));
  }

  /// The inclusive values of a vector without NaN, their element numbers, and their
  /// positions (for float lanes 0 to 3 in `low`, 4 to 7 in `high`; for double all in `low`,
  /// `high` zero).
  struct step {
    vector value;
    __m256i element, low, high;
  };
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256i positions(__m256i elements) const {
    return Decreasing ? _mm256_sub_epi64(first4, elements) : _mm256_add_epi64(first4, elements);
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE step vector_step(std::size_t k, vector x) const {
    const vector v = pick_extremum<Max>(run, extremum_prefix<Max, false>(x));
    const __m256i at = taken_elements(x, v, k, run_element);
    if constexpr (is_float)
      return {v, at, positions(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(at))),
              positions(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)))};
    else
      return {v, at, positions(at), _mm256_setzero_si256()};
  }
  /// The next whole vector from k, carrying the running value on.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void whole_step(std::size_t k, vector x) {
    const step s = vector_step(k, x);
    auto* const at = reinterpret_cast<__m256i*>(index + k);
    _mm256_storeu_si256(at, s.low);
    lanes::store(out + k, s.value);
    run = lanes::broadcast_last(s.value);
    if constexpr (is_float) {
      _mm256_storeu_si256(at + 1, s.high);
      run_element = _mm256_permutevar8x32_epi32(s.element, _mm256_set1_epi32(7));
    } else {
      run_element = _mm256_permute4x64_epi64(s.element, 0xff);
    }
  }
  /// The line's last `left` elements (fewer than a vector holds), from k: stored through
  /// the tail's mask.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void tail_step(std::size_t k, const masked_tail<T>& tail,
                                                       std::size_t left) const {
    const step s = vector_step(k, tail.x);
    auto* const positions = reinterpret_cast<long long*>(index + k);
    if constexpr (is_float) {
      _mm256_maskstore_ps(out + k, tail.valid, s.value);
      _mm256_maskstore_epi64(positions, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(tail.valid)), s.low);
      if (left > 4)
        _mm256_maskstore_epi64(positions + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(tail.valid, 1)),
                               s.high);
    } else {
      _mm256_maskstore_pd(out + k, tail.valid, s.value);
      _mm256_maskstore_epi64(positions, tail.valid, s.low);
      (void)left;
    }
  }
};

template <class T, bool Max, bool Decreasing>
TALLY_TARGET_AVX2 inline void extremum_index_line_avx2(const T* in, T* out, std::int64_t* index, std::size_t n,
                                                       std::int64_t first) {
  using line = extremum_index_line<T, Max, Decreasing>;
  line{in, out, index, first, _mm256_set1_epi64x(first), line::lanes::broadcast(in[0]), line::splat_element(0)}(n);
}

TALLY_SIMD_WARNINGS_END

/// cummax / cummin with indices of float and double.
template <class T, bool Max>
struct vector_line<extremum_op<T, Max, true>, std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, double>>> {
  static constexpr bool exists = true;
  /// The shortest lines it takes: lines of 16 to 32 doubles took up to 8 ns (10%-15%)
  /// longer than the scalar combine in a scratch timing (one call on a 1-D tensor), lines
  /// of 48 the same, 64 and more 0.8x to 0.6x.
  static constexpr std::size_t shortest = std::is_same_v<T, float> ? 1 : 48;
  /// Scans a whole line, contiguous in increasing memory (either direction of the scan), with
  /// its indices when the CPU has AVX2; false: not done.
  static bool scan(const line_span<T, T>& l) noexcept {
    if (active_target() == simd_variant::scalar || l.n < shortest || l.n > 0x7fffffff || l.reverse || l.resets ||
        !l.index)
      return false;
    const std::int64_t first = l.decreasing ? static_cast<std::int64_t>(l.n) - 1 : 0;
    l.out[0] = l.in[0];  // the line starts from its first element
    l.index[0] = first;
    l.decreasing ? extremum_index_line_avx2<T, Max, true>(l.in, l.out, l.index, l.n, first)
                 : extremum_index_line_avx2<T, Max, false>(l.in, l.out, l.index, l.n, first);
    return true;
  }
  /// The multi-line form takes the index output too, laid out as the values' output.
  static constexpr bool takes_indices = true;
  /// The targets with a multi-line form: AVX-512 and AVX2.
  static bool has_multi_line(simd_variant target) noexcept {
    return target == simd_variant::avx512 || target == simd_variant::avx2;
  }
  /// Packed lines of any length go in one call (scan_lines).
  static std::size_t shortest_line(bool packed) noexcept { return packed && has_multi_line(active_target()) ? 1 : 0; }
  /// Double lines the line form takes (from 48 elements) go one at a time to it (scan):
  /// in the caches it took 10% (AVX-512) to 35% (AVX2) less time than the stream, 16K
  /// doubles in lines of 48 to 256.
  static constexpr std::size_t longest_multi_line = std::is_same_v<T, float> ? 0x7fffffff : shortest - 1;
  /// `count` packed lines like `first` (their indices laid out as their values, the steps
  /// those of the output) in one stream: extremum_index_packed_lines_avx512 / _avx2.
  static bool scan_lines(const line_span<T, T>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    const auto length = static_cast<std::ptrdiff_t>(first.n);
    const simd_variant target = active_target();
    if (!has_multi_line(target) || first.n == 0 || first.n > longest_multi_line || first.resets || !first.index ||
        in_step != out_step || (in_step != length && in_step != -length))
      return false;
    const std::ptrdiff_t low =  // the region's lowest address (see the values' form)
        (in_step < 0 ? static_cast<std::ptrdiff_t>(count - 1) * in_step : 0) - (first.reverse ? length - 1 : 0);
    const auto lines = target == simd_variant::avx512
                           ? (first.reverse ? &extremum_index_packed_lines_avx512<T, Max, true>
                                            : &extremum_index_packed_lines_avx512<T, Max, false>)
                           : (first.reverse ? &extremum_index_packed_lines_avx2<T, Max, true>
                                            : &extremum_index_packed_lines_avx2<T, Max, false>);
    lines(first.in + low, first.out + low, first.index + low, first.n, first.n * count, first.decreasing);
    return true;
  }
};

template <bool Max>
struct vector_line<extremum_op<float, Max, false>> {
  static constexpr bool exists = true;
  /// Scans a whole contiguous line when the CPU has AVX2; false: not done.
  static bool scan(const line_span<float, float>& l) noexcept {
    if (active_target() == simd_variant::scalar || l.n == 0 || l.resets || l.index) return false;
    if (l.reverse) return scan_lines(l, 1, static_cast<std::ptrdiff_t>(l.n), static_cast<std::ptrdiff_t>(l.n));
    l.out[0] = l.in[0];  // the line starts from its first element
    extremum_line_avx2<Max>(l.in + 1, l.out + 1, l.n - 1, l.in[0], l.stream);
    return true;
  }
  /// Packed lines (in_step == out_step == +-n) of any length go in one call (scan_lines):
  /// cummax of 16M floats in lines of 2 to 64, one line or a tile of lines at a time, took
  /// 2x-6x the time of a memcpy.
  static std::size_t shortest_line(bool packed) noexcept {
    return packed && active_target() != simd_variant::scalar ? 1 : 0;
  }
  /// `count` lines like `first`, each `in_step` / `out_step` elements after the one before:
  /// one stream (extremum_packed_lines_avx512 / _avx2) where they are packed.
  static bool scan_lines(const line_span<float, float>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    const auto length = static_cast<std::ptrdiff_t>(first.n);
    const simd_variant target = active_target();
    if (target == simd_variant::scalar || first.n == 0 || first.resets || first.index || in_step != out_step ||
        (in_step != length && in_step != -length))
      return false;
    // The region's lowest address: the last line's when they run downwards, and a
    // reversed line starts at its highest.
    const std::ptrdiff_t low =
        (in_step < 0 ? static_cast<std::ptrdiff_t>(count - 1) * in_step : 0) - (first.reverse ? length - 1 : 0);
    const auto lines = target == simd_variant::avx512
                           ? (first.reverse ? &extremum_packed_lines_avx512<float, Max, true>
                                            : &extremum_packed_lines_avx512<float, Max, false>)
                           : (first.reverse ? &extremum_packed_lines_avx2<Max, true>
                                            : &extremum_packed_lines_avx2<Max, false>);
    lines(first.in + low, first.out + low, first.n, first.n * count);
    return true;
  }
};

/// cummax / cummin values of double and 32- and 64-bit integers: packed lines and single
/// lines (either direction) as one stream with AVX-512 (extremum_packed_lines_avx512);
/// other targets and types take the engine's loops.
template <class T, bool Max>
struct vector_line<extremum_op<T, Max, false>> {
  static constexpr bool exists = extremum_zmm<T>::exists;
  static bool scan(const line_span<T, T>& l) noexcept {
    const auto length = static_cast<std::ptrdiff_t>(l.n);
    return scan_lines(l, 1, length, length);
  }
  /// Packed lines (in_step == out_step == +-n) of any length, in one call: cummax of 16M
  /// doubles (int32) in lines of 2 to 4096 took 1.9x-4.3x (3.8x-5.8x) the time of a
  /// memcpy in tiles of lines or one line a call.
  static std::size_t shortest_line(bool packed) noexcept {
    return exists && packed && active_target() == simd_variant::avx512 ? 1 : 0;
  }
  static bool scan_lines(const line_span<T, T>& first, std::size_t count, std::ptrdiff_t in_step,
                         std::ptrdiff_t out_step) noexcept {
    if constexpr (exists) {
      const auto length = static_cast<std::ptrdiff_t>(first.n);
      if (active_target() != simd_variant::avx512 || first.n == 0 || first.resets || first.index ||
          in_step != out_step || (in_step != length && in_step != -length))
        return false;
      const std::ptrdiff_t low =  // the region's lowest address (see the float form)
          (in_step < 0 ? static_cast<std::ptrdiff_t>(count - 1) * in_step : 0) - (first.reverse ? length - 1 : 0);
      (first.reverse ? &extremum_packed_lines_avx512<T, Max, true> : &extremum_packed_lines_avx512<T, Max, false>)(
          first.in + low, first.out + low, first.n, first.n * count);
      return true;
    }
    (void)first, (void)count, (void)in_step, (void)out_step;
    return false;
  }
};

/// logcumsumexp of float or double elements.
template <class T, bool Fast>
struct vector_line<logcumsumexp_op<T, Fast>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  /// Scans a whole contiguous line when the CPU has AVX2 (lanes: logsumexp_line_on).
  /// (Compute-bound: plain stores, whatever `stream` says.)
  static bool scan(const line_span<T, T>& l) noexcept {
    if constexpr (exists) {
      return !l.resets && logsumexp_line_on<Fast>(active_target(), l.in, l.out, l.n, l.reverse);
    }
    (void)l;
    return false;
  }
};
template <class T, bool Fast>
struct vector_rows<logcumsumexp_op<T, Fast>> {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static constexpr std::size_t max_lines = logsumexp_tile_capacity;
  /// Short lines go through gathered tiles whatever their length (the engine's
  /// gathers_short_lines): an exp and a log per element cost far more than the transposes.
  static constexpr bool gathers_short_lines = true;
  /// Scans `count` neighbouring lines (unit steps between them), n rows, when the CPU has
  /// AVX2 (lanes: logsumexp_line_on). (Compute-bound: plain stores.)
  static bool scan(const row_tile<T, T>& t) noexcept {
    if constexpr (exists) {
      if (t.resets || t.index || t.count > max_lines) return false;
      return logsumexp_rows_on<Fast>(active_target(), t.in, t.out, t.count, t.rows, t.in_row, t.out_row, t.next_in);
    }
    (void)t;
    return false;
  }
};
#endif

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
