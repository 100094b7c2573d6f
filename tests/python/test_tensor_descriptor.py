"""Tensor descriptors (tl.make_tensor_descriptor, desc.load / store /
atomic_*, tl.load_tensor_descriptor, tl.store_tensor_descriptor): in the
interpreter against numpy at odd shapes, their PTX, their located errors;
on the GPU against numpy and the interpreter."""
import re

import numpy as np
import pytest

import tilec

import tensor_desc_kernels as k


def interp(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def run(fn, gpu, torch, grid, *args, **constexprs):
    """Launches `fn` in the interpreter (gpu False) or on the GPU, numpy
    arrays in and out."""
    if not gpu:
        interp(fn)[grid](*args, **constexprs)
        return args
    moved = [torch.from_numpy(a).cuda() if isinstance(a, np.ndarray) else a for a in args]
    fn[grid](*moved, **constexprs)
    torch.cuda.synchronize()
    return [m.cpu().numpy() if isinstance(a, np.ndarray) else m for m, a in zip(moved, args)]


BACKENDS = [pytest.param(False, id="interpreter"),
            pytest.param(True, id="gpu", marks=pytest.mark.gpu)]


@pytest.fixture
def torch_or_none(request):
    if request.node.callspec.params.get("gpu"):
        return request.getfixturevalue("torch_cuda")
    return None


@pytest.mark.parametrize("gpu", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8])
@pytest.mark.parametrize("m,n,bm,bn", [(37, 45, 16, 16), (64, 64, 32, 64), (5, 130, 8, 32)])
def test_load_store_at_odd_shapes(gpu, torch_or_none, dtype, m, n, bm, bn):
    rng = np.random.default_rng(m * n)
    # A source wider than the tensor (its row stride), so the edge blocks
    # read past N into the padding of the row, which must not appear.
    src = rng.integers(-50, 50, (m, n + 3)).astype(dtype)
    dst = np.full((m, n + 5), 7, dtype)
    grid = (tilec.cdiv(m, bm), tilec.cdiv(n, bn))
    _, out, *_ = run(k.scale_copy, gpu, torch_or_none, grid, src, dst, m, n, n + 3, n + 5,
                     BM=bm, BN=bn)
    want = np.full_like(dst, 7)
    want[:, :n] = src[:, :n] * dtype(2)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("gpu", BACKENDS)
@pytest.mark.parametrize("nan", [False, True])
def test_outside_the_tensor_reads_the_padding(gpu, torch_or_none, nan):
    m, n, bm, bn = 10, 20, 8, 16
    src = np.arange(m * n, dtype=np.float32).reshape(m, n) + 1
    grid = (tilec.cdiv(m, bm), tilec.cdiv(n, bn))
    out = np.full((grid[0] * bm, grid[1] * bn), -1, np.float32)
    _, out, *_ = run(k.padded_blocks, gpu, torch_or_none, grid, src, out, m, n,
                     BM=bm, BN=bn, NAN=nan)
    want = np.full_like(out, np.nan if nan else 0)
    want[:m, :n] = src
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("gpu", BACKENDS)
def test_three_dimensions_and_the_function_forms(gpu, torch_or_none):
    a, b, c = 5, 9, 33
    src = np.random.default_rng(2).standard_normal((a, b, c)).astype(np.float32)
    dst = np.zeros_like(src)
    grid = (tilec.cdiv(a, 2), tilec.cdiv(b, 4), tilec.cdiv(c, 16))
    _, out, *_ = run(k.negate_3d, gpu, torch_or_none, grid, src, dst, a, b, c,
                     BA=2, BB=4, BC=16)
    np.testing.assert_array_equal(out, -src)


@pytest.mark.parametrize("gpu", BACKENDS)
def test_a_loop_and_a_helper_read_through_one_descriptor(gpu, torch_or_none):
    m, n = 45, 100
    x = np.random.default_rng(3).standard_normal((m, n)).astype(np.float32)
    out = np.zeros(m, np.float32)
    _, out, *_ = run(k.row_sums, gpu, torch_or_none, (tilec.cdiv(m, 16),), x, out, m, n,
                     BM=16, BN=32)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("gpu", BACKENDS)
