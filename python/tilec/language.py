"""The kernel language's names, for `import tilec.language as tl`.

Kernels are compiled from their source by tilec's C++ front end, which gives
`tl.*` its meaning; this module only makes the names exist in Python, so that
a kernel file imports and its annotations (`BLOCK: tl.constexpr`) evaluate.

- `constexpr`: the annotation of compile-time parameters, and `tl.constexpr(x)`
  to mark a module-level constant.
- dtypes: `tl.float16`, `tl.bfloat16`, `tl.int32`, ... with Triton's names
  (`tl.float16.name == 'fp16'`); pass them as constexprs or use them as
  module-level constants.
- the builtins (`tl.program_id`, `tl.load`, ...): calling one outside a
  kernel raises an error that says so.
- `PropagateNan.NONE` / `.ALL`: `propagate_nan=` of `tl.minimum` and
  `tl.maximum`.
"""
import enum

__all__ = [
    "constexpr", "dtype", "pointer_type", "PropagateNan",
    "int1", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "float8e4nv", "float8e5",
]


class constexpr:
    """A compile-time value. As an annotation (`BLOCK: tl.constexpr`) it
    marks a parameter that specialises the kernel; `tl.constexpr(128)` wraps
    a module-level constant."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        other = other.value if isinstance(other, constexpr) else other
        return self.value == other

    def __hash__(self):
        return hash(self.value)


class dtype:
    """A scalar type of the kernel language."""

    __slots__ = ("name", "long_name", "primitive_bitwidth")

    def __init__(self, name, long_name, bits):
        self.name = name
        self.long_name = long_name
        self.primitive_bitwidth = bits

    def is_floating(self):
        return self.name.startswith(("fp", "bf"))

    def is_int(self):
        return not self.is_floating()

    def is_fp8(self):
        return self.name.startswith("fp8")

    def is_int_signed(self):
        return self.name.startswith("i") and self.name != "i1"

    def __repr__(self):
        return f"tl.{self.long_name}"

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self.name == other.name
        if isinstance(other, str):
            return other in (self.name, self.long_name)
        return NotImplemented

    def __hash__(self):
        return hash(self.name)


class pointer_type:
    """A pointer to `element_ty` (what a pointer parameter is in a kernel)."""

    __slots__ = ("element_ty",)

    def __init__(self, element_ty):
        self.element_ty = element_ty

    @property
    def name(self):
        return "*" + self.element_ty.name

    def __repr__(self):
        return f"pointer<{self.element_ty!r}>"


class PropagateNan(enum.Enum):
    """Whether tl.minimum and tl.maximum of floats return NaN when an
    operand is NaN (ALL) or the other operand (NONE, the default)."""
    NONE = 0x0000
    ALL = 0xFFFF


# A kernel that names the class through a global (`from tilec.language
# import PropagateNan`) reaches the compiler's tl.PropagateNan.
PropagateNan._tilec_builtin = "PropagateNan"


int1 = dtype("i1", "int1", 1)
int8 = dtype("i8", "int8", 8)
int16 = dtype("i16", "int16", 16)
int32 = dtype("i32", "int32", 32)
int64 = dtype("i64", "int64", 64)
uint8 = dtype("u8", "uint8", 8)
uint16 = dtype("u16", "uint16", 16)
uint32 = dtype("u32", "uint32", 32)
uint64 = dtype("u64", "uint64", 64)
float16 = dtype("fp16", "float16", 16)
bfloat16 = dtype("bf16", "bfloat16", 16)
float32 = dtype("fp32", "float32", 32)
float64 = dtype("fp64", "float64", 64)
# The 8-bit floats of sm_89 and later (torch.float8_e4m3fn, float8_e5m2):
# loaded, stored, converted with .to() and multiplied by tl.dot; other
# arithmetic on them computes in float32.
float8e4nv = dtype("fp8e4nv", "float8e4nv", 8)
float8e5 = dtype("fp8e5", "float8e5", 8)

_DTYPES = {t.name: t for t in (int1, int8, int16, int32, int64, uint8, uint16,
                               uint32, uint64, float16, bfloat16, float32, float64,
                               float8e4nv, float8e5)}


def _builtin(name, spelled=None):
    spelled = spelled or f"tl.{name}"

    def fn(*args, **kwargs):
        raise RuntimeError(
            f"{spelled} can only be called inside a @tilec.jit kernel; "
            f"kernels are compiled from their source, not run by Python")
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = f"tl.{name}: a builtin of the kernel language (see docs/language.md)."
    fn._tilec_builtin = name
    return fn


# Every builtin of `tl` the compiler implements (its table of builtins,
# dsl/BuiltinTable.h); tests/python/test_language.py checks that this list
# and the compiler's agree.
_BUILTINS = [
    "program_id", "num_programs", "arange", "load", "store", "where",
    "minimum", "maximum", "clamp", "zeros", "full", "zeros_like", "full_like",
    "cdiv", "multiple_of", "max_contiguous", "static_print", "static_assert", "range",
    "static_range", "cast", "fma", "div_rn", "fdiv", "sum", "max", "min",
    "argmax", "argmin", "reduce", "cumsum", "cumprod", "associative_scan", "dot",
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "abs",
    "floor", "ceil", "erf", "tanh", "sigmoid",
    "trans", "permute", "reshape", "ravel", "broadcast_to", "broadcast",
    "expand_dims", "device_assert", "device_print", "debug_barrier",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_xchg", "atomic_cas",
    "umulhi", "randint", "randint4x", "rand", "rand4x", "randn", "randn4x",
    "uint_to_uniform_float", "pair_uniform_to_normal", "xor_sum", "flip", "split",
    "inline_asm_elementwise", "gather", "histogram", "join", "interleave", "cat", "view", "sort", "make_block_ptr", "advance", "cuda_device_call",
    "make_tensor_descriptor", "load_tensor_descriptor", "store_tensor_descriptor",
]
for _name in _BUILTINS:
    globals()[_name] = _builtin(_name)
__all__ += _BUILTINS
del _name


# Triton's CUDA extras: `from tilec.language.extra import libdevice` (or
# `.extra.cuda`), and tl.extra.libdevice / tl.extra.cuda.libdevice, name the
# functions of the compiler's libdevice family (dsl/IRGenLibdevice.cpp);
# tests/python/test_libdevice.py checks that the two lists agree.
_LIBDEVICE = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
    "clz", "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1",
    "fabs", "fast_cosf", "fast_expf", "fast_log10f", "fast_log2f", "fast_logf",
    "fast_powf", "fast_sinf", "fast_tanf", "fast_tanhf", "floor", "fma", "fmax", "fmin",
    "fmod", "isinf", "isnan", "log",
    "log10", "log1p", "log2", "nearbyint", "popc", "pow", "rint", "round",
    "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
]


def _extra_modules():
    import sys
    import types as _types

    extra = _types.ModuleType(__name__ + ".extra",
                              "Triton's CUDA extras: libdevice, and under cuda gdc_wait, "
                              "gdc_launch_dependents and tilec's prefetch_l2 and cluster "
                              "queries.")
    cuda = _types.ModuleType(__name__ + ".extra.cuda",
                             "libdevice, gdc_wait and gdc_launch_dependents, as tl.extra.cuda "
                             "has them, prefetch_l2, and cluster_id, cluster_cta_rank and "
                             "cluster_size.")
    libdevice = _types.ModuleType(
        __name__ + ".extra.libdevice",
        "CUDA libdevice functions a kernel may call (docs/language.md, 'libdevice').")
    for name in _LIBDEVICE:
        fn = _builtin(name, f"libdevice.{name}")
        fn.__module__ = libdevice.__name__
        fn.__doc__ = f"libdevice.{name}: see docs/language.md, 'libdevice'."
        fn._tilec_builtin = "libdevice." + name
        setattr(libdevice, name, fn)
    libdevice.__all__ = list(_LIBDEVICE)
    extra.libdevice = cuda.libdevice = libdevice
    extra.cuda = cuda
    # Programmatic dependent launch, as Triton spells it, and the L2
    # prefetch that goes with it (docs/language.md).
    for name in ("gdc_wait", "gdc_launch_dependents", "prefetch_l2"):
        fn = _builtin(name, f"tl.extra.cuda.{name}")
        fn.__module__ = cuda.__name__
        fn.__doc__ = (f"tl.extra.cuda.{name}: see docs/language.md, 'Programmatic "
                      f"dependent launch'.")
        fn._tilec_builtin = "extra.cuda." + name
        setattr(cuda, name, fn)
    # Where a program stands in its cluster (tl.range(..., num_ctas=N)).
    for name in ("cluster_id", "cluster_cta_rank", "cluster_size"):
        fn = _builtin(name, f"tl.extra.cuda.{name}")
        fn.__module__ = cuda.__name__
        fn.__doc__ = f"tl.extra.cuda.{name}: see docs/language.md, 'Clusters'."
        fn._tilec_builtin = "extra.cuda." + name
        setattr(cuda, name, fn)
    # Importable by name too: `from tilec.language.extra import libdevice`,
    # `import tilec.language.extra.cuda.libdevice as libdevice`.
    for module in (extra, cuda, libdevice):
        sys.modules[module.__name__] = module
    sys.modules[cuda.__name__ + ".libdevice"] = libdevice
    return extra


extra = _extra_modules()


def cdiv(a, b):
    """ceil(a / b): a builtin inside kernels, and plain arithmetic on the host."""
    a = a.value if isinstance(a, constexpr) else a
    b = b.value if isinstance(b, constexpr) else b
    return (a + b - 1) // b


cdiv._tilec_builtin = "cdiv"
