"""kernels/matmul.py on the GPU: every operand type and input precision at
odd shapes (M, N, K not multiples of the tile, K below one tile,
transposed inputs through strides), each shipped config, the fused
bias + activation epilogue, the batched kernel and 4096^3; against float64
and against the CPU interpreter running the same kernel. Aligned shapes
(K, N multiples of 16) take the cp.async pipeline: every num_stages gives
the same bits as none."""
import numpy as np
import pytest

import tilec

import matmul  # kernels/matmul.py
import matmul_reference as ref
from test_matmul_configs import WGMMA_TILES

pytestmark = pytest.mark.gpu

TORCH_DTYPE = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32",
               "int8": "int8"}
OUT_DTYPE = {"float16": "float32", "bfloat16": "float32", "float32": "float32",
             "int8": "int32"}

SHAPES = [(16, 16, 16), (50, 70, 33), (257, 129, 100), (128, 128, 5), (1, 300, 64),
          (300, 1, 64)]
CASES = [("float16", "tf32"), ("bfloat16", "tf32"), ("float32", "tf32"),
         ("float32", "tf32x3"), ("float32", "ieee"), ("int8", "tf32")]


def _device(torch, x, dtype):
    return torch.from_numpy(x).to(getattr(torch, TORCH_DTYPE[dtype])).cuda()


def _run(torch, a, b, dtype, precision, transpose=(False, False), bias=None,
         activation="", config=None, out_dtype=None):
    m, k = a.shape
    n = b.shape[1]
    da = _device(torch, a.T.copy(), dtype).T if transpose[0] else _device(torch, a, dtype)
    db = _device(torch, b.T.copy(), dtype).T if transpose[1] else _device(torch, b, dtype)
    out = out_dtype or OUT_DTYPE[dtype]
    c = torch.full((m, n), -7, dtype=getattr(torch, out), device="cuda")
    dbias = None if bias is None else torch.from_numpy(bias).float().cuda()
    matmul.matmul(da, db, c, bias=dbias, activation=activation,
                  input_precision=precision,
                  config=config or matmul.matmul_configs(dtype, aligned=False)[3])
    torch.cuda.synchronize()
    return c.double().cpu().numpy()


@pytest.mark.parametrize("dtype,precision", CASES)
@pytest.mark.parametrize("shape", SHAPES)
def test_matmul_odd_shapes(torch_cuda, dtype, precision, shape):
    m, n, k = shape
    rng = np.random.default_rng(m * 7919 + n * 31 + k)
    a, b = ref.operands(rng, m, n, k, dtype)
    got = _run(torch_cuda, a, b, dtype, precision)
    tol = ref.TOLERANCE[(dtype, precision, OUT_DTYPE[dtype])]
    assert ref.error(got, a @ b, k) <= tol


@pytest.mark.parametrize("transpose", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int8"])
def test_matmul_transposed_inputs(torch_cuda, dtype, transpose):
    rng = np.random.default_rng(5)
    m, n, k = 190, 130, 75
    a, b = ref.operands(rng, m, n, k, dtype)
    got = _run(torch_cuda, a, b, dtype, "tf32", transpose=transpose)
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_matmul_row_stride_not_aligned(torch_cuda, dtype):
    """A and B are column slices of wider tensors whose rows are 1001 and
    1003 elements apart: K and N are multiples of 16 but the row strides
    not even of 2, so no access along a row may assume 16-byte alignment
    (each row starts anywhere). Rows r[:, None] * stride once looked
    aligned along them (a tile-axis-info bug): 16-byte vectors at odd
    addresses, a misaligned-address fault."""
    torch = torch_cuda
    rng = np.random.default_rng(23)
    m, n, k = 190, 256, 992
    a, b = ref.operands(rng, m, n, k, dtype)
    wide_a = torch.zeros((m, 1001), dtype=getattr(torch, TORCH_DTYPE[dtype]), device="cuda")
    wide_b = torch.zeros((k, 1003), dtype=getattr(torch, TORCH_DTYPE[dtype]), device="cuda")
    wide_a[:, :k] = _device(torch, a, dtype)
    wide_b[:, :n] = _device(torch, b, dtype)
    c = torch.full((m, n), -7, dtype=torch.float32, device="cuda")
    for config in matmul.matmul_configs(dtype, aligned=True)[-2:]:
        matmul.matmul(wide_a[:, :k], wide_b[:, :n], c, config=config)
        torch.cuda.synchronize()
        got = c.double().cpu().numpy()
        assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, "tf32", "float32")]


