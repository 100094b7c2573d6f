# `while` becomes scf.while: the condition in the before region, over the
# values the body reassigns (carried in order of their names), the body in
# the after region; a condition that is false at compile time still
# compiles (the loop runs no iteration).
# RUN: tilec compile %s -k halve -s '*fp32,i32' --emit tile | FileCheck %s --check-prefix=HALVE
# RUN: tilec compile %s -k never -s '*i32' --emit tile | FileCheck %s --check-prefix=NEVER
import tilec.language as tl


def halve(p, n):
    x = tl.load(p)
    steps = 0
    while x > 1.0:
        x = x * 0.5
        steps += 1
    tl.store(p, x + steps)
# HALVE: %[[R:.*]]:2 = scf.while (%[[S:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}}) : (i32, f32) -> (i32, f32) {
# HALVE:   %[[C:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f32
# HALVE:   scf.condition(%[[C]]) %[[S]], %[[X]] : i32, f32
# HALVE: } do {
# HALVE: ^bb0(%[[S2:.*]]: i32, %[[X2:.*]]: f32):
# HALVE:   %[[H:.*]] = arith.mulf %[[X2]]
# HALVE:   %[[N:.*]] = arith.addi %[[S2]]
# HALVE:   scf.yield %[[N]], %[[H]] : i32, f32
# HALVE: }
# HALVE: arith.sitofp %[[R]]#0


def never(p):
    i = 0
    while False:
        i += 1
    tl.store(p, i)
# NEVER: %false = arith.constant false
# NEVER: scf.while
# NEVER: scf.condition(%false)
