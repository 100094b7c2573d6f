"""Chained dots on the GPU (chained_dot_kernels.py) against float64 with
the kernels' intermediate rounding (test_chained_dot.py's references):
on sm_90a the second product of attention_like and dot_t_dot_loop reads
its A from registers, dot_t_dot's through a transposed view of a buffer
written from registers; fp16 and bf16, one and two warpgroups."""
import numpy as np
import pytest

import chained_dot_kernels as kernels
import matmul_reference as ref
from test_chained_dot import attention_reference, dot_t_dot_reference

pytestmark = pytest.mark.gpu

# max |got - want| / max |want|: a flipped rounding of the intermediate
# (f32 against f64 products) moves an output by one ulp of it times an
# entry of v or c, far below these; a wrong fragment is O(1).
RELATIVE = {"float16": 2e-3, "bfloat16": 2e-2}


def _cuda(torch, x, dtype):
    return torch.from_numpy(x).to(getattr(torch, dtype)).cuda()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("warps,d,bm,bn", [(4, 64, 64, 64), (8, 128, 128, 64),
                                           (4, 128, 64, 128)])
def test_attention_like(torch_cuda, dtype, warps, d, bm, bn):
    torch = torch_cuda
    rng = np.random.default_rng(d + bm + bn)
    m, length = 256, 512
    q, k, v = (ref.round_to(rng.standard_normal(s) / 4, dtype)
               for s in ((m, d), (length, d), (length, d)))
    o = torch.full((m, d), -7.0, device="cuda")
    kernels.attention_like[(m // bm,)](_cuda(torch, q, dtype), _cuda(torch, k, dtype),
                                       _cuda(torch, v, dtype), o, length, D=d, BM=bm,
                                       BN=bn, num_warps=warps)
    torch.cuda.synchronize()
    want = attention_reference(q, k, v, bn, dtype)
    got = o.double().cpu().numpy()
    assert np.abs(got - want).max() <= RELATIVE[dtype] * np.abs(want).max()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("kernel", [kernels.dot_t_dot, kernels.dot_t_dot_loop])
@pytest.mark.parametrize("warps,bm,bk,bn,bp", [(4, 64, 64, 64, 64), (8, 64, 32, 128, 64),
                                               (4, 128, 64, 64, 128)])
def test_dot_t_dot(torch_cuda, dtype, kernel, warps, bm, bk, bn, bp):
    torch = torch_cuda
    rng = np.random.default_rng(bm + bk + bn + bp)
    steps = 1 if kernel is kernels.dot_t_dot else 5
    a = ref.round_to(rng.standard_normal((steps * bm, bk)) / 4, dtype)
    b = ref.round_to(rng.standard_normal((bk, bn)) / 4, dtype)
    c = ref.round_to(rng.standard_normal((steps * bm, bp)), dtype)
    out = torch.full((bn, bp), -7.0, device="cuda")
    extra = () if kernel is kernels.dot_t_dot else (steps,)
    kernel[(1,)](_cuda(torch, a, dtype), _cuda(torch, b, dtype), _cuda(torch, c, dtype),
                 out, *extra, BM=bm, BK=bk, BN=bn, BP=bp, num_warps=warps)
    torch.cuda.synchronize()
    want = sum(dot_t_dot_reference(a[s * bm:(s + 1) * bm], b, c[s * bm:(s + 1) * bm],
                                   dtype) for s in range(steps))
    got = out.double().cpu().numpy()
    assert np.abs(got - want).max() <= RELATIVE[dtype] * np.abs(want).max()
