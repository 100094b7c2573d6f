// Elementwise ops on tensors: one scalar op per register. The scalar arith
// and math ops this creates are lowered in turn by the upstream patterns.
#include "compiler/Analysis/FP8.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
bool hasTensorOperandOrResult(Operation *op) {
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// Any arith or math op over tensors of one layout (operands may also be
/// scalars, as the condition of a select can be).
///
/// fp8 registers are i8 bits, which the scalar op cannot say are fp8: the
/// conversions between fp8 and f32 are emitted here, register by register,
/// and other ops on fp8 (selects, bitcasts) are built on the i8 bits.
/// Arithmetic on fp8 is an error (checkFP8Lowerable reports it before the
/// conversion): tile-widen-fp8 moves it to f32.
struct ElementwiseTensorOpLowering : ConversionPattern {
  ElementwiseTensorOpLowering(TileTypeConverter &converter)
      // Above the upstream arith patterns, which do not know tensors.
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          &converter.getContext()) {}

  /// The fp8 conversion `op` makes of one register, or nullptr when `op`
  /// is not one.
  Value convertFP8(Operation *op, Value x, OpBuilder &b) const {
    Type in = getElementTypeOrSelf(op->getOperand(0).getType());
    Type out = getElementTypeOrSelf(op->getResult(0).getType());
    if (isa<arith::ExtFOp>(op) && isFP8(in))
      return fromFP8(b, op->getLoc(), x, in, out);
    if (isa<arith::TruncFOp>(op) && isFP8(out))
      return toFP8(b, op->getLoc(), x, out);
    return nullptr;
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        !hasTensorOperandOrResult(op) || isa<arith::ConstantOp>(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type packedType = getTypeConverter()->convertType(resultType);
    if (!packedType)
      return rewriter.notifyMatchFailure(op, "result type not lowerable");
    if (computesOnFP8(op))
      return rewriter.notifyMatchFailure(op, "arithmetic on fp8 (reported by "
                                             "checkFP8Lowerable)");
    bool fp8Conversion = convertsFP8(op);
    bool fp8Bitcast = isa<arith::BitcastOp>(op) &&
                      (isFP8(op->getOperand(0).getType()) || isFP8(resultType));
    unsigned n = tilegpu::getNumRegisters(resultType);

    // Every tensor operand must hold as many registers as the result (one
    // layout); checked before any IR is made.
    for (Value original : op->getOperands())
      if (auto type = dyn_cast<RankedTensorType>(original.getType()))
        if (tilegpu::getNumRegisters(type) != n)
          return rewriter.notifyMatchFailure(op, "operands differ in layout");
    SmallVector<SmallVector<Value>> perOperand;
    for (auto [original, converted] : llvm::zip(op->getOperands(), operands)) {
      if (isa<RankedTensorType>(original.getType()))
        perOperand.push_back(unpack(rewriter, loc, converted));
      else
        perOperand.push_back(SmallVector<Value>(n, converted));
    }
    SmallVector<Value> results;
    // fp8 results are built as their i8 bits.
    Type resultElement = getTypeConverter()->convertType(resultType.getElementType());
    for (unsigned r = 0; r < n; ++r) {
      if (fp8Conversion) {
        results.push_back(convertFP8(op, perOperand[0][r], rewriter));
        continue;
      }
      if (fp8Bitcast) { // i8 bits either way
        results.push_back(perOperand[0][r]);
        continue;
      }
      OperationState state(loc, op->getName());
      for (auto &values : perOperand)
        state.addOperands(values[r]);
      state.addTypes(resultElement);
      state.addAttributes(op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, results));
    return success();
  }
};

/// A scalar fp32 divf that allows approximation (`afn`, which the DSL puts
/// on '/') becomes div.full.f32: at most 2 ulp from the IEEE quotient over
/// the whole range, a handful of instructions instead of the long IEEE
/// sequence. (NVPTX would select div.approx.f32 for `afn`, which flushes
/// quotients with huge divisors to zero.) Other divf keep the IEEE
/// lowering of the upstream patterns.
struct ApproximateDivFOpLowering : OpConversionPattern<arith::DivFOp> {
  ApproximateDivFOpLowering(TileTypeConverter &converter)
      // Above the upstream arith pattern for divf.
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getF32Type(), rewriter.getStringAttr("llvm.nvvm.div.full"),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()});
    return success();
  }
};

