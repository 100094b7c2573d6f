"""tilec: a JIT compiler for Triton-style GPU kernels, from Python.

    import tilec
    import tilec.language as tl

    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets,
                 tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
                 mask=mask)

    add[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)      # launch
    add.compile("*fp32:16,*fp32:16,*fp32:16,i32", BLOCK=1024).asm["ptx"]  # no GPU needed
    add.compile("*fp32:16,*fp32:16,*fp32:16,i32", target="sm_80", BLOCK=1024)

Kernels follow Triton's conventions: `kernel[grid](*args, num_warps=4,
num_stages=3, stream=None, launch_pdl=False, **constexprs)`, where grid is a
tuple of 1 to 3 ints or a callable taking the meta-parameters (every parameter by
name) and returning one. `launch_pdl=True` is a programmatic dependent launch
(sm_90+): the kernel may start before the one ahead of it on the stream ends, and
must call `tl.extra.cuda.gdc_wait()` before touching what that one writes or reads. Arguments may be torch CUDA tensors, objects with
`__cuda_array_interface__` (CuPy, Numba), objects with `__dlpack__` on a CUDA
device (JAX, ...) or DLPack capsules, Python ints (i32, or i64 when they do not
fit) and floats (fp32). numpy arrays live in host memory and are refused,
unless the kernel runs in the interpreter.

The interpreter (`@tilec.jit(interpret=True)`, or TILEC_INTERPRET=1 in the
environment before the kernel is defined) runs the same tile IR on the CPU,
one program after another, and checks every load and store against the
extent of its array: a kernel then takes numpy arrays and CPU torch tensors
(used in place) as well as CUDA tensors (copied to the host and back). An
out-of-bounds access raises tilec.Error naming the source line.

The decorated function's source goes to tilec's C++ front end, with the
globals it uses: module-level ints/floats/bools, dtypes, other @jit functions
and the modules tilec/triton(.language). Nothing is compiled until the first
launch or compile; a launch compiles once per specialisation (argument
dtypes, 16-byte alignment of pointers, integers divisible by 16 (or 8) or equal to 1,
constexprs, num_warps, num_stages) and keeps the result in memory. Launches compile for
the GPU they run on (sm_80 on an A100, sm_89 on an RTX 4090, sm_90a on an
H100); `compile()` and `warmup()` take `target=` (one of
`known_targets()`), and without it compile for that same GPU, or for sm_90a
where there is no GPU (`default_target()`).

The extension module tilec._tilec (python/tilec/_binding.cpp) wraps
libtilec.so; it is built by CMake into <build>/python/tilec (next to copies of
these files) or on another host by python/build_extension.sh.
"""
import functools
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import types

from . import language

try:
    from . import _tilec
except ImportError as e:  # pragma: no cover - depends on the build
    raise ImportError(
        "tilec: the extension module tilec._tilec is missing or cannot load "
        f"({e}). Build it with CMake (target tilec-python; then put "
        "<build>/python on PYTHONPATH) or with python/build_extension.sh "
        "against a libtilec.so.") from e

__version__ = "0.1.0"
__all__ = ["jit", "JITFunction", "CompiledKernel", "Error", "CompilationError",
           "cdiv", "next_power_of_2", "cuda_available", "language", "cache",
           "set_recompile_hook", "known_targets", "default_target",
           "reinterpret", "TensorWrapper"]



def _language_dtype(dtype, who):
    name = dtype.name if isinstance(dtype, language.dtype) else str(dtype)
    known = language._DTYPES.get(name) or next(
        (t for t in language._DTYPES.values() if t.long_name == name), None)
    if known is None:
        raise TypeError(f"{who}: unknown dtype {dtype!r}")
    return known


class TensorWrapper:
    """A tensor's memory seen as another element type: kernels receive a
    pointer to `dtype` at `base`'s data. Made by `reinterpret`; any other
    attribute (shape, device, stride) is the base tensor's."""

    __slots__ = ("base", "dtype")

    def __init__(self, base, dtype):
        if isinstance(base, TensorWrapper):
            base = base.base
        self.base = base
        self.dtype = _language_dtype(dtype, "TensorWrapper")

    def data_ptr(self):
        return self.base.data_ptr()

    def __getattr__(self, name):
        return getattr(self.base, name)

    def __repr__(self):
        return f"TensorWrapper({self.dtype!r}, base={self.base!r})"


