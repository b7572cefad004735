// The SIMD kernels, written once over a vector vocabulary and compiled for each
// instruction set: this file has no include guard on purpose and is included inside
// namespace detail::<target> (by kernels/<target>/target.hpp) after defining
// TALLY_SIMD_TARGET (that target's function attribute) and the vector structs f32 (float
// and float16), f64, i16 (8- and 16-bit integers), i32, i64 and transpose32. It defines
// the target's kernel table `kernels<Op, T>`. Vector vocabulary:
//   reg, width, broadcast(a), load(p), store(p, v), stream(p, v), reverse(v),
//   broadcast_last(v), shift_in(v, prev) = [prev[W-1], v[0..W-2]], first(v), last(v),
//   combine<Op>(a, b), scan<Op>(v) (inclusive prefix inside the register).

/// The vector for element type T.
template <class T>
using vec_for = std::conditional_t<
    std::is_same_v<T, float> || std::is_same_v<T, half>, f32,
    std::conditional_t<std::is_same_v<T, double>, f64,
                       std::conditional_t<sizeof(T) == 8, i64, std::conditional_t<sizeof(T) == 4, i32, i16>>>>;

/// A contiguous line, the hot loop of every scan along the innermost axis. Per vector:
/// an in-register prefix, plus the broadcast block-local running value, plus the offset
/// of the earlier blocks (see line_state.hpp). The loop-carried chain is a single
/// combine, so the core runs far above memory speed. The (rare) tail that does not fill
/// a vector continues with scalar steps of the same formula.
template <class Op, class T, bool Reverse>
TALLY_SIMD_TARGET void scan_contiguous_dir(line_state<acc_t<T>>& s, const T* in, T* out, std::size_t n,
                                           bool exclusive, bool stream) noexcept {
  using V = vec_for<T>;
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  if constexpr (sequential_order_v<Op, T>) {
    // Floating-point products: one running value in order (see ops.hpp); the vectors
    // only convert W elements at a time (float16 through F16C).
    A running = Op::combine(s.offset, s.local), last = s.last;
    alignas(64) A buffer[W];
    std::size_t i = 0;
    for (; i + W <= n; i += W) {
      V::store(buffer, V::load(Reverse ? in - i - (W - 1) : in + i));
      for (std::size_t j = 0; j < W; ++j) {
        A& value = buffer[Reverse ? W - 1 - j : j];
        running = Op::combine(running, value);
        value = exclusive ? last : running;
        last = running;
      }
      V::store(Reverse ? out - i - (W - 1) : out + i, V::load(static_cast<const A*>(buffer)));
    }
    line_state<A> rest{running, Op::template identity<A>(), last, 0};
    const std::ptrdiff_t step = Reverse ? -1 : 1;
    const auto done = static_cast<std::ptrdiff_t>(i) * step;
    scalar::scan_strided<Op, T>(rest, in + done, step, out + done, step, n - i, exclusive);
    s = rest;
    return;
  }
  constexpr bool exact = std::is_integral_v<T>;  // integers: no blocks needed, order is free
  // Non-temporal stores need every vector store aligned (the first store decides), and
  // pay off only as whole 64-byte lines: half-line ones (float16, 8-bit) measured slower.
  const T* first_store = Reverse ? out - (W - 1) : out;
  stream = stream && n >= W && W * sizeof(T) >= 64 &&
           reinterpret_cast<std::uintptr_t>(first_store) % (W * sizeof(T)) == 0;

  // Integers keep one running value in `local` (the state's value is offset (op) local).
  reg offset = V::broadcast(exact ? Op::template identity<A>() : s.offset);
  reg local = V::broadcast(exact ? Op::combine(s.offset, s.local) : s.local);
  reg prev = V::broadcast(s.last);
  std::size_t position = s.position;
  std::size_t i = 0;
  while (i < n) {
    const std::size_t span = exact ? n - i : (std::min)(n - i, block_elements - position);
    std::size_t j = 0;
    for (; j + W <= span; j += W) {
      const std::size_t at = i + j;
      const reg x = Reverse ? V::reverse(V::load(in - at - (W - 1))) : V::load(in + at);
      const reg prefix = V::template scan<Op>(x);
      const reg within = V::template combine<Op>(local, prefix);
      const reg inclusive = exact ? within : V::template combine<Op>(offset, within);
      reg y = exclusive ? V::shift_in(inclusive, prev) : inclusive;
      if (Reverse) y = V::reverse(y);
      T* dst = Reverse ? out - at - (W - 1) : out + at;
      if (stream)
        V::stream(dst, y);
      else
        V::store(dst, y);
      prev = inclusive;
      local = V::template combine<Op>(local, V::broadcast_last(prefix));  // == last lane of within
    }
    if (j < span) {  // scalar tail: fewer than W elements left in this line or block
      A off = static_cast<A>(V::first(offset)), loc = static_cast<A>(V::first(local));
      A last = static_cast<A>(V::last(prev));
      for (; j < span; ++j) {
        const std::ptrdiff_t at = Reverse ? -static_cast<std::ptrdiff_t>(i + j) : static_cast<std::ptrdiff_t>(i + j);
        loc = Op::combine(loc, to_acc(in[at]));
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
  if (stream) _mm_sfence();  // order the non-temporal stores before anything that follows
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
template <class Op, class T, bool Reverse>
TALLY_SIMD_TARGET acc_t<T> reduce_contiguous_dir(const T* in, std::size_t n) noexcept {
  using V = vec_for<T>;
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  reg local = V::broadcast(Op::template identity<A>());
  std::size_t j = 0;
  if constexpr (has_tree_totals<V> && std::is_same_v<Op, sum_op>) {
    // Sixteen vectors at a time: their tree totals, then the same chain of adds.
    alignas(64) A totals[16];
    A loc = Op::template identity<A>();
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
  A loc = static_cast<A>(V::first(local));
  for (; j < n; ++j) loc = Op::combine(loc, to_acc(in[Reverse ? -static_cast<std::ptrdiff_t>(j) : static_cast<std::ptrdiff_t>(j)]));
  return loc;
}

template <class Op, class T>
TALLY_SIMD_TARGET acc_t<T> reduce_contiguous(const T* in, bool reverse, std::size_t n) noexcept {
  return reverse ? reduce_contiguous_dir<Op, T, true>(in, n) : reduce_contiguous_dir<Op, T, false>(in, n);
}

template <class Op, class T>
TALLY_SIMD_TARGET void scan_contiguous(line_state<acc_t<T>>& s, const T* in, T* out, bool reverse, std::size_t n,
                                       bool exclusive, bool stream) noexcept {
  if (reverse)
    scan_contiguous_dir<Op, T, true>(s, in, out, n, exclusive, stream);
  else
    scan_contiguous_dir<Op, T, false>(s, in, out, n, exclusive, stream);
}

/// Rows of running values (the axis is outer, columns contiguous): full-width vertical
/// combines, one row after the other, so each column keeps the sequential order.
template <class Op, class T>
TALLY_SIMD_TARGET void scan_columns(const T* in, std::ptrdiff_t in_row_stride, T* out, std::ptrdiff_t out_row_stride,
                                    std::size_t width, std::size_t rows, acc_t<T>* acc, bool exclusive,
                                    bool starts_are_carries, bool stream) noexcept {
  using V = vec_for<T>;
  using A = acc_t<T>;
  using reg = typename V::reg;
  constexpr std::size_t W = V::width;
  constexpr std::size_t bytes = W * sizeof(T);
  stream = stream && width >= W && reinterpret_cast<std::uintptr_t>(out) % bytes == 0 &&
           (out_row_stride * static_cast<std::ptrdiff_t>(sizeof(T))) % static_cast<std::ptrdiff_t>(bytes) == 0;
  const reg empty = V::broadcast(Op::template empty<A>());
  for (std::size_t k = 0; k < rows; ++k) {
    const T* row_in = in + static_cast<std::ptrdiff_t>(k) * in_row_stride;
    T* row_out = out + static_cast<std::ptrdiff_t>(k) * out_row_stride;
    const bool empty_row = exclusive && k == 0 && !starts_are_carries;
    std::size_t j = 0;
    for (; j + W <= width; j += W) {
      const reg before = V::load(acc + j);
      const reg after = V::template combine<Op>(before, V::load(row_in + j));
      const reg y = exclusive ? (empty_row ? empty : before) : after;
      if (stream)
        V::stream(row_out + j, y);
      else
        V::store(row_out + j, y);
      V::store(acc + j, after);
    }
    for (; j < width; ++j) {
      const A x = to_acc(row_in[j]);
      const A before = acc[j];
      acc[j] = Op::combine(before, x);
      row_out[j] = from_acc<T>(exclusive ? (empty_row ? Op::template empty<A>() : before) : acc[j]);
    }
  }
  if (stream) _mm_sfence();
}

/// Copies a tile (element (a, b) at tile[a * pitch + b]) to out[a * stride_a + b * stride_b].
/// When the output runs along a (stride_a == 1) and the elements are 4 bytes, square
/// blocks are transposed in registers and written as whole vectors (non-temporal when the
/// output is large and aligned); anything else goes element by element.
template <class T>
TALLY_SIMD_TARGET void scatter_tile(const T* tile, std::size_t n_a, std::size_t n_b, std::size_t pitch, T* out,
                                    std::ptrdiff_t stride_a, std::ptrdiff_t stride_b, bool stream) noexcept {
  if constexpr (sizeof(T) == 4) {
    constexpr std::size_t W = transpose32::width;
    if (stride_a == 1 && n_a % W == 0 && n_b >= W) {
      stream = stream && reinterpret_cast<std::uintptr_t>(out) % (W * 4) == 0 &&
               (stride_b * 4) % static_cast<std::ptrdiff_t>(W * 4) == 0;
      std::size_t b = 0;
      for (; b + W <= n_b; b += W)
        for (std::size_t a = 0; a < n_a; a += W)
          transpose32::block(tile + a * pitch + b, pitch, out + static_cast<std::ptrdiff_t>(a) +
                                                              static_cast<std::ptrdiff_t>(b) * stride_b,
                             stride_b, stream);
      if (stream) _mm_sfence();
      if (b < n_b)
        scalar::scatter_tile(tile + b, n_a, n_b - b, pitch, out + static_cast<std::ptrdiff_t>(b) * stride_b, stride_a,
                             stride_b);
      return;
    }
  }
  scalar::scatter_tile(tile, n_a, n_b, pitch, out, stride_a, stride_b);
}

template <class Op, class T>
inline constexpr kernel_set<Op, T> kernels{&scan_contiguous<Op, T>, &scan_columns<Op, T>, &reduce_contiguous<Op, T>,
                                           &scatter_tile<T>, &scalar::scan_strided<Op, T>};
