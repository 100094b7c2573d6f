// tile-check-bounds: the bounds checks of a debug compile. Each pointer
// argument gets a hidden i64 argument, the extent of the caller's buffer
// from that pointer on (the runtime passes it); each load and store whose
// addresses derive from one pointer argument asserts, element by element,
// that the bytes it touches lie inside that extent. The assertion's
// location is the access's, so a failure names the user's line.
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "tile-check-bounds"

namespace tilec {
#define GEN_PASS_DEF_TILECHECKBOUNDS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Which pointer argument of a kernel a pointer value (scalar or tensor)
/// is derived from, every element of it.
class PointerOrigins {
public:
  explicit PointerOrigins(func::FuncOp func) : entry_(&func.getBody().front()) {}

  /// The argument, or null when the value is not derived from exactly one.
  BlockArgument originOf(Value v) {
    if (++depth_ > kMaxDepth) {
      --depth_;
      return nullptr;
    }
    BlockArgument origin = lookThrough(v);
    --depth_;
    return origin;
  }

private:
  /// Deep enough for any chain a kernel builds; a guard against cycles the
  /// assumptions below do not cut.
  static constexpr unsigned kMaxDepth = 256;

  BlockArgument lookThrough(Value v) {
    if (auto it = assumed_.find(v); it != assumed_.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == entry_)
        return isa<tile::PointerType>(arg.getType()) ? arg : nullptr;
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (arg != loop.getInductionVar())
          return carried(loop, arg.getArgNumber() - loop.getNumInductionVars());
      return nullptr;
    }
    Operation *def = v.getDefiningOp();
    if (auto addptr = dyn_cast<tile::AddPtrOp>(def))
      return originOf(addptr.getPtr());
    if (isa<tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp, tile::ReshapeOp,
            tile::TransOp>(def))
      return originOf(def->getOperand(0));
    if (auto select = dyn_cast<arith::SelectOp>(def))
      return same(originOf(select.getTrueValue()), originOf(select.getFalseValue()));
    unsigned index = cast<OpResult>(v).getResultNumber();
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return carried(loop, index);
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      if (branch.getElseRegion().empty())
        return nullptr;
      return same(originOf(branch.thenYield().getOperand(index)),
                  originOf(branch.elseYield().getOperand(index)));
    }
    return nullptr;
  }

  static BlockArgument same(BlockArgument a, BlockArgument b) {
    return a == b ? a : nullptr;
  }

  /// Iteration value `k` of `loop`: derived from an argument when its
  /// initial value is, and the value yielded for the next iteration is too,
  /// assuming it of the iteration value itself.
  BlockArgument carried(scf::ForOp loop, unsigned k) {
    BlockArgument init = originOf(loop.getInitArgs()[k]);
    if (!init)
      return nullptr;
    Value iterArg = loop.getRegionIterArgs()[k];
    if (assumed_.count(iterArg))
      return assumed_[iterArg];
    assumed_[iterArg] = init;
    BlockArgument next = originOf(loop.getYieldedValues()[k]);
    assumed_.erase(iterArg);
    return same(init, next);
  }

  Block *entry_;
  llvm::DenseMap<Value, BlockArgument> assumed_;
  unsigned depth_ = 0;
};

struct TileCheckBoundsPass : tilec::impl::TileCheckBoundsBase<TileCheckBoundsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(check(func)))
        return signalPassFailure();
  }

  LogicalResult check(func::FuncOp func) {
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type();
    // The extents, after every argument the source has.
    unsigned numArgs = func.getNumArguments();
    llvm::DenseMap<BlockArgument, BlockArgument> extentOf;
    for (unsigned i = 0; i < numArgs; ++i) {
      BlockArgument arg = func.getArgument(i);
      if (!isa<tile::PointerType>(arg.getType()))
        continue;
      unsigned at = func.getNumArguments();
      NamedAttribute marker(b.getStringAttr(tile::kExtentOfAttr), b.getI64IntegerAttr(i));
      if (failed(func.insertArgument(at, i64, b.getDictionaryAttr(marker), arg.getLoc())))
        return func.emitError("tile-check-bounds cannot add an argument");
      extentOf[arg] = func.getArgument(at);
    }

    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<tile::LoadOp, tile::StoreOp>(op))
        accesses.push_back(op);
    });
    PointerOrigins origins(func);
    for (Operation *op : accesses) {
      Value ptr = op->getOperand(0);
      BlockArgument origin = origins.originOf(ptr);
      if (!origin)
        continue;
      Value mask = isa<tile::LoadOp>(op) ? cast<tile::LoadOp>(op).getMask()
                                         : cast<tile::StoreOp>(op).getMask();
      b.setInsertionPoint(op);
      guard(b, op, ptr, mask, origin, extentOf.lookup(origin),
            isa<tile::LoadOp>(op) ? "load from" : "store to");
    }
    return success();
  }

  /// tile.assert that every unmasked element of `ptr` (one `pointee` of
  /// it) lies in [origin, origin + extent).
  static void guard(OpBuilder &b, Operation *access, Value ptr, Value mask,
                    BlockArgument origin, Value extent, StringRef what) {
    Location loc = access->getLoc();
    Type i64 = b.getI64Type();
    auto tensor = dyn_cast<RankedTensorType>(ptr.getType());
    auto like = [&](Type element) -> Type {
      return tensor ? Type(tensor.clone(element)) : element;
    };
    auto spread = [&](Value scalar) -> Value {
      return tensor ? b.create<tile::SplatOp>(loc, like(scalar.getType()), scalar).getResult()
                    : scalar;
    };
    auto constant = [&](Type type, int64_t v) -> Value {
      TypedAttr attr = b.getIntegerAttr(tile::getElementTypeOrSelf(type), v);
      if (tensor)
        attr = DenseElementsAttr::get(cast<ShapedType>(type), attr);
      return b.create<arith::ConstantOp>(loc, attr);
    };
    Type pointee = tile::getElementTypeOrSelf(tile::getPointeeTypeLike(ptr.getType()));
    int64_t bytes = tile::getElementBytes(pointee);

    Value base = b.create<tile::PtrToIntOp>(loc, i64, origin);
    Value address = b.create<tile::PtrToIntOp>(loc, like(i64), ptr);
    Value offset = b.create<arith::SubIOp>(loc, address, spread(base));
    Value extents = spread(extent);
    Value size = constant(like(i64), bytes);
    Value last = b.create<arith::SubIOp>(loc, extents, size);
    // (Built one statement at a time: the IR's order must not depend on
    // the order the compiler evaluates arguments in.)
    Value zero = constant(like(i64), 0);
    Value notBefore = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, offset, zero);
    Value notPast = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, offset, last);
    Value ok = b.create<arith::AndIOp>(loc, notBefore, notPast);
    if (mask) {
      Value ones = constant(mask.getType(), 1);
      Value off = b.create<arith::XOrIOp>(loc, mask, ones);
      ok = b.create<arith::OrIOp>(loc, ok, off);
    }
    auto func = origin.getOwner()->getParentOp();
    auto name = cast<func::FuncOp>(func).getArgAttrOfType<StringAttr>(
        origin.getArgNumber(), tile::kArgNameAttr);
    std::string argument = name ? "'" + name.str() + "'"
                                : "argument " + std::to_string(origin.getArgNumber() + 1);
    b.create<tile::AssertOp>(
        loc, ok, ValueRange{offset, extents},
        b.getStringAttr("out-of-bounds " + what.str() + " " + argument),
        b.getStrArrayAttr({"byte offset ", " outside the ", " bytes it points to"}),
        b.getDenseBoolArrayAttr({true, true}));
  }
};
} // namespace
