#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec::tile;

#include "compiler/Dialect/Tile/TileDialect.cpp.inc"
#include "compiler/Dialect/Tile/TileEnums.cpp.inc"
#include "compiler/Dialect/Tile/TileInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/Dialect/Tile/TileTypes.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/Dialect/Tile/TileOps.cpp.inc"

namespace {
/// Every tile op may be inlined: none of them refers to its enclosing
/// function, so a callee's body can be spliced into any caller.
struct TileInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/Dialect/Tile/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/Dialect/Tile/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Types and type helpers
//===----------------------------------------------------------------------===//

LogicalResult
PointerType::verify(function_ref<InFlightDiagnostic()> emitError, Type pointee) {
  if (!isa<IntegerType, FloatType>(pointee))
    return emitError() << "!tile.ptr must point at a scalar integer or float, "
                          "not "
                       << pointee;
  return success();
}

Type tilec::tile::getTypeLike(Type like, Type element) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), element,
                                 tensor.getEncoding());
  return element;
}

bool tilec::tile::isFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

Type tilec::tile::getElementTypeOrSelf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

Type tilec::tile::getPointeeTypeLike(Type ptrLike) {
  auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(ptrLike));
  if (!ptr)
    return Type();
  return getTypeLike(ptrLike, ptr.getPointeeType());
}

Type tilec::tile::getI1TypeLike(Type type) {
  return getTypeLike(type, IntegerType::get(type.getContext(), 1));
}

unsigned tilec::tile::getElementBytes(Type scalar) {
  if (isa<PointerType>(scalar))
    return 8; // global addresses are 64-bit
  unsigned bits = scalar.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

//===----------------------------------------------------------------------===//
// make_range
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError("needs end > start, got [") << start << ", " << end << ")";
  int64_t length = end - start;
  if (!llvm::isPowerOf2_64(length))
    return emitOpError("length ") << length << " is not a power of two";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != length)
    return emitOpError("result must be a 1-D tensor of ") << length << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// splat
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(getType()), value);
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto result = getType();
  if (src.getRank() != result.getRank())
    return emitOpError("operand rank ") << src.getRank()
                                        << " differs from result rank "
                                        << result.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (src.getDimSize(d) != 1 && src.getDimSize(d) != result.getDimSize(d))
      return emitOpError("dimension ") << d << " of size " << src.getDimSize(d)
                                       << " cannot broadcast to "
                                       << result.getDimSize(d);
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

namespace {
/// broadcast(splat(x)) → splat(x): the broadcast adds nothing to a tensor
/// whose elements are all equal.
template <typename ShapeOp>
struct FoldSplatIntoShapeOp : OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return rewriter.notifyMatchFailure(op, "operand is not a splat");
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<FoldSplatIntoShapeOp<BroadcastOp>>(context);
}

//===----------------------------------------------------------------------===//
// expand_dims
//===----------------------------------------------------------------------===//

unsigned ExpandDimsOp::getSliceDim() { return getAxis(); }
SmallVector<Value> ExpandDimsOp::getFullTensors() { return {getResult()}; }
SmallVector<Value> ExpandDimsOp::getSlicedTensors() { return {getSrc()}; }

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (ArrayRef<int64_t>(shape) != getType().getShape())
    return emitOpError("result shape must be the operand's with a 1 inserted "
                       "at axis ")
           << axis;
  return success();
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<FoldSplatIntoShapeOp<ExpandDimsOp>>(context);
}

//===----------------------------------------------------------------------===//
// trans and reshape
//===----------------------------------------------------------------------===//

const DialectInferLayoutInterface *
tilec::tile::getInferLayoutInterface(Attribute encoding) {
  if (!encoding)
    return nullptr;
  return encoding.getDialect().getRegisteredInterface<DialectInferLayoutInterface>();
}

