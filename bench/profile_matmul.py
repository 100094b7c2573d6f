"""kernels/matmul.py launches for a profiler (tools/gpu-session.sh runs this
under Nsight Compute): one variant, at each `--shape` (repeatable) each
`--config BM,BN,BK,GM,W,S` (repeatable) compiled, checked against torch,
then launched `--launches` times. `--time` also times each (do_bench
median, TFLOP/s: the num_stages sweep of tools/gpu-session.sh), and with
`--torch` torch.matmul at each shape; `--sass DIR` writes each config's SASS and
the driver compiler's log of it (printing its registers, spills and C75xx
warnings).

    python3 bench/profile_matmul.py --config 128,256,64,8,8,3 [--variant pointers]
        [--dtype float16] [--shape 4096,4096,4096 ...] [--pieces N] [--launches 1]
        [--time [--torch]] [--pad ELEMENTS] [--sass DIR] [--programs N ...]

Variants: pointers (matmul(), C in fp32, as the sweep always measured);
desc, desc-ws, desc-ws-store (matmul_desc_kernel: one program per tile;
ws = a producer warpgroup, store = C through TMA) and persistent,
persistent-ws, persistent-ws-store (matmul_persistent_kernel on one
program per SM, --pieces its epilogue_pieces, matmul_tma's default when not
given), persistent-ws-store-cluster and -cluster4 (the same in clusters of
two or four sharing B's blocks), these with C in the inputs' type. Under ncu, profile a launch after
the first (which compiles and warms the caches), clocks left alone:

    ncu --clock-control none -k regex:matmul_ --launch-skip 1 --launch-count 1 \\
        python3 bench/profile_matmul.py --variant persistent --config ...
"""
import argparse
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import matmul  # noqa: E402  kernels/matmul.py
import matmul_tuned  # noqa: E402  kernels/matmul_tuned.py

#: variant: the shipped table's name of the kernel it launches
#: (kernels/matmul_tuned.py KERNELS, which says how)
VARIANTS = {"pointers": "tilec pointers", "desc": "tilec descriptors",
            "desc-ws": "tilec descriptors WS", "desc-ws-store": "tilec descriptors WS + TMA store",
            "persistent": "tilec persistent", "persistent-ws": "tilec persistent WS",
            "persistent-ws-store": "tilec persistent WS + TMA store",
            "persistent-ws-store-cluster": "tilec persistent WS + TMA store, clusters",
            "persistent-ws-store-cluster4": "tilec persistent WS + TMA store, clusters of 4"}


def launcher(variant, a, b, c, cfg, pieces, programs=None):
    """launch() of `variant` at `cfg`, and the constexprs of its kernel
    beyond the config's (for --sass; None for the pointer kernel).
    `programs`: the persistent kernels' grid (default: one program per SM,
    or per tile where fewer)."""
    kind, options = matmul_tuned.KERNELS[VARIANTS[variant]]
    if kind == "pointers":
        return (lambda: matmul_tuned.run(kind, options, a, b, c, cfg)), None
    persistent = kind == "persistent"
    if persistent and pieces is None:
        pieces = matmul.default_epilogue_pieces(cfg, c.element_size())
    extra = {"WARP_SPECIALIZE": options.get("warp_specialize", False),
             "TMA_STORE": options.get("tma_store", False)}
    if persistent:
        extra.update(STAGES=cfg[5], EPILOGUE_PIECES=pieces, CLUSTER=options.get("cluster", 1))
    more = {"epilogue_pieces": pieces} if persistent else {}
    return (lambda: matmul_tuned.run(kind, options, a, b, c, cfg, grid=programs,
                                     **more)), extra