def test_atomic_add_and_max_through_a_descriptor(gpu, torch_or_none):
    n, bins, block = 1000, 100, 128
    rng = np.random.default_rng(4)
    values = rng.integers(0, 10, n).astype(np.int32)
    counts = np.zeros(bins, np.int32)
    programs = tilec.cdiv(n, block)
    _, counts, *_ = run(k.histogram_add, gpu, torch_or_none, (programs,), values, counts, n,
                        bins, BLOCK=block)
    padded = np.zeros(programs * block, np.int64)
    padded[:n] = values
    np.testing.assert_array_equal(counts, padded.reshape(programs, block).sum(axis=0)[:bins])

    # max of signed and of unsigned integers (values past 2^31 compare
    # unsigned in uint32).
    for dtype, low in [(np.int32, -(2**31)), (np.uint32, 0)]:
        high = 2**31 - 1 if dtype == np.int32 else 2**32 - 1
        ints = rng.integers(low, high, 4 * 64, dtype=np.int64).astype(dtype)
        best = np.full(50, low, dtype)
        _, best, *_ = run(k.running_max, gpu, torch_or_none, (4,), ints, best, 50, BLOCK=64)
        np.testing.assert_array_equal(best, ints.reshape(4, 64).max(axis=0)[:50])


@pytest.mark.parametrize("gpu", BACKENDS)
def test_negative_offsets_read_padding_and_loops_carry_descriptors(gpu, torch_or_none):
    m, n, shift = 40, 96, 3
    src = np.random.default_rng(6).standard_normal((m, n)).astype(np.float32)
    dst = np.full_like(src, 9.0)
    # The last stride 1 passed as an argument (a launch specialises it `:1`).
    _, out, *_ = run(k.shifted_rows, gpu, torch_or_none, (tilec.cdiv(m, 16),), src, dst, m, n,
                     n, 1, shift, BM=16, BN=32)
    want = np.zeros_like(src)
    want[shift:] = src[:-shift]
    np.testing.assert_array_equal(out, want)


def test_a_stride_argument_must_be_one_when_compiling():
    sig = "*fp32:16,*fp32:16,i32,i32,i32:16,{},i32"
    k.shifted_rows.compile(sig.format("i32:1"), BM=16, BN=32)
    with pytest.raises(tilec.Error, match=r"last stride must be 1 when compiling .*got a value "
                                          r"of type i32"):
        k.shifted_rows.compile(sig.format("i32"), BM=16, BN=32)


