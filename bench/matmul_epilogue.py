"""What the fused bias + GELU epilogue costs a matmul (issue 14: at most 3%
slower than the plain product): each of tilec's kernels (kernels/matmul.py:
`matmul_kernel` through pointers, `matmul_desc_kernel` and
`matmul_persistent_kernel` through descriptors, the latter also
warp-specialised with C written by TMA, and with --kernels naming it the
same in clusters of two or of four) at its best shipped config
for the plain product, then that config with HAS_BIAS and ACTIVATION="gelu";
beside torch's unfused matmul, bias add and GELU (tanh) for reference.

    python3 bench/matmul_epilogue.py [--commit SHA] [--out DIR] [--quick]
        [--shape MxNxK ...] [--dtypes float16,bfloat16] [--kernels NAME;...]

C in the inputs' type (fp16, bf16), random normal inputs, every output
checked against float64 (the plain product, and the epilogue applied to
it). Times as bench/matmul.py: median of three interleaved rounds of
do_bench medians, the spread reported. Results:
bench/results/matmul_epilogue-DATE.json.
"""
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import common  # noqa: E402  bench/common.py
from common import best_matmul_config, gelu_tanh, matmul_error, matmul_tolerance  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py
import matmul_tuned  # noqa: E402  kernels/matmul_tuned.py

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (3000, 5000, 1000)]
QUICK = [(4096, 4096, 4096)]


#: The tilec kernels it can time: the shipped table's names less "tilec "
#: (kernels/matmul_tuned.py KERNELS, which says what each launches); by
#: default these four.
KERNELS = {name.removeprefix("tilec "): name for name in matmul_tuned.KERNELS}
DEFAULT = ["pointers", "descriptors", "persistent", "persistent WS + TMA store"]


def launcher(name):
    """launch(a, b, c, cfg, bias, activation) of KERNELS[name]."""
    return lambda a, b, c, cfg, bias, act: matmul_tuned.launch(
        KERNELS[name], a, b, c, cfg, bias=bias, activation=act)


def shape(text):
    """MxNxK as a tuple of three positive integers."""
    dims = tuple(int(d) for d in text.lower().split("x"))
    if len(dims) != 3 or min(dims) < 1:
        raise ValueError(f"a shape is MxNxK, got {text!r}")
    return dims


def main():
    def extra(ap):
        ap.add_argument("--shape", type=shape, action="append",
                        help="MxNxK (repeatable): these shapes instead of SHAPES")
        ap.add_argument("--dtypes", default="float16,bfloat16",
                        help="float16 and/or bfloat16 (comma-separated)")
        # (Semicolons between names: a name may hold a comma.)
        ap.add_argument("--kernels", default=";".join(DEFAULT),
                        help="which of " + "; ".join(KERNELS) + " (semicolon-separated; "
                             "default: " + "; ".join(DEFAULT) + ")")
    args = common.parse_args(extra)
    names = [name.strip() for name in args.kernels.split(";")]
    unknown = [name for name in names if name not in KERNELS]
    unknown += [name for name in args.dtypes.split(",") if name not in ("float16", "bfloat16")]
    if unknown:
        raise SystemExit(f"unknown kernel or dtype {unknown}: kernels are "
                         f"{'; '.join(KERNELS)} (semicolon-separated); dtypes float16, bfloat16")
    kernels = {name: launcher(name) for name in names}
    shapes = args.shape or (QUICK if args.quick else SHAPES)
    rows = []
    for dtype in (getattr(torch, name) for name in args.dtypes.split(",")):
        for m, n, k in shapes:
            torch.manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            bias = torch.randn(n, device="cuda")
            ref = (a.double() @ b.double()).float()
            ref_fused = gelu_tanh(ref.double() + bias.double()).float()
            configs = matmul.matmul_configs(str(dtype).replace("torch.", ""),
                                            matmul.rows_aligned(a, b))
            entry = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n, "K": k}
            print(f"{entry['dtype']} {m}x{n}x{k}", flush=True)
            runs, checks = {}, {}
            for name, launch in kernels.items():
                cfg = best_matmul_config(
                    lambda a_, b_, c_, cfg_, launch=launch: launch(a_, b_, c_, cfg_, None, ""),
                    a, b, ref, configs, dtype)
                if cfg is None:
                    continue
                entry[name + " config"] = cfg
                for fused in (False, True):
                    c = torch.empty(m, n, device="cuda", dtype=dtype)
                    key = f"{name}{' +bias+gelu' if fused else ''}"
                    runs[key] = (lambda launch=launch, c=c, cfg=cfg, fused=fused: launch(
                        a, b, c, cfg, bias if fused else None, "gelu" if fused else ""))
                    checks[key] = (c, ref_fused if fused else ref)
            torch_out = {}
            runs["torch"] = lambda: torch_out.__setitem__("plain", torch.matmul(a, b))
            runs["torch +bias+gelu"] = lambda: torch_out.__setitem__(
                "fused", gelu_tanh(torch.matmul(a, b) + bias.to(dtype)))
            times = common.timed(runs)
            flops = 2.0 * m * n * k
            for key, (ms, spread) in times.items():
                runs[key]()
                torch.cuda.synchronize()
                if key.startswith("torch"):
                    out = torch_out["fused" if "gelu" in key else "plain"]
                    want = ref_fused if "gelu" in key else ref
                else:
                    out, want = checks[key]
                error = matmul_error(out, want, k)
                entry[key] = {"ms": ms, "TFLOP/s": flops / ms / 1e9, "spread": spread,
                              "error": error,
                              "right": error < matmul_tolerance(want, k, out.dtype)}
            for name in list(KERNELS) + ["torch"]:
                if name in entry and name + " +bias+gelu" in entry:
                    entry[name + " epilogue cost"] = (
                        entry[name + " +bias+gelu"]["ms"] / entry[name]["ms"] - 1)
            rows.append(entry)
            print("  " + "  ".join(
                f"{key} {entry[key]['TFLOP/s']:.0f}" for key in times), flush=True)
    path = common.write_record("matmul_epilogue", args.commit, rows, args.out)
    print("\n| dtype | M x N x K | kernel | plain TFLOP/s | +bias+GELU TFLOP/s | cost | "
          "spread |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for name in list(KERNELS) + ["torch"]:
            if name + " epilogue cost" not in r:
                continue
            plain, fused = r[name], r[name + " +bias+gelu"]
            print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {name} | "
                  f"{plain['TFLOP/s']:.0f} | {fused['TFLOP/s']:.0f} | "
                  f"{100 * r[name + ' epilogue cost']:+.1f}% | "
                  f"{100 * max(plain['spread'], fused['spread']):.1f}% |")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
