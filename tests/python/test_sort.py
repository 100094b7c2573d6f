"""tl.sort (issue 17): a bitonic network along one dimension, on the
interpreter against numpy's sort (ascending and descending, along either
dimension, floats, signed and unsigned integers, fp16 and bf16, a masked
tail, booleans, NaNs last), its located errors, and the same kernels on the
GPU. The result is always a permutation of the input, bit for bit."""
import numpy as np
import pytest

import tilec

import sort_kernels as k


def interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(shape) * 100).astype(dtype)
        x.flat[3] = x.flat[5]  # a tie
        return x
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -10**6), min(info.max, 10**6), shape,
                        endpoint=True).astype(dtype)


DTYPES = [np.float32, np.float16, np.int32, np.uint8, np.int64, np.uint32]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_rows(dtype, descending):
    x = data(dtype, (4, 64), 1)
    out = np.zeros_like(x)
    interpreted(k.sort_rows)[(1,)](x, out, M=4, N=64, DESCENDING=descending)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(out, want[:, ::-1] if descending else want)


def test_columns():
    x = data(np.float32, (32, 8), 2)
    out = np.zeros_like(x)
    interpreted(k.sort_columns)[(1,)](x, out, M=32, N=8)
    np.testing.assert_array_equal(out, np.sort(x, axis=0))


@pytest.mark.parametrize("n", [1, 37, 128])
def test_masked_tail(n):
    x = data(np.float32, (128,), n)
    out = np.full(128, 7.0, np.float32)
    interpreted(k.sort_1d)[(1,)](x, out, n, BLOCK=128)
    np.testing.assert_array_equal(out[:n], np.sort(x[:n]))
    assert (out[n:] == 7).all()


@pytest.mark.parametrize("descending", [False, True])
def test_nans_sort_last_as_numpy_does(descending):
    x = data(np.float32, (1, 64), 3)
    x[0, [1, 9, 40]] = np.nan
    x[0, 2], x[0, 3] = -0.0, 0.0
    out = np.zeros_like(x)
    interpreted(k.sort_rows)[(1,)](x, out, M=1, N=64, DESCENDING=descending)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(out, want[:, ::-1] if descending else want)
    # A permutation of the input, bit for bit (-0.0 and 0.0 in either order).
    assert sorted(out.view(np.uint32).ravel()) == sorted(x.view(np.uint32).ravel())


def test_bools():
    x = (np.random.default_rng(4).random(32) < 0.3).astype(np.int8)
    out = np.zeros(32, np.int8)
    interpreted(k.sort_bools)[(1,)](x, out, N=32)
    np.testing.assert_array_equal(out, np.sort(x)[::-1])


@pytest.mark.parametrize("kernel,signature,message", [
    (k.sort_pointers, "*fp32", r"sort_kernels.py:\d+:\d+: error: tl.sort of pointers"),
    (k.sort_runtime_descending, "*fp32,i32", r"descending must be a compile-time boolean"),
    (k.sort_bad_dim, "*fp32", r"dim 1 is out of range for rank 1"),
])
def test_errors(kernel, signature, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile(signature)


@pytest.mark.gpu
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES + ["bfloat16"])
@pytest.mark.parametrize("m,n,warps", [(4, 1024, 4), (16, 256, 8), (64, 32, 4)])
def test_gpu_rows(torch_cuda, dtype, descending, m, n, warps):
    torch = torch_cuda
    if dtype == "bfloat16":
        x = torch.from_numpy(data(np.float32, (m, n), 5)).to(torch.bfloat16).cuda()
    else:
        x = torch.from_numpy(data(dtype, (m, n), 5)).cuda()
    out = torch.zeros_like(x)
    k.sort_rows[(1,)](x, out, M=m, N=n, DESCENDING=descending, num_warps=warps)
    torch.cuda.synchronize()
    want = torch.sort(x.cpu().to(torch.float64) if dtype == "uint32" else x.cpu(),
                      dim=1, descending=descending).values
    assert torch.equal(out.cpu().to(want.dtype), want)


@pytest.mark.gpu
def test_gpu_columns_and_tail(torch_cuda):
    torch = torch_cuda
    x = torch.from_numpy(data(np.float32, (256, 16), 6)).cuda()
    out = torch.zeros_like(x)
    k.sort_columns[(1,)](x, out, M=256, N=16)
    v = torch.from_numpy(data(np.float32, (2048,), 7)).cuda()
    tail = torch.full_like(v, 7.0)
    k.sort_1d[(1,)](v, tail, 1500, BLOCK=2048)
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), torch.sort(x.cpu(), dim=0).values)
    assert torch.equal(tail[:1500].cpu(), torch.sort(v[:1500].cpu()).values)
    assert (tail[1500:] == 7).all().item()
