"""num_stages without a GPU: the launch option, compile(), tl.range's
per-loop override and their errors; what the pipelined PTX contains (see
tests/lit/tilegpu-pipeline-loads for the IR)."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import matmul  # kernels/matmul.py

ALIGNED = "*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1"
CONSTEXPRS = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, HAS_BIAS=False,
                  ACTIVATION="", INPUT_PRECISION="tf32")


def compile_matmul(**options):
    return matmul.matmul_kernel.compile(ALIGNED, **options, **CONSTEXPRS)


@pytest.mark.parametrize("target", ["sm_89", "sm_90a"])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_stages_become_cp_async_groups(stages, target):
    k = compile_matmul(num_stages=stages, target=target)
    ptx = k.asm["ptx"]
    assert k.num_stages == stages
    # stages-1 groups before the loop, one in it; the loop waits for all
    # but stages-2.
    assert ptx.count("cp.async.commit_group") == stages
    assert f"cp.async.wait_group \t{stages - 2};" in ptx or \
        f"cp.async.wait_group {stages - 2};" in ptx
    # On sm_90a wgmma keeps reading the previous iteration's buffer while
    # the next tiles are waited for: the ring has one buffer more.
    buffers = stages + 1 if target == "sm_90a" else stages
    assert f"memdesc<{buffers}x64x32xf16" in k.asm["tilegpu"]
    assert ("wgmma.wait_group.sync.aligned 1;" in ptx) == (target == "sm_90a")


def test_one_stage_carries_tiles_in_registers():
    k = compile_matmul(num_stages=1)
    assert "cp.async" not in k.asm["ptx"]
    assert k.num_stages == 1


def test_sm80_pipelines_too_and_stages_are_keyed():
    three = compile_matmul(num_stages=3, target="sm_80")
    two = compile_matmul(num_stages=2, target="sm_80")
    assert "cp.async.cg.shared.global" in three.asm["ptx"]
    assert three.cache_key != two.cache_key


@pytest.mark.parametrize("bad", [0, 17, -1])
def test_bad_num_stages_is_refused(bad):
    with pytest.raises((tilec.Error, ValueError, OverflowError, TypeError),
                       match="num_stages|unsigned|negative|incompatible"):
        compile_matmul(num_stages=bad)
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="num_stages must be from 1 to 16"):
        matmul.matmul_kernel[(1,)](x, x, x, x, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                   num_stages=bad, **CONSTEXPRS)


@tilec.jit
def ranged(x_ptr, y_ptr, n, STAGES: tl.constexpr):
    r = tl.arange(0, 16)
    acc = tl.zeros((16, 16), dtype=tl.float32)
    for i in tl.range(0, n, 16, num_stages=STAGES):
        a = tl.load(x_ptr + i * 16 + r[:, None] * 16 + r[None, :])
        b = tl.load(x_ptr + i * 16 + r[:, None] + r[None, :] * 16)
        acc = tl.dot(a, b, acc)
    tl.store(y_ptr + r[:, None] * 16 + r[None, :], acc)


def test_tl_range_overrides_the_launch_option():
    sig = "*fp16:16,*fp32:16,i32:16"
    on = ranged.compile(sig, num_stages=1, STAGES=4)
    off = ranged.compile(sig, num_stages=4, STAGES=1)
    assert "memdesc<4x16x16xf16" in on.asm["tilegpu"]
    assert "cp.async" not in off.asm["ptx"]


@pytest.mark.parametrize("stages,message", [
    (0, "num_stages must be a compile-time integer from 1 to 16, got 0"),
    (2.5, "num_stages must be a compile-time integer from 1 to 16"),
])
def test_tl_range_bad_num_stages_is_a_located_error(stages, message):
    with pytest.raises(tilec.Error, match=message) as e:
        ranged.compile("*fp16:16,*fp32:16,i32:16", STAGES=stages)
    assert "test_num_stages.py:" in str(e.value)


@tilec.jit
def python_range_stages(x_ptr, n):
    for i in range(0, n, num_stages=2):
        tl.store(x_ptr + i, 0.0)


def test_num_stages_belongs_to_tl_range():
    with pytest.raises(tilec.Error, match="num_stages is a tl.range argument"):
        python_range_stages.compile("*fp32:16,i32")


def test_pipelined_loads_interpreted():
    """The kernels of test_gpu_pipelined_loads.py in the interpreter (CI has
    no GPU): tl.range's num_stages changes nothing of what they compute."""
    import pipelined_load_kernels as pk
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 100)).astype(np.float32)
    g = rng.standard_normal(100).astype(np.float32)
    want = x.astype(np.float64) @ g
    interpreted = tilec.JITFunction(pk.weighted_row_sums.fn, interpret=True)
    for stages in (1, 3):
        out = np.full(37, np.nan, np.float32)
        interpreted[(3,)](x, g, out, 37, 100, 100, BLOCK_R=16, BLOCK_K=32, STAGES=stages)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    v = rng.standard_normal(1000).astype(np.float16)
    best = np.zeros(1, np.float32)
    tilec.JITFunction(pk.running_max.fn, interpret=True)[(1,)](v, best, 1000, BLOCK=128,
                                                              STAGES=3)
    assert best[0] == v.astype(np.float32).max()


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32", "i8"])
def test_pipelined_loads_assemble(dtype):
    """Every element type's rings assemble (ptxas runs where the toolkit
    is; tilec's compile checks the PTX with it when it can)."""
    import pipelined_load_kernels as pk
    sig = f"*{dtype}:16,*{dtype}:16,*fp32:16,i32,i32:16,i32:16"
    k = pk.weighted_row_sums.compile(sig, BLOCK_R=16, BLOCK_K=128, STAGES=3, target="sm_90a")
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.commit_group") == 3
    assert "cp.async.wait_group" in ptx
    assert "memdesc<3x16x128x" in k.asm["tilegpu"]
    one = pk.weighted_row_sums.compile(sig, BLOCK_R=16, BLOCK_K=128, STAGES=1, target="sm_90a")
    assert "cp.async" not in one.asm["ptx"]
