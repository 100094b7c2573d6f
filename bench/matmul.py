"""Matrix multiplication C = A @ B: tilec's kernels/matmul.py against
torch.matmul (cuBLAS) and two Triton kernels, its tutorial matmul (03:
pointer loads) and a persistent one reading through TMA descriptors (as
its tutorial 09), in one run, on the same random normal inputs (never
zeros: tensor cores draw less power on zeros and run faster).

    python3 bench/matmul.py [--commit SHA] [--out DIR] [--quick] [--fp32-out]
                            [--dtypes float16,bfloat16] [--clusters] [--stream-k]
                            [--kernels "tilec NAME;..."] [--shapes MxNxK,...] [--wide]

C is stored in the inputs' type, as torch.matmul and Triton's tutorials
store it (--fp32-out: tilec and Triton store fp32, torch still its own).
tilec runs three kernels, each at the best of its shipped configs
(matmul_configs(), timed in this run): `matmul_kernel` (pointer loads,
cp.async rings), `matmul_desc_kernel` (tensor descriptors: TMA on sm_90a)
and `matmul_persistent_kernel` (the descriptor kernel on one program per
SM, pipelined across its tiles), the last two also warp-specialised and
with C written by TMA (TILEC below); "tilec" is the fastest of them, each
also reported alone. Triton runs each kernel at the best of its
candidates below; torch uses cuBLAS's own choice. Each output is checked
against a float64 product of the same inputs (max |difference| / sqrt(K)
below 1e-3 plus the rounding of C to a 16-bit type). Each time is the
median of three interleaved rounds of triton.testing.do_bench (median,
warmup 25 ms, rep 100 ms); the spread of the three is reported as
run-to-run noise. TFLOP/s = 2 M N K / time. Results:
bench/results/matmul-DATE.json, rewritten after each shape so that a run
cut short keeps the shapes it finished.
"""
import pathlib
import sys

import torch
import triton
import triton.language as tl

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import tilec  # noqa: E402,F401
import common  # noqa: E402  bench/common.py
from common import best_matmul_config, matmul_error, persistent_programs  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py
import matmul_tuned  # noqa: E402  kernels/matmul_tuned.py


@triton.jit
def triton_tile(tile, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                GROUP_M: tl.constexpr):
    # Grouped ordering: GROUP_M rows of tiles, visited column by column.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    return first_m + (tile % per_group) % rows, (tile % per_group) // rows


@triton.jit
def triton_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                  stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # Triton's tutorial 03 kernel (grouped ordering, masked K tail); the
    # store converts to C's type.
    pid_m, pid_n = triton_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def triton_persistent_tma(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_M: tl.constexpr, PROGRAMS: tl.constexpr):
    # The kind of kernel Triton's tutorial 09 ends with: PROGRAMS programs
    # (one per SM) striding over the tiles in grouped order, A and B read
    # and C written through host tensor descriptors (TMA), the tile loop
    # flattened with the K loop so that Triton's pipeliner runs across
    # tiles.
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=True):
        pid_m, pid_n = triton_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        m = pid_m * BLOCK_M
        n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            acc = tl.dot(a_desc.load([m, k]), b_desc.load([k, n]), acc)
        c_desc.store([m, n], acc.to(c_desc.dtype))


# Triton's (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages): the
# tutorial's best configs for fp16 on Hopper and Ampere. tilec tries its own
# shipped configs, kernels/matmul.py matmul_configs(), for the shape's
# alignment.
TRITON_CANDIDATES = [(128, 256, 64, 8, 8, 3), (128, 128, 64, 8, 8, 3),
                     (128, 128, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4),
                     (128, 64, 32, 8, 4, 4), (64, 64, 32, 8, 4, 4)]


def launch_tilec(name):
    """launch(a, b, c, cfg) of the tilec kernel the shipped table calls
    `name` (kernels/matmul_tuned.py KERNELS), as matmul() runs it."""
    return lambda a, b, c, cfg: matmul_tuned.launch(name, a, b, c, cfg)


