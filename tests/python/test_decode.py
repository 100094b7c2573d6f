"""The decode kernels (kernels/decode.py, launched by kernels/decode_step.py)
on the CPU interpreter at small shapes with masked tails, against float64
(issue 15): each kernel, the whole decoder layer, and a row computed alone
against the same row inside a batch (bitwise). bf16 in and out, so the
tolerances are in units of bf16's rounding (2^-8 relative): outputs are
compared with |got - ref| <= TOL * (|ref| + mean |ref|). The GPU runs the
same checks at Qwen2.5-1.5B's shapes in test_gpu_decode.py."""
import dataclasses
import re

import numpy as np
import pytest


import decode_reference as ref
import decode_step
from decode_reference import Bf16, assert_close

# Odd sizes everywhere a tile could hide a bug: 100 outputs of gate/up (8
# per program: a partial last program), GQA groups of 3 padded to 16,
# hidden 96 below one BLOCK_K.
CFG = decode_step.Config(hidden=96, q_heads=6, kv_heads=2, head_dim=32,
                         intermediate=100, rope_theta=10000.0)
TOL = ref.TOL
# Both tilings of the GEMV kernels: one batch row per program (fp32
# multiply-adds) and 16 (tensor cores); and the tensor-core one with K
# blocks of 32, so that these small shapes share K among programs too (3
# shares of QKV's 96 columns; 2 or 3 for the projections; the
# projections' blocks in 2 slices of 16 where the shipped tiling has 4).
SHARED_K = dataclasses.replace(decode_step.MMA_TILES, qkv_block_k=32, block_k=32,
                               qkv_ksplit=3, ksplit=3, slices=2)
# With two accumulator chains: K shared in spans of two blocks (QKV's 96
# columns in 2 shares of 64, not 3 of 32; a projection's 310 in 3 of 128,
# whose last ends in a partial second block), and gate/up's 96 in one
# span of 64 and one whose second block is all masked.
CHAINED = dataclasses.replace(SHARED_K, qkv_block_k=32, block_k=16, gate_up_block_k=32,
                              qkv_chains=2, gate_up_chains=2, chains=2, slices=1)
# With each K block cut into slices (tl.dot's batch dimension): 2 of 16
# columns, with K shared; 4 of 16 in gate/up.
SLICED = dataclasses.replace(SHARED_K, qkv_slices=2, gate_up_block_k=64, gate_up_slices=4,
                             slices=2)
# Asking the L2 for weights before the wait (l2_ahead): whole rows as one
# range, and the first 40 columns of each row's K share; the interpreter
# checks that every range lies inside the weights.
ROWS_L2 = dataclasses.replace(decode_step.ROW_TILES, l2_ahead=4096)
SHARED_K_L2 = dataclasses.replace(SHARED_K, l2_ahead=40)
TILINGS = pytest.mark.parametrize(
    "tiles", [decode_step.ROW_TILES, decode_step.MMA_TILES, SHARED_K, CHAINED, SLICED, ROWS_L2,
              SHARED_K_L2],
    ids=["rows", "mma", "mma-shared-k", "mma-chains", "mma-slices", "rows-l2", "mma-shared-k-l2"])


def scratch():
    """Partials and zeroed counters for the GEMVs whose tiling shares K
    (decode_step.make_scratch; more than any test here needs)."""
    return np.zeros(1 << 18, np.float32), np.zeros(4096, np.int32)


@pytest.fixture(scope="module")
def kernels():
    return decode_step.Kernels(interpret=True)


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


@TILINGS
def test_qkv_rope_writes_q_and_appends_to_the_caches(kernels, tiles):
    rng = np.random.default_rng(0)
    batch, max_len = 3, 40
    w = ref.random_weights(rng, CFG)
    x = ref.random_bf16(rng, batch, CFG.hidden)
    pos = np.array([0, 17, 39], np.int32)
    q = Bf16(shape=(batch, CFG.q_size))
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    k_cache, v_cache = Bf16(np.full(shape, 7.0)), Bf16(np.full(shape, -7.0))
    decode_step.qkv_rope(kernels, CFG, batch, max_len, x.arg, w["input_norm"].arg,
                         w["qkv"].arg, w["qkv_bias"].arg, pos, q.arg, k_cache.arg,
                         v_cache.arg, tiles=tiles, scratch=scratch())
    q_ref, k_ref, v_ref = ref.qkv_rope(CFG, x.value, w["input_norm"].value, w["qkv"].value,
                                       w["qkv_bias"].value, pos)
    assert_close(q.value.reshape(q_ref.shape), q_ref, TOL)
    rows = np.arange(batch)
    assert_close(k_cache.value[rows, :, pos], k_ref, TOL)
    assert_close(v_cache.value[rows, :, pos], v_ref, TOL)
    # Nothing else in the caches moved.
    untouched = np.ones(shape, bool)
    untouched[rows, :, pos] = False
    assert (k_cache.value[untouched] == 7.0).all() and (v_cache.value[untouched] == -7.0).all()


