"""How the way of timing moves the numbers of read-bound kernels (issue 15).

triton.testing.do_bench clears the L2 before every timed call by zeroing a
256 MB buffer. The L2 is left full of the buffer's dirty lines, and the
timed kernel, reading weights the L2 does not hold, evicts them: the DRAM
then also takes the write-back of up to an L2's worth of zeros inside the
kernel's time. This script times the same kernels four ways, on the same
inputs (each checked against float64 first):

- "do_bench": do_bench, inputs rotated across copies past the L2 (what
  bench/decode.py does);
- "zero flush": the same loop written out here (a 256 MB zero_(), then
  events around one call), to show it is the flush and not do_bench;
- "read flush": that loop with the L2 cleared by reading 256 MB instead
  (a sum: the L2 left full of clean lines, which need no write-back);
- "graph": the calls back to back in one CUDA graph, each on the next
  copy of its inputs (the copies together larger than the L2, so every
  call reads from DRAM), the time of a replay divided by its calls: what a
  kernel costs inside a decode step, where no one has just written 256 MB.

Cases: torch's 256 MB copy, a 55 MB read (torch.sum, fp32 result), and the
gate+up, down and QKV GEMVs of bench/decode.py (torch's F.linear and
tilec's shipped kernels). Writes bench/results/timing-method-DATE.json.

    python3 bench/timing_method.py [--commit SHA] [--out DIR]
    ncu --cache-control none ... python3 bench/timing_method.py --ncu

--ncu times nothing: it runs the gate+up GEMVs (torch's, tilec's) three
times after each kind of flush, for Nsight Compute to count the DRAM bytes
each kernel reads and writes (its own cache control off, so that the
flush's state reaches the kernel).
"""
import pathlib
import statistics
import sys

import torch
import torch.nn.functional as F
import triton

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
import common  # noqa: E402
import decode_reference as ref  # noqa: E402
import decode_step as ds  # noqa: E402
from common import qkv_buffers, randn  # noqa: E402

CFG = ds.Config()
FLUSH_BYTES = 256 << 20
#: L2 past which copies of an input are rotated (4x the H200's 60 MB).
ROTATE_BYTES = 240 << 20


