"""Launching kernels from Python on a GPU, with torch tensors and
__cuda_array_interface__ objects. Every test here is marked gpu and skips
itself (with the reason) where no CUDA driver or CUDA torch is present."""
import re

import pytest

import tilec
import tilec.language as tl

import helpers
import vector_add  # kernels/vector_add.py

pytestmark = pytest.mark.gpu

BLOCK = 1024

CASES = [(dt, n) for dt in ("float32", "float16", "bfloat16")
         for n in (1, 1000, 2**20 + 3)] + [("float32", 2**28)]


def _inputs(torch, n, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed + n)
    x = torch.randn(n, device="cuda", generator=g).to(dtype)
    y = torch.randn(n, device="cuda", generator=g).to(dtype)
    return x, y


def _check(torch, out, x, y):
    ref = x.double() + y.double()
    got = out.double()
    assert not torch.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    # fp32: one rounding of the exact sum; fp16/bf16 likewise at their ulp.
    tol = {torch.float32: 1.2e-7, torch.float16: 1e-3, torch.bfloat16: 8e-3}[out.dtype]
    err = ((got - ref).abs() / (1 + ref.abs())).max().item()
    assert err <= tol, f"max relative error {err} > {tol}"


@pytest.mark.parametrize("dtype_name,n", CASES)
def test_vector_add_torch(torch_cuda, dtype_name, n):
    torch = torch_cuda
    dtype = getattr(torch, dtype_name)
    x, y = _inputs(torch, n, dtype)
    out = torch.full((n,), float("nan"), device="cuda", dtype=dtype)
    vector_add.add[(tilec.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    torch.cuda.synchronize()
    _check(torch, out, x, y)
    del x, y, out
    if n >= 2**28:
        torch.cuda.empty_cache()


def test_grid_callable_and_num_warps(torch_cuda):
    torch = torch_cuda
    n = 100_003
    x, y = _inputs(torch, n, torch.float32)
    out = torch.full_like(x, float("nan"))
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (tilec.cdiv(meta["n"], meta["BLOCK"]),)

    vector_add.add[grid](x, y, out, n, BLOCK=512, num_warps=8)
    torch.cuda.synchronize()
    _check(torch, out, x, y)
    assert seen["BLOCK"] == 512 and seen["n"] == n and seen["num_warps"] == 8


def test_cuda_array_interface(torch_cuda):
    torch = torch_cuda
    n = 4097
    x, y = _inputs(torch, n, torch.float16)
    out = torch.full_like(x, float("nan"))

    class Wrapped:  # only the interface, as CuPy or Numba arrays give it
        def __init__(self, t):
            self.t = t
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    vector_add.add[(tilec.cdiv(n, BLOCK),)](Wrapped(x), Wrapped(y), Wrapped(out), n,
                                           BLOCK=BLOCK)
    torch.cuda.synchronize()
    _check(torch, out, x, y)


def test_dlpack_capsule_and_object(torch_cuda):
    torch = torch_cuda
    n = 3000
    x, y = _inputs(torch, n, torch.float32)
    out = torch.full_like(x, float("nan"))

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    vector_add.add[(tilec.cdiv(n, BLOCK),)](DLPackOnly(x), torch.utils.dlpack.to_dlpack(y),
                                           out, n, BLOCK=BLOCK)
    torch.cuda.synchronize()
    _check(torch, out, x, y)


def test_cpu_tensor_is_refused(torch_cuda):
    torch = torch_cuda
    x = torch.zeros(16)
    with pytest.raises(TypeError, match="host memory"):
        vector_add.add[(1,)](x, x, x, 16, BLOCK=16)


def test_helper_and_constants_on_gpu(torch_cuda):
    torch = torch_cuda
    n = 10_000
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    helpers.scale_add[(tilec.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    torch.cuda.synchronize()
    ref = x.double() * helpers.SCALE + helpers.OFFSET
    assert ((out.double() - ref).abs() <= 1e-5 * (1 + ref.abs())).all()


def test_asm_after_launch_has_cubin(torch_cuda):
    torch = torch_cuda
    x = torch.ones(64, device="cuda")
    vector_add.add[(1,)](x, x, x, 64, BLOCK=64)
    torch.cuda.synchronize()
    asm = vector_add.add.asm
    assert set(asm) >= {"tile", "tilegpu", "llir", "ptx", "cubin"}
    assert isinstance(asm["cubin"], bytes) and len(asm["cubin"]) > 0
    assert x[0].item() == 2.0


def test_jit_log_reports_registers(torch_cuda):
    # The driver compiler's verbose log of this kernel's PTX: its registers
    # (and spills), as n_regs reads them from the loaded code.
    k = vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32", BLOCK=128)
    log = k.jit_log
    found = re.search(r"Used (\d+) registers", log)
    assert found, log
    assert int(found.group(1)) == k.n_regs
    assert "'add'" in log  # the kernel it reports on


def _device_target(torch):
    """sm_XY of the GPU, by torch's account: the target tilec must launch
    (the arch-specific "a" variant where the architecture has one)."""
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}" + ("a" if (major, minor) in ((9, 0), (10, 0), (12, 0)) else "")


def test_launch_compiles_for_the_device(torch_cuda):
    torch = torch_cuda
    expected = _device_target(torch)
    if expected not in tilec.known_targets():
        pytest.skip(f"tilec has no target of its own for {expected}")
    assert tilec.default_target() == expected
    n = 300
    x = torch.arange(n, device="cuda", dtype=torch.float32)
    out = torch.full_like(x, float("nan"))
    # An explicit compile for another target first: the launch must not use it.
    other = "sm_80" if expected != "sm_80" else "sm_86"
    assert vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32", target=other,
                                  BLOCK=128).target == other
    vector_add.add[(tilec.cdiv(n, 128),)](x, x, out, n, BLOCK=128)
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * x)
    asm = vector_add.add.asm  # the launched variant
    assert re.search(rf"^\.target {expected}$", asm["ptx"], re.M), asm["ptx"][:400]
    assert isinstance(asm["cubin"], bytes) and len(asm["cubin"]) > 0
    # compile() without a target is the launch's own compile.
    k = vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32", BLOCK=128)
    assert k.target == expected and k.asm["ptx"] == asm["ptx"]


def test_target_this_gpu_cannot_run(torch_cuda):
    """Explicit targets are honoured on any GPU; a cubin is only made for
    one this GPU can run."""
    torch = torch_cuda
    expected = _device_target(torch)
    foreign = "sm_90a" if expected != "sm_90a" else "sm_100a"
    k = vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32", target=foreign, BLOCK=128)
    assert re.search(rf"^\.target {foreign}$", k.asm["ptx"], re.M)
    assert "cubin" not in k.asm
    with pytest.raises(tilec.Error, match=f"compiled for {foreign}"):
        k._compiled.cubin()
    portable = vector_add.add.compile("*fp32:16,*fp32:16,*fp32:16,i32", target="sm_80",
                                      BLOCK=128)
    assert len(portable.asm["cubin"]) > 0  # sm_80 PTX runs on every GPU tilec knows


def test_stream_argument(torch_cuda):
    torch = torch_cuda
    n = 1 << 16
    x, y = _inputs(torch, n, torch.float32)
    out = torch.full_like(x, float("nan"))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    vector_add.add[(tilec.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK, stream=s.cuda_stream)
    s.synchronize()
    _check(torch, out, x, y)
    # The current torch stream is used when no stream= is given.
    out.fill_(float("nan"))
    with torch.cuda.stream(s):
        vector_add.add[(tilec.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    s.synchronize()
    _check(torch, out, x, y)


def test_many_specialisations_alternating(torch_cuda):
    torch = torch_cuda
    outs = []
    for i in range(6):  # alternate between two sizes (:16 and not) and blocks
        n = 4096 if i % 2 == 0 else 4093
        blk = 256 if i % 3 == 0 else 1024
        x, y = _inputs(torch, n, torch.float32, seed=i)
        out = torch.full_like(x, float("nan"))
        vector_add.add[(tilec.cdiv(n, blk),)](x, y, out, n, BLOCK=blk)
        outs.append((out, x, y))
    torch.cuda.synchronize()
    for out, x, y in outs:
        _check(torch, out, x, y)


@tilec.jit
def _divisions(x_ptr, y_ptr, full_ptr, rn_ptr, fdiv_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m, other=1.0)
    y = tl.load(y_ptr + i, mask=m, other=1.0)
    tl.store(full_ptr + i, x / y, mask=m)
    tl.store(rn_ptr + i, tl.div_rn(x, y), mask=m)
    tl.store(fdiv_ptr + i, tl.fdiv(x, y, ieee_rounding=True), mask=m)


def test_float_division_rounding(torch_cuda):
    # '/' is div.full.f32: within 2 ulp of the exact quotient over the
    # whole range, divisors near 2^127 included (where div.approx gives 0);
    # tl.div_rn and tl.fdiv(ieee_rounding=True) round like IEEE (torch's
    # fp32 division on the GPU is IEEE too).
    torch = torch_cuda
    n = 100_000
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    # Divisors in [2^126, 2^127), dividends up to about 2^123.
    y[:1000] = (torch.remainder(y[:1000].abs(), 1.0) + 1.0) * 2.0**126
    x[:1000] = x[:1000].abs() * 2.0**120 + 1.0
    outs = [torch.full_like(x, float("nan")) for _ in range(3)]
    _divisions[(tilec.cdiv(n, 1024),)](x, y, *outs, n, BLOCK=1024)
    torch.cuda.synchronize()
    full, rn, fdiv = outs
    exact = x.double() / y.double()
    # One fp32 ulp at the exact quotient: 2^(e - 24) for |q| = m * 2^e,
    # m in [0.5, 1).
    _, e = torch.frexp(exact.float())
    ulp = torch.ldexp(torch.ones_like(exact), e.to(torch.int64) - 24)
    err_ulp = ((full.double() - exact).abs() / ulp).max().item()
    assert err_ulp <= 2.0, f"'/' is {err_ulp} ulp from the exact quotient"
    assert (full[:1000] != 0).all(), "huge divisors flushed the quotient to 0"
    assert torch.equal(rn, x / y)
    assert torch.equal(fdiv, x / y)


@tilec.jit
def _shapes(x_ptr, trans_ptr, perm_ptr, bcast_ptr, M: tl.constexpr, N: tl.constexpr,
            K: tl.constexpr):
    # x is M x N x K per program. trans_ptr: the program's M x (N * K) view
    # transposed; perm_ptr: x.permute(2, 0, 1); bcast_ptr: x[:, 0, 0] as a
    # column broadcast over N * K.
    base = tl.program_id(0) * (M * N * K)
    offs = base + tl.arange(0, M * N * K)
    x = tl.load(x_ptr + offs)
    rows = tl.arange(0, N * K)
    cols = tl.arange(0, M)
    flat = x.reshape(M, N * K)
    tl.store(trans_ptr + base + rows[:, None] * M + cols[None, :], flat.T)
    tl.store(perm_ptr + offs, tl.reshape(tl.permute(x.reshape(M, N, K), 2, 0, 1), M * N * K))
    first = tl.reshape(tl.sum(flat * (rows == 0)[None, :], axis=1), M, 1)
    wide = tl.broadcast_to(first, (M, N * K))
    tl.store(bcast_ptr + base + cols[:, None] * (N * K) + rows[None, :], wide)


@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
@pytest.mark.parametrize("shape,num_warps", [((4, 8, 16), 4), ((2, 4, 8), 8), ((16, 8, 8), 1)])
def test_trans_reshape_permute(torch_cuda, dtype_name, shape, num_warps):
    # tl.trans, x.T, tl.reshape, tl.permute and tl.broadcast_to on the GPU
    # against torch's (numpy's) own; small integers, so every result is
    # exact in both formats.
    torch = torch_cuda
    dtype = getattr(torch, dtype_name)
    m, n, k = shape
    programs = 3
    x = (torch.arange(programs * m * n * k, device="cuda") % 200 - 100).to(dtype)
    outs = [torch.full_like(x, float("nan")) for _ in range(3)]
    _shapes[(programs,)](x, *outs, M=m, N=n, K=k, num_warps=num_warps)
    torch.cuda.synchronize()
    xs = x.view(programs, m, n, k)
    trans, perm, bcast = (o.view(programs, -1) for o in outs)
    want_trans = xs.reshape(programs, m, n * k).transpose(1, 2).reshape(programs, -1)
    want_perm = xs.permute(0, 3, 1, 2).reshape(programs, -1)
    want_bcast = xs[:, :, 0, 0][:, :, None].expand(programs, m, n * k).reshape(programs, -1)
    assert torch.equal(trans, want_trans)
    assert torch.equal(perm, want_perm)
    assert torch.equal(bcast, want_bcast)
