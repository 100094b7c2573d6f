# The atomics: tl.atomic_<op>(pointer, val, mask=None, sem=None, scope=None)
# becomes tile.atomic_rmw <kind> with the value converted to the pointee
# and broadcast with the pointer; unsigned pointees pick umax/umin; sem
# and scope default to acq_rel and gpu (not printed); tl.atomic_cas
# becomes tile.atomic_cas.
# RUN: tilec compile %s -k rmw -s '*i32,*u32,*fp32,*u64,*fp16' -D BLOCK=64 --emit tile | FileCheck %s
# RUN: tilec compile %s -k cas -s '*i32,*bf16,*u16' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=CAS
import tilec.language as tl


def rmw(pi, pu, pf, pu64, ph, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(pi + offs, 1, mask=offs < 10)
# CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : tensor<64xi32>
# CHECK-DAG: %[[TEN:.*]] = arith.constant dense<10> : tensor<64xi32>
# CHECK: %[[RANGE:.*]] = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
# CHECK: %[[PI:.*]] = tile.addptr %{{.*}}, %[[RANGE]] : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
# CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[RANGE]], %[[TEN]] : tensor<64xi32>
# CHECK: %[[OLD:.*]] = tile.atomic_rmw add, %[[PI]], %[[ONE]], %[[MASK]] : tensor<64x!tile.ptr<i32>>
    tl.atomic_max(pi + offs, old)
# CHECK: tile.atomic_rmw max, %{{.*}}, %[[OLD]] : tensor<64x!tile.ptr<i32>>
    tl.atomic_max(pu + offs, 5)
# CHECK: tile.atomic_rmw umax, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<i32>>
    tl.atomic_min(pu + offs, 5, mask=True, sem="release")
# CHECK: tile.atomic_rmw umin, %{{[0-9]+}}, %{{[0-9a-z_]+}} {sem = 2 : i32} : tensor<64x!tile.ptr<i32>>
    tl.atomic_min(pi + offs, 5, sem="acq_rel", scope="gpu")
# CHECK: tile.atomic_rmw min, %{{[0-9]+}}, %{{[0-9a-z_]+}} : tensor<64x!tile.ptr<i32>>
    tl.atomic_min(pu64, 7, sem="relaxed", scope="cta")
# CHECK: tile.atomic_rmw umin, %arg3, %{{.*}} {scope = 0 : i32, sem = 0 : i32} : !tile.ptr<i64>
    tl.atomic_max(pu64, 7, sem="acquire", scope="sys")
# CHECK: tile.atomic_rmw umax, %arg3, %{{.*}} {scope = 2 : i32, sem = 1 : i32} : !tile.ptr<i64>
    tl.atomic_add(pf + offs, offs)
    tl.atomic_add(pf, offs.to(tl.float32))
# CHECK: %[[PFS:.*]] = tile.splat %arg2 : tensor<64x!tile.ptr<f32>>
# CHECK: %[[F:.*]] = arith.sitofp %[[RANGE]] : tensor<64xi32> to tensor<64xf32>
# CHECK: tile.atomic_rmw add, %{{.*}}, %[[F]] : tensor<64x!tile.ptr<f32>>
# CHECK: tile.atomic_rmw add, %[[PFS]], %[[F]] : tensor<64x!tile.ptr<f32>>
    tl.atomic_xchg(ph + offs, 1.5)
# CHECK: tile.atomic_rmw xchg, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f16>>
    tl.atomic_and(pi + offs, 3)
    tl.atomic_or(pu64, 3)
    tl.atomic_xor(pi, 3)
# CHECK: tile.atomic_rmw and, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<i32>>
# CHECK: tile.atomic_rmw or, %arg3, %{{.*}} : !tile.ptr<i64>
# CHECK: tile.atomic_rmw xor, %arg0, %{{.*}} : !tile.ptr<i32>


def cas(pi, pb, ph, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(pi, 0, 1)
# CAS-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
# CAS-DAG: %[[ONE:.*]] = arith.constant 1 : i32
# CAS: %[[OLD:.*]] = tile.atomic_cas %arg0, %[[ZERO]], %[[ONE]] : !tile.ptr<i32>
    tl.atomic_cas(pb + offs, old, 2.0, sem="acquire", scope="sys")
# CAS: %[[CMP:.*]] = arith.sitofp %[[OLD]] : i32 to bf16
# CAS: %[[CMPS:.*]] = tile.splat %[[CMP]] : tensor<64xbf16>
# CAS: tile.atomic_cas %{{.*}}, %[[CMPS]], %{{.*}} {scope = 2 : i32, sem = 1 : i32} : tensor<64x!tile.ptr<bf16>>
    tl.atomic_cas(ph + offs, offs, 7)
# CAS: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<i16>>
