"""Decode kernels (kernels/decode.py) against PyTorch on the same inputs,
Qwen2.5-1.5B shapes, bf16 (issue 15).

    python3 bench/decode.py [--commit SHA] [--out DIR] [--quick]

The kernel cases rotate every input they read (weights, caches) across
copies totalling more than 240 MB (four times the H200's L2); the layer
steps read the same weights and caches each time and rely on do_bench's
flush of the L2 before every timed call. Either way no figure is an L2
figure. Each case is checked against float64 before it is timed. Cases:

- copy bandwidth (torch, 256 MB): the ceiling the rest are read against;
- gate+up: tilec's fused RMSNorm + GEMV + SwiGLU vs torch's GEMV alone;
- down projection (+ residual in tilec) vs torch's GEMV;
- QKV: tilec's RMSNorm + GEMV + bias + RoPE + cache append vs torch's GEMV;
  each of the three in both tilings at batch 1: one row per program
  (fp32 multiply-adds, "tilec rows") and 16 per program (tensor cores,
  "tilec mma", what deterministic mode runs at every batch), and the
  one-row tiling launched with pdl (tiling_runs: back to back in a graph,
  each call launched before the one before it ends, as a layer's kernels
  are; only the graph figures say anything of that);
- decode attention, batch 1, L = 1024 / 8192 / 32768: tilec's split-KV
  pair vs SDPA with enable_gqa (GB/s of KV read), tilec's split size
  swept as well;
- the decoder layer step, batch 1 at L = 1024 and batch 16 at L = 4096:
  tilec eager and as a CUDA graph vs the same layer in PyTorch eager and
  as a CUDA graph (graphs replayed after do_bench's L2 flush); four
  layers of distinct weights and caches in one graph replayed back to
  back, per layer (what a layer costs inside a model's step); and the
  cost of batch invariance: the deterministic layer (one tiling and a
  fixed split at every batch) against the layer free to pick both per
  batch and length.

Times: median of three interleaved rounds of do_bench medians; the spread
is (max - min) / median. The kernel cases are also timed back to back in
a CUDA graph (the "graph" figures: 2 rounds of the rotated copies per
replay, common.replayed), without do_bench's 256 MB zero_() before each
call: after it the L2 is full of dirty lines, which a read-bound kernel
evicts and so writes back in its own time (bench/timing_method.py
measures that). Results: bench/results/decode-DATE.json.
"""
import os
import dataclasses
import pathlib
import sys

import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
import tilec  # noqa: E402,F401
import common  # noqa: E402  bench/common.py
import decode_step as ds  # noqa: E402  kernels/decode_step.py
import decode_reference as ref  # noqa: E402  tests/python/decode_reference.py
from common import kv_rotation, qkv_buffers, randn, replayed, rotation, timed  # noqa: E402

CFG = ds.Config()


def weights(seed):
    def lin(n_out, n_in, s):
        return randn(n_out, n_in, scale=n_in ** -0.5, seed=seed * 100 + s)
    w = {"input_norm": 1 + 0.1 * randn(CFG.hidden, seed=seed * 100 + 1, dtype="float32"),
         "qkv": lin(CFG.qkv_rows, CFG.hidden, 2),
         "qkv_bias": randn(CFG.qkv_rows, scale=0.1, seed=seed * 100 + 3),
         "o": lin(CFG.hidden, CFG.q_size, 4),
         "post_norm": 1 + 0.1 * randn(CFG.hidden, seed=seed * 100 + 5, dtype="float32"),
         "gate_up": lin(2 * CFG.intermediate, CFG.hidden, 6),
         "down": lin(CFG.hidden, CFG.intermediate, 7)}
    w["input_norm"] = w["input_norm"].to(torch.bfloat16)
    w["post_norm"] = w["post_norm"].to(torch.bfloat16)
    return w


def f64(t):
    return t.double().cpu().numpy()


def close(name, got, want, tol):
    try:
        ref.assert_close(f64(got), want, tol)
        return True
    except AssertionError as e:
        print(f"  {name}: WRONG ({e})", flush=True)
        return False