def reinterpret(tensor, dtype):
    """`tensor`'s memory passed to kernels as elements of `dtype` (a tl
    dtype or its name), as in Triton: e.g. a uint8 array read as
    tl.float8e4nv. Nothing is copied; the element sizes may differ."""
    return TensorWrapper(tensor, _language_dtype(dtype, "reinterpret"))


_tilec.set_language_types(language.constexpr, language.dtype, TensorWrapper)

#: Every failure of tilec: a compile error (its text starts with
#: `file:line:col: error:` and quotes the line), a CUDA error, a bad argument.
Error = _tilec.Error
CompilationError = Error


def cdiv(a, b):
    """ceil(a / b) for host code (grids)."""
    return (a + b - 1) // b


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


#: hook(kernel, path, reasons): called for every compile of a kernel that
#: was compiled before with another key (TILEC_LOG=recompile prints the same).
set_recompile_hook = _tilec.set_recompile_hook

#: The on-disk compile cache (docs/cache.md): cache.dir(), cache.list(),
#: cache.show(key), cache.size(), cache.clear().
cache = types.SimpleNamespace(dir=_tilec.cache_dir, list=_tilec.cache_list,
                              show=_tilec.cache_show, size=_tilec.cache_size,
                              clear=_tilec.cache_clear)

_cuda = None


def known_targets():
    """Every GPU target compile() accepts, oldest first: ['sm_80', 'sm_86', ...]."""
    return [t.strip() for t in _tilec.known_targets().split(",")]


def default_target():
    """The target compile() and warmup() use when given none, the one
    launches compile for: the current GPU's ('sm_80' on an A100, 'sm_89' on
    an RTX 4090, 'sm_90a' on an H100); 'sm_90a' where there is no GPU."""
    return _tilec.default_target()


def cuda_available():
    """(True, '') when a CUDA driver and a GPU are present, else (False, why)."""
    global _cuda
    if _cuda is None:
        _cuda = tuple(_tilec.cuda_available())
    return _cuda


#: Where dedented sources sit in their files: path -> [(first line, last
#: line, indentation)], for the columns of error messages.
_indented = {}
_location = None


def _fix_columns(message):
    """Error columns count from the dedented source; put the indentation of
    nested kernels (and their quoted source lines) back."""
    global _location
    if not _indented:
        return message
    if _location is None:
        import re
        _location = re.compile(r"^(.*?):(\d+):(\d+): (error|note|warning):")
    lines = message.split("\n")
    out = []
    pad = 0
    for text in lines:
        m = _location.match(text)
        if m:
            pad = 0
            for first, last, indent in _indented.get(m.group(1), ()):
                if first <= int(m.group(2)) <= last:
                    pad = indent
            if pad:
                text = (f"{m.group(1)}:{m.group(2)}:{int(m.group(3)) + pad}: "
                        + text[m.end(3) + 2:])
            out.append(text)
        else:
            out.append(" " * pad + text if pad and text else text)
    return "\n".join(out)


_tilec.set_error_hook(_fix_columns)

#: Serialises the first use of @jit functions (source and globals read once).
_init_lock = threading.RLock()
#: @triton.jit functions called from tilec kernels, compiled from their source.
_foreign = {}


def _names_used(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const)
    return names


