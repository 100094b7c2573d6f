// tilegpu-remove-layout-conversions: spread the layouts that matter
// (those the memory accesses chose) over the tensors around them, so that
// the conversions tile-to-tilegpu and tilegpu-coalesce left between them
// disappear, and keep only those between two accesses that disagree.
//
// Tensors that must share a layout form groups (a union-find):
//  - the tensors of an op with the SameOperandsAndResultEncoding trait or
//    MLIR's Elementwise trait (loads, stores, addptr, broadcast, scan,
//    arith and math ops);
//  - the values a region-branching op passes along (scf.for's initial
//    values, iteration arguments, yields and results; scf.if's yields and
//    results), read through RegionBranchOpInterface;
//  - the accumulator and result of a tile::AccumulatorOpInterface op
//    (dot), anchored to the layout tilegpu-accelerate-matmul chose; its
//    other operands are anchored each on its own;
//  - the full tensors of a tile::SliceLayoutOpInterface op, and its sliced
//    tensors, whose group is *derived*: its layout is the slice of the full
//    tensors' group's layout;
//  - the operands and result of a tile::RearrangeLayoutOpInterface op
//    (trans, reshape, join): the operands share a group, the result's is
//    derived, its layout the operands' rearranged. Each such result is first given a group of its
//    own (a conversion to its users), so that nothing else constrains it.
// An op with tensors and none of these rules is an error: nothing is tied
// by default. A group holding a memory access is *anchored* to that
// access's layout, unless the layout buys nothing (one element per thread
// of a 1-D tensor): such a weak anchor only decides when nothing else does.
//
// The tensors an scf.for carries enter and leave it through conversions
// of their own (isolateLoopBoundaries), so that the accesses around a loop
// do not tie its carried values' group.
//
// Each tilegpu.convert_layout is then a candidate merge of the groups of
// its operand and result, taken in order of decreasing rank and size (so
// that a slice is decided after the tensor it slices), then of decreasing
// loop depth (a conversion inside a loop before one at its boundary), unless the two
// groups are constrained differently (two anchors, two different
// derivations, an anchor and a derived layout that are not the same
// layout), or one derives from the other. A group rearranged from a group
// that nothing constrains can turn the derivation round (the operand's
// layout then follows from the result's, through the inverse rule), so
// that a transposed tile takes the layout of the store it feeds. Finally
// every group gets its layout (the anchor's, derived from its parent's, or
// the default for its largest shape), and conversions between equal types
// fold away.
//
// Before that, cheap index chains used by several ops are cloned per use,
// so the same tl.arange can be the rows of one tile and the columns of
// another, and two accesses that share an index computation do not tie
// each other's layouts, without a conversion. After it, a conversion that is left whose
// operand is computed only from scalars by cheap pure ops (the pointers,
// masks and `other` of an access that disagrees with its neighbours) is
// replaced by the same computation done in the wanted layout. A scan left
// in a layout its lowering cannot run along converts around itself.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/Rematerialise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tilegpu-remove-layout-conversions"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