/// A scalar fp32 tanh that allows approximation (`afn`: libdevice.fast_tanhf)
/// becomes one tanh.approx.f32 (sm_75+, so every target tilec compiles
/// for; NVPTX selects it for llvm.tanh with afn): a special-function
/// instruction, within about 2^-11 of tanh, where libdevice's __nv_tanhf,
/// which the upstream pattern calls for a tanh without afn, spends an ex2,
/// a reciprocal and a polynomial.
struct ApproximateTanhOpLowering : OpConversionPattern<math::TanhOp> {
  ApproximateTanhOpLowering(TileTypeConverter &converter)
      // Above the upstream libdevice patterns.
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/20) {}

  LogicalResult
  matchAndRewrite(math::TanhOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    auto call = rewriter.create<LLVM::CallIntrinsicOp>(
        op.getLoc(), rewriter.getF32Type(), rewriter.getStringAttr("llvm.tanh"),
        ValueRange{adaptor.getOperand()});
    call.setFastmathFlags(LLVM::FastmathFlags::afn);
    rewriter.replaceOp(op, call);
    return success();
  }
};

/// addptr: a GEP per register (or one for a scalar pointer).
struct AddPtrOpLowering : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = tile::getElementTypeOrSelf(tile::getPointeeTypeLike(op.getType()));
    // i1 lives in memory as a byte, fp8 as its bits.
    Type memoryElement = pointee.isInteger(1) ? rewriter.getI8Type()
                                              : getTypeConverter()->convertType(pointee);
    auto ptrType = LLVM::LLVMPointerType::get(getContext(), kGlobalAddressSpace);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offsets = unpack(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> results;
    for (auto [ptr, offset] : llvm::zip(ptrs, offsets))
      results.push_back(rewriter.create<LLVM::GEPOp>(
          loc, ptrType, memoryElement, ptr, ValueRange{offset},
          LLVM::GEPNoWrapFlags::inbounds));
    Type packedType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, results));
    return success();
  }
};
/// One ptrtoint per register.
struct PtrToIntOpLowering : OpConversionPattern<tile::PtrToIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::PtrToIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> results;
    for (Value ptr : unpack(rewriter, loc, adaptor.getPtr()))
      results.push_back(rewriter.create<LLVM::PtrToIntOp>(loc, rewriter.getI64Type(), ptr));
    Type packedType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, results));
    return success();
  }
};
} // namespace

namespace {
/// tile.inline_asm: one LLVM inline-assembly call per `pack` registers of
/// the thread's elements (the same registers of every operand and result:
/// one layout). Operands and results of fewer than 32 bits travel packed
/// into vectors of up to 32 bits, which fill one register each.
struct InlineAsmOpLowering : OpConversionPattern<tile::InlineAsmOp> {
  InlineAsmOpLowering(TileTypeConverter &converter)
      : OpConversionPattern(converter, &converter.getContext()) {}

  /// The LLVM type of one register of `element`'s values, and the elements
  /// it holds.
  std::pair<Type, unsigned> registerType(Type element, unsigned pack) const {
    Type scalar = getTypeConverter()->convertType(element);
    unsigned per = tile::InlineAsmOp::elementsPerRegister(element, pack);
    return {per > 1 ? VectorType::get({int64_t(per)}, scalar) : scalar, per};
  }

