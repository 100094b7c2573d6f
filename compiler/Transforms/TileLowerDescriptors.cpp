// tile-lower-descriptors: a tensor descriptor's block read
// (tile.descriptor_load) or written (tile.descriptor_store) through TMA
// where that pays, else as the masked pointer load or store of its
// elements.
//
// The front end keeps `desc.load(offsets)` as one op, with the
// descriptor's base, sizes and strides as operands, because that is the
// form the Tensor Memory Accelerator reads blocks in (a tensor map of the
// base, sizes and strides, and a block position).
//
// TMA (with `tensor-maps`): TMA reads through a CUtensorMap only the
// driver encodes, so a block can go through TMA when the launcher can
// build its map from the launch's arguments: the base is an argument
// known 16-byte aligned, each size an argument or a constant, each stride
// but the last (1) an argument or a constant whose bytes are known
// multiples of 16 (the specialisation's `:16`/`:8` says so). The kernel
// gets one `!tile.tensormap` argument per such load, at the end, whose
// `tile.tensormap` attribute is the TensorMapSpec (compiler/TensorMap.h),
// and the load becomes a tile.tensormap_load of it. The block must be 2-D
// and of a shape TMA copies (tmaBlockLayout), and it must be an operand of
// a dot wgmma runs: there the copy lands in the shared buffer the tensor
// cores read, where a pointer load would go through registers. Anywhere
// else a pointer load measured as fast or faster, so the rest become:
//
//   index_d  = offset_d + arange(block_d)          (i32, along dimension d)
//   pointers = base + sum_d (i64) index_d * stride_d
//   mask     = and_d (index_d >= 0 and index_d < size_d)
//   tile.load pointers, mask, padding
//
// A stride of 1 (the last, always) adds no multiplication, so that the axis
// analysis sees the block's rows contiguous and the loads stay vectorised
// (and loops feeding a dot pipeline them through cp.async).
//
// A block written (2-D, rows of 32 bytes or more, so that the shared
// buffer it passes through is swizzled) becomes a tile.tensormap_store of
// a map of its own when TMA can write every block of its tensor, and no
// op but those stores uses the tensor's base (TMA's writes are not
// ordered with the kernel's own reads of them) and the kernel has no
// atomic or volatile load (which could publish the data before it lands);
// the rest become
// `tile.store pointers, value, mask`.
//
// TMA writes a row's end in whole 16-byte chunks: where a row of the
// tensor is not a multiple of 16 bytes, a block across its end would also
// write the elements up to the next boundary (another tensor's, in a view;
// the bug triton-lang/triton#11583 reports in Triton). A last size known
// to make whole chunks (a constant, or an argument specialised `:16`/`:8`
// enough for the element) leaves TMA alone; a constant that does not sends
// the tensor through pointers; for any other, every store of the tensor
// tests it at run time and writes through pointers when the rows are
// ragged:
//
//   %ragged = (size_last & (16 / element bytes - 1)) != 0   (kernel entry)
//   scf.if %ragged { tile.store ... } else { tile.tensormap_store ... }
//
// The test is the tensor's, not the block's: one launch writes a tensor
// one way only, so TMA's writes and the threads' never meet.
#include "compiler/Analysis/Wgmma.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/TensorMap.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>

#define DEBUG_TYPE "tile-lower-descriptors"

namespace tilec {
#define GEN_PASS_DEF_TILELOWERDESCRIPTORS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// `v` (a tensor of `shape` with ones in every dimension but `dim`, or a
/// 1-D tensor along `dim`) made rank `rank` by inserting unit dimensions.
Value alongDimension(OpBuilder &b, Location loc, Value v, unsigned dim, unsigned rank) {
  for (unsigned axis = 0; axis < rank; ++axis) {
    if (axis == dim)
      continue;
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis, 1);
    v = b.create<tile::ExpandDimsOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), v,
        b.getI32IntegerAttr(int32_t(axis)));
  }
  return v;
}

Value splatLike(OpBuilder &b, Location loc, Value scalar, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  return b.create<tile::SplatOp>(loc, type.clone(scalar.getType()), scalar);
}

Value broadcastTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return b.create<tile::BroadcastOp>(loc, type.clone(shape), v);
}

