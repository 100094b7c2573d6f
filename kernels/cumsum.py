"""Row-wise prefix sums: out[r, c] = x[r, 0] + x[r, 1] + ... + x[r, c].

ROWS rows per program (so that short rows still fill the threads), each
row at most BLOCK columns; fp32, fp16 or bf16 in, accumulated in fp32 and
stored in the output's type. The scan runs in registers, then across lanes (shfl.sync.up), then
across warps through shared memory (docs/pipeline.md, "Scans").
"""
import tilec
import tilec.language as tl


@tilec.jit
def cumsum_rows(out_ptr, in_ptr, n_rows, n_cols, in_stride, out_stride,
                BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_stride + cols[None, :], mask=mask, other=0.0)
    sums = tl.cumsum(x, axis=1)
    tl.store(out_ptr + rows[:, None] * out_stride + cols[None, :], sums, mask=mask)
