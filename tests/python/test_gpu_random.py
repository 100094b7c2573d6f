"""tl.randint, randint4x, rand, randn and tl.umulhi on the GPU: the
reference's streams (philox_reference.py), and Triton's for the same seeds
and offsets when Triton is installed (issue 17: the same streams)."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import philox_reference as ref
import random_kernels as k

pytestmark = pytest.mark.gpu

SEEDS = [0, 12345, -7, 2**40 + 3]


def tilec_streams(torch, seed, n, rounds=10):
    ints = torch.zeros(n, dtype=torch.int32, device="cuda")
    fourth = torch.zeros(n, dtype=torch.int32, device="cuda")
    uniform = torch.zeros(n, device="cuda")
    normal = torch.zeros(n, device="cuda")
    k.random_kernel[((n + 127) // 128,)](seed, ints, uniform, normal, fourth, n,
                                         ROUNDS=rounds, BLOCK=128)
    torch.cuda.synchronize()
    return [t.cpu().numpy() for t in (ints, uniform, normal, fourth)]


@pytest.mark.parametrize("seed", SEEDS)
def test_gpu_streams_match_the_reference(torch_cuda, seed):
    n = 5000
    ints, uniform, normal, fourth = tilec_streams(torch_cuda, seed, n)
    words = ref.philox(seed, range(n))
    np.testing.assert_array_equal(ints.view(np.uint32), words[0])
    np.testing.assert_array_equal(fourth.view(np.uint32), words[3])
    np.testing.assert_array_equal(uniform, ref.uniform(words[0]))
    np.testing.assert_allclose(normal, ref.normal(ref.uniform(words[0]), ref.uniform(words[1])),
                               rtol=2e-6, atol=2e-6)


def triton_or_skip():
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        pytest.skip("Triton is not installed")
    return triton, ttl


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rounds", [10, 7])
def test_gpu_streams_match_triton(torch_cuda, seed, rounds):
    torch = torch_cuda
    triton, ttl = triton_or_skip()

    @triton.jit
    def triton_random(seed, ints_ptr, uniform_ptr, normal_ptr, fourth_ptr, n,
                      ROUNDS: ttl.constexpr, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        mask = offs < n
        ttl.store(ints_ptr + offs, ttl.randint(seed, offs, ROUNDS), mask=mask)
        ttl.store(uniform_ptr + offs, ttl.rand(seed, offs, ROUNDS), mask=mask)
        ttl.store(normal_ptr + offs, ttl.randn(seed, offs, ROUNDS), mask=mask)
        _, _, _, last = ttl.randint4x(seed, offs, ROUNDS)
        ttl.store(fourth_ptr + offs, last, mask=mask)

    n = 5000
    ours = tilec_streams(torch, seed, n, rounds)
    theirs = [torch.zeros(n, dtype=torch.int32, device="cuda"), torch.zeros(n, device="cuda"),
              torch.zeros(n, device="cuda"), torch.zeros(n, dtype=torch.int32, device="cuda")]
    triton_random[((n + 127) // 128,)](seed, *theirs, n, ROUNDS=rounds, BLOCK=128)
    torch.cuda.synchronize()
    theirs = [t.cpu().numpy() for t in theirs]
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[3], theirs[3])
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=2e-6, atol=2e-6)


def test_gpu_64_bit_offsets_match_the_reference_and_triton(torch_cuda):
    torch = torch_cuda
    n, base, seed = 3000, 2**33 + 5, 42
    ints = torch.zeros(n, dtype=torch.int64, device="cuda")
    uniform = torch.zeros(n, device="cuda")
    k.random_wide_kernel[((n + 127) // 128,)](seed, ints, uniform, base, n, BLOCK=128)
    torch.cuda.synchronize()
    words = ref.philox(seed, range(base, base + n))
    np.testing.assert_array_equal(ints.cpu().numpy(), words[0])
    np.testing.assert_array_equal(uniform.cpu().numpy(), ref.uniform(words[0]))
    triton, ttl = triton_or_skip()

    @triton.jit
    def triton_wide(seed, ints_ptr, uniform_ptr, base, n, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        mask = offs < n
        wide = base + offs.to(ttl.int64)
        ttl.store(ints_ptr + offs, ttl.randint(seed, wide), mask=mask)
        ttl.store(uniform_ptr + offs, ttl.rand(seed, wide), mask=mask)

    t_ints = torch.zeros(n, dtype=torch.int64, device="cuda")
    t_uniform = torch.zeros(n, device="cuda")
    triton_wide[((n + 127) // 128,)](seed, t_ints, t_uniform, base, n, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(ints.cpu().numpy(), t_ints.cpu().numpy())
    np.testing.assert_array_equal(uniform.cpu().numpy(), t_uniform.cpu().numpy())


def test_gpu_dropout(torch_cuda):
    torch = torch_cuda
    n, p, seed = 1 << 16, 0.3, 11
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    k.dropout_kernel[(n // 1024,)](x, out, n, p, seed, BLOCK=1024)
    torch.cuda.synchronize()
    keep = ref.uniform(ref.philox(seed, range(n))[0]) > np.float32(p)
    xs = x.cpu().numpy()
    expected = np.where(keep, xs / np.float32(1 - p), np.float32(0))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64])
def test_gpu_umulhi(torch_cuda, dtype):
    torch = torch_cuda
    bits = np.dtype(dtype).itemsize * 8
    unsigned = np.uint64 if bits == 64 else np.uint32
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**bits, 128, dtype=unsigned)
    y = rng.integers(0, 2**bits, 128, dtype=unsigned)
    x[0] = y[0] = np.iinfo(unsigned).max
    tdtype = torch.int64 if bits == 64 else torch.int32
    xs = torch.from_numpy(x.view(np.int64 if bits == 64 else np.int32)).cuda()
    ys = torch.from_numpy(y.view(np.int64 if bits == 64 else np.int32)).cuda()
    out = torch.zeros(128, dtype=tdtype, device="cuda")
    tl_dtype = {np.uint32: tl.uint32, np.int32: tl.int32, np.uint64: tl.uint64,
                np.int64: tl.int64}[dtype]
    k.umulhi_kernel[(1,)](tilec.reinterpret(xs, tl_dtype), tilec.reinterpret(ys, tl_dtype),
                          tilec.reinterpret(out, tl_dtype), BLOCK=128)
    torch.cuda.synchronize()
    expected = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype=unsigned)
    np.testing.assert_array_equal(out.cpu().numpy().view(unsigned), expected)
