"""The CPU interpreter from Python, without a GPU.

`@tilec.jit(interpret=True)`, `tilec.JITFunction(fn, interpret=True)` and
TILEC_INTERPRET=1 (read when the decorator runs) make `kernel[grid](...)` run
the tile IR on the CPU on numpy arrays (used in place). Tested: the shipped
kernels (vector_add, cumsum_rows, rmsnorm, softmax, softmax_online) against
float64 numpy references; tl.cumsum along both axes of a 2-D tile; tl.trans,
tl.permute, x.T, tl.reshape, tl.broadcast_to and tl.expand_dims on 2-D and
3-D tiles against numpy's transpose, reshape and broadcast_to; strided
views; out-of-bounds loads and stores raising tilec.Error at the source line
and column; empty arrays; read-only arrays; numpy refused by a kernel that
does not interpret, with a message naming the interpreter; TILEC_INTERPRET=1
in a fresh process; CPU torch tensors when torch is installed.
"""
import itertools
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilec
import tilec.language as tl

import cumsum     # kernels/cumsum.py
import rmsnorm    # kernels/rmsnorm.py
import softmax    # kernels/softmax.py
import vector_add  # kernels/vector_add.py

HERE = os.path.abspath(__file__)
KERNELS = os.path.dirname(vector_add.__file__)


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    # Interpreting compiles the tile IR; keep the compiles out of the user's
    # cache where this process has not used the cache yet (it reads the
    # environment once, at first use).
    monkeypatch.setenv("TILEC_CACHE", "0")


def interpreting(jit_fn):
    """An interpreting JITFunction for the same Python function."""
    k = tilec.JITFunction(jit_fn.fn, interpret=True)
    assert k.interpret and not jit_fn.interpret
    return k


def line_col(path, needle, occurrence=0):
    """(line, column), 1-based, of `needle` in file `path`."""
    found = []
    with open(path) as f:
        for i, text in enumerate(f, 1):
            col = text.find(needle)
            if col >= 0:
                found.append((i, col + 1))
    return found[occurrence]


# -- the shipped kernels -------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_vector_add(n):
    add = interpreting(vector_add.add)
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 8, 7.0, np.float32)  # the tail shows a write past n
    block = 1024
    add[(tilec.cdiv(n, block),)](x, y, out[:n], n, BLOCK=block)
    ref = x.astype(np.float64) + y.astype(np.float64)
    np.testing.assert_allclose(out[:n], ref, rtol=1e-6, atol=1e-6)
    assert (out[n:] == 7.0).all()


def test_vector_add_callable_grid_and_other_dtypes():
    add = interpreting(vector_add.add)
    n = 300
    for dtype in (np.float64, np.float16, np.int32, np.int64):
        x = (np.arange(n) % 50).astype(dtype)
        y = (np.arange(n) % 7).astype(dtype)
        out = np.zeros(n, dtype)
        add[lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](x, y, out, n, BLOCK=128)
        np.testing.assert_array_equal(out, x + y, err_msg=str(dtype))


@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 7), (5, 33), (17, 100), (2, 1000), (9, 129)])
def test_cumsum_rows(rows, cols):
    kernel = interpreting(cumsum.cumsum_rows)
    rng = np.random.default_rng(rows * 1000 + cols)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    block = tilec.next_power_of_2(cols)
    per = 4
    kernel[(tilec.cdiv(rows, per),)](out, x, rows, cols, cols, cols, BLOCK=block, ROWS=per)
    ref = np.cumsum(x.astype(np.float64), axis=1)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(cols))


def test_cumsum_rows_strided_views():
    """Input and output rows with strides longer than the rows."""
    kernel = interpreting(cumsum.cumsum_rows)
    rows, cols = 6, 11
    x_base = np.random.default_rng(1).standard_normal((rows, 16)).astype(np.float32)
    out_base = np.full((rows, 20), -1.0, np.float32)
    x, out = x_base[:, :cols], out_base[:, 3:3 + cols]
    kernel[(tilec.cdiv(rows, 2),)](out, x, rows, cols, 16, 20, BLOCK=16, ROWS=2)
    np.testing.assert_allclose(out, np.cumsum(x.astype(np.float64), axis=1), rtol=1e-5,
                               atol=1e-5)
    assert (out_base[:, :3] == -1.0).all() and (out_base[:, 3 + cols:] == -1.0).all()


