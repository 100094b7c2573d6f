"""Consumer groups (ping-pong) against one cooperative consumer for the
persistent, warp-specialised descriptor matmul (kernels/matmul.py's
`matmul_persistent_kernel` through matmul_tma(programs=..., warp_specialize=True,
tma_store=True)), beside torch (cuBLAS), in one run on the same random
normal inputs, fp16 in, fp16 out:

    python3 bench/matmul_pingpong.py [--commit SHA] [--out DIR] [--quick]

Variants (fixed configs, no search, so that the comparison is of the
schedule and not of a tuner's luck):
  coop 128x256    one group of 8 consumer warps on 128 x 256 tiles, 3 stages
  pingpong 128x128  two groups of 4 consumer warps taking turns at 128 x 128
                  tiles, 4 stages
  one group 128x128  the same tiles with one group of 4 warps
each plain (C = A B) and with the epilogue (C = gelu(A B + bias), the tanh
form). torch runs torch.matmul for the plain rows and
gelu(addmm(bias, A, B), approximate="tanh") for the epilogue rows.

Every output is checked against float64 before it is timed (max |error| /
sqrt(K) within bench/common.matmul_tolerance; the GELU rows against a
float64 GELU). Times: the median of three interleaved rounds of do_bench
medians, the spread of the three reported.
Results: bench/results/matmul_pingpong-DATE.json.
"""
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import common  # noqa: E402  bench/common.py
from common import gelu_tanh, matmul_error, matmul_tolerance, persistent_programs  # noqa: E402
import matmul  # noqa: E402  kernels/matmul.py

SHAPES = [(3000, 5000, 1000), (4096, 4096, 512), (4096, 4096, 4096), (8192, 8192, 8192)]
QUICK = [(3000, 5000, 1000), (4096, 4096, 4096)]

# name: (config, consumer groups)
VARIANTS = {
    "coop 128x256": ((128, 256, 64, 8, 8, 3), 1),
    "pingpong 128x128": ((128, 128, 64, 8, 4, 4), 2),
    "one group 128x128": ((128, 128, 64, 8, 4, 4), 1),
}


def launcher(a, b, c, bias, cfg, groups, epilogue):
    programs = persistent_programs(a, b, cfg)
    options = dict(programs=programs, warp_specialize=True, tma_store=True,
                   consumer_groups=groups)
    if epilogue:
        options.update(bias=bias, activation="gelu")
    return lambda: matmul.matmul_tma(a, b, c, cfg, **options)


def main():
    args = common.parse_args()
    shapes = QUICK if args.quick else SHAPES
    rows = []
    for M, N, K in shapes:
        gen = torch.Generator(device="cuda").manual_seed(M + N + K)
        a = torch.randn((M, K), device="cuda", generator=gen).half()
        b = torch.randn((K, N), device="cuda", generator=gen).half()
        bias = torch.randn((N,), device="cuda", generator=gen).half()
        product = a.double() @ b.double()
        for epilogue in (False, True):
            ref = gelu_tanh(product + bias.double()) if epilogue else product
            kind = "bias+gelu" if epilogue else "plain"
            print(f"float16 {M}x{N}x{K} {kind}", flush=True)
            if epilogue:
                runs = {"torch": lambda: torch.nn.functional.gelu(
                    torch.addmm(bias, a, b), approximate="tanh")}
            else:
                runs = {"torch": lambda: torch.matmul(a, b)}
            errors = {"torch": matmul_error(runs["torch"]().float(), ref, K)}
            failed = {}
            for name, (cfg, groups) in VARIANTS.items():
                c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
                run = launcher(a, b, c, bias, cfg, groups, epilogue)
                try:
                    run()
                    torch.cuda.synchronize()
                except Exception as e:  # a config the compiler refuses
                    failed[name] = str(e).splitlines()[0][:160]
                    print(f"  {name}: {failed[name]}", flush=True)
                    continue
                errors[name] = matmul_error(c, ref, K)
                if not errors[name] < matmul_tolerance(ref, K, torch.float16):
                    failed[name] = f"wrong: error {errors[name]:.2e}"
                    print(f"  {name}: {failed[name]}", flush=True)
                    continue
                runs[name] = run
            times = common.timed(runs)
            flops = 2.0 * M * N * K
            entry = {"dtype": "float16", "M": M, "N": N, "K": K, "epilogue": kind,
                     "configs": {n: {"config": v[0], "consumer_groups": v[1]}
                                 for n, v in VARIANTS.items()},
                     "failed": failed}
            line = ""
            for impl, (ms, spread) in times.items():
                tflops = flops / ms / 1e9
                entry[impl] = {"ms": ms, "tflops": tflops, "spread": spread,
                               "error": errors[impl]}
                line += (f"    {impl:20s} {tflops:6.1f} TFLOP/s (±{100 * spread:.1f}%)"
                         f" {ms * 1e3:8.1f} us  {times['torch'][0] / ms:.2f}x torch\n")
            print(line, end="", flush=True)
            rows.append(entry)
    print(common.write_record("matmul_pingpong", args.commit, rows, args.out))


if __name__ == "__main__":
    main()