/// The padding of a block of `type`: zeros, or NaNs.
Value paddingOf(OpBuilder &b, Location loc, RankedTensorType type, bool nan) {
  Type element = type.getElementType();
  TypedAttr value;
  if (auto f = dyn_cast<FloatType>(element))
    value = b.getFloatAttr(f, nan ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  else
    value = b.getIntegerAttr(element, 0);
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, value));
}

/// The pointers and the in-bounds mask of the block of `type` at
/// `offsets` in the tensor of `shape` and `strides` at `base`.
std::pair<Value, Value> blockAccess(OpBuilder &b, Location loc, RankedTensorType type,
                                    Value base, ValueRange shape, ValueRange strides,
                                    ValueRange offsetsAlong) {
  ArrayRef<int64_t> block = type.getShape();
  unsigned rank = unsigned(block.size());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value offsets, mask;
  for (unsigned d = 0; d < rank; ++d) {
    auto range = b.create<tile::MakeRangeOp>(
        loc, RankedTensorType::get({block[d]}, i32), b.getI32IntegerAttr(0),
        b.getI32IntegerAttr(int32_t(block[d])));
    Value offset = splatLike(b, loc, offsetsAlong[d], range);
    Value index = b.create<arith::AddIOp>(loc, range, offset);
    index = alongDimension(b, loc, index, d, rank);
    auto indexType = cast<RankedTensorType>(index.getType());
    Value wide = b.create<arith::ExtSIOp>(loc, indexType.clone(i64), index);
    Value stride = strides[d];
    Value term = wide;
    if (!matchPattern(stride, m_One())) {
      Value strides = splatLike(b, loc, stride, wide);
      term = b.create<arith::MulIOp>(loc, wide, strides);
    }
    term = broadcastTo(b, loc, term, block);
    offsets = offsets ? b.create<arith::AddIOp>(loc, offsets, term).getResult() : term;
    Value zero = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(indexType, b.getI32IntegerAttr(0)));
    // (One statement each: the IR's order must not be the C++ compiler's.)
    Value notBelow = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, index, zero);
    Value size = splatLike(b, loc, shape[d], wide);
    Value below = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, wide, size);
    Value inside = b.create<arith::AndIOp>(loc, notBelow, below);
    inside = broadcastTo(b, loc, inside, block);
    mask = mask ? b.create<arith::AndIOp>(loc, mask, inside).getResult() : inside;
  }
  auto pointerType = RankedTensorType::get(block, base.getType());
  Value bases = b.create<tile::SplatOp>(loc, pointerType, base);
  return {b.create<tile::AddPtrOp>(loc, pointerType, bases, offsets), mask};
}

void lower(tile::DescriptorLoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  auto [pointers, mask] = blockAccess(b, loc, type, op.getBase(), op.getShape(),
                                      op.getStrides(), op.getOffsets());
  Value padding = paddingOf(b, loc, type, op.getNanPadding());
  auto load = b.create<tile::LoadOp>(loc, type, pointers, mask, padding,
                                     tile::CacheModifier::none,
                                     tile::EvictionPolicy::normal, false);
  op.getResult().replaceAllUsesWith(load.getResult());
  op.erase();
}

void lower(tile::DescriptorStoreOp op) {
  OpBuilder b(op);
  auto [pointers, mask] = blockAccess(b, op.getLoc(), op.getValue().getType(), op.getBase(),
                                      op.getShape(), op.getStrides(), op.getOffsets());
  b.create<tile::StoreOp>(op.getLoc(), pointers, op.getValue(), mask, tile::CacheModifier::none,
                          tile::EvictionPolicy::normal);
  op.erase();
}

/// The kernel argument, or the constant, `v` is (through sign extensions,
/// as the launcher reads arguments); nullopt for anything computed, and for
/// a zero-extended (unsigned) argument.
std::optional<TensorMapSpec::Operand> mapOperand(Value v, func::FuncOp kernel) {
  while (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    v = ext.getIn();
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return TensorMapSpec::Operand::constant(constant.getSExtValue());
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &kernel.getBody().front() ||
      !isa<IntegerType>(arg.getType()))
    return std::nullopt;
  return TensorMapSpec::Operand::argument(int(arg.getArgNumber()));
}

/// What kernel argument `arg` is known to be a multiple of (1 when
/// nothing is known).
int64_t divisibilityOf(func::FuncOp kernel, unsigned arg) {
  auto attr = kernel.getArgAttrOfType<IntegerAttr>(arg, tile::kDivisibilityAttr);
  return attr ? attr.getInt() : 1;
}