def test_rmsnorm():
    kernel = interpreting(rmsnorm.rmsnorm)
    rows, cols, eps = 7, 300, 1e-6
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    out = np.zeros_like(x)
    kernel[(rows,)](out, x, w, cols, cols, cols, eps, BLOCK=tilec.next_power_of_2(cols))
    xd = x.astype(np.float64)
    ref = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + eps) * w.astype(np.float64)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def softmax_ref(x):
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax():
    kernel = interpreting(softmax.softmax)
    rows, cols, per = 9, 77, 4
    x = (np.random.default_rng(3).standard_normal((rows, cols)) * 5).astype(np.float32)
    out = np.zeros_like(x)
    kernel[(tilec.cdiv(rows, per),)](out, x, cols, cols, rows, cols, ROWS=per, BLOCK=128)
    np.testing.assert_allclose(out, softmax_ref(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)


def test_softmax_online():
    kernel = interpreting(softmax.softmax_online)
    rows, cols = 5, 100  # several BLOCK-wide passes, the last one masked
    x = (np.random.default_rng(4).standard_normal((rows, cols)) * 5).astype(np.float32)
    out = np.zeros_like(x)
    kernel[(rows,)](out, x, cols, cols, cols, BLOCK=32)
    np.testing.assert_allclose(out, softmax_ref(x), rtol=1e-5, atol=1e-7)


# -- tl.cumsum in a kernel of the test -------------------------------------------------

@tilec.jit(interpret=True)
def cumsum_2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r[:, None] * N + c[None, :], tl.cumsum(x, axis=AXIS))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("shape", [(4, 8), (16, 2), (1, 32), (32, 1)])
def test_tl_cumsum_2d(axis, shape):
    m, n = shape
    x = np.random.default_rng(m * n + axis).standard_normal(shape).astype(np.float32)
    out = np.zeros_like(x)
    cumsum_2d[(1,)](x, out, M=m, N=n, AXIS=axis)
    np.testing.assert_allclose(out, np.cumsum(x.astype(np.float64), axis=axis),
                               rtol=1e-5, atol=1e-5)


def test_tl_cumsum_int():
    x = np.arange(1, 33, dtype=np.int32).reshape(4, 8)
    for axis in (0, 1):
        out = np.zeros_like(x)
        cumsum_2d[(1,)](x, out, M=4, N=8, AXIS=axis)
        np.testing.assert_array_equal(out, np.cumsum(x, axis=axis))


# -- out-of-bounds accesses -----------------------------------------------------------------

@tilec.jit(interpret=True)
def unmasked_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)


def test_out_of_bounds_load_names_the_line():
    x = np.zeros(100, np.float32)
    out = np.zeros(128, np.float32)
    with pytest.raises(tilec.Error) as info:
        unmasked_copy[(1,)](x, out, BLOCK=128)
    message = str(info.value)
    line, col = line_col(HERE, "x = tl.load(x_ptr + offs)")
    col += len("x = ")
    assert f"{HERE}:{line}:{col}: error:" in message, message
    assert "out-of-bounds load" in message and "'x_ptr'" in message, message
    assert "400 bytes" in message and "element [100]" in message, message


def test_out_of_bounds_load_in_a_later_program():
    x = np.zeros(100, np.float32)
    out = np.zeros(128, np.float32)
    with pytest.raises(tilec.Error, match=r"program \(3, 0, 0\)"):
        unmasked_copy[(4,)](x, out, BLOCK=32)  # programs 0-2 are in bounds


def test_out_of_bounds_store_names_the_line():
    x = np.zeros(128, np.float32)
    out = np.zeros(100, np.float32)
    with pytest.raises(tilec.Error) as info:
        unmasked_copy[(1,)](x, out, BLOCK=128)
    message = str(info.value)
    line, col = line_col(HERE, "tl.store(out_ptr + offs, x)")
    assert f"{HERE}:{line}:{col}: error:" in message, message
    assert "out-of-bounds store" in message and "'out_ptr'" in message, message


def test_out_of_bounds_load_in_a_nested_kernel():
    """A kernel defined in a function: the column counts the indentation."""
    @tilec.jit(interpret=True)
    def shifted(x_ptr, out_ptr):
        offs = tl.arange(0, 16)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs - 1))

    with pytest.raises(tilec.Error) as info:
        shifted[(1,)](np.zeros(16, np.float32), np.zeros(16, np.float32))
    message = str(info.value)
    line, col = line_col(HERE, "tl.load(x_ptr + offs - 1)")
    assert f"{HERE}:{line}:{col}: error:" in message, message
    assert "offset -4" in message, message


def test_out_of_bounds_past_a_view():
    """The extent is the view's, not that of the array it views."""
    base = np.arange(10, dtype=np.float32)
    copy = interpreting(vector_add.add)
    out = np.zeros(8, np.float32)
    with pytest.raises(tilec.Error, match="out-of-bounds load"):
        unmasked_copy[(1,)](base[2:6], out, BLOCK=8)
    copy[(1,)](base[2:6], base[2:6], out, 4, BLOCK=8)
    np.testing.assert_array_equal(out[:4], 2 * base[2:6])


