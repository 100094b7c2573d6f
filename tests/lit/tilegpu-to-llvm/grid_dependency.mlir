// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s
// RUN: sed 's/"sm_90a"/"sm_80"/' %s | tilec-opt -tilegpu-to-llvm | FileCheck %s --check-prefix=AMPERE

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
}
