"""RMSNorm: out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight.

One program per row; the row must fit in BLOCK columns. fp32, fp16 or bf16
inputs, fp32 arithmetic. Bytes moved: read the input and the weight once,
write the output once. Shipped config: BLOCK = next power of two >= n_cols,
num_warps = 4 (8 from 4096 columns).
"""
import tilec
import tilec.language as tl


@tilec.jit
def rmsnorm(out_ptr, in_ptr, weight_ptr, in_stride, out_stride, n_cols, eps,
            BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(weight_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / n_cols
    y = x * tl.rsqrt(mean_square + eps) * w
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)
