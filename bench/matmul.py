"""Matrix multiplication C = A @ B: tilec's kernels/matmul.py against
torch.matmul (cuBLAS) and Triton's tutorial matmul kernel, in one run, on
the same random normal inputs (never zeros: tensor cores draw less power
on zeros and run faster).

    python3 bench/matmul.py [--commit SHA] [--out DIR] [--quick]

Both tilec and Triton run the best of the same tile candidates (timed in
this run); torch uses cuBLAS's own choice. Each output is checked against
a float64 product of the same inputs (max |difference| / sqrt(K) below
1e-3; torch's fp16/bf16 output carries its own rounding, reported as its
error). Each time is the median of three interleaved rounds of
triton.testing.do_bench (median, warmup 25 ms, rep 100 ms); the spread of
the three is reported as run-to-run noise. TFLOP/s = 2 M N K / time.
Results: bench/results/matmul-DATE.json.
"""
import pathlib
import statistics
import sys

import torch
import triton
import triton.language as tl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402,F401
import common  # noqa: E402  bench/common.py
from common import bench, best_matmul_config, matmul_error  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py


@triton.jit
def triton_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                  stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # Triton's tutorial 03 kernel (grouped ordering, masked K tail).
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# Triton's (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages): the
# tutorial's best configs for fp16 on Hopper and Ampere. tilec tries its own
# shipped configs, kernels/matmul.py matmul_configs(), for the shape's
# alignment.
TRITON_CANDIDATES = [(128, 256, 64, 8, 8, 3), (128, 128, 64, 8, 8, 3),
                     (128, 128, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4),
                     (128, 64, 32, 8, 4, 4), (64, 64, 32, 8, 4, 4)]


def launch_tilec(a, b, c, cfg):
    matmul.matmul(a, b, c, config=cfg)


def launch_triton(a, b, c, cfg):
    bm, bn, bk, gm, warps, stages = cfg
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    triton_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                        b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                        BLOCK_K=bk, GROUP_M=gm, num_warps=warps, num_stages=stages)


def main():
    args = common.parse_args()
    commit = args.commit
    shapes = [(1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3,
              (3000, 5000, 1000), (4096, 4096, 512), (8192, 1024, 8192)]
    if args.quick:
        shapes = [(1024,) * 3, (4096,) * 3]
    rows = []
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in shapes:
            torch.manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            ref = (a.double() @ b.double()).float()  # exact products, f64 sums
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n, "K": k}
            mine = matmul.matmul_configs(entry["dtype"], matmul.rows_aligned(a, b))
            theirs = TRITON_CANDIDATES
            if args.quick:
                mine, theirs = mine[:2], theirs[:2]
            cfgs = {"tilec": best_matmul_config(launch_tilec, a, b, ref, mine),
                    "triton": best_matmul_config(launch_triton, a, b, ref, theirs)}
            outs = {name: torch.empty_like(ref) for name in ("tilec", "triton")}
            ref = ref.float()
            outs["torch"] = torch.empty_like(a @ b)
            runs = {
                "tilec": lambda: launch_tilec(a, b, outs["tilec"], cfgs["tilec"]),
                "triton": lambda: launch_triton(a, b, outs["triton"], cfgs["triton"]),
                "torch": lambda: torch.matmul(a, b, out=outs["torch"]),
            }
            times = {name: [] for name in runs}
            for _ in range(3):  # interleaved rounds
                for name, fn in runs.items():
                    if name != "torch" and cfgs[name] is None:
                        continue
                    times[name].append(bench(fn))
            flops = 2.0 * m * n * k
            for name in runs:
                torch.cuda.synchronize()
                ms = statistics.median(times[name]) if times[name] else float("nan")
                entry[name] = {
                    "ms": ms, "TFLOP/s": flops / (ms * 1e-3) / 1e12,
                    "error": matmul_error(outs[name], ref, k) if times[name] else None,
                    "rounds_ms": times[name],
                    "spread": (max(times[name]) - min(times[name])) / ms if times[name] else None}
                if name in cfgs and cfgs[name]:
                    entry[name]["config"] = dict(zip(
                        ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps",
                         "num_stages"), cfgs[name]))
            rows.append(entry)
            print(f"{entry['dtype']:>8} {m}x{n}x{k}: " + "  ".join(
                f"{name} {entry[name]['TFLOP/s']:6.1f}" for name in runs), flush=True)
    path = common.write_record("matmul", commit, rows, args.out)
    print("\n| dtype | M x N x K | tilec TFLOP/s | Triton TFLOP/s | cuBLAS TFLOP/s | "
          "tilec/Triton | tilec/cuBLAS | spread | tilec config |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["tilec"].get("config") or {}
        spreads = [r[k]["spread"] for k in ("tilec", "triton", "torch") if r[k]["spread"]]
        print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {r['tilec']['TFLOP/s']:.0f} | "
              f"{r['triton']['TFLOP/s']:.0f} | {r['torch']['TFLOP/s']:.0f} | "
              f"{r['tilec']['TFLOP/s'] / r['triton']['TFLOP/s']:.2f} | "
              f"{r['tilec']['TFLOP/s'] / r['torch']['TFLOP/s']:.2f} | "
              f"{100 * max(spreads or [0]):.1f}% | "
              f"{c.get('BLOCK_M', '-')}x{c.get('BLOCK_N', '-')}x{c.get('BLOCK_K', '-')} "
              f"w{c.get('num_warps', '-')} s{c.get('num_stages', '-')} |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
