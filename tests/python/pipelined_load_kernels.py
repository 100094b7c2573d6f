"""Loops whose loads no dot reads, given their stages with
tl.range(num_stages=...): tilegpu-pipeline-loads copies their tiles
through cp.async rings (docs/pipeline.md). STAGES = 1 is the same loop
unpipelined, the reference each pipelined result must equal bit for bit
(the arithmetic and its order do not change, only where the tiles wait)."""
import tilec
import tilec.language as tl


@tilec.jit
def weighted_row_sums(x_ptr, g_ptr, out_ptr, rows, K, stride_x,
                      BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, STAGES: tl.constexpr):
    # out[r] = sum_k x[r, k] * g[k]: a GEMV's shape, x's tile and g's
    # vector (shared by every row of the tile) both pipelined; K need not be
    # a multiple of BLOCK_K (the tail is masked), and may be shorter than
    # the stages (copies past the end are masked off).
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    live_r = r < rows
    k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K, num_stages=STAGES):
        live_k = k0 + k < K
        x = tl.load(x_ptr + r[:, None] * stride_x + (k0 + k)[None, :],
                    mask=live_r[:, None] & live_k[None, :], other=0.0)
        g = tl.load(g_ptr + k0 + k, mask=live_k, other=0.0)
        acc += x.to(tl.float32) * g.to(tl.float32)[None, :]
    tl.store(out_ptr + r, tl.sum(acc, axis=1), mask=live_r)


@tilec.jit
def running_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    # One program: the largest element, by an advancing pointer carried
    # across iterations (which runs STAGES - 1 iterations ahead) and a
    # reduction across warps in every iteration.
    ptrs = x_ptr + tl.arange(0, BLOCK)
    best = tl.max(tl.full((BLOCK,), -float("inf"), tl.float32), axis=0)
    for i in tl.range(0, n, BLOCK, num_stages=STAGES):
        v = tl.load(ptrs, mask=i + tl.arange(0, BLOCK) < n, other=0.0)
        v = tl.where(i + tl.arange(0, BLOCK) < n, v.to(tl.float32), -float("inf"))
        best = tl.maximum(best, tl.max(v, axis=0))
        ptrs += BLOCK
    tl.store(out_ptr, best)
