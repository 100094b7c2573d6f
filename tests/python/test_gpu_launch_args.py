"""Bad launch arguments on the GPU (issue 16): memory the GPU cannot reach,
empty tensors, zero grids, and a CompiledKernel launched with arguments
that break its signature are refused by name, and nothing runs; the same
CompiledKernel launched with good arguments computes what the JIT does.
The CPU side is test_launch_args.py."""
import numpy as np
import pytest

import tilec

import vector_add  # kernels/vector_add.py

pytestmark = pytest.mark.gpu


class HostAddress:
    """A pageable host buffer presented as GPU memory."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str,
            "data": (array.ctypes.data, False), "version": 3}


def vectors(torch, n=4096):
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    out = torch.full((n,), -7.0, device="cuda")
    return x, y, out


def test_pageable_host_memory_is_refused(torch_cuda):
    x, y, out = vectors(torch_cuda)
    host = HostAddress(np.ones(4096, np.float32))
    with pytest.raises(tilec.Error, match="argument 'x_ptr' \\(0x[0-9a-f]+\\) is not memory "
                                          "the GPU can reach"):
        vector_add.add[(4,)](host, y, out, 4096, BLOCK=1024)
    torch_cuda.cuda.synchronize()
    assert (out == -7.0).all()


def test_cpu_tensor_is_refused(torch_cuda):
    x, y, out = vectors(torch_cuda)
    with pytest.raises(TypeError, match="argument 'y_ptr' is a tensor in host memory"):
        vector_add.add[(4,)](x, y.cpu(), out, 4096, BLOCK=1024)


def test_empty_tensor_and_zero_grid(torch_cuda):
    x, y, out = vectors(torch_cuda)
    empty = torch_cuda.empty(0, device="cuda")
    assert empty.data_ptr() == 0
    with pytest.raises(tilec.Error, match="argument 'x_ptr' is a null pointer"):
        vector_add.add[(1,)](empty, y, out, 0, BLOCK=1024)
    with pytest.raises(tilec.Error, match="grid x is 0"):
        vector_add.add[(0,)](x, y, out, 4096, BLOCK=1024)
    torch_cuda.cuda.synchronize()
    assert (out == -7.0).all()


def test_tensor_on_another_gpu_is_refused(torch_cuda):
    if torch_cuda.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    x, y, out = vectors(torch_cuda)
    vector_add.add[(4,)](x, y, out, 4096, BLOCK=1024)  # loads the kernel on GPU 0
    other = y.to("cuda:1")
    with pytest.raises(tilec.Error, match="argument 'y_ptr' is memory of GPU 1, and the "
                                          "kernel runs on GPU 0"):
        vector_add.add[(4,)](x, other, out, 4096, BLOCK=1024)


def test_compiled_kernel_launches(torch_cuda):
    n = 4001  # not a multiple of 16: the compile has no `:16` on n
    x, y, out = vectors(torch_cuda, n)
    k = vector_add.add.warmup(x, y, out, n, BLOCK=256)
    assert k.signature == "*fp32:16,*fp32:16,*fp32:16,i32"
    k[(tilec.cdiv(n, 256),)](x, y, out, n)
    torch_cuda.cuda.synchronize()
    expected = (x.double() + y.double()).float()
    assert torch_cuda.equal(out, expected)
    # Every parameter, the constexpr included, and a grid function.
    out.fill_(-7.0)
    k[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, out, n, 256,
                                                    stream=torch_cuda.cuda.current_stream())
    torch_cuda.cuda.synchronize()
    assert torch_cuda.equal(out, expected)


def test_compiled_kernel_refuses_what_breaks_its_signature(torch_cuda):
    n = 4096
    x, y, out = vectors(torch_cuda, n)
    k = vector_add.add.warmup(x, y, out, n, BLOCK=256)
    assert k.signature == "*fp32:16,*fp32:16,*fp32:16,i32:16"
    cases = [
        ((x[1:], y[1:], out[1:], n - 16), "argument 'x_ptr' \\(0x[0-9a-f]+\\) is not "
                                          "16-byte aligned"),
        ((x.half(), y, out, n), "argument 'x_ptr' is a pointer to fp16, and this "
                                "compile takes \\*fp32:16"),
        ((x, y, out, n - 1), "argument 'n' is 4095, not divisible by 16"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.Error, match=message):
            k[(16,)](*args)
    torch_cuda.cuda.synchronize()
    assert (out == -7.0).all()
    # The JIT launch of the misaligned views compiles a specialisation
    # without `:16` instead, and is right.
    vector_add.add[(16,)](x[1:], y[1:], out[1:], n - 1, BLOCK=256)
    torch_cuda.cuda.synchronize()
    assert torch_cuda.equal(out[1:], (x[1:].double() + y[1:].double()).float())


class ClaimsDevice:
    """Torch-like (data_ptr, dtype, is_cuda) around a CUDA tensor, whose
    get_device() says what it is told to; without one, the launch asks the
    driver."""

    def __init__(self, tensor, *device):
        self.tensor, self.dtype, self.is_cuda = tensor, tensor.dtype, True
        if device:
            self.get_device = lambda: device[0]

    def data_ptr(self):
        return self.tensor.data_ptr()


def test_a_tensors_claimed_device_is_believed_only_for_this_gpu(torch_cuda):
    """The launcher takes a tensor's get_device() at its word when it names
    the kernel's GPU (no driver query: issue 15's launch cost); any other
    claim (another GPU, a GPU torch does not have, not an int) is asked of
    the driver, which says where the memory is: these launches all run."""
    x, y, out = vectors(torch_cuda)
    here = torch_cuda.cuda.current_device()
    assert x.get_device() == here
    want = x + y
    for first, second in [(x, ClaimsDevice(y, here + 1)),
                          (ClaimsDevice(x, here + 7), y),  # torch's stream: asked anew
                          (ClaimsDevice(x, "cuda"), y),
                          (x, ClaimsDevice(y)),
                          (ClaimsDevice(x, here), y)]:
        out.fill_(-7.0)
        vector_add.add[(4,)](first, second, out, 4096, BLOCK=1024)
        torch_cuda.cuda.synchronize()
        assert torch_cuda.equal(out, want)
