#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec::tilegpu;

#include "compiler/Dialect/TileGPU/TileGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUOps.cpp.inc"

namespace {
/// Layouts print as aliases (#blocked, #slice) at the top of a module, so
/// that tensor types stay readable.
struct TileGPUAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceEncodingAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/Dialect/TileGPU/TileGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/Dialect/TileGPU/TileGPUOps.cpp.inc"
      >();
  addInterfaces<TileGPUAsmInterface>();
}

unsigned tilec::tilegpu::getNumWarps(ModuleOp module) {
  if (auto attr = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
    return attr.getInt();
  return 0;
}

static unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

unsigned BlockedEncodingAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}

LogicalResult BlockedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
    ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0)
    return emitError() << "blocked layout needs rank >= 1";
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "blocked layout fields must all have rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "blocked layout order must be a permutation of 0.."
                         << rank - 1;
    seen[d] = true;
  }
  if (product(threadsPerWarp) != kThreadsPerWarp)
    return emitError() << "threadsPerWarp must multiply to "
                       << kThreadsPerWarp;
  for (size_t d = 0; d < rank; ++d)
    if (!llvm::isPowerOf2_32(sizePerThread[d]) ||
        !llvm::isPowerOf2_32(threadsPerWarp[d]) ||
        !llvm::isPowerOf2_32(warpsPerCTA[d]))
      return emitError() << "blocked layout fields must be powers of two";
  return success();
}

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  unsigned parentRank;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(parent))
    parentRank = blocked.getRank();
  else if (auto slice = dyn_cast<SliceEncodingAttr>(parent)) {
    (void)slice;
    parentRank = 0; // checked below through the rank of its own parent
    Attribute p = parent;
    unsigned removed = 0;
    while (auto s = dyn_cast<SliceEncodingAttr>(p)) {
      p = s.getParent();
      ++removed;
    }
    auto root = dyn_cast<BlockedEncodingAttr>(p);
    if (!root)
      return emitError() << "slice layout must end in a blocked layout";
    parentRank = root.getRank() - removed;
  } else
    return emitError() << "slice parent must be a blocked or slice layout";
  if (parentRank < 2)
    return emitError() << "slice of a rank-" << parentRank
                       << " layout would have no dimensions";
  if (dim >= parentRank)
    return emitError() << "slice dim " << dim << " out of range for rank "
                       << parentRank;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // convert(convert(x)) → convert(x), or x itself when it round-trips.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}
