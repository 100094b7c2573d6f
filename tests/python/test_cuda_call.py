"""tl.cuda_device_call (issue 17): CUDA C++ device functions compiled with
NVRTC and called from a kernel. On the CPU: the PTX holds NVRTC's
definitions instead of the kernel's declarations and assembles with
ptxas; NVRTC's errors, a function the source does not define and bad
arguments are located errors; the interpreter refuses the call at its
line. On the GPU: the calls against numpy and float64."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import tilec

import cuda_call_kernels as k


def nvrtc_available():
    try:
        k.cube_masked.compile("*fp32:16,*fp32:16,i32", target="sm_90a", BLOCK=128)
        return True
    except tilec.Error as e:
        if "NVRTC" in str(e) and "not found" in str(e):
            return False
        raise


needs_nvrtc = pytest.mark.skipif(not nvrtc_available(), reason="no NVRTC on this machine")


def assembles(ptx, tmp_path, arch="sm_90a"):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([ptxas, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@needs_nvrtc
def test_ptx_defines_the_functions_and_assembles(tmp_path):
    c = k.mixed_types.compile("*i32:16,*i32:16,*i32:16,i64", target="sm_90a", BLOCK=256)
    ptx = c.asm["ptx"]
    assert ".visible .func  (.param .b32 func_retval0) mix(" in ptx
    assert ".extern .func" not in ptx  # the declaration gave way to the definition
    assert "call.uni" in ptx and "mix," in ptx
    assembles(ptx, tmp_path)


@needs_nvrtc
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
def test_half_double_and_scalar_calls_assemble(tmp_path, target):
    # __half travels as 2 bytes on both sides; double and scalars too.
    for kernel, signature, consts in [
            (k.half_axpy, "*fp16:16,*fp16:16,*fp16:16", dict(BLOCK=512)),
            (k.scalar_poly, "*fp64:16,fp32", {}),
            (k.cube_masked, "*fp32:16,*fp32:16,i32", dict(BLOCK=256))]:
        assembles(kernel.compile(signature, target=target, **consts).asm["ptx"], tmp_path,
                  target)


@needs_nvrtc
@pytest.mark.parametrize("kernel,signature,message", [
    (k.missing_function, "*fp32",
     r"cuda_call_kernels.py:\d+:\d+: error: the CUDA sources define no device function "
     r"'square' \(it must be declared extern \"C\" __device__\)"),
    (k.half_axpy_number, "*fp16",
     r"cuda_call_kernels.py:\d+:\d+: error: argument 1 of 'axpy_half' takes 2 bytes, but the "
     r"call passes 'f32' \(4\); convert it \(numbers pass as int32 or fp32\)"),
    (k.broken_source, "*fp32", r"(?s)cuda_call_kernels.py:\d+:\d+: error: NVRTC could not "
                               r"compile the CUDA device functions.*identifier \"y\" is "
                               r"undefined"),
])
def test_nvrtc_errors(kernel, signature, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile(signature)


@needs_nvrtc
@pytest.mark.parametrize("kernel,signature,messages", [
    (k.int_into_float, "*i32", [
        r"cuda_call_kernels.py:\d+:\d+: error: argument 1 of 'scale' is 'i32', but that "
        r"parameter is not an integer; convert it to the parameter's type",
        r"cuda_call_kernels.py:\d+:\d+: error: 'scale' does not return an integer, but the "
        r"call's dtype is 'i32'"]),
    (k.float_into_int, "*fp32", [
        r"error: argument 1 of 'twice' is 'f32', but that parameter is not a float or double",
        r"error: 'twice' does not return a float or double, but the call's dtype is 'f32'"]),
    (k.half_into_bfloat16, "*fp16", [
        r"error: argument 1 of 'bf16_identity' is 'f16', but that parameter is not a __half",
        r"error: 'bf16_identity' does not return a __half, but the call's dtype is 'f16'"]),
])
def test_kinds_of_the_same_size_are_checked(kernel, signature, messages):
    # The PTX declares every 4-byte parameter .b32: NVRTC checks the
    # function's C++ type against what the call passes.
    with pytest.raises(tilec.Error) as error:
        kernel.compile(signature)
    for message in messages:
        assert re.search(message, str(error.value)), str(error.value)


@needs_nvrtc
def test_kinds_that_fit_compile(tmp_path):
    # float → unsigned int taken as int32 (integers of one size are one kind),
    # bf16 → __nv_bfloat16.
    assembles(k.kinds_that_fit.compile("*fp32:16,*i32:16").asm["ptx"], tmp_path)


@needs_nvrtc
def test_libdevice_internals_of_both_modules_do_not_clash(tmp_path):
    # Both define libdevice's sin slow path and its tables: NVRTC's copies
    # are renamed, so the module assembles.
    ptx = k.sine_twice.compile("*fp64:16,*fp64:16").asm["ptx"]
    assert "__internal_trig_reduction_slowpathd_nvrtc" in ptx
    assembles(ptx, tmp_path)


@needs_nvrtc
def test_a_function_the_kind_check_cannot_name_still_compiles(tmp_path):
    # extern "C" inside a namespace: no ::nested for the probe; no error.
    assembles(k.nested_call.compile("*fp32:16").asm["ptx"], tmp_path)


@needs_nvrtc
def test_checks_follow_each_compile_of_one_source():
    # One source and call, two signatures: NVRTC's result is shared, each
    # compile's check is its own (an int32 where 8 bytes are taken, then an
    # int64 that fits, then the int32 again).
    with pytest.raises(tilec.Error, match=r"argument 1 of 'halve' takes 8 bytes, but the call "
                                          r"passes 'i32' \(4\)"):
        k.halve_values.compile("*i32:16", BLOCK=32)
    assert "halve" in k.halve_values.compile("*i64:16", BLOCK=32).asm["ptx"]
    with pytest.raises(tilec.Error, match="takes 8 bytes"):
        k.halve_values.compile("*i32:16", BLOCK=64)


@needs_nvrtc
def test_an_uncalled_cuda_function_named_as_the_kernel_is_a_located_error():
    with pytest.raises(tilec.Error,
                       match=r"cuda_call_kernels.py:\d+:\d+: error: the CUDA sources define "
                             r"'calls_beside_its_namesake', a name the kernel's PTX defines "
                             r"too; rename the CUDA function"):
        k.calls_beside_its_namesake.compile("*fp32")


@pytest.mark.parametrize("kernel,message", [
    (k.bad_name, r"cuda_call_kernels.py:\d+:\d+: error: tl.cuda_device_call's name must be "
                 r"the C name of an extern \"C\" __device__ function, got 'cube\(x\)'"),
    (k.cube, r"the CUDA device function 'cube' has the name of the kernel \(or a helper\) it "
             r"is called from"),
    (k.pointer_argument, r"tl.cuda_device_call passes integers of 8 to 64 bits and fp16, "
                         r"bf16, fp32, fp64, not \*fp32"),
])
def test_front_end_errors(kernel, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile("*fp32")


def test_interpreter_refuses_it_at_the_line():
    fn = tilec.JITFunction(k.cube_masked.fn, interpret=True)
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(tilec.Error, match=r"cuda_call_kernels.py:\d+:\d+: error: "
                                          r"tl.cuda_device_call runs CUDA C\+\+"):
        fn[(1,)](x, np.zeros_like(x), 8, BLOCK=8)


@pytest.mark.gpu
def test_gpu_cube_with_a_masked_tail(torch_cuda):
    torch = torch_cuda
    n = 1000
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, 7.0)
    k.cube_masked[(tilec.cdiv(n, 256),)](x, y, n, BLOCK=256)
    torch.cuda.synchronize()
    want = x.double() ** 3
    assert torch.allclose(y.double(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
def test_gpu_mixed_types_half_and_double(torch_cuda):
    torch = torch_cuda
    a = torch.randint(-1000, 1000, (512,), dtype=torch.int32, device="cuda")
    b = torch.randint(-1000, 1000, (512,), dtype=torch.int32, device="cuda")
    out = torch.zeros_like(a)
    k.mixed_types[(1,)](a, b, out, 3, BLOCK=512)
    x = torch.randn(512, device="cuda").half()
    y = torch.randn(512, device="cuda").half()
    h = torch.zeros_like(x)
    k.half_axpy[(1,)](x, y, h, BLOCK=512)
    p = torch.zeros(1, dtype=torch.float64, device="cuda")
    k.scalar_poly[(1,)](p, 0.5)
    torch.cuda.synchronize()
    assert torch.equal(out, a + torch.div(b.long() * 3, 2, rounding_mode="floor").int())
    assert torch.allclose(h.float(), (2 * x.float() + y.float()), rtol=2e-3, atol=2e-3)
    assert p.item() == 1.0 + 0.5 * (2.0 + 0.5 * 3.0)
