"""Matrix multiplication: C = act(A @ B + bias), on tensor cores.

`matmul_kernel` computes one BLOCK_M x BLOCK_N tile of C per program,
looping over K in steps of BLOCK_K. Each step loads a BLOCK_M x BLOCK_K tile
of A and a BLOCK_K x BLOCK_N tile of B (masked at the edges, so M, N and K
need not be multiples of the tile) and accumulates their product with
`tl.dot` in fp32 (int32 for int8). The epilogue (bias, activation, cast)
runs on the accumulator in registers before the one store of C.

Programs are numbered in groups of GROUP_M rows of tiles ("grouped
ordering", as in Triton's tutorial): the programs running at one time then
share the same few columns of B and rows of A, which stay in L2.

Any strides: transposed inputs need no copy (pass A.T's strides).

Operands and accumulators:
    fp16 x fp16 -> fp32, bf16 x bf16 -> fp32 (mma.sync m16n8k16)
    fp32 x fp32 -> fp32 through tf32 (m16n8k8; input_precision="tf32")
    int8 x int8 -> int32 (m16n8k32)
    fp8 x fp8 -> fp32, e4m3 and e5m2 in any pairing (m16n8k32, sm_89+;
    pass torch.float8_e4m3fn / float8_e5m2 tensors, or tilec.reinterpret)
On sm_90a the fp16 and bf16 products run on wgmma (m64nNk16) when the
rows are aligned; the 8-bit ones (fp8, int8: m64nNk32) when, in addition,
A is row-major and B column-major (both K-contiguous, the layout cuBLAS's
fp8 GEMM takes: pass B.T.contiguous().T), since wgmma transposes only
16-bit operands; otherwise they stay on mma.sync.
Bytes moved: M*K + K*N elements read (once per tile row/column of C, L2
permitting), M*N written.

`scaled_matmul_kernel` is the same for fp8 operands with scales, as
torch._scaled_mm: C = act((A @ B) * scale_a * scale_b + bias), the scales
per tensor (one fp32 each) or per row of A and per column of B, applied to
the fp32 accumulator in the epilogue. Bytes moved: as above, plus M + N
scales.

`batched_matmul_kernel` multiplies a batch of matrices (program axis 1 is
the batch), each as above.

`matmul_desc_kernel` is `matmul_kernel` for row-major A and B (last stride
1) read through tensor descriptors (tl.make_tensor_descriptor) made from
its arguments: on sm_90a, when its tiles run on wgmma and the row strides
are multiples of 16 bytes (`:16`, or `:8` for 16-bit types; the pointers
`:16`), each tile is copied by TMA straight into the buffer wgmma reads,
one thread issuing the copy, the bounds checked by the hardware (so M, N
and K need no specialisation), through a ring of num_stages buffers with
an mbarrier each (docs/pipeline.md, "TMA"). Elsewhere it reads through
masked pointers, as `matmul_kernel` does. Bytes moved: as `matmul_kernel`.
"""
import tilec
import tilec.language as tl


@tilec.jit
def relu(x):
    return tl.maximum(x, 0.0)


@tilec.jit
def gelu_tanh(x, APPROX: tl.constexpr = False):
    # tanh approximation of GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    # The tanh through exp and a division (two special-function
    # instructions per element, each within a few ulp), or with APPROX
    # one tanh.approx.f32 (libdevice.fast_tanhf: within about 2^-11
    # relative of tanh, so within about 2^-12 |x| of the GELU).
    # Written with fmas (the compiler fuses nothing itself: each operation
    # rounds as written): sqrt(2/pi) (x + 0.044715 x^3) as
    # x (sqrt(2/pi) + 0.044715 sqrt(2/pi) x^2), and h (1 + t) as h t + h,
    # five operations besides the tanh where the plain form took eight (the
    # epilogue's ALU work is what a short K exposes).
    inner = x * tl.fma(0.035677408136300125, x * x, 0.7978845608028654)
    if APPROX:
        t = tl.extra.cuda.libdevice.fast_tanhf(inner)
    else:
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    half = 0.5 * x
    return tl.fma(half, t, half)


@tilec.jit
def grouped_tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """(pid_m, pid_n): this program's tile of C in grouped ordering, GROUP_M
    rows of tiles visited column by column."""
    return grouped_tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)


