"""fp8 on the GPU (sm_89+; the H200 is sm_90): conversions bit-exact
against the reference written from the formats' definitions (every code
decoded; rounding ties, saturation, infinities and NaN encoded),
arithmetic and reductions bit-exact against the interpreter, tl.dot of
fp8 (both formats and one of each) against float64 and the interpreter at
odd shapes, and kernels/matmul.py on torch.float8 tensors up to 4096^3."""
import numpy as np
import pytest

import tilec

import fp8_kernels as kernels
import fp8_reference as ref
import matmul  # kernels/matmul.py
import matmul_reference as mref

pytestmark = pytest.mark.gpu

FORMATS = ["fp8e4nv", "fp8e5"]
TORCH_NAME = {"fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}


@pytest.fixture
def fp8_gpu(torch_cuda):
    major, minor = torch_cuda.cuda.get_device_capability()
    if major * 10 + minor < 89:
        pytest.skip("fp8 needs sm_89 or newer")
    return torch_cuda


def codes_on_gpu(torch, codes, fmt):
    """uint8 codes as a CUDA tensor of the fp8 dtype."""
    t = torch.from_numpy(np.ascontiguousarray(codes)).cuda()
    return t.view(getattr(torch, TORCH_NAME[fmt]))


def codes_of(torch, t):
    return t.view(torch.uint8).cpu().numpy()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_code_decodes(fp8_gpu, fmt):
    torch = fp8_gpu
    codes = np.arange(256, dtype=np.uint8)
    out = torch.full((256,), -7.0, device="cuda")
    kernels.convert[(1,)](codes_on_gpu(torch, codes, fmt), out, 256, BLOCK=256)
    got = out.double().cpu().numpy()
    want = ref.decode_array(codes, fmt)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.parametrize("fmt", FORMATS)
def test_rounding_and_saturation(fp8_gpu, fmt):
    torch = fp8_gpu
    values = ref.special_values(fmt)
    x = torch.from_numpy(values).cuda()
    out = torch.zeros(values.size, dtype=getattr(torch, TORCH_NAME[fmt]), device="cuda")
    kernels.convert[(tilec.cdiv(values.size, 128),)](x, out, values.size, BLOCK=128)
    got = codes_of(torch, out)
    want = ref.encode_array(values, fmt)
    nan = np.isnan(values)
    bad = np.nonzero((got != want) & ~nan)[0]
    assert bad.size == 0, [(float(values[i]), int(got[i]), int(want[i])) for i in bad[:8]]
    assert all(np.isnan(ref.decode(int(c), fmt)) for c in got[nan])


@pytest.mark.parametrize("fmt", FORMATS)
def test_copies_keep_every_byte(fp8_gpu, fmt):
    torch = fp8_gpu
    codes = np.arange(256, dtype=np.uint8)
    dtype = getattr(torch, TORCH_NAME[fmt])
    y = torch.zeros(256, dtype=dtype, device="cuda")
    z = torch.zeros(256, dtype=dtype, device="cuda")
    kernels.copy_select[(2,)](codes_on_gpu(torch, codes, fmt), y, z, 256, BLOCK=128)
    assert np.array_equal(codes_of(torch, y), codes)
    assert np.array_equal(codes_of(torch, z), codes)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", ["float16", "bfloat16", "float64", "other fp8"])
def test_conversions_from_every_float(fp8_gpu, fmt, source):
    torch = fp8_gpu
    if source == "other fp8":
        other = "fp8e5" if fmt == "fp8e4nv" else "fp8e4nv"
        codes = np.arange(256, dtype=np.uint8)
        x = codes_on_gpu(torch, codes, other)
        values = ref.decode_array(codes, other)
    else:
        values = ref.special_values(fmt).astype(np.float64)
        x = torch.from_numpy(values).cuda().to(getattr(torch, source))
        values = x.double().cpu().numpy()  # what the source type holds
    out = torch.zeros(values.size, dtype=getattr(torch, TORCH_NAME[fmt]), device="cuda")
    kernels.convert[(tilec.cdiv(values.size, 128),)](x, out, values.size, BLOCK=128)
    got = codes_of(torch, out)
    nan = np.isnan(values)
    want = np.array([ref.encode(float(v), fmt) for v in values], dtype=np.uint8)
    bad = np.nonzero((got != want) & ~nan)[0]
    assert bad.size == 0, [(float(values[i]), int(got[i]), int(want[i])) for i in bad[:8]]
    assert all(np.isnan(ref.decode(int(c), fmt)) for c in got[nan])


@pytest.mark.parametrize("fmt", FORMATS)
def test_literals_match_interpreter(fp8_gpu, fmt):
    torch = fp8_gpu
    n = 128
    largest = ref.finite_codes(fmt)[-1][0]
    x = np.full(n, ref.encode(largest, fmt), np.uint8)
    x[:4] = [ref.encode(v, fmt) for v in (0.5, -2.0, 0.0, 1.0)]
    out = torch.zeros(2 * n, dtype=torch.uint8, device="cuda")
    flags = torch.zeros(n, dtype=torch.int32, device="cuda")
    kernels.literals[(1,)](codes_on_gpu(torch, x, fmt),
                           out.view(getattr(torch, TORCH_NAME[fmt])), flags, BLOCK=n)
    want = np.zeros(2 * n, np.uint8)
    want_flags = np.zeros(n, np.int32)
    tilec.JITFunction(kernels.literals.fn, interpret=True)[(1,)](
        tilec.reinterpret(x, fmt), tilec.reinterpret(want, fmt), want_flags, BLOCK=n)
    assert np.array_equal(out.cpu().numpy(), want)
    assert np.array_equal(flags.cpu().numpy(), want_flags)


@pytest.mark.parametrize("fmt", FORMATS)
def test_arithmetic_matches_interpreter(fp8_gpu, fmt):
    torch = fp8_gpu
    rng = np.random.default_rng(17)
    n = 1000
    # From subnormal to past the largest value: results underflow and
    # saturate too.
    scale = np.exp2(rng.integers(-14, 15, n)) if fmt == "fp8e5" else np.exp2(rng.integers(-8, 8, n))
    x = ref.encode_array(rng.standard_normal(n) * scale, fmt)
    y = ref.encode_array(rng.standard_normal(n) * scale[::-1], fmt)
    y[y & 0x7F == 0] = ref.encode(1.0, fmt)
    out = torch.zeros(3 * n, dtype=torch.uint8, device="cuda")
    kernels.arithmetic[(tilec.cdiv(n, 256),)](
        codes_on_gpu(torch, x, fmt), codes_on_gpu(torch, y, fmt),
        out.view(getattr(torch, TORCH_NAME[fmt])), n, BLOCK=256)
    want = np.zeros(3 * n, np.uint8)
    tilec.JITFunction(kernels.arithmetic.fn, interpret=True)[(tilec.cdiv(n, 256),)](
        tilec.reinterpret(x, fmt), tilec.reinterpret(y, fmt),
        tilec.reinterpret(want, fmt), n, BLOCK=256)
    assert np.array_equal(out.cpu().numpy(), want)


@pytest.mark.parametrize("fmt", FORMATS)
def test_reductions_match_interpreter(fp8_gpu, fmt):
    torch = fp8_gpu
    rng = np.random.default_rng(23)
    rows, n = 37, 256
    x = ref.encode_array(rng.standard_normal((rows, n)) * 8, fmt)
    sums = torch.zeros(rows, device="cuda")
    maxes = torch.zeros(rows, dtype=torch.uint8, device="cuda")
    kernels.row_reductions[(rows,)](codes_on_gpu(torch, x, fmt), sums,
                                    maxes.view(getattr(torch, TORCH_NAME[fmt])), N=n)
    xv = ref.decode_array(x, fmt)
    assert np.array_equal(maxes.cpu().numpy(), ref.encode_array(xv.max(axis=1), fmt))
    assert np.allclose(sums.double().cpu().numpy(), xv.sum(axis=1), rtol=1e-5, atol=1e-4)


def fp8_operands(rng, m, n, k, fmt_a, fmt_b, scale=1.0):
    a = ref.encode_array(rng.standard_normal((m, k)) * scale, fmt_a)
    b = ref.encode_array(rng.standard_normal((k, n)) * scale, fmt_b)
    return a, b, ref.decode_array(a, fmt_a), ref.decode_array(b, fmt_b)


PAIRS = [("fp8e4nv", "fp8e4nv"), ("fp8e5", "fp8e5"), ("fp8e4nv", "fp8e5")]


@pytest.mark.parametrize("fmt_a,fmt_b", PAIRS)
@pytest.mark.parametrize("shape", [(16, 16, 32), (70, 45, 40), (257, 129, 100),
                                   (1, 300, 64), (128, 128, 16)])
def test_dot_matches_float64_and_interpreter(fp8_gpu, fmt_a, fmt_b, shape):
    torch = fp8_gpu
    m, n, k = shape
    rng = np.random.default_rng(m * 131 + n * 7 + k)
    a, b, av, bv = fp8_operands(rng, m, n, k, fmt_a, fmt_b)
    c = torch.full((m, n), -7.0, device="cuda")
    grid = (tilec.cdiv(m, 64), tilec.cdiv(n, 64))
    kernels.scaled_dot[grid](codes_on_gpu(torch, a, fmt_a), codes_on_gpu(torch, b, fmt_b),
                             c, 0.5, m, n, k, BM=64, BN=64, BK=32)
    got = c.double().cpu().numpy()
    want = 0.5 * (av @ bv)
    err = mref.error(got, want, k)
    assert err <= 2e-5, f"error / sqrt(K) = {err:.3g}"
    cpu = np.full((m, n), -7, np.float32)
    tilec.JITFunction(kernels.scaled_dot.fn, interpret=True)[grid](
        tilec.reinterpret(a, fmt_a), tilec.reinterpret(b, fmt_b), cpu, 0.5, m, n, k,
        BM=64, BN=64, BK=32)
    assert mref.error(got, cpu, k) <= 2e-5


@pytest.mark.parametrize("imprecise", [-1, -2, 32, 64, 128])
def test_max_num_imprecise_acc_on_wgmma(fp8_gpu, imprecise):
    """fp8 on wgmma (both tiles K-contiguous): by default (-1 here) the
    instruction's own accumulator, which keeps about 13 significant bits,
    sums every product of the loop; with max_num_imprecise_acc each run of
    that many K elements is added into fp32, and the error shrinks with
    the run (matmul_reference.fp8_wgmma_bound); `acc += tl.dot(a, b)`
    (-2) adds each BK's products into fp32. K = 4096 (32 iterations of
    BK = 128), partial tiles."""
    torch = fp8_gpu
    m, n, k = 200, 136, 4096
    rng = np.random.default_rng(29)
    a, b, av, bv = fp8_operands(rng, m, n, k, "fp8e4nv", "fp8e4nv")
    bt = np.ascontiguousarray(b.T)
    c = torch.full((m, n), -7.0, device="cuda")
    grid = (tilec.cdiv(m, 64), tilec.cdiv(n, 64))
    kernels.k_major_dot[grid](codes_on_gpu(torch, a, "fp8e4nv"),
                              codes_on_gpu(torch, bt, "fp8e4nv"), c, m, n, k,
                              BM=64, BN=64, BK=128, IMPRECISE=imprecise, num_stages=3)
    err = mref.relative_error(c.double().cpu().numpy(), av, bv)
    print(f"max_num_imprecise_acc={imprecise}: relative error {err:.3g}")
    # (-2, `acc += tl.dot(a, b)`: runs of BK = 128, as unfolded)
    run = {-1: None, -2: 128}.get(imprecise, imprecise)
    bound = mref.fp8_wgmma_bound(k, run)
    assert err <= bound, f"{err:.3g} > {bound:.3g}"


# B row-major (mma.sync on sm_90a) or column-major (K-contiguous like A:
# wgmma), at shapes with partial tiles in every dimension and K below
# BLOCK_K = 128 (the aligned ones).
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape,aligned,b_col_major", [
    ((300, 200, 136), False, False), ((300, 200, 136), False, True),
    ((512, 384, 256), True, False), ((300, 272, 208), True, True),
    ((130, 144, 96), True, True), ((4096, 4096, 4096), True, False),
    ((4096, 4096, 4096), True, True)])
