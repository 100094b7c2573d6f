"""The matmul's shipped tuning: which of kernels/matmul.py's kernels and
configs ran fastest, per GPU, operand type and shape, so that
`matmul.matmul(a, b, c)` launches the measured best without tuning on
first use (`autotune=True` still tunes; `config=` still picks).

The table, kernels/matmul_tuned.json, is written from a bench/matmul.py
run by tools/matmul-tuned-table.py: for every shape the run measured, the
fastest tilec kernel ("tilec pointers", "tilec descriptors", "tilec
persistent WS + TMA store", ...) and its config. A call looks up the
entries of its GPU (by name, e.g. "NVIDIA H200"), A's type and C's type,
and takes the nearest shape (distance: the sum over M, N and K of |log2|
of the ratio). A kernel the call's operands cannot take (descriptors need
A contiguous along K and B along N or K, a TMA store C along its rows)
falls back to the
pointer kernel with the same config. No table, no entry for the GPU, rows
not 16-byte aligned (the table's configs are the aligned ones, whose large
tiles spill without 16-byte vectors), or operands the table does not cover
(scales, fp8, int8, fp32): None, and matmul() uses its default config.

Host-side Python only (the C++ front end never compiles it).
"""
import json
import math
import pathlib

TABLE = pathlib.Path(__file__).with_name("matmul_tuned.json")

#: What each kernel name of the table (and of bench/matmul.py, which times
#: most of them) launches: (kind, options) with kind "pointers",
#: "descriptors" or "persistent" and options matmul_tma's (run() below).
#: The benchmarks launch their tilec kernels by these names (launch()).
KERNELS = {
    "tilec pointers": ("pointers", {}),
    "tilec descriptors": ("descriptors", {}),
    "tilec descriptors WS": ("descriptors", {"warp_specialize": True}),
    "tilec descriptors TMA store": ("descriptors", {"tma_store": True}),
    "tilec descriptors WS + TMA store": ("descriptors",
                                        {"warp_specialize": True, "tma_store": True}),
    "tilec persistent": ("persistent", {}),
    "tilec persistent WS": ("persistent", {"warp_specialize": True}),
    "tilec persistent WS + TMA store": ("persistent",
                                        {"warp_specialize": True, "tma_store": True}),
    # (Clusters of two, or four, sharing B's blocks: matmul_tma(cluster=N).)
    "tilec persistent WS + TMA store, clusters": ("persistent",
                                                  {"warp_specialize": True, "tma_store": True,
                                                   "cluster": 2}),
    "tilec persistent WS + TMA store, clusters of 4": ("persistent",
                                                       {"warp_specialize": True,
                                                        "tma_store": True, "cluster": 4}),
    # (The last round of tiles split by K steps among every SM:
    # matmul_tma(stream_k=True), whose C leaves through pointers.)
    "tilec persistent WS, stream-K": ("persistent", {"warp_specialize": True, "stream_k": True}),
    "tilec persistent WS, clusters, stream-K": ("persistent",
                                                {"warp_specialize": True, "cluster": 2,
                                                 "stream_k": True}),
}

CONFIG_KEYS = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps", "num_stages")

_loaded = {}


def load(path=TABLE):
    """The table at `path` ({gpu name: [entry, ...]}), {} without one."""
    key = str(path)
    if key not in _loaded:
        p = pathlib.Path(path)
        _loaded[key] = json.loads(p.read_text())["gpus"] if p.exists() else {}
    return _loaded[key]


def nearest(entries, dtype, c_dtype, M, N, K):
    """The entry of `entries` for A of `dtype` and C of `c_dtype` whose
    shape is nearest (M, N, K); None if none has those types."""
    def distance(e):
        return sum(abs(math.log2(max(x, 1) / e[d])) for x, d in ((M, "M"), (N, "N"), (K, "K")))
    same = [e for e in entries if e["dtype"] == dtype and e["c_dtype"] == c_dtype]
    return min(same, key=distance) if same else None


