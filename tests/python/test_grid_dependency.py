"""Programmatic dependent launch (Triton's launch_pdl): tl.extra.cuda.gdc_wait
and gdc_launch_dependents compile to griddepcontrol on sm_90+, to nothing
before and in the interpreter; a launch with launch_pdl=True on the GPU
starts while the kernel ahead of it runs and still reads what that kernel
wrote, eagerly and replayed from a CUDA graph."""
import re

import numpy as np
import pytest

import tilec

import grid_dependency_kernels as k

SIG = "*i32:16,*i32:16,i32"


def test_ptx_holds_griddepcontrol_on_sm_90_only():
    ptx = k.add_after.compile(SIG, target="sm_90a", BLOCK=256).asm["ptx"]
    # In program order: release the next kernel, then wait before the load.
    order = re.findall(r"griddepcontrol\.\w+|ld\.global", ptx)
    assert order[:2] == ["griddepcontrol.launch_dependents", "griddepcontrol.wait"]
    assert len(order) > 2 and set(order[2:]) == {"ld.global"}
    assert "griddepcontrol" not in k.add_after.compile(SIG, target="sm_80", BLOCK=256).asm["ptx"]


def test_tile_ir_names_the_ops():
    tile = k.add_after.compile(SIG, target="sm_80", BLOCK=256).asm["tile"]
    assert "tile.launch_dependents" in tile and "tile.grid_dependency_wait" in tile


def test_bad_calls_are_located_errors():
    with pytest.raises(tilec.Error, match=r"grid_dependency_kernels.py:\d+:\d+: error: "
                                          r"tl.extra.cuda.gdc_wait\(\) takes at most 0 "
                                          r"arguments, got 1"):
        k.wait_with_an_argument.compile("*i32:16", target="sm_90a")
    with pytest.raises(tilec.Error, match=r"grid_dependency_kernels.py:\d+:\d+: error: "
                                          r"tl.extra.cuda has no attribute 'gdc_sleep'"):
        k.unknown_extra.compile("*i32:16", target="sm_90a")


def test_imported_by_name_they_compile_the_same():
    ptx = k.imported_by_name.compile("*i32:16,*i32:16,i32", target="sm_90a",
                                     BLOCK=256).asm["ptx"]
    assert re.findall(r"griddepcontrol\.\w+", ptx) == ["griddepcontrol.launch_dependents",
                                                        "griddepcontrol.wait"]


def test_interpreter_runs_them_as_nothing():
    fill = tilec.JITFunction(k.slow_fill.fn, interpret=True)
    add = tilec.JITFunction(k.add_after.fn, interpret=True)
    n = 300
    x = np.zeros(n, dtype=np.int32)
    out = np.zeros(n, dtype=np.int32)
    fill[(tilec.cdiv(n, 128),)](x, n, 3, BLOCK=128)
    add[(tilec.cdiv(n, 128),)](x, out, n, BLOCK=128, launch_pdl=True)
    np.testing.assert_array_equal(out, (np.arange(n) + 3) * 2 + 1)


@pytest.mark.gpu
def test_gpu_dependent_launch_reads_what_the_kernel_before_wrote(torch_cuda):
    # slow_fill takes many dependent round trips to memory; add_after,
    # launched with launch_pdl right behind it, is placed while it runs and
    # must still read its final values. Eager launches, then the same pair
    # captured in a CUDA graph (the programmatic edge kept) and replayed.
    torch = torch_cuda
    n, rounds = 1 << 16, 64
    x = torch.zeros(n, dtype=torch.int32, device="cuda")
    out = torch.zeros_like(x)
    want = (torch.arange(n, dtype=torch.int32, device="cuda") + rounds) * 2 + 1
    grid = (tilec.cdiv(n, 256),)
    for _ in range(3):
        out.zero_()
        k.slow_fill[grid](x, n, rounds, BLOCK=256)
        k.add_after[grid](x, out, n, BLOCK=256, launch_pdl=True)
        torch.cuda.synchronize()
        assert torch.equal(out, want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        k.slow_fill[grid](x, n, rounds, BLOCK=256)
        k.add_after[grid](x, out, n, BLOCK=256, launch_pdl=True)
    for _ in range(3):
        out.zero_()
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, want)


@pytest.mark.gpu
def test_gpu_launch_pdl_overlaps_the_kernel_before(torch_cuda):
    # The evidence that launch_pdl took effect: a kernel that does not wait,
    # launched that way behind slow_fill (which releases it at once), reads
    # x before slow_fill has finished, in at least one of a few tries;
    # launched plainly it never does.
    torch = torch_cuda
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("programmatic dependent launch needs sm_90+")
    n, rounds = 1 << 16, 256
    x = torch.zeros(n, dtype=torch.int32, device="cuda")
    out = torch.zeros_like(x)
    final = torch.arange(n, dtype=torch.int32, device="cuda") + rounds
    grid = (tilec.cdiv(n, 256),)
    k.slow_fill[grid](x, n, rounds, BLOCK=256)
    k.copy_without_waiting[grid](x, out, n, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(out, final)  # plain launches: in order
    early = False
    for _ in range(5):
        k.slow_fill[grid](x, n, rounds, BLOCK=256)
        k.copy_without_waiting[grid](x, out, n, BLOCK=256, launch_pdl=True)
        torch.cuda.synchronize()
        early |= not torch.equal(out, final)
    assert early, "launch_pdl never let the second kernel start before the first ended"
