#include "compiler/Transforms/LoopUtils.h"

#include "compiler/Analysis/PointerOrigin.h"

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/TensorMap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

/// Walks the ops of `loop` that may write global memory, stopping (and
/// returning true) at the first `write` returns true for. An op whose
/// effects are unknown is passed to `write` too.
static bool anyGlobalWrite(scf::ForOp loop, function_ref<bool(Operation *)> write) {
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops are visited
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->getNumRegions() || isa<scf::YieldOp>(op) || !write(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
          e.getResource() != tilec::tilegpu::SharedMemory::get() &&
          e.getResource() != tilec::tile::DebugOutput::get() &&
          e.getResource() != tilec::tile::CacheHint::get())
        return write(op) ? WalkResult::interrupt() : WalkResult::advance();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

bool tilec::mayWriteGlobalMemory(scf::ForOp loop) {
  return anyGlobalWrite(loop, [](Operation *) { return true; });
}

/// True for an atomic that acquires (acquire, acq_rel): the loads after it
/// in program order must not be issued before it, whatever they read (a
/// flag it waits on may guard them).
static bool acquires(Operation *op) {
  std::optional<tilec::tile::MemSemantic> sem;
  if (auto rmw = dyn_cast<tilec::tile::AtomicRMWOp>(op))
    sem = rmw.getSem();
  else if (auto cas = dyn_cast<tilec::tile::AtomicCASOp>(op))
    sem = cas.getSem();
  using tilec::tile::MemSemantic;
  return sem && (*sem == MemSemantic::acquire || *sem == MemSemantic::acq_rel);
}

/// The pointer argument a TMA copy reads or writes through: the base its
/// tensor map's spec names (the launcher encodes the map from that
/// argument); null when the map is not one of `func`'s arguments with a
/// spec.
static BlockArgument tensorMapBase(func::FuncOp func, Value mapValue) {
  auto map = dyn_cast<BlockArgument>(mapValue);
  if (!map || map.getOwner()->getParentOp() != func)
    return BlockArgument();
  auto text = func.getArgAttrOfType<StringAttr>(map.getArgNumber(), tilec::tile::kTensorMapAttr);
  tilec::TensorMapSpec spec;
  if (!text || !tilec::TensorMapSpec::parse(text.str(), spec) || spec.base < 0 ||
      unsigned(spec.base) >= func.getNumArguments())
    return BlockArgument();
  return func.getArgument(spec.base);
}

bool tilec::mayWriteWhatLoadsRead(scf::ForOp loop, ArrayRef<Operation *> loads) {
  // A volatile load (a flag polled by hand) orders what follows it as an
  // acquire would, though it writes nothing.
  WalkResult polls = loop.getBody()->walk([](tile::LoadOp load) {
    return load.getIsVolatile() ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (polls.wasInterrupted())
    return true;
  if (!mayWriteGlobalMemory(loop))
    return false;
  auto func = loop->getParentOfType<func::FuncOp>();
  if (!func)
    return true;
  PointerOriginAnalysis origins(func);
  llvm::SmallPtrSet<void *, 4> read;
  for (Operation *op : loads) {
    BlockArgument origin;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      origin = origins.originOf(load.getPtr());
    else if (auto tma = dyn_cast<tile::TensorMapLoadOp>(op))
      origin = tensorMapBase(func, tma.getMap());
    if (!origin)
      return true;
    read.insert(origin.getAsOpaquePointer());
  }
  return anyGlobalWrite(loop, [&](Operation *op) {
    if (acquires(op))
      return true;
    Value ptr;
    if (auto store = dyn_cast<tile::StoreOp>(op))
      ptr = store.getPtr();
    else if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
      ptr = rmw.getPtr();
    else if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
      ptr = cas.getPtr();
    BlockArgument origin = ptr ? origins.originOf(ptr) : BlockArgument();
    // (A TMA store writes through its map's base.)
    if (auto tma = dyn_cast<tile::TensorMapStoreOp>(op))
      origin = tensorMapBase(func, tma.getMap());
    else if (auto tma = dyn_cast<tilegpu::TMAStoreOp>(op))
      origin = tensorMapBase(func, tma.getMap());
    return !origin || read.contains(origin.getAsOpaquePointer());
  });
}

unsigned tilec::getNumStages(scf::ForOp loop, unsigned defaultStages) {
  if (auto stages = loop->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
    return unsigned(std::max<int64_t>(1, stages.getInt()));
  return defaultStages;
}

bool tilec::isAsyncCopyable(tile::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || load.getIsVolatile() ||
      (load.getOther() && !isZeroFill(load.getOther())))
    return false;
  Type element = type.getElementType();
  return element.isIntOrFloat() && !element.isInteger(1);
}

bool tilec::isPlainPipelineCandidate(tile::LoadOp load) {
  return isAsyncCopyable(load) && load.getCache() == tile::CacheModifier::none &&
         load.getEvict() == tile::EvictionPolicy::normal;
}

SmallVector<Operation *>
tilec::selectPipelinedLoads(scf::ForOp loop, ArrayRef<Operation *> required,
                            ArrayRef<Operation *> optional, LoadAddressStage &stage) {
  auto runsAhead = [&](ArrayRef<Operation *> loads, LoadAddressStage &s) {
    s = LoadAddressStage();
    return s.collect(loop, loads) && s.isSelfContained(loop, loads);
  };
  SmallVector<Operation *> kept(required.begin(), required.end());
  if (!kept.empty() && !runsAhead(kept, stage))
    kept.clear();
  for (Operation *load : optional) {
    kept.push_back(load);
    LoadAddressStage trial;
    if (!runsAhead(kept, trial))
      kept.pop_back();
  }
  if (kept.empty() || !runsAhead(kept, stage))
    return {};
  return kept;
}

SmallVector<Value> tilec::addressOperands(Operation *load) {
  if (auto tma = dyn_cast<tile::TensorMapLoadOp>(load))
    return SmallVector<Value>(tma.getOffsets());
  auto plain = cast<tile::LoadOp>(load);
  SmallVector<Value> values{plain.getPtr()};
  if (Value mask = plain.getMask())
    values.push_back(mask);
  return values;
}

Value tilec::throughConversions(Value v) {
  while (auto convert = v.getDefiningOp<tilegpu::ConvertLayoutOp>())
    v = convert.getSrc();
  return v;
}

bool tilec::isScalarArithmetic(Operation *op) {
  return isMemoryEffectFree(op) && !op->getNumRegions() &&
         llvm::none_of(op->getResultTypes(), [](Type t) { return isa<ShapedType>(t); });
}

bool tilec::isZeroFill(Value other) {
  // (Layout conversions of a zero, before they are folded, are zeros too.)
  other = throughConversions(other);
  if (auto splat = other.getDefiningOp<tile::SplatOp>())
    other = splat.getOperand();
  return matchPattern(other, m_Zero()) || matchPattern(other, m_AnyZeroFloat());
}

/// The divisor of `op` when it is an integer division or remainder; null
/// otherwise. Such an op may run ahead although dividing by zero is
/// undefined: for an iteration that runs it computes what the iteration
/// would, and for one past the end (whose loads are masked off)
/// LoadAddressStage::clone keeps it defined. (A persistent kernel's flat
/// loop finds its tile and K step by dividing the induction variable by
/// tile counts known only at run time.)
static Value integerDivisor(Operation *op) {
  if (!isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
           arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op) ||
      !isMemoryEffectFree(op))
    return Value();
  return op->getOperand(1);
}

bool tilec::LoadAddressStage::collect(scf::ForOp loop, ArrayRef<Operation *> loads) {
  SmallVector<Value> work;
  for (Operation *load : loads)
    llvm::append_range(work, addressOperands(load));
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!loop.getRegion().isAncestor(v.getParentRegion()))
      continue; // invariant
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body)
        return false;
      if (arg == loop.getInductionVar())
        continue;
      unsigned index = arg.getArgNumber() - 1;
      if (carried.insert(index))
        work.push_back(yield.getOperand(index));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != body || def->getNumRegions() ||
        !(isPure(def) || integerDivisor(def)))
      return false;
    if (ops.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  return true;
}

