"""The decode kernels on the GPU at Qwen2.5-1.5B's shapes (issue 15):
each kernel and the decoder layer against float64 (the tolerances of
test_decode.py, in units of bf16's rounding), every output row bitwise
the same computed alone as inside a batch of 64, and the layer captured
in a CUDA graph (torch.cuda.graph) replaying bitwise what eager launches
compute, for tokens at new positions."""
import dataclasses

import numpy as np
import pytest

import decode_reference as ref
import decode_step
from decode_reference import assert_close

pytestmark = pytest.mark.gpu

CFG = decode_step.Config()
TOL = ref.TOL
#: The tensor-core tiling with each tile's K shared by 4 programs.
SHARED_K = dataclasses.replace(decode_step.MMA_TILES, qkv_ksplit=4, ksplit=4)
#: Deeper rings than shipped: gate/up 4 stages, the projections 5.
DEEP = dataclasses.replace(decode_step.MMA_TILES, gate_up_stages=4, stages=5)
#: Two accumulator chains in every tensor-core GEMV, the projections' K
#: shared by 2.
CHAINED = dataclasses.replace(decode_step.MMA_TILES, qkv_chains=2, qkv_block_k=64,
                              gate_up_chains=2, gate_up_block_k=64, chains=2, block_k=256,
                              ksplit=2)
#: Every tensor-core GEMV's K blocks cut into 4 slices, a warp each.
SLICED = dataclasses.replace(decode_step.MMA_TILES, qkv_slices=4, gate_up_slices=4, slices=4)
TILINGS = pytest.mark.parametrize(
    "tiles", [decode_step.ROW_TILES, decode_step.MMA_TILES, SHARED_K, DEEP, CHAINED, SLICED],
    ids=["rows", "mma", "mma-shared-k", "mma-deep", "mma-chains", "mma-sliced"])


def bf16(torch, values):
    return torch.from_numpy(np.asarray(values, np.float32)).to("cuda", torch.bfloat16)


def f64(t):
    return t.double().cpu().numpy()


@pytest.fixture(scope="module")
def setup(torch_cuda):
    """Qwen2.5-1.5B weights (bf16, on the GPU) and their float64 values."""
    torch = torch_cuda
    rng = np.random.default_rng(0)
    w = ref.random_weights(rng, CFG)
    gpu = {n: bf16(torch, a.value) for n, a in w.items()}
    return torch, gpu, {n: a.value for n, a in w.items()}


def caches(torch, batch, max_len, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    return (torch.randn(shape, device="cuda", generator=g).to(torch.bfloat16),
            torch.randn(shape, device="cuda", generator=g).to(torch.bfloat16))


def empty_like_layer(torch):
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32, "i32": torch.int32}

    def empty(shape, dtype):
        if dtype == "i32":  # split-K counters: zero-filled
            return torch.zeros(shape, dtype=torch.int32, device="cuda")
        return torch.empty(shape, dtype=dtypes[dtype], device="cuda")
    return empty


def scratch(torch, batch, tiles):
    """The K-shared GEMVs' partials and counters for `batch` rows."""
    return decode_step.make_scratch(CFG, batch, tiles, empty_like_layer(torch))


@TILINGS
def test_qkv_rope(setup, tiles):
    torch, w, w64 = setup
    batch, max_len = 5, 32768
    k = decode_step.Kernels()
    x = bf16(torch, np.random.default_rng(1).standard_normal((batch, CFG.hidden)))
    pos = torch.tensor([0, 1, 1000, 30000, 32767], dtype=torch.int32, device="cuda")
    q = torch.empty((batch, CFG.q_size), dtype=torch.bfloat16, device="cuda")
    kc, vc = caches(torch, batch, max_len, 2)
    decode_step.qkv_rope(k, CFG, batch, max_len, x, w["input_norm"], w["qkv"],
                         w["qkv_bias"], pos, q, kc, vc, tiles=tiles,
                         scratch=scratch(torch, batch, tiles))
    torch.cuda.synchronize()
    p = pos.cpu().numpy()
    q_ref, k_ref, v_ref = ref.qkv_rope(CFG, f64(x), w64["input_norm"], w64["qkv"],
                                       w64["qkv_bias"], p)
    assert_close(f64(q).reshape(q_ref.shape), q_ref, TOL)
    rows = torch.arange(batch, device="cuda")
    assert_close(f64(kc[rows, :, pos.long()]), k_ref, TOL)
    assert_close(f64(vc[rows, :, pos.long()]), v_ref, TOL)


