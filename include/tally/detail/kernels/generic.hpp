// The SIMD kernels, written once over a vector vocabulary and compiled for each
// instruction set: this file has no include guard on purpose and is included inside
// namespace detail::<target> (by kernels/<target>/target.hpp) after defining
// TALLY_SIMD_TARGET (that target's function attribute) and the vector structs f32 (float
// and float16), f64, i16 (8- and 16-bit integers), i32, i64, transpose32, transpose64 and
// byte_sums (8-bit sums in the line kernels: native 8-bit lanes, or i16). It defines
// the target's kernel table `kernels<Op, T>`. Vector vocabulary:
//   reg, width, broadcast(a), load(p), store(p, v), stream(p, v), reverse(v),
//   broadcast_last(v), shift_in(v, prev) = [prev[W-1], v[0..W-2]], first(v), last(v),
//   combine<Op>(a, b), scan<Op>(v) (inclusive prefix inside the register). Optional,
//   each found by a trait below: window(lo, hi, s) = lanes [s, s + W) of lo:hi (without
//   it no output is streamed); all_finite(v) / all_moderate(v) (without them float
//   products go one element at a time); nan_to(v, value) = v with NaN lanes replaced
//   (without it nancumsum / nancumprod copy their lines first); and, where the struct
//   declares lane_ops, select(lanes, a, b), step<Op, k>(v, lanes) (one Hillis-Steele
//   step on a lane set), make_index(bytes) and permute(v, index) (without them short
//   lines and narrow columns fall back to plain loops, except that select alone, as
//   NEON has it, scans packed lines of more than half a vector); group_max with scan_groups<Op, n>
//   and shift_in_groups<n> (scans of groups of n lanes inside 128-bit halves, for lines of
//   2, 4, 8 elements, and 16 in 8-bit lanes); minus, next_positions and line_bases
//   (packed integer lines summed as differences of the running sum, for the 8-bit
//   sums' vectors, which have no lane_ops), or plus_above with lanes_up and lanes_down
//   (8-bit lines below 16 summed from shifted loads, in byte_line_sums).

/// The vector for element type T.
template <class T>
using vec_for = std::conditional_t<
    std::is_same_v<T, float> || std::is_same_v<T, half>, f32,
    std::conditional_t<std::is_same_v<T, double>, f64,
                       std::conditional_t<sizeof(T) == 8, i64, std::conditional_t<sizeof(T) == 4, i32, i16>>>>;

/// The vector of narrow rows of float products (scan_narrow_product_rows): the target's
/// narrow_f32 / narrow_f64 (AVX-512: AVX2's 256 bits, see there), vec_for<T> otherwise.
template <class T>
using narrow_rows_vec_for = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, half>, narrow_f32,
                                               std::conditional_t<std::is_same_v<T, double>, narrow_f64, vec_for<T>>>;

/// The vector of the line kernels (lines, their totals, packed lines) for Op over T:
/// vec_for<T>, except that 8-bit sums take the target's byte_sums (AVX2 and NEON: native
/// 8-bit lanes, twice i16's, with the basic vocabulary, select, the differences and, on
/// AVX2, group scans; AVX-512 takes AVX2's, and its own byte_long_sums along lines of two
/// of those vectors and more: wide_byte_lines).
template <class Op, class T>
using line_vec_for = std::conditional_t<sizeof(T) == 1 && is_sum<Op>, byte_sums, vec_for<T>>;

/// Whether V offers the lane vocabulary (select, step over a lane set,
/// make_index/permute): `static constexpr bool lane_ops = true;` in the vector struct.
template <class V, class = void>
inline constexpr bool has_lane_ops = false;
template <class V>
inline constexpr bool has_lane_ops<V, std::void_t<decltype(V::lane_ops)>> = V::lane_ops;

/// Whether the block transpose B converts float16 rows to float and back
/// (block_converted: x86's F16C), which float16 product lines take.
template <class B, class = void>
inline constexpr bool has_half_blocks = false;
template <class B>
inline constexpr bool has_half_blocks<B, std::void_t<decltype(&B::template block_converted<half, float>)>> = true;

/// Whether V offers select(lanes, a, b) (a in the lanes whose bit is set, b elsewhere),
/// all the by-vector scan of packed lines needs.
template <class V, class = void>
inline constexpr bool has_select = false;
template <class V>
inline constexpr bool has_select<V, std::void_t<decltype(sizeof(&V::select))>> = true;

/// Whether V offers window(lo, hi, s) = lanes [s, s + W) of lo:hi, all the streaming
/// writer needs besides stream().
template <class V, class = void>
inline constexpr bool has_window = false;
template <class V>
inline constexpr bool has_window<V, std::void_t<decltype(sizeof(&V::window))>> = true;

/// Writes vectors of T (whole 64-byte ones) with non-temporal stores at any
/// element-aligned address. A non-temporal store must cover one aligned 64-byte line to
/// avoid the read-for-ownership it exists to save; where the vectors sit across lines,
/// each line between two neighbouring vectors (ascending or descending) is assembled in a
/// register (window) and streamed, and only the parts of a run's first and last vector
/// outside those lines are stored plainly. The values written are exactly the vectors'.
/// Narrower vectors store plainly: half-line non-temporal stores measured slower than
/// plain ones on Zen 4 (float16 and 8-bit elements under AVX-512; AVX2's 32-byte vectors
/// assembled at a std::vector's 16-byte offset: 1.3x the time of plain stores).
template <class V, class T>
struct streaming_writer {
  using reg = typename V::reg;
  static constexpr std::size_t W = V::width;
  static constexpr bool usable = has_window<V> && W * sizeof(T) == 64;

  bool enabled;       // false: put() is a plain store
  T* held = nullptr;  // the last vector put, whose lanes [lo, hi) are not written yet
  reg value;
  std::size_t lo = 0, hi = 0;

  /// Streams when `stream` is asked and this vector can (whole 64-byte vectors, lane ops).
  explicit streaming_writer(bool stream) noexcept : enabled(stream && usable) {}

  TALLY_SIMD_TARGET void write_lanes(std::size_t from, std::size_t to) noexcept {
    if (from >= to) return;
    alignas(64) T lanes[W];
    V::store(lanes, value);
    for (std::size_t i = from; i < to; ++i) held[i] = lanes[i];
  }
  TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE void put(T* dst, reg y) noexcept {
    if constexpr (usable) {
      if (enabled) return put_line(dst, y);
    }
    V::store(dst, y);
  }
  TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE void put_line(T* dst, reg y) noexcept {
    const std::size_t s = elements_to_line(dst);
    if (s == 0) {
      flush();
      V::stream(dst, y);
    } else if (held && held + W == dst) {  // ascending: the line is held's [s, W) then y's [0, s)
      V::stream(held + s, V::window(value, y, s));
      write_lanes(lo, (std::min)(hi, s));
      held = dst, value = y, lo = s, hi = W;
    } else if (held && dst + W == held) {  // descending: the line is y's [s, W) then held's [0, s)
      V::stream(dst + s, V::window(y, value, s));
      write_lanes((std::max)(lo, s), hi);
      held = dst, value = y, lo = 0, hi = s;
    } else {
      flush();
      held = dst, value = y, lo = 0, hi = W;
    }
  }
  TALLY_SIMD_TARGET void flush() noexcept {
    if (held) write_lanes(lo, hi);
    held = nullptr;
  }
};

/// Whether V offers all_finite / all_moderate, what the vector loop of floating-point
/// products needs (without them products go one element at a time).
template <class V, class = void>
inline constexpr bool has_magnitude_tests = false;
template <class V>
inline constexpr bool has_magnitude_tests<V, std::void_t<decltype(sizeof(&V::all_moderate))>> = true;

/// Whether running * prefix is exactly what the sequential loop gives although some
/// lane left the moderate range: a running 0 times finite values, or a running inf or
/// NaN times moderate ones (signs included).
template <class V, class A>
TALLY_SIMD_TARGET bool settled_product_exact(A running, typename V::reg prefix) noexcept {
  if (running == 0) return V::all_finite(prefix);
  return !(running - running == 0) && V::all_moderate(prefix);
}

/// Whether V offers nan_to(v, value), what the NaN-skipping line kernel needs.
template <class V, class = void>
inline constexpr bool has_nan_to = false;
template <class V>
inline constexpr bool has_nan_to<V, std::void_t<decltype(sizeof(&V::nan_to))>> = true;

/// x, or Op's empty value (+0 or 1) where x is NaN: an element as nancumsum / nancumprod read it.
template <class Op, class T>
TALLY_SIMD_TARGET T nan_as_empty(T x) noexcept {
  using A = acc_t<T>;
  const A a = to_acc(x);
  return a != a ? from_acc<T>(Op::template empty<A>()) : x;
}

/// Whether V offers scan_down (the suffix scan), broadcast_first and minus: 8-bit sums on
/// x86, where reversing a vector of a line read downwards costs half what scanning it does.
template <class V, class = void>
inline constexpr bool has_scan_down = false;
template <class V>
inline constexpr bool has_scan_down<V, std::void_t<decltype(V::has_scan_down)>> = V::has_scan_down;

/// Whether a line of Op read downwards is scanned with V's scan_down in memory order.
template <class Op, class V, bool Reverse>
inline constexpr bool takes_suffix_scan = Reverse && is_sum<Op> && has_scan_down<V>;

/// One vector of a line of 8-bit sums read downwards (scan_contiguous_dir) or of packed
/// lines (scan_lines_by_vectors), in memory order (a line read downwards runs from its
/// last lane to its first): its in-register prefix combined with the running value
/// `local` (for exclusive, shifted one lane, `prev`'s last lane in front); `local` and
/// `prev` carried on to the line's next vector. With scan_down, a line read downwards
/// takes the suffix scan and no reversal; exclusive is then the inclusive result less the
/// element, exact for the integer sums that have it.
template <class Op, bool Reverse, class V>
TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE typename V::reg line_vector_step(typename V::reg x, typename V::reg& local,
                                                                       typename V::reg& prev, bool exclusive) noexcept {
  using reg = typename V::reg;
  if constexpr (takes_suffix_scan<Op, V, Reverse>) {
    const reg suffix = V::template scan_down<Op>(x);
    const reg inclusive = V::template combine<Op>(local, suffix);
    local = V::template combine<Op>(local, V::broadcast_first(suffix));
    prev = local;  // the last inclusive value, in every lane: all that is read of it later
    return exclusive ? V::minus(inclusive, x) : inclusive;
  } else {
    const reg prefix = V::template scan<Op>(Reverse ? V::reverse(x) : x);
    const reg inclusive = V::template combine<Op>(local, prefix);
    const reg y = exclusive ? V::shift_in(inclusive, prev) : inclusive;
    prev = inclusive, local = V::template combine<Op>(local, V::broadcast_last(prefix));
    return Reverse ? V::reverse(y) : y;
  }
}

