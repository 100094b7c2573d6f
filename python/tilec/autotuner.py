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
"""
import os

from . import _tilec


class Config:
    """One candidate: constexpr values (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = int(num_warps)
        self.num_stages = int(num_stages)
        self.num_ctas = num_ctas
        self.pre_hook = pre_hook

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}

    def __repr__(self):
        parts = [f"{k}={v!r}" for k, v in self.kwargs.items()]
        parts += [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"]
        return "Config(" + ", ".join(parts) + ")"

    def __eq__(self, other):
        return isinstance(other, Config) and self.all_kwargs() == other.all_kwargs()

    def __hash__(self):
        return hash(tuple(sorted(self.all_kwargs().items())))


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
                 reset_to_zero=None, restore_value=None, progress=True):
        from . import JITFunction  # the package imports this module first
        if not isinstance(fn, JITFunction):
            raise TypeError("tilec.autotune decorates a @tilec.jit function "
                            "(put @tilec.autotune above @tilec.jit)")
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
        self.reset_to_zero = reset_to_zero or []
        self.cache = {}          # key values -> Config, this process
        self.best_config = None  # of the last launch
        self.report = None       # of the last tuning run
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def _named(self, args, kwargs):
        named = dict(zip(self.fn.arg_names, args))
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
            est = [(self.perf_model(**named, **c.all_kwargs()), i) for i, c in enumerate(configs)]
            keep = sorted(est)[:top_k]
            configs = [configs[i] for _, i in sorted(keep, key=lambda t: t[1])]
        if not configs:
            raise ValueError(f"autotune '{self.__name__}': pruning left no config")
        return configs

    def _tune(self, grid, args, kwargs, force=False, bytes=None, flops=None, configs=None):
        named = self._named(args, kwargs)
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
        native_configs = [({**fixed, **c.kwargs}, c.num_warps, c.num_stages) for c in configs]
        bind_kwargs = dict(kwargs)
        bind_kwargs.update(configs[0].kwargs)
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
        native = launcher.tune(native_configs, grids, tuple(args), bind_kwargs, options)
        report = Report(native, configs)
        self.report = report
        return report

    def run(self, *args, grid, **kwargs):
        named = self._named(args, kwargs)
        key = tuple(_key_text(named.get(k)) for k in self.key)
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
                               **kwargs, **c.kwargs)
                for c in self.configs]

    def __repr__(self):
        return f"Autotuner({self.fn!r}, {len(self.configs)} configs, key={self.key})"


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             warmup=25, rep=100, progress=True, **ignored):
    """Decorator: @tilec.autotune(configs=[...], key=[...]) over @tilec.jit."""
    def decorate(fn):
        return Autotuner(fn, configs, key, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, progress=progress)
    return decorate
