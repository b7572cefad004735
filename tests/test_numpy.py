#!/usr/bin/env python3
"""tally's typed layer against NumPy.

Loads the bridge (tests/numpy_bridge.cpp, built as a shared module) with ctypes and runs
thousands of random cases: every dtype tally shares with NumPy, shapes of 1..6 dimensions
(size-1 and empty ones too), strided views built the NumPy way (transposes, stepped and
reversed slices, stride-0 broadcasts made with as_strided), outputs that are slices of a
bigger array, and outputs that overlap the input (in place, shifted by one element,
reversed, transposed, two arbitrary views of one buffer). The expected values come from
np.cumsum / np.cumprod on a copy of the input taken before the call:

  * integers: the same dtype, so both wrap identically; compared exactly;
  * float16: accumulated in float32 and rounded once per element, as tally documents;
  * floats whose partial results are exact (small integers, powers of two): bitwise,
    NaN positions equal; otherwise |got - expected| <= n * eps * sum|x| over the prefix
    of n terms (and n * eps * |expected| for products), plus one float16 ulp for float16.

Elements of the output's buffer outside the output view, and the whole input buffer when
it is not the output's, must be left untouched. Each case is also rerun with one thread
and must match bitwise (tally's results never depend on the thread count).

Usage: test_numpy.py BRIDGE [--seed S] [--cases N] [--case K]
Exits non-zero on the first failure, describing the case (seed and case number
reproduce it alone with --case).
"""

import argparse
import ctypes
import sys
import time

import numpy as np

# tally::data_type values (DirectML's).
DTYPE_CODES = {
    np.dtype(np.float32): 1, np.dtype(np.float16): 2, np.dtype(np.uint32): 3,
    np.dtype(np.uint16): 4, np.dtype(np.uint8): 5, np.dtype(np.int32): 6,
    np.dtype(np.int16): 7, np.dtype(np.int8): 8, np.dtype(np.float64): 9,
    np.dtype(np.uint64): 10, np.dtype(np.int64): 11,
}
DTYPES = list(DTYPE_CODES)

# tally::status_code values the test expects, and the bridge's own codes.
INVALID_DIMENSION_COUNT = 2
INVALID_AXIS = 8
OVERLAPPING_OUTPUT = 12
MISALIGNED_BUFFER = 13
BAD_DTYPE = 100
BAD_OP = 101
BAD_STRIDE = 102

SUM, PRODUCT = 0, 1


class Failure(Exception):
    """A mismatch between tally and the reference; the message describes the case."""


class Bridge:
    """The C entry point tally_numpy_scan, called with ndarray.ctypes pointers and byte strides."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        f = self.lib.tally_numpy_scan
        i64p = ctypes.POINTER(ctypes.c_int64)
        f.argtypes = [ctypes.c_int, ctypes.c_int, i64p, ctypes.c_void_p, i64p, ctypes.c_void_p, i64p,
                      ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                      ctypes.c_char_p, ctypes.c_size_t]
        f.restype = ctypes.c_int
        self.f = f
        self.message = ctypes.create_string_buffer(512)

    def raw(self, dtype_code, shape, in_ptr, in_strides, out_ptr, out_strides, axis, reverse, exclusive,
            op, threads):
        rank = len(shape)
        arr = ctypes.c_int64 * max(rank, 1)
        code = self.f(dtype_code, rank, arr(*shape), in_ptr, arr(*in_strides), out_ptr, arr(*out_strides),
                      axis, int(reverse), int(exclusive), op, threads, self.message, len(self.message))
        return code, self.message.value.decode()

    def scan(self, x, out, axis, reverse, exclusive, op, threads):
        assert x.shape == out.shape and x.dtype == out.dtype
        return self.raw(DTYPE_CODES[x.dtype], x.shape, x.ctypes.data, x.strides, out.ctypes.data, out.strides,
                        axis, reverse, exclusive, op, threads)


# ---------------------------------------------------------------------------------------
# The reference

def reference(x, axis, reverse, exclusive, op):
    """np.cumsum / np.cumprod with tally's direction, mode and float16 rule."""
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    a = np.array(x, dtype=acc)
    with np.errstate(all="ignore"):  # overflow to inf and inf - inf are part of the contract
        return _reference(a, axis, reverse, exclusive, op, acc).astype(x.dtype)


