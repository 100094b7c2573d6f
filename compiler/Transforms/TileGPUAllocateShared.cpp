// tilegpu-allocate-shared: one shared-memory arena per kernel; every
// buffer (local_alloc) and every op's scratch (a reduction's or scan's
// partials, SharedScratch.h) gets a byte offset in it, and buffers whose
// lifetimes do not overlap share bytes.
//
// Lifetimes are intervals of a numbering of the kernel's ops (pre-order):
// a buffer lives from its local_alloc to the end of the last op, in the
// alloc's block, that uses it (an op with regions uses it until its last
// nested op, so a buffer read inside a loop lives through the whole loop);
// a scratch lives during its op; uses of a view of it (memdesc_index,
// memdesc_trans) are its uses. A buffer used by anything but local_load,
// local_store, local_dealloc, memdesc_index, memdesc_trans,
// async_copy_global_to_local, warp_group_dot and the TMA and mbarrier ops
// (a yield, a loop's iteration argument) is an error.
// Buffers are placed largest first, each at the lowest aligned offset that
// overlaps no placed buffer alive at the same time: 16 bytes, or 1024 for
// the #tilegpu.nvmma_shared layouts, whose swizzle the hardware computes
// from address bits (the arena itself starts 1024-byte aligned). The total
// goes to the module's tilegpu.shared_bytes; more than the target allows
// one block is an error naming the kernel, and the attribute then holds
// that kernel's need (compileToPTX reports it, the autotuner drops the
// config for it).
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tilegpu-allocate-shared"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUALLOCATESHARED
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr int64_t kAlignment = 16;
constexpr int64_t kSwizzleAlignment = 1024;

struct Buffer {
  Operation *owner; ///< the local_alloc, or the op using scratch
  int64_t bytes;
  int64_t start, end; ///< lifetime, inclusive, in op numbers
  int64_t offset = -1;
  int64_t alignment = kAlignment;
};

class SharedAllocation {
public:
  explicit SharedAllocation(func::FuncOp func) {
    func.walk<WalkOrder::PreOrder>([&](Operation *op) { number_[op] = next_++; });
  }

  /// The last op number inside `op` (itself when it has no regions).
  int64_t lastNumberIn(Operation *op) {
    int64_t last = number_.lookup(op);
    op->walk([&](Operation *inner) { last = std::max(last, number_.lookup(inner)); });
    return last;
  }

  LogicalResult collect(func::FuncOp func) {
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op)) {
        Buffer buffer{op, alloc.getType().getSizeInBytes(), number_.lookup(op),
                      number_.lookup(op)};
        if (isa<tilegpu::NVMMASharedEncodingAttr>(alloc.getType().getEncoding()))
          buffer.alignment = kSwizzleAlignment;
        Block *block = op->getBlock();
        // The users of the buffer and of the views of it (one buffer of a
        // ring, a transposed view).
        SmallVector<Operation *> users(alloc->getUsers());
        while (!users.empty()) {
          Operation *user = users.pop_back_val();
          // A buffer handed through control flow (yielded, carried by a
          // loop) would need a lifetime, even several copies, this
          // analysis does not model.
          if (!isa<tilegpu::LocalLoadOp, tilegpu::LocalStoreOp,
                   tilegpu::LocalDeallocOp, tilegpu::MemDescIndexOp,
                   tilegpu::MemDescTransOp, tilegpu::AsyncCopyGlobalToLocalOp,
                   tilegpu::WarpGroupDotOp, tilegpu::AsyncTMACopyGlobalToLocalOp,
                   tilegpu::InitBarrierOp, tilegpu::InvalBarrierOp,
                   tilegpu::BarrierExpectOp, tilegpu::WaitBarrierOp,
                   tilegpu::ArriveBarrierOp, tilegpu::TMAStoreOp>(user)) {
            user->emitError("a shared buffer can only be used by local_load, "
                            "local_store, local_dealloc, memdesc_index, "
                            "memdesc_trans, async_copy_global_to_local, "
                            "warp_group_dot and the TMA and mbarrier ops, not '")
                << user->getName() << "'";
            return WalkResult::interrupt();
          }
          if (isa<tilegpu::MemDescIndexOp, tilegpu::MemDescTransOp>(user))
            llvm::append_range(users, user->getUsers());
          if (Operation *ancestor = block->findAncestorOpInBlock(*user))
            buffer.end = std::max(buffer.end, lastNumberIn(ancestor));
        }
        buffers_.push_back(buffer);
        return WalkResult::advance();
      }
      if (int64_t bytes = getScratchBytes(op))
        buffers_.push_back({op, bytes, number_.lookup(op), lastNumberIn(op)});
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  /// Places every buffer; returns the bytes the arena needs.
  int64_t place() {
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers_)
      order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](Buffer *a, Buffer *b) {
      return a->bytes > b->bytes;
    });
    int64_t total = 0;
    SmallVector<Buffer *> placed;
    for (Buffer *buffer : order) {
      // The placed buffers alive at the same time, by offset.
      SmallVector<Buffer *> live;
      for (Buffer *other : placed)
        if (other->start <= buffer->end && buffer->start <= other->end)
          live.push_back(other);
      std::sort(live.begin(), live.end(),
                [](Buffer *a, Buffer *b) { return a->offset < b->offset; });
      int64_t offset = 0;
      for (Buffer *other : live) {
        if (offset + buffer->bytes <= other->offset)
          break;
        offset = std::max<int64_t>(
            offset, llvm::alignTo(other->offset + other->bytes, buffer->alignment));
      }
      buffer->offset = offset;
      placed.push_back(buffer);
      total = std::max(total, offset + buffer->bytes);
    }
    return int64_t(llvm::alignTo(total, kAlignment));
  }

  void annotate() {
    for (const Buffer &b : buffers_)
      b.owner->setAttr(tilegpu::kSharedOffsetAttr,
                       IntegerAttr::get(IntegerType::get(b.owner->getContext(), 32),
                                        b.offset));
  }

private:
  llvm::DenseMap<Operation *, int64_t> number_;
  int64_t next_ = 0;
  SmallVector<Buffer> buffers_;
};

struct TileGPUAllocateSharedPass
    : tilec::impl::TileGPUAllocateSharedBase<TileGPUAllocateSharedPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetInfo> target =
        getModuleTarget(module, "tilegpu-allocate-shared");
    if (!target)
      return signalPassFailure();
    int64_t moduleBytes = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      SharedAllocation allocation(func);
      if (failed(allocation.collect(func)))
        return signalPassFailure();
      int64_t bytes = allocation.place();
      if (bytes > target->maxSharedBytesPerBlock) {
        // The need stays on the module, so that the driver can report it
        // (the autotuner drops such a config before LLVM and ptxas run).
        module->setAttr(tilegpu::kSharedBytesAttr,
                        IntegerAttr::get(IntegerType::get(&getContext(), 32), bytes));
        func.emitError() << "kernel '" << func.getName() << "' needs " << bytes
                         << " bytes of shared memory, more than the "
                         << target->maxSharedBytesPerBlock << " " << target->chip
                         << " allows one block";
        return signalPassFailure();
      }
      allocation.annotate();
      moduleBytes = std::max(moduleBytes, bytes);
    }
    module->setAttr(tilegpu::kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     moduleBytes));
  }
};
} // namespace
