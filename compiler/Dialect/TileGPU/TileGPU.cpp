#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

#include "compiler/Dialect/TileGPU/TileGPUDialect.cpp.inc"
#include "compiler/Dialect/TileGPU/TileGPUInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUTypes.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUOps.cpp.inc"

namespace {
/// Layouts print as aliases (#blocked, #slice, #linear, #shared) at the top of a
/// module, so that tensor types stay readable.
struct TileGPUAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceEncodingAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<LinearEncodingAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    if (isa<MmaEncodingAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<DotOperandEncodingAttr>(attr)) {
      os << "dot_op";
      return AliasResult::FinalAlias;
    }
    if (isa<SwizzledSharedEncodingAttr, SharedLinearEncodingAttr>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};

/// What the tile dialect's rearranging ops (trans, reshape, join) ask of the
/// layouts they carry (Layouts.h).
struct TileGPUInferLayoutInterface : tilec::tile::DialectInferLayoutInterface {
  using DialectInferLayoutInterface::DialectInferLayoutInterface;
  Attribute inferTransEncoding(Attribute src, ArrayRef<int64_t> srcShape,
                               ArrayRef<int32_t> order) const override {
    return tilec::tilegpu::inferTransEncoding(src, srcShape, order);
  }
  Attribute inferReshapeEncoding(Attribute src, ArrayRef<int64_t> srcShape,
                                 ArrayRef<int64_t> dstShape) const override {
    return tilec::tilegpu::inferReshapeEncoding(src, srcShape, dstShape);
  }
  Attribute inferJoinEncoding(Attribute src,
                              ArrayRef<int64_t> srcShape) const override {
    return tilec::tilegpu::inferJoinEncoding(src, srcShape);
  }
  Attribute inferJoinSourceEncoding(Attribute result,
                                    ArrayRef<int64_t> resultShape) const override {
    return tilec::tilegpu::inferJoinSourceEncoding(result, resultShape);
  }
  bool isSameLayout(Attribute a, Attribute b,
                    ArrayRef<int64_t> shape) const override {
    return tilec::tilegpu::isSameLayout(a, b, shape);
  }
};

unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

LogicalResult verifyOrder(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> order, StringRef what) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d])
      return emitError() << what << " order must be a permutation of 0.."
                         << order.size() - 1;
    seen[d] = true;
  }
  return success();
}
} // namespace

void TileGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/Dialect/TileGPU/TileGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/Dialect/TileGPU/TileGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/Dialect/TileGPU/TileGPUOps.cpp.inc"
      >();
  addInterfaces<TileGPUAsmInterface, TileGPUInferLayoutInterface>();
}

LogicalResult tilec::tilegpu::detail::verifyEncodingShape(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    unsigned rank, StringRef what) {
  if (shape.size() != rank)
    return emitError() << what << " of rank " << rank
                       << " cannot describe a tensor of rank " << shape.size();
  for (int64_t s : shape)
    if (s <= 0 || !llvm::isPowerOf2_64(s))
      return emitError() << what << " needs dimensions that are powers of two, got "
                         << s;
  return success();
}

LinearLayout tilec::tilegpu::detail::fitToShape(LinearLayout layout,
                                                ArrayRef<int64_t> shape,
                                                ArrayRef<unsigned> order) {
  // Repeat over a larger tensor with more registers; wrap over a smaller
  // one, which makes the bits past its edge free.
  for (unsigned d : order) {
    int32_t tile = layout.getOutDimSize(outDimName(d));
    if (tile < shape[d])
      layout = layout * LinearLayout::identity1D(shape[d] / tile, kRegister,
                                                 outDimName(d));
    else if (tile > shape[d])
      layout = layout.resizeOutDim(outDimName(d), shape[d]);
  }
  return layout.transposeOuts(outDimNames(shape.size()));
}

std::optional<unsigned> tilec::tilegpu::wgmmaInstructionK(Type a, Type b, Type acc) {
  if ((a.isF16() || a.isBF16()) && a == b && acc.isF32())
    return 16;
  if (tile::isFP8(a) && tile::isFP8(b) && acc.isF32())
    return 32;
  if (a.isInteger(8) && b.isInteger(8) && acc.isInteger(32))
    return 32;
  if (a.isF32() && b.isF32() && acc.isF32())
    return 8;
  return std::nullopt;
}

bool tilec::tilegpu::wgmmaTakesAnyMajor(Type element) {
  return element.isF16() || element.isBF16();
}

