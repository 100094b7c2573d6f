// mbarriers and the Tensor Memory Accelerator on sm_90, as inline PTX:
//
//   init_barrier     thread 0: mbarrier.init; fence.mbarrier_init
//   inval_barrier    thread 0: mbarrier.inval
//   barrier_expect   thread 0 (and pred): mbarrier.arrive.expect_tx
//   wait_barrier     every thread: mbarrier.try_wait.parity until it holds
//   async_tma_copy   thread 0 (and pred): fence.proxy.async, then one
//                    cp.async.bulk.tensor per column of the buffer's
//                    swizzle, each completing on the barrier (with
//                    tilegpu.multicast, the CTA's share of the columns,
//                    multicast to every CTA of the cluster)
//   tma_store        thread 0: waits for its earlier stores to complete,
//                    fence.proxy.async, one cp.async.bulk.tensor per
//                    column from the buffer to global memory, one bulk
//                    group
//   tma_store_wait   every thread: cp.async.bulk.wait_group.read 0 (only
//                    the issuing thread has groups to wait for)
//   arrive_barrier   lane 0 of each warp: mbarrier.arrive (with
//                    tilegpu.cluster_arrive, in every CTA of the cluster)
//   warp_id          the thread index >> 5
//   set_max_registers  every thread of the warpgroup: setmaxnreg.inc/dec
//
// One thread issues what acts once for the CTA; the barrier's phase is what
// every thread then waits on. In a warp-specialised kernel's producer warp
// (tilegpu.lane_zero on the op) the issuing thread is lane 0 of that warp.
// The map is a grid-constant kernel parameter (its generic address,
// cvta.param); coordinates go to TMA innermost first, as the map lists its
// dimensions. A swizzled buffer holds the block as
// columns of `swizzleBytes`, each `rows` long, one after the other
// (#tilegpu.nvmma_shared): column k is copied from k box widths further
// along the row into k column sizes further into the buffer.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

Type voidType(OpBuilder &b) { return LLVM::LLVMVoidType::get(b.getContext()); }

/// The i32 shared-memory address of a buffer (an !llvm.ptr<3>).
Value sharedAddress32(OpBuilder &b, Location loc, Value ptr) {
  return b.create<LLVM::PtrToIntOp>(loc, b.getI32Type(), ptr);
}

/// What a TMA copy of a 2-D block moves, either way: the buffer's layout
/// (the verifier checked that TMA copies the block), the map's generic
/// address, the buffer's shared address, and the block's first row and
/// column in the tensor.
struct TMACopy {
  TMABlockLayout layout;
  Value map, buffer, row, column;

  TMACopy(OpBuilder &b, Location loc, tilegpu::MemDescType type, Value mapParam, Value bufferPtr,
          ValueRange coords)
      : layout(*tilegpu::getTMABlockLayout(type.getShape(), type.getElementType())),
        map(b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), mapParam)),
        buffer(sharedAddress32(b, loc, bufferPtr)), row(coords[0]), column(coords[1]) {}

  /// Calls `copy(at, inner)` for each copy: the shared address of its
  /// column of the buffer and its first column in the tensor, `column`
  /// plus the box widths before it. (An unswizzled block is one copy: no
  /// second column.)
  void forEachColumn(OpBuilder &b, Location loc, function_ref<void(Value, Value)> copy) const {
    int64_t columnBytes = int64_t(layout.boxRows) * layout.swizzleBytes;
    for (unsigned k = 0; k < layout.copies; ++k) {
      Value at =
          k ? b.create<LLVM::AddOp>(loc, buffer, i32Constant(b, loc, k * columnBytes)).getResult()
            : buffer;
      Value inner =
          k ? b.create<LLVM::AddOp>(loc, column, i32Constant(b, loc, k * layout.boxCols))
                  .getResult()
            : column;
      copy(at, inner);
    }
  }
};

/// Every op here needs sm_90's mbarrier transactions and TMA.
LogicalResult needsHopper(Operation *op, const LoweringContext &context) {
  if (context.target.computeCapability >= 90)
    return success();
  return op->emitOpError() << "needs sm_90 or newer (TMA and mbarrier transactions), not "
                           << context.target.chip;
}

