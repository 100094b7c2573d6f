"""Matrix transpose, out = x^T: tilec's kernels/tile_ops.py `transpose`
against the same kernel in Triton and torch's x.t().contiguous(), in one
run, on the same random inputs.

    python3 bench/transpose.py [--commit SHA] [--out DIR] [--quick]

A transpose reads along one dimension and writes along the other: the
kernel is only fast when both sides are coalesced and 16 bytes wide, with
the tile moved between the two layouts through shared memory without bank
conflicts. Every output is checked exactly against torch's. Each
implementation's time is the median of three interleaved rounds of
triton.testing.do_bench (median, warmup 25 ms, rep 100 ms); the spread of
the three is reported as the run-to-run noise. tilec and Triton both run
the best of the same block/warps candidates, timed in the same run.
GB/s = 2 * M * N * element size / time. Results: bench/results/transpose-DATE.json.
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
from common import bench  # noqa: E402
import tile_ops  # noqa: E402  kernels/tile_ops.py


@triton.jit
def triton_transpose(x, out, M, N, stride_x, stride_out,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x + rows[:, None] * stride_x + cols[None, :], mask=mask)
    tl.store(out + cols[None, :] * stride_out + rows[:, None], tile, mask=mask)


CANDIDATES = [(32, 32, 4), (64, 64, 4), (64, 64, 8), (128, 64, 8), (64, 128, 8)]


def launch(kernel, x, out, cfg):
    bm, bn, warps = cfg
    m, n = x.shape
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    kernel[grid](x, out, m, n, x.stride(0), out.stride(0), BLOCK_M=bm, BLOCK_N=bn,
                 num_warps=warps)


def best_config(kernel, x, ref, candidates):
    best = None
    for cfg in candidates:
        out = torch.full_like(ref, float("nan"))
        launch(kernel, x, out, cfg)
        torch.cuda.synchronize()
        if not torch.equal(out, ref):
            print(f"  {cfg} wrong", flush=True)
            continue
        t = bench(lambda: launch(kernel, x, out, cfg))
        if best is None or t < best[0]:
            best = (t, cfg)
    return best[1] if best else None


def main():
    args = common.parse_args()
    commit = args.commit
    shapes = [(4096, 4096), (8192, 8192)] if not args.quick else [(8192, 8192)]
    candidates = CANDIDATES[:3] if args.quick else CANDIDATES
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for m, n in shapes:
            torch.manual_seed(m + n)
            x = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dtype)
            ref = x.t().contiguous()
            nbytes = 2 * m * n * x.element_size()
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n}
            cfgs = {"tilec": best_config(tile_ops.transpose, x, ref, candidates),
                    "triton": best_config(triton_transpose, x, ref, candidates)}
            outs = {k: torch.empty_like(ref) for k in ("tilec", "triton", "torch")}
            runs = {
                "tilec": lambda: launch(tile_ops.transpose, x, outs["tilec"], cfgs["tilec"]),
                "triton": lambda: launch(triton_transpose, x, outs["triton"], cfgs["triton"]),
                "torch": lambda: outs["torch"].copy_(x.t()),
            }
            times = {k: [] for k in runs}
            for _ in range(3):  # interleaved rounds
                for k, fn in runs.items():
                    if k != "torch" and cfgs[k] is None:
                        continue
                    times[k].append(bench(fn))
            for k in runs:
                torch.cuda.synchronize()
                ok = bool(torch.equal(outs[k], ref)) if times[k] else False
                ms = statistics.median(times[k]) if times[k] else float("nan")
                spread = (max(times[k]) - min(times[k])) / ms if times[k] else float("nan")
                entry[k] = {"ms": ms, "GB/s": nbytes / (ms * 1e-3) / 1e9, "ok": ok,
                            "rounds_ms": times[k], "spread": spread}
                if k in cfgs and cfgs[k]:
                    entry[k]["config"] = {"BLOCK_M": cfgs[k][0], "BLOCK_N": cfgs[k][1],
                                          "num_warps": cfgs[k][2]}
            rows.append(entry)
            print(f"{entry['dtype']:>8} {m}x{n}: "
                  + "  ".join(f"{k} {entry[k]['GB/s']:7.0f} GB/s (±{100 * entry[k]['spread']:.1f}%)"
                              for k in ("tilec", "triton", "torch")), flush=True)
    path = common.write_record("transpose", commit, rows, args.out)
    print("\n| dtype | M x N | tilec GB/s | Triton GB/s | torch GB/s | tilec/Triton | spread | tilec config |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["tilec"].get("config") or {}
        spread = max(r[k]["spread"] for k in ("tilec", "triton", "torch"))
        print(f"| {r['dtype']} | {r['M']}x{r['N']} | {r['tilec']['GB/s']:.0f} | "
              f"{r['triton']['GB/s']:.0f} | {r['torch']['GB/s']:.0f} | "
              f"{r['tilec']['GB/s'] / r['triton']['GB/s']:.2f} | {100 * spread:.1f}% | "
              f"{c.get('BLOCK_M', '-')}x{c.get('BLOCK_N', '-')} w{c.get('num_warps', '-')} |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
