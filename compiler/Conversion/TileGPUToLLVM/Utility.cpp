#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "compiler/Analysis/FP8.h"

#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

Value tilec::lowering::orderedAsm(OpBuilder &b, Location loc, Type result,
                                  ValueRange operands, StringRef ptx, StringRef constraints) {
  auto op = b.create<LLVM::InlineAsmOp>(
      loc, result, operands, ptx, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  return op.getNumResults() ? op.getResult(0) : Value();
}

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
  // A tensor map is a grid-constant parameter, addressed generically.
  addConversion([ctx](tile::TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });
  addConversion([ctx](tile::PointerType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  });
  addConversion([ctx](tilegpu::MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!isa_and_present<tilegpu::DistributedEncodingAttrInterface>(
            type.getEncoding()))
      return std::nullopt;
    Type element = convertType(type.getElementType());
    if (!element)
      return std::nullopt;
    unsigned n = tilegpu::getNumRegisters(type);
    return LLVM::LLVMStructType::getLiteral(type.getContext(),
                                            SmallVector<Type>(n, element));
  });
}

Value tilec::lowering::i32Constant(OpBuilder &b, Location loc, int64_t v) {
  return b.create<LLVM::ConstantOp>(loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Value tilec::lowering::inlineAsm(OpBuilder &b, Location loc, Type result,
                                 ValueRange operands, StringRef ptx,
                                 StringRef constraints) {
  return b
      .create<LLVM::InlineAsmOp>(loc, result, operands, ptx, constraints,
                                 /*has_side_effects=*/false,
                                 /*is_align_stack=*/false,
                                 LLVM::tailcallkind::TailCallKind::None,
                                 LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

SmallVector<Value> tilec::lowering::unpack(OpBuilder &b, Location loc,
                                           Value packed) {
  auto structType = dyn_cast<LLVM::LLVMStructType>(packed.getType());
  if (!structType)
    return {packed};
  SmallVector<Value> registers;
  for (unsigned i = 0; i < structType.getBody().size(); ++i)
    registers.push_back(b.create<LLVM::ExtractValueOp>(loc, packed, i));
  return registers;
}

Value tilec::lowering::pack(OpBuilder &b, Location loc, Type packedType,
                            ValueRange registers) {
  if (!isa<LLVM::LLVMStructType>(packedType)) {
    assert(registers.size() == 1 && "a scalar packs one register");
    return registers.front();
  }
  Value result = b.create<LLVM::UndefOp>(loc, packedType);
  for (auto [i, value] : llvm::enumerate(registers))
    result = b.create<LLVM::InsertValueOp>(loc, result, value, i);
  return result;
}

void tilec::lowering::ctaBarrier(OpBuilder &b, Location loc, const LoweringContext &context) {
  if (!context.producerWarps) {
    b.create<NVVM::Barrier0Op>(loc);
    return;
  }
  namedBarrier(b, loc, context, context.numThreads());
}

void tilec::lowering::namedBarrier(OpBuilder &b, Location loc, const LoweringContext &context,
                                   unsigned threads) {
  Type none = LLVM::LLVMVoidType::get(b.getContext());
  std::string count = std::to_string(threads);
  if (context.consumerGroups == 1) {
    orderedAsm(b, loc, none, {}, "bar.sync 1, " + count + ";", "");
    return;
  }
  // All the groups' threads meet on the barrier after the groups' own.
  if (threads == context.consumerGroups * context.numThreads()) {
    orderedAsm(b, loc, none, {},
               "bar.sync " + std::to_string(1 + context.consumerGroups) + ", " + count + ";", "");
    return;
  }
  // Each group meets on a barrier of its own (0 is the whole CTA's).
  Value group = consumerGroup(b, loc, context);
  Value one = i32Constant(b, loc, 1);
  Value id = b.create<LLVM::AddOp>(loc, group, one);
  orderedAsm(b, loc, none, {id}, "bar.sync $0, " + count + ";", "r");
}

Value tilec::lowering::blockThreadId(OpBuilder &b, Location loc,
                                     const LoweringContext &context) {
  auto range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0,
                                            context.blockThreads());
  return b.create<NVVM::ThreadIdXOp>(loc, b.getI32Type(), range);
}

Value tilec::lowering::threadId(OpBuilder &b, Location loc,
                                const LoweringContext &context) {
  Value tid = blockThreadId(b, loc, context);
  if (context.consumerGroups == 1)
    return tid;
  // (num_warps is a power of two: the groups' threads are bit fields.)
  Value mask = i32Constant(b, loc, context.numThreads() - 1);
  return b.create<LLVM::AndOp>(loc, tid, mask);
}

/// The index of this thread's group of `groupThreads` (a power of two)
/// among a block of at most `blockThreads`.
static Value threadGroup(OpBuilder &b, Location loc, unsigned groupThreads,
                         unsigned blockThreads) {
  auto range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0, blockThreads);
  Value tid = b.create<NVVM::ThreadIdXOp>(loc, b.getI32Type(), range);
  Value shift = i32Constant(b, loc, llvm::Log2_32(groupThreads));
  return b.create<LLVM::LShrOp>(loc, tid, shift);
}

Value tilec::lowering::consumerGroup(OpBuilder &b, Location loc,
                                     const LoweringContext &context) {
  if (context.consumerGroups == 1)
    return i32Constant(b, loc, 0);
  return threadGroup(b, loc, context.numThreads(), context.blockThreads());
}

// (One op per statement: the order of a call's arguments is the C++
// compiler's, and the IR's order must not depend on it.)
Value tilec::lowering::laneZero(OpBuilder &b, Location loc, const LoweringContext &context) {
  Value tid = threadId(b, loc, context);
  Value mask = i32Constant(b, loc, 31);
  Value lane = b.create<LLVM::AndOp>(loc, tid, mask);
  Value zero = i32Constant(b, loc, 0);
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, lane, zero);
}

/// Whether `op` works on a shared object of the CTA's own (one copy, as
/// the rings and mbarriers a warp-specialised loop allocates before its
/// roles part) rather than on a consumer group's copy of one.
static bool onBlockObject(Operation *op) {
  for (Value operand : op->getOperands()) {
    if (!isa<tilegpu::MemDescType>(operand.getType()))
      continue;
    Operation *owner = tilegpu::viewedBuffer(operand).getDefiningOp();
    if (owner && owner->hasAttr(tilegpu::kSharedOffsetAttr) &&
        !owner->hasAttr(tilegpu::kGroupSharedStrideAttr))
      return true;
  }
  return false;
}

Value tilec::lowering::electedThread(Operation *op, OpBuilder &b, Location loc,
                                     const LoweringContext &context, Value pred) {
  Value first;
  if (op->hasAttr(tilegpu::kLaneZeroAttr)) {
    first = laneZero(b, loc, context);
  } else {
    // (With consumer groups each group's thread 0 works on its group's
    // copies; an object of which there is one, such as an mbarrier
    // initialised before the roles part, is the block's thread 0's alone.)
    Value tid = context.consumerGroups > 1 && onBlockObject(op) ? blockThreadId(b, loc, context)
                                                                 : threadId(b, loc, context);
    Value zero = i32Constant(b, loc, 0);
    first = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, tid, zero);
  }
  return pred ? b.create<LLVM::AndOp>(loc, first, pred).getResult() : first;
}