def test_matmul_kernel_on_torch_fp8(fp8_gpu, fmt, shape, aligned, b_col_major):
    """Operands made by torch (randn rounded to fp8 on the GPU); their
    exact values in float64 make the reference."""
    torch = fp8_gpu
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    dtype = getattr(torch, TORCH_NAME[fmt])
    a = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
    b = torch.randn(k, n, device="cuda", generator=gen).to(dtype)
    if b_col_major:
        b = b.T.contiguous().T
    assert matmul.rows_aligned(a, b) == aligned
    want = (a.double() @ b.double()).cpu().numpy()
    c = torch.full((m, n), -7.0, device="cuda")
    av, bv = a.double().cpu().numpy(), b.double().cpu().numpy()
    # (sm_90's wgmma sums fp8 in its own accumulator; mma.sync in fp32.)
    on_wgmma = b_col_major and torch.cuda.get_device_capability() == (9, 0)
    for config in matmul.matmul_configs(TORCH_NAME[fmt], aligned)[:1 if m > 1000 else 4]:
        # With B column-major (wgmma when aligned), also with fp32 sums
        # after every 32 K elements.
        for imprecise in ([None, 32] if b_col_major else [None]):
            c.fill_(-7.0)
            matmul.matmul(a, b, c, config=config, max_num_imprecise_acc=imprecise)
            torch.cuda.synchronize()
            got = c.double().cpu().numpy()
            if on_wgmma:
                err = mref.relative_error(got, av, bv)
                bound = mref.fp8_wgmma_bound(k, imprecise)
                assert err <= bound, f"{config}, {imprecise}: relative error {err:.3g}"
            else:
                err = mref.error(got, want, k)
                assert err <= 2e-5, f"{config}: error / sqrt(K) = {err:.3g}"


