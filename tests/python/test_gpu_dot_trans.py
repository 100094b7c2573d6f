"""A transposed dot operand on the GPU: tl.dot(a, tl.trans(b)) with B
stored N x K (A @ B^T), tl.dot(tl.trans(a), b) with A stored K x M (and
the same A loaded straight as a column-major tile), and a @ b.T, for every operand type and input precision at odd shapes; against
float64 and against the CPU interpreter running the same kernel."""
import numpy as np
import pytest

import tilec

import dot_trans_kernels as kernels
import matmul_reference as ref
from test_dot_trans import CASES, interpret, stored

pytestmark = pytest.mark.gpu

TORCH_DTYPE = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32",
               "int8": "int8"}
OUT_DTYPE = {"float16": "float32", "bfloat16": "float32", "float32": "float32",
             "int8": "int32"}


def _run(torch, kernel, a, b, dtype, precision, block, warps):
    m, k = a.shape
    n = b.shape[1]
    sa, sb = stored(a, b, kernel)
    da = torch.from_numpy(sa).to(getattr(torch, TORCH_DTYPE[dtype])).cuda()
    db = torch.from_numpy(sb).to(getattr(torch, TORCH_DTYPE[dtype])).cuda()
    c = torch.full((m, n), -7, dtype=getattr(torch, OUT_DTYPE[dtype]), device="cuda")
    bm, bn, bk = block
    extra = {} if kernel is kernels.a_bt_operator else {"PREC": precision}
    kernel[(tilec.cdiv(m, bm), tilec.cdiv(n, bn))](
        da, db, c, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=warps, **extra)
    torch.cuda.synchronize()
    return c.double().cpu().numpy()


# (128, 96, 80): every size :16, so the 16-bit tiles are copied by
# cp.async and multiplied by wgmma on sm_90a (a column-major A read
# transposed, a column-major B as it is, tl.trans'd tiles through
# transposed views of their buffers) with 64 or 128 rows per block; 32
# rows, and the odd shapes whose rows cp.async cannot copy, go to mma.sync.
@pytest.mark.parametrize("dtype,precision", CASES + [("bfloat16", "tf32")])
@pytest.mark.parametrize("kernel", [kernels.a_bt, kernels.at_b, kernels.at_b_direct,
                                    kernels.a_bt_direct],
                         ids=["a_bt", "at_b", "at_b_direct", "a_bt_direct"])
@pytest.mark.parametrize("shape", [(16, 16, 16), (70, 45, 40), (257, 129, 100),
                                   (128, 96, 80)])
@pytest.mark.parametrize("block,warps", [((32, 32, 16), 4), ((64, 64, 32), 4),
                                         ((128, 128, 32), 8)])
def test_dot_transposed_operand(torch_cuda, kernel, dtype, precision, shape, block, warps):
    m, n, k = shape
    a, b = ref.operands(np.random.default_rng(m + 3 * n + 7 * k), m, n, k, dtype)
    got = _run(torch_cuda, kernel, a, b, dtype, precision, block, warps)
    tol = ref.TOLERANCE[(dtype, precision, OUT_DTYPE[dtype])]
    assert ref.error(got, a @ b, k) <= tol


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8"])
def test_dot_operator_and_dot_T(torch_cuda, dtype):
    m, n, k = 50, 20, 32
    a, b = ref.operands(np.random.default_rng(11), m, n, k, dtype)
    got = _run(torch_cuda, kernels.a_bt_operator, a, b, dtype, None, (32, 32, 32), 4)
    tol = ref.TOLERANCE[(dtype, "tf32", OUT_DTYPE[dtype])]
    assert ref.error(got, a @ b, k) <= tol


@pytest.mark.parametrize("dtype,precision", CASES)
@pytest.mark.parametrize("kernel", [kernels.a_bt, kernels.at_b], ids=["a_bt", "at_b"])
def test_dot_transposed_operand_matches_interpreter(torch_cuda, kernel, dtype, precision):
    m, n, k = 70, 45, 40
    a, b = ref.operands(np.random.default_rng(17), m, n, k, dtype)
    got = _run(torch_cuda, kernel, a, b, dtype, precision, (32, 32, 16), 4)
    want = interpret(kernel, a, b, dtype, precision)
    tol = ref.TOLERANCE[(dtype, precision, OUT_DTYPE[dtype])]
    assert ref.error(got, want.astype(np.float64), k) <= tol
