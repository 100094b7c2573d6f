// tilegpu.warp_group_dot as Hopper's wgmma.mma_async (sm_90a), through
// inline PTX. B, and A unless it is in registers, are read from shared
// memory through matrix descriptors (PTX ISA, "Matrix Descriptor Format");
// an A in registers (16-bit elements) is passed as each warp's m16k16
// fragment, four 32-bit words per K step. The accumulator stays in
// registers, N / 2 f32 (s32 for i8) per thread per m64nNkK instruction,
// K being 16 for f16 and bf16, 32 for fp8 and i8, 8 for tf32: 32 bytes of
// each K-major row either way.
//
// The buffers are written through the generic proxy (st.shared, cp.async)
// and read through the async one, so their writers fence
// (fence.proxy.async) before the barrier that publishes them: local_alloc
// and local_store into an #tilegpu.nvmma_shared buffer after their stores,
// cp.async waits in a kernel with warp_group_dots after the wait; every
// write into such a buffer is one of those. The sequence per op:
// wgmma.fence (the accumulator registers were written by
// ordinary instructions), one wgmma per K step of 16, per 64 rows of the
// warpgroup's share of M and per instruction along N, then one
// commit_group and a wait_group that takes every accumulator register as
// an in/out operand, so that nothing reads them before the tensor cores
// have written them: wait_group 0, or with `pending = 1` wait_group 1,
// which leaves this op's group in flight (the next dot accumulates into
// the same registers, which the hardware orders, and a
// warp_group_dot_wait after the loop, lowered here too, ends it).
#include "compiler/Conversion/TileGPUToLLVM/DotOpToLLVM.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

void tilec::lowering::fenceProxyAsyncShared(OpBuilder &b, Location loc) {
  orderedAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()), {},
             "fence.proxy.async.shared::cta;", "");
}

namespace {
/// How one operand's buffer is addressed: a K-major buffer (K contiguous)
/// is read as is, an MN-major one transposed.
struct OperandBuffer {
  tilegpu::NVMMASharedEncodingAttr layout;
  ArrayRef<int64_t> shape;
  unsigned kDim; ///< 1 for A (M x K), 0 for B (K x N)
  Value base;    ///< i32 shared address of the buffer

  bool transposed() const { return layout.getOrder()[0] != kDim; }
  int64_t swizzle() const { return layout.getSwizzleBytes(); }

  /// Bytes from the buffer's start to element (mn, k), before the
  /// swizzle, which the hardware applies to the address: columns of
  /// `swizzleBytes` along the contiguous dimension, rows of a column
  /// `swizzleBytes` apart.
  int64_t byteOffset(int64_t mn, int64_t k) const {
    unsigned col = layout.getOrder()[0], row = layout.getOrder()[1];
    int64_t at[2];
    at[kDim] = k;
    at[1 - kDim] = mn;
    int64_t columnElements = layout.getColumnElements();
    int64_t bytes = layout.getElementBits() / 8;
    return at[col] / columnElements * shape[row] * swizzle() +
           at[row] * swizzle() + at[col] % columnElements * bytes;
  }