def row(case, nbytes, times, ok, graph=None, **extra):
    """A record row: each implementation's do_bench `times`, and where
    given its `graph` times (back to back in a CUDA graph, graph_times)."""
    entry = {"case": case, "bytes": nbytes, **extra}
    for impl, (ms, spread) in times.items():
        entry[impl] = {"us": ms * 1e3, "GB/s": nbytes / (ms * 1e-3) / 1e9 if nbytes else None,
                       "spread": spread, "ok": ok.get(impl, True)}
        if graph:
            g_ms, g_spread = graph[impl]
            entry[impl].update({"graph us": g_ms * 1e3,
                                "graph GB/s": nbytes / (g_ms * 1e-3) / 1e9,
                                "graph spread": g_spread})
    print(f"{case:>44}: " + "  ".join(
        f"{impl} {e['us']:8.1f} us" + (f" {e['GB/s']:6.0f} GB/s" if e["GB/s"] else "")
        + (f" (graph {e['graph us']:.1f} us {e['graph GB/s']:.0f} GB/s)" if graph else "")
        + ("" if e["ok"] else " WRONG") for impl, e in entry.items()
        if isinstance(e, dict)), flush=True)
    return entry


def graph_times(runs, copies):
    """{name: (ms, spread)}: each run called 2 * copies times back to back
    in one CUDA graph, its inputs rotating through `copies` copies
    (common.replayed: no zero_() of 256 MB before each call, whose dirty
    lines a read-bound kernel writes back in its own time under do_bench;
    bench/timing_method.py measures that)."""
    return {name: replayed(fn, 2 * copies) for name, fn in runs.items()}


# -- the same layer in PyTorch ------------------------------------------------

def torch_rope_tables(max_len):
    inv = CFG.rope_theta ** (-torch.arange(0, CFG.head_dim, 2, device="cuda",
                                           dtype=torch.float64) / CFG.head_dim)
    ang = torch.arange(max_len, device="cuda", dtype=torch.float64)[:, None] * inv
    return ang.cos().float(), ang.sin().float()


def torch_rms(x, g):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + CFG.eps)).to(x.dtype) * g


def torch_rope(t, cos, sin):
    lo, hi = t.float().chunk(2, dim=-1)
    return torch.cat([lo * cos - hi * sin, hi * cos + lo * sin], -1).to(t.dtype)


def torch_layer(w, x, pos, kc, vc, tables, length):
    """Every row at the same position (pos[0] == length - 1)."""
    b = x.shape[0]
    d, hq, hkv = CFG.head_dim, CFG.q_heads, CFG.kv_heads
    qkv = F.linear(torch_rms(x, w["input_norm"]), w["qkv"], w["qkv_bias"])
    q, k, v = qkv.split([hq * d, hkv * d, hkv * d], dim=-1)
    pos = pos.long()
    cos, sin = tables[0][pos][:, None, :], tables[1][pos][:, None, :]
    q = torch_rope(q.view(b, hq, d), cos, sin)
    k = torch_rope(k.view(b, hkv, d), cos, sin)
    rows = torch.arange(b, device="cuda")
    kc[rows, :, pos] = k
    vc[rows, :, pos] = v.view(b, hkv, d)
    attn = F.scaled_dot_product_attention(q[:, :, None, :], kc[:, :, :length],
                                          vc[:, :, :length], enable_gqa=True)
    mid = F.linear(attn.reshape(b, hq * d), w["o"]) + x
    gu = F.linear(torch_rms(mid, w["post_norm"]), w["gate_up"])
    g, u = gu.chunk(2, dim=-1)
    return F.linear(F.silu(g) * u, w["down"]) + mid


# -- cases ----------------------------------------------------------------------