@TILINGS
@pytest.mark.parametrize("batch", [1, 3, 37])
def test_gate_up_and_projections(setup, tiles, batch):
    torch, w, w64 = setup
    k = decode_step.Kernels()
    rng = np.random.default_rng(3)
    x = bf16(torch, rng.standard_normal((batch, CFG.hidden)))
    h = torch.empty((batch, CFG.intermediate), dtype=torch.bfloat16, device="cuda")
    decode_step.gate_up(k, CFG, batch, x, w["post_norm"], w["gate_up"], h, tiles=tiles)
    res = bf16(torch, rng.standard_normal((batch, CFG.hidden)))
    out = torch.empty_like(res)
    shared = scratch(torch, batch, tiles)
    decode_step.projection(k, batch, CFG.intermediate, CFG.hidden, h, w["down"], res, out,
                           tiles=tiles, scratch=shared)
    attn = bf16(torch, rng.standard_normal((batch, CFG.q_size)))
    out_o = res.clone()
    decode_step.projection(k, batch, CFG.q_size, CFG.hidden, attn, w["o"], out_o, out_o,
                           tiles=tiles, scratch=shared)
    torch.cuda.synchronize()
    assert_close(f64(h), ref.swiglu(CFG, f64(x), w64["post_norm"], w64["gate_up"]), TOL)
    assert_close(f64(out), f64(h) @ w64["down"].T + f64(res), TOL)
    assert_close(f64(out_o), f64(attn) @ w64["o"].T + f64(res), TOL)


def attention_inputs(torch, contexts, seed):
    """pos, q and the K and V caches of rows with these context lengths."""
    batch, max_len = len(contexts), max(contexts)
    pos = torch.tensor([c - 1 for c in contexts], dtype=torch.int32, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn((batch, CFG.q_size), device="cuda", generator=g).to(torch.bfloat16)
    kc, vc = caches(torch, batch, max_len, seed + 1)
    return pos, q, kc, vc


def attend(torch, k, pos, q, kc, vc, **options):
    """decode_step.attention's output with kernels `k` (its partials in
    fresh buffers)."""
    batch, max_len = q.shape[0], kc.shape[2]
    splits = decode_step.splits_for(max_len)
    o_part = torch.empty((batch, CFG.q_heads, splits, CFG.head_dim), device="cuda")
    lse = torch.empty((batch, CFG.q_heads, splits), device="cuda")
    out = torch.empty((batch, CFG.q_size), dtype=torch.bfloat16, device="cuda")
    decode_step.attention(k, CFG, batch, max_len, q, kc, vc, pos, o_part, lse, out, **options)
    return out


def attention_reference(pos, q, kc, vc):
    return ref.attention(CFG, f64(q).reshape(q.shape[0], CFG.q_heads, -1), f64(kc), f64(vc),
                         pos.cpu().numpy())


@pytest.mark.parametrize("contexts", [[1], [1024], [32768], [7, 129, 4000, 32768]])
def test_attention(setup, contexts):
    torch, _, _ = setup
    pos, q, kc, vc = attention_inputs(torch, contexts, 4)
    out = attend(torch, decode_step.Kernels(), pos, q, kc, vc)
    torch.cuda.synchronize()
    assert_close(f64(out), attention_reference(pos, q, kc, vc), 3 * TOL)


@TILINGS
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_staged_gemvs_equal_the_plain_loops_bitwise(setup, tiles, stages):
    # tl.range stages move the weight and activation tiles through cp.async
    # rings; the arithmetic and its order stay: bitwise the same results.
    torch, w, _ = setup
    k = decode_step.Kernels()
    batch = 3
    rng = np.random.default_rng(6)
    x = bf16(torch, rng.standard_normal((batch, CFG.hidden)))
    res = bf16(torch, rng.standard_normal((batch, CFG.hidden)))
    got = []
    for s in (0, stages):
        t = tiles.with_stages(s)
        h = torch.empty((batch, CFG.intermediate), dtype=torch.bfloat16, device="cuda")
        decode_step.gate_up(k, CFG, batch, x, w["post_norm"], w["gate_up"], h, tiles=t)
        out = torch.empty_like(res)
        decode_step.projection(k, batch, CFG.intermediate, CFG.hidden, h, w["down"], res, out,
                               tiles=t, scratch=scratch(torch, batch, t))
        got.append((h, out))
    torch.cuda.synchronize()
    assert torch.equal(got[0][0], got[1][0])
    assert torch.equal(got[0][1], got[1][1])


@pytest.mark.parametrize("stages, block_l", [(2, 64), (3, 32), (4, 32)])
def test_staged_attention_equals_the_plain_loop_bitwise(setup, stages, block_l):
    torch, _, _ = setup
    pos, q, kc, vc = attention_inputs(torch, [7, 129, 4000], 7)
    k = decode_step.Kernels()
    outs = [attend(torch, k, pos, q, kc, vc, block_l=block_l, stages=s) for s in (0, stages)]
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1])
    assert_close(f64(outs[1]), attention_reference(pos, q, kc, vc), 3 * TOL)


