"""Kernels of the block pointer tests (test_block_ptr.py and
tests/lit/ptx/block_ptr.test): tl.make_block_ptr, tl.advance, loads and
stores with boundary_check and padding_option, block pointers carried by
loops and passed to helpers."""
import tilec
import tilec.language as tl


@tilec.jit
def copy_tile(x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PADDING: tl.constexpr):
    # One block per program, masked at the tensor's edges; y gets x + 1
    # where x exists (padding where it does not is then 1 or NaN + 1).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_xm, stride_xn),
                          offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                          block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, stride_yn),
                          (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    v = tl.load(x, boundary_check=(0, 1), padding_option=PADDING)
    tl.store(y, v + 1, boundary_check=(0, 1))


@tilec.jit
def _load_tile(block):
    # A helper that takes a block pointer.
    return tl.load(block, boundary_check=(0, 1), padding_option="zero")


@tilec.jit
def matmul_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                     stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A @ B with the operands walked by tl.advance in a loop.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0),
                          (BLOCK_M, BLOCK_K), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N),
                          (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc += tl.dot(_load_tile(a), _load_tile(b))
        a = tl.advance(a, (0, BLOCK_K))
        b = tl.advance(b, (BLOCK_K, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn),
                          (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@tilec.jit
def row_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A 1-D block walked by a while loop, carried with a running sum as a
    # tuple.
    block = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    state = (block, tl.zeros((BLOCK,), tl.float32))
    seen = 0
    while seen < n:
        block, acc = state
        state = (tl.advance(block, (BLOCK,)),
                 acc + tl.load(block, boundary_check=(0,)))
        seen += BLOCK
    tl.store(out_ptr, tl.sum(state[1], axis=0))


@tilec.jit
def unchecked(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # No boundary check: plain loads and stores of a whole block.
    x = tl.make_block_ptr(x_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    y = tl.make_block_ptr(y_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    tl.store(y, tl.load(x) * 2)


@tilec.jit
def mask_with_block(x_ptr):
    x = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.load(x, mask=tl.arange(0, 16) < 4)


@tilec.jit
def check_without_block(x_ptr):
    tl.load(x_ptr + tl.arange(0, 16), boundary_check=(0,))


@tilec.jit
def bad_order(x_ptr):
    tl.make_block_ptr(x_ptr, (16, 16), (16, 1), (0, 0), (16, 16), (0, 0))


@tilec.jit
def bad_rank(x_ptr):
    tl.make_block_ptr(x_ptr, (16,), (16, 1), (0, 0), (16, 16), (1, 0))


@tilec.jit
def bad_check(x_ptr):
    x = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.load(x, boundary_check=(1,))


@tilec.jit
def nan_padding_of_ints(x_ptr):
    x = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.load(x, boundary_check=(0,), padding_option="nan")


@tilec.jit
def block_changes_shape(x_ptr, n):
    x = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    for i in range(n):
        x = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (32,), (0,))
    tl.store(x, 1.0)


@tilec.jit
def skip_first_block(x_ptr, out_ptr, skip, BLOCK: tl.constexpr):
    # A block pointer moved in one branch of a runtime `if`, and a tuple
    # holding one set in both.
    block = tl.make_block_ptr(x_ptr, (2 * BLOCK,), (1,), (0,), (BLOCK,), (0,))
    pair = (block, 1.0)
    if skip != 0:
        block = tl.advance(block, (BLOCK,))
        pair = (block, 2.0)
    else:
        pair = (block, 3.0)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(pair[0]) * pair[1])


@tilec.jit
def if_changes_block_shape(x_ptr, flag):
    block = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    if flag:
        block = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (32,), (0,))
    tl.store(block, 1.0)


@tilec.jit
def _step(a, b, BLOCK: tl.constexpr):
    # A helper that returns block pointers (and a nested tuple).
    return (tl.advance(a, (BLOCK,)), tl.advance(b, (BLOCK,))), BLOCK


@tilec.jit
def copy_halves(x_ptr, y_ptr, BLOCK: tl.constexpr):
    a = tl.make_block_ptr(x_ptr, (2 * BLOCK,), (1,), (0,), (BLOCK,), (0,))
    b = tl.make_block_ptr(y_ptr, (2 * BLOCK,), (1,), (0,), (BLOCK,), (0,))
    tl.store(b, tl.load(a))
    (a, b), step = _step(a, b, BLOCK)
    tl.store(b, tl.load(a) + step // BLOCK)  # step: a number, returned as a scalar


@tilec.jit
def if_keeps_constants(x_ptr, out_ptr, flag):
    # The tuple's number is the same in both branches: it stays a
    # compile-time constant; its tensor differs and is merged.
    t = (tl.load(x_ptr + tl.arange(0, 16)), 16)
    if flag != 0:
        t = (t[0] + 1, 16)
    tl.store(out_ptr + tl.arange(0, t[1]), t[0])
