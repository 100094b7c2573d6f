"""Host-side tensor descriptors, as Triton's
`triton.tools.tensor_descriptor.TensorDescriptor`: a kernel argument that
describes a strided tensor and the block shape its accesses move, so that
the kernel calls `desc.load([m, n])` / `desc.store(...)` on it as on one
made inside with `tl.make_tensor_descriptor`.

A launch given descriptors runs, instead of the kernel, a small kernel
generated for their structure (which parameters, their ranks, block shapes
and paddings): it takes each descriptor as its base pointer, its sizes and
its strides, makes it with tl.make_tensor_descriptor and calls the kernel
with it (inlined, as any @jit helper). The C++ launcher hands such launches
to `_launch` (`tilec._tilec.set_descriptor_hook`); launches without
descriptors never come here.
"""
import itertools
import linecache
import threading

__all__ = ["TensorDescriptor"]


def _element_size(base):
    from . import TensorWrapper
    if isinstance(base, TensorWrapper):  # tilec.reinterpret: its dtype's size
        return base.dtype.primitive_bitwidth // 8
    size = getattr(base, "element_size", None)
    if callable(size):
        return size()
    return base.itemsize


def _address(base):
    from . import TensorWrapper
    if isinstance(base, TensorWrapper):
        return _address(base.base)
    ptr = getattr(base, "data_ptr", None)
    if callable(ptr):
        return ptr()
    ctypes = getattr(base, "ctypes", None)  # a numpy array
    return ctypes.data if ctypes is not None else None