def copy_bandwidth():
    src = torch.empty(256 << 20, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    times = timed({"torch": lambda: dst.copy_(src)})
    return row("copy 256 MB (read + write)", 2 * src.numel(), times, {})


#: The shipped tilings; the one-row tiling with every GEMV streamed by
#: about 396 programs (the _flat kernels), with one program per block, and
#: without its stages (what the cp.async rings of tl.range's num_stages are
#: worth, in the same run). A variant equal to the shipped one for a kernel
#: times it twice: the run's noise. (The sliced QKV and gate/up tilings of
#: dbf38fd, slower, were timed in decode-2026-12-06-5367574.json.)
TILINGS = {"tilec rows": ds.ROW_TILES, "tilec mma": ds.MMA_TILES,
           "tilec mma, K shared by 4": dataclasses.replace(ds.MMA_TILES, qkv_ksplit=4,
                                                           ksplit=4),
           "tilec rows, streamed": dataclasses.replace(ds.ROW_TILES, gate_up_programs=396,
                                                       programs=396),
           "tilec rows, blocks": dataclasses.replace(ds.ROW_TILES, gate_up_programs=0,
                                                     programs=0),
           "tilec rows, no stages": ds.ROW_TILES.with_stages(0)}


def tiling_runs():
    """(name, tiles, pdl) of each GEMV run: every tiling of TILINGS with
    plain launches, and the shipped one-row tiling launched as
    programmatic dependent launches, each call releasing the next after
    its wait ("pdl") or once its programs have exited ("pdl exit"): back
    to back in a graph, each call is then launched before the call before
    it has ended, as a layer's kernels are under pdl. (do_bench's flush
    between calls leaves nothing to overlap: its figures are plain.)"""
    runs = [(name, tiles, False) for name, tiles in TILINGS.items()]
    return runs + [("tilec rows pdl", ds.ROW_TILES, True),
                   ("tilec rows pdl exit", ds.ROW_TILES, "exit")]


def gemv_cases(k):
    rows = []
    x = randn(1, CFG.hidden, seed=11)
    w0 = weights(0)

    def weight(name):
        """Copies of weight `name` past the L2, in turn."""
        return rotation(w0[name], w0[name].numel() * 2)
    x64 = f64(x)
    w64 = {n: f64(t) for n, t in w0.items()}

    # gate + up (+ RMSNorm, SwiGLU in tilec)
    h = torch.empty(1, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
    gate_up_w = weight("gate_up")
    runs, ok = {}, {}
    for name, tiles, pdl in tiling_runs():
        ds.gate_up(k, CFG, 1, x, w0["post_norm"], w0["gate_up"], h, tiles=tiles, pdl=pdl)
        torch.cuda.synchronize()
        ok[name] = close(name, h, ref.swiglu(CFG, x64, w64["post_norm"], w64["gate_up"]),
                         ref.TOL)

        def tilec_gu(tiles=tiles, pdl=pdl):
            ds.gate_up(k, CFG, 1, x, w0["post_norm"], gate_up_w(), h, tiles=tiles, pdl=pdl)
        runs[name] = tilec_gu
    runs["torch"] = lambda: F.linear(x, gate_up_w())
    nbytes = 2 * CFG.intermediate * CFG.hidden * 2
    rows.append(row("gate+up GEMV (tilec: +RMSNorm+SwiGLU)", nbytes, timed(runs), ok,
                    graph=graph_times(runs, len(gate_up_w.copies))))

    # down + residual
    hx = randn(1, CFG.intermediate, seed=12)
    res = randn(1, CFG.hidden, seed=13)
    out = torch.empty_like(res)
    down_w = weight("down")
    runs, ok = {}, {}
    for name, tiles, pdl in tiling_runs():
        shared = ds.make_scratch(CFG, 1, tiles, empty)
        ds.projection(k, 1, CFG.intermediate, CFG.hidden, hx, w0["down"], res, out,
                      tiles=tiles, scratch=shared, pdl=pdl)
        torch.cuda.synchronize()
        ok[name] = close(name, out, f64(hx) @ w64["down"].T + f64(res), ref.TOL)

        def tilec_down(tiles=tiles, shared=shared, pdl=pdl):
            ds.projection(k, 1, CFG.intermediate, CFG.hidden, hx, down_w(), res, out,
                          tiles=tiles, scratch=shared, pdl=pdl)
        runs[name] = tilec_down
    runs["torch"] = lambda: F.linear(hx, down_w())
    nbytes = CFG.intermediate * CFG.hidden * 2
    rows.append(row("down GEMV (tilec: +residual)", nbytes, timed(runs), ok,
                    graph=graph_times(runs, len(down_w.copies))))

    # QKV (+ RMSNorm, bias, RoPE, cache append in tilec)
    max_len = 4096
    kc, vc, pos, q = qkv_buffers(CFG, max_len)
    q_ref, _, _ = ref.qkv_rope(CFG, x64, w64["input_norm"], w64["qkv"], w64["qkv_bias"],
                               pos.cpu().numpy())
    qkv_w = weight("qkv")
    runs, ok = {}, {}
    for name, tiles, pdl in tiling_runs():
        shared = ds.make_scratch(CFG, 1, tiles, empty)
        ds.qkv_rope(k, CFG, 1, max_len, x, w0["input_norm"], w0["qkv"], w0["qkv_bias"], pos,
                    q, kc, vc, tiles=tiles, scratch=shared, pdl=pdl)
        torch.cuda.synchronize()
        ok[name] = close(name, q, q_ref.reshape(1, -1), ref.TOL)

        def tilec_qkv(tiles=tiles, shared=shared, pdl=pdl):
            ds.qkv_rope(k, CFG, 1, max_len, x, w0["input_norm"], qkv_w(), w0["qkv_bias"],
                        pos, q, kc, vc, tiles=tiles, scratch=shared, pdl=pdl)
        runs[name] = tilec_qkv
    runs["torch"] = lambda: F.linear(x, qkv_w(), w0["qkv_bias"])
    nbytes = CFG.qkv_rows * CFG.hidden * 2
    rows.append(row("QKV GEMV (tilec: +RMSNorm+RoPE+append)", nbytes, timed(runs), ok,
                    graph=graph_times(runs, len(qkv_w.copies))))
    return rows


def attention_cases(k, lengths, splits):
    rows = []
    for length in lengths:
        kv_bytes = 2 * CFG.kv_heads * length * CFG.head_dim * 2
        nxt = kv_rotation(CFG, length)
        caches = nxt.copies
        q = randn(1, CFG.q_size, seed=14)
        pos = torch.tensor([length - 1], dtype=torch.int32, device="cuda")
        out = torch.empty_like(q)
        want = ref.attention(CFG, f64(q).reshape(1, CFG.q_heads, -1), f64(caches[0][0]),
                             f64(caches[0][1]), pos.cpu().numpy())
        runs, ok = {}, {}
        # Each split with the shipped stages, and the fixed split without.
        variants = [(split, ds.ATTENTION_STAGES) for split in splits] + [(ds.SPLIT, 0)]
        for split, stages in variants:
            n = ds.splits_for(length, split)
            o_part = torch.empty(1, CFG.q_heads, n, CFG.head_dim, device="cuda")
            lse = torch.empty(1, CFG.q_heads, n, device="cuda")
            name = "tilec" if split == ds.SPLIT else f"tilec split {split}"
            if stages != ds.ATTENTION_STAGES:
                name += f", {stages} stages"
            ds.attention(k, CFG, 1, length, q, *caches[0], pos, o_part, lse, out, split=split,
                         stages=stages)
            torch.cuda.synchronize()
            ok[name] = close(name, out, want, 3 * ref.TOL)

            def run(split=split, o_part=o_part, lse=lse, stages=stages):
                kc, vc = nxt()
                ds.attention(k, CFG, 1, length, q, kc, vc, pos, o_part, lse, out, split=split,
                             stages=stages)
            runs[name] = run
        q4 = q.view(1, CFG.q_heads, 1, CFG.head_dim)
        sdpa = F.scaled_dot_product_attention(q4, *caches[0], enable_gqa=True)
        ok["torch"] = close("sdpa", sdpa.reshape(1, -1), want, 3 * ref.TOL)
        runs["torch"] = lambda: F.scaled_dot_product_attention(q4, *nxt(), enable_gqa=True)
        rows.append(row(f"decode attention B=1 L={length}", kv_bytes, timed(runs), ok,
                        graph=graph_times(runs, len(caches)), length=length))
    return rows


#: Layers of distinct weights and caches captured in one graph: what a
#: layer costs inside a model's step (the weights of the others pass
#: through the L2 in between, no flush needed).
STACK = 4


def stacked_layers(k, k_free, batch, length, empty, tables):
    """{name: (ms, spread)} of STACK layers in a row (each its own weights
    and caches, the output of one the input of the next) captured in one
    CUDA graph and replayed back to back (common.replayed): tilec
    deterministic and free, and the same layers in PyTorch."""
    layers = []
    for i in range(STACK):
        kc = randn(batch, CFG.kv_heads, length, CFG.head_dim, seed=40 + 2 * i)
        layers.append((weights(i + 1), kc, randn(batch, CFG.kv_heads, length,
                                                 CFG.head_dim, seed=41 + 2 * i)))
    xs = [randn(batch, CFG.hidden, seed=30)] + [torch.empty(batch, CFG.hidden,
                                                            dtype=torch.bfloat16,
                                                            device="cuda")
                                                for _ in range(STACK)]
    pos = torch.full((batch,), length - 1, dtype=torch.int32, device="cuda")
    steps = {}
    for name, kernels, deterministic, tiles, pdl in layer_variants(k, k_free, batch):
        model = [(ds.DecoderLayer(CFG, w, batch, length, empty, kernels=kernels,
                                  deterministic=deterministic, tiles=tiles, pdl=pdl), kc, vc)
                 for w, kc, vc in layers]

        def step(model=model):
            for i, (layer, kc, vc) in enumerate(model):
                layer.step(xs[i], pos, kc, vc, xs[i + 1])
        steps[name] = step

    def torch_step():
        x = xs[0]
        for w, kc, vc in layers:
            x = torch_layer(w, x, pos, kc, vc, tables, length)
    steps["torch"] = torch_step
    times = {}
    for name, step in steps.items():
        step()  # compile, warm
        torch.cuda.synchronize()
        times[name] = replayed(step, 1)
    return times


def empty(shape, dtype):
    """DecoderLayer's buffers: "i32" (split-K counters) zero-filled."""
    if dtype == "i32":
        return torch.zeros(shape, dtype=torch.int32, device="cuda")
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32}
    return torch.empty(shape, dtype=dtypes[dtype], device="cuda")


#: Weight columns per GEMV row asked into the L2 before each kernel's wait
#: in the "l2" layer variants (Tiles.l2_ahead): whole rows of QKV, gate/up
#: and the O projection (K = 1536), a sixth of the down projection's.
L2_AHEAD = int(os.environ.get("TILEC_L2_AHEAD", "1536"))


def layer_variants(k, k_free, batch):
    """(name, kernels, deterministic, tiles, pdl) of each tilec layer timed:
    "tilec", deterministic (one tiling, fixed split at every batch);
    "tilec free", tiling and split picked for the batch and length; both
    again with programmatic dependent launches, each kernel releasing the
    next right after its wait ("pdl") or as its programs exit ("pdl
    exit"), and with the weights asked into the L2 before each kernel's
    wait ("l2", L2_AHEAD), with and without pdl."""
    variants = []
    for pdl, pdl_name in ((False, ""), (True, " pdl"), ("exit", " pdl exit")):
        for l2 in (False, True):
            for name, kernels, deterministic in (("tilec", k, True),
                                                 ("tilec free", k_free, False)):
                tiles = (dataclasses.replace(ds.tiles_for(batch, deterministic),
                                             l2_ahead=L2_AHEAD) if l2 else None)
                variants.append((name + pdl_name + (" l2" if l2 else ""),
                                 kernels, deterministic, tiles, pdl))
    return variants


def layer_cases(k, k_free, shapes):
    rows = []
    w = weights(0)
    w64 = {n: f64(t) for n, t in w.items()}
    for batch, length in shapes:
        x = randn(batch, CFG.hidden, seed=30)
        pos = torch.full((batch,), length - 1, dtype=torch.int32, device="cuda")
        kc = randn(batch, CFG.kv_heads, length, CFG.head_dim, seed=31)
        vc = randn(batch, CFG.kv_heads, length, CFG.head_dim, seed=32)
        want = ref.layer(CFG, w64, f64(x), pos.cpu().numpy(), f64(kc), f64(vc))
        tables = torch_rope_tables(length)
        out = torch.empty_like(x)
        runs, ok = {}, {}
        for name, kernels, deterministic, tiles, pdl in layer_variants(k, k_free, batch):
            layer = ds.DecoderLayer(CFG, w, batch, length, empty, kernels=kernels,
                                    deterministic=deterministic, tiles=tiles, pdl=pdl)
            layer.step(x, pos, kc, vc, out)
            torch.cuda.synchronize()
            ok[name] = close(name, out, want, 4 * ref.TOL)
            ok[name + " graph"] = ok[name]
            runs[name] = lambda layer=layer: layer.step(x, pos, kc, vc, out)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                layer.step(x, pos, kc, vc, out)
            runs[name + " graph"] = graph.replay
        t_out = torch_layer(w, x, pos, kc, vc, tables, length)
        ok["torch"] = ok["torch graph"] = close("torch layer", t_out, want, 4 * ref.TOL)
        runs["torch"] = lambda: torch_layer(w, x, pos, kc, vc, tables, length)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch_layer(w, x, pos, kc, vc, tables, length)
        torch.cuda.current_stream().wait_stream(side)
        tgraph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(tgraph):
            torch_layer(w, x, pos, kc, vc, tables, length)
        runs["torch graph"] = tgraph.replay
        nbytes = sum(t.numel() * 2 for n, t in w.items()) + 2 * kc.numel() * 2
        times = timed(runs)
        cost = times["tilec graph"][0] / times["tilec free graph"][0] - 1
        cost_pdl = times["tilec pdl graph"][0] / times["tilec free pdl graph"][0] - 1
        cost_l2 = times["tilec pdl l2 graph"][0] / times["tilec free pdl l2 graph"][0] - 1
        cost_exit = times["tilec pdl exit graph"][0] / times["tilec free pdl exit graph"][0] - 1
        stacked = stacked_layers(k, k_free, batch, length, empty, tables)
        rows.append(row(f"{STACK} layers B={batch} L={length}, per layer", nbytes,
                        {name: (ms / STACK, spread) for name, (ms, spread) in stacked.items()},
                        {name: ok[name + " graph"] for name in stacked},
                        batch=batch, length=length))
        rows.append(row(f"layer step B={batch} L={length}", nbytes, times, ok,
                        batch=batch, length=length, invariance_cost=cost,
                        invariance_cost_pdl=cost_pdl, invariance_cost_pdl_l2=cost_l2,
                        invariance_cost_pdl_exit=cost_exit,
                        free_split=ds.split_for(batch, length, CFG.kv_heads, False),
                        free_tiles="rows" if ds.tiles_for(batch, False) == ds.ROW_TILES
                        else "mma"))
        print(f"{'':>44}  batch invariance costs {100 * cost:.1f}% (graphs; "
              f"{100 * cost_pdl:.1f}% with pdl, {100 * cost_l2:.1f}% with pdl and l2, "
              f"{100 * cost_exit:.1f}% with pdl exit)",
              flush=True)
    return rows


def main():
    args = common.parse_args(lambda ap: ap.add_argument(
        "--layers-only", action="store_true",
        help="the copy bandwidth and the layer cases, not the kernels one by one"))
    k = ds.Kernels()
    k_free = ds.Kernels(deterministic=False)
    splits = [ds.SPLIT] if args.quick else sorted({64, 128, 256, 512, ds.SPLIT})
    rows = [copy_bandwidth()]
    if not args.layers_only:
        rows += gemv_cases(k)
        rows += attention_cases(k, [1024] if args.quick else [1024, 8192, 32768], splits)
    rows += layer_cases(k, k_free, [(1, 1024)] if args.quick else [(1, 1024), (16, 4096)])
    path = common.write_record("decode", args.commit, rows, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
