#include "compiler/Analysis/SharedLifetimes.h"

#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;

namespace tilec {

LogicalResult collectSharedLifetimes(Operation *root, SmallVectorImpl<SharedLifetime> &lifetimes,
                                     Operation **unmodelledUse) {
  llvm::DenseMap<Operation *, int64_t> number;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) { number[op] = int64_t(number.size()); });
  // The last op number inside `op` (its own when it has no regions).
  auto lastNumberIn = [&](Operation *op) {
    int64_t last = number.lookup(op);
    op->walk([&](Operation *inner) { last = std::max(last, number.lookup(inner)); });
    return last;
  };
  WalkResult walk = root->walk([&](Operation *op) -> WalkResult {
    auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op);
    if (!alloc) {
      if (int64_t bytes = getScratchBytes(op))
        lifetimes.push_back({op, bytes, number.lookup(op), lastNumberIn(op)});
      return WalkResult::advance();
    }
    SharedLifetime lifetime{op, alloc.getType().getSizeInBytes(), number.lookup(op),
                            number.lookup(op)};
    if (isa<tilegpu::NVMMASharedEncodingAttr>(alloc.getType().getEncoding()))
      lifetime.alignment = kSwizzledSharedAlignment;
    Block *block = op->getBlock();
    // The users of the buffer and of the views of it (one buffer of a
    // ring, a transposed view).
    SmallVector<Operation *> users(alloc->getUsers());
    while (!users.empty()) {
      Operation *user = users.pop_back_val();
      // A buffer handed through control flow (yielded, carried by a loop)
      // would need a lifetime, even several copies, this does not model.
      if (!isa<tilegpu::LocalLoadOp, tilegpu::LocalStoreOp, tilegpu::LocalDeallocOp,
               tilegpu::MemDescIndexOp, tilegpu::MemDescTransOp, tilegpu::AsyncCopyGlobalToLocalOp,
               tilegpu::WarpGroupDotOp, tilegpu::AsyncTMACopyGlobalToLocalOp,
               tilegpu::InitBarrierOp, tilegpu::InvalBarrierOp, tilegpu::BarrierExpectOp,
               tilegpu::WaitBarrierOp, tilegpu::ArriveBarrierOp, tilegpu::TMAStoreOp>(user)) {
        if (unmodelledUse)
          *unmodelledUse = user;
        return WalkResult::interrupt();
      }
      if (isa<tilegpu::MemDescIndexOp, tilegpu::MemDescTransOp>(user))
        llvm::append_range(users, user->getUsers());
      if (Operation *ancestor = block->findAncestorOpInBlock(*user))
        lifetime.end = std::max(lifetime.end, lastNumberIn(ancestor));
    }
    lifetimes.push_back(lifetime);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

int64_t peakSharedBytes(ArrayRef<SharedLifetime> lifetimes) {
  // Sweep the starts and ends in op order; at one op number, starts come
  // before ends (intervals are inclusive).
  SmallVector<std::pair<int64_t, int64_t>> events; // (time, +bytes / -bytes)
  for (const SharedLifetime &l : lifetimes) {
    int64_t bytes = l.bytes + l.alignment - kSharedAlignment;
    events.push_back({2 * l.start, bytes});
    events.push_back({2 * l.end + 1, -bytes});
  }
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [time, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t sharedBytesAtOnce(Operation *root, function_ref<bool(Operation *owner)> counted) {
  SmallVector<SharedLifetime> lifetimes;
  if (succeeded(collectSharedLifetimes(root, lifetimes))) {
    llvm::erase_if(lifetimes, [&](const SharedLifetime &l) { return !counted(l.owner); });
    return peakSharedBytes(lifetimes);
  }
  int64_t buffers = 0, scratch = 0;
  root->walk([&](Operation *op) {
    if (!counted(op))
      return;
    if (auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op))
      buffers += alloc.getType().getSizeInBytes() + kSwizzledSharedAlignment;
    else
      scratch = std::max(scratch, getScratchBytes(op));
  });
  return buffers + scratch;
}

} // namespace tilec
