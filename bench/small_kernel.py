"""Why is a small vector add slower from tilec than from Triton? A diagnosis.

    python3 bench/small_kernel.py [--out DIR] [--n N]

At n = 2^12 (4 programs) a vector add is all latency. This script takes
the machine code out of the launchers: it loads each compiler's output
into its own module with the driver API (ctypes on libcuda, so neither
tilec's nor Triton's runtime is involved), launches it on torch's stream,
and times every variant with triton.testing.do_bench (CUDA events, L2
flushed before each run, median):

  tilec (its launcher)              tilec_vector_add.add[grid](...)
  triton (its launcher)             triton_add[grid](...)
  tilec PTX, driver JIT             cuModuleLoadData(PTX)
  tilec PTX, Triton's ptxas         ptxas -arch=sm_90a, then the cubin
  triton cubin                      what Triton loads
  triton PTX, driver JIT            cuModuleLoadData(PTX)

Same code timing the same through both launch paths means the launcher
is not the cause; the SASS of each cubin goes to DIR/small-kernel-*.sass
for comparison (Triton's cuobjdump). Prints a table; writes
DIR/small-kernel.json.
"""
import argparse
import datetime
import ctypes
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import importlib.util

import torch
import triton

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import vector_add as tilec_vector_add  # noqa: E402  kernels/vector_add.py

# bench/vector_add.py's Triton kernel and block size (its module name is
# taken by kernels/vector_add.py, so it is loaded by path).
_spec = importlib.util.spec_from_file_location("bench_vector_add",
                                               pathlib.Path(__file__).with_name("vector_add.py"))
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
triton_add = _bench.triton_add
BLOCK = _bench.BLOCK


cuda = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(result, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else result}")


def entry_params(ptx, name):
    """The .param types of entry `name` in PTX text: ['u64', 'u32', ...]."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    assert m, f"no entry {name}"
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


class RawKernel:
    """One module loaded from an image (cubin bytes or PTX text) with the
    driver API; launched with cuLaunchKernel on torch's current stream."""

    def __init__(self, image, name, params, num_warps, shared=0):
        self.module = ctypes.c_void_p()
        if isinstance(image, str):
            image = image.encode() + b"\0"
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), ctypes.c_char_p(image)),
              f"cuModuleLoadData({name})")
        self.function = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.function), self.module,
                                       name.encode()), f"cuModuleGetFunction({name})")
        self.params = params
        self.threads = 32 * num_warps
        self.shared = shared
        regs = ctypes.c_int()
        check(cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, self.function), "registers")
        self.registers = regs.value  # CU_FUNC_ATTRIBUTE_NUM_REGS = 4

    def bind(self, values):
        """Arguments for the entry's parameters: values in order, zeros for
        any extra (Triton's scratch pointers)."""
        holders = []
        for i, kind in enumerate(self.params):
            v = values[i] if i < len(values) else 0
            holders.append(ctypes.c_uint64(v) if kind in ("u64", "b64", "s64")
                           else ctypes.c_uint32(v))
        array = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        return holders, array

    def launch(self, grid, bound):
        # torch's stream, looked up once: the loop in host_launch_costs
        # times cuLaunchKernel, not torch.cuda.current_stream().
        if not hasattr(self, "stream"):
            self.stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cuda.cuLaunchKernel(self.function, grid, 1, 1, self.threads, 1, 1,
                                  self.shared, self.stream, bound[1], None), "cuLaunchKernel")


def triton_tool(name):
    path = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    return str(path) if path.exists() else shutil.which(name)


def sass(cubin, path):
    tool = triton_tool("cuobjdump")
    if not tool:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        r = subprocess.run([tool, "-sass", f.name], capture_output=True, text=True)
    path.write_text(r.stdout + r.stderr)
    return sum(1 for line in r.stdout.splitlines() if re.match(r"\s+/\*[0-9a-f]{4}\*/", line))


def per_call_us(fn, count=5000):
    best = float("inf")
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / count * 1e6)
    return best