/// A contiguous line, the hot loop of every scan along the innermost axis. Per vector:
/// an in-register prefix, plus the broadcast block-local running value, plus the offset
/// of the earlier blocks (see line_state.hpp). The loop-carried chain is a single
/// combine, so the core runs far above memory speed. The (rare) tail that does not fill
/// a vector continues with scalar steps of the same formula. NanAsEmpty (floating-point
/// types only) reads every NaN element as the empty value, +0 or 1, as nancumsum and
/// nancumprod define it: the bits of the same scan over an input so cleaned.
template <class Op, class T, bool Reverse, bool NanAsEmpty = false, class V = line_vec_for<Op, T>>
TALLY_SIMD_TARGET void scan_contiguous_dir(line_state<acc_t<T>>& s, const T* in, T* out, std::size_t n,
                                           bool exclusive, bool stream) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  static_assert(!NanAsEmpty || !std::is_integral_v<T>, "NaN exists in floating-point types only");
  [[maybe_unused]] const reg empty = V::broadcast(Op::template empty<A>());
  if constexpr (sequential_order_v<Op, T>) {
    // Floating-point products: one running value, no blocks (see ops.hpp). Each vector
    // is running * (in-register prefix); a vector whose results leave the range where no
    // overflow, underflow or 0 * inf can hide is redone one element at a time, so inf, 0
    // and NaN appear exactly where the sequential loop puts them.
    A running = Op::combine(s.offset, s.local), last = s.last;
    std::size_t i = 0;
    if constexpr (has_magnitude_tests<V>) {
      using writer_t = streaming_writer<V, T>;
      writer_t writer(stream && n >= 2 * W);
      reg prev = V::broadcast(last);
      reg run = V::broadcast(running);  // the running product in every lane: a short chain
      for (; i + W <= n; i += W) {
        prefetch_stream_ahead(Reverse ? in - i : in + i, Reverse);  // as in the sums' loop below
        reg x = Reverse ? V::reverse(V::load(in - i - (W - 1))) : V::load(in + i);
        if constexpr (NanAsEmpty) x = V::nan_to(x, empty);
        const reg prefix = V::template scan<Op>(x);
        const reg inclusive = V::template combine<Op>(run, prefix);
        if (!V::all_moderate(inclusive) && !settled_product_exact<V>(static_cast<A>(V::first(run)), prefix)) {
          running = static_cast<A>(V::first(run));
          alignas(64) A lanes[W];
          V::store(lanes, x);
          for (std::size_t j = 0; j < W; ++j) lanes[j] = running = Op::combine(running, lanes[j]);
          run = V::broadcast(running);
          const reg sequential = V::load(static_cast<const A*>(lanes));
          const reg y = exclusive ? V::shift_in(sequential, prev) : sequential;
          prev = sequential;
          writer.put(Reverse ? out - i - (W - 1) : out + i, Reverse ? V::reverse(y) : y);
          continue;
        }
        const reg y = exclusive ? V::shift_in(inclusive, prev) : inclusive;
        prev = inclusive;
        // The last lane of `inclusive` in every lane, computed as run * (prefix's last lane):
        // the same product, but the loop-carried chain is one multiply, not a multiply and
        // a lane-crossing permute (with AVX2, 4096 x 4096 products: float64 1.27x, float32 1.05x faster).
        run = V::template combine<Op>(run, V::broadcast_last(prefix));
        writer.put(Reverse ? out - i - (W - 1) : out + i, Reverse ? V::reverse(y) : y);
      }
      writer.flush();
      running = static_cast<A>(V::first(run));
      last = static_cast<A>(V::last(prev));
    }
    line_state<A> rest{running, Op::template identity<A>(), last, 0};
    const std::ptrdiff_t step = Reverse ? -1 : 1;
    const auto done = static_cast<std::ptrdiff_t>(i) * step;
    if constexpr (NanAsEmpty) {  // the tail, under a vector: cleaned into a small buffer first
      static_assert(has_magnitude_tests<V>, "without the vector loop the tail is the whole line");
      T tail[W];
      for (std::size_t k = 0; k < n - i; ++k)
        tail[k] = nan_as_empty<Op>(in[done + step * static_cast<std::ptrdiff_t>(k)]);
      scalar::scan_strided<Op, T>(rest, tail, 1, out + done, step, n - i, exclusive);
    } else if constexpr (std::is_same_v<T, half> && has_magnitude_tests<V>) {
      // float16: the tail, under a vector, through one vector's conversions (F16C), as the
      // vectors above convert. Converted one element at a time in software, a tail of 4
      // took a third of the time of float16 lines of 100 (16M elements, AVX-512).
      if (const std::size_t m = n - i) {
        const std::ptrdiff_t lowest = Reverse ? done - static_cast<std::ptrdiff_t>(m - 1) : done;
        half halves[W] = {};
        alignas(64) float floats[W];
        std::copy(in + lowest, in + lowest + static_cast<std::ptrdiff_t>(m), halves);
        V::store(floats, V::load(static_cast<const half*>(halves)));
        float* first = Reverse ? floats + (m - 1) : floats;
        scalar::scan_strided<Op, float>(rest, first, step, first, step, m, exclusive);
        V::store(halves, V::load(static_cast<const float*>(floats)));
        std::copy(halves, halves + m, out + lowest);
      }
    } else {
      scalar::scan_strided<Op, T>(rest, in + done, step, out + done, step, n - i, exclusive);
    }
    s = rest;
    return;
  }
  constexpr bool exact = std::is_integral_v<T>;  // integers: no blocks needed, order is free
  using writer_t = streaming_writer<V, T>;
  writer_t writer(stream && n >= 2 * W);

  // Integers keep one running value in `local` (the state's value is offset (op) local).
  reg offset = V::broadcast(exact ? Op::template identity<A>() : s.offset);
  reg local = V::broadcast(exact ? Op::combine(s.offset, s.local) : s.local);
  reg prev = V::broadcast(s.last);
  std::size_t position = s.position;
  std::size_t i = 0;
  while (i < n) {
    const std::size_t span = exact ? n - i : (std::min)(n - i, block_elements - position);
    // A float sum's offset is -0.0 throughout a line's first block (all of a line of up to
    // block_elements), and -0.0 + x == x for every x an add gives (a NaN it gives is
    // already quiet), so the add is skipped there: Zen 4 runs a float16 line's vector
    // loop at the speed of its adds (in cache, ns per element, alternated runs: float16
    // lines of 4096 0.213-0.239 -> 0.208-0.224, float32 lines of 1024 0.193-0.217 ->
    // 0.180-0.194; from memory within the day's noise).
    bool offset_is_identity = false;
    if constexpr (is_sum<Op> && !exact) {
      const A off = static_cast<A>(V::first(offset));
      offset_is_identity = off == A(0) && std::signbit(off);
    }
    std::size_t j = 0;
    for (; j + W <= span; j += W) {
      const std::size_t at = i + j;
      T* dst = Reverse ? out - at - (W - 1) : out + at;
      if constexpr (takes_suffix_scan<Op, V, Reverse>) {  // 8-bit sums read downwards: no reversal
        writer.put(dst, line_vector_step<Op, Reverse, V>(V::load(in - at - (W - 1)), local, prev, exclusive));
        continue;
      }
      // With the hardware prefetchers alone, long lines took 1.05-1.55x memcpy's time
      // (16M elements in lines of 4096, AVX-512, one core: float32 1.05x, float64 1.55x,
      // int64 1.47x; with this prefetch 0.72x, 1.15x, 1.13x; 2026-12-07). 8-bit lines
      // read downwards (above) measured slower with it: 1.02-1.07x in most runs, 1.15-1.21x.
      prefetch_stream_ahead(Reverse ? in - at : in + at, Reverse);
      reg x = Reverse ? V::reverse(V::load(in - at - (W - 1))) : V::load(in + at);
      if constexpr (NanAsEmpty) x = V::nan_to(x, empty);
      const reg prefix = V::template scan<Op>(x);
      const reg within = V::template combine<Op>(local, prefix);
      reg inclusive = within;
      if (!exact && !offset_is_identity) inclusive = V::template combine<Op>(offset, within);
      reg y = exclusive ? V::shift_in(inclusive, prev) : inclusive;
      if (Reverse) y = V::reverse(y);
      writer.put(dst, y);
      prev = inclusive;
      local = V::template combine<Op>(local, V::broadcast_last(prefix));  // == last lane of within
    }
    if (j < span) {  // scalar tail: fewer than W elements left in this line or block
      A off = static_cast<A>(V::first(offset)), loc = static_cast<A>(V::first(local));
      A last = static_cast<A>(V::last(prev));
      for (; j < span; ++j) {
        const std::ptrdiff_t at = Reverse ? -static_cast<std::ptrdiff_t>(i + j) : static_cast<std::ptrdiff_t>(i + j);
        T x = in[at];
        if constexpr (NanAsEmpty) x = nan_as_empty<Op>(x);
        loc = Op::combine(loc, to_acc(x));
        const A inclusive = exact ? loc : Op::combine(off, loc);
        out[at] = from_acc<T>(exclusive ? last : inclusive);
        last = inclusive;
      }
      local = V::broadcast(loc);
      prev = V::broadcast(last);
    }
    i += span;
    position += span;
    if (!exact && position == block_elements) {
      offset = V::template combine<Op>(offset, local);
      local = V::broadcast(Op::template identity<A>());
      position = 0;
    }
  }
  writer.flush();
  s.offset = static_cast<A>(V::first(offset));
  s.local = static_cast<A>(V::first(local));
  s.last = static_cast<A>(V::last(prev));
  s.position = exact ? 0 : position;
}

/// Whether the vector offers tree_totals (16 rows' scan totals at once).
template <class V, class = void>
inline constexpr bool has_tree_totals = false;
template <class V>
inline constexpr bool has_tree_totals<V, std::void_t<decltype(V::has_tree_totals)>> = V::has_tree_totals;

/// The block-local total of `n` contiguous elements, computed with exactly the
/// operations scan_contiguous_dir uses for its block-local chain, so that a block's
/// total and the block's last output agree bit for bit (the thread split relies on it).
/// Integers agree in any order, so theirs is the cheapest one.
template <class Op, class T, bool Reverse, class V = line_vec_for<Op, T>>
TALLY_SIMD_TARGET acc_t<T> reduce_contiguous_dir(const T* in, std::size_t n) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  reg local = V::broadcast(Op::template identity<A>());
  A loc = Op::template identity<A>();
  std::size_t j = 0;
  if constexpr (std::is_integral_v<T>) {
    // Integer sums and products are exact (modular), so their order is free: the vectors
    // are combined lane by lane and the lanes folded once (one scan), with no reversal.
    for (; j + W <= n; j += W)
      local = V::template combine<Op>(local, V::load(Reverse ? in - j - (W - 1) : in + j));
    loc = static_cast<A>(V::last(V::template scan<Op>(local)));
  } else {
    if constexpr (has_tree_totals<V> && std::is_same_v<Op, sum_op>) {
      // Sixteen vectors at a time: their tree totals, then the same chain of adds.
      alignas(64) A totals[16];
      for (; j + 16 * W <= n; j += 16 * W) {
        reg rows[16];
        for (std::size_t r = 0; r < 16; ++r) {
          const std::size_t at = j + r * W;
          rows[r] = Reverse ? V::reverse(V::load(in - at - (W - 1))) : V::load(in + at);
        }
        V::store(totals, V::tree_totals(rows));
        for (std::size_t r = 0; r < 16; ++r) loc = Op::combine(loc, totals[r]);
      }
      local = V::broadcast(loc);
    }
    for (; j + W <= n; j += W) {
      const reg x = Reverse ? V::reverse(V::load(in - j - (W - 1))) : V::load(in + j);
      local = V::template combine<Op>(local, V::broadcast_last(V::template scan<Op>(x)));
    }
    loc = static_cast<A>(V::first(local));
  }
  for (; j < n; ++j) loc = Op::combine(loc, to_acc(in[Reverse ? -static_cast<std::ptrdiff_t>(j) : static_cast<std::ptrdiff_t>(j)]));
  return loc;
}

/// 8-bit sums on a target whose byte_long_sums is wider than its byte_sums (AVX-512): a
/// line of two such vectors or more takes them up to its last whole one, then the rest
/// goes on from the line state as before. Integer sums are exact, so the bits do not move.
template <class Op, class T>
inline constexpr bool wide_byte_lines = sizeof(T) == 1 && is_sum<Op> && !std::is_same_v<byte_long_sums, byte_sums>;

/// The elements of an n-element line that wide_byte_lines takes in byte_long_sums (0: none).
inline constexpr std::size_t wide_byte_part(std::size_t n) noexcept {
  return n >= 2 * byte_long_sums::width ? n - n % byte_long_sums::width : 0;
}

template <class Op, class T>
TALLY_SIMD_TARGET acc_t<T> reduce_contiguous(const T* in, bool reverse, std::size_t n) noexcept {
  if constexpr (wide_byte_lines<Op, T>) {
    if (const std::size_t m = wide_byte_part(n)) {
      const acc_t<T> head = reverse ? reduce_contiguous_dir<Op, T, true, byte_long_sums>(in, m)
                                    : reduce_contiguous_dir<Op, T, false, byte_long_sums>(in, m);
      const T* rest = reverse ? in - m : in + m;
      return Op::combine(head, reverse ? reduce_contiguous_dir<Op, T, true>(rest, n - m)
                                       : reduce_contiguous_dir<Op, T, false>(rest, n - m));
    }
  }
  return reverse ? reduce_contiguous_dir<Op, T, true>(in, n) : reduce_contiguous_dir<Op, T, false>(in, n);
}

template <class Op, class T>
TALLY_SIMD_TARGET void scan_contiguous(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse, std::size_t n,
                                       bool exclusive, bool stream) noexcept {
  if constexpr (wide_byte_lines<Op, T>) {
    if (const std::size_t m = wide_byte_part(n)) {
      if (reverse)
        scan_contiguous_dir<Op, T, true, false, byte_long_sums>(s, in, out, m, exclusive, stream);
      else
        scan_contiguous_dir<Op, T, false, false, byte_long_sums>(s, in, out, m, exclusive, stream);
      const auto done = reverse ? -static_cast<std::ptrdiff_t>(m) : static_cast<std::ptrdiff_t>(m);
      in += done, out += done, n -= m;
    }
  }
  if (reverse)
    scan_contiguous_dir<Op, T, true>(s, in, out, n, exclusive, stream);
  else
    scan_contiguous_dir<Op, T, false>(s, in, out, n, exclusive, stream);
}

template <class Op, class T>
TALLY_SIMD_TARGET void scan_contiguous_nan_as_empty(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse,
                                                    std::size_t n, bool exclusive, bool stream) noexcept {
  if (reverse)
    scan_contiguous_dir<Op, T, true, true>(s, in, out, n, exclusive, stream);
  else
    scan_contiguous_dir<Op, T, false, true>(s, in, out, n, exclusive, stream);
}

/// The NaN-skipping line kernel where this target has one: float, double and half, whose
/// products need the vector loop (all_moderate) too.
template <class Op, class T>
constexpr auto nan_as_empty_line() noexcept {
  using V = vec_for<T>;
  using line_fn = decltype(kernel_set<Op, T>::line_nan_as_empty);
  if constexpr (!std::is_integral_v<T> && has_nan_to<V> && (!sequential_order_v<Op, T> || has_magnitude_tests<V>))
    return line_fn{&scan_contiguous_nan_as_empty<Op, T>};
  else
    return line_fn{nullptr};
}

