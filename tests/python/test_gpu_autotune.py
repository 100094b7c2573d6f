"""The autotuner and the disk cache on a GPU: a sweep reports every config
(a failing one skipped with its reason), the best is launched and correct,
a second process reuses the stored choice without timing, a cubin lands in
the cache entry, tuning refuses to run inside CUDA-graph capture, and the
GPU agrees with the interpreter on cumsum. Marked gpu; skipped without one."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilec
import tilec.language as tl

import cumsum  # kernels/cumsum.py

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TUNED = textwrap.dedent('''
    import json, sys
    import torch
    import tilec
    import tilec.language as tl

    @tilec.autotune(configs=[tilec.Config({"BLOCK": b}, num_warps=w)
                             for b, w in [(256, 2), (1024, 4), (4096, 8), (1024, 64)]],
                    key=["n"], warmup=5, rep=20)
    @tilec.jit
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)

    n = 1 << 20
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    scale[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, out, n)
    torch.cuda.synchronize()
    r = scale.report
    print(json.dumps({"best": repr(scale.best_config), "reused": r.reused,
                      "ok": [x["ok"] for x in r.results],
                      "errors": [x["error"] for x in r.results],
                      "correct": bool(torch.equal(out, x * 3.0))}))
''')


def _run(tmp_path, script, **env):
    path = tmp_path / "tuned.py"
    path.write_text(script)
    e = dict(os.environ)
    e["TILEC_CACHE_DIR"] = str(tmp_path / "cache")
    e.update(env)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=e,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def test_autotune_then_reuse_in_new_process(torch_cuda, tmp_path):
    first, log1 = _run(tmp_path, TUNED)
    assert first["correct"]
    assert first["reused"] is False
    # num_warps=64 cannot compile: reported and skipped, the rest timed.
    assert first["ok"] == [True, True, True, False]
    assert "num-warps" in first["errors"][3] or "num_warps" in first["errors"][3]
    assert "tilec: tune scale [" in log1  # progress on stderr
    second, log2 = _run(tmp_path, TUNED)
    assert second["reused"] is True, "the second process timed again"
    assert second["best"] == first["best"]
    assert second["correct"]
    assert "tilec: tune scale [" not in log2


def test_sweep_report_files(torch_cuda, tmp_path):
    torch = torch_cuda

    @tilec.autotune(configs=[tilec.Config({"BLOCK": b}, num_warps=w)
                             for b in (256, 1024, 4096) for w in (4, 8)],
                    key=["n"], warmup=2, rep=10, progress=False)
    @tilec.jit
    def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)

    n = 1 << 22
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    report = copy.sweep(lambda m: (tilec.cdiv(n, m["BLOCK"]),), x, out, n, bytes=8 * n)
    assert len(report.results) == 6 and all(r["ok"] for r in report.results)
    assert all(r["gb_per_s"] > 0 and r["registers"] > 0 for r in report.results)
    assert report.best is not None
    # Compiled and timed for this GPU's own target, as launches are.
    assert report.target == tilec.default_target()
    assert f"({report.target})" in report.table().splitlines()[0]
    paths = report.write(str(tmp_path / "sweep"))
    data = json.loads(open(paths[1]).read())
    assert data["best"] >= 0 and len(data["results"]) == 6
    assert data["target"] == report.target
    assert open(paths[2]).read().startswith("<svg")
    assert open(paths[0]).read().count("\n") == 7


def test_no_tuning_inside_graph_capture(torch_cuda):
    torch = torch_cuda

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 128}), tilec.Config({"BLOCK": 256})],
                    key=["n"])
    @tilec.jit
    def fill(out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, 1.0, mask=offs < n)

    out = torch.zeros(1000, device="cuda")
    g = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        g.capture_begin()
        try:
            with pytest.raises(tilec.Error, match="CUDA graph"):
                fill[lambda m: (tilec.cdiv(1000, m["BLOCK"]),)](out, 1000)
        finally:
            g.capture_end()


def test_cumsum_gpu_matches_interpreter(torch_cuda):
    torch = torch_cuda
    interp = tilec.JITFunction(cumsum.cumsum_rows.fn, interpret=True)
    for rows, cols, dtype in [(5, 100, torch.float32), (3, 2000, torch.bfloat16),
                              (1, 1, torch.float32), (64, 4096, torch.float32)]:
        x = torch.randn(rows, cols, device="cuda").to(dtype)
        out = torch.full((rows, cols), float("nan"), device="cuda")
        block = tilec.next_power_of_2(cols)
        per = 8 if block <= 128 else 1
        grid = (tilec.cdiv(rows, per),)
        cumsum.cumsum_rows[grid](out, x, rows, cols, cols, cols, BLOCK=block, ROWS=per)
        xd = x.double().cpu().numpy()
        ref = np.cumsum(xd, axis=1)
        got = out.cpu().double().numpy()
        assert np.allclose(got, ref, rtol=1e-5, atol=1e-4), (rows, cols, dtype)
        mine = torch.full((rows, cols), float("nan"))
        interp[grid](mine, x.cpu(), rows, cols, cols, cols, BLOCK=block, ROWS=per)
        # The GPU adds in a tree (shuffles, then warps), the interpreter in
        # its own order: fp32 rounding differs by up to ~eps * sqrt(cols) *
        # the running sum of |x|; a lost or doubled element is off by ~|x|.
        bound = 1e-5 * np.cumsum(np.abs(xd), axis=1) + 1e-4
        diff = np.abs(got - mine.double().numpy())
        assert (diff <= bound).all(), (rows, cols, dtype, float(diff.max()))


def test_launch_stores_cubin_in_cache(torch_cuda, tmp_path):
    script = textwrap.dedent('''
        import json, torch, tilec, vector_add
        x = torch.randn(4096, device="cuda"); out = torch.empty_like(x)
        vector_add.add[(4,)](x, x, out, 4096, BLOCK=1024)
        torch.cuda.synchronize()
        c = vector_add.add.warmup(x, x, out, 4096, BLOCK=1024)
        print(json.dumps({"from_cache": c.from_cache, "list": tilec.cache.list(),
                          "ok": bool(torch.equal(out, x + x))}))
    ''')
    env = {"PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "kernels"),
                                          os.environ.get("PYTHONPATH", "")])}
    first, _ = _run(tmp_path, script, **env)
    assert first["ok"] and not first["from_cache"]
    assert any(e["cubin_arch"].startswith("sm_") for e in first["list"])
    second, _ = _run(tmp_path, script, **env)
    assert second["ok"] and second["from_cache"]


# -- hooks: tuning an in-place kernel leaves the caller's data as it was ----

@tilec.jit
def accumulate(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    """acc += x, in place: every launch changes acc."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(acc_ptr + offs, mask=mask)
    tl.store(acc_ptr + offs, acc + tl.load(x_ptr + offs, mask=mask), mask=mask)


