"""libdevice (issue 17): Triton's triton.language.extra.libdevice functions
on the interpreter against numpy, each in fp32 and fp64 (fp16 through
fp32), the module's spellings, the integer and classification functions,
the errors, and (marked gpu) the same on the GPU, where they are CUDA's
libdevice: within a few ulp of numpy's float64 results."""
import math

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _tilec
from tilec.language.extra import libdevice

import libdevice_kernels as k

UNARY = {
    "acos": (np.arccos, -0.99, 0.99), "acosh": (np.arccosh, 1.0, 10.0),
    "asin": (np.arcsin, -0.99, 0.99), "asinh": (np.arcsinh, -10, 10),
    "atan": (np.arctan, -10, 10), "atanh": (np.arctanh, -0.99, 0.99),
    "cbrt": (np.cbrt, -100, 100), "ceil": (np.ceil, -10, 10),
    "cos": (np.cos, -10, 10), "cosh": (np.cosh, -10, 10),
    "erf": (np.vectorize(math.erf), -3, 3), "erfc": (np.vectorize(math.erfc), -3, 3),
    "exp": (np.exp, -20, 20), "exp2": (np.exp2, -20, 20), "expm1": (np.expm1, -5, 5),
    "fabs": (np.fabs, -10, 10), "floor": (np.floor, -10, 10),
    "log": (np.log, 0.01, 100), "log10": (np.log10, 0.01, 100),
    "log1p": (np.log1p, -0.9, 100), "log2": (np.log2, 0.01, 100),
    "nearbyint": (np.rint, -10, 10), "rint": (np.rint, -10, 10),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), -10, 10),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 100), "sin": (np.sin, -10, 10),
    "sinh": (np.sinh, -10, 10), "sqrt": (np.sqrt, 0, 100), "tan": (np.tan, -1.5, 1.5),
    "tanh": (np.tanh, -10, 10), "trunc": (np.trunc, -10, 10),
}
BINARY = {
    "atan2": np.arctan2, "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin,
    "fmod": np.fmod, "pow": np.power,
}
# Relative tolerance per type: libdevice is within a few ulp; the
# interpreter rounds the C library's result to the type.
RTOL = {np.float32: 2e-6, np.float64: 1e-14, np.float16: 1e-3}


def interp(kernel):
    return tilec.JITFunction(kernel.fn, interpret=True)


def inputs(lo, hi, dtype, n=300, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, n)
    # The rounding functions' ties.
    x[:6] = [0.5, -0.5, 1.5, -2.5, 2.0, 0.0] if lo < -3 else x[:6]
    return x.astype(dtype)


def check(got, x_ref, ref, dtype):
    expected = ref(*[a.astype(np.float64) for a in x_ref])
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=RTOL[dtype],
                               atol=RTOL[dtype] * 1e-3, equal_nan=True)


def test_the_modules_name_the_compilers_functions():
    compiled = sorted(n[len("libdevice."):] for n in _tilec.builtin_names()
                      if n.startswith("libdevice."))
    assert compiled == sorted(libdevice.__all__)
    assert tl.extra.libdevice is libdevice and tl.extra.cuda.libdevice is libdevice
    import tilec.language.extra.cuda.libdevice as again
    assert again is libdevice
    with pytest.raises(RuntimeError, match="libdevice.pow can only be called inside"):
        libdevice.pow(1.0, 2.0)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary(name, dtype):
    ref, lo, hi = UNARY[name]
    x = inputs(lo, hi, dtype)
    out = np.full_like(x, np.nan)
    interp(k.unary)[(3,)](x, out, len(x), FN=name, BLOCK=128)
    check(out, [x], ref, dtype)


