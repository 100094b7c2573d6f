"""Sweep the decode kernels' configs on the GPU (issue 15): for the
gate/up, down and QKV kernels at batch 1 (and the gate/up one at batch
16), every PAIRS/ROWS x BLOCK_K x num_warps x way of keeping loads in
flight (none, PREFETCH's register double buffer, or tl.range stages
through cp.async rings) of one or sixteen batch rows per program; for
attention_split at L = 1024, 8192 and 32768, every SPLIT x BLOCK_L x
stages (and the combine's BLOCK_S); and the streaming kernels' configs (gate_up_swiglu_flat,
gemv_residual_flat: outputs per block x BLOCK_K x stages x warps x
programs). Inputs rotated past the L2, each config checked
against float64 first, then timed back to back in a CUDA graph
(common.replayed: no 256 MB zero_() before each call, whose dirty lines
the kernel would write back in its own time). Prints the best configs per
kernel, and writes bench/results/decode-sweep-DATE.json.

    python3 bench/decode_sweep.py [--commit SHA] [--out DIR] [--quick | --mma]

--mma sweeps only the tensor-core tiling (BLOCK_B = 16, deterministic
mode's at every batch) of the three GEMVs, at batch 1 and 16.
"""
import dataclasses
import itertools
import math
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
import common  # noqa: E402
import decode_reference as ref  # noqa: E402
import decode_step as ds  # noqa: E402
from common import kv_rotation, qkv_buffers, randn, replayed, rotation  # noqa: E402

CFG = ds.Config()
#: How a GEMV keeps its loads in flight: not at all, a register double
#: buffer (PREFETCH), or a loop of that many stages (cp.async rings).
PIPELINES = [dict(PREFETCH=False), dict(PREFETCH=True), dict(STAGES=2), dict(STAGES=3),
             dict(STAGES=4)]


def f64(t):
    return t.double().cpu().numpy()


#: Timing of the records this script writes.
TIMING = ("ms per call of 2 rounds of the rotated copies captured back to back in "
          "one CUDA graph, median of 5 rounds of 20 replays (common.replayed); "
          "spread = (max - min) / median")


def sweep(name, launch, check, nbytes, configs, copies):
    """Each config of `configs` launched (launch(cfg, first=True) on the
    first copy of the inputs, then checked), then timed over 2 * copies
    calls that rotate the inputs."""
    rows = []
    for cfg in configs:
        try:
            launch(cfg, first=True)
            torch.cuda.synchronize()
            ok = check()
        except Exception as e:  # a config the compiler refuses
            print(f"  {name} {cfg}: {str(e).splitlines()[0][:120]}", flush=True)
            continue
        if not ok:
            print(f"  {name} {cfg}: WRONG", flush=True)
            continue
        ms, spread = replayed(lambda: launch(cfg), 2 * copies)
        rows.append({"kernel": name, "config": cfg, "us": ms * 1e3,
                     "GB/s": nbytes / (ms * 1e-3) / 1e9, "spread": spread})
    rows.sort(key=lambda r: r["us"])
    for r in rows[:5]:
        print(f"{name:>12} {r['us']:7.1f} us {r['GB/s']:6.0f} GB/s  {r['config']}", flush=True)
    return rows


def close(got, want, tol=ref.TOL):
    try:
        ref.assert_close(f64(got), want, tol)
        return True
    except AssertionError:
        return False


def attention_sweep(k, lengths, quick):
    """attention_split + attention_combine at batch 1 for each SPLIT x
    BLOCK_L x stages (0: range(); else tl.range's num_stages)."""
    rows = []
    for length in lengths:
        kv_bytes = 2 * CFG.kv_heads * length * CFG.head_dim * 2
        nxt = kv_rotation(CFG, length)
        kc0, vc0 = nxt.copies[0]
        q = randn(1, CFG.q_size, seed=14)
        pos = torch.tensor([length - 1], dtype=torch.int32, device="cuda")
        out = torch.empty_like(q)
        want = ref.attention(CFG, f64(q).reshape(1, CFG.q_heads, -1), f64(kc0), f64(vc0),
                             pos.cpu().numpy())
        splits = [128, 256] if quick else [64, 128, 256, 512]
        configs = [dict(SPLIT=s, BLOCK_L=bl, STAGES=st)
                   for s, bl, st in itertools.product(splits, (32, 64), (0, 2, 3, 4))
                   if bl <= s]
        # The combine's BLOCK_S: 64 shipped, 16 before (more iterations
        # over many splits).
        configs += [dict(SPLIT=s, BLOCK_L=64, STAGES=2, block_s=16) for s in splits]
        parts = {}

        def launch(cfg, first=False):
            n = ds.splits_for(length, cfg["SPLIT"])
            if n not in parts:
                parts[n] = (torch.empty(1, CFG.q_heads, n, CFG.head_dim, device="cuda"),
                            torch.empty(1, CFG.q_heads, n, device="cuda"))
            kc, vc = (kc0, vc0) if first else nxt()
            ds.attention(k, CFG, 1, length, q, kc, vc, pos, *parts[n], out,
                         split=cfg["SPLIT"], block_l=cfg["BLOCK_L"], stages=cfg["STAGES"],
                         block_s=cfg.get("block_s", ds.BLOCK_S))
        rows += sweep(f"attention L={length}", launch,
                      lambda: close(out, want, 3 * ref.TOL),
                      kv_bytes, configs, len(nxt.copies))
    return rows


