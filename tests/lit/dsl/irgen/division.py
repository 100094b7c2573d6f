# Float division: '/' on fp32 allows approximation (afn, lowered to
# div.full.f32 as Triton's '/' is); tl.div_rn and tl.fdiv(ieee_rounding=True)
# ask for IEEE rounding; fp64 '/' is always IEEE. tl.math.* is tl.*.
# RUN: tilec compile %s -k divide -s '*fp32,fp32,fp32,fp64,fp64' --emit tile | FileCheck %s --check-prefix=IR
# RUN: tilec compile %s -k divide -s '*fp32,fp32,fp32,fp64,fp64' --emit ptx -o %t
# RUN: grep -c 'div.full.f32' %t/divide.ptx | FileCheck %s --check-prefix=FULL
# RUN: grep -c 'div.rn.f32' %t/divide.ptx | FileCheck %s --check-prefix=RN
# RUN: grep -c 'div.rn.f64' %t/divide.ptx | FileCheck %s --check-prefix=RN64
import tilec.language as tl


def divide(out, a, b, c, d):
    tl.store(out, a / b)
    tl.store(out + 1, tl.div_rn(b, a))
    tl.store(out + 2, tl.fdiv(a, 3.0))
    tl.store(out + 3, tl.fdiv(b, 3.0, ieee_rounding=True))
    tl.store(out + 4, tl.math.div_rn(a, 5.0))
    tl.store(out + 5, (c / d).to(tl.float32))
    tl.store(out + 6, tl.math.exp(a))
# IR: arith.divf %arg1, %arg2 fastmath<afn> : f32
# IR: arith.divf %arg2, %arg1 : f32
# IR: arith.divf %arg1, %{{.*}} fastmath<afn> : f32
# IR: arith.divf %arg2, %{{.*}} : f32
# IR: arith.divf %arg1, %{{.*}} : f32
# IR: arith.divf %arg3, %arg4 : f64
# IR: math.exp %arg1 fastmath<afn> : f32
# FULL: {{^}}2{{$}}
# RN: {{^}}3{{$}}
# RN64: {{^}}1{{$}}
