"""Atomics: tilec against Triton (the same kernels) and PyTorch, in one run,
on the same inputs.

    python3 bench/atomics.py [--commit SHA] [--out DIR] [--quick]

Three workloads, each checked against a float64 (or exact integer)
reference before it is timed:
- scatter-add: out[idx[i]] += x[i] for 16M fp32 values into 1024 or 1M
  bins (torch: index_add_);
- histogram: counts[x[i]] += 1 for 16M int32 values in [0, 256) (torch:
  bincount);
- row accumulation: out[j] += x[i, j] over 4096 rows of 4096 fp32 (each
  program adds one row; tilec's vector `red.v4.f32` on sm_90; torch:
  sum(dim=0), which needs no atomics, as a floor).
Every atomic is relaxed with its result unused. Times: median of three
interleaved rounds of triton.testing.do_bench medians. Results:
bench/results/atomics-DATE.json.
"""
import pathlib
import sys

import torch
import triton
import triton.language as ttl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402
import common  # noqa: E402  bench/common.py
from common import timed  # noqa: E402

BLOCK = 1024


@tilec.jit
def tilec_scatter_add(out_ptr, idx_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask)
    tl.atomic_add(out_ptr + idx, tl.load(x_ptr + offs, mask=mask), mask=mask, sem="relaxed")


@triton.jit
def triton_scatter_add(out_ptr, idx_ptr, x_ptr, n, BLOCK: ttl.constexpr):
    offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
    mask = offs < n
    idx = ttl.load(idx_ptr + offs, mask=mask)
    ttl.atomic_add(out_ptr + idx, ttl.load(x_ptr + offs, mask=mask), mask=mask, sem="relaxed")


@tilec.jit
def tilec_histogram(counts_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(counts_ptr + tl.load(x_ptr + offs, mask=mask), 1, mask=mask, sem="relaxed")


@triton.jit
def triton_histogram(counts_ptr, x_ptr, n, BLOCK: ttl.constexpr):
    offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
    mask = offs < n
    ttl.atomic_add(counts_ptr + ttl.load(x_ptr + offs, mask=mask), 1, mask=mask, sem="relaxed")


@tilec.jit
def tilec_row_accumulate(out_ptr, x_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.atomic_add(out_ptr + cols, tl.load(x_ptr + row * n + cols), sem="relaxed")


@triton.jit
def triton_row_accumulate(out_ptr, x_ptr, n, BLOCK: ttl.constexpr):
    row = ttl.program_id(0)
    for start in range(0, n, BLOCK):
        cols = start + ttl.arange(0, BLOCK)
        ttl.atomic_add(out_ptr + cols, ttl.load(x_ptr + row * n + cols), sem="relaxed")


def check(name, got, want, tol):
    err = (got.double() - want).abs().max().item()
    ok = err <= tol
    if not ok:
        print(f"  {name}: wrong, max error {err:.3g} > {tol:.3g}", flush=True)
    return ok


def scatter_add(n, bins):
    gen = torch.Generator(device="cuda").manual_seed(bins)
    x = torch.randn(n, device="cuda", generator=gen)
    idx = torch.randint(0, bins, (n,), device="cuda", generator=gen, dtype=torch.int32)
    want = torch.zeros(bins, dtype=torch.float64, device="cuda").index_add_(0, idx.long(), x.double())
    tol = 1e-5 * torch.zeros(bins, dtype=torch.float64, device="cuda").index_add_(
        0, idx.long(), x.double().abs()).max().item() + 1e-6
    out = torch.zeros(bins, device="cuda")
    grid = (triton.cdiv(n, BLOCK),)
    idx_long = idx.long()
    runs = {
        "tilec": lambda: tilec_scatter_add[grid](out, idx, x, n, BLOCK=BLOCK),
        "triton": lambda: triton_scatter_add[grid](out, idx, x, n, BLOCK=BLOCK),
        "torch": lambda: out.index_add_(0, idx_long, x),
    }
    ok = {}
    for name, fn in runs.items():
        out.zero_()
        fn()
        torch.cuda.synchronize()
        ok[name] = check(name, out, want, tol)
    return runs, ok, n * (4 + 4)  # bytes of x and idx read


def histogram(n, bins):
    gen = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randint(0, bins, (n,), device="cuda", generator=gen, dtype=torch.int32)
    want = torch.bincount(x.long(), minlength=bins).double()
    counts = torch.zeros(bins, dtype=torch.int32, device="cuda")
    grid = (triton.cdiv(n, BLOCK),)
    x_long = x.long()
    runs = {
        "tilec": lambda: tilec_histogram[grid](counts, x, n, BLOCK=BLOCK),
        "triton": lambda: triton_histogram[grid](counts, x, n, BLOCK=BLOCK),
        "torch": lambda: torch.bincount(x_long, minlength=bins),
    }
    ok = {}
    for name, fn in runs.items():
        counts.zero_()
        result = fn()
        torch.cuda.synchronize()
        ok[name] = check(name, result if name == "torch" else counts, want, 0)
    return runs, ok, n * 4


def row_accumulate(m, n):
    gen = torch.Generator(device="cuda").manual_seed(m)
    x = torch.randn(m, n, device="cuda", generator=gen)
    want = x.double().sum(dim=0)
    tol = 1e-5 * x.double().abs().sum(dim=0).max().item()
    out = torch.zeros(n, device="cuda")
    runs = {
        "tilec": lambda: tilec_row_accumulate[(m,)](out, x, n, BLOCK=BLOCK),
        "triton": lambda: triton_row_accumulate[(m,)](out, x, n, BLOCK=BLOCK),
        "torch": lambda: torch.sum(x, dim=0, out=out),
    }
    ok = {}
    for name, fn in runs.items():
        out.zero_()
        fn()
        torch.cuda.synchronize()
        ok[name] = check(name, out, want, tol)
    return runs, ok, m * n * 4


def main():
    args = common.parse_args()
    n = 1 << (22 if args.quick else 24)
    cases = [("scatter-add fp32, 1024 bins", lambda: scatter_add(n, 1024)),
             ("scatter-add fp32, 1M bins", lambda: scatter_add(n, 1 << 20)),
             ("histogram int32, 256 bins", lambda: histogram(n, 256)),
             ("row accumulation fp32, 4096x4096", lambda: row_accumulate(4096, 4096))]
    rows = []
    for name, make in cases:
        runs, ok, nbytes = make()
        times = timed(runs)
        entry = {"case": name}
        for impl, (ms, spread) in times.items():
            entry[impl] = {"ms": ms, "GB/s": nbytes / (ms * 1e-3) / 1e9, "spread": spread,
                           "ok": ok[impl]}
        rows.append(entry)
        print(f"{name:>34}: " + "  ".join(
            f"{impl} {entry[impl]['ms'] * 1e3:8.1f} us" for impl in ("tilec", "triton", "torch"))
            + f"  (tilec/triton time {entry['tilec']['ms'] / entry['triton']['ms']:.2f})",
            flush=True)
    path = common.write_record("atomics", args.commit, rows, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
