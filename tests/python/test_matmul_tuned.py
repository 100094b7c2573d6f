# The matmul's shipped tuning (kernels/matmul_tuned.py): the nearest
# measured shape's kernel and config, the fallbacks when the operands
# cannot take that kernel, the table written from a bench/matmul.py record
# (tools/matmul-tuned-table.py), and the shipped table naming only shipped
# configs. On the CPU: the GPU launches are test_gpu_matmul's.
import json
import os
import subprocess
import sys

import pytest

import matmul  # kernels/matmul.py
import matmul_tuned  # kernels/matmul_tuned.py

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _config(bm, bn, bk, gm, warps, stages):
    return dict(zip(matmul_tuned.CONFIG_KEYS, (bm, bn, bk, gm, warps, stages)))


def _row(M, N, K, kernel, config, dtype="float16", tflops=500.0):
    return {"dtype": dtype, "c_dtype": dtype, "M": M, "N": N, "K": K,
            "tilec": {"kernel": kernel, "config": _config(*config), "TFLOP/s": tflops},
            "torch": {"TFLOP/s": 600.0}}


RECORD = {"benchmark": "matmul", "commit": "abc1234", "date": "2026-12-06T00:00:00+00:00",
          "gpu": "NVIDIA H200",
          "rows": [_row(1024, 1024, 1024, "tilec descriptors", (128, 128, 64, 8, 8, 3)),
                   _row(8192, 8192, 8192, "tilec persistent WS + TMA store",
                        (128, 256, 64, 8, 8, 3)),
                   _row(4096, 4096, 512, "tilec pointers", (128, 256, 32, 8, 8, 4)),
                   _row(4096, 4096, 4096, "tilec persistent WS", (128, 256, 64, 8, 8, 3),
                        dtype="bfloat16"),
                   # A row where no tilec config was right is left out.
                   {"dtype": "float16", "c_dtype": "float16", "M": 2048, "N": 2048,
                    "K": 2048, "torch": {"TFLOP/s": 600.0}}]}
TABLE = matmul_tuned.table_from_results(RECORD)


def test_the_table_keeps_each_shapes_fastest_kernel():
    entries = TABLE["NVIDIA H200"]
    assert [(e["M"], e["N"], e["K"], e["dtype"]) for e in entries] == [
        (1024, 1024, 1024, "float16"), (8192, 8192, 8192, "float16"),
        (4096, 4096, 512, "float16"), (4096, 4096, 4096, "bfloat16")]
    assert entries[1]["kernel"] == "tilec persistent WS + TMA store"


@pytest.mark.parametrize("shape,kind,options,config", [
    # Exact shapes.
    ((1024, 1024, 1024), "descriptors", {}, (128, 128, 64, 8, 8, 3)),
    ((8192, 8192, 8192), "persistent", {"warp_specialize": True, "tma_store": True},
     (128, 256, 64, 8, 8, 3)),
    # Nearest in log2 of each dimension: 6000^3 is nearer 8192^3 than 1024^3
    # or 4096 x 4096 x 512; 4096 x 4096 x 700 nearest the short-K shape.
    ((6000, 6000, 6000), "persistent", {"warp_specialize": True, "tma_store": True},
     (128, 256, 64, 8, 8, 3)),
    ((4096, 4096, 700), "pointers", {}, (128, 256, 32, 8, 8, 4)),
    # Tiny shapes take the smallest measured one.
    ((1, 16, 64), "descriptors", {}, (128, 128, 64, 8, 8, 3)),
])
def test_nearest_shape_decides(shape, kind, options, config):
    M, N, K = shape
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", M, N, K, True, True,
                               True, TABLE) == (kind, options, config)


def test_types_and_gpus_must_match():
    # bf16 has its own entry; fp16 with an fp32 C, another GPU: none.
    assert matmul_tuned.choice("NVIDIA H200", "bfloat16", "bfloat16", 1024, 1024, 1024,
                               True, True, True, TABLE)[0] == "persistent"
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float32", 4096, 4096, 4096,
                               True, True, True, TABLE) is None
    assert matmul_tuned.choice("NVIDIA H100 80GB HBM3", "float16", "float16", 4096, 4096,
                               4096, True, True, True, TABLE) is None
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 4096, 4096, 4096,
                               True, True, True, {}) is None


def test_operands_a_kernel_cannot_take_fall_back():
    # A or B not contiguous along their rows: the pointer kernel with the
    # measured config.
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 8192, 8192, 8192,
                               True, False, True, TABLE) == (
        "pointers", {}, (128, 256, 64, 8, 8, 3))
    # C not contiguous along its rows: the same kernel storing through
    # pointers.
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 8192, 8192, 8192,
                               True, True, False, TABLE) == (
        "persistent", {"warp_specialize": True}, (128, 256, 64, 8, 8, 3))
    # Rows not 16-byte aligned: none of the table's (aligned) configs
    # applies; matmul() takes its default for unaligned operands.
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 8192, 8192, 8191,
                               False, True, True, TABLE) is None


