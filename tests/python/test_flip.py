"""tl.flip (issue 17) on the interpreter and the GPU, against numpy: every
axis of 1-D to 3-D tiles, floats, integers and booleans bit for bit (NaN
payloads and -0.0 included), and its errors."""
import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def flip_1d(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.flip(tl.load(x_ptr + offs)))


@tilec.jit
def flip_3d(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
            DIM: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])
    tl.store(out_ptr + offs, tl.flip(tl.load(x_ptr + offs), DIM))


@tilec.jit
def flip_mask(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    keep = tl.flip(tl.load(x_ptr + offs) > 0)
    tl.store(out_ptr + offs, keep.to(tl.int32))


@tilec.jit
def flip_bad_dim(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.flip(tl.load(x_ptr + offs), 1))


@tilec.jit
def flip_pointers(x_ptr):
    offs = tl.arange(0, 16)
    p = tl.flip(x_ptr + offs)
    tl.store(p, 1.0)


DTYPES = [np.float32, np.float16, np.int8, np.int64, np.uint16]


def data(shape, dtype):
    rng = np.random.default_rng(np.size(np.zeros(shape)))
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        flat = x.reshape(-1)
        flat[0], flat[-1], flat[len(flat) // 2] = np.nan, -0.0, np.inf
        return x
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype)


def interp(kernel):
    return tilec.JITFunction(kernel.fn, interpret=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flip_1d(dtype):
    x = data(64, dtype)
    out = np.zeros_like(x)
    interp(flip_1d)[(1,)](x, out, N=64)
    np.testing.assert_array_equal(out.view(np.uint8), x[::-1].copy().view(np.uint8))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int8])
def test_flip_3d(dim, dtype):
    x = data((4, 8, 16), dtype)
    out = np.zeros_like(x)
    interp(flip_3d)[(1,)](x, out, A=4, B=8, C=16, DIM=dim)
    np.testing.assert_array_equal(out.view(np.uint8), np.flip(x, dim).copy().view(np.uint8))


def test_flip_booleans():
    x = data(32, np.float32)
    out = np.zeros(32, np.int32)
    interp(flip_mask)[(1,)](x, out, N=32)
    np.testing.assert_array_equal(out, (x > 0)[::-1].astype(np.int32))


@pytest.mark.parametrize("kernel,message", [
    (flip_bad_dim, "dim 1 is out of range for rank 1"),
    (flip_pointers, "tl.flip of pointers is not supported")])
def test_flip_errors(kernel, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile("*fp32")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gpu_flip(torch_cuda, dtype, dim):
    torch = torch_cuda
    x = data((4, 8, 64), dtype)
    xs = torch.from_numpy(x.view(np.int16) if dtype == np.uint16 else x).cuda()
    out = torch.zeros_like(xs)
    flip_3d[(1,)](xs, out, A=4, B=8, C=64, DIM=dim)
    torch.cuda.synchronize()
    got = out.cpu().numpy()
    np.testing.assert_array_equal(got.view(np.uint8), np.flip(x, dim).copy().view(np.uint8))