# Shapes per alignment: N and K multiples of 16 (`:16`), of 8 but not 16
# (`:8`: still 16-byte rows for 2- and 4-byte types, so the aligned
# configs, cp.async and on sm_90a wgmma), and neither (N = 260).
EVERY_CONFIG_SHAPE = {"16": (300, 272, 208), "8": (300, 264, 200), "": (300, 260, 200)}


@pytest.mark.parametrize("dtype,fact,config", [
    (dtype, fact, config) for dtype in ("float16", "bfloat16", "float32", "int8")
    for fact in (["16", ""] if dtype == "int8" else ["16", "8", ""])
    for config in matmul.matmul_configs(dtype, bool(fact))])
def test_matmul_every_config(torch_cuda, dtype, fact, config):
    rng = np.random.default_rng(11)
    m, n, k = EVERY_CONFIG_SHAPE[fact]
    a, b = ref.operands(rng, m, n, k, dtype)
    got = _run(torch_cuda, a, b, dtype, "tf32", config=config)
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("config", WGMMA_TILES)
def test_wgmma_tiles(torch_cuda, dtype, config):
    """The wgmma tile arrangements of test_matmul_configs.WGMMA_TILES, at an
    aligned shape with partial tiles in every dimension."""
    rng = np.random.default_rng(13)
    m, n, k = 300, 272, 208
    a, b = ref.operands(rng, m, n, k, dtype)
    got = _run(torch_cuda, a, b, dtype, "tf32", config=config)
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])]


@pytest.mark.parametrize("shape", [(300, 272, 208), (130, 144, 32), (64, 16, 4096)])
@pytest.mark.parametrize("config", matmul.matmul_configs("int8", True))
def test_int8_k_major_on_wgmma(torch_cuda, shape, config):
    """int8 with B column-major: both operands K-contiguous, which sm_90a's
    wgmma (m64nNk32.s32.s8.s8) reads; exact, as every int8 product is."""
    rng = np.random.default_rng(17)
    m, n, k = shape
    a, b = ref.operands(rng, m, n, k, "int8")
    got = _run(torch_cuda, a, b, "int8", "tf32", transpose=(False, True), config=config)
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[("int8", "tf32", "int32")]


@pytest.mark.parametrize("activation", ["", "relu", "gelu"])
def test_matmul_fused_epilogue(torch_cuda, activation):
    rng = np.random.default_rng(3)
    m, n, k = 200, 150, 96
    a, b = ref.operands(rng, m, n, k, "float16")
    bias = rng.standard_normal(n).astype(np.float32)
    got = _run(torch_cuda, a, b, "float16", "tf32", bias=bias,
               activation=activation, out_dtype="float16")
    want = a @ b + bias.astype(np.float64)
    if activation == "relu":
        want = np.maximum(want, 0)
    elif activation == "gelu":
        want = 0.5 * want * (1 + np.tanh(0.7978845608028654 * (want + 0.044715 * want**3)))
    assert ref.error(got, want, k) <= ref.TOLERANCE[("float16", "tf32", "float16")]


def test_matmul_4096_cubed(torch_cuda):
    torch = torch_cuda
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(4096, 4096, device="cuda", generator=g).half()
    b = torch.randn(4096, 4096, device="cuda", generator=g).half()
    c = torch.empty(4096, 4096, device="cuda", dtype=torch.float32)
    matmul.matmul(a, b, c)
    want = a.double() @ b.double()
    err = (c.double() - want).abs().max().item() / 64.0
    # Tensor cores do not round their f32 sums to nearest (they truncate),
    # so the sum's error grows with K like a random walk of one-ulp steps:
    # the small-K tolerance (K <= 256) times sqrt(K / 256).
    tol = ref.TOLERANCE[("float16", "tf32", "float32")] * (4096 / 256) ** 0.5
    assert err <= tol


