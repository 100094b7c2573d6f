# Loops for tilegpu-pipeline-loads (pipeline.test): which it pipelines and
# which it must leave alone.
import tilec
import tilec.language as tl


@tilec.jit
def dot_loop(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
             STAGES: tl.constexpr):
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    b_ptrs = b_ptr + k[:, None] * BLOCK + r[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptrs, mask=k[None, :] < K - i, other=0.0)
        b = tl.load(b_ptrs, mask=k[:, None] < K - i, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BLOCK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def nonzero_other(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    b_ptrs = b_ptr + k[:, None] * BLOCK + r[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, K, BK):
        # cp.async fills masked-off elements with zeros, not ones.
        a = tl.load(a_ptrs, mask=k[None, :] < K - i, other=1.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BLOCK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def stores_in_loop(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    b_ptrs = b_ptr + k[:, None] * BLOCK + r[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        # A later iteration's load may read what this writes.
        tl.store(a_ptrs, a + 1.0)
        a_ptrs += BK
        b_ptrs += BK * BLOCK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def pointer_used_after(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    b_ptrs = b_ptr + k[:, None] * BLOCK + r[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BLOCK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
    # The loop's last pointers: running them ahead would move this store.
    tl.store(a_ptrs, tl.zeros((BLOCK, BK), dtype=tl.float16))


@tilec.jit
def dot_bt_loop(a_ptr, w_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                STAGES: tl.constexpr):
    # x @ W^T: W stored BLOCK x K (rows of K contiguous), its tile
    # transposed in the dot.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    w_ptrs = w_ptr + r[:, None] * K + k[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptrs, mask=k[None, :] < K - i, other=0.0)
        w = tl.load(w_ptrs, mask=k[None, :] < K - i, other=0.0)
        acc = tl.dot(a, tl.trans(w), acc)
        a_ptrs += BK
        w_ptrs += BK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def dot_bt_loop_strided_a(a_ptr, w_ptr, c_ptr, K, stride_a, BLOCK: tl.constexpr,
                          BK: tl.constexpr, STAGES: tl.constexpr):
    # dot_bt_loop with A's rows stride_a apart: without a fact on stride_a
    # A comes in 2-byte vectors, which cp.async cannot copy.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * stride_a + k[None, :]
    w_ptrs = w_ptr + r[:, None] * K + k[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptrs, mask=k[None, :] < K - i, other=0.0)
        w = tl.load(w_ptrs, mask=k[None, :] < K - i, other=0.0)
        acc = tl.dot(a, tl.trans(w), acc)
        a_ptrs += BK
        w_ptrs += BK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def row_sums(x_ptr, g_ptr, out_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
             STAGES: tl.constexpr, X_OTHER: tl.constexpr = 0.0):
    # No dot: the tiles are used in registers. tl.range's num_stages asks
    # for the loads to be pipelined anyway (x's tile and g's vector, which
    # every row of the tile shares). With X_OTHER nonzero, x's masked-off
    # elements are not the zeros cp.async fills: x stays a load.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    acc = tl.zeros((BLOCK, BK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        live = k < K - i
        x = tl.load(x_ptr + r[:, None] * K + (i + k)[None, :], mask=live[None, :],
                    other=X_OTHER)
        g = tl.load(g_ptr + i + k, mask=live, other=0.0)
        acc += x.to(tl.float32) * g.to(tl.float32)[None, :]
    tl.store(out_ptr + r, tl.sum(acc, axis=1))


@tilec.jit
def row_sums_default(x_ptr, g_ptr, out_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    # The same with range(): without a dot, nothing is pipelined unless
    # the loop asks.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    acc = tl.zeros((BLOCK, BK), dtype=tl.float32)
    for i in range(0, K, BK):
        live = k < K - i
        x = tl.load(x_ptr + r[:, None] * K + (i + k)[None, :], mask=live[None, :], other=0.0)
        g = tl.load(g_ptr + i + k, mask=live, other=0.0)
        acc += x.to(tl.float32) * g.to(tl.float32)[None, :]
    tl.store(out_ptr + r, tl.sum(acc, axis=1))


@tilec.jit
def row_sums_mixed(x_ptr, g_ptr, out_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                   STAGES: tl.constexpr):
    # Three plain loads: g's pointer is carried and used after the loop (it
    # cannot run ahead), h's carries an eviction hint (cp.async would drop
    # it): both stay loads; x's tile still goes through a ring.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    g_ptrs = g_ptr + k
    acc = tl.zeros((BLOCK, BK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        x = tl.load(x_ptr + r[:, None] * K + (i + k)[None, :])
        g = tl.load(g_ptrs)
        h = tl.load(g_ptr + K + i + k, eviction_policy="evict_first")
        acc += x.to(tl.float32) * (g + h).to(tl.float32)[None, :]
        g_ptrs += BK
    tl.store(out_ptr + r, tl.sum(acc, axis=1))
    tl.store(g_ptrs + k, tl.zeros((BK,), dtype=tl.float16))


@tilec.jit
def dot_and_big_plain(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                      STAGES: tl.constexpr):
    # A dot's operands and a plain tile whose ring would not leave them
    # their stages in shared memory: the plain load stays a load, the dot's
    # rings keep every stage.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    big = tl.arange(0, 32768)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    total = tl.zeros((32768,), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptr + r[:, None] * K + (i + k)[None, :])
        b = tl.load(b_ptr + (i + k)[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
        total += tl.load(a_ptr + i * 16 + big).to(tl.float32)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc + tl.sum(total, axis=0))


@tilec.jit
def row_sums_stored(x_ptr, g_ptr, out_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                    STAGES: tl.constexpr, INTO_X: tl.constexpr = False):
    # Each iteration stores the sums so far. Through out_ptr, which no
    # pipelined load reads, the loop keeps its rings; through x_ptr
    # (INTO_X), a later iteration's tile could hold what it wrote.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    acc = tl.zeros((BLOCK, BK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        live = k < K - i
        x = tl.load(x_ptr + r[:, None] * K + (i + k)[None, :], mask=live[None, :], other=0.0)
        g = tl.load(g_ptr + i + k, mask=live, other=0.0)
        acc += x.to(tl.float32) * g.to(tl.float32)[None, :]
        if INTO_X:
            tl.store(x_ptr + r * K, tl.sum(acc, axis=1).to(tl.float16))
        else:
            tl.store(out_ptr + r, tl.sum(acc, axis=1))


@tilec.jit
def dot_loop_stored(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                    STAGES: tl.constexpr = 0):
    # A dot loop storing each iteration's accumulator through c_ptr: only
    # a loop that gives its own stages (STAGES > 0) promises that c does
    # not overlap a and b; the config's stages alone do not pipeline it.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    b_ptrs = b_ptr + k[:, None] * BLOCK + r[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    if STAGES > 0:
        for i in tl.range(0, K, BK, num_stages=STAGES):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
            a_ptrs += BK
            b_ptrs += BK * BLOCK
    else:
        for i in range(0, K, BK):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
            a_ptrs += BK
            b_ptrs += BK * BLOCK


@tilec.jit
def row_sums_synced(x_ptr, g_ptr, out_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr,
                    STAGES: tl.constexpr, HOW: tl.constexpr = 0):
    # An atomic through out_ptr in each iteration: a relaxed one (HOW 0)
    # orders nothing, and the loop keeps its rings; an acquiring one (HOW 1,
    # acq_rel) may guard the loads after it, as may a volatile load (HOW
    # 2, a polled flag): those loops are left alone.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    acc = tl.zeros((BLOCK, BK), dtype=tl.float32)
    for i in tl.range(0, K, BK, num_stages=STAGES):
        if HOW == 0:
            tl.atomic_add(out_ptr, 1.0, sem="relaxed")
        elif HOW == 1:
            tl.atomic_add(out_ptr, 1.0)
        else:
            acc += tl.load(out_ptr, volatile=True)
        live = k < K - i
        x = tl.load(x_ptr + r[:, None] * K + (i + k)[None, :], mask=live[None, :], other=0.0)
        g = tl.load(g_ptr + i + k, mask=live, other=0.0)
        acc += x.to(tl.float32) * g.to(tl.float32)[None, :]
    tl.store(out_ptr + r, tl.sum(acc, axis=1))


@tilec.jit
def flat_tiles(a_ptr, b_ptr, c_ptr, K, TILES, BLOCK: tl.constexpr, BK: tl.constexpr):
    # One loop over (tile, K step) pairs, each tile of A's rows found by
    # dividing the induction variable by a step count known at run time.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    steps = K // BK
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in tl.range(0, TILES * steps, num_stages=3):
        rows = (i // steps) * BLOCK + r
        kk = (i % steps) * BK + k
        a = tl.load(a_ptr + rows[:, None] * K + kk[None, :])
        b = tl.load(b_ptr + kk[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@tilec.jit
def tma_loop_storing(a_ptr, b_ptr, c_ptr, K, OUT_IS_A: tl.constexpr):
    # Blocks of A and B through tensor maps, each iteration's product stored
    # through c_ptr, or through a_ptr, which A's map reads: then a copy
    # issued ahead could read what an earlier iteration has not yet stored.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, num_stages=3):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
        if OUT_IS_A:
            tl.store(a_ptr + r[:, None] * K + r[None, :], acc.to(tl.float16))
        else:
            tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc.to(tl.float16))


@tilec.jit
def tma_loop_checkpoints(a_ptr, b_ptr, c_ptr, s_ptr, d_ptr, K, CASE: tl.constexpr = "plain"):
    # The running product stored now and then (every fourth K step), never
    # reset: the dot stays in flight except in the iterations that store.
    # CASE "plain" stores it as it is; the others scale it by the columns
    # of s and count each checkpoint in d, their ops before the first read
    # of the product in the order CASE says: "load" (read s, write d),
    # "store" (write d, read s), "nested" (write d inside an if, read s).
    # (A barrier in the body would keep the whole loop synchronous.)
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, num_stages=3):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
        if k % 256 == 192:
            out = c_ptr + (k // 256) * 4096 + r[:, None] * 64 + r[None, :]
            if CASE == "plain":
                tl.store(out, acc)
            else:
                if CASE == "load":
                    scale = tl.load(s_ptr + r)
                    tl.store(d_ptr + k // 256, k)
                elif CASE == "store":
                    tl.store(d_ptr + k // 256, k)
                    scale = tl.load(s_ptr + r)
                else:
                    if k > 0:
                        tl.store(d_ptr + k // 256, k)
                    scale = tl.load(s_ptr + r)
                tl.store(out, acc * scale[None, :])


@tilec.jit
def tma_epilogue_cases(a_ptr, b_ptr, c_ptr, K, CASE: tl.constexpr):
    # Loops whose dot stays synchronous although an epilogue reads it:
    # "two": two accumulators stored by one if; "twice": the product also
    # carried in a second iteration argument; "else": the if has an else.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    out = c_ptr + r[:, None] * 64 + r[None, :]
    acc = tl.zeros((64, 64), dtype=tl.float32)
    other = tl.zeros((64, 64), dtype=tl.float32) + 1.0
    for k in tl.range(0, K, 64, num_stages=3):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
        if CASE == "two":
            other = tl.dot(a.load([0, k]), b.load([k, 0]), other)
            if k % 256 == 192:
                tl.store(out, acc + other)
        elif CASE == "twice":
            other = acc
            if k % 256 == 192:
                tl.store(out, acc)
        else:
            if k % 256 == 192:
                tl.store(out, acc)
            else:
                tl.store(out + 4096, acc)
    tl.store(out + 8192, acc + other)


@tilec.jit
def dot_bt_plain_loop(a_ptr, w_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    # dot_bt_loop in a plain range() loop: the compile's num_stages decides.
    r = tl.arange(0, BLOCK)
    k = tl.arange(0, BK)
    a_ptrs = a_ptr + r[:, None] * K + k[None, :]
    w_ptrs = w_ptr + r[:, None] * K + k[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, K, BK):
        a = tl.load(a_ptrs, mask=k[None, :] < K - i, other=0.0)
        w = tl.load(w_ptrs, mask=k[None, :] < K - i, other=0.0)
        acc = tl.dot(a, tl.trans(w), acc)
        a_ptrs += BK
        w_ptrs += BK
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