HOOK_CONFIGS = [tilec.Config({"BLOCK": b}, num_warps=w) for b, w in [(256, 2), (1024, 4)]]


def _grid(n):
    return lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)


def test_restore_value_leaves_the_callers_data(torch_cuda):
    torch = torch_cuda
    tuned = tilec.autotune(HOOK_CONFIGS, key=["n"], restore_value=["acc_ptr"], warmup=2,
                           rep=5, cache_results=False, progress=False)(accumulate)
    n = 1 << 16
    acc = torch.randn(n, device="cuda")
    x = torch.randn(n, device="cuda")
    before = acc.clone()
    tuned[_grid(n)](acc, x, n)
    torch.cuda.synchronize()
    # Dozens of launches were timed; the caller sees exactly one.
    assert torch.equal(acc, before + x)
    assert sum(r["ok"] for r in tuned.report.results) == 2


def test_without_restore_value_tuning_changes_the_data(torch_cuda):
    """The control: the same tuning without restore_value accumulates."""
    torch = torch_cuda
    tuned = tilec.autotune(HOOK_CONFIGS, key=["n"], warmup=2, rep=5, cache_results=False,
                           progress=False)(accumulate)
    n = 1 << 16
    acc = torch.zeros(n, device="cuda")
    x = torch.ones(n, device="cuda")
    tuned[_grid(n)](acc, x, n)
    torch.cuda.synchronize()
    assert (acc > 2).all()


def test_reset_to_zero_starts_the_real_launch_at_zero(torch_cuda):
    torch = torch_cuda
    tuned = tilec.autotune(HOOK_CONFIGS, key=["n"], reset_to_zero=["acc_ptr"], warmup=2,
                           rep=5, cache_results=False, progress=False)(accumulate)
    n = 1 << 16
    acc = torch.zeros(n, device="cuda")
    x = torch.randn(n, device="cuda")
    tuned[_grid(n)](acc, x, n)
    torch.cuda.synchronize()
    assert torch.equal(acc, x)


