"""Tensor descriptors read through TMA on sm_90a (tile-lower-descriptors,
tilegpu-pipeline-loads, tilegpu-lower-tensormap-loads): the blocks of the
dots' operands land in the shared buffers wgmma reads, through tensor maps
the launcher encodes (runtime/JIT/TensorMaps.cpp). Each result is checked
against float64 (or exactly, for int8) at shapes whose edges cut through
blocks, K below one block, and every stage count, the pipelined loops
(2 or more stages) through rings of mbarriers and the rest waited for on
the spot. The IR is checked in tests/lit."""
import numpy as np
import pytest

import tilec

import tma_kernels as k
import matmul  # kernels/matmul.py (conftest.py puts kernels/ on the path)

# Indices of the shipped configs (the descriptor kernels' list, which has
# one more for 8-bit types), as many as the type with the most has (a test
# skips past its own type's last).
SHIPPED = range(max(len(matmul.descriptor_configs(t)) for t in ("float16", "int8")))

pytestmark = pytest.mark.gpu


@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("TMA and wgmma: sm_90a")
    return torch_cuda


SHAPES = [(128, 128, 64), (200, 136, 72), (64, 64, 8), (1000, 777, 520), (128, 256, 1024)]


def tolerance(want, K):
    return 2e-2 * np.sqrt(K) * max(1.0, float(np.abs(want).max()) / 8)


def uses_tma(kernel):
    return "cp.async.bulk.tensor" in kernel.asm["ptx"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("m,n,kk", SHAPES)
@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_matmul_through_tma(hopper, dtype, m, n, kk, stages):
    torch = hopper
    gen = torch.Generator(device="cuda").manual_seed(m * n + kk)
    ka = (kk + 7) // 8 * 8  # rows 16-byte aligned: K padded to 8 elements
    nb = (n + 7) // 8 * 8
    a_full = torch.randn((m, ka), device="cuda", generator=gen).to(getattr(torch, dtype))
    b_full = torch.randn((kk, nb), device="cuda", generator=gen).to(getattr(torch, dtype))
    a, b = a_full[:, :kk], b_full[:, :n]
    c = torch.full((m, n), float("nan"), device="cuda")
    bm, bn, bk = 128, 128, 64
    k.desc_matmul[(tilec.cdiv(m, bm), tilec.cdiv(n, bn))](
        a, b, c, m, n, kk, a.stride(0), b.stride(0), c.stride(0),
        BM=bm, BN=bn, BK=bk, STAGES=stages, NAN=False, num_warps=8)
    torch.cuda.synchronize()
    assert uses_tma(k.desc_matmul)
    want = a.double().cpu().numpy() @ b.double().cpu().numpy()
    got = c.cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance(want, kk))


@pytest.mark.parametrize("m,n,kk", [(128, 128, 64), (200, 136, 72), (70, 200, 300), (64, 64, 8)])
@pytest.mark.parametrize("stages,ws", [(1, False), (3, False), (3, True), (4, True)])
def test_two_dots_share_a_block(hopper, m, n, kk, stages, ws):
    # X's block, read by a gate and an up dot, is copied once per K step
    # (one ring, pipelined or filled by a producer warpgroup) and both
    # products come out right, the K loop ending with both in flight.
    torch = hopper
    gen = torch.Generator(device="cuda").manual_seed(m + n + kk)
    ka, nb = (kk + 7) // 8 * 8, (n + 7) // 8 * 8
    x = torch.randn((m, ka), device="cuda", generator=gen).half()[:, :kk]
    g = torch.randn((kk, nb), device="cuda", generator=gen).half()[:, :n]
    u = torch.randn((kk, nb), device="cuda", generator=gen).half()[:, :n]
    assert g.stride(0) == u.stride(0)
    c = torch.full((m, n), float("nan"), device="cuda")
    bm, bn, bk = 64, 128, 64
    k.gate_up[(tilec.cdiv(m, bm), tilec.cdiv(n, bn))](
        x, g, u, c, m, n, kk, x.stride(0), g.stride(0), c.stride(0),
        BM=bm, BN=bn, BK=bk, STAGES=stages, WS=ws, num_warps=4)
    torch.cuda.synchronize()
    ptx = k.gate_up.asm["ptx"]
    assert uses_tma(k.gate_up)
    assert ("setmaxnreg" in ptx) == ws
    x64, g64, u64 = (t.double().cpu().numpy() for t in (x, g, u))
    want = (x64 @ g64) * (x64 @ u64)
    got = c.cpu().numpy()
    assert np.abs(got - want).max() <= tolerance(want, kk)


