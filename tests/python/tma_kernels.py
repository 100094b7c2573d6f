"""Kernels of test_gpu_tma.py: tensor descriptors whose blocks feed wgmma,
which sm_90a reads through TMA (tile-lower-descriptors)."""
import tilec
import tilec.language as tl


@tilec.jit
def desc_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, stride_c,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                STAGES: tl.constexpr, NAN: tl.constexpr):
    # C = A @ B, A (M x K) and B (K x N) read through descriptors made in
    # the kernel; the blocks past the edges read the padding.
    if NAN:
        a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_a, 1], [BM, BK],
                                      padding_option="nan")
    else:
        a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_a, 1], [BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_b, 1], [BK, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES):
        acc = tl.dot(a.load([m, k]), b.load([k, n]), acc)
    rows = m + tl.arange(0, BM)
    cols = n + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * stride_c + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@tilec.jit
def desc_matmul_wt(x_ptr, w_ptr, c_ptr, M, N, K, stride_x, stride_w, stride_c,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   STAGES: tl.constexpr):
    # C = X @ W^T with W (N x K): W's blocks are read K-contiguous and the
    # dot reads their transpose (the form 8-bit wgmma needs); int32 sums
    # when C holds int32 (int8 operands), else fp32.
    x = tl.make_tensor_descriptor(x_ptr, [M, K], [stride_x, 1], [BM, BK])
    w = tl.make_tensor_descriptor(w_ptr, [N, K], [stride_w, 1], [BN, BK])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((BM, BN), tl.int32)
    else:
        acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES):
        acc = tl.dot(x.load([m, k]), tl.trans(w.load([n, k])), acc)
    rows = m + tl.arange(0, BM)
    cols = n + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * stride_c + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@tilec.jit
def host_desc_matmul(a_desc, b_desc, c_ptr, M, N, K, stride_c, BM: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr):
    # The same through host-side tilec.TensorDescriptors.
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([m, k]), b_desc.load([k, n]), acc)
    rows = m + tl.arange(0, BM)
    cols = n + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * stride_c + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@tilec.jit
def dot_and_squares(a_ptr, b_ptr, c_ptr, s_ptr, M, K, stride_a, BM: tl.constexpr,
                    BK: tl.constexpr):
    # One TMA block read both by a dot (from its buffer) and in registers,
    # by an op that takes it twice (a * a).
    a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_a, 1], [BM, BK])
    m = tl.program_id(0) * BM
    block = a.load([m, 0])
    rk = tl.arange(0, BK)
    b = tl.load(b_ptr + rk[:, None] * 64 + tl.arange(0, 64)[None, :])
    acc = tl.dot(block, b)
    rows = m + tl.arange(0, BM)
    tl.store(c_ptr + rows[:, None] * 64 + tl.arange(0, 64)[None, :], acc)
    tl.store(s_ptr + rows, tl.sum(block * block, 1))


@tilec.jit
def gate_up(x_ptr, g_ptr, u_ptr, c_ptr, M, N, K, stride_x, stride_w, stride_c,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr,
            WS: tl.constexpr):
    # C = (X @ G) * (X @ U): two dots read each block of X (gate and up
    # projections of one input), which is copied once per K step into one
    # buffer both read; WS gives the loop a producer warpgroup.
    x = tl.make_tensor_descriptor(x_ptr, [M, K], [stride_x, 1], [BM, BK])
    g = tl.make_tensor_descriptor(g_ptr, [K, N], [stride_w, 1], [BK, BN])
    u = tl.make_tensor_descriptor(u_ptr, [K, N], [stride_w, 1], [BK, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    gate = tl.zeros((BM, BN), tl.float32)
    up = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES, warp_specialize=WS):
        block = x.load([m, k])
        gate = tl.dot(block, g.load([k, n]), gate)
        up = tl.dot(block, u.load([k, n]), up)
    rows = m + tl.arange(0, BM)
    cols = n + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * stride_c + cols[None, :], gate * up,
             mask=(rows[:, None] < M) & (cols[None, :] < N))