unsigned tilec::tilegpu::getNumWarps(ModuleOp module) {
  if (auto attr = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
    return attr.getInt();
  return 0;
}

unsigned tilec::tilegpu::getConsumerGroups(ModuleOp module) {
  if (auto attr = module->getAttrOfType<IntegerAttr>(kConsumerGroupsAttr))
    return unsigned(attr.getInt());
  return 1;
}

std::string tilec::tilegpu::getTarget(ModuleOp module) {
  if (auto attr = module->getAttrOfType<StringAttr>(kTargetAttr))
    return attr.str();
  return "";
}

//===----------------------------------------------------------------------===//
// Module and op attributes
//===----------------------------------------------------------------------===//

/// Checks `tilegpu.*` attributes: num_warps against every tensor layout of
/// the module, the target's name, offsets and sizes.
LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kNumWarpsAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value)
      return op->emitError() << name << " must be an integer on a module";
    int64_t numWarps = value.getInt();
    if (numWarps < 1 || numWarps > 32 || !llvm::isPowerOf2_64(numWarps))
      return op->emitError() << name
                             << " must be a power of two from 1 to 32, got "
                             << numWarps;
    auto check = [&](Operation *at, Type type) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return success();
      auto layout =
          dyn_cast_if_present<DistributedEncodingAttrInterface>(tensor.getEncoding());
      if (!layout || layout.getNumWarps() == numWarps)
        return success();
      return at->emitOpError() << "has a tensor laid out over "
                               << layout.getNumWarps()
                               << " warps in a module of " << numWarps;
    };
    WalkResult walk = op->walk([&](Operation *inner) -> WalkResult {
      for (Type type : inner->getResultTypes())
        if (failed(check(inner, type)))
          return WalkResult::interrupt();
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(check(inner, arg.getType())))
              return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
  if (name == kTargetAttr) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value)
      return op->emitError() << name << " must be a string on a module";
    std::string error;
    if (!tilec::TargetInfo::parse(value.str(), error))
      return op->emitError() << error;
    return success();
  }
  if (name == kProducerWarpsAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() < 0 ||
        getNumWarps(cast<ModuleOp>(op)) * getConsumerGroups(cast<ModuleOp>(op)) +
                value.getInt() >
            32)
      return op->emitError() << name
                             << " must be an integer on a module, at most 32 warps "
                                "with num_warps and its consumer groups";
    return success();
  }
  if (name == kConsumerGroupsAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() < 1 ||
        getNumWarps(cast<ModuleOp>(op)) * value.getInt() > 32)
      return op->emitError() << name
                             << " must be a positive integer on a module, at most 32 "
                                "warps with num_warps";
    return success();
  }
  if (name == kClusterCtasAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() < 1 || value.getInt() > 8 ||
        !llvm::isPowerOf2_64(uint64_t(value.getInt())))
      return op->emitError() << name
                             << " must be an integer on a module, a power of two up to 8";
    return success();
  }
  if (name == kMulticastAttr) {
    if (!isa<AsyncTMACopyGlobalToLocalOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << name
                             << " must be a unit attribute of async_tma_copy_global_to_local";
    return success();
  }
  if (name == kClusterArriveAttr) {
    if (!isa<ArriveBarrierOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << name << " must be a unit attribute of arrive_barrier";
    return success();
  }
  if (name == kGroupSharedStrideAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() <= 0 || !op->hasAttr(kSharedOffsetAttr))
      return op->emitError() << name
                             << " must be a positive integer beside tilegpu.shared_offset";
    return success();
  }
  if (name == kWarpRolesAttr) {
    if (!isa<scf::IfOp>(op) || !isa<UnitAttr>(attr.getValue()) ||
        cast<scf::IfOp>(op).getElseRegion().empty())
      return op->emitError() << name << " must be a unit attribute of an scf.if with an else";
    return success();
  }
  if (name == kLaneZeroAttr) {
    if (!isa<BarrierExpectOp, AsyncTMACopyGlobalToLocalOp>(op) ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << name
                             << " must be a unit attribute of barrier_expect or "
                                "async_tma_copy_global_to_local";
    return success();
  }
  if (name == kBarrierThreadsAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<BarrierOp>(op) || !value || value.getInt() <= 0 || value.getInt() % 32)
      return op->emitError() << name
                             << " must be a positive multiple of 32 on tilegpu.barrier";
    return success();
  }
  if (name == kSharedBytesAttr || name == kSharedOffsetAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0)
      return op->emitError() << name << " must be a non-negative integer";
    return success();
  }
  return op->emitError() << "unknown tilegpu attribute '" << name << "'";
}

