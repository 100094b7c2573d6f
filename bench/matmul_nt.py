"""x @ W^T as attention and linear layers write it: W stored N x K (rows of
K contiguous), its tile transposed in the kernel with tl.trans. The same
kernel in tilec and in Triton, against torch.matmul(x, w.T) (cuBLAS), and
tilec's shipped kernels/matmul.py given W.T's strides (no tl.trans), in
one run, on the same random normal inputs.

    python3 bench/matmul_nt.py [--commit SHA] [--out DIR] [--quick]

Timing and checks as bench/matmul.py (common.bench; error against a
float64 product below 1e-3 after / sqrt(K)); each implementation runs the
best of the same candidate configs. Results: bench/results/matmul_nt-DATE.json.
"""
import pathlib
import statistics
import sys

import torch
import triton
import triton.language as ttl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402
import common  # noqa: E402  bench/common.py
from common import bench, best_matmul_config, matmul_error  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py


@tilec.jit
def nt_tilec(x_ptr, w_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None] * K + rk[None, :]
    w_ptrs = w_ptr + rn[:, None] * K + rk[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        x = tl.load(x_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        w = tl.load(w_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def nt_triton(x_ptr, w_ptr, c_ptr, M, N, K, BLOCK_M: ttl.constexpr,
              BLOCK_N: ttl.constexpr, BLOCK_K: ttl.constexpr, GROUP_M: ttl.constexpr):
    # nt_tilec in Triton's spelling.
    pid = ttl.program_id(0)
    num_pid_m = ttl.cdiv(M, BLOCK_M)
    num_pid_n = ttl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + ttl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + ttl.arange(0, BLOCK_N)
    rk = ttl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None] * K + rk[None, :]
    w_ptrs = w_ptr + rn[:, None] * K + rk[None, :]
    acc = ttl.zeros((BLOCK_M, BLOCK_N), dtype=ttl.float32)
    for k in range(0, ttl.cdiv(K, BLOCK_K)):
        x = ttl.load(x_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        w = ttl.load(w_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        acc = ttl.dot(x, ttl.trans(w), acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    ttl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
              mask=(rm[:, None] < M) & (rn[None, :] < N))


def grid(x, w, cfg):
    return (triton.cdiv(x.shape[0], cfg[0]) * triton.cdiv(w.shape[0], cfg[1]),)


def launch_tilec(x, w, c, cfg):
    bm, bn, bk, gm, warps, stages = cfg
    nt_tilec[grid(x, w, cfg)](x, w, c, x.shape[0], w.shape[0], x.shape[1],
                              BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                              num_warps=warps, num_stages=stages)


def launch_triton(x, w, c, cfg):
    bm, bn, bk, gm, warps, stages = cfg
    nt_triton[grid(x, w, cfg)](x, w, c, x.shape[0], w.shape[0], x.shape[1],
                               BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                               num_warps=warps, num_stages=stages)


def launch_shipped(x, w, c, cfg):
    matmul.matmul(x, w.t(), c, config=cfg)


def main():
    args = common.parse_args()
    shapes = [(4096,) * 3, (8192,) * 3] if not args.quick else [(4096,) * 3]
    candidates = matmul.matmul_configs("float16", True)
    rows = []
    for dtype in (torch.float16,):
        for m, n, k in shapes:
            torch.manual_seed(m + n + k)
            x = torch.randn(m, k, device="cuda").to(dtype)
            w = torch.randn(n, k, device="cuda").to(dtype)
            ref = (x.double() @ w.double().T).float()
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n, "K": k}
            launches = {"tilec": launch_tilec, "tilec_shipped": launch_shipped,
                        "triton": launch_triton}
            cfgs = {name: best_matmul_config(fn, x, w, ref, candidates)
                    for name, fn in launches.items()}
            outs = {name: torch.empty_like(ref) for name in launches}
            outs["torch"] = torch.empty_like(x @ w.T)
            runs = {name: (lambda fn=fn, name=name: fn(x, w, outs[name], cfgs[name]))
                    for name, fn in launches.items()}
            runs["torch"] = lambda: torch.matmul(x, w.T, out=outs["torch"])
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
                    "spread": (max(times[name]) - min(times[name])) / ms if times[name] else None,
                    "config": list(cfgs[name]) if cfgs.get(name) else None}
            rows.append(entry)
            print(f"{entry['dtype']:>8} {m}x{n}x{k}: " + "  ".join(
                f"{name} {entry[name]['TFLOP/s']:6.1f}" for name in runs), flush=True)
    path = common.write_record("matmul_nt", args.commit, rows, args.out)
    print("\n| dtype | M x N x K | tilec tl.trans | tilec W.T strides | Triton tl.trans "
          "| cuBLAS | spread |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        spreads = [r[k]["spread"] for k in ("tilec", "tilec_shipped", "triton", "torch")
                   if r[k]["spread"]]
        print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {r['tilec']['TFLOP/s']:.0f} | "
              f"{r['tilec_shipped']['TFLOP/s']:.0f} | {r['triton']['TFLOP/s']:.0f} | "
              f"{r['torch']['TFLOP/s']:.0f} | {100 * max(spreads or [0]):.1f}% |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