ThreadIndex tilec::lowering::threadIndex(OpBuilder &b, Location loc,
                                         const LoweringContext &context) {
  Value tid = threadId(b, loc, context);
  return {b.create<LLVM::AndOp>(loc, tid, i32Constant(b, loc, 31)),
          b.create<LLVM::LShrOp>(loc, tid, i32Constant(b, loc, 5))};
}

Value tilec::lowering::extractBits(OpBuilder &b, Location loc, Value id,
                                   int32_t mask) {
  // Runs of consecutive bits move together: one shift and one mask each.
  Value result;
  unsigned placed = 0;
  for (unsigned bit = 0; bit < 32;) {
    if (!(mask >> bit & 1)) {
      ++bit;
      continue;
    }
    unsigned length = 0;
    while (bit + length < 32 && (mask >> (bit + length) & 1))
      ++length;
    Value part = id;
    if (bit)
      part = b.create<LLVM::LShrOp>(loc, part, i32Constant(b, loc, bit));
    part = b.create<LLVM::AndOp>(loc, part, i32Constant(b, loc, (1u << length) - 1));
    if (placed)
      part = b.create<LLVM::ShlOp>(loc, part, i32Constant(b, loc, placed));
    result = result ? b.create<LLVM::OrOp>(loc, result, part).getResult() : part;
    placed += length;
    bit += length;
  }
  return result ? result : i32Constant(b, loc, 0);
}

