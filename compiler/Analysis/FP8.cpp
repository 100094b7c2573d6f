#include "compiler/Analysis/FP8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

bool tilec::convertsFP8(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp>(op) &&
         (isFP8(op->getOperand(0).getType()) || isFP8(op->getResult(0).getType()));
}

bool tilec::computesOnFP8(Operation *op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp, arith::ExtFOp,
          arith::TruncFOp>(op))
    return false;
  return llvm::any_of(op->getOperandTypes(), isFP8) ||
         llvm::any_of(op->getResultTypes(), isFP8);
}
