"""Options are honoured or refused, never swallowed (issue 16): unknown
keywords of @tilec.jit, @tilec.autotune, tilec.Config and launches are
TypeErrors; Triton options tilec cannot honour are ValueErrors naming
why; do_not_specialize and do_not_specialize_on_alignment change the
specialisation a launch compiles (seen through warmup(), no GPU needed).
Autotuning hooks run on the GPU: test_gpu_autotune.py."""
import pytest

import tilec
import tilec.language as tl


def kernel_source(x_ptr, n, m, OUT: tl.constexpr):
    tl.store(x_ptr + n + m, 1.0)


class FakeCudaArray:
    def __init__(self, address):
        self.__cuda_array_interface__ = {
            "shape": (64,), "typestr": "<f4", "data": (address, False), "version": 3}


def test_unknown_jit_option_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_warp'"):
        tilec.jit(num_warp=4)(kernel_source)
    with pytest.raises(TypeError, match="unexpected keyword argument 'debg'"):
        tilec.JITFunction(kernel_source, debg=True)


@pytest.mark.parametrize("option, message", [
    ({"noinline": True}, "noinline=True\\) is not supported: tilec inlines"),
    ({"repr": lambda meta: "k"}, "repr=.*is not supported"),
    ({"launch_metadata": lambda *a: {}}, "launch_metadata=.*is not supported"),
])
def test_options_tilec_cannot_honour_are_refused(option, message):
    with pytest.raises(ValueError, match=message):
        tilec.jit(**option)(kernel_source)
    # Their off values are Triton's defaults, and fine.
    tilec.jit(**{k: None for k in option})(kernel_source)


def test_do_not_specialize():
    x = FakeCudaArray(0x10000)
    plain = tilec.jit(kernel_source)
    assert plain.warmup(x, 32, 1, OUT=1).signature == "*fp32:16,i32:16,i32:1"
    by_name = tilec.jit(do_not_specialize=["n", "m"])(kernel_source)
    assert by_name.warmup(x, 32, 1, OUT=1).signature == "*fp32:16,i32,i32"
    by_index = tilec.jit(do_not_specialize=[1])(kernel_source)
    assert by_index.warmup(x, 32, 1, OUT=1).signature == "*fp32:16,i32,i32:1"
    # On alignment only: pointers lose `:16`, integers keep `:1`.
    aligned = tilec.jit(do_not_specialize_on_alignment=["x_ptr", "n", "m"])(kernel_source)
    assert aligned.warmup(x, 32, 1, OUT=1).signature == "*fp32,i32,i32:1"
    with pytest.raises(ValueError, match="'k' in do_not_specialize is not a parameter"):
        tilec.jit(do_not_specialize=["k"])(kernel_source)


def test_divisible_by_8_is_its_own_fact():
    """Integers divisible by 8 but not 16 specialise as `:8` (so that rows
    of 16-bit elements 8 apart are 16-byte aligned), as separate compiles
    from `:16` and from no fact; not on alignment, neither."""
    x = FakeCudaArray(0x10000)
    plain = tilec.jit(kernel_source)
    assert plain.warmup(x, 1000, 24, OUT=1).signature == "*fp32:16,i32:8,i32:8"
    assert plain.warmup(x, 1008, 4, OUT=1).signature == "*fp32:16,i32:16,i32"
    assert plain.warmup(x, -8, 1 << 35, OUT=1).signature == "*fp32:16,i32:8,i64:16"
    assert plain.warmup(x, 1 << 33 | 8, 1, OUT=1).signature == "*fp32:16,i64:8,i32:1"
    aligned = tilec.jit(do_not_specialize_on_alignment=["n"])(kernel_source)
    assert aligned.warmup(x, 1000, 8, OUT=1).signature == "*fp32:16,i32,i32:8"


def test_unknown_launch_keyword_is_a_type_error():
    k = tilec.jit(kernel_source)
    x = FakeCudaArray(0x10000)
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_warp'"):
        k[(1,)](x, 1, 2, OUT=1, num_warp=4)
    with pytest.raises(ValueError, match="num_ctas=2.*one CTA per program"):
        k[(1,)](x, 1, 2, OUT=1, num_ctas=2)


def test_autotune_keywords():
    k = tilec.jit(kernel_source)
    configs = [tilec.Config({"OUT": 1})]
    with pytest.raises(TypeError, match="unexpected keyword argument 'restore_values'"):
        tilec.autotune(configs, key=["n"], restore_values=["x_ptr"])
    with pytest.raises(ValueError, match="use_cuda_graph=True\\) is not supported"):
        tilec.autotune(configs, key=["n"], use_cuda_graph=True)
    with pytest.raises(ValueError, match="do_bench=...\\) is not supported"):
        tilec.autotune(configs, key=["n"], do_bench=lambda fn: 1.0)
    with pytest.raises(ValueError, match="reset_to_zero names \\['y'\\] are not parameters"):
        tilec.autotune(configs, key=["n"], reset_to_zero=["y"])(k)
    with pytest.raises(ValueError, match="restore_value names \\['y'\\] are not parameters"):
        tilec.autotune(configs, key=["n"], restore_value=["y"])(k)
    tuned = tilec.autotune(configs, key=["n"], restore_value=["x_ptr"],
                           reset_to_zero=["x_ptr"], cache_results=False)(k)
    assert tuned.use_database is False


def test_config_keywords():
    c = tilec.Config({"BLOCK": 64}, num_warps=2, maxnreg=128)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 2, "num_stages": 3, "maxnreg": 128}
    assert "maxnreg=128" in repr(c)
    with pytest.raises(ValueError, match="num_ctas=2.*one CTA per program"):
        tilec.Config({"BLOCK": 64}, num_ctas=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_warp'"):
        tilec.Config({"BLOCK": 64}, num_warp=2)


def test_maxnreg_reaches_the_ptx():
    x = FakeCudaArray(0x10000)
    k = tilec.jit(kernel_source)
    capped = k.warmup(x, 32, 1, OUT=1, maxnreg=64)
    assert capped.maxnreg == 64 and capped.metadata["maxnreg"] == 64
    assert ".maxnreg 64" in capped.asm["ptx"]
    plain = k.warmup(x, 32, 1, OUT=1)
    assert plain.maxnreg is None and ".maxnreg" not in plain.asm["ptx"]
    assert ".maxnreg 40" in k.compile("*fp32:16,i32,i32", OUT=1, maxnreg=40).asm["ptx"]
    with pytest.raises(ValueError, match="maxnreg must be from 16 to 255"):
        k[(1,)](x, 1, 2, OUT=1, maxnreg=8)
    with pytest.raises(tilec.Error, match="maxnreg must be from 16 to 255"):
        k.compile("*fp32:16,i32,i32", OUT=1, maxnreg=300)
