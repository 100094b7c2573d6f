"""tl.inline_asm_elementwise (issue 17): compiled on the CPU (the PTX holds
the user's asm once per `pack` registers), refused by the interpreter with
a located error, and run on the GPU against numpy: a plain 32-bit
instruction, four u8 packed into one register with two results, fp16
pairs, a scalar broadcast against a tile, masked tails."""
import re

import numpy as np
import pytest

import tilec

import inline_asm_kernels as k


def test_ptx_holds_the_asm_per_pack_of_registers():
    c = k.widen_and_max.compile("*u8:16,*fp32:16,*i32:16,*fp32:16", target="sm_90a",
                                BLOCK=1024)
    # 1024 elements on 4 warps: 8 per thread, pack 4: two invocations.
    assert c.asm["ptx"].count("mov.b32 {byte0, byte1, byte2, byte3}") == 2
    c = k.shift_left_3.compile("*i32:16,*i32:16,i32", target="sm_80", BLOCK=256)
    # 256 elements on 4 warps: 2 per thread, pack 1: two invocations.
    assert len(re.findall(r"shl\.b32 %r\d+, %r\d+, 3;", c.asm["ptx"])) == 2


def test_interpreter_refuses_it_at_the_line():
    fn = tilec.JITFunction(k.shift_left_3.fn, interpret=True)
    x = np.arange(8, dtype=np.int32)
    with pytest.raises(tilec.Error, match=r"inline_asm_kernels.py:\d+:\d+: error: "
                                          r"tl.inline_asm_elementwise runs PTX"):
        fn[(1,)](x, np.zeros_like(x), 8, BLOCK=8)


@pytest.mark.gpu
def test_gpu_shift_left_with_a_masked_tail(torch_cuda):
    torch = torch_cuda
    n = 1000
    x = torch.randint(-2**20, 2**20, (n,), dtype=torch.int32, device="cuda")
    y = torch.full_like(x, -1)
    k.shift_left_3[(tilec.cdiv(n, 256),)](x, y, n, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(y, x * 8)


@pytest.mark.gpu
def test_gpu_packed_bytes_and_two_results(torch_cuda):
    torch = torch_cuda
    a = torch.randint(0, 256, (1024,), dtype=torch.uint8, device="cuda")
    b = torch.randn(1024, device="cuda") * 200
    c = torch.full((1024,), -1, dtype=torch.int32, device="cuda")
    d = torch.full((1024,), float("nan"), device="cuda")
    k.widen_and_max[(1,)](a, b, c, d, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(c, a.to(torch.int32))
    assert torch.equal(d, torch.maximum(a.to(torch.float32), b))


@pytest.mark.gpu
def test_gpu_fp16_pairs_and_a_scalar(torch_cuda):
    torch = torch_cuda
    x = torch.randn(512, device="cuda").half()
    y = torch.empty_like(x)
    k.double_halves[(1,)](x, y, BLOCK=512)
    xi = torch.arange(512, dtype=torch.int32, device="cuda")
    yi = torch.empty_like(xi)
    k.add_scalar[(1,)](xi, yi, 77, BLOCK=512)
    torch.cuda.synchronize()
    assert torch.equal(y, x + x)
    assert torch.equal(yi, xi + 77)
