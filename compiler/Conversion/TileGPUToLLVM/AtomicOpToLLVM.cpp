// tile.atomic_rmw and tile.atomic_cas → PTX `atom` and `red`.
//
// Each element is one atomic, performed by the one thread that owns it
// (threads holding copies of an element, and a thread's repeated
// registers, do not repeat it), predicated on the mask as `@p atom ...`.
// Masked-off elements return 0.
//
// How an element is combined depends on its type:
// - natively where PTX has the operation: integer add/max/min/and/or/xor/
//   exch, fp32/fp64 add and exch (on the bits), fp16 add, bf16 add on
//   sm_90; compare-and-swap of 16, 32 and 64 bits;
// - fp32/fp64 max and min as integer atomics on the bits, split on the
//   sign: a non-negative float orders like its bits as a signed integer,
//   a negative one inversely to its bits as an unsigned integer, so `max`
//   is `atom.max.s32` for values with a clear sign bit and `atom.min.u32`
//   for the others (min the reverse). Memory then orders as -NaN < -inf <
//   ... < -0.0 < +0.0 < ... < +inf < +NaN; a NaN value changes nothing
//   (its lanes read the old value with an `atom.or` of 0);
// - fp16/bf16 max, min and exch (and bf16 add before sm_90), which PTX
//   has no scalar instruction for, as a compare-and-swap loop on 16 bits
//   with the same order.
// An atomic whose result is unused, with relaxed or release semantics,
// becomes `red` (which does not wait for the old value); acquire needs the
// read to complete, so those stay `atom`, as do exchanges (PTX has no
// `red.exch`) and the compare-and-swap loops. On sm_90, fp32 and fp16/bf16
// adds of consecutive, aligned elements go out as one vector instruction
// (`.v4.f32`, `.v8.f16`), as wide as the layout and the axis info allow.
//
// When the result is used and threads hold copies, the owners publish the
// old values through the op's shared scratch (SharedScratch.h) and every
// thread reads its registers back after a barrier.
//
// A scalar atomic is the program's: one thread performs it for all. Its
// ordering is the program's too, so a barrier comes before one that
// releases (the other threads' earlier writes are then ordered before the
// performing thread's release) and after one that acquires (their later
// reads after its acquire) — the spin lock `while tl.atomic_cas(lock, 0,
// 1) == 1: pass` ... `tl.atomic_xchg(lock, 0)` of Triton's tutorials
// protects what every thread of the program reads and writes.
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

/// How the elements of one atomic op are combined (the file comment).
enum class Form { Native, SignSplit, CompareSwapLoop };

struct AtomicInfo {
  bool isCAS = false;
  tile::AtomicKind kind = tile::AtomicKind::add;
  Type element; ///< register type of one element
  unsigned bits = 32;
  tile::MemSemantic sem;
  tile::MemScope scope;
  bool useRed = false; ///< no result wanted: `red`
  Form form = Form::Native;
  unsigned maxVector = 1;

  bool isFloat() const { return isa<FloatType>(element); }

  static AtomicInfo of(Operation *op, Type element, const TargetInfo &target) {
    AtomicInfo info;
    info.element = element;
    info.bits = element.getIntOrFloatBitWidth();
    if (auto cas = dyn_cast<tile::AtomicCASOp>(op)) {
      info.isCAS = true;
      info.sem = cas.getSem();
      info.scope = cas.getScope();
      return info;
    }
    auto rmw = cast<tile::AtomicRMWOp>(op);
    info.kind = rmw.getKind();
    info.sem = rmw.getSem();
    info.scope = rmw.getScope();
    bool isMinMax = info.kind == tile::AtomicKind::max || info.kind == tile::AtomicKind::min;
    if (info.isFloat() && info.bits == 16) {
      bool nativeAdd = info.kind == tile::AtomicKind::add &&
                       (isa<Float16Type>(element) || target.computeCapability >= 90);
      if (!nativeAdd)
        info.form = Form::CompareSwapLoop;
    } else if (info.isFloat() && isMinMax) {
      info.form = Form::SignSplit;
    }
    info.useRed = rmw.getResult().use_empty() && info.kind != tile::AtomicKind::xchg &&
                  info.form != Form::CompareSwapLoop &&
                  (info.sem == tile::MemSemantic::relaxed ||
                   info.sem == tile::MemSemantic::release);
    if (info.form == Form::Native)
      info.maxVector = atomicVectorLimit(op, target.computeCapability);
    return info;
  }

