"""fp8 matrix multiplication: tilec's kernels/matmul.py with e4m3 operands
(fp32 output), B column-major as cuBLAS takes it (both operands
K-contiguous: wgmma on sm_90a) and, in its own column, B row-major
(mma.sync, as wgmma transposes only 16-bit operands), against the same
kernel in bf16 and
against cuBLAS's fp8 GEMM (torch._scaled_mm, unit scales, B column-major
as it requires; fp32 output where cuBLAS offers it, else bf16), in one run
on the same random normal inputs rounded to fp8. Also tilec's
scaled_matmul_kernel with per-row and per-column scales (the fp8 config
found for the plain kernel; the cost of the scales in the epilogue) and,
where torch offers it, cuBLAS's row-wise scaled GEMM (bf16 output). The
descriptor kernels (matmul_tma: one program per tile, warp-specialised,
persistent and warp-specialised) in fp8 with B column-major and in bf16,
each at its best variant and config, are two more columns. On
wgmma the fp8 products are summed in the instruction's accumulator, which
keeps about 13 significant bits: tilec fp8 sums all of K there (as Triton
does on Hopper, and cuBLAS with use_fast_accum, its own column), and
"tilec fp8 promoted" adds into fp32 after every BLOCK_K (at most 128), as
cuBLAS's default does.

    python3 bench/matmul_fp8.py [--commit SHA] [--out DIR] [--quick]

Each output is checked against the float64 product of the same fp8 values
(max |difference| / sqrt(K), and relative to the largest |A| @ |B|). Times are the median of three interleaved
rounds of do_bench (bench/common.py); the spread of the three is the
run-to-run noise. TFLOP/s = 2 M N K / time. Results:
bench/results/matmul_fp8-DATE.json.
"""
import pathlib
import statistics
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import common  # noqa: E402  bench/common.py
from common import bench  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py


def error(c, ref, k):
    return (c.double() - ref).abs().max().item() / k ** 0.5


def relative_error(c, ref, sums):
    """Largest |c - ref| over the largest |a| @ |b| (`sums`)."""
    return (c.double() - ref).abs().max().item() / sums


def best_config(a, b, c, ref, sums, configs, **kwargs):
    """The fastest of `configs` whose result is right: within 2^-9 of the
    sums' size (wgmma's fp8 accumulator keeps about 13 bits; fp32 sums are
    far closer)."""
    found = None
    for cfg in configs:
        c.fill_(float("nan"))
        matmul.matmul(a, b, c, config=cfg, **kwargs)
        torch.cuda.synchronize()
        if not relative_error(c, ref, sums) < 2.0 ** -9:
            print(f"  {cfg} wrong", flush=True)
            continue
        t = bench(lambda: matmul.matmul(a, b, c, config=cfg, **kwargs))
        if found is None or t < found[0]:
            found = (t, cfg)
    return found[1]


#: matmul_tma variants tried for the descriptor columns: (name, programs
#: per SM or None for one program per tile, warp_specialize)
TMA_VARIANTS = [("desc", None, False), ("desc WS", None, True), ("persistent WS", 1, True)]


def best_tma(a, b, c, ref, sums, configs):
    """The fastest right (variant, config) of matmul_tma over TMA_VARIANTS
    and `configs`: ((name, programs, ws), config), or None."""
    found = None
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for variant in TMA_VARIANTS:
        for cfg in configs:
            run = tma_run(a, b, c, variant, cfg, sms)
            c.fill_(float("nan"))
            try:
                run()
                torch.cuda.synchronize()
            except Exception as e:  # a config that fails is reported, not fatal
                print(f"  {variant[0]} {cfg} failed: {str(e)[:200]}", flush=True)
                continue
            if not relative_error(c, ref, sums) < 2.0 ** -9:
                print(f"  {variant[0]} {cfg} wrong", flush=True)
                continue
            t = bench(run)
            if found is None or t < found[0]:
                found = (t, variant, cfg)
    return found and found[1:]


def tma_run(a, b, c, variant, cfg, sms):
    _, per_sm, ws = variant
    programs = per_sm * sms if per_sm else None
    return lambda: matmul.matmul_tma(a, b, c, cfg, programs=programs, warp_specialize=ws)


def runs_of(row):
    """The timed implementations of one record row."""
    return [k for k, v in row.items() if isinstance(v, dict) and "spread" in v]


