"""@tilec.heuristics: constexprs computed from a launch's arguments, as
Triton's @triton.heuristics.

    @tilec.heuristics(values={"BLOCK": lambda args: tilec.next_power_of_2(args["n"]),
                              "EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @tilec.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr): ...

    kernel[grid](x, n)

Each function gets every argument of the launch by name (defaults
included, and the values computed before it, in the order given) and its
result is passed as that keyword, replacing one given by the caller, as in
Triton. The names must be tl.constexpr parameters. @tilec.autotune goes
above it (its configs' values are in `args` too, as Triton's are)."""


class Heuristics:
    """A @tilec.jit function whose launches compute some keywords first
    (tilec.heuristics)."""

    def __init__(self, fn, values):
        from . import JITFunction  # the package imports this module first
        if not isinstance(fn, JITFunction):
            raise TypeError("tilec.heuristics decorates a @tilec.jit function (put "
                            "@tilec.heuristics above @tilec.jit, and @tilec.autotune "
                            "above both)")
        if not isinstance(values, dict) or not values:
            raise TypeError("tilec.heuristics(values=...) takes a dict of parameter "
                            "names to functions of the arguments")
        constexprs = [name for name, is_constexpr, _ in fn._parameters() if is_constexpr]
        for name, value in values.items():
            if name not in constexprs:
                raise ValueError(f"heuristics value '{name}' is not a tl.constexpr "
                                 f"parameter of '{fn.__name__}' ({constexprs})")
            if not callable(value):
                raise TypeError(f"heuristics value '{name}' must be a function of the "
                                f"arguments, got {value!r}")
        self.fn = fn
        self.values = dict(values)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def values_for(self, named):
        """The computed keywords for the arguments `named` (by name), each
        function seeing those computed before it."""
        named = dict(named)
        out = {}
        for name, value in self.values.items():
            out[name] = named[name] = value(named)
        return out

    def _kwargs(self, args, kwargs):
        named = dict(self.fn._defaults)
        named.update(zip(self.fn.arg_names, args))
        named.update(kwargs)
        return {**kwargs, **self.values_for(named)}

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.fn[grid](*args, **self._kwargs(args, kwargs))

    def run(self, *args, grid, **kwargs):
        """Launch on `grid` (Triton's Heuristics.run)."""
        self.fn.run(*args, grid=grid, **self._kwargs(args, kwargs))

    def warmup(self, *args, **kwargs):
        """Compile what `fn[grid](*args, **kwargs)` would launch (see
        JITFunction.warmup), with the computed keywords."""
        return self.fn.warmup(*args, **self._kwargs(args, kwargs))

    def __getattr__(self, name):
        # compile(), asm, arg_names, ...: the @jit function's.
        if name == "fn":  # (not set yet: __init__ failed)
            raise AttributeError(name)
        return getattr(self.fn, name)

    def __repr__(self):
        return f"Heuristics({self.fn!r}, values={list(self.values)})"


def heuristics(values):
    """Decorator: `@tilec.heuristics(values={name: fn(args)})` above
    `@tilec.jit` computes those keywords from each launch's arguments."""
    return lambda fn: Heuristics(fn, values)