@TILINGS
def test_rope_angles_are_exact_at_long_positions(kernels, tiles):
    # Position 32767, theta 1e6 (Qwen2.5): the angle is computed in fp64.
    cfg = decode_step.Config(hidden=64, q_heads=2, kv_heads=1, head_dim=64,
                             intermediate=64, qkv_bias=False)
    rng = np.random.default_rng(1)
    w = ref.random_weights(rng, cfg)
    x = ref.random_bf16(rng, 1, cfg.hidden)
    pos = np.array([32767], np.int32)
    q = Bf16(shape=(1, cfg.q_size))
    cache = Bf16(shape=(1, cfg.kv_heads, 32768, cfg.head_dim))
    decode_step.qkv_rope(kernels, cfg, 1, 32768, x.arg, w["input_norm"].arg, w["qkv"].arg,
                         None, pos, q.arg, cache.arg, cache.arg, tiles=tiles,
                         scratch=scratch())
    q_ref, _, _ = ref.qkv_rope(cfg, x.value, w["input_norm"].value, w["qkv"].value, None,
                               pos)
    assert_close(q.value.reshape(q_ref.shape), q_ref, TOL)


@TILINGS
@pytest.mark.parametrize("norm", [True, False])
def test_gate_up_swiglu(kernels, norm, tiles):
    rng = np.random.default_rng(2)
    batch = 2
    w = ref.random_weights(rng, CFG)
    x = ref.random_bf16(rng, batch, CFG.hidden)
    out = Bf16(np.full((batch, CFG.intermediate + 3), 5.0))
    gamma = w["post_norm"] if norm else None
    decode_step.gate_up(kernels, CFG, batch, x.arg, gamma.arg if norm else None,
                        w["gate_up"].arg, out.arg, tiles=tiles)
    # Rows are CFG.intermediate apart: the 3 columns past them... belong to
    # the next row; check the layout the kernel writes, [batch, inter].
    got = out.value.reshape(-1)[: batch * CFG.intermediate].reshape(batch, -1)
    want = ref.swiglu(CFG, x.value, gamma.value if norm else None, w["gate_up"].value)
    assert_close(got, want, TOL)
    assert (out.value.reshape(-1)[batch * CFG.intermediate:] == 5.0).all()


@TILINGS
@pytest.mark.parametrize("n_in, n_out", [(300, 37), (310, 20), (1100, 8)])
def test_projection_with_residual_in_place(kernels, n_in, n_out, tiles):
    rng = np.random.default_rng(3)
    batch = 3
    x = ref.random_bf16(rng, batch, n_in)
    w = ref.random_bf16(rng, n_out, n_in, scale=n_in ** -0.5)
    res = ref.random_bf16(rng, batch, n_out)
    want = x.value @ w.value.T + res.value
    decode_step.projection(kernels, batch, n_in, n_out, x.arg, w.arg, res.arg, res.arg,
                           tiles=tiles, scratch=scratch())
    assert_close(res.value, want, TOL)


@pytest.mark.parametrize("split", [8, 32, 256])
def test_attention_split_and_combine(kernels, split):
    # split 8 over 600 tokens: 75 splits, more than one BLOCK_S (64) of
    # the combine; contexts of 1 token, exactly one split, one past it, all.
    rng = np.random.default_rng(4)
    batch, max_len = 4, 600
    pos = np.array([0, split - 1, split, 599], np.int32)
    q = ref.random_bf16(rng, batch, CFG.q_size)
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    k_cache, v_cache = ref.random_bf16(rng, *shape), ref.random_bf16(rng, *shape)
    splits = decode_step.splits_for(max_len, split)
    o_part = np.zeros((batch, CFG.q_heads, splits, CFG.head_dim), np.float32)
    lse_part = np.zeros((batch, CFG.q_heads, splits), np.float32)
    out = Bf16(shape=(batch, CFG.q_size))
    decode_step.attention(kernels, CFG, batch, max_len, q.arg, k_cache.arg, v_cache.arg,
                          pos, o_part, lse_part, out.arg, split=split)
    want = ref.attention(CFG, q.value.reshape(batch, CFG.q_heads, -1), k_cache.value,
                         v_cache.value, pos)
    assert_close(out.value, want, 3 * TOL)