def test_empty_arrays():
    """n = 0: every access is masked, so nothing is read or written."""
    add = interpreting(vector_add.add)
    x = np.zeros(0, np.float32)
    # An access to an empty array is out of bounds, so is refused ...
    with pytest.raises(tilec.Error, match="out-of-bounds load"):
        unmasked_copy[(1,)](x, np.zeros(64, np.float32), BLOCK=64)
    # ... and the masked kernel makes none: no load from x, no store to
    # out (an empty view at the start of a buffer whose contents show
    # any write).
    buffer = np.full(64, 7.0, np.float32)
    out = buffer[:0]
    add[(1,)](x, x, out, 0, BLOCK=64)
    assert out.size == 0 and (buffer == 7.0).all()


def test_read_only_arrays():
    """Reading a read-only array is fine; storing into one is refused."""
    add = interpreting(vector_add.add)
    x = np.arange(8, dtype=np.float32)
    x.setflags(write=False)
    out = np.zeros(8, np.float32)
    add[(1,)](x, x, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, 2 * x)

    frozen = np.zeros(8, np.float32)
    frozen.setflags(write=False)
    with pytest.raises((tilec.Error, TypeError, ValueError), match="read-only|writ"):
        add[(1,)](x, x, frozen, 8, BLOCK=8)
    assert (frozen == 0).all(), "the kernel wrote into a read-only array"


def test_negative_strides_refused():
    add = interpreting(vector_add.add)
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(TypeError, match="negative strides"):
        add[(1,)](x[::-1], x, np.zeros(8, np.float32), 8, BLOCK=8)


# -- numpy without the interpreter; TILEC_INTERPRET=1 ------------------------------------------

def test_numpy_refused_without_interpreter():
    assert not vector_add.add.interpret
    x = np.zeros(16, np.float32)
    with pytest.raises((TypeError, tilec.Error)) as info:
        vector_add.add[(1,)](x, x, x, 16, BLOCK=16)
    message = str(info.value)
    assert "'x_ptr'" in message and "numpy" in message, message
    assert "TILEC_INTERPRET=1" in message and "interpret=True" in message, message


def test_jit_decorator_interpret_option():
    @tilec.jit(interpret=True)
    def a(x_ptr):
        tl.store(x_ptr, 1.0)

    @tilec.jit(interpret=False)
    def b(x_ptr):
        tl.store(x_ptr, 1.0)

    assert a.interpret is True and b.interpret is False
    x = np.zeros(1, np.float32)
    a[(1,)](x)
    assert x[0] == 1.0
    with pytest.raises((TypeError, tilec.Error), match="interpret"):
        b[(1,)](x)


SUBPROCESS = """
import sys
import numpy as np
sys.path.insert(0, {kernels!r})
import tilec
import vector_add
assert vector_add.add.interpret, "TILEC_INTERPRET=1 did not make @jit interpret"
n = 1000
x = np.arange(n, dtype=np.float32)
y = np.full(n, 0.5, np.float32)
out = np.zeros(n, np.float32)
vector_add.add[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
assert (out == x + y).all(), out
print("ok")
"""


@pytest.mark.parametrize("value,interprets", [("1", True), ("0", False)])
def test_tilec_interpret_env(tmp_path, value, interprets):
    env = dict(os.environ)
    env["TILEC_INTERPRET"] = value
    env["TILEC_CACHE"] = "0"
    r = subprocess.run([sys.executable, "-c", SUBPROCESS.format(kernels=KERNELS)],
                       env=env, capture_output=True, text=True, timeout=300)
    if interprets:
        assert r.returncode == 0 and r.stdout == "ok\n", r.stderr
    else:
        assert r.returncode != 0
        assert "did not make @jit interpret" in r.stderr, r.stderr