#: The streaming kernels' sweep: blocks of outputs x BLOCK_K x stages x
#: warps x about how many programs (grids of one, two or three per SM).
FLAT = dict(block_k=(256, 512), stages=(2, 3, 4), warps=(4, 8), programs=(132, 264, 396))


def flat_configs(sizes, block_ks=FLAT["block_k"]):
    return [dict(zip(("size", "block_k", "stages", "warps", "programs"), c))
            for c in itertools.product(sizes, block_ks, FLAT["stages"], FLAT["warps"],
                                       FLAT["programs"])]


def flat_sweep(k, x, gamma, w_gu, gu, h, want):
    """gate_up_swiglu_flat at batch 1."""
    def launch(cfg, first=False):
        c = dict(cfg)
        ds.gate_up_flat(k, CFG, x, gamma, w_gu if first else gu(), h, pairs=c.pop("size"), **c)
    return sweep("gate_up flat B=1", launch, lambda: close(h, want),
                 2 * CFG.intermediate * CFG.hidden * 2, flat_configs((4, 8, 16)),
                 len(gu.copies))


#: The tensor-core tiling's sweep (BLOCK_B = 16, what deterministic mode
#: runs at every batch): output rows (pairs for gate/up and QKV) x BLOCK_K
#: x 3 stages x accumulator chains x K slices, 4 warps, each GEMV at
#: batch 1 and 16. (tl.dot's N, the output rows, is at least 16.) QKV and
#: the projections also by programs sharing each tile's K. (Four stages
#: were never the fastest, or within 1% of it, in the sweep of 3dea153;
#: the sizes, stages and shares left are those MMA_TILES ships and their
#: nearest neighbours.)
MMA = dict(gate_up=((32,), (64, 128)), down=((16,), (256, 512)), qkv=((16,), (64, 128)),
           stages=(3,), qkv_ksplit=(2, 4), ksplit=(1, 2), chains=(1, 2), slices=(1, 4))


def mma_scratch(batch):
    """Partials and zeroed counters, enough for any MMA config here."""
    return (torch.empty(1 << 22, dtype=torch.float32, device="cuda"),
            torch.zeros(1 << 14, dtype=torch.int32, device="cuda"))


