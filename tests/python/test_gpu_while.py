"""`while` loops on the GPU: the interpreter's results (test_while.py), and
a spin lock that many programs contend for."""
import numpy as np
import pytest

import while_kernels as k
from test_while import collatz_steps, halve_expected

pytestmark = pytest.mark.gpu


def test_gpu_collatz(torch_cuda):
    torch = torch_cuda
    x = np.arange(1, 2001, dtype=np.int32)
    steps = torch.full((len(x),), -1, dtype=torch.int32, device="cuda")
    k.collatz_kernel[(len(x),)](torch.from_numpy(x).cuda(), steps)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(steps.cpu().numpy(), [collatz_steps(int(v)) for v in x])


def test_gpu_tensor_carried_under_a_reduced_condition(torch_cuda):
    torch = torch_cuda
    x = (np.random.default_rng(1).random(256) * 1000).astype(np.float32)
    out = torch.zeros(256, device="cuda")
    k.halve_kernel[(1,)](torch.from_numpy(x).cuda(), out, BLOCK=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), halve_expected(x))


def test_gpu_spin_lock(torch_cuda):
    torch = torch_cuda
    programs = 2000
    lock = torch.zeros(1, dtype=torch.int32, device="cuda")
    count = torch.zeros(1, dtype=torch.int32, device="cuda")
    order = torch.full((programs,), -1, dtype=torch.int32, device="cuda")
    k.locked_increment_kernel[(programs,)](lock, count, order)
    torch.cuda.synchronize()
    assert count.item() == programs and lock.item() == 0
    np.testing.assert_array_equal(np.sort(order.cpu().numpy()), np.arange(programs))
