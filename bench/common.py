"""What the benchmarks share: their command line (--commit, --out, --quick)
and one timing rule (triton.testing.do_bench's median, warmup 25 ms,
rep 100 ms)."""
import argparse
import datetime
import json
import os
import pathlib
import statistics
import subprocess

import triton

ROOT = pathlib.Path(__file__).resolve().parent.parent


def parse_args(extra=None):
    """--commit (default: the checkout's short hash, or "unknown"), --out
    (default bench/results), --quick, and what `extra(parser)` adds."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--quick", action="store_true")
    if extra:
        extra(ap)
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


def timed(runs):
    """{name: (median ms, spread)} over three interleaved rounds of bench()
    of each of `runs` ({name: fn}); spread = (max - min) / median."""
    rounds = {name: [] for name in runs}
    for _ in range(3):
        for name, fn in runs.items():
            rounds[name].append(bench(fn))
    return {name: (statistics.median(ts), (max(ts) - min(ts)) / statistics.median(ts))
            for name, ts in rounds.items()}


def replayed(fn, calls, replays=20, rounds=5):
    """(ms per call, spread) of fn(): `calls` calls of it captured back to
    back in one CUDA graph (fn rotating its inputs past the L2, so that
    every call reads DRAM), the graph replayed `replays` times per round;
    the median of `rounds` rounds, spread = (max - min) / median. Unlike
    do_bench, nothing flushes the L2 by writing 256 MB before each call,
    whose dirty lines a read-bound kernel would then write back in its own
    time (bench/timing_method.py). fn must not allocate or compile: call
    it once before."""
    import torch
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / (replays * calls))
    median = statistics.median(times)
    return median, (max(times) - min(times)) / median


def randn(*shape, scale=1.0, seed=0, dtype="bfloat16"):
    """Normal values on the GPU (a generator of its own), times `scale`,
    as `dtype` (a torch dtype or its name)."""
    import torch  # the benchmarks' own dependency, not this module's
    g = torch.Generator(device="cuda").manual_seed(seed)
    dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
    return (torch.randn(shape, device="cuda", generator=g) * scale).to(dtype)


def qkv_buffers(cfg, max_len=4096, position=1234):
    """The buffers of one batch-1 QKV step of the decode layer `cfg`
    (kernels/decode_step.Config): zeroed K and V caches of `max_len`
    positions, the position written (int32) and the q output."""
    import torch
    kc = torch.zeros(1, cfg.kv_heads, max_len, cfg.head_dim, dtype=torch.bfloat16,
                     device="cuda")
    pos = torch.tensor([position], dtype=torch.int32, device="cuda")
    q = torch.empty(1, cfg.q_size, dtype=torch.bfloat16, device="cuda")
    return kc, torch.zeros_like(kc), pos, q


def rotation(make, nbytes, total=240 << 20):
    """A function returning, in turn, `make(i)` for enough i that the
    copies (of `nbytes` each) exceed `total` bytes: inputs rotated past the
    L2. `make` may also be a tensor, which is cloned."""
    if not callable(make):
        tensor = make
        make = lambda i: tensor if i == 0 else tensor.clone()  # noqa: E731
    copies = [make(i) for i in range(max(2, -(-total // nbytes)))]
    state = {"i": 0}

    def next_copy():
        state["i"] = (state["i"] + 1) % len(copies)
        return copies[state["i"]]
    next_copy.copies = copies
    return next_copy


def matmul_error(c, ref, k):
    """Largest |c - ref| over sqrt(K): the matmul benchmarks' check."""
    return (c.double() - ref.double()).abs().max().item() / k ** 0.5


def matmul_tolerance(ref, k, dtype=None):
    """The bound matmul_error must stay under: 1e-3, plus, for an output
    of a 16-bit `dtype`, the rounding of the largest |C| to it (one ulp)."""
    import torch  # the benchmarks' own dependency, not this module's
    bound = 1e-3
    if dtype is not None and dtype != torch.float32:
        bound += ref.abs().max().item() * torch.finfo(dtype).eps / k ** 0.5
    return bound


def gelu_tanh(x):
    """GELU in its tanh form, in x's type (the matmul epilogue's reference)."""
    import torch  # the benchmarks' own dependency, not this module's
    return 0.5 * x * (1 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def persistent_programs(a, b, cfg):
    """A persistent matmul's grid for A @ B at `cfg` (BLOCK_M, BLOCK_N
    first): one program per SM, or one per tile where there are fewer, as
    matmul() launches it (kernels/matmul_tuned.py)."""
    import matmul_tuned  # kernels/, on the benchmarks' path
    return matmul_tuned.programs(a, b, cfg)


def best_matmul_config(launch, a, b, ref, candidates, out_dtype=None):
    """The fastest of `candidates` for launch(a, b, c, cfg) into an output
    of ref's shape (of `out_dtype`, ref's by default), among those that
    compile and are right (matmul_error within matmul_tolerance; K is
    a.shape[1]); None when none is."""
    import torch  # the benchmarks' own dependency, not this module's
    found = None
    for cfg in candidates:
        c = torch.full(ref.shape, float("nan"), device=ref.device,
                       dtype=out_dtype or ref.dtype)
        try:
            launch(a, b, c, cfg)
            torch.cuda.synchronize()
        except Exception as e:  # a config a compiler refuses
            print(f"  {cfg}: {str(e).splitlines()[0][:100]}", flush=True)
            continue
        if not matmul_error(c, ref, a.shape[1]) < matmul_tolerance(ref, a.shape[1], c.dtype):
            print(f"  {cfg} wrong", flush=True)
            continue
        t = bench(lambda: launch(a, b, c, cfg))
        if found is None or t < found[0]:
            found = (t, cfg)
    return found[1] if found else None


#: How timed() times, as a record says it.
DO_BENCH_TIMING = ("median of 3 interleaved rounds of triton.testing.do_bench median "
                   "(warmup 25 ms, rep 100 ms); spread = (max - min) / median")


def write_record(benchmark, commit, rows, out, timing=DO_BENCH_TIMING):
    """bench/results-style JSON of one run (`rows` as the benchmark made
    them) at OUT/BENCHMARK-DATE.json; returns the path."""
    import torch  # the benchmarks' own dependency, not this module's
    record = {
        "benchmark": benchmark, "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
        "triton": triton.__version__,
        "timing": timing,
        "rows": rows,
    }
    os.makedirs(out, exist_ok=True)
    path = pathlib.Path(out) / f"{benchmark}-{datetime.date.today().isoformat()}.json"
    path.write_text(json.dumps(record, indent=2))
    return path


def kv_rotation(cfg, length):
    """Batch-1 K and V caches of `length` tokens for the decode layer `cfg`
    (random bf16), as a rotation past the L2 (rotation()); its first pair
    is .copies[0]."""
    kv_bytes = 2 * cfg.kv_heads * length * cfg.head_dim * 2
    return rotation(lambda i: (randn(1, cfg.kv_heads, length, cfg.head_dim, seed=20 + i),
                               randn(1, cfg.kv_heads, length, cfg.head_dim, seed=60 + i)),
                    kv_bytes)