def make_layer(kernels, cfg, w, batch, max_len, tiles=None, **pdl):
    """A layer of `w` on the interpreter's arrays; pdl=... if given, else
    the layer's default mode."""
    def empty(shape, dtype):
        if dtype == "bf16":
            return Bf16(shape=shape).arg
        return np.zeros(shape, np.float32 if dtype == "fp32" else np.int32)
    weights = {name: a.arg for name, a in w.items()}
    return decode_step.DecoderLayer(cfg, weights, batch, max_len, empty, kernels=kernels,
                                    split=64, tiles=tiles, **pdl)


@TILINGS
def test_decoder_layer_against_float64(kernels, tiles):
    rng = np.random.default_rng(5)
    batch, max_len = 3, 200
    w = ref.random_weights(rng, CFG)
    pos = np.array([5, 130, 199], np.int32)
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    k_cache, v_cache = ref.random_bf16(rng, *shape), ref.random_bf16(rng, *shape)
    k64, v64 = k_cache.value, v_cache.value
    x = ref.random_bf16(rng, batch, CFG.hidden)
    want = ref.layer(CFG, {n: a.value for n, a in w.items()}, x.value, pos, k64, v64)
    layer = make_layer(kernels, CFG, w, batch, max_len, tiles)
    out = Bf16(shape=(batch, CFG.hidden))
    layer.step(x.arg, pos, k_cache.arg, v_cache.arg, out.arg)
    # q, attention output, the residual stream and h are rounded to bf16
    # on the way: a few roundings' worth.
    assert_close(out.value, want, 4 * TOL)
    rows = np.arange(batch)
    assert_close(k_cache.value[rows, :, pos], k64[rows, :, pos], TOL)


@TILINGS
def test_a_row_alone_equals_the_row_in_a_batch_bitwise(kernels, tiles):
    # 19 rows: two blocks of 16 for the tensor-core tiling, the second
    # partial; every row is compared with itself computed at batch 1.
    rng = np.random.default_rng(6)
    batch, max_len = 19, 130
    w = ref.random_weights(rng, CFG)
    pos = rng.integers(0, max_len, batch).astype(np.int32)
    pos[0] = max_len - 1
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    k_bits = ref.random_bf16(rng, *shape).bits
    v_bits = ref.random_bf16(rng, *shape).bits
    x = ref.random_bf16(rng, batch, CFG.hidden)
    full = Bf16(shape=(batch, CFG.hidden))
    k_all, v_all = Bf16(shape=shape), Bf16(shape=shape)
    k_all.bits[...] = k_bits
    v_all.bits[...] = v_bits
    make_layer(kernels, CFG, w, batch, max_len, tiles).step(x.arg, pos, k_all.arg,
                                                            v_all.arg, full.arg)
    one_layer = make_layer(kernels, CFG, w, 1, max_len, tiles)
    for b in range(batch):
        k_one, v_one, alone = (Bf16(shape=(1,) + shape[1:]), Bf16(shape=(1,) + shape[1:]),
                               Bf16(shape=(1, CFG.hidden)))
        k_one.bits[...] = k_bits[b:b + 1]
        v_one.bits[...] = v_bits[b:b + 1]
        xb = Bf16(shape=(1, CFG.hidden))
        xb.bits[...] = x.bits[b:b + 1]
        one_layer.step(xb.arg, pos[b:b + 1].copy(), k_one.arg, v_one.arg, alone.arg)
        assert (alone.bits[0] == full.bits[b]).all(), f"row {b}"
        assert (k_one.bits[0] == k_all.bits[b]).all()


@pytest.mark.parametrize("tiles", [decode_step.ROW_TILES, decode_step.MMA_TILES,
                                   dataclasses.replace(decode_step.MMA_TILES, qkv_ksplit=4,
                                                       ksplit=4),
                                   dataclasses.replace(decode_step.MMA_TILES, qkv_slices=4,
                                                       gate_up_slices=4, slices=4,
                                                       qkv_chains=2)],
                         ids=["rows", "mma", "mma-shared-k", "mma-sliced-chained"])
