#include "compiler/Transforms/LoopUtils.h"

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

bool tilec::mayWriteGlobalMemory(scf::ForOp loop) {
  WalkResult walk = loop.getBody()->walk([](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops are visited
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->getNumRegions() || isa<scf::YieldOp>(op) ? WalkResult::advance()
                                                           : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
          e.getResource() != tilegpu::SharedMemory::get())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

unsigned tilec::getNumStages(scf::ForOp loop, unsigned defaultStages) {
  if (auto stages = loop->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
    return unsigned(std::max<int64_t>(1, stages.getInt()));
  return defaultStages;
}

bool tilec::isZeroFill(Value other) {
  if (auto splat = other.getDefiningOp<tile::SplatOp>())
    other = splat.getOperand();
  return matchPattern(other, m_Zero()) || matchPattern(other, m_AnyZeroFloat());
}