HardwareIndex HardwareIndex::ofThread(const ThreadIndex &t) {
  return {{{tilegpu::kLane, t.lane}, {tilegpu::kWarp, t.warp}}};
}

namespace {
/// The contribution of input `id`'s bits to output `out` of `layout`:
/// XOR of the images of its set bits, built from shifts and masks where
/// consecutive input bits reach consecutive output bits.
Value inputContribution(OpBuilder &b, Location loc, const LinearLayout &layout,
                        StringRef in, Value id, unsigned out) {
  ArrayRef<LinearLayout::Image> bases = layout.getBases(in);
  Value result;
  auto combine = [&](Value part) {
    result = result ? b.create<LLVM::XOrOp>(loc, result, part).getResult() : part;
  };
  for (unsigned bit = 0; bit < bases.size();) {
    int32_t image = bases[bit][out];
    if (!image) {
      ++bit;
      continue;
    }
    if (!llvm::isPowerOf2_32(image)) {
      // (id >> bit & 1) ? image : 0, without a branch.
      Value one = b.create<LLVM::AndOp>(
          loc, b.create<LLVM::LShrOp>(loc, id, i32Constant(b, loc, bit)),
          i32Constant(b, loc, 1));
      Value all = b.create<LLVM::SubOp>(loc, i32Constant(b, loc, 0), one);
      combine(b.create<LLVM::AndOp>(loc, all, i32Constant(b, loc, image)));
      ++bit;
      continue;
    }
    unsigned target = llvm::Log2_32(image), length = 1;
    while (bit + length < bases.size() &&
           bases[bit + length][out] == int32_t(1) << (target + length))
      ++length;
    Value part = id;
    if (bit)
      part = b.create<LLVM::LShrOp>(loc, part, i32Constant(b, loc, bit));
    part = b.create<LLVM::AndOp>(loc, part, i32Constant(b, loc, (1 << length) - 1));
    if (target)
      part = b.create<LLVM::ShlOp>(loc, part, i32Constant(b, loc, target));
    combine(part);
    bit += length;
  }
  return result;
}

/// OR of the images along `out` of every bit of the named inputs: the
/// output bits those inputs can set.
int32_t reachableBits(const LinearLayout &layout, ArrayRef<StringRef> ins,
                      unsigned out) {
  int32_t mask = 0;
  for (StringRef in : ins)
    for (const LinearLayout::Image &image : layout.getBases(in))
      mask |= image[out];
  return mask;
}
} // namespace

SmallVector<Value> tilec::lowering::threadOffsets(OpBuilder &b, Location loc,
                                                  const LinearLayout &layout,
                                                  const HardwareIndex &index) {
  SmallVector<Value> offsets;
  for (unsigned out = 0; out < layout.getOutDims().size(); ++out) {
    Value offset;
    for (const auto &[name, id] : index.inputs) {
      Value part = inputContribution(b, loc, layout, name, id, out);
      if (!part)
        continue;
      offset = offset ? b.create<LLVM::XOrOp>(loc, offset, part).getResult() : part;
    }
    offsets.push_back(offset ? offset : i32Constant(b, loc, 0));
  }
  return offsets;
}

SmallVector<Value> tilec::lowering::registerCoordinate(OpBuilder &b, Location loc,
                                                       const LinearLayout &layout,
                                                       unsigned r,
                                                       ArrayRef<Value> offsets) {
  LinearLayout::Image image = layout.applyOne(tilegpu::kRegister, r);
  SmallVector<StringRef> others;
  for (const LinearLayout::InDim &in : layout.getInDims())
    if (in.name != tilegpu::kRegister)
      others.push_back(in.name);
  SmallVector<Value> coord;
  for (unsigned out = 0; out < image.size(); ++out) {
    if (!image[out]) {
      coord.push_back(offsets[out]);
      continue;
    }
    Value constant = i32Constant(b, loc, image[out]);
    bool disjoint = !(reachableBits(layout, {tilegpu::kRegister}, out) &
                      reachableBits(layout, others, out));
    coord.push_back(disjoint
                        ? b.create<LLVM::AddOp>(loc, offsets[out], constant).getResult()
                        : b.create<LLVM::XOrOp>(loc, offsets[out], constant).getResult());
  }
  return coord;
}