/// At most as many columns as a vector has lanes, rows packed one after the other (row stride =
/// width): the rows are one stream in which out[k] = out[k - width] (op) in[k]. Each vector
/// scans in-register with steps of width, 2 width, 4 width, ... (Kogge-Stone on every
/// column at once), then combines with the previous vector's last value of each column.
/// Each column's result depends only on its data and the vector width, never on threads
/// (the plan never cuts fewer than min_column_tile columns). Descending: the rows go down
/// in memory (row stride -width), and the stream is read from the top row's last element
/// down, so that stream element k is at top - k with the columns in reverse (column j is
/// the stream's width - 1 - j): one descending stream, where a row at a time took 1.7x the
/// increasing time (float32 [1M, 16] along axis 0).
template <class Op, class T, bool Descending>
TALLY_SIMD_TARGET void scan_narrow_columns(const T* in, T* out, std::size_t width, std::size_t rows, acc_t<T>* acc,
                                           bool exclusive, bool starts_are_carries, bool stream) noexcept {
  using V = vec_for<T>;
  using A = acc_t<T>;
  using reg = typename V::reg;
  using lane_index = typename V::lane_index;
  constexpr std::size_t W = V::width;
  const std::size_t total = width * rows;
  const std::uint64_t all = W == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << W) - 1;
  // Stream element k, and the running value of the stream's column c.
  const T* const top_in = Descending ? in + (width - 1) : in;
  T* const top_out = Descending ? out + (width - 1) : out;
  const auto at = [](auto* top, std::size_t k) { return Descending ? top - k : top + k; };
  const auto column = [&](std::size_t c) -> A& { return acc[Descending ? width - 1 - c : c]; };
  std::uint8_t from[W];
  for (std::size_t i = 0; i < W; ++i) from[i] = static_cast<std::uint8_t>(W - width + i % width);
  const lane_index carry_at = V::make_index(from);  // lane i: the previous vector's last value of its column
  lane_index step_at[6];
  std::size_t steps = 0;
  for (std::size_t shift = width; shift < W; shift *= 2, ++steps) {
    for (std::size_t i = 0; i < W; ++i) from[i] = static_cast<std::uint8_t>(i >= shift ? i - shift : i);
    step_at[steps] = V::make_index(from);
  }
  alignas(64) A lanes[W];
  for (std::size_t i = 0; i < W; ++i)
    lanes[i] = i < W - width || !starts_are_carries ? Op::template identity<A>() : column(i - (W - width));
  reg prev = V::load(static_cast<const A*>(lanes));  // a vector whose last row is the starts
  const reg empty = V::broadcast(Op::template empty<A>());
  using writer_t = streaming_writer<V, T>;
  writer_t writer(stream);
  std::size_t k = 0;
  for (; k + W <= total; k += W) {
    prefetch_stream_ahead(at(top_in, k), Descending);
    reg x = Descending ? V::reverse(V::load(top_in - k - (W - 1))) : V::load(in + k);
    std::size_t shift = width;
    for (std::size_t t = 0; t < steps; ++t, shift *= 2)
      x = V::select((all << shift) & all, V::template combine<Op>(V::permute(x, step_at[t]), x), x);
    x = V::template combine<Op>(V::permute(prev, carry_at), x);
    reg y = x;
    if (exclusive) {
      y = V::window(prev, x, W - width);  // lane i: the inclusive value one row up
      if (k == 0 && !starts_are_carries) y = V::select((std::uint64_t{1} << width) - 1, empty, y);
    }
    if constexpr (Descending)
      writer.put(top_out - k - (W - 1), V::reverse(y));
    else
      writer.put(out + k, y);
    prev = x;
  }
  writer.flush();
  if (k > 0) {  // the running row: the last row of the last vector
    V::store(lanes, prev);
    for (std::size_t t = 0; t < width; ++t) column((k - width + t) % width) = lanes[W - width + t];
  }
  for (; k < total; ++k) {
    A& running = column(k % width);
    const A before = running;
    running = Op::combine(before, to_acc(*at(top_in, k)));
    const bool empty_row = k < width && !starts_are_carries;
    *at(top_out, k) = from_acc<T>(exclusive ? (empty_row ? Op::template empty<A>() : before) : running);
  }
}

/// float16 products run in sequence (sequential_order_v): where the vector kernels cannot
/// take them (packed lines, narrow packed rows), a block of them is converted to float
/// with the target's conversions (F16C on x86), scanned by the float loop of the same
/// shape, and converted back: the bits of the plain float16 loops, which convert one
/// element at a time in software (tally_bench, 16M elements, x memcpy: lines of 4 / 16 /
/// 256 98x / 125x / 37x -> 5.9x / 5.4x / 12.6x, rows of 3 53x -> 17x, 2026-12-03). What is
/// left is the sequential float loop itself (a line's products wait on each other;
/// interleaving 8 lines measured slower). A block holds `staged_halves` elements (2 x 8
/// KiB of float, in L1).
inline constexpr std::size_t staged_halves = 2048;

/// `m` float16 elements to float and back, whole vectors with the target's conversions.
template <class V>
TALLY_SIMD_TARGET void halves_to_floats(const half* from, float* to, std::size_t m) noexcept {
  std::size_t i = 0;
  for (; i + V::width <= m; i += V::width) V::store(to + i, V::load(from + i));
  for (; i < m; ++i) to[i] = static_cast<float>(from[i]);
}
template <class V>
TALLY_SIMD_TARGET void floats_to_halves(const float* from, half* to, std::size_t m) noexcept {
  std::size_t i = 0;
  for (; i + V::width <= m; i += V::width) V::store(to + i, V::load(from + i));
  for (; i < m; ++i) to[i] = half(from[i]);
}

/// A row of scan_columns' narrow rows of float products: x's row lanes (the others take
/// the identity) into the running row; the row's output is the running row, or the one
/// before it when exclusive.
template <class Op, class V>
TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE typename V::reg narrow_row_step(typename V::reg x, typename V::reg identity,
                                                                       std::uint64_t row_lanes, typename V::reg& running,
                                                                       typename V::reg& before, bool exclusive) noexcept {
  if constexpr (has_select<V>) x = V::select(row_lanes, x, identity);
  running = V::template combine<Op>(running, x);
  const typename V::reg y = exclusive ? before : running;
  before = running;
  return y;
}

/// Packed rows of floating-point products at most a vector of V wide (scan_columns): `in`
/// and `out` at the first row in scan order, `down` when the rows go down in memory. The
/// running row is one vector, `width` of whose lanes are the columns' running values (the
/// other lanes multiply the identity, so they never pass through subnormals): a row is a
/// load, a blend, a multiply and a store, where the per-column loop this replaced kept the
/// running values in memory, so that each row's multiplies waited on a store and a load.
/// A row's vector starts at the row read upwards, and ends at it read downwards, so that its
/// other lanes lie on rows after it in scan order: a store there is overwritten when those
/// rows come.
///
/// Out of place, the rows go straight from the input to the output, but for the last
/// (W - 1) / width, whose vectors would reach past the call's rows. Those, and every row in
/// place (where a store would land on input not yet read), go in blocks of rows staged in A
/// (float16 converted, see staged_halves; float32 and float64 copied), the lowest row first
/// in each buffer, with W elements to spare either side. Rows of 3, 16M elements, x memcpy
/// (tally_bench, 2026-12-04): float32 3.6x-3.9x -> 1.8x-2.1x, float64 2.3x-3.4x -> 1.1x-1.4x,
/// float16 5.5x-7.4x -> 4.6x-4.8x. What is left is the columns' chain of multiplies, a
/// multiply's latency a row (the exact mode's double chain takes as long: 1.7x-2.0x).
template <class Op, class T, class V>
TALLY_SIMD_TARGET void scan_narrow_product_rows(const T* in, T* out, bool down, std::size_t width, std::size_t rows,
                                                acc_t<T>* acc, bool exclusive, bool starts_are_carries) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  const auto packed = static_cast<std::ptrdiff_t>(width);
  const std::ptrdiff_t step = down ? -packed : packed;
  const std::size_t first_lane = down ? W - width : 0;  // a row's first column's lane
  const std::uint64_t row_lanes = ((std::uint64_t{1} << width) - 1) << first_lane;
  alignas(64) A lanes[W];  // the running row (acc) as a vector
  std::fill(lanes, lanes + W, Op::template identity<A>());
  if (starts_are_carries) std::copy(acc, acc + width, lanes + first_lane);
  const reg identity = V::load(lanes);  // (in the lanes outside a row)
  reg running = identity;
  reg before = starts_are_carries ? running : V::broadcast(Op::template empty<A>());
  const std::size_t elements = rows * width, bytes = elements * sizeof(T);
  const auto lowest_byte = [&](const T* first) {  // of the call's rows
    return reinterpret_cast<std::uintptr_t>(down ? first - (elements - width) : first);
  };
  const std::uintptr_t in_first = lowest_byte(in), out_first = lowest_byte(out);
  std::size_t k = 0;
  if (elements >= W && (in_first + bytes <= out_first || out_first + bytes <= in_first)) {
    const std::size_t straight = rows - (W - 1) / width;
    const T* x = in - first_lane;
    T* y = out - first_lane;
    for (; k < straight; ++k, x += step, y += step) {
      prefetch_stream_ahead(x, down);
      V::store(y, narrow_row_step<Op, V>(V::load(x), identity, row_lanes, running, before, exclusive));
    }
  }
  if (k < rows) {
    constexpr std::size_t staged = staged_halves * sizeof(float) / sizeof(A);  // 8 KiB
    alignas(64) A x_buffer[W + staged + W], y_buffer[W + staged + W];
    A* const x = x_buffer + W;
    A* const y = y_buffer + W;
    std::fill(x_buffer, x, A(0));
    const std::size_t block = staged / width;
    for (; k < rows; k += block) {
      const std::size_t r = (std::min)(block, rows - k), m = r * width;
      const std::ptrdiff_t lowest = static_cast<std::ptrdiff_t>(down ? k + r - 1 : k) * step;
      if constexpr (std::is_same_v<T, half>)
        halves_to_floats<V>(in + lowest, x, m);
      else
        std::memcpy(static_cast<void*>(x), in + lowest, m * sizeof(T));
      std::fill(x + m, x + m + W, A(0));
      std::ptrdiff_t at = static_cast<std::ptrdiff_t>(down ? (r - 1) * width : 0) - static_cast<std::ptrdiff_t>(first_lane);
      for (std::size_t i = 0; i < r; ++i, at += step)
        V::store(y + at, narrow_row_step<Op, V>(V::load(x + at), identity, row_lanes, running, before, exclusive));
      if constexpr (std::is_same_v<T, half>)
        floats_to_halves<V>(y, out + lowest, m);
      else
        std::memcpy(static_cast<void*>(out + lowest), y, m * sizeof(T));
    }
  }
  V::store(lanes, running);
  std::copy(lanes + first_lane, lanes + first_lane + width, acc);
}

/// Rows wider than a vector of V and at most two (scan_columns; `step` apart in both
/// operands): the running row in two vectors, the first on the row's first W columns and
/// the second on its last W, which overlap where the row is narrower than two vectors. Each
/// lane runs its column's chain, so a column in both gets the same bits in both, and both
/// stores write them. Every load and store lies within its row, so the rows go straight
/// from the input to the output, in place too, where the general row loop keeps the running
/// row in memory. Floating-point products, whose chain is a multiply a row, took the
/// general loop with a scalar tail (16M elements, x memcpy, a scratch program: float64 rows
/// of 7 with AVX2 1.7x -> 1.1x, float32 rows of 12 2.1x -> 1.3x; with AVX-512 float32 rows
/// of 31 2.3x -> 1.2x, float64 rows of 12 1.55x -> 1.2x). The other operators take it on
/// packed rows, where the general loop keeps the running row in memory, and stores the
/// ends of a row that is no multiple of W twice (the same program, AVX-512 sums, fast mode:
/// float32 rows of 17 2.3x-2.6x -> 1.2x, of 20 1.7x-2.1x -> 1.1x-1.2x, of 31 1.5x ->
/// 1.05x-1.1x; float64 rows of 12 1.8x -> 1.2x) or streams rows of exactly two vectors
/// (float32 rows of 32 1.45x-1.7x -> 1.1x-1.2x; float64 rows of 16 1.4x-1.5x -> 1.05x-1.1x).
/// Packed rows of three or four vectors (N), whole or not, keep it in N vectors too: the
/// general loop's running row in memory waits on a store-to-load forward a row (AVX-512
/// fast float64 sums down rows of 20 to 32 in L2: 0.65 -> 0.3 ns an element; from memory,
/// rows of 20 1.85x -> 1.5x memcpy; AVX2 float64 rows of 12 and 16 in L2 0.74 -> 0.31 ns).
/// Streamed: packed rows of exactly N vectors, one stream of whole vectors for the writer
/// (the last vector first when the rows go down in memory); a separate loop, since the
/// writer's branches in the plain one slowed float32 products down rows of 24 from
/// 1.4-1.55x memcpy to 1.7-1.9x.
template <class Op, class T, class V, bool Streamed, std::size_t N = 2>
TALLY_SIMD_TARGET void scan_register_rows(const T* in, T* out, std::ptrdiff_t step, std::size_t width,
                                          std::size_t rows, acc_t<T>* acc, bool exclusive,
                                          bool starts_are_carries) noexcept {
  static_assert(N >= 2 && N <= 4);
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  // Vector i's first column: i * W, but the last's, which ends the row. Named registers,
  // not arrays: GCC kept an array of running values in memory.
  const std::size_t at1 = N == 2 ? width - W : W, at2 = N == 3 ? width - W : 2 * W, at3 = width - W;
  const bool descending = step < 0;
  streaming_writer<V, T> writer(Streamed);
  const reg empty = V::broadcast(Op::template empty<A>());
  const reg identity = V::broadcast(Op::template identity<A>());
  reg r0 = identity, r1 = identity, r2 = identity, r3 = identity;
  if (starts_are_carries) {
    r0 = V::load(acc);
    r1 = V::load(acc + at1);
    if constexpr (N > 2) r2 = V::load(acc + at2);
    if constexpr (N > 3) r3 = V::load(acc + at3);
  }
  reg b0 = starts_are_carries ? r0 : empty, b1 = starts_are_carries ? r1 : empty;
  reg b2 = starts_are_carries ? r2 : empty, b3 = starts_are_carries ? r3 : empty;
  for (std::size_t k = 0; k < rows; ++k, in += step, out += step) {
    prefetch_stream_ahead(in, descending);
    r0 = V::template combine<Op>(r0, V::load(in));
    r1 = V::template combine<Op>(r1, V::load(in + at1));
    if constexpr (N > 2) r2 = V::template combine<Op>(r2, V::load(in + at2));
    if constexpr (N > 3) r3 = V::template combine<Op>(r3, V::load(in + at3));
    const reg y0 = exclusive ? b0 : r0, y1 = exclusive ? b1 : r1, y2 = exclusive ? b2 : r2, y3 = exclusive ? b3 : r3;
    if constexpr (Streamed) {
      if (descending) {
        if constexpr (N > 3) writer.put(out + at3, y3);
        if constexpr (N > 2) writer.put(out + at2, y2);
        writer.put(out + at1, y1);
        writer.put(out, y0);
      } else {
        writer.put(out, y0);
        writer.put(out + at1, y1);
        if constexpr (N > 2) writer.put(out + at2, y2);
        if constexpr (N > 3) writer.put(out + at3, y3);
      }
    } else {
      V::store(out, y0);
      V::store(out + at1, y1);
      if constexpr (N > 2) V::store(out + at2, y2);
      if constexpr (N > 3) V::store(out + at3, y3);
    }
    b0 = r0, b1 = r1, b2 = r2, b3 = r3;
  }
  writer.flush();
  // Highest first: where the last vector overlaps, the lower ones hold the same bits.
  if constexpr (N > 3) V::store(acc + at3, r3);
  if constexpr (N > 2) V::store(acc + at2, r2);
  V::store(acc + at1, r1);
  V::store(acc, r0);
}

