"""An autotuning sweep of the fused softmax (kernels/softmax.py) from Python.

    python3 bench/tune.py [--commit SHA] [--out DIR] [--rows 8192] [--cols 1024]

Ten configs (ROWS per program x num_warps) for fp32 rows of --cols columns
(BLOCK = the next power of two). Two new processes share one empty
autotuning database (TILEC_CACHE_DIR): the first tunes (every config timed
with CUDA events, L2 flushed, median) and launches the best; the second
must find every result stored and time nothing. The first's report goes to
DIR/softmax-tune-DATE.{csv,json,svg}; both runs' summaries, with the
output checked against a float64 reference, to DIR/tune-DATE.json.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))

CONFIGS = [(rows, warps) for rows in (1, 2, 4) for warps in (2, 4, 8)] + [(8, 8)]


def child(args):
    import torch
    import tilec
    import softmax as kernels  # kernels/softmax.py

    block = tilec.next_power_of_2(args.cols)
    tuned = tilec.autotune(
        configs=[tilec.Config({"ROWS": r, "BLOCK": block}, num_warps=w) for r, w in CONFIGS],
        key=["n_rows", "n_cols"], warmup=10, rep=50)(kernels.softmax)
    x = torch.randn(args.rows, args.cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    tuned[lambda m: (tilec.cdiv(args.rows, m["ROWS"]),)](
        out, x, x.stride(0), out.stride(0), args.rows, args.cols)
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - t0) * 1e3
    ref = torch.softmax(x.double(), dim=1)
    err = ((out.double() - ref).norm() / ref.norm()).item()
    report = tuned.report
    if args.report_prefix:
        report.write(args.report_prefix)
        # Work per launch: read and write the matrix once.
        bytes_moved = 2 * x.numel() * 4
        with open(args.report_prefix + ".json") as f:
            data = json.load(f)
        for r in data["results"]:
            if r["ok"]:
                r["gb_per_s"] = bytes_moved / (r["median_ms"] * 1e-3) / 1e9
        data["bytes_per_launch"] = bytes_moved
        with open(args.report_prefix + ".json", "w") as f:
            json.dump(data, f, indent=1)
    print(json.dumps({"reused": report.reused, "best": repr(tuned.best_config),
                      "first_launch_ms": first_ms, "rel_error": err,
                      "timed": sum(1 for r in report.results if not r["from_database"]),
                      "configs": len(report.results),
                      "skipped": [r["config"] for r in report.results if not r["ok"]]}))
    print(report.table(), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--report-prefix", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    date = datetime.date.today().isoformat()
    os.makedirs(args.out, exist_ok=True)
    prefix = os.path.join(args.out, f"softmax-tune-{date}")
    runs = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TILEC_CACHE_DIR=cache)
        for i in range(2):
            cmd = [sys.executable, __file__, "--child", "--rows", str(args.rows),
                   "--cols", str(args.cols)]
            if i == 0:
                cmd += ["--report-prefix", prefix]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
            sys.stderr.write(r.stderr)
            if r.returncode != 0:
                sys.exit(f"tune run {i} failed")
            runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    import torch
    summary = {"commit": args.commit, "date": date, "gpu": torch.cuda.get_device_name(),
               "kernel": "softmax", "shape": [args.rows, args.cols], "dtype": "fp32",
               "configs": [{"ROWS": r, "num_warps": w} for r, w in CONFIGS],
               "first_process": runs[0], "second_process": runs[1],
               "report": os.path.basename(prefix) + ".{csv,json,svg}"}
    path = os.path.join(args.out, f"tune-{date}.json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)
    for name, r in (("first process", runs[0]), ("second process", runs[1])):
        print(f"{name}: timed {r['timed']}/{r['configs']} configs, reused={r['reused']}, "
              f"best {r['best']}, first launch {r['first_launch_ms']:.1f} ms, "
              f"rel. error {r['rel_error']:.2e}")
    assert runs[1]["reused"] and runs[1]["timed"] == 0, "the second process timed again"
    assert runs[0]["best"] == runs[1]["best"]
    print(f"results: {path}")


if __name__ == "__main__":
    main()
