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
def test_copies_keep_every_byte(fmt):
    codes = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.uint8)
    z = np.zeros(256, np.uint8)
    interpreted(kernels.copy_select)[(2,)](
        tilec.reinterpret(codes, fmt), tilec.reinterpret(y, fmt),
        tilec.reinterpret(z, fmt), 256, BLOCK=128)
    assert np.array_equal(y, codes) and np.array_equal(z, codes)


def bf16_bits(values):
    """float32 values that bf16 holds exactly, as bf16 bit patterns."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", ["fp16", "bf16", "fp64", "other fp8"])
def test_conversions_from_every_float(fmt, source):
    """Every float type converts to fp8 by the same rule (through fp32,
    which holds f16 and bf16 exactly; f64 values here are fp32 values)."""
    values = ref.special_values(fmt)
    if source == "fp16":
        values = values[np.abs(values) <= 65504].astype(np.float16)
        arg = values
    elif source == "bf16":
        values = values.view(np.uint32) & np.uint32(0xFFFF0000)
        values = values.view(np.float32)
        arg = tilec.reinterpret(bf16_bits(values), tl.bfloat16)
    elif source == "fp64":
        values = values.astype(np.float64)
        arg = values
    else:
        other = "fp8e5" if fmt == "fp8e4nv" else "fp8e4nv"
        codes = np.arange(256, dtype=np.uint8)
        values = ref.decode_array(codes, other)
        arg = tilec.reinterpret(codes, other)
    out = np.zeros(values.size, np.uint8)
    interpreted(kernels.convert)[(tilec.cdiv(values.size, 128),)](
        arg, tilec.reinterpret(out, fmt), values.size, BLOCK=128)
    want = np.array([ref.encode(float(v), fmt) for v in np.asarray(values, np.float64)],
                    dtype=np.uint8)
    nan = np.isnan(np.asarray(values, np.float64))
    assert np.array_equal(out[~nan], want[~nan])
    assert np.all(out[nan] == 0x7F)


@pytest.mark.parametrize("fmt", FORMATS)
def test_literals_and_constants(fmt):
    n = 128
    largest = ref.finite_codes(fmt)[-1][0]
    x = np.full(n, ref.encode(largest, fmt), np.uint8)
    x[:4] = [ref.encode(v, fmt) for v in (0.5, -2.0, 0.0, 1.0)]
    out = np.zeros(2 * n, np.uint8)
    flags = np.zeros(n, np.int32)
    interpreted(kernels.literals)[(1,)](tilec.reinterpret(x, fmt),
                                        tilec.reinterpret(out, fmt), flags, BLOCK=n)
    xv = ref.decode_array(x, fmt)
    assert np.all(out[:n] == ref.encode(600.0 if fmt == "fp8e5" else 448.0, fmt))
    assert np.array_equal(out[n:], ref.encode_array(xv * 1000.0, fmt))
    assert np.array_equal(flags, (xv < 1000).astype(np.int32))


@pytest.mark.parametrize("fmt", FORMATS)
def test_arithmetic_rounds_the_fp32_result(fmt):
    rng = np.random.default_rng(5)
    n = 300
    # Magnitudes from subnormal to past the largest value, so that results
    # underflow and saturate too.
    scale = np.exp2(rng.integers(-14, 15, n)) if fmt == "fp8e5" else np.exp2(rng.integers(-8, 8, n))
    x = ref.encode_array(rng.standard_normal(n) * scale, fmt)
    y = ref.encode_array(rng.standard_normal(n) * scale[::-1], fmt)
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


@pytest.mark.parametrize("rowwise", [False, True])
def test_scaled_matmul_kernel_applies_scales_in_the_epilogue(rowwise):
    import matmul
    rng = np.random.default_rng(12 + rowwise)
    m, n, k = 45, 70, 96
    a, b, av, bv = fp8_operands(rng, m, n, k, "fp8e4nv", "fp8e4nv")
    if rowwise:
        scale_a = rng.uniform(0.5, 2.0, m).astype(np.float32)
        scale_b = rng.uniform(0.5, 2.0, n).astype(np.float32)
        scales = scale_a.astype(np.float64)[:, None] * scale_b.astype(np.float64)[None, :]
    else:
        scale_a = np.array([0.375], np.float32)
        scale_b = np.array([3.0], np.float32)
        scales = 0.375 * 3.0
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.full((m, n), -7, np.float32)
    bm, bn, bk, gm, warps, stages = matmul.matmul_configs("float8_e4m3fn", aligned=False)[-1]
    interpreted(matmul.scaled_matmul_kernel)[(tilec.cdiv(m, bm) * tilec.cdiv(n, bn),)](
        tilec.reinterpret(a, tl.float8e4nv), tilec.reinterpret(b, tl.float8e4nv), c,
        scale_a, scale_b, bias, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=gm, ROWWISE=rowwise, HAS_BIAS=True, ACTIVATION="relu")
    want = np.maximum((av @ bv) * scales + bias, 0)
    # The products are exact in fp32, the sum rounds; the scales and the bias
    # add a rounding or two on values of the sum's size.
    assert mref.error(c, want, k) <= 2e-5 * 4


def test_reinterpret_checks_its_dtype():
    with pytest.raises(TypeError, match="unknown dtype"):
        tilec.reinterpret(np.zeros(4, np.uint8), "fp8")
    w = tilec.reinterpret(tilec.reinterpret(np.zeros(4, np.uint8), "fp8e5"), tl.float8e4nv)
    assert w.dtype == tl.float8e4nv and w.base.dtype == np.uint8
    assert w.shape == (4,)  # the base's
    assert tilec.TensorWrapper(np.zeros(2, np.uint8), "float8e5").dtype == tl.float8e5


def ptx_of(kernel, signature, constexprs, target):
    return kernel.compile(signature, constexprs=constexprs, target=target).asm["ptx"]


@pytest.mark.parametrize("signature", ["*fp16:16,*fp8e4nv:16,i32", "*bf16:16,*fp8e5:16,i32",
                                       "*fp8e4nv:16,*fp8e5:16,i32", "*fp8e5:16,*bf16:16,i32",
                                       "*fp64:16,*fp8e4nv:16,i32"])
def test_every_conversion_compiles(signature, tmp_path):
    ptx = ptx_of(kernels.convert, signature, {"BLOCK": 256}, "sm_90a")
    assert "cvt.rn" in ptx
    if mref.HAS_PTXAS:
        mref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


def test_mixed_formats_compile():
    # e4m3 + e5m2 is fp16 (Triton's rule), stored into an fp8 pointer.
    ptx_of(kernels.arithmetic, "*fp8e4nv:16,*fp8e5:16,*fp8e4nv:16,i32", {"BLOCK": 128},
           "sm_90a")
    ptx_of(kernels.literals, "*fp8e4nv:16,*fp8e4nv:16,*i32:16", {"BLOCK": 128}, "sm_90a")


@pytest.mark.parametrize("target", ["sm_89", "sm_90a"])
def test_ptx_uses_fp8_instructions(target, tmp_path):
    # (Sizes without facts: 1-byte scalar loads, a register each, so
    # BK = 32 on 4 warps, as the shipped unaligned 8-bit configs.)
    ptx = ptx_of(kernels.scaled_dot, "*fp8e4nv:16,*fp8e5:16,*fp8e4nv:16,fp32,i32,i32,i32",
                 {"BM": 64, "BN": 64, "BK": 32}, target)
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
