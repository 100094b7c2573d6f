"""Two ways to walk a buffer BLOCK elements at a time: Triton's idiom of a
loop-carried pointer advanced each iteration, and the offset recomputed
from the loop index. Both must compile to the same 128-bit accesses."""
import tilec
import tilec.language as tl


@tilec.jit
def copy_increment(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    xp = x_ptr + offs
    yp = y_ptr + offs
    for i in range(0, n, BLOCK):
        tl.store(yp, tl.load(xp))
        xp += BLOCK
        yp += BLOCK


@tilec.jit
def copy_recompute(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, n, BLOCK):
        tl.store(y_ptr + i + offs, tl.load(x_ptr + i + offs))


@tilec.jit
def rows_increment(x_ptr, y_ptr, rows, stride, BLOCK_R: tl.constexpr,
                   BLOCK_C: tl.constexpr):
    """A 2-D tile walked down the rows: the pointer advances by a
    16-divisible stride times BLOCK_R."""
    r = tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    xp = x_ptr + r[:, None] * stride + c[None, :]
    yp = y_ptr + r[:, None] * stride + c[None, :]
    for i in range(0, rows, BLOCK_R):
        tl.store(yp, tl.load(xp) * 2.0)
        xp += BLOCK_R * stride
        yp += BLOCK_R * stride


@tilec.jit
def transpose_increment(x, out, n, B: tl.constexpr, C: tl.constexpr):
    """n B x C tiles, one after the other, each stored transposed: the two
    loop-carried pointers want different layouts, and share the index
    computation of their columns."""
    r = tl.arange(0, B)
    c = tl.arange(0, C)
    xp = x + r[:, None] * C + c[None, :]
    op = out + c[None, :] * B + r[:, None]
    for i in range(0, n):
        tl.store(op, tl.load(xp))
        xp += B * C
        op += B * C
