"""fp8 (tl.float8e4nv, tl.float8e5) without a GPU: the interpreter decodes
every code and rounds every probing value as an independent reference
written from the formats' definitions does (fp8_reference.py); fp8
arithmetic computes in fp32 and rounds back; tl.dot of fp8 operands (and
of one of each format) matches float64; the PTX for sm_89 and sm_90a uses
the fp8 forms of cvt and mma.sync and assembles; sm_80 is refused with a
located error. test_gpu_fp8.py runs the same kernels on a GPU."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import fp8_kernels as kernels
import fp8_reference as ref
import matmul_reference as mref

FORMATS = ["fp8e4nv", "fp8e5"]


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


def interpreted(kernel):
    return tilec.JITFunction(kernel.fn, interpret=True)


def same_floats(got, want):
    """Equal, NaN where NaN."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return (np.array_equal(np.isnan(got), np.isnan(want)) and
            np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)]))


@pytest.mark.parametrize("fmt", FORMATS)
def test_reference_vector_encoder_agrees_with_the_scalar_one(fmt):
    values = np.concatenate([ref.special_values(fmt),
                             np.random.default_rng(1).standard_normal(500) * 50])
    want = np.array([ref.encode(float(v), fmt) for v in values], dtype=np.uint8)
    assert np.array_equal(ref.encode_array(values, fmt), want)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_code_decodes(fmt):
    codes = np.arange(256, dtype=np.uint8)
    out = np.zeros(256, np.float32)
    interpreted(kernels.convert)[(1,)](tilec.reinterpret(codes, fmt), out, 256,
                                       BLOCK=256)
    assert same_floats(out, ref.decode_array(codes, fmt))


@pytest.mark.parametrize("fmt", FORMATS)
def test_rounding_and_saturation(fmt):
    values = ref.special_values(fmt)
    out = np.zeros(values.size, np.uint8)
    interpreted(kernels.convert)[(tilec.cdiv(values.size, 128),)](
        values, tilec.reinterpret(out, fmt), values.size, BLOCK=128)
    want = np.array([ref.encode(float(v), fmt) for v in values], dtype=np.uint8)
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(float(values[i]), int(out[i]), int(want[i]))
                           for i in bad[:8]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_arithmetic_rounds_the_fp32_result(fmt):
    rng = np.random.default_rng(5)
    n = 300
    x = ref.encode_array(rng.standard_normal(n) * 3, fmt)
    y = ref.encode_array(rng.standard_normal(n) * 3, fmt)
    y[y & 0x7F == 0] = ref.encode(1.0, fmt)  # no division by zero
    out = np.zeros(3 * n, np.uint8)
    interpreted(kernels.arithmetic)[(tilec.cdiv(n, 128),)](
        tilec.reinterpret(x, fmt), tilec.reinterpret(y, fmt),
        tilec.reinterpret(out, fmt), n, BLOCK=128)
    xv = ref.decode_array(x, fmt).astype(np.float32)
    yv = ref.decode_array(y, fmt).astype(np.float32)
    # Each operator in fp32, rounded to fp8 (x * y rounds before the add).
    prod = ref.decode_array(ref.encode_array(xv * yv, fmt), fmt).astype(np.float32)
    fma = ref.encode_array(prod + xv, fmt)
    picked = ref.encode_array(np.where(xv > yv, np.maximum(xv, -yv), np.abs(xv)), fmt)
    quotient = ref.encode_array(xv / yv, fmt)
    assert np.array_equal(out[:n], fma)
    assert np.array_equal(out[n:2 * n], picked)
    assert np.array_equal(out[2 * n:], quotient)


@pytest.mark.parametrize("fmt", FORMATS)
def test_reductions(fmt):
    rng = np.random.default_rng(9)
    rows, n = 3, 64
    x = ref.encode_array(rng.standard_normal((rows, n)), fmt)
    sums = np.zeros(rows, np.float32)
    maxes = np.zeros(rows, np.uint8)
    interpreted(kernels.row_reductions)[(rows,)](
        tilec.reinterpret(x, fmt), sums, tilec.reinterpret(maxes, fmt), N=n)
    xv = ref.decode_array(x, fmt)
    assert np.allclose(sums, xv.sum(axis=1), rtol=1e-6, atol=1e-6)
    assert np.array_equal(maxes, ref.encode_array(xv.max(axis=1), fmt))


def fp8_operands(rng, m, n, k, fmt_a, fmt_b):
    """Random A and B rounded to their formats, as codes and as values."""
    a = ref.encode_array(rng.standard_normal((m, k)), fmt_a)
    b = ref.encode_array(rng.standard_normal((k, n)), fmt_b)
    return a, b, ref.decode_array(a, fmt_a), ref.decode_array(b, fmt_b)