namespace {
bool isIdentity(ArrayRef<int32_t> order) {
  for (auto [i, d] : llvm::enumerate(order))
    if (d != int32_t(i))
      return false;
  return true;
}

SmallVector<int32_t> inversePermutation(ArrayRef<int32_t> order) {
  SmallVector<int32_t> inverse(order.size());
  for (auto [i, d] : llvm::enumerate(order))
    inverse[d] = i;
  return inverse;
}

/// The operand's and result's layouts of a trans or reshape: neither has
/// one (tile IR), or the result's is the one the layout's dialect gives
/// the operand's rearranged (`inferred`), in any spelling.
LogicalResult verifyRearrangedLayout(Operation *op, RankedTensorType src,
                                     RankedTensorType result, Attribute inferred) {
  Attribute from = src.getEncoding(), to = result.getEncoding();
  if (!from && !to)
    return success();
  if (!from || !to)
    return op->emitOpError("operand and result must both have a layout, or "
                           "neither");
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(from);
  if (!rules || !inferred)
    return op->emitOpError("has no layout rule for the operand's layout ") << from;
  if (!rules->isSameLayout(inferred, to, result.getShape()))
    return op->emitOpError("result layout must be the operand's rearranged, ")
           << inferred << ", not " << to;
  return success();
}
} // namespace

Attribute TransOp::inferResultEncoding(Attribute srcEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(srcEncoding);
  return rules ? rules->inferTransEncoding(srcEncoding, getSrc().getType().getShape(),
                                           getOrder())
               : Attribute();
}

Attribute TransOp::inferSourceEncoding(Attribute resultEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(resultEncoding);
  return rules ? rules->inferTransEncoding(resultEncoding, getType().getShape(),
                                           inversePermutation(getOrder()))
               : Attribute();
}

LogicalResult TransOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  ArrayRef<int32_t> order = getOrder();
  if (int64_t(order.size()) != src.getRank())
    return emitOpError("order has ") << order.size() << " entries for an operand of rank "
                                     << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= int32_t(order.size()) || seen[d])
      return emitOpError("order must be a permutation of 0..") << order.size() - 1;
    seen[d] = true;
  }
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(src.getDimSize(d));
  if (result.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("result shape must be the operand's permuted by the order");
  return verifyRearrangedLayout(*this, src, result,
                                inferResultEncoding(src.getEncoding()));
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(getOrder()) && getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  // trans(trans(x)) that puts every dimension back.
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    SmallVector<int32_t> composed;
    for (int32_t d : getOrder())
      composed.push_back(inner.getOrder()[d]);
    if (isIdentity(composed) && inner.getSrc().getType() == getType())
      return inner.getSrc();
  }
  return {};
}

namespace {
/// trans(trans(x)) → one trans with the composed order.
struct ComposeTrans : OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a trans");
    // Result dimension i is inner's dimension order[i], which is x's
    // dimension inner.order[order[i]].
    SmallVector<int32_t> composed;
    for (int32_t d : op.getOrder())
      composed.push_back(inner.getOrder()[d]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(), composed);
    return success();
  }
};

/// reshape(reshape(x)) → reshape(x): row-major order composes.
struct ComposeReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a reshape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};
} // namespace

void TransOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<ComposeTrans, FoldSplatIntoShapeOp<TransOp>>(context);
}

Attribute ReshapeOp::inferResultEncoding(Attribute srcEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(srcEncoding);
  return rules ? rules->inferReshapeEncoding(srcEncoding, getSrc().getType().getShape(),
                                             getType().getShape())
               : Attribute();
}

Attribute ReshapeOp::inferSourceEncoding(Attribute resultEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(resultEncoding);
  return rules ? rules->inferReshapeEncoding(resultEncoding, getType().getShape(),
                                             getSrc().getType().getShape())
               : Attribute();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (src.getNumElements() != result.getNumElements())
    return emitOpError("operand of ") << src.getNumElements()
                                      << " elements cannot become a result of "
                                      << result.getNumElements();
  return verifyRearrangedLayout(*this, src, result,
                                inferResultEncoding(src.getEncoding()));
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>())
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
  return {};
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ComposeReshape, FoldSplatIntoShapeOp<ReshapeOp>>(context);
}