def launch_triton(a, b, c, cfg):
    bm, bn, bk, gm, warps, stages = cfg
    M, K = a.shape
    N = b.shape[1]
    triton_matmul[(triton.cdiv(M, bm) * triton.cdiv(N, bn),)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, num_warps=warps,
        num_stages=stages)


_descriptors = {}


def launch_triton_persistent(a, b, c, cfg):
    from triton.tools.tensor_descriptor import TensorDescriptor
    bm, bn, bk, gm, warps, stages = cfg
    M, K = a.shape
    N = b.shape[1]
    # (Made once per tensors and blocks, as a caller holding them would; an
    # address the allocator reuses for another shape gets its own.)
    key = tuple((t.data_ptr(), t.dtype, tuple(t.shape), tuple(t.stride())) for t in (a, b, c))
    key += (bm, bn, bk)
    if key not in _descriptors:
        _descriptors[key] = (TensorDescriptor.from_tensor(a, [bm, bk]),
                             TensorDescriptor.from_tensor(b, [bk, bn]),
                             TensorDescriptor.from_tensor(c, [bm, bn]))
    da, db, dc = _descriptors[key]
    programs = persistent_programs(a, b, cfg)
    triton_persistent_tma[(programs,)](
        da, db, dc, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        PROGRAMS=programs, num_warps=warps, num_stages=stages)


# "WS": a producer warpgroup issues the TMA copies (warp_specialize); "TMA
# store": C leaves through TMA (tma_store).
TILEC = {name: launch_tilec(name) for name in (
    "tilec pointers", "tilec descriptors", "tilec descriptors WS", "tilec descriptors TMA store",
    "tilec persistent", "tilec persistent WS", "tilec persistent WS + TMA store")}
#: With --clusters: the persistent kernel in clusters of two, and of four,
#: sharing B's blocks (matmul_tma(cluster=2 or 4)).
CLUSTERED = {name: launch_tilec(name) for name, (_, options) in matmul_tuned.KERNELS.items()
             if options.get("cluster", 1) > 1 and not options.get("stream_k")}
#: With --stream-k: the persistent kernel with its last round of tiles split
#: by K steps among every SM (matmul_tma(stream_k=True)), alone and in
#: clusters of two.
STREAMED = {name: launch_tilec(name) for name, (_, options) in matmul_tuned.KERNELS.items()
            if options.get("stream_k")}
TRITON = {"triton": launch_triton, "triton persistent TMA": launch_triton_persistent}