@pytest.mark.parametrize("fmt_a,fmt_b", [("fp8e4nv", "fp8e4nv"), ("fp8e5", "fp8e5"),
                                         ("fp8e4nv", "fp8e5")])
@pytest.mark.parametrize("shape", [(70, 45, 40), (16, 16, 32), (33, 17, 100)])
def test_dot_matches_float64(fmt_a, fmt_b, shape):
    m, n, k = shape
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    a, b, av, bv = fp8_operands(rng, m, n, k, fmt_a, fmt_b)
    c = np.full((m, n), -7, np.float32)
    interpreted(kernels.scaled_dot)[(tilec.cdiv(m, 32), tilec.cdiv(n, 32))](
        tilec.reinterpret(a, fmt_a), tilec.reinterpret(b, fmt_b), c, 0.5, m, n, k,
        BM=32, BN=32, BK=32)
    # fp8 products are exact in fp32; the sums round in fp32.
    assert mref.error(c, 0.5 * (av @ bv), k) <= 2e-5


def test_dot_with_fp8_result():
    rng = np.random.default_rng(3)
    m, n, k = 48, 40, 64
    a, b, av, bv = fp8_operands(rng, m, n, k, "fp8e4nv", "fp8e4nv")
    c = np.zeros((m, n), np.uint8)
    interpreted(kernels.scaled_dot)[(tilec.cdiv(m, 32), tilec.cdiv(n, 32))](
        tilec.reinterpret(a, "fp8e4nv"), tilec.reinterpret(b, "fp8e4nv"),
        tilec.reinterpret(c, "fp8e4nv"), 0.125, m, n, k, BM=32, BN=32, BK=32)
    want = 0.125 * (av @ bv)
    got = ref.decode_array(c, "fp8e4nv")
    # One fp8 rounding (3 fraction bits: half an ulp is 2^-4 relative).
    assert np.all(np.abs(got - want) <= np.abs(want) * 2.0 ** -4 + 2.0 ** -9)


def test_matmul_kernel_takes_fp8():
    import matmul
    rng = np.random.default_rng(11)
    m, n, k = 50, 70, 96
    a, b, av, bv = fp8_operands(rng, m, n, k, "fp8e4nv", "fp8e4nv")
    c = np.full((m, n), -7, np.float32)
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs("float8_e4m3fn", aligned=False)[-1]
    jit = interpreted(matmul.matmul_kernel)
    jit[(tilec.cdiv(m, bm) * tilec.cdiv(n, bn),)](
        tilec.reinterpret(a, tl.float8e4nv), tilec.reinterpret(b, tl.float8e4nv), c, c,
        m, n, k, k, 1, n, 1, n, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        HAS_BIAS=False, ACTIVATION="", INPUT_PRECISION="tf32")
    assert mref.error(c, av @ bv, k) <= 2e-5


def test_reinterpret_checks_its_dtype():
    with pytest.raises(TypeError, match="unknown dtype"):
        tilec.reinterpret(np.zeros(4, np.uint8), "fp8")
    w = tilec.reinterpret(tilec.reinterpret(np.zeros(4, np.uint8), "fp8e5"), tl.float8e4nv)
    assert w.dtype == tl.float8e4nv and w.base.dtype == np.uint8


def ptx_of(kernel, signature, constexprs, target):
    return kernel.compile(signature, constexprs=constexprs, target=target).asm["ptx"]


@pytest.mark.parametrize("target", ["sm_89", "sm_90a"])
def test_ptx_uses_fp8_instructions(target, tmp_path):
    ptx = ptx_of(kernels.scaled_dot, "*fp8e4nv:16,*fp8e5:16,*fp8e4nv:16,fp32,i32,i32,i32",
                 {"BM": 64, "BN": 64, "BK": 64}, target)
    assert "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32" in ptx
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx
    if mref.HAS_PTXAS:
        mref.assert_assembles_without_spills(ptx, target, tmp_path)
    conv = ptx_of(kernels.convert, "*fp8e5:16,*fp32:16,i32", {"BLOCK": 256}, target)
    assert "cvt.rn.f16x2.e5m2x2" in conv


def test_sm80_refuses_fp8_arithmetic_at_the_line():
    with pytest.raises(tilec.Error, match=r"fp8_kernels.py:\d+:\d+: error: converting "
                                          r"fp8 values needs sm_89 or newer"):
        ptx_of(kernels.arithmetic, "*fp8e4nv:16,*fp8e4nv:16,*fp8e4nv:16,i32",
               {"BLOCK": 128}, "sm_80")
    # Moving fp8 bytes needs no fp8 instruction.
    ptx_of(kernels.convert, "*fp8e5:16,*fp8e5:16,i32", {"BLOCK": 128}, "sm_80")
