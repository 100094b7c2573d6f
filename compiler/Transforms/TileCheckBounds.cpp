// tile-check-bounds: the bounds checks of a debug compile. Each pointer
// argument gets a hidden i64 argument, the extent of the caller's buffer
// from that pointer on (the runtime passes it); each load, store and
// atomic whose addresses derive from one pointer argument asserts,
// element by element, that the bytes it touches lie inside that extent.
// The assertion's location is the access's, so a failure names the
// user's line.
#include "compiler/Analysis/PointerOrigin.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
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

struct TileCheckBoundsPass : tilec::impl::TileCheckBoundsBase<TileCheckBoundsPass> {
  void runOnOperation() override {
    // Origins first, over the module as the source wrote it.
    PointerOriginAnalysis origins(getOperation());
    // Kernels are the public functions; helpers (private, inlined before
    // this pass in the compiler's pipeline) are left alone: their callers
    // would not pass the extents.
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() && failed(check(func, origins)))
        return signalPassFailure();
  }

  LogicalResult check(func::FuncOp func, const PointerOriginAnalysis &origins) {
    SmallVector<std::pair<Operation *, BlockArgument>> accesses;
    func.walk([&](Operation *op) {
      if (isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp>(op))
        if (BlockArgument origin = origins.originOf(op->getOperand(0)))
          accesses.push_back({op, origin});
    });

    // The extents, after every argument the source has.
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type();
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

    for (auto [op, origin] : accesses) {
      Value mask;
      const char *what = "atomic access of";
      if (auto load = dyn_cast<tile::LoadOp>(op))
        mask = load.getMask(), what = "load from";
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        mask = store.getMask(), what = "store to";
      else if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
        mask = rmw.getMask();
      b.setInsertionPoint(op);
      guard(b, op, op->getOperand(0), mask, origin, extentOf.lookup(origin), what);
    }
    return success();
  }

  /// tile.assert that every unmasked element of `ptr` (one `pointee` of
  /// it) lies in [origin, origin + extent); a negative extent (the runtime
  /// could not tell) allows everything.
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
    Value unknown = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, extents, zero);
    ok = b.create<arith::OrIOp>(loc, ok, unknown);
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