def _reference(a, axis, reverse, exclusive, op, acc):
    if reverse:
        a = np.flip(a, axis)
    r = (np.cumsum if op == SUM else np.cumprod)(a, axis=axis, dtype=acc)
    if exclusive and r.shape[axis] > 0:
        first = np.zeros if op == SUM else np.ones  # +0.0: an exclusive sum starts with +0
        shape = list(r.shape)
        shape[axis] = 1
        r = np.concatenate([first(shape, dtype=acc), np.delete(r, -1, axis=axis)], axis=axis)
    if reverse:
        r = np.flip(r, axis)
    return r


def prefix_sums(values, axis, reverse, exclusive):
    """The per-output count of terms (values = 1) or sum of |x| over the same prefix as the scan."""
    return reference(np.asarray(values, dtype=np.float64), axis, reverse, exclusive, SUM)


def float_tolerance(x, expected, axis, reverse, exclusive, op):
    acc = np.float32 if x.dtype == np.float16 else x.dtype.type
    eps = float(np.finfo(acc).eps)
    count = prefix_sums(np.ones(x.shape), axis, reverse, exclusive)
    if op == SUM:
        tol = count * eps * prefix_sums(np.abs(x.astype(np.float64)), axis, reverse, exclusive)
    else:
        tol = count * eps * np.abs(expected.astype(np.float64)) + count * float(np.finfo(acc).smallest_subnormal)
    if x.dtype == np.float16:  # the final rounding to float16 may go either way
        with np.errstate(invalid="ignore", over="ignore"):
            tol = tol + np.spacing(np.abs(expected)).astype(np.float64)
    return tol


def compare(got, expected, exact, tol):
    """Index of the first wrong element, or None."""
    if got.dtype.kind in "iu":
        bad = got != expected
    else:
        nan_g, nan_e = np.isnan(got), np.isnan(expected)
        if exact:
            bits = np.dtype("u%d" % got.dtype.itemsize)
            bad = (np.ascontiguousarray(got).view(bits) != np.ascontiguousarray(expected).view(bits))
        else:
            g, e = got.astype(np.float64), expected.astype(np.float64)
            with np.errstate(invalid="ignore"):
                bad = ~((g == e) | (np.abs(g - e) <= tol))
        bad = (bad & ~(nan_g & nan_e)) | (nan_g != nan_e)
    where = np.argwhere(bad)
    return tuple(int(i) for i in where[0]) if where.size else None


# ---------------------------------------------------------------------------------------
# Random inputs

def random_data(rng, dtype, shape, op):
    """Returns (data, exact): exact when every partial result a scan can form is representable."""
    n = int(np.prod(shape))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if op == SUM or rng.random() < 0.5:  # full range: exercises wrap-around
            return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True), True
        low = 0 if dtype.kind == "u" else -3
        return rng.integers(low, 3, size=shape, endpoint=True).astype(dtype), True
    mode = rng.choice(["exact", "exact", "random", "special"])
    line = max(max(shape), 1)  # the longest line any axis can have
    if op == SUM:
        if mode == "random":
            scale = 10.0 ** rng.uniform(-3, 3)
            if dtype == np.float16:  # keep sums far below 65504, where rounding could go to inf or not
                scale = min(10.0 ** rng.uniform(-2, 1), 2000.0 / line)
            data = rng.standard_normal(shape) * scale
            if rng.random() < 0.3:
                data = np.abs(data)
            return data.astype(dtype), False
        data = rng.integers(-8, 8, size=shape, endpoint=True).astype(dtype)
        data[rng.random(shape) < 0.05] = -0.0
    else:
        if mode == "random":
            # |x| = 2^u with u uniform in [-a, a]: the log of a partial product is a random walk
            # kept within a few powers of two, so nothing over- or underflows.
            a = min(1.0, 3.0 / np.sqrt(line))
            data = np.exp2(rng.uniform(-a, a, size=shape)) * rng.choice([-1.0, 1.0], size=shape)
            return data.astype(dtype), False
        # Powers of two stay exact as long as every partial product stays in range: few
        # non-unit factors per line keep the running exponent small for any bracketing.
        p = min(0.5, 100.0 / line)
        data = rng.choice([1.0, -1.0], size=shape)
        scaled = rng.random(shape) < p
        data[scaled] *= rng.choice([2.0, 0.5], size=int(scaled.sum()))
        data[rng.random(shape) < 0.02] = 0.0
        data = data.astype(dtype)
    if mode == "special" and n:
        specials = np.array([np.nan, np.inf, -np.inf], dtype=dtype)
        mask = rng.random(shape) < 0.02
        data[mask] = rng.choice(specials, size=int(mask.sum()))
    return data, True