//===----------------------------------------------------------------------===//
// join
//===----------------------------------------------------------------------===//

Attribute JoinOp::inferResultEncoding(Attribute srcEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(srcEncoding);
  return rules ? rules->inferJoinEncoding(srcEncoding, getLhs().getType().getShape())
               : Attribute();
}

Attribute JoinOp::inferSourceEncoding(Attribute resultEncoding) {
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(resultEncoding);
  return rules ? rules->inferJoinSourceEncoding(resultEncoding, getType().getShape())
               : Attribute();
}

// A result whose last dimension is spread over lanes has no operand layout.
bool JoinOp::isInvertible() { return false; }

LogicalResult JoinOp::verify() {
  RankedTensorType src = getLhs().getType(), result = getType();
  SmallVector<int64_t> shape(src.getShape());
  shape.push_back(2);
  if (result.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("result shape must be the operands' with a last "
                       "dimension of 2");
  if (result.getElementType() != src.getElementType())
    return emitOpError("result element type must be the operands'");
  // Any register of a thread may hold the other operand's element (the
  // inferred layout puts it in the lowest bit; a layout pass may choose
  // another, as a rematerialised join does): what must hold is that
  // dropping the new dimension gives back the operands' layout.
  Attribute from = src.getEncoding(), to = result.getEncoding();
  if (!from && !to)
    return success();
  if (!from || !to)
    return emitOpError("operands and result must all have a layout, or none");
  const DialectInferLayoutInterface *rules = getInferLayoutInterface(from);
  if (!rules || !inferResultEncoding(from))
    return emitOpError("has no layout rule for the operands' layout ") << from;
  Attribute back = inferSourceEncoding(to);
  if (!back || !rules->isSameLayout(back, from, src.getShape()))
    return emitOpError("result layout must hold each operand's elements where "
                       "the operands' layout ")
           << from << " does, and the new dimension in a register, not " << to;
  return success();
}

//===----------------------------------------------------------------------===//
// addptr
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  auto ptrTensor = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTensor = dyn_cast<RankedTensorType>(getOffset().getType());
  if (bool(ptrTensor) != bool(offTensor))
    return emitOpError("pointer and offset must both be scalars or both be "
                       "tensors");
  if (ptrTensor && ptrTensor.getShape() != offTensor.getShape())
    return emitOpError("pointer and offset shapes differ");
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// load
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("'other' needs a mask");
  return success();
}

//===----------------------------------------------------------------------===//
// descriptor_load, tensormap_load
//===----------------------------------------------------------------------===//

/// A descriptor's block access (`verb`: reads, writes): 1 to 5
/// dimensions, one size, stride and offset per dimension, the block of the
/// base's element type (`holder` names what holds the block).
static LogicalResult verifyDescriptorAccess(Operation *op, StringRef verb, StringRef holder,
                                            RankedTensorType type, Value base, size_t sizes,
                                            size_t strides, size_t offsets) {
  size_t rank = size_t(type.getRank());
  if (rank < 1 || rank > 5)
    return op->emitOpError() << verb << " blocks of 1 to 5 dimensions, got " << rank;
  if (sizes != rank || strides != rank || offsets != rank)
    return op->emitOpError("needs one size, stride and offset per dimension of the block (")
           << rank << "), got " << sizes << ", " << strides << " and " << offsets;
  Type pointee = cast<PointerType>(base.getType()).getPointeeType();
  if (pointee != type.getElementType())
    return op->emitOpError() << verb << " " << pointee << " but its " << holder << " holds "
                             << type.getElementType();
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  if (failed(verifyDescriptorAccess(*this, "reads", "result", getResult().getType(), getBase(),
                                    getShape().size(), getStrides().size(),
                                    getOffsets().size())))
    return failure();
  Type pointee = cast<PointerType>(getBase().getType()).getPointeeType();
  if (getNanPadding() && !isa<FloatType>(pointee))
    return emitOpError("pads with NaN, which needs floats, not ") << pointee;
  return success();
}

