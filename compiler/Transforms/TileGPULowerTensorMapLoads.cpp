// tilegpu-lower-tensormap-loads: each tile.tensormap_load that
// tilegpu-pipeline-loads did not take becomes one TMA copy, waited for on
// the spot:
//
//   %buf = tilegpu.local_alloc : memdesc<block, TMA's layout, mutable>
//   %bar = tilegpu.local_alloc : memdesc<1xi64, mutable>
//   tilegpu.init_barrier %bar, 1
//   tilegpu.barrier_expect %bar, <block bytes>, true
//   tilegpu.async_tma_copy_global_to_local %map[offsets] %buf, %bar, true
//   tilegpu.wait_barrier %bar, 0
//   tilegpu.inval_barrier %bar
//
// The block's users then read %buf: a local_alloc of the tile in TMA's
// layout (a wgmma operand's buffer, tilegpu-accelerate-matmul's) is
// replaced by %buf itself, its memdesc_trans views rebuilt on the mutable
// buffer; anything else reads the tile back with one local_load.
// tilegpu-insert-barriers then separates the init from the waits and the
// waits from the inval.
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tilegpu-lower-tensormap-loads"

namespace tilec {
#define GEN_PASS_DEF_TILEGPULOWERTENSORMAPLOADS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

LogicalResult lower(tile::TensorMapLoadOp op) {
  RankedTensorType type = op.getResult().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  if (!layout)
    return op.emitOpError("reads a block TMA cannot copy: ") << type;
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  OpBuilder b(op);
  Attribute encoding = tilegpu::getTMABufferEncoding(ctx, *layout, element);
  auto bufferType = tilegpu::MemDescType::get(ctx, type.getShape(), element, encoding,
                                              /*mutableMemory=*/true);
  Value buffer = b.create<tilegpu::LocalAllocOp>(loc, bufferType, Value());
  Value barrier =
      b.create<tilegpu::LocalAllocOp>(loc, tilegpu::getBarrierType(ctx), Value());
  Value always = b.create<arith::ConstantOp>(loc, b.getBoolAttr(true));
  Value phase = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0));
  int64_t bytes = bufferType.getSizeInBytes();
  b.create<tilegpu::InitBarrierOp>(loc, barrier, 1);
  b.create<tilegpu::BarrierExpectOp>(loc, barrier, int32_t(bytes), always);
  b.create<tilegpu::AsyncTMACopyGlobalToLocalOp>(loc, op.getMap(), op.getOffsets(), buffer,
                                                  barrier, always);
  b.create<tilegpu::WaitBarrierOp>(loc, barrier, phase);
  b.create<tilegpu::InvalBarrierOp>(loc, barrier);
  // (The users first, then the rewrites: a user may read the tile twice.)
  SmallVector<Operation *> users(op.getResult().getUsers());
  for (Operation *user : users) {
    auto alloc = dyn_cast<tilegpu::LocalAllocOp>(user);
    if (alloc && alloc.getType().getEncoding() == encoding &&
        alloc.getType().getShape() == bufferType.getShape() && alloc.getSrc() == op.getResult()) {
      tilegpu::replaceBuffer(alloc.getResult(), buffer);
      alloc.erase();
    }
  }
  if (!op.getResult().use_empty())
    op.getResult().replaceAllUsesWith(b.create<tilegpu::LocalLoadOp>(loc, type, buffer));
  op.erase();
  return success();
}

struct TileGPULowerTensorMapLoadsPass
    : tilec::impl::TileGPULowerTensorMapLoadsBase<TileGPULowerTensorMapLoadsPass> {
  void runOnOperation() override {
    SmallVector<tile::TensorMapLoadOp> loads;
    getOperation().walk([&](tile::TensorMapLoadOp op) { loads.push_back(op); });
    for (tile::TensorMapLoadOp op : loads)
      if (failed(lower(op)))
        return signalPassFailure();
  }
};
} // namespace
