"""Triton's tutorials 01 (vector add), 02 (fused softmax), 04 (low-memory
dropout) and 05 (layer norm, forward and backward) run unmodified under
tilec (triton_tutorials.py maps `import triton` to tilec), each with its own
checks and benchmarks; then their functions run again here, on inputs of
this test's, against float64.

The tutorials are Triton's, not in this repository: without
tools/fetch-triton-tutorials.sh having fetched them these tests skip.
"""
import numpy as np
import pytest

import philox_reference as philox
import triton_tutorials
from layer_norm_reference import reference as layer_norm_reference

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def tutorial(torch_cuda, tmp_path_factory):
    """tutorial(name) → the globals of that tutorial after running it."""
    ran = {}

    def get(name):
        if triton_tutorials.path_of(name) is None:
            pytest.skip(f"{triton_tutorials.TUTORIALS[name]} not fetched into "
                        f"{triton_tutorials.directory()} (tools/fetch-triton-tutorials.sh)")
        if name not in ran:
            ran[name] = triton_tutorials.run(name, tmp_path_factory.mktemp(name))
        return ran[name]
    return get


def test_vector_add(torch_cuda, tutorial):
    torch = torch_cuda
    add = tutorial("vector_add")["add"]
    gen = torch.Generator(device="cuda").manual_seed(1)
    for n in (1, 1000, 98432, (1 << 20) + 3):
        x = torch.rand(n, device="cuda", generator=gen)
        y = torch.randn(n, device="cuda", generator=gen)
        # An fp32 sum rounded once: exactly the float64 sum rounded to fp32.
        assert torch.equal(add(x, y), (x.double() + y.double()).float())


@pytest.mark.parametrize("rows,cols", [(1823, 781), (2, 300), (3, 4096), (4096, 256), (7, 12000)])
def test_fused_softmax(torch_cuda, tutorial, rows, cols):
    torch = torch_cuda
    softmax = tutorial("softmax")["softmax"]
    gen = torch.Generator(device="cuda").manual_seed(rows + cols)
    x = 3 * torch.randn(rows, cols, device="cuda", generator=gen)
    y = softmax(x)
    ref = torch.softmax(x.double(), dim=1)
    # fp32 with an approximate exp: a few ulps per element, and the row sum's
    # rounding.
    torch.testing.assert_close(y.double(), ref, rtol=2e-5, atol=1e-9)


def test_dropout(torch_cuda, tutorial):
    torch = torch_cuda
    g = tutorial("dropout")
    n, p = 20011, 0.3
    gen = torch.Generator(device="cuda").manual_seed(4)
    x = torch.randn(n, device="cuda", generator=gen)
    keep = (torch.rand(n, device="cuda", generator=gen) > p).to(torch.int32)
    expected = torch.where(keep.bool(), x.double() / (1 - np.float32(p)), 0.0)
    # fp32 division (div.full.f32) is within 2 ulps.
    torch.testing.assert_close(g["dropout"](x, x_keep=keep, p=p).double(), expected,
                               rtol=3e-7, atol=0)
    for seed in (123, 512, 2**31 - 1):
        out = g["seeded_dropout"](x, p=p, seed=seed)
        # Philox as Triton computes it, in numpy: the same stream bit for bit.
        kept = philox.uniform(philox.philox(seed, range(n))[0]) > np.float32(p)
        xs = x.cpu().numpy().astype(np.float64)
        want = np.where(kept, xs / np.float64(np.float32(1) - np.float32(p)), 0.0)
        np.testing.assert_allclose(out.cpu().numpy(), want, rtol=3e-7, atol=0)
    assert torch.equal(g["seeded_dropout"](x, p=p, seed=7), g["seeded_dropout"](x, p=p, seed=7))


@pytest.mark.parametrize("m,n", [(1151, 8192), (300, 1000), (4096, 512)])
def test_layer_norm(torch_cuda, tutorial, m, n):
    torch = torch_cuda
    layer_norm = tutorial("layer_norm")["layer_norm"]
    gen = torch.Generator(device="cuda").manual_seed(m + n)
    dtype, eps = torch.float16, 1e-5
    w = torch.rand(n, dtype=dtype, device="cuda", generator=gen).requires_grad_(True)
    b = torch.rand(n, dtype=dtype, device="cuda", generator=gen).requires_grad_(True)
    x = (-2.3 + 0.5 * torch.randn((m, n), dtype=dtype, device="cuda",
                                  generator=gen)).requires_grad_(True)
    dy = 0.1 * torch.randn((m, n), dtype=dtype, device="cuda", generator=gen)
    y = layer_norm(x, (n,), w, b, eps)
    y.backward(dy, retain_graph=True)
    torch.cuda.synchronize()
    y_ref, dx_ref, dw_ref, db_ref = layer_norm_reference(
        *(t.detach().cpu().numpy() for t in (x, w, b, dy)), eps)
    half = float(np.finfo(np.float16).eps)
    # fp16 results: their rounding (half an ulp) and the fp16 inputs' of xhat.
    np.testing.assert_allclose(y.detach().cpu().numpy(), y_ref, rtol=2 * half, atol=4 * half)
    np.testing.assert_allclose(x.grad.cpu().numpy(), dx_ref, rtol=4 * half, atol=4 * half)
    # dw, db: sums over m rows, partly accumulated in fp16 by the tutorial
    # (its partial buffers have x's dtype); the tolerance grows with m.
    scale = np.abs(dw_ref).max() + np.abs(db_ref).max()
    np.testing.assert_allclose(w.grad.cpu().numpy(), dw_ref, rtol=0, atol=half * scale)
    np.testing.assert_allclose(b.grad.cpu().numpy(), db_ref, rtol=0, atol=half * scale)
