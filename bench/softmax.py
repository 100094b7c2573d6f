"""Softmax on 8192 x N: tilec against torch.softmax and Triton's fused
softmax, in one run, on the same inputs.

    python3 bench/softmax.py [--commit SHA] [--out DIR] [--quick]

For every N and dtype (fp32, bf16) the script checks each implementation
against a float64 reference (relative L2 error), then times it with CUDA
events (triton.testing.do_bench, median), and reports GB/s = bytes read
and written (2 * 8192 * N * element size) over the time. tilec's config
(rows per program, block, warps) is the best of a few candidates timed in
the same run; Triton runs the tutorial kernel (one row per program, block
= next power of two, warps by size). Results: bench/results/softmax-DATE.json.
"""
import datetime
import json
import math
import os
import pathlib
import sys

import torch
import triton
import triton.language as tl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import common  # noqa: E402  bench/common.py
from common import bench  # noqa: E402
import softmax as tilec_softmax  # noqa: E402  kernels/softmax.py


@triton.jit
def triton_softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask,
                other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


def triton_run(x, out):
    m, n = x.shape
    block = triton.next_power_of_2(n)
    warps = 4 if block < 2048 else 8 if block < 4096 else 16
    triton_softmax[(m,)](out, x, x.stride(0), out.stride(0), n, BLOCK=block,
                         num_warps=warps)


def tilec_candidates(n):
    block = triton.next_power_of_2(n)
    if block > 32768:
        return [("online", 1, 4096, 16)]
    out = []
    for rows in (1, 2, 4, 8, 16, 32):
        # Several rows per program only for short rows (ROWS=1 always).
        if rows > 1 and (rows * block > 16384 or block >= 4096):
            continue
        for warps in (4, 8, 16):
            if rows * block >= warps * 32 or warps == 4:
                out.append(("one-pass", rows, block, warps))
    return out


def tilec_run(x, out, config):
    kind, rows, block, warps = config
    m, n = x.shape
    if kind == "online":
        tilec_softmax.softmax_online[(m,)](out, x, x.stride(0), out.stride(0), n,
                                           BLOCK=block, num_warps=warps)
    else:
        tilec_softmax.softmax[(triton.cdiv(m, rows),)](
            out, x, x.stride(0), out.stride(0), m, n, ROWS=rows, BLOCK=block,
            num_warps=warps)


def rel_error(out, ref):
    d = (out.double() - ref).norm() / ref.norm()
    return float(d) if torch.isfinite(d) else float("inf")


def main():
    args = common.parse_args()
    commit = args.commit
    m = 8192
    ns = [128, 512, 1024, 2048, 4096, 8192, 16384, 32768]
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for n in ns:
            torch.manual_seed(n)
            x = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dtype)
            ref = torch.softmax(x.double(), dim=1)
            nbytes = 2 * m * n * x.element_size()
            tol = 1e-5 if dtype == torch.float32 else 1e-2
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n}
            results = {}
            # torch
            out = torch.empty_like(x)
            torch.softmax(x, dim=1, out=out)
            results["torch"] = (bench(lambda: torch.softmax(x, dim=1, out=out)),
                                rel_error(out, ref), None)
            # triton
            out = torch.full_like(x, float("nan"))
            triton_run(x, out)
            results["triton"] = (bench(lambda: triton_run(x, out)),
                                 rel_error(out, ref), None)
            # tilec: best of the candidates
            best = None
            for cfg in tilec_candidates(n)[: (3 if args.quick else None)]:
                out = torch.full_like(x, float("nan"))
                tilec_run(x, out, cfg)
                torch.cuda.synchronize()
                err = rel_error(out, ref)
                if not err < tol:
                    print(f"  tilec config {cfg} wrong: rel error {err:.2e}")
                    continue
                t = bench(lambda: tilec_run(x, out, cfg))
                if best is None or t < best[0]:
                    best = (t, err, cfg)
            results["tilec"] = best if best else (float("nan"), float("inf"), None)
            for name, (ms, err, cfg) in results.items():
                entry[name] = {"ms": ms, "GB/s": nbytes / (ms * 1e-3) / 1e9,
                               "rel_error": err, "ok": err < tol}
                if cfg:
                    entry[name]["config"] = {"kind": cfg[0], "ROWS": cfg[1],
                                             "BLOCK": cfg[2], "num_warps": cfg[3]}
            rows.append(entry)
            print(f"{entry['dtype']:>8} N={n:>6}: "
                  + "  ".join(f"{k} {entry[k]['GB/s']:7.0f} GB/s" for k in ("tilec", "triton", "torch"))
                  + f"  (tilec/triton {entry['tilec']['GB/s'] / entry['triton']['GB/s']:.2f})", flush=True)
    summary = {}
    for dtype in ("float32", "bfloat16"):
        ratios = [r["tilec"]["GB/s"] / r["triton"]["GB/s"] for r in rows if r["dtype"] == dtype]
        summary[dtype] = {"geomean_tilec_over_triton": math.exp(sum(map(math.log, ratios)) / len(ratios))}
    record = {
        "benchmark": "softmax", "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
        "triton": triton.__version__, "timing": "triton.testing.do_bench median, warmup 25 ms, rep 100 ms",
        "rows": rows, "summary": summary,
    }
    os.makedirs(args.out, exist_ok=True)
    path = pathlib.Path(args.out) / f"softmax-{datetime.date.today().isoformat()}.json"
    path.write_text(json.dumps(record, indent=2))
    print("\n| dtype | N | tilec GB/s | Triton GB/s | torch GB/s | tilec/Triton | tilec config |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["tilec"].get("config") or {}
        print(f"| {r['dtype']} | {r['N']} | {r['tilec']['GB/s']:.0f} | {r['triton']['GB/s']:.0f} | "
              f"{r['torch']['GB/s']:.0f} | {r['tilec']['GB/s'] / r['triton']['GB/s']:.2f} | "
              f"{c.get('kind', '-')} {c.get('ROWS', '')}x{c.get('BLOCK', '')} w{c.get('num_warps', '')} |")
    for dtype, s in summary.items():
        print(f"geomean tilec/Triton {dtype}: {s['geomean_tilec_over_triton']:.3f}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
