"""tl.histogram (issue 17): counts of the values 0 .. num_bins - 1 of a
1-D integer tile, on the interpreter against numpy (input types from int8
to uint64, a mask, values outside the bins, more bins than elements and
more elements than threads) and on the GPU against torch.bincount."""
import numpy as np
import pytest

import tilec

import histogram_kernels as k


def reference(x, bins, n=None):
    x = x[:n] if n is not None else x
    x = x.astype(np.int64)
    x = x[(x >= 0) & (x < bins)]
    return np.bincount(x, minlength=bins).astype(np.int32)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_every_input_type(dtype):
    rng = np.random.default_rng(0)
    lo = 0 if np.dtype(dtype).kind == "u" else -8
    x = rng.integers(lo, 80, 1024).astype(dtype)  # some outside the 64 bins
    out = np.full(64, -1, np.int32)
    tilec.JITFunction(k.histogram_unmasked.fn, interpret=True)[(1,)](
        x, out, BLOCK=1024, BINS=64)
    assert np.array_equal(out, reference(x, 64))


@pytest.mark.parametrize("n, bins", [(1000, 256), (37, 512), (4096, 16)])
def test_masked_tail(n, bins):
    rng = np.random.default_rng(n)
    block = 1 << (n - 1).bit_length()
    x = rng.integers(0, bins, block).astype(np.int32)
    out = np.full(bins, -1, np.int32)
    tilec.JITFunction(k.histogram.fn, interpret=True)[(1,)](x, out, n, BLOCK=block,
                                                             BINS=bins)
    assert np.array_equal(out, reference(x, bins, n))


@pytest.mark.gpu
@pytest.mark.parametrize("n, bins, warps", [(1000, 256, 4), (37, 512, 4), (4096, 16, 8),
                                            (128, 2048, 2)])
def test_gpu_against_bincount(torch_cuda, n, bins, warps):
    torch = torch_cuda
    g = torch.Generator(device="cuda").manual_seed(n)
    block = 1 << (n - 1).bit_length()
    x = torch.randint(-3, bins + 3, (block,), device="cuda", generator=g, dtype=torch.int32)
    out = torch.full((bins,), -1, device="cuda", dtype=torch.int32)
    k.histogram[(1,)](x, out, n, BLOCK=block, BINS=bins, num_warps=warps)
    torch.cuda.synchronize()
    xs = x[:n].long()
    want = torch.bincount(xs[(xs >= 0) & (xs < bins)], minlength=bins).to(torch.int32)
    assert torch.equal(out, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int16", "int64"])
def test_gpu_input_types(torch_cuda, dtype):
    torch = torch_cuda
    x = torch.randint(-5, 70, (1024,), device="cuda").to(getattr(torch, dtype))
    out = torch.empty(64, device="cuda", dtype=torch.int32)
    k.histogram_unmasked[(1,)](x, out, BLOCK=1024, BINS=64)
    torch.cuda.synchronize()
    xs = x.long()
    want = torch.bincount(xs[(xs >= 0) & (xs < 64)], minlength=64).to(torch.int32)
    assert torch.equal(out, want)
