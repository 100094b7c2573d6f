# Loops with consumer groups for tilegpu-warp-specialize
# (consumer-groups.test): a tile walk it gives to groups in turn, and the
# loops it refuses, or the front end refuses, to.
import tilec
import tilec.language as tl


@tilec.jit
def tiles(a_ptr, b_ptr, c_ptr, K, TILES, GROUPS: tl.constexpr, CARRY: tl.constexpr = False,
          READ_AFTER: tl.constexpr = False):
    # Tiles of 64 x 64 one after the other, each K // 64 steps long: the
    # accumulator stored and reset at a tile's last step.
    a = tl.make_tensor_descriptor(a_ptr, [1024, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    steps = K // 64
    acc = tl.zeros((64, 64), dtype=tl.float32)
    count = 0
    for i in tl.range(0, TILES * steps, warp_specialize=True, num_consumer_groups=GROUPS):
        t = i // steps
        k = (i % steps) * 64
        acc = tl.dot(a.load([t * 64, k]), b.load([k, 0]), acc)
        if k + 64 >= K:
            tl.store(c_ptr + (t * 64 + r)[:, None] * 64 + r[None, :], acc)
            acc = tl.zeros_like(acc)
            if CARRY:
                count += 1
    if CARRY:
        tl.store(c_ptr, count)
    if READ_AFTER:
        tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def one_tile(a_ptr, b_ptr, c_ptr, K):
    # One accumulation over the whole loop, never reset: no tiles to share.
    a = tl.make_tensor_descriptor(a_ptr, [64, K], [K, 1], [64, 64])
    b = tl.make_tensor_descriptor(b_ptr, [K, 64], [64, 1], [64, 64])
    r = tl.arange(0, 64)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in tl.range(0, K, 64, warp_specialize=True, num_consumer_groups=2):
        acc = tl.dot(a.load([0, k]), b.load([k, 0]), acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@tilec.jit
def groups_without_producer(a_ptr, K):
    for k in tl.range(0, K, num_consumer_groups=2):
        tl.store(a_ptr + k, 1.0)


@tilec.jit
def groups_on_range(a_ptr, K):
    for k in range(0, K, num_consumer_groups=2):
        tl.store(a_ptr + k, 1.0)


@tilec.jit
def too_many_groups(a_ptr, K):
    for k in tl.range(0, K, warp_specialize=True, num_consumer_groups=5):
        tl.store(a_ptr + k, 1.0)