  /// ".acq_rel.gpu.global" and the like.
  std::string qualifiers() const {
    return "." + tile::stringifyMemSemantic(sem).str() + "." +
           tile::stringifyMemScope(scope).str() + ".global";
  }
  const char *constraint() const {
    return bits == 64 ? "l" : bits == 32 ? "r" : "h";
  }
  Type bitsType(MLIRContext *ctx) const { return IntegerType::get(ctx, bits); }

  /// The operation and type of the native instruction (".add.noftz.f16",
  /// ".max.s32", ".exch.b64", ...), for `vector` elements.
  std::string nativeSuffix(unsigned vector) const {
    std::string b = std::to_string(bits);
    std::string v = vector > 1 ? ".v" + std::to_string(vector) : "";
    if (isCAS)
      return ".cas.b" + b;
    using K = tile::AtomicKind;
    if (isFloat()) {
      if (kind == K::xchg)
        return ".exch.b" + b;
      if (bits == 16)
        return ".add.noftz" + v + (isa<Float16Type>(element) ? ".f16" : ".bf16");
      return ".add" + v + ".f" + b;
    }
    switch (kind) {
    case K::add:
      return ".add.u" + b;
    case K::max:
      return ".max.s" + b;
    case K::min:
      return ".min.s" + b;
    case K::umax:
      return ".max.u" + b;
    case K::umin:
      return ".min.u" + b;
    case K::and_:
      return ".and.b" + b;
    case K::or_:
      return ".or.b" + b;
    case K::xor_:
      return ".xor.b" + b;
    case K::xchg:
      return ".exch.b" + b;
    }
    llvm_unreachable("atomic kind");
  }
};

Value toBits(OpBuilder &b, Location loc, const AtomicInfo &info, Value v) {
  Type t = info.bitsType(b.getContext());
  return v.getType() == t ? v : b.create<LLVM::BitcastOp>(loc, t, v).getResult();
}
Value fromBits(OpBuilder &b, Location loc, const AtomicInfo &info, Value v) {
  return v.getType() == info.element
             ? v
             : b.create<LLVM::BitcastOp>(loc, info.element, v).getResult();
}

