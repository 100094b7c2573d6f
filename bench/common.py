"""What the benchmarks share: their command line (--commit, --out, --quick)
and one timing rule (triton.testing.do_bench's median, warmup 25 ms,
rep 100 ms)."""
import argparse
import pathlib
import subprocess

import triton

ROOT = pathlib.Path(__file__).resolve().parent.parent


def parse_args():
    """--commit (default: the checkout's short hash, or "unknown"), --out
    (default bench/results), --quick."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.commit is None:
        try:
            args.commit = subprocess.check_output(
                ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True).strip()
        except Exception:
            args.commit = "unknown"
    return args


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
