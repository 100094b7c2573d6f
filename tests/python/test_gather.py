"""tl.gather (issue 17): numpy's take_along_axis within a tile, on the
interpreter against numpy (1-D and 2-D along either axis, index types from
int8 to uint64, float, integer and fp16 sources, duplicates and an index
per element), an out-of-range index reported at its line, and the same
cases on the GPU against torch.gather, where such an index gives 0."""
import numpy as np
import pytest

import tilec

import gather_kernels as k


def interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


@pytest.mark.parametrize("index_type", [np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                        np.int64, np.uint64])
def test_1d_every_index_type(index_type):
    rng = np.random.default_rng(0)
    src = rng.standard_normal(128).astype(np.float32)
    idx = rng.integers(0, 128, 64).astype(index_type)
    out = np.zeros(64, np.float32)
    interpreted(k.gather_1d)[(1,)](src, idx, out, N=128, K=64)
    assert np.array_equal(out, src[idx.astype(np.int64)])


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_2d_along_either_axis(axis, dtype):
    rng = np.random.default_rng(axis)
    m, n, kk = 16, 64, 32
    shape = (m, n) if axis == 1 else (n, m)
    src = (rng.standard_normal(shape) * 100).astype(dtype)
    idx_shape = (m, kk) if axis == 1 else (kk, m)
    idx = rng.integers(0, n, idx_shape).astype(np.int32)
    out = np.zeros(idx_shape, dtype)
    interpreted(k.gather_2d)[(1,)](src, idx, out, M=m, N=n, K=kk, AXIS=axis)
    assert np.array_equal(out, np.take_along_axis(src, idx, axis=axis))


def test_permutation_with_a_masked_tail():
    rng = np.random.default_rng(3)
    n = 100
    x = rng.integers(-1000, 1000, 128).astype(np.int32)
    perm = np.zeros(128, np.int32)
    perm[:n] = rng.permutation(n)
    out = np.full(128, 7, np.int32)
    interpreted(k.permute_rows)[(1,)](x, perm, out, n, BLOCK=128)
    assert np.array_equal(out[:n], x[perm[:n]]) and (out[n:] == 7).all()


@pytest.mark.parametrize("bad", [-1, 128])
def test_out_of_range_index_is_reported_at_its_line(bad):
    src = np.zeros(128, np.float32)
    idx = np.zeros(64, np.int32)
    idx[5] = bad
    with pytest.raises(tilec.Error, match=r"gather_kernels.py:\d+:\d+: error: tl.gather "
                                          rf"index {bad} is outside \[0, 128\)"):
        interpreted(k.gather_1d)[(1,)](src, idx, np.zeros(64, np.float32), N=128, K=64)


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "bfloat16"])
def test_gpu_2d_against_torch(torch_cuda, axis, dtype):
    torch = torch_cuda
    t = getattr(torch, dtype)
    m, n, kk = 16, 64, 32
    g = torch.Generator(device="cuda").manual_seed(axis)
    shape = (m, n) if axis == 1 else (n, m)
    src = (torch.randn(shape, device="cuda", generator=g) * 100).to(t)
    idx_shape = (m, kk) if axis == 1 else (kk, m)
    idx = torch.randint(0, n, idx_shape, device="cuda", generator=g, dtype=torch.int32)
    out = torch.zeros(idx_shape, device="cuda", dtype=t)
    k.gather_2d[(1,)](src, idx, out, M=m, N=n, K=kk, AXIS=axis)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.gather(src, axis, idx.long()))


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", ["int8", "int16", "int64"])
def test_gpu_index_types_and_out_of_range(torch_cuda, index_dtype):
    torch = torch_cuda
    src = torch.randn(128, device="cuda")
    idx = torch.randint(0, 128, (64,), device="cuda").to(getattr(torch, index_dtype))
    idx[3] = -1
    if index_dtype != "int8":
        idx[4] = 128
    out = torch.full((64,), float("nan"), device="cuda")
    k.gather_1d[(1,)](src, idx, out, N=128, K=64)
    torch.cuda.synchronize()
    wide = idx.long()  # (128 does not fit int8: compare wide)
    inside = (wide >= 0) & (wide < 128)
    want = torch.where(inside, src[wide.clamp(0, 127)], torch.zeros_like(src[:64]))
    assert torch.equal(out, want)
