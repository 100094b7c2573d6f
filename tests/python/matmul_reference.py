"""What the matmul tests share: random operands of every dot dtype, the
float64 reference, and the tolerance each operand type and precision
earns (in units of sqrt(K), the size of an entry of A @ B for standard
normal inputs)."""
import os
import re
import shutil
import subprocess

import numpy as np

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
HAS_PTXAS = os.path.exists(PTXAS)

# Error / sqrt(K) that each (operand dtype, input precision, output dtype)
# may reach: f16/bf16 products are exact and summed in f32; tf32 rounds
# each operand to 11 significant bits (relative 2^-11 per product);
# tf32x3 and ieee are near f32; an f16 output adds its own rounding.
TOLERANCE = {
    ("float16", "tf32", "float32"): 2e-5,
    ("float16", "tf32", "float16"): 4e-3,
    ("bfloat16", "tf32", "float32"): 2e-5,
    ("float32", "tf32", "float32"): 3e-3,
    ("float32", "tf32x3", "float32"): 2e-5,
    ("float32", "ieee", "float32"): 2e-5,
    ("int8", "tf32", "int32"): 0.0,
}


def operands(rng, m, n, k, dtype, batch=None):
    """Standard normal (or uniform int8) A (m x k) and B (k x n) as float64
    arrays holding values exactly representable in `dtype`."""
    shape_a = (m, k) if batch is None else (batch, m, k)
    shape_b = (k, n) if batch is None else (batch, k, n)
    if dtype == "int8":
        return (rng.integers(-128, 128, shape_a).astype(np.float64),
                rng.integers(-128, 128, shape_b).astype(np.float64))
    a = rng.standard_normal(shape_a)
    b = rng.standard_normal(shape_b)
    return round_to(a, dtype), round_to(b, dtype)


def round_to(x, dtype):
    """float64 `x` rounded to float16, bfloat16 or float32 (nearest even),
    as float64."""
    if dtype == "float16":
        return np.asarray(x).astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":  # nearest even on the top 16 bits of f32
        bits = np.asarray(x).astype(np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.asarray(x).astype(np.float32).astype(np.float64)


def error(got, ref, k):
    """Largest |got - ref| in units of sqrt(K)."""
    return float(np.abs(np.asarray(got, np.float64) - ref).max()) / np.sqrt(max(k, 1))


def relative_error(got, a, b):
    """Largest |got - a @ b| over the largest |a| @ |b| (float64): the
    error against the size of the sums that produced it."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.abs(np.asarray(got, np.float64) - a @ b).max()) / \
        float((np.abs(a) @ np.abs(b)).max())


def fp8_wgmma_bound(k, run=None):
    """The relative_error() an fp8 product on Hopper's wgmma stays within
    when runs of `run` K elements (None: all K) are summed in the
    instruction's accumulator, which keeps about 13 significant bits
    (DeepSeek-V3's report found about 14), before they are added in fp32:
    2^-9 * run / K. On the H100, at M x N x K = 200 x 136 x 4096 with
    normal operands, max |error| / sqrt(K) was 1.4e-2 for one run over K
    and 2.0e-4, 3.5e-4 and 6.3e-4 for runs of 32, 64 and 128: about 3e-4,
    4e-6, 8e-6 and 1.4e-5 of the largest |a| @ |b| (about 0.7 K here), 3
    to 6 times below the bound."""
    run = k if run is None else min(max(run, 32), k)
    return 2.0 ** -9 * run / max(k, 1)


def assert_assembles(ptx, target, tmp_path):
    """ptxas accepts `ptx` for `target` (spills allowed); its -v report."""
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    out = subprocess.run([PTXAS, f"-arch={target}", "-v", str(path), "-o",
                          str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stderr


def assert_assembles_without_spills(ptx, target, tmp_path):
    """ptxas accepts `ptx` for `target` and reports no spill stores or loads
    and none of its wgmma performance warnings (assert_no_wgmma_warnings)."""
    report = assert_assembles(ptx, target, tmp_path)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert spills and all(s == "0" and l == "0" for s, l in spills), report
    assert_no_wgmma_warnings(report)


def assert_no_wgmma_warnings(report):
    """No "Potential Performance Loss" of ptxas's wgmma checks (C75xx) in
    its -v `report`: none it had to fence again (C7519: a register the
    instruction reads was written after the kernel's wgmma.fence), none
    serialised (C7514: an instruction other than a wgmma touches an
    accumulator while the wgmma may still be writing it; C7515: other
    instructions define accumulator registers inside a pipeline stage, as
    moved zeros reaching the wait after a loop that did not run did), and
    no wait ptxas injected itself (C7517)."""
    assert not re.search(r"C75\d\d", report), report
