"""Bad launch arguments from Python are refused with one error naming the
argument, and nothing runs (issue 16). On the CPU: the interpreter's
launches, and every check that comes before the driver (the grid, argument
counts, constexpr values, and a CompiledKernel's signature: dtype, `:16`,
`:1`), with __cuda_array_interface__ objects standing in for GPU arrays.
The GPU side (host and foreign-device memory, a CompiledKernel launched)
is in test_gpu_launch_args.py.
"""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import vector_add  # kernels/vector_add.py


class FakeCudaArray:
    """A GPU array as CuPy or Numba describe one, at a made-up address."""

    def __init__(self, address, typestr="<f4", n=1024):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": typestr, "data": (address, False), "version": 3}


@pytest.fixture
def add():
    return tilec.JITFunction(vector_add.add.fn, interpret=True)


def arrays(n=64):
    return (np.ones(n, np.float32), np.full(n, 2.0, np.float32),
            np.full(n, -7.0, np.float32))


def test_good_arguments_run(add):
    x, y, out = arrays()
    add[(2,)](x, y, out, 64, BLOCK=32)
    np.testing.assert_array_equal(out, 3.0)


@pytest.mark.parametrize("grid, message", [
    ((0,), "grid x is 0"),
    ((2, 0), "grid y is 0"),
    ((2, 1, 0), "grid z is 0"),
    ((2, 65536), "grid y is 65536, more than the 65535 the GPU allows"),
    (lambda meta: (tilec.cdiv(0, meta["BLOCK"]),), "grid x is 0"),
])
def test_grid_of_zero_or_past_the_limits(add, grid, message):
    x, y, out = arrays()
    with pytest.raises(tilec.Error, match=message):
        add[grid](x, y, out, 64, BLOCK=32)
    assert (out == -7.0).all()


def test_negative_grid(add):
    x, y, out = arrays()
    with pytest.raises(ValueError, match="grid dimension 0 out of range: -1"):
        add[(-1,)](x, y, out, 64, BLOCK=32)