def test_pre_and_post_hooks_bracket_every_tuning_launch(torch_cuda):
    torch = torch_cuda
    calls = []

    def pre(nargs):
        assert nargs["n"] == n and nargs["acc_ptr"] is acc and "BLOCK" in nargs
        calls.append(("pre", nargs["BLOCK"]))
        nargs["acc_ptr"].zero_()

    def post(nargs, exception):
        assert exception is None
        calls.append(("post", nargs["BLOCK"]))

    config_calls = []
    configs = [tilec.Config({"BLOCK": 256}, num_warps=2,
                            pre_hook=lambda nargs: config_calls.append(nargs["BLOCK"])),
               tilec.Config({"BLOCK": 1024}, num_warps=4)]
    tuned = tilec.autotune(configs, key=["n"], pre_hook=pre, post_hook=post, warmup=2,
                           rep=5, cache_results=False, progress=False)(accumulate)
    n = 1 << 16
    acc = torch.zeros(n, device="cuda")
    x = torch.randn(n, device="cuda")
    tuned[_grid(n)](acc, x, n)
    torch.cuda.synchronize()
    pres = [b for kind, b in calls if kind == "pre"]
    posts = [b for kind, b in calls if kind == "post"]
    # Alternating, one pair per launch, at least the 5 timed repeats of each config.
    assert [kind for kind, _ in calls] == ["pre", "post"] * (len(calls) // 2)
    assert pres == posts
    assert pres.count(256) >= 5 and pres.count(1024) >= 5
    # The config's own hook: before each of its tuning launches, and before
    # the real launch if it won.
    won = tuned.best_config.kwargs["BLOCK"] == 256
    assert len(config_calls) == pres.count(256) + (1 if won else 0)
    # pre zeroed acc before the last tuning launch, which added x once; the
    # real launch added it again (user hooks replace the restore default).
    assert torch.allclose(acc, 2 * x)


def test_a_failing_hook_ends_tuning_with_its_error(torch_cuda):
    torch = torch_cuda

    def pre(nargs):
        raise KeyError("from the hook")

    tuned = tilec.autotune(HOOK_CONFIGS, key=["n"], pre_hook=pre, warmup=2, rep=5,
                           cache_results=False, progress=False)(accumulate)
    n = 1 << 12
    acc = torch.zeros(n, device="cuda")
    with pytest.raises(KeyError, match="from the hook"):
        tuned[_grid(n)](acc, acc, n)


def test_maxnreg_config_takes_effect(torch_cuda):
    torch = torch_cuda
    configs = [tilec.Config({"BLOCK": 1024}, num_warps=4, maxnreg=24)]
    tuned = tilec.autotune(configs, key=["n"], warmup=2, rep=5, cache_results=False,
                           progress=False)(accumulate)
    n = 1 << 16
    acc = torch.zeros(n, device="cuda")
    x = torch.randn(n, device="cuda")
    tuned[_grid(n)](acc, x, n)
    torch.cuda.synchronize()
    result = tuned.report.results[0]
    assert result["ok"] and result["maxnreg"] == 24 and 0 < result["registers"] <= 24
    assert "maxnreg=24" in result["config"]


@tilec.jit
def _square_matmul(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        y = tl.load(b_ptr + (k + ks)[:, None] * BLOCK + rows[None, :])
        acc += tl.dot(x, y)
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc)


def test_configs_too_big_for_shared_memory_are_dropped(torch_cuda, tmp_path, monkeypatch):
    """A config whose tiles need more shared memory than the GPU holds per
    block is dropped when the compiler allocates it (before LLVM and
    ptxas), reported as dropped with its need, never launched; the others
    are timed and the best one runs."""
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the shared-memory sizes below are sm_90a's (227 KB per block)")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    # Two 256 x 256 fp16 tiles: 256 KB, even unpipelined. 256 x 64 fits.
    configs = [tilec.Config({"BLOCK_K": 256}, num_warps=8),
               tilec.Config({"BLOCK_K": 64}, num_warps=8)]
    launches = []
    tuned = tilec.autotune(configs, key=["K"], warmup=2, rep=5, cache_results=False,
                           progress=False,
                           pre_hook=lambda nargs: launches.append(nargs["BLOCK_K"]))(_square_matmul)
    K = 512
    a = torch.randn(256, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, 256, device="cuda", dtype=torch.float16)
    c = torch.full((256, 256), float("nan"), device="cuda")
    tuned[(1,)](a, b, c, K, BLOCK=256)
    torch.cuda.synchronize()
    report = tuned.report
    dropped, kept = report.results
    assert dropped["dropped_for_shared_memory"] and not dropped["ok"]
    assert dropped["shared_bytes"] == 262144
    assert dropped["error"].startswith("dropped: needs 262144 bytes of shared memory")
    assert report.dropped == [configs[0]]
    assert kept["ok"] and not kept["dropped_for_shared_memory"]
    assert 0 < kept["shared_bytes"] <= 232448
    assert report.best is configs[1] and tuned.best_config is configs[1]
    assert 256 not in launches and 64 in launches
    assert "dropped: needs 262144" in report.table()
    assert json.loads(report.json())["results"][0]["dropped_for_shared_memory"] is True
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.double(), ref, rtol=2e-2, atol=2e-2 * K ** 0.5)
    # Stored in the tuning database and read back by another tuner (the
    # first may find it stored already, by an earlier run): still dropped,
    # with its need, and not compiled or timed again.
    stored = [tilec.autotune(configs, key=["K"], warmup=2, rep=5, progress=False)(_square_matmul)
              for _ in range(2)]
    for tuner in stored:
        tuner[(1,)](a, b, c, K, BLOCK=256)
    torch.cuda.synchronize()
    first, again = (t.report.results[0] for t in stored)
    assert first["dropped_for_shared_memory"]
    assert again["dropped_for_shared_memory"] and again["from_database"]
    assert again["shared_bytes"] == 262144 and again["error"] == first["error"]
    assert stored[1].report.reused
