// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s
// RUN: sed 's/"sm_90a"/"sm_80"/' %s | tilec-opt -tilegpu-to-llvm | FileCheck %s --check-prefix=AMPERE

// The ops that overlap a kernel with the one before it (OverlapToLLVM.cpp).
//
// Programmatic dependent launch: tile.launch_dependents and
// tile.grid_dependency_wait become griddepcontrol, as inline PTX with side
// effects and a memory clobber (NVVM's intrinsics are marked as touching no
// memory, and the loads of the earlier kernel's results must stay after
// the wait), in program order. Before sm_90 (no such launch) nothing.

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @overlapped
  // CHECK: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;", "~{memory}"
  // CHECK: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
  // CHECK: llvm.return
  // AMPERE-LABEL: llvm.func @overlapped
  // AMPERE-NOT: griddepcontrol
  // AMPERE: llvm.return
  func.func @overlapped() {
    tile.launch_dependents
    tile.grid_dependency_wait
    return
  }

  // tile.prefetch_l2: the 16-byte-aligned bytes inside [p, p + 2n) (bf16),
  // start rounded up and end rounded down, their size capped under 4 GiB;
  // issued by thread 0 where that size is positive, before the wait.
  // Nothing before sm_90, where the bulk prefetch does not exist.
  // CHECK-LABEL: llvm.func @prefetched
  // CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64)
  // CHECK: %[[FIRST:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<1> to i64
  // CHECK: %[[C2:.*]] = llvm.mlir.constant(2 : i64)
  // CHECK: %[[BYTES:.*]] = llvm.mul %[[N]], %[[C2]]
  // CHECK: %[[C15:.*]] = llvm.mlir.constant(15 : i64)
  // CHECK: %[[M16:.*]] = llvm.mlir.constant(-16 : i64)
  // CHECK: %[[UP:.*]] = llvm.add %[[FIRST]], %[[C15]]
  // CHECK: %[[START:.*]] = llvm.and %[[UP]], %[[M16]]
  // CHECK: %[[LAST:.*]] = llvm.add %[[FIRST]], %[[BYTES]]
  // CHECK: %[[END:.*]] = llvm.and %[[LAST]], %[[M16]]
  // CHECK: %[[SIZE:.*]] = llvm.sub %[[END]], %[[START]]
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64)
  // CHECK: %[[SOME:.*]] = llvm.icmp "sgt" %[[SIZE]], %[[ZERO]]
  // CHECK: %[[CAP:.*]] = llvm.mlir.constant(4294967280 : i64)
  // CHECK: %[[CAPPED:.*]] = llvm.intr.umin(%[[SIZE]], %[[CAP]])
  // CHECK: %[[SIZE32:.*]] = llvm.trunc %[[CAPPED]] : i64 to i32
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[ZERO32:.*]] = llvm.mlir.constant(0 : i32)
  // CHECK: %[[FIRSTTHREAD:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO32]]
  // CHECK: %[[ISSUE:.*]] = llvm.and %[[FIRSTTHREAD]], %[[SOME]]
  // CHECK: llvm.inline_asm has_side_effects "@$0 cp.async.bulk.prefetch.L2.global [$1], $2;", "b,l,r" %[[ISSUE]], %[[START]], %[[SIZE32]]
  // CHECK: griddepcontrol.wait
  // AMPERE-LABEL: llvm.func @prefetched
  // AMPERE-NOT: prefetch
  // AMPERE: llvm.return
  func.func @prefetched(%p: !tile.ptr<bf16>, %n: i64) {
    tile.prefetch_l2 %p, %n : !tile.ptr<bf16>
    tile.grid_dependency_wait
    return
  }
}