/// A block access through a TMA tensor map (`verb`: reads, writes): 1 to
/// 5 dimensions, one offset per dimension.
static LogicalResult verifyTensorMapAccess(Operation *op, StringRef verb, RankedTensorType type,
                                           size_t offsets) {
  int64_t rank = type.getRank();
  if (rank < 1 || rank > 5)
    return op->emitOpError() << verb << " blocks of 1 to 5 dimensions, got " << rank;
  if (int64_t(offsets) != rank)
    return op->emitOpError("needs one offset per dimension of the block (")
           << rank << "), got " << offsets;
  return success();
}

LogicalResult TensorMapLoadOp::verify() {
  return verifyTensorMapAccess(*this, "reads", getResult().getType(), getOffsets().size());
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyDescriptorAccess(*this, "writes", "value", getValue().getType(), getBase(),
                                getShape().size(), getStrides().size(), getOffsets().size());
}

LogicalResult TensorMapStoreOp::verify() {
  return verifyTensorMapAccess(*this, "writes", getValue().getType(), getOffsets().size());
}

//===----------------------------------------------------------------------===//
// atomics
//===----------------------------------------------------------------------===//

bool tilec::tile::atomicSupports(AtomicKind kind, Type element) {
  if (!element.isIntOrFloat())
    return false;
  unsigned bits = element.getIntOrFloatBitWidth();
  if (isa<IntegerType>(element))
    return bits == 32 || bits == 64;
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element))
    return false;
  return kind == AtomicKind::add || kind == AtomicKind::max ||
         kind == AtomicKind::min || kind == AtomicKind::xchg;
}

bool tilec::tile::atomicCASSupports(Type element) {
  if (!element.isIntOrFloat())
    return false;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits == 16 || bits == 32 || bits == 64;
}

