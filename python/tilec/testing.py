"""Benchmarking helpers with Triton's names and conventions:
`do_bench(fn)` times a callable on the GPU, and `perf_report(benchmarks)`
with `Benchmark(...)` runs a function over a grid of arguments and
reports (a table, a CSV, a plot when matplotlib is installed), so that
Triton's tutorials port by changing the import.

`do_bench` needs torch with CUDA: it times with CUDA events on torch's
current stream and empties the L2 before every repetition by writing a
256 MB buffer, as Triton's does.
"""
import math
import os
import statistics

__all__ = ["do_bench", "Benchmark", "Mark", "perf_report"]

_RETURN_MODES = ("min", "max", "mean", "median", "all")


def _summarise(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        out = []
        for q in quantiles:
            if not 0 <= q <= 1:
                raise ValueError(f"do_bench: quantiles must lie in [0, 1], got {q}")
            # Linear interpolation between closest ranks, as torch.quantile.
            pos = q * (len(ordered) - 1)
            lo = math.floor(pos)
            hi = min(lo + 1, len(ordered) - 1)
            out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return list(times)
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median}[return_mode](times)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
             return_mode="mean"):
    """Milliseconds one call of `fn()` takes on the GPU.

    `fn` runs for about `warmup` ms first, then about `rep` ms of
    repetitions are timed one by one with CUDA events, the L2 cache emptied
    before each. Returns their mean (or `return_mode`: "min", "max",
    "median", "all" for the list), or the `quantiles` of the times.
    `grad_to_none` (tensors) have their .grad reset before each call.
    """
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"do_bench: return_mode must be one of {_RETURN_MODES}, "
                         f"got {return_mode!r}")
    if warmup < 0 or rep <= 0:
        raise ValueError("do_bench: warmup must be >= 0 and rep > 0 (milliseconds)")
    try:
        import torch
    except ImportError as e:
        raise RuntimeError("tilec.testing.do_bench needs torch with CUDA") from e
    if not torch.cuda.is_available():
        raise RuntimeError("tilec.testing.do_bench needs a CUDA device (torch sees none)")

    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    # Estimate one call's time from five, to size the loops.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarise(times, quantiles, return_mode)


class Benchmark:
    """One report of `perf_report`: the function runs at every value of
    `x_vals` (bound to each name of `x_names`) and, for each value of
    `line_vals` (bound to `line_arg`), gives one line of the report,
    named by `line_names`. `args` are passed to every call. A call may
    return one number or three (the value and its min and max)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names=None,
                 plot_name="", args=None, xlabel="", ylabel="", x_log=False,
                 y_log=False, styles=None, color=None):
        if isinstance(x_names, str):
            x_names = [x_names]
        if not x_names:
            raise ValueError("Benchmark: x_names must name at least one argument")
        line_vals = list(line_vals)
        line_names = list(line_names) if line_names is not None else [str(v) for v in line_vals]
        if len(line_names) != len(line_vals):
            raise ValueError(f"Benchmark: {len(line_vals)} line_vals but "
                             f"{len(line_names)} line_names")
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.plot_name = plot_name
        self.args = dict(args or {})
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles
        self.color = color


class Mark:
    """A function decorated by `perf_report`: `.run()` measures and reports."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _rows(self, bench, **kwargs):
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xs) != len(bench.x_names):
                raise ValueError(f"Benchmark: x value {x!r} does not match x_names "
                                 f"{bench.x_names}")
            x_args = dict(zip(bench.x_names, xs))
            row = [xs[0]] if len(bench.x_names) == 1 else list(xs)
            for line in bench.line_vals:
                result = self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs)
                value = result[0] if isinstance(result, (list, tuple)) else result
                row.append(float(value))
            rows.append(row)
        return rows

    def _report(self, bench, rows, show_plots, print_data, save_path):
        header = (bench.x_names if len(bench.x_names) > 1 else [bench.x_names[0]]) + \
            list(bench.line_names)
        if print_data:
            name = bench.plot_name or self.fn.__name__
            print(f"{name}:")
            widths = [max(len(h), 12) for h in header]
            print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
            for row in rows:
                print("  ".join(f"{v:{w}.6g}" if isinstance(v, float) else str(v).rjust(w)
                                for v, w in zip(row, widths)))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            stem = os.path.join(save_path, bench.plot_name or self.fn.__name__)
            with open(stem + ".csv", "w") as f:
                f.write(",".join(header) + "\n")
                for row in rows:
                    f.write(",".join(str(v) for v in row) + "\n")
        if show_plots or save_path:
            self._plot(bench, rows, show_plots, save_path)

    def _plot(self, bench, rows, show_plots, save_path):
        try:
            import matplotlib
            if not show_plots:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return  # the table and the CSV still report
        fig, ax = plt.subplots()
        xs = [row[0] for row in rows]
        first = len(bench.x_names)
        for i, name in enumerate(bench.line_names):
            style = bench.styles[i] if bench.styles else None
            kwargs = {"color": style[0], "linestyle": style[1]} if style else {}
            ax.plot(xs, [row[first + i] for row in rows], label=name, **kwargs)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        if bench.x_log:
            ax.set_xscale("log")
        if bench.y_log:
            ax.set_yscale("log")
        if bench.plot_name:
            ax.set_title(bench.plot_name)
        if save_path:
            fig.savefig(os.path.join(save_path, (bench.plot_name or self.fn.__name__) + ".png"))
        if show_plots:
            plt.show()
        plt.close(fig)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False,
            **kwargs):
        """Measure every benchmark and report it. With return_df=True, the
        results come back as lists of rows (a pandas DataFrame each when
        pandas is installed, as in Triton)."""
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        results = []
        for bench in benches:
            rows = self._rows(bench, **kwargs)
            self._report(bench, rows, show_plots, print_data, save_path)
            results.append((bench, rows))
        if not return_df:
            return None
        frames = []
        for bench, rows in results:
            header = list(bench.x_names if len(bench.x_names) > 1 else bench.x_names[:1]) + \
                list(bench.line_names)
            try:
                import pandas
                frames.append(pandas.DataFrame(rows, columns=header))
            except ImportError:
                frames.append([header] + rows)
        return frames[0] if len(frames) == 1 else frames


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` (or a list of them) turns
    the benchmark function into a Mark whose `.run()` measures and reports."""
    return lambda fn: Mark(fn, benchmarks)