  /// The descriptor's fixed part: leading and stride byte offsets and the
  /// swizzle mode. K-major: the stride is one 8-row swizzle pattern (the
  /// leading offset is unused). MN-major: the stride is 8 rows along K and
  /// the leading offset the distance between columns along M or N.
  uint64_t fixedBits() const {
    uint64_t leading = transposed() ? uint64_t(shape[kDim]) * swizzle() : 16;
    uint64_t stride = 8 * swizzle();
    uint64_t mode = swizzle() == 128 ? 1 : swizzle() == 64 ? 2 : 3;
    return ((leading >> 4) & 0x3FFF) << 16 | ((stride >> 4) & 0x3FFF) << 32 |
           mode << 62;
  }
};

/// The 64-bit descriptor of the operand tile starting `offset` bytes past
/// the buffer's start (`offset` may be a runtime i32).
Value descriptor(OpBuilder &b, Location loc, const OperandBuffer &buffer,
                 Value offset) {
  Type i64 = b.getI64Type();
  Value address = b.create<LLVM::AddOp>(loc, buffer.base, offset);
  Value field = b.create<LLVM::AndOp>(
      loc, b.create<LLVM::LShrOp>(loc, address, i32Constant(b, loc, 4)),
      i32Constant(b, loc, 0x3FFF));
  Value low = b.create<LLVM::ZExtOp>(loc, i64, field);
  Value fixed = b.create<LLVM::ConstantOp>(
      loc, i64, b.getI64IntegerAttr(int64_t(buffer.fixedBits())));
  return b.create<LLVM::OrOp>(loc, low, fixed);
}

/// wgmma's name of an operand or accumulator type.
std::string ptxType(Type element) {
  if (element.isF16())
    return "f16";
  if (element.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(element))
    return "e4m3";
  if (isa<Float8E5M2Type>(element))
    return "e5m2";
  if (element.isInteger(8))
    return "s8";
  if (element.isInteger(32))
    return "s32";
  assert(element.isF32() && "not a wgmma type");
  return "f32";
}

/// Ordered inline PTX that reads `inputs` ($count.., constraints
/// `inputConstraints`) and updates the registers `acc` in place ($0..,
/// each output tied to its input; f32 registers, or b32 words); returns
/// the registers' new values.
SmallVector<Value> updateAccumulators(OpBuilder &b, Location loc, StringRef ptx,
                                      ArrayRef<Value> acc, ValueRange inputs,
                                      StringRef inputConstraints) {
  unsigned count = acc.size();
  std::string constraints;
  SmallVector<Type> types;
  for (unsigned i = 0; i < count; ++i) {
    constraints += std::string(i ? "," : "") + (acc[i].getType().isF32() ? "=f" : "=r");
    types.push_back(acc[i].getType());
  }
  if (!inputConstraints.empty())
    constraints += "," + inputConstraints.str();
  for (unsigned i = 0; i < count; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(inputs.begin(), inputs.end());
  operands.append(acc.begin(), acc.end());
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  Value d = orderedAsm(b, loc, resultType, operands, ptx, constraints);
  SmallVector<Value> out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back(b.create<LLVM::ExtractValueOp>(loc, d, i));
  return out;
}

/// "{$first, ..., $(first + count - 1)}"
std::string operandList(unsigned first, unsigned count) {
  std::string list = "{";
  for (unsigned i = 0; i < count; ++i)
    list += (i ? ", $" : "$") + std::to_string(first + i);
  return list + "}";
}

/// wgmma's name of an operand type: f32 operands are read as tf32.
std::string operandType(Type element) {
  return element.isF32() ? "tf32" : ptxType(element);
}

/// The types of one wgmma instruction: A's and B's elements, the
/// accumulator's and K.
struct WgmmaTypes {
  Type a, b, acc;
  unsigned k;
};

/// One wgmma.mma_async with both operands from buffers: `acc` (N / 2
/// registers) in, the instruction's results out; they are only valid after
/// the wait. The operands after the descriptors: scale-d (1: accumulate
/// into `acc`; 0: overwrite it, whose values are then only tied through),
/// then for floats the scales of A and B (1: not negated), and for 16-bit
/// types whether each buffer is read transposed (MN-major); integer
/// products take scale-d alone.
SmallVector<Value> emitWgmma(OpBuilder &b, Location loc, unsigned n,
                             const WgmmaTypes &types, bool transA, bool transB,
                             bool accumulate, Value descA, Value descB,
                             ArrayRef<Value> acc) {
  unsigned count = acc.size();
  std::string tail = accumulate ? "1" : "0";
  if (!types.acc.isInteger(32))
    tail += ", 1, 1";
  if (tilegpu::wgmmaTakesAnyMajor(types.a))
    tail += llvm::formatv(", {0}, {1}", transA ? 1 : 0, transB ? 1 : 0).str();
  else
    assert(!transA && !transB && "wgmma transposes 16-bit operands only");
  std::string ptx = llvm::formatv(
      "wgmma.mma_async.sync.aligned.m64n{0}k{1}.{2}.{3}.{4} {5}, ${6}, ${7}, {8};",
      n, types.k, ptxType(types.acc), operandType(types.a), operandType(types.b),
      operandList(0, count), count, count + 1, tail);
  return updateAccumulators(b, loc, ptx, acc, ValueRange{descA, descB}, "l,l");
}

/// One wgmma.mma_async with A from registers: its m64k16 fragment as four
/// 32-bit words of two 16-bit elements (the instruction has no transpose
/// for A then).
SmallVector<Value> emitWgmmaRegisterA(OpBuilder &b, Location loc, unsigned n,
                                      Type element, bool transB,
                                      ArrayRef<Value> aWords, Value descB,
                                      ArrayRef<Value> acc) {
  unsigned count = acc.size();
  std::string type = ptxType(element);
  std::string ptx = llvm::formatv(
      "wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} {2}, {3}, ${4}, 1, "
      "1, 1, {5};",
      n, type, operandList(0, count), operandList(count, aWords.size()),
      count + aWords.size(), transB ? 1 : 0);
  SmallVector<Value> inputs(aWords.begin(), aWords.end());
  inputs.push_back(descB);
  return updateAccumulators(b, loc, ptx, acc, inputs, "r,r,r,r,l");
}

/// wgmma.fence with every register the instructions after it read passed
/// through it (`acc`, f32, and `words`, b32; each output tied to its
/// input), so that whatever wrote them comes before the fence, as the
/// instructions require (ptxas would fence again itself otherwise). The
/// values come back in place.
void fenceRegisters(OpBuilder &b, Location loc, SmallVector<Value> &acc,
                    SmallVector<Value> &words) {
  SmallVector<Value> all(acc);
  all.append(words.begin(), words.end());
  all = updateAccumulators(b, loc, "wgmma.fence.sync.aligned;", all, ValueRange{}, "");
  acc.assign(all.begin(), all.begin() + acc.size());
  words.assign(all.begin() + acc.size(), all.end());
}

/// wgmma.wait_group `pending` (after a commit_group with `commit`) with
/// every accumulator register passed through, so that their uses come
/// after the wait.
SmallVector<Value> waitFor(OpBuilder &b, Location loc, ArrayRef<Value> acc,
                           bool commit, unsigned pending) {
  std::string ptx = commit ? "wgmma.commit_group.sync.aligned;\n\t" : "";
  ptx += "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  return updateAccumulators(b, loc, ptx, acc, ValueRange{}, "");
}

struct WarpGroupDotOpLowering : ContextPattern<tilegpu::WarpGroupDotOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!context.target.hasWgmma())
      return op.emitOpError("wgmma needs sm_90a, the target is ")
             << context.target.chip;
    auto aType = dyn_cast<tilegpu::MemDescType>(op.getA().getType());
    tilegpu::MemDescType bType = op.getB().getType();
    RankedTensorType dType = op.getD().getType();
    auto mma = cast<tilegpu::MmaEncodingAttr>(dType.getEncoding());
    Type element = bType.getElementType();
    Type aElement = aType ? aType.getElementType()
                          : cast<RankedTensorType>(op.getA().getType()).getElementType();
    WgmmaTypes types{aElement, element, dType.getElementType(),
                     *tilegpu::wgmmaInstructionK(aElement, element,
                                                 dType.getElementType())};
    int64_t n = dType.getShape()[1], k = bType.getShape()[0];
    unsigned instrN = mma.getInstrShape()[1];