//===----------------------------------------------------------------------===//
// #tilegpu.blocked
//===----------------------------------------------------------------------===//

unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

unsigned BlockedEncodingAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}

LogicalResult BlockedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
    ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0)
    return emitError() << "blocked layout needs rank >= 1";
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "blocked layout fields must all have rank " << rank;
  if (failed(verifyOrder(emitError, order, "blocked layout")))
    return failure();
  if (product(threadsPerWarp) != kThreadsPerWarp)
    return emitError() << "threadsPerWarp must multiply to "
                       << kThreadsPerWarp;
  for (size_t d = 0; d < rank; ++d)
    if (!llvm::isPowerOf2_32(sizePerThread[d]) ||
        !llvm::isPowerOf2_32(threadsPerWarp[d]) ||
        !llvm::isPowerOf2_32(warpsPerCTA[d]))
      return emitError() << "blocked layout fields must be powers of two";
  if (product(warpsPerCTA) > 32)
    return emitError() << "warpsPerCTA must multiply to at most 32";
  return success();
}

LinearLayout BlockedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  assert(shape.size() == getRank() && "blocked layout of the wrong rank");
  LinearLayout layout;
  for (unsigned d : getOrder())
    layout = layout * LinearLayout::identity1D(getSizePerThread()[d], kRegister,
                                               outDimName(d));
  for (unsigned d : getOrder())
    layout = layout * LinearLayout::identity1D(getThreadsPerWarp()[d], kLane,
                                               outDimName(d));
  for (unsigned d : getOrder())
    layout = layout * LinearLayout::identity1D(getWarpsPerCTA()[d], kWarp,
                                               outDimName(d));
  return detail::fitToShape(layout, shape, getOrder());
}

LogicalResult BlockedEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  return detail::verifyEncodingShape(emitError, shape, getRank(), "blocked layout");
}

//===----------------------------------------------------------------------===//
// #tilegpu.slice
//===----------------------------------------------------------------------===//

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  auto distributed = dyn_cast<DistributedEncodingAttrInterface>(parent);
  if (!distributed)
    return emitError() << "slice parent must be a distributed layout";
  unsigned parentRank = distributed.getRank();
  if (parentRank < 2)
    return emitError() << "slice of a rank-" << parentRank
                       << " layout would have no dimensions";
  if (dim >= parentRank)
    return emitError() << "slice dim " << dim << " out of range for rank "
                       << parentRank;
  return success();
}

unsigned SliceEncodingAttr::getRank() const {
  return cast<DistributedEncodingAttrInterface>(getParent()).getRank() - 1;
}

unsigned SliceEncodingAttr::getNumWarps() const {
  return cast<DistributedEncodingAttrInterface>(getParent()).getNumWarps();
}

LinearLayout SliceEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  assert(shape.size() == getRank() && "slice layout of the wrong rank");
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  LinearLayout parent =
      cast<DistributedEncodingAttrInterface>(getParent()).toLinearLayout(parentShape);
  // Without the size-1 dimension the outputs are renumbered; registers
  // that only held copies along it go.
  LinearLayout sliced = parent.dropOutDim(outDimName(getDim()));
  return renameOutDims(sliced, outDimNames(getRank())).removeZeroBases(kRegister);
}

LogicalResult SliceEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  return detail::verifyEncodingShape(emitError, shape, getRank(), "slice layout");
}

//===----------------------------------------------------------------------===//
// Shared encodings
//===----------------------------------------------------------------------===//

LogicalResult SwizzledSharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned vec, unsigned perPhase,
    unsigned maxPhase, ArrayRef<unsigned> order) {
  if (order.empty())
    return emitError() << "swizzled_shared needs rank >= 1";
  if (failed(verifyOrder(emitError, order, "swizzled_shared")))
    return failure();
  if (!llvm::isPowerOf2_32(vec) || !llvm::isPowerOf2_32(perPhase) ||
      !llvm::isPowerOf2_32(maxPhase))
    return emitError() << "swizzled_shared vec, perPhase and maxPhase must be "
                          "powers of two";
  return success();
}

