"""tl.randint, randint4x, rand, randn and tl.umulhi on the interpreter,
against philox_reference.py (issue 17). The GPU runs the same kernels and
compares with Triton: test_gpu_random.py."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import philox_reference as ref
import random_kernels as k


def run_random(seed, n, rounds=10):
    ints, fourth = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    uniform, normal = np.zeros(n, np.float32), np.zeros(n, np.float32)
    fn = tilec.JITFunction(k.random_kernel.fn, interpret=True)
    fn[(triton_cdiv(n, 128),)](seed, ints, uniform, normal, fourth, n, ROUNDS=rounds, BLOCK=128)
    return ints, uniform, normal, fourth


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("seed,rounds", [(0, 10), (12345, 10), (-7, 10), (2**40 + 3, 10), (99, 7)])
def test_streams_match_the_reference(seed, rounds):
    n = 300
    ints, uniform, normal, fourth = run_random(seed, n, rounds)
    words = ref.philox(seed, range(n), rounds)
    np.testing.assert_array_equal(ints, words[0])
    np.testing.assert_array_equal(fourth, words[3])
    np.testing.assert_array_equal(uniform, ref.uniform(words[0]))
    np.testing.assert_allclose(normal, ref.normal(ref.uniform(words[0]), ref.uniform(words[1])),
                               rtol=1e-5, atol=1e-5)


def test_uniform_is_in_range_and_roughly_uniform():
    _, uniform, normal, _ = run_random(2024, 4096)
    assert uniform.min() >= 0.0 and uniform.max() < 1.0
    assert abs(uniform.mean() - 0.5) < 0.02
    assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1.0) < 0.05


def test_64_bit_offsets_count_with_both_words():
    n, base = 200, 2**33 + 5
    ints, uniform = np.zeros(n, np.uint32), np.zeros(n, np.float32)
    fn = tilec.JITFunction(k.random_wide_kernel.fn, interpret=True)
    fn[(2,)](42, ints, uniform, base, n, BLOCK=128)
    words = ref.philox(42, range(base, base + n))
    np.testing.assert_array_equal(ints, words[0])
    np.testing.assert_array_equal(uniform, ref.uniform(words[0]))


def test_dropout_keeps_about_one_minus_p():
    n, p = 4096, 0.25
    x = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    tilec.JITFunction(k.dropout_kernel.fn, interpret=True)[(n // 256,)](x, out, n, p, 5, BLOCK=256)
    kept = out != 0
    np.testing.assert_allclose(out[kept], np.float32(1 / (1 - p)), rtol=1e-6)
    expected = ref.uniform(ref.philox(5, range(n))[0]) > np.float32(p)
    np.testing.assert_array_equal(kept, expected)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64])
def test_umulhi_is_the_high_half_of_the_unsigned_product(dtype):
    rng = np.random.default_rng(3)
    bits = np.dtype(dtype).itemsize * 8
    x = rng.integers(0, 2**bits, 64, dtype=np.uint64 if bits == 64 else np.uint32).view(dtype)
    y = rng.integers(0, 2**bits, 64, dtype=np.uint64 if bits == 64 else np.uint32).view(dtype)
    x[0], y[0] = np.array(-1).astype(dtype), np.array(-1).astype(dtype)
    out = np.zeros(64, dtype)
    tilec.JITFunction(k.umulhi_kernel.fn, interpret=True)[(1,)](x, y, out, BLOCK=64)
    unsigned = np.uint64 if bits == 64 else np.uint32
    expected = [(int(a) * int(b)) >> bits for a, b in zip(x.view(unsigned), y.view(unsigned))]
    np.testing.assert_array_equal(out.view(unsigned), np.array(expected, dtype=unsigned))


@tilec.jit
def bad_offset(out_ptr):
    offs = tl.arange(0, 16).to(tl.int16)
    tl.store(out_ptr + tl.arange(0, 16), tl.rand(1, offs))


@tilec.jit
def bad_umulhi(out_ptr):
    x = tl.arange(0, 16).to(tl.float32)
    tl.store(out_ptr + tl.arange(0, 16), tl.umulhi(x, x))


@pytest.mark.parametrize("kernel,message,line", [
    (bad_offset, "the offset must be an integer of 32 or 64 bits", "tl.rand(1, offs)"),
    (bad_umulhi, "tl.umulhi needs integers of 32 or 64 bits", "tl.umulhi(x, x)")])
def test_errors_are_located(kernel, message, line):
    with pytest.raises(tilec.Error, match=message) as e:
        kernel.compile("*fp32")
    assert line in str(e.value)
