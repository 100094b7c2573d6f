"""One tilec matmul kernel variant, launched a few times on random normal
inputs, for a profiler to look at (Nsight Compute), and its SASS written
out: the tool behind the question "why is variant X slower than Y" that
bench/matmul_tma.py's times raise but cannot answer.

    python3 bench/matmul_profile.py --variant persistent-ws [--dtype float16]
        [--shape 4096,4096,4096] [--config 0] [--launches 3] [--sass DIR] [--time]

Variants: desc, desc-ws, desc-ws-store (matmul_desc_kernel: one program per
tile; WS = a producer warpgroup, store = C through TMA) and persistent,
persistent-ws, persistent-ws-store (matmul_persistent_kernel on one program
per SM). --config indexes matmul_configs(dtype). Under ncu, profile one of
the later launches (the first compiles nothing but warms the caches):

    ncu --clock-control none -k regex:matmul_ --launch-skip 1 --launch-count 1 \\
        python3 bench/matmul_profile.py --variant persistent

(--clock-control none: the GPU's clocks stay as they are.) --time prints the
variant's median time and TFLOP/s instead (bench/common.py's bench()).
"""
import argparse
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import common  # noqa: E402  bench/common.py
import matmul  # noqa: E402  kernels/matmul.py
import matmul_tuned  # noqa: E402

#: variant: (persistent, warp_specialize, tma_store)
VARIANTS = {"desc": (False, False, False), "desc-ws": (False, True, False),
            "desc-ws-store": (False, True, True), "persistent": (True, False, False),
            "persistent-ws": (True, True, False), "persistent-ws-store": (True, True, True)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    ap.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    ap.add_argument("--shape", default="4096,4096,4096", help="M,N,K")
    ap.add_argument("--config", type=int, default=0, help="index into matmul_configs()")
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--sass", type=pathlib.Path, help="write the kernel's SASS to DIR")
    ap.add_argument("--time", action="store_true")
    args = ap.parse_args()
    m, n, k = (int(x) for x in args.shape.split(","))
    configs = matmul.matmul_configs(args.dtype, True)
    if not 0 <= args.config < len(configs):
        sys.exit(f"--config: 0 to {len(configs) - 1}")
    cfg = configs[args.config]
    persistent, ws, store = VARIANTS[args.variant]
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    programs = matmul_tuned.programs(a, b, cfg) if persistent else None

    def launch():
        matmul.matmul_tma(a, b, c, cfg, programs=programs, warp_specialize=ws,
                          tma_store=store)

    launch()
    torch.cuda.synchronize()
    ref = (a.double() @ b.double()).float()
    error = common.matmul_error(c, ref, k)
    if not error < common.matmul_tolerance(ref, k, c.dtype):
        sys.exit(f"{args.variant}: wrong result (error {error:.3g})")
    if args.sass:
        kernel = matmul.matmul_persistent_kernel if persistent else matmul.matmul_desc_kernel
        bm, bn, bk, gm, warps, stages = cfg
        name = "fp16" if dtype == torch.float16 else "bf16"
        extra = {"STAGES": stages} if persistent else {}
        compiled = kernel.compile(
            f"*{name}:16,*{name}:16,*{name}:16,*{name}:16," + ",".join(["i32:16"] * 6 + ["i32:1"]),
            num_warps=warps, num_stages=stages, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
            GROUP_M=gm, HAS_BIAS=False, ACTIVATION="", WARP_SPECIALIZE=ws, TMA_STORE=store,
            **extra)
        args.sass.mkdir(parents=True, exist_ok=True)
        path = args.sass / f"{args.variant}-{args.dtype}-{m}x{n}x{k}-c{args.config}.sass"
        path.write_text(compiled.asm["sass"])
        print(f"wrote {path}")
    if args.time:
        ms = common.bench(launch)
        print(f"{args.variant} {args.dtype} {m}x{n}x{k} config {cfg}: {ms * 1e3:.1f} us, "
              f"{2.0 * m * n * k / (ms * 1e-3) / 1e12:.0f} TFLOP/s")
        return
    for _ in range(args.launches):
        launch()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
