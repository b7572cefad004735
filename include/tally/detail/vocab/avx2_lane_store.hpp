// The narrow rows' AVX2 forms' masks and stores: a row's lane mask for its loads, and a
// store of some of a 32-byte vector's lanes in plain pieces, as VMASKMOVPS / VPMASKMOVD /
// VPMASKMOVQ stores are slow on AMD's cores (padded float32 rows of 3 down axis 0, exact
// mode: 4x memcpy with them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "../kernels/avx2/vectors.hpp"

#if TALLY_X86_SIMD
TALLY_BEGIN_NAMESPACE
namespace detail {
namespace vocab {

TALLY_SIMD_WARNINGS_BEGIN

/// narrow_row_walk::mask as an AVX2 mask: lane i of E (4 or 8 bytes) all ones where bit i
/// is set.
template <class E>
TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE __m256i avx2_row_mask(std::uint32_t bits) {
  static_assert(sizeof(E) == 4 || sizeof(E) == 8, "rows of 4- or 8-byte lanes");
  return sizeof(E) == 4 ? avx2::lanes32::mask(bits) : avx2::lanes32::mask64(bits);
}

/// Stores bytes [from, from + bytes) of a vector where a whole store of it would put them,
/// and nothing else: the vector's lanes moved down by `from` (one VPERMD), then stored in
/// pieces of 16, 8 and 4 bytes (or whole). `from` and `bytes` are multiples of 4, and
/// from + bytes is at most 32. Set once for a tile, so that its branches always go the
/// same way.
struct avx2_lane_store {
  __m256i down;               // lane i takes lane i + from / 4
  std::size_t from, bytes;

  TALLY_TARGET_AVX2 avx2_lane_store(std::size_t from_byte, std::size_t byte_count) noexcept
      : down(_mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                              _mm256_set1_epi32(static_cast<int>(from_byte / 4)))),
        from(from_byte),
        bytes(byte_count) {}

  /// A narrow row of `count` elements E in a vector of `lanes` (narrow_row_walk<E, lanes>,
  /// in the vector's low lanes): the low lanes of the row's vector, or its high ones.
  template <class E>
  TALLY_TARGET_AVX2 static avx2_lane_store of_row(std::size_t count, bool high,
                                                  std::size_t lanes = 32 / sizeof(E)) noexcept {
    return avx2_lane_store((high ? lanes - count : 0) * sizeof(E), count * sizeof(E));
  }

  /// `vector`: where a whole store of v would go.
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void operator()(void* vector, __m256i v) const noexcept {
    auto* p = static_cast<unsigned char*>(vector) + from;
    if (bytes == 32) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
    v = _mm256_permutevar8x32_epi32(v, down);
    __m128i x = _mm256_castsi256_si128(v);
    if (bytes & 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x);
      x = _mm256_extracti128_si256(v, 1);
      p += 16;
    }
    if (bytes & 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(p), x);
      x = _mm_unpackhi_epi64(x, x);
      p += 8;
    }
    if (bytes & 4) {
      const int lane = _mm_cvtsi128_si32(x);
      std::memcpy(p, &lane, 4);
    }
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void operator()(void* vector, __m256 v) const noexcept {
    (*this)(vector, _mm256_castps_si256(v));
  }
  TALLY_TARGET_AVX2 TALLY_ALWAYS_INLINE void operator()(void* vector, __m256d v) const noexcept {
    (*this)(vector, _mm256_castpd_si256(v));
  }
};

TALLY_SIMD_WARNINGS_END

}  // namespace vocab
}  // namespace detail
TALLY_END_NAMESPACE
#endif