def _global_spec(name, value):
    """(kind, value) for Library.from_function, or None to leave the name out."""
    if isinstance(value, JITFunction):
        return ("kernel", value._kernel())
    if isinstance(value, types.ModuleType):
        mod = value.__name__
        if mod in ("tilec.language", "triton.language"):
            return ("module", "tl")
        return ("module", mod)
    if isinstance(value, language.constexpr):
        return _global_spec(name, value.value)
    if isinstance(value, (bool, int, float, str)):
        return ("const", value)
    if isinstance(value, language.dtype):
        return ("const", value.name)
    cls = type(value)
    if cls.__name__ == "dtype" and cls.__module__.startswith("triton") and hasattr(value, "name"):
        return ("const", value.name)  # triton.language.float16 and friends
    builtin = getattr(value, "_tilec_builtin", None)
    if isinstance(builtin, str):
        return ("builtin", builtin)
    module = getattr(value, "__module__", "") or ""
    if callable(value) and module.startswith("triton.language.extra") and \
            getattr(value, "__name__", name) in ("gdc_wait", "gdc_launch_dependents"):
        return ("builtin", "extra.cuda." + value.__name__)  # triton's extra.cuda.gdc
    if callable(value) and module.startswith("triton.language.extra") and \
            module.endswith(".libdevice"):
        return ("builtin", "libdevice." + getattr(value, "__name__", name))
    if callable(value) and module.startswith("triton.language"):
        return ("builtin", getattr(value, "__name__", name))
    if cls.__name__ == "JITFunction" and hasattr(value, "fn"):  # a @triton.jit helper
        helper = _foreign.get(id(value))
        if helper is None:
            helper = _foreign[id(value)] = (value, JITFunction(value.fn))
        return ("kernel", helper[1]._kernel())
    # Anything else cannot be used in a kernel; if the kernel does use it,
    # the error names what it is.
    return ("module", f"{name} (a Python {cls.__name__})")