/// Rows ahead that scan_columns prefetches its input.
inline constexpr std::size_t column_prefetch_rows = 4;

/// Rows of running values (the axis is outer, columns contiguous): full-width vertical
/// combines, one row after the other, so each column keeps the sequential order. Streams
/// only what its loops can hand the writer as neighbouring whole vectors; scan_columns
/// below stages the rest.
template <class Op, class T>
TALLY_SIMD_TARGET void scan_columns_direct(const T* in, std::ptrdiff_t in_row_stride, T* out,
                                           std::ptrdiff_t out_row_stride, std::size_t width, std::size_t rows,
                                           acc_t<T>* acc, bool exclusive, bool starts_are_carries, bool stream,
                                           const T* next_in) noexcept {
  using V = vec_for<T>;
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  // Rows one after the other in both operands (upwards, or downwards: a decreasing axis).
  const auto packed = static_cast<std::ptrdiff_t>(width);
  const bool packed_rows = in_row_stride == out_row_stride && (in_row_stride == packed || in_row_stride == -packed);
  if constexpr (sequential_order_v<Op, T>) {
    // Packed rows of floating-point products at most a vector wide keep the running row
    // in one register.
    if (width <= W && packed_rows) {
      using N = narrow_rows_vec_for<T>;
      if (width <= N::width)
        scan_narrow_product_rows<Op, T, N>(in, out, in_row_stride < 0, width, rows, acc, exclusive, starts_are_carries);
      else
        scan_narrow_product_rows<Op, T, V>(in, out, in_row_stride < 0, width, rows, acc, exclusive, starts_are_carries);
      return;
    }
  }
  // Rows of one to two vectors keep it in two: floating-point products at any stride, the
  // others packed (its prefetch runs along the stream) and no multiple of W, or of exactly
  // two 64-byte vectors (measured against the general loop streaming them). Two 32-byte
  // vectors, a cache line a row, the general loop streams faster: fast float64 sums down
  // rows of 8 with AVX2, 0.95x memcpy there and 1.15x here.
  constexpr bool line_vectors = sizeof(reg) == 64;
  if (width > W && width <= 2 * W && in_row_stride == out_row_stride &&
      (sequential_order_v<Op, T> || (packed_rows && (width % W != 0 || line_vectors)))) {
    if (stream && packed_rows && width == 2 * W && streaming_writer<V, T>::usable)
      return scan_register_rows<Op, T, V, true>(in, out, in_row_stride, width, rows, acc, exclusive,
                                                starts_are_carries);
    return scan_register_rows<Op, T, V, false>(in, out, in_row_stride, width, rows, acc, exclusive,
                                               starts_are_carries);
  }
  // Packed rows of three or four vectors keep it in as many (every operator).
  if (width > 2 * W && width <= 4 * W && packed_rows) {
    const bool streamed = stream && width % W == 0 && streaming_writer<V, T>::usable;
    if (width <= 3 * W)
      return streamed ? scan_register_rows<Op, T, V, true, 3>(in, out, in_row_stride, width, rows, acc, exclusive,
                                                              starts_are_carries)
                      : scan_register_rows<Op, T, V, false, 3>(in, out, in_row_stride, width, rows, acc, exclusive,
                                                               starts_are_carries);
    return streamed ? scan_register_rows<Op, T, V, true, 4>(in, out, in_row_stride, width, rows, acc, exclusive,
                                                            starts_are_carries)
                    : scan_register_rows<Op, T, V, false, 4>(in, out, in_row_stride, width, rows, acc, exclusive,
                                                             starts_are_carries);
  }
  if constexpr (has_lane_ops<V> && !sequential_order_v<Op, T>) {  // (products of floats: ops.hpp)
    if (width <= W && packed_rows && rows * width >= W) {
      if (in_row_stride == packed)
        return scan_narrow_columns<Op, T, false>(in, out, width, rows, acc, exclusive, starts_are_carries, stream);
      return scan_narrow_columns<Op, T, true>(in, out, width, rows, acc, exclusive, starts_are_carries, stream);
    }
  }
  // Packed rows of whole vectors are one stream for the writer (rows do not flush it).
  const bool one_stream = (out_row_stride == static_cast<std::ptrdiff_t>(width) ||
                           out_row_stride == -static_cast<std::ptrdiff_t>(width)) && width % W == 0;
  // Rows not a multiple of W are not streamed: their last vector's plain store lands on
  // lines the writer streams, and flushes them half written (float64 rows of 20: 1.4x
  // memcpy with plain stores, 6x-7x streamed).
  // Packed rows of up to 8 64-byte vectors were stored plainly until 2026-12-07, when
  // they measured slower so than streamed with their input prefetched along the stream
  // (below; fast sums, AVX-512, 16M elements, x memcpy, plain / streamed: float64 rows of
  // 24, 32, 64 2.0-2.3 / 1.2-1.6; float32 rows of 48, 64, 128 1.3-1.5 / 0.7-0.9).
  using writer_t = streaming_writer<V, T>;
  writer_t writer(stream && width % W == 0 && (one_stream ? rows * width >= 2 * W : width >= 2 * W));
  const reg empty = V::broadcast(Op::template empty<A>());
  const reg identity = V::broadcast(Op::template identity<A>());
  // Rows that go down in memory (a decreasing axis) are walked right to left, so the
  // whole scan reads and writes one descending stream that the prefetchers follow; the
  // columns are independent, so their order changes nothing.
  const bool descending = in_row_stride < 0;
  const std::size_t vectors = width / W * W;  // columns [0, vectors) go by whole vectors
  // A row wider than a vector but not a multiple of it (here: wider than two, or strided)
  // ends on a vector over its last W columns, which overlaps the last whole one: each lane
  // runs its column's chain, so the overlapping columns get the same bits in both. Its
  // running values stay in a register (last_running), stored to acc at the end. It loads
  // before the whole vectors store (in place, they overwrite its input) and stores after
  // them. The scalar columns it replaced kept float32 rows of 31 / 100 at 2.2x / 2.6x
  // memcpy, float64 rows of 31 at 4.1x.
  const bool last_vector = vectors >= W && vectors < width;
  const std::size_t last = width - W;  // its first column
  reg last_running = last_vector && starts_are_carries ? V::load(acc + last) : identity;
  const bool prefetch_rows = rows_worth_prefetching<T>(width, in_row_stride, column_prefetch_rows);
  const bool packed_in = in_row_stride == packed || in_row_stride == -packed;
  for (std::size_t k = 0; k < rows; ++k) {
    const T* row_in = in + static_cast<std::ptrdiff_t>(k) * in_row_stride;
    T* row_out = out + static_cast<std::ptrdiff_t>(k) * out_row_stride;
    const bool first_row = k == 0 && !starts_are_carries;  // acc not read: the identity
    const bool empty_row = exclusive && first_row;
    const reg last_before = last_running;
    if (last_vector) last_running = V::template combine<Op>(last_running, V::load(row_in + last));
    // Descending: the scalar columns at the right end first, then the vectors right to left.
    for (int part = 0; part < 2; ++part) {
      if ((part == 0) == descending) {
        if (last_vector) continue;
        for (std::size_t t = 0; t < width - vectors; ++t) {
          const std::size_t j = descending ? width - 1 - t : vectors + t;
          const A x = to_acc(row_in[j]);
          const A before = first_row ? Op::template identity<A>() : acc[j];
          acc[j] = Op::combine(before, x);
          row_out[j] = from_acc<T>(exclusive ? (empty_row ? Op::template empty<A>() : before) : acc[j]);
        }
      } else {
        // The row `column_prefetch_rows` ahead (one row is less than a memory latency),
        // past this call's rows the next call's (next_in): [4, 4M] along axis 0 took 2.4x
        // memcpy when it prefetched past the tensor, 1.4x so.
        const std::uintptr_t ahead =
            prefetch_rows ? row_to_prefetch(in, k, rows, in_row_stride, column_prefetch_rows, next_in) : 0;
        if (vectors > 0) prefetch_in_row<T>(ahead, width - 1);  // its last line
        for (std::size_t v = 0; v < vectors; v += W) {
          const std::size_t j = descending ? vectors - W - v : v;
          prefetch_in_row<T>(ahead, j);
          // Packed rows the row prefetch leaves to the hardware: along the stream instead.
          if (packed_in && !prefetch_rows) prefetch_stream_ahead(row_in + j, descending);
          const reg before = first_row ? identity : V::load(acc + j);
          const reg after = V::template combine<Op>(before, V::load(row_in + j));
          const reg y = exclusive ? (empty_row ? empty : before) : after;
          writer.put(row_out + j, y);
          V::store(acc + j, after);
        }
      }
    }
    if (last_vector) V::store(row_out + last, exclusive ? (empty_row ? empty : last_before) : last_running);
    if (!one_stream) writer.flush();
  }
  writer.flush();
  if (last_vector && rows > 0) V::store(acc + last, last_running);
}

/// Packed rows (both operands, upwards or downwards) wider than a vector but no multiple of
/// it, with a streamed output: scan_columns_direct writes blocks of rows (or, for rows
/// wider than the block, pieces of one row) into an L1 buffer, contiguous with what is
/// still pending from the block before, and the writer streams the buffer's whole vectors
/// to the output, which is one stream of neighbouring vectors. Fewer than W elements stay
/// pending to the next block; the last are stored plainly. Stored directly, such rows end
/// on a vector that overlaps the last whole one, so they cannot be streamed (their plain
/// stores land in lines the writer has streamed) and pay a read for ownership instead:
/// 1.9x-2.4x memcpy for float64 rows of 12 to 500 with AVX-512 (2026-12-07).
template <class Op, class T>
TALLY_SIMD_TARGET void scan_columns_staged(const T* in, std::ptrdiff_t row_stride, T* out, std::size_t width,
                                           std::size_t rows, acc_t<T>* acc, bool exclusive, bool starts_are_carries,
                                           const T* next_in) noexcept {
  using V = vec_for<T>;
  constexpr std::size_t W = V::width;
  constexpr std::size_t capacity = 8192 / sizeof(T);  // 8 KiB of T; a multiple of W
  alignas(64) T buffer[capacity];
  const bool descending = row_stride < 0;
  // Rows per block; rows wider than a block go one row a block in pieces of `piece` columns
  // (right to left when descending, so that the output stays one descending stream).
  const bool pieces = width > capacity - W;
  const std::size_t block_rows = pieces ? 1 : (capacity - W) / width;
  const std::size_t piece = pieces ? capacity - 2 * W : width;
  streaming_writer<V, T> writer(true);
  // Ascending, buffer[0, pending) is the output from `edge` up; descending, the last
  // `pending` elements of the buffer are the output below `edge`.
  T* edge = descending ? out + width : out;
  std::size_t pending = 0;
  // One block of rows, or one piece of a row, a pass: written after what is pending, then
  // streamed but for the last part vector.
  for (std::size_t k = 0, done = 0; k < rows;) {
    const std::size_t r = (std::min)(block_rows, rows - k);
    const std::size_t n = (std::min)(piece, width - done);  // columns
    const std::size_t column = descending ? width - done - n : done;
    const T* block_in = in + static_cast<std::ptrdiff_t>(k) * row_stride;
    const T* next = k + r < rows ? block_in + static_cast<std::ptrdiff_t>(r) * row_stride : next_in;
    if (next) next += column;
    // The block's first row at the buffer's lowest free element upwards, or its highest.
    T* const to = descending ? buffer + capacity - pending - n : buffer + pending;
    scan_columns_direct<Op, T>(block_in + column, row_stride, to, row_stride, n, r, acc + column, exclusive,
                               starts_are_carries || k > 0, false, next);
    const std::size_t available = pending + r * n, whole = available / W * W;
    pending = available - whole;
    if (descending) {
      for (std::size_t i = W; i <= whole; i += W) writer.put(edge - i, V::load(buffer + capacity - i));
      edge -= whole;
      std::memmove(buffer + capacity - pending, buffer + capacity - available, pending * sizeof(T));
    } else {
      for (std::size_t i = 0; i < whole; i += W) writer.put(edge + i, V::load(buffer + i));
      edge += whole;
      std::memmove(buffer, buffer + whole, pending * sizeof(T));
    }
    done += n;
    if (done == width) k += r, done = 0;
  }
  writer.flush();
  if (descending)
    std::memcpy(static_cast<void*>(edge - pending), buffer + capacity - pending, pending * sizeof(T));
  else
    std::memcpy(static_cast<void*>(edge), buffer, pending * sizeof(T));
}

/// Rows of running values: see scan_columns_direct and scan_columns_staged.
template <class Op, class T>
TALLY_SIMD_TARGET void scan_columns(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                                    std::size_t width, std::size_t rows, acc_t<T>* acc, bool exclusive,
                                    bool starts_are_carries, bool stream, const T* next_in) noexcept {
  using V = vec_for<T>;
  constexpr std::size_t W = V::width;
  if constexpr (streaming_writer<V, T>::usable) {
    const auto packed = static_cast<std::ptrdiff_t>(width);
    if (stream && width > W && width % W != 0 && in_row_stride == out_row_stride &&
        (in_row_stride == packed || in_row_stride == -packed))
      return scan_columns_staged<Op, T>(in, in_row_stride, out, width, rows, acc, exclusive, starts_are_carries,
                                        next_in);
  }
  scan_columns_direct<Op, T>(in, in_row_stride, out, out_row_stride, width, rows, acc, exclusive, starts_are_carries,
                             stream, next_in);
}

