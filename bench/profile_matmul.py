"""One kernels/matmul.py launch per config at one shape, for a profiler
(tools/gpu-session.sh runs it under ncu): `--config BM,BN,BK,GM,W,S`
(repeatable), `--shape M,N,K`, fp16 random normal inputs; `--time` also
times each (the num_stages sweep of tools/gpu-session.sh). Checks the result
against torch before exiting, so a profile is never of a wrong kernel."""
import argparse
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import matmul  # noqa: E402  kernels/matmul.py


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="4096,4096,4096")
    p.add_argument("--config", action="append", required=True)
    p.add_argument("--time", action="store_true",
                   help="also time each config (do_bench median) and print TFLOP/s")
    args = p.parse_args()
    m, n, k = (int(x) for x in args.shape.split(","))
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn(k, n, device="cuda").half()
    want = (a.float() @ b.float())
    for text in args.config:
        cfg = tuple(int(x) for x in text.split(","))
        c = torch.empty(m, n, device="cuda")
        matmul.matmul(a, b, c, config=cfg)  # compile and warm up
        matmul.matmul(a, b, c, config=cfg)
        torch.cuda.synchronize()
        err = (c - want).abs().max().item()
        print(f"config {cfg}: max |error| vs fp32 torch {err:.3g}", flush=True)
        assert err < 0.05 * k ** 0.5, "wrong result"
        if args.time:
            import triton.testing
            ms = triton.testing.do_bench(lambda: matmul.matmul(a, b, c, config=cfg))
            print(f"  {2.0 * m * n * k / (ms * 1e-3) / 1e12:.1f} TFLOP/s ({ms:.3f} ms)",
                  flush=True)


if __name__ == "__main__":
    main()