class CompiledKernel:
    """One specialisation of a kernel, compiled: `.asm` holds every stage."""

    def __init__(self, fn, compiled, signature, constexprs):
        self.fn = fn
        self.name = fn.__name__
        self.signature = signature
        self.constexprs = dict(constexprs)
        self.num_warps = compiled.num_warps
        #: Software-pipeline depth it was compiled with (launch's num_stages).
        self.num_stages = compiled.num_stages
        #: Its register cap (PTX .maxnreg), None when it has none.
        self.maxnreg = compiled.maxnreg or None
        #: Compiled with debug=True: assertions and bounds checks (its PTX
        #: then takes one i64 extent per pointer after the arguments).
        self.debug = compiled.debug
        #: Compiled with deterministic=True: checked for batch invariance
        #: (docs/determinism.md).
        self.deterministic = compiled.deterministic
        #: The GPU target of the PTX ("sm_90a", "sm_80").
        self.target = compiled.target
        self.shared = compiled.shared_bytes
        #: The TMA tensor maps the kernel takes after its arguments, one
        #: line each (compiler/TensorMap.h), which launches encode from
        #: the arguments; empty for most kernels.
        self.tensor_maps = list(compiled.tensor_maps)
        self.compile_ms = compiled.compile_ms
        #: True when read from the disk cache (docs/cache.md) instead of compiled.
        self.from_cache = compiled.from_cache
        self.cache_key = compiled.cache_key
        self._compiled = compiled
        self._asm = None
        self._params = None   # the kernel's [(name, is_constexpr, has_default)]
        self._runtime = None  # its runtime parameters' names

    @property
    def asm(self):
        """{'tile', 'tilegpu', 'llir', 'ptx'} text, plus 'cubin' (bytes) when a
        GPU that can run the target is present and 'sass' (read on first use)
        when cuobjdump is found."""
        if self._asm is None:
            c = self._compiled
            asm = _Asm(tile=c.tile, tilegpu=c.tilegpu, llir=c.llir, ptx=c.ptx)
            if cuda_available()[0] and _tilec.target_runs_on_gpu(self.target):
                asm["cubin"] = c.cubin()
            self._asm = asm
        return self._asm

    @property
    def metadata(self):
        """What was compiled, by key or attribute (`metadata.shared`, as in
        Triton): name, signature, constexprs, num_warps, num_stages,
        num_ctas (1: one CTA per program), cluster_dims ((N, 1, 1) for a kernel
        with tl.range(..., num_ctas=N), else (1, 1, 1)), maxnreg, debug,
        deterministic, shared (bytes), target."""
        return _Metadata(name=self.name, signature=self.signature,
                         constexprs=self.constexprs, num_warps=self.num_warps,
                         num_stages=self.num_stages, num_ctas=1,
                         cluster_dims=(self._compiled.cluster_size, 1, 1), maxnreg=self.maxnreg,
                         debug=self.debug, deterministic=self.deterministic,
                         shared=self.shared, target=self.target)

    def max_active_clusters(self):
        """How many of its clusters (metadata.cluster_dims[0] programs each;
        1 for a kernel without clusters) the current GPU runs at once,
        given its block and shared memory (cuOccupancyMaxActiveClusters):
        what a persistent grid in clusters should not exceed. Loads the
        machine code; sm_90 or newer."""
        return self._compiled.max_active_clusters()

    def _init_handles(self):
        """Load the machine code on the current GPU, as a first launch does,
        so that n_regs and n_spills are known (Triton's name). Needs a GPU
        that runs self.target."""
        self._compiled.load()

    @property
    def n_regs(self):
        """Registers per thread of the machine code (loads it on the GPU
        first if no launch has)."""
        if self._compiled.num_registers < 0:
            self._init_handles()
        return self._compiled.num_registers

    @property
    def n_spills(self):
        """Registers spilled per thread: local memory bytes / 4, as Triton
        counts them (loads the machine code first if no launch has)."""
        if self._compiled.spill_bytes < 0:
            self._init_handles()
        return self._compiled.spill_bytes // 4

    @property
    def jit_log(self):
        """What the CUDA driver's compiler reports assembling the PTX for
        this GPU: registers, spills, and warnings such as ptxas's C7515
        (wgmma serialised), which the driver and the toolkit's ptxas do
        not always agree on. Needs a GPU that runs self.target."""
        return self._compiled.jit_log()

    def summary(self):
        """What a reader of the PTX looks for first, one line each."""
        return _tilec.summarize_ptx(self._compiled.ptx)

    def __getitem__(self, grid):
        """`compiled[grid](*args, stream=None, launch_pdl=False)` launches this specialisation
        with no further compile, as Triton's CompiledKernel does. args are
        every parameter in order (constexprs must then equal the compiled
        values) or only the runtime ones. Each is checked against the
        signature: its dtype, `:16` alignment or divisibility, `:8`, `:1`; a
        failure raises tilec.Error naming the argument, launching nothing."""
        if self._params is None:
            self._params = (self.fn._launcher or self.fn._init()).kernel.parameters
            self._runtime = [p[0] for p in self._params if not p[1]]
        params, runtime_names = self._params, self._runtime

        def launch(*args, stream=None, launch_pdl=False):
            if len(args) == len(params) and len(params) != len(runtime_names):
                given = []
                for (name, is_constexpr, _), value in zip(params, args):
                    if not is_constexpr:
                        given.append(value)
                        continue
                    value = getattr(value, "value", value)
                    value = getattr(value, "name", value)  # a dtype
                    compiled = self.constexprs.get(name, self.fn._defaults.get(name, value))
                    if not (value == compiled or str(value) == str(compiled)):
                        raise Error(f"cannot launch kernel '{self.name}': constexpr "
                                    f"'{name}' is {value!r}, and this compile has "
                                    f"{compiled!r}")
                args = given
            elif len(args) != len(runtime_names):
                raise TypeError(f"{self.name}: this compile takes its {len(runtime_names)} "
                                f"runtime arguments ({', '.join(runtime_names)}) or all "
                                f"{len(params)} parameters, got {len(args)}")
            g = grid
            if callable(g):
                g = g({**dict(zip(runtime_names, args)), **self.constexprs,
                       "num_warps": self.num_warps, "num_stages": self.num_stages})
            self._compiled.launch(g, tuple(args), runtime_names, stream, bool(launch_pdl))
        return launch

    def __repr__(self):
        return (f"<tilec.CompiledKernel {self.name} [{self.signature}] "
                f"{self.constexprs} num_warps={self.num_warps}>")


