// #tilegpu.linear: a distributed layout written as its linear layout, the
// images of its register, lane and warp bits.
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

namespace {
/// Bits of the lane index: one image per bit, five for 32 lanes.
constexpr unsigned kLaneBits = 5;
/// At most 32 warps per CTA.
constexpr unsigned kMaxWarpBits = 5;

struct NamedBases {
  const char *name;
  ArrayRef<int32_t> flat;
};
} // namespace

LinearEncodingAttr LinearEncodingAttr::get(MLIRContext *ctx,
                                           const LinearLayout &layout) {
  SmallVector<int32_t> flat[3];
  const char *ins[3] = {kRegister, kLane, kWarp};
  for (unsigned i = 0; i < 3; ++i)
    for (const LinearLayout::Image &image : layout.getBases(ins[i]))
      flat[i].append(image.begin(), image.end());
  return get(ctx, layout.getOutDims().size(), ArrayRef<int32_t>(flat[0]),
             ArrayRef<int32_t>(flat[1]), ArrayRef<int32_t>(flat[2]));
}

SmallVector<LinearLayout::Image> LinearEncodingAttr::getBases(StringRef in) const {
  ArrayRef<int32_t> flat = in == kRegister ? getRegisterBases()
                           : in == kLane   ? getLaneBases()
                                           : getWarpBases();
  SmallVector<LinearLayout::Image> images;
  for (size_t i = 0; i + getRank() <= flat.size(); i += getRank())
    images.push_back(LinearLayout::Image(flat.slice(i, getRank())));
  return images;
}

LogicalResult LinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         unsigned rank, ArrayRef<int32_t> registers,
                                         ArrayRef<int32_t> lanes,
                                         ArrayRef<int32_t> warps) {
  if (rank == 0)
    return emitError() << "linear layout needs images of at least one coordinate";
  NamedBases all[] = {{kRegister, registers}, {kLane, lanes}, {kWarp, warps}};
  for (NamedBases bases : all) {
    if (bases.flat.size() % rank)
      return emitError() << "linear layout: every " << bases.name
                         << " image needs " << rank << " coordinates";
    if (llvm::any_of(bases.flat, [](int32_t v) { return v < 0; }))
      return emitError() << "linear layout coordinates must be non-negative";
  }
  if (lanes.size() / rank != kLaneBits)
    return emitError() << "linear layout needs " << kLaneBits
                       << " lane images (32 lanes), got " << lanes.size() / rank;
  if (warps.size() / rank > kMaxWarpBits)
    return emitError() << "linear layout has " << warps.size() / rank
                       << " warp images; at most " << kMaxWarpBits
                       << " (32 warps)";
  return success();
}

unsigned LinearEncodingAttr::getNumWarps() const {
  return 1u << (getWarpBases().size() / getRank());
}

LinearLayout LinearEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  assert(shape.size() == getRank() && "linear layout of the wrong rank");
  // A tensor's shape holds every image (verifyEncoding). A smaller one is
  // asked as the parent of a slice, with 1 at the sliced dimension: as a
  // blocked layout does, coordinates wrap, and the bits along it go free.
  SmallVector<LinearLayout::InDim> ins;
  for (const char *in : {kRegister, kLane, kWarp}) {
    SmallVector<LinearLayout::Image> images = getBases(in);
    for (LinearLayout::Image &image : images)
      for (unsigned d = 0; d < getRank(); ++d)
        image[d] &= int32_t(shape[d] - 1);
    ins.push_back({in, std::move(images)});
  }
  SmallVector<LinearLayout::OutDim> outs;
  for (unsigned d = 0; d < getRank(); ++d)
    outs.push_back({outDimName(d), int32_t(shape[d])});
  return LinearLayout(std::move(ins), std::move(outs));
}

LogicalResult LinearEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != getRank())
    return emitError() << "linear layout of rank " << getRank()
                       << " cannot describe a tensor of rank " << shape.size();
  for (int64_t s : shape)
    if (s <= 0 || !llvm::isPowerOf2_64(s))
      return emitError() << "linear layout needs dimensions that are powers "
                            "of two, got "
                         << s;
  for (const char *in : {kRegister, kLane, kWarp}) {
    SmallVector<LinearLayout::Image> images = getBases(in);
    for (unsigned b = 0; b < images.size(); ++b)
      for (unsigned d = 0; d < getRank(); ++d)
        if (images[b][d] >= shape[d])
          return emitError() << "linear layout: " << in << " bit " << b
                             << " reaches coordinate " << images[b][d]
                             << " of dimension " << d << ", past its size "
                             << shape[d];
  }
  // Checked now so that every lowering may rely on it: each element has a
  // holder, and exactly one owner (the holder whose free bits are clear).
  LinearLayout layout = toLinearLayout(shape);
  if (!layout.isSurjective())
    return emitError() << "linear layout leaves elements of the tensor "
                          "without a holder";
  if (!layout.isInjectiveUpToFreeBits())
    return emitError() << "linear layout images must be linearly independent "
                          "(apart from zeros), so that each element has one "
                          "owner";
  return success();
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  // <{register = [[a, b], ...], lane = [...], warp = [...]}>
  unsigned rank = 0;
  bool rankKnown = false;
  SmallVector<int32_t> flat[3];
  auto parseImage = [&](SmallVector<int32_t> &into) -> ParseResult {
    size_t before = into.size();
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
          int32_t v;
          if (parser.parseInteger(v))
            return failure();
          into.push_back(v);
          return success();
        }))
      return failure();
    unsigned size = into.size() - before;
    if (rankKnown && size != rank)
      return parser.emitError(parser.getCurrentLocation())
             << "every image of a linear layout needs " << rank << " coordinates";
    rank = size;
    rankKnown = true;
    return success();
  };
  if (parser.parseLess() || parser.parseLBrace())
    return {};
  const char *keywords[3] = {kRegister, kLane, kWarp};
  for (unsigned i = 0; i < 3; ++i) {
    if ((i && parser.parseComma()) || parser.parseKeyword(keywords[i]) ||
        parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       [&]() { return parseImage(flat[i]); }))
      return {};
  }
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  return parser.getChecked<LinearEncodingAttr>(
      parser.getContext(), rank, ArrayRef<int32_t>(flat[0]),
      ArrayRef<int32_t>(flat[1]), ArrayRef<int32_t>(flat[2]));
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  bool firstIn = true;
  for (const char *in : {kRegister, kLane, kWarp}) {
    printer << (firstIn ? "" : ", ") << in << " = [";
    firstIn = false;
    bool first = true;
    for (const LinearLayout::Image &image : getBases(in)) {
      printer << (first ? "" : ", ") << "[";
      llvm::interleaveComma(image, printer);
      printer << "]";
      first = false;
    }
    printer << "]";
  }
  printer << "}>";
}
