"""The autotuner: @tilec.autotune over a @tilec.jit kernel (docs/autotune.md).

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 1024}, num_warps=4),
                             tilec.Config({"BLOCK": 4096}, num_warps=8)],
                    key=["n"])
    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...

    add[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, out, n)

The first launch for each value of the key tunes: the configs are compiled
in parallel threads by tilec's C++ runtime and timed on the GPU (CUDA
events, median of repeats, L2 flushed before each), each compiled for the
GPU's own target as a launch is. Every result is kept in the autotuning
database next to the disk cache, per config, keyed by the kernel's source
digest, the argument types, the key values, the GPU and the target: a new
process picks the stored best without timing anything, and editing one
config re-times only that one. Configs that fail to compile or launch are
reported and skipped. Tuning never runs while the stream is being captured
into a CUDA graph (an error then; launch once before capturing).

In-place kernels tune safely: `restore_value=[names]` copies those
arguments before the first timed launch and puts them back after every
one, so the caller's data is as it was when the real launch runs;
`reset_to_zero=[names]` zeroes those arguments before every launch tuning
makes, and once more when tuning ends (an accumulator starts the real
launch at zero). `pre_hook(nargs)` and `post_hook(nargs, exception)`
replace those two defaults, as in Triton; a Config's own `pre_hook(nargs)`
runs before each of its launches, tuning or not. The hooks run between
launches, outside the timed interval. Options tilec cannot honour
(`use_cuda_graph=True`, `do_bench=`) are refused with a ValueError, and an
unknown keyword is a TypeError.
"""
import os

from . import _tilec