/// Copies a tile (element (a, b) at tile[a * pitch + b]) to out[a * stride_a + b * stride_b].
/// When the output runs along a (stride_a == 1) and the elements are 4 or 8 bytes, square
/// blocks are transposed in registers and written as whole vectors (non-temporal when the
/// output is large); anything else goes element by element.
template <class T>
TALLY_SIMD_TARGET void scatter_tile(const T* tile, std::size_t n_a, std::size_t n_b, std::size_t pitch, T* out,
                                    std::ptrdiff_t stride_a, std::ptrdiff_t stride_b, bool stream) noexcept {
  if constexpr (sizeof(T) == 4) {
    constexpr std::size_t W = transpose32::width;
    using V = vec_for<T>;
    using writer_t = streaming_writer<V, T>;
    constexpr std::size_t staged_a = 64;  // the most elements along a that a staged row holds
    if constexpr (writer_t::usable && V::width == W) {
      // A large output not aligned to whole lines (a std::vector's): each run of n_a
      // elements of an output row is transposed into an L1 row first, then streamed at
      // any alignment by the writer, which assembles whole lines (only a run's two end
      // lines are stored plainly).
      const bool lines_aligned = reinterpret_cast<std::uintptr_t>(out) % (W * 4) == 0 &&
                                 (stride_b * 4) % static_cast<std::ptrdiff_t>(W * 4) == 0;
      if (stream && !lines_aligned && stride_a == 1 && n_a % W == 0 && n_a >= 2 * W && n_a <= staged_a &&
          n_b >= W) {
        alignas(64) T rows[W * staged_a];  // W output rows of n_a elements
        std::size_t b = 0;
        for (; b + W <= n_b; b += W) {
          for (std::size_t a = 0; a < n_a; a += W)
            transpose32::block(tile + a * pitch + b, pitch, rows + a, static_cast<std::ptrdiff_t>(n_a), false);
          for (std::size_t r = 0; r < W; ++r) {
            T* dst = out + static_cast<std::ptrdiff_t>(b + r) * stride_b;
            writer_t writer(true);
            for (std::size_t a = 0; a < n_a; a += W) writer.put(dst + a, V::load(rows + r * n_a + a));
            writer.flush();
          }
        }
        if (b < n_b)
          scalar::scatter_tile(tile + b, n_a, n_b - b, pitch, out + static_cast<std::ptrdiff_t>(b) * stride_b,
                               stride_a, stride_b);
        return;
      }
    }
  }
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using block_t = std::conditional_t<sizeof(T) == 4, transpose32, transpose64>;
    constexpr std::size_t W = block_t::width;
    if (stride_a == 1 && n_a % W == 0 && n_b >= W) {
      stream = stream && reinterpret_cast<std::uintptr_t>(out) % (W * sizeof(T)) == 0 &&
               (stride_b * static_cast<std::ptrdiff_t>(sizeof(T))) % static_cast<std::ptrdiff_t>(W * sizeof(T)) == 0;
      std::size_t b = 0;
      for (; b + W <= n_b; b += W)
        for (std::size_t a = 0; a < n_a; a += W)
          block_t::block(tile + a * pitch + b, pitch, out + static_cast<std::ptrdiff_t>(a) +
                                                          static_cast<std::ptrdiff_t>(b) * stride_b,
                         stride_b, stream);
      if (b < n_b)
        scalar::scatter_tile(tile + b, n_a, n_b - b, pitch, out + static_cast<std::ptrdiff_t>(b) * stride_b, stride_a,
                             stride_b);
      return;
    }
  }
  scalar::scatter_tile(tile, n_a, n_b, pitch, out, stride_a, stride_b);
}

/// Packed lines longer than a vector (W < n <= short_line_max; lines of exactly W go one
/// line a vector, scan_lines_in_vectors), as the line kernel scans them (in-register
/// prefix, then the running value), but with no call, no block bookkeeping and no scalar
/// tail per line. Lines of whole vectors are one run of vectors; in other lines the last
/// r = n % W elements are scanned in the vector that ends the line (scan positions
/// [n - W, n)), its first W - r lanes, scanned already, read as the identity. Those lanes
/// come out wrong, so that vector is stored before the line's last whole vector, which
/// rewrites them (in place too: the lanes read twice are the ones the identity replaces).
template <class Op, class T, bool Reverse, class V>
TALLY_SIMD_TARGET void scan_lines_by_vectors(const T* in, T* out, std::size_t n, std::size_t count, bool exclusive,
                                             bool stream) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  const std::size_t r = n % W, whole = n - r;
  const reg identity = V::broadcast(Op::template identity<A>());
  const reg empty = V::broadcast(Op::template empty<A>());
  if (r == 0) {
    // Lines of whole vectors (two or more: lines of one go one line a vector): one loop over
    // the run of vectors back to back, the running value and the previous vector reset
    // where a line starts, the next vector loaded before this one is scanned (16M elements,
    // AVX-512, x memcpy, four alternated runs, against a loop per line: float32 lines of 64
    // decreasing 1.22-1.73 -> 1.01-1.20, int32 lines of 32 decreasing 1.09-1.14 ->
    // 0.94-1.00, float64 lines of 24 1.12-1.27 -> 0.84-1.05). The run streams (float32
    // [1M, 16] with AVX-512, when such lines came here: 1.35x memcpy stored plainly, 0.92x
    // streamed).
    if (count == 0) return;
    streaming_writer<V, T> writer(stream);
    const std::size_t per_line = n / W, vectors = count * per_line;
    reg local = identity, prev = empty;
    std::size_t k = 0;  // the vector's place in its line
    const auto at_of = [&](std::size_t v) { return Reverse ? (vectors - 1 - v) * W : v * W; };
    reg x = V::load(in + at_of(0));
    for (std::size_t v = 0; v < vectors; ++v) {
      const std::size_t at = at_of(v);
      prefetch_stream_ahead(in + at, Reverse);
      const reg next = v + 1 < vectors ? V::load(in + at_of(v + 1)) : x;
      const reg y = line_vector_step<Op, Reverse, V>(x, local, prev, exclusive);
      x = next;
      writer.put(out + at, y);
      if (++k == per_line) k = 0, local = identity, prev = empty;
    }
    return writer.flush();
  }
  // Lines with a partial last vector, one at a time. They store plainly: the partial
  // vector's plain store would fall between streamed ones.
  // The vector of scan positions [k, k + W) of a line starts at element k, or at n - k - W
  // reversed.
  // Lines read downwards go last first: one descending stream for the prefetchers, where
  // lines taken upwards took 4x longer (float16 [64K, 256]).
  // The lanes of the line's last r elements in memory order: the first r read downwards.
  const std::uint64_t all = W == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << W) - 1;
  const std::uint64_t tail_lanes = Reverse ? (std::uint64_t{1} << r) - 1 : all & ~((std::uint64_t{1} << (W - r)) - 1);
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t line = Reverse ? count - 1 - j : j;
    const T* src = in + line * n;
    T* dst = out + line * n;
    reg local = identity, prev = empty, last_whole = empty;
    for (std::size_t k = 0; k < whole; k += W) {
      const std::size_t at = Reverse ? n - k - W : k;
      // Float32 lines of 17 with AVX2: 1.3x memcpy without this prefetch, 1.15x with.
      prefetch_stream_ahead(src + at, Reverse);
      const reg y = line_vector_step<Op, Reverse, V>(V::load(src + at), local, prev, exclusive);
      if (k + W < whole)
        V::store(dst + at, y);
      else
        last_whole = y;
    }
    const std::size_t at = Reverse ? 0 : n - W;
    V::store(dst + at, line_vector_step<Op, Reverse, V>(V::select(tail_lanes, V::load(src + at), identity), local, prev,
                                                        exclusive));
    V::store(dst + (Reverse ? r : whole - W), last_whole);
  }
}

/// The lines at a region's end that a whole vector would reach past, up to `k` at a time
/// (lines first to first + k of `count`) staged in a vector on the stack: the lines at its
/// scan-order start, the lanes past them zero. The caller scans `lanes` with the
/// in-register scan that the lines before took, so a line's bits are those of every other
/// line of its length, whatever lines share its call (a tile, a thread's share, a staged
/// piece): the plain loop that took these lines before folded them in sequence, other
/// bits than the vector's.
template <class T, std::size_t W>
struct staged_lines {
  alignas(64) T lanes[W] = {};
  std::size_t at, elements, first_lane;
  staged_lines(const T* in, std::size_t n, std::size_t first, std::size_t count, std::size_t k, bool reverse) noexcept
      : at(first * n), elements((std::min)(k, count - first) * n), first_lane(reverse ? W - elements : 0) {
    std::copy(in + at, in + at + elements, lanes + first_lane);
  }
  void write(T* out) const noexcept { std::copy(lanes + first_lane, lanes + first_lane + elements, out + at); }
};

/// Packed lines shorter than a vector, as many whole lines a vector as fit (k = W / n;
/// one line a vector above W / 2): each vector starts on a line start, so every vector has
/// its lanes at the same places in their lines and the masks of the segmented steps are
/// made once per call. One line a vector takes the plain in-register scan. The lanes past
/// the k lines (fewer than n: the next vector's first line's) come out wrong and are
/// written again by the next vector's store, later in the loop; the next vector is loaded
/// before this one is stored, so in place works too, and the last vector stores its own
/// lanes only. Lines whose vector would reach outside the region go through staged_lines.
/// This replaced one stream of vectors scanned with masks made for each vector from where
/// lines start (on AVX2 each mask built from lane bits with compares): 16M elements in
/// lines of n with AVX2, x memcpy, float32 n = 3 1.5 -> 0.7, n = 7 1.9 -> 1.15; int16 n =
/// 3..6 (which took differences of the running sum) 2.3-2.8 -> 1.1-1.5.
template <class Op, class T, bool Reverse, bool OneLine, class V>
TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE typename V::reg scan_lines_in_vector(typename V::reg x, std::size_t n,
                                                                          const std::uint64_t* steps,
                                                                          std::uint64_t starts, bool exclusive,
                                                                          typename V::reg empty) noexcept {
  if constexpr (OneLine && takes_suffix_scan<Op, V, Reverse>) {
    // The line sits in the vector's last lanes in memory order: its suffix scan, with no
    // reversal in and out. Exclusive: less the element itself, exact for the integer sums
    // that have scan_down (8-bit sums, AVX2 and AVX-512).
    const typename V::reg y = V::template scan_down<Op>(x);
    return exclusive ? V::minus(y, x) : y;
  }
  if (Reverse) x = V::reverse(x);
  if constexpr (OneLine) {
    static_assert(!sequential_order_v<Op, T>, "products of floats keep their sequence");
    x = V::template scan<Op>(x);
    if (exclusive) x = V::shift_in(x, empty);
  } else if constexpr (sequential_order_v<Op, T>) {
    // Products of floats in sequence (ops.hpp): one lane a step, each line's lane s taking
    // lane s - 1's finished product, so every lane's bits are the plain loop's (NaN
    // payloads aside: a product of two NaNs is either, as the compiler orders operands).
    for (std::size_t s = 1; s < n; ++s) x = V::template step<Op, 1>(x, starts << s);
    if (exclusive) x = V::select(starts, empty, V::shift_in(x, empty));
  } else {
    if (n > 1) x = V::template step<Op, 1>(x, steps[0]);
    if (n > 2) x = V::template step<Op, 2>(x, steps[1]);
    if constexpr (V::width > 4)
      if (n > 4) x = V::template step<Op, 4>(x, steps[2]);
    if constexpr (V::width > 8)
      if (n > 8) x = V::template step<Op, 8>(x, steps[3]);
    if constexpr (V::width > 16)
      if (n > 16) x = V::template step<Op, 16>(x, steps[4]);
    if (exclusive) x = V::select(starts, empty, V::shift_in(x, empty));
  }
  return Reverse ? V::reverse(x) : x;
}

/// The masks of scan_lines_in_vector for lines of n lanes in a vector of W, made at compile
/// time: lane i is at i % n in its line, so it combines with the lane 2^s below where i % n
/// is 2^s or more (steps[s]), and starts a line where it is 0 (starts). Made per call by
/// doubling, they cost a call on 8 lines of 8 floats 3.5 of its 38 ns (AVX-512).
template <std::size_t W>
struct lane_masks {
  struct line {
    std::uint64_t steps[5] = {}, starts = 0;
  } lines[W / 2 + 1] = {};
  constexpr lane_masks() noexcept {
    for (std::size_t n = 1; n <= W / 2; ++n)
      for (std::size_t i = 0; i < W; ++i) {
        const std::uint64_t lane = std::uint64_t{1} << i;
        if (i % n == 0) lines[n].starts |= lane;
        for (std::size_t s = 0; s < 5; ++s)
          if (i % n >= (std::size_t{1} << s)) lines[n].steps[s] |= lane;
      }
  }
};
template <std::size_t W>
inline constexpr lane_masks<W> lane_masks_of{};

template <class Op, class T, bool Reverse, bool OneLine, class V>
TALLY_SIMD_TARGET void scan_lines_in_vectors(const T* in, T* out, std::size_t n, std::size_t count, bool exclusive,
                                             bool stream) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  const std::size_t k = W / n, g = k * n, total = n * count;
  // Vectors in scan order: j = 0, 1, ... from the lowest address, or (Reverse) from the
  // highest, each line read downwards. Vector j starts at element at(j) in memory.
  // The whole vectors: count / k, less the last where it would reach past `total` (g is W / 2
  // or more, so only the last can). One division fewer than with (total - W) / g + 1.
  std::size_t vectors = count / k;
  if (vectors > 0 && (vectors - 1) * g + W > total) --vectors;
  const auto at = [&](std::size_t j) { return Reverse ? total - (j + 1) * g - (W - g) : j * g; };
  const auto& masks = lane_masks_of<W>.lines[OneLine ? 0 : n];  // (one line a vector takes none)
  const std::uint64_t *steps = masks.steps, starts = masks.starts;
  const reg empty = V::broadcast(Op::template empty<A>());
  // Lines that divide a vector (g == W) put the vectors back to back: one run, which
  // streams (float32 lines of 2, 4, 8 with AVX-512: 1.02-1.15x memcpy stored plainly,
  // 0.81-0.98x streamed). Otherwise each vector's last lanes are rewritten by the next
  // one's store.
  streaming_writer<V, T> writer(stream && g == W);
  if (vectors > 0) {
    reg x = V::load(in + at(0));
    for (std::size_t j = 0; j + 1 < vectors; ++j) {
      // Float32 lines of 3 and 7 with AVX2: 1.15x / 1.07x memcpy without, 1.0x / 0.95x with.
      prefetch_stream_ahead(in + at(j), Reverse);
      const reg next = V::load(in + at(j + 1));
      writer.put(out + at(j), scan_lines_in_vector<Op, T, Reverse, OneLine, V>(x, n, steps, starts, exclusive, empty));
      x = next;
    }
    writer.flush();
    alignas(64) T last[W];
    V::store(last, scan_lines_in_vector<Op, T, Reverse, OneLine, V>(x, n, steps, starts, exclusive, empty));
    const std::size_t first = Reverse ? W - g : 0;  // the lines' lanes in memory order
    std::copy(last + first, last + first + g, out + at(vectors - 1) + first);
  }
  const std::size_t rest = count - vectors * k;  // lines past the last vector in scan order
  for (std::size_t line = 0; line < rest; line += k) {
    staged_lines<T, W> s(Reverse ? in : in + vectors * g, n, line, rest, k, Reverse);
    V::store(s.lanes, scan_lines_in_vector<Op, T, Reverse, OneLine, V>(V::load(s.lanes), n, steps, starts, exclusive,
                                                                        empty));
    s.write(Reverse ? out : out + vectors * g);
  }
}