class _Metadata(dict):
    """A dict whose keys read as attributes too (Triton's metadata is a
    named tuple; tilec's was a dict)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"compiled kernel metadata has no {name!r}") from None


class _Asm(dict):
    """The stages of a compiled kernel; 'sass' disassembles the cubin with
    cuobjdump on first use."""

    def __missing__(self, key):
        if key == "sass" and "cubin" in self:
            sass = _disassemble(self["cubin"])
            if sass is not None:
                self["sass"] = sass
                return sass
        raise KeyError(key)


def _disassemble(cubin):
    tool = shutil.which("cuobjdump") or (
        "/usr/local/cuda/bin/cuobjdump" if os.path.exists("/usr/local/cuda/bin/cuobjdump") else None)
    if tool is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        r = subprocess.run([tool, "--dump-sass", f.name], capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else None


class JITFunction:
    """A @tilec.jit function: launch it with `fn[grid](*args, **kwargs)`,
    compile it without a GPU with `fn.compile(signature, **constexprs)` or
    `fn.warmup(*args, **constexprs)`."""

    def __init__(self, fn, *, interpret=None, do_not_specialize=None,
                 do_not_specialize_on_alignment=None, debug=None, deterministic=False,
                 noinline=None, version=None, repr=None, launch_metadata=None):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError("tilec.jit decorates Python functions")
        self.fn = fn
        # interpret=True (or TILEC_INTERPRET=1 in the environment) runs
        # launches in tilec's CPU interpreter.
        if interpret is None:
            interpret = os.environ.get("TILEC_INTERPRET", "0") not in ("", "0")
        self.interpret = bool(interpret)
        # debug=True (or TILEC_DEBUG=1, as Triton's TRITON_DEBUG): runtime
        # assertions checked, loads and stores checked against their buffers.
        if debug is None:
            debug = os.environ.get("TILEC_DEBUG", "0") not in ("", "0")
        self.debug = bool(debug)
        # deterministic=True: every compile is checked for batch invariance
        # (no float atomics, no float sum split by the grid or a runtime
        # value; docs/determinism.md). A launch's deterministic= overrides.
        self.deterministic = bool(deterministic)
        # Triton's options tilec cannot honour are refused, never ignored.
        for option, value, why in (
                ("noinline", noinline, "tilec inlines every @jit helper"),
                ("version", version, "it has no meaning in tilec"),
                ("repr", repr, "kernels are named after their function"),
                ("launch_metadata", launch_metadata, "tilec has no launch hooks")):
            if value:
                raise ValueError(f"@tilec.jit({option}={value!r}) is not supported: {why}")
        functools.update_wrapper(self, fn)
        params = inspect.signature(fn).parameters
        self.arg_names = list(params)
        # Arguments not specialised on: no `:16`/`:8`/`:1` (do_not_specialize)
        # or no `:16`/`:8` (..._on_alignment), as in Triton: {name: "none"|"alignment"}.
        self._unspecialized = {}
        for option, names, facts in (
                ("do_not_specialize_on_alignment", do_not_specialize_on_alignment,
                 "alignment"),
                ("do_not_specialize", do_not_specialize, "none")):
            for p in names or ():
                name = self.arg_names[p] if isinstance(p, int) else p
                if name not in params:
                    raise ValueError(f"@tilec.jit: {p!r} in {option} is not a "
                                     f"parameter of '{fn.__name__}' ({self.arg_names})")
                self._unspecialized[name] = facts
        self._defaults = {n: p.default for n, p in params.items()
                          if p.default is not inspect.Parameter.empty}
        self._launcher = None
        self._handle = None  # self._launcher.launch_handle: [grid] without pybind11
        self._initializing = False
        self._last_compiled = None  # the last compile()/warmup() result
        self._last_compiled_at = 0  # launcher.launches at that time
        self._launched = None       # (specialisation, CompiledKernel) of the last launch

    # -- first use: source and globals to the C++ front end -----------------

    def _source(self):
        fn = self.fn
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise Error(f"cannot read the source of @jit function '{fn.__name__}' "
                        f"({e}); tilec compiles kernels from their source file") from e
        path = inspect.getsourcefile(fn) or fn.__code__.co_filename
        text = "".join(lines)
        source = textwrap.dedent(text)
        indent = len(text) - len(text.lstrip(" \t")) if source != text else 0
        if indent:
            _indented.setdefault(path, []).append(
                (first_line, first_line + len(lines) - 1, indent))
        return source, path, first_line

    def _globals(self):
        fn = self.fn
        used = _names_used(fn.__code__)
        g = fn.__globals__
        out = {}
        for name in used:
            if name in g and name != fn.__name__:
                spec = _global_spec(name, g[name])
                if spec is not None:
                    out[name] = spec
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                spec = _global_spec(name, value)
                if spec is not None:
                    out[name] = spec
        return out

    def _parameters(self):
        """[(name, is_constexpr, has_default)] from the signature, as the
        front end reads the annotations (`tl.constexpr`, `constexpr`)."""
        out = []
        for name, p in inspect.signature(self.fn).parameters.items():
            a = p.annotation
            if isinstance(a, str):
                is_constexpr = a.split(".")[-1] == "constexpr"
            else:
                is_constexpr = (a is language.constexpr
                                or getattr(a, "__name__", "") == "constexpr")
            out.append((name, is_constexpr, p.default is not inspect.Parameter.empty))
        return out

    def _init(self):
        with _init_lock:
            if self._launcher is not None:
                return self._launcher
            if self._initializing:
                raise Error(f"@jit function '{self.__name__}' calls itself through "
                            "other @jit functions; recursion is not supported")
            self._initializing = True
            try:
                source, path, first_line = self._source()
                # Parsed only when a specialisation must be compiled: a
                # launch the disk cache serves never parses the source.
                lib = _tilec.Library.from_function(source, path, first_line,
                                                   self._globals(), self.fn.__name__,
                                                   self._parameters())
                kernel = lib.kernel(self.fn.__name__)
                launcher = _tilec.Launcher(kernel, self._defaults, self.interpret,
                                           self._unspecialized, self.debug,
                                           self.deterministic)
                # (for launches given TensorDescriptors: tensor_descriptor.py)
                launcher.owner = tensor_descriptor._Owner(self)
                # Both set together, or neither (a failure here is raised
                # again by the next launch, not half remembered).
                self._handle = launcher.launch_handle
                self._launcher = launcher
            finally:
                self._initializing = False
            return self._launcher

    def _kernel(self):
        return (self._launcher or self._init()).kernel

    # -- launching ------------------------------------------------------------

    def __getitem__(self, grid):
        handle = self._handle
        if handle is None:
            self._init()
            handle = self._handle
        return handle[grid]

    def run(self, *args, grid, **kwargs):
        """Launch on `grid` (Triton's JITFunction.run)."""
        (self._launcher or self._init()).run(grid, *args, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"@jit function '{self.__name__}' cannot be called from Python: launch it "
            f"with {self.__name__}[grid](...) or call it from another @jit function")

    # -- compiling without launching -------------------------------------------

    def compile(self, signature, *, num_warps=None, num_stages=None, target=None,
                maxnreg=None, debug=None, deterministic=None, constexprs=None, **kwargs):
        """Compile for `signature` ("*fp32:16,*fp32,i32", or a list of entries,
        one per non-constexpr parameter) and the constexprs given by keyword.
        Needs no GPU. `target` is one of known_targets() ("sm_80", "sm_90a",
        ...); None compiles for default_target(): the current GPU's, what a
        launch there compiles (and shares with it), else sm_90a. An unknown
        target raises tilec.Error listing the known ones. `num_stages` as
        for a launch (software-pipeline depth of loops feeding tl.dot);
        `maxnreg` caps the registers per thread (PTX .maxnreg, 16 to 255);
        `debug` (None: the @jit's) compiles runtime assertions and bounds
        checks in; `deterministic` (None: the @jit's) checks the kernel for
        batch invariance. Returns a CompiledKernel."""
        if isinstance(signature, (list, tuple)):
            signature = ",".join(signature)
        values = dict(constexprs or {})
        values.update(kwargs)
        launcher = self._launcher or self._init()
        # A constexpr parameter named num_warps / num_stages takes the
        # option's value when given, as a launch passes it to both.
        for name, given in (("num_warps", num_warps), ("num_stages", num_stages)):
            if given is not None and name not in values and any(
                    p[0] == name and p[1] for p in launcher.kernel.parameters):
                values[name] = given
        num_warps = 4 if num_warps is None else num_warps
        num_stages = 3 if num_stages is None else num_stages
        compiled = launcher.kernel.compile(signature, values, num_warps, target,
                                           num_stages, maxnreg or 0,
                                           self.debug if debug is None else bool(debug),
                                           self.deterministic if deterministic is None
                                           else bool(deterministic))
        result = CompiledKernel(self, compiled, signature, values)
        self._last_compiled = result
        self._last_compiled_at = launcher.launches
        return result

    def warmup(self, *args, grid=None, num_warps=None, num_stages=None, target=None,
               maxnreg=None, debug=None, deterministic=None, **kwargs):
        """Compile what `fn[grid](*args, **kwargs)` would launch, without
        launching: args may be real arguments (tensors, ints) or signature
        entries ("*fp16:16"), or one full signature string. `target` as for
        compile(): by default the current GPU's, so that the launch finds
        this compile."""
        launcher = self._launcher or self._init()
        n_runtime = sum(1 for p in launcher.kernel.parameters if not p[1])
        if (len(args) == 1 and isinstance(args[0], str)
                and ("," in args[0] or n_runtime != 1)):
            return self.compile(args[0], num_warps=num_warps, num_stages=num_stages,
                                target=target, maxnreg=maxnreg, debug=debug,
                                deterministic=deterministic, **kwargs)
        # num_warps / num_stages only when given: a kernel parameter of that
        # name (Triton's softmax tutorial has `num_stages: tl.constexpr`)
        # takes the value as well, and must not take a default it was not given.
        if num_warps is not None:
            kwargs["num_warps"] = num_warps
        if num_stages is not None:
            kwargs["num_stages"] = num_stages
        (signature, constexprs, num_warps, num_stages, maxnreg, debug,
         deterministic) = launcher.specialize(
            *args, maxnreg=maxnreg, debug=debug, deterministic=deterministic, **kwargs)
        return self.compile(signature, num_warps=num_warps, num_stages=num_stages,
                            target=target, maxnreg=maxnreg, debug=debug,
                            deterministic=deterministic, constexprs=constexprs)

    @property
    def asm(self):
        """The stages of the most recent compile or launch of this kernel;
        after a launch, of the variant launched: compiled for the GPU's own
        target (default_target())."""
        launcher = self._launcher
        if launcher is not None and launcher.launches > self._last_compiled_at:
            spec = launcher.last_specialization()
            target = _tilec.default_target()
            if self._launched is None or self._launched[0] != (spec, target):
                (signature, constexprs, num_warps, num_stages, maxnreg, debug,
                 deterministic) = spec
                compiled = launcher.kernel.compile(signature, constexprs, num_warps,
                                                   target, num_stages, maxnreg, debug,
                                                   deterministic)
                self._launched = ((spec, target),
                                  CompiledKernel(self, compiled, signature, constexprs))
            return self._launched[1].asm
        if self._last_compiled is None:
            raise RuntimeError(f"@jit function '{self.__name__}' has not been compiled "
                               "or launched yet")
        return self._last_compiled.asm

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"


def jit(fn=None, **options):
    """Decorator: `@tilec.jit` or `@tilec.jit(**options)` makes a JITFunction
    (its options: interpret, debug, deterministic, do_not_specialize,
    do_not_specialize_on_alignment;
    Triton's others are refused with a ValueError, unknown ones are a
    TypeError)."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)


from .autotuner import Autotuner, Config, autotune  # noqa: E402  (needs JITFunction)
from .heuristics import Heuristics, heuristics  # noqa: E402  (needs JITFunction)
from . import testing  # noqa: E402
from . import runtime  # noqa: E402
from . import tensor_descriptor  # noqa: E402
from .tensor_descriptor import TensorDescriptor  # noqa: E402


def _tools_module():
    """`tilec.tools.tensor_descriptor`, as Triton's
    `triton.tools.tensor_descriptor`, importable by name."""
    tools = types.ModuleType(__name__ + ".tools", "Triton's triton.tools: tensor_descriptor.")
    tools.tensor_descriptor = tensor_descriptor
    sys.modules[tools.__name__] = tools
    sys.modules[tools.__name__ + ".tensor_descriptor"] = tensor_descriptor
    return tools


tools = _tools_module()
_tilec.set_descriptor_hook(TensorDescriptor, tensor_descriptor._launch)

__all__ += ["Autotuner", "Config", "autotune", "Heuristics", "heuristics",
            "TensorDescriptor"]
