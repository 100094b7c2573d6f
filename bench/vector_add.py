"""Vector add (fp32) from Python: tilec against torch and Triton, in one run.

    python3 bench/vector_add.py [--commit SHA] [--out DIR] [--quick]

1. Bandwidth: for n = 2^12, 2^14, ..., 2^28 every implementation is checked
   against a float64 reference (output poisoned first), then timed with CUDA
   events (triton.testing.do_bench, median; a CUDA-event timer of the same
   kind when Triton is missing) in ROUNDS interleaved rounds on the same
   buffers; the median of the rounds is reported. GB/s = 3 * n * 4 bytes /
   time.
     tilec:  kernels/vector_add.py, BLOCK=1024, num_warps=4
     torch:  torch.add(x, y, out=out)
     Triton: the tutorial's add kernel (below), BLOCK=1024
2. Launch overhead: 2000 launches of the n=1 kernel in a host loop, timed
   with time.perf_counter (synchronised before; the loop's time / 2000).
3. Compile time, first launch to ready in a new process (after torch has
   made the CUDA context): cold (an empty TILEC_CACHE_DIR/TRITON_CACHE_DIR)
   and warm (a second process finding the first's disk-cache entry), for
   tilec and Triton; and tilec's first call of a fresh JITFunction in this
   process vs. its second call.

Results: DIR/vector_add-DATE.json (default bench/results/), and a table.
"""
import argparse
import datetime
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402
import vector_add as tilec_vector_add  # noqa: E402  kernels/vector_add.py

try:
    import triton
    import triton.language as tl
except ImportError:  # the bench still runs, without the Triton rows
    triton = None

BLOCK = 1024
ROUNDS = 5  # do_bench medians per implementation and size; the median is reported

