"""The Python package without a GPU: import, tl names, compiling to PTX,
globals and helpers, located errors, argument conversion, and the error a
launch gives where no CUDA driver is."""
import ctypes
import os
import re

import pytest

import tilec
import tilec.language as tl

import helpers
import vector_add  # kernels/vector_add.py

HERE = os.path.abspath(__file__)


def test_import_and_version():
    assert tilec.__version__
    assert callable(tilec.jit)
    assert issubclass(tilec.Error, RuntimeError)
    assert tilec.cdiv(10, 4) == 3 and tilec.cdiv(8, 4) == 2
    assert tilec.next_power_of_2(1000) == 1024 and tilec.next_power_of_2(1) == 1
    ok, why = tilec.cuda_available()
    assert isinstance(ok, bool) and isinstance(why, str)
    # (True, '') with a driver and a device, else (False, the reason).
    if ok:
        assert why == "", why
    else:
        assert why.strip(), "cuda_available() gave no reason"
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        # No driver library at all: says so, in the runtime's words.
        assert not ok and why.startswith("no CUDA driver found: "), why


def test_language_names():
    for name in ["program_id", "arange", "load", "store", "where", "minimum",
                 "maximum", "zeros", "full", "cdiv", "multiple_of", "max_contiguous",
                 "static_print", "static_assert", "range", "static_range",
                 "num_programs", "cast", "constexpr"]:
        assert hasattr(tl, name), name
    names = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
             "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
             "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
    for attr, short in names.items():
        assert getattr(tl, attr).name == short
    assert tl.float16 == "fp16" and tl.float16 != tl.bfloat16
    assert tl.constexpr(4).value == 4 and tl.constexpr(tl.constexpr(4)).value == 4


def test_builtins_outside_kernels_raise():
    with pytest.raises(RuntimeError, match="inside a @tilec.jit kernel"):
        tl.program_id(0)
    with pytest.raises(RuntimeError, match="inside a @tilec.jit kernel"):
        tl.arange(0, 16)
    assert tl.cdiv(10, 4) == 3  # also host arithmetic


def test_jit_decorator_forms():
    @tilec.jit
    def a(x_ptr):
        tl.store(x_ptr, 1.0)

    @tilec.jit(do_not_specialize=["n"])
    def b(x_ptr, n):
        tl.store(x_ptr + n, 1.0)

    assert isinstance(a, tilec.JITFunction) and isinstance(b, tilec.JITFunction)
    assert a.__name__ == "a" and b.arg_names == ["x_ptr", "n"]
    assert "st.global" in a.compile("*fp32").asm["ptx"]
    assert "st.global" in b.compile("*fp32,i32").asm["ptx"]
    with pytest.raises(RuntimeError, match="cannot be called from Python"):
        a(0)


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("aligned", [True, False])
def test_vector_add_ptx(dtype, aligned):
    a = ":16" if aligned else ""
    sig = f"*{dtype}{a},*{dtype}{a},*{dtype}{a},i32{a}"
    k = vector_add.add.compile(sig, BLOCK=1024)
    asm = k.asm
    for stage in ("tile", "tilegpu", "llir", "ptx"):
        assert asm[stage], stage
    ptx = asm["ptx"]
    assert ".entry add" in ptx or ".visible .entry add" in ptx
    assert k.num_warps == 4 and k.signature == sig
    # 128-bit accesses exactly when pointers and n are known 16-aligned.
    assert ("ld.global.v4.b32" in ptx) == aligned, ptx[:2000]
    assert vector_add.add.asm["ptx"] == ptx  # the most recent compile


def test_signature_as_list_and_num_warps():
    k = vector_add.add.compile(["*fp32:16"] * 3 + ["i32"], num_warps=8, BLOCK=2048)
    assert k.num_warps == 8
    # The kernel's one thread-count directive (nvvm.reqntid): 8 warps of
    # 32 threads, in x.
    directives = re.findall(r"^\s*\.(reqntid|maxntid)\s+(.*?)\s*$", k.asm["ptx"], re.M)
    assert directives == [("reqntid", "256, 1, 1")], directives


