"""tilec.testing.do_bench on the GPU: a kernel that moves more bytes
takes longer, the quantiles are ordered, and every mode returns what it
says."""
import pytest

from tilec import testing

import vector_add

pytestmark = pytest.mark.gpu


def test_gpu_do_bench(torch_cuda):
    torch = torch_cuda

    def launcher(n):
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        return lambda: vector_add.add[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

    small = testing.do_bench(launcher(1 << 16))
    large = testing.do_bench(launcher(1 << 26))
    assert 0 < small < large
    lo, mid, hi = testing.do_bench(launcher(1 << 24), quantiles=[0.2, 0.5, 0.8])
    assert 0 < lo <= mid <= hi
    times = testing.do_bench(launcher(1 << 20), return_mode="all", rep=20)
    assert len(times) >= 1 and all(t > 0 for t in times)


def triton_cdiv(a, b):
    return (a + b - 1) // b