@pytest.mark.parametrize("m,n,kk", [(128, 128, 100), (64, 64, 8)])
def test_nan_padding_reaches_the_tensor_map(hopper, m, n, kk):
    # K not a multiple of the block: the last block's columns past K read
    # NaN, and every product with them is NaN; with zero padding all is
    # finite.
    torch = hopper
    a_full = torch.randn((m, 128), device="cuda").half()
    a = a_full[:, :kk]
    b = torch.randn((kk, n), device="cuda").half()
    for nan in (False, True):
        c = torch.zeros((m, n), device="cuda")
        k.desc_matmul[(tilec.cdiv(m, 64), tilec.cdiv(n, 64))](
            a, b, c, m, n, kk, a.stride(0), b.stride(0), c.stride(0),
            BM=64, BN=64, BK=64, STAGES=3, NAN=nan, num_warps=4)
        torch.cuda.synchronize()
        assert uses_tma(k.desc_matmul)
        assert bool(torch.isnan(c).all()) == nan
        if not nan:
            want = a.double().cpu().numpy() @ b.double().cpu().numpy()
            np.testing.assert_allclose(c.cpu().numpy(), want, rtol=0,
                                       atol=tolerance(want, kk))


@pytest.mark.parametrize("m,n,kk", [(256, 256, 512), (100, 300, 136), (64, 128, 32)])
@pytest.mark.parametrize("stages", [1, 3])
def test_transposed_weights_through_tma(hopper, m, n, kk, stages):
    torch = hopper
    x = torch.randn((m, kk), device="cuda").bfloat16()
    w = torch.randn((n, kk), device="cuda").bfloat16()
    c = torch.full((m, n), float("nan"), device="cuda")
    k.desc_matmul_wt[(tilec.cdiv(m, 128), tilec.cdiv(n, 128))](
        x, w, c, m, n, kk, x.stride(0), w.stride(0), c.stride(0),
        BM=128, BN=128, BK=64, STAGES=stages, num_warps=8)
    torch.cuda.synchronize()
    assert uses_tma(k.desc_matmul_wt)
    want = x.double().cpu().numpy() @ w.double().cpu().numpy().T
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=0, atol=tolerance(want, kk))


@pytest.mark.parametrize("m,n,kk", [(256, 128, 512), (130, 70, 96)])
def test_int8_through_tma_is_exact(hopper, m, n, kk):
    torch = hopper
    rng = np.random.default_rng(m + n + kk)
    x = torch.from_numpy(rng.integers(-128, 128, (m, kk)).astype(np.int8)).cuda()
    w = torch.from_numpy(rng.integers(-128, 128, (n, kk)).astype(np.int8)).cuda()
    c = torch.zeros((m, n), device="cuda", dtype=torch.int32)
    k.desc_matmul_wt[(tilec.cdiv(m, 128), tilec.cdiv(n, 128))](
        x, w, c, m, n, kk, x.stride(0), w.stride(0), c.stride(0),
        BM=128, BN=128, BK=64, STAGES=3, num_warps=4)
    torch.cuda.synchronize()
    assert uses_tma(k.desc_matmul_wt)
    want = x.cpu().numpy().astype(np.int64) @ w.cpu().numpy().astype(np.int64).T
    np.testing.assert_array_equal(c.cpu().numpy(), want)


def test_host_descriptors_through_tma(hopper):
    torch = hopper
    m, n, kk = 300, 200, 256
    a = torch.randn((m, kk), device="cuda").half()
    b = torch.randn((kk, n + 8), device="cuda").half()[:, :n]
    c = torch.full((m, n), float("nan"), device="cuda")
    a_desc = tilec.TensorDescriptor.from_tensor(a, [128, 64])
    b_desc = tilec.TensorDescriptor(b, [kk, n], [b.stride(0), 1], [64, 128])
    for _ in range(2):  # the second launch finds its maps encoded
        k.host_desc_matmul[(tilec.cdiv(m, 128), tilec.cdiv(n, 128))](
            a_desc, b_desc, c, m, n, kk, c.stride(0), BM=128, BN=128, BK=64, num_warps=8)
    torch.cuda.synchronize()
    want = a.double().cpu().numpy() @ b.double().cpu().numpy()
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=0, atol=tolerance(want, kk))


def test_a_new_tensor_gets_its_own_map(hopper):
    # Same shapes, another allocation: the launcher's cache must not hand
    # the first tensor's map to the second.
    torch = hopper
    m = n = kk = 128
    outs = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        a = torch.randn((m, kk), device="cuda").half()
        b = torch.randn((kk, n), device="cuda").half()
        c = torch.zeros((m, n), device="cuda")
        k.desc_matmul[(1, 1)](a, b, c, m, n, kk, a.stride(0), b.stride(0), c.stride(0),
                              BM=128, BN=128, BK=64, STAGES=3, NAN=False, num_warps=8)
        torch.cuda.synchronize()
        want = a.double().cpu().numpy() @ b.double().cpu().numpy()
        np.testing.assert_allclose(c.cpu().numpy(), want, rtol=0, atol=tolerance(want, kk))
        outs.append(c)
    assert not torch.equal(outs[0], outs[1])