/// Replaces `op` with `ptx` issued by one thread (electedThread, and where
/// `pred` holds when given) on the mbarrier `barrier`: $0 is the
/// predicate, $1 the barrier's shared address.
LogicalResult lowerToElectedBarrierAsm(Operation *op, Value barrier, Value pred,
                                       StringRef ptx, const LoweringContext &context,
                                       ConversionPatternRewriter &rewriter) {
  if (failed(needsHopper(op, context)))
    return failure();
  Location loc = op->getLoc();
  orderedAsm(rewriter, loc, voidType(rewriter),
             {electedThread(op, rewriter, loc, context, pred),
              sharedAddress32(rewriter, loc, barrier)},
             ptx, "b,r");
  rewriter.eraseOp(op);
  return success();
}

struct InitBarrierLowering : ContextPattern<tilegpu::InitBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::InitBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::string ptx = llvm::formatv("@$0 mbarrier.init.shared::cta.b64 [$1], {0};\n"
                                    "@$0 fence.mbarrier_init.release.cluster;",
                                    op.getCount());
    return lowerToElectedBarrierAsm(op, adaptor.getBarrier(), Value(), ptx, context,
                                    rewriter);
  }
};

struct InvalBarrierLowering : ContextPattern<tilegpu::InvalBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::InvalBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return lowerToElectedBarrierAsm(op, adaptor.getBarrier(), Value(),
                                    "@$0 mbarrier.inval.shared::cta.b64 [$1];", context,
                                    rewriter);
  }
};

struct BarrierExpectLowering : ContextPattern<tilegpu::BarrierExpectOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::BarrierExpectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::string ptx = llvm::formatv(
        "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {0};", op.getBytes());
    return lowerToElectedBarrierAsm(op, adaptor.getBarrier(), adaptor.getPred(), ptx, context,
                                    rewriter);
  }
};

struct ArriveBarrierLowering : ContextPattern<tilegpu::ArriveBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::ArriveBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    // One arrival per warp (the barrier counts warps), with release
    // semantics: the warp's reads of the slot (waited for) come before.
    // With tilegpu.cluster_arrive, on the same barrier in every CTA of the
    // cluster (its address there through mapa). The release stays at CTA
    // scope, as CUTLASS's cluster barriers keep it: a peer's copy into the
    // slot is a write after this warp's reads, and those are wgmma's,
    // finished by wgmma.wait_group before the arrival (the rings hold
    // only blocks wgmma reads: dotBufferOf in TileGPUWarpSpecialize.cpp).
    // `.release.cluster` would cost a MEMBAR.ALL.GPU per arrival, which
    // waits for every memory operation in flight (docs/pipeline.md,
    // "Clusters").
    Location loc = op.getLoc();
    std::string ptx = "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];";
    if (op->hasAttr(tilegpu::kClusterArriveAttr) && context.clusterCtas > 1) {
      ptx = "{\n.reg .b32 remote;\n";
      for (unsigned rank = 0; rank < context.clusterCtas; ++rank)
        ptx += llvm::formatv("@$0 mapa.shared::cluster.u32 remote, $1, {0};\n"
                             "@$0 mbarrier.arrive.shared::cluster.b64 _, [remote];\n",
                             rank)
                   .str();
      ptx += "}";
    }
    orderedAsm(rewriter, loc, voidType(rewriter),
               {laneZero(rewriter, loc, context),
                sharedAddress32(rewriter, loc, adaptor.getBarrier())},
               ptx, "b,r");
    rewriter.eraseOp(op);
    return success();
  }
};

struct SetMaxRegistersLowering : ContextPattern<tilegpu::SetMaxRegistersOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::SetMaxRegistersOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    orderedAsm(rewriter, op.getLoc(), voidType(rewriter), {},
               llvm::formatv("setmaxnreg.{0}.sync.aligned.u32 {1};",
                             op.getIncrease() ? "inc" : "dec", op.getCount())
                   .str(),
               "");
    rewriter.eraseOp(op);
    return success();
  }
};

struct WarpIdLowering : ContextPattern<tilegpu::WarpIdOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::WarpIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<LLVM::LShrOp>(op, blockThreadId(rewriter, loc, context),
                                              i32Constant(rewriter, loc, 5));
    return success();
  }
};