LogicalResult AtomicRMWOp::verify() {
  Type element = getElementTypeOrSelf(getValue().getType());
  if (!atomicSupports(getKind(), element))
    return emitOpError("atomic ") << stringifyAtomicKind(getKind())
                                  << " does not support " << element;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type element = getElementTypeOrSelf(getValue().getType());
  if (!atomicCASSupports(element))
    return emitOpError("atomic_cas needs 16-, 32- or 64-bit elements, got ")
           << element;
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

namespace {
/// What a reduce and a scan ask of their operands: at least one, all of one
/// shape, one result each, and an axis inside that shape.
LogicalResult verifyAxisOperands(Operation *op, ValueRange srcs,
                                 ResultRange results, int64_t axis) {
  if (srcs.empty())
    return op->emitOpError("needs at least one operand");
  auto first = cast<RankedTensorType>(srcs[0].getType());
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError("axis ") << axis << " out of range for rank "
                                    << first.getRank();
  if (results.size() != srcs.size())
    return op->emitOpError("needs one result per operand");
  for (Value src : srcs)
    if (cast<RankedTensorType>(src.getType()).getShape() != first.getShape())
      return op->emitOpError("operands must share one shape");
  return success();
}

/// The combiner of a reduce or scan over `srcs`: 2N scalar arguments of the
/// operands' element types, N results of the same types.
template <typename ReturnOp>
LogicalResult verifyCombiner(Operation *op, Region &region, ValueRange srcs) {
  Block &block = region.front();
  unsigned n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError("combiner takes ") << 2 * n << " arguments";
  for (unsigned i = 0; i < 2 * n; ++i) {
    Type element = cast<RankedTensorType>(srcs[i % n].getType()).getElementType();
    if (block.getArgument(i).getType() != element)
      return op->emitOpError("combiner argument ") << i << " must be " << element;
  }
  auto ret = dyn_cast<ReturnOp>(block.getTerminator());
  if (!ret || ret.getValues().size() != n)
    return op->emitOpError("combiner must return ") << n << " values";
  for (unsigned i = 0; i < n; ++i)
    if (ret.getValues()[i].getType() != block.getArgument(i).getType())
      return op->emitOpError("combiner result ") << i << " has the wrong type";
  return success();
}
} // namespace

unsigned ReduceOp::getSliceDim() { return getAxis(); }
SmallVector<Value> ReduceOp::getFullTensors() { return getSrcs(); }
SmallVector<Value> ReduceOp::getSlicedTensors() {
  SmallVector<Value> tensors;
  for (Value result : getResults())
    if (isa<RankedTensorType>(result.getType()))
      tensors.push_back(result);
  return tensors;
}

LogicalResult ReduceOp::verify() {
  int64_t axis = getAxis();
  if (failed(verifyAxisOperands(*this, getSrcs(), getResults(), axis)))
    return failure();
  auto first = cast<RankedTensorType>(getSrcs()[0].getType());
  SmallVector<int64_t> shape(first.getShape());
  shape.erase(shape.begin() + axis);
  for (auto [src, result] : llvm::zip(getSrcs(), getResults())) {
    auto type = cast<RankedTensorType>(src.getType());
    Type expected = type.getElementType();
    if (!shape.empty()) {
      auto tensor = dyn_cast<RankedTensorType>(result.getType());
      if (!tensor || tensor.getShape() != ArrayRef<int64_t>(shape) ||
          tensor.getElementType() != expected)
        return emitOpError("result must be the operand without axis ") << axis;
    } else if (result.getType() != expected) {
      return emitOpError("reducing a 1-D tensor gives a scalar of its "
                         "element type");
    }
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner<ReduceReturnOp>(*this, getCombiner(), getSrcs());
}

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  if (failed(verifyAxisOperands(*this, getSrcs(), getResults(), getAxis())))
    return failure();
  for (auto [src, result] : llvm::zip(getSrcs(), getResults())) {
    if (result.getType() != src.getType())
      return emitOpError("each result must have its operand's type");
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner<ScanReturnOp>(*this, getCombiner(), getSrcs());
}

LogicalResult tilec::tile::impl::verifySameOperandsAndResultEncoding(Operation *op) {
  Attribute encoding;
  bool first = true;
  auto check = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return true;
    if (first) {
      encoding = tensor.getEncoding();
      first = false;
      return true;
    }
    return tensor.getEncoding() == encoding;
  };
  for (Type type : op->getOperandTypes())
    if (!check(type))
      return op->emitOpError("tensor operands and results must have one layout");
  for (Type type : op->getResultTypes())
    if (!check(type))
      return op->emitOpError("tensor operands and results must have one layout");
  return success();
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

Value DotOp::getAccumulator() { return getC(); }

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  int64_t rank = a.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("operands must be 2-D, or 3-D with a leading batch "
                       "dimension, got rank ")
           << rank;
  if (b.getRank() != rank || c.getRank() != rank)
    return emitOpError("operands must all have rank ") << rank;
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape(), cs = c.getShape();
  int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
  if (bs[rank - 2] != k)
    return emitOpError("the inner dimensions differ: a is ")
           << a << " and b is " << b;
  if (cs[rank - 2] != m || cs[rank - 1] != n)
    return emitOpError("the accumulator must be ") << m << "x" << n << ", got " << c;
  if (rank == 3 && (bs[0] != as[0] || cs[0] != as[0]))
    return emitOpError("operands must share the batch dimension");
  if (m < 16 || n < 16 || k < 16)
    return emitOpError("M, N and K must be at least 16, got ")
           << m << ", " << n << ", " << k;
  Type ea = a.getElementType(), eb = b.getElementType(), ec = c.getElementType();
  // The two fp8 formats mix, as the tensor cores' e4m3 x e5m2 forms allow.
  if (ea != eb && !(isFP8(ea) && isFP8(eb)))
    return emitOpError("operands must have one element type, got ")
           << ea << " and " << eb;
  bool ok = (ea.isF16() && (ec.isF32() || ec.isF16())) ||
            (ea.isBF16() && ec.isF32()) || (ea.isF32() && ec.isF32()) ||
            (ea.isInteger(8) && ec.isInteger(32)) || (isFP8(ea) && ec.isF32());
  if (!ok)
    return emitOpError("no dot of ")
           << ea << " operands into a " << ec
           << " accumulator (f16 -> f32 or f16, bf16 -> f32, f32 -> f32, "
              "i8 -> i32, f8E4M3FN/f8E5M2 -> f32)";
  if (IntegerAttr count = getMaxNumImpreciseAccAttr()) {
    if (!isFP8(ea))
      return emitOpError("maxNumImpreciseAcc bounds the accumulation of fp8 "
                         "products only, not of ")
             << ea;
    if (count.getInt() > k)
      return emitOpError("maxNumImpreciseAcc must be at most K (")
             << k << "), got " << count.getInt();
  }
  return success();
}

namespace {
/// `x + dot(a, b, 0)` → `dot(a, b, x)`: the sum `acc += tl.dot(a, b)`
/// writes happens inside the instruction, and no zero accumulator is built.
/// An fp8 dot given no maxNumImpreciseAcc gets its K: unfolded, its
/// products were summed from zero (in wgmma's fp8 accumulator, on Hopper)
/// and then added to x in f32, and that is what a run of K does.
template <typename AddOp>
struct FoldAddIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - i);
      // Only where the dot is: moving it to an add inside a loop would
      // recompute the product on every iteration.
      if (!dot || !dot->hasOneUse() || other.getType() != dot.getType() ||
          dot->getBlock() != add->getBlock())
        continue;
      bool zero = matchPattern(dot.getC(), m_AnyZeroFloat()) ||
                  matchPattern(dot.getC(), m_Zero());
      if (!zero)
        continue;
      IntegerAttr count = dot.getMaxNumImpreciseAccAttr();
      auto a = cast<RankedTensorType>(dot.getA().getType());
      if (!count && isFP8(a))
        count = rewriter.getI32IntegerAttr(int32_t(a.getShape().back()));
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getType(), dot.getA(),
                                         dot.getB(), other,
                                         dot.getInputPrecision(), count);
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};
} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldAddIntoDot<arith::AddFOp>, FoldAddIntoDot<arith::AddIOp>>(context);
}