def test_argument_count_and_names(add):
    x, y, out = arrays()
    with pytest.raises(TypeError, match="missing argument 'n'"):
        add[(2,)](x, y, out, BLOCK=32)
    with pytest.raises(TypeError, match="takes 5 arguments but 6 were given"):
        add[(2,)](x, y, out, 64, 32, 5)
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        add[(2,)](x, y, out, 64, n=64, BLOCK=32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'BLOK'"):
        add[(2,)](x, y, out, 64, BLOK=32)
    assert (out == -7.0).all()


def test_constexpr_of_the_wrong_kind(add):
    x, y, out = arrays()
    with pytest.raises(TypeError, match="constexpr 'BLOCK' is None"):
        add[(2,)](x, y, out, 64, BLOCK=None)
    with pytest.raises(TypeError, match="constexpr 'BLOCK': cannot use a numpy.ndarray as a constexpr"):
        add[(2,)](x, y, out, 64, BLOCK=x)
    # A value of a kind the kernel cannot use where it uses it: a located
    # compile error.
    with pytest.raises(tilec.Error, match="the end of tl.arange must be a compile-time integer"):
        add[(2,)](x, y, out, 64, BLOCK=32.0)
    # And a runtime parameter given what only a constexpr can be.
    with pytest.raises(TypeError, match="argument 'n': cannot pass a str"):
        add[(2,)](x, y, out, "64", BLOCK=32)
    assert (out == -7.0).all()


def test_null_pointer_is_refused():
    x = FakeCudaArray(0x10000)
    with pytest.raises(tilec.Error, match="argument 'y_ptr' is a null pointer"):
        vector_add.add[(1,)](x, FakeCudaArray(0), x, 16, BLOCK=16)


# -- CompiledKernel[grid](...): the arguments against the compiled signature --

def compiled_add(signature="*fp32:16,*fp32:16,*fp32:16,i32:16"):
    return vector_add.add.compile(signature, BLOCK=256)


def fake_args(n=1024):
    return [FakeCudaArray(0x10000), FakeCudaArray(0x20000), FakeCudaArray(0x30000), n]


@pytest.mark.parametrize("change, message", [
    ((1, FakeCudaArray(0x20000, "<f2")),
     "argument 'y_ptr' is a pointer to fp16, and this compile takes \\*fp32:16"),
    ((2, FakeCudaArray(0x30004)),
     "argument 'out_ptr' \\(0x30004\\) is not 16-byte aligned, which its signature "
     "entry \\*fp32:16 promises"),
    ((3, 1000), "argument 'n' is 1000, not divisible by 16"),
    ((3, 1 << 40), "argument 'n' is 1099511627776, which does not fit the i32:16"),
    ((3, 16.0), "argument 'n' is an fp32, and this compile takes i32:16"),
    ((0, 7), "argument 'x_ptr' is an i32, and this compile takes \\*fp32:16"),
])
def test_compiled_kernel_checks_its_signature(change, message):
    k = compiled_add()
    args = fake_args()
    args[change[0]] = change[1]
    with pytest.raises(tilec.Error, match=message):
        k[(4,)](*args)


def test_compiled_kernel_checks_divisible_by_8():
    k = compiled_add("*fp32:16,*fp32:16,*fp32:16,i32:8")
    with pytest.raises(tilec.Error, match="argument 'n' is 1004, not divisible by 8 as "
                                          "its signature entry i32:8 promises"):
        k[(4,)](*fake_args(1004))
    assert k.signature == "*fp32:16,*fp32:16,*fp32:16,i32:8"


def test_compiled_kernel_equals_one():
    k = compiled_add("*fp32,*fp32,*fp32,i32:1")
    with pytest.raises(tilec.Error, match="argument 'n' is 5, and its signature entry "
                                          "i32:1 compiled it as the constant 1"):
        k[(4,)](*fake_args(5))


def test_compiled_kernel_argument_count_and_constexprs():
    k = compiled_add()
    with pytest.raises(TypeError, match="takes its 4 runtime arguments \\(x_ptr, y_ptr, "
                                        "out_ptr, n\\) or all 5 parameters, got 3"):
        k[(4,)](*fake_args()[:3])
    # Every parameter, constexprs included: they must be the compiled ones.
    with pytest.raises(tilec.Error, match="constexpr 'BLOCK' is 512, and this compile has 256"):
        k[(4,)](*fake_args(), 512)
    with pytest.raises(tilec.Error, match="grid x is 0"):
        k[(0,)](*fake_args(), 256)
    with pytest.raises(tilec.Error, match="argument 'x_ptr' is a null pointer"):
        k[lambda meta: (tilec.cdiv(1024, meta["BLOCK"]),)](FakeCudaArray(0), *fake_args()[1:])


def test_bound_launches_outlive_their_kernel_and_raise_as_python_errors():
    """kernel[grid] is a plain CPython object (not pybind11's, for launch
    speed): it keeps its launcher alive, launches as often as it is called,
    and its failures are the same Python exceptions as pybind11's."""
    import gc
    import weakref
    add = tilec.JITFunction(vector_add.add.fn, interpret=True)
    bound = add[(2,)]
    assert type(bound).__name__ == "BoundLaunch"
    assert type(add._launcher[(2,)]) is type(bound)  # Launcher[grid], the same
    watch = weakref.ref(add)
    del add
    gc.collect()
    assert watch() is None  # the bound launch keeps the launcher, not the JITFunction
    x, y, out = arrays()
    bound(x, y, out, 64, BLOCK=32)
    np.testing.assert_array_equal(out, 3.0)
    out[:] = 0
    bound(x, y, out, n=64, BLOCK=32)
    np.testing.assert_array_equal(out, 3.0)
    with pytest.raises(TypeError, match="takes 5 arguments but 6 were given"):
        bound(x, y, out, 64, 32, 1)
    with pytest.raises(TypeError, match="cannot pass a str"):
        bound(x, "y", out, 64, BLOCK=32)
    with pytest.raises(tilec.Error, match="grid x is 0"):
        tilec.JITFunction(vector_add.add.fn, interpret=True)[(0,)](x, y, out, 64, BLOCK=32)