def assert_product(a, b, c):
    """C = A @ B: exactly for int8 (int64 sums), else within tolerance of
    the float64 product."""
    if c.dtype.is_floating_point:
        want = a.double().cpu().numpy() @ b.double().cpu().numpy()
        np.testing.assert_allclose(c.cpu().numpy(), want, rtol=0,
                                   atol=tolerance(want, a.shape[1]))
    else:
        want = a.cpu().numpy().astype(np.int64) @ b.cpu().numpy().astype(np.int64)
        np.testing.assert_array_equal(c.cpu().numpy(), want)


def assert_gelu_epilogue(torch, a, b, bias, c):
    """C = GELU (tanh form) of A @ B + bias, against float64, within the
    dot's tolerance plus one unit of C's type at the largest |C|."""
    x = a.double().cpu().numpy() @ b.double().cpu().numpy() + bias.double().cpu().numpy()
    want = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    rounding = float(np.abs(want).max()) * torch.finfo(c.dtype).eps
    np.testing.assert_allclose(c.double().cpu().numpy(), want, rtol=0,
                               atol=tolerance(x, a.shape[1]) + rounding)


def _shipped_case(torch, dtype, config_index, seed, c_dtype=None):
    """A shipped config of matmul_configs(dtype) (skips past the last) and
    operands of 333 x 712 by 712 x 520, a shape no tile divides: random
    integers for int8 (C int32, zeros), normal floats otherwise (C NaN, of
    `c_dtype` or fp32)."""
    import matmul  # kernels/matmul.py
    configs = matmul.matmul_configs(dtype, aligned=True)
    if config_index >= len(configs):
        pytest.skip("fewer configs")
    m, n, kk = 333, 520, 712
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        a = torch.from_numpy(rng.integers(-100, 100, (m, kk)).astype(np.int8)).cuda()
        b = torch.from_numpy(rng.integers(-100, 100, (kk, n)).astype(np.int8)).cuda()
        return configs[config_index], a, b, torch.zeros((m, n), device="cuda",
                                                        dtype=torch.int32)
    a = torch.from_numpy(rng.standard_normal((m, kk)).astype(np.float32)).cuda()
    b = torch.from_numpy(rng.standard_normal((kk, n)).astype(np.float32)).cuda()
    a, b = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
    c = torch.full((m, n), float("nan"), device="cuda", dtype=c_dtype or torch.float32)
    return configs[config_index], a, b, c


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8"])
@pytest.mark.parametrize("config_index", SHIPPED)
def test_shipped_desc_matmul_every_config(hopper, dtype, config_index):
    # kernels/matmul.py's matmul_desc_kernel at a shape no tile divides,
    # every shipped config: fp16 and bf16 through TMA; int8 with B
    # row-major, which 8-bit wgmma cannot read, through pointers.
    import matmul  # kernels/matmul.py
    torch = hopper
    config, a, b, c = _shipped_case(torch, dtype, config_index, config_index)
    matmul.matmul_tma(a, b, c, config)
    torch.cuda.synchronize()
    assert uses_tma(matmul.matmul_desc_kernel) == (dtype != "int8")
    assert_product(a, b, c)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs,c_type", [(1, "fp32"), (7, "fp32"), (132, "fp32"),
                                              (132, "inputs")])
def test_persistent_matmul_every_config(hopper, dtype, config_index, programs, c_type):
    # kernels/matmul.py's matmul_persistent_kernel: one flat loop over each
    # program's (tile, K step) pairs, pipelined across tiles, the epilogue
    # of each tile (bias, GELU) inside it; a shape no tile divides, fewer
    # programs than tiles (each walks several) and more than some configs'
    # tiles (some walk none). C in fp32, or in the inputs' type (whose
    # epilogue converts the tile through shared memory inside the loop).
    import matmul  # kernels/matmul.py
    torch = hopper
    floats = dtype != "int8"
    if not floats and c_type != "fp32":
        pytest.skip("int8 products are stored as int32")
    c_dtype = getattr(torch, dtype) if c_type == "inputs" else None
    config, a, b, c = _shipped_case(torch, dtype, config_index, config_index + programs,
                                    c_dtype)
    bias = torch.randn(c.shape[1], device="cuda") if floats else None
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu" if floats else "",
                      programs=programs)
    torch.cuda.synchronize()
    assert uses_tma(matmul.matmul_persistent_kernel) == floats
    if not floats:
        want = a.cpu().numpy().astype(np.int64) @ b.cpu().numpy().astype(np.int64)
        np.testing.assert_array_equal(c.cpu().numpy(), want)
        return
    assert_gelu_epilogue(torch, a, b, bias, c)


