"""The layer norm of layer_norm_kernels.py on the GPU (many programs
contending for GROUP locks), forward and backward against float64."""
import numpy as np
import pytest

import layer_norm_kernels as k
from layer_norm_reference import reference

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("m,n,group", [(1151, 1024, 64), (4000, 777, 32), (64, 8192, 16)])
def test_gpu_layer_norm(torch_cuda, m, n, group):
    torch = torch_cuda
    eps = 1e-5
    gen = torch.Generator(device="cuda").manual_seed(m + n)
    x = torch.randn((m, n), device="cuda", generator=gen)
    w = torch.randn(n, device="cuda", generator=gen)
    b = torch.randn(n, device="cuda", generator=gen)
    dy = torch.randn((m, n), device="cuda", generator=gen)
    block = 1 << (n - 1).bit_length()
    warps = min(max(block // 256, 1), 8)
    y = torch.empty_like(x)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    k.layer_norm_forward[(m,)](x, y, w, b, mean, rstd, n, n, eps, BLOCK=block, num_warps=warps)
    dx = torch.empty_like(x)
    partial_dw = torch.zeros((group, n), device="cuda")
    partial_db = torch.zeros((group, n), device="cuda")
    locks = torch.zeros(2 * group, dtype=torch.int32, device="cuda")
    k.layer_norm_backward_dx[(m,)](dx, dy, x, w, mean, rstd, partial_dw, partial_db, locks,
                                   n, n, GROUP=group, BLOCK=block, num_warps=warps)
    dw = torch.empty(n, device="cuda")
    db = torch.empty(n, device="cuda")
    k.layer_norm_backward_dwdb[((n + 127) // 128,)](partial_dw, partial_db, dw, db, group, n,
                                                   BLOCK_M=32, BLOCK_N=128)
    torch.cuda.synchronize()
    y_ref, dx_ref, dw_ref, db_ref = reference(*(t.cpu().numpy() for t in (x, w, b, dy)), eps)
    np.testing.assert_allclose(y.cpu().numpy(), y_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx.cpu().numpy(), dx_ref, rtol=1e-4, atol=1e-4)
    # Sums over m rows: the tolerance grows with them.
    np.testing.assert_allclose(dw.cpu().numpy(), dw_ref, rtol=1e-4, atol=1e-5 * m)
    np.testing.assert_allclose(db.cpu().numpy(), db_ref, rtol=1e-4, atol=1e-5 * m)
    assert locks[:group].sum().item() == 0 and locks[group:].sum().item() == group