def choice(gpu, dtype, c_dtype, M, N, K, aligned, rows_contiguous, c_rows_contiguous,
           table=None):
    """(kind, options, config) for a plain product (no scales) of A (M x K,
    `dtype`) and B (K x N) into C (`c_dtype`) on `gpu`, or None.
    `aligned`: matmul.rows_aligned(a, b), without which the table's
    configs (aligned ones) do not apply; `rows_contiguous`: A has stride 1
    along K and B along N or K (descriptors read them); `c_rows_contiguous`:
    so has C (a TMA store writes it)."""
    entries = (load() if table is None else table).get(gpu)
    if not entries or not aligned:
        return None
    entry = nearest(entries, dtype, c_dtype, M, N, K)
    if entry is None:
        return None
    kind, options = KERNELS.get(entry["kernel"], ("pointers", {}))
    if kind != "pointers" and not rows_contiguous:
        kind, options = "pointers", {}
    if options.get("tma_store") and not c_rows_contiguous:
        options = {k: v for k, v in options.items() if k != "tma_store"}
    config = tuple(int(entry["config"][k]) for k in CONFIG_KEYS)
    if kind != "persistent":
        # (A tile whose width is not a power of two is the persistent
        # kernel's alone: elsewhere its widest power of two.)
        import matmul  # kernels/matmul.py, whose host-side helper this module is
        config = (config[0], matmul.split_width(config[1])[0], *config[2:])
    return kind, options, config


def table_from_results(record):
    """A table's entries ({gpu: [entry, ...]}) from a bench/matmul.py
    record: per row, the fastest tilec kernel and its config."""
    entries = []
    for row in record["rows"]:
        best = row.get("tilec")
        if not best or "config" not in best or best.get("kernel") not in KERNELS:
            continue
        entries.append({"dtype": row["dtype"], "c_dtype": row.get("c_dtype", row["dtype"]),
                        "M": row["M"], "N": row["N"], "K": row["K"],
                        "kernel": best["kernel"], "config": best["config"],
                        "TFLOP/s": round(best["TFLOP/s"], 1)})
    return {record["gpu"]: entries}


def _name(dtype):
    return str(dtype).replace("torch.", "")


def pick(a, b, c, aligned, table=None):
    """choice() for torch tensors A, B, C on a CUDA device (`aligned`:
    matmul.rows_aligned(a, b)); None for anything else (arrays, the CPU)."""
    device = getattr(a, "device", None)
    if getattr(device, "type", None) != "cuda":
        return None
    import torch  # only for torch tensors on a GPU
    gpu = torch.cuda.get_device_name(device)
    M, K = a.shape
    N = b.shape[1]
    # (matmul_tma reads a column-major B too: B_K_MAJOR.)
    rows = a.stride(1) == 1 and (b.stride(1) == 1 or b.stride(0) == 1)
    return choice(gpu, _name(a.dtype), _name(c.dtype), M, N, K, aligned, rows,
                  c.stride(1) == 1, table)


def run(kind, options, a, b, c, config, bias=None, activation="", grid=None, **more):
    """C = activation(A @ B + bias) by the kernel `kind` ("pointers":
    matmul() at `config`; "descriptors" or "persistent": matmul_tma() with
    `options`) at `config`: what matmul() does with a table entry, and what
    the benchmarks time under the entry's name. The persistent kernel runs
    on `grid` programs (default: programs(a, b, config)); `more`:
    matmul_tma's other options (epilogue_pieces)."""
    import matmul  # kernels/matmul.py, whose host-side helper this module is
    if kind == "pointers":
        if more:
            raise TypeError(f"the pointer kernel takes no {', '.join(sorted(more))}")
        return matmul.matmul(a, b, c, bias=bias, activation=activation, config=config)
    if kind not in ("descriptors", "persistent"):
        raise ValueError(f"no kernel kind {kind!r}")
    if kind == "persistent" and grid is None:
        grid = programs(a, b, config, options.get("stream_k", False))
    # (Every option spelled out, its default where `options` leaves it out:
    # an entry's options name only what it sets.)
    chosen = {"warp_specialize": False, "tma_store": False, "cluster": 1, "stream_k": False,
              **options}
    return matmul.matmul_tma(a, b, c, config, bias=bias, activation=activation,
                             programs=grid if kind == "persistent" else None,
                             **chosen, **more)


def launch(name, a, b, c, config, **kwargs):
    """run() of the kernel KERNELS calls `name` ("tilec persistent WS + TMA
    store", ...); `kwargs` as run()'s."""
    kind, options = KERNELS[name]
    return run(kind, options, a, b, c, config, **kwargs)


def programs(a, b, config, stream_k=False):
    """A persistent matmul's grid for A @ B at `config`: one program per
    SM, or one per tile where there are fewer (but with `stream_k`, which
    splits tiles among them all)."""
    import torch
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    if stream_k:
        return sms
    return min(sms, -(-a.shape[0] // config[0]) * -(-b.shape[1] // config[1]))
