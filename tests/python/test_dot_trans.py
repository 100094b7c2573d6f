"""A transposed dot operand, as Triton users write A @ B^T: tl.dot(a,
tl.trans(b)) with B stored N x K, tl.dot(tl.trans(a), b) with A stored
K x M, and a @ b.T. The interpreter against float64 numpy for every
operand type and input precision, at shapes that are not multiples of the
tile; the PTX for sm_80 and sm_90a uses mma.sync and assembles without
spills (ptxas, skipped where absent). No GPU needed; test_gpu_dot_trans.py
runs the same kernels on one."""

import numpy as np
import pytest

import tilec

import dot_trans_kernels as kernels
import matmul_reference as ref


NP_DTYPE = {"float16": np.float16, "float32": np.float32, "int8": np.int8}
OUT_DTYPE = {"float16": np.float32, "float32": np.float32, "int8": np.int32}
CASES = [("float16", "tf32"), ("float32", "tf32"), ("float32", "tf32x3"),
         ("float32", "ieee"), ("int8", "tf32")]


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


def stored(a, b, kernel):
    """The operands as `kernel` reads them: B as N x K for a_bt, A as K x M
    for at_b."""
    if kernel in (kernels.at_b, kernels.at_b_direct):
        return np.ascontiguousarray(a.T), b
    return a, np.ascontiguousarray(b.T)


def interpret(kernel, a, b, dtype, precision, block=(32, 32, 16)):
    m, k = a.shape
    n = b.shape[1]
    sa, sb = stored(a, b, kernel)
    c = np.full((m, n), -7, OUT_DTYPE[dtype])
    bm, bn, bk = block
    extra = {} if kernel is kernels.a_bt_operator else {"PREC": precision}
    jit = tilec.JITFunction(kernel.fn, interpret=True)
    jit[(tilec.cdiv(m, bm), tilec.cdiv(n, bn))](
        sa.astype(NP_DTYPE[dtype]), sb.astype(NP_DTYPE[dtype]), c, m, n, k,
        BM=bm, BN=bn, BK=bk, **extra)
    return c


@pytest.mark.parametrize("dtype,precision", CASES)
@pytest.mark.parametrize("kernel", [kernels.a_bt, kernels.at_b, kernels.at_b_direct,
                                    kernels.a_bt_direct],
                         ids=["a_bt", "at_b", "at_b_direct", "a_bt_direct"])
@pytest.mark.parametrize("shape", [(70, 45, 40), (16, 16, 16), (1, 33, 7)])
def test_interpreter_matches_numpy(kernel, dtype, precision, shape):
    m, n, k = shape
    a, b = ref.operands(np.random.default_rng(m + 3 * n + 7 * k), m, n, k, dtype)
    got = interpret(kernel, a, b, dtype, precision)
    out = "int32" if dtype == "int8" else "float32"
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, precision, out)]


@pytest.mark.parametrize("dtype", ["float16", "int8"])
def test_interpreter_operator_and_dot_T(dtype):
    m, n, k = 50, 20, 32
    a, b = ref.operands(np.random.default_rng(11), m, n, k, dtype)
    got = interpret(kernels.a_bt_operator, a, b, dtype, None, block=(32, 32, 32))
    out = "int32" if dtype == "int8" else "float32"
    assert ref.error(got, a @ b, k) <= ref.TOLERANCE[(dtype, "tf32", out)]


# wgmma's names of the 16-bit operand types
PTX_TYPE = {"fp16": "f16", "bf16": "bf16"}
# operand, accumulator, the mma.sync it must use
TYPES = [("fp16", "fp32", "m16n8k16.row.col.f32.f16.f16.f32"),
         ("bf16", "fp32", "m16n8k16.row.col.f32.bf16.bf16.f32"),
         ("fp32", "fp32", "m16n8k8.row.col.f32.tf32.tf32.f32"),
         ("i8", "i32", "m16n8k32.row.col.s32.s8.s8.s32")]


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("operand,output,mma", TYPES)
@pytest.mark.parametrize("kernel,block,warps", [
    (kernels.a_bt, (64, 64, 32), 4), (kernels.a_bt, (128, 128, 32), 8),
    (kernels.at_b, (64, 64, 32), 4), (kernels.a_bt_operator, (32, 32, 32), 4)],
    ids=["a_bt_64", "a_bt_128", "at_b_64", "operator_32"])
def test_ptx_uses_mma_and_assembles(tmp_path, target, operand, output, mma,
                                    kernel, block, warps):
    bm, bn, bk = block
    extra = {} if kernel is kernels.a_bt_operator else {"PREC": "tf32"}
    compiled = kernel.compile(f"*{operand}:16,*{operand}:16,*{output}:16,i32,i32,i32:16",
                              num_warps=warps, target=target, BM=bm, BN=bn, BK=bk,
                              **extra)
    ptx = compiled.asm["ptx"]
    # On sm_90a a_bt's tiles go to wgmma, B^T through a transposed view of
    # the tile cp.async copied (test_wgmma_reads_transposed_tiles): the
    # 16-bit ones, and i8's, whose A and B^T are both K-contiguous (wgmma
    # transposes no 8-bit operand, and needs none here).
    # The rest stay on mma.sync there too: at_b's A has rows of M elements,
    # not 16-byte aligned when M is not :16, which cp.async cannot copy (a
    # tile the loop transposes in registers would be written into wgmma's
    # buffer every iteration), and a_bt_operator's 32 rows are half a
    # warpgroup's.
    if target == "sm_90a" and operand in PTX_TYPE and kernel is kernels.a_bt:
        assert f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32" in ptx
        assert "mma.sync" not in ptx
    elif target == "sm_90a" and operand == "i8" and kernel is kernels.a_bt:
        assert f"wgmma.mma_async.sync.aligned.m64n{bn}k32.s32.s8.s8" in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned." + mma in ptx
        assert "wgmma" not in ptx
    ref.assert_assembles_without_spills(ptx, target, tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand", ["fp16", "bf16"])
@pytest.mark.parametrize("kernel,flags", [(kernels.a_bt_direct, "1, 1, 0, 0"),
                                          (kernels.at_b_direct, "1, 1, 1, 1"),
                                          (kernels.a_bt, "1, 1, 0, 0"),
                                          (kernels.at_b, "1, 1, 1, 1")],
                         ids=["a_bt_direct", "at_b_direct", "a_bt", "at_b"])
def test_wgmma_reads_transposed_tiles(tmp_path, operand, kernel, flags):
    """With every size :16 both tiles are copied by cp.async, and wgmma
    reads each as it lies in memory: A and a column-major B (K contiguous)
    as they are, a column-major A (M contiguous) and B (N contiguous)
    transposed, as the last two immediates (imm-trans-a, imm-trans-b)
    say. tl.trans of a loaded tile reads the same bytes through a
    transposed view: B^T of a row-major N x K B is K-major, A^T of a
    row-major K x M A is M-major. Nothing is transposed in registers (no
    mma.sync, no tile left in flight outside the rings)."""
    compiled = kernel.compile(f"*{operand}:16,*{operand}:16,*fp32:16,i32:16,i32:16,i32:16",
                              num_warps=4, target="sm_90a", BM=64, BN=64, BK=32,
                              PREC="tf32")
    ptx = compiled.asm["ptx"]
    assert f"wgmma.mma_async.sync.aligned.m64n64k16.f32.{PTX_TYPE[operand]}.{PTX_TYPE[operand]}" in ptx
    assert f", {flags};" in ptx
    assert "mma.sync" not in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)
