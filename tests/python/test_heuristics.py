"""@tilec.heuristics (Triton's @triton.heuristics): constexprs computed
from each launch's arguments, in order, each seeing those before it;
checked on the interpreter and through warmup() (no GPU needed), under
@tilec.autotune (its configs' values visible to the functions), and its
errors: a decorated object that is not a @jit function, a name that is not
a constexpr parameter, a value that is not a function."""
import numpy as np
import pytest

import tilec
import tilec.language as tl


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


class FakeCudaArray:
    def __init__(self, address):
        self.__cuda_array_interface__ = {
            "shape": (64,), "typestr": "<f4", "data": (address, False), "version": 3}


def fill_source(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    # x[i] = i for i < n, by one program of BLOCK lanes; EVEN: n fills the
    # block, so no mask.
    offs = tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, offs.to(tl.float32))
    else:
        tl.store(x_ptr + offs, offs.to(tl.float32) + 1000.0, mask=offs < n)


HEURISTICS = {"BLOCK": lambda args: tilec.next_power_of_2(args["n"]),
              "EVEN": lambda args: args["n"] == args["BLOCK"]}


@pytest.mark.parametrize("n,even", [(20, False), (32, True)])
def test_values_are_computed_in_order_on_the_interpreter(n, even):
    fill = tilec.heuristics(values=HEURISTICS)(tilec.jit(interpret=True)(fill_source))
    x = np.full(64, -1.0, np.float32)
    fill[(1,)](x, n)
    want = np.arange(n) + (0.0 if even else 1000.0)
    assert np.array_equal(x[:n], want)
    assert (x[n:] == -1.0).all()
    # run() as Triton's.
    x[:] = -1.0
    fill.run(x, n, grid=(1,))
    assert np.array_equal(x[:n], want)


def test_warmup_compiles_with_the_values_and_they_replace_given_ones():
    fill = tilec.heuristics(values=HEURISTICS)(tilec.jit(fill_source))
    k = fill.warmup(FakeCudaArray(0x10000), 20, target="sm_90a")
    assert k.constexprs["BLOCK"] == 32 and k.constexprs["EVEN"] is False
    # A value the caller passes is replaced, as in Triton.
    k = fill.warmup(FakeCudaArray(0x10000), 64, BLOCK=8, target="sm_90a")
    assert k.constexprs["BLOCK"] == 64 and k.constexprs["EVEN"] is True
    # The @jit function's own API passes through.
    assert fill.arg_names == ["x_ptr", "n", "BLOCK", "EVEN"]
    assert fill.__name__ == "fill_source"


def test_under_autotune_the_functions_see_each_config():
    seen = []

    def even(args):
        seen.append(args["BLOCK"])
        return args["n"] == args["BLOCK"]

    inner = tilec.heuristics(values={"EVEN": even})(tilec.jit(fill_source))
    tuned = tilec.autotune(configs=[tilec.Config({"BLOCK": 32}), tilec.Config({"BLOCK": 64})],
                           key=["n"])(inner)
    compiled = tuned.warmup_compile(FakeCudaArray(0x10000), 32, target="sm_90a")
    assert [c.constexprs["EVEN"] for c in compiled] == [True, False]
    assert seen == [32, 64]


def test_errors():
    jitted = tilec.jit(fill_source)
    with pytest.raises(TypeError, match="decorates a @tilec.jit function"):
        tilec.heuristics(values=HEURISTICS)(fill_source)
    with pytest.raises(ValueError, match="heuristics value 'n' is not a tl.constexpr "
                                         "parameter of 'fill_source' \\(\\['BLOCK', 'EVEN'\\]\\)"):
        tilec.heuristics(values={"n": lambda args: 1})(jitted)
    with pytest.raises(TypeError, match="heuristics value 'BLOCK' must be a function"):
        tilec.heuristics(values={"BLOCK": 32})(jitted)
    with pytest.raises(TypeError, match="takes a dict"):
        tilec.heuristics(values=[("BLOCK", len)])(jitted)