//===----------------------------------------------------------------------===//
// assert, print
//===----------------------------------------------------------------------===//

namespace {
/// What a device-side print can show: integers, f16 to f64, pointers.
bool isPrintable(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isSignlessInteger() || element.isF16() || element.isBF16() ||
         element.isF32() || element.isF64() || isa<PointerType>(element);
}
} // namespace

LogicalResult AssertOp::verify() {
  if (getDetails().size() != getValues().size() + 1)
    return emitOpError("needs one more detail piece than values, got ")
           << getDetails().size() << " pieces for " << getValues().size()
           << " values";
  if (getValuesSigned().size() != getValues().size())
    return emitOpError("needs one signedness per value");
  auto condition = dyn_cast<RankedTensorType>(getCondition().getType());
  for (Value v : getValues()) {
    if (!isPrintable(v.getType()))
      return emitOpError("cannot report a value of type ") << v.getType();
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    if (bool(tensor) != bool(condition) ||
        (tensor && tensor.getShape() != condition.getShape()))
      return emitOpError("values must have the condition's shape");
  }
  return success();
}

LogicalResult PrintOp::verify() {
  if (getArgsSigned().size() != getArgs().size())
    return emitOpError("needs one signedness per operand");
  for (Value v : getArgs())
    if (!isPrintable(v.getType()))
      return emitOpError("cannot print a value of type ") << v.getType();
  return success();
}

