"""deterministic=True (issue 15, batch invariance): the compile refuses,
with an error at the user's line, float atomics and float sums whose split
depends on the grid or on runtime values, in Python (@jit, launch keyword,
compile()) and on the interpreter; what it accepts computes as before."""
import inspect

import numpy as np
import pytest

import tilec

import deterministic_kernels as k


def refused_line(fn):
    """The line of `fn`'s source (or its helper's) marked `# REFUSED`."""
    lines, first = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(lines):
        if "# REFUSED" in line:
            return first + i
    raise AssertionError("no # REFUSED marker")


def interpreted(fn, **options):
    return tilec.JITFunction(fn.fn, interpret=True, **options)


F32, I32 = "*fp32:16", "i32"


@pytest.mark.parametrize("fn, signature, constexprs, says", [
    (k.grid_stride_sum, [F32, F32, I32], {"BLOCK": 64},
     "its step depends on the launch grid (tl.num_programs);"),
    (k.atomic_float_sum, [F32, F32, I32], {"BLOCK": 64},
     "tl.atomic_add of floating-point values is not allowed with deterministic=True"),
    (k.while_grid_sum, [F32, F32, I32], {},
     "this while loop accumulates floating-point values and the integers it carries "
     "depend on the launch grid"),
])
def test_refused_at_the_users_line(fn, signature, constexprs, says):
    fresh = tilec.JITFunction(fn.fn, deterministic=True)
    with pytest.raises(tilec.Error) as e:
        fresh.compile(signature, **constexprs)
    message = str(e.value)
    assert says in message
    assert f"deterministic_kernels.py:{refused_line(fn)}:" in message


def test_helper_loop_refused_at_the_helpers_line():
    with pytest.raises(tilec.Error) as e:
        k.helper_runtime_step.compile([F32, F32, I32, I32], BLOCK=64, deterministic=True)
    assert "its step depends on a runtime value (a scalar argument or a loaded value)" \
        in str(e.value)
    assert f"deterministic_kernels.py:{refused_line(k._accumulate)}:" in str(e.value)


@pytest.mark.parametrize("fn, signature, constexprs", [
    (k.fixed_split_sum, [F32, F32, I32], {"SPLIT": 512, "BLOCK": 64}),
    (k.atomic_int_count, [F32, "*i32:16", I32], {"BLOCK": 64}),
    (k.row_sum, [F32, F32, I32, I32], {"BLOCK": 64}),
])
def test_accepted_compiles_to_the_same_code(fn, signature, constexprs):
    plain = fn.compile(signature, target="sm_90a", **constexprs)
    checked = fn.compile(signature, target="sm_90a", deterministic=True, **constexprs)
    assert checked.deterministic and not plain.deterministic
    # The check changes no code, but the two are cached apart.
    assert checked.asm["ptx"] == plain.asm["ptx"]
    assert checked.cache_key != plain.cache_key


def test_cached_plain_compile_does_not_stand_in_for_a_checked_one():
    k.grid_stride_sum.compile([F32, F32, I32], BLOCK=64)  # accepted without the check
    with pytest.raises(tilec.Error, match="depends on the launch grid"):
        k.grid_stride_sum.compile([F32, F32, I32], BLOCK=64, deterministic=True)


def test_jit_option_and_launch_keyword_on_the_interpreter():
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    out = np.zeros(4, np.float32)
    # Without the check the grid-stride sum runs, and sums everything.
    interpreted(k.grid_stride_sum)[(4,)](x, out, x.size, BLOCK=64)
    np.testing.assert_allclose(out.sum(), x.astype(np.float64).sum(), rtol=1e-5)
    with pytest.raises(tilec.Error, match="depends on the launch grid"):
        interpreted(k.grid_stride_sum)[(4,)](x, out, x.size, BLOCK=64, deterministic=True)
    with pytest.raises(tilec.Error, match="tl.atomic_add of floating-point"):
        interpreted(k.atomic_float_sum, deterministic=True)[(4,)](
            x, out, x.size, BLOCK=64)
    # A launch can also turn the @jit's option off.
    total = np.zeros(1, np.float32)
    interpreted(k.atomic_float_sum, deterministic=True)[(16,)](
        x, total, x.size, BLOCK=64, deterministic=False)
    np.testing.assert_allclose(total[0], x.astype(np.float64).sum(), rtol=1e-5)


def test_fixed_split_partials_do_not_depend_on_the_length_beyond_them():
    # Batch invariance in miniature: the partial sum of the first split is
    # bitwise the same whatever follows it.
    rng = np.random.default_rng(1)
    x = rng.standard_normal(4096).astype(np.float32)
    fn = interpreted(k.fixed_split_sum, deterministic=True)
    results = []
    for n in (512, 1500, 4096):
        out = np.zeros(8, np.float32)
        fn[((n + 511) // 512,)](x, out, n, SPLIT=512, BLOCK=64)
        results.append(out[0])
        np.testing.assert_allclose(out.sum(), x[:n].astype(np.float64).sum(), rtol=1e-5)
    assert results[0] == results[1] == results[2]
