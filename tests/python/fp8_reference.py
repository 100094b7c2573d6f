"""The two fp8 formats in plain Python, written from their definitions
(OCP 8-bit floating point) rather than from tilec's code: decode every
code, and round a float to the nearest code (ties to the even code),
saturating to the largest finite value as the GPU's cvt.rn.satfinite does.
"""
import math

import numpy as np

# name: (exponent bits, mantissa bits, has infinities)
FORMATS = {"fp8e4nv": (4, 3, False), "fp8e5": (5, 2, True)}


def decode(code, fmt):
    """The value of the 8-bit `code` (nan for NaNs)."""
    ebits, mbits, ieee = FORMATS[fmt]
    bias = (1 << (ebits - 1)) - 1
    sign = -1.0 if code & 0x80 else 1.0
    exp = (code >> mbits) & ((1 << ebits) - 1)
    mant = code & ((1 << mbits) - 1)
    top = (1 << ebits) - 1
    if ieee and exp == top:
        return sign * math.inf if mant == 0 else math.nan
    if not ieee and exp == top and mant == (1 << mbits) - 1:
        return math.nan
    if exp == 0:
        return sign * mant * 2.0 ** (1 - bias - mbits)
    return sign * (1 + mant / (1 << mbits)) * 2.0 ** (exp - bias)


def finite_codes(fmt):
    """(value, code) of every finite non-negative code, ascending."""
    out = []
    for code in range(0x80):
        v = decode(code, fmt)
        if math.isfinite(v):
            out.append((v, code))
    return sorted(out)


def encode(x, fmt):
    """The code of float `x` rounded to nearest even, saturated; NaN 0x7f."""
    if math.isnan(x):
        return 0x7F
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    table = finite_codes(fmt)
    largest, largest_code = table[-1]
    if a >= largest:
        return sign | largest_code
    for (lo, lo_code), (hi, hi_code) in zip(table, table[1:]):
        if lo <= a <= hi:
            if a - lo < hi - a:
                return sign | lo_code
            if a - lo > hi - a:
                return sign | hi_code
            return sign | (lo_code if lo_code % 2 == 0 else hi_code)
    raise AssertionError("unreachable")


def decode_array(codes, fmt):
    """decode() of every code of an array (by a table of the 256 values)."""
    table = np.array([decode(c, fmt) for c in range(256)], dtype=np.float64)
    return table[np.asarray(codes, dtype=np.uint8)]


def encode_array(values, fmt):
    """encode() of every value of an array, vectorised (large operands):
    the nearest entry of the table of finite values, the even code on a
    tie, the largest code past the end."""
    x = np.asarray(values, dtype=np.float64)
    table = finite_codes(fmt)
    mags = np.array([v for v, _ in table])
    codes = np.array([c for _, c in table], dtype=np.uint8)
    a = np.abs(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=np.inf))
    hi = np.clip(np.searchsorted(mags, a), 1, len(mags) - 1)
    lo = hi - 1
    below, above = a - mags[lo], mags[hi] - a
    pick_hi = (above < below) | ((above == below) & (codes[hi] % 2 == 0))
    out = np.where(pick_hi, codes[hi], codes[lo])
    out = np.where(a >= mags[-1], codes[-1], out)
    out = out | np.where(np.signbit(x), 0x80, 0).astype(np.uint8)
    return np.where(np.isnan(x), 0x7F, out).astype(np.uint8)


def special_values(fmt):
    """Values that probe rounding: every code's value, the midpoints between
    neighbours (ties), points just beside them, the largest value and past
    it, infinities, NaN, the smallest subnormal and below."""
    table = [v for v, _ in finite_codes(fmt)]
    out = []
    for lo, hi in zip(table, table[1:]):
        mid = (lo + hi) / 2
        out += [lo, mid, np.nextafter(np.float32(mid), np.float32(0.0)),
                np.nextafter(np.float32(mid), np.float32(np.inf))]
    largest = table[-1]
    out += [largest, largest * 1.03, largest * 1.2, largest * 4, 1e30,
            math.inf, math.nan, table[1] / 2, table[1] / 4, 1e-30, 0.0]
    values = np.array(out, dtype=np.float32)
    return np.concatenate([values, -values])
