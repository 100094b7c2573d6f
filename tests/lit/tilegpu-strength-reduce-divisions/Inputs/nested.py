import tilec
import tilec.language as tl


@tilec.jit
def dots_around_divisions(a_ptr, out_ptr, n, d, BLOCK: tl.constexpr):
    # An outer loop of dots around an inner loop that divides by d.
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    total = 0
    for t in range(n):
        a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
        acc = tl.dot(a, a, acc)
        for j in range(n):
            total += j // d
    tl.store(out_ptr + offs[:, None] * BLOCK + offs[None, :], acc + total)