class TensorDescriptor:
    """The tensor of `shape` and `strides` (elements) at `base` (a tensor or
    array whose memory and element type it takes), read and written in
    blocks of `block_shape`; outside the tensor a block reads `padding`
    ("zero", or "nan" for floats). Triton's rules, which TMA's hardware
    sets: 1 to 5 dimensions, the last contiguous (stride 1), the base
    16-byte aligned, the other strides multiples of 16 bytes, each block
    dimension a power of two and the last at least 16 bytes."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base = base
        self.shape = [int(s) for s in shape]
        self.strides = [int(s) for s in strides]
        self.block_shape = [int(b) for b in block_shape]
        self.padding = padding
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"TensorDescriptor: 1 to 5 dimensions, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"TensorDescriptor: shape, strides and block_shape differ in "
                             f"length ({rank}, {len(self.strides)}, {len(self.block_shape)})")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last stride must be 1, got "
                             f"{self.strides[-1]}")
        if padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got "
                             f"{padding!r}")
        for b in self.block_shape:
            if b < 1 or b & (b - 1):
                raise ValueError(f"TensorDescriptor: block sizes must be powers of two, got "
                                 f"{self.block_shape}")
        size = _element_size(base)
        if self.block_shape[-1] * size < 16:
            raise ValueError(f"TensorDescriptor: the block must hold at least 16 bytes along "
                             f"its last dimension, got {self.block_shape[-1]} x {size} bytes")
        address = _address(base)
        if address is not None and address % 16:
            raise ValueError("TensorDescriptor: the base must be 16-byte aligned")
        for s in self.strides[:-1]:
            if (s * size) % 16:
                raise ValueError(f"TensorDescriptor: strides other than the last must be "
                                 f"multiples of 16 bytes, got {self.strides} x {size} bytes")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """The descriptor of a whole torch tensor (or numpy array)."""
        stride = getattr(tensor, "stride", None)
        if callable(stride):
            strides = list(stride())
        else:  # numpy: bytes
            strides = [s // _element_size(tensor) for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), strides, block_shape, padding)

    def _structure(self):
        return (len(self.shape), tuple(self.block_shape), self.padding)

    def __repr__(self):
        return (f"TensorDescriptor(shape={self.shape}, strides={self.strides}, "
                f"block_shape={self.block_shape}, padding={self.padding!r})")


class _Owner:
    """What a launcher keeps of its JITFunction for this hook: the function
    and its options, not the JITFunction (which holds the launcher), so
    that no cycle keeps either alive."""

    def __init__(self, jit):
        self.fn = jit.fn
        self.name = jit.fn.__name__
        self.arg_names = list(jit.arg_names)
        self.defaults = dict(jit._defaults)
        self.constexprs = {p[0] for p in jit._parameters() if p[1]}
        self.options = dict(interpret=jit.interpret, debug=jit.debug,
                            deterministic=jit.deterministic)
        self.unspecialized = dict(jit._unspecialized)  # {name: "none" | "alignment"}
        #: {descriptor structures: the generated kernel}
        self.wrappers = {}
        #: The kernel as the generated kernels' helper (one for all of them).
        self.helper = None


#: Serialises the making of generated kernels (and their linecache entries).
_lock = threading.Lock()
_made = itertools.count()
#: The generated kernel's globals: names no kernel parameter may take.
_GLOBALS = ("tl", "tilec_kernel")


def _wrapper_source(owner, structures):
    """The source of the kernel that makes the descriptors `structures`
    ({parameter: (rank, block_shape, padding)}) and calls the kernel."""
    params, makes, generated = [], [], []
    taken = [n for n in owner.arg_names if n in _GLOBALS]
    if taken:
        raise TypeError(f"{owner.name}(): a kernel given TensorDescriptors cannot have a "
                        f"parameter named {taken[0]!r} (the generated kernel's global)")
    for name in owner.arg_names:
        if name not in structures:
            params.append(f"{name}: tl.constexpr" if name in owner.constexprs else name)
            continue
        rank, block, padding = structures[name]
        sizes = [f"{name}__size{d}" for d in range(rank)]
        strides = [f"{name}__stride{d}" for d in range(rank - 1)]
        parts = [f"{name}__base"] + sizes + strides
        params += parts
        generated += parts
        makes.append(f"    {name} = tl.make_tensor_descriptor({name}__base, [{', '.join(sizes)}], "
                     f"[{', '.join(strides + ['1'])}], {list(block)}, "
                     f"padding_option={padding!r})")
    clash = [name for name in generated if name in owner.arg_names]
    if clash:
        raise TypeError(f"{owner.name}(): the parameter {clash[0]!r} has the name a "
                        "TensorDescriptor argument's part takes; rename it")
    name = f"{owner.name}__descriptors"
    return name, (f"def {name}({', '.join(params)}):\n" + "\n".join(makes) + "\n" +
                  f"    tilec_kernel({', '.join(owner.arg_names)})\n")


def _wrapper(owner, structures):
    """The generated kernel for these descriptor structures (made once per
    structure)."""
    from . import JITFunction, language
    key = tuple(sorted(structures.items()))
    wrapper = owner.wrappers.get(key)
    if wrapper is not None:
        return wrapper
    with _lock:
        if key in owner.wrappers:
            return owner.wrappers[key]
        name, source = _wrapper_source(owner, structures)
        # inspect.getsource reads the generated text from linecache: one
        # path per generated kernel.
        path = f"<tensor descriptors of kernel '{owner.name}' #{next(_made)}>"
        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
        if owner.helper is None:
            owner.helper = JITFunction(owner.fn, **owner.options)
        namespace = {"tl": language, "tilec_kernel": owner.helper}
        exec(compile(source, path, "exec"), namespace)
        # The parameters that stay keep what the kernel does not specialise on.
        kept = [n for n in owner.unspecialized if n not in structures]
        wrapper = JITFunction(
            namespace[name], **owner.options,
            do_not_specialize=[n for n in kept if owner.unspecialized[n] == "none"],
            do_not_specialize_on_alignment=[n for n in kept
                                            if owner.unspecialized[n] == "alignment"])
        wrapper._init()  # reads the source now, under the lock
        owner.wrappers[key] = wrapper
    return wrapper


def _launch(owner, grid, *args, **kwargs):
    """The hook: a launch given descriptors, of the kernel `owner` describes."""
    if not isinstance(owner, _Owner):
        raise TypeError("a TensorDescriptor argument needs a @tilec.jit kernel")
    names = owner.arg_names
    if len(args) > len(names):
        raise TypeError(f"{owner.name}() takes {len(names)} arguments but {len(args)} "
                        "were given")
    values = dict(zip(names, args))
    options = {}
    for key, value in kwargs.items():
        if key in names:
            if key in values:
                raise TypeError(f"{owner.name}() got multiple values for argument '{key}'")
            values[key] = value
        else:
            options[key] = value  # num_warps, num_stages, stream, ...
    for name in names:
        if name not in values:
            if name not in owner.defaults:
                raise TypeError(f"{owner.name}() missing argument '{name}'")
            values[name] = owner.defaults[name]
    structures = {n: v._structure() for n, v in values.items()
                  if isinstance(v, TensorDescriptor)}
    wrapper = _wrapper(owner, structures)
    flat = {}
    for name in names:
        value = values[name]
        if name not in structures:
            flat[name] = value
            continue
        flat[f"{name}__base"] = value.base
        for d, size in enumerate(value.shape):
            flat[f"{name}__size{d}"] = size
        for d, stride in enumerate(value.strides[:-1]):
            flat[f"{name}__stride{d}"] = stride
    if callable(grid):  # META as a launch gives it: the kernel's own names
        meta = {n: getattr(v, "value", v) if n in owner.constexprs else v
                for n, v in values.items()}
        meta["num_warps"] = options.get("num_warps", 4)
        meta["num_stages"] = options.get("num_stages", 3)
        grid = grid(meta)
    wrapper[grid](**flat, **options)