if triton is not None:
    @triton.jit
    def triton_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def run_tilec(x, y, out, n, kernel=None):
    (kernel or tilec_vector_add.add)[(tilec.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)


def run_triton(x, y, out, n, kernel=None):
    (kernel or triton_add)[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)


def run_torch(x, y, out, n):
    torch.add(x, y, out=out)


IMPLS = {"tilec": run_tilec, "torch": run_torch}
if triton is not None:
    IMPLS["triton"] = run_triton


def event_bench(fn, warmup=25, rep=100):
    """Median ms of fn, timed with CUDA events, the L2 flushed before each
    run (what triton.testing.do_bench does)."""
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    stop.record()
    torch.cuda.synchronize()
    estimate = start.elapsed_time(stop) / 5
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    for _ in range(n_warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        cache.zero_()
        starts[i].record()
        fn()
        stops[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, stops))


def bench(fn):
    if triton is not None:
        return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    return event_bench(fn)


def check(out, x, y):
    ref = x.double() + y.double()
    err = ((out.double() - ref).abs() / (1 + ref.abs())).max().item()
    return err


def bandwidth(sizes):
    rows = []
    for n in sizes:
        torch.manual_seed(n)
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        row = {"n": n, "log2n": n.bit_length() - 1}
        # One output buffer for all (so no implementation is timed on
        # memory the others do not use), poisoned before each check.
        out = torch.empty_like(x)
        correct = {}
        for name, impl in IMPLS.items():
            out.fill_(float("nan"))
            impl(x, y, out, n)
            torch.cuda.synchronize()
            err = check(out, x, y)
            correct[name] = (err <= 1.2e-7, err)
            if not correct[name][0]:
                print(f"  {name} n={n}: WRONG, max relative error {err:.3e}", flush=True)
        # Interleaved rounds: drift of the GPU during the run (clocks,
        # temperature) falls on every implementation alike.
        rounds = {name: [] for name in IMPLS}
        for _ in range(ROUNDS):
            for name, impl in IMPLS.items():
                if correct[name][0]:
                    rounds[name].append(bench(lambda: impl(x, y, out, n)))
        for name in IMPLS:
            ok, err = correct[name]
            ms = statistics.median(rounds[name]) if ok else float("nan")
            row[name] = {"ms": ms, "us": ms * 1e3, "GB/s": 3 * n * 4 / (ms * 1e-3) / 1e9,
                         "max_rel_error": err, "correct": ok,
                         "round_us": [r * 1e3 for r in rounds[name]]}
        del x, y, out
        torch.cuda.empty_cache()
        line = f"n=2^{row['log2n']:<2}" + "".join(
            f"  {k} {row[k]['GB/s']:8.1f} GB/s {row[k]['us']:8.2f} us" for k in IMPLS)
        print(line, flush=True)
        rows.append(row)
    return rows


def launch_overhead(count=2000):
    x = torch.ones(1, device="cuda")
    y = torch.ones(1, device="cuda")
    out = torch.empty(1, device="cuda")
    result = {}
    for name, impl in IMPLS.items():
        for _ in range(100):  # compile, load, warm caches
            impl(x, y, out, 1)
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(count):
                impl(x, y, out, 1)
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            samples.append((t1 - t0) / count * 1e6)
        result[name] = {"us_per_launch": min(samples), "us_median": statistics.median(samples),
                        "launches": count}
        print(f"launch overhead {name}: {min(samples):.2f} us (median of 5 loops "
              f"{statistics.median(samples):.2f} us)", flush=True)
    # A launch of a compiled specialisation (compiled[grid](...)): no
    # binding of keywords and constexprs, the arguments checked against the
    # signature instead.
    compiled = tilec_vector_add.add.warmup(x, y, out, 1, BLOCK=BLOCK)
    samples = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            compiled[(1,)](x, y, out, 1)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        samples.append((t1 - t0) / count * 1e6)
    result["tilec_compiled_kernel"] = {
        "us_per_launch": min(samples), "us_median": statistics.median(samples), "launches": count}
    print(f"tilec CompiledKernel[grid]: {min(samples):.2f} us", flush=True)
    return result


def first_and_second_call(impl, kernel):
    """ms of the first call of a fresh kernel object (compile, load, launch,
    synchronise), then of its second call."""
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        impl(x, y, out, n, kernel)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    assert check(out, x, y) <= 1.2e-7
    return times


def cold_child(which):
    """In a new process: import, make the CUDA context, then time the first
    launch to ready. Prints JSON."""
    t_import = time.perf_counter()
    if which == "tilec":
        kernel, impl = tilec.jit(tilec_vector_add.add.fn), run_tilec
    else:
        kernel, impl = triton.jit(triton_add.fn), run_triton
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    first, second = first_and_second_call(impl, kernel)
    print(json.dumps({"first_call_ms": first, "second_call_ms": second,
                      "setup_ms": (time.perf_counter() - t_import) * 1e3 - first - second}))


def cold_and_warm(which):
    """Two new processes sharing one empty disk cache (TILEC_CACHE_DIR or
    TRITON_CACHE_DIR): the first compiles (cold), the second finds the
    first's entry (warm). The driver's own PTX cache is off in both."""
    env = dict(os.environ)
    runs = {}
    with tempfile.TemporaryDirectory() as cache:
        env["TRITON_CACHE_DIR"] = cache
        env["TILEC_CACHE_DIR"] = cache
        env["CUDA_CACHE_DISABLE"] = "1"
        for label in ("cold_process", "warm_process"):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, __file__, "--cold-child", which],
                               env=env, capture_output=True, text=True)
            wall = (time.perf_counter() - t0) * 1e3
            if r.returncode != 0:
                print(f"{label} compile of {which} failed:\n{r.stderr[-3000:]}", flush=True)
                runs[label] = {"error": r.stderr[-3000:]}
                continue
            data = json.loads(r.stdout.strip().splitlines()[-1])
            data["process_wall_ms"] = wall
            runs[label] = data
    return runs


