"""Chained dots: the product of one tl.dot multiplied again, as attention
does (softmax(q @ kᵀ) @ v) and as the issue's `dot(dot(a, b).T, c)`.
Shared by test_chained_dot.py (interpreter, PTX) and
test_gpu_chained_dot.py."""
import tilec
import tilec.language as tl


@tilec.jit
def attention_like(q_ptr, k_ptr, v_ptr, o_ptr, L, D: tl.constexpr, BM: tl.constexpr,
                   BN: tl.constexpr):
    # o[m] = sum over blocks j of exp(s_j - rowmax(s_j)) @ v_j, s_j = q @ k_jᵀ:
    # each block's weights in fp16, as attention's P (no running rescale:
    # every block keeps its own maximum). q, k, v, o row-major, L rows of
    # keys (L a multiple of BN).
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for start in range(0, L, BN):
        k = tl.load(k_ptr + (start + rn)[:, None] * D + rd[None, :])
        s = tl.dot(q, tl.trans(k))
        p = tl.exp(s - tl.max(s, 1)[:, None])
        v = tl.load(v_ptr + (start + rn)[:, None] * D + rd[None, :])
        acc = tl.dot(p.to(v_ptr.dtype.element_ty), v, acc)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc)


@tilec.jit
def dot_t_dot(a_ptr, b_ptr, c_ptr, out_ptr, BM: tl.constexpr, BK: tl.constexpr,
              BN: tl.constexpr, BP: tl.constexpr):
    # out = (a @ b)ᵀ @ c in one block: a BM x BK, b BK x BN, c BM x BP,
    # out BN x BP; the product rounded to the operands' type between.
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    rn = tl.arange(0, BN)
    rp = tl.arange(0, BP)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.load(c_ptr + rm[:, None] * BP + rp[None, :])
    ab = tl.dot(a, b).to(c_ptr.dtype.element_ty)
    out = tl.dot(tl.trans(ab), c)
    tl.store(out_ptr + rn[:, None] * BP + rp[None, :], out)


@tilec.jit
def dot_t_dot_loop(a_ptr, b_ptr, c_ptr, out_ptr, STEPS, BM: tl.constexpr,
                   BK: tl.constexpr, BN: tl.constexpr, BP: tl.constexpr):
    # out = sum over steps s of (a_s @ b)ᵀ @ c_s: a (STEPS BM) x BK and
    # c (STEPS BM) x BP row-major, b BK x BN; the transposed product is
    # computed in the loop, each step's rounded to the operands' type.
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    rn = tl.arange(0, BN)
    rp = tl.arange(0, BP)
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.zeros((BN, BP), dtype=tl.float32)
    for s in range(0, STEPS):
        a = tl.load(a_ptr + (s * BM + rm)[:, None] * BK + rk[None, :])
        c = tl.load(c_ptr + (s * BM + rm)[:, None] * BP + rp[None, :])
        ab = tl.dot(a, b).to(c_ptr.dtype.element_ty)
        acc = tl.dot(tl.trans(ab), c, acc)
    tl.store(out_ptr + rn[:, None] * BP + rp[None, :], acc)
