"""Runs Triton's own tutorials, unmodified, under tilec.

For the run, `import triton` (and triton.language, triton.runtime,
triton.testing) resolve to tilec's modules of the same names: what a user
gets by changing the import. The tutorials are Triton's and stay out of
this repository: tools/fetch-triton-tutorials.sh puts them in
build/triton-tutorials (TILEC_TRITON_TUTORIALS names another directory).

A run returns the tutorial's globals, so that a test can call its
functions (add, softmax, seeded_dropout, layer_norm) again on inputs of its
own and compare them with float64.
"""
import contextlib
import importlib.util
import os
import runpy
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: Short name → the tutorial's file name in Triton's python/tutorials.
TUTORIALS = {
    "vector_add": "01-vector-add.py",
    "softmax": "02-fused-softmax.py",
    "dropout": "04-low-memory-dropout.py",
    "layer_norm": "05-layer-norm.py",
}


def directory():
    """Where the tutorials are looked for."""
    return os.environ.get("TILEC_TRITON_TUTORIALS",
                          os.path.join(ROOT, "build", "triton-tutorials"))


def path_of(name):
    """The tutorial's path, or None when it has not been fetched."""
    path = os.path.join(directory(), TUTORIALS[name])
    return path if os.path.isfile(path) else None


def _plain_tabulate():
    """A stand-in for the `tabulate` package (the dropout tutorial prints its
    tables with it) where it is not installed: rows as text, nothing more."""
    module = types.ModuleType("tabulate")

    def tabulate(rows, *args, **kwargs):
        return "\n".join("  ".join(str(cell) for cell in row) for row in rows)

    module.tabulate = tabulate
    return module


@contextlib.contextmanager
def triton_is_tilec():
    """Within: `import triton...` gives tilec's modules."""
    import tilec
    import tilec.language
    import tilec.runtime
    import tilec.testing
    alias = {"triton": tilec, "triton.language": tilec.language,
             "triton.runtime": tilec.runtime, "triton.testing": tilec.testing,
             "triton.tools": tilec.tools,
             "triton.tools.tensor_descriptor": tilec.tensor_descriptor}
    if importlib.util.find_spec("tabulate") is None:
        alias["tabulate"] = _plain_tabulate()
    saved = {name: sys.modules.get(name) for name in alias}
    sys.modules.update(alias)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def run(name, workdir):
    """Runs the tutorial as a script (its tests, prints and benchmarks, with
    plots written but not shown) in `workdir`; returns its globals."""
    path = path_of(name)
    if path is None:
        raise FileNotFoundError(f"{TUTORIALS[name]} is not in {directory()}: run "
                                "tools/fetch-triton-tutorials.sh")
    return run_path(path, workdir)


def run_path(path, workdir):
    """Runs the Triton script at `path` as __main__ in `workdir`, `import
    triton` giving tilec; returns its globals."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    here = os.getcwd()
    os.chdir(workdir)
    try:
        with triton_is_tilec():
            return runpy.run_path(path, run_name="__main__")
    finally:
        os.chdir(here)


if __name__ == "__main__":
    # python3 tests/python/triton_tutorials.py softmax: one tutorial, here.
    for tutorial in sys.argv[1:] or list(TUTORIALS):
        print(f"== {TUTORIALS[tutorial]}", flush=True)
        run(tutorial, os.getcwd())
