// tilegpu-allocate-shared: one shared-memory arena per kernel; every
// buffer (local_alloc) and every op's scratch (a reduction's or scan's
// partials, SharedScratch.h) gets a byte offset in it, and buffers whose
// lifetimes do not overlap share bytes.
//
// Lifetimes come from SharedLifetimes.h (ops numbered in pre-order; a
// buffer lives from its local_alloc to its last use in the alloc's block,
// a scratch during its op). A buffer used by anything it does not model
// (a yield, a loop's iteration argument) is an error.
// Buffers are placed largest first, each at the lowest aligned offset that
// overlaps no placed buffer alive at the same time: 16 bytes, or 1024 for
// the #tilegpu.nvmma_shared layouts, whose swizzle the hardware computes
// from address bits (the arena itself starts 1024-byte aligned). The total
// goes to the module's tilegpu.shared_bytes; more than the target allows
// one block is an error naming the kernel, and the attribute then holds
// that kernel's need (compileToPTX reports it, the autotuner drops the
// config for it).
//
// With consumer groups (tilegpu.consumer_groups > 1) each group runs the
// consumers' code on buffers of its own: what the consumers' region of
// the warp roles allocates is placed in an arena of its own, after the
// rest (the rings and their barriers, which the groups share), once per
// group; those owners carry the arena's size as
// tilegpu.group_shared_stride, group g's copy being that many bytes
// further per group.
#include "compiler/Analysis/SharedLifetimes.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tilegpu-allocate-shared"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUALLOCATESHARED
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

struct Buffer {
  SharedLifetime lifetime;
  int64_t offset = -1;
};

/// Whether `op` is in the consumers' region of a warp-specialised kernel's
/// roles (the else of the tilegpu.warp_roles scf.if).
bool inConsumerRegion(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (auto roles = dyn_cast<scf::IfOp>(parent))
      if (roles->hasAttr(tilegpu::kWarpRolesAttr))
        return roles.getElseRegion().isAncestor(op->getParentRegion());
  return false;
}

class SharedAllocation {
public:
  /// The buffers of `func` that `include` accepts (by owner).
  LogicalResult collect(func::FuncOp func, function_ref<bool(Operation *)> include) {
    SmallVector<SharedLifetime> lifetimes;
    Operation *unmodelled = nullptr;
    if (failed(collectSharedLifetimes(func, lifetimes, &unmodelled))) {
      unmodelled->emitError("a shared buffer can only be used by local_load, "
                            "local_store, local_dealloc, memdesc_index, "
                            "memdesc_trans, async_copy_global_to_local, "
                            "warp_group_dot and the TMA and mbarrier ops, not '")
          << unmodelled->getName() << "'";
      return failure();
    }
    for (const SharedLifetime &lifetime : lifetimes)
      if (include(lifetime.owner))
        buffers_.push_back(Buffer{lifetime});
    return success();
  }

  /// Places every buffer; returns the bytes the arena needs.
  int64_t place() {
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers_)
      order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](Buffer *a, Buffer *b) {
      return a->lifetime.bytes > b->lifetime.bytes;
    });
    int64_t total = 0;
    SmallVector<Buffer *> placed;
    for (Buffer *buffer : order) {
      // The placed buffers alive at the same time, by offset.
      SmallVector<Buffer *> live;
      for (Buffer *other : placed)
        if (other->lifetime.start <= buffer->lifetime.end &&
            buffer->lifetime.start <= other->lifetime.end)
          live.push_back(other);
      std::sort(live.begin(), live.end(),
                [](Buffer *a, Buffer *b) { return a->offset < b->offset; });
      int64_t offset = 0;
      for (Buffer *other : live) {
        if (offset + buffer->lifetime.bytes <= other->offset)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(other->offset + other->lifetime.bytes,
                                                         buffer->lifetime.alignment));
      }
      buffer->offset = offset;
      placed.push_back(buffer);
      total = std::max(total, offset + buffer->lifetime.bytes);
    }
    return int64_t(llvm::alignTo(total, kSharedAlignment));
  }

  /// Writes each buffer's offset, `base` bytes further; with `stride`, the
  /// buffers are one copy per consumer group, that many bytes apart.
  void annotate(int64_t base = 0, int64_t stride = 0) {
    for (const Buffer &b : buffers_) {
      Operation *owner = b.lifetime.owner;
      auto i32 = IntegerType::get(owner->getContext(), 32);
      owner->setAttr(tilegpu::kSharedOffsetAttr, IntegerAttr::get(i32, base + b.offset));
      if (stride)
        owner->setAttr(tilegpu::kGroupSharedStrideAttr, IntegerAttr::get(i32, stride));
    }
  }

private:
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
    unsigned groups = tilegpu::getConsumerGroups(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      SharedAllocation allocation, perGroup;
      if (failed(allocation.collect(
              func, [&](Operation *owner) { return groups == 1 || !inConsumerRegion(owner); })))
        return signalPassFailure();
      int64_t bytes = allocation.place();
      int64_t groupBase = 0, stride = 0;
      if (groups > 1) {
        if (failed(perGroup.collect(func, inConsumerRegion)))
          return signalPassFailure();
        // (1024-byte steps keep every copy's swizzled buffers aligned.)
        groupBase = int64_t(llvm::alignTo(bytes, 1024));
        stride = int64_t(llvm::alignTo(perGroup.place(), 1024));
        if (stride)
          bytes = groupBase + groups * stride;
      }
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
      if (stride)
        perGroup.annotate(groupBase, stride);
      moduleBytes = std::max(moduleBytes, bytes);
    }
    module->setAttr(tilegpu::kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     moduleBytes));
  }
};
} // namespace
