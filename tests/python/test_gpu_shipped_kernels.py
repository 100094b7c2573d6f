"""Every kernel shipped in kernels/, every shipped config of the matmul, at
small odd shapes (masked tails in every dimension, fewer K iterations than
pipeline stages), against float64. Small enough that tools/gpu-session.sh
runs this whole file under compute-sanitizer memcheck, racecheck and
synccheck (issue 16); the large shapes and speed are the other GPU tests'."""
import pytest

import tilec

import cumsum      # kernels/cumsum.py
import matmul      # kernels/matmul.py
import rmsnorm     # kernels/rmsnorm.py
import softmax     # kernels/softmax.py
import tile_ops    # kernels/tile_ops.py
import vector_add  # kernels/vector_add.py

import matmul_reference as mref

pytestmark = pytest.mark.gpu


def randn(torch, *shape, dtype=None, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(*shape, device="cuda", generator=g)
    return x if dtype is None else x.to(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_vector_add(torch_cuda, dtype):
    torch = torch_cuda
    n = 1000
    t = getattr(torch, dtype)
    x, y = randn(torch, n, dtype=t, seed=1), randn(torch, n, dtype=t, seed=2)
    out = torch.full((n,), float("nan"), device="cuda", dtype=t)
    vector_add.add[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(out, (x.double() + y.double()).to(t))


@pytest.mark.parametrize("rows_per_program, num_warps", [(1, 4), (4, 8)])
def test_softmax(torch_cuda, rows_per_program, num_warps):
    torch = torch_cuda
    rows, cols = 37, 300
    x = randn(torch, rows, cols)
    out = torch.full_like(x, float("nan"))
    softmax.softmax[(tilec.cdiv(rows, rows_per_program),)](
        out, x, cols, cols, rows, cols, ROWS=rows_per_program, BLOCK=512,
        num_warps=num_warps)
    torch.cuda.synchronize()
    ref = torch.softmax(x.double(), dim=1)
    assert (out.double() - ref).abs().max().item() < 1e-6


def test_softmax_online(torch_cuda):
    torch = torch_cuda
    rows, cols = 5, 1000
    x = randn(torch, rows, cols)
    out = torch.full_like(x, float("nan"))
    softmax.softmax_online[(rows,)](out, x, cols, cols, cols, BLOCK=256)
    torch.cuda.synchronize()
    ref = torch.softmax(x.double(), dim=1)
    assert (out.double() - ref).abs().max().item() < 1e-6


def test_rmsnorm(torch_cuda):
    torch = torch_cuda
    rows, cols = 9, 700
    x = randn(torch, rows, cols)
    w = randn(torch, cols, seed=5)
    out = torch.full_like(x, float("nan"))
    rmsnorm.rmsnorm[(rows,)](out, x, w, cols, cols, cols, 1e-6, BLOCK=1024)
    torch.cuda.synchronize()
    xd = x.double()
    ref = xd * torch.rsqrt((xd * xd).mean(dim=1, keepdim=True) + 1e-6) * w.double()
    assert (out.double() - ref).abs().max().item() < 1e-5


@pytest.mark.parametrize("rows_per_program", [1, 4])
def test_cumsum(torch_cuda, rows_per_program):
    torch = torch_cuda
    rows, cols = 19, 500
    x = randn(torch, rows, cols)
    out = torch.full_like(x, float("nan"))
    cumsum.cumsum_rows[(tilec.cdiv(rows, rows_per_program),)](
        out, x, rows, cols, cols, cols, BLOCK=512, ROWS=rows_per_program)
    torch.cuda.synchronize()
    assert (out.double() - x.double().cumsum(dim=1)).abs().max().item() < 1e-4


def test_tile_ops(torch_cuda):
    torch = torch_cuda
    m, n = 45, 70
    x = randn(torch, m, n)
    grid = (tilec.cdiv(m, 32), tilec.cdiv(n, 32))
    out = torch.full_like(x, float("nan"))
    tile_ops.copy_2d[grid](x, out, m, n, n, n, BLOCK_M=32, BLOCK_N=32)
    torch.cuda.synchronize()
    assert torch.equal(out, x)
    for kernel in (tile_ops.transpose, tile_ops.transpose_trans):
        t = torch.full((n, m), float("nan"), device="cuda")
        kernel[grid](x, t, m, n, n, m, BLOCK_M=32, BLOCK_N=32)
        torch.cuda.synchronize()
        assert torch.equal(t, x.T)
    sq = randn(torch, n, n, seed=3)
    other = randn(torch, n, n, seed=4)
    out = torch.full_like(sq, float("nan"))
    tile_ops.transpose_add[(tilec.cdiv(n, 32), tilec.cdiv(n, 32))](sq, other, out, n, n,
                                                                   BLOCK=32)
    torch.cuda.synchronize()
    assert torch.equal(out, sq + other.T)
    out = torch.full_like(x, float("nan"))
    tile_ops.scale_columns[(tilec.cdiv(n, 32),)](x, out, m, n, n, 0.5, BLOCK_M=16,
                                                 BLOCK_N=32)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 0.5)


def _operands(torch, m, n, k, dtype):
    if dtype == "int8":
        g = torch.Generator(device="cuda").manual_seed(7)
        a = torch.randint(-128, 128, (m, k), device="cuda", generator=g, dtype=torch.int8)
        b = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int8)
        return a, b, torch.int32
    t = getattr(torch, dtype)
    a = randn(torch, m, k, seed=8).to(t)
    b = randn(torch, k, n, seed=9).to(t)
    return a, b, torch.float32


# Each type aligned and not; the 8-bit types aligned also with B
# column-major ("kmajor"), which sm_90a multiplies on wgmma.
MATMUL_CASES = [(dtype, layout, config)
                for dtype in ("float16", "bfloat16", "float32", "int8", "float8_e4m3fn")
                for layout in (["aligned", "odd"] + (["kmajor"] if dtype in (
                    "int8", "float8_e4m3fn") else []))
                for config in matmul.matmul_configs(dtype, layout != "odd")]


@pytest.mark.parametrize("dtype, layout, config", MATMUL_CASES,
                         ids=[f"{d}-{lay}-{'x'.join(map(str, c))}"
                              for d, lay, c in MATMUL_CASES])
def test_matmul_every_shipped_config(torch_cuda, dtype, layout, config):
    torch = torch_cuda
    if dtype.startswith("float8") and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 needs sm_89")
    bm, bn, bk = config[:3]
    aligned = layout != "odd"
    # Tails in M and N; K: two iterations (fewer than most configs' stages),
    # a multiple of 16 when aligned, odd otherwise.
    m, n = bm + 17, bn + (16 if aligned else 5)
    k = 2 * bk if aligned else 2 * bk - 3
    a, b, out_dtype = _operands(torch, m, n, k, dtype)
    if layout == "kmajor" and dtype.startswith("float8") and \
            torch.cuda.get_device_capability() == (9, 0):
        b = b.T.contiguous().T
    assert matmul.rows_aligned(a, b) == aligned
    c = torch.full((m, n), -7, device="cuda", dtype=out_dtype)
    bias = None
    if out_dtype == torch.float32:
        bias = randn(torch, n, seed=10)
    matmul.matmul(a, b, c, bias=bias, activation="gelu" if bias is not None else "",
                  config=config)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    if bias is None:
        assert torch.equal(c.double(), ref)
        return
    ref = ref + bias.double()
    ref = 0.5 * ref * (1 + torch.tanh(0.7978845608028654 * (ref + 0.044715 * ref ** 3)))
    tol = (3e-3 if dtype == "float32" else 1e-4) * k ** 0.5
    if layout == "kmajor" and dtype.startswith("float8") and \
            torch.cuda.get_device_capability() == (9, 0):
        # fp8 on wgmma sums in the instruction's fp8 accumulator (about 13
        # significant bits); GELU's slope is below 1.13.
        sums = a.double().abs() @ b.double().abs()
        tol = 1.13 * mref.fp8_wgmma_bound(k) * sums.max().item()
    assert (c.double() - ref).abs().max().item() < tol


def test_batched_matmul(torch_cuda):
    torch = torch_cuda
    z, m, n, k = 3, 40, 50, 70
    a = randn(torch, z, m, k, dtype=torch.float16, seed=11)
    b = randn(torch, z, k, n, dtype=torch.float16, seed=12)
    c = torch.full((z, m, n), float("nan"), device="cuda")
    grid = (tilec.cdiv(m, 32) * tilec.cdiv(n, 32), z)
    matmul.batched_matmul_kernel[grid](a, b, c, m, n, k, *a.stride(), *b.stride(),
                                       *c.stride(), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    torch.cuda.synchronize()
    assert (c.double() - a.double() @ b.double()).abs().max().item() < 1e-4 * k ** 0.5