    // The accumulator's registers, found by the coordinates lane 0 of warp
    // 0 holds: d[4j + t] of an instruction whose tile starts at (row0,
    // col0) is (row0 + 8 (t >> 1), col0 + 8j + (t & 1)) there. Warp bits 0
    // and 1 are the warpgroup's 16-row quarters; the others move a whole
    // warpgroup along M by a multiple of 64 rows, and the 64-row blocks
    // warp 0 holds in registers are its instructions' rows.
    LinearLayout layout = tilegpu::toLinearLayout(dType);
    ArrayRef<LinearLayout::Image> warps = layout.getBases(tilegpu::kWarp);
    for (auto [bit, image] : llvm::enumerate(warps))
      if (image[1] != 0 || (bit < 2 ? image[0] != (16 << bit)
                                    : image[0] == 0 || image[0] % 64))
        return op.emitOpError("has an accumulator layout whose warps are not "
                              "whole warpgroups along M");
    SmallVector<int64_t> rowBlocks;
    for (int32_t r = 0; r < layout.getInDimSize(tilegpu::kRegister); ++r) {
      int64_t block = layout.applyOne(tilegpu::kRegister, r)[0] / 64 * 64;
      if (!llvm::is_contained(rowBlocks, block))
        rowBlocks.push_back(block);
    }
    llvm::sort(rowBlocks);
    RegisterIndex index(layout, 1);
    SmallVector<Value> acc = unpack(rewriter, loc, adaptor.getC());