unsigned SwizzledSharedEncodingAttr::getRank() const { return getOrder().size(); }

LinearLayout SwizzledSharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  assert(shape.size() == rank && "swizzled_shared of the wrong rank");
  LinearLayout layout;
  for (unsigned d : getOrder())
    layout = layout * LinearLayout::identity1D(shape[d], kOffset, outDimName(d));
  layout = layout.transposeOuts(outDimNames(rank));
  if (rank < 2 || getMaxPhase() == 1)
    return layout;
  // Row bit j of the phase (rows: dimension order[1]) also flips vector bit
  // j of the column (dimension order[0]).
  unsigned col = getOrder()[0], row = getOrder()[1];
  unsigned colBits = llvm::Log2_64(shape[col]), rowBits = llvm::Log2_64(shape[row]);
  unsigned vecBits = llvm::Log2_32(getVec()), phaseLow = llvm::Log2_32(getPerPhase());
  unsigned phaseBits = llvm::Log2_32(getMaxPhase());
  SmallVector<LinearLayout::InDim> ins(layout.getInDims());
  for (unsigned j = phaseLow; j < std::min(rowBits, phaseLow + phaseBits); ++j) {
    unsigned target = vecBits + (j - phaseLow);
    if (target < colBits)
      ins[0].bases[colBits + j][col] ^= int32_t(1) << target;
  }
  return LinearLayout(ins, SmallVector<LinearLayout::OutDim>(layout.getOutDims()));
}

LogicalResult SharedLinearEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned rank,
    ArrayRef<int32_t> flatBases) {
  if (rank == 0)
    return emitError() << "shared_linear needs rank >= 1";
  if (flatBases.size() % rank)
    return emitError() << "shared_linear offsets must have " << rank
                       << " coordinates each";
  for (int32_t v : flatBases)
    if (v < 0)
      return emitError() << "shared_linear coordinates must be non-negative";
  return success();
}

SharedLinearEncodingAttr SharedLinearEncodingAttr::get(MLIRContext *ctx,
                                                       const LinearLayout &layout) {
  SmallVector<int32_t> flat;
  for (const LinearLayout::Image &image : layout.getBases(kOffset))
    flat.append(image.begin(), image.end());
  return get(ctx, layout.getOutDims().size(), flat);
}

LinearLayout SharedLinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  assert(shape.size() == getRank() && "shared_linear of the wrong rank");
  LinearLayout::InDim offset{kOffset, {}};
  for (unsigned i = 0; i < getNumBases(); ++i)
    offset.bases.push_back(LinearLayout::Image(getBasis(i)));
  SmallVector<LinearLayout::OutDim> outs;
  for (unsigned d = 0; d < getRank(); ++d)
    outs.push_back({outDimName(d), int32_t(shape[d])});
  return LinearLayout({offset}, outs);
}

Attribute SharedLinearEncodingAttr::parse(AsmParser &parser, Type) {
  // <{rank = R, offset = [[a, b], [c, d], ...]}>
  unsigned rank = 0;
  SmallVector<int32_t> flat;
  if (parser.parseLess() || parser.parseLBrace() || parser.parseKeyword("rank") ||
      parser.parseEqual() || parser.parseInteger(rank) || parser.parseComma() ||
      parser.parseKeyword("offset") || parser.parseEqual())
    return {};
  auto parseBasis = [&]() -> ParseResult {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
      int32_t v;
      if (parser.parseInteger(v))
        return failure();
      flat.push_back(v);
      return success();
    });
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseBasis) ||
      parser.parseRBrace() || parser.parseGreater())
    return {};
  return parser.getChecked<SharedLinearEncodingAttr>(parser.getContext(), rank, flat);
}

void SharedLinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{rank = " << getRank() << ", offset = [";
  for (unsigned i = 0; i < getNumBases(); ++i) {
    printer << (i ? ", " : "") << "[";
    llvm::interleaveComma(getBasis(i), printer);
    printer << "]";
  }
  printer << "]}>";
}

//===----------------------------------------------------------------------===//
// !tilegpu.memdesc
//===----------------------------------------------------------------------===//

bool MemDescType::isRing() const {
  return getShape().size() ==
         cast<SharedEncodingAttrInterface>(getEncoding()).getRank() + 1;
}

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseComma() ||
      parser.parseAttribute(encoding))
    return {};
  bool isMutable = false;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("mutable"))
      return {};
    isMutable = true;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MemDescType>(parser.getContext(), shape, element,
                                        encoding, isMutable);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t s : getShape())
    printer << s << "x";
  printer << getElementType() << ", " << getEncoding();
  if (getMutableMemory())
    printer << ", mutable";
  printer << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, bool) {
  auto shared = dyn_cast<SharedEncodingAttrInterface>(encoding);
  if (!shared)
    return emitError() << "memdesc needs a shared encoding, got " << encoding;
  // A ring of buffers: a leading count, then one buffer's shape.
  if (shape.size() == shared.getRank() + 1) {
    if (shape[0] < 1)
      return emitError() << "a ring of buffers needs at least one buffer, got "
                         << shape[0];
    shape = shape.drop_front();
  }
  if (failed(detail::verifyEncodingShape(emitError, shape, shared.getRank(), "shared encoding")))
    return failure();
  if (!elementType.isIntOrFloat() && !isa<tilec::tile::PointerType>(elementType))
    return emitError() << "memdesc elements must be integers, floats or pointers";
  if (auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(encoding)) {
    if (failed(nvmma.verifyShape(shape, emitError)))
      return failure();
    if (!elementType.isIntOrFloat() ||
        elementType.getIntOrFloatBitWidth() != nvmma.getElementBits())
      return emitError() << "nvmma_shared of " << nvmma.getElementBits()
                         << "-bit elements holds " << elementType;
  }
  if (auto linear = dyn_cast<SharedLinearEncodingAttr>(encoding))
    for (unsigned i = 0; i < linear.getNumBases(); ++i)
      for (unsigned d = 0; d < shape.size(); ++d)
        if (linear.getBasis(i)[d] >= shape[d])
          return emitError() << "shared_linear offset bit " << i
                             << " reaches coordinate " << linear.getBasis(i)[d]
                             << " of dimension " << d << ", past its size "
                             << shape[d];
  LinearLayout layout = shared.toLinearLayout(shape);
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  if (int64_t(layout.getInDimSize(kOffset)) != elements || !layout.isInjective() ||
      !layout.isSurjective())
    return emitError() << "shared encoding must place each of the " << elements
                       << " elements at its own offset";
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyDistributed(Operation *op, Type type, StringRef what) {
  auto tensor = cast<RankedTensorType>(type);
  if (!isa_and_present<DistributedEncodingAttrInterface>(tensor.getEncoding()))
    return op->emitOpError() << what << " needs a distributed layout";
  return success();
}

/// A tensor and a buffer hold the same elements.
static LogicalResult verifySameContents(Operation *op, RankedTensorType tensor,
                                        MemDescType buffer) {
  if (tensor.getShape() != buffer.getShape() ||
      tensor.getElementType() != buffer.getElementType())
    return op->emitOpError() << "tensor " << tensor << " and buffer " << buffer
                             << " differ in shape or element type";
  return verifyDistributed(op, tensor, "the tensor");
}

LogicalResult ConvertLayoutOp::verify() {
  if (failed(verifyDistributed(*this, getSrc().getType(), "the operand")))
    return failure();
  return verifyDistributed(*this, getType(), "the result");
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // convert(convert(x)) → convert(x), or x itself when it round-trips.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

LogicalResult LocalAllocOp::verify() {
  MemDescType buffer = getType();
  if (!getSrc()) {
    if (!buffer.getMutableMemory())
      return emitOpError("without initial contents the buffer must be mutable");
    return success();
  }
  if (buffer.getMutableMemory())
    return emitOpError("a buffer with initial contents is immutable");
  return verifySameContents(*this, getSrc().getType(), buffer);
}

void LocalAllocOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  OpResult result = getOperation()->getOpResult(0);
  effects.emplace_back(MemoryEffects::Allocate::get(), result,
                       SharedMemory::get());
  if (getSrc())
    effects.emplace_back(MemoryEffects::Write::get(), result,
                         SharedMemory::get());
}

LogicalResult LocalLoadOp::verify() {
  return verifySameContents(*this, getType(), getSrc().getType());
}

LogicalResult LocalStoreOp::verify() {
  if (!getDst().getType().getMutableMemory())
    return emitOpError("cannot store into an immutable buffer");
  return verifySameContents(*this, getSrc().getType(), getDst().getType());
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType ring = getSrc().getType(), buffer = getType();
  if (!ring.isRing())
    return emitOpError() << "indexes a ring of buffers, not " << ring;
  if (buffer.isRing() || buffer.getShape() != ring.getBufferShape() ||
      buffer.getElementType() != ring.getElementType() ||
      buffer.getEncoding() != ring.getEncoding() ||
      buffer.getMutableMemory() != ring.getMutableMemory())
    return emitOpError() << "result " << buffer << " is not one buffer of "
                         << ring;
  return success();
}

MemDescType MemDescTransOp::transposedType(MemDescType src) {
  if (src.isRing() || src.getShape().size() != 2)
    return MemDescType();
  MLIRContext *ctx = src.getContext();
  // Every shared layout names which dimension runs along the offsets
  // first; the view's is the same data, so that dimension's new number.
  Attribute swapped;
  if (auto layout = dyn_cast<NVMMASharedEncodingAttr>(src.getEncoding())) {
    swapped = NVMMASharedEncodingAttr::get(ctx, layout.getSwizzleBytes(),
                                           layout.getElementBits(),
                                           {layout.getOrder()[1], layout.getOrder()[0]});
  } else if (auto layout = dyn_cast<SwizzledSharedEncodingAttr>(src.getEncoding())) {
    swapped = SwizzledSharedEncodingAttr::get(
        ctx, layout.getVec(), layout.getPerPhase(), layout.getMaxPhase(),
        {1 - layout.getOrder()[0], 1 - layout.getOrder()[1]});
  } else if (auto layout = dyn_cast<SharedLinearEncodingAttr>(src.getEncoding())) {
    // Each offset bit's coordinates, swapped.
    SmallVector<int32_t> bases;
    for (unsigned i = 0; i < layout.getNumBases(); ++i) {
      ArrayRef<int32_t> basis = layout.getBasis(i);
      bases.append({basis[1], basis[0]});
    }
    swapped = SharedLinearEncodingAttr::get(ctx, 2, bases);
  } else {
    return MemDescType();
  }
  return MemDescType::get(ctx, {src.getShape()[1], src.getShape()[0]},
                          src.getElementType(), swapped, src.getMutableMemory());
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType();
  MemDescType expected = transposedType(src);
  if (!expected)
    return emitOpError() << "views one 2-D buffer (not a ring), not " << src;
  if (getType() != expected)
    return emitOpError() << "the transposed view of " << src << " is "
                         << expected << ", not " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA
//===----------------------------------------------------------------------===//

namespace {
/// An mbarrier operand: one mutable i64 in shared memory (a buffer of one,
/// or one of a ring's, through memdesc_index).
LogicalResult verifyBarrier(Operation *op, MemDescType type) {
  if (type.isRing() || type.getNumElements() != 1 || !type.getElementType().isInteger(64) ||
      !type.getMutableMemory())
    return op->emitOpError() << "needs an mbarrier: one mutable i64 in shared memory, not "
                             << type;
  return success();
}
} // namespace

LogicalResult InitBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }

LogicalResult InvalBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }

LogicalResult BarrierExpectOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult WaitBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }

LogicalResult ArriveBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }

LogicalResult SetMaxRegistersOp::verify() {
  if (getCount() % 8)
    return emitOpError("gives a multiple of 8 registers, not ") << getCount();
  return success();
}

/// A TMA copy's buffer and coordinates: one buffer, one coordinate per
/// dimension, a 2-D block TMA moves, in the layout of its map's swizzle.
static LogicalResult verifyTMABuffer(Operation *op, tilec::tilegpu::MemDescType buffer, size_t coords) {
  if (buffer.isRing())
    return op->emitOpError() << "copies one buffer, not a ring: " << buffer;
  ArrayRef<int64_t> shape = buffer.getShape();
  if (coords != shape.size())
    return op->emitOpError() << "needs one coordinate per dimension of the buffer ("
                             << shape.size() << "), got " << coords;
  std::optional<tilec::TMABlockLayout> layout = tilec::tilegpu::getTMABlockLayout(shape, buffer.getElementType());
  if (!layout)
    return op->emitOpError() << "copies 2-D blocks TMA can move (rows of whole 16 bytes, at "
                                "most 256 of them), not "
                             << buffer;
  Attribute moved = tilec::tilegpu::getTMABufferEncoding(op->getContext(), *layout, buffer.getElementType());
  if (buffer.getEncoding() != moved)
    return op->emitOpError() << "moves the layout of its map's swizzle (" << moved << "), not "
                             << buffer.getEncoding();
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier().getType())))
    return failure();
  MemDescType buffer = getResult().getType();
  if (!buffer.getMutableMemory())
    return emitOpError() << "fills a mutable buffer, not " << buffer;
  return verifyTMABuffer(*this, buffer, getCoords().size());
}

