#!/usr/bin/env python3
"""tally's scan vocabulary against NumPy, with float64 (complex128) references.

Loads tests/numpy_vocabulary_bridge.cpp (a shared module) with ctypes and runs random
cases of cumsum / cumprod with an output dtype (NumPy's dtype=), include_initial (NumPy
2.1's cumulative_sum(include_initial=True), built here as the identity followed by the
cumsum, since older NumPy lacks it), nancumsum / nancumprod, and complex64 / complex128,
on strided views (transposed, stepped, reversed, broadcast) in both directions.

  * integer outputs: np.cumsum / np.cumprod with the same dtype= (both wrap): exact;
  * floating and complex outputs: the reference is computed in float64 / complex128 and
    tally must be within n * eps(out) * sum|x| of it for sums (products: of prod|x|),
    plus one output ulp for the final rounding; NaN and infinity positions must agree.

Usage: test_numpy_vocabulary.py BRIDGE [--seed S] [--cases N]
"""

import argparse
import ctypes
import sys

import numpy as np

CUMSUM, CUMPROD, NANCUMSUM, NANCUMPROD = range(4)
NAMES = ["cumsum", "cumprod", "nancumsum", "nancumprod"]

# (input dtype, output dtype) pairs compiled into the bridge.
PAIRS = [
    ("int8", "int8"), ("int8", "int16"), ("int8", "int64"), ("uint8", "uint8"), ("uint8", "int32"),
    ("uint8", "uint64"), ("int16", "int64"), ("int16", "float32"), ("uint16", "uint32"), ("int32", "int32"),
    ("int32", "int64"), ("int32", "float64"), ("uint32", "uint64"), ("int64", "int64"), ("float16", "float16"),
    ("float16", "float32"), ("float16", "float64"), ("float32", "float32"), ("float32", "float64"),
    ("float64", "float64"), ("complex64", "complex64"), ("complex64", "complex128"),
    ("complex128", "complex128"),
]

I64P = ctypes.POINTER(ctypes.c_int64)


class Failure(Exception):
    pass


class Bridge:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        f = self.lib.tally_numpy_vocabulary
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, I64P, ctypes.c_void_p, I64P,
                      I64P, ctypes.c_void_p, I64P, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                      ctypes.c_char_p, ctypes.c_size_t]

    def run(self, function, x, out, axis, reverse, include_initial, threads):
        def arr(values):
            return (ctypes.c_int64 * len(values))(*values)
        message = ctypes.create_string_buffer(256)
        code = self.lib.tally_numpy_vocabulary(
            function, x.dtype.name.encode(), out.dtype.name.encode(), x.ndim, arr(x.shape),
            ctypes.c_void_p(x.ctypes.data), arr(x.strides), arr(out.shape), ctypes.c_void_p(out.ctypes.data),
            arr(out.strides), axis, int(reverse), int(include_initial), threads, message, len(message))
        return code, message.value.decode()


def numpy_scan(function, x, axis, reverse, include_initial, dtype):
    """The NumPy result in `dtype`, direction and include_initial applied around np.cumsum."""
    a = np.flip(x, axis) if reverse else x
    fn = [np.cumsum, np.cumprod, np.nancumsum, np.nancumprod][function]
    with np.errstate(all="ignore"):
        y = fn(a, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(y.shape)
        shape[axis] = 1
        first = np.zeros(shape, dtype) if function in (CUMSUM, NANCUMSUM) else np.ones(shape, dtype)
        y = np.concatenate([first, y], axis=axis)
    return np.flip(y, axis) if reverse else y


def bound(function, x, axis, reverse, include_initial, out_dtype):
    """n * eps * (sum|x| or prod|x|) per output, in float64."""
    mag = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
    if function in (NANCUMSUM, NANCUMPROD):
        mag = np.where(np.isnan(mag), 0.0 if function == NANCUMSUM else 1.0, mag)
    sums = numpy_scan(CUMSUM if function in (CUMSUM, NANCUMSUM) else CUMPROD, mag, axis, reverse,
                      include_initial, np.float64)
    n = numpy_scan(CUMSUM, np.ones(x.shape), axis, reverse, include_initial, np.float64)
    eps = np.finfo(out_dtype).eps
    with np.errstate(all="ignore"):
        return (n + 2) * eps * sums + np.finfo(out_dtype).tiny


def random_values(rng, dtype, shape, function):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if function == CUMPROD and rng.random() < 0.5:
            return rng.integers(-2 if dt.kind == "i" else 0, 3, size=shape).astype(dt)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
    def reals():
        v = rng.uniform(-4, 4, size=shape)
        if function in (CUMPROD, NANCUMPROD):
            v = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)
        special = rng.random(shape) < 0.05
        # Complex products with infinities follow std::complex (C99 Annex G recovers
        # infinities where NumPy's plain formula gives NaN): documented, not compared.
        specials = [np.nan, -0.0] if dt.kind == "c" and function in (CUMPROD, NANCUMPROD) else \
            [np.nan, np.inf, -np.inf, -0.0]
        v[special] = rng.choice(specials, size=int(special.sum()))
        if function in (NANCUMSUM, NANCUMPROD):
            v[rng.random(shape) < 0.15] = np.nan
        return v
    if dt.kind == "c":
        z = np.empty(shape, dtype=dt)  # parts set separately: nan * 1j would spread NaN
        z.real, z.imag = reals(), reals()
        return z
    return reals().astype(dt)