def test_decode_kernels_pass_the_deterministic_check(tiles):
    # Every kernel compiled for the GPU (sm_90a) with the shipped configs
    # and the Qwen2.5-1.5B constexprs: the check accepts them all.
    k = decode_step.Kernels()
    assert all(getattr(k, n).deterministic for n in decode_step.Kernels.NAMES)
    bf, f32, i32, n = "*bf16:16", "*fp32:16", "*i32:16", "i32:16"
    t = tiles
    # K shared as the shipped tiling shares it (the last share's program
    # adds the partials up after an integer atomic: accepted).
    qkv_split, qkv_chunk = decode_step.k_shares(1536, t.qkv_ksplit,
                                                t.qkv_block_k * t.qkv_chains)
    down_split, down_chunk = decode_step.k_shares(8960, t.ksplit, t.block_k * t.chains)
    cases = [
        (k.rmsnorm_qkv_rope, [bf] * 4 + [i32] + [bf] * 3 + ["i32"] + [n] * 6 + ["fp32", f32, i32],
         dict(HQ=12, HKV=2, D=128, LOG2_THETA=19.93, HAS_BIAS=True, PAIRS=t.qkv_pairs,
              BLOCK_B=t.block_b, BLOCK_K=t.qkv_block_k, KSPLIT=qkv_split,
              K_CHUNK=qkv_chunk if qkv_split > 1 else 0, CHAINS=t.qkv_chains,
              SLICES=t.qkv_slices)),
        (k.gate_up_swiglu, [bf] * 4 + ["i32"] + [n] * 4 + ["fp32"],
         dict(NORM=True, PAIRS=t.gate_up_pairs, BLOCK_B=t.block_b,
              BLOCK_K=t.gate_up_block_k, CHAINS=t.gate_up_chains, SLICES=t.gate_up_slices)),
        (k.gemv_residual, [bf] * 4 + ["i32"] + [n] * 5 + [f32, i32],
         dict(ROWS=t.rows, BLOCK_B=t.block_b, BLOCK_K=t.block_k, KSPLIT=down_split,
              K_CHUNK=down_chunk if down_split > 1 else 0, CHAINS=t.chains,
              SLICES=t.slices)),
        (k.attention_split, [bf] * 3 + [i32, f32, f32] + [n] * 9 + ["fp32"],
         dict(GROUP=6, GROUP_PAD=16, D=128, SPLIT=decode_step.SPLIT,
              BLOCK_L=decode_step.BLOCK_L)),
        (k.attention_combine, [f32, f32, i32, bf] + [n] * 6,
         dict(D=128, SPLIT=decode_step.SPLIT, BLOCK_S=decode_step.BLOCK_S)),
    ]
    for fn, signature, constexprs in cases:
        c = fn.compile(signature, target="sm_90a", num_warps=decode_step.NUM_WARPS,
                       **constexprs)
        assert c.deterministic
        uses_mma = fn is k.attention_split or (t.block_b > 1 and fn is not k.attention_combine)
        assert ("mma.sync" in c.asm["ptx"]) == uses_mma, fn
        shares = constexprs.get("KSPLIT", 1) > 1
        assert ("atom.acq_rel.gpu.global.add" in c.asm["ptx"]) == shares, fn
        if fn is k.attention_combine:
            continue
        # Given stages (tl.range), every tile of the loop goes through a
        # cp.async ring of that many buffers, and the check still passes.
        staged = fn.compile(signature, target="sm_90a", num_warps=decode_step.NUM_WARPS,
                            STAGES=4, **constexprs)
        assert staged.deterministic
        assert "cp.async.wait_group" in staged.asm["ptx"], fn
        assert "memdesc<4x" in staged.asm["tilegpu"], fn
        if uses_mma and fn is not k.attention_split:
            _assert_tensor_core_loop_is_lean(staged.asm["tilegpu"], fn,
                                             sliced=constexprs["SLICES"] > 1)