def main():
    args = common.parse_args()
    shapes = [(2048,) * 3, (4096,) * 3, (8192,) * 3]
    if args.quick:
        shapes = [(4096,) * 3]
    rows = []
    for m, n, k in shapes:
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        a8 = torch.randn(m, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
        b8 = torch.randn(k, n, device="cuda", generator=gen).to(torch.float8_e4m3fn)
        ref = a8.double() @ b8.double()
        sums = (a8.double().abs() @ b8.double().abs()).max().item()
        a16, b16 = a8.to(torch.bfloat16), b8.to(torch.bfloat16)  # the same values
        b8_colmajor = b8.t().contiguous().t()
        one = torch.ones((), device="cuda")
        outs = {name: torch.empty(m, n, device="cuda") for name in (
            "tilec_fp8", "tilec_fp8_promoted", "tilec_fp8_b_row_major", "tilec_bf16",
            "tilec_fp8_tma", "tilec_bf16_tma")}
        fp8_configs = matmul.matmul_configs("float8_e4m3fn", True)
        # tilec_fp8_promoted: fp32 sums after every BLOCK_K (at most 128) K
        # elements, as cuBLAS's default (not use_fast_accum) promotes.
        cfgs = {"tilec_fp8": best_config(a8, b8_colmajor, outs["tilec_fp8"], ref, sums,
                                         fp8_configs),
                "tilec_fp8_promoted": best_config(
                    a8, b8_colmajor, outs["tilec_fp8_promoted"], ref, sums, fp8_configs,
                    max_num_imprecise_acc=128),
                "tilec_fp8_b_row_major": best_config(a8, b8, outs["tilec_fp8_b_row_major"],
                                                     ref, sums, fp8_configs),
                "tilec_bf16": best_config(a16, b16, outs["tilec_bf16"], ref, sums,
                                          matmul.matmul_configs("bfloat16", True))}
        # The descriptor kernels (TMA, warp-specialised, persistent): fp8
        # with B column-major read K-major by wgmma, bf16 with B row-major.
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        tma = {"tilec_fp8_tma": best_tma(a8, b8_colmajor, outs["tilec_fp8_tma"], ref, sums,
                                         matmul.descriptor_configs("float8_e4m3fn")),
               "tilec_bf16_tma": best_tma(a16, b16, outs["tilec_bf16_tma"], ref, sums,
                                          matmul.descriptor_configs("bfloat16")[:3])}
        scale_a = torch.rand(m, 1, device="cuda", generator=gen) + 0.5
        scale_b = torch.rand(1, n, device="cuda", generator=gen) + 0.5
        refs = {"tilec_fp8_rowwise": ref * scale_a.double() * scale_b.double()}
        refs["cublas_fp8_rowwise"] = refs["tilec_fp8_rowwise"]
        outs["tilec_fp8_rowwise"] = torch.empty(m, n, device="cuda")
        runs = {
            "tilec_fp8": lambda: matmul.matmul(a8, b8_colmajor, outs["tilec_fp8"],
                                               config=cfgs["tilec_fp8"]),
            "tilec_fp8_promoted": lambda: matmul.matmul(
                a8, b8_colmajor, outs["tilec_fp8_promoted"], max_num_imprecise_acc=128,
                config=cfgs["tilec_fp8_promoted"]),
            "tilec_fp8_b_row_major": lambda: matmul.matmul(
                a8, b8, outs["tilec_fp8_b_row_major"], config=cfgs["tilec_fp8_b_row_major"]),
            "tilec_bf16": lambda: matmul.matmul(a16, b16, outs["tilec_bf16"],
                                                config=cfgs["tilec_bf16"]),
            "tilec_fp8_rowwise": lambda: matmul.matmul(
                a8, b8_colmajor, outs["tilec_fp8_rowwise"], scale_a=scale_a, scale_b=scale_b,
                config=cfgs["tilec_fp8"]),
        }
        for name, inputs in (("tilec_fp8_tma", (a8, b8_colmajor)), ("tilec_bf16_tma", (a16, b16))):
            if tma[name]:
                runs[name] = tma_run(*inputs, outs[name], tma[name][0], tma[name][1], sms)
        try:
            torch._scaled_mm(a8, b8_colmajor, scale_a, scale_b, out_dtype=torch.bfloat16)
            runs["cublas_fp8_rowwise"] = lambda: torch._scaled_mm(
                a8, b8_colmajor, scale_a, scale_b, out_dtype=torch.bfloat16)
        except (RuntimeError, TypeError) as e:
            print(f"  torch._scaled_mm row-wise: {str(e)[:100]}", flush=True)
        try:  # cuBLAS summing all of K in the fp8 accumulator, as tilec_fp8
            outs["cublas_fp8_fast"] = torch._scaled_mm(a8, b8_colmajor, one, one,
                                                       out_dtype=torch.bfloat16,
                                                       use_fast_accum=True)
            runs["cublas_fp8_fast"] = lambda: torch._scaled_mm(
                a8, b8_colmajor, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)
        except (RuntimeError, TypeError) as e:
            print(f"  torch._scaled_mm use_fast_accum: {str(e)[:100]}", flush=True)
        for out_dtype in (torch.float32, torch.bfloat16):
            try:
                outs["cublas_fp8"] = torch._scaled_mm(a8, b8_colmajor, one, one,
                                                      out_dtype=out_dtype)
                runs["cublas_fp8"] = lambda od=out_dtype: torch._scaled_mm(
                    a8, b8_colmajor, one, one, out_dtype=od)
                cublas_out = str(out_dtype).replace("torch.", "")
                break
            except (RuntimeError, TypeError) as e:
                print(f"  torch._scaled_mm out_dtype={out_dtype}: {str(e)[:100]}", flush=True)
        times = {name: [] for name in runs}
        for _ in range(3):  # interleaved rounds
            for name, fn in runs.items():
                times[name].append(bench(fn))
        flops = 2.0 * m * n * k
        entry = {"dtype": "float8_e4m3fn", "M": m, "N": n, "K": k}
        for name in runs:
            ms = statistics.median(times[name])
            result = outs[name] if name in outs and not name.startswith("cublas") \
                else runs[name]()
            entry[name] = {"ms": ms, "TFLOP/s": flops / (ms * 1e-3) / 1e12,
                           "error": error(result, refs.get(name, ref), k),
                           "relative_error": relative_error(result, refs.get(name, ref),
                                                            sums),
                           "rounds_ms": times[name],
                           "spread": (max(times[name]) - min(times[name])) / ms}
            if name in cfgs or name == "tilec_fp8_rowwise":
                entry[name]["config"] = dict(zip(
                    ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps",
                     "num_stages"), cfgs.get(name, cfgs["tilec_fp8"])))
            elif name in tma:
                entry[name]["kernel"] = tma[name][0][0]
                entry[name]["config"] = dict(zip(
                    ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps",
                     "num_stages"), tma[name][1]))
            elif name == "cublas_fp8":
                entry[name]["out_dtype"] = cublas_out
        rows.append(entry)
        print(f"{m}x{n}x{k}: " + "  ".join(
            f"{name} {entry[name]['TFLOP/s']:6.1f}" for name in runs), flush=True)
    path = common.write_record("matmul_fp8", args.commit, rows, args.out)
    print("\n| M x N x K | tilec fp8 TFLOP/s | tilec bf16 TFLOP/s | cuBLAS fp8 TFLOP/s | "
          "fp8/bf16 | tilec fp8/cuBLAS fp8 | tilec fp8 row-wise | cuBLAS fp8 row-wise | "
          "tilec fp8, B row-major | tilec fp8 promoted | cuBLAS fp8 fast accum | "
          "relative error: tilec fp8, promoted, cuBLAS, cuBLAS fast | spread | fp8 config |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["tilec_fp8"]["config"]
        cublas = r.get("cublas_fp8", {}).get("TFLOP/s", float("nan"))
        rowwise = r.get("cublas_fp8_rowwise", {}).get("TFLOP/s", float("nan"))
        spread = max(r[k]["spread"] for k in runs_of(r))

        def tf(name):
            return r.get(name, {}).get("TFLOP/s", float("nan"))

        def rel(name):
            return r.get(name, {}).get("relative_error", float("nan"))
        print(f"| {r['M']}x{r['N']}x{r['K']} | {r['tilec_fp8']['TFLOP/s']:.0f} | "
              f"{r['tilec_bf16']['TFLOP/s']:.0f} | {cublas:.0f} | "
              f"{r['tilec_fp8']['TFLOP/s'] / r['tilec_bf16']['TFLOP/s']:.2f} | "
              f"{r['tilec_fp8']['TFLOP/s'] / cublas:.2f} | "
              f"{r['tilec_fp8_rowwise']['TFLOP/s']:.0f} | {rowwise:.0f} | "
              f"{r['tilec_fp8_b_row_major']['TFLOP/s']:.0f} | {tf('tilec_fp8_promoted'):.0f} | "
              f"{tf('cublas_fp8_fast'):.0f} | {rel('tilec_fp8'):.1e}, "
              f"{rel('tilec_fp8_promoted'):.1e}, {rel('cublas_fp8'):.1e}, "
              f"{rel('cublas_fp8_fast'):.1e} | {100 * spread:.1f}% | "
              f"{c['BLOCK_M']}x{c['BLOCK_N']}x{c['BLOCK_K']} w{c['num_warps']} "
              f"s{c['num_stages']} |")
    print("\n| M x N x K | tilec fp8, descriptors (kernel, config) | tilec bf16, descriptors "
          "(kernel, config) | fp8/bf16 (descriptors) | tilec fp8 descriptors/cuBLAS fp8 |")
    print("|---|---|---|---|---|")
    for r in rows:
        if "tilec_fp8_tma" not in r or "tilec_bf16_tma" not in r:
            continue
        cublas = r.get("cublas_fp8", {}).get("TFLOP/s", float("nan"))
        f8, b16 = r["tilec_fp8_tma"], r["tilec_bf16_tma"]

        def what(e):
            c = e["config"]
            return (f"{e['kernel']}, {c['BLOCK_M']}x{c['BLOCK_N']}x{c['BLOCK_K']} "
                    f"w{c['num_warps']} s{c['num_stages']}")
        print(f"| {r['M']}x{r['N']}x{r['K']} | {f8['TFLOP/s']:.0f} ({what(f8)}) | "
              f"{b16['TFLOP/s']:.0f} ({what(b16)}) | {f8['TFLOP/s'] / b16['TFLOP/s']:.2f} | "
              f"{f8['TFLOP/s'] / cublas:.2f} |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