bool tilec::LoadAddressStage::isSelfContained(scf::ForOp loop,
                                              ArrayRef<Operation *> loads) const {
  llvm::DenseSet<Operation *> loadOps(loads.begin(), loads.end());
  llvm::SetVector<Value> ahead;
  for (unsigned index : carried) {
    if (!loop.getResult(index).use_empty())
      return false;
    ahead.insert(loop.getRegionIterArgs()[index]);
  }
  for (unsigned i = 0; i < ahead.size(); ++i) {
    for (OpOperand &use : ahead[i].getUses()) {
      Operation *user = use.getOwner();
      if (isa<scf::YieldOp>(user)) {
        if (!carried.contains(use.getOperandNumber()))
          return false;
      } else if (ops.contains(user)) {
        for (Value result : user->getResults())
          ahead.insert(result);
      } else if (!loadOps.contains(user)) {
        return false;
      }
    }
  }
  return true;
}

void tilec::LoadAddressStage::eraseUnused(Block *body) const {
  SmallVector<Operation *> inBody;
  for (Operation &op : body->without_terminator())
    if (ops.contains(&op))
      inBody.push_back(&op);
  for (Operation *op : llvm::reverse(inBody))
    if (op->use_empty())
      op->erase();
}

void tilec::LoadAddressStage::clone(OpBuilder &b, scf::ForOp loop,
                                    IRMapping &mapping) const {
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!ops.contains(&op))
      continue;
    // A division run ahead divides by 1 where its divisor is 0: the
    // iteration it computes for may be past the end (a grouped order's
    // group size is 0 or negative there, or the loop runs no iteration at
    // all and a tile count is 0), and
    // division by zero is undefined where a masked load is harmless. Where
    // the divisor is not 0 the result is the one the iteration computes.
    // (Signed INT_MIN / -1, the other undefined case, needs an index at
    // the bottom of int32's range.)
    Value safeDivisor;
    if (Value divisor = integerDivisor(&op)) {
      divisor = mapping.lookupOrDefault(divisor);
      Location loc = op.getLoc();
      Value zero = b.create<arith::ConstantOp>(loc, b.getZeroAttr(divisor.getType()));
      Value one = b.create<arith::ConstantOp>(loc, b.getOneAttr(divisor.getType()));
      Value isZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, divisor, zero);
      safeDivisor = b.create<arith::SelectOp>(loc, isZero, one, divisor);
    }
    Operation *copy = b.clone(op, mapping);
    if (safeDivisor)
      copy->setOperand(1, safeDivisor);
  }
}
