// tile.print, tile.assert and tile.debug_barrier → the CUDA device runtime's
// vprintf and __assertfail (system calls ptxas resolves) and bar.sync.
//
// A print writes one vprintf per element the thread owns: an element that
// several threads hold (a broadcast layout) is printed by one of them, so
// each element appears once; a scalar, or a message without values, is
// printed by the program's first thread (Triton prints those once per
// thread). An assertion costs one branch per op: each
// thread folds its registers into "some element failed" and the first
// failing element's index and values (selects, no branch per register),
// and only a thread with a failure prints its line and calls __assertfail,
// which stops the kernel with CUDA_ERROR_ASSERT and makes the driver print
// `file:line: kernel: block: [..], thread: [..] Assertion `message` failed.`
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/Dialect/Tile/PrintFormat.h"
#include "compiler/RenderLocation.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
namespace print = tilec::tile::print;

namespace {

LLVM::LLVMPointerType genericPtr(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx);
}

/// A generic pointer to a NUL-terminated copy of `text` in global memory,
/// one global per distinct text.
Value globalString(OpBuilder &b, Location loc, ModuleOp module, StringRef text) {
  std::string name =
      "tilec_str_" + llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  std::string bytes = text.str();
  bytes.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name,
                                      b.getStringAttr(bytes), /*alignment=*/1,
                                      kGlobalAddressSpace);
  }
  Value address = b.create<LLVM::AddressOfOp>(loc, global);
  return b.create<LLVM::AddrSpaceCastOp>(loc, genericPtr(b.getContext()), address);
}

/// The declaration of an external device-runtime function.
LLVM::LLVMFuncOp runtimeFunction(OpBuilder &b, ModuleOp module, StringRef name,
                                 LLVM::LLVMFunctionType type) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return b.create<LLVM::LLVMFuncOp>(module.getLoc(), name, type);
}

/// One value of a printf line: the register and how to show it.
struct Shown {
  Value value;
  print::Kind kind;
  bool hex = false;
  int width = -1;
};

/// `value` promoted as C varargs promote it (small integers to i32, floats
/// to double, pointers generic), with its conversion.
std::pair<Value, std::string> promote(OpBuilder &b, Location loc, const Shown &s) {
  Type type = s.value.getType();
  Type i32 = b.getI32Type();
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value p = s.value;
    if (cast<LLVM::LLVMPointerType>(type).getAddressSpace() != 0)
      p = b.create<LLVM::AddrSpaceCastOp>(loc, genericPtr(b.getContext()), p);
    return {p, print::conversion(print::Kind::Pointer, 64, false)};
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  Value v = s.value;
  if (isa<FloatType>(type)) {
    if (s.hex) {
      v = b.create<LLVM::BitcastOp>(loc, b.getIntegerType(bits), v);
    } else {
      if (bits < 32)
        v = b.create<LLVM::FPExtOp>(loc, b.getF32Type(), v);
      if (bits < 64)
        v = b.create<LLVM::FPExtOp>(loc, b.getF64Type(), v);
      return {v, print::conversion(print::Kind::Float, 64, false)};
    }
  }
  if (bits < 32)
    v = s.kind == print::Kind::Signed && !s.hex
            ? b.create<LLVM::SExtOp>(loc, i32, v).getResult()
            : b.create<LLVM::ZExtOp>(loc, i32, v).getResult();
  // Hex shows the digits of the value's own width (4 for fp16), as Triton.
  return {v, print::conversion(s.kind, s.hex ? bits : (bits > 32 ? 64 : 32), s.hex,
                               s.width)};
}

using print::kValue;

/// Marks the vprintf argument buffers printLine allocates, for reuse.
constexpr StringLiteral kPrintfBufferAttr = "tilec.printf_buffer";

/// vprintf(format, args): `format` holds one kValue per value, replaced by
/// its conversion; everything else is literal (a '%' in it is escaped here).
void printLine(OpBuilder &b, Location loc, Operation *anchor,
               const std::string &format, ArrayRef<Shown> values) {
  MLIRContext *ctx = b.getContext();
  auto module = anchor->getParentOfType<ModuleOp>();
  std::string text;
  SmallVector<Value> args;
  size_t next = 0;
  for (const Shown &s : values) {
    size_t at = format.find(kValue, next);
    text += print::literal(format.substr(next, at - next));
    next = at + 1;
    auto [value, conversion] = promote(b, loc, s);
    text += conversion;
    args.push_back(value);
  }
  text += print::literal(format.substr(next)) + "\n";
  Value formatPtr = globalString(b, loc, module, text);
  Value buffer = b.create<LLVM::ZeroOp>(loc, genericPtr(ctx));
  if (!args.empty()) {
    SmallVector<Type> fields;
    for (Value a : args)
      fields.push_back(a.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    // The buffer lives in the function's entry block (an alloca anywhere
    // else would be a dynamic one), one per layout of arguments: every line
    // of a print fills the same one.
    Block &entry = anchor->getParentOfType<FunctionOpInterface>()
                       .getFunctionBody()
                       .front();
    for (auto alloca : entry.getOps<LLVM::AllocaOp>())
      if (alloca->hasAttr(kPrintfBufferAttr) && alloca.getElemType() == structType)
        buffer = alloca;
    if (!buffer.getDefiningOp<LLVM::AllocaOp>()) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&entry);
      Value one = b.create<LLVM::ConstantOp>(loc, b.getI32Type(), 1);
      auto alloca = b.create<LLVM::AllocaOp>(loc, genericPtr(ctx), structType, one,
                                             /*alignment=*/8);
      alloca->setAttr(kPrintfBufferAttr, b.getUnitAttr());
      buffer = alloca;
    }
    for (auto [i, a] : llvm::enumerate(args)) {
      Value field = b.create<LLVM::GEPOp>(
          loc, genericPtr(ctx), structType, buffer,
          ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      b.create<LLVM::StoreOp>(loc, a, field);
    }
  }
  auto vprintf = runtimeFunction(
      b, module, "vprintf",
      LLVM::LLVMFunctionType::get(b.getI32Type(), {genericPtr(ctx), genericPtr(ctx)}));
  b.create<LLVM::CallOp>(loc, vprintf, ValueRange{formatPtr, buffer});
}