    auto operand = [&](tilegpu::MemDescType type, Value converted,
                       unsigned kDim) {
      return OperandBuffer{cast<tilegpu::NVMMASharedEncodingAttr>(type.getEncoding()),
                           type.getShape(), kDim,
                           // (the i32 shared-window address, as cp.async
                           // and ldmatrix take theirs)
                           rewriter.create<LLVM::PtrToIntOp>(
                               loc, rewriter.getI32Type(), converted)};
    };
    OperandBuffer b = operand(bType, adaptor.getB(), 0);
    // A in a buffer: this warpgroup's rows of it at a runtime offset, the
    // rows its warp bits above the first two add, each a multiple of 64 (so
    // of a swizzle column along M), where A's byte offset is linear in the
    // row. A in registers: each warp's m16k16 fragments, found like the
    // accumulator's by the coordinates lane 0 of warp 0 holds (the dot_op
    // layout puts the warps on the accumulator's rows).
    std::optional<OperandBuffer> a;
    Value groupRowBytes;
    LinearLayout aLayout;
    SmallVector<Value> aRegs;
    if (aType) {
      a = operand(aType, adaptor.getA(), 1);
      ThreadIndex thread = threadIndex(rewriter, loc, context);
      groupRowBytes = i32Constant(rewriter, loc, 0);
      for (unsigned bit = 2; bit < warps.size(); ++bit) {
        Value set = rewriter.create<LLVM::AndOp>(
            loc, rewriter.create<LLVM::LShrOp>(loc, thread.warp,
                                               i32Constant(rewriter, loc, bit)),
            i32Constant(rewriter, loc, 1));
        groupRowBytes = rewriter.create<LLVM::AddOp>(
            loc, groupRowBytes,
            rewriter.create<LLVM::MulOp>(
                loc, set, i32Constant(rewriter, loc, a->byteOffset(warps[bit][0], 0))));
      }
    } else {
      aLayout = tilegpu::toLinearLayout(cast<RankedTensorType>(op.getA().getType()));
      aRegs = unpack(rewriter, loc, adaptor.getA());
    }
    std::optional<RegisterIndex> aIndex;
    if (!aType)
      aIndex.emplace(aLayout, 8);
    // The four words of the A fragment at (row0, k0): elements e = 0..7 at
    // row + 8 ((e >> 1) & 1), k + (e & 1) + 8 (e >> 2), two per word.
    auto fragmentA = [&](int64_t row0, int64_t k0) -> std::optional<SmallVector<Value>> {
      LinearLayout::Image at(2, 0);
      at[0] = int32_t(row0);
      at[1] = int32_t(k0);
      std::optional<unsigned> first = aIndex->find(at);
      if (!first)
        return std::nullopt;
      for (unsigned e = 0; e < 8; ++e) {
        LinearLayout::Image want{int32_t(row0 + 8 * ((e >> 1) & 1)),
                                 int32_t(k0 + (e & 1) + 8 * (e >> 2))};
        if (aLayout.applyOne(tilegpu::kRegister, *first + e) != want)
          return std::nullopt;
      }
      SmallVector<Value> words;
      for (unsigned w = 0; w < 4; ++w)
        words.push_back(packWord(rewriter, loc,
                                 ArrayRef<Value>(aRegs).slice(*first + 2 * w, 2)));
      return words;
    };