def test_tilec_interpret_read_when_decorating(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    @tilec.jit
    def after(x_ptr):
        tl.store(x_ptr, 3.0)

    monkeypatch.setenv("TILEC_INTERPRET", "0")
    assert after.interpret is True
    x = np.zeros(1, np.float32)
    after[(1,)](x)
    assert x[0] == 3.0


# -- CPU torch tensors ---------------------------------------------------------------------------

def test_cpu_torch_tensors():
    torch = pytest.importorskip("torch")
    add = interpreting(vector_add.add)
    n = 1000
    x = torch.randn(n)
    y = torch.randn(n)
    out = torch.zeros(n)
    add[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    torch.testing.assert_close(out, x + y)


# -- float division -----------------------------------------------------------------

@tilec.jit(interpret=True)
def divisions(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + i, x / y)
    tl.store(out_ptr + N + i, tl.div_rn(x, y))
    tl.store(out_ptr + 2 * N + i, tl.fdiv(x, y))
    tl.store(out_ptr + 3 * N + i, tl.math.exp(x) / tl.math.exp(y))


def test_float_division():
    # The interpreter is the reference: every division is rounded once,
    # exactly, whatever precision the GPU lowering may use.
    rng = np.random.default_rng(3)
    x = rng.standard_normal(64).astype(np.float32)
    y = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(4 * 64, dtype=np.float32)
    divisions[(1,)](x, y, out, N=64)
    for k in range(3):
        np.testing.assert_array_equal(out[k * 64:(k + 1) * 64], x / y)
    np.testing.assert_allclose(out[3 * 64:], np.exp(x.astype(np.float64) - y),
                               rtol=1e-5)


# -- shape builtins: tl.trans, tl.permute, tl.reshape, tl.broadcast_to ----------------

@tilec.jit(interpret=True)
def transpose_2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, HOW: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    if HOW == 0:
        t = x.T
    elif HOW == 1:
        t = tl.trans(x)
    elif HOW == 2:
        t = tl.permute(x, (1, 0))
    else:
        t = x.trans(1, 0)
    tl.store(out_ptr + c[:, None] * M + r[None, :], t)


@pytest.mark.parametrize("how", [0, 1, 2, 3])
@pytest.mark.parametrize("shape", [(4, 8), (16, 2), (1, 32)])
def test_transpose_2d(how, shape):
    m, n = shape
    x = np.arange(m * n, dtype=np.int32).reshape(m, n) * 3 - 7
    out = np.zeros((n, m), np.int32)
    transpose_2d[(1,)](x, out, M=m, N=n, HOW=how)
    np.testing.assert_array_equal(out, x.T)


@tilec.jit(interpret=True)
def permute_3d(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
               P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    # Load as a vector, view it as A x B x C, permute, store flat: out holds
    # the permuted tensor in row-major order.
    offs = tl.arange(0, A * B * C)
    x = tl.reshape(tl.load(x_ptr + offs), (A, B, C))
    tl.store(out_ptr + offs, tl.ravel(tl.permute(x, P0, P1, P2)))


@pytest.mark.parametrize("dims", list(itertools.permutations(range(3))))
def test_permute_3d(dims):
    x = np.random.default_rng(7).standard_normal((2, 4, 8)).astype(np.float32)
    out = np.zeros(64, np.float32)
    permute_3d[(1,)](x, out, A=2, B=4, C=8, P0=dims[0], P1=dims[1], P2=dims[2])
    np.testing.assert_array_equal(out, np.transpose(x, dims).ravel())


@tilec.jit(interpret=True)
def reshape_2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
               P: tl.constexpr, Q: tl.constexpr):
    # An M x N tile read as P x Q (row-major, as numpy), stored as P x Q.
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    y = x.reshape(P, Q)
    p = tl.arange(0, P)
    q = tl.arange(0, Q)
    tl.store(out_ptr + p[:, None] * Q + q[None, :], y)


@pytest.mark.parametrize("shapes", [((4, 8), (8, 4)), ((4, 8), (2, 16)), ((2, 16), (32, 1))])
def test_reshape_2d(shapes):
    (m, n), (p, q) = shapes
    x = np.arange(m * n, dtype=np.float32).reshape(m, n)
    out = np.zeros((p, q), np.float32)
    reshape_2d[(1,)](x, out, M=m, N=n, P=p, Q=q)
    np.testing.assert_array_equal(out, x.reshape(p, q))


@tilec.jit(interpret=True)
def broadcast_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # x (N,) as a row, stretched over M rows; plus the column index as an
    # expand_dims'd column, stretched over N columns.
    c = tl.arange(0, N)
    row = tl.expand_dims(tl.load(x_ptr + c), 0)
    rows = tl.broadcast_to(row, (M, N))
    col = tl.arange(0, M).expand_dims(-1).broadcast_to(M, N)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + c[None, :], rows + col * 1000)


def test_broadcast_to():
    x = np.arange(16, dtype=np.int32)
    out = np.zeros((8, 16), np.int32)
    broadcast_rows[(1,)](x, out, M=8, N=16)
    want = np.broadcast_to(x, (8, 16)) + np.arange(8, dtype=np.int32)[:, None] * 1000
    np.testing.assert_array_equal(out, want)
