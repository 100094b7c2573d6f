# Every libdevice function of tilec (dsl/IRGenLibdevice.cpp) in one kernel,
# for tests/lit/ptx/libdevice.test.
import tilec
import tilec.language as tl
from tilec.language.extra import libdevice


@tilec.jit
def unary_all(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.5)
    y = (libdevice.acos(x) + libdevice.acosh(x + 2.0) + libdevice.asin(x) + libdevice.asinh(x)
         + libdevice.atan(x) + libdevice.atanh(x * 0.5) + libdevice.cbrt(x) + libdevice.ceil(x)
         + libdevice.cos(x) + libdevice.cosh(x) + libdevice.erf(x) + libdevice.erfc(x)
         + libdevice.exp(x) + libdevice.exp2(x) + libdevice.expm1(x) + libdevice.fabs(x)
         + libdevice.floor(x) + libdevice.log(x + 2.0) + libdevice.log10(x + 2.0)
         + libdevice.log1p(x) + libdevice.log2(x + 2.0) + libdevice.nearbyint(x)
         + libdevice.rint(x) + libdevice.round(x) + libdevice.rsqrt(x + 2.0)
         + libdevice.sin(x) + libdevice.sinh(x) + libdevice.sqrt(x + 2.0) + libdevice.tan(x)
         + libdevice.tanh(x) + libdevice.trunc(x)
         + libdevice.atan2(x, x + 1.0) + libdevice.copysign(x, -1.0) + libdevice.fmax(x, 0.0)
         + libdevice.fmin(x, 0.0) + libdevice.fmod(x, 0.3) + libdevice.pow(x + 2.0, 1.5)
         + libdevice.fma(x, x, x) + libdevice.isnan(x) + libdevice.isinf(x)
         + libdevice.clz(n) + libdevice.popc(offs))
    tl.store(out_ptr + offs, y, mask=m)


@tilec.jit
def count_bits(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.clz(x) + libdevice.popc(x))