def test_warmup_from_signature_entries_and_args():
    k = vector_add.add.warmup("*fp16:16", "*fp16:16", "*fp16:16", 4096, BLOCK=512)
    assert k.signature == "*fp16:16,*fp16:16,*fp16:16,i32:16"
    assert k.constexprs == {"BLOCK": 512}
    k = vector_add.add.warmup("*fp32,*fp32,*fp32,i32", BLOCK=256)
    assert k.signature == "*fp32,*fp32,*fp32,i32"
    # i64 when the int does not fit in 32 bits; :1 for ones.
    assert vector_add.add.warmup("*fp32", "*fp32", "*fp32", 2**40, BLOCK=256).signature.endswith("i64:16")
    assert vector_add.add.warmup("*fp32", "*fp32", "*fp32", 1, BLOCK=256).signature.endswith("i32:1")


SIG = "*fp32:16,*fp32:16,*fp32:16,i32:16"
KNOWN = ["sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a",
         "sm_120", "sm_120a"]


def test_known_and_default_targets():
    assert tilec.known_targets() == KNOWN
    if tilec.cuda_available()[0]:
        assert tilec.default_target() in KNOWN  # the GPU's own
    else:
        assert tilec.default_target() == "sm_90a"


@pytest.mark.parametrize("target", ["sm_80", "sm_89", "sm_90a", "sm_120a"])
def test_explicit_target_is_honoured(target):
    """Whatever GPU the machine has, or none."""
    k = vector_add.add.compile(SIG, target=target, BLOCK=1024)
    ptx = k.asm["ptx"]
    assert re.search(rf"^\.target {target}$", ptx, re.M), ptx[:400]
    version = "8.7" if target.startswith("sm_120") else "8.6"
    assert re.search(rf"^\.version {version}$", ptx, re.M), ptx[:400]
    assert k.target == target and k.metadata["target"] == target
    assert re.search(rf"^target:\s+{target}$", k.summary(), re.M), k.summary()
    assert vector_add.add.asm["ptx"] == ptx  # the most recent compile


def test_two_targets_are_two_compiles():
    """One process keeps both: same signature and constexprs, one entry per
    target (the in-memory cache keys on it too)."""
    a = vector_add.add.compile(SIG, target="sm_80", BLOCK=512)
    b = vector_add.add.compile(SIG, target="sm_90a", BLOCK=512)
    again = vector_add.add.compile(SIG, target="sm_80", BLOCK=512)
    assert ".target sm_80\n" in a.asm["ptx"] and ".target sm_90a\n" in b.asm["ptx"]
    assert a.cache_key != b.cache_key
    assert again.cache_key == a.cache_key and again.asm["ptx"] == a.asm["ptx"]


def test_default_target():
    """No target: the GPU's own when there is one (what a launch compiles),
    else sm_90a."""
    k = vector_add.add.compile(SIG, BLOCK=1024)
    assert k.target == tilec.default_target()
    assert f".target {k.target}\n" in k.asm["ptx"]
    w = vector_add.add.warmup("*fp32:16", "*fp32:16", "*fp32:16", 4096, BLOCK=1024)
    assert w.target == tilec.default_target() and w.cache_key == k.cache_key
    w = vector_add.add.warmup("*fp32:16", "*fp32:16", "*fp32:16", 4096, BLOCK=1024,
                              target="sm_86")
    assert w.target == "sm_86" and ".target sm_86\n" in w.asm["ptx"]


@pytest.mark.parametrize("target", ["sm_99", "sm_70", "compute_90", "SM_90A", "gfx942"])
def test_unknown_target_is_a_clear_error(target):
    with pytest.raises(tilec.Error) as e:
        vector_add.add.compile(SIG, target=target, BLOCK=1024)
    message = str(e.value)
    assert f"unknown GPU target '{target}'" in message, message
    assert "'add'" in message, message
    for known in KNOWN:
        assert known in message, message
    with pytest.raises(tilec.Error, match=f"unknown GPU target '{target}'"):
        vector_add.add.warmup("*fp32", "*fp32", "*fp32", 16, BLOCK=16, target=target)


