// tile-to-tilegpu: give every tensor a distributed layout, the same simple
// one for every tensor of a shape (row-major, one element per thread), and
// record the module's warps and target.
//
// Ops whose tensors must be laid out as slices of each other
// (tile::SliceLayoutOpInterface: expand_dims, reduce), whose result's
// layout is the operand's rearranged (tile::RearrangeLayoutOpInterface:
// trans, reshape, join), or that share a layout across shapes
// (tile::SameOperandsAndResultEncoding: broadcast), get a
// tilegpu.convert_layout where the default layouts do not say that. The
// result is correct but slow; tilegpu-coalesce and
// tilegpu-remove-layout-conversions then choose the layouts worth having.
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tile-to-tilegpu"

namespace tilec {
#define GEN_PASS_DEF_TILETOTILEGPU
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

struct TileToTileGPUPass
    : tilec::impl::TileToTileGPUBase<TileToTileGPUPass> {
  using TileToTileGPUBase::TileToTileGPUBase;

  LogicalResult assignDefaults(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        return func.emitError("kernel arguments cannot be tensors");
    auto retype = [&](Value v) -> LogicalResult {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getEncoding())
        return success();
      for (int64_t s : type.getShape())
        if (s <= 0 || !llvm::isPowerOf2_64(s))
          return emitError(v.getLoc())
                 << "tensor dimensions must be powers of two, got " << type;
      tilegpu::setEncoding(v, tilegpu::getDefaultBlockedLayout(
                                  &getContext(), type.getShape(), numWarps));
      return success();
    };
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(retype(arg)))
              return WalkResult::interrupt();
      for (Value result : op->getResults())
        if (failed(retype(result)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  /// Slices where the defaults disagree: each op's sliced tensors take the
  /// slice of its full tensors' layout, converted from and to the defaults
  /// around it.
  void insertSliceConversions(func::FuncOp func) {
    SmallVector<tile::SliceLayoutOpInterface> ops;
    func.walk([&](tile::SliceLayoutOpInterface op) { ops.push_back(op); });
    for (tile::SliceLayoutOpInterface op : ops) {
      SmallVector<Value> slicedTensors = op.getSlicedTensors();
      if (slicedTensors.empty())
        continue; // a reduction of 1-D tensors to scalars
      SmallVector<Value> full = op.getFullTensors();
      Attribute parent = cast<RankedTensorType>(full.front().getType()).getEncoding();
      auto slice =
          tilegpu::SliceEncodingAttr::get(&getContext(), op.getSliceDim(), parent);
      OpBuilder builder(op);
      for (Value sliced : slicedTensors) {
        auto type = cast<RankedTensorType>(sliced.getType());
        if (type.getEncoding() == slice)
          continue;
        RankedTensorType wanted = type.cloneWithEncoding(slice);
        if (sliced.getDefiningOp() == op.getOperation()) {
          // A result: produce the slice, convert back for the users.
          sliced.setType(wanted);
          builder.setInsertionPointAfter(op);
          auto convert =
              builder.create<tilegpu::ConvertLayoutOp>(op.getLoc(), type, sliced);
          sliced.replaceAllUsesExcept(convert, convert);
        } else {
          // An operand: convert it to the slice first.
          builder.setInsertionPoint(op);
          auto convert =
              builder.create<tilegpu::ConvertLayoutOp>(op.getLoc(), wanted, sliced);
          op->replaceUsesOfWith(sliced, convert);
        }
      }
    }
  }

  /// Ops that rearrange elements without moving them (trans, reshape,
  /// join):
  /// the result takes the operand's layout rearranged, converted back to
  /// the default for its users.
  LogicalResult insertRearrangeConversions(func::FuncOp func) {
    SmallVector<tile::RearrangeLayoutOpInterface> ops;
    func.walk([&](tile::RearrangeLayoutOpInterface op) { ops.push_back(op); });
    for (tile::RearrangeLayoutOpInterface op : ops) {
      // join's operands share the first one's layout.
      Attribute srcLayout = op.getSrc().getType().getEncoding();
      OpBuilder before(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (type && type.getEncoding() != srcLayout)
          operand.set(before.create<tilegpu::ConvertLayoutOp>(
              op.getLoc(), type.cloneWithEncoding(srcLayout), operand.get()));
      }
      Value result = op.getResult();
      auto type = cast<RankedTensorType>(result.getType());
      Attribute wanted = op.inferResultEncoding(op.getSrc().getType().getEncoding());
      if (!wanted)
        return op->emitError("tile-to-tilegpu has no layout for the result of '")
               << op->getName() << "'";
      if (type.getEncoding() == wanted)
        continue;
      result.setType(type.cloneWithEncoding(wanted));
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      auto convert = builder.create<tilegpu::ConvertLayoutOp>(op.getLoc(), type, result);
      result.replaceAllUsesExcept(convert, convert);
    }
    return success();
  }

  /// Ops whose tensors share one layout but not one shape (broadcast):
  /// the layout of the largest tensor, the others converted to and from it.
  void unifyEncodings(func::FuncOp func) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (op->hasTrait<tile::SameOperandsAndResultEncoding>())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      RankedTensorType largest;
      for (Value v : llvm::concat<Value>(op->getResults(), op->getOperands()))
        if (auto type = dyn_cast<RankedTensorType>(v.getType()))
          if (!largest || type.getNumElements() > largest.getNumElements())
            largest = type;
      if (!largest)
        continue;
      Attribute layout = largest.getEncoding();
      OpBuilder builder(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || type.getEncoding() == layout)
          continue;
        operand.set(builder.create<tilegpu::ConvertLayoutOp>(
            op->getLoc(), type.cloneWithEncoding(layout), operand.get()));
      }
      builder.setInsertionPointAfter(op);
      for (Value result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || type.getEncoding() == layout)
          continue;
        result.setType(type.cloneWithEncoding(layout));
        auto convert =
            builder.create<tilegpu::ConvertLayoutOp>(op->getLoc(), type, result);
        result.replaceAllUsesExcept(convert, convert);
      }
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numWarps == 0 || !llvm::isPowerOf2_32(numWarps) || numWarps > 32) {
      module.emitError("num-warps must be a power of two between 1 and 32, "
                       "got ")
          << unsigned(numWarps);
      return signalPassFailure();
    }
    std::string error;
    if (!TargetInfo::parse(target, error)) {
      module.emitError(error);
      return signalPassFailure();
    }
    bool hasCalls = false;
    module.walk([&](func::CallOp call) {
      call.emitError("tile-to-tilegpu needs calls inlined (run tile-inline)");
      hasCalls = true;
    });
    if (hasCalls)
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (failed(assignDefaults(func)))
        return signalPassFailure();
      insertSliceConversions(func);
      if (failed(insertRearrangeConversions(func)))
        return signalPassFailure();
      unifyEncodings(func);
    }
    Builder b(&getContext());
    module->setAttr(tilegpu::kNumWarpsAttr, b.getI32IntegerAttr(numWarps));
    module->setAttr(tilegpu::kTargetAttr, b.getStringAttr(target));
  }
};
} // namespace
