"""tilec.language against the compiler: the builtins a kernel can call are
those of the compiler's table (dsl/BuiltinTable.h, exposed as
tilec._tilec.builtin_names()), and python/tilec/language.py defines each
`tl.X` of it, and nothing the compiler does not implement."""
import builtins
import inspect

import tilec
import tilec.language as tl
from tilec import _tilec

# What language.py's __all__ holds besides the builtins: classes for
# annotations and host-side values, and the dtypes.
CLASSES = {"constexpr", "dtype", "pointer_type", "PropagateNan"}


def compiler_names():
    names = _tilec.builtin_names()
    assert names == sorted(set(names)), "builtin_names() is not sorted and unique"
    return names


def tl_members():
    """The compiler's tl.X builtins, X without a dot (those under tl.extra
    are checked by test_every_extra_builtin_is_in_language_py)."""
    return {n[len("tl."):] for n in compiler_names()
            if n.startswith("tl.") and "." not in n[len("tl."):]}


def test_every_extra_builtin_is_in_language_py():
    # tl.extra.cuda.gdc_wait and the like: reached through tl's modules,
    # each a stub marked with its dotted name.
    dotted = [n[len("tl."):] for n in compiler_names()
              if n.startswith("tl.") and "." in n[len("tl."):]]
    assert dotted, "the compiler has no builtin under tl.extra"
    for name in dotted:
        value = tl
        for part in name.split("."):
            assert hasattr(value, part), f"tl.{name} is not in python/tilec/language.py"
            value = getattr(value, part)
        assert inspect.isfunction(value) and value._tilec_builtin == name, name


def stubs():
    """The builtins language.py defines: functions marked _tilec_builtin."""
    found = {}
    for name in dir(tl):
        value = getattr(tl, name)
        if inspect.isfunction(value) and hasattr(value, "_tilec_builtin"):
            found[name] = value._tilec_builtin
    return found


def test_every_compiled_builtin_is_in_language_py():
    missing = sorted(n for n in tl_members() if n not in tl.__all__ or not hasattr(tl, n))
    assert not missing, ("the compiler implements these but python/tilec/language.py "
                         "does not export them: " + ", ".join("tl." + n for n in missing))


def test_every_builtin_of_language_py_is_compiled():
    defined = stubs()
    for name, marked in defined.items():
        assert marked == name, f"tl.{name} is marked as the builtin {marked!r}"
    extra = sorted(set(defined) - tl_members())
    assert not extra, ("python/tilec/language.py defines these but the compiler has "
                       "no such builtin: " + ", ".join("tl." + n for n in extra))


def test_language_py_exports_only_builtins_classes_and_dtypes():
    defined = stubs()
    for name in tl.__all__:
        value = getattr(tl, name)
        assert name in defined or name in CLASSES or isinstance(value, tl.dtype), name


def test_python_builtins_are_pythons():
    # The names without `tl.` (nor `libdevice.`, test_libdevice.py's) are
    # Python's own builtins a kernel may call.
    python = [n for n in compiler_names() if not n.startswith(("tl.", "libdevice."))]
    assert {"min", "max", "abs", "range", "len"} <= set(python), python
    for name in python:
        assert hasattr(builtins, name), name


def test_propagate_nan():
    # Triton's enumeration, with Triton's values; the compiler knows its
    # members as tl.PropagateNan.NONE and tl.PropagateNan.ALL.
    assert tl.PropagateNan.NONE.value == 0 and tl.PropagateNan.ALL.value == 0xFFFF
    assert [m.name for m in tl.PropagateNan] == ["NONE", "ALL"]