@pytest.mark.parametrize("dtype", ["float16", "int8", "float8_e4m3fn"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [None, 7])
@pytest.mark.parametrize("ws", [False, True])
def test_column_major_b_every_config(hopper, dtype, config_index, programs, ws):
    # B column-major (B_K_MAJOR: N x K blocks through TMA, transposed):
    # wgmma reads B's buffer K-major, so int8 and fp8 run on wgmma here
    # too; every config of descriptor_configs(); one program per tile or 7
    # persistent ones, warp-specialised or not, at M and N no tile divides
    # (K = 720: TMA needs rows of whole 16-byte multiples, 8-bit ones too).
    import matmul  # kernels/matmul.py
    torch = hopper
    configs = matmul.descriptor_configs(dtype)
    if config_index >= len(configs):
        pytest.skip("fewer configs")
    config = configs[config_index]
    m, n, kk = 333, 520, 720
    rng = np.random.default_rng(config_index + 3)
    if dtype == "int8":
        a = torch.from_numpy(rng.integers(-100, 100, (m, kk)).astype(np.int8)).cuda()
        b = torch.from_numpy(rng.integers(-100, 100, (n, kk)).astype(np.int8)).cuda().t()
        c = torch.zeros((m, n), device="cuda", dtype=torch.int32)
    else:
        a = torch.from_numpy(rng.standard_normal((m, kk)).astype(np.float32)).cuda()
        b = torch.from_numpy(rng.standard_normal((n, kk)).astype(np.float32)).cuda().t()
        a, b = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
        c = torch.full((m, n), float("nan"), device="cuda")
    assert b.stride() == (1, kk)
    matmul.matmul_tma(a, b, c, config, programs=programs, warp_specialize=ws)
    torch.cuda.synchronize()
    kernel = matmul.matmul_persistent_kernel if programs else matmul.matmul_desc_kernel
    assert uses_tma(kernel) and "wgmma.mma_async" in kernel.asm["ptx"]
    assert_product(a, b, c)


@pytest.mark.parametrize("programs", [None, 5])
def test_matmul_tma_empty_shapes(hopper, programs):
    # No tensor map describes an empty tensor: K = 0 gives C = act(bias)
    # through matmul(), an empty C is left alone.
    import matmul  # kernels/matmul.py
    torch = hopper
    config = matmul.matmul_configs("float16")[0]
    a = torch.empty((70, 0), device="cuda", dtype=torch.float16)
    b = torch.empty((0, 40), device="cuda", dtype=torch.float16)
    bias = torch.randn(40, device="cuda")
    c = torch.full((70, 40), float("nan"), device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="relu", programs=programs)
    torch.testing.assert_close(c, torch.relu(bias).expand(70, 40))
    empty = torch.empty((0, 40), device="cuda")
    matmul.matmul_tma(torch.empty((0, 64), device="cuda", dtype=torch.float16),
                      torch.randn((64, 40), device="cuda").half(), empty, config,
                      programs=programs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("c_type", ["float32", "inputs"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [None, 7])
@pytest.mark.parametrize("ws", [False, True])
def test_tma_store_matmul_every_config(hopper, dtype, c_type, config_index, programs, ws):
    # TMA_STORE: C leaves each tile's swizzled shared buffer through one
    # thread's bulk copies (tilegpu-lower-tensormap-stores). C is a view
    # inside a larger NaN-filled tensor: the copies clip the edge tiles to
    # C's map, so nothing beside C is written.
    import matmul  # kernels/matmul.py
    torch = hopper
    c_dtype = torch.float32 if c_type == "float32" else getattr(torch, dtype)
    config, a, b, c = _shipped_case(torch, dtype, config_index, 60 + config_index, c_dtype)
    m, n = c.shape
    whole = torch.full((m + 5, n + 8), float("nan"), device="cuda", dtype=c_dtype)
    c = whole[:m, :n]
    bias = torch.randn(n, device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu", programs=programs,
                      warp_specialize=ws, tma_store=True)
    torch.cuda.synchronize()
    kernel = matmul.matmul_desc_kernel if programs is None else matmul.matmul_persistent_kernel
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in kernel.asm["ptx"]
    x = a.double().cpu().numpy() @ b.double().cpu().numpy() + bias.double().cpu().numpy()
    want = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    got = whole.double().cpu().numpy()
    # Each element may also be off by its own rounding to the 16-bit C.
    rounding = 0.0 if c_type == "float32" else np.abs(want) * (2.0 ** -8)
    excess = np.abs(got[:m, :n] - want) - (tolerance(x, a.shape[1]) + rounding)
    assert not np.isnan(excess).any(), "C has elements TMA never wrote"
    assert (excess <= 0).all(), f"max error beyond the tolerance: {excess.max():.3g}"
    assert np.isnan(got[m:, :]).all() and np.isnan(got[:, n:]).all()


@pytest.mark.parametrize("programs", [None, 7])
@pytest.mark.parametrize("c_type,n", [("float32", 70), ("float16", 70), ("float32", 36)])
@pytest.mark.parametrize("kernel_decides", [False, True])
def test_tma_store_leaves_what_follows_short_rows(hopper, monkeypatch, programs, c_type, n,
                                                  kernel_decides):
    # TMA clips a store only to the next 16-byte boundary of the row: with
    # C a view of 70 columns (140 or 280 bytes) in a wider tensor, asking
    # for TMA stores must not write its columns 70 and 71. matmul_tma
    # stores such a C through pointers; `kernel_decides` hands the kernel
    # TMA_STORE anyway, so that the compiled kernel's own run-time test of
    # N (tile-lower-descriptors) must take its pointer path. 36 fp32
    # columns (N not known to be a multiple of 8 when compiling, 144 bytes
    # at run time) take the same kernel's TMA path.
    import matmul  # kernels/matmul.py
    torch = hopper
    if kernel_decides:
        monkeypatch.setattr(matmul, "tma_store_clips_exactly", lambda columns, size: True)
    config = matmul.matmul_configs("float16")[0]
    rng = np.random.default_rng(3)
    m, k = 45, 64
    a = torch.from_numpy(rng.standard_normal((m, k)).astype(np.float16)).cuda()
    b = torch.from_numpy(rng.standard_normal((k, n)).astype(np.float16)).cuda()
    c_dtype = getattr(torch, c_type)
    whole = torch.full((m, 80), float("nan"), device="cuda", dtype=c_dtype)
    matmul.matmul_tma(a, b, whole[:, :n], config, programs=programs, tma_store=True)
    torch.cuda.synchronize()
    kernel = matmul.matmul_persistent_kernel if programs else matmul.matmul_desc_kernel
    tma_store = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in kernel.asm["ptx"]
    # (Both paths in the kernel where it decides; the pointer kernel alone
    # where matmul_tma saw ragged rows.)
    assert tma_store == (kernel_decides or n == 36)
    got = whole.double().cpu().numpy()
    assert np.isnan(got[:, n:]).all(), "a store wrote past the view's columns"
    x = a.double().cpu().numpy() @ b.double().cpu().numpy()
    rounding = 0.0 if c_type == "float32" else np.abs(x) * (2.0 ** -8)
    assert (np.abs(got[:, :n] - x) <= tolerance(x, k) + rounding).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [None, 7, 132])
def test_warp_specialized_matmul_every_config(hopper, dtype, config_index, programs):
    # WARP_SPECIALIZE: a producer warpgroup issues the TMA copies into rings
    # guarded by full/empty mbarriers, the num_warps consumers multiply
    # (tilegpu-warp-specialize); the descriptor kernel (programs None) and
    # the persistent one, whose producer runs ahead across tiles and the
    # consumers' epilogue (bias, GELU), at a shape no tile divides.
    import matmul  # kernels/matmul.py
    torch = hopper
    config, a, b, c = _shipped_case(torch, dtype, config_index, 40 + config_index)
    bias = torch.randn(c.shape[1], device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu", programs=programs,
                      warp_specialize=True)
    torch.cuda.synchronize()
    kernel = matmul.matmul_desc_kernel if programs is None else matmul.matmul_persistent_kernel
    assert "mbarrier.arrive.shared::cta.b64" in kernel.asm["ptx"]
    x = a.double().cpu().numpy() @ b.double().cpu().numpy() + bias.double().cpu().numpy()
    want = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(c.double().cpu().numpy(), want, rtol=0,
                               atol=tolerance(x, a.shape[1]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [1, 7, 132])
@pytest.mark.parametrize("tma_store,c_type", [(False, "fp32"), (True, "inputs")])
def test_consumer_groups_matmul(hopper, dtype, config_index, programs, tma_store, c_type):
    # Two consumer groups of the config's warps taking turns at the
    # persistent kernel's tiles (ping-pong, num_consumer_groups=2), every
    # shipped config of one warpgroup, at a shape no tile divides: a single
    # program walking every tile (both groups in turn), 7, and more
    # programs than some configs' tiles (a program's one tile: group 1
    # idle). Bias and GELU; C in fp32 through pointers, or in the inputs'
    # type through TMA stores (each group's own staging buffer).
    import matmul  # kernels/matmul.py
    torch = hopper
    c_dtype = getattr(torch, dtype) if c_type == "inputs" else None
    config, a, b, c = _shipped_case(torch, dtype, config_index, 80 + config_index, c_dtype)
    if config[4] != 4:
        pytest.skip("two groups of 8 warps leave the consumers too few registers")
    bias = torch.randn(c.shape[1], device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu", programs=programs,
                      warp_specialize=True, tma_store=tma_store, consumer_groups=2)
    torch.cuda.synchronize()
    ptx = matmul.matmul_persistent_kernel.asm["ptx"]
    assert ".reqntid 384" in ptx and "bar.sync %r" in ptx
    assert_gelu_epilogue(torch, a, b, bias, c)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [2, 8, 132])
@pytest.mark.parametrize("tma_store,c_type", [(False, "fp32"), (True, "inputs")])
@pytest.mark.parametrize("cluster", [2, 4])
def test_cluster_matmul(hopper, dtype, config_index, programs, tma_store, c_type, cluster):
    # The persistent kernel in clusters of two or four: each cluster walks
    # runs of that many tiles on one column of C, B's blocks copied once
    # for all its programs (a share of the columns by each producer,
    # multicast), every shipped config, at a shape no tile divides and
    # whose rows of tiles are not whole runs for some configs (the last
    # run's later tiles past C); one cluster walking every run (2 programs:
    # matmul_tma rounds up to one cluster), 8 programs, and 132 (or as
    # many as the GPU runs at once: matmul_tma caps the grid). Bias and
    # GELU; C in fp32 through pointers, or in the inputs' type through TMA
    # stores.
    import matmul  # kernels/matmul.py
    torch = hopper
    c_dtype = getattr(torch, dtype) if c_type == "inputs" else None
    config, a, b, c = _shipped_case(torch, dtype, config_index, 90 + config_index, c_dtype)
    bias = torch.randn(c.shape[1], device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu", programs=programs,
                      warp_specialize=True, tma_store=tma_store, cluster=cluster)
    torch.cuda.synchronize()
    # (Whole clusters, at least one, no more than asked for, rounded.)
    assert matmul.last_grid % cluster == 0
    assert cluster <= matmul.last_grid <= max(cluster, programs // cluster * cluster)
    ptx = matmul.matmul_persistent_kernel.asm["ptx"]
    assert f".reqnctapercluster {cluster}, 1, 1" in ptx
    multicast = "multicast::cluster" in ptx
    # (B's columns of 128 bytes, a whole number for each program.)
    assert multicast == (config[1] * 2 // 128 % cluster == 0)
    assert_gelu_epilogue(torch, a, b, bias, c)


@pytest.mark.parametrize("dtype,c_type", [("float16", "inputs"), ("bfloat16", "fp32")])
@pytest.mark.parametrize("config_index", SHIPPED)
@pytest.mark.parametrize("programs", [7, 132])
@pytest.mark.parametrize("cluster", [1, 2])
def test_stream_k_matmul(hopper, dtype, c_type, config_index, programs, cluster):
    # Stream-K (matmul_tma(stream_k=True)): the last round of tiles (runs of
    # two in clusters) split by K steps among the programs, a tile cut
    # between ranges finished by the program holding its first step with
    # the partial sums of the next ranges' programs. Every shipped config at
    # a shape no tile divides: on 7 programs some tiles are cut; on 132
    # every tile is, some in many pieces, and many ranges are empty. Bias
    # and GELU after the sum; C in fp16 or fp32 (through pointers: the
    # kernel has atomics). Afterwards every flag is back to
    # zero, and a second launch on the same grid gives the same bits.
    import matmul  # kernels/matmul.py
    torch = hopper
    c_dtype = getattr(torch, dtype) if c_type == "inputs" else None
    config, a, b, c = _shipped_case(torch, dtype, config_index, 110 + config_index, c_dtype)
    bias = torch.randn(c.shape[1], device="cuda")
    again = c.clone()
    for out in (c, again):
        matmul.matmul_tma(a, b, out, config, bias=bias, activation="gelu", programs=programs,
                          warp_specialize=True, tma_store=c_type == "inputs", cluster=cluster,
                          stream_k=True)
    torch.cuda.synchronize()
    ptx = matmul.matmul_persistent_kernel.asm["ptx"]
    assert "atom.acquire.gpu" in ptx and "release.gpu" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared" not in ptx  # (C through pointers)
    assert_gelu_epilogue(torch, a, b, bias, c)
    assert torch.equal(c, again)
    _, flags = matmul.stream_k_workspace(a, c, matmul.last_grid, config[0] * config[1])
    assert not flags.any()


@pytest.mark.parametrize("dtype,c_type", [("float16", "inputs"), ("bfloat16", "fp32")])
@pytest.mark.parametrize("config", matmul.WIDE_CONFIGS)
@pytest.mark.parametrize("programs", [7, 132])
@pytest.mark.parametrize("cluster", [1, 2])
def test_wide_tile_matmul(hopper, dtype, c_type, config, programs, cluster):
    # Tiles whose width is not a power of two (160 = 128 + 32, 192 = 128 +
    # 64: matmul_persistent_kernel's TAIL_N, two dots per K step on one
    # block of A), at a shape no tile divides, on 7 and 132 programs,
    # alone and in clusters of two; bias and GELU; C in fp16 through TMA
    # stores or in fp32 through pointers.
    import matmul  # kernels/matmul.py
    torch = hopper
    c_dtype = getattr(torch, dtype) if c_type == "inputs" else None
    _, a, b, c = _shipped_case(torch, dtype, 0, 130 + config[1], c_dtype)
    bias = torch.randn(c.shape[1], device="cuda")
    matmul.matmul_tma(a, b, c, config, bias=bias, activation="gelu", programs=programs,
                      warp_specialize=True, tma_store=c_type == "inputs", cluster=cluster)
    torch.cuda.synchronize()
    tail = matmul.split_width(config[1])[1]
    assert f"m64n{tail}k16" in matmul.matmul_persistent_kernel.asm["ptx"]
    assert_gelu_epilogue(torch, a, b, bias, c)


def test_wide_tile_at_the_odd_shape(hopper):
    # 3000 x 5000 x 1000 at 256 x 160 on every SM, the shape the tile is
    # for (384 tiles: 2.9 rounds' work in 3), against float64.
    import matmul  # kernels/matmul.py
    torch = hopper
    torch.manual_seed(9)
    a = torch.randn(3000, 1000, device="cuda", dtype=torch.float16)
    b = torch.randn(1000, 5000, device="cuda", dtype=torch.float16)
    c = torch.full((3000, 5000), float("nan"), device="cuda", dtype=torch.float16)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    matmul.matmul_tma(a, b, c, (256, 160, 64, 8, 8, 3), programs=sms, warp_specialize=True,
                      tma_store=True)
    torch.cuda.synchronize()
    want = a.double() @ b.double()
    assert (c.double() - want).abs().max().item() < tolerance(want.cpu().numpy(), 1000) + \
        float(want.abs().max()) * torch.finfo(torch.float16).eps


@pytest.mark.parametrize("cluster", [1, 2])
def test_stream_k_after_whole_rounds(hopper, cluster):
    # 2000 x 4100 by 300 at 128 x 256: 272 tiles, two whole rounds on 132
    # programs (136 runs of two on 66 clusters: two rounds too) before the
    # split ones; and the
    # same C as the kernel without stream-K, within the sums' rounding.
    import matmul  # kernels/matmul.py
    torch = hopper
    torch.manual_seed(7)
    a = torch.randn(2000, 300, device="cuda", dtype=torch.float16)
    b = torch.randn(300, 4100, device="cuda", dtype=torch.float16)
    config = (128, 256, 64, 8, 8, 3)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    c = torch.full((2000, 4100), float("nan"), device="cuda", dtype=torch.float32)
    plain = c.clone()
    matmul.matmul_tma(a, b, c, config, programs=sms, warp_specialize=True, cluster=cluster,
                      stream_k=True)
    matmul.matmul_tma(a, b, plain, config, programs=sms, warp_specialize=True, cluster=cluster)
    torch.cuda.synchronize()
    want = a.double() @ b.double()
    assert (c.double() - want).abs().max().item() < tolerance(want.cpu().numpy(), 300)
    assert (c - plain).abs().max().item() < 1e-3


@pytest.mark.parametrize("cluster,grid", [(2, 3), (4, 6)])
def test_cluster_launch_needs_whole_clusters(hopper, cluster, grid):
    # A kernel in clusters of two (four) launched on a grid that is not
    # whole clusters is refused by name, before the driver (which would
    # say only "invalid value").
    import matmul  # kernels/matmul.py
    torch = hopper
    config, a, b, c = _shipped_case(torch, "float16", 0, 5)
    bm, bn, bk, gm, warps, stages = config
    m, kk = a.shape
    n = b.shape[1]
    with pytest.raises(tilec.Error, match="not whole clusters"):
        matmul.matmul_persistent_kernel[(grid,)](
            a, b, c, c, m, n, kk, a.stride(0), b.stride(0), c.stride(0), 1, c, c, BLOCK_M=bm,
            BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=False, ACTIVATION="", STAGES=stages,
            WARP_SPECIALIZE=True, CLUSTER=cluster, num_warps=warps)


def test_clusters_at_once(hopper):
    # The driver's count of clusters the GPU runs at once: for the cluster
    # kernels between one and a cluster per two (four) SMs (one block of
    # 128 x 256 fills an SM's shared memory), for the same kernel without
    # clusters (clusters of one) at most a block per SM; matmul_tma's
    # persistent grid in clusters is no wider than that count's programs.
    import matmul  # kernels/matmul.py
    torch = hopper
    config, a, b, c = _shipped_case(torch, "float16", 0, 6, torch.float16)
    bm, bn, bk, gm, warps, stages = config
    m, kk = a.shape
    n = b.shape[1]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    args = (a, b, c, c, m, n, kk, a.stride(0), b.stride(0), c.stride(0), 1, c, c)
    constexprs = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, HAS_BIAS=False,
                      ACTIVATION="", STAGES=stages, WARP_SPECIALIZE=True, TMA_STORE=True,
                      EPILOGUE_PIECES=matmul.default_epilogue_pieces(config, 2),
                      B_K_MAJOR=False, CONSUMER_GROUPS=1, num_warps=warps)
    counts = {}
    for cluster in (1, 2, 4):
        k = matmul.matmul_persistent_kernel.warmup(*args, grid=(cluster,), CLUSTER=cluster,
                                                   **constexprs)
        assert k.metadata.cluster_dims == (cluster, 1, 1)
        counts[cluster] = k.max_active_clusters()
    assert 1 <= counts[1] <= sms, counts
    want = (a.double() @ b.double()).cpu().numpy()
    for cluster in (2, 4):
        assert 1 <= counts[cluster] <= sms // cluster, counts
        constexprs["CLUSTER"] = cluster
        assert matmul._whole_clusters(10 * sms, cluster, args, constexprs) == \
            cluster * counts[cluster]
        assert matmul._whole_clusters(cluster + 1, cluster, args, constexprs) == cluster
        # (N = 520 rows of 1040 bytes: matmul_tma stores through pointers,
        # a kernel of its own, asked for its own count.)
        c.fill_(float("nan"))
        matmul.matmul_tma(a, b, c, config, programs=10 * sms, warp_specialize=True,
                          tma_store=True, cluster=cluster)
        torch.cuda.synchronize()
        assert cluster <= matmul.last_grid <= cluster * counts[cluster], \
            (cluster, matmul.last_grid, counts)
        got = c.double().cpu().numpy()
        assert np.abs(got - want).max() <= tolerance(want, kk) + np.abs(want).max() * 2.0 ** -9


@pytest.mark.parametrize("kernel", ["tilec pointers", "tilec descriptors",
                                    "tilec descriptors WS", "tilec descriptors TMA store",
                                    "tilec persistent", "tilec persistent WS",
                                    "tilec persistent WS + TMA store",
                                    "tilec persistent WS + TMA store, clusters",
                                    "tilec persistent WS + TMA store, clusters of 4",
                                    "tilec persistent WS, stream-K",
                                    "tilec persistent WS, clusters, stream-K"])
@pytest.mark.parametrize("c_rows", [True, False])
@pytest.mark.parametrize("b_rows", [True, False])
def test_shipped_table_launches_each_kernel(hopper, kernel, c_rows, b_rows, monkeypatch):
    # matmul() without a config launches the kernel the shipped table
    # (kernels/matmul_tuned.py) measured fastest at the nearest shape, here
    # a table of one entry naming `kernel`: the descriptor and persistent
    # ones through matmul_tma (B row-major, or column-major: B_K_MAJOR),
    # with a C that is not contiguous along its rows stored through
    # pointers; the result as the pointer kernel's.
    import matmul  # kernels/matmul.py
    import matmul_tuned  # kernels/matmul_tuned.py
    torch = hopper
    config, a, b, _ = _shipped_case(torch, "float16", 2, 70)
    if not b_rows:
        b = b.t().contiguous().t()
    m, n = a.shape[0], b.shape[1]
    table = {torch.cuda.get_device_name(): [{
        "dtype": "float16", "c_dtype": "float16", "M": 4096, "N": 4096, "K": 4096,
        "kernel": kernel, "config": dict(zip(matmul_tuned.CONFIG_KEYS, config))}]}
    monkeypatch.setattr(matmul_tuned, "load", lambda path=None: table)
    calls = []
    launch = matmul.matmul_tma
    monkeypatch.setattr(matmul, "matmul_tma", lambda *args, **kw: calls.append(kw) or
                        launch(*args, **kw))
    if c_rows:
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    else:  # C column-major
        c = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float16).T
    bias = torch.randn(n, device="cuda")
    matmul.matmul(a, b, c, bias=bias, activation="relu")
    torch.cuda.synchronize()
    kind, options = matmul_tuned.KERNELS[kernel]
    if kind == "pointers":
        assert calls == []
    else:
        assert len(calls) == 1
        assert (calls[0]["programs"] is not None) == (kind == "persistent")
        assert calls[0]["warp_specialize"] == options.get("warp_specialize", False)
        assert calls[0]["tma_store"] == (options.get("tma_store", False) and c_rows)
        assert calls[0]["cluster"] == options.get("cluster", 1)
        assert calls[0]["stream_k"] == options.get("stream_k", False)
    x = a.double().cpu().numpy() @ b.double().cpu().numpy() + bias.double().cpu().numpy()
    want = np.maximum(x, 0)
    got = c.double().cpu().numpy()
    excess = np.abs(got - want) - (tolerance(x, a.shape[1]) + np.abs(want) * 2.0 ** -10)
    assert not np.isnan(excess).any() and (excess <= 0).all(), np.nanmax(excess)