SmallVector<SmallVector<Value>>
tilec::lowering::registerCoordinates(OpBuilder &b, Location loc,
                                     const LinearLayout &layout,
                                     const LoweringContext &context) {
  SmallVector<Value> offsets = threadOffsets(
      b, loc, layout, HardwareIndex::ofThread(threadIndex(b, loc, context)));
  SmallVector<SmallVector<Value>> coords;
  for (int32_t r = 0; r < layout.getInDimSize(tilegpu::kRegister); ++r)
    coords.push_back(registerCoordinate(b, loc, layout, r, offsets));
  return coords;
}

Value tilec::lowering::linearIndex(OpBuilder &b, Location loc,
                                   ArrayRef<Value> coord, ArrayRef<int64_t> shape,
                                   std::optional<unsigned> skip) {
  Value index = i32Constant(b, loc, 0);
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (skip && unsigned(d) == *skip)
      continue;
    index = b.create<LLVM::AddOp>(
        loc, index,
        b.create<LLVM::MulOp>(loc, coord[d], i32Constant(b, loc, stride)));
    stride *= shape[d];
  }
  return index;
}

Value tilec::lowering::ownsElements(OpBuilder &b, Location loc,
                                    const LinearLayout &layout,
                                    const ThreadIndex &thread) {
  int32_t freeLanes = layout.getFreeVariableMask(tilegpu::kLane);
  int32_t freeWarps = layout.getFreeVariableMask(tilegpu::kWarp);
  if (!freeLanes && !freeWarps)
    return Value();
  Value owner;
  auto both = [&](Value id, int32_t mask) {
    if (!mask)
      return;
    Value clear = b.create<LLVM::ICmpOp>(
        loc, LLVM::ICmpPredicate::eq,
        b.create<LLVM::AndOp>(loc, id, i32Constant(b, loc, mask)),
        i32Constant(b, loc, 0));
    owner = owner ? b.create<LLVM::AndOp>(loc, owner, clear).getResult() : clear;
  };
  both(thread.lane, freeLanes);
  both(thread.warp, freeWarps);
  return owner;
}

Value tilec::lowering::sharedMemoryBase(OpBuilder &b, Location loc,
                                        Operation *anchor) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedMemorySymbol);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    global = b.create<LLVM::GlobalOp>(
        loc, arrayType, /*isConstant=*/false, LLVM::Linkage::External,
        kSharedMemorySymbol, /*value=*/Attribute(), /*alignment=*/1024,
        kSharedAddressSpace);
  }
  return b.create<LLVM::AddressOfOp>(loc, global);
}

Value tilec::lowering::sharedMemoryOf(OpBuilder &b, Location loc, Operation *op) {
  auto offset = op->getAttrOfType<IntegerAttr>(tilegpu::kSharedOffsetAttr);
  if (!offset)
    return Value();
  Value base = sharedMemoryBase(b, loc, op);
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  Value at = i32Constant(b, loc, offset.getInt());
  if (auto stride = op->getAttrOfType<IntegerAttr>(tilegpu::kGroupSharedStrideAttr)) {
    // Consumer group g's copy: g * stride bytes further. (Only the
    // consumers' code reads the copies; the block's size is not known
    // here, at most 1024 threads.)
    auto module = op->getParentOfType<ModuleOp>();
    unsigned threads = tilegpu::getNumWarps(module) * tilegpu::kThreadsPerWarp;
    Value group = threadGroup(b, loc, threads, 1024);
    Value bytes = i32Constant(b, loc, stride.getInt());
    Value groupOffset = b.create<LLVM::MulOp>(loc, group, bytes);
    at = b.create<LLVM::AddOp>(loc, at, groupOffset);
  } else if (offset.getInt() == 0) {
    return base;
  }
  return b.create<LLVM::GEPOp>(loc, sharedPtr, b.getI8Type(), base, ValueRange{at});
}