def copies_of(t):
    """t and clones of it, together more than ROTATE_BYTES."""
    n = max(2, -(-ROTATE_BYTES // (t.numel() * t.element_size())))
    return [t] + [t.clone() for _ in range(n - 1)]


def events_loop(fn, flush, reps=100):
    """Median ms of fn, each call after flush(), between events."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for _ in range(5):
        flush()
        fn(0)
    for i in range(reps):
        flush()
        starts[i].record()
        fn(i)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def measure(case, nbytes, impls, rows):
    """impls: {name: (fn(i), n_copies)}; fn(i) runs on copy i % n_copies."""
    zeros = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    reads = torch.ones(FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")
    sink = torch.empty((), dtype=torch.float32, device="cuda")
    entry = {"case": case, "bytes": nbytes}
    for name, (fn, n) in impls.items():
        state = {"i": 0}

        def rotated():
            state["i"] += 1
            fn(state["i"])
        t = {"do_bench": triton.testing.do_bench(rotated, warmup=25, rep=100,
                                                 return_mode="median"),
             "zero flush": events_loop(fn, zeros.zero_),
             "read flush": events_loop(fn, lambda: torch.sum(reads, dim=0, out=sink))}
        for i in range(2 * n):  # compile and warm outside the capture
            fn(i)
        t["graph"], spread = common.replayed(rotated, 2 * n)
        entry[name] = {way: {"us": ms * 1e3, "GB/s": nbytes / (ms * 1e-3) / 1e9}
                       for way, ms in t.items()}
        entry[name]["graph"]["spread"] = spread
        print(f"{case:>34} {name:>12}: " + "  ".join(
            f"{way} {ms * 1e3:6.1f} us {nbytes / (ms * 1e-3) / 1e9:5.0f} GB/s"
            for way, ms in t.items()), flush=True)
    rows.append(entry)


def check(name, got, want):
    ref.assert_close(got.double().cpu().numpy(), want, ref.TOL)
    print(f"  {name}: matches float64", flush=True)


def ncu_calls():
    k = ds.Kernels()
    w = randn(2 * CFG.intermediate, CFG.hidden, scale=CFG.hidden ** -0.5, seed=1)
    gamma = torch.ones(CFG.hidden, dtype=torch.bfloat16, device="cuda")
    x = randn(1, CFG.hidden, seed=5)
    h = torch.empty(1, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
    zeros = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    reads = torch.ones(FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")
    sink = torch.empty((), dtype=torch.float32, device="cuda")
    calls = [lambda: F.linear(x, w),
             lambda: ds.gate_up(k, CFG, 1, x, gamma, w, h, tiles=ds.ROW_TILES)]
    for flush in (zeros.zero_, lambda: torch.sum(reads, dim=0, out=sink)):
        for _ in range(3):
            for call in calls:
                flush()
                call()
    torch.cuda.synchronize()


def main():
    if "--ncu" in sys.argv:
        return ncu_calls()
    args = common.parse_args()
    k = ds.Kernels()
    rows = []
    src = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    measure("copy 256 MB (read + write)", 2 * src.numel(),
            {"torch": (lambda i: dst.copy_(src), 1)}, rows)

    w_gu = randn(2 * CFG.intermediate, CFG.hidden, scale=CFG.hidden ** -0.5, seed=1)
    w_down = randn(CFG.hidden, CFG.intermediate, scale=CFG.intermediate ** -0.5, seed=2)
    w_qkv = randn(CFG.qkv_rows, CFG.hidden, scale=CFG.hidden ** -0.5, seed=3)
    gamma = (1 + 0.1 * torch.randn(CFG.hidden, device="cuda")).to(torch.bfloat16)
    bias = randn(CFG.qkv_rows, scale=0.1, seed=4)
    gu, down, qkv = copies_of(w_gu), copies_of(w_down), copies_of(w_qkv)
    total = torch.empty((), dtype=torch.float32, device="cuda")
    measure("read 55 MB (torch.sum)", w_gu.numel() * 2,
            {"torch": (lambda i: torch.sum(gu[i % len(gu)], dim=(0, 1), dtype=torch.float32,
                                          out=total),
                       len(gu))}, rows)

    tiles = ds.ROW_TILES
    x = randn(1, CFG.hidden, seed=5)
    h = torch.empty(1, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
    ds.gate_up(k, CFG, 1, x, gamma, w_gu, h, tiles=tiles)
    check("gate+up", h, ref.swiglu(CFG, x.double().cpu().numpy(),
                                   gamma.double().cpu().numpy(), w_gu.double().cpu().numpy()))
    measure("gate+up GEMV", w_gu.numel() * 2, {
        "torch": (lambda i: F.linear(x, gu[i % len(gu)]), len(gu)),
        "tilec rows": (lambda i: ds.gate_up(k, CFG, 1, x, gamma, gu[i % len(gu)], h,
                                            tiles=tiles), len(gu))}, rows)

    hx = randn(1, CFG.intermediate, seed=6)
    res = randn(1, CFG.hidden, seed=7)
    out = torch.empty_like(res)
    ds.projection(k, 1, CFG.intermediate, CFG.hidden, hx, w_down, res, out, tiles=tiles)
    check("down", out, hx.double().cpu().numpy() @ w_down.double().cpu().numpy().T
          + res.double().cpu().numpy())
    measure("down GEMV", w_down.numel() * 2, {
        "torch": (lambda i: F.linear(hx, down[i % len(down)]), len(down)),
        "tilec rows": (lambda i: ds.projection(k, 1, CFG.intermediate, CFG.hidden, hx,
                                               down[i % len(down)], res, out, tiles=tiles),
                       len(down))}, rows)

    max_len = 4096
    kc, vc, pos, q = qkv_buffers(CFG, max_len)
    ds.qkv_rope(k, CFG, 1, max_len, x, gamma, w_qkv, bias, pos, q, kc, vc, tiles=tiles)
    q_ref, _, _ = ref.qkv_rope(CFG, x.double().cpu().numpy(), gamma.double().cpu().numpy(),
                               w_qkv.double().cpu().numpy(), bias.double().cpu().numpy(),
                               pos.cpu().numpy())
    check("qkv", q, q_ref.reshape(1, -1))
    measure("QKV GEMV", w_qkv.numel() * 2, {
        "torch": (lambda i: F.linear(x, qkv[i % len(qkv)]), len(qkv)),
        "tilec rows": (lambda i: ds.qkv_rope(k, CFG, 1, max_len, x, gamma, qkv[i % len(qkv)],
                                             bias, pos, q, kc, vc, tiles=tiles), len(qkv))},
            rows)
    path = common.write_record("timing-method", args.commit, rows, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
