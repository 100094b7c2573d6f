"""2-D tile kernels: a copy with strides, and out = x + y^T.

Each program handles one BLOCK_M x BLOCK_N tile. Rows and columns past the
matrix are masked, so any shape works. `offs_m[:, None] * stride +
offs_n[None, :]` is the 2-D address pattern every matrix kernel uses.

copy_2d moves 2 * M * N elements; transpose_add reads 2 * M * N and writes
M * N. Shipped config: BLOCK_M=32, BLOCK_N=64, num_warps=4.
"""
import tilec
import tilec.language as tl


@tilec.jit
def copy_2d(src, dst, M, N, stride_src, stride_dst,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(src + offs_m[:, None] * stride_src + offs_n[None, :], mask=mask)
    tl.store(dst + offs_m[:, None] * stride_dst + offs_n[None, :], tile, mask=mask)


@tilec.jit
def transpose_add(x, y, out, N, stride, BLOCK: tl.constexpr):
    """out[i, j] = x[i, j] + y[j, i] for an N x N matrix."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    mask = (rows[:, None] < N) & (cols[None, :] < N)
    a = tl.load(x + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    b = tl.load(y + cols[None, :] * stride + rows[:, None], mask=mask, other=0.0)
    tl.store(out + rows[:, None] * stride + cols[None, :], a + b, mask=mask)
