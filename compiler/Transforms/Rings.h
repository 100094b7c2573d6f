// The index arithmetic of rings of shared buffers and mbarriers, as the
// software pipelines build them (tilegpu-pipeline-loads,
// tilegpu-warp-specialize): a slot of a ring, and a counter that wraps.
#pragma once

#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace tilec {

/// An i32 constant.
inline mlir::Value i32Value(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
  return b.create<mlir::arith::ConstantIntOp>(loc, b.getI32Type(), v);
}

/// Buffer `slot` (i32) of a ring: of blocks, or of mbarriers.
inline mlir::Value ringSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ring,
                            mlir::Value slot) {
  auto type = mlir::cast<tilegpu::MemDescType>(ring.getType());
  auto one = tilegpu::MemDescType::get(b.getContext(), type.getBufferShape(),
                                       type.getElementType(), type.getEncoding(),
                                       /*mutableMemory=*/true);
  return b.create<tilegpu::MemDescIndexOp>(loc, one, ring, slot);
}

/// `index + 1` modulo `size` (index in [0, size)), and whether it wrapped.
inline std::pair<mlir::Value, mlir::Value> nextModulo(mlir::OpBuilder &b, mlir::Location loc,
                                                      mlir::Value index, unsigned size) {
  mlir::Value next = b.create<mlir::arith::AddIOp>(loc, index, i32Value(b, loc, 1));
  mlir::Value wraps = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::eq, next,
                                                    i32Value(b, loc, size));
  mlir::Value wrapped = b.create<mlir::arith::SelectOp>(loc, wraps, i32Value(b, loc, 0), next);
  return {wrapped, wraps};
}

} // namespace tilec