@pytest.mark.parametrize("gpu", BACKENDS)
def test_matmul_through_descriptors(gpu, torch_or_none):
    m, n, kk = 70, 50, 40
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, kk)).astype(np.float16)
    b = rng.standard_normal((kk, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    _, _, c, *_ = run(k.matmul, gpu, torch_or_none, (tilec.cdiv(m, 32), tilec.cdiv(n, 32)),
                      a, b, c, m, n, kk, BM=32, BN=32, BK=16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3 * np.sqrt(kk))


def test_ptx_loads_with_vectors_and_pipelines_the_dot(tmp_path):
    # The row strides and the last dimension's size multiples of 16 (so the
    # bounds mask is constant over 16 elements) and the last stride the
    # constant 1: 128-bit accesses, as a block pointer's (before sm_90a; on
    # sm_90a the store is TMA's). Without N's `:16` the mask varies element
    # by element and the accesses are scalar.
    signature = "*fp32:16,*fp32:16,i32,i32:16,i32:16,i32:16"
    ptx = k.scale_copy.compile(signature, target="sm_89", BM=16, BN=64).asm["ptx"]
    assert re.search(r"ld\.global\.v4\.(b|f)32", ptx), ptx
    assert re.search(r"st\.global\.v4\.(b|f)32", ptx)
    hopper = k.scale_copy.compile(signature, target="sm_90a", BM=16, BN=64).asm["ptx"]
    assert re.search(r"ld\.global\.v4\.(b|f)32", hopper), hopper
    assert "st.global" not in hopper
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in hopper
    scalar = k.scale_copy.compile("*fp32:16,*fp32:16,i32,i32,i32:16,i32:16", BM=16,
                                  BN=64).asm["ptx"]
    assert not re.search(r"ld\.global\.v4", scalar)
    mm = k.matmul.compile("*fp16:16,*fp16:16,*fp32:16,i32:16,i32:16,i32:16", target="sm_90a",
                          BM=64, BN=64, BK=32).asm["ptx"]
    assert "cp.async" in mm and ("wgmma" in mm or "mma.sync" in mm)


def test_ptx_stores_ragged_rows_through_pointers():
    # TMA ends a row's writes only at a 16-byte boundary. N known a
    # multiple of 4 fp32 (`:16`): TMA alone. N unknown: a test of its low
    # bits, TMA where they are zero and masked stores where they are not.
    # (A constant that leaves rows ragged: tests/lit/tile-lower-descriptors.)
    tma_store = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
    whole = k.scale_copy.compile("*fp32:16,*fp32:16,i32,i32:16,i32:16,i32:16",
                                 target="sm_90a", BM=16, BN=64).asm["ptx"]
    assert tma_store in whole and "st.global" not in whole
    unknown = k.scale_copy.compile("*fp32:16,*fp32:16,i32,i32,i32:16,i32:16",
                                   target="sm_90a", BM=16, BN=64).asm["ptx"]
    assert tma_store in unknown and "st.global" in unknown
    assert re.search(r"and\.b32\s+%r\d+, %r\d+, 3;", unknown), unknown


@pytest.mark.parametrize("kernel,signature,message", [
    (k.strided_last, "*fp32,i32,i32",
     r"last stride must be 1 when compiling \(its last dimension contiguous\), got 2"),
    (k.runtime_last_stride, "*fp32,i32,i32,i32",
     r"last stride must be 1 when compiling .*got a value of type i32"),
    (k.merged_padding, "*fp32,*fp32,i32,i32,i32",
     r"a tensor descriptor of block shape \(16, 16\) to fp32, NaN padding"),
    (k.wide_offsets, "*fp32,i32,i32,i32",
     r"desc.store's offsets are int32, got a value of type i64"),
    (k.float_max, "*fp32,i32,i32",
     r"desc.atomic_max does not support fp32 \(a descriptor's atomics are TMA's reductions"),
    (k.narrow_block, "*fp32,i32,i32",
     r"must hold at least 16 bytes along its last dimension \(TMA's least\), got 2 fp32"),
    (k.six_dimensions, "*fp32", r"a tensor descriptor has 1 to 5 dimensions \(TMA's\), got 6"),
    (k.bad_padding, "*fp32,i32,i32", r"padding_option must be \"zero\" or \"nan\", got \"inf\""),
    (k.nan_padding_of_integers, "*i32,i32,i32",
     r"padding_option \"nan\" needs floats, the tensor holds i32"),
    (k.plain_load_of_descriptor, "*fp32,i32,i32",
     r"tl.load cannot take a tensor descriptor of block shape \(16, 16\) to fp32: use "
     r"desc.load\(offsets\) \(or tl.load_tensor_descriptor\)"),
    (k.advance_descriptor, "*fp32,i32,i32",
     r"tl.advance needs a block pointer \(tl.make_block_ptr\), got a tensor descriptor .*"
     r"\(its accesses take their offsets\)"),
    (k.wrong_offsets, "*fp32,i32,i32", r"desc.store's offsets needs 2 entries"),
    (k.wrong_value_shape, "*fp32,i32,i32",
     r"a tensor descriptor of block shape \(16, 16\) to fp32 takes a scalar or a tensor of "
     r"its block's shape, not a tensor of type tensor<16x32xfp32>"),
    (k.unknown_attribute, "*fp32,i32,i32",
     r"a tensor descriptor of block shape \(16, 16\) to fp32 has no attribute 'prefetch' "
     r"\(it has load, store, atomic_add"),
    (k.unknown_atomic, "*fp32,i32,i32", r"has no method 'atomic_xchg' \(it has load, store"),
    (k.float_and, "*fp32,i32,i32", r"desc.atomic_and does not support fp32"),
])
def test_mistakes_are_located_errors(kernel, signature, message):
    with pytest.raises(tilec.Error) as error:
        kernel.compile(signature)
    text = str(error.value)
    assert re.search(r"tensor_desc_kernels.py:\d+:\d+: error: ", text), text
    assert re.search(message, text), text


# Host-side descriptors: tilec.TensorDescriptor (Triton's
# triton.tools.tensor_descriptor.TensorDescriptor) as kernel arguments.

def launch_host(fn, gpu, torch, grid, args, **kwargs):
    """`fn[grid](*args)` where args may hold TensorDescriptors over numpy
    arrays; on the GPU each array moves to torch and back."""
    from tilec import TensorDescriptor
    if not gpu:
        interp(fn)[grid](*args, **kwargs)
        return
    moved = {}

    def to_gpu(a):
        if isinstance(a, TensorDescriptor):
            base = moved.setdefault(id(a.base), (a.base, torch.from_numpy(a.base).cuda()))[1]
            return TensorDescriptor(base, a.shape, a.strides, a.block_shape, a.padding)
        return a
    fn[grid](*[to_gpu(a) for a in args], **kwargs)
    torch.cuda.synchronize()
    for array, tensor in moved.values():
        array[...] = tensor.cpu().numpy()


@pytest.mark.parametrize("gpu", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_host_descriptors_over_a_view(gpu, torch_or_none, dtype):
    from tilec import TensorDescriptor
    m, n = 45, 70
    # A and C are windows of wider arrays (row strides 72 and 80 elements).
    big_a = np.random.default_rng(7).standard_normal((m, 72)).astype(dtype)
    big_c = np.full((m, 80), 5, dtype)
    a = TensorDescriptor(big_a, [m, n], [72, 1], [16, 32])
    c = TensorDescriptor(big_c, shape=[m, n], strides=[80, 1], block_shape=[16, 32])
    launch_host(k.host_scale, gpu, torch_or_none, (tilec.cdiv(m, 16), tilec.cdiv(n, 32)),
                [a, c, 2.0], BM=16, BN=32)
    want = np.full_like(big_c, 5)
    want[:, :n] = big_a[:, :n] * dtype(2)
    np.testing.assert_array_equal(big_c, want)


@pytest.mark.parametrize("gpu", BACKENDS)
def test_host_descriptors_feed_a_persistent_matmul(gpu, torch_or_none):
    from tilec import TensorDescriptor
    m, n, kk = 100, 72, 48
    rng = np.random.default_rng(8)
    a = rng.standard_normal((m, kk)).astype(np.float16)
    b = rng.standard_normal((kk, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    args = [TensorDescriptor.from_tensor(a, [32, 16]), TensorDescriptor.from_tensor(b, [16, 32]),
            TensorDescriptor.from_tensor(c, [32, 32]), m, n, kk]
    # Fewer programs than tiles: each walks several.
    launch_host(k.host_matmul, gpu, torch_or_none, (5,), args, BM=32, BN=32, BK=16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3 * np.sqrt(kk))


def test_host_descriptor_keywords_defaults_and_a_grid_function():
    from tilec import TensorDescriptor
    m, n = 20, 64
    a = np.arange(m * n, dtype=np.float32).reshape(m, n)
    c = np.zeros_like(a)
    run = interp(k.host_scale)
    # By keyword, padding NaN (nothing outside is stored), the grid from META.
    run[lambda meta: (tilec.cdiv(m, meta["BM"]), tilec.cdiv(n, meta["BN"]))](
        c_desc=TensorDescriptor.from_tensor(c, [8, 16]),
        a_desc=TensorDescriptor.from_tensor(a, [8, 16], padding="nan"), factor=-1.0,
        BM=8, BN=16)
    np.testing.assert_array_equal(c, -a)
    # The generated kernel is made once per structure of the descriptors.
    wrappers = run._launcher.owner.wrappers
    assert len(wrappers) == 1
    run[(3, 4)](TensorDescriptor.from_tensor(a, [8, 16], padding="nan"),
                TensorDescriptor.from_tensor(c, [8, 16]), 2.0, BM=8, BN=16)
    assert len(wrappers) == 1
    np.testing.assert_array_equal(c, 2 * a)
    run[(3, 4)](TensorDescriptor.from_tensor(a, [8, 16]), TensorDescriptor.from_tensor(c, [8, 16]),
                1.0, BM=8, BN=16)
    assert len(wrappers) == 2  # zero padding now
    np.testing.assert_array_equal(c, a)
    with pytest.raises(TypeError, match="missing argument 'factor'"):
        run[(1,)](TensorDescriptor.from_tensor(a, [8, 16]), TensorDescriptor.from_tensor(c, [8, 16]),
                  BM=8, BN=16)


@pytest.mark.parametrize("make,message", [
    (lambda a: ([a, [4, 8], [8, 2], [4, 8]]), "the last stride must be 1, got 2"),
    (lambda a: ([a, [2] * 6, [1] * 6, [2] * 6]), "1 to 5 dimensions, got 6"),
    (lambda a: ([a, [4, 8], [8, 1], [4, 6]]), "block sizes must be powers of two"),
    (lambda a: ([a, [4, 8], [8, 1], [4, 2]]), "at least 16 bytes along its last dimension"),
    (lambda a: ([a, [4, 6], [6, 1], [4, 4]]), "multiples of 16 bytes"),
    (lambda a: ([a[:, 1:], [4, 4], [8, 1], [4, 4]]), "16-byte aligned"),
    (lambda a: ([a, [4, 8], [8, 1], [4, 8], "inf"]), "padding must be 'zero' or 'nan'"),
    (lambda a: ([a, [4, 8], [8], [4, 8]]), "shape, strides and block_shape differ in length"),
])
def test_host_descriptor_checks(make, message):
    from tilec import TensorDescriptor
    a = np.zeros((4, 8), np.float32)
    with pytest.raises(ValueError, match=re.escape(message)):
        TensorDescriptor(*make(a))


def test_host_descriptors_import_as_in_triton():
    from tilec.tools.tensor_descriptor import TensorDescriptor
    assert TensorDescriptor is tilec.TensorDescriptor


def test_host_descriptors_over_reinterpreted_memory():
    # fp8 codes in uint8 arrays, seen as e4m3 (tilec.reinterpret): the
    # descriptor takes the wrapper's element size and the array's address.
    from tilec import TensorDescriptor
    m, n = 20, 48
    codes = np.random.default_rng(9).integers(0, 120, (m, n)).astype(np.uint8)
    out = np.zeros_like(codes)
    a = TensorDescriptor.from_tensor(tilec.reinterpret(codes, "fp8e4nv"), [16, 16])
    c = TensorDescriptor.from_tensor(tilec.reinterpret(out, "fp8e4nv"), [16, 16])
    assert a.strides == [n, 1]
    interp(k.host_copy_fp8)[(tilec.cdiv(m, 16), tilec.cdiv(n, 16))](a, c, BM=16, BN=16)
    np.testing.assert_array_equal(out, codes)


def test_host_descriptor_grid_function_sees_a_launch_meta():
    from tilec import TensorDescriptor
    a = np.ones((16, 32), np.float32)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (1, 1)
    interp(k.host_scale)[grid](TensorDescriptor.from_tensor(a, [16, 32]),
                               TensorDescriptor.from_tensor(a, [16, 32]), 2.0, BM=16, BN=32,
                               num_warps=2)
    assert seen["BM"] == 16 and seen["factor"] == 2.0
    assert seen["num_warps"] == 2 and seen["num_stages"] == 3
    np.testing.assert_array_equal(a, 2)


def test_host_descriptor_name_clashes_are_reported():
    from tilec import TensorDescriptor
    a = np.zeros((16, 16), np.float32)
    with pytest.raises(TypeError, match="the parameter 'x__size0' has the name a "
                                        "TensorDescriptor argument's part takes"):
        interp(k.host_name_clash)[(1,)](TensorDescriptor.from_tensor(a, [16, 16]), 1, BM=16)


def test_autotune_refuses_host_descriptors_clearly():
    from tilec import TensorDescriptor
    tuned = tilec.autotune(configs=[tilec.Config({"BM": 16, "BN": 32})], key=[])(k.host_scale)
    a = np.zeros((16, 32), np.float32)
    with pytest.raises(TypeError, match="argument 'a_desc' is a TensorDescriptor, which "
                                        "autotuning does not take yet"):
        tuned[(1, 1)](TensorDescriptor.from_tensor(a, [16, 32]),
                      TensorDescriptor.from_tensor(a, [16, 32]), 1.0)


@pytest.mark.parametrize("ws", [False, True])
def test_two_dots_reading_one_block_in_the_interpreter(ws):
    # tma_kernels.gate_up (two dots read each block of x; on sm_90a they
    # share one copy of it: tests/lit/tilegpu-warp-specialize) against
    # numpy at a shape whose edges cut through blocks.
    import tma_kernels
    rng = np.random.default_rng(11)
    m, n, kk = 20, 40, 24
    x = rng.standard_normal((m, kk)).astype(np.float16)
    g = rng.standard_normal((kk, n)).astype(np.float16)
    u = rng.standard_normal((kk, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    interp(tma_kernels.gate_up)[(tilec.cdiv(m, 16), tilec.cdiv(n, 16))](
        x, g, u, c, m, n, kk, kk, n, n, BM=16, BN=16, BK=16, STAGES=3, WS=ws)
    x64, g64, u64 = (a.astype(np.float64) for a in (x, g, u))
    np.testing.assert_allclose(c, (x64 @ g64) * (x64 @ u64), rtol=1e-3, atol=1e-3)
