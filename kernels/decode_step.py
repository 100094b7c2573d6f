"""Host side of kernels/decode.py: launchers with the shipped configs, and
one decoder layer's decode step (RMSNorm -> QKV + RoPE + cache append ->
attention -> O projection + residual -> RMSNorm -> gate/up + SwiGLU ->
down projection + residual) in six launches.

Nothing here allocates, synchronises or compiles once a layer has run
once: every buffer is made by DecoderLayer's constructor and positions are
read by the kernels from device memory, so `DecoderLayer.step` can be
captured in a CUDA graph (torch.cuda.graph) and replayed for the next
token after writing the new positions. Arrays are whatever the kernels
accept (torch CUDA tensors on the GPU; numpy arrays, with bf16 passed
through tilec.reinterpret, on the interpreter): shapes come from the
Config, never from the arrays.
"""
import math
import dataclasses
from dataclasses import dataclass

import tilec

import decode


@dataclass(frozen=True)
class Config:
    """A decoder layer's shapes (defaults: Qwen2.5-1.5B)."""
    hidden: int = 1536
    q_heads: int = 12
    kv_heads: int = 2
    head_dim: int = 128
    intermediate: int = 8960
    eps: float = 1e-6
    rope_theta: float = 1_000_000.0
    qkv_bias: bool = True

    @property
    def q_size(self):
        return self.q_heads * self.head_dim

    @property
    def qkv_rows(self):
        return (self.q_heads + 2 * self.kv_heads) * self.head_dim

    @property
    def group(self):
        return self.q_heads // self.kv_heads

    def check(self, batch=1, max_len=1):
        """Raises ValueError for shapes the kernels do not handle. Offsets
        are 32-bit: the caches and the attention's partial outputs must
        each hold fewer than 2^31 elements."""
        if batch * self.kv_heads * max_len * self.head_dim >= 2 ** 31:
            raise ValueError(f"caches of {batch} x {self.kv_heads} x {max_len} x "
                             f"{self.head_dim} elements: the kernels' offsets are 32-bit "
                             "(at most 2^31 - 1 elements)")
        if self.q_heads % self.kv_heads:
            raise ValueError("q_heads must be a multiple of kv_heads")
        pairs = max(ROW_TILES.qkv_pairs, MMA_TILES.qkv_pairs)
        if self.head_dim & (self.head_dim - 1) or self.head_dim < 2 * pairs:
            raise ValueError(f"head_dim must be a power of two of at least {2 * pairs}")


