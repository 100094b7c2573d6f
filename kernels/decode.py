"""Fused kernels of one decode step of a language model (batch 1...64, one
new token per sequence), written for Qwen2.5-1.5B's shapes: hidden 1536,
12 query heads and 2 KV heads of 128, intermediate 8960, RMSNorm eps 1e-6,
RoPE theta 1e6. bf16 weights, activations and caches; fp32 arithmetic.
Any shape the constexprs describe works (tests run small ones), with
32-bit offsets: a cache holds fewer than 2^31 elements.

At small batches every kernel is bound by the bytes it reads, so each
reads its weights once, keeps every intermediate in registers, and fuses
what surrounds its GEMV. The GEMV kernels take BLOCK_B batch rows per
program along grid axis 0: 1 (fp32 multiply-adds, a tl.sum per output)
or 16 and more (tl.dot on tensor cores, the weights read once for all of
them); programs of the same weight rows are neighbours in the grid, so
they share the weights through the L2. Either way a row's arithmetic,
and the order of its sums, does not depend on the other rows: with one
BLOCK_B for every batch size (deterministic mode) a row's result is
bitwise the same at any batch. The kernels pass deterministic=True's
check.

Layouts (row-major, contiguous last dimension): activations [B, hidden];
weights as torch.nn.Linear keeps them, [out_features, in_features]; the
QKV weight stacks q, k, v rows ([(Hq + 2 Hkv) D, hidden]) and the gate/up
weight gate then up rows ([2 I, hidden]); caches [B, Hkv, L_max, D];
`pos[b]` (int32, in device memory so that a CUDA graph replays with new
positions) is the position of row b's new token, whose context is then
pos[b] + 1 tokens.

Kernels, bytes moved per batch row (bf16, Qwen2.5-1.5B):
- rmsnorm_qkv_rope: RMSNorm folded into the QKV GEMV (gamma multiplies
  x, 1/rms scales each dot product once), the bias, RoPE (rotate-half
  pairs i, i + D/2, angles in fp64) on q and k, q written out, k and v
  appended to the caches at pos. Reads W once: 6.3 MB.
- gate_up_swiglu: RMSNorm folded in likewise (optional), gate and up rows
  of one output read together, silu(g) * u written; the two GEMV results
  never reach memory. Reads 55 MB.
- gate_up_swiglu_flat: gate_up_swiglu at batch 1, each program streaming
  a run of output blocks through one staged loop (its RMSNorm from the x
  tiles it reads). Reads 55 MB.
- gemv_residual: out = W x + residual (the attention output projection,
  4.7 MB, and the down projection, 27.5 MB); out may alias residual.
  gemv_residual_flat: the same at batch 1, streamed.
- attention_split + attention_combine: flash-decoding with a fixed split
  of SPLIT tokens (a fixed size, not a fixed count, so a row's partition
  never depends on the batch or the grid); the GROUP query heads of one
  KV head are processed together (each KV byte read once) through
  tl.dot; per split a normalised partial output and its log2-sum-exp,
  combined in a fixed order by the second kernel. Reads
  2 * Hkv * L * D * 2 bytes of cache per row (L = 32768: 32 MB).

Shipped configs (decode_step.py's ROW_TILES and MMA_TILES, swept by
bench/decode_sweep.py on the H200 and H100s): BLOCK_B = 1 with QKV PAIRS
= 4 x BLOCK_K = 512, gate/up streamed (gate_up_swiglu_flat; 396 programs
asked for) of PAIRS = 8 x 256, gemv_residual ROWS = 4 x 1024, 3 stages
each; BLOCK_B = 16 with QKV PAIRS = 16 x 64 (K shared by 4 programs),
gate/up PAIRS = 32 x 64, gemv_residual ROWS = 16 x 512 with two
accumulator chains (CHAINS) and 4 K slices (SLICES), 3 stages each; 4
warps. SPLIT = 128
(deterministic; otherwise picked per batch and length), BLOCK_L = 64,
GROUP_PAD = 16 for attention; BLOCK_S = 64 for the combine. decode_step.py
launches them (and a whole decoder layer).

Each kernel calls _after_previous_kernel(RELEASE_EARLY) first: launched
with launch_pdl on sm_90+, a kernel's programs are placed on the SMs while
the kernel before it runs (released by it right after its own wait, or
with RELEASE_EARLY off once its programs have exited), and wait there for
it, so that the gap between two kernels of a step is not spent
launching. With L2_AHEAD > 0 a GEMV program first asks the L2 for the
first L2_AHEAD columns of each of its weight rows
(tl.extra.cuda.prefetch_l2; a streamed program as much of its run), which
no kernel of the step writes, so that they are fetched while the kernel
before it ends.
"""
import tilec
import tilec.language as tl


@tilec.jit
def _after_previous_kernel(RELEASE_EARLY: tl.constexpr):
    """In every kernel here, before anything but its L2 requests
    (_request_rows): a launch with launch_pdl (programmatic dependent
    launch, sm_90+) may start while the kernel before it on the stream
    still runs. Wait for the previous one to end (its writes visible)
    before reading or writing anything: a step's kernels read
    what the previous wrote, and write what it may still read (the down
    projection's output is the layer's input). Then, with RELEASE_EARLY,
    let the next kernel start launching: its programs come to sit on the
    SMs beside this kernel's, waiting. Without it, the next kernel is
    released only once every program of this one has exited: it launches
    while this kernel's writes are flushed, and never shares an SM with
    it. (Released before the wait, each kernel's programs released the
    next at once, and a whole step's kernels came to sit on the SMs
    waiting: on an H100 four deterministic layers in a graph took 59.5 us
    each with launch_pdl, against 54.8 with plain launches.) Both are free
    without launch_pdl, and nothing before sm_90 or in the interpreter."""
    tl.extra.cuda.gdc_wait()
    if RELEASE_EARLY:
        tl.extra.cuda.gdc_launch_dependents()


