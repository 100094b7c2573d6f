"""Small tl.dot kernels for the tests: one tile per program, so that each
runs the dot's own layouts and nothing else.

- `dot_tile`: C = A @ B for one BM x BK by BK x BN tile, the accumulator
  in fp32 or fp16 (`OUT_F16`), with any number of warps (tiles smaller than
  the warps cover included).
- `dot_batched`: a 3-D tl.dot of Z tiles at once.
"""
import tilec
import tilec.language as tl


@tilec.jit
def dot_tile(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr, OUT_F16: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    if OUT_F16:
        c = tl.dot(a, b, out_dtype=tl.float16)
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@tilec.jit
def dot_batched(a_ptr, b_ptr, c_ptr, Z: tl.constexpr, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr):
    rz = tl.arange(0, Z)[:, None, None]
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rz * BM * BK + rm[None, :, None] * BK + rk[None, None, :])
    b = tl.load(b_ptr + rz * BK * BN + rk[None, :, None] * BN + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rz * BM * BN + rm[None, :, None] * BN + rn[None, None, :], c)
