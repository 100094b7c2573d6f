"""Kernels of test_cuda_call.py and tests/lit/ptx/cuda_call.test: CUDA C++
device functions (compiled by NVRTC) called from kernels."""
import tilec
import tilec.language as tl

DEVICE_FUNCTIONS = '''
#include <cuda_fp16.h>

// A helper the exported functions share (not callable from a kernel).
static __device__ float square(float x) { return x * x; }

extern "C" __device__ float cube(float x) { return square(x) * x; }

extern "C" __device__ int mix(int a, long long b) { return a + (int)(b >> 1); }

extern "C" __device__ __half axpy_half(__half a, __half x, __half y) {
  return __hadd(__hmul(a, x), y);
}

extern "C" __device__ double poly(double x) { return 1.0 + x * (2.0 + x * 3.0); }
'''


@tilec.jit
def cube_masked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.cuda_device_call(DEVICE_FUNCTIONS, "cube", [x], tl.float32)
    tl.store(y_ptr + offs, y, mask=offs < n)


@tilec.jit
def mixed_types(a_ptr, b_ptr, out_ptr, scale, BLOCK: tl.constexpr):
    # int32 with int64 (broadcast from a scalar times a tile), fp16 with a
    # number, fp64.
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs).to(tl.int64) * scale
    tl.store(out_ptr + offs, tl.cuda_device_call(DEVICE_FUNCTIONS, "mix", [a, b], tl.int32))


@tilec.jit
def half_axpy(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    two = tl.full((BLOCK,), 2.0, tl.float16)
    r = tl.cuda_device_call(DEVICE_FUNCTIONS, "axpy_half", [two, x, y], tl.float16)
    tl.store(out_ptr + offs, r)


@tilec.jit
def half_axpy_number(x_ptr):
    # 2.0 passes as fp32, which a __half parameter does not take.
    x = tl.load(x_ptr + tl.arange(0, 16))
    r = tl.cuda_device_call(DEVICE_FUNCTIONS, "axpy_half", [2.0, x, x], tl.float16)
    tl.store(x_ptr + tl.arange(0, 16), r)


@tilec.jit
def scalar_poly(out_ptr, x):
    # Scalars in, a scalar out.
    tl.store(out_ptr, tl.cuda_device_call(DEVICE_FUNCTIONS, "poly", [x.to(tl.float64)],
                                          tl.float64))


@tilec.jit
def missing_function(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(DEVICE_FUNCTIONS, "square", [x],
                                                           tl.float32))


@tilec.jit
def broken_source(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16),
             tl.cuda_device_call('extern "C" __device__ float f(float x) { return y; }', "f",
                                 [x], tl.float32))


@tilec.jit
def bad_name(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16),
             tl.cuda_device_call(DEVICE_FUNCTIONS, "cube(x)", [x], tl.float32))


@tilec.jit
def pointer_argument(x_ptr):
    p = x_ptr + tl.arange(0, 16)
    tl.store(p, tl.cuda_device_call(DEVICE_FUNCTIONS, "cube", [p], tl.float32))


@tilec.jit
def cube(x_ptr):
    # The kernel has the CUDA function's name.
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(DEVICE_FUNCTIONS, "cube", [x],
                                                           tl.float32))


KINDS = '''
#include <cuda_bf16.h>

extern "C" __device__ float scale(float x) { return 2.0f * x; }

extern "C" __device__ int twice(int x) { return 2 * x; }

extern "C" __device__ unsigned int bits_of(float x) { return __float_as_uint(x); }

extern "C" __device__ __nv_bfloat16 bf16_identity(__nv_bfloat16 x) { return x; }
'''


@tilec.jit
def int_into_float(x_ptr):
    # An int32 tile where the function takes a float, and its float result
    # taken as int32: the same 4 bytes, other kinds.
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(KINDS, "scale", [x], tl.int32))


@tilec.jit
def float_into_int(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(KINDS, "twice", [x], tl.float32))


@tilec.jit
def half_into_bfloat16(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16),
             tl.cuda_device_call(KINDS, "bf16_identity", [x], tl.float16))


@tilec.jit
def kinds_that_fit(x_ptr, out_ptr):
    # fp32 in, an unsigned int out as int32; bf16 in and out.
    x = tl.load(x_ptr + tl.arange(0, 16))
    bits = tl.cuda_device_call(KINDS, "bits_of", [x], tl.int32)
    same = tl.cuda_device_call(KINDS, "bf16_identity", [x.to(tl.bfloat16)], tl.bfloat16)
    tl.store(out_ptr + tl.arange(0, 16), bits + same.to(tl.int32))


CLASHING = '''
extern "C" __device__ float cube_of(float x) { return x * x * x; }

// Not called, but defined: the kernel below has this name.
extern "C" __device__ int calls_beside_its_namesake() { return 1; }
'''


@tilec.jit
def calls_beside_its_namesake(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(CLASHING, "cube_of", [x], tl.float32))


MATH = '''
// sin of a double uses libdevice internals (a slow-path function and its
// tables) that the kernel's own tl.sin of a double defines too.
extern "C" __device__ double sin_of(double x) { return sin(x); }

namespace inner {
// Declared in a namespace: the kind check cannot name it, the call works.
extern "C" __device__ float nested(float x) { return x + 1.0f; }
}

extern "C" __device__ long long halve(long long x) { return x / 2; }
'''


@tilec.jit
def sine_twice(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    y = tl.sin(x) + tl.cuda_device_call(MATH, "sin_of", [x], tl.float64)
    tl.store(y_ptr + tl.arange(0, 128), y)


@tilec.jit
def nested_call(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.cuda_device_call(MATH, "nested", [x], tl.float32))


@tilec.jit
def halve_values(x_ptr, BLOCK: tl.constexpr):
    # Compiled for int32 (4 bytes where the function takes 8) and int64.
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK),
             tl.cuda_device_call(MATH, "halve", [x], x.dtype))
