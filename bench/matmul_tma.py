"""TMA against cp.async for the same matmul: kernels/matmul.py's
`matmul_desc_kernel` (A and B read through tensor descriptors, which
sm_90a copies by TMA into the buffers wgmma reads) against `matmul_kernel`
(pointer loads copied by cp.async), `matmul_persistent_kernel` (the
descriptor kernel on one program per SM, pipelined across its tiles), both
descriptor kernels warp-specialised and with C written by TMA (VARIANTS),
and torch.matmul (cuBLAS), in one run, on the same random normal inputs,
fp16 and bf16.

    python3 bench/matmul_tma.py [--commit SHA] [--out DIR] [--quick]

Each tilec kernel runs the best of matmul_configs(dtype) (timed in this
run; num_stages as each config says; --quick: the first three) and
stores C in the inputs' type, as torch does; torch uses cuBLAS's own
choice. Each variant's record says what its PTX does (TMA loads, TMA
stores, a producer warpgroup), so that a fallback shows.
Every output is checked against float64 before it is timed (max |error| /
sqrt(K) below 1e-3). Times as bench/matmul.py: the median of three
interleaved rounds of do_bench medians, the spread of the three reported.
Results: bench/results/matmul_tma-DATE.json (--quick: matmul_tma_quick-DATE.json).
"""
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import common  # noqa: E402  bench/common.py
from common import best_matmul_config, matmul_error, persistent_programs  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py

SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (4096, 4096, 512), (8192, 1024, 8192), (3000, 5000, 1000)]
QUICK = [(4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 1000)]


def grid(M, N, cfg):
    return (tilec.cdiv(M, cfg[0]) * tilec.cdiv(N, cfg[1]),)


def launch_pointers(a, b, c, cfg):
    bm, bn, bk, gm, warps, stages = cfg
    M, K = a.shape
    N = b.shape[1]
    matmul.matmul_kernel[grid(M, N, cfg)](
        a, b, c, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        HAS_BIAS=False, ACTIVATION="", INPUT_PRECISION="tf32", num_warps=warps,
        num_stages=stages)


def launch_tma(a, b, c, cfg, **options):
    matmul.matmul_tma(a, b, c, cfg, **options)


def launch_persistent(a, b, c, cfg, **options):
    """matmul_persistent_kernel on min(SMs, tiles) programs."""
    matmul.matmul_tma(a, b, c, cfg, programs=persistent_programs(a, b, cfg), **options)


# Each tilec variant: how it launches. "WS": a producer warpgroup
# (warp_specialize); "TMA store": C written by TMA (tma_store).
VARIANTS = {
    "tilec cp.async": launch_pointers,
    "tilec TMA": launch_tma,
    "tilec TMA WS": lambda a, b, c, cfg: launch_tma(a, b, c, cfg, warp_specialize=True),
    "tilec TMA WS + TMA store": lambda a, b, c, cfg: launch_tma(
        a, b, c, cfg, warp_specialize=True, tma_store=True),
    "tilec TMA persistent": launch_persistent,
    "tilec TMA persistent WS": lambda a, b, c, cfg: launch_persistent(
        a, b, c, cfg, warp_specialize=True),
    "tilec TMA persistent WS + TMA store": lambda a, b, c, cfg: launch_persistent(
        a, b, c, cfg, warp_specialize=True, tma_store=True),
}


def kernel_of(name):
    """The kernel a variant launches (its .asm is the last launch's)."""
    if name == "tilec cp.async":
        return matmul.matmul_kernel
    return matmul.matmul_persistent_kernel if "persistent" in name else matmul.matmul_desc_kernel


def what_ran(name):
    """What the PTX of the variant's last launch does, so that a fallback
    (pointers instead of TMA, no producer warpgroup) shows in the record."""
    ptx = kernel_of(name).asm["ptx"]
    return {"tma_loads": "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx,
            "tma_stores": "cp.async.bulk.tensor.2d.global.shared::cta" in ptx,
            "producer_warpgroup": "setmaxnreg" in ptx}


def main():
    args = common.parse_args()
    shapes = QUICK if args.quick else SHAPES
    rows = []
    for dtype in ("float16", "bfloat16"):
        tdtype = getattr(torch, dtype)
        for M, N, K in shapes:
            gen = torch.Generator(device="cuda").manual_seed(M + N + K)
            a = torch.randn((M, K), device="cuda", generator=gen).to(tdtype)
            b = torch.randn((K, N), device="cuda", generator=gen).to(tdtype)
            ref = (a.double() @ b.double()).float()
            configs = matmul.matmul_configs(dtype, aligned=True)
            if args.quick:  # the large tiles, which the large products take
                configs = configs[:3]
            print(f"{dtype} {M}x{N}x{K}", flush=True)
            # C in the inputs' type, as torch.matmul stores it.
            best = {name: best_matmul_config(launch, a, b, ref, configs, out_dtype=tdtype)
                    for name, launch in VARIANTS.items()}
            outputs = {name: torch.empty((M, N), device="cuda", dtype=tdtype)
                       for name in VARIANTS}
            runs = {"torch": lambda: torch.matmul(a, b)}
            for name, launch in VARIANTS.items():
                if best[name]:
                    runs[name] = (lambda launch=launch, c=outputs[name], cfg=best[name]:
                                  launch(a, b, c, cfg))
            times = common.timed(runs)
            errors = {"torch": matmul_error(torch.matmul(a, b).float(), ref, K)}
            ran = {}
            for name, launch in VARIANTS.items():
                if best[name]:
                    outputs[name].fill_(float("nan"))
                    launch(a, b, outputs[name], best[name])
                    errors[name] = matmul_error(outputs[name], ref, K)
                    ran[name] = what_ran(name)
            flops = 2.0 * M * N * K
            entry = {"dtype": dtype, "M": M, "N": N, "K": K, "ptx": ran, "configs": best}
            line = f"  {dtype:9s} {M:5d}x{N:5d}x{K:5d}"
            for impl, (ms, spread) in times.items():
                tflops = flops / ms / 1e9
                entry[impl] = {"ms": ms, "tflops": tflops, "spread": spread,
                               "error": errors[impl]}
                line += f"\n    {impl:36s} {tflops:6.1f} TFLOP/s (±{100 * spread:.1f}%)"
                if impl in ran:
                    line += " " + " ".join(k for k, on in ran[impl].items() if on)
            print(line, flush=True)
            rows.append(entry)
    name = "matmul_tma_quick" if args.quick else "matmul_tma"
    print(common.write_record(name, args.commit, rows, args.out))


if __name__ == "__main__":
    main()
