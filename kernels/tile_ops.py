"""2-D tile kernels: a copy with strides, a transpose (by its addresses,
and by tl.trans), out = x + y^T, and a scaling that walks down the rows
with loop-carried pointers.

Each program handles one BLOCK_M x BLOCK_N tile (scale_columns: a strip of
BLOCK_N columns). Rows and columns past the matrix are masked, so any
shape works. `offs_m[:, None] * stride + offs_n[None, :]` is the 2-D
address pattern every matrix kernel uses.

Bytes moved: copy_2d, transpose, transpose_trans and scale_columns read
and write M * N elements each; transpose_add reads 2 * M * N and writes M * N. The
transposing kernels read along one dimension and write along the other:
the compiler loads and stores 16 bytes at a time on both sides and moves
the tile between the two layouts through shared memory.

Shipped configs: copy_2d BLOCK_M=32, BLOCK_N=64, num_warps=4; transpose,
transpose_trans and transpose_add BLOCK_M=BLOCK_N=64 (BLOCK=64),
num_warps=4;
scale_columns BLOCK_M=16, BLOCK_N=256, num_warps=4.
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


@tilec.jit
def transpose(x, out, M, N, stride_x, stride_out,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[j, i] = x[i, j] for an M x N matrix x (out is N x M)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x + rows[:, None] * stride_x + cols[None, :], mask=mask)
    tl.store(out + cols[None, :] * stride_out + rows[:, None], tile, mask=mask)


@tilec.jit
def transpose_trans(x, out, M, N, stride_x, stride_out,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out = x^T as Triton writes it: load a tile, tl.trans it, and store
    the BLOCK_N x BLOCK_M result along out's rows. tl.trans itself moves
    no data; the store's layout does, as in `transpose`."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x + rows[:, None] * stride_x + cols[None, :], mask=mask)
    tl.store(out + cols[:, None] * stride_out + rows[None, :], tl.trans(tile),
             mask=mask.T)


@tilec.jit
def scale_columns(x, out, M, N, stride, alpha,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out = alpha * x for an M x N matrix: each program takes BLOCK_N
    columns and walks down the rows BLOCK_M at a time, advancing its
    pointers each iteration (Triton's idiom)."""
    rows = tl.arange(0, BLOCK_M)
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    xp = x + rows[:, None] * stride + cols[None, :]
    op = out + rows[:, None] * stride + cols[None, :]
    for start in range(0, M, BLOCK_M):
        mask = ((start + rows)[:, None] < M) & (cols[None, :] < N)
        tl.store(op, tl.load(xp, mask=mask) * alpha, mask=mask)
        xp += BLOCK_M * stride
        op += BLOCK_M * stride
