"""Debugging on the GPU (issues 16 and 17). tl.device_print prints, from the
GPU, exactly the lines the interpreter prints (in another order: threads
print concurrently), each element once even where several threads hold
it, a scalar or a bare message once per program. A failed tl.device_assert (debug=True) stops the kernel after printing
the program, element, message and compared values; the debug launch waits
for its kernel, so the launch itself raises tilec.Error naming the kernel
and CUDA_ERROR_ASSERT. A failed assertion ends the process's CUDA context,
so each such run happens in a child process."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(code, **env):
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join(
        p for p in (HERE, os.environ.get("PYTHONPATH", "")) if p)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=300)


PRINTS = """
import torch, debug_kernels as k
g = torch.Generator(device="cuda").manual_seed(5)
x = torch.randn(2, 16, device="cuda", generator=g)
i = torch.randint(-100, 100, (2, 16), device="cuda", generator=g).to(torch.int8)
k.print_mixed[(3,)](x, i, M=2, N=16)
y = torch.randn(300, device="cuda", generator=g)
k.print_1d[(2,)](y, 300, BLOCK=256, num_warps=4)
k.print_1d[(1,)](y, 300, BLOCK=512, num_warps=2)
torch.cuda.synchronize()
"""


def test_gpu_prints_the_interpreters_lines(torch_cuda):
    gpu = run_child(PRINTS)
    assert gpu.returncode == 0, gpu.stderr
    cpu = run_child(PRINTS, TILEC_INTERPRET="1")
    assert cpu.returncode == 0, cpu.stderr
    gpu_lines = [l for l in gpu.stdout.splitlines() if l.startswith("pid (")]
    cpu_lines = [l for l in cpu.stdout.splitlines() if l.startswith("pid (")]
    # print_mixed: 3 programs x (2 operands + the fp16) x 32 elements, the
    # row sums, the scalar and the message once per program; print_1d twice.
    assert len(cpu_lines) == 3 * (3 * 32 + 2 + 1 + 1) + 512 + 512
    assert sorted(gpu_lines) == sorted(cpu_lines)


def reporting(setup, launch):
    """A child's script: `setup`, then `launch`, printing whether it raised
    tilec.Error (and its text)."""
    return (f"import torch, tilec, debug_kernels as k\n{setup}\n"
            f"try:\n    {launch}\n"
            f"except tilec.Error as e:\n    print('RAISED:', e, flush=True)\n"
            f"else:\n    print('NOT RAISED', flush=True)\n")


FAILS = reporting('x = torch.zeros(300, device="cuda")\nx[133] = 9.0',
                  "k.check_below[(3,)](x, 300, 3.0, BLOCK=128, debug=True)")


def test_gpu_failed_assertion_reports_and_raises(torch_cuda):
    r = run_child(FAILS)
    out = r.stdout + r.stderr
    assert "NOT RAISED" not in out, out
    assert "pid (1, 0, 0) idx (  5): x must stay below the limit: left 9.000000, " \
           "right 3.000000" in r.stdout, out
    assert "RAISED: kernel 'check_below' (compiled with debug=True) failed" in r.stdout, out
    assert "CUDA_ERROR_ASSERT" in r.stdout, out
    # The driver's own line names the message and the kernel's source line.
    assert "Assertion `x must stay below the limit` failed" in out, out
    assert "debug_kernels.py:32" in out, out


PASSES = """
import torch, tilec, debug_kernels as k
x = torch.arange(300, device="cuda", dtype=torch.float32)
k.check_below[(3,)](x, 300, 1000.0, BLOCK=128, debug=True)
y = torch.full((300,), 50.0, device="cuda")
k.check_below[(3,)](y, 300, 3.0, BLOCK=128)            # debug off: not checked
z = torch.arange(1, 301, device="cuda", dtype=torch.int32)
k.check_statement[(3,)](z, 300, BLOCK=128, debug=True)
torch.cuda.synchronize()
assert torch.equal(x, torch.arange(300, device="cuda", dtype=torch.float32) + 1)
assert torch.equal(y, torch.full((300,), 51.0, device="cuda"))
assert torch.equal(z, 100 // torch.arange(1, 301, device="cuda", dtype=torch.int32))
print("OK")
"""


def test_gpu_assertions_that_hold_and_assertions_off(torch_cuda):
    r = run_child(PASSES)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


def test_gpu_tilec_debug_environment(torch_cuda):
    r = run_child(FAILS.replace(", debug=True", ""), TILEC_DEBUG="1")
    assert "RAISED:" in r.stdout, r.stdout + r.stderr
    r = run_child(FAILS.replace("debug=True", "debug=False"))
    assert "NOT RAISED" in r.stdout, r.stdout + r.stderr


# 1024 elements read of 1000.
OUT_OF_BOUNDS = reporting('x = torch.arange(1000, device="cuda", dtype=torch.float32)\n'
                          'out = torch.empty(1024, device="cuda")',
                          "k.copy_unmasked[(8,)](x, out, BLOCK=128, debug=True)")


def test_gpu_bounds_checks_catch_a_read_past_the_tensor(torch_cuda):
    import re
    r = run_child(OUT_OF_BOUNDS)
    out = r.stdout + r.stderr
    assert "RAISED: kernel 'copy_unmasked' (compiled with debug=True) failed" in r.stdout, out
    failures = re.findall(r"pid \(7, 0, 0\) idx \( *(\d+)\): out-of-bounds load from 'x_ptr': "
                          r"byte offset (\d+) outside the (\d+) bytes it points to", r.stdout)
    assert failures, out
    for idx, offset, extent in failures:
        # The torch tensor's storage: exactly its 1000 floats.
        assert int(extent) == 4000
        assert int(idx) >= 104 and int(offset) == (7 * 128 + int(idx)) * 4
    assert "Assertion `out-of-bounds load from 'x_ptr'` failed" in out, out
    assert "debug_kernels.py:47" in out, out


IN_BOUNDS = """
import torch, tilec, debug_kernels as k
base = torch.arange(2048, device="cuda", dtype=torch.float32)
x = base[:1000]           # a view: its storage goes on, the kernel may read it
out = torch.empty(1024, device="cuda")
k.copy_unmasked[(8,)](x, out, BLOCK=128, debug=True)
assert torch.equal(out, base[:1024])
inner = base[1024:]       # starts inside the storage: 1024 elements from it
k.copy_unmasked[(8,)](inner, out, BLOCK=128, debug=True)
assert torch.equal(out, base[1024:])
print("OK")
"""


def test_gpu_bounds_checks_allow_the_whole_storage_of_a_view(torch_cuda):
    r = run_child(IN_BOUNDS)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