def test_arrays_off_the_gpu_take_the_default():
    np = pytest.importorskip("numpy")
    a = np.zeros((64, 32), np.float16)
    b = np.zeros((32, 16), np.float16)
    assert matmul_tuned.pick(a, b, np.zeros((64, 16), np.float16), True, TABLE) is None


def test_the_tool_writes_and_merges_the_table(tmp_path):
    record = tmp_path / "matmul-2026-12-06.json"
    record.write_text(json.dumps(RECORD))
    out = tmp_path / "matmul_tuned.json"
    out.write_text(json.dumps({"gpus": {"NVIDIA H100 80GB HBM3": [
        {"dtype": "float16", "c_dtype": "float16", "M": 1, "N": 1, "K": 1,
         "kernel": "tilec pointers", "config": _config(64, 128, 32, 8, 4, 4)}]}}))
    tool = os.path.join(ROOT, "tools", "matmul-tuned-table.py")
    subprocess.run([sys.executable, tool, str(record), "--out", str(out)], check=True,
                   capture_output=True)
    table = json.loads(out.read_text())
    assert sorted(table["gpus"]) == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]
    assert table["gpus"]["NVIDIA H200"] == TABLE["NVIDIA H200"]
    assert table["sources"][0]["commit"] == "abc1234"
    # A record of another benchmark is refused.
    other = tmp_path / "softmax.json"
    other.write_text(json.dumps(dict(RECORD, benchmark="softmax")))
    run = subprocess.run([sys.executable, tool, str(other), "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "not a bench/matmul.py record" in run.stderr


def test_the_shipped_table_names_shipped_configs_and_kernels():
    # Every config there is one matmul_configs() ships for its type (so the
    # config tests assemble it without spills), every kernel one matmul()
    # knows how to launch.
    table = matmul_tuned.load()
    if not table:
        pytest.skip("no kernels/matmul_tuned.json yet (written from a GPU run)")
    for gpu, entries in table.items():
        assert entries, gpu
        for e in entries:
            config = tuple(e["config"][k] for k in matmul_tuned.CONFIG_KEYS)
            assert config in matmul.matmul_configs(e["dtype"], aligned=True), (gpu, e)
            assert e["kernel"] in matmul_tuned.KERNELS, (gpu, e)


def test_tma_store_only_where_it_clips_exactly(monkeypatch):
    # TMA clips a store to the next 16-byte boundary of the row: a C whose
    # rows are not a multiple of 16 bytes (70 fp16 columns) goes out
    # through pointers even when asked for TMA stores; 72 through TMA.
    import numpy as np
    import matmul
    assert matmul.tma_store_clips_exactly(72, 2) and matmul.tma_store_clips_exactly(68, 4)
    assert not matmul.tma_store_clips_exactly(70, 2)
    assert not matmul.tma_store_clips_exactly(70, 4)
    launched = []

    class Recorder:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append(kwargs["TMA_STORE"])

    monkeypatch.setattr(matmul, "matmul_desc_kernel", Recorder())
    config = matmul.matmul_configs("float16")[0]
    a = np.zeros((16, 32), np.float16)
    for n, want in ((70, False), (72, True)):
        b = np.zeros((32, n), np.float16)
        c = np.zeros((16, 80), np.float16)[:, :n]
        matmul.matmul_tma(a, b, c, config, tma_store=True)
        assert launched[-1] is want


def test_a_clusters_entry_launches_in_clusters():
    # The persistent kernel in clusters of two (bench/matmul.py --clusters):
    # its options carry cluster=2, kept where C takes pointer stores
    # instead of TMA (clusters need the warp-specialised persistent kernel,
    # not the TMA store), dropped with the kernel where A or B cannot be
    # read through descriptors.
    table = matmul_tuned.table_from_results(dict(RECORD, rows=[
        _row(3000, 5000, 1000, "tilec persistent WS + TMA store, clusters",
             (128, 256, 64, 8, 8, 3))]))
    clusters = {"warp_specialize": True, "tma_store": True, "cluster": 2}
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 3000, 5000, 1000,
                               True, True, True, table) == (
        "persistent", clusters, (128, 256, 64, 8, 8, 3))
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 3000, 5000, 1000,
                               True, True, False, table)[1] == {"warp_specialize": True,
                                                                "cluster": 2}
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 3000, 5000, 1000,
                               True, False, True, table)[:2] == ("pointers", {})