/// "pid ({}, {}, {})" and its values.
void addProgramId(OpBuilder &b, Location loc, std::string &format,
                  SmallVectorImpl<Shown> &values) {
  Type i32 = b.getI32Type();
  format += print::programIdFormat();
  values.push_back({b.create<NVVM::BlockIdXOp>(loc, i32), print::Kind::Unsigned});
  values.push_back({b.create<NVVM::BlockIdYOp>(loc, i32), print::Kind::Unsigned});
  values.push_back({b.create<NVVM::BlockIdZOp>(loc, i32), print::Kind::Unsigned});
}

/// " idx (i, j)" for the coordinates of an element of `shape`.
void addIndex(std::string &format, SmallVectorImpl<Shown> &values,
              ArrayRef<Value> coord, ArrayRef<int64_t> shape) {
  format += print::indexFormat(coord.size());
  for (size_t d = 0; d < coord.size(); ++d)
    values.push_back({coord[d], print::Kind::Unsigned, false,
                      print::indexWidth(shape[d])});
}

print::Kind kindOf(Type element, bool isSigned) {
  if (isa<LLVM::LLVMPointerType>(element) || isa<tile::PointerType>(element))
    return print::Kind::Pointer;
  if (isa<FloatType>(element))
    return print::Kind::Float;
  return isSigned && element.getIntOrFloatBitWidth() > 1 ? print::Kind::Signed
                                                          : print::Kind::Unsigned;
}

/// Where the elements of a tensor operand are: per register, its
/// coordinates (none for a scalar) and whether this thread prints it.
struct ElementsOfThread {
  SmallVector<SmallVector<Value>> coords;
  SmallVector<unsigned> registers; ///< the registers to show, each element once
  Value owner;                     ///< null: every thread shows its registers
};

/// True in the program's first thread.
Value firstThread(OpBuilder &b, Location loc, const LoweringContext &context) {
  Value zero = b.create<LLVM::ConstantOp>(loc, b.getI32Type(), 0);
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                threadId(b, loc, context), zero);
}

ElementsOfThread elementsOf(OpBuilder &b, Location loc, Type type,
                            const LoweringContext &context) {
  ElementsOfThread e;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    // Every thread holds a scalar: the first one shows it.
    e.coords.push_back({});
    e.registers.push_back(0);
    e.owner = firstThread(b, loc, context);
    return e;
  }
  tilegpu::LinearLayout layout = tilegpu::toLinearLayout(tensor);
  e.coords = registerCoordinates(b, loc, layout, context);
  for (unsigned r = 0; r < e.coords.size(); ++r)
    if (!isRepeatedRegister(layout, r))
      e.registers.push_back(r);
  e.owner = ownsElements(b, loc, layout, threadIndex(b, loc, context));
  return e;
}

/// Continue at a new block after the current one; the code between runs
/// only where `condition` holds (the builder is left inside it).
/// Returns the block execution rejoins at.
Block *branchIf(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
                Value condition) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, Block::iterator(op));
  Block *then = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  rewriter.create<LLVM::CondBrOp>(loc, condition, then, after);
  rewriter.setInsertionPointToStart(then);
  return after;
}

/// Ends the code branchIf started: on to `after`, where the builder goes.
void rejoin(ConversionPatternRewriter &rewriter, Location loc, Block *after) {
  rewriter.create<LLVM::BrOp>(loc, after);
  rewriter.setInsertionPointToStart(after);
}

