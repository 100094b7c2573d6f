"""A chained dot as attention makes it: o = Σ_j exp(q k_jᵀ - rowmax) v_j
(tests/python/chained_dot_kernels.py attention_like: no running rescale),
the same kernel source in tilec and in Triton, on the same random inputs,
in one run. On sm_90a tilec multiplies p @ v with A (p) from registers.

    python3 bench/chained_dot.py [--commit SHA] [--out DIR] [--quick]

Each side runs the best of the same configs (timed in this run); every
output is checked against the other's and against a float64 reference of
the first 128 rows first. Timing as bench/matmul.py (median of three
interleaved rounds of do_bench medians). TFLOP/s counts the two products,
4 M L D. Results: bench/results/chained_dot-DATE.json.
"""
import pathlib
import statistics
import sys

import numpy as np
import torch
import triton
import triton.language as ttl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))
import common  # noqa: E402  bench/common.py
from common import bench  # noqa: E402
import chained_dot_kernels as kernels  # noqa: E402


@triton.jit
def attention_like_triton(q_ptr, k_ptr, v_ptr, o_ptr, L, D: ttl.constexpr,
                          BM: ttl.constexpr, BN: ttl.constexpr):
    # kernels.attention_like in Triton's spelling.
    rm = ttl.program_id(0) * BM + ttl.arange(0, BM)
    rn = ttl.arange(0, BN)
    rd = ttl.arange(0, D)
    q = ttl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = ttl.zeros((BM, D), dtype=ttl.float32)
    for start in range(0, L, BN):
        k = ttl.load(k_ptr + (start + rn)[:, None] * D + rd[None, :])
        s = ttl.dot(q, ttl.trans(k))
        p = ttl.exp(s - ttl.max(s, 1)[:, None])
        v = ttl.load(v_ptr + (start + rn)[:, None] * D + rd[None, :])
        acc = ttl.dot(p.to(v_ptr.dtype.element_ty), v, acc)
    ttl.store(o_ptr + rm[:, None] * D + rd[None, :], acc)


# (BM, BN, num_warps, num_stages)
CONFIGS = [(128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3), (128, 64, 4, 3)]


def reference(q, k, v, bn, rows):
    q, k, v = (x.double().cpu().numpy() for x in (q[:rows], k, v))
    out = np.zeros((rows, v.shape[1]))
    for start in range(0, k.shape[0], bn):
        s = q @ k[start:start + bn].T
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out += p @ v[start:start + bn]
    return out


def main():
    args = common.parse_args()
    shapes = [(4096, 4096, 128), (8192, 8192, 128), (8192, 8192, 64)]
    if args.quick:
        shapes = shapes[:1]
    rows = []
    for dtype in (torch.float16, torch.bfloat16):
        for m, length, d in shapes:
            torch.manual_seed(m + length + d)
            q, k, v = (torch.randn(n, d, device="cuda").div(4).to(dtype)
                       for n in (m, length, length))
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "L": length, "D": d}

            def launch(side, cfg, out):
                bm, bn, warps, stages = cfg
                fn = kernels.attention_like if side == "tilec" else attention_like_triton
                fn[(m // bm,)](q, k, v, out, length, D=d, BM=bm, BN=bn, num_warps=warps,
                               num_stages=stages)

            found = {}
            for side in ("tilec", "triton"):
                for cfg in CONFIGS:
                    out = torch.full((m, d), float("nan"), device="cuda")
                    try:
                        launch(side, cfg, out)
                        torch.cuda.synchronize()
                    except Exception as e:  # a config a compiler refuses
                        print(f"  {side} {cfg}: {str(e).splitlines()[0][:100]}", flush=True)
                        continue
                    want = reference(q, k, v, cfg[1], 128)
                    err = float(np.abs(out[:128].double().cpu().numpy() - want).max()
                                / np.abs(want).max())
                    if not err < 3e-2:
                        print(f"  {side} {cfg} wrong ({err:.2e})", flush=True)
                        continue
                    t = bench(lambda: launch(side, cfg, out))
                    if side not in found or t < found[side][0]:
                        found[side] = (t, cfg, err)
            outs = {side: torch.empty((m, d), device="cuda") for side in found}
            times = {side: [] for side in found}
            for _ in range(3):
                for side, (_, cfg, _) in found.items():
                    times[side].append(bench(lambda: launch(side, cfg, outs[side])))
            flops = 4.0 * m * length * d
            for side in ("tilec", "triton"):
                if side not in found:
                    entry[side] = None
                    continue
                ms = statistics.median(times[side])
                entry[side] = {"ms": ms, "TFLOP/s": flops / (ms * 1e-3) / 1e12,
                               "config": list(found[side][1]),
                               "relative_error": found[side][2],
                               "rounds_ms": times[side],
                               "spread": (max(times[side]) - min(times[side])) / ms}
            rows.append(entry)
            print(f"{entry['dtype']:>8} M={m} L={length} D={d}: " + "  ".join(
                f"{s} {entry[s]['TFLOP/s']:6.1f}" for s in ("tilec", "triton") if entry[s]),
                flush=True)
    path = common.write_record("chained_dot", args.commit, rows, args.out)
    print("\n| dtype | M, L, D | tilec TFLOP/s | Triton TFLOP/s | tilec/Triton | spread "
          "| tilec config | Triton config |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, o = r["tilec"], r["triton"]
        if not t or not o:
            continue
        print(f"| {r['dtype']} | {r['M']}, {r['L']}, {r['D']} | {t['TFLOP/s']:.0f} | "
              f"{o['TFLOP/s']:.0f} | {t['TFLOP/s'] / o['TFLOP/s']:.2f} | "
              f"{100 * max(t['spread'], o['spread']):.1f}% | {t['config']} | {o['config']} |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
