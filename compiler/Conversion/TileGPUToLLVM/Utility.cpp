#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
  addConversion([ctx](tile::PointerType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!type.getEncoding())
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

Value tilec::lowering::threadId(OpBuilder &b, Location loc,
                                const TargetInfo &target) {
  auto range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0,
                                            target.numThreads());
  return b.create<NVVM::ThreadIdXOp>(loc, b.getI32Type(), range);
}

/// Per root dimension of `root`, this thread's offset (in elements).
static SmallVector<Value> rootOffsets(OpBuilder &b, Location loc,
                                      tilegpu::BlockedEncodingAttr root,
                                      const TargetInfo &target) {
  Value tid = threadId(b, loc, target);
  Value lane = b.create<LLVM::AndOp>(loc, tid, i32Constant(b, loc, 31));
  Value warp = b.create<LLVM::LShrOp>(loc, tid, i32Constant(b, loc, 5));
  auto spt = root.getSizePerThread(), tpw = root.getThreadsPerWarp(),
       wpc = root.getWarpsPerCTA();
  SmallVector<Value> offsets(root.getRank());
  unsigned lanesBefore = 1, warpsBefore = 1;
  for (unsigned d : root.getOrder()) {
    auto digit = [&](Value id, unsigned before, unsigned count) -> Value {
      Value shifted = b.create<LLVM::LShrOp>(
          loc, id, i32Constant(b, loc, llvm::Log2_32(before)));
      return b.create<LLVM::AndOp>(loc, shifted, i32Constant(b, loc, count - 1));
    };
    Value laneD = digit(lane, lanesBefore, tpw[d]);
    Value warpD = digit(warp, warpsBefore, wpc[d]);
    Value thread = b.create<LLVM::AddOp>(
        loc, b.create<LLVM::MulOp>(loc, warpD, i32Constant(b, loc, tpw[d])),
        laneD);
    offsets[d] = b.create<LLVM::MulOp>(loc, thread, i32Constant(b, loc, spt[d]));
    lanesBefore *= tpw[d];
    warpsBefore *= wpc[d];
  }
  return offsets;
}

SmallVector<Value> tilec::lowering::threadOffsets(OpBuilder &b, Location loc,
                                                  const tilegpu::RegisterMap &map,
                                                  const TargetInfo &target) {
  SmallVector<Value> root = rootOffsets(b, loc, map.root(), target);
  SmallVector<Value> offsets;
  for (unsigned d = 0; d < map.rank(); ++d)
    offsets.push_back(root[map.rootDim(d)]);
  return offsets;
}

SmallVector<SmallVector<Value>>
tilec::lowering::registerCoordinates(OpBuilder &b, Location loc,
                                     const tilegpu::RegisterMap &map,
                                     const TargetInfo &target) {
  SmallVector<Value> offsets = threadOffsets(b, loc, map, target);
  SmallVector<SmallVector<Value>> coords(map.numRegisters());
  for (unsigned r = 0; r < map.numRegisters(); ++r)
    for (unsigned d = 0; d < map.rank(); ++d) {
      Value c = b.create<LLVM::AddOp>(
          loc, offsets[d], i32Constant(b, loc, map.constPart(r, d)));
      if (map.wraps(d) || map.constPart(r, d) >= map.shape()[d])
        c = b.create<LLVM::AndOp>(loc, c,
                                  i32Constant(b, loc, map.shape()[d] - 1));
      coords[r].push_back(c);
    }
  return coords;
}

Value tilec::lowering::indexWithoutAxis(OpBuilder &b, Location loc,
                                        ArrayRef<Value> coord,
                                        ArrayRef<int64_t> shape, unsigned axis) {
  Value index = i32Constant(b, loc, 0);
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (unsigned(d) == axis)
      continue;
    index = b.create<LLVM::AddOp>(
        loc, index,
        b.create<LLVM::MulOp>(loc, coord[d], i32Constant(b, loc, stride)));
    stride *= shape[d];
  }
  return index;
}

Value tilec::lowering::ownsElements(OpBuilder &b, Location loc,
                                    const tilegpu::RegisterMap &map,
                                    const TargetInfo &target) {
  auto root = map.root();
  SmallVector<bool> kept(root.getRank(), false);
  for (unsigned d = 0; d < map.rank(); ++d)
    kept[map.rootDim(d)] = true;
  bool anyCopies = false;
  for (unsigned d = 0; d < map.rank(); ++d)
    anyCopies |= map.wraps(d);
  for (unsigned rd = 0; rd < root.getRank(); ++rd)
    anyCopies |= !kept[rd] && root.getThreadsPerWarp()[rd] *
                                      root.getWarpsPerCTA()[rd] > 1;
  if (!anyCopies)
    return Value();
  SmallVector<Value> offsets = rootOffsets(b, loc, root, target);
  Value owner = b.create<LLVM::ConstantOp>(loc, b.getI1Type(), b.getBoolAttr(true));
  auto both = [&](Value cond) { owner = b.create<LLVM::AndOp>(loc, owner, cond); };
  for (unsigned d = 0; d < map.rank(); ++d)
    if (map.wraps(d))
      both(b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult,
                                  offsets[map.rootDim(d)],
                                  i32Constant(b, loc, map.shape()[d])));
  for (unsigned rd = 0; rd < root.getRank(); ++rd)
    if (!kept[rd])
      both(b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, offsets[rd],
                                  i32Constant(b, loc, 0)));
  return owner;
}

bool tilec::lowering::isRepeatedRegister(const tilegpu::RegisterMap &map,
                                         unsigned r) {
  for (unsigned d = 0; d < map.rank(); ++d)
    if (map.constPart(r, d) >= map.shape()[d])
      return true;
  return false;
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
        kSharedMemorySymbol, /*value=*/Attribute(), /*alignment=*/16,
        kSharedAddressSpace);
  }
  return b.create<LLVM::AddressOfOp>(loc, global);
}

void tilec::lowering::requireSharedBytes(Operation *anchor, int64_t bytes) {
  auto module = anchor->getParentOfType<ModuleOp>();
  int64_t current = 0;
  if (auto attr = module->getAttrOfType<IntegerAttr>(kSharedBytesAttr))
    current = attr.getInt();
  if (bytes > current)
    module->setAttr(kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(module.getContext(), 32),
                                     bytes));
}

Value tilec::lowering::shuffle(OpBuilder &b, Location loc, Value v,
                               NVVM::ShflKind kind, Value lane) {
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
  for (Operation &inner : combiner.without_terminator())
    b.clone(inner, mapping);
  SmallVector<Value> out;
  for (Value v : combiner.getTerminator()->getOperands())
    out.push_back(mapping.lookupOrDefault(v));
  return out;
}