class Config:
    """One candidate: constexpr values (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = int(num_warps)
        self.num_stages = int(num_stages)
        if num_ctas != 1:
            raise ValueError(f"Config(num_ctas={num_ctas!r}): tilec launches one CTA per "
                             "program (clusters of programs come from tl.range(..., "
                             "warp_specialize=True, num_ctas=N) in the kernel)")
        self.num_ctas = 1
        self.maxnreg = None if maxnreg is None else int(maxnreg)
        self.pre_hook = pre_hook

    def all_kwargs(self):
        out = {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.maxnreg is not None:
            out["maxnreg"] = self.maxnreg
        return out

    def __repr__(self):
        parts = [f"{k}={v!r}" for k, v in self.kwargs.items()]
        parts += [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"]
        if self.maxnreg is not None:
            parts.append(f"maxnreg={self.maxnreg}")
        return "Config(" + ", ".join(parts) + ")"

    def __eq__(self, other):
        return isinstance(other, Config) and self.all_kwargs() == other.all_kwargs()

    def __hash__(self):
        return hash(tuple(sorted(self.all_kwargs().items())))


def _zero(value, name):
    if hasattr(value, "zero_"):
        value.zero_()
    elif hasattr(value, "fill"):
        value.fill(0)
    else:
        raise TypeError(f"autotune reset_to_zero: argument '{name}' is a "
                        f"{type(value).__name__}, which has neither zero_() nor fill()")


def _snapshot(value, name):
    if hasattr(value, "clone"):
        return value.clone()
    if hasattr(value, "copy"):
        return value.copy()
    raise TypeError(f"autotune restore_value: argument '{name}' is a "
                    f"{type(value).__name__}, which has neither clone() nor copy()")


def _restore(value, saved):
    if hasattr(value, "copy_"):
        value.copy_(saved)
    else:
        value[...] = saved


def _key_text(value):
    """How a key argument enters the database key: numbers by value,
    tensors by dtype and shape."""
    if isinstance(value, (bool, int, float, str)):
        return repr(value)
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dtype is not None:
        return f"{dtype}{tuple(shape) if shape is not None else ''}"
    return type(value).__name__


class Report:
    """The table of one tuning run: .results (dicts), .best (a Config or
    None), .table(), .csv(), .json(), .svg(), .write(prefix)."""

    def __init__(self, native, configs):
        self._native = native
        self.configs = configs
        self.results = native.results
        self.best = configs[native.best] if native.best >= 0 else None
        self.reused = native.reused
        self.gpu = native.gpu
        #: The target every config was compiled for: the GPU's ("sm_90a").
        self.target = native.target
        self.key = native.key
        #: The configs dropped because they need more shared memory per
        #: block than the GPU holds (never launched; their "shared_bytes"
        #: in .results is the need).
        self.dropped = [c for c, r in zip(configs, self.results)
                        if r["dropped_for_shared_memory"]]

    def table(self):
        return self._native.table()

    def csv(self):
        return self._native.csv()

    def json(self):
        return self._native.json()

    def svg(self):
        return self._native.svg()

    def write(self, prefix):
        """Writes PREFIX.csv, PREFIX.json and PREFIX.svg; returns the paths."""
        os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
        paths = []
        for ext, text in (("csv", self.csv()), ("json", self.json()), ("svg", self.svg())):
            path = f"{prefix}.{ext}"
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        return paths

    def __str__(self):
        return self.table()


class Autotuner:
    """A @tilec.jit kernel with configs to choose from; launch it like the
    kernel, without the tuned constexprs and num_warps."""

    def __init__(self, fn, configs, key, prune_configs_by=None, warmup=25, rep=100,
                 reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
                 cache_results=None, progress=True):
        from . import JITFunction  # the package imports this module first
        from .heuristics import Heuristics
        if not isinstance(fn, (JITFunction, Heuristics)):
            raise TypeError("tilec.autotune decorates a @tilec.jit function "
                            "(put @tilec.autotune above @tilec.jit, and above "
                            "@tilec.heuristics)")
        if not configs:
            raise ValueError("tilec.autotune needs at least one Config")
        self.fn = fn
        self.configs = list(configs)
        self.key = list(key)
        unknown = [k for k in self.key if k not in fn.arg_names]
        if unknown:
            raise ValueError(f"autotune key names {unknown} are not parameters of "
                             f"'{fn.__name__}' ({fn.arg_names})")
        prune = prune_configs_by or {}
        self.early_config_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k")
        self.warmup = warmup
        self.rep = rep
        self.progress = progress
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for option, names in (("reset_to_zero", self.reset_to_zero),
                              ("restore_value", self.restore_value)):
            unknown = [n for n in names if n not in fn.arg_names]
            if unknown:
                raise ValueError(f"autotune {option} names {unknown} are not parameters "
                                 f"of '{fn.__name__}' ({fn.arg_names})")
        self.pre_hook = pre_hook
        self.post_hook = post_hook
        #: False: time every config and store nothing (the database is on
        #: by default, unlike Triton's cache_results).
        self.use_database = cache_results is not False
        self.cache = {}          # key values -> Config, this process
        self.best_config = None  # of the last launch
        self.report = None       # of the last tuning run
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def _named(self, args, kwargs):
        """Every parameter's value by name: the arguments given, then the
        defaults of the rest."""
        named = dict(self.fn._defaults)
        named.update(zip(self.fn.arg_names, args))
        named.update(kwargs)
        return named

    def _pruned(self, named):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, named))
        if self.perf_model and self.top_k:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            est = [(self.perf_model(**{**named, **c.all_kwargs()}), i) for i, c in enumerate(configs)]
            keep = sorted(est)[:top_k]
            configs = [configs[i] for _, i in sorted(keep, key=lambda t: t[1])]
        if not configs:
            raise ValueError(f"autotune '{self.__name__}': pruning left no config")
        return configs

    def _tune(self, grid, args, kwargs, force=False, bytes=None, flops=None, configs=None):
        named = self._named(args, kwargs)
        from .tensor_descriptor import TensorDescriptor
        for name, value in named.items():
            if isinstance(value, TensorDescriptor):
                raise TypeError(f"autotune '{self.__name__}': argument '{name}' is a "
                                "TensorDescriptor, which autotuning does not take yet "
                                "(make the descriptor in the kernel with "
                                "tl.make_tensor_descriptor)")
        configs = configs or self._pruned(named)
        launcher = self.fn._launcher or self.fn._init()
        grids = []
        for c in configs:
            if callable(grid):
                meta = dict(named)
                meta.update(c.all_kwargs())
                g = grid(meta)
            else:
                g = grid
            grids.append(tuple(g) if isinstance(g, (tuple, list)) else (g,))
        constexpr_names = {p[0] for p in launcher.kernel.parameters if p[1]}
        fixed = {k: v for k, v in kwargs.items() if k in constexpr_names}

        def constexprs(c):
            # (Under @tilec.heuristics, its values for this config too.)
            values = {**fixed, **c.kwargs}
            if hasattr(self.fn, "values_for"):
                values.update(self.fn.values_for({**named, **c.all_kwargs()}))
            return values

        native_configs = [(constexprs(c), c.num_warps, c.num_stages, c.maxnreg)
                          for c in configs]
        bind_kwargs = dict(kwargs)
        bind_kwargs.update(native_configs[0][0])
        options = {"warmup": float(self.warmup), "rep": float(self.rep), "force": force,
                   "progress": self.progress,
                   "key": ", ".join(f"{k}={_key_text(named.get(k))}" for k in self.key)}
        if bytes:
            options["bytes"] = float(bytes)
        if flops:
            options["flops"] = float(flops)
        stream = bind_kwargs.pop("stream", None)
        if stream is not None:
            bind_kwargs["stream"] = stream
        options["database"] = self.use_database
        state = {"saved": None, "launched": False, "nargs": None}
        hooked = (self.pre_hook or self.post_hook or self.reset_to_zero or self.restore_value
                  or any(c.pre_hook for c in configs))
        if hooked:
            options["before"] = lambda i: self._before(configs[i], named, state)
            options["after"] = lambda i, error: self._after(state, error)
        try:
            native = launcher.tune(native_configs, grids, tuple(args), bind_kwargs, options)
        finally:
            if state["saved"] is not None:  # also after a failed hook
                for name, saved in state["saved"].items():
                    _restore(named[name], saved)
            if state["launched"] and not self.pre_hook:
                for name in self.reset_to_zero:
                    _zero(named[name], name)
        report = Report(native, configs)
        self.report = report
        return report

    def _before(self, config, named, state):
        """Before each launch tuning makes: the config's pre_hook, then the
        autotuner's (or the default: zero reset_to_zero, and keep copies of
        restore_value before the first launch)."""
        nargs = {**named, **config.all_kwargs()}
        state["nargs"] = nargs
        state["launched"] = True
        if config.pre_hook:
            config.pre_hook(nargs)
        if self.pre_hook:
            self.pre_hook(nargs)
            return
        for name in self.reset_to_zero:
            _zero(named[name], name)
        if self.restore_value and state["saved"] is None:
            state["saved"] = {name: _snapshot(named[name], name) for name in self.restore_value}

    def _after(self, state, error):
        """After each launch tuning makes (`error`: why it failed, else
        None): the autotuner's post_hook, or the default: put
        restore_value's copies back."""
        if self.post_hook:
            self.post_hook(state["nargs"],
                           exception=None if error is None else _tilec.Error(error))
            return
        if state["saved"] is not None:
            for name, saved in state["saved"].items():
                _restore(state["nargs"][name], saved)

    def run(self, *args, grid, **kwargs):
        named = self._named(args, kwargs)
        key = tuple(_key_text(named.get(k)) for k in self.key)
        # A debug compile is timed with its checks, and a deterministic one
        # may refuse configs: each tuned apart.
        for option in ("debug", "deterministic"):
            value = kwargs.get(option)
            key += (bool(getattr(self.fn, option, False) if value is None else value),)
        config = self.cache.get(key)
        if config is None:
            report = self._tune(grid, args, kwargs)
            if report.best is None:
                raise _tilec.Error(f"autotune '{self.__name__}': every config failed\n"
                                   + report.table())
            config = self.cache[key] = report.best
        self.best_config = config
        if config.pre_hook:
            config.pre_hook({**named, **config.all_kwargs()})
        call_kwargs = dict(kwargs)
        call_kwargs.update(config.kwargs)
        call_kwargs["num_warps"] = config.num_warps
        call_kwargs["num_stages"] = config.num_stages
        if config.maxnreg is not None:
            call_kwargs["maxnreg"] = config.maxnreg
        self.fn[grid](*args, **call_kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def sweep(self, grid, *args, bytes=None, flops=None, configs=None, **kwargs):
        """Time every config (ignoring stored results, then updating them)
        and return the Report; `bytes`/`flops` per launch add GB/s and
        TFLOP/s columns."""
        configs = list(configs) if configs is not None else self._pruned(self._named(args, kwargs))
        return self._tune(grid, args, kwargs, force=True, bytes=bytes, flops=flops,
                          configs=configs)

    def warmup_compile(self, *args, **kwargs):
        return [self.fn.warmup(*args, num_warps=c.num_warps, num_stages=c.num_stages,
                               maxnreg=c.maxnreg, **kwargs, **c.kwargs)
                for c in self.configs]

    def __repr__(self):
        return f"Autotuner({self.fn!r}, {len(self.configs)} configs, key={self.key})"


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=25, rep=100, use_cuda_graph=False,
             do_bench=None, cache_results=None, progress=True):
    """Decorator: @tilec.autotune(configs=[...], key=[...]) over @tilec.jit.
    Triton's keywords; see the module's text for the hooks."""
    if use_cuda_graph:
        raise ValueError("autotune(use_cuda_graph=True) is not supported: tilec times "
                         "each launch with CUDA events (warmup=, rep=)")
    if do_bench is not None:
        raise ValueError("autotune(do_bench=...) is not supported: tilec times configs "
                         "itself (CUDA events, L2 flushed, median of repeats)")

    def decorate(fn):
        return Autotuner(fn, configs, key, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, cache_results=cache_results,
                         progress=progress)
    return decorate