struct WaitBarrierLowering : ContextPattern<tilegpu::WaitBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::WaitBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    Location loc = op.getLoc();
    // The label is local to the braces, so the loop may be inlined many
    // times into one kernel.
    const char *ptx = "{\n"
                      ".reg .pred done;\n"
                      "waitLoop:\n"
                      "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
                      "@!done bra.uni waitLoop;\n"
                      "}";
    orderedAsm(rewriter, loc, voidType(rewriter),
               {sharedAddress32(rewriter, loc, adaptor.getBarrier()), adaptor.getPhase()}, ptx,
               "r,r");
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncTMACopyLowering : ContextPattern<tilegpu::AsyncTMACopyGlobalToLocalOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    Location loc = op.getLoc();
    Value issue = electedThread(op, rewriter, loc, context, adaptor.getPred());
    TMACopy copy(rewriter, loc, op.getResult().getType(), adaptor.getMap(),
                 adaptor.getResult(), adaptor.getCoords());
    Value barrier = sharedAddress32(rewriter, loc, adaptor.getBarrier());
    // Shared-memory writes of the generic proxy before this (by any thread,
    // ordered by a CTA barrier) must be ordered before the copies'.
    orderedAsm(rewriter, loc, voidType(rewriter), {issue},
               "@$0 fence.proxy.async.shared::cta;", "b");
    // Multicast (tilegpu.multicast): every CTA of the cluster copies the
    // same block, so each issues the columns j with j mod N its rank, to
    // all N CTAs at the same offset, completing on each one's barrier.
    unsigned ctas = op->hasAttr(tilegpu::kMulticastAttr) ? context.clusterCtas : 1;
    if (ctas > 1) {
      Value rank = clusterCtaRank(rewriter, loc);
      Value mask = rewriter.create<LLVM::ConstantOp>(
          loc, rewriter.getI16Type(), rewriter.getI16IntegerAttr(int16_t((1u << ctas) - 1)));
      unsigned column = 0;
      copy.forEachColumn(rewriter, loc, [&](Value at, Value inner) {
        Value mine = rewriter.create<LLVM::ICmpOp>(
            loc, LLVM::ICmpPredicate::eq, rank, i32Constant(rewriter, loc, column++ % ctas));
        Value pred = rewriter.create<LLVM::AndOp>(loc, issue, mine);
        orderedAsm(rewriter, loc, voidType(rewriter),
                   {pred, at, copy.map, inner, copy.row, barrier, mask},
                   "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
                   "::bytes.multicast::cluster [$1], [$2, {$3, $4}], [$5], $6;",
                   "b,r,l,r,r,r,h");
      });
      rewriter.eraseOp(op);
      return success();
    }
    copy.forEachColumn(rewriter, loc, [&](Value at, Value inner) {
      orderedAsm(rewriter, loc, voidType(rewriter), {issue, at, copy.map, inner, copy.row, barrier},
                 "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
                 "::bytes [$1], [$2, {$3, $4}], [$5];",
                 "b,r,l,r,r,r");
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : ContextPattern<tilegpu::TMAStoreOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::TMAStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    Location loc = op.getLoc();
    Value issue = electedThread(op, rewriter, loc, context);
    TMACopy copy(rewriter, loc, op.getBuffer().getType(), adaptor.getMap(), adaptor.getBuffer(),
                 adaptor.getCoords());
    // The thread's earlier stores must have reached global memory first
    // (a block stored twice keeps the later value): mostly long done, a
    // tile's loop having run since. Every writer fenced after its stores
    // (local_alloc into the swizzled buffer) and a CTA barrier came since;
    // the issuing thread's fence orders what it saw before its copies read.
    orderedAsm(rewriter, loc, voidType(rewriter), {issue},
               "@$0 cp.async.bulk.wait_group 0;\n"
               "@$0 fence.proxy.async.shared::cta;",
               "b");
    copy.forEachColumn(rewriter, loc, [&](Value at, Value inner) {
      orderedAsm(rewriter, loc, voidType(rewriter), {issue, copy.map, inner, copy.row, at},
                 "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
                 " [$1, {$2, $3}], [$4];",
                 "b,l,r,r,r");
    });
    // TMA reads the buffer from here on, until a tma_store_wait; the
    // writes to global memory complete on their own.
    orderedAsm(rewriter, loc, voidType(rewriter), {issue}, "@$0 cp.async.bulk.commit_group;",
               "b");
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitLowering : ContextPattern<tilegpu::TMAStoreWaitOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::TMAStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (failed(needsHopper(op, context)))
      return failure();
    orderedAsm(rewriter, op.getLoc(), voidType(rewriter), {}, "cp.async.bulk.wait_group.read 0;",
               "");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::lowering::populateTMAToLLVMPatterns(TileTypeConverter &converter,
                                                const LoweringContext &context,
                                                RewritePatternSet &patterns) {
  patterns.add<InitBarrierLowering, InvalBarrierLowering, BarrierExpectLowering,
               WaitBarrierLowering, AsyncTMACopyLowering, ArriveBarrierLowering,
               WarpIdLowering, SetMaxRegistersLowering, TMAStoreLowering,
               TMAStoreWaitLowering>(converter, context);
}