  LogicalResult
  matchAndRewrite(tile::InlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = op.getPack();
    auto tensor = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    unsigned n = tensor ? tilegpu::getNumRegisters(tensor) : 1;
    // A thread holding fewer than a multiple of `pack` elements runs the
    // last invocation on undefined values past its own (as Triton does);
    // their results are dropped.
    unsigned padded = llvm::alignTo(n, width);
    SmallVector<SmallVector<Value>> operands;
    for (auto [original, converted] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      SmallVector<Value> values = isa<RankedTensorType>(original.getType())
                                      ? unpack(rewriter, loc, converted)
                                      : SmallVector<Value>{converted};
      if (values.size() < padded)
        values.resize(padded, rewriter.create<LLVM::UndefOp>(loc, values.front().getType()));
      operands.push_back(std::move(values));
    }
    // What one invocation returns: each result's registers in turn.
    SmallVector<Type> returned;
    SmallVector<std::pair<Type, unsigned>> resultRegisters;
    for (Value result : op.getResults()) {
      auto reg = registerType(getElementTypeOrSelf(result.getType()), width);
      resultRegisters.push_back(reg);
      returned.append(width / reg.second, reg.first);
    }
    Type returnType = returned.size() == 1
                          ? returned.front()
                          : LLVM::LLVMStructType::getLiteral(getContext(), returned);
    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (unsigned first = 0; first < padded; first += width) {
      SmallVector<Value> inputs;
      for (auto [original, values] : llvm::zip(op.getArgs(), operands)) {
        auto [type, per] = registerType(getElementTypeOrSelf(original.getType()), width);
        for (unsigned i = 0; i < width; i += per) {
          if (per == 1) {
            inputs.push_back(values[first + i]);
            continue;
          }
          Value vector = rewriter.create<LLVM::UndefOp>(loc, type);
          for (unsigned k = 0; k < per; ++k)
            vector = rewriter.create<LLVM::InsertElementOp>(
                loc, vector, values[first + i + k],
                rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI32Type(), k));
          inputs.push_back(vector);
        }
      }
      auto call = rewriter.create<LLVM::InlineAsmOp>(
          loc, returnType, inputs, op.getAsmString(), op.getConstraints(),
          /*has_side_effects=*/!op.getPure(), /*is_align_stack=*/false,
          LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr::get(getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      unsigned position = 0;
      for (auto [r, reg] : llvm::enumerate(resultRegisters)) {
        for (unsigned i = 0; i < width; i += reg.second) {
          Value value = returned.size() == 1
                            ? call.getResult(0)
                            : rewriter.create<LLVM::ExtractValueOp>(loc, call.getResult(0),
                                                                    position);
          ++position;
          if (reg.second == 1) {
            results[r].push_back(value);
            continue;
          }
          for (unsigned k = 0; k < reg.second; ++k)
            results[r].push_back(rewriter.create<LLVM::ExtractElementOp>(
                loc, value,
                rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI32Type(), k)));
        }
      }
    }
    SmallVector<Value> replacements;
    for (SmallVector<Value> &values : results)
      values.resize(n);
    for (auto [result, values] : llvm::zip(op.getResults(), results))
      replacements.push_back(
          isa<RankedTensorType>(result.getType())
              ? pack(rewriter, loc, getTypeConverter()->convertType(result.getType()),
                     values)
              : values.front());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};
/// tile.cuda_call: one call of the external function per element of the
/// thread (scalars: one call), declared in the module with the element
/// types; its definition comes from NVRTC's PTX (compiler/Target/NVRTC.h).
struct CudaCallOpLowering : OpConversionPattern<tile::CudaCallOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::CudaCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter *converter = getTypeConverter();
    Type resultType = converter->convertType(getElementTypeOrSelf(op.getType()));
    SmallVector<Type> argTypes;
    for (Value arg : op.getArgs())
      argTypes.push_back(converter->convertType(getElementTypeOrSelf(arg.getType())));
    auto fnType = LLVM::LLVMFunctionType::get(resultType, argTypes);
    auto module = op->getParentOfType<ModuleOp>();
    StringRef name = op.getCallee();
    Operation *existing = module.lookupSymbol(name);
    auto fn = dyn_cast_if_present<LLVM::LLVMFuncOp>(existing);
    if (existing && (!fn || !fn.isExternal()))
      return op.emitOpError("calls the CUDA device function '")
             << name << "', a name the kernel's module already gives a function";
    if (!fn) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      fn = rewriter.create<LLVM::LLVMFuncOp>(loc, name, fnType);
    } else if (fn.getFunctionType() != fnType) {
      return op.emitOpError("calls '") << name << "' with the types " << fnType
                                       << " and elsewhere " << fn.getFunctionType();
    }
    auto tensor = dyn_cast<RankedTensorType>(op.getType());
    unsigned n = tensor ? tilegpu::getNumRegisters(tensor) : 1;
    SmallVector<SmallVector<Value>> operands;
    for (auto [original, converted] : llvm::zip(op.getArgs(), adaptor.getArgs()))
      operands.push_back(isa<RankedTensorType>(original.getType())
                             ? unpack(rewriter, loc, converted)
                             : SmallVector<Value>{converted});
    SmallVector<Value> results;
    for (unsigned i = 0; i < n; ++i) {
      SmallVector<Value> inputs;
      for (const SmallVector<Value> &values : operands)
        inputs.push_back(values[i]);
      results.push_back(rewriter.create<LLVM::CallOp>(loc, fn, inputs).getResult());
    }
    rewriter.replaceOp(op, tensor ? pack(rewriter, loc, converter->convertType(tensor),
                                         results)
                                  : results.front());
    return success();
  }
};
} // namespace

void tilec::lowering::populateElementwiseOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &,
    RewritePatternSet &patterns) {
  patterns.add<ElementwiseTensorOpLowering>(converter);
  patterns.add<ApproximateDivFOpLowering>(converter);
  patterns.add<ApproximateTanhOpLowering>(converter);
  patterns.add<InlineAsmOpLowering>(converter);
  patterns.add<CudaCallOpLowering>(converter, &converter.getContext());
  patterns.add<AddPtrOpLowering, PtrToIntOpLowering>(converter, &converter.getContext());
}