LogicalResult TMAStoreOp::verify() {
  MemDescType buffer = getBuffer().getType();
  // (The issuing thread's fence needs the writers' own: swizzled buffers'.)
  if (!isa<NVMMASharedEncodingAttr>(buffer.getEncoding()))
    return emitOpError() << "writes blocks of rows of 32 bytes or more (a swizzled buffer), "
                            "not "
                         << buffer;
  return verifyTMABuffer(*this, buffer, getCoords().size());
}

std::optional<tilec::TMABlockLayout> tilec::tilegpu::getTMABlockLayout(ArrayRef<int64_t> shape,
                                                                       Type element) {
  TMABlockLayout layout;
  if (shape.size() != 2 || !element.isIntOrFloat() ||
      !tmaBlockLayout(shape[0], shape[1], element.getIntOrFloatBitWidth(), layout))
    return std::nullopt;
  return layout;
}

MemDescType tilec::tilegpu::getBarrierType(MLIRContext *ctx, unsigned ringSize) {
  SmallVector<int64_t> shape;
  if (ringSize)
    shape.push_back(ringSize);
  shape.push_back(1);
  return MemDescType::get(ctx, shape, IntegerType::get(ctx, 64),
                          SwizzledSharedEncodingAttr::get(ctx, 1, 1, 1, {0}),
                          /*mutableMemory=*/true);
}

Value tilec::tilegpu::viewedBuffer(Value memdesc) {
  while (isa_and_nonnull<MemDescIndexOp, MemDescTransOp>(memdesc.getDefiningOp()))
    memdesc = memdesc.getDefiningOp()->getOperand(0);
  return memdesc;
}

void tilec::tilegpu::replaceBuffer(Value buffer, Value replacement) {
  buffer.replaceAllUsesWith(replacement);
  SmallVector<Value> views{replacement};
  while (!views.empty()) {
    Value source = views.pop_back_val();
    for (Operation *user : source.getUsers())
      if (auto view = dyn_cast<MemDescTransOp>(user)) {
        view.getResult().setType(MemDescTransOp::transposedType(view.getSrc().getType()));
        views.push_back(view.getResult());
      }
  }
}

Attribute tilec::tilegpu::getTMABufferEncoding(MLIRContext *ctx, const TMABlockLayout &layout,
                                               Type element) {
  unsigned bits = element.getIntOrFloatBitWidth();
  if (layout.swizzleBytes)
    return NVMMASharedEncodingAttr::get(ctx, layout.swizzleBytes, bits, {1, 0});
  // Plain rows: no swizzle, 16-byte vectors along them.
  return SwizzledSharedEncodingAttr::get(ctx, std::max(1u, 128 / bits), 1, 1, {1, 0});
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  RankedTensorType ptrs = getPtr().getType();
  MemDescType buffer = getDst().getType();
  if (!buffer.getMutableMemory())
    return emitOpError("cannot copy into an immutable buffer");
  auto pointee = cast<tile::PointerType>(ptrs.getElementType()).getPointeeType();
  if (buffer.isRing() || ptrs.getShape() != buffer.getShape() ||
      pointee != buffer.getElementType())
    return emitOpError() << "pointers " << ptrs << " do not address the elements of "
                         << buffer;
  if (Value mask = getMask())
    if (cast<RankedTensorType>(mask.getType()).getShape() != ptrs.getShape() ||
        cast<RankedTensorType>(mask.getType()).getEncoding() != ptrs.getEncoding())
      return emitOpError("the mask must have the pointers' shape and layout");
  return verifyDistributed(*this, ptrs, "the pointers");
}

