"""What reading half of B's rows per K step buys: the experiment behind
clusters with TMA multicast (issue 14), before they are built.

In a cluster of two programs on one column of C's tiles (a 2 x 1
cluster), each would copy half of the B block they share and multicast it
to both: each SM then asks the L2 for 128 rows of A and 128 of B per K
step of a 128 x 256 tile, instead of 128 and 256. `half_b_kernel` asks for
exactly that on one program: it reads A's 128 x 64 block and one 64 x 128
half of B's block per K step, and multiplies both halves of its 128 x 256
tile by that half (two dots reading the same two buffers: the same tensor
core work as one 128 x 256 dot). It computes a product of its own,
C = [A B_h, A B_h] per tile, with B_h the half the tile's row parity picks
(as the two programs of a cluster would split B), and is checked against
float64 of that.

Beside it, in one run on the same random normal fp16 inputs: the
descriptor kernel of kernels/matmul.py at the same config (warp
specialised, C stored by TMA: what the half-B kernel is), and cuBLAS; at
3000 x 5000 x 1000 with rows as torch makes them (A's 2000 bytes apart,
B's 10000: off 128-byte lines, docs/results.md) and padded to 128 bytes,
and at 4096^3:

    python3 bench/matmul_half_b.py [--commit SHA] [--out DIR]

Times: the median of three interleaved rounds of do_bench medians.
Results: bench/results/matmul_half_b-DATE.json.
"""
import pathlib
import sys

import torch

import tilec
import tilec.language as tl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import common  # noqa: E402  bench/common.py
from common import matmul_error, matmul_tolerance  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py
from matmul import grouped_tile  # noqa: E402

CONFIG = (128, 256, 64, 8, 8, 3)  # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, warps, stages
CASES = [(3000, 5000, 1000, 0), (3000, 5000, 1000, 64), (4096, 4096, 4096, 0)]


@tilec.jit
def half_b_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    HALF: tl.constexpr = BLOCK_N // 2
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, HALF])
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BLOCK_M, HALF])
    m = pid_m * BLOCK_M
    n = pid_n * BLOCK_N
    half = n + (pid_m % 2) * HALF
    left = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    right = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        block = a.load([m, k])
        part = b.load([k, half])
        left = tl.dot(block, part, left)
        right = tl.dot(block, part, right)
    c.store([m, n], left.to(c_ptr.dtype.element_ty))
    c.store([m, n + HALF], right.to(c_ptr.dtype.element_ty))


def half_b_reference(a, b):
    """float64 of what half_b_kernel computes."""
    bm, bn = CONFIG[0], CONFIG[1]
    M, N = a.shape[0], b.shape[1]
    a64, b64 = a.double(), b.double()
    c = torch.empty((M, N), dtype=torch.float64, device=a.device)
    for pm in range(-(-M // bm)):
        rows = slice(pm * bm, min(M, pm * bm + bm))
        for pn in range(-(-N // bn)):
            h = pn * bn + (pm % 2) * (bn // 2)
            part = b64[:, h:h + bn // 2]  # (cut at N)
            prod = a64[rows] @ part
            for start in (pn * bn, pn * bn + bn // 2):
                width = max(0, min(N - start, prod.shape[1]))
                c[rows, start:start + width] = prod[:, :width]
                if width < min(N - start, bn // 2):  # past B's columns: zeros
                    c[rows, start + width:min(N, start + bn // 2)] = 0
    return c


def inputs(M, N, K, pad, gen):
    def make(rows, cols):
        t = torch.randn((rows, cols), device="cuda", generator=gen).half()
        if not pad:
            return t
        wide = torch.zeros((rows, -(-cols // pad) * pad), device="cuda", dtype=t.dtype)
        wide[:, :cols] = t
        return wide[:, :cols]
    return make(M, K), make(K, N)


def main():
    args = common.parse_args()
    bm, bn, bk, gm, warps, stages = CONFIG
    rows = []
    for M, N, K, pad in CASES:
        gen = torch.Generator(device="cuda").manual_seed(M + N + K)
        a, b = inputs(M, N, K, pad, gen)
        name = f"{M}x{N}x{K}{' rows padded to 128 bytes' if pad else ''}"
        print(name, flush=True)
        full = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        halves = torch.full_like(full, float("nan"))
        grid = (tilec.cdiv(M, bm) * tilec.cdiv(N, bn),)
        runs = {
            "torch": lambda: torch.matmul(a, b),
            "descriptors WS + TMA store": lambda: matmul.matmul_tma(
                a, b, full, CONFIG, warp_specialize=True, tma_store=True),
            "half B": lambda: half_b_kernel[grid](
                a, b, halves, M, N, K, a.stride(0), b.stride(0), halves.stride(0),
                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, num_warps=warps,
                num_stages=stages),
        }
        outputs = {"descriptors WS + TMA store": full, "half B": halves}
        errors = {}
        for impl, run in runs.items():
            result = run()
            out = outputs.get(impl, result)
            torch.cuda.synchronize()
            ref = half_b_reference(a, b) if impl == "half B" else a.double() @ b.double()
            errors[impl] = matmul_error(out, ref, K)
            assert errors[impl] < matmul_tolerance(ref, K, torch.float16), \
                f"{impl}: error {errors[impl]:.2e}"
        times = common.timed(runs)
        entry = {"dtype": "float16", "M": M, "N": N, "K": K, "row padding": pad,
                 "config": list(CONFIG)}
        for impl, (ms, spread) in times.items():
            tflops = 2.0 * M * N * K / ms / 1e9
            entry[impl] = {"ms": ms, "tflops": tflops, "spread": spread,
                           "error": errors[impl]}
            print(f"    {impl:28s} {tflops:6.1f} TFLOP/s (±{100 * spread:.1f}%) "
                  f"{ms * 1e3:8.1f} us", flush=True)
        rows.append(entry)
    print(common.write_record("matmul_half_b", args.commit, rows, args.out))


if __name__ == "__main__":
    main()