RankedTensorType asTensor(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// Every trans and reshape result gets a group of its own: its only use
/// is a conversion (of no effect, until the groups on its two sides are
/// known to differ), so that its group is constrained by the op alone.
void isolateRearrangedResults(IRRewriter &rewriter, func::FuncOp func) {
  SmallVector<tile::RearrangeLayoutOpInterface> ops;
  func.walk([&](tile::RearrangeLayoutOpInterface op) { ops.push_back(op); });
  for (tile::RearrangeLayoutOpInterface op : ops) {
    Value result = op.getResult();
    if (result.hasOneUse() && isa<tilegpu::ConvertLayoutOp>(*result.user_begin()))
      continue;
    rewriter.setInsertionPointAfter(op);
    auto convert = rewriter.create<tilegpu::ConvertLayoutOp>(op.getLoc(),
                                                             result.getType(), result);
    rewriter.replaceAllUsesExcept(result, convert, convert);
  }
}

/// Each tensor a scf.for carries enters through a conversion before the
/// loop and leaves through one after it (of no effect, until the groups on
/// their two sides are known to differ). The values the loop carries then
/// form a group of their own, which the accesses before and after the loop
/// do not constrain: an accumulator whose dot inside the loop wants one
/// layout while a load or store after the loop wants another keeps the
/// dot's through the iterations, and converts once, after the loop, instead
/// of twice in every iteration.
void isolateLoopBoundaries(IRRewriter &rewriter, func::FuncOp func) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    rewriter.setInsertionPoint(loop);
    for (OpOperand &init : loop.getInitArgsMutable()) {
      auto type = asTensor(init.get());
      if (!type || !type.getEncoding())
        continue;
      auto convert =
          rewriter.create<tilegpu::ConvertLayoutOp>(loop.getLoc(), type, init.get());
      rewriter.modifyOpInPlace(loop, [&] { init.set(convert); });
    }
    rewriter.setInsertionPointAfter(loop);
    for (Value result : loop.getResults()) {
      auto type = asTensor(result);
      if (!type || !type.getEncoding() || result.use_empty())
        continue;
      auto convert = rewriter.create<tilegpu::ConvertLayoutOp>(loop.getLoc(), type, result);
      rewriter.replaceAllUsesExcept(result, convert, convert);
    }
  }
}

/// How many scf.for loops hold `op`.
unsigned loopDepth(Operation *op) {
  unsigned depth = 0;
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    depth += isa<scf::ForOp>(parent);
  return depth;
}

//===----------------------------------------------------------------------===//
// Layout groups
//===----------------------------------------------------------------------===//

class LayoutGroups {
public:
  LayoutGroups(func::FuncOp func, unsigned numWarps)
      : func_(func), numWarps_(numWarps) {}

  LogicalResult run(IRRewriter &rewriter);

private:
  /// What a group's layout must be.
  struct Constraint {
    Attribute anchor; ///< set by a memory access in the group
    /// Set by an access that gains nothing from its layout (one element
    /// per thread along the only dimension): used when nothing else
    /// decides, never a reason to keep a conversion.
    Attribute weakAnchor;
    /// The group's layout follows from the group of `parent`: its slice
    /// along `sliceDim`, or, when `rearrange` is set, through that op
    /// (from its operand's layout to its result's, or the inverse when
    /// `backward`).
    Value parent;
    unsigned sliceDim = 0;
    Operation *rearrange = nullptr;
    bool backward = false;
    /// The scans in the group: its layout must run along their axes as
    /// their lowering needs (ScanAxis).
    SmallVector<tile::ScanOp, 1> scans;
  };

  void tie(ValueRange values);
  LogicalResult collect();
  void mergeThroughConversions();
  void storeLayoutsDirectly(ArrayRef<tilegpu::ConvertLayoutOp> order);
  bool mergeIfAllowed(tilegpu::ConvertLayoutOp convert);
  bool canMerge(Value a, Value b, RankedTensorType type);
  bool layoutsAgree(Value a, Value b, RankedTensorType type);
  /// What the groups' constraints are once merged.
  Constraint combine(const Constraint &a, const Constraint &b);
  bool reverseToMerge(Value x, Value y, RankedTensorType type);
  /// True when group `a`'s layout follows (through one parent or more)
  /// from group `b`'s.
  bool derivesFrom(Value a, Value b);
  bool sameDerivation(const Constraint &x, const Constraint &y);
  /// The layout of a group derived by `c` from its parent's `parent`.
  Attribute derive(const Constraint &c, Attribute parent);
  /// The layout a group must have, when it is already known.
  Attribute resolved(Value leader);
  /// The layout a group would have if nothing else were decided: the
  /// resolved one, else what the weak anchors of it or its parents say.
  Attribute tentative(Value leader);
  Attribute tentative(const Constraint &c);
  Attribute layoutOf(Value leader);
  void rewrite(IRRewriter &rewriter);

  Value leader(Value v) { return groups_.getLeaderValue(v); }

