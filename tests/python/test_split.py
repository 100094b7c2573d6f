"""tl.split (issue 17) on the interpreter and the GPU, against numpy, bit
for bit (NaN payloads and -0.0 included), and its errors."""
import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def split_kernel(x_ptr, lo_ptr, hi_ptr, R: tl.constexpr, C: tl.constexpr):
    # De-interleave: x is R x 2C, pairs along its rows.
    rows = tl.arange(0, R)[:, None]
    x = tl.load(x_ptr + rows * (2 * C) + tl.arange(0, 2 * C)[None, :])
    lo, hi = tl.split(tl.reshape(x, R, C, 2))
    cols = tl.arange(0, C)[None, :]
    tl.store(lo_ptr + rows * C + cols, lo)
    tl.store(hi_ptr + rows * C + cols, hi)


@tilec.jit
def split_odd(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    a, b = tl.split(x.reshape(4, 4))
    tl.store(x_ptr, a)


@tilec.jit
def split_pointers(x_ptr):
    p = tl.reshape(x_ptr + tl.arange(0, 16), 8, 2)
    a, b = tl.split(p)
    tl.store(a, 1.0)


def inputs(dtype, r, c):
    rng = np.random.default_rng(9)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal((r, 2 * c)).astype(dtype)
        x[0, 0], x[0, 1], x[1, 2] = np.nan, -0.0, np.inf
        return x
    return rng.integers(-100, 100, (r, 2 * c)).astype(dtype)


def assert_bits_equal(got, want):
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8),
                                  np.ascontiguousarray(want).view(np.uint8))


DTYPES = [np.float32, np.float16, np.int8, np.int64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_split(dtype):
    x = inputs(dtype, 4, 32)
    lo, hi = np.zeros((4, 32), dtype), np.zeros((4, 32), dtype)
    tilec.JITFunction(split_kernel.fn, interpret=True)[(1,)](x, lo, hi, R=4, C=32)
    assert_bits_equal(lo, x[:, 0::2])
    assert_bits_equal(hi, x[:, 1::2])


@pytest.mark.parametrize("kernel,message", [
    (split_odd, "tl.split needs a last dimension of 2, got tensor<4x4xfp32>"),
    (split_pointers, "tl.split of pointers is not supported")])
def test_errors(kernel, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile("*fp32")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_split(torch_cuda, dtype):
    torch = torch_cuda
    x = inputs(dtype, 16, 128)
    tdtype = getattr(torch, np.dtype(dtype).name)
    lo = torch.zeros((16, 128), dtype=tdtype, device="cuda")
    hi = torch.zeros((16, 128), dtype=tdtype, device="cuda")
    split_kernel[(1,)](torch.from_numpy(x).cuda(), lo, hi, R=16, C=128)
    torch.cuda.synchronize()
    assert_bits_equal(lo.cpu().numpy(), x[:, 0::2])
    assert_bits_equal(hi.cpu().numpy(), x[:, 1::2])