def compile_times():
    result = {}
    # tilec in this process: a fresh JITFunction of the same function (its
    # in-memory cache is empty; the disk cache may serve it).
    first, second = first_and_second_call(run_tilec, tilec.jit(tilec_vector_add.add.fn))
    compiled = tilec_vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16", BLOCK=BLOCK)
    result["tilec"] = {"in_process_first_call_ms": first, "in_process_second_call_ms": second,
                       "source_to_ptx_ms": compiled.compile_ms, **cold_and_warm("tilec")}
    if triton is not None:
        result["triton"] = cold_and_warm("triton")
    for name, r in result.items():
        for label in ("cold_process", "warm_process"):
            c = r[label]
            if "error" not in c:
                print(f"compile {name}: {label} first call {c['first_call_ms']:.2f} ms, "
                      f"second call {c['second_call_ms']:.3f} ms", flush=True)
    return result


def git_commit():
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                       text=True, stderr=subprocess.DEVNULL).strip()
    except Exception:
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--quick", action="store_true", help="n = 2^12, 2^20, 2^28 only")
    ap.add_argument("--cold-child", choices=["tilec", "triton"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cold_child:
        cold_child(args.cold_child)
        return
    commit = args.commit or os.environ.get("TILEC_COMMIT") or git_commit()
    sizes = [1 << k for k in ((12, 20, 28) if args.quick else range(12, 29, 2))]
    gpu = torch.cuda.get_device_name()
    print(f"GPU: {gpu}; torch {torch.__version__}; "
          f"triton {triton.__version__ if triton else 'not installed'}; commit {commit}", flush=True)

    rows = bandwidth(sizes)
    overhead = launch_overhead()
    compiles = compile_times()

    results = {
        "benchmark": "vector_add", "dtype": "fp32", "block": BLOCK, "num_warps": 4,
        "commit": commit, "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "gpu": gpu, "torch": torch.__version__,
        "triton": triton.__version__ if triton else None,
        "timer": "triton.testing.do_bench median" if triton else "CUDA events median",
        "bandwidth": rows, "launch_overhead_us": overhead, "compile": compiles,
    }
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"vector_add-{datetime.date.today().isoformat()}.json"
    path.write_text(json.dumps(results, indent=2) + "\n")

    names = list(IMPLS)
    print("\n| n | " + " | ".join(f"{k} GB/s | {k} us" for k in names) + " | tilec/torch |"
          + (" tilec/Triton |" if "triton" in names else ""))
    print("|---" * (1 + 2 * len(names) + 1 + ("triton" in names)) + "|")
    for r in rows:
        cells = " | ".join(f"{r[k]['GB/s']:.1f} | {r[k]['us']:.2f}" for k in names)
        line = f"| 2^{r['log2n']} | {cells} | {r['tilec']['GB/s'] / r['torch']['GB/s']:.2f} |"
        if "triton" in names:
            line += f" {r['tilec']['GB/s'] / r['triton']['GB/s']:.2f} |"
        print(line)
    print("\n| launch overhead | " + " | ".join(names) + " |")
    print("|---" * (1 + len(names)) + "|")
    print("| us per launch | " + " | ".join(f"{overhead[k]['us_per_launch']:.2f}" for k in names) + " |")
    print(f"\ntilec CompiledKernel[grid] launch: "
          f"{overhead['tilec_compiled_kernel']['us_per_launch']:.2f} us")
    print("\n| compile | first call (ms) | second call (ms) |")
    print("|---|---|---|")
    for name, r in compiles.items():
        for label, words in (("cold_process", "cold (new process, empty cache)"),
                             ("warm_process", "warm (new process, disk cache hit)")):
            c = r[label]
            if "error" not in c:
                print(f"| {name} {words} | {c['first_call_ms']:.2f} | {c['second_call_ms']:.3f} |")
        if "in_process_first_call_ms" in r:
            print(f"| {name} fresh JITFunction, same process | {r['in_process_first_call_ms']:.1f} | "
                  f"{r['in_process_second_call_ms']:.3f} |")
    print(f"\nresults: {path}")


if __name__ == "__main__":
    main()