LogicalResult HistogramOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  auto element = dyn_cast<IntegerType>(input.getElementType());
  if (input.getRank() != 1 || !element || element.getWidth() == 1)
    return emitOpError("input must be a 1-D tensor of integers, got ") << input;
  if (getMask()) {
    auto mask = cast<RankedTensorType>(getMask().getType());
    if (mask.getShape() != input.getShape() || !mask.getElementType().isInteger(1))
      return emitOpError("mask must be booleans of the input's shape, got ") << mask;
  }
  if (result.getRank() != 1 || !result.getElementType().isInteger(32))
    return emitOpError("result must be a 1-D tensor of i32, got ") << result;
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  auto index = dyn_cast<IntegerType>(indices.getElementType());
  if (!index || (index.getWidth() != 32 && index.getWidth() != 64))
    return emitOpError("indices must be 32- or 64-bit integers (read as signed), got ")
           << indices;
  if (isa<PointerType>(src.getElementType()))
    return emitOpError("cannot gather pointers");
  if (src.getRank() != indices.getRank())
    return emitOpError("source and indices must have one rank, got ")
           << src << " and " << indices;
  if (getAxis() >= src.getRank())
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << src.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != int64_t(getAxis()) && src.getDimSize(d) != indices.getDimSize(d))
      return emitOpError("source and indices must agree in every dimension but the axis, "
                         "got ")
             << src << " and " << indices;
  if (result.getShape() != indices.getShape() ||
      result.getElementType() != src.getElementType())
    return emitOpError("result must have the indices' shape and the source's element "
                       "type, got ")
           << result;
  return success();
}

unsigned InlineAsmOp::elementsPerRegister(Type element, unsigned pack) {
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits < 32 ? std::min(pack, 32 / bits) : 1;
}

namespace {
/// `values` (an elementwise op's operands and results, named `what` in
/// messages) are all tensors of one shape, or all scalars; `tensors` says
/// which.
LogicalResult verifyOneShape(Operation *op, ValueRange values, StringRef what,
                             bool &tensors) {
  std::optional<ArrayRef<int64_t>> shape;
  bool scalars = false;
  for (Value v : values) {
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType())) {
      if (shape && *shape != tensor.getShape())
        return op->emitOpError() << what << " must have one shape";
      shape = tensor.getShape();
    } else {
      scalars = true;
    }
  }
  if (shape && scalars)
    return op->emitOpError() << what << " must be all tensors or all scalars";
  tensors = shape.has_value();
  return success();
}
} // namespace

std::string InlineAsmOp::checkOperandReferences(StringRef text, unsigned operands) {
  // The references LLVM's inline-asm printer reads: `$N` and `${N}` /
  // `${N:modifier}` for N below the registers' count, `$$` for a dollar,
  // `$(`, `$|`, `$)` for dialect variants. Anything else aborts it.
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$')
      continue;
    if (i + 1 == text.size())
      return "asm ends with a '$' (write '$$' for a dollar sign)";
    char next = text[i + 1];
    if (next == '$' || next == '(' || next == '|' || next == ')') {
      ++i;
      continue;
    }
    size_t start = i + 1 + (next == '{' ? 1 : 0);
    size_t end = start;
    while (end < text.size() && llvm::isDigit(text[end]))
      ++end;
    unsigned number = 0;
    if (end == start || text.substr(start, end - start).getAsInteger(10, number))
      return "asm has a '$' not followed by an operand number (write '$$' for a dollar "
             "sign)";
    if (next == '{' && (end == text.size() || (text[end] != '}' && text[end] != ':')))
      return "asm has an unterminated '${' operand reference";
    if (number >= operands)
      return "asm names operand $" + std::to_string(number) + ", but an invocation has " +
             std::to_string(operands) + " (outputs, then inputs)";
    i = end - 1;
  }
  return "";
}

