"""tl.join, tl.interleave, tl.cat and tl.view (issue 17) on the interpreter
against numpy, bit for bit, their located errors, and the same kernels on
the GPU."""
import numpy as np
import pytest

import tilec

import join_kernels as k


def interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        x.flat[0], x.flat[1] = np.nan, -0.0
        return x
    return rng.integers(-100, 100, shape).astype(dtype)


def assert_bits_equal(got, want):
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8),
                                  np.ascontiguousarray(want).view(np.uint8))


DTYPES = [np.float32, np.float16, np.int8, np.int64]

# (kernel, constexprs, input shape, numpy's answer from a and b)
CASES = {
    "join_1d": (k.join_1d, dict(N=64), (64,), lambda a, b: np.stack([a, b], -1)),
    "join_2d": (k.join_2d, dict(M=8, N=32), (8, 32), lambda a, b: np.stack([a, b], -1)),
    "interleave_1d": (k.interleave_1d, dict(N=128), (128,),
                      lambda a, b: np.stack([a, b], -1).reshape(2 * a.shape[0])),
    "interleave_2d": (k.interleave_2d, dict(M=4, N=64), (4, 64),
                      lambda a, b: np.stack([a, b], -1).reshape(a.shape[0], 2 * a.shape[1])),
    "cat_1d": (k.cat_1d, dict(N=128), (128,), lambda a, b: np.concatenate([a, b])),
    "cat_2d": (k.cat_2d, dict(M=8, N=32), (8, 32), lambda a, b: np.concatenate([a, b])),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_interpreter(case, dtype):
    kernel, consts, shape, want = CASES[case]
    a, b = data(dtype, shape, 1), data(dtype, shape, 2)
    expected = want(a, b)
    out = np.zeros(expected.shape, dtype)
    interpreted(kernel)[(1,)](a, b, out, **consts)
    assert_bits_equal(out, expected)


def test_broadcast_and_numbers():
    a = data(np.float32, (16,), 3)
    a[0] = 1.5  # no NaN: the sum below would hide its bits
    out = np.zeros((4, 16, 2), np.float32)
    interpreted(k.join_broadcast)[(1,)](a, out, M=4, N=16)
    col = np.arange(4, dtype=np.float32)[:, None]
    want = np.stack(np.broadcast_arrays(a[None, :], col), -1) + \
        np.stack(np.broadcast_arrays(a[None, :], np.float32(3)), -1)
    np.testing.assert_array_equal(out, want)


def test_interleave_scalars():
    out = np.zeros(2, np.float32)
    interpreted(k.interleave_scalars)[(1,)](out, 2.5, -1.0)
    np.testing.assert_array_equal(out, [2.5, -1.0])


def test_cat_then_sum():
    a, b = data(np.int32, (64,), 4), data(np.int32, (64,), 5)
    out = np.zeros(1, np.int32)
    interpreted(k.cat_sum)[(1,)](a, b, out, N=64)
    assert out[0] == a.sum() + b.sum()


def test_view_is_reshape():
    x = data(np.float32, (128,), 6)
    x[:2] = 1.0
    out = np.zeros((8, 16), np.float32)
    interpreted(k.view_rows)[(1,)](x, out, M=8, N=16)
    np.testing.assert_array_equal(out, 2 * x.reshape(8, 16))


def test_join_of_pointers():
    a, b = np.zeros(32, np.float32), np.zeros(32, np.float32)
    interpreted(k.join_pointers)[(1,)](a, b, N=32)
    assert (a == 1).all() and (b == 1).all()


@pytest.mark.parametrize("kernel,signature,message", [
    (k.join_mixed_dtypes, "*fp32,*fp16",
     r"join_kernels.py:\d+:\d+: error: tl.join\(\) needs operands of one dtype, "
     r"got tensor<16xfp32> and tensor<16xfp16>"),
    (k.cat_shapes, "*fp32", r"tl.cat needs two tensors of one shape"),
    (k.cat_scalar, "*fp32", r"tl.cat needs a tensor, got"),
    (k.join_none, "*fp32", r"tl.join\(\) needs tensors or numbers, got None"),
    (k.cat_runtime_reorder, "*fp32,i32", r"can_reorder must be a compile-time boolean"),
])
def test_errors(kernel, signature, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile(signature)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gpu(torch_cuda, case, dtype):
    torch = torch_cuda
    kernel, consts, shape, want = CASES[case]
    # Larger than on the interpreter: several registers per thread.
    big = {key: v * 8 if key in ("N",) else v for key, v in consts.items()}
    shape = tuple(s * 8 if i == len(shape) - 1 else s for i, s in enumerate(shape))
    a, b = data(dtype, shape, 1), data(dtype, shape, 2)
    expected = want(a, b)
    out = torch.zeros(expected.shape, dtype=getattr(torch, np.dtype(dtype).name),
                      device="cuda")
    kernel[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out, **big)
    torch.cuda.synchronize()
    assert_bits_equal(out.cpu().numpy(), expected)


@pytest.mark.gpu
def test_gpu_cat_sum_and_view(torch_cuda):
    torch = torch_cuda
    a, b = data(np.int32, (1024,), 4), data(np.int32, (1024,), 5)
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    k.cat_sum[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out, N=1024)
    x = data(np.float32, (2048,), 6)
    x[:2] = 1.0
    v = torch.zeros((32, 64), device="cuda")
    k.view_rows[(1,)](torch.from_numpy(x).cuda(), v, M=32, N=64)
    pa, pb = torch.zeros(256, device="cuda"), torch.zeros(256, device="cuda")
    k.join_pointers[(1,)](pa, pb, N=256)
    torch.cuda.synchronize()
    assert out.item() == a.sum() + b.sum()
    np.testing.assert_array_equal(v.cpu().numpy(), 2 * x.reshape(32, 64))
    assert (pa == 1).all().item() and (pb == 1).all().item()