@pytest.mark.parametrize("batch, deterministic", [(2, True), (1, False), (17, False)])
def test_layer_against_float64(setup, batch, deterministic):
    torch, w, w64 = setup
    max_len = 2048
    layer = decode_step.DecoderLayer(CFG, w, batch, max_len, empty_like_layer(torch),
                                     deterministic=deterministic,
                                     kernels=decode_step.Kernels(deterministic=deterministic))
    x = bf16(torch, np.random.default_rng(6).standard_normal((batch, CFG.hidden)))
    pos = torch.tensor([100, 2047] * batch, dtype=torch.int32, device="cuda")[:batch]
    kc, vc = caches(torch, batch, max_len, 7)
    k64, v64 = f64(kc), f64(vc)
    out = torch.empty_like(x)
    layer.step(x, pos, kc, vc, out)
    torch.cuda.synchronize()
    want = ref.layer(CFG, w64, f64(x), pos.cpu().numpy(), k64, v64)
    assert_close(f64(out), want, 4 * TOL)


@pytest.mark.parametrize("tiles", [decode_step.INVARIANT_TILES, SHARED_K, DEEP, CHAINED,
                                   SLICED],
                         ids=["shipped", "shared-k", "deep", "chains", "sliced"])
def test_rows_are_bitwise_the_same_alone_and_in_a_batch_of_64(setup, tiles):
    # Batch invariance: every kernel (through the layer's intermediates)
    # and the layer's output, row by row; one layer of each size stepped
    # several times (the shared-K counters back at zero each time).
    torch, w, _ = setup
    batch, max_len = 64, 4096
    g = torch.Generator(device="cuda").manual_seed(8)
    x = torch.randn((batch, CFG.hidden), device="cuda", generator=g).to(torch.bfloat16)
    pos = torch.randint(0, max_len, (batch,), device="cuda", generator=g,
                        dtype=torch.int32)
    kc, vc = caches(torch, batch, max_len, 9)
    k1, v1 = kc.clone(), vc.clone()
    full = decode_step.DecoderLayer(CFG, w, batch, max_len, empty_like_layer(torch),
                                    tiles=tiles)
    out = torch.empty_like(x)
    full.step(x, pos, kc, vc, out)
    one = decode_step.DecoderLayer(CFG, w, 1, max_len, empty_like_layer(torch), tiles=tiles)
    for b in (0, 1, 31, 63):
        kb, vb = k1[b:b + 1].clone(), v1[b:b + 1].clone()
        alone = torch.empty_like(x[b:b + 1])
        one.step(x[b:b + 1].clone(), pos[b:b + 1].clone(), kb, vb, alone)
        torch.cuda.synchronize()
        for name in ("q", "attn", "mid", "h"):
            assert torch.equal(getattr(one, name)[0], getattr(full, name)[b]), (name, b)
        assert torch.equal(alone[0], out[b]), b
        assert torch.equal(kb[0], kc[b]) and torch.equal(vb[0], vc[b]), b


@pytest.mark.parametrize("tiles", [decode_step.INVARIANT_TILES, SHARED_K, DEEP],
                         ids=["shipped", "shared-k", "deep"])
def test_cuda_graph_replays_what_eager_launches_compute(setup, tiles):
    torch, w, _ = setup
    batch, max_len = 4, 1024
    g = torch.Generator(device="cuda").manual_seed(10)
    x = torch.randn((batch, CFG.hidden), device="cuda", generator=g).to(torch.bfloat16)
    pos = torch.tensor([10, 200, 511, 1000], dtype=torch.int32, device="cuda")
    kc, vc = caches(torch, batch, max_len, 11)
    k_eager, v_eager = kc.clone(), vc.clone()
    layer = decode_step.DecoderLayer(CFG, w, batch, max_len, empty_like_layer(torch),
                                     tiles=tiles)
    out = torch.empty_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm: compile and load before capture
        layer.step(x, pos, kc.clone(), vc.clone(), out)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        layer.step(x, pos, kc, vc, out)
    eager = decode_step.DecoderLayer(CFG, w, batch, max_len, empty_like_layer(torch),
                                     tiles=tiles)
    want = torch.empty_like(out)
    for step in range(3):
        pos_now = torch.tensor([10, 200, 511, 1000], dtype=torch.int32, device="cuda") + step
        pos.copy_(pos_now)
        graph.replay()
        eager.step(x, pos_now, k_eager, v_eager, want)
        torch.cuda.synchronize()
        assert torch.equal(out, want), step
        assert torch.equal(kc, k_eager) and torch.equal(vc, v_eager), step


