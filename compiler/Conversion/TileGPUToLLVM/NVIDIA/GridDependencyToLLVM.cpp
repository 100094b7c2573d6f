// tile.grid_dependency_wait and tile.launch_dependents: griddepcontrol, the
// device side of programmatic dependent launch, on sm_90+. Before sm_90 no
// launch can overlap the one before it, so there is nothing to wait for
// and nothing to release: the ops go away. Inline PTX with a memory
// clobber, not NVVM's intrinsics: those are marked as touching no memory,
// and the loads of the earlier kernel's results must stay after the wait.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <type_traits>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
template <typename Op>
struct GridDependencyLowering : OpConversionPattern<Op> {
  GridDependencyLowering(TileTypeConverter &converter, const LoweringContext &context)
      : OpConversionPattern<Op>(converter, &converter.getContext()), context(context) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (context.target.computeCapability >= 90)
      orderedAsm(rewriter, op.getLoc(), LLVM::LLVMVoidType::get(op.getContext()), ValueRange(),
                 ptx, "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
  const LoweringContext &context;
  static constexpr const char *ptx = std::is_same_v<Op, tile::GridDependencyWaitOp>
                                         ? "griddepcontrol.wait;"
                                         : "griddepcontrol.launch_dependents;";
};
} // namespace

void tilec::lowering::populateGridDependencyToLLVMPatterns(TileTypeConverter &converter,
                                                           const LoweringContext &context,
                                                           RewritePatternSet &patterns) {
  patterns.add<GridDependencyLowering<tile::GridDependencyWaitOp>,
               GridDependencyLowering<tile::LaunchDependentsOp>>(converter, context);
}