def host_launch_costs(kernel):
    """Where the host time of a launch goes: a ctypes call that does
    nothing (the floor of the raw loop), cuLaunchKernel through ctypes,
    and each launcher. n = 1, one program: the GPU keeps up."""
    x = torch.ones(1, device="cuda")
    out = torch.empty(1, device="cuda")
    bound = kernel.bind([x.data_ptr(), x.data_ptr(), out.data_ptr(), 1])
    ctx = ctypes.c_void_p()
    costs = {
        "ctypes call (cuCtxGetCurrent)": per_call_us(lambda: cuda.cuCtxGetCurrent(ctypes.byref(ctx))),
        "cuLaunchKernel via ctypes": per_call_us(lambda: kernel.launch(1, bound)),
        "tilec launcher": per_call_us(lambda: tilec_vector_add.add[(1,)](x, x, out, 1, BLOCK=BLOCK)),
        "tilec launcher, stream= given": None,
        "triton launcher": per_call_us(lambda: triton_add[(1,)](x, x, out, 1, BLOCK=BLOCK)),
        "torch.add": per_call_us(lambda: torch.add(x, x, out=out)),
    }
    stream = torch.cuda.current_stream().cuda_stream
    costs["tilec launcher, stream= given"] = per_call_us(
        lambda: tilec_vector_add.add[(1,)](x, x, out, 1, BLOCK=BLOCK, stream=stream))
    compiled = tilec_vector_add.add.warmup(x, x, out, 1, BLOCK=BLOCK)
    costs["tilec CompiledKernel[grid]"] = per_call_us(lambda: compiled[(1,)](x, x, out, 1))
    # The pieces of a launch's own work, to say where its share goes: the
    # two torch calls that find the current stream when stream= is not given
    # (what tilec's binding calls, torch._C's), and the driver query each
    # pointer argument costs (cuPointerGetAttributes: memory type, managed,
    # device), three for the vector add.
    get_device = torch._C._cuda_getDevice
    get_stream = torch._C._cuda_getCurrentRawStream
    costs["torch stream lookup (2 torch._C calls)"] = per_call_us(
        lambda: get_stream(get_device()))
    attrs = (ctypes.c_int * 3)(2, 8, 9)  # MEMORY_TYPE, IS_MANAGED, DEVICE_ORDINAL
    kind, managed, ordinal = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_int()
    data = (ctypes.c_void_p * 3)(ctypes.cast(ctypes.byref(kind), ctypes.c_void_p),
                                 ctypes.cast(ctypes.byref(managed), ctypes.c_void_p),
                                 ctypes.cast(ctypes.byref(ordinal), ctypes.c_void_p))
    ptr = ctypes.c_uint64(x.data_ptr())
    costs["cuPointerGetAttributes via ctypes"] = per_call_us(
        lambda: cuda.cuPointerGetAttributes(3, attrs, data, ptr))
    return costs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--n", type=int, default=1 << 12)
    ap.add_argument("--commit", default="unknown")
    args = ap.parse_args()
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    n = args.n
    grid = triton.cdiv(n, BLOCK)
    torch.manual_seed(0)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    ref = x.double() + y.double()
    values = [x.data_ptr(), y.data_ptr(), out.data_ptr(), n]

    tk = tilec_vector_add.add[(grid,)](x, y, out, n, BLOCK=BLOCK)
    trk = triton_add[(grid,)](x, y, out, n, BLOCK=BLOCK)
    torch.cuda.synchronize()
    tilec_c = tilec_vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16", BLOCK=BLOCK)
    tilec_ptx = tilec_c.asm["ptx"]
    tilec_name = tilec_c.name
    triton_ptx = trk.asm["ptx"]
    triton_name = trk.metadata.name
    triton_warps = trk.metadata.num_warps

    variants = {}
    variants["tilec (its launcher)"] = lambda: tilec_vector_add.add[(grid,)](
        x, y, out, n, BLOCK=BLOCK)
    variants["triton (its launcher)"] = lambda: triton_add[(grid,)](x, y, out, n, BLOCK=BLOCK)
    raw = {}
    raw["tilec PTX, driver JIT"] = RawKernel(tilec_ptx, tilec_name,
                                             entry_params(tilec_ptx, tilec_name), 4)
    ptxas = triton_tool("ptxas")
    images = {"tilec": None, "triton": bytes(trk.asm["cubin"])}
    if ptxas:
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
            pathlib.Path(src).write_text(tilec_ptx)
            subprocess.run([ptxas, "-arch=sm_90a", "-O3", src, "-o", dst], check=True)
            images["tilec"] = pathlib.Path(dst).read_bytes()
        raw["tilec PTX, Triton's ptxas"] = RawKernel(
            images["tilec"], tilec_name, entry_params(tilec_ptx, tilec_name), 4)
    raw["triton cubin"] = RawKernel(images["triton"], triton_name,
                                    entry_params(triton_ptx, triton_name), triton_warps,
                                    trk.metadata.shared)
    raw["triton PTX, driver JIT"] = RawKernel(triton_ptx, triton_name,
                                              entry_params(triton_ptx, triton_name),
                                              triton_warps, trk.metadata.shared)
    for label, k in raw.items():
        bound = k.bind(values)
        variants[label] = (lambda k=k, bound=bound: k.launch(grid, bound))

    launch_costs = host_launch_costs(raw["tilec PTX, driver JIT"])

    rows = []
    for label, fn in variants.items():
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = ((out.double() - ref).abs() / (1 + ref.abs())).max().item()
        ok = err <= 1.2e-7
        us = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3 \
            if ok else float("nan")
        k = raw.get(label)
        rows.append({"variant": label, "us": us, "correct": ok,
                     "registers": k.registers if k else None})
    sass_lines = {}
    for name, image in images.items():
        if image:
            sass_lines[name] = sass(image, out_dir / f"small-kernel-{name}.sass")
    (out_dir / "small-kernel-tilec.ptx").write_text(tilec_ptx)
    (out_dir / "small-kernel-triton.ptx").write_text(triton_ptx)
    record = {"commit": args.commit,
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "n": n, "block": BLOCK, "rows": rows, "sass_instructions": sass_lines,
              "host_launch_us": launch_costs,
              "gpu": torch.cuda.get_device_name(), "triton": triton.__version__}
    (out_dir / "small-kernel.json").write_text(json.dumps(record, indent=1))
    print(f"vector add n={n}, {grid} programs; do_bench median, L2 flushed")
    for r in rows:
        regs = "" if r["registers"] is None else f"  {r['registers']} regs"
        print(f"  {r['variant']:<28} {r['us']:7.2f} us{'' if r['correct'] else '  WRONG'}{regs}")
    print(f"  SASS instructions: {sass_lines}")
    print("host time per launch, n=1 (loop of 5000, best of 5):")
    for label, us in launch_costs.items():
        print(f"  {label:<40} {us:6.2f} us")


if __name__ == "__main__":
    main()