def test_a_wide_tile_falls_back_to_its_widest_power_of_two():
    # An entry at a tile 160 wide (the persistent kernel's TAIL_N) keeps it
    # where the persistent kernel runs, and where A or B cannot be read
    # through descriptors the pointer kernel gets the 128 columns it can
    # lay out.
    table = matmul_tuned.table_from_results(dict(RECORD, rows=[
        _row(3000, 5000, 1000, "tilec persistent WS + TMA store", (256, 160, 64, 8, 8, 3))]))
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 3000, 5000, 1000,
                               True, True, True, table)[2] == (256, 160, 64, 8, 8, 3)
    assert matmul_tuned.choice("NVIDIA H200", "float16", "float16", 3000, 5000, 1000,
                               True, False, True, table) == (
        "pointers", {}, (256, 128, 64, 8, 8, 3))


@pytest.mark.parametrize("name", list(matmul_tuned.KERNELS))
def test_each_kernel_name_launches_what_the_table_says(monkeypatch, name):
    # launch() (what bench/matmul.py, matmul_epilogue.py and
    # profile_matmul.py time each name by, and matmul() runs an entry by):
    # the kernel of the name's kind with its options as constexprs, a
    # persistent kernel on the grid asked for (rounded to whole clusters),
    # and bias and activation passed on.
    import numpy as np
    launched = []

    class Recorder:
        interpret = True  # (no GPU to ask how many clusters run at once)

        def __init__(self, kernel):
            self.kernel = kernel

        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append((self.kernel, grid, kwargs))

    for kernel in ("matmul_kernel", "matmul_desc_kernel", "matmul_persistent_kernel"):
        monkeypatch.setattr(matmul, kernel, Recorder(kernel))
    kind, options = matmul_tuned.KERNELS[name]
    config = (64, 64, 32, 8, 4, 3)
    a = np.zeros((100, 64), np.float16)
    b = np.zeros((64, 72), np.float16)
    c = np.zeros((100, 72), np.float16)
    bias = np.zeros(72, np.float32)
    grid = {"grid": 7} if kind == "persistent" else {}
    matmul_tuned.launch(name, a, b, c, config, bias=bias, activation="gelu", **grid)
    (kernel, launched_grid, constexprs), = launched
    assert kernel == {"pointers": "matmul_kernel", "descriptors": "matmul_desc_kernel",
                      "persistent": "matmul_persistent_kernel"}[kind]
    assert constexprs["HAS_BIAS"] and constexprs["ACTIVATION"] == "gelu"
    assert (constexprs["BLOCK_M"], constexprs["BLOCK_N"]) == (64, 64)
    if kind == "pointers":
        assert launched_grid == (2 * 2,)
        return
    assert constexprs["WARP_SPECIALIZE"] == options.get("warp_specialize", False)
    assert constexprs["TMA_STORE"] == options.get("tma_store", False)
    if kind == "persistent":
        cluster = options.get("cluster", 1)
        assert constexprs["CLUSTER"] == cluster
        assert constexprs["STREAM_K"] == options.get("stream_k", False)
        assert launched_grid == (7 // cluster * cluster,)
    else:
        assert launched_grid == (2 * 2,)


def test_the_pointer_kernel_takes_no_persistent_options():
    import numpy as np
    a = np.zeros((16, 16), np.float16)
    with pytest.raises(TypeError, match="epilogue_pieces"):
        matmul_tuned.launch("tilec pointers", a, a, a, (16, 16, 16, 1, 4, 2),
                            epilogue_pieces=2)
    with pytest.raises(ValueError, match="no kernel kind 'blocked'"):
        matmul_tuned.run("blocked", {}, a, a, a, (16, 16, 16, 1, 4, 2))


@pytest.mark.parametrize("name", [n for n, (kind, _) in matmul_tuned.KERNELS.items()
                                  if kind != "pointers"])
def test_run_passes_every_option_to_matmul_tma(monkeypatch, name):
    # run() hands matmul_tma each of warp_specialize, tma_store, cluster and
    # stream_k, the defaults where the entry's options leave one out (what
    # test_gpu_tma's test_shipped_table_launches_each_kernel reads).
    import numpy as np
    calls = []
    monkeypatch.setattr(matmul, "matmul_tma", lambda *args, **kw: calls.append(kw))
    kind, options = matmul_tuned.KERNELS[name]
    a = np.zeros((16, 16), np.float16)
    matmul_tuned.run(kind, options, a, a, a, (16, 16, 16, 1, 4, 2), grid=3)
    (kw,) = calls
    assert kw["warp_specialize"] == options.get("warp_specialize", False)
    assert kw["tma_store"] == options.get("tma_store", False)
    assert kw["cluster"] == options.get("cluster", 1)
    assert kw["stream_k"] == options.get("stream_k", False)
    assert kw["programs"] == (3 if kind == "persistent" else None)