std::pair<Value, Value> tilec::lowering::indexWithin(OpBuilder &b, Location loc,
                                                     Value index, int64_t extent) {
  Type type = index.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  if (bits < 32)
    index = b.create<LLVM::SExtOp>(loc, i32, index);
  Type compared = bits > 32 ? type : i32;
  Value limit = b.create<LLVM::ConstantOp>(loc, compared, b.getIntegerAttr(compared, extent));
  Value inside = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, index, limit);
  if (bits > 32)
    index = b.create<LLVM::TruncOp>(loc, i32, index);
  return {index, inside};
}

Type tilec::lowering::memoryElementType(Type registerElement) {
  // i1 takes a byte in memory; fp8 is its bits.
  if (registerElement.isInteger(1) || isFP8(registerElement))
    return IntegerType::get(registerElement.getContext(), 8);
  return registerElement;
}

namespace {
/// How registers of layout `regs` map onto the offsets of shared layout
/// `shared`, and how many consecutive registers can move as one access.
struct SharedAccess {
  LinearLayout map; ///< (register, lane, warp) -> offset
  unsigned vector = 1;

  SharedAccess(const LinearLayout &regs, const LinearLayout &shared,
               Type element) {
    std::optional<LinearLayout> inverse = shared.invertAndCompose(regs);
    assert(inverse && "a shared layout covers its buffer");
    map = *inverse;
    vector = tilegpu::sharedAccessVector(
        map, isa<LLVM::LLVMPointerType>(element) ? 0 : tile::getElementBytes(element));
  }
};

} // namespace

Value tilec::lowering::sharedAddress(OpBuilder &b, Location loc,
                                     const LinearLayout &map, unsigned r,
                                     ArrayRef<Value> threadOffset, Value base,
                                     Type memoryElement) {
  Value offset = registerCoordinate(b, loc, map, r, threadOffset)[0];
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  return b.create<LLVM::GEPOp>(loc, sharedPtr, memoryElement, base,
                               ValueRange{offset});
}

void tilec::lowering::storeToShared(OpBuilder &b, Location loc,
                                    const LinearLayout &regs,
                                    const LinearLayout &shared, Value base,
                                    Type element, ArrayRef<Value> values,
                                    const LoweringContext &context) {
  SharedAccess access(regs, shared, element);
  ThreadIndex thread = threadIndex(b, loc, context);
  SmallVector<Value> offsets =
      threadOffsets(b, loc, access.map, HardwareIndex::ofThread(thread));
  // Threads holding copies would write the same values again; only the
  // owner writes, so that no two threads race on an address.
  Value owner = ownsElements(b, loc, regs, thread);
  AccessShape shape(element, access.vector);
  for (unsigned r = 0; r < values.size(); r += access.vector) {
    if (isRepeatedRegister(regs, r))
      continue;
    Value address = sharedAddress(b, loc, access.map, r, offsets, base,
                                  shape.memoryElement);
    ArrayRef<Value> chunk = values.slice(r, access.vector);
    if (owner)
      emitPredicatedStore(b, loc, shape, address, owner, chunk, "st.shared");
    else
      emitPlainStore(b, loc, shape, address, chunk);
  }
}

SmallVector<Value> tilec::lowering::loadFromShared(
    OpBuilder &b, Location loc, const LinearLayout &regs,
    const LinearLayout &shared, Value base, Type element,
    const LoweringContext &context) {
  SharedAccess access(regs, shared, element);
  SmallVector<Value> offsets = threadOffsets(
      b, loc, access.map, HardwareIndex::ofThread(threadIndex(b, loc, context)));
  AccessShape shape(element, access.vector);
  SmallVector<Value> values;
  int32_t n = regs.getInDimSize(tilegpu::kRegister);
  for (int32_t r = 0; r < n; r += access.vector) {
    Value address = sharedAddress(b, loc, access.map, r, offsets, base,
                                  shape.memoryElement);
    values.append(emitPlainLoad(b, loc, shape, address));
  }
  return values;
}

