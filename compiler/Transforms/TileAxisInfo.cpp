// tile-axis-info: print the axis-info analysis as remarks, one per value.
#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "tile-axis-info"

namespace tilec {
#define GEN_PASS_DEF_TILEAXISINFO
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {
bool isTracked(Type type) {
  Type element = tilec::tile::getElementTypeOrSelf(type);
  return isa<IntegerType, tilec::tile::PointerType>(element);
}

std::string describe(const tilec::AxisInfo &info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto list = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "contiguity = ";
  list(info.contiguity);
  os << ", divisibility = ";
  list(info.divisibility);
  os << ", constancy = ";
  list(info.constancy);
  if (info.constantValue)
    os << ", constant = " << *info.constantValue;
  return text;
}

struct TileAxisInfoPass : tilec::impl::TileAxisInfoBase<TileAxisInfoPass> {
  void runOnOperation() override {
    tilec::AxisInfoAnalysis analysis(getOperation());
    getOperation().walk([&](func::FuncOp func) {
      for (BlockArgument arg : func.getArguments())
        if (isTracked(arg.getType()))
          func.emitRemark() << "arg " << arg.getArgNumber() << ": "
                            << describe(analysis.lookup(arg));
      func.walk([&](Operation *op) {
        for (Value result : op->getResults())
          if (isTracked(result.getType()))
            op->emitRemark() << describe(analysis.lookup(result));
      });
    });
  }
};
} // namespace
