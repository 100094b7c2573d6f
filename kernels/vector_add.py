"""Vector addition: out[i] = x[i] + y[i] for i < n.

Each program adds one block of BLOCK elements. The tail block is masked, so
any n works; with 16-byte aligned pointers and n divisible by 16 (the `:16`
facts of the signature) every access is a 128-bit load or store.

Bytes moved: 3 * n * sizeof(element) (two reads, one write); no FLOPs worth
counting. Shipped config: BLOCK=1024, num_warps=4.

Compile it:
    tilec compile kernels/vector_add.py -k add \
        -s '*fp32:16,*fp32:16,*fp32:16,i32:16' -D BLOCK=1024 --emit ptx
"""
import tilec
import tilec.language as tl


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
