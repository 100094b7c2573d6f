"""tests/python/dot_kernels.py in the interpreter (CI) and on the GPU
(marked gpu): fp16 accumulators, 3-D dots, tiles smaller than the warps
cover; against float64, and the GPU against the interpreter with an
f32-level tolerance (both round tf32 inputs the same way, only the order
of the sums differs)."""
import numpy as np
import pytest

import tilec

import dot_kernels
import matmul_reference as ref

TILE_CASES = [  # (BM, BN, BK, num_warps, fp16 accumulator)
    (16, 16, 16, 8, False), (16, 16, 16, 1, False), (32, 64, 32, 4, True),
    (64, 32, 16, 8, True), (128, 16, 64, 4, False)]


def _tile(interpret, bm, bn, bk, warps, f16, a, b, torch=None):
    kernel = (tilec.JITFunction(dot_kernels.dot_tile.fn, interpret=True)
              if interpret else dot_kernels.dot_tile)
    out = np.float16 if f16 else np.float32
    if interpret:
        c = np.zeros((bm, bn), out)
        kernel[(1,)](a.astype(np.float16), b.astype(np.float16), c, BM=bm, BN=bn,
                     BK=bk, OUT_F16=f16, num_warps=warps)
        return c.astype(np.float64)
    da = torch.from_numpy(a).half().cuda()
    db = torch.from_numpy(b).half().cuda()
    c = torch.full((bm, bn), -7, device="cuda",
                   dtype=torch.float16 if f16 else torch.float32)
    kernel[(1,)](da, db, c, BM=bm, BN=bn, BK=bk, OUT_F16=f16, num_warps=warps)
    torch.cuda.synchronize()
    return c.double().cpu().numpy()


def _tolerance(f16):
    return ref.TOLERANCE[("float16", "tf32", "float16" if f16 else "float32")]


@pytest.mark.parametrize("bm,bn,bk,warps,f16", TILE_CASES)
def test_dot_tile_interpreter(bm, bn, bk, warps, f16):
    a, b = ref.operands(np.random.default_rng(bm + bn + bk), bm, bn, bk, "float16")
    got = _tile(True, bm, bn, bk, warps, f16, a, b)
    assert ref.error(got, a @ b, bk) <= _tolerance(f16)


def test_dot_batched_interpreter():
    z, bm, bn, bk = 4, 16, 32, 16
    a, b = ref.operands(np.random.default_rng(1), bm, bn, bk, "float16", batch=z)
    c = np.zeros((z, bm, bn), np.float32)
    kernel = tilec.JITFunction(dot_kernels.dot_batched.fn, interpret=True)
    kernel[(1,)](a.astype(np.float16), b.astype(np.float16), c, Z=z, BM=bm,
                 BN=bn, BK=bk)
    assert ref.error(c, a @ b, bk) <= 2e-5


@pytest.mark.gpu
@pytest.mark.parametrize("bm,bn,bk,warps,f16", TILE_CASES)
def test_dot_tile_gpu(torch_cuda, bm, bn, bk, warps, f16):
    a, b = ref.operands(np.random.default_rng(bm + bn + bk), bm, bn, bk, "float16")
    got = _tile(False, bm, bn, bk, warps, f16, a, b, torch_cuda)
    assert ref.error(got, a @ b, bk) <= _tolerance(f16)
    # Against the interpreter: f32 sums agree to a few ulps; an f16
    # accumulator's roundings may differ by one f16 ulp.
    interpreted = _tile(True, bm, bn, bk, warps, f16, a, b)
    assert ref.error(got, interpreted, bk) <= (2e-3 if f16 else 1e-5)


@pytest.mark.gpu
@pytest.mark.parametrize("warps", [1, 4, 8])
def test_dot_batched_gpu(torch_cuda, warps):
    torch = torch_cuda
    z, bm, bn, bk = 4, 16, 32, 16
    a, b = ref.operands(np.random.default_rng(1), bm, bn, bk, "float16", batch=z)
    c = torch.full((z, bm, bn), -7.0, device="cuda")
    dot_kernels.dot_batched[(1,)](torch.from_numpy(a).half().cuda(),
                                  torch.from_numpy(b).half().cuda(), c, Z=z, BM=bm,
                                  BN=bn, BK=bk, num_warps=warps)
    torch.cuda.synchronize()
    assert ref.error(c.double().cpu().numpy(), a @ b, bk) <= 2e-5