def strided(rng, base):
    """A view of `base`: transposed, stepped, reversed, sometimes broadcast."""
    v = base
    for d in range(v.ndim):
        if rng.random() < 0.3:
            v = np.flip(v, d)
        if rng.random() < 0.2 and v.shape[d] > 2:
            sl = [slice(None)] * v.ndim
            sl[d] = slice(None, None, 2)
            v = v[tuple(sl)]
    if v.ndim > 1 and rng.random() < 0.5:
        v = np.transpose(v, rng.permutation(v.ndim))
    return v


def check(got, want, tol, exact, what):
    if exact:
        if not np.array_equal(got, want):
            raise Failure(f"{what}: mismatch\n got {got}\nwant {want}")
        return
    real = got.real.dtype if got.dtype.kind == "c" else got.dtype
    g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    for a, b in ([(g.real, want.real), (g.imag, want.imag)] if g.dtype.kind == "c" else [(g, want)]):
        # The data stays far from overflow, so NaN and infinities come from the inputs and
        # must sit where the float64 reference has them; finite values within the bound
        # plus one ulp of the output type (its final rounding).
        same_special = (np.isnan(a) == np.isnan(b)) & (np.isinf(b) <= (a == b))
        if not np.all(same_special):
            raise Failure(f"{what}: NaN or infinity differs\n got {a}\nwant {b}")
        finite = np.isfinite(b)
        with np.errstate(all="ignore"):
            ulp = np.spacing(np.abs(b[finite]).astype(real)).astype(np.float64)
            err = np.abs(a[finite] - b[finite])
        if np.any(err > tol[finite] + ulp):
            raise Failure(f"{what}: outside the bound\n got {a}\nwant {b}\n tol {tol}")


def run_case(bridge, rng, index):
    function = int(rng.integers(0, 4))
    in_name, out_name = PAIRS[int(rng.integers(0, len(PAIRS)))]
    in_dt, out_dt = np.dtype(in_name), np.dtype(out_name)
    if function in (NANCUMSUM, NANCUMPROD) and in_dt.kind in "iu" and rng.random() < 0.7:
        function -= 2  # nan-variants of integers equal the plain ones: test them a little
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(0 if rng.random() < 0.05 else 1, 7, size=rank))
    x = strided(rng, random_values(rng, in_dt, tuple(s * 2 for s in shape), function))
    x = x[tuple(slice(0, s) for s in shape)] if x.shape != shape else x
    if rng.random() < 0.1 and x.ndim > 1:
        d = int(rng.integers(0, x.ndim))
        x = np.broadcast_to(np.take(x, [0], axis=d), x.shape) if x.shape[d] > 0 else x
    axis = int(rng.integers(-x.ndim, x.ndim))
    reverse = bool(rng.random() < 0.5)
    include_initial = bool(rng.random() < 0.4)
    out_shape = list(x.shape)
    out_shape[axis] += int(include_initial)
    out = strided(rng, np.full(tuple(s * 2 for s in out_shape), 7, dtype=out_dt))
    out = np.lib.stride_tricks.as_strided(out, shape=tuple(out_shape), strides=out.strides) \
        if all(o >= s for o, s in zip(out.shape, out_shape)) else np.full(out_shape, 7, dtype=out_dt)
    threads = int(rng.integers(1, 4))
    x_copy = np.array(x)
    what = (f"case {index}: {NAMES[function]} {in_name}->{out_name} shape {x.shape} strides {x.strides} axis {axis} "
            f"reverse {reverse} include_initial {include_initial} out strides {out.strides}")
    code, message = bridge.run(function, x, out, axis, reverse, include_initial, threads)
    if code != 0:
        raise Failure(f"{what}: refused ({code}) {message}")
    if not np.array_equal(x, x_copy, equal_nan=x.dtype.kind in "fc"):
        raise Failure(f"{what}: input changed")
    exact = out_dt.kind in "iu"
    if exact:
        want = numpy_scan(function, x_copy, axis, reverse, include_initial, out_dt)
        check(out, want, None, True, what)
    else:
        wide = np.complex128 if out_dt.kind == "c" else np.float64
        want = numpy_scan(function, x_copy.astype(wide), axis, reverse, include_initial, wide)
        check(out, want, bound(function, x_copy, axis, reverse, include_initial, out_dt), False, what)


def check_errors(bridge):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.full((2, 3), 5, dtype=np.float32)
    code, message = bridge.run(CUMSUM, x, out, 1, False, True, 1)  # include_initial needs length + 1
    if code != 7 or "plus one" not in message or not np.all(out == 5):  # size_mismatch
        raise Failure(f"wrong output length accepted or misreported: {code} {message}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bridge")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--cases", type=int, default=3000)
    args = parser.parse_args()
    bridge = Bridge(args.bridge)
    rng = np.random.default_rng(args.seed)
    check_errors(bridge)
    for index in range(args.cases):
        run_case(bridge, rng, index)
    print(f"{args.cases} random cases and the error case passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as failure:
        print(f"FAILED: {failure}")
        sys.exit(1)
