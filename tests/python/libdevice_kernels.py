"""Kernels of tests/python/test_libdevice.py: each libdevice function applied
elementwise, written as Triton users write them (`from ... import
libdevice`), plus the other spellings of the module."""
import tilec
import tilec.language as tl
from tilec.language.extra import libdevice


@tilec.jit
def unary(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if FN == "acos":
        y = libdevice.acos(x)
    elif FN == "acosh":
        y = libdevice.acosh(x)
    elif FN == "asin":
        y = libdevice.asin(x)
    elif FN == "asinh":
        y = libdevice.asinh(x)
    elif FN == "atan":
        y = libdevice.atan(x)
    elif FN == "atanh":
        y = libdevice.atanh(x)
    elif FN == "cbrt":
        y = libdevice.cbrt(x)
    elif FN == "ceil":
        y = libdevice.ceil(x)
    elif FN == "cos":
        y = libdevice.cos(x)
    elif FN == "cosh":
        y = libdevice.cosh(x)
    elif FN == "erf":
        y = libdevice.erf(x)
    elif FN == "erfc":
        y = libdevice.erfc(x)
    elif FN == "exp":
        y = libdevice.exp(x)
    elif FN == "exp2":
        y = libdevice.exp2(x)
    elif FN == "expm1":
        y = libdevice.expm1(x)
    elif FN == "fabs":
        y = libdevice.fabs(x)
    elif FN == "floor":
        y = libdevice.floor(x)
    elif FN == "log":
        y = libdevice.log(x)
    elif FN == "log10":
        y = libdevice.log10(x)
    elif FN == "log1p":
        y = libdevice.log1p(x)
    elif FN == "log2":
        y = libdevice.log2(x)
    elif FN == "nearbyint":
        y = libdevice.nearbyint(x)
    elif FN == "rint":
        y = libdevice.rint(x)
    elif FN == "round":
        y = libdevice.round(x)
    elif FN == "rsqrt":
        y = libdevice.rsqrt(x)
    elif FN == "sin":
        y = libdevice.sin(x)
    elif FN == "sinh":
        y = libdevice.sinh(x)
    elif FN == "sqrt":
        y = libdevice.sqrt(x)
    elif FN == "tan":
        y = libdevice.tan(x)
    elif FN == "tanh":
        y = libdevice.tanh(x)
    else:
        y = libdevice.trunc(x)
    tl.store(out_ptr + offs, y, mask=m)


@tilec.jit
def binary(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    if FN == "atan2":
        z = libdevice.atan2(x, y)
    elif FN == "copysign":
        z = libdevice.copysign(x, y)
    elif FN == "fmax":
        z = libdevice.fmax(x, y)
    elif FN == "fmin":
        z = libdevice.fmin(x, y)
    elif FN == "fmod":
        z = libdevice.fmod(x, y)
    else:
        z = libdevice.pow(x, y)
    tl.store(out_ptr + offs, z, mask=m)


@tilec.jit
def classify(x_ptr, nan_ptr, inf_ptr, finite_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(nan_ptr + offs, libdevice.isnan(x).to(tl.int32), mask=m)
    tl.store(inf_ptr + offs, libdevice.isinf(x).to(tl.int32), mask=m)
    # Booleans, as Triton's: `~` negates them (on int32 it would not).
    finite = ~libdevice.isnan(x) & ~libdevice.isinf(x)
    tl.store(finite_ptr + offs, tl.where(finite, x, 0.0), mask=m)


@tilec.jit
def count_bits(x_ptr, clz_ptr, popc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(clz_ptr + offs, libdevice.clz(x), mask=m)
    tl.store(popc_ptr + offs, libdevice.popc(x), mask=m)


@tilec.jit
def spellings(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # tl.extra.libdevice, tl.extra.cuda.libdevice and a function imported by
    # name are the same functions; fma takes three operands.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.extra.libdevice.pow(x, 2.0) + tl.extra.cuda.libdevice.pow(x, 2.0)
    tl.store(out_ptr + offs, libdevice.fma(y, 0.5, x))


@tilec.jit
def fma_ints(a_ptr, out_ptr, BLOCK: tl.constexpr):
    # Integers go through fp32, as for the other functions.
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    tl.store(out_ptr + offs, libdevice.fma(a, a, 1))


@tilec.jit
def fast(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    # The fp32 approximations (fast_powf takes y too).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if FN == "fast_cosf":
        z = libdevice.fast_cosf(x)
    elif FN == "fast_expf":
        z = libdevice.fast_expf(x)
    elif FN == "fast_log10f":
        z = libdevice.fast_log10f(x)
    elif FN == "fast_log2f":
        z = libdevice.fast_log2f(x)
    elif FN == "fast_logf":
        z = libdevice.fast_logf(x)
    elif FN == "fast_powf":
        z = libdevice.fast_powf(x, tl.load(y_ptr + offs, mask=m))
    elif FN == "fast_sinf":
        z = libdevice.fast_sinf(x)
    elif FN == "fast_tanf":
        z = libdevice.fast_tanf(x)
    else:
        z = libdevice.fast_tanhf(x)
    tl.store(out_ptr + offs, z, mask=m)
