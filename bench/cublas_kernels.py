"""Which kernels cuBLAS runs for torch.matmul at bench/matmul.py's shapes,
and how long each takes: the name tells its tile, cluster and schedule
(e.g. nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NNT: a 256 x 128 tile, K step
64, 4 stages, clusters of 2 x 1, cooperative), which is what tilec's
kernels are up against where they lose.

    python3 bench/cublas_kernels.py [--dtypes float16,bfloat16] [--out FILE]

Inputs as bench/matmul.py makes them (torch.randn, row-major, C in the
inputs' type). Each product runs 20 times under torch.profiler after a
warm-up; a line per kernel name: calls, mean µs, and the TFLOP/s that mean
gives (2 M N K / time, for the kernel that does the product)."""
import argparse
import json
import pathlib
import sys

import torch
from torch.profiler import ProfilerActivity, profile

SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
          (8192, 8192, 8192), (3000, 5000, 1000), (4096, 4096, 512),
          (8192, 1024, 8192)]


def kernels_of(m, n, k, dtype, calls=20):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    for _ in range(5):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            torch.matmul(a, b)
        torch.cuda.synchronize()
    rows = []
    for event in prof.key_averages():
        if event.device_type != torch.autograd.DeviceType.CUDA or event.count == 0:
            continue
        mean_us = event.device_time_total / event.count
        rows.append({"kernel": event.key, "calls": event.count, "mean_us": round(mean_us, 2),
                     "tflops": round(2 * m * n * k / (mean_us * 1e-6) / 1e12, 1)})
    return sorted(rows, key=lambda r: -r["mean_us"] * r["calls"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtypes", default="float16,bfloat16")
    parser.add_argument("--out", type=pathlib.Path)
    args = parser.parse_args()
    results = []
    for dtype_name in args.dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        for m, n, k in SHAPES:
            for row in kernels_of(m, n, k, dtype):
                row.update(dtype=dtype_name, shape=f"{m}x{n}x{k}")
                results.append(row)
                print(f"{dtype_name:9} {m}x{n}x{k:<6} {row['mean_us']:8.2f} us "
                      f"{row['tflops']:6.1f} TFLOP/s x{row['calls']}  {row['kernel']}")
    if args.out:
        args.out.write_text(json.dumps({"gpu": torch.cuda.get_device_name(),
                                        "torch": torch.__version__,
                                        "kernels": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