def random_shape(rng, square=False):
    rank = int(rng.integers(1, 7))
    if not square and rng.random() < 0.1:  # a long line: several of tally's 4096-element float blocks
        rank = int(rng.integers(1, 4))
        shape = [int(rng.choice([1, 2, 3])) for _ in range(rank)]
        shape[int(rng.integers(rank))] = int(rng.integers(4000, 13000))
        return shape
    choices = [1, 1, 2, 3, 4, 5, 7, 8, 11, 16, 17, 31, 64, 67]
    limit = 3000
    shape = []
    for _ in range(rank):
        size = int(rng.choice(choices))
        while size > 1 and int(np.prod(shape + [size])) > limit:
            size //= 2
        shape.append(size)
    if rng.random() < 0.06:  # empty somewhere
        shape[int(rng.integers(rank))] = 0
    if square:
        if rank < 2:
            shape.append(shape[0])
        i, j = rng.choice(len(shape), size=2, replace=False)
        shape[i] = shape[j] = min(shape[i], shape[j])
    return shape


def strided_view(rng, base_shape_fn, shape):
    """A random view of `shape` the NumPy way: a padded buffer, a slice per dimension with a
    step of +-1..3 (negative: reversed), then a transpose. Returns (base, view)."""
    rank = len(shape)
    perm = list(range(rank)) if rng.random() < 0.4 else list(rng.permutation(rank))
    steps = [1] * rank
    if rng.random() < 0.6:
        budget = 8
        for d in range(rank):
            s = int(rng.choice([1, 1, 2, 3, -1, -2]))
            if abs(s) <= budget:
                steps[d] = s
                budget //= abs(s)
    pads = [int(rng.choice([0, 0, 1, 2])) for _ in range(rank)]
    # Physical dimension perm[d] holds view dimension d.
    physical = [0] * rank
    slices = [None] * rank
    for d in range(rank):
        n, s, pad = shape[d], steps[d], pads[d]
        extent = abs(s) * (n - 1) + 1 if n else 0
        physical[perm[d]] = extent + pad
        lo = int(rng.integers(0, pad + 1))
        if n == 0:
            slices[perm[d]] = slice(lo, lo)
        elif s > 0:
            slices[perm[d]] = slice(lo, lo + extent, s)
        else:
            start = lo + extent - 1
            slices[perm[d]] = slice(start, lo - 1 if lo > 0 else None, s)
    base = base_shape_fn(physical)
    view = base[tuple(slices)].transpose(perm)
    assert list(view.shape) == list(shape), (view.shape, shape)
    return base, view


def broadcast(rng, view):
    """Zero the strides of some dimensions: every index reads the first element there."""
    strides = [0 if (n > 1 and rng.random() < 0.4) else s for n, s in zip(view.shape, view.strides)]
    return np.lib.stride_tricks.as_strided(view, shape=view.shape, strides=strides)


def lattice_view(rng, flat, shape):
    """A random non-self-overlapping view of `shape` inside the 1-D buffer `flat`."""
    rank = len(shape)
    order = rng.permutation(rank)
    strides = [0] * rank
    step = 1
    budget = 4  # the gaps multiply the span; the caller's buffer holds 4x the elements
    for d in reversed(order):  # packed in a random dimension order, with gaps
        gap = int(rng.choice([1, 1, 2])) if budget >= 2 else 1
        budget //= gap
        strides[d] = step * gap * int(rng.choice([1, -1]))
        step *= max(shape[d], 1) * gap
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0)
    if high - low + 1 > flat.size:
        raise ValueError("buffer too small")
    start = int(rng.integers(-low, flat.size - high))
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[start:], shape=shape, strides=[s * item for s in strides])


