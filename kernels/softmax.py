"""Row-wise softmax: out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).

`softmax` handles rows that fit in one tile in a single pass over memory:
each program takes ROWS rows of up to BLOCK columns (ROWS > 1 for short
rows, so that a program still has enough work). `softmax_online` handles
rows longer than a tile: one pass computes the running maximum and sum
(the online softmax recurrence), a second pass writes the result.

Inputs may be fp32, fp16 or bf16; the arithmetic is fp32 and the output
has the output pointer's type. Bytes moved: read n_rows * n_cols once,
write it once (the online variant reads twice).

Shipped configs (rows x columns of the input):
    N <= 128:  ROWS=16, BLOCK=128,  num_warps=4
    N <= 512:  ROWS=4,  BLOCK=512,  num_warps=4
    N <= 2048: ROWS=1,  BLOCK=2048, num_warps=8
    N <= 8192: ROWS=1,  BLOCK=8192, num_warps=16
    N <= 32768: ROWS=1, BLOCK=32768, num_warps=16
    longer:    softmax_online, BLOCK=4096, num_warps=16
"""
import tilec
import tilec.language as tl


@tilec.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
            ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_stride + cols[None, :],
                mask=mask, other=-float("inf")).to(tl.float32)
    row_max = tl.max(x, axis=1)
    e = tl.exp(x - row_max[:, None])
    # One division per row, then a multiply per element: a long row would
    # otherwise spend more time dividing than loading.
    inverse = 1.0 / tl.sum(e, axis=1)
    y = e * inverse[:, None]
    tl.store(out_ptr + rows[:, None] * out_stride + cols[None, :], y, mask=mask)


@tilec.jit
def softmax_online(out_ptr, in_ptr, in_stride, out_stride, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_stride
    out_row = out_ptr + row * out_stride
    # Per lane: the largest value seen and the sum of exp(x - that max).
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols,
                    other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # A lane that has seen only masked values keeps s = 0.
        seen = m_new > -float("inf")
        s = tl.where(seen, s * tl.exp(m - m_new) + tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    inverse = 1.0 / total
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        tl.store(out_row + cols, tl.exp(x - row_max) * inverse, mask=cols < n_cols)