Value tilec::lowering::shuffle(OpBuilder &b, Location loc, Value v,
                               NVVM::ShflKind kind, Value lane) {
  // Pointers travel as 64-bit integers.
  if (isa<LLVM::LLVMPointerType>(v.getType())) {
    Value bits = b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), v);
    return b.create<LLVM::IntToPtrOp>(loc, v.getType(),
                                      shuffle(b, loc, bits, kind, lane));
  }
  Type type = v.getType();
  Type i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  // `up` clamps at lane 0 (c = 0); the other kinds within the warp (0x1f).
  int64_t clampValue = kind == NVVM::ShflKind::up ? 0 : 0x1f;
  auto shfl = [&](Value word) -> Value {
    Value all = i32Constant(b, loc, -1);
    Value clamp = i32Constant(b, loc, clampValue);
    return b.create<NVVM::ShflOp>(loc, i32, all, word, lane, clamp, kind,
                                  UnitAttr());
  };
  Type asInt = b.getIntegerType(bits);
  Value x = isa<FloatType>(type) ? b.create<LLVM::BitcastOp>(loc, asInt, v).getResult() : v;
  Value result;
  if (bits == 64) {
    Value c32 = b.create<LLVM::ConstantOp>(loc, asInt, b.getIntegerAttr(asInt, 32));
    Value lo = b.create<LLVM::TruncOp>(loc, i32, x);
    Value hi = b.create<LLVM::TruncOp>(loc, i32, b.create<LLVM::LShrOp>(loc, x, c32));
    Value slo = b.create<LLVM::ZExtOp>(loc, asInt, shfl(lo));
    Value shi = b.create<LLVM::ZExtOp>(loc, asInt, shfl(hi));
    result = b.create<LLVM::OrOp>(loc, slo, b.create<LLVM::ShlOp>(loc, shi, c32));
  } else if (bits < 32) {
    result = b.create<LLVM::TruncOp>(loc, asInt,
                                     shfl(b.create<LLVM::ZExtOp>(loc, i32, x)));
  } else {
    result = shfl(x);
  }
  if (isa<FloatType>(type))
    result = b.create<LLVM::BitcastOp>(loc, type, result);
  return result;
}

Value tilec::lowering::shuffle(OpBuilder &b, Location loc, Value v,
                               NVVM::ShflKind kind, unsigned laneArg) {
  return shuffle(b, loc, v, kind, i32Constant(b, loc, laneArg));
}

SmallVector<Value> tilec::lowering::applyCombiner(OpBuilder &b, Block &combiner,
                                                  ArrayRef<Value> lhs,
                                                  ArrayRef<Value> rhs) {
  IRMapping mapping;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    mapping.map(combiner.getArgument(i), lhs[i]);
    mapping.map(combiner.getArgument(n + i), rhs[i]);
  }
  for (Operation &inner : combiner.without_terminator()) {
    // fp8 values are i8 bits here: conversions between fp8 and f32 (the
    // only arithmetic tile-widen-fp8 leaves on fp8) are emitted as such,
    // and other ops (selects) produce the bits.
    Value in = inner.getNumOperands() == 1 ? inner.getOperand(0) : Value();
    Type out = inner.getNumResults() == 1 ? inner.getResult(0).getType() : Type();
    if (isa<arith::ExtFOp>(inner) && isFP8(in.getType())) {
      mapping.map(inner.getResult(0), fromFP8(b, inner.getLoc(),
                                              mapping.lookupOrDefault(in),
                                              in.getType(), out));
      continue;
    }
    if (isa<arith::TruncFOp>(inner) && isFP8(out)) {
      mapping.map(inner.getResult(0),
                  toFP8(b, inner.getLoc(), mapping.lookupOrDefault(in), out));
      continue;
    }
    Operation *clone = b.clone(inner, mapping);
    for (OpResult result : clone->getResults())
      if (isFP8(result.getType()))
        result.setType(b.getI8Type());
  }
  SmallVector<Value> out;
  for (Value v : combiner.getTerminator()->getOperands())
    out.push_back(mapping.lookupOrDefault(v));
  return out;
}

Value tilec::lowering::accessOwner(OpBuilder &b, Location loc, Type type,
                                   const LoweringContext &context) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return ownsElements(b, loc, tilegpu::toLinearLayout(tensor),
                        threadIndex(b, loc, context));
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, threadId(b, loc, context),
                                i32Constant(b, loc, 0));
}

Value tilec::lowering::accessPredicate(OpBuilder &b, Location loc, Value owner,
                                       Value mask) {
  if (owner && mask)
    return b.create<LLVM::AndOp>(loc, owner, mask);
  if (owner || mask)
    return owner ? owner : mask;
  return b.create<LLVM::ConstantOp>(loc, b.getI1Type(), b.getBoolAttr(true));
}