@tilec.jit
def _request_rows(w_ptr, row0, n_rows, n, k_start, k_end, ROWS: tl.constexpr,
                  AHEAD: tl.constexpr):
    """Before _after_previous_kernel (the weights are nothing a kernel of
    the step writes): asks the L2 for the first AHEAD columns from k_start
    (up to k_end) of weight rows row0 ... row0 + n_rows - 1 (n_rows <=
    ROWS), the order in which a program's K loop reads them, so that they
    are on their way while the kernel before still runs. Whole rows are
    one range. AHEAD 0: nothing. Only the first batch block's programs
    ask (the others read the same rows)."""
    if AHEAD > 0:
        if tl.program_id(0) == 0:
            if k_start == 0 and k_end == n and AHEAD >= n:
                tl.extra.cuda.prefetch_l2(w_ptr + row0 * n, n_rows * n)
            else:
                for r in tl.static_range(ROWS):
                    if r < n_rows:
                        tl.extra.cuda.prefetch_l2(w_ptr + (row0 + r) * n + k_start,
                                                  tl.minimum(k_end - k_start, AHEAD))


@tilec.jit
def _request_run(w_ptr, row0, n_rows, n, ROWS: tl.constexpr, AHEAD: tl.constexpr):
    """_request_rows for a streamed run of n_rows whole rows, read block of
    ROWS rows after block: its first ROWS * AHEAD elements (the budget of
    one block of _request_rows)."""
    if AHEAD > 0:
        tl.extra.cuda.prefetch_l2(w_ptr + row0 * n, tl.minimum(n_rows * n, ROWS * AHEAD))


@tilec.jit
def _x_tile(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, k, in_row, HAS_GAMMA: tl.constexpr):
    """x[b_rows, k] (* gamma[k]) in fp32, [BLOCK_B, BLOCK_K]."""
    x = tl.load(x_ptr + b_rows[:, None] * stride_x + k[None, :],
                mask=b_valid[:, None] & in_row[None, :], other=0.0).to(tl.float32)
    if HAS_GAMMA:
        x = x * tl.load(gamma_ptr + k, mask=in_row, other=0.0).to(tl.float32)[None, :]
    return x


@tilec.jit
def _w_tile(w_ptr, rows, n, k):
    """W[rows, k], W's rows n apart; columns past n read as 0."""
    return tl.load(w_ptr + rows[:, None] * n + k[None, :], mask=(k < n)[None, :], other=0.0)