struct PrintOpLowering : ContextPattern<tile::PrintOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getArgs().empty()) {
      // A message alone: once per program.
      Block *after = branchIf(rewriter, loc, op, firstThread(rewriter, loc, context));
      std::string format;
      SmallVector<Shown> values;
      addProgramId(rewriter, loc, format, values);
      printLine(rewriter, loc, op, format + print::userText(op.getPrefix().str()),
                values);
      rejoin(rewriter, loc, after);
      rewriter.eraseOp(op);
      return success();
    }
    size_t n = op.getArgs().size();
    for (size_t i = 0; i < n; ++i) {
      Value arg = op.getArgs()[i];
      Type element = tile::getElementTypeOrSelf(arg.getType());
      print::Kind kind = kindOf(element, op.getArgsSigned()[i]);
      SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getArgs()[i]);
      ElementsOfThread e = elementsOf(rewriter, loc, arg.getType(), context);
      ArrayRef<int64_t> shape;
      if (auto tensor = dyn_cast<RankedTensorType>(arg.getType()))
        shape = tensor.getShape();
      Block *after = e.owner ? branchIf(rewriter, loc, op, e.owner) : nullptr;
      for (unsigned r : e.registers) {
        std::string format;
        SmallVector<Shown> values;
        addProgramId(rewriter, loc, format, values);
        addIndex(format, values, e.coords[r], shape);
        format += print::printValueFormat(op.getPrefix().str(), i, n);
        values.push_back({regs[r], kind, op.getHex()});
        printLine(rewriter, loc, op, format, values);
      }
      if (after) {
        rejoin(rewriter, loc, after);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertOpLowering : ContextPattern<tile::AssertOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type condType = op.getCondition().getType();
    SmallVector<Value> conds = unpack(rewriter, loc, adaptor.getCondition());
    SmallVector<SmallVector<Value>> values;
    for (Value v : adaptor.getValues())
      values.push_back(unpack(rewriter, loc, v));
    ElementsOfThread e = elementsOf(rewriter, loc, condType, context);

    // The first failing element of this thread: its coordinates and values,
    // chosen by selects from the last register to the first.
    Value failed, one = rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI1Type(), 1);
    SmallVector<Value> coord = e.coords[e.registers.front()];
    SmallVector<Value> shown;
    for (auto &regs : values)
      shown.push_back(regs[e.registers.front()]);
    for (unsigned r : llvm::reverse(e.registers)) {
      Value bad = rewriter.create<LLVM::XOrOp>(loc, conds[r], one);
      failed = failed ? rewriter.create<LLVM::OrOp>(loc, failed, bad).getResult() : bad;
      for (size_t d = 0; d < coord.size(); ++d)
        coord[d] = rewriter.create<LLVM::SelectOp>(loc, bad, e.coords[r][d], coord[d]);
      for (size_t k = 0; k < shown.size(); ++k)
        shown[k] = rewriter.create<LLVM::SelectOp>(loc, bad, values[k][r], shown[k]);
    }
    if (e.owner)
      failed = rewriter.create<LLVM::AndOp>(loc, failed, e.owner);

    Block *after = branchIf(rewriter, loc, op, failed);
    std::string format;
    SmallVector<Shown> line;
    addProgramId(rewriter, loc, format, line);
    ArrayRef<int64_t> shape;
    if (auto tensor = dyn_cast<RankedTensorType>(condType)) {
      shape = tensor.getShape();
      addIndex(format, line, coord, shape);
    }
    format += print::assertFormat(op.getMessage().str(), op.getDetailPieces());
    for (size_t k = 0; k < shown.size(); ++k) {
      Type element = tile::getElementTypeOrSelf(op.getValues()[k].getType());
      line.push_back({shown[k], kindOf(element, op.getValuesSigned()[k])});
    }
    printLine(rewriter, loc, op, format, line);
    callAssertFail(rewriter, loc, op);
    rejoin(rewriter, loc, after);
    rewriter.eraseOp(op);
    return success();
  }

  /// __assertfail(message, file, line, function, sizeof(char)).
  static void callAssertFail(OpBuilder &b, Location loc, tile::AssertOp op) {
    MLIRContext *ctx = b.getContext();
    auto module = op->getParentOfType<ModuleOp>();
    FileLineColLoc where = fileLocation(loc);
    std::string file = where ? where.getFilename().str() : "<unknown>";
    unsigned lineNumber = where ? where.getLine() : 0;
    auto function = op->getParentOfType<FunctionOpInterface>();
    Type ptr = genericPtr(ctx);
    auto assertFail = runtimeFunction(
        b, module, "__assertfail",
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                    {ptr, ptr, b.getI32Type(), ptr, b.getI64Type()}));
    b.create<LLVM::CallOp>(
        loc, assertFail,
        ValueRange{globalString(b, loc, module, op.getMessage()),
                   globalString(b, loc, module, file),
                   b.create<LLVM::ConstantOp>(loc, b.getI32Type(), lineNumber),
                   globalString(b, loc, module,
                                function ? function.getName() : "kernel"),
                   b.create<LLVM::ConstantOp>(loc, b.getI64Type(), 1)});
  }
};

struct DebugBarrierOpLowering : ContextPattern<tile::DebugBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult
  matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ctaBarrier(rewriter, op.getLoc(), context);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tilec::lowering::populateDebugOpToLLVMPatterns(TileTypeConverter &converter,
                                                    const LoweringContext &context,
                                                    RewritePatternSet &patterns) {
  patterns.add<PrintOpLowering, AssertOpLowering, DebugBarrierOpLowering>(converter, context);
}
