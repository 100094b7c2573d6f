"""tl.extra.cuda.prefetch_l2(pointer, count): one bulk L2 prefetch of the
range by one thread on sm_90+, nothing before sm_90; in the interpreter a
range checked against its argument like a load's; located errors for what
it does not take; on the GPU, used before gdc_wait under launch_pdl, the
same results."""
import re

import numpy as np
import pytest

import tilec

import grid_dependency_kernels as k
from matmul_reference import assert_assembles

SIG = "*fp32:16,*fp32:16,*fp32:16,i32"


def test_ptx_prefetches_before_the_wait_on_sm_90_only(tmp_path):
    ptx = k.scale_prefetched.compile(SIG, target="sm_90a", AHEAD=512, BLOCK=256).asm["ptx"]
    order = re.findall(r"cp\.async\.bulk\.prefetch\.L2\.global|griddepcontrol\.wait|ld\.global",
                       ptx)
    assert order[:2] == ["cp.async.bulk.prefetch.L2.global", "griddepcontrol.wait"]
    assert set(order[2:]) == {"ld.global"}
    # Issued by one thread, under a predicate.
    assert re.search(r"@%p\d+ cp\.async\.bulk\.prefetch\.L2\.global \[%rd\d+\], %r\d+;", ptx)
    assert_assembles(ptx, "sm_90a", tmp_path)
    old = k.scale_prefetched.compile(SIG, target="sm_80", AHEAD=512, BLOCK=256).asm["ptx"]
    assert "cp.async.bulk" not in old and "prefetch." not in old


def test_tile_ir_names_the_op():
    tile = k.scale_prefetched.compile(SIG, target="sm_80", AHEAD=512, BLOCK=256).asm["tile"]
    assert re.search(r"tile\.prefetch_l2 %\S+, %\S+ : !tile\.ptr<f32>", tile)


def test_imported_by_name_it_compiles_the_same():
    ptx = k.prefetch_imported_by_name.compile("*bf16:16,i32", target="sm_90a").asm["ptx"]
    assert ptx.count("cp.async.bulk.prefetch.L2.global") == 1


@pytest.mark.parametrize("kernel, sig, message", [
    (k.prefetch_of_a_tile, "*fp32:16",
     r"tl.extra.cuda.prefetch_l2 takes one pointer \(a scalar: the range's first element\), "
     r"got a tensor"),
    (k.prefetch_of_a_float_count, "*fp32:16",
     r"tl.extra.cuda.prefetch_l2's count \(elements from the pointer on\) must be an integer "
     r"scalar, got"),
    (k.prefetch_without_a_count, "*fp32:16",
     r"tl.extra.cuda.prefetch_l2\(\) missing required argument 'count'"),
])
def test_bad_calls_are_located_errors(kernel, sig, message):
    constexprs = {"BLOCK": 64} if kernel is k.prefetch_of_a_tile else {}
    with pytest.raises(tilec.Error, match=r"grid_dependency_kernels.py:\d+:\d+: error: " + message):
        kernel.compile(sig, target="sm_90a", **constexprs)


def test_unknown_cuda_extras_list_what_there_is():
    with pytest.raises(tilec.Error, match=r"tl.extra.cuda has no attribute 'gdc_sleep' usable "
                                          r"in a kernel \(tilec has libdevice, .*prefetch_l2"):
        k.unknown_extra.compile("*i32:16", target="sm_90a")


def _interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def test_interpreter_computes_the_same_and_checks_the_range():
    scale = _interpreted(k.scale_prefetched)
    n = 300
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    # AHEAD 256 stays inside w (the last program asks for n - start); so
    # does a count <= 0, which asks for nothing.
    scale[(tilec.cdiv(n, 128),)](x, w, out, n, AHEAD=256, BLOCK=128)
    np.testing.assert_array_equal(out, x * w)
    out[:] = 0
    scale[(tilec.cdiv(n, 128),)](x, w, out, n - 400, AHEAD=256, BLOCK=128)
    np.testing.assert_array_equal(out, np.zeros(n, dtype=np.float32))
    # Past w's end: the same error as a load's.
    with pytest.raises(tilec.Error, match=r"out-of-bounds prefetch_l2 of 1024 bytes at offset "
                                          r"512 of argument 'w_ptr' \(1200 bytes\)"):
        scale[(tilec.cdiv(n, 128),)](x, w, out, n + 1000, AHEAD=256, BLOCK=128)


@pytest.mark.gpu
def test_gpu_prefetched_kernel_after_a_dependent_launch_reads_the_final_values(torch_cuda):
    # scale_prefetched asks for w before its wait and reads x (which
    # slow_fill writes) after it: launched with launch_pdl right behind
    # slow_fill, eagerly and from a CUDA graph, every output is the final
    # x times w.
    torch = torch_cuda
    n, rounds = 1 << 16, 64
    x = torch.zeros(n, dtype=torch.int32, device="cuda")
    w = torch.randn(n, device="cuda")
    out = torch.zeros(n, device="cuda")
    grid = (tilec.cdiv(n, 256),)
    want = (torch.arange(n, device="cuda") + rounds).float() * w
    xf = torch.empty(n, device="cuda")

    def step():
        k.slow_fill[grid](x, n, rounds, BLOCK=256)
        k.to_float[grid](x, xf, n, BLOCK=256, launch_pdl=True)
        k.scale_prefetched[grid](xf, w, out, n, AHEAD=4096, BLOCK=256, launch_pdl=True)

    for _ in range(3):
        out.zero_()
        step()
        torch.cuda.synchronize()
        assert torch.equal(out, want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for _ in range(3):
        out.zero_()
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, want)