  func::FuncOp func_;
  unsigned numWarps_;
  llvm::EquivalenceClasses<Value> groups_;
  llvm::SetVector<Value> tensors_;
  SmallVector<tilegpu::ConvertLayoutOp> conversions_;
  SmallVector<std::pair<Value, Attribute>> anchors_;  // value, its layout
  llvm::DenseSet<Value> storeAnchors_; ///< the anchors_ set by tile.store
  SmallVector<std::tuple<Value, Value, unsigned>> slices_; // sliced, full, dim
  SmallVector<tile::RearrangeLayoutOpInterface> rearranges_;
  SmallVector<tile::ScanOp> scans_;
  llvm::DenseMap<Value, Constraint> constraints_;     // by leader
  llvm::DenseMap<Value, Attribute> layouts_;          // by leader
};

void LayoutGroups::tie(ValueRange values) {
  Value first;
  for (Value v : values) {
    if (!v || !asTensor(v))
      continue;
    tensors_.insert(v);
    groups_.insert(v);
    if (!first)
      first = v;
    else
      groups_.unionSets(first, v);
  }
}

LogicalResult LayoutGroups::collect() {
  WalkResult walk = func_.walk([&](Operation *op) -> WalkResult {
    for (Value v : op->getResults())
      tie(v);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          tie(arg);
    if (auto convert = dyn_cast<tilegpu::ConvertLayoutOp>(op)) {
      conversions_.push_back(convert);
      return WalkResult::advance();
    }
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
      for (RegionBranchPoint point : branch.getAllRegionBranchPoints()) {
        SmallVector<RegionSuccessor> successors;
        branch.getSuccessorRegions(point, successors);
        for (const RegionSuccessor &successor : successors) {
          OperandRange operands =
              point.isParent()
                  ? branch.getEntrySuccessorOperands(successor)
                  : cast<RegionBranchTerminatorOpInterface>(
                        point.getTerminatorPredecessorOrNull())
                        .getSuccessorOperands(successor);
          for (auto [operand, input] :
               llvm::zip(operands, successor.getSuccessorInputs()))
            tie({operand, input});
        }
      }
      return WalkResult::advance();
    }
    if (isa<RegionBranchTerminatorOpInterface>(op))
      return WalkResult::advance(); // tied through its parent above
    if (auto rearrange = dyn_cast<tile::RearrangeLayoutOpInterface>(op)) {
      tie(op->getOperands());
      rearranges_.push_back(rearrange);
      return WalkResult::advance();
    }
    if (auto accumulate = dyn_cast<tile::AccumulatorOpInterface>(op)) {
      // The instruction fixed every layout: the accumulator shares the
      // result's, each other operand keeps its own.
      for (Value v : op->getOperands())
        if (asTensor(v) && v != accumulate.getAccumulator()) {
          tie(v);
          anchors_.push_back({v, asTensor(v).getEncoding()});
        }
      Value result = op->getResult(0);
      tie({accumulate.getAccumulator(), result});
      anchors_.push_back({result, asTensor(result).getEncoding()});
      return WalkResult::advance();
    }
    if (auto slice = dyn_cast<tile::SliceLayoutOpInterface>(op)) {
      SmallVector<Value> full = slice.getFullTensors(),
                         sliced = slice.getSlicedTensors();
      tie(full);
      tie(sliced);
      if (!sliced.empty())
        slices_.push_back({sliced.front(), full.front(), slice.getSliceDim()});
      return WalkResult::advance();
    }
    if (isa<tile::PrintOp, tile::TensorMapStoreOp>(op)) {
      // Printing reads each operand in whatever layout it has, and a TMA
      // store's block goes into a shared buffer from any layout (the
      // producer's, then: no conversion before it); the operands need not
      // share one.
      for (Value v : op->getOperands())
        tie(v);
      return WalkResult::advance();
    }
    SmallVector<Value> tensorValues;
    for (Value v : op->getOperands())
      if (asTensor(v))
        tensorValues.push_back(v);
    for (Value v : op->getResults())
      if (asTensor(v))
        tensorValues.push_back(v);
    if (tensorValues.empty())
      return WalkResult::advance();
    if (!op->hasTrait<tile::SameOperandsAndResultEncoding>() &&
        !op->hasTrait<OpTrait::Elementwise>()) {
      if (op->getNumOperands() == 0 || llvm::none_of(op->getOperands(), asTensor))
        return WalkResult::advance(); // a producer: free to take any layout
      op->emitError("tilegpu-remove-layout-conversions has no layout rule for '")
          << op->getName() << "'";
      return WalkResult::interrupt();
    }
    int64_t rank = asTensor(tensorValues.front()).getRank();
    for (Value v : tensorValues)
      if (asTensor(v).getRank() != rank) {
        op->emitError("'") << op->getName()
                           << "' ties tensors of different ranks to one layout";
        return WalkResult::interrupt();
      }
    tie(tensorValues);
    if (auto scan = dyn_cast<tile::ScanOp>(op))
      scans_.push_back(scan);
    // An op that touches memory keeps the layout it has: tilegpu-coalesce
    // (or whoever built it) chose it for the access. An assertion's only
    // memory effect is its report, which reads registers in any layout; a
    // local_alloc writes its buffer from any layout (the wgmma operands
    // tilegpu-accelerate-matmul stores take their producer's).
    if (!isMemoryEffectFree(op) && !isa<tile::AssertOp, tilegpu::LocalAllocOp>(op)) {
      anchors_.push_back(
          {tensorValues.front(), asTensor(tensorValues.front()).getEncoding()});
      if (isa<tile::StoreOp>(op))
        storeAnchors_.insert(tensorValues.front());
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [value, layout] : anchors_) {
    Constraint &c = constraints_[leader(value)];
    RankedTensorType type = asTensor(value);
    bool weak = type.getRank() == 1 &&
                tilegpu::toLinearLayout(type).getNumConsecutiveBits(
                    tilegpu::kRegister, tilegpu::outDimName(0)) == 0;
    Attribute &slot = weak ? c.weakAnchor : c.anchor;
    if (!slot)
      slot = layout; // a later disagreeing access in the same group yields
  }
  for (auto [sliced, full, dim] : slices_) {
    Constraint &c = constraints_[leader(sliced)];
    c.parent = full;
    c.sliceDim = dim;
  }
  for (tile::RearrangeLayoutOpInterface op : rearranges_) {
    // The result is alone in its group (isolateRearrangedResults).
    Constraint &c = constraints_[leader(op.getResult())];
    c.parent = op.getSrc();
    c.rearrange = op;
  }
  for (tile::ScanOp scan : scans_)
    constraints_[leader(scan.getSrcs()[0])].scans.push_back(scan);
  return success();
}

Attribute LayoutGroups::derive(const Constraint &c, Attribute parent) {
  if (!c.rearrange)
    return tilegpu::SliceEncodingAttr::get(parent.getContext(), c.sliceDim, parent);
  auto op = cast<tile::RearrangeLayoutOpInterface>(c.rearrange);
  Attribute layout = c.backward ? op.inferSourceEncoding(parent)
                                : op.inferResultEncoding(parent);
  assert(layout && "tilegpu layouts can always be rearranged");
  return layout;
}

Attribute LayoutGroups::resolved(Value l) {
  auto it = constraints_.find(l);
  if (it == constraints_.end())
    return Attribute();
  const Constraint &c = it->second;
  if (c.anchor)
    return c.anchor;
  if (c.parent)
    if (Attribute parent = resolved(leader(c.parent)))
      return derive(c, parent);
  return Attribute();
}

Attribute LayoutGroups::tentative(Value l) {
  return tentative(constraints_.lookup(l));
}

Attribute LayoutGroups::tentative(const Constraint &c) {
  if (c.anchor)
    return c.anchor;
  if (c.parent) {
    Attribute parent = tentative(leader(c.parent));
    return parent ? derive(c, parent) : Attribute();
  }
  return c.weakAnchor;
}

/// Whether a 1-D tensor of `shape` in `layout` is accessed as coalesced as
/// in a weak anchor's layout: the lanes that hold distinct elements hold
/// consecutive runs of a thread's consecutive registers, so that a warp
/// touches one contiguous range per register. Slices of row- and
/// column-major layouts are; the flattened transpose of a tile, whose
/// lanes are a row apart, is not.
bool keepsAccessesCoalesced(Attribute layout, ArrayRef<int64_t> shape) {
  if (shape.size() != 1)
    return true;
  tilegpu::LinearLayout l = cast<tilegpu::DistributedEncodingAttrInterface>(layout)
                       .toLinearLayout(shape);
  unsigned next = l.getNumConsecutiveBits(tilegpu::kRegister, tilegpu::outDimName(0));
  for (const tilegpu::LinearLayout::Image &image : l.getBases(tilegpu::kLane)) {
    if (!image[0])
      continue; // a copy
    if (image[0] != int32_t(1) << next)
      return false;
    ++next;
  }
  return true;
}

bool LayoutGroups::derivesFrom(Value a, Value b) {
  for (Constraint c = constraints_.lookup(a); c.parent;) {
    Value parent = leader(c.parent);
    if (parent == b)
      return true;
    c = constraints_.lookup(parent);
  }
  return false;
}

bool LayoutGroups::sameDerivation(const Constraint &x, const Constraint &y) {
  if (leader(x.parent) != leader(y.parent))
    return false;
  if (!x.rearrange || !y.rearrange)
    return !x.rearrange && !y.rearrange && x.sliceDim == y.sliceDim;
  // Two ops of one kind, attributes and shapes rearrange alike.
  Operation *p = x.rearrange, *q = y.rearrange;
  return x.backward == y.backward && p->getName() == q->getName() &&
         p->getAttrDictionary() == q->getAttrDictionary() &&
         asTensor(p->getOperand(0)).getShape() == asTensor(q->getOperand(0)).getShape() &&
         asTensor(p->getResult(0)).getShape() == asTensor(q->getResult(0)).getShape();
}

LayoutGroups::Constraint LayoutGroups::combine(const Constraint &a,
                                              const Constraint &b) {
  Constraint merged;
  merged.anchor = a.anchor ? a.anchor : b.anchor;
  merged.weakAnchor = a.weakAnchor ? a.weakAnchor : b.weakAnchor;
  const Constraint &derived = a.parent ? a : b;
  merged.parent = derived.parent;
  merged.sliceDim = derived.sliceDim;
  merged.rearrange = derived.rearrange;
  merged.backward = derived.backward;
  merged.scans = a.scans;
  merged.scans.append(b.scans.begin(), b.scans.end());
  return merged;
}

bool LayoutGroups::canMerge(Value a, Value b, RankedTensorType type) {
  if (a == b)
    return true;
  if (!layoutsAgree(a, b, type))
    return false;
  // Every layout the compiler writes as #blocked or #slice suits a scan;
  // a derived #linear may not (a flattened transpose). Its group then
  // keeps out of the scan's, which keeps a layout the scan can run along.
  Constraint merged = combine(constraints_.lookup(a), constraints_.lookup(b));
  if (merged.scans.empty())
    return true;
  Attribute layout = tentative(merged);
  if (!layout)
    return true; // decided later; convertAroundScans is the last resort
  for (tile::ScanOp scan : merged.scans)
    if (!ScanAxis::of(tilegpu::toLinearLayout(
                          asTensor(scan.getSrcs()[0]).cloneWithEncoding(layout)),
                      scan.getAxis()))
      return false;
  return true;
}

bool LayoutGroups::layoutsAgree(Value a, Value b, RankedTensorType type) {
  // A group merged into one it derives from would derive from itself.
  if (derivesFrom(a, b) || derivesFrom(b, a))
    return false;
  Constraint ca = constraints_.lookup(a), cb = constraints_.lookup(b);
  bool constrainedA = ca.anchor || ca.parent, constrainedB = cb.anchor || cb.parent;
  if (!constrainedA || !constrainedB) {
    // A weak anchor follows its neighbour's layout unless that would
    // scatter its accesses (the flattened transpose of a tile).
    const Constraint &free = constrainedA ? cb : ca;
    if (free.weakAnchor)
      if (Attribute layout = tentative(constrainedA ? a : b))
        return keepsAccessesCoalesced(layout, type.getShape());
    return true;
  }
  if (ca.parent && cb.parent && !ca.anchor && !cb.anchor)
    return sameDerivation(ca, cb);
  // Otherwise both layouts must be known already, and the same.
  Attribute ra = resolved(a), rb = resolved(b);
  return ra && rb && tilegpu::isSameLayout(ra, rb, type.getShape());
}

/// Group `x`, rearranged from a group `p` that nothing constrains, cannot
/// merge with `y`: let `p`'s layout follow from `x`'s instead (the inverse
/// rule), which frees `x`. Kept only when the merge then succeeds.
bool LayoutGroups::reverseToMerge(Value x, Value y, RankedTensorType type) {
  auto it = constraints_.find(x);
  if (it == constraints_.end() || it->second.anchor || !it->second.rearrange)
    return false;
  Constraint cx = it->second;
  auto op = cast<tile::RearrangeLayoutOpInterface>(cx.rearrange);
  if (!op.isInvertible())
    return false; // some layouts of x would have no layout for p
  Value p = leader(cx.parent);
  Constraint cp = constraints_.lookup(p);
  if (cp.anchor || cp.parent)
    return false;
  Constraint reversed = cp, freed;
  reversed.parent = cx.backward ? op.getSrc() : op.getResult(); // in x's group
  reversed.rearrange = cx.rearrange;
  reversed.backward = !cx.backward;
  freed.weakAnchor = cx.weakAnchor;
  freed.scans = cx.scans;
  constraints_[p] = reversed;
  constraints_[x] = freed;
  // `p`'s weak anchor yields to the reversed layout only if its accesses
  // stay coalesced.
  Attribute merged = tentative(y);
  Value inP = cx.backward ? op.getResult() : op.getSrc();
  bool keepsWeak = !cp.weakAnchor || !merged ||
                   keepsAccessesCoalesced(derive(reversed, merged),
                                          asTensor(inP).getShape());
  if (keepsWeak && canMerge(x, y, type))
    return true;
  constraints_[p] = cp;
  constraints_[x] = cx;
  return false;
}

void LayoutGroups::mergeThroughConversions() {
  // A slice is decided after the tensor it slices: higher ranks first, and
  // larger tensors (whose conversions cost more) before smaller ones; of
  // equal tensors, those in deeper loops, whose conversions run more often
  // (an accumulator's conversions around its dot before the one after its
  // loop).
  SmallVector<tilegpu::ConvertLayoutOp> order(conversions_);
  llvm::DenseMap<Operation *, unsigned> depth;
  for (tilegpu::ConvertLayoutOp convert : order)
    depth[convert] = loopDepth(convert);
  std::stable_sort(order.begin(), order.end(),
                   [&](tilegpu::ConvertLayoutOp x, tilegpu::ConvertLayoutOp y) {
                     RankedTensorType tx = x.getType(), ty = y.getType();
                     if (tx.getRank() != ty.getRank())
                       return tx.getRank() > ty.getRank();
                     if (tx.getNumElements() != ty.getNumElements())
                       return tx.getNumElements() > ty.getNumElements();
                     return depth[x] > depth[y];
                   });
  for (tilegpu::ConvertLayoutOp convert : order)
    mergeIfAllowed(convert);
  storeLayoutsDirectly(order);
}

bool LayoutGroups::mergeIfAllowed(tilegpu::ConvertLayoutOp convert) {
  Value a = leader(convert.getSrc()), b = leader(convert.getResult());
  RankedTensorType type = convert.getType();
  if (!canMerge(a, b, type) && !reverseToMerge(a, b, type) &&
      !reverseToMerge(b, a, type))
    return false;
  Constraint merged = combine(constraints_.lookup(a), constraints_.lookup(b));
  constraints_.erase(a);
  constraints_.erase(b);
  groups_.unionSets(a, b);
  if (merged.anchor || merged.weakAnchor || merged.parent || !merged.scans.empty())
    constraints_[leader(a)] = merged;
  return true;
}

namespace {
/// Bytes of one row that a warp's store instruction writes contiguously
/// from `layout` along its last dimension: the registers and then the
/// lanes that continue along it.
int64_t contiguousRowBytes(RankedTensorType type, Attribute layout) {
  tilegpu::LinearLayout l =
      tilegpu::toLinearLayout(type.cloneWithEncoding(layout));
  unsigned last = type.getRank() - 1;
  int32_t run = int32_t(1) << l.getNumConsecutiveBits(tilegpu::kRegister,
                                                      tilegpu::outDimName(last));
  for (const tilegpu::LinearLayout::Image &image : l.getBases(tilegpu::kLane)) {
    bool along = image[last] == run;
    for (unsigned d = 0; d < last; ++d)
      along = along && image[d] == 0;
    if (!along)
      break;
    run *= 2;
  }
  return int64_t(run) * tile::getElementBytes(type.getElementType());
}
} // namespace

namespace {
/// Bytes a thread stores in one vector access from `layout`: its
/// consecutive registers along the last dimension, up to 16.
int64_t vectorBytes(RankedTensorType type, Attribute layout) {
  tilegpu::LinearLayout l = tilegpu::toLinearLayout(type.cloneWithEncoding(layout));
  int64_t run = int64_t(1) << l.getNumConsecutiveBits(
                    tilegpu::kRegister, tilegpu::outDimName(type.getRank() - 1));
  return std::min<int64_t>(16, run * tile::getElementBytes(type.getElementType()));
}
} // namespace

/// A conversion to the coalesced layout of a store costs a shared-memory
/// round trip and two barriers. Where the value's own layout stores as
/// well, the store takes it instead and the conversion disappears from
/// --emit tilegpu:
///  - an MMA accumulator, when the store can write whole 32-byte sectors
///    of each row straight from the fragment (f32 and i32 outputs: 4
///    lanes x 2 elements x 4 bytes) and the memory is row-major (the
///    coalesced layout runs along the last dimension). Narrower outputs
///    (f16 after a cast) keep it: half sectors per instruction would
///    double the memory transactions.
///  - a rearranged tile (a join, interleave, cat, trans or reshape of
///    loaded values), when each thread's vectors are as wide as the
///    coalesced layout's and a warp still writes whole sectors of a row
///    (or as much of a row as the coalesced layout, of narrow rows):
///    an interleave of two loaded vectors stores 8 consecutive floats per
///    thread where the store alone would have chosen 4.
void LayoutGroups::storeLayoutsDirectly(ArrayRef<tilegpu::ConvertLayoutOp> order) {
  for (tilegpu::ConvertLayoutOp convert : order) {
    Value a = leader(convert.getSrc()), b = leader(convert.getResult());
    if (a == b)
      continue;
    Constraint ca = constraints_.lookup(a), cb = constraints_.lookup(b);
    if (!cb.anchor || cb.parent || !cb.scans.empty())
      continue;
    auto coalesced = dyn_cast<tilegpu::BlockedEncodingAttr>(cb.anchor);
    RankedTensorType type = convert.getType();
    if (!coalesced || coalesced.getOrder().front() != type.getRank() - 1)
      continue;
    Attribute own;
    int64_t rowBytes = 32;
    if (isa_and_present<tilegpu::MmaEncodingAttr>(ca.anchor)) {
      own = ca.anchor;
    } else if (!ca.anchor && ca.rearrange) {
      own = resolved(a);
      if (!own || vectorBytes(type, own) < vectorBytes(type, coalesced))
        continue;
      // Rows narrower than a sector: as much of each as the store's own.
      rowBytes = std::min(rowBytes, contiguousRowBytes(type, coalesced));
    }
    if (!own || contiguousRowBytes(type, own) < rowBytes)
      continue;
    bool onlyStores = llvm::all_of(anchors_, [&](auto &anchor) {
      return leader(anchor.first) != b || storeAnchors_.contains(anchor.first);
    });
    if (!onlyStores)
      continue;
    Constraint demoted = cb;
    demoted.weakAnchor = cb.anchor;
    demoted.anchor = Attribute();
    constraints_[b] = demoted;
    if (!mergeIfAllowed(convert))
      constraints_[b] = cb;
  }
}

Attribute LayoutGroups::layoutOf(Value l) {
  if (Attribute known = layouts_.lookup(l))
    return known;
  Attribute layout;
  Constraint c = constraints_.lookup(l);
  if (c.anchor) {
    layout = c.anchor;
  } else if (c.parent) {
    layout = derive(c, layoutOf(leader(c.parent)));
  } else if (c.weakAnchor) {
    layout = c.weakAnchor;
  } else {
    // A free group: the default layout of its largest shape.
    RankedTensorType largest;
    for (Value member : groups_.members(l))
      if (!largest || asTensor(member).getNumElements() > largest.getNumElements())
        largest = asTensor(member);
    layout = tilegpu::getDefaultBlockedLayout(l.getContext(), largest.getShape(),
                                              numWarps_);
  }
  layouts_[l] = layout;
  return layout;
}

void LayoutGroups::rewrite(IRRewriter &rewriter) {
  for (Value v : tensors_) {
    Attribute layout = layoutOf(leader(v));
    if (asTensor(v).getEncoding() == layout)
      continue;
    Operation *owner = v.getDefiningOp();
    auto update = [&] { tilegpu::setEncoding(v, layout); };
    if (owner)
      rewriter.modifyOpInPlace(owner, update);
    else
      update(); // a block argument: its type is the block's own
  }
  for (tilegpu::ConvertLayoutOp convert : conversions_)
    if (convert.getSrc().getType() == convert.getType())
      rewriter.replaceOp(convert, convert.getSrc());
}

LogicalResult LayoutGroups::run(IRRewriter &rewriter) {
  if (failed(collect()))
    return failure();
  mergeThroughConversions();
  rewrite(rewriter);
  return success();
}

/// A scan runs along its axis as a thread's registers, consecutive lanes,
/// consecutive warps and repetitions (ScanAxis), which every blocked
/// layout and slice does. A group that ends up in another layout (a tile
/// transposed and reshaped) converts around each of its scans, to and from
/// the default layout of the scan's shape.
void convertAroundScans(IRRewriter &rewriter, func::FuncOp func, unsigned numWarps) {
  SmallVector<tile::ScanOp> scans;
  func.walk([&](tile::ScanOp op) { scans.push_back(op); });
  for (tile::ScanOp scan : scans) {
    RankedTensorType type = asTensor(scan.getSrcs()[0]);
    if (ScanAxis::of(tilegpu::toLinearLayout(type), scan.getAxis()))
      continue;
    Attribute layout =
        tilegpu::getDefaultBlockedLayout(func.getContext(), type.getShape(), numWarps);
    rewriter.setInsertionPoint(scan);
    for (OpOperand &operand : scan->getOpOperands()) {
      auto convert = rewriter.create<tilegpu::ConvertLayoutOp>(
          scan.getLoc(), asTensor(operand.get()).cloneWithEncoding(layout), operand.get());
      rewriter.modifyOpInPlace(scan, [&] { operand.set(convert); });
    }
    rewriter.setInsertionPointAfter(scan);
    for (Value result : scan.getResults()) {
      Type old = result.getType();
      rewriter.modifyOpInPlace(scan, [&] { tilegpu::setEncoding(result, layout); });
      auto convert = rewriter.create<tilegpu::ConvertLayoutOp>(scan.getLoc(), old, result);
      rewriter.replaceAllUsesExcept(result, convert, convert);
    }
  }
}

struct TileGPURemoveLayoutConversionsPass
    : tilec::impl::TileGPURemoveLayoutConversionsBase<
          TileGPURemoveLayoutConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned numWarps = tilegpu::getNumWarps(module);
    if (!numWarps) {
      module.emitError("tilegpu-remove-layout-conversions needs a module that "
                       "went through tile-to-tilegpu");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      rematerialiseSharedChains(rewriter, func);
      isolateRearrangedResults(rewriter, func);
      isolateLoopBoundaries(rewriter, func);
      if (failed(LayoutGroups(func, numWarps).run(rewriter)))
        return signalPassFailure();
      rematerialiseConversions(rewriter, func);
      convertAroundScans(rewriter, func, numWarps);
    }
    // The originals of cloned index chains are often dead now.
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (isa<tile::TileDialect, arith::ArithDialect, tilegpu::TileGPUDialect>(
              op->getDialect()) &&
          isOpTriviallyDead(op))
        rewriter.eraseOp(op);
    });
  }
};
} // namespace
