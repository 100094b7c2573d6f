"""tilec.testing's perf_report and Benchmark without a GPU (a made-up
timing function), and do_bench's argument checks; test_gpu_testing.py
times real kernels."""
import os

import pytest

import tilec
from tilec import testing


def test_perf_report_runs_the_grid_and_reports(tmp_path, capsys):
    calls = []

    @testing.perf_report(testing.Benchmark(
        x_names=["size"], x_vals=[16, 32, 64], line_arg="provider",
        line_vals=["tilec", "torch"], line_names=["tilec", "PyTorch"],
        plot_name="made-up", args={"scale": 2}, ylabel="GB/s"))
    def bench(size, provider, scale):
        calls.append((size, provider, scale))
        value = size * scale + (1 if provider == "torch" else 0)
        return (value, value - 1, value + 1) if provider == "torch" else value

    rows = bench.run(print_data=True, save_path=str(tmp_path), return_df=True)
    assert calls == [(16, "tilec", 2), (16, "torch", 2), (32, "tilec", 2),
                     (32, "torch", 2), (64, "tilec", 2), (64, "torch", 2)]
    table = rows.values.tolist() if hasattr(rows, "values") else rows[1:]
    assert [list(map(float, r)) for r in table] == [[16, 32, 33], [32, 64, 65], [64, 128, 129]]
    out = capsys.readouterr().out
    assert "made-up:" in out and "PyTorch" in out and "129" in out
    csv = (tmp_path / "made-up.csv").read_text().splitlines()
    assert csv[0] == "size,tilec,PyTorch" and csv[-1] == "64,128.0,129.0"


def test_several_x_names_share_each_value():
    seen = []

    @testing.perf_report([testing.Benchmark(x_names=["m", "n"], x_vals=[8, (2, 3)],
                                            line_arg="p", line_vals=[1])])
    def bench(m, n, p):
        seen.append((m, n))
        return m * n

    bench.run()
    assert seen == [(8, 8), (2, 3)]


def test_benchmark_errors():
    with pytest.raises(ValueError, match="line_names"):
        testing.Benchmark(x_names=["x"], x_vals=[1], line_arg="p", line_vals=[1, 2],
                          line_names=["one"])
    with pytest.raises(ValueError, match="x_names"):
        testing.Benchmark(x_names=[], x_vals=[1], line_arg="p", line_vals=[1])


def test_do_bench_checks_its_arguments():
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench(lambda: None, return_mode="average")
    with pytest.raises(ValueError, match="rep > 0"):
        testing.do_bench(lambda: None, rep=0)


def test_summaries():
    times = [4.0, 1.0, 3.0, 2.0]
    assert testing._summarise(times, None, "min") == 1.0
    assert testing._summarise(times, None, "median") == 2.5
    assert testing._summarise(times, None, "mean") == 2.5
    assert testing._summarise(times, [0.5], "mean") == 2.5
    assert testing._summarise(times, [0.0, 1.0], "mean") == [1.0, 4.0]
    assert tilec.next_power_of_2(1000) == 1024 and tilec.next_power_of_2(1) == 1
