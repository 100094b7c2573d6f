"""Loads pipelined without a dot (tl.range(num_stages=...)) on the GPU:
each pipelined result equals the unpipelined one bit for bit, and both are
within rounding of float64. The IR and PTX are checked in
tests/lit/tilegpu-pipeline-loads; the interpreter runs the same kernels in
test_pipelined_loads_interpreted."""
import numpy as np
import pytest

import tilec

import pipelined_load_kernels as pk

pytestmark = pytest.mark.gpu

DTYPES = ["float16", "bfloat16", "float32", "int8"]


def as_torch(torch, array, dtype):
    t = torch.from_numpy(array).cuda()
    return t.to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,K,block_k", [(64, 1536, 128), (37, 1000, 64),
                                            (16, 40, 64), (130, 4096, 256)])
def test_weighted_row_sums_are_the_unpipelined_sums(torch_cuda, dtype, rows, K, block_k):
    torch = torch_cuda
    rng = np.random.default_rng(rows * K)
    if dtype == "int8":
        x = as_torch(torch, rng.integers(-100, 100, (rows, K)).astype(np.int8), dtype)
        g = as_torch(torch, rng.integers(-100, 100, K).astype(np.int8), dtype)
    else:
        x = as_torch(torch, rng.standard_normal((rows, K)).astype(np.float32), dtype)
        g = as_torch(torch, rng.standard_normal(K).astype(np.float32), dtype)
    results = {}
    for stages in (1, 2, 3, 4, 6):
        out = torch.full((rows,), float("nan"), device="cuda")
        block_r = 16
        pk.weighted_row_sums[(tilec.cdiv(rows, block_r),)](
            x, g, out, rows, K, x.stride(0), BLOCK_R=block_r, BLOCK_K=block_k,
            STAGES=stages)
        torch.cuda.synchronize()
        results[stages] = out.cpu().numpy()
        if K % 16 == 0:
            # (K and the row stride `:16`: 16-byte vectors, which the rings
            # take; other K may leave x's tile a plain load.)
            assert ("cp.async" in pk.weighted_row_sums.asm["ptx"]) == (stages > 1)
    want = x.double().cpu().numpy() @ g.double().cpu().numpy()
    np.testing.assert_allclose(results[1], want, rtol=0, atol=1e-4 * np.abs(want).max() + 1e-3)
    for stages, got in results.items():
        np.testing.assert_array_equal(got, results[1], err_msg=f"STAGES={stages}")


@pytest.mark.parametrize("n", [1, 1000, 4096, 100_003])
def test_running_max_with_a_carried_pointer(torch_cuda, n):
    torch = torch_cuda
    x = torch.randn(n, device="cuda", dtype=torch.float16)
    for stages in (1, 2, 3, 5):
        out = torch.empty(1, device="cuda")
        pk.running_max[(1,)](x, out, n, BLOCK=512, STAGES=stages)
        torch.cuda.synchronize()
        assert out.item() == x.float().max().item(), stages
        if n % 8 == 0:
            # (n `:8` or `:16`: the mask comes in 16-byte runs, which the
            # ring copies; an odd n leaves the load in place.)
            assert ("cp.async" in pk.running_max.asm["ptx"]) == (stages > 1), stages