def mma_sweep(k, w_gu, w_down, w_qkv, gamma, bias, gu, down, qkv):
    """gate/up, down and QKV in MMA_TILES' kernels at every MMA config."""
    rows = []
    for batch in (1, 16):
        shared = mma_scratch(batch)
        x = randn(batch, CFG.hidden, seed=5)
        h = torch.empty(batch, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
        want_h = ref.swiglu(CFG, f64(x), f64(gamma), f64(w_gu))

        def launch_gu(cfg, first=False, x=x, h=h, batch=batch):
            t = dataclasses.replace(ds.MMA_TILES, gate_up_pairs=cfg["size"],
                                    gate_up_block_k=cfg["block_k"],
                                    gate_up_stages=cfg["stages"], gate_up_chains=cfg["chains"],
                                    gate_up_slices=cfg["slices"])
            ds.gate_up(k, CFG, batch, x, gamma, w_gu if first else gu(), h, tiles=t)
        sizes, block_ks = MMA["gate_up"]
        configs = [dict(size=p, block_k=b, stages=st, chains=ch, slices=sl)
                   for p, b, st, ch, sl in itertools.product(sizes, block_ks, MMA["stages"],
                                                             MMA["chains"], MMA["slices"])]
        rows += sweep(f"gate_up mma B={batch}", launch_gu, lambda: close(h, want_h),
                      2 * CFG.intermediate * CFG.hidden * 2, configs, len(gu.copies))

        hx = randn(batch, CFG.intermediate, seed=6)
        res = randn(batch, CFG.hidden, seed=7)
        out = torch.empty_like(res)
        want_down = f64(hx) @ f64(w_down).T + f64(res)

        def launch_down(cfg, first=False, hx=hx, res=res, out=out, batch=batch,
                        shared=shared):
            t = dataclasses.replace(ds.MMA_TILES, rows=cfg["size"], block_k=cfg["block_k"],
                                    stages=cfg["stages"], ksplit=cfg["ksplit"],
                                    chains=cfg["chains"], slices=cfg["slices"])
            ds.projection(k, batch, CFG.intermediate, CFG.hidden, hx,
                          w_down if first else down(), res, out, tiles=t, scratch=shared)
        sizes, block_ks = MMA["down"]
        configs = [dict(size=r, block_k=b, stages=st, ksplit=ks, chains=ch, slices=sl)
                   for r, b, st, ks, ch, sl in itertools.product(
                       sizes, block_ks, MMA["stages"], MMA["ksplit"], MMA["chains"],
                       MMA["slices"])]
        rows += sweep(f"down mma B={batch}", launch_down, lambda: close(out, want_down),
                      CFG.intermediate * CFG.hidden * 2, configs, len(down.copies))

        max_len = 256
        kc = torch.zeros(batch, CFG.kv_heads, max_len, CFG.head_dim, dtype=torch.bfloat16,
                         device="cuda")
        vc = torch.zeros_like(kc)
        pos = torch.arange(batch, dtype=torch.int32, device="cuda") + 7
        q = torch.empty(batch, CFG.q_size, dtype=torch.bfloat16, device="cuda")
        q_ref, _, _ = ref.qkv_rope(CFG, f64(x), f64(gamma), f64(w_qkv), f64(bias),
                                   pos.cpu().numpy())

        def launch_qkv(cfg, first=False, x=x, kc=kc, vc=vc, pos=pos, q=q, batch=batch,
                       shared=shared):
            t = dataclasses.replace(ds.MMA_TILES, qkv_pairs=cfg["size"],
                                    qkv_block_k=cfg["block_k"], qkv_stages=cfg["stages"],
                                    qkv_ksplit=cfg["ksplit"], qkv_chains=cfg["chains"],
                                    qkv_slices=cfg["slices"])
            ds.qkv_rope(k, CFG, batch, max_len, x, gamma, w_qkv if first else qkv(), bias,
                        pos, q, kc, vc, tiles=t, scratch=shared)
        sizes, block_ks = MMA["qkv"]
        configs = [dict(size=p, block_k=b, stages=st, ksplit=ks, chains=ch, slices=sl)
                   for p, b, st, ks, ch, sl in itertools.product(
                       sizes, block_ks, MMA["stages"], MMA["qkv_ksplit"], MMA["chains"],
                       MMA["slices"])]
        rows += sweep(f"qkv mma B={batch}", launch_qkv,
                      lambda: close(q, q_ref.reshape(batch, -1)),
                      CFG.qkv_rows * CFG.hidden * 2, configs, len(qkv.copies))
    return rows


def main():
    mma_only = "--mma" in sys.argv
    if mma_only:
        sys.argv.remove("--mma")
    args = common.parse_args()
    k = ds.Kernels()
    w_gu = randn(2 * CFG.intermediate, CFG.hidden, scale=CFG.hidden ** -0.5, seed=1)
    w_down = randn(CFG.hidden, CFG.intermediate, scale=CFG.intermediate ** -0.5, seed=2)
    w_qkv = randn(CFG.qkv_rows, CFG.hidden, scale=CFG.hidden ** -0.5, seed=3)
    gamma = (1 + 0.1 * torch.randn(CFG.hidden, device="cuda")).to(torch.bfloat16)
    bias = randn(CFG.qkv_rows, scale=0.1, seed=4)
    gu, down, qkv = (rotation(w, w.numel() * 2) for w in (w_gu, w_down, w_qkv))
    if mma_only:
        rows = mma_sweep(k, w_gu, w_down, w_qkv, gamma, bias, gu, down, qkv)
        path = common.write_record("decode-sweep-mma", args.commit, rows, args.out,
                                   timing=TIMING)
        print(f"wrote {path}")
        return
    quick = args.quick
    warps = [4] if quick else [2, 4, 8]
    rows = []
    for batch in ([1] if quick else [1, 16]):
        x = randn(batch, CFG.hidden, seed=5)
        h = torch.empty(batch, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
        want = ref.swiglu(CFG, f64(x), f64(gamma), f64(w_gu))
        shapes = ([(1, p, b) for p in (4, 8, 16) for b in (256, 512)] if batch == 1 else
                  [(16, p, b) for p in (16, 32) for b in (64, 128, 256)])
        configs = [dict(BLOCK_B=bb, PAIRS=p, BLOCK_K=b, num_warps=w, **pipe)
                   for (bb, p, b), w, pipe in itertools.product(shapes, warps, PIPELINES)]

        def launch_gu(cfg, first=False, x=x, h=h, batch=batch):
            c = dict(cfg)
            w = c.pop("num_warps")
            grid = (math.ceil(batch / c["BLOCK_B"]), math.ceil(CFG.intermediate / c["PAIRS"]))
            k.gate_up_swiglu[grid](x, gamma, w_gu if first else gu(), h, batch, CFG.hidden,
                                   CFG.intermediate, CFG.hidden, CFG.intermediate, CFG.eps,
                                   NORM=True, num_warps=w, **c)
        rows += sweep(f"gate_up B={batch}", launch_gu, lambda: close(h, want),
                      2 * CFG.intermediate * CFG.hidden * 2, configs, len(gu.copies))
        if batch == 1:
            rows += flat_sweep(k, x, gamma, w_gu, gu, h, want)
    # down projection, batch 1
    x = randn(1, CFG.intermediate, seed=6)
    res = randn(1, CFG.hidden, seed=7)
    out = torch.empty_like(res)
    want = f64(x) @ f64(w_down).T + f64(res)
    configs = [dict(BLOCK_B=1, ROWS=r, BLOCK_K=b, num_warps=w, **pipe)
               for r, b, w, pipe in itertools.product((4, 8, 16), (256, 512, 1024), warps,
                                                       PIPELINES)]

    def launch_down(cfg, first=False):
        c = dict(cfg)
        w = c.pop("num_warps")
        grid = (1, math.ceil(CFG.hidden / c["ROWS"]))
        k.gemv_residual[grid](x, w_down if first else down(), res, out, 1, CFG.intermediate,
                              CFG.hidden, CFG.intermediate, CFG.hidden, CFG.hidden,
                              x, x, num_warps=w, **c)
    rows += sweep("down B=1", launch_down, lambda: close(out, want),
                  CFG.intermediate * CFG.hidden * 2, configs, len(down.copies))

    def launch_down_flat(cfg, first=False):
        c = dict(cfg)
        ds.projection_flat(k, CFG.intermediate, CFG.hidden, x, w_down if first else down(),
                           res, out, rows=c.pop("size"), **c)
    rows += sweep("down flat B=1", launch_down_flat, lambda: close(out, want),
                  CFG.intermediate * CFG.hidden * 2, flat_configs((2, 4, 8), (512, 1024)),
                  len(down.copies))
    # QKV + RoPE, batch 1
    x = randn(1, CFG.hidden, seed=8)
    max_len = 4096
    kc, vc, pos, q = qkv_buffers(CFG, max_len)
    q_ref, _, _ = ref.qkv_rope(CFG, f64(x), f64(gamma), f64(w_qkv), f64(bias), pos.cpu().numpy())
    configs = [dict(BLOCK_B=1, PAIRS=p, BLOCK_K=b, num_warps=w, **pipe)
               for p, b, w, pipe in itertools.product((4, 8, 16), (256, 512), warps,
                                                       PIPELINES)]

    def launch_qkv(cfg, first=False):
        c = dict(cfg)
        w = c.pop("num_warps")
        d = CFG.head_dim
        grid = (1, CFG.qkv_rows // 2 // c["PAIRS"])
        k.rmsnorm_qkv_rope[grid](x, gamma, w_qkv if first else qkv(), bias, pos, q, kc, vc, 1,
                                 CFG.hidden, CFG.hidden, CFG.q_size,
                                 CFG.kv_heads * max_len * d, max_len * d, d, CFG.eps, x, x,
                                 HQ=CFG.q_heads, HKV=CFG.kv_heads, D=d,
                                 LOG2_THETA=math.log2(CFG.rope_theta), HAS_BIAS=True,
                                 num_warps=w, **c)
    rows += sweep("qkv B=1", launch_qkv, lambda: close(q, q_ref.reshape(1, -1)),
                  CFG.qkv_rows * CFG.hidden * 2, configs, len(qkv.copies))
    rows += attention_sweep(k, [1024, 32768] if quick else [1024, 8192, 32768], quick)
    path = common.write_record("decode-sweep-quick" if quick else "decode-sweep", args.commit,
                               rows, args.out, timing=TIMING)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
