"""The batch-1 GEMVs of kernels/decode.py launched for a profiler
(tools/gpu-session.sh runs this under Nsight Compute): each `--case
GEMV:TILING` (repeatable; GEMV one of qkv, gate_up, down; TILING a name
of bench/decode.py's TILINGS without "tilec ", e.g. "mma" or "rows") is
compiled, checked against float64, then launched `--launches` times on
Qwen2.5-1.5B's shapes.

    python3 bench/profile_decode.py --case down:mma --case down:rows [--launches 2]

Under ncu, skip the first launch of each kernel (it compiles and warms
up); ncu's default cache control flushes the L2 before each profiled
launch, so the weights come from DRAM as in bench/decode.py:

    ncu --clock-control none -k regex:gemv_residual --launch-skip 1 \\
        --launch-count 1 python3 bench/profile_decode.py --case down:mma
"""
import argparse
import importlib.util
import pathlib
import sys

import torch

# bench/decode.py, under another name than kernels/decode.py's "decode".
_spec = importlib.util.spec_from_file_location(
    "bench_decode", pathlib.Path(__file__).resolve().parent / "decode.py")
bd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bd)
CFG, ds, empty, f64, ref = bd.CFG, bd.ds, bd.empty, bd.f64, bd.ref


def launcher(k, gemv, tiles, w0):
    """(launch(), check()) of one GEMV at batch 1 with `tiles`."""
    w64 = {n: f64(t) for n, t in w0.items()}
    if gemv == "gate_up":
        x = bd.randn(1, CFG.hidden, seed=11)
        h = torch.empty(1, CFG.intermediate, dtype=torch.bfloat16, device="cuda")
        want = ref.swiglu(CFG, f64(x), w64["post_norm"], w64["gate_up"])
        return (lambda: ds.gate_up(k, CFG, 1, x, w0["post_norm"], w0["gate_up"], h,
                                   tiles=tiles)), (lambda: bd.close(gemv, h, want, ref.TOL))
    if gemv == "down":
        hx, res = bd.randn(1, CFG.intermediate, seed=12), bd.randn(1, CFG.hidden, seed=13)
        out = torch.empty_like(res)
        scratch = ds.make_scratch(CFG, 1, tiles, empty)
        want = f64(hx) @ w64["down"].T + f64(res)
        return (lambda: ds.projection(k, 1, CFG.intermediate, CFG.hidden, hx, w0["down"], res,
                                      out, tiles=tiles, scratch=scratch)), \
            (lambda: bd.close(gemv, out, want, ref.TOL))
    max_len = 4096
    x = bd.randn(1, CFG.hidden, seed=11)
    kc, vc, pos, q = bd.qkv_buffers(CFG, max_len)
    scratch = ds.make_scratch(CFG, 1, tiles, empty)
    want, _, _ = ref.qkv_rope(CFG, f64(x), w64["input_norm"], w64["qkv"], w64["qkv_bias"],
                              pos.cpu().numpy())
    return (lambda: ds.qkv_rope(k, CFG, 1, max_len, x, w0["input_norm"], w0["qkv"],
                                w0["qkv_bias"], pos, q, kc, vc, tiles=tiles,
                                scratch=scratch)), \
        (lambda: bd.close(gemv, q, want.reshape(1, -1), ref.TOL))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", action="append", required=True, help="GEMV:TILING")
    p.add_argument("--launches", type=int, default=2)
    args = p.parse_args()
    k = ds.Kernels()
    w0 = bd.weights(0)
    for case in args.case:
        gemv, _, name = case.partition(":")
        if gemv not in ("qkv", "gate_up", "down"):
            p.error(f"unknown GEMV {gemv!r} in {case!r} (qkv, gate_up or down)")
        tiles = bd.TILINGS.get("tilec " + name)
        if tiles is None:
            p.error(f"unknown tiling {name!r}; bench/decode.py's TILINGS has " +
                    ", ".join(t.removeprefix("tilec ") for t in bd.TILINGS))
        launch, check = launcher(k, gemv, tiles, w0)
        for _ in range(args.launches):
            launch()
        torch.cuda.synchronize()
        if not check():
            sys.exit(f"{case}: wrong result")
        print(f"{case}: {args.launches} launches, checked against float64", flush=True)


if __name__ == "__main__":
    main()