/// CUtensorMapDataType of `element` (CU_TENSOR_MAP_DATA_TYPE_*), which
/// TMA only moves (fp8 and int8 as bytes); nullopt for types it does not.
std::optional<unsigned> tensorMapDataType(Type element) {
  if (element.isF16())
    return 6; // FLOAT16
  if (element.isBF16())
    return 9; // BFLOAT16
  if (element.isF32())
    return 7; // FLOAT32
  if (element.isInteger(32))
    return 3; // INT32
  if (element.isInteger(16))
    return 1; // UINT16
  if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 8)
    return 0; // UINT8: i8 and the fp8 types
  return std::nullopt;
}

/// True when `v`, a block TMA writes with its last dimension contiguous,
/// is an operand of a tile.dot that wgmma can run on `numWarps` warps
/// (directly, or through the tl.trans it reads as a transposed view) in the
/// layout TMA writes: K-major, unless wgmma transposes the type (16-bit).
bool feedsWgmmaDot(Value v, unsigned numWarps, bool transposed = false) {
  for (Operation *user : v.getUsers()) {
    if (isTranspose(user)) {
      if (!transposed && feedsWgmmaDot(user->getResult(0), numWarps, true))
        return true;
      continue;
    }
    auto dot = dyn_cast<tile::DotOp>(user);
    if (!dot || (dot.getA() != v && dot.getB() != v) || !fitsWgmma(dot, numWarps))
      continue;
    bool kMajor = (dot.getA() == v) != transposed;
    if (kMajor || tilegpu::wgmmaTakesAnyMajor(dot.getA().getType().getElementType()))
      return true;
  }
  return false;
}

/// The tensor map of the tensor of `shape` and `strides` at `base`, moving
/// blocks of `block` (2-D, in TMA's layout `layout`) of `element`: nullopt
/// unless the launcher can encode it from the launch's arguments (the base
/// an argument known 16-byte aligned, each size an argument or a constant,
/// each stride but the last, 1, one whose bytes are known multiples of 16).
std::optional<TensorMapSpec> tensorMapOf(Value base, ValueRange shape, ValueRange strides,
                                         Type element, const TMABlockLayout &layout,
                                         func::FuncOp kernel) {
  std::optional<unsigned> dataType = tensorMapDataType(element);
  if (!dataType)
    return std::nullopt;
  unsigned bytes = element.getIntOrFloatBitWidth() / 8;
  TensorMapSpec spec;
  auto baseArg = dyn_cast<BlockArgument>(base);
  if (!baseArg || baseArg.getOwner() != &kernel.getBody().front() ||
      divisibilityOf(kernel, baseArg.getArgNumber()) % 16)
    return std::nullopt;
  spec.base = int(baseArg.getArgNumber());
  for (Value size : shape) {
    std::optional<TensorMapSpec::Operand> operand = mapOperand(size, kernel);
    if (!operand)
      return std::nullopt;
    spec.sizes.push_back(*operand);
  }
  for (auto [d, stride] : llvm::enumerate(strides)) {
    std::optional<TensorMapSpec::Operand> operand = mapOperand(stride, kernel);
    if (!operand)
      return std::nullopt;
    bool last = d + 1 == strides.size();
    if (last ? operand->arg >= 0 || operand->value != 1
             : operand->arg >= 0
                   ? (divisibilityOf(kernel, unsigned(operand->arg)) * bytes) % 16 != 0
                   : (operand->value * int64_t(bytes)) % 16 != 0)
      return std::nullopt;
    spec.strides.push_back(*operand);
  }
  spec.box = {layout.boxRows, layout.boxCols};
  spec.dataType = *dataType;
  spec.elementBytes = bytes;
  spec.swizzleBytes = layout.swizzleBytes;
  return spec;
}

/// The tensor map `op` can read its block through, or nullopt.
std::optional<TensorMapSpec> tensorMapOf(tile::DescriptorLoadOp op, func::FuncOp kernel,
                                         unsigned numWarps) {
  RankedTensorType type = op.getResult().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  // (wgmma reads swizzled buffers only: rows of 32 bytes or more.)
  if (!layout || !layout->swizzleBytes)
    return std::nullopt;
  // TMA fills with NaN only the float types it knows as floats.
  if (op.getNanPadding() && !(element.isF16() || element.isBF16() || element.isF32()))
    return std::nullopt;
  if (!feedsWgmmaDot(op.getResult(), numWarps))
    return std::nullopt;
  std::optional<TensorMapSpec> spec =
      tensorMapOf(op.getBase(), op.getShape(), op.getStrides(), element, *layout, kernel);
  if (spec)
    spec->nanFill = op.getNanPadding();
  return spec;
}

