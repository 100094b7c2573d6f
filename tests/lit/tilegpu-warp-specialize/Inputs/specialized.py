# Loops for tilegpu-warp-specialize (warp-specialize.test): which it
# specialises, which it leaves alone, which it refuses.
import tilec
import tilec.language as tl


@tilec.jit
def in_an_if(a_ptr, b_ptr, c_ptr, K, FLAG):
    # The marked loop inside an if: the producer warp could not repeat the
    # kernel's path to it.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    if FLAG > 0:
        for k in tl.range(0, K, 64, warp_specialize=True):
            acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def loaded_offset(a_ptr, b_ptr, c_ptr, offsets_ptr, K):
    # The blocks' row comes from memory: a value the producer warp cannot
    # compute by arithmetic.
    a = tl.make_tensor_descriptor(a_ptr, [1024, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    row = tl.load(offsets_ptr)
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        acc = tl.dot(a.load([row, k]), b.load([k, 0]), acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def pointer_operands(a_ptr, b_ptr, c_ptr, K):
    # Dot operands read through pointers: nothing for a producer warp to
    # copy, the mark is dropped and the loop pipelines as any other.
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def spin_before(a_ptr, b_ptr, c_ptr, flag, K):
    # A flag polled before the loop: the copies must not start before it.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    while tl.atomic_cas(flag, 1, 1) != 1:
        pass
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def reduced(a_ptr, b_ptr, c_ptr, K):
    # A reduction across warps in the consumers' loop.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    total = tl.zeros((64,), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
        total += tl.sum(acc, axis=0)
    tl.store(c_ptr + r, total)


@tilec.jit
def yielded(a_ptr, b_ptr, c_ptr, K):
    # A coordinate carried from a value computed before the loop.
    a = tl.make_tensor_descriptor(a_ptr, [1024, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    base = tl.program_id(0) * 64
    off = 0
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        acc = tl.dot(a.load([off, k]), b.load([k, 0]), acc)
        off = base
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def _specialized_product(a_ptr, b_ptr, c_ptr, K, WAIT_IN_LOOP: tl.constexpr = False):
    # A 64 x 64 product over K in a warp-specialised loop (inlined into
    # the kernels below, at their top level); WAIT_IN_LOOP: a gdc_wait in
    # each iteration.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        if WAIT_IN_LOOP:
            tl.extra.cuda.gdc_wait()
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def waits_for_the_grid_before(a_ptr, b_ptr, c_ptr, K):
    # A programmatic dependent launch's wait before the loop: every warp,
    # the producer's included, waits before the roles part.
    tl.extra.cuda.gdc_wait()
    _specialized_product(a_ptr, b_ptr, c_ptr, K)


@tilec.jit
def waits_in_the_loop(a_ptr, b_ptr, c_ptr, K):
    # The wait inside the loop: the producer, which repeats only the
    # coordinates, would copy without it.
    _specialized_product(a_ptr, b_ptr, c_ptr, K, WAIT_IN_LOOP=True)


@tilec.jit
def waits_in_an_if(a_ptr, b_ptr, c_ptr, K, FLAG):
    # The wait inside an if before the loop: refused likewise.
    if FLAG > 0:
        tl.extra.cuda.gdc_wait()
    _specialized_product(a_ptr, b_ptr, c_ptr, K)


@tilec.jit
def prefetches_before_the_wait(a_ptr, b_ptr, c_ptr, K):
    # An L2 prefetch of B before the wait goes ahead of the split with the
    # wait and its range's arithmetic, still before it.
    tl.extra.cuda.prefetch_l2(b_ptr + 64, K * 64 - 64)
    tl.extra.cuda.gdc_wait()
    _specialized_product(a_ptr, b_ptr, c_ptr, K)


@tilec.jit
def gate_and_up(x_ptr, g_ptr, u_ptr, c_ptr, K):
    # Two dots read one block of x (a gate and an up projection): it is
    # copied once per slot, into one ring both dots read.
    x = tl.make_tensor_descriptor(x_ptr, [64, K], [K, 1], [64, 64])
    g = tl.make_tensor_descriptor(g_ptr, [K, 128], [128, 1], [64, 128])
    u = tl.make_tensor_descriptor(u_ptr, [K, 128], [128, 1], [64, 128])
    gate = tl.zeros((64, 128), dtype=tl.float32)
    up = tl.zeros((64, 128), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True):
        block = x.load([0, k])
        gate = tl.dot(block, g.load([k, 0]), gate)
        up = tl.dot(block, u.load([k, 0]), up)
    r = tl.arange(0, 64)
    n = tl.arange(0, 128)
    tl.store(c_ptr + r[:, None] * 128 + n[None, :], gate * up)


@tilec.jit
def per_program_blocks(a_ptr, b_ptr, c_ptr, K):
    # Clusters of two whose blocks all depend on the program's own id: no
    # block is the same in both programs, so nothing is multicast (the
    # kernel still runs in clusters).
    a = tl.make_tensor_descriptor(a_ptr, [1024, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 1024], [1024, 1], [64, 128])
    pid = tl.program_id(0)
    acc = tl.zeros((64, 128), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True, num_ctas=2):
        acc = tl.dot(a.load([pid * 64, k]), b.load([k, pid * 128]), acc)
    r = tl.arange(0, 64)
    n = tl.arange(0, 128)
    tl.store(c_ptr + r[:, None] * 128 + n[None, :], acc)


@tilec.jit
def clusters_without_producer(c_ptr, K):
    # num_ctas asks for clusters that share a producer's copies: without
    # warp_specialize it is refused.
    acc = 0.0
    for k in tl.range(0, K, 1, num_ctas=2):
        acc += k
    tl.store(c_ptr, acc)


@tilec.jit
def clusters_of(c_ptr, K, CTAS: tl.constexpr):
    # num_ctas=CTAS: clusters of 1, 2 or 4 programs, nothing else.
    acc = 0.0
    for k in tl.range(0, K, 1, warp_specialize=True, num_ctas=CTAS):
        acc += k
    tl.store(c_ptr, acc)


@tilec.jit
def carried_column(a_ptr, b_ptr, c_ptr, K):
    # B's column comes from a value the loop carries, which takes the
    # program's place in its cluster: not the same in both programs, so
    # not multicast (a carried value counts as the program's own).
    a = tl.make_tensor_descriptor(a_ptr, [1024, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 4096], [4096, 1], [64, 128])
    acc = tl.zeros((64, 128), dtype=tl.float32)
    column = 0
    for k in tl.range(0, K, 64, warp_specialize=True, num_ctas=2):
        twice = column * 2
        acc = tl.dot(a.load([0, k]), b.load([k, twice]), acc)
        column = twice + tl.extra.cuda.cluster_cta_rank()
    r = tl.arange(0, 64)
    n = tl.arange(0, 128)
    tl.store(c_ptr + r[:, None] * 128 + n[None, :], acc)
