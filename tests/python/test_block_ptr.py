"""Block pointers (issue 17): tl.make_block_ptr, tl.advance, tl.load and
tl.store with boundary_check and padding_option, carried by for and while
loops (alone and in a tuple) and passed to @jit helpers; on the
interpreter against numpy, their located errors, and on the GPU."""
import numpy as np
import pytest

import tilec

import block_ptr_kernels as k


def interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("m,n", [(16, 32), (37, 45)])
def test_copy_tile(m, n, padding):
    x = np.random.default_rng(0).standard_normal((m, n)).astype(np.float32)
    # y is wider than x: its rows are padded, and its stride is its own.
    y = np.full((m, n + 3), 5.0, np.float32)
    interpreted(k.copy_tile)[(cdiv(m, 16), cdiv(n, 16))](
        x, y, m, n, x.strides[0] // 4, 1, y.strides[0] // 4, 1,
        BLOCK_M=16, BLOCK_N=16, PADDING=padding)
    np.testing.assert_array_equal(y[:, :n], x + 1)
    assert (y[:, n:] == 5).all()


def test_column_major_source():
    x = np.asfortranarray(np.random.default_rng(1).standard_normal((20, 24)).astype(np.float32))
    y = np.zeros((20, 24), np.float32)
    interpreted(k.copy_tile)[(2, 2)](x, y, 20, 24, 1, 20, 24, 1,
                                     BLOCK_M=16, BLOCK_N=16, PADDING="zero")
    np.testing.assert_array_equal(y, x + 1)


@pytest.mark.parametrize("m,n,kk", [(32, 32, 64), (19, 23, 41)])
def test_matmul(m, n, kk):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, kk)).astype(np.float32)
    b = rng.standard_normal((kk, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    interpreted(k.matmul_block_ptr)[(cdiv(m, 16), cdiv(n, 16))](
        a, b, c, m, n, kk, kk, 1, n, 1, n, 1, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    want = a.astype(np.float64) @ b
    # tl.dot of fp32 rounds its inputs to tf32 (as Triton's default).
    assert np.abs(c - want).max() <= 2e-3 * np.abs(want).max()


@pytest.mark.parametrize("n", [64, 100])
def test_while_loop_carries_a_tuple_with_a_block_pointer(n):
    x = np.random.default_rng(3).integers(-9, 9, n).astype(np.float32)
    out = np.zeros(1, np.float32)
    interpreted(k.row_sums)[(1,)](x, out, n, BLOCK=32)
    assert out[0] == x.sum()


@pytest.mark.parametrize("skip", [0, 1])
def test_runtime_if_merges_block_pointers_and_tuples(skip):
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(32, np.float32)
    interpreted(k.skip_first_block)[(1,)](x, out, skip, BLOCK=32)
    np.testing.assert_array_equal(out, x[32:] * 2 if skip else x[:32] * 3)


def test_helper_returns_block_pointers_in_a_nested_tuple():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    interpreted(k.copy_halves)[(1,)](x, y, BLOCK=32)
    np.testing.assert_array_equal(y, np.concatenate([x[:32], x[32:] + 1]))


@pytest.mark.parametrize("flag", [0, 1])
def test_runtime_if_keeps_a_tuples_constants(flag):
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    interpreted(k.if_keeps_constants)[(1,)](x, out, flag)
    np.testing.assert_array_equal(out, x + flag)


def test_unchecked():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    interpreted(k.unchecked)[(1,)](x, y, BLOCK=64)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("kernel,signature,message", [
    (k.mask_with_block, "*fp32",
     r"block_ptr_kernels.py:\d+:\d+: error: mask cannot be given with a block pointer"),
    (k.check_without_block, "*fp32", r"boundary_check needs a block pointer"),
    (k.bad_order, "*fp32", r"order must be a permutation of the 2 dimensions"),
    (k.bad_rank, "*fp32", r"shape needs 2 entries \(one per dimension of the block\), got 1"),
    (k.bad_check, "*fp32", r"boundary_check names dimension 1 of a block of 1"),
    (k.nan_padding_of_ints, "*i32", r"padding_option \"nan\" needs floats"),
    (k.block_changes_shape, "*fp32,i32",
     r"loop-carried variable 'x' changes from a block pointer of block shape \(16,\) to fp32 "
     r"to a block pointer of block shape \(32,\) to fp32 in the loop body"),
    (k.if_changes_block_shape, "*fp32,i32",
     r"'block' is a block pointer of block shape \(32,\) to fp32 in one branch of the 'if' "
     r"and a block pointer of block shape \(16,\) to fp32 in the other"),
])
def test_errors(kernel, signature, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile(signature)


@pytest.mark.gpu
@pytest.mark.parametrize("m,n", [(256, 512), (1000, 777)])
def test_gpu_copy_tile(torch_cuda, m, n):
    torch = torch_cuda
    x = torch.randn((m, n), device="cuda")
    y = torch.full((m, n + 3), 5.0, device="cuda")
    k.copy_tile[(cdiv(m, 64), cdiv(n, 64))](x, y, m, n, x.stride(0), 1, y.stride(0), 1,
                                            BLOCK_M=64, BLOCK_N=64, PADDING="nan")
    torch.cuda.synchronize()
    assert torch.equal(y[:, :n], x + 1) and (y[:, n:] == 5).all().item()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("m,n,kk", [(512, 512, 512), (300, 200, 100)])
def test_gpu_matmul(torch_cuda, dtype, m, n, kk):
    torch = torch_cuda
    t = getattr(torch, dtype)
    a = torch.randn((m, kk), device="cuda").to(t)
    b = torch.randn((kk, n), device="cuda").to(t)
    c = torch.empty((m, n), device="cuda", dtype=t)
    k.matmul_block_ptr[(cdiv(m, 64), cdiv(n, 64))](
        a, b, c, m, n, kk, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1,
        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    want = a.double() @ b.double()
    err = ((c.double() - want).abs().max() / want.abs().max()).item()
    assert err < 1e-2, err  # fp16/bf16 outputs; fp32 through tf32


@pytest.mark.gpu
def test_gpu_row_sums(torch_cuda):
    torch = torch_cuda
    x = torch.randint(-9, 9, (10000,), device="cuda").float()
    out = torch.zeros(1, device="cuda")
    k.row_sums[(1,)](x, out, 10000, BLOCK=1024)
    torch.cuda.synchronize()
    assert out.item() == x.sum().item()
