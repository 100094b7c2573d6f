// RUN: tilec-opt %s -tilec-attach-line-info -mlir-print-debuginfo | FileCheck %s

// The kernel gets a subprogram of its own, in a compile unit of kind
// DebugDirectivesOnly; an op inlined from a helper (a call site whose
// callee tile-inline named after the helper) is scoped to a subprogram of
// that helper, inlined at the call, two levels deep here; an op of the
// kernel itself keeps its plain location.

// CHECK-LABEL: llvm.func @kernel
// CHECK: llvm.fmul {{.*}} loc(#[[DEEP:loc[0-9]+]])
// CHECK: llvm.fadd {{.*}} loc(#[[INLINED:loc[0-9]+]])
// CHECK: llvm.return {{.*}} loc(#[[OWN:loc[0-9]+]])

// CHECK-DAG: #[[UNIT:di_compile_unit[0-9]*]] = #llvm.di_compile_unit<{{.*}}producer = "tilec", isOptimized = true, emissionKind = DebugDirectivesOnly>
// CHECK-DAG: #[[KERNEL:di_subprogram[0-9]*]] = #llvm.di_subprogram<{{.*}}compileUnit = #[[UNIT]]{{.*}}name = "kernel"{{.*}}line = 20
// CHECK-DAG: #[[TWICE:di_subprogram[0-9]*]] = #llvm.di_subprogram<{{.*}}name = "twice"{{.*}}line = 7
// CHECK-DAG: #[[PLUS:di_subprogram[0-9]*]] = #llvm.di_subprogram<{{.*}}name = "twice_plus"{{.*}}line = 12
// CHECK-DAG: #[[OWN]] = loc("k.py":21:5)
// CHECK-DAG: #[[INLINED]] = loc(callsite(#[[INPLUS:loc[0-9]+]] at #[[CALL:loc[0-9]+]]))
// CHECK-DAG: #[[INPLUS]] = loc(fused<#[[PLUS]]>[#{{loc[0-9]+}}])
// CHECK-DAG: #[[DEEP]] = loc(callsite(#[[INTWICE:loc[0-9]+]] at #{{loc[0-9]+}}))
// CHECK-DAG: #[[INTWICE]] = loc(fused<#[[TWICE]]>[#{{loc[0-9]+}}])
module {
  llvm.func @kernel(%x: f32) -> f32 {
    %c = llvm.mlir.constant(2.0 : f32) : f32
    %m = llvm.fmul %x, %c : f32 loc(callsite("twice"("k.py":7:12) at callsite("twice_plus"("k.py":12:12) at "k.py":20:30)))
    %a = llvm.fadd %m, %c : f32 loc(callsite("twice_plus"("k.py":12:21) at "k.py":20:30))
    llvm.return %a : f32 loc("k.py":21:5)
  } loc("k.py":20:1)
}