@tilec.jit
def grouped_tile_of(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    GROUP_M: tl.constexpr, FIXED_DIVISORS: tl.constexpr = False):
    """(pid_m, pid_n): tile number `pid` of C in grouped ordering (tiles
    close in number share rows of A and columns of B in the L2).
    FIXED_DIVISORS, for a loop over tiles: the same tiles, found by
    dividing only by values the same for every tile, which the compiler
    turns into multiplications in the loop (tilegpu-strength-reduce-
    divisions); elsewhere that costs registers for nothing."""
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    within = pid % num_pid_in_group
    if FIXED_DIVISORS:
        # Each group has GROUP_M rows of tiles but the last, which has the
        # rest: divide by one of those two, not by min(rows left, GROUP_M).
        last_rows = tl.maximum(num_pid_m - (num_pid_m - 1) // GROUP_M * GROUP_M, 1)
        in_last = num_pid_m - first_pid_m < GROUP_M
        pid_m = first_pid_m + tl.where(in_last, within % last_rows, within % GROUP_M)
        pid_n = tl.where(in_last, within // last_rows, within // GROUP_M)
    else:
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + (within % group_size_m)
        pid_n = within // group_size_m
    return pid_m, pid_n


@tilec.jit
def grouped_pair_of(pair, rows, columns, GROUP: tl.constexpr):
    """(row, column) of pair `pair` on a grid of `rows` x `columns` pairs
    of tiles in grouped ordering (grouped_tile_of's, GROUP rows of pairs
    visited column by column), dividing only by values the same for every
    pair (FIXED_DIVISORS)."""
    per_group = GROUP * columns
    first = pair // per_group * GROUP
    within = pair % per_group
    last_rows = tl.maximum(rows - (rows - 1) // GROUP * GROUP, 1)
    in_last = rows - first < GROUP
    row = first + tl.where(in_last, within % last_rows, within % GROUP)
    column = tl.where(in_last, within // last_rows, within // GROUP)
    return row, column


@tilec.jit
def tile_product(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                 rm, rn, BLOCK_K: tl.constexpr, INPUT_PRECISION: tl.constexpr,
                 MAX_IMPRECISE_ACC: tl.constexpr):
    """The rows rm by columns rn of A @ B, accumulated over K in steps of
    BLOCK_K (int32 when C holds int32, else fp32). MAX_IMPRECISE_ACC >= 0
    is tl.dot's max_num_imprecise_acc (fp8 on wgmma: add into fp32 after
    that many K elements, or after each BLOCK_K when it is larger); -1
    gives none."""
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((rm.shape[0], rn.shape[0]), dtype=tl.int32)
    else:
        acc = tl.zeros((rm.shape[0], rn.shape[0]), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0)
        if MAX_IMPRECISE_ACC >= BLOCK_K:  # (each dot's K is BLOCK_K)
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION,
                         max_num_imprecise_acc=BLOCK_K)
        elif MAX_IMPRECISE_ACC >= 0:
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION,
                         max_num_imprecise_acc=MAX_IMPRECISE_ACC)
        else:
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    return acc


@tilec.jit
def epilogue(acc, c_ptr, bias_ptr, N, rn, HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr):
    """bias and activation on the accumulator in its registers. GELU's
    tanh is approximate (gelu_tanh's APPROX) where C has fewer than 32
    bits, whose own rounding is coarser than the approximation's error,
    and computed in full for an fp32 C. (Two special-function
    instructions per element made bias + GELU cost 18-27% of the product
    at 3000 x 5000 x 1000 on an H200: docs/results.md.)"""
    if HAS_BIAS:
        bias = tl.load(bias_ptr + rn, mask=rn < N, other=0)
        acc = acc + bias[None, :]
    if ACTIVATION == "relu":
        acc = relu(acc)
    elif ACTIVATION == "gelu":
        if c_ptr.dtype.element_ty == tl.float32:
            acc = gelu_tanh(acc, False)
        else:
            acc = gelu_tanh(acc, True)
    return acc


@tilec.jit
def epilogue_store(acc, c_ptr, bias_ptr, M, N, stride_cm, stride_cn, rm, rn,
                   HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr):
    """bias, activation and the cast to C's type on the accumulator in its
    registers, then the one store of the tile."""
    acc = epilogue(acc, c_ptr, bias_ptr, N, rn, HAS_BIAS, ACTIVATION)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def epilogue_store_tile(acc, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                        TMA_STORE: tl.constexpr):
    """The epilogue of the tile at (m, n): stored through pointers, or with
    TMA_STORE through C's descriptor (on sm_90a one thread's TMA copies from
    a shared buffer; elsewhere the same masked store)."""
    if TMA_STORE:
        acc = epilogue(acc, c_ptr, bias_ptr, N, n + tl.arange(0, BLOCK_N), HAS_BIAS,
                       ACTIVATION)
        c_desc.store([m, n], acc)
    else:
        epilogue_store(acc, c_ptr, bias_ptr, M, N, stride_cm, stride_cn,
                       m + tl.arange(0, BLOCK_M), n + tl.arange(0, BLOCK_N), HAS_BIAS,
                       ACTIVATION)


@tilec.jit
def column_halves(x, ROWS: tl.constexpr, COLUMNS: tl.constexpr):
    """x's left and right COLUMNS // 2 columns (no data moves where the
    column's top bit is a register bit, as in a dot's accumulator)."""
    return tl.split(tl.permute(tl.reshape(x, (ROWS, 2, COLUMNS // 2)), (0, 2, 1)))


@tilec.jit
def epilogue_store_pieces(acc, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                          TMA_STORE: tl.constexpr, PIECES: tl.constexpr):
    """epilogue_store_tile in PIECES (1, 2 or 4) pieces of columns, one
    after the other: each goes through a buffer of its own size (a layout
    conversion, or TMA's), which can share bytes with the next, so that a
    loop holding the epilogue leaves its pipeline more shared memory."""
    if PIECES == 1:
        epilogue_store_tile(acc, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                            BLOCK_M, BLOCK_N, HAS_BIAS, ACTIVATION, TMA_STORE)
    else:
        # Each half in PIECES // 2 pieces: the left, then the right.
        left, right = column_halves(acc, BLOCK_M, BLOCK_N)
        epilogue_store_pieces(left, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                              BLOCK_M, BLOCK_N // 2, HAS_BIAS, ACTIVATION, TMA_STORE,
                              PIECES // 2)
        epilogue_store_pieces(right, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m,
                              n + BLOCK_N // 2, BLOCK_M, BLOCK_N // 2, HAS_BIAS, ACTIVATION,
                              TMA_STORE, PIECES // 2)


@tilec.jit
def unit_tile(unit, rank, size, pair_rows, columns, M, N, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr, CLUSTER: tl.constexpr,
              FIXED_DIVISORS: tl.constexpr):
    """(pid_m, pid_n) of the persistent kernel's unit of work `unit`: a
    tile (grouped_tile_of), or with CLUSTER > 1 the tile of place `rank`
    in run `unit` of `size` tiles on one column (grouped_pair_of)."""
    if CLUSTER > 1:
        pair_m, pid_n = grouped_pair_of(unit, pair_rows, columns, max(GROUP_M // CLUSTER, 1))
        pid_m = pair_m * size + rank
    else:
        pid_m, pid_n = grouped_tile_of(unit, M, N, BLOCK_M, BLOCK_N, GROUP_M, FIXED_DIVISORS)
    return pid_m, pid_n


@tilec.jit
def stream_k_start(r, iterations, ranges):
    """Where range r of `ranges` near-equal ranges of `iterations` starts
    (the first iterations % ranges of them one longer)."""
    return r * (iterations // ranges) + tl.minimum(r, iterations % ranges)


@tilec.jit
def partial_piece(partials_ptr, slot, column, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  ROW: tl.constexpr):
    """Pointers to columns column ... column + BLOCK_N - 1 of the partial
    sums in `slot` (BLOCK_M rows of ROW)."""
    return (partials_ptr + slot * (BLOCK_M * ROW) + tl.arange(0, BLOCK_M)[:, None] * ROW +
            column + tl.arange(0, BLOCK_N)[None, :])


@tilec.jit
def store_partial(acc, partials_ptr, slot, column, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, ROW: tl.constexpr, PIECES: tl.constexpr):
    """acc into columns `column` on of `slot`, in PIECES pieces of columns
    (as epilogue_store_pieces: one piece's addresses live at a time)."""
    if PIECES == 1:
        tl.store(partial_piece(partials_ptr, slot, column, BLOCK_M, BLOCK_N, ROW), acc)
    else:
        left, right = column_halves(acc, BLOCK_M, BLOCK_N)
        store_partial(left, partials_ptr, slot, column, BLOCK_M, BLOCK_N // 2, ROW, PIECES // 2)
        store_partial(right, partials_ptr, slot, column + BLOCK_N // 2, BLOCK_M, BLOCK_N // 2,
                      ROW, PIECES // 2)


@tilec.jit
def publish_partial(acc, partials_ptr, flags_ptr, slot, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, PIECES: tl.constexpr):
    """A stream-K range's partial sums into `slot`, then the slot's flag
    raised (its releasing atomic orders every thread's stores before it)."""
    store_partial(acc, partials_ptr, slot, 0, BLOCK_M, BLOCK_N, BLOCK_N, PIECES)
    tl.atomic_xchg(flags_ptr + slot, 1, sem="release")


@tilec.jit
def wait_for_partials(flags_ptr, q, unit_end, shared, lanes, size, rank):
    """The first stream-K range from `q` on that starts at or past
    `unit_end`, once each range before it (from q on, and not empty) has
    raised its slot's flag. The flags go back to zero for the next launch
    (a slot is written and read once per launch)."""
    while stream_k_start(q, shared, lanes) < unit_end:
        if stream_k_start(q + 1, shared, lanes) > stream_k_start(q, shared, lanes):
            flag = flags_ptr + (lanes - 1 - q) * size + rank
            while tl.atomic_add(flag, 0, sem="acquire") == 0:
                pass
            tl.atomic_xchg(flag, 0, sem="relaxed")
        q += 1
    return q


@tilec.jit
def finish_pieces(acc, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n, column,
                  partials_ptr, q0, q1, shared, lanes, size, rank,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ROW: tl.constexpr,
                  HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr, TMA_STORE: tl.constexpr,
                  PIECES: tl.constexpr):
    """epilogue_store_pieces of a tile cut between stream-K ranges (acc:
    its columns `column` on), each piece first summed with the partials of
    ranges q0 ... q1 - 1 that are not empty, in that order."""
    if PIECES == 1:
        for q in range(q0, q1):
            if stream_k_start(q + 1, shared, lanes) > stream_k_start(q, shared, lanes):
                acc += tl.load(partial_piece(partials_ptr, (lanes - 1 - q) * size + rank, column,
                                             BLOCK_M, BLOCK_N, ROW))
        epilogue_store_tile(acc, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m,
                            n + column, BLOCK_M, BLOCK_N, HAS_BIAS, ACTIVATION, TMA_STORE)
    else:
        left, right = column_halves(acc, BLOCK_M, BLOCK_N)
        finish_pieces(left, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n, column,
                      partials_ptr, q0, q1, shared, lanes, size, rank, BLOCK_M, BLOCK_N // 2,
                      ROW, HAS_BIAS, ACTIVATION, TMA_STORE, PIECES // 2)
        finish_pieces(right, c_ptr, c_desc, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                      column + BLOCK_N // 2, partials_ptr, q0, q1, shared, lanes, size, rank,
                      BLOCK_M, BLOCK_N // 2, ROW, HAS_BIAS, ACTIVATION, TMA_STORE, PIECES // 2)


@tilec.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                  INPUT_PRECISION: tl.constexpr, MAX_IMPRECISE_ACC: tl.constexpr = -1):
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tile_product(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                       stride_bn, rm, rn, BLOCK_K, INPUT_PRECISION, MAX_IMPRECISE_ACC)
    epilogue_store(acc, c_ptr, bias_ptr, M, N, stride_cm, stride_cn, rm, rn, HAS_BIAS,
                   ACTIVATION)


@tilec.jit
def scaled_matmul_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, bias_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn,
                         stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                         ROWWISE: tl.constexpr, HAS_BIAS: tl.constexpr,
                         ACTIVATION: tl.constexpr, MAX_IMPRECISE_ACC: tl.constexpr = -1):
    """C = act((A @ B) * scales + bias) for fp8 A and B, as torch._scaled_mm:
    per tensor (ROWWISE False: a_scale_ptr and b_scale_ptr hold one fp32
    each) or per row of A and per column of B (ROWWISE: M and N fp32
    values), applied to the fp32 accumulator in its registers."""
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tile_product(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                       stride_bn, rm, rn, BLOCK_K, "tf32", MAX_IMPRECISE_ACC)
    if ROWWISE:
        scale_a = tl.load(a_scale_ptr + rm, mask=rm < M, other=0.0)
        scale_b = tl.load(b_scale_ptr + rn, mask=rn < N, other=0.0)
        acc = acc * scale_a[:, None] * scale_b[None, :]
    else:
        acc = acc * (tl.load(a_scale_ptr) * tl.load(b_scale_ptr))
    epilogue_store(acc, c_ptr, bias_ptr, M, N, stride_cm, stride_cn, rm, rn, HAS_BIAS,
                   ACTIVATION)


@tilec.jit
def batched_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                          stride_az, stride_am, stride_ak,
                          stride_bz, stride_bk, stride_bn,
                          stride_cz, stride_cm, stride_cn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    z = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + z * stride_az + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + z * stride_bz + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + z * stride_cz + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def b_descriptor(b_ptr, N, K, stride_b, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 B_K_MAJOR: tl.constexpr):
    """B's descriptor: over its K x N rows (stride_b along K), or with
    B_K_MAJOR over the N x K rows of a column-major B (stride_b along N)."""
    if B_K_MAJOR:
        return tl.make_tensor_descriptor(b_ptr, [N, K], [stride_b, 1], [BLOCK_N, BLOCK_K])
    return tl.make_tensor_descriptor(b_ptr, [K, N], [stride_b, 1], [BLOCK_K, BLOCK_N])


@tilec.jit
def b_block(b, k, n, B_K_MAJOR: tl.constexpr):
    """B's BLOCK_K x BLOCK_N block at (k, n) through b_descriptor's `b`: a
    column-major B's block read as it lies and transposed (wgmma reads the
    buffer K-major, which 8-bit operands need)."""
    if B_K_MAJOR:
        return tl.trans(b.load([n, k]))
    return b.load([k, n])


@tilec.jit
def matmul_desc_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_am, stride_b,
                       stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                       HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                       WARP_SPECIALIZE: tl.constexpr = False, TMA_STORE: tl.constexpr = False,
                       B_K_MAJOR: tl.constexpr = False):
    # WARP_SPECIALIZE: on sm_90a a producer warpgroup issues the TMA copies
    # of A's and B's blocks ahead of the num_warps that multiply them
    # (docs/pipeline.md, "Warp specialisation"). TMA_STORE: C (its last
    # stride 1) is written through a descriptor, by TMA on sm_90a.
    # B_K_MAJOR: B is column-major (b_descriptor), stride_b its stride
    # along N; else row-major, stride_b along K.
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b = b_descriptor(b_ptr, N, K, stride_b, BLOCK_N, BLOCK_K, B_K_MAJOR)
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BLOCK_M, BLOCK_N])
    m = pid_m * BLOCK_M
    n = pid_n * BLOCK_N
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=WARP_SPECIALIZE):
        acc = tl.dot(a.load([m, k]), b_block(b, k, n, B_K_MAJOR), acc)
    epilogue_store_tile(acc, c_ptr, c, bias_ptr, M, N, stride_cm, stride_cn, m, n,
                        BLOCK_M, BLOCK_N, HAS_BIAS, ACTIVATION, TMA_STORE)


@tilec.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_am, stride_b,
                             stride_cm, stride_cn, partials_ptr, flags_ptr,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                             HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                             STAGES: tl.constexpr = 3, WARP_SPECIALIZE: tl.constexpr = False,
                             TMA_STORE: tl.constexpr = False,
                             EPILOGUE_PIECES: tl.constexpr = 1, B_K_MAJOR: tl.constexpr = False,
                             CONSUMER_GROUPS: tl.constexpr = 1, CLUSTER: tl.constexpr = 1,
                             STREAM_K: tl.constexpr = False, TAIL_N: tl.constexpr = 0,
                             TAIL_PIECES: tl.constexpr = 1):
    """matmul_desc_kernel's product on a persistent grid: each of the grid's
    programs (one per SM, say) takes tiles pid, pid + programs, ... in
    grouped order, and walks all of its (tile, K step) pairs in one flat
    loop of STAGES stages. The pipeline does not stop at a tile's end: the
    next tile's first blocks are in flight while this tile's epilogue
    runs, and on sm_90a the dot stays in flight except in a tile's last
    iteration, whose epilogue waits for it (docs/pipeline.md). With
    WARP_SPECIALIZE a producer warpgroup issues the copies instead, running
    up to STAGES iterations ahead of the warps that multiply, and
    CONSUMER_GROUPS > 1 groups of num_warps warps take turns at the tiles
    (ping-pong: one group's epilogue runs while the next multiplies). With
    TMA_STORE each tile goes out through C's descriptor (TMA on sm_90a).
    B_K_MAJOR as matmul_desc_kernel's. CLUSTER = 2 or 4 (with
    WARP_SPECIALIZE, on sm_90a) launches the programs in clusters of that
    many, which walk runs of CLUSTER tiles on one column of C (a "pair"
    below), the tiles of a run at once: the blocks of B they share are
    copied once for all (a share of the columns by each program's
    producer, multicast to all); elsewhere each program is a cluster of
    its own and walks single tiles. The grid must then be whole
    clusters.

    STREAM_K (not with CONSUMER_GROUPS) splits the last round of tiles
    (runs), the one too few to keep every program (cluster) busy, by K
    steps: their iterations are cut into one near-equal range per program,
    so that each ends at about the same time. A tile cut between ranges is
    finished by the program whose range holds its first K step, at that
    range's end: it adds the partial sums (fp32 BLOCK_M x BLOCK_N) that the
    programs of the next ranges wrote to `partials_ptr` (one slot per
    program) at their ranges' starts, in range order, once each slot's
    flag (`flags_ptr`, int32 zeros, one per program; put back to zero as
    it is read) says it is there. Ranges are dealt out in reverse, so a
    program waits only for lower-numbered ones (the GPU starts blocks in
    order, and a persistent grid is all resident at once; the interpreter
    runs programs in order). The sum's order depends on the grid, not on
    timing. Without STREAM_K the two pointers are not read.

    TAIL_N > 0 (a power of two, 16 or more; not with STREAM_K or
    CONSUMER_GROUPS) widens each tile by TAIL_N columns, BLOCK_N + TAIL_N
    in all (160 = 128 + 32: a width that is not a power of two, which no
    layout has): a second block of B, a second accumulator and a second
    dot per K step on the same block of A, and the tail's own epilogue, in
    TAIL_PIECES pieces. The tail's dot goes first: a K step waits for all
    but the last dot it issued, so the wide one stays in flight into the
    next step."""
    WIDTH: tl.constexpr = BLOCK_N + TAIL_N  # the tile's columns
    tl.static_assert(TAIL_N == 0 or (not STREAM_K and CONSUMER_GROUPS == 1),
                     "TAIL_N: not with STREAM_K or CONSUMER_GROUPS")
    tl.static_assert(TAIL_N == 0 or TAIL_N >= 16, "TAIL_N: 0, or 16 columns or more")
    a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b = b_descriptor(b_ptr, N, K, stride_b, BLOCK_N, BLOCK_K, B_K_MAJOR)
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1],
                                  [BLOCK_M, BLOCK_N // EPILOGUE_PIECES])
    if TAIL_N > 0:
        b_tail = b_descriptor(b_ptr, N, K, stride_b, TAIL_N, BLOCK_K, B_K_MAJOR)
        c_tail = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1],
                                           [BLOCK_M, TAIL_N // TAIL_PIECES])
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, WIDTH)
    k_steps = tl.cdiv(K, BLOCK_K)
    if CLUSTER > 1:
        # Clusters walk pairs of tiles (runs of `size`): rows size r ...
        # size r + size - 1 of one column, each program the row its place
        # in the cluster says (a row past the last reads zeros, and stores
        # nothing). Everything but that row is the same in every program
        # of the cluster: B's blocks are shared.
        size = tl.extra.cuda.cluster_size()  # 1 where there are no clusters
        rank = tl.extra.cuda.cluster_cta_rank()
        lane = tl.extra.cuda.cluster_id()
        lanes = programs // size
        pair_rows = tl.cdiv(tl.cdiv(M, BLOCK_M), size)
        columns = tl.cdiv(N, WIDTH)
        units = pair_rows * columns
    else:
        size = 1
        rank = 0
        pair_rows = 0  # (runs only)
        columns = 0
        lane = pid
        lanes = programs
        units = tiles
    tl.static_assert(not STREAM_K or CONSUMER_GROUPS == 1,
                     "STREAM_K reads the accumulators after the loop: no CONSUMER_GROUPS")
    if STREAM_K:
        # Whole rounds of units first, then this lane's range of the rest's
        # iterations (range r = lanes - 1 - lane). The rest has fewer than
        # lanes x k_steps iterations: a range touches at most two units.
        whole = units - units % lanes
        shared = (units - whole) * k_steps
        r = lanes - 1 - lane
        first = stream_k_start(r, shared, lanes)
        end = stream_k_start(r + 1, shared, lanes)
        rounds = whole // lanes * k_steps
        mine = rounds + end - first
    else:
        mine = tl.cdiv(units - lane, lanes) * k_steps  # 0 for a lane past the last unit
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if TAIL_N > 0:
        acc_tail = tl.zeros((BLOCK_M, TAIL_N), dtype=acc.dtype)
    for i in tl.range(0, mine, num_stages=STAGES, warp_specialize=WARP_SPECIALIZE,
                      num_consumer_groups=CONSUMER_GROUPS, num_ctas=CLUSTER):
        # (With a producer warpgroup its loop, which only copies, finds the
        # tiles with multiplications; a loop of wgmma keeps its divisions.)
        if STREAM_K:
            g = first + i - rounds  # the shared iteration, from i = rounds on
            in_rounds = i < rounds
            unit = tl.where(in_rounds, lane + i // k_steps * lanes, whole + g // k_steps)
            step = tl.where(in_rounds, i % k_steps, g % k_steps)
            # The unit begun by an earlier range: its sums so far are a partial.
            partial = (i >= rounds) & (first % k_steps != 0) & (g // k_steps == first // k_steps)
        else:
            unit = lane + i // k_steps * lanes
            step = i % k_steps
            partial = False
        pid_m, pid_n = unit_tile(unit, rank, size, pair_rows, columns, M, N, BLOCK_M, WIDTH,
                                 GROUP_M, CLUSTER, WARP_SPECIALIZE)
        m = pid_m * BLOCK_M
        n = pid_n * WIDTH
        k = step * BLOCK_K
        x = a.load([m, k])
        if TAIL_N > 0:
            acc_tail = tl.dot(x, b_block(b_tail, k, n + BLOCK_N, B_K_MAJOR), acc_tail)
        acc = tl.dot(x, b_block(b, k, n, B_K_MAJOR), acc)
        if k + BLOCK_K >= K:  # the tile's last K step
            if partial:
                publish_partial(acc, partials_ptr, flags_ptr, pid, BLOCK_M, BLOCK_N,
                                EPILOGUE_PIECES)
            else:
                epilogue_store_pieces(acc, c_ptr, c, bias_ptr, M, N, stride_cm, stride_cn, m,
                                      n, BLOCK_M, BLOCK_N, HAS_BIAS, ACTIVATION, TMA_STORE,
                                      EPILOGUE_PIECES)
            acc = tl.zeros_like(acc)
        if TAIL_N > 0:
            # (An if of its own: an epilogue that reads two dots' results
            # would make every dot wait for itself, docs/pipeline.md.)
            if k + BLOCK_K >= K:
                epilogue_store_pieces(acc_tail, c_ptr, c_tail, bias_ptr, M, N, stride_cm,
                                      stride_cn, m, n + BLOCK_N, BLOCK_M, TAIL_N, HAS_BIAS,
                                      ACTIVATION, TMA_STORE, TAIL_PIECES)
                acc_tail = tl.zeros_like(acc_tail)
    if STREAM_K:
        # A range that ends inside a unit: this lane began the unit (it
        # holds its first K step) and finishes it with the partials of the
        # ranges after, or the range lies inside the unit and is a partial.
        # (No division by k_steps = 0 even where the `if` does not run: the
        # compiler would take k_steps as nonzero, and drop the K = 0 code.)
        steps = tl.maximum(k_steps, 1)
        began = (end - 1) // steps * steps  # the unit's first iteration
        if (end > first) & (end % steps != 0):
            if began >= first:
                after = wait_for_partials(flags_ptr, r + 1, began + steps, shared, lanes, size,
                                          rank)
                pid_m, pid_n = unit_tile(whole + began // steps, rank, size, pair_rows,
                                         columns, M, N, BLOCK_M, WIDTH, GROUP_M, CLUSTER,
                                         WARP_SPECIALIZE)
                finish_pieces(acc, c_ptr, c, bias_ptr, M, N, stride_cm, stride_cn,
                              pid_m * BLOCK_M, pid_n * WIDTH, 0, partials_ptr, r + 1, after,
                              shared, lanes, size, rank, BLOCK_M, BLOCK_N, BLOCK_N, HAS_BIAS,
                              ACTIVATION, TMA_STORE, EPILOGUE_PIECES)
            else:
                publish_partial(acc, partials_ptr, flags_ptr, pid, BLOCK_M, BLOCK_N,
                                EPILOGUE_PIECES)
    if k_steps == 0:  # K = 0: C is the epilogue of zeros
        # (The loop's accumulator, zeros in the dots' layout, whose pieces
        # need no shared memory; consumer groups each have their own, which
        # the code after the loop cannot read: a new tile of zeros there.)
        if CONSUMER_GROUPS == 1:
            zeros = acc
        else:
            zeros = tl.zeros_like(acc)
        for t in range(pid, tiles, programs):
            pid_m, pid_n = grouped_tile_of(t, M, N, BLOCK_M, WIDTH, GROUP_M)
            epilogue_store_pieces(zeros, c_ptr, c, bias_ptr, M, N, stride_cm, stride_cn,
                                  pid_m * BLOCK_M, pid_n * WIDTH, BLOCK_M, BLOCK_N,
                                  HAS_BIAS, ACTIVATION, TMA_STORE, EPILOGUE_PIECES)
            if TAIL_N > 0:
                epilogue_store_pieces(acc_tail, c_ptr, c_tail, bias_ptr, M, N, stride_cm,
                                      stride_cn, pid_m * BLOCK_M, pid_n * WIDTH + BLOCK_N,
                                      BLOCK_M, TAIL_N, HAS_BIAS, ACTIVATION, TMA_STORE,
                                      TAIL_PIECES)


def is_8bit(dtype):
    """Whether `dtype` (a name matmul_configs() takes) is int8 or an fp8
    type: the types that share configs."""
    return dtype in ("int8", "float8_e4m3fn", "float8_e5m2", "fp8e4nv", "fp8e5")


def matmul_configs(dtype="float16", aligned=True):
    """(BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages) tried
    by the benchmarks and tests for operands of `dtype` ("float16",
    "bfloat16", "float32", "int8", "float8_e4m3fn", "float8_e5m2"); each
    assembles without spills (tested). The 8-bit types share configs: a
    BLOCK_K of 64 bytes per row is what a 16-bit type gets from 32.

    `aligned`: K, N and the strides along K and N are multiples of 8 (16
    for 8-bit types), so that each thread's share of a tile comes in
    16-byte vectors. On sm_80+
    the loads then go through cp.async into num_stages shared buffers
    (tilegpu-pipeline-loads), which leaves registers for the 128 x 256
    tile. Otherwise (vectors of one 2-byte or 1-byte element, which
    cp.async cannot move) the next iteration's tiles are carried in
    registers (tile-prefetch-loads), which rules out the large tiles."""
    if is_8bit(dtype):
        dtype = "int8"
    if aligned:
        if dtype == "float32":
            return [(128, 128, 32, 8, 8, 3), (128, 64, 32, 8, 4, 3),
                    (64, 128, 32, 8, 4, 3), (64, 64, 32, 8, 4, 3)]
        if dtype == "int8":
            return [(128, 256, 64, 8, 8, 3), (128, 128, 128, 8, 8, 4),
                    (128, 128, 64, 8, 8, 4), (128, 64, 64, 8, 4, 3),
                    (64, 64, 64, 8, 4, 4)]
        # (The last two, one warpgroup on a 64 x 128 or 128 x 64 tile, put
        # more programs on the SMs where C has few 128 x 128 tiles: 1024^3
        # on an H100 ran 20% faster with them through descriptors. 64 x 128
        # x 64 takes 3 stages: with 4, ptxas spills 4 bytes of the sm_80
        # pointer kernel.)
        return [(128, 256, 64, 8, 8, 3), (128, 256, 32, 8, 8, 4),
                (128, 128, 64, 8, 8, 3), (128, 128, 32, 8, 4, 4),
                (64, 128, 32, 8, 4, 4), (64, 128, 64, 8, 4, 3), (128, 64, 64, 8, 4, 4)]
    if dtype == "float32":
        return [(128, 128, 16, 8, 8, 3), (128, 64, 16, 8, 4, 3),
                (64, 128, 16, 8, 4, 3), (64, 64, 16, 8, 4, 3)]
    # (Scalar loads need a register per element in flight: 128 x 64 tiles
    # take 8 warps, and BLOCK_K stays at 32, or they spill.)
    if dtype == "int8":
        return [(128, 128, 32, 8, 8, 3), (128, 64, 32, 8, 8, 3),
                (64, 128, 32, 8, 4, 3), (64, 64, 32, 8, 4, 3)]
    return [(128, 128, 32, 8, 8, 3), (128, 64, 32, 8, 8, 3), (64, 128, 32, 8, 4, 3),
            (64, 64, 32, 8, 4, 3)]


def descriptor_configs(dtype="float16"):
    """The configs tried for the descriptor kernels (matmul_tma: TMA and
    wgmma on sm_90a): matmul_configs(dtype) and, for 8-bit types, 128 x 256
    tiles with 128-byte rows of K (3 stages), which wgmma's 8-bit K of 32
    makes the fastest on an H100 (fp8 at 8192^3: 1188 TFLOP/s against 993
    through the pointer kernel's best) and which the pointer kernel is not
    given (ptxas 13.0 spills 8 bytes of it for sm_89's mma.sync)."""
    configs = matmul_configs(dtype, aligned=True)
    if is_8bit(dtype):
        configs = configs + [(128, 256, 128, 8, 8, 3)]
    return configs


# The host helpers below stay within the kernel language's syntax: the C++
# front end reads this whole file.
def _dtype_name(t):
    name = str(t.dtype).replace("torch.", "")
    if name == "half":
        return "float16"
    return name


def _itemsize(t):
    if hasattr(t, "element_size") and callable(t.element_size):
        return t.element_size()
    return t.itemsize


def _stride(t, i):
    if hasattr(t, "stride") and callable(t.stride):
        return t.stride(i)
    return t.strides[i] // t.itemsize


def _lines_aligned(t, unit):
    """Whether 2-D `t` is contiguous along one dimension, with that
    dimension's length and the other dimension's stride multiples of
    `unit` elements: its lines then start on 16-byte boundaries."""
    rows, cols = t.shape
    if _stride(t, 1) == 1:
        return cols % unit == 0 and _stride(t, 0) % unit == 0
    if _stride(t, 0) == 1:
        return rows % unit == 0 and _stride(t, 1) % unit == 0
    return False


def rows_aligned(a, b):
    """Whether matmul_configs(dtype, aligned=True) fit A and B: each
    contiguous along one dimension (row- or column-major), that dimension's
    length and the other stride multiples of 8 elements (16 for 8-bit
    types), which a launch sees as `:8` or `:16` facts, so that lines are
    16-byte aligned."""
    unit = 16 if _itemsize(a) == 1 else 8
    return _lines_aligned(a, unit) and _lines_aligned(b, unit)


def autotuned_kernel(dtype="float16", aligned=True, scaled=False, variant=(),
                     _made=dict()):
    """matmul_kernel (scaled_matmul_kernel when `scaled`) under
    @tilec.autotune: its configs are matmul_configs(dtype, aligned), tuned
    per (M, N, K) on first use and remembered (docs/autotune.md). One tuner
    per dtype, alignment, kernel and `variant` (what else makes another
    kernel of the same shapes: matmul() gives B's layout, as column-major
    8-bit operands run on wgmma, and max_num_imprecise_acc)."""
    key = (dtype, aligned, scaled, variant)
    if key not in _made:
        configs = []
        for bm, bn, bk, gm, warps, stages in matmul_configs(dtype, aligned):
            configs.append(tilec.Config(
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm),
                num_warps=warps, num_stages=stages))
        kernel = scaled_matmul_kernel if scaled else matmul_kernel
        # (a call, not `_made[key] = ...`: the C++ front end reads this file)
        _made.setdefault(key, tilec.autotune(configs=configs, key=["M", "N", "K"])(kernel))
    return _made[key]


def _numel(t):
    if hasattr(t, "numel") and callable(t.numel):
        return t.numel()
    return t.size


def _is_fp8(t):
    name = _dtype_name(t)
    return name.startswith("float8") or name.startswith("fp8")


def _contiguous(t):
    if hasattr(t, "is_contiguous") and callable(t.is_contiguous):
        return t.is_contiguous()
    return t.flags["C_CONTIGUOUS"]


def _zeros(like, shape):
    """Zeros of `like`'s type, on its device: a torch tensor, or a numpy
    array."""
    if hasattr(like, "new_zeros"):
        return like.new_zeros(shape)
    import numpy
    return numpy.zeros(shape, like.dtype)


def _default_config(dtype, aligned, imprecise):
    """matmul_configs()'s first for these operands; with fp32 sums of fp8
    runs (max_num_imprecise_acc), whose second set of accumulators doubles
    them, the first with at most 64 per thread (128 x 256 on 8 warps
    would spill)."""
    configs = matmul_configs(dtype, aligned)
    if imprecise >= 0:
        for bm, bn, bk, gm, warps, stages in configs:
            if bm * bn <= 64 * 32 * warps:
                return (bm, bn, bk, gm, warps, stages)
    return configs[0]


def _tuned_grid(META):
    return (tilec.cdiv(META["M"], META["BLOCK_M"]) * tilec.cdiv(META["N"], META["BLOCK_N"]),)


def matmul(a, b, c, bias=None, activation="", input_precision="tf32",
           config=None, autotune=False, scale_a=None, scale_b=None,
           max_num_imprecise_acc=None, tuned=True):
    """C = act(A @ B + bias) for 2-D torch tensors (or arrays with strides);
    act is "", "relu" or "gelu" (tanh-approximated GELU, whose tanh is
    tanh.approx.f32 for a C of fewer than 32 bits: epilogue()).
    `config` is one of matmul_configs(); with `autotune` the fastest of
    those for this M, N and K (autotuned_kernel()) instead. Given neither,
    a 16-bit product of torch tensors on a GPU the shipped table covers
    (kernels/matmul_tuned.py, `tuned`) runs the kernel and config measured
    fastest at the nearest shape there (a descriptor or persistent kernel
    where the operands allow it); anything else the first config for the
    operands' type and alignment. With `scale_a` and
    `scale_b` (fp32, fp8 operands): C = act((A @ B) * scale_a * scale_b +
    bias), the scales one value each or one per row of A (M) and one per
    column of B (N), as torch._scaled_mm (scaled_matmul_kernel).
    `max_num_imprecise_acc` (fp8) is tl.dot's: on sm_90a's
    wgmma (B column-major) the instruction's fp8 accumulator, which keeps
    about 13 significant bits, is added into fp32 after that many K
    elements (at most BLOCK_K: after each iteration when it is larger);
    None (the default, Triton's on Hopper) sums all of K in it,
    as cuBLAS does with use_fast_accum. mma.sync sums in fp32 anyway."""
    imprecise = -1 if max_num_imprecise_acc is None else int(max_num_imprecise_acc)
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "inner dimensions differ"
    if K == 0 and M > 0 and N > 0:
        # An empty A or B has no memory to pass (a null pointer, which a
        # launch refuses): the same empty sum from 16 columns and rows of
        # zeros (aligned for every type), C = act(bias).
        a, b = _zeros(a, (M, 16)), _zeros(b, (16, N))
        K = 16
    variant = (_stride(b, 0) == 1, imprecise)
    aligned = rows_aligned(a, b)
    s = _stride
    bias_ptr = bias if bias is not None else c
    if scale_a is not None or scale_b is not None:
        assert scale_a is not None and scale_b is not None, "give both scales or neither"
        rowwise = _numel(scale_a) == M and _numel(scale_b) == N and not (
            _numel(scale_a) == 1 and _numel(scale_b) == 1)
        assert rowwise or (_numel(scale_a) == 1 and _numel(scale_b) == 1), \
            "scales: one value each, or M for A's rows and N for B's columns"
        assert _is_fp8(a) and _is_fp8(b), "scales go with fp8 operands (e4m3, e5m2)"
        assert not _dtype_name(c).startswith("int"), "a scaled product is stored as floats"
        assert _contiguous(scale_a) and _contiguous(scale_b), "the scales must be contiguous"
        if autotune:
            autotuned_kernel(_dtype_name(a), aligned, True, variant)[_tuned_grid](
                a, b, c, scale_a, scale_b, bias_ptr, M, N, K, s(a, 0), s(a, 1), s(b, 0),
                s(b, 1), s(c, 0), s(c, 1), ROWWISE=rowwise, HAS_BIAS=bias is not None,
                ACTIVATION=activation, MAX_IMPRECISE_ACC=imprecise)
            return c
        bm, bn, bk, gm, warps, stages = config or _default_config(_dtype_name(a), aligned, imprecise)
        grid = (tilec.cdiv(M, bm) * tilec.cdiv(N, bn),)
        scaled_matmul_kernel[grid](
            a, b, c, scale_a, scale_b, bias_ptr, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1),
            s(c, 0), s(c, 1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
            ROWWISE=rowwise, HAS_BIAS=bias is not None, ACTIVATION=activation,
            MAX_IMPRECISE_ACC=imprecise, num_warps=warps, num_stages=stages)
        return c
    if config is None and not autotune and tuned and imprecise < 0:
        import matmul_tuned  # kernels/matmul_tuned.py: host-side Python
        picked = matmul_tuned.pick(a, b, c, aligned)
        if picked is not None:
            kind, options, config = picked
            if kind != "pointers":  # (matmul_tma leaves empty C, K = 0 to pointers)
                return matmul_tuned.run(kind, options, a, b, c, config, bias=bias,
                                        activation=activation)
    if autotune:
        autotuned_kernel(_dtype_name(a), aligned, False, variant)[_tuned_grid](
            a, b, c, bias_ptr, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1),
            s(c, 0), s(c, 1), HAS_BIAS=bias is not None, ACTIVATION=activation,
            INPUT_PRECISION=input_precision, MAX_IMPRECISE_ACC=imprecise)
        return c
    bm, bn, bk, gm, warps, stages = config or _default_config(_dtype_name(a), aligned, imprecise)
    grid = (tilec.cdiv(M, bm) * tilec.cdiv(N, bn),)
    matmul_kernel[grid](a, b, c, bias_ptr, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1),
                        s(c, 0), s(c, 1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                        GROUP_M=gm, HAS_BIAS=bias is not None, ACTIVATION=activation,
                        INPUT_PRECISION=input_precision, MAX_IMPRECISE_ACC=imprecise,
                        num_warps=warps, num_stages=stages)
    return c


def tma_store_clips_exactly(columns, element_bytes):
    """True when a TMA store clips at the end of C's rows exactly: rows of
    a multiple of 16 bytes (TMA clips to the next 16-byte boundary)."""
    return columns * element_bytes % 16 == 0


#: Configs of tiles whose width is not a power of two, for the persistent
#: kernel alone (matmul_tma splits them: split_width). 256 x 160 is the
#: tile cuBLAS runs at 3000 x 5000 x 1000 (its 160 x 256 is of C's
#: transpose, torch's row-major product as cuBLAS sees it): fewer tiles
#: than 128 x 256 where N is not a multiple of 256, for 160 accumulator
#: registers a thread (192 at 256 x 192) against 128.
WIDE_CONFIGS = [(256, 160, 64, 8, 8, 3), (256, 192, 64, 8, 8, 3), (128, 160, 64, 8, 8, 4),
                (128, 192, 64, 8, 8, 3)]


def split_width(bn):
    """(BLOCK_N, TAIL_N) for a tile `bn` columns wide: (bn, 0) where bn is a
    power of two; otherwise its largest power of two and the rest, which
    must be one too (160 = 128 + 32, 192 = 128 + 64: matmul_persistent_
    kernel's TAIL_N)."""
    if bn > 0 and bn & (bn - 1) == 0:
        return bn, 0
    main = 1 << (max(bn, 1).bit_length() - 1)
    tail = bn - main
    # (A tail under 16 columns is no wgmma's N and no TMA box.)
    if bn <= 0 or tail & (tail - 1) or tail < 16:
        raise ValueError(f"BLOCK_N = {bn} is neither a power of two nor the sum of two, "
                         "the smaller at least 16")
    return main, tail


def default_epilogue_pieces(config, c_bytes):
    """How many pieces of columns matmul_persistent_kernel stores a tile
    of C (elements of `c_bytes` bytes) in at `config`: the fewest (up to
    4) that keep a piece within 16 KB, a 128 x 64 piece of a 16-bit C."""
    bm, bn = config[0], config[1]
    pieces = 1
    while pieces < 4 and bm * bn * c_bytes // pieces > 16384 and (bn // pieces) % 2 == 0:
        pieces *= 2
    return pieces


def matmul_tma(a, b, c, config, bias=None, activation="", programs=None,
               warp_specialize=False, tma_store=False, epilogue_pieces=None,
               consumer_groups=1, cluster=1, stream_k=False):
    """C = act(A @ B + bias) with A and B read through tensor descriptors
    (TMA on sm_90a): matmul_desc_kernel on one program per tile, or, given
    `programs`, matmul_persistent_kernel on that many (one per SM, say),
    each walking several tiles; `warp_specialize` gives either a producer
    warpgroup issuing the copies (sm_90a); `tma_store` writes C through a
    descriptor too (TMA on sm_90a; C contiguous along N). The persistent
    kernel stores each tile in `epilogue_pieces` pieces of columns (1, 2 or
    4; by default as many as keep a piece within 16 KB), each through a
    buffer of its own size: the epilogue in its loop then leaves the
    pipeline the shared memory of a stage more. `config` is one of
    descriptor_configs(); A is contiguous along K (its last stride 1), B along
    N (row-major) or along K (column-major, as `b.T` of an N x K tensor:
    read as N x K blocks and transposed, which wgmma takes for every type,
    fp8 and int8 included, where a row-major B of 8-bit elements goes to
    mma.sync). `consumer_groups` > 1 (persistent and warp-specialised
    only) gives the persistent kernel that many groups of the config's
    warps, taking turns at its tiles (ping-pong). A config's BLOCK_N that
    is not a power of two but the sum of two (160 = 128 + 32; persistent
    only, not with consumer_groups or stream_k) runs as TAIL_N: two dots
    per K step. `cluster` = 2 or 4
    (persistent and warp-specialised only) launches it in clusters of that
    many programs that share B's blocks (`programs` rounded down to whole
    clusters, and to as many as the GPU runs at once). `stream_k`
    (persistent only, not with consumer_groups) splits the last round of
    tiles, the one that would leave programs idle, by K steps among all
    programs (matmul_persistent_kernel's STREAM_K), through a workspace
    kept per device and stream (stream_k_workspace()); the kernel then
    has atomics, so C leaves through pointers (tma_store has no effect).
    The sums' order depends on the grid. An empty C is left alone, and
    with K = 0 (no tensor map describes an empty tensor) C = act(bias)
    comes from matmul()."""
    bm, width, bk, gm, warps, stages = config
    bn, tail_n = split_width(width)
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "inner dimensions differ"
    assert tail_n == 0 or (programs is not None and consumer_groups == 1 and not stream_k), \
        f"BLOCK_N = {width} (not a power of two) needs the persistent kernel (programs), " \
        "without consumer_groups or stream_k"
    assert programs is None or programs >= 1, "programs must be at least 1"
    assert consumer_groups == 1 or (programs is not None and warp_specialize), \
        "consumer_groups needs the persistent kernel (programs) and warp_specialize"
    assert cluster in (1, 2, 4), "cluster must be 1, 2 or 4"
    assert cluster == 1 or (programs is not None and warp_specialize), \
        "cluster needs the persistent kernel (programs) and warp_specialize"
    assert not stream_k or (programs is not None and consumer_groups == 1), \
        "stream_k needs the persistent kernel (programs), without consumer_groups"
    if M == 0 or N == 0:
        return c
    if K == 0:
        return matmul(a, b, c, bias=bias, activation=activation,
                      config=(bm, bn, bk, gm, warps, stages))
    s = _stride
    # (A B of one row or one column is both: row-major then.)
    b_k_major = s(b, 1) != 1 and s(b, 0) == 1
    assert s(a, 1) == 1 and (s(b, 1) == 1 or b_k_major), \
        "A must be contiguous along K, and B along N or K"
    stride_b = s(b, 1) if b_k_major else s(b, 0)
    assert not tma_store or s(c, 1) == 1, "tma_store needs C contiguous along its rows"
    bias_ptr = bias if bias is not None else c
    # TMA clips a store along C's rows only to the next 16-byte boundary.
    # Where N may leave a row short of one, the compiler tests it at run
    # time and stores through pointers (docs/pipeline.md); a C known to
    # need that gets the pointer kernel alone, with no TMA path compiled
    # beside it.
    tma_store = tma_store and tma_store_clips_exactly(N, _itemsize(c))
    if programs is None:
        grid = (tilec.cdiv(M, bm) * tilec.cdiv(N, bn),)
        matmul_desc_kernel[grid](a, b, c, bias_ptr, M, N, K, s(a, 0), stride_b, s(c, 0),
                                 s(c, 1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                                 HAS_BIAS=bias is not None, ACTIVATION=activation,
                                 WARP_SPECIALIZE=warp_specialize, TMA_STORE=tma_store,
                                 B_K_MAJOR=b_k_major, num_warps=warps, num_stages=stages)
    else:
        if epilogue_pieces is None:
            epilogue_pieces = default_epilogue_pieces((bm, bn), _itemsize(c))
        assert epilogue_pieces in (1, 2, 4) and bn % epilogue_pieces == 0, \
            "epilogue_pieces must be 1, 2 or 4 and divide BLOCK_N"
        assert not tma_store or bn // epilogue_pieces * _itemsize(c) >= 16, \
            "a piece stored by TMA must be at least 16 bytes wide"
        args = (a, b, c, bias_ptr, M, N, K, s(a, 0), stride_b, s(c, 0), s(c, 1), c, c)
        constexprs = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                          HAS_BIAS=bias is not None, ACTIVATION=activation, STAGES=stages,
                          WARP_SPECIALIZE=warp_specialize, TMA_STORE=tma_store,
                          EPILOGUE_PIECES=epilogue_pieces, B_K_MAJOR=b_k_major,
                          CONSUMER_GROUPS=consumer_groups, CLUSTER=cluster,
                          STREAM_K=stream_k, TAIL_N=tail_n,
                          TAIL_PIECES=default_epilogue_pieces((bm, tail_n), _itemsize(c)),
                          num_warps=warps)
        if stream_k:
            # (The slots hold the accumulator's type: int32 for int8. Made
            # before the clusters are counted, for the kernel that runs.)
            args = args[:-2] + stream_k_workspace(a, c, programs, bm * bn)
        if cluster > 1:
            programs = _whole_clusters(programs, cluster, args, constexprs)
        global last_grid
        last_grid = programs
        matmul_persistent_kernel[(programs,)](*args, **constexprs)
    return c


#: (GPU, A's and C's types, the persistent kernel's constexprs): how many of
#: its clusters that GPU runs at once. (What sets that, the block and its
#: shared memory, follows from these; the sizes' and strides'
#: specialisations, which the key leaves out, change neither.)
_clusters_at_once = {}

#: The grid of matmul_tma's last persistent launch (what a benchmark
#: reports beside the programs it asked for).
last_grid = None


#: (device, stream, accumulator type) -> (partials, flags) of the stream-K
#: matmul: grown as needed, never shrunk. The flags are zeros between
#: launches (each launch puts back what it raises); one workspace per
#: stream, since two launches at once would share the slots.
_stream_k_workspaces = {}


def stream_k_workspace(a, c, programs, tile_elements):
    """(partials, flags) for a stream-K matmul_persistent_kernel of
    `programs` programs (at most) and tiles of `tile_elements`: programs
    slots of fp32 sums (int32 where C is), and programs int32 flags,
    zeros. Kept per device and stream for tensors on a GPU; new numpy
    arrays otherwise (the interpreter). Launches that may run at once
    must be on different streams: two replays at once of CUDA graphs
    captured on one stream would share the flags."""
    acc_int = _dtype_name(c) == "int32"
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not isinstance(a, torch.Tensor) or a.device.type != "cuda":
        import numpy as np
        return (np.zeros(programs * tile_elements, np.int32 if acc_int else np.float32),
                np.zeros(programs, np.int32))
    key = (str(a.device), torch.cuda.current_stream(a.device).cuda_stream, acc_int)
    partials, flags = _stream_k_workspaces.get(key, (None, None))
    if partials is None or partials.numel() < programs * tile_elements or flags.numel() < programs:
        partials = torch.empty(programs * tile_elements, device=a.device,
                               dtype=torch.int32 if acc_int else torch.float32)
        flags = torch.zeros(programs, device=a.device, dtype=torch.int32)
        _stream_k_workspaces[key] = (partials, flags)
    return partials, flags


def _whole_clusters(programs, cluster, args, constexprs):
    """`programs` rounded down to whole clusters of `cluster`, and on a GPU
    to no more clusters than it runs at once (the kernel's
    max_active_clusters(): a cluster past them would wait for a whole
    earlier one to end, its tiles after everyone else's); at least one.
    The interpreter, and a GPU whose driver cannot say, get the rounding
    alone."""
    clusters = max(1, programs // cluster)
    a, c = args[0], args[2]
    device = getattr(a, "device", None)
    if matmul_persistent_kernel.interpret or getattr(device, "type", None) != "cuda":
        return cluster * clusters
    key = (str(device), str(a.dtype), str(c.dtype), tuple(sorted(constexprs.items())))
    if key not in _clusters_at_once:
        kernel = matmul_persistent_kernel.warmup(*args, grid=(cluster,), **constexprs)
        try:
            _clusters_at_once[key] = kernel.max_active_clusters()
        except tilec.Error:
            _clusters_at_once[key] = clusters
    return cluster * max(1, min(clusters, _clusters_at_once[key]))
