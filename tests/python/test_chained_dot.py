"""Chained dots (chained_dot_kernels.py): the interpreter against float64
numpy, with the intermediate product rounded to the operands' type as the
kernels round it; on sm_90a the second dot reads A, which the loop
computes in registers, from those registers (wgmma's register-A form),
and every kernel assembles without spills. No GPU needed;
test_gpu_chained_dot.py runs the kernels on one."""
import re

import numpy as np
import pytest

import tilec

import chained_dot_kernels as kernels
import matmul_reference as ref

NP_DTYPE = {"float16": np.float16, "float32": np.float32}
PTX_TYPE = {"fp16": "f16", "bf16": "bf16"}
# "wgmma... {d}, {a0, a1, a2, a3}, descB, ...": A in four registers.
REGISTER_A = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.\w+\.\w+ "
                        r"\{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+")


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


def attention_reference(q, k, v, bn, dtype):
    """Σ_j round(exp(s_j - rowmax s_j)) @ v_j over key blocks of bn rows."""
    out = np.zeros((q.shape[0], v.shape[1]))
    for start in range(0, k.shape[0], bn):
        s = q @ k[start:start + bn].T
        p = ref.round_to(np.exp(s - s.max(axis=1, keepdims=True)), dtype)
        out += p @ v[start:start + bn]
    return out


def dot_t_dot_reference(a, b, c, dtype):
    return ref.round_to(a @ b, dtype).T @ c


def test_interpreter_attention_like():
    rng = np.random.default_rng(3)
    m, length, d, bm, bn = 32, 48, 16, 16, 16
    q, k, v = (ref.round_to(rng.standard_normal(s) / 2, "float16")
               for s in ((m, d), (length, d), (length, d)))
    o = np.full((m, d), -7, np.float32)
    jit = tilec.JITFunction(kernels.attention_like.fn, interpret=True)
    jit[(m // bm,)](q.astype(np.float16), k.astype(np.float16), v.astype(np.float16),
                    o, length, D=d, BM=bm, BN=bn)
    want = attention_reference(q, k, v, bn, "float16")
    assert np.abs(o - want).max() <= 2e-3 * np.abs(want).max()


@pytest.mark.parametrize("kernel", [kernels.dot_t_dot, kernels.dot_t_dot_loop])
def test_interpreter_dot_t_dot(kernel):
    rng = np.random.default_rng(5)
    steps = 1 if kernel is kernels.dot_t_dot else 3
    bm, bk, bn, bp = 16, 32, 16, 16
    a = ref.round_to(rng.standard_normal((steps * bm, bk)), "float16")
    b = ref.round_to(rng.standard_normal((bk, bn)), "float16")
    c = ref.round_to(rng.standard_normal((steps * bm, bp)), "float16")
    out = np.full((bn, bp), -7, np.float32)
    jit = tilec.JITFunction(kernel.fn, interpret=True)
    extra = () if kernel is kernels.dot_t_dot else (steps,)
    jit[(1,)](a.astype(np.float16), b.astype(np.float16), c.astype(np.float16), out,
              *extra, BM=bm, BK=bk, BN=bn, BP=bp)
    want = sum(dot_t_dot_reference(a[s * bm:(s + 1) * bm], b, c[s * bm:(s + 1) * bm],
                                   "float16") for s in range(steps))
    assert np.abs(out - want).max() <= 1e-3 * np.abs(want).max()


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("operand", ["fp16", "bf16"])
@pytest.mark.parametrize("warps,d,bm,bn", [(4, 64, 64, 64), (8, 128, 128, 64),
                                           (4, 128, 64, 128)])
def test_attention_reads_p_from_registers(tmp_path, operand, warps, d, bm, bn):
    """q @ kᵀ reads both tiles in shared memory (kᵀ through a transposed
    view of k's cp.async ring); p @ v takes p from the registers the
    softmax left it in: one register-A wgmma per K step of 16 (bn / 16)
    and 64-row block of a warpgroup, nothing on mma.sync."""
    c = kernels.attention_like.compile(
        f"*{operand}:16,*{operand}:16,*{operand}:16,*fp32:16,i32:16",
        num_warps=warps, target="sm_90a", D=d, BM=bm, BN=bn)
    ptx = c.asm["ptx"]
    t = PTX_TYPE[operand]
    assert len(REGISTER_A.findall(ptx)) == (bn // 16) * (bm // (16 * warps))
    assert f"wgmma.mma_async.sync.aligned.m64n{d}k16.f32.{t}.{t}" in ptx
    assert f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.{t}.{t}" in ptx
    assert "mma.sync" not in ptx
    assert "cp.async.cg.shared.global" in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("kernel,register_a", [(kernels.dot_t_dot, 0),
                                               (kernels.dot_t_dot_loop, 4)])
def test_dot_t_dot_ptx(tmp_path, kernel, register_a):
    """(a @ b)ᵀ @ c: in one block the product is written once into a buffer
    and read through a transposed view; computed in a loop, its transpose
    is taken from registers (4 K steps of 16 for BM = 64)."""
    sig = "*fp16:16,*fp16:16,*fp16:16,*fp32:16" + (",i32" if register_a else "")
    c = kernel.compile(sig, num_warps=4, target="sm_90a", BM=64, BK=64, BN=64, BP=64)
    ptx = c.asm["ptx"]
    assert len(REGISTER_A.findall(ptx)) == register_a
    assert ptx.count("wgmma.mma_async") == 8
    assert "mma.sync" not in ptx
    ref.assert_assembles_without_spills(ptx, "sm_90a", tmp_path)
    # sm_80 has no wgmma: the same kernels on mma.sync.
    ptx80 = kernel.compile(sig, num_warps=4, target="sm_80", BM=64, BK=64, BN=64,
                           BP=64).asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in ptx80 and "wgmma" not in ptx80
