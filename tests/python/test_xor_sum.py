"""tl.xor_sum (issue 17) along one axis and over every axis, on the
interpreter and on the GPU, against numpy."""
import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def xor_sum_kernel(x_ptr, rows_ptr, total_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(rows_ptr + tl.arange(0, R), tl.xor_sum(x, axis=1))
    tl.store(total_ptr, tl.xor_sum(x))


@tilec.jit
def xor_sum_float(x_ptr):
    tl.store(x_ptr, tl.xor_sum(tl.load(x_ptr + tl.arange(0, 16))))


def inputs(r=8, c=256):
    rng = np.random.default_rng(5)
    return rng.integers(-2**31, 2**31 - 1, (r, c), dtype=np.int64).astype(np.int32)


def test_xor_sum_on_the_interpreter():
    x = inputs()
    rows, total = np.zeros(8, np.int32), np.zeros(1, np.int32)
    tilec.JITFunction(xor_sum_kernel.fn, interpret=True)[(1,)](x, rows, total, R=8, C=256)
    np.testing.assert_array_equal(rows, np.bitwise_xor.reduce(x, axis=1))
    assert total[0] == np.bitwise_xor.reduce(x.ravel())


def test_xor_sum_of_floats_is_an_error():
    with pytest.raises(tilec.Error, match="tl.xor_sum needs integers, got tensor<16xfp32>"):
        xor_sum_float.compile("*fp32")


@pytest.mark.gpu
def test_gpu_xor_sum(torch_cuda):
    torch = torch_cuda
    x = inputs()
    rows = torch.zeros(8, dtype=torch.int32, device="cuda")
    total = torch.zeros(1, dtype=torch.int32, device="cuda")
    xor_sum_kernel[(1,)](torch.from_numpy(x).cuda(), rows, total, R=8, C=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(rows.cpu().numpy(), np.bitwise_xor.reduce(x, axis=1))
    assert total.item() == np.bitwise_xor.reduce(x.ravel())