def offsets_in(base, view):
    """Element offsets of every element of `view` inside `base` (a buffer it points into)."""
    item = base.itemsize
    off = np.full(view.shape, (view.ctypes.data - base.ctypes.data) // item, dtype=np.int64)
    for d, (n, s) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[d] = n
        off = off + (np.arange(n, dtype=np.int64) * (s // item)).reshape(shape)
    return off


def rebase(view, base, other):
    """The view with the same offset and strides in `other`, a buffer shaped like `base`."""
    offset = (view.ctypes.data - base.ctypes.data) // base.itemsize
    return np.lib.stride_tricks.as_strided(other.reshape(-1)[offset:], shape=view.shape, strides=view.strides)


def fill(dtype):
    """A sentinel filler for output buffers (an unusual bit pattern, NaN-free)."""
    def make(shape):
        if dtype.kind == "f":
            return np.full(shape, -12345.0 if dtype != np.float16 else -1234.0, dtype=dtype)
        return np.full(shape, np.iinfo(dtype).max - 5, dtype=dtype)
    return make


# ---------------------------------------------------------------------------------------
# One random case

OUTPUT_MODES = ["fresh", "fresh", "fresh", "contiguous", "inplace", "shifted", "reversed", "transposed",
                "shared"]


def run_case(bridge, rng, index):
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    op = int(rng.integers(2))
    mode = OUTPUT_MODES[int(rng.integers(len(OUTPUT_MODES)))]
    shape = random_shape(rng, square=(mode == "transposed"))
    rank = len(shape)
    axis = int(rng.integers(-rank, rank))
    reverse = bool(rng.integers(2))
    exclusive = bool(rng.integers(2))
    threads = int(rng.choice([1, 1, 2, 3, 4, 0]))
    data, exact = random_data(rng, dtype, shape, op)

    def make_base(physical):
        return np.empty(physical, dtype=dtype)

    # Input and output views, and the buffers that hold them.
    if mode in ("fresh", "contiguous"):
        in_base, x = strided_view(rng, make_base, shape)
        x[...] = data
        if rng.random() < 0.25:
            x = broadcast(rng, x)
        if mode == "contiguous":
            out_base = fill(dtype)(shape)
            out = out_base
        else:
            out_base, out = strided_view(rng, fill(dtype), shape)
    elif mode in ("inplace", "reversed", "transposed"):
        in_base, x = strided_view(rng, make_base, shape)
        x[...] = data
        out_base = in_base
        if mode == "inplace":
            out = x
        elif mode == "reversed":
            flips = [d for d in range(rank) if rng.random() < 0.6] or [int(rng.integers(rank))]
            out = np.flip(x, flips)
        else:
            pairs = [(a, b) for a in range(rank) for b in range(a + 1, rank) if shape[a] == shape[b]]
            i, j = pairs[int(rng.integers(len(pairs)))]
            out = np.swapaxes(x, i, j)
    elif mode == "shifted":
        # One flat buffer; input and output are the same layout one (or k) elements apart.
        n = int(np.prod(shape))
        k = int(rng.choice([1, 1, 1, -1, 2, -3]))
        flat = np.empty(n + abs(k) + 2, dtype=dtype)
        flat[...] = fill(dtype)(flat.shape)
        a, b = 1 + max(k, 0), 1 + max(-k, 0)
        order = "F" if rng.random() < 0.3 else "C"
        x = flat[b:b + n].reshape(shape, order=order)
        out = flat[a:a + n].reshape(shape, order=order)
        x[...] = data
        in_base = out_base = flat
    else:  # shared: two arbitrary lattices in one buffer, so any partial overlap occurs
        n = int(np.prod([max(size, 1) for size in shape]))
        flat = fill(dtype)(int(n * 4.5) + 8)
        x = lattice_view(rng, flat, shape)
        x[...] = data
        if rng.random() < 0.2:
            x = broadcast(rng, x)
        out = lattice_view(rng, flat, shape)
        in_base = out_base = flat

    x_copy = np.array(x, copy=True)
    expected = reference(x_copy, axis, reverse, exclusive, op)
    in_before = np.array(in_base, copy=True)
    out_before = np.array(out_base, copy=True)

    def describe():
        return ("case %d: dtype=%s op=%s shape=%s axis=%d reverse=%s exclusive=%s threads=%d output=%s\n"
                "  input strides (bytes) %s, offset %d in its buffer; output strides %s, offset %d\n"
                "  input data exact=%s" % (
                    index, dtype.name, "cumsum" if op == SUM else "cumprod", tuple(shape), axis, reverse,
                    exclusive, threads, mode, x.strides, (x.ctypes.data - in_base.ctypes.data) // dtype.itemsize,
                    out.strides, (out.ctypes.data - out_base.ctypes.data) // dtype.itemsize, exact))

    code, message = bridge.scan(x, out, axis, reverse, exclusive, op, threads)
    if code != 0:
        raise Failure("%s\n  tally refused the call: code %d: %s" % (describe(), code, message))

    tol = None if exact or dtype.kind in "iu" else float_tolerance(x_copy, expected, axis, reverse, exclusive, op)
    got = np.array(out, copy=True)
    bad = compare(got, expected, exact, tol)
    if bad is not None:
        line = [slice(None) if d == (axis % rank) else bad[d] for d in range(rank)]
        raise Failure("%s\n  first wrong element %s: got %r, expected %r%s\n  input line: %s\n  got line:      %s\n"
                      "  expected line: %s" % (
                          describe(), bad, got[bad], expected[bad],
                          "" if tol is None else " (tolerance %g)" % tol[bad],
                          np.array2string(x_copy[tuple(line)], threshold=40),
                          np.array2string(got[tuple(line)], threshold=40),
                          np.array2string(expected[tuple(line)], threshold=40)))

    # Nothing outside the output view may change (bitwise, so NaN payloads count too).
    bits = np.dtype("u%d" % dtype.itemsize)
    written = np.zeros(out_base.size, dtype=bool)
    written[offsets_in(out_base, out).ravel()] = True
    changed = (out_base.reshape(-1).view(bits) != out_before.reshape(-1).view(bits)) & ~written
    if changed.any():
        where = int(np.argmax(changed))
        raise Failure("%s\n  element %d of the output's buffer lies outside the output view but changed: %r -> %r"
                      % (describe(), where, out_before.reshape(-1)[where], out_base.reshape(-1)[where]))
    if in_base is not out_base and (in_base.reshape(-1).view(bits) != in_before.reshape(-1).view(bits)).any():
        raise Failure("%s\n  the input's buffer changed" % describe())

    # One thread must give the same bits as any other count, on the same layouts (another
    # layout may take another kernel and so another, equally accurate, summation order).
    if threads != 1:
        in_again = np.array(in_before, copy=True)
        out_again = in_again if out_base is in_base else np.array(out_before, copy=True)
        single = rebase(out, out_base, out_again)
        code, message = bridge.scan(rebase(x, in_base, in_again), single, axis, reverse, exclusive, op, 1)
        if code != 0:
            raise Failure("%s\n  tally refused the one-thread rerun: code %d: %s" % (describe(), code, message))
        bad = compare(single, got, True, None)
        if bad is not None:
            raise Failure("%s\n  %d threads and 1 thread differ at %s: %r vs %r"
                          % (describe(), threads, bad, got[bad], single[bad]))


# ---------------------------------------------------------------------------------------
# Fixed cases: errors the bridge or tally must report, with nothing written

def check_errors(bridge):
    checks = 0

    def expect(code_message, want, what, buffers=()):
        nonlocal checks
        code, message = code_message
        if code != want:
            raise Failure("%s: expected code %d, got %d (%s)" % (what, want, code, message))
        for before, after in buffers:
            if not np.array_equal(before, after):
                raise Failure("%s: the output was written although the call was refused" % what)
        checks += 1

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.full((3, 4), 7.0, dtype=np.float32)
    keep = out.copy()
    for axis in (2, 3, -3, -100):
        expect(bridge.scan(x, out, axis, False, False, SUM, 1), INVALID_AXIS, "axis %d of rank 2" % axis,
               [(keep, out)])
    expect(bridge.scan(x, out, 0, False, False, 2, 1), BAD_OP, "op 2", [(keep, out)])
    for code in (0, 12, 13, 99):
        expect(bridge.raw(code, x.shape, x.ctypes.data, x.strides, out.ctypes.data, out.strides, 0, False, False,
                          SUM, 1), BAD_DTYPE, "dtype code %d" % code, [(keep, out)])
    # An output with a zero stride: two output elements at one address.
    flat = np.full(4, 5.0, dtype=np.float32)
    dup = np.lib.stride_tricks.as_strided(flat, shape=(3, 4), strides=(0, 4))
    keep_flat = flat.copy()
    expect(bridge.scan(x, dup, 1, False, False, SUM, 1), OVERLAPPING_OUTPUT, "zero-stride output",
           [(keep_flat, flat)])
    # Interleaving strides: (3, 4) over 6 elements with strides (2, 1) elements.
    flat = np.full(8, 5.0, dtype=np.float32)
    inter = np.lib.stride_tricks.as_strided(flat, shape=(3, 4), strides=(8, 4))
    keep_flat = flat.copy()
    expect(bridge.scan(x, inter, 1, False, False, SUM, 1), OVERLAPPING_OUTPUT, "interleaving output",
           [(keep_flat, flat)])
    # A byte stride that is not a multiple of the element size.
    raw = np.zeros(64, dtype=np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.float32), shape=(5,), strides=(6,))
    out5 = np.full(5, 3.0, dtype=np.float32)
    keep5 = out5.copy()
    expect(bridge.scan(odd, out5, 0, False, False, SUM, 1), BAD_STRIDE, "6-byte stride on float32",
           [(keep5, out5)])
    # A misaligned data pointer (NumPy allows unaligned arrays).
    unaligned = np.frombuffer(raw.tobytes(), dtype=np.float32, count=5, offset=1)
    expect(bridge.scan(unaligned, out5, 0, False, False, SUM, 1), MISALIGNED_BUFFER, "misaligned input",
           [(keep5, out5)])
    # Ranks outside 1..8.
    s = np.float64(1.0)
    t = np.zeros((), dtype=np.float64)
    expect(bridge.raw(9, (), np.array(s).ctypes.data, (), t.ctypes.data, (), 0, False, False, SUM, 1),
           INVALID_DIMENSION_COUNT, "rank 0")
    nine = np.ones((1,) * 9, dtype=np.float64)
    out9 = np.zeros_like(nine)
    expect(bridge.scan(nine, out9, 0, False, False, SUM, 1), INVALID_DIMENSION_COUNT, "rank 9",
           [(np.zeros_like(nine), out9)])
    # Empty tensors: valid, nothing written, any axis in range.
    e = np.zeros((3, 0, 2), dtype=np.int32)
    eo = np.full((3, 0, 2), 9, dtype=np.int32)
    expect(bridge.scan(e, eo, -1, True, True, PRODUCT, 2), 0, "empty tensor")
    expect(bridge.scan(e, eo, 3, True, True, PRODUCT, 2), INVALID_AXIS, "empty tensor, axis 3")
    # The spec's first reference example with a negative axis and reversed views.
    ref = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32)
    o = np.zeros_like(ref)
    expect(bridge.scan(ref, o, -1, False, False, SUM, 1), 0, "reference example 1")
    if not np.array_equal(o, np.array([[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]], dtype=np.float32)):
        raise Failure("reference example 1 through the bridge: got %s" % o)
    return checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bridge", help="path to the tally_numpy_bridge shared module")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--cases", type=int, default=8000)
    parser.add_argument("--case", type=int, default=None, help="run only this case number")
    args = parser.parse_args()

    bridge = Bridge(args.bridge)
    start = time.time()
    passed = 0
    try:
        if args.case is None:
            passed += check_errors(bridge)
        cases = [args.case] if args.case is not None else range(args.cases)
        for index in cases:
            run_case(bridge, np.random.default_rng([args.seed, index]), index)
            passed += 1
    except Failure as failure:
        print("FAILED (seed %d): %s" % (args.seed, failure))
        print("%d passed, 1 failed" % passed)
        return 1
    print("numpy %s, %.1f s" % (np.__version__, time.time() - start))
    print("%d passed, 0 failed" % passed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