def write_sass(directory, variant, dtype, cfg, extra, tag):
    """The SASS of the descriptor kernel `variant` launches at `cfg`."""
    persistent = matmul_tuned.KERNELS[VARIANTS[variant]][0] == "persistent"
    kernel = matmul.matmul_persistent_kernel if persistent else matmul.matmul_desc_kernel
    bm, bn, bk, gm, warps, stages = cfg
    name = "fp16" if dtype == torch.float16 else "bf16"
    compiled = kernel.compile(
        f"*{name}:16,*{name}:16,*{name}:16,*{name}:16," + ",".join(["i32:16"] * 6 + ["i32:1"]),
        num_warps=warps, num_stages=stages, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
        HAS_BIAS=False, ACTIVATION="", **extra)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{variant}-{tag}.sass"
    path.write_text(compiled.asm["sass"])
    # The driver compiler's own account (it may serialise wgmma where the
    # toolkit's ptxas does not): registers, spills, C75xx warnings.
    log = compiled.jit_log
    (directory / f"{variant}-{tag}.jit.txt").write_text(log)
    print(f"  wrote {path}; the driver compiler says:", flush=True)
    for line in log.splitlines():
        if "C75" in line or "registers" in line or "spill" in line:
            print(f"    {line.strip()}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", action="append", required=True)
    p.add_argument("--variant", choices=list(VARIANTS), default="pointers")
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    p.add_argument("--shape", action="append",
                   help="M,N,K (repeatable: each config at each shape; default 4096,4096,4096)")
    p.add_argument("--pieces", type=int, choices=[1, 2, 4])
    p.add_argument("--launches", type=int, default=1)
    p.add_argument("--time", action="store_true",
                   help="also time each config (do_bench median) and print TFLOP/s")
    p.add_argument("--sass", type=pathlib.Path, help="write each config's SASS to DIR")
    p.add_argument("--pad", type=int, default=0, metavar="ELEMENTS",
                   help="A and B as views into rows padded to a multiple of ELEMENTS "
                        "(the same shapes, their rows aligned otherwise)")
    p.add_argument("--torch", action="store_true",
                   help="with --time, also time torch.matmul (cuBLAS) at each shape")
    p.add_argument("--programs", type=int, action="append",
                   help="the persistent variants' grid (repeatable: each is run); "
                        "default one program per SM, or per tile where fewer")
    args = p.parse_args()
    dtype = getattr(torch, args.dtype)
    for shape in args.shape or ["4096,4096,4096"]:
        m, n, k = (int(x) for x in shape.split(","))
        run_shape(args, dtype, m, n, k)


def run_shape(args, dtype, m, n, k):
    """Each --config at one shape (and cuBLAS there with --torch)."""
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    if args.pad:
        def padded(t):
            cols = -(-t.shape[1] // args.pad) * args.pad
            wide = torch.zeros(t.shape[0], cols, device="cuda", dtype=dtype)
            wide[:, :t.shape[1]] = t
            return wide[:, :t.shape[1]]
        a, b = padded(a), padded(b)
    want = a.float() @ b.float()
    c = torch.empty(m, n, device="cuda",
                    dtype=torch.float32 if args.variant == "pointers" else dtype)
    if args.time and args.torch:
        import triton.testing
        ms = triton.testing.do_bench(lambda: torch.matmul(a, b))
        padded = " padded" if args.pad else ""
        print(f"torch {args.dtype} {m}x{n}x{k}{padded}: "
              f"{2.0 * m * n * k / (ms * 1e-3) / 1e12:.1f} TFLOP/s ({ms:.4f} ms)", flush=True)
    for text, programs in [(t, g) for t in args.config for g in args.programs or [None]]:
        cfg = tuple(int(x) for x in text.split(","))
        launch, extra = launcher(args.variant, a, b, c, cfg, args.pieces, programs)
        launch()  # compiles and warms up
        torch.cuda.synchronize()
        err = (c.float() - want).abs().max().item()
        pieces = f" pieces {extra['EPILOGUE_PIECES']}" if extra and "EPILOGUE_PIECES" in extra \
            else ""
        # (The grid launched: in clusters, matmul_tma's, no more clusters
        # than the GPU runs at once.)
        grid = f" programs {matmul.last_grid}" if programs or extra and "STAGES" in extra \
            else ""
        if programs and programs != matmul.last_grid:
            grid += f" (asked {programs})"
        print(f"{args.variant} {args.dtype} {m}x{n}x{k}{' padded' if args.pad else ''} "
              f"config {cfg}{pieces}{grid}: "
              f"max |error| vs fp32 torch {err:.3g}", flush=True)
        # (A 16-bit C also carries its own rounding: 2^-8 of the largest.)
        assert err < 0.05 * k ** 0.5 + want.abs().max().item() / 256, "wrong result"
        if args.sass and extra is not None:
            write_sass(args.sass, args.variant, dtype, cfg, extra,
                       f"{args.dtype}-{m}x{n}x{k}-" + "x".join(map(str, cfg)) + pieces.replace(
                           " pieces ", "-p"))
        for _ in range(args.launches):
            launch()
        torch.cuda.synchronize()
        if args.time:
            import triton.testing
            ms = triton.testing.do_bench(launch)
            print(f"  {2.0 * m * n * k / (ms * 1e-3) / 1e12:.1f} TFLOP/s ({ms:.4f} ms)",
                  flush=True)

if __name__ == "__main__":
    main()