template <class Op, class T, class V>
TALLY_SIMD_TARGET void scan_lines_in_vectors(const T* in, T* out, std::size_t n, std::size_t count, bool reverse,
                                             bool exclusive, bool stream) noexcept {
  if (2 * n > V::width) {
    if (reverse)
      scan_lines_in_vectors<Op, T, true, true, V>(in, out, n, count, exclusive, stream);
    else
      scan_lines_in_vectors<Op, T, false, true, V>(in, out, n, count, exclusive, stream);
  } else if constexpr (has_lane_ops<V>) {
    if (reverse)
      scan_lines_in_vectors<Op, T, true, false, V>(in, out, n, count, exclusive, stream);
    else
      scan_lines_in_vectors<Op, T, false, false, V>(in, out, n, count, exclusive, stream);
  }
}

/// Whether V offers next_positions / line_bases / minus, what
/// scan_short_sums_by_difference needs.
template <class V, class = void>
inline constexpr bool has_line_bases = false;
template <class V>
inline constexpr bool has_line_bases<V, std::void_t<decltype(sizeof(&V::line_bases))>> = true;

/// Packed integer lines summed as differences of the whole stream's running sum: lane i's
/// sum is Q[i] - Q[start of its line - 1], Q the wrapping prefix sum of everything scanned
/// before (integer sums are modular, so the difference is exact). Per vector that is one
/// plain in-register scan and one lane gather, where the segmented scan takes a masked
/// step per lane-width doubling: int8 lines of 3..15 elements took 4.8x the time of a
/// memcpy with i16's segmented scan. Exclusive results are the inclusive ones less the
/// element (0 at a line's start: the empty sum).
template <class T, bool Reverse, class V>
TALLY_SIMD_TARGET void scan_short_sums_by_difference(const T* in, T* out, std::size_t n, std::size_t count,
                                                     bool exclusive, bool stream) noexcept {
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  const std::size_t total = n * count;
  const reg advance = V::broadcast(static_cast<A>(W % n)), last_position = V::broadcast(static_cast<A>(n - 1));
  alignas(64) A positions[W];
  for (std::size_t i = 0; i < W; ++i) positions[i] = static_cast<A>(i % n);
  reg at = V::load(static_cast<const A*>(positions));  // lane i's position in its line
  reg running = V::broadcast(A(0));  // Q of the lane before this vector, in every lane
  reg bases = running;                // its last lane: Q before the line running into this vector
  streaming_writer<V, T> writer(stream);
  const T* in_end = in + total;
  T* out_end = out + total;
  std::size_t k = 0;
  for (; k + W <= total; k += W) {
    const reg x = Reverse ? V::reverse(V::load(in_end - k - W)) : V::load(in + k);
    const reg q = V::template combine<sum_op>(running, V::template scan<sum_op>(x));
    bases = V::line_bases(V::shift_in(q, running), at, bases);
    const reg inclusive = V::minus(q, bases);
    const reg y = exclusive ? V::minus(inclusive, x) : inclusive;
    writer.put(Reverse ? out_end - k - W : out + k, Reverse ? V::reverse(y) : y);
    running = V::broadcast_last(q);
    at = V::next_positions(at, advance, last_position);
  }
  writer.flush();
  A line_sum = static_cast<A>(V::first(running) - V::last(bases));
  for (; k < total; ++k) {  // the last partial vector
    const std::size_t where = Reverse ? total - 1 - k : k;
    const A before = k % n == 0 ? A(0) : line_sum;
    line_sum = sum_op::combine(before, to_acc(in[where]));
    out[where] = from_acc<T>(exclusive ? before : line_sum);
  }
}

/// A value of V's register type for the traits' unevaluated calls (std::declval<reg>
/// would make the vector type a template argument, whose attributes GCC warns it drops;
/// for the same reason the traits take the sizeof of a call, not its vector type).
template <class V>
typename V::reg some_reg() noexcept;

/// Whether V offers what scan_short_sums_by_loads needs besides next_positions and minus:
/// plus_above(y, x, at, floor) (y + x in the lanes where at > floor, y elsewhere) and the
/// lane shifts that double its windows, lanes_up<w> and lanes_down<w>.
template <class V, class = void>
inline constexpr bool has_line_window_ops = false;
template <class V>
inline constexpr bool has_line_window_ops<
    V, std::void_t<decltype(sizeof(V::plus_above(some_reg<V>(), some_reg<V>(), some_reg<V>(), some_reg<V>()))),
                   decltype(sizeof(V::template lanes_up<4>(some_reg<V>(), some_reg<V>()))),
                   decltype(sizeof(V::template lanes_down<4>(some_reg<V>(), some_reg<V>())))>> = true;

/// y plus, for each d = D, D - 1, ..., 1, the elements d before each lane (d after when
/// Reverse) in the lanes whose position is at least d: straight-line code with constant
/// offsets (a loop over d took 2.5x longer).
template <class T, bool Reverse, class V, std::size_t D>
struct shifted_sums {
  using reg = typename V::reg;
  TALLY_SIMD_TARGET TALLY_ALWAYS_INLINE static reg add(reg y, const T* p, reg at) noexcept {
    if constexpr (D > 0) {
      y = V::plus_above(y, V::load(Reverse ? p + D : p - D), at, V::broadcast(static_cast<acc_t<T>>(D - 1)));
      return shifted_sums<T, Reverse, V, D - 1>::add(y, p, at);
    } else {
      return y;
    }
  }
};

/// The sum of element i and the w - 1 before it in its line (after it when Reverse), as
/// far as the line goes: a lane of scan_short_sums_by_loads' windows, for the few lanes
/// next to its vectors.
template <class T, bool Reverse>
acc_t<T> window_sum(const T* in, std::size_t i, std::size_t n, std::size_t w) noexcept {
  const std::size_t place = Reverse ? n - 1 - i % n : i % n;  // in scan order
  acc_t<T> sum = acc_t<T>(0);
  for (std::size_t d = 0; d < w && d <= place; ++d) sum = sum_op::combine(sum, to_acc(in[Reverse ? i + d : i - d]));
  return sum;
}

/// Packed 8-bit lines of n elements summed from shifted loads. Lane i's window is x[i]
/// plus x[i - d] for each d = 1 .. w - 1 that stays inside its line (its position at least
/// d), read by unaligned loads and kept by a compare: w - 1 loads and a few ALU operations
/// per d, and no shuffle. Lines up to w long are their windows. Longer lines double the
/// window once or twice: the window of 2w adds, in the lanes whose position is at least
/// w, the window w lanes before (one lane shift, lanes_up, from this vector and the one
/// before), so lines up to 4w take w - 1 loads and two shifts, not 4w - 1 loads.
///
/// Reversed lines read x[i + d], count positions from the line's end and shift from the
/// vector after (lanes_down). The vectors still walk upwards (walking downwards, 16M int8
/// forward lines of 3 took 1.7x a memcpy against 1.2x upwards), so each doubling waits a
/// vector for the windows after it: vector v - levels is finished while vector v is
/// loaded.
///
/// Why: the difference form (one in-register scan and a lane gather per vector) was bound
/// by AVX2's shuffles, about 10 cycles per 32 bytes where a memcpy takes 6.6 (int8 lines
/// of 5: 1.7-2.1x the time of a memcpy), and loads alone grow with n (16M int8 as lines of
/// 15 took 2.0-2.5x a memcpy with 14 loads a vector).
///
/// In place, every load reads elements not yet written: forward, each vector is stored
/// after the next one's loads (they reach back n - 1 elements); reversed, loads only
/// reach upwards. The elements whose loads would leave the region (fewer than n - 1 + a
/// vector, at the start for forward lines, at the end for reversed ones) take the scalar
/// loop, after the vectors; the windows just outside the vectors, which the shifts read,
/// are summed by window_sum. Stores are plain: neither vector has `window`, which the
/// streaming writer needs (64-byte byte vectors would need VBMI's byte permutes).
template <class T, bool Reverse, class V, std::size_t n, std::size_t w>
TALLY_SIMD_TARGET void scan_short_sums_by_loads(const T* in, T* out, std::size_t count, bool exclusive) noexcept {
  constexpr int levels = n <= w ? 0 : n <= 2 * w ? 1 : 2;
  static_assert(n <= 4 * w, "at most two doublings");
  using A = acc_t<T>;
  using reg = typename V::reg;
  using window_sums = shifted_sums<T, Reverse, V, w - 1>;
  constexpr std::size_t W = V::width;
  const std::size_t total = n * count;
  const std::size_t vectors = total >= W + n - 1 ? (total - (n - 1)) / W : 0;
  // The vectors cover [first, first + vectors * W): the last elements for forward lines.
  const std::size_t first = Reverse ? 0 : total - vectors * W;
  // Positions: in the line (forward, W % n more a vector), or from the line's end
  // (reversed, W % n less).
  const reg advance = V::broadcast(static_cast<A>(Reverse ? (n - W % n) % n : W % n));
  const reg last_position = V::broadcast(static_cast<A>(n - 1));
  const reg below_w = V::broadcast(static_cast<A>(w - 1)), below_2w = V::broadcast(static_cast<A>(2 * w - 1));
  alignas(64) A positions[W];
  for (std::size_t i = 0, p = first % n; i < W; ++i, p = p + 1 == n ? 0 : p + 1)
    positions[i] = static_cast<A>(Reverse ? n - 1 - p : p);
  // The windows of w and 2w just outside the vectors (before them forward, after them
  // reversed), where the shifts read them.
  alignas(64) A outside_w[W] = {}, outside_2w[W] = {};
  for (std::size_t j = 0; levels > 0 && vectors > 0 && j < 2 * w; ++j) {
    const std::size_t lane = Reverse ? j : W - 2 * w + j;
    const std::size_t i = Reverse ? vectors * W + j : first + j - 2 * w;  // element of the lane
    if (Reverse ? i >= total : first + j < 2 * w) continue;
    if (Reverse ? j < w : j >= w) outside_w[lane] = window_sum<T, Reverse>(in, i, n, w);
    if constexpr (levels >= 2) outside_2w[lane] = window_sum<T, Reverse>(in, i, n, 2 * w);
  }
  reg at = V::load(static_cast<const A*>(positions));
  if constexpr (!Reverse) {
    reg before_w = V::load(static_cast<const A*>(outside_w));  // the vector before's windows
    reg before_2w = V::load(static_cast<const A*>(outside_2w));
    reg held = at;  // the vector before, stored after this one's loads
    for (std::size_t v = 0; v < vectors; ++v) {
      const std::size_t k = first + v * W;
      const reg x = V::load(in + k);
      reg y = window_sums::add(x, in + k, at);
      if constexpr (levels >= 1) {
        const reg here = y;
        y = V::plus_above(y, V::template lanes_up<w>(y, before_w), at, below_w);
        before_w = here;
      }
      if constexpr (levels >= 2) {
        const reg here = y;
        y = V::plus_above(y, V::template lanes_up<2 * w>(y, before_2w), at, below_2w);
        before_2w = here;
      }
      if (v > 0) V::store(out + k - W, held);
      held = exclusive ? V::minus(y, x) : y;
      at = V::next_positions(at, advance, last_position);
    }
    if (vectors > 0) V::store(out + first + (vectors - 1) * W, held);
  } else {
    // Step v: the windows of w of vector v, those of 2w of vector v - 1, those of 4w of
    // vector v - 2; vector v - levels is stored.
    reg windows_w = at, windows_2w = at;  // of vectors v - 1 and v - 2
    reg at_1 = at, at_2 = at;             // positions of vectors v - 1 and v - 2
    const std::size_t steps = vectors > 0 ? vectors + levels : 0;
    for (std::size_t v = 0; v < steps; ++v) {
      const std::size_t k = v * W;
      reg y = v < vectors ? window_sums::add(V::load(in + k), in + k, at) : V::load(static_cast<const A*>(outside_w));
      if constexpr (levels >= 1) {
        const reg after = y;
        if (v >= 1)
          y = v - 1 < vectors ? V::plus_above(windows_w, V::template lanes_down<w>(windows_w, after), at_1, below_w)
                              : V::load(static_cast<const A*>(outside_2w));
        windows_w = after;
      }
      if constexpr (levels >= 2) {
        const reg after = y;
        if (v >= 2) y = V::plus_above(windows_2w, V::template lanes_down<2 * w>(windows_2w, after), at_2, below_2w);
        windows_2w = after;
      }
      at_2 = at_1;
      at_1 = at;
      at = V::next_positions(at, advance, last_position);
      if (v >= static_cast<std::size_t>(levels)) {
        const std::size_t done = k - levels * W;
        V::store(out + done, exclusive ? V::minus(y, V::load(in + done)) : y);
      }
    }
  }
  // The rest in scan order: [0, first) forward, [vectors * W, total) reversed.
  const std::size_t from = Reverse ? vectors * W : 0, to = Reverse ? total : first;
  A line_sum = A(0);
  for (std::size_t j = 0, p = 0; j < to - from; ++j, p = p + 1 == n ? 0 : p + 1) {  // p: j's place in its line
    const std::size_t where = Reverse ? total - 1 - j : j;
    const A before = p == 0 ? A(0) : line_sum;
    line_sum = sum_op::combine(before, to_acc(in[where]));
    out[where] = from_acc<T>(exclusive ? before : line_sum);
  }
}