/// The tensor map TMA can write `op`'s block through, or nullopt. The
/// block goes through a swizzled shared buffer (rows of 32 bytes or more:
/// its writes then fence the async proxy, and the threads' 16-byte chunks
/// spread over the banks). TMA's writes are not ordered with the kernel's
/// own later reads of them, so every use of the base argument must be a
/// descriptor store (a kernel that also reads the tensor writes it through
/// pointers), and the kernel must have no atomic or volatile load, which
/// could tell another program the data is there before it is.
std::optional<TensorMapSpec> tensorMapOf(tile::DescriptorStoreOp op, func::FuncOp kernel) {
  RankedTensorType type = op.getValue().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  if (!layout || !layout->swizzleBytes)
    return std::nullopt;
  // (An atomic or a volatile load may publish what the kernel wrote to
  // other programs: TMA's writes, still in flight, would not be ordered
  // before it.)
  WalkResult publishes = kernel.walk([](Operation *inner) {
    auto load = dyn_cast<tile::LoadOp>(inner);
    return isa<tile::AtomicRMWOp, tile::AtomicCASOp>(inner) || (load && load.getIsVolatile())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (publishes.wasInterrupted())
    return std::nullopt;
  if (!llvm::all_of(op.getBase().getUsers(), [&](Operation *user) {
        auto store = dyn_cast<tile::DescriptorStoreOp>(user);
        return store && store.getBase() == op.getBase() &&
               llvm::none_of(store->getOperands().drop_front(),
                             [&](Value v) { return v == op.getBase(); });
      }))
    return std::nullopt;
  return tensorMapOf(op.getBase(), op.getShape(), op.getStrides(), element, *layout, kernel);
}

/// A new last argument of `kernel`: the map `spec` describes. (Each access
/// gets its own, even where two would be equal: two reads of one block
/// through one map would be merged by CSE into a read whose tile has two
/// users, which no pipeline takes.)
Value addTensorMapArgument(func::FuncOp kernel, const TensorMapSpec &spec, Location loc) {
  MLIRContext *ctx = kernel.getContext();
  unsigned index = kernel.getNumArguments();
  NamedAttribute attr(StringAttr::get(ctx, tile::kTensorMapAttr),
                      StringAttr::get(ctx, spec.str()));
  (void)kernel.insertArgument(index, tile::TensorMapType::get(ctx),
                              DictionaryAttr::get(ctx, {attr}), loc);
  return kernel.getArgument(index);
}

/// `op` as a tile.tensormap_load of a new last argument of `kernel`, the
/// map `spec` describes.
void readThroughTensorMap(tile::DescriptorLoadOp op, func::FuncOp kernel,
                          const TensorMapSpec &spec) {
  Value map = addTensorMapArgument(kernel, spec, op.getLoc());
  OpBuilder b(op);
  auto load = b.create<tile::TensorMapLoadOp>(op.getLoc(), op.getResult().getType(), map,
                                              op.getOffsets());
  op.getResult().replaceAllUsesWith(load.getResult());
  op.erase();
}

/// `op` as a tile.tensormap_store through a new last argument of
/// `kernel`, the map `spec` describes.
void writeThroughTensorMap(tile::DescriptorStoreOp op, func::FuncOp kernel,
                           const TensorMapSpec &spec) {
  Value map = addTensorMapArgument(kernel, spec, op.getLoc());
  OpBuilder b(op);
  b.create<tile::TensorMapStoreOp>(op.getLoc(), map, op.getOffsets(), op.getValue());
  op.erase();
}

/// Whether the rows of the tensor `spec` maps make whole 16-byte chunks,
/// which TMA's writes need to end exactly at the rows' end.
enum class RowChunks { whole, ragged, unknown };

RowChunks rowChunksOf(const TensorMapSpec &spec, func::FuncOp kernel) {
  const TensorMapSpec::Operand &size = spec.sizes.back();
  int64_t multiple = size.arg >= 0 ? divisibilityOf(kernel, unsigned(size.arg)) : size.value;
  if ((multiple * int64_t(spec.elementBytes)) % 16 == 0)
    return RowChunks::whole;
  return size.arg >= 0 ? RowChunks::unknown : RowChunks::ragged;
}

/// At `kernel`'s entry: true when the run-time last size of the tensor
/// `spec` maps leaves its rows short of a whole 16-byte chunk.
Value raggedRowsAtRunTime(func::FuncOp kernel, const TensorMapSpec &spec, Location loc) {
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value size = entry.getArgument(unsigned(spec.sizes.back().arg));
  int64_t perChunk = 16 / int64_t(spec.elementBytes);
  Value lowBits = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(size.getType(), perChunk - 1));
  Value zero = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(size.getType(), 0));
  Value partial = b.create<arith::AndIOp>(loc, size, lowBits);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, partial, zero);
}