@pytest.mark.parametrize("name", ["exp", "sqrt", "tanh", "floor"])
def test_half_precision_goes_through_fp32(name):
    ref, lo, hi = UNARY[name]
    x = inputs(lo / 4, hi / 4, np.float16)
    out = np.zeros_like(x)
    interp(k.unary)[(3,)](x, out, len(x), FN=name, BLOCK=128)
    expected = ref(x.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary(name, dtype):
    x = inputs(0.1, 10, dtype, seed=1)
    y = inputs(-3, 3, dtype, seed=2)
    if name == "pow":
        y = np.abs(y)
    out = np.full_like(x, np.nan)
    interp(k.binary)[(3,)](x, y, out, len(x), FN=name, BLOCK=128)
    check(out, [x, y], BINARY[name], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_isnan_isinf_give_int32(dtype):
    x = np.array([0.0, np.nan, np.inf, -np.inf, -1.5, 1e30, -np.nan, 3.0], dtype)
    nan = np.full(8, -1, np.int32)
    inf = np.full(8, -1, np.int32)
    interp(k.classify)[(1,)](x, nan, inf, 8, BLOCK=8)
    np.testing.assert_array_equal(nan, np.isnan(x).astype(np.int32))
    np.testing.assert_array_equal(inf, np.isinf(x).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_clz_popc(dtype):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([0, 1, 2, 3, 255, info.max, info.min, 1 << (bits - 2)], dtype)
    clz = np.full(8, -1, np.int32)
    popc = np.full(8, -1, np.int32)
    interp(k.count_bits)[(1,)](x, clz, popc, 8, BLOCK=8)
    unsigned = [int(v) & ((1 << bits) - 1) for v in x]
    np.testing.assert_array_equal(clz, [bits - u.bit_length() for u in unsigned])
    np.testing.assert_array_equal(popc, [bin(u).count("1") for u in unsigned])


def test_spellings_and_fma():
    x = np.linspace(-2, 2, 64).astype(np.float32)
    out = np.zeros_like(x)
    interp(k.spellings)[(1,)](x, out, BLOCK=64)
    np.testing.assert_allclose(out, np.float32(x * x) * 1.0 + x, rtol=1e-6)


@pytest.mark.parametrize("source,message", [
    ("libdevice.no_such(x)", "tilec's libdevice has no function 'no_such' \\(it has acos,"),
    ("libdevice.clz(x)", "libdevice.clz takes a 32- or 64-bit integer, got"),
    ("libdevice.isnan(x > 0)", "libdevice.isnan takes floats, got"),
    ("libdevice.pow(x)", "missing"),
])
def test_errors(tmp_path, source, message):
    path = tmp_path / "bad.py"
    path.write_text(
        "import tilec\nimport tilec.language as tl\n"
        "from triton.language.extra import libdevice\n\n\n"
        "@tilec.jit\ndef bad(x_ptr):\n"
        "    x = tl.load(x_ptr + tl.arange(0, 16))\n"
        f"    tl.store(x_ptr + tl.arange(0, 16), {source})\n")
    lib = _tilec.Library.from_file(str(path))
    with pytest.raises(tilec.Error, match=message):
        lib.kernel("bad").compile("*fp32")


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_unary(torch_cuda, name, dtype):
    torch = torch_cuda
    ref, lo, hi = UNARY[name]
    x = inputs(lo, hi, dtype, n=5000)
    xs = torch.from_numpy(x).cuda()
    out = torch.full_like(xs, float("nan"))
    k.unary[(40,)](xs, out, len(x), FN=name, BLOCK=128)
    torch.cuda.synchronize()
    # libdevice's own accuracy: a few ulp (fast exp2-based tl.exp is not used).
    expected = ref(x.astype(np.float64))
    rtol = {np.float32: 4e-6, np.float64: 1e-14}[dtype]
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), expected, rtol=rtol,
                               atol=rtol * 1e-3, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(BINARY))
def test_gpu_binary(torch_cuda, name):
    torch = torch_cuda
    x = inputs(0.1, 10, np.float32, n=5000, seed=1)
    y = inputs(-3, 3, np.float32, n=5000, seed=2)
    if name == "pow":
        y = np.abs(y)
    xs, ys = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    out = torch.full_like(xs, float("nan"))
    k.binary[(40,)](xs, ys, out, len(x), FN=name, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64),
                               BINARY[name](x.astype(np.float64), y.astype(np.float64)),
                               rtol=4e-6, atol=1e-9)
