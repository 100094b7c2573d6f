# A kernel file as Triton users write it: set-up code, a class, a
# benchmark decorated with Triton's helpers, f-strings and a __main__
# block around the kernels. The C++ front end compiles the kernels and
# skips the rest; a name that skipped code binds is an error only where a
# kernel uses it, and a kernel that does not parse reports its own error.
# RUN: tilec compile %s -k add_kernel -s '*fp32:16,*fp32:16,*fp32:16,i32:16' -D BLOCK_SIZE=1024 --emit tile | FileCheck %s --check-prefix=ADD
# RUN: not tilec compile %s -k uses_setup -s '*fp32' 2>&1 | FileCheck %s --check-prefix=SETUP
# RUN: not tilec compile %s -k uses_branch -s '*fp32' 2>&1 | FileCheck %s --check-prefix=BRANCH
# RUN: not tilec compile %s -k uses_class -s '*fp32' 2>&1 | FileCheck %s --check-prefix=CLASS
# RUN: not tilec compile %s -k broken -s '*fp32' 2>&1 | FileCheck %s --check-prefix=BROKEN
import torch
import numpy as np
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
SCALE = 2.0
weights = np.ones(4)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y * SCALE, mask=mask)
# ADD: func.func @add_kernel
# ADD: arith.constant dense<2.000000e+00> : tensor<1024xf32>
# ADD: tile.store


@triton.jit
def uses_setup(x_ptr):
    tl.store(x_ptr, weights)
# SETUP: triton_style_file.py:[[@LINE-1]]:21: error: global 'weights' cannot be used in a kernel: its value at line 18 cannot be computed at compile time (module 'numpy' cannot be used inside a kernel)


class Config:
    block = 128


if torch.cuda.is_available():
    LIMIT = 5
else:
    LIMIT = 6


@triton.jit
def uses_branch(x_ptr):
    tl.store(x_ptr, LIMIT)
# BRANCH: triton_style_file.py:[[@LINE-1]]:21: error: global 'LIMIT' cannot be used in a kernel: it is assigned by the 'if' at line 44, which tilec does not run (at module level it evaluates imports, constants and functions)


@triton.jit
def uses_class(x_ptr):
    tl.store(x_ptr, Config.block)
# CLASS: triton_style_file.py:[[@LINE-1]]:21: error: global 'Config' cannot be used in a kernel: its definition at line 40 is not in tilec's language ('class' is not supported in tilec kernels, at column 1)


@triton.testing.perf_report(
    triton.testing.Benchmark(x_names=['size'], x_vals=[2**i for i in range(12, 28)],
                             line_arg='provider', line_vals=['triton', 'torch'],
                             ylabel='GB/s', plot_name='vector-add', args={}))
def benchmark(size, provider):
    x = torch.rand(size, device=DEVICE, dtype=torch.float32)
    print(f"{size} elements")
    return x.numel() * 4 / 1e9


@triton.jit
def broken(x_ptr):
    tl.store(x_ptr, sum([v for v in range(3)]))
# BROKEN: triton_style_file.py:[[@LINE-1]]:28: error: comprehensions are not supported in tilec kernels


if __name__ == "__main__":
    benchmark.run(print_data=True, show_plots=False)