def test_batched_matmul(torch_cuda):
    torch = torch_cuda
    rng = np.random.default_rng(9)
    z, m, n, k = 3, 70, 90, 48
    a, b = ref.operands(rng, m, n, k, "float16", batch=z)
    da, db = _device(torch, a, "float16"), _device(torch, b, "float16")
    c = torch.zeros((z, m, n), dtype=torch.float32, device="cuda")
    grid = (tilec.cdiv(m, 32) * tilec.cdiv(n, 32), z)
    matmul.batched_matmul_kernel[grid](
        da, db, c, m, n, k, *da.stride(), *db.stride(), *c.stride(),
        BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
    torch.cuda.synchronize()
    assert ref.error(c.double().cpu().numpy(), a @ b, k) <= 2e-5


@pytest.mark.parametrize("dtype,precision", CASES)
def test_matmul_matches_interpreter(torch_cuda, dtype, precision):
    m, n, k = 70, 45, 40
    rng = np.random.default_rng(17)
    a, b = ref.operands(rng, m, n, k, dtype)
    got = _run(torch_cuda, a, b, dtype, precision, config=(32, 32, 16, 8, 4, 3))
    np_dtype = {"float16": np.float16, "float32": np.float32, "int8": np.int8}
    if dtype == "bfloat16":
        pytest.skip("numpy has no bfloat16 for the interpreter's operands")
    ia, ib = a.astype(np_dtype[dtype]), b.astype(np_dtype[dtype])
    ic = np.zeros((m, n), np.int32 if dtype == "int8" else np.float32)
    kernel = tilec.JITFunction(matmul.matmul_kernel.fn, interpret=True)
    kernel[(tilec.cdiv(m, 32) * tilec.cdiv(n, 32),)](
        ia, ib, ic, ic, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=32, BLOCK_N=32,
        BLOCK_K=16, GROUP_M=8, HAS_BIAS=False, ACTIVATION="",
        INPUT_PRECISION=precision)
    # Both round tf32 inputs alike (cvt.rna), int8 sums are exact: only the
    # order of f32 additions differs, a few ulps.
    assert ref.error(got, ic.astype(np.float64), k) <= (0 if dtype == "int8" else 1e-5)


# K and N multiples of 16: cp.async pipelines; K = 16 and 48 leave fewer
# iterations than stages (copies past the end masked off), 4096 many.
PIPELINED_SHAPES = [(190, 144, 16), (257, 128, 48), (64, 80, 4096), (300, 272, 208)]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8"])
@pytest.mark.parametrize("shape", PIPELINED_SHAPES)
def test_every_num_stages_gives_the_same_bits(torch_cuda, dtype, shape):
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a, b = ref.operands(rng, m, n, k, dtype)
    bm, bn, bk, gm, warps, _ = matmul.matmul_configs(dtype, aligned=True)[2]
    runs = [_run(torch_cuda, a, b, dtype, "tf32", config=(bm, bn, bk, gm, warps, s))
            for s in (1, 2, 3, 4)]
    tol = ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])] * max(1, k / 256) ** 0.5
    assert ref.error(runs[0], a @ b, k) <= tol
    for stages, got in zip((2, 3, 4), runs[1:]):
        assert np.array_equal(got, runs[0]), f"num_stages={stages} differs"


@pytest.mark.parametrize("dtype,shape", [("float16", (1024, 1024, 1024)),
                                         ("bfloat16", (300, 272, 208)),
                                         ("float32", (190, 130, 75)),
                                         ("int8", (256, 256, 128))])
def test_autotuned_matmul(torch_cuda, dtype, shape):
    m, n, k = shape
    rng = np.random.default_rng(23)
    a, b = ref.operands(rng, m, n, k, dtype)
    da, db = _device(torch_cuda, a, dtype), _device(torch_cuda, b, dtype)
    c = torch_cuda.full((m, n), -7, dtype=getattr(torch_cuda, OUT_DTYPE[dtype]),
                        device="cuda")
    matmul.matmul(da, db, c, autotune=True)
    torch_cuda.cuda.synchronize()
    aligned = k % 16 == 0 and n % 16 == 0
    # (B row-major, no max_num_imprecise_acc: the tuner matmul() used)
    tuner = matmul.autotuned_kernel(dtype, aligned, False, (False, -1))
    assert tuner.best_config in tuner.configs
    tol = ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])] * max(1, k / 256) ** 0.5
    assert ref.error(c.double().cpu().numpy(), a @ b, k) <= tol