@tilec.jit
def _k_slices(k0, BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """The columns of the K block from k0 cut into SLICES slices of SUB =
    BLOCK_K / SLICES (tl.dot's batch dimension, one warp each): indices
    for x, [SLICES, 1, SUB], and for W, [SLICES, SUB, 1]."""
    SUB: tl.constexpr = BLOCK_K // SLICES
    first = k0 + tl.arange(0, SLICES)[:, None, None] * SUB
    return first + tl.arange(0, SUB)[None, None, :], first + tl.arange(0, SUB)[None, :, None]


@tilec.jit
def _x_slices(x_ptr, b_rows, b_valid, stride_x, kx, n):
    """x[b_rows, kx] in fp32, [SLICES, BLOCK_B, SUB] (kx from _k_slices)."""
    return tl.load(x_ptr + b_rows[None, :, None] * stride_x + kx,
                   mask=b_valid[None, :, None] & (kx < n), other=0.0).to(tl.float32)


@tilec.jit
def _gamma_slices(gamma_ptr, b_rows, kx, n):
    """gamma over _k_slices' columns kx in fp32, [SLICES, BLOCK_B, SUB]: at
    x's shape (each batch row reads the same values), so that it takes x's
    layout and goes through a cp.async ring in 16-byte vectors as x does.
    A [SLICES, SUB] load got a layout of its own, of one 2-byte element per
    thread: loaded on the spot in every iteration and converted through
    shared memory."""
    return tl.load(gamma_ptr + kx + 0 * b_rows[None, :, None], mask=kx < n,
                   other=0.0).to(tl.float32)


@tilec.jit
def _w_slices(w_ptr, rows, n, kw):
    """W[rows, kw] transposed, [SLICES, SUB, R] (kw from _k_slices)."""
    return tl.load(w_ptr + rows[None, None, :] * n + kw, mask=kw < n, other=0.0)


@tilec.jit
def _accumulate(acc, w, x, HAS_GAMMA: tl.constexpr):
    """acc plus W's tile times x's: per element in fp32 for one batch row
    (acc [R, BLOCK_K], summed at the end), through tl.dot for 16 and more
    (acc [BLOCK_B, R], or sliced [SLICES, BLOCK_B, R] with x [SLICES,
    BLOCK_B, SUB] and W [SLICES, SUB, R]; x times gamma, not a bf16 value,
    as its bf16 head and the bf16 of what remains: two products, about 16
    bits of x kept)."""
    if len(x.shape) == 2 and x.shape[0] == 1:
        return acc + w.to(tl.float32) * x
    # Sliced tiles (3-D, _k_slices) come transposed already.
    wt = w if len(w.shape) == 3 else tl.trans(w)
    if HAS_GAMMA:
        head = x.to(w.dtype)
        acc = tl.dot(head, wt, acc)
        return tl.dot((x - head.to(tl.float32)).to(w.dtype), wt, acc)
    return tl.dot(x.to(w.dtype), wt, acc)


@tilec.jit
def _accumulator(rows, BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr, SLICES: tl.constexpr = 1):
    if BLOCK_B == 1:
        return tl.zeros((rows.shape[0], BLOCK_K), tl.float32)
    if SLICES > 1:
        return tl.zeros((SLICES, BLOCK_B, rows.shape[0]), tl.float32)
    return tl.zeros((BLOCK_B, rows.shape[0]), tl.float32)


@tilec.jit
def _finish(acc, BLOCK_B: tl.constexpr):
    """[BLOCK_B, R] (a sliced accumulator's slices added up)."""
    if BLOCK_B == 1:
        return tl.sum(acc, axis=1)[None, :]
    if len(acc.shape) == 3:
        return tl.sum(acc, axis=0)
    return acc


@tilec.jit
def _k_block(k0, BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """The columns of the K block from k0, for x and for W: one vector for
    both, or _k_slices' indices when SLICES > 1."""
    if SLICES > 1:
        return _k_slices(k0, BLOCK_K, SLICES)
    k = k0 + tl.arange(0, BLOCK_K)
    return k, k


@tilec.jit
def _w_block(w_ptr, rows, n, kw):
    """W's tile at _k_block's columns: [R, BLOCK_K], or sliced and
    transposed, [SLICES, SUB, R]."""
    if len(kw.shape) == 3:
        return _w_slices(w_ptr, rows, n, kw)
    return _w_tile(w_ptr, rows, n, kw)


@tilec.jit
def _x_block(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, kx, n, squares,
             HAS_GAMMA: tl.constexpr, SQUARES: tl.constexpr):
    """x's tile at _k_block's columns in fp32 (* gamma), [BLOCK_B, BLOCK_K]
    or sliced [SLICES, BLOCK_B, SUB], and `squares` plus x's squares before
    gamma when SQUARES."""
    if len(kx.shape) == 1:
        return _x_tile_squared(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, kx, n, squares,
                               HAS_GAMMA, SQUARES)
    x = _x_slices(x_ptr, b_rows, b_valid, stride_x, kx, n)
    if SQUARES:
        squares += x * x
    if HAS_GAMMA:
        x = x * _gamma_slices(gamma_ptr, b_rows, kx, n)
    return x, squares


@tilec.jit
def _step(acc, w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, gamma_ptr, n, k0,
          HAS_GAMMA: tl.constexpr, BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """One K block of _project (columns from k0)."""
    kx, kw = _k_block(k0, BLOCK_K, SLICES)
    x, _ = _x_block(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, kx, n, 0.0, HAS_GAMMA, False)
    return _accumulate(acc, _w_block(w_ptr, rows, n, kw), x, HAS_GAMMA)


@tilec.jit
def _chain_steps(accs, w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, gamma_ptr, n, k0,
                 HAS_GAMMA: tl.constexpr, BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """One iteration of _project's loop: a K block for each accumulator
    of `accs` (its chains), the blocks in order from k0."""
    first = _step(accs[0], w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, gamma_ptr, n, k0,
                  HAS_GAMMA, BLOCK_K, SLICES)
    if len(accs) == 1:
        return (first,)
    return (first, _step(accs[1], w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, gamma_ptr,
                         n, k0 + BLOCK_K, HAS_GAMMA, BLOCK_K, SLICES))


@tilec.jit
def _chains(rows, BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr, CHAINS: tl.constexpr,
            SLICES: tl.constexpr):
    """CHAINS (1 or 2) fresh accumulators, as a tuple."""
    tl.static_assert(CHAINS == 1 or CHAINS == 2, "CHAINS must be 1 or 2")
    tl.static_assert(SLICES == 1 or (BLOCK_B >= 16 and BLOCK_K // SLICES >= 16),
                     "SLICES cuts tensor-core tiles (BLOCK_B >= 16) into K slices of 16 or more")
    acc = _accumulator(rows, BLOCK_B, BLOCK_K, SLICES)
    if CHAINS == 1:
        return (acc,)
    return (acc, _accumulator(rows, BLOCK_B, BLOCK_K, SLICES))


@tilec.jit
def _chained_sum(accs):
    """The accumulators of _chains added up, the first chain first."""
    if len(accs) == 1:
        return accs[0]
    return accs[0] + accs[1]


@tilec.jit
def _project(w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, gamma_ptr, n, k_start, k_end,
             HAS_GAMMA: tl.constexpr, BLOCK_K: tl.constexpr, PREFETCH: tl.constexpr,
             STAGES: tl.constexpr, CHAINS: tl.constexpr = 1, SLICES: tl.constexpr = 1):
    """[BLOCK_B, R] fp32: sum over k in [k_start, k_end) of x[b, k] (*
    gamma[k]) * W[rows, k] (see _accumulate; W's rows n apart). PREFETCH
    loads the next W tile before the current one is used, so that two
    tiles are in flight; STAGES > 0 instead gives the loop
    that many stages (tl.range: every tile through a cp.async ring, STAGES -
    1 iterations ahead). Without PREFETCH, CHAINS = 2 sums alternate K
    blocks into two accumulators, added at the end: each tl.dot waits for
    the one before it on the same accumulator, and one chain through a
    whole row of W may take longer than the row's loads (K_CHUNK is then a
    multiple of 2 BLOCK_K). SLICES > 1 (tensor cores) cuts each K block
    into that many slices, tl.dot's batch dimension: each warp multiplies
    its own slice into an accumulator of its own, so that no warp repeats
    another's work and each chain of dependent dots is SLICES times
    shorter; the slices are added at the end. A row's sums do not depend
    on the other rows of its block, nor on STAGES."""
    BLOCK_B: tl.constexpr = b_rows.shape[0]
    if PREFETCH:
        tl.static_assert(CHAINS == 1 and SLICES == 1, "PREFETCH takes no CHAINS or SLICES")
        acc = _accumulator(rows, BLOCK_B, BLOCK_K)
        w_next = _w_tile(w_ptr, rows, n, k_start + tl.arange(0, BLOCK_K))
        for k0 in range(k_start, k_end, BLOCK_K):
            k = k0 + tl.arange(0, BLOCK_K)
            w = w_next
            w_next = _w_tile(w_ptr, rows, n, k + BLOCK_K)
            x = _x_tile(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, k, k < n, HAS_GAMMA)
            acc = _accumulate(acc, w, x, HAS_GAMMA)
        return _finish(acc, BLOCK_B)
    accs = _chains(rows, BLOCK_B, BLOCK_K, CHAINS, SLICES)
    if STAGES > 0:
        for k0 in tl.range(k_start, k_end, CHAINS * BLOCK_K, num_stages=STAGES):
            accs = _chain_steps(accs, w_ptr, rows, x_ptr, b_rows, b_valid, stride_x,
                                gamma_ptr, n, k0, HAS_GAMMA, BLOCK_K, SLICES)
    else:
        for k0 in range(k_start, k_end, CHAINS * BLOCK_K):
            accs = _chain_steps(accs, w_ptr, rows, x_ptr, b_rows, b_valid, stride_x,
                                gamma_ptr, n, k0, HAS_GAMMA, BLOCK_K, SLICES)
    return _finish(_chained_sum(accs), BLOCK_B)


@tilec.jit
def _x_tile_squared(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, k, n, squares,
                    HAS_GAMMA: tl.constexpr, SQUARES: tl.constexpr):
    """_x_tile's x (* gamma), and `squares` plus x's squares before gamma
    when SQUARES ([BLOCK_B, BLOCK_K])."""
    x = _x_tile(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, k, k < n, False)
    if SQUARES:
        squares += x * x
    if HAS_GAMMA:
        x = x * tl.load(gamma_ptr + k, mask=k < n, other=0.0).to(tl.float32)[None, :]
    return x, squares


@tilec.jit
def _step2(acc_a, acc_b, squares, w_ptr, rows_a, rows_b, x_ptr, b_rows, b_valid, stride_x,
           gamma_ptr, n, k0, HAS_GAMMA: tl.constexpr, SQUARES: tl.constexpr,
           BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """One K block of _project2 (columns from k0, sliced as _step slices
    them): both W tiles requested before either is used (x's squares
    summed as _x_block does)."""
    kx, kw = _k_block(k0, BLOCK_K, SLICES)
    w_a = _w_block(w_ptr, rows_a, n, kw)
    w_b = _w_block(w_ptr, rows_b, n, kw)
    x, squares = _x_block(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, kx, n, squares,
                          HAS_GAMMA, SQUARES)
    return (_accumulate(acc_a, w_a, x, HAS_GAMMA), _accumulate(acc_b, w_b, x, HAS_GAMMA),
            squares)


@tilec.jit
def _chain_steps2(accs_a, accs_b, squares, w_ptr, rows_a, rows_b, x_ptr, b_rows, b_valid,
                  stride_x, gamma_ptr, n, k0, HAS_GAMMA: tl.constexpr, SQUARES: tl.constexpr,
                  BLOCK_K: tl.constexpr, SLICES: tl.constexpr):
    """One iteration of _project2's loop, as _chain_steps (x's squares
    summed block after block)."""
    a, b, squares = _step2(accs_a[0], accs_b[0], squares, w_ptr, rows_a, rows_b, x_ptr,
                           b_rows, b_valid, stride_x, gamma_ptr, n, k0, HAS_GAMMA, SQUARES,
                           BLOCK_K, SLICES)
    if len(accs_a) == 1:
        return (a,), (b,), squares
    a2, b2, squares = _step2(accs_a[1], accs_b[1], squares, w_ptr, rows_a, rows_b, x_ptr,
                             b_rows, b_valid, stride_x, gamma_ptr, n, k0 + BLOCK_K, HAS_GAMMA,
                             SQUARES, BLOCK_K, SLICES)
    return (a, a2), (b, b2), squares


@tilec.jit
def _row_sums(squares):
    """[BLOCK_B]: each batch row's sum of `squares` ([BLOCK_B, BLOCK_K],
    or sliced [SLICES, BLOCK_B, SUB]: over each slice, then across them)."""
    if len(squares.shape) == 3:
        return tl.sum(tl.sum(squares, axis=2), axis=0)
    return tl.sum(squares, axis=1)


@tilec.jit
def _project2(w_ptr, rows_a, rows_b, x_ptr, b_rows, b_valid, stride_x, gamma_ptr, n,
              k_start, k_end, HAS_GAMMA: tl.constexpr, BLOCK_K: tl.constexpr,
              PREFETCH: tl.constexpr, STAGES: tl.constexpr, SQUARES: tl.constexpr = False,
              CHAINS: tl.constexpr = 1, SLICES: tl.constexpr = 1):
    """_project of two sets of rows in one pass over x: both W tiles of an
    iteration are requested before either is used. Also returns, with
    SQUARES, each batch row's sum of x^2 over [k_start, k_end) ([BLOCK_B]
    fp32, per column position over the K blocks in order, then across
    the positions), from the x tiles the loop reads anyway (an RMSNorm
    then needs no second pass over x after the loop, whose dependent loads
    would wait one after another); else zeros. CHAINS and SLICES as in
    _project."""
    BLOCK_B: tl.constexpr = b_rows.shape[0]
    if PREFETCH:
        tl.static_assert(CHAINS == 1 and SLICES == 1, "PREFETCH takes no CHAINS or SLICES")
        squares = tl.zeros((BLOCK_B, BLOCK_K), tl.float32)
        acc_a = _accumulator(rows_a, BLOCK_B, BLOCK_K)
        acc_b = _accumulator(rows_b, BLOCK_B, BLOCK_K)
        k = k_start + tl.arange(0, BLOCK_K)
        next_a = _w_tile(w_ptr, rows_a, n, k)
        next_b = _w_tile(w_ptr, rows_b, n, k)
        for k0 in range(k_start, k_end, BLOCK_K):
            k = k0 + tl.arange(0, BLOCK_K)
            w_a = next_a
            w_b = next_b
            next_a = _w_tile(w_ptr, rows_a, n, k + BLOCK_K)
            next_b = _w_tile(w_ptr, rows_b, n, k + BLOCK_K)
            x, squares = _x_tile_squared(x_ptr, b_rows, b_valid, stride_x, gamma_ptr, k, n,
                                         squares, HAS_GAMMA, SQUARES)
            acc_a = _accumulate(acc_a, w_a, x, HAS_GAMMA)
            acc_b = _accumulate(acc_b, w_b, x, HAS_GAMMA)
        return _finish(acc_a, BLOCK_B), _finish(acc_b, BLOCK_B), tl.sum(squares, axis=1)
    if SLICES > 1:
        squares = tl.zeros((SLICES, BLOCK_B, BLOCK_K // SLICES), tl.float32)
    else:
        squares = tl.zeros((BLOCK_B, BLOCK_K), tl.float32)
    accs_a = _chains(rows_a, BLOCK_B, BLOCK_K, CHAINS, SLICES)
    accs_b = _chains(rows_b, BLOCK_B, BLOCK_K, CHAINS, SLICES)
    if STAGES > 0:
        for k0 in tl.range(k_start, k_end, CHAINS * BLOCK_K, num_stages=STAGES):
            accs_a, accs_b, squares = _chain_steps2(accs_a, accs_b, squares, w_ptr, rows_a,
                                                    rows_b, x_ptr, b_rows, b_valid, stride_x,
                                                    gamma_ptr, n, k0, HAS_GAMMA, SQUARES,
                                                    BLOCK_K, SLICES)
    else:
        for k0 in range(k_start, k_end, CHAINS * BLOCK_K):
            accs_a, accs_b, squares = _chain_steps2(accs_a, accs_b, squares, w_ptr, rows_a,
                                                    rows_b, x_ptr, b_rows, b_valid, stride_x,
                                                    gamma_ptr, n, k0, HAS_GAMMA, SQUARES,
                                                    BLOCK_K, SLICES)
    return (_finish(_chained_sum(accs_a), BLOCK_B), _finish(_chained_sum(accs_b), BLOCK_B),
            _row_sums(squares))


@tilec.jit
def _batch_rows(batch, BLOCK_B: tl.constexpr):
    b_rows = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    b_valid = b_rows < batch
    return tl.where(b_valid, b_rows, 0), b_valid


@tilec.jit
def _k_share(n, KSPLIT: tl.constexpr, K_CHUNK: tl.constexpr, SPAN: tl.constexpr):
    """[start, end) of K this program sums: all of it (KSPLIT 1), else
    share program_id(1) % KSPLIT of KSPLIT shares of K_CHUNK columns (a
    constexpr multiple of SPAN, the columns of one loop iteration, BLOCK_K
    times CHAINS: only the last share's loop runs past its end, where
    the loads' k < n masks what lies beyond; the partition depends on
    nothing at run time)."""
    tl.static_assert(KSPLIT == 1 or K_CHUNK % SPAN == 0,
                     "K_CHUNK must be a multiple of BLOCK_K * CHAINS (decode_step.k_shares)")
    if KSPLIT == 1:
        return 0, n
    start = (tl.program_id(1) % KSPLIT) * K_CHUNK
    return start, tl.minimum(start + K_CHUNK, n)


@tilec.jit
def _k_share_sum(y, squares, parts, counters, slot, KSPLIT: tl.constexpr,
                 SQUARES: tl.constexpr = False):
    """The sums over the KSPLIT programs of one output tile of their y
    ([BLOCK_B, C] fp32) and, with SQUARES, of their squares ([BLOCK_B]
    fp32), each in share order, and whether this program holds them.
    Each program writes its y (and squares) to parts (per slot: [KSPLIT,
    BLOCK_B, C], then [KSPLIT, BLOCK_B] with SQUARES) and counts itself in
    on counters[slot] (an integer atomic, which releases the writes); the
    last to arrive adds the KSPLIT partials in order and resets the counter
    for the next launch. Which program that is does not matter: the order
    of the sums is fixed. counters start at zero."""
    if KSPLIT == 1:
        return y, squares, True
    BB: tl.constexpr = y.shape[0]
    C: tl.constexpr = y.shape[1]
    SLOT: tl.constexpr = KSPLIT * BB * (C + 1) if SQUARES else KSPLIT * BB * C
    share = tl.program_id(1) % KSPLIT
    offs = tl.arange(0, BB)[:, None] * C + tl.arange(0, C)[None, :]
    base = parts + slot * SLOT
    tl.store(base + share * (BB * C) + offs, y)
    if SQUARES:
        tl.store(base + KSPLIT * BB * C + share * BB + tl.arange(0, BB), squares)
    last = tl.atomic_add(counters + slot, 1) == KSPLIT - 1
    total = tl.zeros((BB, C), tl.float32)
    total_squares = tl.zeros((BB,), tl.float32)
    if last:
        for s in tl.static_range(KSPLIT):
            total += tl.load(base + s * (BB * C) + offs, cache_modifier=".cg")
            if SQUARES:
                total_squares += tl.load(base + KSPLIT * BB * C + s * BB + tl.arange(0, BB),
                                         cache_modifier=".cg")
        tl.atomic_xchg(counters + slot, 0)
    return total, total_squares, last


@tilec.jit
def _tile_slot(KSPLIT: tl.constexpr):
    """(output tile along grid axis 1, its slot among all the grid's
    tiles): axis 1 holds KSPLIT programs per tile, sharing its K."""
    tile = tl.program_id(1) // KSPLIT
    return tile, tl.program_id(0) * (tl.num_programs(1) // KSPLIT) + tile


@tilec.jit
def rmsnorm_qkv_rope(x_ptr, gamma_ptr, w_ptr, bias_ptr, pos_ptr, q_ptr, k_cache,
                     v_cache, batch, hidden, stride_x, stride_q, stride_cb, stride_ch,
                     stride_cl, eps, parts, counters,
                     HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr,
                     LOG2_THETA: tl.constexpr, HAS_BIAS: tl.constexpr, PAIRS: tl.constexpr,
                     BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr,
                     PREFETCH: tl.constexpr = False, STAGES: tl.constexpr = 0,
                     KSPLIT: tl.constexpr = 1, K_CHUNK: tl.constexpr = 0,
                     CHAINS: tl.constexpr = 1, SLICES: tl.constexpr = 1,
                     L2_AHEAD: tl.constexpr = 0,
                     RELEASE_EARLY: tl.constexpr = True):
    # Program (bb, p * KSPLIT + share): PAIRS output rows j of one head and
    # their RoPE partners j + D/2, for BLOCK_B batch rows; with KSPLIT > 1,
    # share `share` of K (_k_share), the last share to finish adding them
    # up (_k_share_sum: parts and counters, zeroed, hold the partials)
    # and finishing the rows.
    # Grid: (cdiv(batch, BLOCK_B), (HQ + 2 HKV) * D / 2 / PAIRS * KSPLIT).
    b_rows, b_valid = _batch_rows(batch, BLOCK_B)
    group, slot = _tile_slot(KSPLIT)
    groups_per_head: tl.constexpr = D // 2 // PAIRS
    head = group // groups_per_head
    j = (group % groups_per_head) * PAIRS + tl.arange(0, PAIRS)
    rows_lo = head * D + j
    rows_hi = rows_lo + D // 2
    k_start, k_end = _k_share(hidden, KSPLIT, K_CHUNK, BLOCK_K * CHAINS)
    _request_rows(w_ptr, head * D + (group % groups_per_head) * PAIRS, PAIRS, hidden, k_start,
                  k_end, PAIRS, L2_AHEAD)
    _request_rows(w_ptr, head * D + (group % groups_per_head) * PAIRS + D // 2, PAIRS, hidden,
                  k_start, k_end, PAIRS, L2_AHEAD)
    _after_previous_kernel(RELEASE_EARLY)
    # The loop sums x^2 for the RMSNorm too: over all of K, or over this
    # program's share, the shares' sums then added in order.
    lo, hi, squares = _project2(w_ptr, rows_lo, rows_hi, x_ptr, b_rows, b_valid, stride_x,
                                gamma_ptr, hidden, k_start, k_end, True, BLOCK_K, PREFETCH,
                                STAGES, True, CHAINS, SLICES)
    last = True
    if KSPLIT > 1:
        both, squares, last = _k_share_sum(tl.reshape(tl.join(lo, hi), (BLOCK_B, 2 * PAIRS)),
                                           squares, parts, counters, slot, KSPLIT, True)
        lo, hi = tl.split(tl.reshape(both, (BLOCK_B, PAIRS, 2)))
    if last:
        scale = tl.rsqrt(squares / hidden + eps)[:, None]
        _qkv_rope_store(lo * scale, hi * scale, bias_ptr, pos_ptr, q_ptr, k_cache, v_cache,
                        b_rows, b_valid, head, j, stride_q, stride_cb, stride_ch, stride_cl,
                        HQ, HKV, D, LOG2_THETA, HAS_BIAS)


@tilec.jit
def _qkv_rope_store(lo, hi, bias_ptr, pos_ptr, q_ptr, k_cache, v_cache, b_rows, b_valid,
                    head, j, stride_q, stride_cb, stride_ch, stride_cl, HQ: tl.constexpr,
                    HKV: tl.constexpr, D: tl.constexpr, LOG2_THETA: tl.constexpr,
                    HAS_BIAS: tl.constexpr):
    """rmsnorm_qkv_rope's epilogue: the bias, RoPE on q and k, q written,
    k and v appended to the caches."""
    rows_lo = head * D + j
    if HAS_BIAS:
        lo += tl.load(bias_ptr + rows_lo).to(tl.float32)[None, :]
        hi += tl.load(bias_ptr + rows_lo + D // 2).to(tl.float32)[None, :]
    pos = tl.load(pos_ptr + b_rows, mask=b_valid, other=0)[:, None]
    # theta^(-2j/D) and the angle in fp64: at position 32767 an fp32 angle
    # would be off by up to 2e-3 radians.
    inv_freq = tl.exp2(j.to(tl.float64) * (-2.0 / D * LOG2_THETA))
    angle = pos.to(tl.float64) * inv_freq[None, :]
    cos = tl.cos(angle).to(tl.float32)
    sin = tl.sin(angle).to(tl.float32)
    rot_lo = lo * cos - hi * sin
    rot_hi = hi * cos + lo * sin
    valid = b_valid[:, None]
    cache_row = b_rows[:, None] * stride_cb + pos * stride_cl + j[None, :]
    if head < HQ:
        q_row = q_ptr + b_rows[:, None] * stride_q + head * D + j[None, :]
        tl.store(q_row, rot_lo, mask=valid)
        tl.store(q_row + D // 2, rot_hi, mask=valid)
    elif head < HQ + HKV:
        k_row = k_cache + (head - HQ) * stride_ch + cache_row
        tl.store(k_row, rot_lo, mask=valid)
        tl.store(k_row + D // 2, rot_hi, mask=valid)
    else:
        v_row = v_cache + (head - HQ - HKV) * stride_ch + cache_row
        tl.store(v_row, lo, mask=valid)
        tl.store(v_row + D // 2, hi, mask=valid)


@tilec.jit
def gate_up_swiglu(x_ptr, gamma_ptr, w_ptr, out_ptr, batch, hidden, inter, stride_x,
                   stride_out, eps, NORM: tl.constexpr, PAIRS: tl.constexpr,
                   BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr,
                   PREFETCH: tl.constexpr = False, STAGES: tl.constexpr = 0,
                   CHAINS: tl.constexpr = 1, SLICES: tl.constexpr = 1,
                   L2_AHEAD: tl.constexpr = 0,
                   RELEASE_EARLY: tl.constexpr = True):
    # Program (bb, p): outputs p*PAIRS ... of BLOCK_B batch rows, from gate
    # rows and the up rows `inter` below them.
    # Grid: (cdiv(batch, BLOCK_B), cdiv(inter, PAIRS)).
    row0 = tl.program_id(1) * PAIRS
    n_rows = tl.minimum(PAIRS, inter - row0)
    _request_rows(w_ptr, row0, n_rows, hidden, 0, hidden, PAIRS, L2_AHEAD)
    _request_rows(w_ptr, row0 + inter, n_rows, hidden, 0, hidden, PAIRS, L2_AHEAD)
    _after_previous_kernel(RELEASE_EARLY)
    b_rows, b_valid = _batch_rows(batch, BLOCK_B)
    rows = row0 + tl.arange(0, PAIRS)
    # Rows past the end read row 0 (always there) and are not stored.
    valid = rows < inter
    rows = tl.where(valid, rows, 0)
    gate, up, squares = _project2(w_ptr, rows, rows + inter, x_ptr, b_rows, b_valid, stride_x,
                                  gamma_ptr, hidden, 0, hidden, NORM, BLOCK_K, PREFETCH,
                                  STAGES, NORM, CHAINS, SLICES)
    if NORM:
        scale = tl.rsqrt(squares / hidden + eps)[:, None]
        gate = gate * scale
        up = up * scale
    h = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(out_ptr + b_rows[:, None] * stride_out + rows[None, :], h,
             mask=b_valid[:, None] & valid[None, :])


@tilec.jit
def gemv_residual(x_ptr, w_ptr, res_ptr, out_ptr, batch, n_in, n_out, stride_x,
                  stride_res, stride_out, parts, counters, ROWS: tl.constexpr,
                  BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr, PREFETCH: tl.constexpr = False,
                  STAGES: tl.constexpr = 0, KSPLIT: tl.constexpr = 1,
                  K_CHUNK: tl.constexpr = 0, CHAINS: tl.constexpr = 1,
                  SLICES: tl.constexpr = 1, L2_AHEAD: tl.constexpr = 0,
                  RELEASE_EARLY: tl.constexpr = True):
    # out[b, rows] = W[rows, :] . x[b, :] + res[b, rows]; K shared by
    # KSPLIT programs as in rmsnorm_qkv_rope.
    # Grid: (cdiv(batch, BLOCK_B), cdiv(n_out, ROWS) * KSPLIT).
    tile, slot = _tile_slot(KSPLIT)
    k_start, k_end = _k_share(n_in, KSPLIT, K_CHUNK, BLOCK_K * CHAINS)
    _request_rows(w_ptr, tile * ROWS, tl.minimum(ROWS, n_out - tile * ROWS), n_in, k_start,
                  k_end, ROWS, L2_AHEAD)
    _after_previous_kernel(RELEASE_EARLY)
    b_rows, b_valid = _batch_rows(batch, BLOCK_B)
    rows = tile * ROWS + tl.arange(0, ROWS)
    valid = rows < n_out
    rows = tl.where(valid, rows, 0)
    mask = b_valid[:, None] & valid[None, :]
    # The residual is requested before the loop, so that its latency is not
    # added after the last weights arrive. (Where out is res, no program
    # writes its tile before every program of that tile has read it: the
    # writer is the last of the tile's programs, each of which read it
    # before counting itself in.)
    res = tl.load(res_ptr + b_rows[:, None] * stride_res + rows[None, :], mask=mask,
                  other=0.0)
    y = _project(w_ptr, rows, x_ptr, b_rows, b_valid, stride_x, x_ptr, n_in, k_start, k_end,
                 False, BLOCK_K, PREFETCH, STAGES, CHAINS, SLICES)
    y, _, last = _k_share_sum(y, tl.zeros((BLOCK_B,), tl.float32), parts, counters,
                              slot, KSPLIT)
    if last:
        y += res.to(tl.float32)
        tl.store(out_ptr + b_rows[:, None] * stride_out + rows[None, :], y, mask=mask)


@tilec.jit
def _attend(q, k_base, v_base, stride_cl, d, t0, end, qk_scale, m, total, acc,
            BLOCK_L: tl.constexpr):
    """One block of tokens [t0, t0 + BLOCK_L) (those below `end`) into the
    running max m, sum `total` and output `acc` of attention_split."""
    t = t0 + tl.arange(0, BLOCK_L)
    live = t < end
    k = tl.load(k_base + t[:, None] * stride_cl + d[None, :], mask=live[:, None], other=0.0)
    scores = tl.dot(q, tl.trans(k)) * qk_scale
    scores = tl.where(live[None, :], scores, -float("inf"))
    m_new = tl.maximum(m, tl.max(scores, axis=1))
    alpha = tl.exp2(m - m_new)
    p = tl.exp2(scores - m_new[:, None])
    total = total * alpha + tl.sum(p, axis=1)
    v = tl.load(v_base + t[:, None] * stride_cl + d[None, :], mask=live[:, None], other=0.0)
    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    return m_new, total, acc


@tilec.jit
def attention_split(q_ptr, k_cache, v_cache, pos_ptr, o_part, lse_part, stride_qb,
                    stride_cb, stride_ch, stride_cl, stride_ob, stride_oh, stride_os,
                    stride_lb, stride_lh, qk_scale,
                    GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, D: tl.constexpr,
                    SPLIT: tl.constexpr, BLOCK_L: tl.constexpr, STAGES: tl.constexpr = 0,
                    RELEASE_EARLY: tl.constexpr = True):
    _after_previous_kernel(RELEASE_EARLY)
    # Program (s, kvh, b): tokens [s*SPLIT, (s+1)*SPLIT) of batch row b's
    # context, for the GROUP query heads of KV head kvh. Writes each head's
    # softmax-weighted sum of V over those tokens (normalised) and its
    # log2-sum-exp of the scaled scores. Splits past the context do nothing.
    # qk_scale is 1/sqrt(D) * log2(e). STAGES > 0 gives the loop over the
    # split's blocks that many stages (K and V tiles through cp.async rings).
    # Grid: (cdiv(L_max, SPLIT), HKV, B).
    s = tl.program_id(0)
    kvh = tl.program_id(1)
    b = tl.program_id(2)
    context = tl.load(pos_ptr + b) + 1
    start = s * SPLIT
    if start < context:
        g = tl.arange(0, GROUP_PAD)
        d = tl.arange(0, D)
        heads = kvh * GROUP + g
        in_group = g < GROUP
        q = tl.load(q_ptr + b * stride_qb + heads[:, None] * D + d[None, :],
                    mask=in_group[:, None], other=0.0)
        k_base = k_cache + b * stride_cb + kvh * stride_ch
        v_base = v_cache + b * stride_cb + kvh * stride_ch
        m = tl.full((GROUP_PAD,), -float("inf"), tl.float32)
        total = tl.zeros((GROUP_PAD,), tl.float32)
        acc = tl.zeros((GROUP_PAD, D), tl.float32)
        end = tl.minimum(start + SPLIT, context)
        if STAGES > 0:
            for t0 in tl.range(start, end, BLOCK_L, num_stages=STAGES):
                m, total, acc = _attend(q, k_base, v_base, stride_cl, d, t0, end, qk_scale,
                                        m, total, acc, BLOCK_L)
        else:
            for t0 in range(start, end, BLOCK_L):
                m, total, acc = _attend(q, k_base, v_base, stride_cl, d, t0, end, qk_scale,
                                        m, total, acc, BLOCK_L)
        out = acc / total[:, None]
        o_rows = o_part + b * stride_ob + heads[:, None] * stride_oh + s * stride_os
        tl.store(o_rows + d[None, :], out, mask=in_group[:, None])
        tl.store(lse_part + b * stride_lb + heads * stride_lh + s, m + tl.log2(total),
                 mask=in_group)


@tilec.jit
def attention_combine(o_part, lse_part, pos_ptr, out_ptr, stride_ob, stride_oh,
                      stride_os, stride_lb, stride_lh, stride_out,
                      D: tl.constexpr, SPLIT: tl.constexpr, BLOCK_S: tl.constexpr,
                      RELEASE_EARLY: tl.constexpr = True):
    _after_previous_kernel(RELEASE_EARLY)
    # Program (h, b): query head h of batch row b, its splits combined in
    # order. out[b, h*D:(h+1)*D] (the layout the O projection reads).
    h = tl.program_id(0)
    b = tl.program_id(1)
    splits = (tl.load(pos_ptr + b) + SPLIT) // SPLIT
    d = tl.arange(0, D)
    o_base = o_part + b * stride_ob + h * stride_oh
    lse_base = lse_part + b * stride_lb + h * stride_lh
    m = -float("inf")
    total = 0.0
    acc = tl.zeros((D,), tl.float32)
    for s0 in range(0, splits, BLOCK_S):
        s = s0 + tl.arange(0, BLOCK_S)
        live = s < splits
        lse = tl.load(lse_base + s, mask=live, other=-float("inf"))
        o = tl.load(o_base + s[:, None] * stride_os + d[None, :], mask=live[:, None],
                    other=0.0)
        m_new = tl.maximum(m, tl.max(lse, axis=0))
        alpha = tl.exp2(m - m_new)
        w = tl.exp2(lse - m_new)
        total = total * alpha + tl.sum(w, axis=0)
        acc = acc * alpha + tl.sum(w[:, None] * o, axis=0)
        m = m_new
    tl.store(out_ptr + b * stride_out + h * D + d, acc / total)


@tilec.jit
def _streamed_tile(first, t, n_out, ROWS: tl.constexpr, BLOCK_K: tl.constexpr,
                   K_TILES: tl.constexpr):
    """Tile t of a streamed run from block `first` on: its ROWS output rows
    (those past n_out read row 0, and `valid` is false) and BLOCK_K
    columns."""
    rows = (first + t // K_TILES) * ROWS + tl.arange(0, ROWS)
    valid = rows < n_out
    return tl.where(valid, rows, 0), valid, (t % K_TILES) * BLOCK_K + tl.arange(0, BLOCK_K)


@tilec.jit
def gate_up_swiglu_flat(x_ptr, gamma_ptr, w_ptr, out_ptr, hidden, inter, blocks, eps,
                        NORM: tl.constexpr, PAIRS: tl.constexpr, BLOCK_K: tl.constexpr,
                        K_TILES: tl.constexpr, STAGES: tl.constexpr,
                        L2_AHEAD: tl.constexpr = 0,
                        RELEASE_EARLY: tl.constexpr = True):
    # Batch 1. Program p: the `blocks` blocks of PAIRS outputs from
    # p * blocks on, in one loop over all their W tiles, so that the ring
    # of STAGES stages stays full across the blocks' boundaries. K_TILES
    # is cdiv(hidden, BLOCK_K) (a constant divisor, which the address
    # computation may run ahead with). Each block sums x^2 from the x
    # tiles it reads anyway, for its RMSNorm: no pass over x before the
    # weights' loads.
    # Grid: (cdiv(cdiv(inter, PAIRS), blocks),).
    first = tl.program_id(0) * blocks
    n_blocks = tl.minimum(blocks, tl.cdiv(inter, PAIRS) - first)
    run = tl.minimum(n_blocks * PAIRS, inter - first * PAIRS)
    _request_run(w_ptr, first * PAIRS, run, hidden, PAIRS, L2_AHEAD)
    _request_run(w_ptr, first * PAIRS + inter, run, hidden, PAIRS, L2_AHEAD)
    _after_previous_kernel(RELEASE_EARLY)
    acc_a = tl.zeros((PAIRS, BLOCK_K), tl.float32)
    acc_b = tl.zeros((PAIRS, BLOCK_K), tl.float32)
    squares = tl.zeros((1, BLOCK_K), tl.float32)
    zero = tl.zeros((1,), tl.int32)
    for t in tl.range(0, n_blocks * K_TILES, num_stages=STAGES):
        rows, valid, k = _streamed_tile(first, t, inter, PAIRS, BLOCK_K, K_TILES)
        w_a = _w_tile(w_ptr, rows, hidden, k)
        w_b = _w_tile(w_ptr, rows + inter, hidden, k)
        x = _x_tile(x_ptr, zero, zero == 0, 0, gamma_ptr, k, k < hidden, False)
        if NORM:
            squares += x * x
            x = x * tl.load(gamma_ptr + k, mask=k < hidden, other=0.0).to(tl.float32)[None, :]
        acc_a += w_a.to(tl.float32) * x
        acc_b += w_b.to(tl.float32) * x
        if t % K_TILES == K_TILES - 1:
            gate = tl.sum(acc_a, axis=1)
            up = tl.sum(acc_b, axis=1)
            if NORM:
                scale = tl.rsqrt(tl.sum(squares, axis=1) / hidden + eps)
                gate = gate * scale
                up = up * scale
                squares = tl.zeros((1, BLOCK_K), tl.float32)
            tl.store(out_ptr + rows, gate / (1.0 + tl.exp(-gate)) * up, mask=valid)
            acc_a = tl.zeros((PAIRS, BLOCK_K), tl.float32)
            acc_b = tl.zeros((PAIRS, BLOCK_K), tl.float32)


@tilec.jit
def gemv_residual_flat(x_ptr, w_ptr, res_ptr, out_ptr, n_in, n_out, blocks,
                       ROWS: tl.constexpr, BLOCK_K: tl.constexpr, K_TILES: tl.constexpr,
                       STAGES: tl.constexpr, L2_AHEAD: tl.constexpr = 0,
                       RELEASE_EARLY: tl.constexpr = True):
    # Batch 1: out[rows] = W[rows, :] . x + res[rows], program p streaming
    # the `blocks` blocks of ROWS outputs from p * blocks on through one
    # loop (as gate_up_swiglu_flat). K_TILES is cdiv(n_in, BLOCK_K).
    # Grid: (cdiv(cdiv(n_out, ROWS), blocks),).
    first = tl.program_id(0) * blocks
    n_blocks = tl.minimum(blocks, tl.cdiv(n_out, ROWS) - first)
    _request_run(w_ptr, first * ROWS, tl.minimum(n_blocks * ROWS, n_out - first * ROWS), n_in,
                 ROWS, L2_AHEAD)
    _after_previous_kernel(RELEASE_EARLY)
    acc = tl.zeros((ROWS, BLOCK_K), tl.float32)
    zero = tl.zeros((1,), tl.int32)
    for t in tl.range(0, n_blocks * K_TILES, num_stages=STAGES):
        rows, valid, k = _streamed_tile(first, t, n_out, ROWS, BLOCK_K, K_TILES)
        x = _x_tile(x_ptr, zero, zero == 0, 0, x_ptr, k, k < n_in, False)
        acc += _w_tile(w_ptr, rows, n_in, k).to(tl.float32) * x
        if t % K_TILES == K_TILES - 1:
            # res may be out (in place): this load, inside the if, is not
            # one the loop's pipeline moves ahead of the store.
            y = tl.sum(acc, axis=1) + tl.load(res_ptr + rows, mask=valid, other=0.0)
            tl.store(out_ptr + rows, y, mask=valid)
            acc = tl.zeros((ROWS, BLOCK_K), tl.float32)