@pytest.mark.parametrize("rowwise", [False, True])
@pytest.mark.parametrize("shape,aligned,b_col_major", [
    ((300, 200, 136), False, False), ((512, 384, 256), True, False),
    ((300, 272, 208), True, True), ((2048, 2048, 2048), True, False),
    ((2048, 2048, 2048), True, True)])
def test_scaled_matmul_on_torch_fp8(fp8_gpu, rowwise, shape, aligned, b_col_major):
    """fp8 e4m3 x e4m3 with per-tensor or per-row scales and a bias, output
    bf16 (as torch._scaled_mm), against float64 of the same fp8 values; B
    column-major as torch._scaled_mm takes it, or row-major."""
    torch = fp8_gpu
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k + rowwise)
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(k, n, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    if b_col_major:
        b = b.T.contiguous().T
    assert matmul.rows_aligned(a, b) == aligned
    if rowwise:
        scale_a = torch.rand(m, 1, device="cuda", generator=gen) + 0.5
        scale_b = torch.rand(1, n, device="cuda", generator=gen) + 0.5
    else:
        scale_a = torch.tensor([0.75], device="cuda")
        scale_b = torch.tensor([1.25], device="cuda")
    bias = torch.randn(n, device="cuda", generator=gen)
    want = ((a.double() @ b.double()) * scale_a.double() * scale_b.double()
            + bias.double()).cpu().numpy()
    c = torch.full((m, n), -7.0, device="cuda", dtype=torch.bfloat16)
    configs = matmul.matmul_configs("float8_e4m3fn", aligned)
    for config in configs[:1 if m > 1000 else len(configs)]:
        c.fill_(-7.0)
        matmul.matmul(a, b, c, bias=bias, scale_a=scale_a, scale_b=scale_b, config=config)
        torch.cuda.synchronize()
        got = c.double().cpu().numpy()
        # bf16's rounding of the output (8 significant bits: at most 2^-8
        # relative) on top of the sum's: fp32's, or with B column-major
        # wgmma's fp8 accumulator (fp8_wgmma_bound of the scaled |a| @ |b|).
        err = np.abs(got - want) - np.abs(want) * 2.0 ** -8
        if b_col_major and torch.cuda.get_device_capability() == (9, 0):
            sums = (a.double().abs() @ b.double().abs()) * scale_a.double().abs() * \
                scale_b.double().abs()
            limit = mref.fp8_wgmma_bound(k) * sums.max().item()
        else:
            limit = 2e-5 * np.sqrt(k) * 2
        assert err.max() <= limit, f"{config}: {err.max():.3g}"