/// `op` written through the map `spec` describes where `ragged` is false
/// at run time, and through pointers where it is true.
void writeThroughTensorMapUnless(Value ragged, tile::DescriptorStoreOp op, func::FuncOp kernel,
                                 const TensorMapSpec &spec) {
  OpBuilder b(op);
  auto branch = b.create<scf::IfOp>(op.getLoc(), ragged, /*withElseRegion=*/true);
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  auto tmaStore = cast<tile::DescriptorStoreOp>(b.clone(*op.getOperation()));
  writeThroughTensorMap(tmaStore, kernel, spec);
  op->moveBefore(branch.thenBlock()->getTerminator());
  lower(op);
}

struct TileLowerDescriptorsPass
    : tilec::impl::TileLowerDescriptorsBase<TileLowerDescriptorsPass> {
  using TileLowerDescriptorsBase::TileLowerDescriptorsBase;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      bool maps = tensorMaps && !kernel.isPrivate();
      // The stores' maps first, while every read of their tensors is still
      // a descriptor_load of its base (tensorMapOf's test). A tensor is
      // written through TMA only where all its stores can be: TMA's writes
      // and ordinary ones to one tensor would not be ordered.
      SmallVector<std::pair<tile::DescriptorStoreOp, std::optional<TensorMapSpec>>> stores;
      llvm::DenseSet<Value> pointerWritten;
      kernel.walk([&](tile::DescriptorStoreOp op) {
        stores.push_back({op, maps ? tensorMapOf(op, kernel) : std::nullopt});
        if (!stores.back().second)
          pointerWritten.insert(op.getBase());
      });
      SmallVector<tile::DescriptorLoadOp> loads;
      kernel.walk([&](tile::DescriptorLoadOp op) { loads.push_back(op); });
      for (tile::DescriptorLoadOp op : loads) {
        std::optional<TensorMapSpec> spec;
        if (maps)
          spec = tensorMapOf(op, kernel, numWarps);
        if (spec)
          readThroughTensorMap(op, kernel, *spec);
        else
          lower(op);
      }
      // Rows TMA cannot end exactly: known ones send the tensor through
      // pointers; the others get a run-time test (one per tensor, of all
      // its stores' last sizes).
      for (auto &[op, spec] : stores)
        if (spec && rowChunksOf(*spec, kernel) == RowChunks::ragged)
          pointerWritten.insert(op.getBase());
      llvm::DenseMap<Value, Value> raggedRows;
      for (auto &[op, spec] : stores) {
        if (!spec || pointerWritten.contains(op.getBase()))
          continue;
        if (rowChunksOf(*spec, kernel) == RowChunks::unknown) {
          Value test = raggedRowsAtRunTime(kernel, *spec, op.getLoc());
          Value &any = raggedRows[op.getBase()];
          if (any) {
            // (Each test goes first in the entry block: after both.)
            OpBuilder b(test.getContext());
            b.setInsertionPointAfter(any.getDefiningOp());
            test = b.create<arith::OrIOp>(op.getLoc(), any, test);
          }
          any = test;
        }
      }
      for (auto &[op, spec] : stores) {
        if (!spec || pointerWritten.contains(op.getBase()))
          lower(op);
        else if (Value ragged = raggedRows.lookup(op.getBase()))
          writeThroughTensorMapUnless(ragged, op, kernel, *spec);
        else
          writeThroughTensorMap(op, kernel, *spec);
      }
    }
  }
};
} // namespace