LogicalResult InlineAsmOp::verify() {
  unsigned pack = getPack();
  if (pack == 0 || !llvm::isPowerOf2_32(pack))
    return emitOpError("pack must be a power of two, got ") << pack;
  if (getResults().empty())
    return emitOpError("needs at least one result");
  bool tensors = false;
  if (failed(verifyOneShape(*this, llvm::to_vector(llvm::concat<Value>(getArgs(), getResults())),
                            "operands and results", tensors)))
    return failure();
  unsigned inputs = 0, outputs = 0;
  unsigned numArgs = getArgs().size(), index = 0;
  for (Value v : llvm::concat<Value>(getArgs(), getResults())) {
    bool isResult = index++ >= numArgs;
    Type element = getElementTypeOrSelf(v.getType());
    if (!isa<IntegerType, FloatType>(element) || element.isInteger(1))
      return emitOpError("operands and results must be integers of 8 to 64 bits or "
                         "floats, got ")
             << v.getType();
    unsigned registers = registersPerInvocation(element, pack);
    (isResult ? outputs : inputs) += registers;
  }
  if (!tensors && pack != 1)
    return emitOpError("scalars take pack = 1, got ") << pack;
  unsigned wantOutputs = 0, wantInputs = 0;
  for (StringRef c : llvm::split(getConstraints(), ',')) {
    c = c.trim();
    if (c.starts_with("~"))
      continue; // a clobber
    (c.starts_with("=") ? wantOutputs : wantInputs)++;
  }
  if (wantOutputs != outputs || wantInputs != inputs)
    return emitOpError("constraints name ")
           << wantOutputs << " outputs and " << wantInputs << " inputs, but with pack = "
           << pack << " an invocation has " << outputs << " output and " << inputs
           << " input registers";
  std::string bad = checkOperandReferences(getAsmString(), outputs + inputs);
  if (!bad.empty())
    return emitOpError(bad);
  return success();
}

namespace {
/// The effects of code the user wrote (inline PTX, a CUDA function): none
/// when it says it is pure, else any read and write of memory.
void userCodeEffects(
    bool pure, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (pure)
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}
} // namespace

void InlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  userCodeEffects(getPure(), effects);
}

LogicalResult CudaCallOp::verify() {
  bool tensors = false;
  if (failed(verifyOneShape(*this,
                            llvm::to_vector(llvm::concat<Value>(getArgs(), getODSResults(0))),
                            "operands and result", tensors)))
    return failure();
  for (Value v : llvm::concat<Value>(getArgs(), getODSResults(0))) {
    Type element = getElementTypeOrSelf(v.getType());
    bool callable = (isa<IntegerType>(element) && !element.isInteger(1) &&
                     element.getIntOrFloatBitWidth() <= 64) ||
                    isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element);
    if (!callable)
      return emitOpError("operands and result must be integers of 8 to 64 bits or "
                         "f16, bf16, f32, f64, got ")
             << v.getType();
  }
  auto module = (*this)->getParentOfType<ModuleOp>();
  auto sources = module ? module->getAttrOfType<ArrayAttr>(kCudaSourcesAttr) : ArrayAttr();
  if (!sources || sources.empty())
    return emitOpError("needs the module's '") << kCudaSourcesAttr
                                               << "' attribute to list its CUDA sources";
  return success();
}

void CudaCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  userCodeEffects(getPure(), effects);
}

LogicalResult PtrToIntOp::verify() {
  auto ptrs = dyn_cast<RankedTensorType>(getPtr().getType());
  auto ints = dyn_cast<RankedTensorType>(getResult().getType());
  if (bool(ptrs) != bool(ints) || (ptrs && ptrs.getShape() != ints.getShape()))
    return emitOpError("result must have the shape of the pointers");
  if (!getElementTypeOrSelf(getResult().getType()).isInteger(64))
    return emitOpError("result must be i64, got ") << getResult().getType();
  return success();
}
