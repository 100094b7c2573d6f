// tilegpu-decompose-conversions: a convert_layout that moves elements
// between warps goes through shared memory, and this pass makes that
// visible: it becomes a local_alloc of the tensor into a buffer and a
// local_load from it. The buffer's layout (a #tilegpu.shared_linear) is
// computed from the two layouts (conflictFreeSharedLayout): its lowest
// offsets are the vector both sides can move, and its row bits are XOR-
// swizzled so that neither side's lanes meet in a bank. The allocator then
// places the buffer and the barrier analysis orders its write and read.
// Conversions within a warp (register permutations, shuffles) stay.
//
// A dot operand that is tl.trans of a 2-D tile is stored untransposed and
// read through a tilegpu.memdesc_trans view of its buffer (x @ W^T stores
// W's tile as it was loaded): the trans leaves registers alone, and a
// loaded tile then goes straight from its load into the buffer, which
// tilegpu-pipeline-loads can fill with asynchronous copies, instead of
// being read back from its pipeline ring into registers, transposed and
// stored a second time.
//
// The two operands of a tile.dot are both stored before either is read
// back (their local_loads move down to the dot), so that one barrier
// orders both writes before both reads, and the allocator gives the two
// buffers separate space instead of one barrier-separated slot.
#include "compiler/Analysis/Wgmma.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tilegpu-decompose-conversions"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUDECOMPOSECONVERSIONS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {
/// The tile a conversion to a dot operand transposes (tile.trans of a 2-D
/// tile, order [1, 0]), or null.
tile::TransOp transposedDotOperand(tilegpu::ConvertLayoutOp op) {
  auto trans = op.getSrc().getDefiningOp<tile::TransOp>();
  if (!isTranspose(trans) ||
      !isa<tilegpu::DotOperandEncodingAttr>(op.getType().getEncoding()))
    return nullptr;
  return trans;
}

struct DecomposeThroughSharedMemory
    : OpRewritePattern<tilegpu::ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tilegpu::ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), dstType = op.getType();
    if (tilegpu::classifyConversion(srcType, dstType) !=
        tilegpu::ConversionKind::SharedMemory)
      return rewriter.notifyMatchFailure(op, "stays within a warp");
    Type element = srcType.getElementType();
    unsigned bytes =
        isa<tile::PointerType>(element) ? 0 : tile::getElementBytes(element);
    // The tile stored and the layout it is read in, both in the stored
    // tile's coordinates (the transposed tile's, for a view).
    Value stored = op.getSrc();
    RankedTensorType readAs = dstType;
    tile::TransOp trans = transposedDotOperand(op);
    if (trans) {
      stored = trans.getSrc();
      readAs = trans.getSrc().getType().cloneWithEncoding(
          trans.inferSourceEncoding(dstType.getEncoding()));
    }
    RankedTensorType storedType = cast<RankedTensorType>(stored.getType());
    tilegpu::LinearLayout shared = tilegpu::conflictFreeSharedLayout(
        tilegpu::toLinearLayout(storedType), tilegpu::toLinearLayout(readAs), bytes);
    auto bufferType = tilegpu::MemDescType::get(
        getContext(), storedType.getShape(), element,
        tilegpu::SharedLinearEncodingAttr::get(getContext(), shared),
        /*mutableMemory=*/false);
    Value buffer =
        rewriter.create<tilegpu::LocalAllocOp>(op.getLoc(), bufferType, stored);
    if (trans)
      buffer = rewriter.create<tilegpu::MemDescTransOp>(
          op.getLoc(), tilegpu::MemDescTransOp::transposedType(bufferType), buffer);
    rewriter.replaceOpWithNewOp<tilegpu::LocalLoadOp>(op, dstType, buffer);
    if (trans && trans->use_empty())
      rewriter.eraseOp(trans);
    return success();
  }
};

struct TileGPUDecomposeConversionsPass
    : tilec::impl::TileGPUDecomposeConversionsBase<
          TileGPUDecomposeConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeThroughSharedMemory>(&getContext());
    // One rewrite per conversion, none creating another: walk once.
    SmallVector<tilegpu::ConvertLayoutOp> conversions;
    getOperation().walk(
        [&](tilegpu::ConvertLayoutOp op) { conversions.push_back(op); });
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    SmallVector<Operation *> ops(conversions.begin(), conversions.end());
    if (failed(applyOpPatternsGreedily(ops, frozen, config)))
      return signalPassFailure();
    getOperation().walk([](tile::DotOp dot) {
      for (Value operand : {dot.getA(), dot.getB()})
        if (auto load = operand.getDefiningOp<tilegpu::LocalLoadOp>())
          if (load->getBlock() == dot->getBlock() && load->hasOneUse())
            load->moveBefore(dot);
    });
  }
};
} // namespace
