"""A layer norm, forward and backward, written as Triton's tutorial 05
computes it (our own code): the backward accumulates each row's weight and
bias gradients into one of GROUP partial rows, under a spin lock per row
(tl.atomic_cas / tl.atomic_xchg, a `while` loop), and a second kernel sums
the partial rows. test_layer_norm.py (interpreter) and
test_gpu_layer_norm.py run them against float64."""
import tilec
import tilec.language as tl


@tilec.jit
def layer_norm_forward(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    centred = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(centred * centred, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, centred * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@tilec.jit
def layer_norm_backward_dx(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                           partial_dw_ptr, partial_db_ptr, locks_ptr, stride, n,
                           GROUP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n
    c2 = tl.sum(wdy, axis=0) / n
    tl.store(dx_ptr + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    # This row's share of dw and db, added to partial row `row % GROUP`.
    dw = dy * xhat
    db = dy
    group = row % GROUP
    lock = locks_ptr + group
    first_time = locks_ptr + GROUP + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(first_time) == 0:
        tl.atomic_xchg(first_time, 1)
    else:
        dw += tl.load(partial_dw_ptr + group * n + cols, mask=mask)
        db += tl.load(partial_db_ptr + group * n + cols, mask=mask)
    tl.store(partial_dw_ptr + group * n + cols, dw, mask=mask)
    tl.store(partial_db_ptr + group * n + cols, db, mask=mask)
    # (No tl.debug_barrier(): a scalar atomic that releases orders the
    # whole program's writes before it.)
    tl.atomic_xchg(lock, 0)


@tilec.jit
def layer_norm_backward_dwdb(partial_dw_ptr, partial_db_ptr, dw_ptr, db_ptr, groups, n,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for first in range(0, groups, BLOCK_M):
        rows = first + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < groups) & (cols[None, :] < n)
        offs = rows[:, None] * n + cols[None, :]
        dw += tl.load(partial_dw_ptr + offs, mask=mask, other=0.0)
        db += tl.load(partial_db_ptr + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < n)
    tl.store(db_ptr + cols, tl.sum(db, axis=0), mask=cols < n)
