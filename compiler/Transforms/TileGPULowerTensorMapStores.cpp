// tilegpu-lower-tensormap-stores: each tile.tensormap_store becomes the
// block written into a shared buffer in the layout TMA reads, and one TMA
// store of it:
//
//   %buf = tilegpu.local_alloc %value : memdesc<block, TMA's layout>
//   tilegpu.tma_store %map[offsets] %buf
//
// The local_alloc's stores fence the async proxy (the buffer is
// #tilegpu.nvmma_shared, which tile-lower-descriptors made sure of);
// tilegpu-insert-barriers then puts the CTA barrier between the threads'
// writes and the one thread's copies, and another between the copies (which
// the issuing thread waits to have read the buffer) and whatever next
// writes those bytes. In a warp-specialised kernel the buffer is written by
// the consumers, and a tma_store there is issued by thread 0, one of them.
//
// It runs before tilegpu-warp-specialize and tilegpu-pipeline-loads, so
// that the stages they give a loop count the buffer of a store inside it (a
// persistent matmul's epilogue).
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tilegpu-lower-tensormap-stores"

namespace tilec {
#define GEN_PASS_DEF_TILEGPULOWERTENSORMAPSTORES
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

LogicalResult lower(tile::TensorMapStoreOp op) {
  RankedTensorType type = op.getValue().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  if (!layout || !layout->swizzleBytes)
    return op.emitOpError("writes a block TMA cannot copy from a swizzled buffer: ") << type;
  MLIRContext *ctx = op.getContext();
  OpBuilder b(op);
  auto bufferType = tilegpu::MemDescType::get(
      ctx, type.getShape(), element, tilegpu::getTMABufferEncoding(ctx, *layout, element),
      /*mutableMemory=*/false);
  Value buffer = b.create<tilegpu::LocalAllocOp>(op.getLoc(), bufferType, op.getValue());
  b.create<tilegpu::TMAStoreOp>(op.getLoc(), op.getMap(), op.getOffsets(), buffer);
  op.erase();
  return success();
}

struct TileGPULowerTensorMapStoresPass
    : tilec::impl::TileGPULowerTensorMapStoresBase<TileGPULowerTensorMapStoresPass> {
  void runOnOperation() override {
    SmallVector<tile::TensorMapStoreOp> stores;
    getOperation().walk([&](tile::TensorMapStoreOp op) { stores.push_back(op); });
    for (tile::TensorMapStoreOp op : stores)
      if (failed(lower(op)))
        return signalPassFailure();
  }
};
} // namespace