/// Lines of 3 and 5 are their windows; longer lines take windows of 4, doubled once
/// (lines of 6 and 7) or twice (lines of 9 to 15). 16M int8 as lines of 7: 1.3-1.4x a
/// memcpy with 6 loads a vector, 1.1x with 3 and a shift; lines of 5 measured alike both
/// ways with AVX-512, and slower doubled with AVX2, whose lane shift takes two shuffles.
template <class T, std::size_t n>
TALLY_SIMD_TARGET void scan_short_sums_by_loads(const T* in, T* out, std::size_t count, bool reverse,
                                                bool exclusive) noexcept {
  constexpr std::size_t w = n <= 5 ? n : 4;
  if (reverse)
    scan_short_sums_by_loads<T, true, byte_line_sums, n, w>(in, out, count, exclusive);
  else
    scan_short_sums_by_loads<T, false, byte_line_sums, n, w>(in, out, count, exclusive);
}

/// Whether V scans groups of neighbouring lanes inside its 128-bit halves
/// (scan_groups<Op, n>, shift_in_groups<n> for n = 2, 4, ... up to group_max).
template <class V, class = void>
inline constexpr int group_max = 0;
template <class V>
inline constexpr int group_max<V, std::void_t<decltype(V::group_max)>> = V::group_max;

/// Packed lines of N elements, N dividing a vector's 128-bit half (group_max): every
/// vector holds whole lines at the same lanes, so each is one group scan, with no carry
/// between vectors. The last elements (fewer than a vector: whole lines) go through
/// staged_lines.
template <class Op, class T, bool Reverse, int N>
TALLY_SIMD_TARGET void scan_short_groups(const T* in, T* out, std::size_t count, bool exclusive, bool stream) noexcept {
  using V = line_vec_for<Op, T>;
  constexpr std::size_t W = V::width;
  const std::size_t total = N * count;
  const typename V::reg empty = V::broadcast(Op::template empty<acc_t<T>>());
  streaming_writer<V, T> writer(stream);
  std::size_t k = 0;
  for (; k + W <= total; k += W) {
    typename V::reg x = Reverse ? V::reverse(V::load(in + total - k - W)) : V::load(in + k);
    x = V::template scan_groups<Op, N>(x);
    if (exclusive) x = V::template shift_in_groups<N>(x, empty);
    writer.put(Reverse ? out + total - k - W : out + k, Reverse ? V::reverse(x) : x);
  }
  writer.flush();
  const std::size_t rest = (total - k) / N;  // lines left in scan order: the first in memory when Reverse
  for (std::size_t line = 0; line < rest; line += W / N) {
    staged_lines<T, W> s(Reverse ? in : in + k, N, line, rest, W / N, Reverse);
    typename V::reg x = Reverse ? V::reverse(V::load(s.lanes)) : V::load(s.lanes);
    x = V::template scan_groups<Op, N>(x);
    if (exclusive) x = V::template shift_in_groups<N>(x, empty);
    V::store(s.lanes, Reverse ? V::reverse(x) : x);
    s.write(Reverse ? out : out + k);
  }
}

template <class Op, class T, int N>
TALLY_SIMD_TARGET void scan_short_groups(const T* in, T* out, std::size_t count, bool reverse, bool exclusive,
                                         bool stream) noexcept {
  if (reverse)
    scan_short_groups<Op, T, true, N>(in, out, count, exclusive, stream);
  else
    scan_short_groups<Op, T, false, N>(in, out, count, exclusive, stream);
}

template <class Op, class T, class V>
TALLY_SIMD_TARGET void scan_lines_by_vectors(const T* in, T* out, std::size_t n, std::size_t count, bool reverse,
                                             bool exclusive, bool stream) noexcept {
  if (reverse)
    scan_lines_by_vectors<Op, T, true, V>(in, out, n, count, exclusive, stream);
  else
    scan_lines_by_vectors<Op, T, false, V>(in, out, n, count, exclusive, stream);
}

/// 8-bit sums, where the target's byte_line_sums has the line window operations: packed
/// lines of 3 to 15 elements, other than 4 and 8, take scan_short_sums_by_loads.
template <class Op, class T>
inline constexpr bool byte_sums_by_loads = has_line_window_ops<byte_line_sums> && is_sum<Op> && sizeof(T) == 1;

/// The shortest packed lines of floating-point products that scan_product_lines_by_vectors
/// takes. Shorter ones keep the plain loop, which overlaps the multiply chains of
/// neighbouring lines (16M elements, x memcpy, plain loop / by vectors, increasing: AVX-512
/// float32 lines of 32 2.3 / 2.4, 48 2.5 / 1.7; float64 24 1.1 / 1.3, 32 1.2 / 1.2, 48 1.4
/// / 1.1; AVX2 float64 16 1.0 / 1.8, 32 1.05 / 1.2, 48 1.1 / 1.1, float32 48 2.5 / 1.75).
inline constexpr std::size_t product_lines_by_vectors_min = 48;

/// Packed lines of floating-point products of product_lines_by_vectors_min to
/// short_line_max elements: each line the line kernel's vector loop (scan_contiguous_dir:
/// the in-register prefix times the running product, vectors with extreme values redone in
/// sequence), so a line has the bits a 1-D call of it has. The plain loop they took waited
/// on one multiply an element (float32, 16M elements in lines of 100, x memcpy: 3.0x
/// increasing, 10x decreasing). Lines read downwards go last first: one descending stream.
template <class Op, class T>
TALLY_SIMD_TARGET void scan_product_lines_by_vectors(const T* in, T* out, std::size_t n, std::size_t count,
                                                     bool reverse, bool exclusive) noexcept {
  using A = acc_t<T>;
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t first = reverse ? (count - j) * n - 1 : j * n;
    auto s = line_state<A>::template begin<Op>(Op::template identity<A>(), Op::template empty<A>());
    scan_contiguous<Op, T>(s, in + first, out + first, reverse, n, exclusive, false);
  }
}

/// Packed lines of float32 products shorter than product_lines_by_vectors_min, W (the
/// register transpose's width, a vector) lines at a time: the tile of W lines is
/// transposed so that lane j of row k holds element k of line j, the rows are multiplied
/// down (each lane the plain loop's chain of one line, so each line keeps the sequence's
/// bits, but W chains advance per multiply), and the tile is transposed back, in blocks of
/// W elements of each line, the last block overlapping the one before it. Lines shorter
/// than W need `Padded` buffers (W elements to spare past the lines, as staged blocks have):
/// a block then reads and writes past a tile's last line, each tile before the next one,
/// and the plain loop takes the lines left over (count % W) last. (A scratch program, 16M
/// elements, x memcpy, plain loop / gathered: AVX-512 lines of 16 2.0 / 1.15-1.2, 24 2.1 /
/// 1.25-1.3, 47 2.4 / 1.5-1.6; AVX2 lines of 16 1.9 / 1.1-1.3, 32 2.2 / 1.3-1.5. Float64
/// kept the plain loop, 1.1x-1.3x, which the tiles did not beat.)
/// float16 lines (where the target's transpose32 converts: has_half_blocks) are converted
/// in the transposes, the rows in float: the bits of the staged float blocks without their
/// two passes over each block, float16 to float and back (16M elements, ns per element,
/// staged / converted in the tiles: AVX-512 lines of 16 0.32-0.53 / 0.17-0.20, 33
/// 0.30-0.66 / 0.17-0.32, 47 0.30-0.66 / 0.14-0.25; AVX2 lines of 8 0.23-0.64 /
/// 0.19-0.25, 16 0.22-0.24 / 0.17-0.22, 33 and 47 0.29-0.34 / 0.17-0.22). Whole tiles
/// only: a float16 tile's lines lie in the caller's buffers, with nothing to spare past
/// them.
/// `Narrow`: the target's narrow_transpose32 and narrow_f32 (AVX-512: AVX2's 8x8 blocks),
/// for unpadded lines of 8 to 15 elements, which the 16-lane tiles cannot take whole
/// (16M elements, x memcpy, AVX-512: float32 lines of 8, plain loop / narrow tiles,
/// 1.65 / 1.12-1.18; float16 lines of 8, staged / narrow tiles, 4.1 / 2.4-2.9), and for
/// padded lines of 4 to 7, which the 16-lane tiles leave to the plain loop (AVX-512
/// float16 lines of 5 to 7 in staged blocks, x memcpy, the blocks' plain loop / their
/// narrow tiles: -O2 4.0-4.1 / 2.3-2.7, -O3 3.9-4.9 / 2.8-3.2).
template <class Op, class T, bool Padded, bool Narrow = false>
TALLY_SIMD_TARGET void scan_product_lines_gathered(const T* in, T* out, std::size_t n, std::size_t count,
                                                   bool reverse, bool exclusive) noexcept {
  static_assert(std::is_same_v<T, float> || (std::is_same_v<T, half> && !Padded), "float32, and float16 unpadded");
  using V = std::conditional_t<Narrow, narrow_f32, vec_for<T>>;
  // A name that depends on T, so that targets without float16 blocks (NEON) compile the
  // float32 form, the only one they instantiate.
  using B = std::conditional_t<sizeof(T) != 0 && Narrow, narrow_transpose32, transpose32>;
  constexpr std::size_t W = B::width;
  static_assert(V::width == W, "one transposed row is one vector");
  using reg = typename V::reg;
  alignas(64) float rows[product_lines_by_vectors_min * W];  // row k: element k of the tile's lines
  const bool prefetch_tiles = W * n * sizeof(T) > 1024;
  const std::ptrdiff_t step = reverse ? -static_cast<std::ptrdiff_t>(W) : static_cast<std::ptrdiff_t>(W);
  const std::size_t tiles = count / W;
  for (std::size_t t = 0; t < tiles; ++t) {
    const T* tile_in = in + t * W * n;
    T* tile_out = out + t * W * n;
    // The blocks read a tile across its W lines, which the hardware prefetchers followed
    // too late once a tile spans more than 1 KiB (AVX-512, lines of 47: 2.0x memcpy
    // without these prefetches, 1.5x with; lines of 16: 1.15x without, 1.3x with).
    if (prefetch_tiles)
      for (std::size_t b = 0; b < W * n * sizeof(T); b += 64)
        prefetch_stream_ahead(reinterpret_cast<const char*>(tile_in) + b, false);
    for (std::size_t a = 0; a < n; a += W) {
      const std::size_t at = Padded && n < W ? 0 : (std::min)(a, n - W);
      if constexpr (std::is_same_v<T, half>)
        B::block_converted(tile_in + at, n, rows + at * W, static_cast<std::ptrdiff_t>(W));
      else
        B::block(tile_in + at, n, rows + at * W, static_cast<std::ptrdiff_t>(W), false);
    }
    reg running = V::broadcast(Op::template identity<float>()), before = V::broadcast(Op::template empty<float>());
    float* row = rows + (reverse ? (n - 1) * W : 0);
    for (std::size_t i = 0; i < n; ++i, row += step) {
      running = V::template combine<Op>(running, V::load(row));
      V::store(row, exclusive ? before : running);
      before = running;
    }
    for (std::size_t a = 0; a < n; a += W) {
      const std::size_t at = Padded && n < W ? 0 : (std::min)(a, n - W);
      if constexpr (std::is_same_v<T, half>)
        B::block_converted(rows + at * W, W, tile_out + at, static_cast<std::ptrdiff_t>(n));
      else
        B::block(rows + at * W, W, tile_out + at, static_cast<std::ptrdiff_t>(n), false);
    }
  }
  // (Tiles taken downwards for lines read downwards measured slower: AVX2, lines of 16,
  // 3.5x memcpy against 1.6x. See short_lines_upwards_below.)
  scalar::scan_short_lines<Op, T>(in + tiles * W * n, out + tiles * W * n, n, count - tiles * W, reverse, exclusive,
                                  false);
}

/// Packed lines of float32 or float64 products (5 to short_line_max elements, or 2 to 4
/// where scan_short_lines cannot take them whole lines a vector), by length: the line
/// kernel's vectors from product_lines_by_vectors_min on where the vectors have magnitude
/// tests (a 1-D call's bits), gathered tiles below for float32 (the sequence's bits) from a
/// vector on (AVX-512: from 8 elements, narrow tiles below 16), or in `Padded` buffers (see
/// scan_product_lines_gathered) from half a vector and at least 4 (AVX-512: narrow tiles
/// from 4 to 7), and the plain loop below. (float16 lines, 16M elements, plain loop /
/// tiles: AVX2 lines of 2 and 3 the same, of 4 7.1 / 6.2 ms; AVX-512 lines of 4 8.0 / 9.1
/// ms, where the transposes move mostly unused rows, of 8 10.4 / 6.0 ms.)
template <class Op, class T, bool Padded = false>
TALLY_SIMD_TARGET void scan_float_product_lines(const T* in, T* out, std::size_t n, std::size_t count,
                                                bool reverse, bool exclusive) noexcept {
  using V = vec_for<T>;
  // The shortest lines tiles of `width` lanes take: a whole block each, or in padded
  // buffers half of one and at least 4.
  constexpr auto tiles_from = [](std::size_t width) {
    return Padded ? (std::max)(std::size_t{4}, width / 2) : width;
  };
  constexpr std::size_t gathered_min = tiles_from(V::width);
  if constexpr (has_magnitude_tests<V>)
    if (n >= product_lines_by_vectors_min)
      return scan_product_lines_by_vectors<Op, T>(in, out, n, count, reverse, exclusive);
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (narrow_transpose32::width < V::width)
      if (n >= tiles_from(narrow_transpose32::width) && n < gathered_min)
        return scan_product_lines_gathered<Op, T, Padded, true>(in, out, n, count, reverse, exclusive);
    if (n >= gathered_min && n < product_lines_by_vectors_min)
      return scan_product_lines_gathered<Op, T, Padded>(in, out, n, count, reverse, exclusive);
  }
  scalar::scan_short_lines<Op, T>(in, out, n, count, reverse, exclusive, false);
}