/// Inline assembly with memory side effects; its results as a list.
SmallVector<Value> atomicAsm(OpBuilder &b, Location loc, const AtomicInfo &info,
                             unsigned numResults, ValueRange operands,
                             StringRef ptx, StringRef constraints) {
  MLIRContext *ctx = b.getContext();
  Type result = numResults == 0   ? LLVM::LLVMVoidType::get(ctx)
                : numResults == 1 ? info.bitsType(ctx)
                                  : LLVM::LLVMStructType::getLiteral(
                                        ctx, SmallVector<Type>(numResults, info.bitsType(ctx)));
  auto asmOp = b.create<LLVM::InlineAsmOp>(
      loc, result, operands, ptx, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  if (numResults == 0)
    return {};
  if (numResults == 1)
    return {asmOp.getResult(0)};
  SmallVector<Value> values;
  for (unsigned i = 0; i < numResults; ++i)
    values.push_back(b.create<LLVM::ExtractValueOp>(loc, asmOp.getResult(0), i));
  return values;
}

std::string operandList(unsigned first, unsigned count) {
  std::string s = count > 1 ? "{" : "";
  for (unsigned i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + (count > 1 ? "}" : "");
}

/// One native `atom`/`red` of `values.size()` consecutive elements (their
/// old values, as bits, unless `red`).
SmallVector<Value> emitNative(OpBuilder &b, Location loc, const AtomicInfo &info,
                              Value ptr, Value pred, ArrayRef<Value> values,
                              ArrayRef<Value> cmps) {
  unsigned n = values.size();
  unsigned results = info.useRed ? 0 : n;
  std::string ptx, constraints;
  llvm::raw_string_ostream os(ptx);
  SmallVector<Value> operands{pred, ptr};
  for (unsigned i = 0; i < results; ++i) {
    os << llvm::formatv("mov.b{0} ${1}, 0;\n", info.bits, i);
    // (Early-clobber: each is written before the inputs are read.)
    constraints += std::string(i ? "," : "") + "=&" + info.constraint();
  }
  unsigned p = results, a = results + 1, v = results + 2;
  os << "@$" << p << (info.useRed ? " red" : " atom") << info.qualifiers()
     << info.nativeSuffix(n) << " ";
  if (results)
    os << operandList(0, n) << ", ";
  os << "[$" << a << "], " << operandList(v, n);
  if (info.isCAS) // [a], compare, new
    os << ", " << operandList(v + n, n);
  os << ";";
  constraints += std::string(results ? "," : "") + "b,l";
  // A CAS's operands are the compare values, then the new ones.
  for (ArrayRef<Value> list : {cmps, values})
    for (Value x : list) {
      operands.push_back(toBits(b, loc, info, x));
      constraints += std::string(",") + info.constraint();
    }
  return atomicAsm(b, loc, info, results, operands, ptx, constraints);
}

/// fp32/fp64 max or min as integer atomics split on the sign (file comment).
SmallVector<Value> emitSignSplit(OpBuilder &b, Location loc,
                                 const AtomicInfo &info, Value ptr, Value pred,
                                 Value value) {
  Value bits = toBits(b, loc, info, value);
  Value isNan = b.create<LLVM::FCmpOp>(loc, LLVM::FCmpPredicate::uno, value, value);
  Value zero = b.create<LLVM::ConstantOp>(loc, bits.getType(),
                                          b.getIntegerAttr(bits.getType(), 0));
  Value negative = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::slt, bits, zero);
  Value one = b.create<LLVM::ConstantOp>(loc, b.getI1Type(), b.getBoolAttr(true));
  Value live = b.create<LLVM::AndOp>(loc, pred, b.create<LLVM::XOrOp>(loc, isNan, one));
  Value nonNegative = b.create<LLVM::XOrOp>(loc, negative, one);
  Value onNonNegative = b.create<LLVM::AndOp>(loc, live, nonNegative);
  Value onNegative = b.create<LLVM::AndOp>(loc, live, negative);
  Value onNan = b.create<LLVM::AndOp>(loc, pred, isNan);
  bool isMax = info.kind == tile::AtomicKind::max;
  std::string w = std::to_string(info.bits);
  std::string q = info.qualifiers();
  const char *op = info.useRed ? "red" : "atom";
  std::string dst = info.useRed ? "" : "$0, ";
  unsigned base = info.useRed ? 0 : 1; // operands after the result
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  if (!info.useRed)
    os << "mov.b" << w << " $0, 0;\n";
  auto line = [&](unsigned predIndex, const std::string &suffix, const std::string &src) {
    os << "@$" << base + predIndex << " " << op << q << suffix << " " << dst << "[$"
       << base + 3 << "], " << src << ";\n";
  };
  line(0, std::string(isMax ? ".max.s" : ".min.s") + w, "$" + std::to_string(base + 4));
  line(1, std::string(isMax ? ".min.u" : ".max.u") + w, "$" + std::to_string(base + 4));
  if (!info.useRed)
    line(2, ".or.b" + w, "0");
  std::string constraints =
      (info.useRed ? std::string() : "=&" + std::string(info.constraint()) + ",") +
      "b,b,b,l," + info.constraint();
  return atomicAsm(b, loc, info, info.useRed ? 0 : 1,
                   ValueRange{onNonNegative, onNegative, onNan, ptr, bits}, ptx,
                   constraints);
}

/// A 16-bit float max, min, exch or (bf16 before sm_90) add as a
/// compare-and-swap loop (file comment).
SmallVector<Value> emitCompareSwapLoop(OpBuilder &b, Location loc,
                                       const AtomicInfo &info, Value ptr,
                                       Value pred, Value value) {
  bool isHalf = isa<Float16Type>(info.element);
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "{\n"
        ".reg .pred %again, %ordered, %negative, %take;\n"
        ".reg .b16 %old, %new, %kv, %ko, %t, %zero;\n"
        ".reg .b32 %fa, %fb;\n"
        "mov.b16 $0, 0;\n"
        "@!$1 bra DONE${:uid};\n";
  using K = tile::AtomicKind;
  bool isMinMax = info.kind == K::max || info.kind == K::min;
  if (isMinMax) {
    // The value's order key, and whether it is a number at all.
    os << "and.b16 %t, $3, 0x7FFF;\n"
       << "setp.le.u16 %ordered, %t, " << (isHalf ? "0x7C00" : "0x7F80") << ";\n"
       << "setp.lt.s16 %negative, $3, 0;\n"
          "xor.b16 %t, $3, 0x7FFF;\n"
          "selp.b16 %kv, %t, $3, %negative;\n";
  }
  os << "ld.global.b16 %old, [$2];\n"
        "LOOP${:uid}:\n";
  switch (info.kind) {
  case K::xchg:
    os << "mov.b16 %new, $3;\n";
    break;
  case K::add: // bf16 before sm_90: in fp32, rounded back once
    os << "mov.b16 %zero, 0;\n"
          "mov.b32 %fa, {%zero, %old};\n"
          "mov.b32 %fb, {%zero, $3};\n"
          "add.rn.f32 %fa, %fa, %fb;\n"
          "cvt.rn.bf16.f32 %new, %fa;\n";
    break;
  default:
    os << "setp.lt.s16 %negative, %old, 0;\n"
          "xor.b16 %t, %old, 0x7FFF;\n"
          "selp.b16 %ko, %t, %old, %negative;\n"
       << "setp." << (info.kind == K::max ? "gt" : "lt")
       << ".and.s16 %take, %kv, %ko, %ordered;\n"
          "selp.b16 %new, $3, %old, %take;\n";
  }
  os << "atom" << info.qualifiers() << ".cas.b16 $0, [$2], %old, %new;\n"
     << "setp.ne.b16 %again, $0, %old;\n"
        "mov.b16 %old, $0;\n"
        "@%again bra LOOP${:uid};\n"
        "DONE${:uid}:\n"
        "}";
  return atomicAsm(b, loc, info, 1,
                   ValueRange{pred, ptr, toBits(b, loc, info, value)}, ptx,
                   "=&h,b,l,h");
}

template <typename Op>
struct AtomicOpLowering : OpConversionPattern<Op> {
  AtomicOpLowering(TileTypeConverter &converter, const LoweringContext &context,
                   const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern<Op>(converter, &converter.getContext()),
        context(context), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter *converter = this->getTypeConverter();
    Type element = converter->convertType(tile::getElementTypeOrSelf(op.getType()));
    AtomicInfo info = AtomicInfo::of(op, element, context.target);
    Value maskValue;
    if constexpr (std::is_same_v<Op, tile::AtomicRMWOp>)
      maskValue = op.getMask();

    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> cmps, masks;
    if constexpr (std::is_same_v<Op, tile::AtomicCASOp>)
      cmps = unpack(rewriter, loc, adaptor.getCmp());
    else if (maskValue)
      masks = unpack(rewriter, loc, adaptor.getMask());

    // The one thread that performs each element's atomic.
    Value owner = accessOwner(rewriter, loc, op.getType(), context);
    std::optional<tilegpu::LinearLayout> layout;
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (tensorType)
      layout = tilegpu::toLinearLayout(tensorType);
    using Sem = tile::MemSemantic;
    bool releases = info.sem == Sem::release || info.sem == Sem::acq_rel;
    bool acquires = info.sem == Sem::acquire || info.sem == Sem::acq_rel;
    if (!tensorType && releases)
      ctaBarrier(rewriter, loc, context);
    unsigned vector = 1;
    if (info.maxVector > 1 && tensorType)
      vector = std::min(info.maxVector,
                        globalAccessWidth(op.getPtr(), maskValue, axisInfo));

    SmallVector<Value> results(ptrs.size());
    for (unsigned first = 0; first < ptrs.size(); first += vector) {
      if (layout && isRepeatedRegister(*layout, first))
        continue;
      Value pred = accessPredicate(rewriter, loc, owner,
                                   masks.empty() ? Value() : masks[first]);
      ArrayRef<Value> chunk = ArrayRef<Value>(values).slice(first, vector);
      SmallVector<Value> old;
      switch (info.form) {
      case Form::Native:
        old = emitNative(rewriter, loc, info, ptrs[first], pred, chunk,
                         cmps.empty() ? ArrayRef<Value>()
                                      : ArrayRef<Value>(cmps).slice(first, vector));
        break;
      case Form::SignSplit:
        old = emitSignSplit(rewriter, loc, info, ptrs[first], pred, chunk[0]);
        break;
      case Form::CompareSwapLoop:
        old = emitCompareSwapLoop(rewriter, loc, info, ptrs[first], pred, chunk[0]);
        break;
      }
      for (auto [i, v] : llvm::enumerate(old))
        results[first + i] = fromBits(rewriter, loc, info, v);
    }
    bool shared = getAtomicScratchBytes(op) != 0; // (ends with a barrier)
    if (!tensorType && acquires && !shared)
      ctaBarrier(rewriter, loc, context);
    if (op.getResult().use_empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    // Repeated registers take their first copy's value.
    if (layout) {
      int32_t repeated = layout->getFreeVariableMask(tilegpu::kRegister);
      for (unsigned r = 0; r < results.size(); ++r)
        if (r & repeated)
          results[r] = results[r & ~repeated];
    }
    if (shared)
      results = shareOldValues(rewriter, loc, op, info, layout, owner, results);
    Type packedType = converter->convertType(op.getType());
    rewriter.replaceOp(op, tensorType ? pack(rewriter, loc, packedType, results)
                                      : results.front());
    return success();
  }

  /// The old values every thread holds, from the owners' through the op's
  /// scratch: row-major, one slot per element.
  SmallVector<Value> shareOldValues(ConversionPatternRewriter &rewriter,
                                    Location loc, Op op, const AtomicInfo &info,
                                    const std::optional<tilegpu::LinearLayout> &layout,
                                    Value owner, SmallVector<Value> results) const {
    Value base = sharedMemoryOf(rewriter, loc, op);
    if (!base)
      return results; // (no allocation: TileGPUToLLVM reports that up front)
    if (!layout) {
      // Thread 0 performed it: it alone stores, everyone loads.
      emitPredicatedStore(rewriter, loc, AccessShape(info.element, 1), base, owner,
                          results, "st.shared");
      ctaBarrier(rewriter, loc, context);
      return {rewriter.create<LLVM::LoadOp>(loc, info.element, base).getResult()};
    }
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<unsigned> order;
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      order.push_back(unsigned(d));
    auto rowMajor = tilegpu::SwizzledSharedEncodingAttr::get(
        rewriter.getContext(), 1, 1, 1, order);
    auto buffer = tilegpu::MemDescType::get(rewriter.getContext(), type.getShape(),
                                            type.getElementType(), rowMajor,
                                            /*mutableMemory=*/true);
    tilegpu::LinearLayout shared = tilegpu::toLinearLayout(buffer);
    storeToShared(rewriter, loc, *layout, shared, base, info.element, results, context);
    ctaBarrier(rewriter, loc, context);
    return loadFromShared(rewriter, loc, *layout, shared, base, info.element, context);
  }

  const LoweringContext &context;
  const AxisInfoAnalysis &axisInfo;
};
} // namespace

void tilec::lowering::populateAtomicOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    const AxisInfoAnalysis &axisInfo, RewritePatternSet &patterns) {
  patterns.add<AtomicOpLowering<tile::AtomicRMWOp>,
               AtomicOpLowering<tile::AtomicCASOp>>(converter, context, axisInfo);
}
