// How many elements one thread can move with one memory instruction, read
// off the layouts and the axis info. Shared by the passes that decide
// whether an access can be made (the software pipeliner needs cp.async's
// 4-byte minimum) and the lowering that emits it.
#pragma once

#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

namespace tilec {

/// Elements of the pointer tensor `ptr` one global access may cover: the
/// run of consecutive elements in a thread's registers, limited by the
/// pointers' contiguity and alignment and the mask's constancy (16 bytes
/// at most). 1 for a scalar.
unsigned globalAccessWidth(mlir::Value ptr, mlir::Value mask,
                           const AxisInfoAnalysis &axisInfo);

/// Before layouts are chosen: elements one access of `ptr` could cover
/// along its most contiguous dimension, by the axis info alone (the
/// pointers' contiguity and alignment, the mask's constancy; 16 bytes at
/// most). 1 for a scalar.
unsigned contiguousAccessWidth(mlir::Value ptr, mlir::Value mask,
                               const AxisInfoAnalysis &axisInfo);

/// Elements each `cp.async` of an asynchronous copy from `ptr` into a
/// buffer of type `dst` moves: as wide as both the global side and the
/// buffer's layout allow. 0 when that is under the 4 bytes cp.async needs.
unsigned asyncCopyWidth(mlir::Value ptr, mlir::Value mask,
                        tilegpu::MemDescType dst, const AxisInfoAnalysis &axisInfo);

/// Elements one instruction of the atomic `atomic` (tile.atomic_rmw or
/// tile.atomic_cas) may cover on a GPU of `computeCapability`: 4 fp32 or
/// 8 fp16/bf16 adds on sm_90 and newer (`.v4.f32`, `.v8.f16`), else 1.
unsigned atomicVectorLimit(mlir::Operation *atomic, unsigned computeCapability);

} // namespace tilec