def test_empty_target_is_refused():
    with pytest.raises(ValueError, match="target"):
        vector_add.add.compile(SIG, target="", BLOCK=1024)


class FakeCudaArray:
    """Something with __cuda_array_interface__ (CuPy, Numba) without a GPU."""

    def __init__(self, address, typestr="<f4"):
        self.__cuda_array_interface__ = {
            "shape": (16,), "typestr": typestr, "data": (address, False), "version": 3}


def test_cuda_array_interface_signature():
    x = FakeCudaArray(0x10000)
    y = FakeCudaArray(0x10008)  # 8-byte aligned only
    h = FakeCudaArray(0x20000, "<f2")
    k = vector_add.add.warmup(x, y, x, 1001, BLOCK=1024)
    assert k.signature == "*fp32:16,*fp32,*fp32:16,i32"
    k = vector_add.add.warmup(x, y, x, 1000, BLOCK=1024)  # 8 divides 1000
    assert k.signature == "*fp32:16,*fp32,*fp32:16,i32:8"
    k = vector_add.add.warmup(h, h, h, 1024, BLOCK=1024)
    assert k.signature == "*fp16:16,*fp16:16,*fp16:16,i32:16"


def test_numpy_arrays_are_refused():
    np = pytest.importorskip("numpy")
    x = FakeCudaArray(0x10000)
    with pytest.raises(TypeError, match="host memory"):
        vector_add.add[(1,)](np.zeros(16, np.float32), x, x, 16, BLOCK=16)


def test_bad_arguments():
    x = FakeCudaArray(0x10000)
    with pytest.raises(TypeError, match="missing argument 'n'"):
        vector_add.add.warmup(x, x, x, BLOCK=16)
    with pytest.raises(TypeError, match="unexpected keyword argument 'BLOK'"):
        vector_add.add.warmup(x, x, x, 16, BLOK=16)
    with pytest.raises(TypeError, match="cannot pass a"):
        vector_add.add.warmup(x, x, [1, 2], 16, BLOCK=16)
    with pytest.raises(TypeError, match="typestr"):
        vector_add.add.warmup(FakeCudaArray(0, "<c8"), x, x, 16, BLOCK=16)


def test_helper_function_and_module_constants():
    k = helpers.scale_add.compile("*fp32:16,*fp32:16,i32:16", BLOCK=1024)
    tile = k.asm["tile"]
    assert "dense<3.000000e+00>" in tile and "dense<5.000000e-01>" in tile  # SCALE, OFFSET
    assert "ld.global.v4.b32" in k.asm["ptx"]
    assert k.asm["ptx"].count(".entry") == 1  # the helper is inlined


def test_helper_defined_in_the_test():
    FACTOR = 2

    @tilec.jit
    def double(x):
        return x * FACTOR

    @tilec.jit
    def kernel(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, double(tl.load(x_ptr + offs)))

    assert "st.global" in kernel.compile("*fp32:16", BLOCK=128).asm["ptx"]


def test_dtype_constexpr():
    @tilec.jit
    def fill(out_ptr, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.zeros([BLOCK], DTYPE) + 1)

    ptx16 = fill.compile("*fp16:16", DTYPE=tl.float16, BLOCK=128).asm["ptx"]
    ptx32 = fill.compile("*fp32:16", DTYPE=tl.float32, BLOCK=128).asm["ptx"]
    assert ptx16 != ptx32


def test_error_is_located():
    @tilec.jit
    def broken(x_ptr):
        p = x_ptr + 1.5
        tl.store(p, 0.0)

    line = broken.fn.__code__.co_firstlineno + 2  # the `p = ...` line
    with pytest.raises(tilec.Error) as info:
        broken.compile("*fp32")
    text = str(info.value)
    assert re.search(re.escape(HERE) + rf":{line}:13: error:", text), text
    assert "\n        p = x_ptr + 1.5\n" + " " * 12 + "^" in text, text