def _assert_tensor_core_loop_is_lean(tilegpu_ir, fn, sliced):
    """The staged K loop of a tensor-core GEMV: W's tile (transposed in the
    dot; sliced tiles are loaded transposed) is read through a view of its
    cp.async ring, not transposed in registers and stored again, and the
    fp32 accumulators stay in the mma layout (no trip through shared
    memory per iteration)."""
    lines = tilegpu_ir.splitlines()
    end = next(i for i, line in enumerate(lines) if "tile.num_stages = 4" in line)
    start = max(i for i in range(end) if "scf.for" in lines[i])
    body = "\n".join(lines[start:end])
    assert "tile.trans" not in body, fn
    assert ("tilegpu.memdesc_trans" in body) != sliced, fn
    assert "xf32, #mma>" in lines[start], fn
    assert not re.search(r"local_(alloc|load) .*xf32", body), fn


@pytest.mark.parametrize("change, message", [
    (dict(chains=3), "chains must be 1 or 2"),
    (dict(block_b=8), "chains tensor-core tiles"),
    (dict(slices=3), "slices must be a power of two"),
    (dict(slices=64), "slices must be a power of two"),
    (dict(chains=1, gate_up_chains=1, block_b=8, slices=2), "slices tensor-core tiles")])
def test_tilings_refuse_chains_and_slices_that_cannot_work(change, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(decode_step.MMA_TILES, **change)


def test_a_k_chunk_that_splits_a_span_is_refused():
    # K_CHUNK a multiple of BLOCK_K but not of BLOCK_K * CHAINS would let a
    # share's second chain read the next share's columns.
    k = decode_step.Kernels()
    with pytest.raises(Exception, match="K_CHUNK must be a multiple"):
        k.gemv_residual.compile(["*bf16:16"] * 4 + ["i32"] + ["i32:16"] * 5 +
                                ["*fp32:16", "*i32:16"], target="sm_90a", ROWS=16, BLOCK_B=16,
                                BLOCK_K=256, STAGES=3, KSPLIT=4, K_CHUNK=2304, CHAINS=2)


def test_layer_refuses_caches_past_32_bit_offsets():
    with pytest.raises(ValueError, match="32-bit"):
        decode_step.Config().check(batch=64, max_len=1 << 17)


def test_tiling_and_split_choices():
    ds = decode_step
    # Deterministic: one tiling and one split whatever the batch.
    assert {ds.tiles_for(b) for b in (1, 2, 16, 64)} == {ds.INVARIANT_TILES}
    assert {ds.split_for(b, 32768, 2) for b in (1, 64)} == {ds.SPLIT}
    # Otherwise per batch and length: rows at batch 1, about 264 programs.
    assert ds.tiles_for(1, False) == ds.ROW_TILES and ds.tiles_for(8, False) == ds.MMA_TILES
    assert ds.split_for(1, 1024, 2, False) == 64
    assert ds.split_for(1, 32768, 2, False) == 128
    assert ds.split_for(64, 32768, 2, False) == 1024
    with pytest.raises(ValueError, match="deterministic"):
        ds.DecoderLayer(CFG, {}, 1, 16, lambda s, d: None,
                        kernels=ds.Kernels(interpret=True, deterministic=False))


@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize("pairs,block_k,programs,l2_ahead",
                         [(8, 32, 3, 0), (4, 64, 7, 50), (2, 128, 100, 4096)])
def test_gate_up_flat(kernels, norm, pairs, block_k, programs, l2_ahead):
    # Blocks of PAIRS outputs streamed by few programs (a partial last
    # block, a partial last program, K below or not a multiple of BLOCK_K).
    rng = np.random.default_rng(3)
    w = ref.random_weights(rng, CFG)
    x = ref.random_bf16(rng, 1, CFG.hidden)
    out = Bf16(np.full((1, CFG.intermediate + 3), 5.0))
    gamma = w["post_norm"] if norm else None
    decode_step.gate_up_flat(kernels, CFG, x.arg, gamma.arg if norm else None,
                             w["gate_up"].arg, out.arg, pairs, block_k, 3, programs,
                             l2_ahead=l2_ahead)
    want = ref.swiglu(CFG, x.value, gamma.value if norm else None, w["gate_up"].value)
    assert_close(out.value[:, :CFG.intermediate], want, TOL)
    assert (out.value[:, CFG.intermediate:] == 5.0).all()


@pytest.mark.parametrize("rows,block_k,programs,l2_ahead",
                         [(4, 32, 3, 0), (2, 64, 5, 30), (8, 128, 100, 4096)])
def test_projection_flat_in_place(kernels, rows, block_k, programs, l2_ahead):
    # out may alias the residual: each output's residual is read before
    # the same program writes it.
    rng = np.random.default_rng(4)
    n_in, n_out = 100, 37
    w = Bf16(rng.standard_normal((n_out, n_in)) / 10)
    x = ref.random_bf16(rng, 1, n_in)
    res = ref.random_bf16(rng, 1, n_out)
    want = x.value @ w.value.T + res.value
    decode_step.projection_flat(kernels, n_in, n_out, x.arg, w.arg, res.arg, res.arg, rows,
                                block_k, 3, programs, l2_ahead=l2_ahead)
    assert_close(res.value, want, TOL)


def test_streamed_kernels_pipeline_their_loop_and_pass_the_deterministic_check():
    # The _flat kernels store inside their tl.range loop, through an
    # argument the pipelined loads do not read: the loop still gets its
    # cp.async ring of STAGES buffers, and each row's sums keep their order.
    k = decode_step.Kernels()
    bf = "*bf16:16"
    cases = [(k.gate_up_swiglu_flat, [bf] * 4 + ["i32:16", "i32:16", "i32", "fp32"],
              dict(NORM=True, PAIRS=8, BLOCK_K=256, K_TILES=6)),
             (k.gemv_residual_flat, [bf] * 4 + ["i32:16", "i32:16", "i32"],
              dict(ROWS=4, BLOCK_K=1024, K_TILES=9))]
    for fn, signature, constexprs in cases:
        c = fn.compile(signature, target="sm_90a", num_warps=4, STAGES=3, **constexprs)
        assert c.deterministic
        assert "cp.async.wait_group" in c.asm["ptx"], fn
        assert "memdesc<3x" in c.asm["tilegpu"], fn


def _sm90_kernel_cases(k):
    """(kernel, signature, constexprs) of each decode kernel of `k`
    (decode_step.Kernels) at a tiling a layer launches: the five GEMVs
    first, then attention_split and attention_combine."""
    bf, f32p, i32p = "*bf16:16", "*fp32:16", "*i32:16"
    qkv = [bf] * 4 + [i32p] + [bf] * 3 + ["i32"] + ["i32:16"] * 6 + ["fp32", f32p, i32p]
    return [(k.rmsnorm_qkv_rope, qkv,
             dict(HQ=12, HKV=2, D=128, LOG2_THETA=19.93, HAS_BIAS=True, PAIRS=4, BLOCK_B=1,
                  BLOCK_K=512, STAGES=3)),
            (k.gate_up_swiglu, [bf] * 4 + ["i32"] + ["i32:16"] * 4 + ["fp32"],
             dict(NORM=True, PAIRS=32, BLOCK_B=16, BLOCK_K=64, STAGES=3)),
            (k.gemv_residual, [bf] * 4 + ["i32"] + ["i32:16"] * 5 + [f32p, i32p],
             dict(ROWS=16, BLOCK_B=16, BLOCK_K=512, STAGES=3, CHAINS=2, SLICES=4)),
            (k.gate_up_swiglu_flat, [bf] * 4 + ["i32:16", "i32:16", "i32", "fp32"],
             dict(NORM=True, PAIRS=8, BLOCK_K=256, K_TILES=6, STAGES=3)),
            (k.gemv_residual_flat, [bf] * 4 + ["i32:16", "i32:16", "i32"],
             dict(ROWS=4, BLOCK_K=1024, K_TILES=9, STAGES=3)),
            (k.attention_split, [bf, bf, bf, i32p, f32p, f32p] + ["i32:16"] * 9 + ["fp32"],
             dict(GROUP=6, GROUP_PAD=16, D=128, SPLIT=128, BLOCK_L=64, STAGES=2)),
            (k.attention_combine, [f32p, f32p, i32p, bf] + ["i32:16"] * 6,
             dict(D=128, SPLIT=128, BLOCK_S=64))]


def test_gemv_kernels_ask_for_their_weights_before_the_wait():
    # With L2_AHEAD the GEMVs' bulk prefetches come before griddepcontrol.wait
    # (the weights are on their way while the kernel before ends), issued
    # only by the first batch block's programs; without it there are none.
    for fn, signature, constexprs in _sm90_kernel_cases(decode_step.Kernels())[:5]:
        ptx = fn.compile(signature, target="sm_90a", num_warps=4, L2_AHEAD=1536,
                         **constexprs).asm["ptx"]
        # Nothing that reads or writes memory comes before the wait but the
        # prefetches.
        accesses = re.findall(r"cp\.async\.bulk\.prefetch\.L2|griddepcontrol\.wait|"
                              r"ld\.global|st\.global|cp\.async\.c[ag]|atom\.|red\.", ptx)
        first = accesses.index("griddepcontrol.wait")
        assert first > 0 and set(accesses[:first]) == {"cp.async.bulk.prefetch.L2"}, fn
        assert accesses.count("griddepcontrol.wait") == 1
        plain = fn.compile(signature, target="sm_90a", num_warps=4, **constexprs).asm["ptx"]
        assert "cp.async.bulk.prefetch" not in plain, fn


def test_every_kernel_releases_the_next_after_its_wait_or_at_exit():
    # _after_previous_kernel: each of the seven kernels waits for the one
    # before, then releases the next (griddepcontrol.launch_dependents);
    # with RELEASE_EARLY off (pdl="exit") it only waits, and the next is
    # released once its programs have exited.
    for fn, signature, constexprs in _sm90_kernel_cases(decode_step.Kernels()):
        early = fn.compile(signature, target="sm_90a", num_warps=4, **constexprs).asm["ptx"]
        assert re.findall(r"griddepcontrol\.\w+", early) == [
            "griddepcontrol.wait", "griddepcontrol.launch_dependents"], fn
        at_exit = fn.compile(signature, target="sm_90a", num_warps=4, RELEASE_EARLY=False,
                             **constexprs).asm["ptx"]
        assert re.findall(r"griddepcontrol\.\w+", at_exit) == ["griddepcontrol.wait"], fn


def test_layer_pdl_modes():
    # pdl: False, True, "early" or "exit"; anything else is refused before
    # a kernel is launched. RELEASE_EARLY is passed only where it is not
    # the kernels' default (one compiled kernel for both spellings).
    assert decode_step._pdl(False) == {"launch_pdl": False}
    assert decode_step._pdl(True) == decode_step._pdl("early") == {"launch_pdl": True}
    assert decode_step._pdl("exit") == {"launch_pdl": True, "RELEASE_EARLY": False}
    for bad in ("late", 2, None, [True]):
        with pytest.raises(ValueError, match="pdl must be one of"):
            decode_step._pdl(bad)
    with pytest.raises(ValueError, match="pdl must be one of"):
        decode_step.DecoderLayer(CFG, {}, 1, 16, None, pdl="late")


class _Recorded:
    """A JIT function whose launches record their keyword arguments."""

    def __init__(self, fn, launches):
        self.fn, self.launches = fn, launches

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.launches.append(kwargs)
            return self.fn[grid](*args, **kwargs)
        return launch


@pytest.mark.parametrize("pdl,release_early", [(False, None), (True, None), ("exit", False),
                                               ("default", False)])
def test_a_layers_launches_carry_its_pdl_mode(pdl, release_early):
    # Every launch of a layer's step (on the interpreter, which ignores the
    # launch option itself) carries the layer's mode, and the results are
    # those of plain launches. A layer given no mode launches as "exit".
    rng = np.random.default_rng(8)
    batch, max_len = 2, 70
    w = ref.random_weights(rng, CFG)
    pos = np.array([3, 69], np.int32)
    shape = (batch, CFG.kv_heads, max_len, CFG.head_dim)
    k_cache, v_cache = ref.random_bf16(rng, *shape), ref.random_bf16(rng, *shape)
    x = ref.random_bf16(rng, batch, CFG.hidden)
    want = ref.layer(CFG, {n: a.value for n, a in w.items()}, x.value, pos, k_cache.value,
                     v_cache.value)
    launches = []
    kernels = decode_step.Kernels(interpret=True)
    for name in decode_step.Kernels.NAMES:
        setattr(kernels, name, _Recorded(getattr(kernels, name), launches))
    layer = make_layer(kernels, CFG, w, batch, max_len,
                       **({} if pdl == "default" else {"pdl": pdl}))
    out = Bf16(shape=(batch, CFG.hidden))
    layer.step(x.arg, pos, k_cache.arg, v_cache.arg, out.arg)
    assert len(launches) == 6
    assert all(l["launch_pdl"] == bool(pdl) for l in launches)
    assert all(l.get("RELEASE_EARLY") == release_early for l in launches)
    assert_close(out.value, want, 4 * TOL)