LogicalResult WarpGroupDotOp::verify() {
  auto aBuffer = dyn_cast<MemDescType>(getA().getType());
  auto aRegisters = dyn_cast<RankedTensorType>(getA().getType());
  MemDescType b = getB().getType();
  RankedTensorType d = getD().getType();
  ArrayRef<int64_t> aShape = aBuffer ? aBuffer.getShape() : aRegisters.getShape();
  Type aElement = aBuffer ? aBuffer.getElementType() : aRegisters.getElementType();
  if ((aBuffer && aBuffer.isRing()) || b.isRing() || aShape.size() != 2 ||
      b.getShape().size() != 2 || d.getRank() != 2)
    return emitOpError("multiplies a 2-D tile (a buffer, or A in registers) by "
                       "a 2-D buffer");
  int64_t m = aShape[0], k = aShape[1], n = b.getShape()[1];
  if (b.getShape()[0] != k || d.getShape()[0] != m || d.getShape()[1] != n)
    return emitOpError() << "has shapes that do not multiply: " << m << "x" << k
                         << " times " << b.getShape()[0] << "x" << n << " into "
                         << d.getShape()[0] << "x" << d.getShape()[1];
  Type accElement = d.getElementType();
  std::optional<unsigned> instrK =
      wgmmaInstructionK(aElement, b.getElementType(), accElement);
  if (!instrK)
    return emitOpError() << "multiplies f16 or bf16 (one type) or f32 (as tf32) "
                            "into f32, fp8 into f32, or i8 into i32; got "
                         << aElement << " x " << b.getElementType() << " into "
                         << accElement;
  if (k % *instrK)
    return emitOpError() << "needs K a multiple of " << *instrK
                         << " (the instruction's), got " << k;
  auto aLayout = aBuffer ? dyn_cast<NVMMASharedEncodingAttr>(aBuffer.getEncoding())
                         : NVMMASharedEncodingAttr();
  auto bLayout = dyn_cast<NVMMASharedEncodingAttr>(b.getEncoding());
  if ((aBuffer && !aLayout) || !bLayout)
    return emitOpError("reads buffers in #tilegpu.nvmma_shared layouts");
  if (getMaxNumImpreciseAccAttr() &&
      !(tile::isFP8(aElement) && accElement.isF32()))
    return emitOpError("bounds the imprecise accumulation of fp8 products "
                       "only (maxNumImpreciseAcc)");
  // K is dimension 1 of A and 0 of B: a K-major buffer keeps it contiguous.
  if (!wgmmaTakesAnyMajor(aElement)) {
    if (aRegisters)
      return emitOpError() << "takes A from registers for 16-bit elements only, "
                              "not "
                           << aElement;
    if (aLayout.getOrder()[0] != 1 || bLayout.getOrder()[0] != 0)
      return emitOpError() << "reads " << aElement
                           << " operands from K-major buffers only (order [1, 0] "
                              "for A, [0, 1] for B)";
  }
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(d.getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError("accumulates in an #tilegpu.mma version 3 layout");
  if (aRegisters) {
    // (Any attribute with that linear layout: for some shapes the
    // accumulator's own is one.)
    auto operand = DotOperandEncodingAttr::get(getContext(), 0, mma, 2);
    if (!aRegisters.getEncoding() ||
        !isSameLayout(aRegisters.getEncoding(), operand, aRegisters.getShape()))
      return emitOpError() << "takes A in registers in the layout " << operand
                           << " (its accumulator's operand A), not "
                           << aRegisters.getEncoding();
    // The instructions read the registers after the op returns; only a
    // complete op leaves them free.
    if (getPending() != 0)
      return emitOpError("with A in registers cannot be left in flight "
                         "(pending = 1): the tensor cores read A's registers "
                         "until the wait");
  }
  // In flight after it returns, the result may only be accumulated into by
  // the next dot, carried to it, or waited for.
  if (getPending() != 0)
    for (OpOperand &use : getD().getUses()) {
      Operation *user = use.getOwner();
      auto next = dyn_cast<WarpGroupDotOp>(user);
      if (!(next && use.get() == next.getC()) &&
          !isa<scf::YieldOp, WarpGroupDotWaitOp>(user))
        return emitOpError("with pending = 1 has a result that is still being "
                           "written when '")
               << user->getName()
               << "' reads it (only the next warp_group_dot's accumulator, "
                  "scf.yield or warp_group_dot_wait may)";
    }
  return success();
}

Value WarpGroupDotOp::getAccumulator() { return getC(); }

bool WarpGroupDotOp::addsRunsInF32() {
  IntegerAttr count = getMaxNumImpreciseAccAttr();
  return count && count.getInt() <= getB().getType().getShape()[0];
}

LogicalResult WarpGroupDotWaitOp::verify() {
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(getAcc().getType().getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError("waits for a wgmma accumulator (an #tilegpu.mma version 3 "
                       "layout)");
  return success();
}
