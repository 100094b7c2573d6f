"""Kernels that rearrange tiles with tl.trans, tl.permute and tl.reshape."""
import tilec
import tilec.language as tl


@tilec.jit
def trans_columns(x, out, M: tl.constexpr, N: tl.constexpr):
    """out (N x M, column-major) = x^T: the transposed tile is stored where
    its columns are contiguous, which is where x's rows were."""
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    offs = rows[:, None] * N + cols[None, :]
    tile = tl.load(x + offs)
    tl.store(out + offs.T, tile.T)


@tilec.jit
def reshape_rows(x, out, M: tl.constexpr, N: tl.constexpr):
    """A vector cut into rows, stored as a 2-D tile."""
    v = tl.load(x + tl.arange(0, M * N))
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    tl.store(out + rows[:, None] * N + cols[None, :], tl.reshape(v, M, N))


@tilec.jit
def permute_flat(x, out, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                 P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    """out = x.reshape(A, B, C).transpose(P).ravel(), all in registers up
    to the store."""
    offs = tl.arange(0, A * B * C)
    t = tl.load(x + offs).reshape(A, B, C)
    tl.store(out + offs, tl.permute(t, P0, P1, P2).reshape(A * B * C))