    // A's words, packed here and passed with the accumulators through
    // wgmma.fence, which must follow every write of a register the
    // instructions read.
    std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> wordsA;
    SmallVector<Value> allWords;
    if (!aType)
      for (int64_t k0 = 0; k0 < k; k0 += 16)
        for (int64_t row0 : rowBlocks) {
          std::optional<SmallVector<Value>> words = fragmentA(row0, k0);
          if (!words)
            return op.emitOpError("has an A whose registers do not hold wgmma's "
                                  "m64k16 fragment");
          llvm::append_range(allWords, *words);
        }
    // fp8 with maxNumImpreciseAcc at most K: each run of at most that many
    // K elements (whole steps, at least one) is multiplied into `partial`,
    // the first step of a run not accumulating (scale-d 0), then waited for
    // and added to `acc` in f32. Otherwise the instructions accumulate into
    // `acc`. (`partial` starts undefined, passed through the fence with
    // `acc`: nothing has to write it between the fence and the first run.)
    int64_t promoteEvery =
        op.addsRunsInF32()
            ? std::max<int64_t>(op.getMaxNumImpreciseAccAttr().getInt(), types.k)
            : 0;
    SmallVector<Value> partial;
    if (promoteEvery) {
      Value undef = rewriter.create<LLVM::UndefOp>(loc, acc.front().getType());
      SmallVector<Value> both = acc;
      both.append(acc.size(), undef);
      fenceRegisters(rewriter, loc, both, allWords);
      acc.assign(both.begin(), both.begin() + acc.size());
      partial.assign(both.begin() + acc.size(), both.end());
    } else {
      // (The writers fenced the buffers before the barrier that published
      // them.)
      fenceRegisters(rewriter, loc, acc, allWords);
    }
    if (!aType) {
      unsigned next = 0;
      for (int64_t k0 = 0; k0 < k; k0 += 16)
        for (int64_t row0 : rowBlocks) {
          wordsA[{row0, k0}].assign(allWords.begin() + next, allWords.begin() + next + 4);
          next += 4;
        }
    }
    int64_t imprecise = 0; // K elements in `partial` not yet added to `acc`
    for (int64_t k0 = 0; k0 < k; k0 += types.k) {
      SmallVector<Value> &target = promoteEvery ? partial : acc;
      bool accumulate = !promoteEvery || imprecise != 0;
      SmallVector<Value> descB;
      for (int64_t col0 = 0; col0 < n; col0 += instrN)
        descB.push_back(descriptor(rewriter, loc, b,
                                   i32Constant(rewriter, loc, b.byteOffset(col0, k0))));
      for (int64_t row0 : rowBlocks) {
        Value descA;
        if (a) {
          Value aOffset = rewriter.create<LLVM::AddOp>(
              loc, groupRowBytes,
              i32Constant(rewriter, loc, a->byteOffset(row0, k0)));
          descA = descriptor(rewriter, loc, *a, aOffset);
        }
        for (int64_t col0 = 0; col0 < n; col0 += instrN) {
          SmallVector<unsigned> regs;
          for (unsigned i = 0; i < instrN / 2; ++i) {
            LinearLayout::Image at(2, 0);
            at[0] = int32_t(row0 + 8 * ((i >> 1) & 1));
            at[1] = int32_t(col0 + 8 * (i >> 2) + (i & 1));
            std::optional<unsigned> r = index.find(at);
            if (!r)
              return op.emitOpError("has an accumulator layout that does not "
                                    "hold the wgmma fragment");
            regs.push_back(*r);
          }
          SmallVector<Value> in;
          for (unsigned r : regs)
            in.push_back(target[r]);
          SmallVector<Value> out =
              a ? emitWgmma(rewriter, loc, instrN, types, a->transposed(),
                            b.transposed(), accumulate, descA,
                            descB[col0 / instrN], in)
                : emitWgmmaRegisterA(rewriter, loc, instrN, element, b.transposed(),
                                     wordsA[{row0, k0}], descB[col0 / instrN], in);
          for (auto [r, v] : llvm::zip(regs, out))
            target[r] = v;
        }
      }
      if (!promoteEvery)
        continue;
      imprecise += types.k;
      if (imprecise + types.k <= promoteEvery && k0 + types.k < k)
        continue;
      partial = waitFor(rewriter, loc, partial, /*commit=*/true, 0);
      for (auto [sum, run] : llvm::zip(acc, partial))
        sum = rewriter.create<LLVM::FAddOp>(loc, sum, run);
      imprecise = 0;
      // (The next run's instructions write registers the adds just read.)
      if (k0 + types.k < k) {
        SmallVector<Value> none;
        fenceRegisters(rewriter, loc, partial, none);
      }
    }
    // (Runs in f32 were each waited for: nothing is left in flight.)
    if (!promoteEvery)
      acc = waitFor(rewriter, loc, acc, /*commit=*/true, op.getPending());
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(dType), acc));
    return success();
  }
};
struct WarpGroupDotWaitOpLowering
    : OpConversionPattern<tilegpu::WarpGroupDotWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::WarpGroupDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> acc = waitFor(rewriter, loc,
                                     unpack(rewriter, loc, adaptor.getAcc()),
                                     /*commit=*/false, op.getPending());
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()),
                                acc));
    return success();
  }
};
} // namespace

void tilec::lowering::populateWarpGroupDotOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<WarpGroupDotOpLowering>(converter, context);
  patterns.add<WarpGroupDotWaitOpLowering>(converter, &converter.getContext());
}
