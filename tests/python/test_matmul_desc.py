"""kernels/matmul.py's matmul_desc_kernel in the interpreter (CPU), which
reads descriptors through pointers, as the GPU does wherever TMA does not
apply: edges that cut through tiles, K not a multiple of the block, bias
and activation. test_gpu_tma.py runs it on sm_90a through TMA."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import matmul  # kernels/matmul.py
from matmul import grouped_tile_of


@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (16, 16, 8), (33, 70, 16)])
@pytest.mark.parametrize("activation", ["", "relu"])
def test_desc_matmul_interpreted(m, n, k, activation):
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    kernel = tilec.JITFunction(matmul.matmul_desc_kernel.fn, interpret=True)
    bm = bn = bk = 16
    kernel[(tilec.cdiv(m, bm) * tilec.cdiv(n, bn),)](
        a, b, c, bias, m, n, k, k, n, n, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=2, HAS_BIAS=True, ACTIVATION=activation)
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    if activation == "relu":
        want = np.maximum(want, 0)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(k))


def _operands(rng, dtype, a_shape, b_shape):
    """Random A and B of `dtype` (small integers for int8, normal floats
    otherwise) and the C they are multiplied into: int32 zeros, or fp32
    NaNs."""
    m = a_shape[0]
    n = b_shape[1] if b_shape[0] == a_shape[1] else b_shape[0]
    if dtype == np.int8:
        return (rng.integers(-100, 100, a_shape).astype(np.int8),
                rng.integers(-100, 100, b_shape).astype(np.int8), np.zeros((m, n), np.int32))
    return (rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(b_shape).astype(dtype),
            np.full((m, n), np.nan, np.float32))


def _persistent_interpreted(m, n, k, programs, activation="", bias=True, dtype=np.float16,
                            workspace=None, c_fill=None, **constexprs):
    rng = np.random.default_rng(m * n + k + programs)
    a, b, c = _operands(rng, dtype, (m, k), (k, n))
    if c_fill is not None:
        c[...] = c_fill
    bias_values = rng.standard_normal(n).astype(np.float32)
    kernel = tilec.JITFunction(matmul.matmul_persistent_kernel.fn, interpret=True)
    constexprs.setdefault("GROUP_M", 2)
    constexprs.setdefault("BLOCK_N", 16)
    partials, flags = workspace if workspace is not None else (c, c)
    kernel[(programs,)](
        a, b, c, bias_values if bias else c, m, n, k, k, n, n, 1, partials, flags, BLOCK_M=16,
        BLOCK_K=16, HAS_BIAS=bias, ACTIVATION=activation, **constexprs)
    want = a.astype(np.float64) @ b.astype(np.float64)
    if bias:
        want = want + bias_values
    if activation == "relu":
        want = np.maximum(want, 0)
    return c, want


# Programs: one, a few (each walks several tiles, the last ones fewer),
# exactly the tiles, more than the tiles (some get none). K below one
# block, cut by the block, and 0 (C is the epilogue of zeros).
@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (33, 70, 16), (16, 16, 8), (20, 40, 0)])
@pytest.mark.parametrize("programs", [1, 3, 6, 11])
def test_persistent_matmul_interpreted(m, n, k, programs):
    c, want = _persistent_interpreted(m, n, k, programs, activation="relu")
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(max(k, 1)))


# Consumer groups (ping-pong) change who multiplies which tile on sm_90a,
# not what the kernel computes: with CONSUMER_GROUPS=2 (and a producer
# warpgroup) the interpreter gives the same C, K = 0 included (the code
# after the loop, which reads a tile of zeros of its own).
@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (20, 40, 0)])
@pytest.mark.parametrize("programs", [1, 3])
def test_persistent_matmul_with_consumer_groups_interpreted(m, n, k, programs):
    c, want = _persistent_interpreted(m, n, k, programs, activation="relu",
                                      WARP_SPECIALIZE=True, CONSUMER_GROUPS=2)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(max(k, 1)))


# Clusters of two or four (CLUSTER=2 or 4, tl.range(..., num_ctas=N)): the
# interpreter runs the programs as clusters of N along axis 0, as sm_90a
# launches them, and each cluster walks runs of N tiles on one column; the
# same C at a number of tile rows that is not whole runs (M = 40: three,
# the last run's later rows past C, which store nothing), with several
# runs per cluster, one, and none (K = 0 included). GROUP_M = 4: runs in
# groups of two rows of runs (one for clusters of four); M = 150 (ten
# tile rows: five or three rows of runs) also has a last group shorter
# than the others.
@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (33, 70, 16), (16, 16, 8), (20, 40, 0),
                                   (150, 40, 20)])
@pytest.mark.parametrize("cluster,programs", [(2, 2), (2, 4), (2, 12), (4, 4), (4, 12)])
def test_persistent_matmul_in_clusters_interpreted(m, n, k, cluster, programs):
    c, want = _persistent_interpreted(m, n, k, programs, activation="relu",
                                      WARP_SPECIALIZE=True, CLUSTER=cluster, GROUP_M=4)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(max(k, 1)))


# Stream-K (STREAM_K): the round of tiles (runs) too few for every program
# (cluster) split by K steps into one range per program, a tile cut between
# ranges finished by the range holding its first step with the partials of
# the ranges after it. The same C (bias and ReLU after the sum), with: the
# tiles in whole rounds and no split (6 tiles on 3 programs); fewer tiles
# than programs (6 tiles of 4 steps on 11: each cut in two); fewer
# iterations than programs (one tile of 3 steps on 7: cut in three, four
# ranges empty); a range inside one tile (one tile of 13 steps on 3: the
# middle range starts and ends inside it, and publishes after the loop);
# whole rounds then a split round (30 tiles on 7, and on 4 with a producer
# warpgroup); the partials stored and summed in 2 and 4 pieces of columns;
# int8 (int32 partials, exact); K = 0; and clusters of two and four. Each
# flag is back to zero, and where ranges cut tiles some slot holds a
# partial.
@pytest.mark.parametrize("m,n,k,programs,constexprs,cut", [
    (40, 24, 50, 3, {}, False),
    (40, 24, 50, 11, {}, True),
    (16, 16, 40, 7, {}, True),
    (16, 16, 200, 3, {}, True),
    (150, 40, 200, 7, {}, True),
    (150, 40, 50, 4, {"WARP_SPECIALIZE": True}, True),
    (33, 70, 100, 4, {"EPILOGUE_PIECES": 2, "WARP_SPECIALIZE": True}, True),
    (33, 70, 100, 4, {"EPILOGUE_PIECES": 4}, True),
    (40, 24, 0, 3, {}, False),
    (40, 24, 50, 6, {"WARP_SPECIALIZE": True, "CLUSTER": 2, "GROUP_M": 4}, True),
    (150, 40, 200, 8, {"WARP_SPECIALIZE": True, "CLUSTER": 4, "GROUP_M": 4}, True),
])
@pytest.mark.parametrize("dtype", [np.float16, np.int8])
def test_stream_k_matmul_interpreted(m, n, k, programs, constexprs, cut, dtype):
    partials = np.zeros(programs * 16 * 16, np.int32 if dtype == np.int8 else np.float32)
    flags = np.zeros(programs, np.int32)
    if dtype == np.int8:
        c, want = _persistent_interpreted(m, n, k, programs, bias=False, dtype=dtype,
                                          STREAM_K=True, workspace=(partials, flags),
                                          **constexprs)
        np.testing.assert_array_equal(c, want.astype(np.int64))
    else:
        c, want = _persistent_interpreted(m, n, k, programs, activation="relu", STREAM_K=True,
                                          workspace=(partials, flags), **constexprs)
        np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(max(k, 1)))
    assert not flags.any()
    assert partials.any() == cut


# A tile BLOCK_N + TAIL_N wide (TAIL_N: a second block of B, accumulator
# and dot per K step on the same block of A, and the tail's own epilogue):
# 32 + 16 = 48 and 16 + 16 = 32 columns, at edges that cut through the
# main part (N = 100: the third tile's tail starts past N; N = 47) and
# through the tail (N = 56), with a producer warpgroup and TMA stores in
# pieces (the tail's in two), a column-major B, in clusters of two and
# four, for int8 (exact), and K = 0 (C filled first: every element
# written).
@pytest.mark.parametrize("m,n,k,programs,bn,constexprs", [
    (40, 100, 50, 3, 32, {}),
    (40, 100, 50, 3, 32, {"WARP_SPECIALIZE": True, "TMA_STORE": True, "EPILOGUE_PIECES": 2,
                          "TAIL_PIECES": 2}),
    (33, 47, 20, 5, 16, {}),
    (40, 56, 30, 2, 16, {"TMA_STORE": True}),
    (40, 100, 0, 3, 32, {}),
    (150, 100, 50, 4, 32, {"WARP_SPECIALIZE": True, "CLUSTER": 2, "GROUP_M": 4}),
    (150, 56, 50, 8, 16, {"WARP_SPECIALIZE": True, "CLUSTER": 4, "GROUP_M": 4}),
])
@pytest.mark.parametrize("dtype", [np.float16, np.int8])
def test_split_width_matmul_interpreted(m, n, k, programs, bn, constexprs, dtype):
    if dtype == np.int8:
        c, want = _persistent_interpreted(m, n, k, programs, bias=False, dtype=dtype,
                                          c_fill=-1, BLOCK_N=bn, TAIL_N=16, **constexprs)
        np.testing.assert_array_equal(c, want.astype(np.int64))
    else:
        c, want = _persistent_interpreted(m, n, k, programs, activation="relu", BLOCK_N=bn,
                                          TAIL_N=16, **constexprs)
        np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(max(k, 1)))


def test_split_width():
    assert matmul.split_width(128) == (128, 0)
    assert matmul.split_width(160) == (128, 32)
    assert matmul.split_width(192) == (128, 64)
    assert matmul.split_width(48) == (32, 16)
    for width in (176, 24, 129, 0):  # (not two powers of two; tails under 16)
        with pytest.raises(ValueError, match=f"BLOCK_N = {width} is neither a power of two"):
            matmul.split_width(width)


def test_split_width_matmul_tma_interpreted(monkeypatch):
    # matmul_tma at a config 48 columns wide: the persistent kernel with
    # TAIL_N = 16; the kernel of one program per tile, consumer groups and
    # stream-K refuse it by name.
    monkeypatch.setattr(matmul, "matmul_persistent_kernel", tilec.JITFunction(
        matmul.matmul_persistent_kernel.fn, interpret=True))
    rng = np.random.default_rng(4)
    a, b, c = _operands(rng, np.float16, (40, 50), (50, 100))
    config = (16, 48, 16, 2, 4, 2)
    matmul.matmul_tma(a, b, c, config, programs=3, warp_specialize=True, tma_store=True)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=0,
                               atol=1e-3 * np.sqrt(50))
    for options in ({}, {"programs": 3, "warp_specialize": True, "consumer_groups": 2},
                    {"programs": 3, "stream_k": True}):
        with pytest.raises(AssertionError, match="BLOCK_N = 48 .not a power of two. needs"):
            matmul.matmul_tma(a, b, c, config, **options)
    # K = 0 goes to matmul()'s pointer kernel, at the config's 32 columns.
    monkeypatch.setattr(matmul, "matmul_kernel", tilec.JITFunction(
        matmul.matmul_kernel.fn, interpret=True))
    c = np.full((40, 100), np.nan, np.float32)
    matmul.matmul_tma(a[:, :0], b[:0], c, config, programs=3, warp_specialize=True)
    assert (c == 0).all()


def test_stream_k_matmul_tma_interpreted(monkeypatch):
    # matmul_tma(stream_k=True) in the interpreter: its workspace made for
    # the launch, the same C as without stream-K to the last bit where no
    # tile is cut (6 tiles on 3 programs), and close where they are.
    monkeypatch.setattr(matmul, "matmul_persistent_kernel", tilec.JITFunction(
        matmul.matmul_persistent_kernel.fn, interpret=True))
    rng = np.random.default_rng(3)
    a, b, _ = _operands(rng, np.float16, (40, 50), (50, 24))
    results = {}
    for programs, stream_k in ((3, False), (3, True), (5, True)):
        c = np.full((40, 24), np.nan, np.float32)
        matmul.matmul_tma(a, b, c, (16, 16, 16, 2, 4, 2), programs=programs,
                          warp_specialize=True, stream_k=stream_k)
        results[programs, stream_k] = c
    np.testing.assert_array_equal(results[3, False], results[3, True])
    np.testing.assert_allclose(results[5, True], a.astype(np.float64) @ b.astype(np.float64),
                               rtol=0, atol=1e-3 * np.sqrt(50))
    with pytest.raises(AssertionError, match="stream_k needs the persistent kernel"):
        matmul.matmul_tma(a, b, c, (16, 16, 16, 2, 4, 2), stream_k=True)
    with pytest.raises(AssertionError, match="without consumer_groups"):
        matmul.matmul_tma(a, b, c, (16, 16, 16, 2, 4, 2), programs=3, warp_specialize=True,
                          consumer_groups=2, stream_k=True)


@pytest.mark.parametrize("cluster", [2, 4])
def test_persistent_matmul_in_clusters_with_groups_of_one_row_interpreted(cluster):
    # GROUP_M = 1, below the cluster's rows: runs in groups of one.
    c, want = _persistent_interpreted(150, 24, 50, 4, WARP_SPECIALIZE=True, CLUSTER=cluster,
                                      GROUP_M=1)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(50))


@pytest.mark.parametrize("programs", [1, 3, 8])
@pytest.mark.parametrize("cluster", [2, 4])
def test_matmul_tma_in_clusters_interpreted(monkeypatch, programs, cluster):
    # matmul_tma(cluster=2 or 4) with the kernel in the interpreter: the
    # grid rounded down to whole clusters (at least one), no GPU asked how
    # many run at once, the same C.
    monkeypatch.setattr(matmul, "matmul_persistent_kernel", tilec.JITFunction(
        matmul.matmul_persistent_kernel.fn, interpret=True))
    rng = np.random.default_rng(programs)
    a, b, c = _operands(rng, np.float16, (40, 50), (50, 24))
    matmul.matmul_tma(a, b, c, (16, 16, 16, 2, 4, 2), programs=programs,
                      warp_specialize=True, cluster=cluster)
    assert matmul.last_grid == max(cluster, programs // cluster * cluster)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(50))


def test_clusters_need_whole_clusters_in_the_interpreter():
    with pytest.raises(tilec.Error, match="not whole clusters of 2"):
        _persistent_interpreted(40, 24, 50, 3, WARP_SPECIALIZE=True, CLUSTER=2)


# The tile stored in 2 or 4 pieces of columns (through pointers or C's
# descriptor), each with its own columns of the bias: the same C, at edges
# that cut through pieces (N = 70: the last tile's second half is empty).
@pytest.mark.parametrize("m,n,k", [(33, 70, 16), (40, 24, 50)])
@pytest.mark.parametrize("pieces", [2, 4])
@pytest.mark.parametrize("tma_store", [False, True])
def test_persistent_matmul_in_pieces_interpreted(m, n, k, pieces, tma_store):
    c, want = _persistent_interpreted(m, n, k, 3, activation="relu", EPILOGUE_PIECES=pieces,
                                      TMA_STORE=tma_store)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(k))


# With WARP_SPECIALIZE the kernel finds its tiles by dividing only by
# values the same for every tile (grouped_tile_of FIXED_DIVISORS): the same
# tiles, the last group short (M = 33: 3 rows of tiles in groups of 2).
@pytest.mark.parametrize("m,n,k", [(33, 70, 16), (40, 24, 50), (16, 16, 8)])
@pytest.mark.parametrize("programs", [1, 3, 11])
def test_persistent_matmul_fixed_divisors_interpreted(m, n, k, programs):
    c, want = _persistent_interpreted(m, n, k, programs, activation="relu",
                                      WARP_SPECIALIZE=True)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(k))


@pytest.mark.parametrize("group_m", [1, 2, 3, 8])
def test_grouped_tile_of_fixed_divisors_same_tiles(group_m):
    # Both ways of finding tile `pid`, every pid of a 7 x 5 grid of tiles
    # (the last group short unless GROUP_M divides 7), in the interpreter.
    @tilec.jit(interpret=True)
    def tiles(out, M, N, GROUP_M: tl.constexpr, FIXED: tl.constexpr):
        pid = tl.program_id(0)
        pid_m, pid_n = grouped_tile_of(pid, M, N, 16, 16, GROUP_M, FIXED)
        tl.store(out + 2 * pid, pid_m)
        tl.store(out + 2 * pid + 1, pid_n)

    found = []
    for fixed in (False, True):
        out = np.full(2 * 35, -1, np.int32)
        tiles[(35,)](out, 7 * 16, 5 * 16, GROUP_M=group_m, FIXED=fixed)
        found.append(out)
    np.testing.assert_array_equal(found[0], found[1])
    assert sorted(zip(found[0][::2], found[0][1::2])) == [(i, j) for i in range(7)
                                                            for j in range(5)]


def test_persistent_matmul_int8_interpreted_is_exact():
    c, want = _persistent_interpreted(45, 37, 70, 4, bias=False, dtype=np.int8)
    np.testing.assert_array_equal(c, want.astype(np.int64))


def test_warp_specialize_changes_no_result_in_the_interpreter():
    # The interpreter runs the loop as written: a producer warp is a
    # schedule, not a meaning.
    rng = np.random.default_rng(5)
    m, n, k = 40, 24, 50
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    results = []
    for ws in (False, True):
        c = np.full((m, n), np.nan, np.float32)
        kernel = tilec.JITFunction(matmul.matmul_persistent_kernel.fn, interpret=True)
        kernel[(3,)](a, b, c, c, m, n, k, k, n, n, 1, c, c, BLOCK_M=16, BLOCK_N=16,
                     BLOCK_K=16, GROUP_M=2, HAS_BIAS=False, ACTIVATION="", WARP_SPECIALIZE=ws)
        results.append(c)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[1], a.astype(np.float64) @ b.astype(np.float64),
                               rtol=0, atol=1e-3 * np.sqrt(k))


@pytest.mark.parametrize("persistent", [False, True])
def test_tma_store_changes_no_result_in_the_interpreter(persistent):
    # TMA_STORE writes C through its descriptor, the same masked store where
    # TMA does not apply (the interpreter, before sm_90a): equal results,
    # and nothing written past the edge tiles.
    rng = np.random.default_rng(6)
    m, n, k = 40, 24, 50
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    fn = matmul.matmul_persistent_kernel if persistent else matmul.matmul_desc_kernel
    grid = (3,) if persistent else (tilec.cdiv(m, 16) * tilec.cdiv(n, 16),)
    results = []
    for tma_store in (False, True):
        whole = np.full((m + 3, n + 8), np.nan, np.float32)
        c = whole[:m, :n]
        kernel = tilec.JITFunction(fn.fn, interpret=True)
        workspace = (c, c) if persistent else ()
        kernel[grid](a, b, c, bias, m, n, k, k, n, n + 8, 1, *workspace, BLOCK_M=16,
                     BLOCK_N=16, BLOCK_K=16, GROUP_M=2, HAS_BIAS=True, ACTIVATION="gelu",
                     TMA_STORE=tma_store)
        assert np.isnan(whole[m:]).all() and np.isnan(whole[:, n:]).all()
        results.append(c.copy())
    np.testing.assert_array_equal(results[0], results[1])
    x = a.astype(np.float64) @ b.astype(np.float64) + bias
    want = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(results[1], want, rtol=0, atol=1e-3 * np.sqrt(k))


@tilec.jit
def _python_range_specialized(x_ptr, n):
    for i in range(0, n, warp_specialize=True):
        tl.store(x_ptr + i, 0.0)


@tilec.jit
def _runtime_specialized(x_ptr, n):
    for i in tl.range(0, n, warp_specialize=n):
        tl.store(x_ptr + i, 0.0)


@pytest.mark.parametrize("kernel,message", [
    (_python_range_specialized, "warp_specialize is a tl.range argument"),
    (_runtime_specialized, "warp_specialize must be a compile-time bool"),
])
def test_warp_specialize_mistakes_are_located_errors(kernel, message):
    with pytest.raises(tilec.Error, match=message) as e:
        kernel.compile("*fp32:16,i32")
    assert "test_matmul_desc.py:" in str(e.value)


@pytest.mark.parametrize("persistent,tail", [(False, 0), (True, 0), (True, 16)])
@pytest.mark.parametrize("dtype", [np.float16, np.int8])
@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (33, 70, 16)])
def test_column_major_b_interpreted(persistent, tail, dtype, m, n, k):
    # B_K_MAJOR: B column-major (the N x K rows of B.T, stride_b along N),
    # read as N x K blocks and transposed: the product of the row-major
    # kernel, at edges that cut through tiles and K not a multiple of 16;
    # also with the persistent kernel's tiles 16 + 16 wide (TAIL_N).
    rng = np.random.default_rng(m + n + k)
    a, b_t, c = _operands(rng, dtype, (m, k), (n, k))
    name = "matmul_persistent_kernel" if persistent else "matmul_desc_kernel"
    kernel = tilec.JITFunction(getattr(matmul, name).fn, interpret=True)
    grid = (3,) if persistent else (tilec.cdiv(m, 16) * tilec.cdiv(n, 16),)
    extra = ((c, c), {"TAIL_N": tail}) if persistent else ((), {})
    kernel[grid](a, b_t, c, c, m, n, k, k, k, n, 1, *extra[0], BLOCK_M=16, BLOCK_N=16,
                 BLOCK_K=16, GROUP_M=2, HAS_BIAS=False, ACTIVATION="", B_K_MAJOR=True,
                 **extra[1])
    want = a.astype(np.float64) @ b_t.astype(np.float64).T
    if dtype == np.int8:
        np.testing.assert_array_equal(c, want.astype(np.int64))
    else:
        np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(k))
