"""Triton's runtime API as host code uses it (tilec.runtime.driver, a
CompiledKernel's n_regs / metadata / _init_handles, launch options named as
kernel parameters), without a GPU: what works anywhere, and the errors
where a GPU is needed."""
import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.runtime import GPUTarget, driver


@tilec.jit
def persistent_rows(dst, src, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    # A grid-stride loop over rows, pipelined num_stages deep; also writes
    # the num_stages it was given into the last column.
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        x = tl.load(src + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        x = tl.where(cols == n_cols - 1, num_stages, x - tl.max(x, axis=0))
        tl.store(dst + row * n_cols + cols, x, mask=cols < n_cols)


def test_current_target_without_a_gpu_is_the_default_one():
    target = driver.active.get_current_target()
    assert isinstance(target, GPUTarget)
    assert target.backend == "cuda" and target.warp_size == 32
    digits = "".join(ch for ch in tilec.default_target()[len("sm_"):] if ch.isdigit())
    assert target.arch == int(digits)  # sm_90a → 90, sm_120a → 120


@pytest.mark.skipif(tilec.cuda_available()[0], reason="checks the error without a GPU")
def test_device_properties_without_a_gpu_say_why():
    for device in (0, None, "cuda", "cuda:0"):
        with pytest.raises(tilec.Error, match="cannot read the GPU's properties: "):
            driver.active.utils.get_device_properties(device)
    with pytest.raises(ValueError, match="not a CUDA device: 'cpu'"):
        driver.active.utils.get_device_properties("cpu")


def test_driver_is_cuda_only():
    assert driver.active is driver.default
    with pytest.raises(ValueError, match="NVIDIA GPUs only"):
        driver.set_active(object())
    driver.reset_active()
    assert driver.active.get_benchmarker() is tilec.testing.do_bench


def test_warmup_gives_num_stages_to_the_parameter_and_the_option():
    k = persistent_rows.warmup("*fp32:16", "*fp32:16", "i32", "i32", BLOCK=256,
                               num_stages=2, num_warps=8, grid=(1,))
    assert k.constexprs["num_stages"] == 2 and k.num_stages == 2 and k.num_warps == 8
    # Metadata by key and by attribute, as Triton's.
    assert k.metadata.shared == k.metadata["shared"] == k.shared
    assert k.metadata.num_warps == 8 and k.metadata.num_ctas == 1
    assert k.metadata.cluster_dims == (1, 1, 1)
    assert k.metadata.shared > 0  # the row's max goes through shared memory on 8 warps
    with pytest.raises(AttributeError, match="no 'registers'"):
        k.metadata.registers


def test_warmup_without_the_parameter_is_an_error():
    # num_stages is a parameter without a default: warmup must not make one up.
    with pytest.raises(TypeError, match="missing argument 'num_stages'"):
        persistent_rows.warmup("*fp32:16", "*fp32:16", "i32", "i32", BLOCK=256, grid=(1,))


def test_launch_keyword_reaches_the_parameter():
    run = tilec.JITFunction(persistent_rows.fn, interpret=True)
    rows, cols = 5, 100
    src = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    dst = np.zeros_like(src)
    run[(2,)](dst, src, rows, cols, BLOCK=128, num_stages=3, num_warps=2)
    want = src - src.max(axis=1, keepdims=True)
    want[:, -1] = 3
    np.testing.assert_array_equal(dst, want)


@pytest.mark.skipif(tilec.cuda_available()[0], reason="checks the error without a GPU")
def test_registers_need_a_gpu():
    k = persistent_rows.warmup("*fp32:16", "*fp32:16", "i32", "i32", BLOCK=256,
                               num_stages=2, grid=(1,))
    with pytest.raises(tilec.Error, match="cannot launch kernel 'persistent_rows'"):
        k.n_regs
    with pytest.raises(tilec.Error, match="cannot launch kernel 'persistent_rows'"):
        k._init_handles()


@tilec.jit
def keep_where(x_ptr, keep_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    # An int32 tensor as tl.where's condition (nonzero: true), as Triton's
    # dropout tutorial writes it.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.load(keep_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_where_takes_an_integer_condition():
    run = tilec.JITFunction(keep_where.fn, interpret=True)
    n = 1000
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    keep = rng.integers(0, 3, n).astype(np.int32)  # 0, 1 and 2
    out = np.empty_like(x)
    run[(tilec.cdiv(n, 256),)](x, keep, out, n, 0.25, BLOCK=256)
    np.testing.assert_array_equal(out, np.where(keep != 0, x / np.float32(0.75), 0))


TRITON_STYLE_SCRIPT = '''
import numpy as np
import triton
import triton.language as tl
from triton.runtime import driver


@triton.jit(interpret=True)
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) +
             tl.load(y_ptr + offsets, mask=mask), mask=mask)


x = np.arange(1000, dtype=np.float32)
y = np.full(1000, 0.5, dtype=np.float32)
out = np.zeros_like(x)
grid = lambda meta: (triton.cdiv(x.size, meta["BLOCK_SIZE"]),)
add_kernel[grid](x, y, out, x.size, BLOCK_SIZE=128)
target = triton.runtime.driver.active.get_current_target()
same_driver = driver is triton.runtime.driver
'''


def test_a_triton_script_runs_with_triton_mapped_to_tilec(tmp_path):
    # The harness of test_gpu_triton_tutorials.py, on a script of ours that
    # imports triton as Triton's tutorials do (the interpreter runs it).
    import sys
    import triton_tutorials
    script = tmp_path / "script.py"
    script.write_text(TRITON_STYLE_SCRIPT)
    before = sys.modules.get("triton")
    g = triton_tutorials.run_path(str(script), str(tmp_path))
    np.testing.assert_array_equal(g["out"], g["x"] + g["y"])
    assert g["target"].backend == "cuda" and g["same_driver"]
    assert sys.modules.get("triton") is before  # the mapping ends with the run