@pytest.mark.parametrize("pdl, l2_ahead", [(True, 0), (True, 1536), (True, 100),
                                           ("exit", 0), ("exit", 1536)])
@pytest.mark.parametrize("batch, deterministic", [(1, True), (1, False), (16, True),
                                                   (16, False)])
def test_programmatic_dependent_launches_compute_the_same(setup, batch, deterministic,
                                                          pdl, l2_ahead):
    # pdl=True launches every kernel with launch_pdl: each may start while
    # the one before it runs, and waits in _after_previous_kernel. Four
    # layers in a row (each reads what the one before wrote, the last
    # kernel of one and the first of the next overlapping), eager and
    # replayed from a graph, bitwise what plain launches compute; so with
    # each GEMV program asking for its weights into the L2 before its wait
    # (whole rows or the first 1536 columns; the first 100), and with each
    # kernel releasing the next only once its programs have exited
    # (pdl="exit").
    torch, w, _ = setup
    max_len, layers = 1024, 4
    kernels = decode_step.Kernels(deterministic=deterministic)
    g = torch.Generator(device="cuda").manual_seed(12)
    x = torch.randn((batch, CFG.hidden), device="cuda", generator=g).to(torch.bfloat16)
    pos = torch.randint(0, max_len, (batch,), device="cuda", generator=g, dtype=torch.int32)
    kc, vc = caches(torch, batch, max_len, 13)

    tiles = dataclasses.replace(decode_step.tiles_for(batch, deterministic), l2_ahead=l2_ahead)

    def model(pdl):
        return [decode_step.DecoderLayer(CFG, w, batch, max_len, empty_like_layer(torch),
                                         deterministic=deterministic, kernels=kernels,
                                         tiles=tiles if pdl else None, pdl=pdl)
                for _ in range(layers)]

    def run(stack, caches_now, xs):
        for i, layer in enumerate(stack):
            layer.step(xs[i], pos, *caches_now[i], xs[i + 1])

    def fresh():
        return ([(kc.clone(), vc.clone()) for _ in range(layers)],
                [x.clone()] + [torch.empty_like(x) for _ in range(layers)])

    plain_caches, plain_xs = fresh()
    run(model(False), plain_caches, plain_xs)
    pdl_model = model(pdl)
    for _ in range(2):  # the second time warm, launches back to back
        pdl_caches, pdl_xs = fresh()
        run(pdl_model, pdl_caches, pdl_xs)
        torch.cuda.synchronize()
        assert all(torch.equal(a, b) for a, b in zip(plain_xs, pdl_xs))
        assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
                   for a, b in zip(plain_caches, pdl_caches))
    graph_caches, graph_xs = fresh()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run(pdl_model, graph_caches, graph_xs)
    for _ in range(3):  # (each replay appends at the same positions again)
        graph.replay()
        torch.cuda.synchronize()
        assert all(torch.equal(a, b) for a, b in zip(plain_xs, graph_xs))


@pytest.mark.parametrize("programs", [1, 7, 132, 396, 5000])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_streamed_gemvs_at_batch_1(setup, programs, stages):
    # gate_up_swiglu_flat and gemv_residual_flat: runs of blocks per
    # program (one program for everything, partial last runs, more
    # programs asked for than there are blocks), stores inside the staged
    # loop, the O projection in place.
    torch, w, w64 = setup
    k = decode_step.Kernels()
    t = dataclasses.replace(decode_step.ROW_TILES, gate_up_programs=programs,
                            programs=programs, gate_up_stages=stages, stages=stages)
    rng = np.random.default_rng(11)
    x = bf16(torch, rng.standard_normal((1, CFG.hidden)))
    h = torch.empty((1, CFG.intermediate), dtype=torch.bfloat16, device="cuda")
    decode_step.gate_up(k, CFG, 1, x, w["post_norm"], w["gate_up"], h, tiles=t)
    res = bf16(torch, rng.standard_normal((1, CFG.hidden)))
    out = torch.empty_like(res)
    decode_step.projection(k, 1, CFG.intermediate, CFG.hidden, h, w["down"], res, out, tiles=t)
    attn = bf16(torch, rng.standard_normal((1, CFG.q_size)))
    out_o = res.clone()
    decode_step.projection(k, 1, CFG.q_size, CFG.hidden, attn, w["o"], out_o, out_o, tiles=t)
    torch.cuda.synchronize()
    assert_close(f64(h), ref.swiglu(CFG, f64(x), w64["post_norm"], w64["gate_up"]), TOL)
    assert_close(f64(out), f64(h) @ w64["down"].T + f64(res), TOL)
    assert_close(f64(out_o), f64(attn) @ w64["o"].T + f64(res), TOL)
