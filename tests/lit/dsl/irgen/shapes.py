# Broadcasting and subscripts: x[:, None] inserts a dimension, operands of
# different shapes meet at their common shape, tl.static_print reports
# compile-time values and types.
# RUN: tilec compile %s -k outer -s '*i32:16' -D M=16 -D N=32 --emit tile 2>%t.err | FileCheck %s
# RUN: FileCheck %s --check-prefix=PRINT < %t.err
import tilec.language as tl


def outer(out, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    grid = rows[:, None] * N + cols[None, :]
    tl.static_print("grid", grid, "shape", grid.shape, "M", M)
    tl.store(out + grid, grid + 1)
# CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
# CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
# CHECK: tile.broadcast %{{.*}} : tensor<16x1xi32> -> tensor<16x32xi32>
# CHECK: tile.broadcast %{{.*}} : tensor<1x32xi32> -> tensor<16x32xi32>
# CHECK: tile.store %{{.*}}, %{{.*}} : tensor<16x32x!tile.ptr<i32>>
# PRINT: shapes.py:13: grid <tensor<16x32xi32>> shape (16, 32) M 16