@dataclass(frozen=True)
class Tiles:
    """How the three GEMV kernels tile their work: BLOCK_B batch rows per
    program (1: fp32 multiply-adds; 16: tl.dot on tensor cores), output
    rows per program (PAIRS pairs for QKV and gate/up, ROWS for the
    projections), BLOCK_K columns per iteration, and each kernel's warps."""
    block_b: int
    qkv_pairs: int
    qkv_block_k: int
    gate_up_pairs: int
    gate_up_block_k: int
    rows: int
    block_k: int
    qkv_warps: int = 4
    gate_up_warps: int = 4
    warps: int = 4
    #: Each kernel's K loop stages (tl.range's num_stages: weight and
    #: activation tiles through cp.async rings); 0: a plain range() loop.
    qkv_stages: int = 0
    gate_up_stages: int = 0
    stages: int = 0
    #: At batch 1 (block_b 1, stages given), about how many programs stream
    #: the gate/up and projection blocks (gate_up_swiglu_flat,
    #: gemv_residual_flat: each program a run of blocks in one staged loop);
    #: 0: one program per block (gate_up_swiglu, gemv_residual).
    gate_up_programs: int = 0
    programs: int = 0
    #: Programs sharing the K of each QKV and projection tile (KSPLIT: each
    #: sums a fixed share, the last to finish adds the shares in order, so
    #: a row's result is the same at every batch); 1: one program per tile.
    #: More programs where the tiles are few (16 rows each at BLOCK_B 16).
    qkv_ksplit: int = 1
    ksplit: int = 1
    #: Accumulators per output tile of a tensor-core GEMV's loop (CHAINS:
    #: 1, or 2 summing alternate K blocks, added at the end, so that two
    #: chains of dependent tl.dots run side by side; K is then shared in
    #: spans of 2 blocks).
    qkv_chains: int = 1
    gate_up_chains: int = 1
    chains: int = 1
    #: Slices of each K block of a tensor-core GEMV (SLICES: tl.dot's batch
    #: dimension, a warp each, added up after the loop; 1: none).
    qkv_slices: int = 1
    gate_up_slices: int = 1
    slices: int = 1
    #: Weight columns of each of a GEMV program's rows (from its K share's
    #: start; whole rows as one range) asked into the L2 before the kernel
    #: waits for the one before it (L2_AHEAD: tl.extra.cuda.prefetch_l2),
    #: for the launches with pdl, which then fetch while that kernel ends;
    #: a streamed program asks for as much of its run. 0: none, as
    #: shipped: on an H100 (decode-2026-12-06-928e59d*.json) it made the
    #: tensor-core tilings' layers 3.4-7.3 us slower (a prefetch per row
    #: from one thread) and the one-row tiling's 1.9% faster under pdl at
    #: 256 columns.
    l2_ahead: int = 0

    def __post_init__(self):
        for name in ("qkv_chains", "gate_up_chains", "chains"):
            if getattr(self, name) not in (1, 2):
                raise ValueError(f"Tiles.{name} must be 1 or 2, got {getattr(self, name)}")
            if getattr(self, name) > 1 and self.block_b < 16:
                raise ValueError(f"Tiles.{name} chains tensor-core tiles: block_b 16 or more")
        for name, block_k in (("qkv_slices", self.qkv_block_k),
                              ("gate_up_slices", self.gate_up_block_k),
                              ("slices", self.block_k)):
            n = getattr(self, name)
            if n > 1 and self.block_b < 16:
                raise ValueError(f"Tiles.{name} slices tensor-core tiles: block_b 16 or more")
            if n < 1 or n & (n - 1) or (n > 1 and (block_k % n or block_k // n < 16)):
                raise ValueError(f"Tiles.{name} must be a power of two leaving slices of 16 "
                                 f"columns or more of the K block ({block_k}), got {n}")

    def with_stages(self, n):
        """The same tiling with n stages in every GEMV (0: plain loops, one
        program per block)."""
        if n == 0:
            return dataclasses.replace(self, qkv_stages=0, gate_up_stages=0, stages=0,
                                       gate_up_programs=0, programs=0)
        return dataclasses.replace(self, qkv_stages=n, gate_up_stages=n, stages=n)

    def streams(self, programs, stages):
        """Whether a GEMV of this tiling streams its blocks (the _flat
        kernels): batch 1, programs and stages given."""
        return self.block_b == 1 and programs > 0 and stages > 0


#: The shipped configs. One row per program: gate/up streamed (asking for
#: 396 programs: 374 runs of 3 blocks) of 8 pairs x 256 on 4 warps, 3
#: stages (gate_up_swiglu_flat: 17.1 us on an H200, against 18.1 for the
#: best one-block-per-program config and 19.2 for the previous 8 x 512 on
#: 2 warps without stages; on an H100 2.7% slower than that sweep's best
#: per-block config: bench/results/decode-sweep-quick-2026-12-05-0dc61d2
#: .json and -7a60b0e.json, timed back to back in a CUDA graph); QKV 4 x
#: 512 and the projections 4 x 1024 (one block per program), 3 stages,
#: from the H200 sweep of cccb038 and the H100 ones of 98734ed and
#: c1ede5b, and in the two sweeps above the fastest or within 1.2% of it.
ROW_TILES = Tiles(block_b=1, qkv_pairs=4, qkv_block_k=512, gate_up_pairs=8,
                  gate_up_block_k=256, rows=4, block_k=1024, qkv_stages=3,
                  gate_up_stages=3, stages=3, gate_up_programs=396)
#: Sixteen rows per program, every GEMV's loop 3 stages deep: QKV 16 pairs
#: x 64 with its K shared by 4 programs, gate/up 32 pairs x 64, and the
#: projections 16 x 512 with two accumulator chains over alternate K
#: blocks, each block cut into 4 slices, a warp each (K not shared in the
#: projections: their last program's wait for the partials costs more
#: than the programs gain). From the sweep of 33d0160 on an H100
#: (bench/results/decode-sweep-mma-2026-12-06-33d0160.json, each GEMV back
#: to back in a CUDA graph, at batch 1 / 16): down 12.2 / 12.3 us against
#: 14.1 / 14.2 for the tiling shipped before (16 x 256, two chains, no
#: slices) and 15.4 / 15.4 for the one before that; QKV 8.2 / 8.2 against
#: 8.5 / 8.4 at 128 columns; gate/up 22.8 / 23.9 against 23.0 / 24.4 with
#: two chains. Slicing QKV's and gate/up's blocks made them slower there
#: (gamma's slices were loaded on the spot and converted through shared
#: memory in every iteration; dbf38fd loads them through x's ring, not yet
#: timed).
MMA_TILES = Tiles(block_b=16, qkv_pairs=16, qkv_block_k=64, gate_up_pairs=32,
                  gate_up_block_k=64, rows=16, block_k=512, qkv_stages=3,
                  gate_up_stages=3, stages=3, qkv_ksplit=4, chains=2, slices=4)
#: Batch invariance needs one tiling for every batch size: the tensor-core
#: one, which reads the weights once for 16 rows.
INVARIANT_TILES = MMA_TILES
#: Attention: the fixed split of deterministic mode, and its blocks.
#: BLOCK_S, the splits attention_combine takes per iteration: 64, not 16,
#: since the 256 splits of 32768 tokens took 16 dependent iterations of the
#: 12 programs at batch 1 (attention at that length on an H100: 20.1 us at
#: 33b0359 against 23.9 at 989c6c4, bench/results/decode-2026-12-05-*.json).
SPLIT, BLOCK_L, BLOCK_S = 128, 64, 64
#: Stages of attention_split's loop over a split (0: a plain range() loop):
#: two were the fastest at SPLIT 128, BLOCK_L 64 on an H100 (same sweep;
#: in decode-2026-12-05-c1ede5b.json 11.0 / 14.8 / 31.9 us at L = 1024 /
#: 8192 / 32768 against 11.3 / 15.4 / 33.8 without).
ATTENTION_STAGES = 2
NUM_WARPS = 4
#: A launcher's pdl argument (_pdl): False, True (the same as "early"),
#: "early" or "exit", and the keyword arguments of a launch in each mode:
#: launch_pdl, and RELEASE_EARLY where it is not the kernels' default (so
#: that the two spellings of a default launch share one compiled kernel).
_PDL_LAUNCH_OPTIONS = {False: {"launch_pdl": False}, True: {"launch_pdl": True},
                       "early": {"launch_pdl": True},
                       "exit": {"launch_pdl": True, "RELEASE_EARLY": False}}
PDL_MODES = tuple(_PDL_LAUNCH_OPTIONS)
#: Programs the adaptive split aims at (two per SM of an H200).
ADAPTIVE_PROGRAMS = 264


def tiles_for(batch, deterministic=True):
    """The tiling a layer of `batch` rows uses: INVARIANT_TILES when
    deterministic, else one row per program at batch 1."""
    if deterministic:
        return INVARIANT_TILES
    return ROW_TILES if batch == 1 else MMA_TILES


def split_for(batch, max_len, kv_heads, deterministic=True):
    """Attention's split size: the fixed SPLIT when deterministic (a row's
    partition must not depend on the batch), else the power of two from
    64 to 1024 that gives about ADAPTIVE_PROGRAMS programs."""
    if deterministic:
        return SPLIT
    want = max_len * kv_heads * batch / ADAPTIVE_PROGRAMS
    split = 64
    while split * 2 <= min(want, 1024):
        split *= 2
    return split


class Kernels:
    """The decode kernels on the GPU or (interpret=True) on tilec's CPU
    interpreter, compiled with deterministic=True (checked for batch
    invariance) unless told otherwise."""

    NAMES = ("rmsnorm_qkv_rope", "gate_up_swiglu", "gate_up_swiglu_flat", "gemv_residual",
             "gemv_residual_flat", "attention_split", "attention_combine")

    def __init__(self, interpret=False, deterministic=True):
        self.deterministic = deterministic
        for name in self.NAMES:
            fn = getattr(decode, name)
            setattr(self, name, tilec.JITFunction(fn.fn, interpret=interpret,
                                                  deterministic=deterministic))


def splits_for(max_len, split=SPLIT):
    """Attention splits a context of max_len tokens needs."""
    return tilec.cdiv(max_len, split)


def k_shares(n_in, ksplit, block_k):
    """(KSPLIT, K_CHUNK) for a K of n_in: at most `ksplit` shares of whole
    spans of `block_k` columns (a loop iteration's: BLOCK_K times CHAINS),
    none empty (a fixed partition: it depends on n_in and the tiling, not
    on the batch)."""
    ksplit = max(1, min(ksplit, tilec.cdiv(n_in, block_k)))
    chunk = tilec.cdiv(tilec.cdiv(n_in, ksplit), block_k) * block_k
    return tilec.cdiv(n_in, chunk), chunk


def scratch_size(cfg, batch, tiles):
    """(fp32 partials, int32 counters) elements the K-shared GEMVs of a
    layer need (one scratch serves them all: they run one after another
    on a stream, and each leaves its counters at zero)."""
    batch_blocks = tilec.cdiv(batch, tiles.block_b)
    qkv_tiles = cfg.qkv_rows // 2 // tiles.qkv_pairs
    qkv_split, _ = k_shares(cfg.hidden, tiles.qkv_ksplit, tiles.qkv_block_k * tiles.qkv_chains)
    proj_tiles = tilec.cdiv(cfg.hidden, tiles.rows)
    proj_split = max(k_shares(n, tiles.ksplit, tiles.block_k * tiles.chains)[0]
                     for n in (cfg.q_size, cfg.intermediate))
    # QKV's shares also write their sums of x^2 (one more column).
    parts = batch_blocks * tiles.block_b * max(
        qkv_tiles * qkv_split * (2 * tiles.qkv_pairs + 1) if qkv_split > 1 else 0,
        proj_tiles * proj_split * tiles.rows if proj_split > 1 else 0)
    counters = batch_blocks * max(qkv_tiles if qkv_split > 1 else 0,
                                  proj_tiles if proj_split > 1 else 0)
    return parts, counters


def make_scratch(cfg, batch, tiles, empty):
    """(parts, counters) for `tiles`' K-shared GEMVs, from empty(shape,
    dtype) ("i32" buffers come zero-filled); None when no GEMV shares K."""
    parts, counters = scratch_size(cfg, batch, tiles)
    if not counters:
        return None
    return empty((parts,), "fp32"), empty((counters,), "i32")


def _split_args(scratch, ksplit, fallback):
    """The parts and counters arguments: the scratch's, or (KSPLIT 1,
    unused) any pointer."""
    if ksplit == 1:
        return fallback, fallback
    if scratch is None:
        raise ValueError("a tiling whose GEMVs share K (ksplit > 1) needs the scratch of "
                         "make_scratch()")
    return scratch


def _pdl(pdl):
    """The launch keywords for a launcher's pdl: False (plain launches),
    True or "early" (launch_pdl, each kernel releasing the next right after
    its wait), or "exit" (launch_pdl, the next kernel released only once
    every program of this one has exited: RELEASE_EARLY off; see
    decode.py's _after_previous_kernel)."""
    try:
        return _PDL_LAUNCH_OPTIONS[pdl]
    except (KeyError, TypeError):
        raise ValueError(f"pdl must be one of {PDL_MODES}, got {pdl!r}") from None


def qkv_rope(k, cfg, batch, max_len, x, gamma, w_qkv, bias, pos, q, k_cache, v_cache,
             tiles=INVARIANT_TILES, stream=None, scratch=None, pdl=False):
    """q[b] = RoPE(Wq norm(x[b]) + bq); k, v likewise, into the caches at
    pos[b]. scratch: make_scratch()'s, when the tiling shares K."""
    d = cfg.head_dim
    ksplit, chunk = k_shares(cfg.hidden, tiles.qkv_ksplit, tiles.qkv_block_k * tiles.qkv_chains)
    grid = (tilec.cdiv(batch, tiles.block_b), cfg.qkv_rows // 2 // tiles.qkv_pairs * ksplit)
    k.rmsnorm_qkv_rope[grid](
        x, gamma, w_qkv, bias if bias is not None else w_qkv, pos, q, k_cache, v_cache,
        batch, cfg.hidden, cfg.hidden, cfg.q_size, cfg.kv_heads * max_len * d, max_len * d,
        d, cfg.eps, *_split_args(scratch, ksplit, x), HQ=cfg.q_heads, HKV=cfg.kv_heads, D=d,
        LOG2_THETA=math.log2(cfg.rope_theta), HAS_BIAS=bias is not None,
        PAIRS=tiles.qkv_pairs, BLOCK_B=tiles.block_b, BLOCK_K=tiles.qkv_block_k,
        STAGES=tiles.qkv_stages, KSPLIT=ksplit, K_CHUNK=chunk if ksplit > 1 else 0,
        CHAINS=tiles.qkv_chains, SLICES=tiles.qkv_slices, L2_AHEAD=tiles.l2_ahead,
        num_warps=tiles.qkv_warps, stream=stream, **_pdl(pdl))


def gate_up(k, cfg, batch, x, gamma, w_gate_up, out, tiles=INVARIANT_TILES, stream=None,
            pdl=False):
    """out[b] = silu(Wg norm(x[b])) * (Wu norm(x[b])); gamma None: no norm."""
    if batch == 1 and tiles.streams(tiles.gate_up_programs, tiles.gate_up_stages):
        return gate_up_flat(k, cfg, x, gamma, w_gate_up, out, tiles.gate_up_pairs,
                            tiles.gate_up_block_k, tiles.gate_up_stages,
                            tiles.gate_up_programs, tiles.gate_up_warps, stream, pdl,
                            tiles.l2_ahead)
    grid = (tilec.cdiv(batch, tiles.block_b), tilec.cdiv(cfg.intermediate, tiles.gate_up_pairs))
    k.gate_up_swiglu[grid](
        x, gamma if gamma is not None else x, w_gate_up, out, batch, cfg.hidden,
        cfg.intermediate, cfg.hidden, cfg.intermediate, cfg.eps, NORM=gamma is not None,
        PAIRS=tiles.gate_up_pairs, BLOCK_B=tiles.block_b, BLOCK_K=tiles.gate_up_block_k,
        STAGES=tiles.gate_up_stages, CHAINS=tiles.gate_up_chains, SLICES=tiles.gate_up_slices,
        L2_AHEAD=tiles.l2_ahead, num_warps=tiles.gate_up_warps, stream=stream, **_pdl(pdl))


def gate_up_flat(k, cfg, x, gamma, w_gate_up, out, pairs, block_k, stages, programs,
                 warps=NUM_WARPS, stream=None, pdl=False, l2_ahead=0):
    """gate_up at batch 1 by gate_up_swiglu_flat: about `programs`
    programs, each streaming an equal run of blocks of `pairs` outputs
    through one loop of `stages` stages."""
    n_blocks = tilec.cdiv(cfg.intermediate, pairs)
    blocks = tilec.cdiv(n_blocks, programs)
    k.gate_up_swiglu_flat[(tilec.cdiv(n_blocks, blocks),)](
        x, gamma if gamma is not None else x, w_gate_up, out, cfg.hidden, cfg.intermediate,
        blocks, cfg.eps, NORM=gamma is not None, PAIRS=pairs, BLOCK_K=block_k,
        K_TILES=tilec.cdiv(cfg.hidden, block_k), STAGES=stages, L2_AHEAD=l2_ahead,
        num_warps=warps, stream=stream, **_pdl(pdl))


def projection_flat(k, n_in, n_out, x, w, residual, out, rows, block_k, stages, programs,
                    warps=NUM_WARPS, stream=None, pdl=False, l2_ahead=0):
    """projection at batch 1 by gemv_residual_flat: about `programs`
    programs, each streaming an equal run of blocks of `rows` outputs."""
    n_blocks = tilec.cdiv(n_out, rows)
    blocks = tilec.cdiv(n_blocks, programs)
    k.gemv_residual_flat[(tilec.cdiv(n_blocks, blocks),)](
        x, w, residual, out, n_in, n_out, blocks, ROWS=rows, BLOCK_K=block_k,
        K_TILES=tilec.cdiv(n_in, block_k), STAGES=stages, L2_AHEAD=l2_ahead, num_warps=warps,
        stream=stream, **_pdl(pdl))


def projection(k, batch, n_in, n_out, x, w, residual, out, tiles=INVARIANT_TILES,
               stream=None, scratch=None, pdl=False):
    """out[b] = W x[b] + residual[b] (out may be residual). scratch:
    make_scratch()'s, when the tiling shares K."""
    if batch == 1 and tiles.streams(tiles.programs, tiles.stages):
        return projection_flat(k, n_in, n_out, x, w, residual, out, tiles.rows,
                               tiles.block_k, tiles.stages, tiles.programs, tiles.warps,
                               stream, pdl, tiles.l2_ahead)
    ksplit, chunk = k_shares(n_in, tiles.ksplit, tiles.block_k * tiles.chains)
    grid = (tilec.cdiv(batch, tiles.block_b), tilec.cdiv(n_out, tiles.rows) * ksplit)
    k.gemv_residual[grid](x, w, residual, out, batch, n_in, n_out, n_in, n_out, n_out,
                          *_split_args(scratch, ksplit, x), ROWS=tiles.rows,
                          BLOCK_B=tiles.block_b, BLOCK_K=tiles.block_k, STAGES=tiles.stages,
                          KSPLIT=ksplit, K_CHUNK=chunk if ksplit > 1 else 0,
                          CHAINS=tiles.chains, SLICES=tiles.slices,
                          L2_AHEAD=tiles.l2_ahead, num_warps=tiles.warps, stream=stream,
                          **_pdl(pdl))


def attention(k, cfg, batch, max_len, q, k_cache, v_cache, pos, o_part, lse_part, out,
              split=SPLIT, stream=None, block_l=BLOCK_L, stages=ATTENTION_STAGES,
              block_s=BLOCK_S, pdl=False):
    """out[b, h] = softmax(q[b, h] . K[b, h/group, :pos+1] / sqrt(D)) V[...].
    o_part [batch, q_heads, splits, D] and lse_part [batch, q_heads, splits]
    (fp32, splits = splits_for(max_len, split)) hold the partial results.
    block_l and stages: attention_split's BLOCK_L and STAGES; block_s:
    attention_combine's BLOCK_S (which orders its sums: one value for every
    batch size keeps rows invariant)."""
    d = cfg.head_dim
    splits = splits_for(max_len, split)
    if split <= block_l:
        stages = 0  # one block per split: nothing to overlap, only rings to fill
    k.attention_split[(splits, cfg.kv_heads, batch)](
        q, k_cache, v_cache, pos, o_part, lse_part, cfg.q_size,
        cfg.kv_heads * max_len * d, max_len * d, d,
        cfg.q_heads * splits * d, splits * d, d, cfg.q_heads * splits, splits,
        1.0 / math.sqrt(d) * math.log2(math.e), GROUP=cfg.group,
        GROUP_PAD=max(16, tilec.next_power_of_2(cfg.group)), D=d, SPLIT=split,
        BLOCK_L=block_l, STAGES=stages, num_warps=NUM_WARPS, stream=stream,
        **_pdl(pdl))
    k.attention_combine[(cfg.q_heads, batch)](
        o_part, lse_part, pos, out, cfg.q_heads * splits * d, splits * d, d,
        cfg.q_heads * splits, splits, cfg.q_size, D=d, SPLIT=split, BLOCK_S=block_s,
        num_warps=NUM_WARPS, stream=stream, **_pdl(pdl))


class DecoderLayer:
    """One decoder layer's decode step for `batch` rows and caches of
    `max_len` tokens. `weights` holds input_norm [hidden],
    qkv [qkv_rows, hidden], qkv_bias [qkv_rows] (when cfg.qkv_bias), o
    [hidden, q_size], post_norm [hidden], gate_up [2 intermediate, hidden]
    and down [hidden, intermediate]. `empty(shape, dtype)` makes the
    scratch buffers ("bf16", "fp32", or "i32", which must come
    zero-filled); they live as long as the layer.

    deterministic=True (the default): every row's result is bitwise the
    same at any batch size (one tiling, INVARIANT_TILES, and the fixed
    attention split, with kernels compiled and checked as deterministic).
    False picks the tiling and split per batch and length for speed.
    `split` and `tiles` override either choice.

    pdl="exit" (the default) launches every kernel with launch_pdl
    (programmatic dependent launch, sm_90+; ignored before): each kernel's
    programs are placed on the GPU while the one before it finishes, and
    wait for it (decode.py's _after_previous_kernel), and each kernel
    releases the next only once all its programs have exited, so that
    kernels do not share the SMs. pdl=True (or "early") launches them so
    too, but each releases the next right after its wait; False launches
    them plainly. Under either pdl mode, a tiling's l2_ahead has the GEMVs
    ask for their first weights into the L2 before their wait. The results
    are the same in every mode; "exit" was the fastest on an H100
    (docs/results.md, 2026-12-07: 1.4 us less per single-layer graph at
    B = 1 than plain launches, 1.7 at B = 16, 6.6 per eager step)."""

    def __init__(self, cfg, weights, batch, max_len, empty, kernels=None,
                 deterministic=True, split=None, tiles=None, pdl="exit"):
        cfg.check(batch, max_len)
        self.cfg, self.w, self.batch, self.max_len = cfg, weights, batch, max_len
        _pdl(pdl)  # a bad mode is refused here, before any launch
        self.pdl = pdl
        self.split = split or split_for(batch, max_len, cfg.kv_heads, deterministic)
        self.tiles = tiles or tiles_for(batch, deterministic)
        self.k = kernels or Kernels(deterministic=deterministic)
        if deterministic and not self.k.deterministic:
            raise ValueError("a deterministic layer needs kernels compiled with "
                             "deterministic=True")
        splits = splits_for(max_len, self.split)
        self.q = empty((batch, cfg.q_size), "bf16")
        self.attn = empty((batch, cfg.q_size), "bf16")
        self.mid = empty((batch, cfg.hidden), "bf16")
        self.h = empty((batch, cfg.intermediate), "bf16")
        self.o_part = empty((batch, cfg.q_heads, splits, cfg.head_dim), "fp32")
        self.lse_part = empty((batch, cfg.q_heads, splits), "fp32")
        self.scratch = make_scratch(cfg, batch, self.tiles, empty)

    def step(self, x, pos, k_cache, v_cache, out, stream=None):
        """out = the layer applied to x [batch, hidden] at positions pos
        [batch] (int32), appending to k_cache and v_cache [batch, kv_heads,
        max_len, head_dim]. out may be x."""
        cfg, w, b, k, t, pdl = self.cfg, self.w, self.batch, self.k, self.tiles, self.pdl
        qkv_rope(k, cfg, b, self.max_len, x, w["input_norm"], w["qkv"],
                 w.get("qkv_bias") if cfg.qkv_bias else None, pos, self.q, k_cache,
                 v_cache, tiles=t, stream=stream, scratch=self.scratch, pdl=pdl)
        attention(k, cfg, b, self.max_len, self.q, k_cache, v_cache, pos, self.o_part,
                  self.lse_part, self.attn, split=self.split, stream=stream, pdl=pdl)
        projection(k, b, cfg.q_size, cfg.hidden, self.attn, w["o"], x, self.mid, tiles=t,
                   stream=stream, scratch=self.scratch, pdl=pdl)
        gate_up(k, cfg, b, self.mid, w["post_norm"], w["gate_up"], self.h, tiles=t,
                stream=stream, pdl=pdl)
        projection(k, b, cfg.intermediate, cfg.hidden, self.h, w["down"], self.mid, out,
                   tiles=t, stream=stream, scratch=self.scratch, pdl=pdl)