def main():
    def options(ap):
        ap.add_argument("--fp32-out", action="store_true",
                        help="tilec and Triton store C in fp32 (torch stores the inputs' type)")
        ap.add_argument("--dtypes", default="float16,bfloat16",
                        help="the inputs' types, comma-separated (default: %(default)s)")
        ap.add_argument("--clusters", action="store_true",
                        help="also the persistent kernel in clusters of two and of four "
                             "(sm_90a)")
        ap.add_argument("--stream-k", action="store_true",
                        help="also the persistent kernel with stream-K (sm_90a)")
        ap.add_argument("--kernels", default=None,
                        help="only these tilec kernels (kernels/matmul_tuned.py KERNELS "
                             "names, semicolon-separated), beside Triton and torch")
        ap.add_argument("--shapes", default=None,
                        help="only these shapes (MxNxK, comma-separated)")
        ap.add_argument("--wide", action="store_true",
                        help="also tiles whose width is not a power of two "
                             "(matmul.WIDE_CONFIGS) for the persistent kernels")
    args = common.parse_args(options)
    if args.clusters:
        TILEC.update(CLUSTERED)
    if args.stream_k:
        TILEC.update(STREAMED)
    if args.kernels:
        names = [n.strip() for n in args.kernels.split(";") if n.strip()]
        unknown = [n for n in names if n not in matmul_tuned.KERNELS]
        if unknown:
            sys.exit(f"--kernels: no kernel {', '.join(map(repr, unknown))}")
        TILEC.clear()
        TILEC.update({name: launch_tilec(name) for name in names})
    dtypes = [getattr(torch, name.strip(), None) for name in args.dtypes.split(",")]
    if any(d not in (torch.float16, torch.bfloat16) for d in dtypes):
        sys.exit("--dtypes: float16 and bfloat16 only")
    shapes = [(1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3,
              (3000, 5000, 1000), (4096, 4096, 512), (8192, 1024, 8192)]
    if args.quick:
        shapes = [(1024,) * 3, (4096,) * 3]
    if args.shapes:
        shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    rows = []
    for dtype in dtypes:
        out_dtype = torch.float32 if args.fp32_out else dtype
        for m, n, k in shapes:
            torch.manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            ref = (a.double() @ b.double()).float()  # exact products, f64 sums
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n, "K": k,
                     "c_dtype": str(out_dtype).replace("torch.", "")}
            mine = matmul.matmul_configs(entry["dtype"], matmul.rows_aligned(a, b))
            theirs = TRITON_CANDIDATES
            if args.quick:
                mine, theirs = mine[:2], theirs[:2]
            print(f"{entry['dtype']} {m}x{n}x{k}", flush=True)
            launches = {**TILEC, **TRITON}

            def candidates(name):
                if name not in TILEC:
                    return theirs
                kind, options = matmul_tuned.KERNELS[name]
                # (Wide tiles: the persistent kernel, not with stream-K.)
                if args.wide and kind == "persistent" and not options.get("stream_k"):
                    return mine + matmul.WIDE_CONFIGS
                return mine
            cfgs = {name: best_matmul_config(fn, a, b, ref, candidates(name), out_dtype)
                    for name, fn in launches.items()}
            outs = {name: torch.empty(m, n, device="cuda", dtype=out_dtype)
                    for name in launches}
            outs["torch"] = torch.empty_like(a @ b)
            runs = {name: (lambda fn=fn, name=name: fn(a, b, outs[name], cfgs[name]))
                    for name, fn in launches.items() if cfgs[name] is not None}
            runs["torch"] = lambda: torch.matmul(a, b, out=outs["torch"])
            times = common.timed(runs)
            flops = 2.0 * m * n * k
            for name, (ms, spread) in times.items():
                runs[name]()
                torch.cuda.synchronize()
                entry[name] = {"ms": ms, "TFLOP/s": flops / (ms * 1e-3) / 1e12,
                               "error": matmul_error(outs[name], ref, k), "spread": spread}
                if cfgs.get(name):
                    entry[name]["config"] = dict(zip(
                        ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps",
                         "num_stages"), cfgs[name]))
            for side, names in (("tilec", TILEC), ("triton best", TRITON)):
                timed_names = [x for x in names if x in times]
                if timed_names:
                    best = min(timed_names, key=lambda x: times[x][0])
                    entry[side] = dict(entry[best], kernel=best)
            rows.append(entry)
            path = common.write_record("matmul", args.commit, rows, args.out)
            print(f"  {entry['dtype']:>8} {m}x{n}x{k}: " + "  ".join(
                f"{name} {entry[name]['TFLOP/s']:6.1f}" for name in times), flush=True)
    print("\n| dtype | M x N x K | tilec TFLOP/s (kernel) | Triton TFLOP/s (kernel) | "
          "cuBLAS TFLOP/s | tilec/Triton | tilec/cuBLAS | spread | tilec config |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "tilec" not in r or "triton best" not in r:
            print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | a side had no right config |")
            continue
        mine, theirs, cublas = r["tilec"], r["triton best"], r["torch"]
        c = mine.get("config") or {}
        spreads = [r[x]["spread"] for x in list(TILEC) + list(TRITON) + ["torch"] if x in r]
        print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {mine['TFLOP/s']:.0f} "
              f"({mine['kernel'].replace('tilec ', '')}) | {theirs['TFLOP/s']:.0f} "
              f"({theirs['kernel']}) | {cublas['TFLOP/s']:.0f} | "
              f"{mine['TFLOP/s'] / theirs['TFLOP/s']:.2f} | "
              f"{mine['TFLOP/s'] / cublas['TFLOP/s']:.2f} | "
              f"{100 * max(spreads):.1f}% | "
              f"{c.get('BLOCK_M', '-')}x{c.get('BLOCK_N', '-')}x{c.get('BLOCK_K', '-')} "
              f"w{c.get('num_warps', '-')} s{c.get('num_stages', '-')} |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
