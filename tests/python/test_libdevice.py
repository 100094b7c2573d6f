"""libdevice (issue 17): Triton's triton.language.extra.libdevice functions
on the interpreter against numpy, each in fp32 and fp64 (fp16 through
fp32), the module's spellings, the integer and classification functions,
the errors, and (marked gpu) the same on the GPU, where they are CUDA's
libdevice: within 1e-6 relative (fp32) of numpy's float64 results."""
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
# The fp32 approximations: (reference, lo, hi, the instructions the PTX
# must hold, GPU rtol, GPU atol). The bounds are the PTX ISA's for the
# instructions (tanh.approx: 2^-10.987 relative; sin/cos.approx: 2^-20.5
# absolute on [-pi, pi]; ex2/lg2.approx: 2^-22), with the rounding of
# the argument scalings on top.
FAST = {
    "fast_cosf": (np.cos, -3.1, 3.1, ["cos.approx.f32"], 0, 2e-6),
    "fast_expf": (np.exp, -20, 20, ["ex2.approx"], 1e-5, 0),
    "fast_log10f": (np.log10, 0.01, 100, ["lg2.approx.f32"], 1e-5, 1e-6),
    "fast_log2f": (np.log2, 0.01, 100, ["lg2.approx.f32"], 1e-5, 1e-6),
    "fast_logf": (np.log, 0.01, 100, ["lg2.approx.f32"], 1e-5, 1e-6),
    "fast_powf": (np.power, 0.1, 10, ["lg2.approx.f32", "ex2.approx"], 1e-5, 0),
    "fast_sinf": (np.sin, -3.1, 3.1, ["sin.approx.f32"], 0, 2e-6),
    "fast_tanf": (np.tan, -1.2, 1.2, ["sin.approx.f32", "cos.approx.f32"], 1e-4, 1e-6),
    "fast_tanhf": (np.tanh, -10, 10, ["tanh.approx.f32"], 6e-4, 1e-7),
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


def fast_inputs(name, n=300):
    """x (and y for fast_powf) in the function's range, fp32."""
    lo, hi = FAST[name][1:3]
    return inputs(lo, hi, np.float32, n, seed=3), inputs(-3, 3, np.float32, n, seed=4)


@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_functions_are_the_functions_in_the_interpreter(name):
    # The interpreter runs the exact functions (the approximations are the
    # GPU's instructions): within fp32 rounding of numpy's.
    x, y = fast_inputs(name)
    out = np.full_like(x, np.nan)
    interp(k.fast)[(3,)](x, y, out, len(x), FN=name, BLOCK=128)
    args = [x, y] if name == "fast_powf" else [x]
    check(out, args, FAST[name][0], np.float32)


def instructions(ptx):
    """The PTX instruction lines of a kernel (not directives, labels or
    braces)."""
    return [line for line in ptx.splitlines()
            if line.strip() and line.strip()[0].isalpha() and line.strip().endswith(";")]


@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_functions_are_the_approximate_instructions(name):
    # Each fast_* is its special-function instructions (tanh.approx.f32 for
    # fast_tanhf, ...), in fewer instructions than the accurate function
    # (libdevice.NAME without fast_ and f), which stays accurate: on sm_80
    # too, where tanh.approx.f32 also exists.
    for target in ("sm_90a", "sm_80"):
        fast = k.fast.compile("*fp32:16,*fp32:16,*fp32:16,i32", target=target, FN=name,
                              BLOCK=128).asm["ptx"]
        for instruction in FAST[name][3]:
            assert instruction in fast, (name, instruction)
        accurate_name = name[len("fast_"):-1]
        if accurate_name == "pow":
            accurate = k.binary.compile("*fp32:16,*fp32:16,*fp32:16,i32", target=target,
                                        FN="pow", BLOCK=128).asm["ptx"]
        else:
            accurate = k.unary.compile("*fp32:16,*fp32:16,i32", target=target,
                                       FN=accurate_name, BLOCK=128).asm["ptx"]
        assert len(instructions(fast)) < len(instructions(accurate)), (name, target)
        if name == "fast_tanhf":
            assert "tanh.approx" not in accurate


def binary_inputs(name, dtype, n=300):
    """x and y for a binary function: random, then the cases that tell
    implementations apart: negative x (fmod's sign, atan2's lower half-plane),
    signed zeros (copysign), a NaN on either side (fmin/fmax ignore it)."""
    x = inputs(-10, 10, dtype, n, seed=1)
    y = inputs(-3, 3, dtype, n, seed=2)
    x[:8] = [-7.5, 7.5, -0.0, 0.0, np.nan, 2.0, -1.0, -1.0]
    y[:8] = [2.0, -2.0, -1.0, -0.0, 2.0, np.nan, -0.0, 0.0]
    if name == "pow":  # a real power: positive bases, NaN rows kept
        x = np.where(np.isnan(x), x, np.abs(x) + 0.1).astype(dtype)
    if name == "fmod":  # y = 0 is NaN in both; keep the rest
        y[(y == 0)] = 1.0
    return x, y


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary(name, dtype):
    x, y = binary_inputs(name, dtype)
    out = np.full_like(x, np.nan)
    interp(k.binary)[(3,)](x, y, out, len(x), FN=name, BLOCK=128)
    check(out, [x, y], BINARY[name], dtype)


CLASSIFY = [0.0, np.nan, np.inf, -np.inf, -1.5, 1e30, -np.nan, 3.0]


def check_classify(x, nan, inf, finite):
    np.testing.assert_array_equal(nan, np.isnan(x).astype(np.int32))
    np.testing.assert_array_equal(inf, np.isinf(x).astype(np.int32))
    np.testing.assert_array_equal(finite, np.where(np.isfinite(x), x, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_isnan_isinf_are_booleans(dtype):
    with np.errstate(over="ignore"):  # 1e30 is inf in fp16
        x = np.array(CLASSIFY, dtype)
    nan, inf = np.full(8, -1, np.int32), np.full(8, -1, np.int32)
    finite = np.full(8, -1, dtype)
    interp(k.classify)[(1,)](x, nan, inf, finite, 8, BLOCK=8)
    check_classify(x, nan, inf, finite)


def test_fma_of_integers_goes_through_fp32():
    a = np.arange(-8, 8, dtype=np.int32)
    out = np.zeros(16, np.float32)
    interp(k.fma_ints)[(1,)](a, out, BLOCK=16)
    np.testing.assert_array_equal(out, (a * a + 1).astype(np.float32))


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
    np.testing.assert_allclose(out, np.float32(x * x) + x, rtol=1e-6)


@pytest.mark.parametrize("source,message", [
    ("libdevice.no_such(x)", "tilec's libdevice has no function 'no_such' \\(it has acos,"),
    ("libdevice.clz(x)", "libdevice.clz takes a 32- or 64-bit integer, got"),
    ("libdevice.isnan(x > 0)", "libdevice.isnan takes floats, got"),
    ("libdevice.pow(x)", "missing"),
    ("libdevice.fast_tanhf(x.to(tl.float64))",
     "libdevice.fast_tanhf approximates in fp32 and takes fp32, fp16, bf16 or integers, got fp64"),
    ("libdevice.fast_powf(x, x.to(tl.float64))", "libdevice.fast_powf approximates in fp32"),
    ("tl.extra.cuda.globaltimer()", "tl.extra.cuda has no attribute 'globaltimer' usable in a "
     "kernel \\(tilec has libdevice, cluster_cta_rank, cluster_id, cluster_size, "
     "gdc_launch_dependents, gdc_wait, prefetch_l2\\)"),
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


# On the GPU: CUDA's libdevice, within 1e-6 relative (about 8 fp32 ulp; its
# documented bounds are 1 to 4 ulp for these) of numpy's float64 results.
GPU_RTOL = {np.float32: 1e-6, np.float64: 1e-14}


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
    rtol = GPU_RTOL[dtype]
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), ref(x.astype(np.float64)),
                               rtol=rtol, atol=rtol * 1e-3, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_binary(torch_cuda, name, dtype):
    torch = torch_cuda
    x, y = binary_inputs(name, dtype, n=5000)
    xs, ys = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    out = torch.full_like(xs, float("nan"))
    k.binary[(40,)](xs, ys, out, len(x), FN=name, BLOCK=128)
    torch.cuda.synchronize()
    got = out.cpu().numpy()
    expected = BINARY[name](x.astype(np.float64), y.astype(np.float64))
    rtol = GPU_RTOL[dtype]
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=rtol, atol=rtol * 1e-3,
                               equal_nan=True)
    # Signed zeros bit for bit, except where IEEE leaves the sign open:
    # fmax/fmin of +0.0 and -0.0 may give either (CUDA gives +0.0 / -0.0).
    if name not in ("fmax", "fmin"):
        np.testing.assert_array_equal(np.signbit(got[:8]),
                                      np.signbit(expected[:8].astype(dtype)))


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(FAST))
def test_gpu_fast_functions(torch_cuda, name):
    # The instructions' accuracy (FAST's bounds) against numpy in float64.
    torch = torch_cuda
    ref, _, _, _, rtol, atol = FAST[name]
    x, y = fast_inputs(name, n=5000)
    out = torch.full((len(x),), float("nan"), device="cuda")
    k.fast[(40,)](torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda(), out, len(x),
                  FN=name, BLOCK=128)
    torch.cuda.synchronize()
    args = [x, y] if name == "fast_powf" else [x]
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64),
                               ref(*[a.astype(np.float64) for a in args]), rtol=rtol,
                               atol=atol)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_classify(torch_cuda, dtype):
    torch = torch_cuda
    x = np.array(CLASSIFY, dtype)
    nan, inf = torch.full((8,), -1, dtype=torch.int32).cuda(), torch.full((8,), -1, dtype=torch.int32).cuda()
    finite = torch.full((8,), -1.0, dtype=getattr(torch, np.dtype(dtype).name)).cuda()
    k.classify[(1,)](torch.from_numpy(x).cuda(), nan, inf, finite, 8, BLOCK=8)
    torch.cuda.synchronize()
    check_classify(x, nan.cpu().numpy(), inf.cpu().numpy(), finite.cpu().numpy())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_gpu_clz_popc(torch_cuda, dtype):
    torch = torch_cuda
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([0, 1, 2, 3, 255, info.max, info.min, 1 << (bits - 2)], dtype)
    clz, popc = torch.full((8,), -1, dtype=torch.int32).cuda(), torch.full((8,), -1, dtype=torch.int32).cuda()
    k.count_bits[(1,)](torch.from_numpy(x).cuda(), clz, popc, 8, BLOCK=8)
    torch.cuda.synchronize()
    unsigned = [int(v) & ((1 << bits) - 1) for v in x]
    np.testing.assert_array_equal(clz.cpu().numpy(), [bits - u.bit_length() for u in unsigned])
    np.testing.assert_array_equal(popc.cpu().numpy(), [bin(u).count("1") for u in unsigned])


@pytest.mark.gpu
def test_gpu_spellings_and_fma(torch_cuda):
    torch = torch_cuda
    x = np.linspace(-2, 2, 64).astype(np.float32)
    out = torch.zeros(64, dtype=torch.float32).cuda()
    k.spellings[(1,)](torch.from_numpy(x).cuda(), out, BLOCK=64)
    torch.cuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), np.float32(x * x) + x, rtol=2e-6)