/// Packed float16 lines of at most staged_halves / 2 elements (see staged_halves), in float
/// as float32 lines go, whose float lanes are those of a float16 line: from
/// product_lines_by_vectors_min elements the line kernel's vectors (the bits of a 1-D call of
/// the line; 16M elements in lines of 256: 15-19 ms with the plain loop, a chain of 256
/// multiplies, 4.4-7.3 ms so), below from 4 elements the gathered tiles (the sequence's
/// bits; see scan_float_product_lines). On x86 lines of a vector (AVX-512: 8, but not 9 to
/// 11) to 47 elements and lines from 48 skip the blocks (scan_short_lines), and of the
/// former only the lines left over past whole tiles come here.
template <class Op, class V>
TALLY_SIMD_TARGET void scan_half_lines_staged(const half* in, half* out, std::size_t n, std::size_t count,
                                              bool reverse, bool exclusive) noexcept {
  // W floats to spare past a block for the gathered tiles' short lines (read and written,
  // their values unused; zeroed after each conversion so that no tile reads a float never
  // written).
  constexpr std::size_t spare = transpose32::width;
  alignas(64) float x[staged_halves + spare], y[staged_halves + spare];
  const std::size_t lines = staged_halves / n;  // a block: whole lines, at least two
  for (std::size_t first = 0; first < count; first += lines) {
    const std::size_t m = (std::min)(lines, count - first) * n;
    halves_to_floats<V>(in + first * n, x, m);
    std::fill(x + m, x + m + spare, 0.0f);
    scan_float_product_lines<Op, float, true>(x, y, n, m / n, reverse, exclusive);
    floats_to_halves<V>(y, out + first * n, m);
  }
}

/// Packed lines by length: a copy (1), the by-vector scan (more than a vector), one line a
/// vector (more than half a vector, up to a whole one), group scans (lengths dividing a
/// 128-bit half), whole lines a vector with segmented steps (the rest, where the vector has
/// lane_ops), shifted loads (8-bit sums of lines below 16 on x86), differences of the
/// running sum (the other 8-bit sums, and NEON's integer sums), the plain loop.
/// Floating-point products (in sequence, ops.hpp) of 2 to 4 elements go whole lines a vector
/// where the vector has lane_ops, the others take scan_float_product_lines (float16 in staged
/// float blocks, or on x86 from a vector (AVX-512: 8, but not 9 to 11) to 47 elements the
/// gathered tiles converting in their transposes). Lines of exactly a vector took the by-vector scan's per-line loop
/// (the running value and the previous vector carried for a next vector that never comes,
/// the line's vector held back for the writer); both stream the same vectors, and one line
/// a vector measured faster (16M elements, AVX-512, x memcpy, alternated pairs: int8 lines
/// of 32 1.34-1.48 -> 0.98-1.07, decreasing 1.81-2.17 -> 1.53-1.68; int32 lines of 16
/// 1.28-1.40 -> 0.85-1.10, decreasing 1.49-1.57 -> 0.97-1.29).
/// 8-bit sums on a target with wider byte_long_sums (AVX-512) take it from 33 elements,
/// past the narrower vector: one line a 64-lane vector up to 64, the by-vector scan above,
/// where lines of 33 to 127 took two or more 32-lane vectors a line (16M elements, x
/// memcpy, alternated runs: lines of 40 2.44-2.50 -> 1.41-1.49, of 64 1.57-1.65 ->
/// 1.12-1.19, of 64 decreasing 2.32-2.46 -> 1.39-1.51, of 96 1.66-1.71 -> 1.48-1.65).
template <class Op, class T>
TALLY_SIMD_TARGET void scan_short_lines(const T* in, T* out, std::size_t n, std::size_t count, bool reverse,
                                        bool exclusive, bool stream) noexcept {
  using L = line_vec_for<Op, T>;
  constexpr int groups = group_max<L>;
  if (n == 1) {  // lines of one element: a copy, or the empty value
    if (exclusive)
      std::fill(out, out + count, from_acc<T>(Op::template empty<acc_t<T>>()));
    else if (out != in)
      std::memcpy(static_cast<void*>(out), in, count * sizeof(T));
  } else if constexpr (!has_select<L> || sequential_order_v<Op, T>) {
    if constexpr (sequential_order_v<Op, T>) {
      // Lines of 2 to 4 products, at most half a vector, whole lines a vector (one lane a
      // step: the sequence's bits); float16 lanes convert on load and store, in float lanes.
      // Up to 4 elements (3 steps): lines of 5 to 8 measured faster at -O2 (float32 0.36 ->
      // 0.29 ns per element) but not at -O3, where GCC unrolls the plain loop (float16
      // lines of 7 0.30 -> 0.43). float64 lines that leave lanes unused (3 in 8) measured
      // slower (0.43-0.44 -> 0.57). Stored plainly: streamed, float32 lines of 4 took
      // 0.25-0.33 ns per element, against 0.24-0.25. (16M elements, ns per element, plain
      // loop / whole lines a vector, AVX-512, -O2: float32 0.38-0.49 / 0.19-0.29; -O3:
      // 0.30-0.40 / 0.20-0.30. float16, staged float blocks / converted in the vector:
      // AVX-512 -O2 0.23-0.33 / 0.10-0.19, -O3 0.25-0.66 / 0.14-0.32; AVX2 -O2 0.22-0.45 /
      // 0.18-0.36.)
      if constexpr (has_lane_ops<L>)
        if (n <= 4 && 2 * n <= L::width && (!std::is_same_v<T, double> || L::width % n == 0)) {
          if (reverse) return scan_lines_in_vectors<Op, T, true, false, L>(in, out, n, count, exclusive, false);
          return scan_lines_in_vectors<Op, T, false, false, L>(in, out, n, count, exclusive, false);
        }
      if constexpr (std::is_same_v<T, half>) {
        // From product_lines_by_vectors_min elements each line the line kernel's vectors,
        // which convert on load and store (a tail too, in one vector), the bits the staged
        // blocks gave (their float lines took the same loop) without the blocks' two passes
        // (16M elements, std::vector, ns per element, staged / direct, alternated runs:
        // AVX-512 lines of 48 0.69-0.84 / 0.48-0.51, of 96 0.92-1.10 / 0.53-0.65, of 100
        // 0.54-0.63 / 0.48-0.51, of 256 0.49-0.53 / 0.32, of 256 decreasing 0.67 / 0.47;
        // AVX2 lines of 48 1.04-1.09 / 0.81-0.89, of 256 0.82-1.04 / 0.55-0.62; 2026-12-07).
        if constexpr (has_magnitude_tests<L>)
          if (n >= product_lines_by_vectors_min)
            return scan_product_lines_by_vectors<Op, T>(in, out, n, count, reverse, exclusive);
        if constexpr (has_half_blocks<transpose32> && has_half_blocks<narrow_transpose32>)
          if (const bool narrow = n < transpose32::width;
              n >= narrow_transpose32::width && n < product_lines_by_vectors_min &&
              (!narrow || n == narrow_transpose32::width || 4 * n >= 3 * transpose32::width)) {
            // Whole tiles converted in their transposes (AVX-512's narrow ones for lines
            // shorter than its 16 lanes); the lines left over (fewer than a tile) staged,
            // with the same conversions (the plain loop's software ones give NaNs another
            // sign). AVX-512 lines of 9 to 11 stay staged: their two overlapping narrow
            // blocks move 16 elements a line, as the staged 16-lane tiles do, and
            // measured slower or the same (16M elements, ns per element, staged / narrow
            // tiles: lines of 9 0.25-0.27 / 0.31-0.34, of 11 0.25-0.28 / 0.24-0.29; of 8
            // 0.34-0.40 / 0.17-0.24, of 15 0.22-0.24 / 0.19-0.23).
            const std::size_t tiled = count - count % (narrow ? narrow_transpose32::width : transpose32::width);
            if (narrow)
              scan_product_lines_gathered<Op, T, false, true>(in, out, n, tiled, reverse, exclusive);
            else
              scan_product_lines_gathered<Op, T, false>(in, out, n, tiled, reverse, exclusive);
            in += tiled * n;
            out += tiled * n;
            count -= tiled;
          }
        if (2 * n <= staged_halves) return scan_half_lines_staged<Op, L>(in, out, n, count, reverse, exclusive);
      } else {
        return scan_float_product_lines<Op, T>(in, out, n, count, reverse, exclusive);
      }
    }
    scalar::scan_short_lines<Op, T>(in, out, n, count, reverse, exclusive, stream);
  } else if (n > L::width) {
    if constexpr (wide_byte_lines<Op, T>) {
      if (n > byte_long_sums::width)
        return scan_lines_by_vectors<Op, T, byte_long_sums>(in, out, n, count, reverse, exclusive, stream);
      return scan_lines_in_vectors<Op, T, byte_long_sums>(in, out, n, count, reverse, exclusive, stream);
    }
    scan_lines_by_vectors<Op, T, L>(in, out, n, count, reverse, exclusive, stream);
  } else if (2 * n > L::width) {
    scan_lines_in_vectors<Op, T, L>(in, out, n, count, reverse, exclusive, stream);
  } else if (n <= static_cast<std::size_t>(groups) && (n & (n - 1)) == 0) {
    if constexpr (groups >= 2)
      if (n == 2) return scan_short_groups<Op, T, 2>(in, out, count, reverse, exclusive, stream);
    if constexpr (groups >= 4)
      if (n == 4) return scan_short_groups<Op, T, 4>(in, out, count, reverse, exclusive, stream);
    if constexpr (groups >= 8)
      if (n == 8) return scan_short_groups<Op, T, 8>(in, out, count, reverse, exclusive, stream);
    if constexpr (groups >= 16)
      if (n == 16) return scan_short_groups<Op, T, 16>(in, out, count, reverse, exclusive, stream);
  } else if constexpr (has_lane_ops<L>) {
    scan_lines_in_vectors<Op, T, L>(in, out, n, count, reverse, exclusive, stream);
  } else if (byte_sums_by_loads<Op, T> && n < 16 && (n & (n - 1)) != 0) {
    if constexpr (byte_sums_by_loads<Op, T>) {
      switch (n) {
        case 3: return scan_short_sums_by_loads<T, 3>(in, out, count, reverse, exclusive);
        case 5: return scan_short_sums_by_loads<T, 5>(in, out, count, reverse, exclusive);
        case 6: return scan_short_sums_by_loads<T, 6>(in, out, count, reverse, exclusive);
        case 7: return scan_short_sums_by_loads<T, 7>(in, out, count, reverse, exclusive);
        case 9: return scan_short_sums_by_loads<T, 9>(in, out, count, reverse, exclusive);
        case 10: return scan_short_sums_by_loads<T, 10>(in, out, count, reverse, exclusive);
        case 11: return scan_short_sums_by_loads<T, 11>(in, out, count, reverse, exclusive);
        case 12: return scan_short_sums_by_loads<T, 12>(in, out, count, reverse, exclusive);
        case 13: return scan_short_sums_by_loads<T, 13>(in, out, count, reverse, exclusive);
        case 14: return scan_short_sums_by_loads<T, 14>(in, out, count, reverse, exclusive);
        default: return scan_short_sums_by_loads<T, 15>(in, out, count, reverse, exclusive);
      }
    }
  } else if constexpr (has_line_bases<L> && is_sum<Op> && std::is_integral_v<T>) {
    if (reverse)
      scan_short_sums_by_difference<T, true, L>(in, out, n, count, exclusive, stream);
    else
      scan_short_sums_by_difference<T, false, L>(in, out, n, count, exclusive, stream);
  } else {
    scalar::scan_short_lines<Op, T>(in, out, n, count, reverse, exclusive, stream);
  }
}

/// See kernel_set::short_lines_upwards_below. Floating-point products below
/// product_lines_by_vectors_min (at every length where the vectors have no magnitude
/// tests) go through their lines first to last: the plain loop, the gathered tiles and the
/// staged float16 blocks. (float16 lines from 48 elements took the staged blocks until
/// 2026-12-07, and now the line kernel's vectors, last first as float32 lines do: 16M
/// elements, AVX-512, decreasing lines of 48, 100 and 256, ns per element, first to last /
/// last first, alternated runs: 0.60-0.61 / 0.56-0.59, 0.63-0.64 / 0.56-0.59, 0.45-0.47 /
/// 0.43.) Descending runs of
/// upward tiles or blocks measured slower than upward tasks (16M elements, reverse, AVX-512,
/// x memcpy, tasks last first / first to last: float32 lines of 16 1.55-1.6 / 1.2, 33 2.0 /
/// 1.35-1.5; float64 lines of 32 1.75-2.4 / 1.0-1.1; float16 lines of 16 3.0-3.2 / 2.4, of
/// 100 3.7-3.9 / 2.5; tiles or blocks taken last first inside a call: 1.3-3.0 and 4.3-6.9).
/// The rest take their lines last first, each read downwards: one descending stream (the
/// line kernel's vectors on float32 lines of 100: 1.0-1.2x memcpy so, 2.9x first to last).
template <class Op, class T>
constexpr std::size_t short_lines_upwards_below() noexcept {
  if constexpr (!sequential_order_v<Op, T>)
    return 0;
  else if constexpr (has_magnitude_tests<vec_for<T>>)
    return product_lines_by_vectors_min;
  else
    return short_line_max + 1;
}

template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>,  &scan_columns<Op, T>,     &reduce_contiguous<Op, T>,
                                           &scatter_tile<T>,          &scan_short_lines<Op, T>, short_lines_upwards_below<Op, T>(),
                                           &scalar::scan_strided<Op, T>, nan_as_empty_line<Op, T>()};