def test_unknown_name_error():
    @tilec.jit
    def uses_missing(x_ptr):
        tl.store(x_ptr, undefined_name_xyz)  # noqa: F821

    with pytest.raises(tilec.Error, match=r":\d+:\d+: error: .*undefined_name_xyz"):
        uses_missing.compile("*fp32")


def test_unusable_global_is_named():
    table = [1, 2, 3]

    @tilec.jit
    def uses_list(x_ptr):
        tl.store(x_ptr, table)

    with pytest.raises(tilec.Error, match="table"):
        uses_list.compile("*fp32")


def test_launch_without_driver():
    if tilec.cuda_available()[0]:
        pytest.skip("a CUDA driver is present")
    x = FakeCudaArray(0x10000)
    with pytest.raises(tilec.Error, match="no CUDA driver found"):
        vector_add.add[(1,)](x, x, x, 16, BLOCK=16)
    with pytest.raises(tilec.Error, match="no CUDA driver found"):
        vector_add.add[lambda meta: (tilec.cdiv(16, meta["BLOCK"]),)](x, x, x, 16, BLOCK=16)


def test_cubin_needs_a_driver():
    if tilec.cuda_available()[0]:
        pytest.skip("a CUDA driver is present")
    k = vector_add.add.compile("*fp32,*fp32,*fp32,i32", BLOCK=128)
    assert "cubin" not in k.asm
    with pytest.raises(tilec.Error, match="no CUDA driver found"):
        k._compiled.cubin()


def test_grid_errors():
    x = FakeCudaArray(0x10000)
    with pytest.raises((TypeError, ValueError)):
        vector_add.add[(1, 1, 1, 1)](x, x, x, 16, BLOCK=16)
    with pytest.raises(TypeError, match="grid"):
        vector_add.add["x"](x, x, x, 16, BLOCK=16)
    # A grid dimension of 0 is refused, naming the axis, driver or not.
    with pytest.raises(tilec.Error, match="grid x is 0"):
        vector_add.add[(0,)](x, x, x, 16, BLOCK=16)


def test_error_in_module_level_kernel(tmp_path):
    import importlib.util
    path = tmp_path / "bad_kernel.py"
    path.write_text(
        "import tilec\n"
        "import tilec.language as tl\n"
        "\n"
        "\n"
        "@tilec.jit\n"
        "def bad(x_ptr, n):\n"
        "    y = tl.load(x_ptr) + (x_ptr < 1.5)\n"
        "    tl.store(x_ptr + 2.0, y)\n")
    spec = importlib.util.spec_from_file_location("bad_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(tilec.Error) as info:
        mod.bad.compile("*fp32,i32")
    assert re.match(re.escape(str(path)) + r":[78]:\d+: error:", str(info.value)), str(info.value)


def _tag(**meta):
    """A host-side decorator with a dict and a lambda in its arguments."""
    return lambda f: f


@_tag(configs=[{"BLOCK": b} for b in (64, 128)],
      prune=lambda configs, **kw: configs)
@tilec.jit
def _decorated(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


def test_decorators_are_host_code():
    """Decorator lines are part of the function's source but never kernel
    code: what Python allows there (dicts, lambdas) must not stop a compile
    (as it did for @tilec.autotune(configs=[tilec.Config({...})]))."""
    c = _decorated.compile("*fp32:16,i32", BLOCK=64)
    assert ".entry _decorated" in c.asm["ptx"]


def test_autotune_decorator_compiles():
    @tilec.autotune(configs=[tilec.Config({"BLOCK": b}, num_warps=w)
                             for b, w in ((64, 2), (128, 4))], key=["n"])
    @tilec.jit
    def tuned(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 2.0, mask=offs < n)

    c = tuned.fn.compile("*fp32:16,i32", BLOCK=128)
    assert ".entry tuned" in c.asm["ptx"]
