#include "compiler/Dialect/TileGPU/LinearLayout.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>

using namespace llvm;

namespace tilec::tilegpu {

namespace {
bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// A basis of a GF(2) vector space kept in echelon form: each vector is
/// filed under its highest set bit, together with the combination of
/// inserted vectors ("inputs") it came from.
class EchelonBasis {
public:
  /// Adds `vec` (made of inputs `combo`); false when it depends on the
  /// vectors already there.
  bool insert(uint64_t vec, uint64_t combo) {
    for (int b = 63; b >= 0; --b) {
      if (!(vec >> b & 1))
        continue;
      if (!pivots_[b].vec) {
        pivots_[b] = {vec, combo};
        return true;
      }
      vec ^= pivots_[b].vec;
      combo ^= pivots_[b].combo;
    }
    return false;
  }
  /// The inputs that combine to `target`; nullopt when it is outside the
  /// span.
  std::optional<uint64_t> solve(uint64_t target) const {
    uint64_t combo = 0;
    for (int b = 63; b >= 0; --b) {
      if (!(target >> b & 1))
        continue;
      if (!pivots_[b].vec)
        return std::nullopt;
      target ^= pivots_[b].vec;
      combo ^= pivots_[b].combo;
    }
    return combo;
  }

private:
  struct Entry {
    uint64_t vec = 0, combo = 0;
  };
  Entry pivots_[64];
};
} // namespace

std::string outDimName(unsigned d) { return "dim" + std::to_string(d); }

SmallVector<std::string> outDimNames(unsigned rank) {
  SmallVector<std::string> names;
  for (unsigned d = 0; d < rank; ++d)
    names.push_back(outDimName(d));
  return names;
}

LinearLayout::LinearLayout(SmallVector<InDim> ins, SmallVector<OutDim> outs)
    : ins_(std::move(ins)), outs_(std::move(outs)) {
  for (const OutDim &o : outs_) {
    (void)o;
    assert(isPow2(o.size) && "output dimension sizes must be powers of two");
  }
  for (const InDim &in : ins_)
    for (const Image &image : in.bases) {
      (void)image;
      assert(image.size() == outs_.size() &&
             "every image has one value per output dimension");
      for (size_t o = 0; o < image.size(); ++o)
        assert(image[o] >= 0 && image[o] < outs_[o].size &&
               "an image lies outside its output dimension");
    }
  assert(getTotalInBits() <= 63 && getTotalOutBits() <= 63 &&
         "layouts are limited to 63 input and 63 output bits");
}

LinearLayout LinearLayout::identity1D(int32_t size, StringRef in, StringRef out) {
  assert(isPow2(size) && "identity1D needs a power of two");
  InDim dim{in.str(), {}};
  for (int32_t v = 1; v < size; v <<= 1)
    dim.bases.push_back({v});
  return LinearLayout({dim}, {{out.str(), size}});
}

LinearLayout LinearLayout::zeros1D(int32_t size, StringRef in, StringRef out,
                                   int32_t outSize) {
  assert(isPow2(size) && "zeros1D needs a power of two");
  InDim dim{in.str(), {}};
  for (int32_t v = 1; v < size; v <<= 1)
    dim.bases.push_back({0});
  return LinearLayout({dim}, {{out.str(), outSize}});
}

int LinearLayout::inIndex(StringRef name) const {
  for (size_t i = 0; i < ins_.size(); ++i)
    if (ins_[i].name == name)
      return int(i);
  return -1;
}

int LinearLayout::outIndex(StringRef name) const {
  for (size_t i = 0; i < outs_.size(); ++i)
    if (outs_[i].name == name)
      return int(i);
  return -1;
}

unsigned LinearLayout::getInDimSizeLog2(StringRef name) const {
  int i = inIndex(name);
  return i < 0 ? 0 : ins_[i].bases.size();
}

unsigned LinearLayout::getOutDimSizeLog2(StringRef name) const {
  return Log2_32(getOutDimSize(name));
}

int32_t LinearLayout::getOutDimSize(StringRef name) const {
  int o = outIndex(name);
  return o < 0 ? 1 : outs_[o].size;
}

unsigned LinearLayout::getTotalInBits() const {
  unsigned n = 0;
  for (const InDim &in : ins_)
    n += in.bases.size();
  return n;
}

unsigned LinearLayout::getTotalOutBits() const {
  unsigned n = 0;
  for (const OutDim &o : outs_)
    n += Log2_32(o.size);
  return n;
}

SmallVector<int64_t> LinearLayout::getOutDimSizes() const {
  SmallVector<int64_t> sizes;
  for (const OutDim &o : outs_)
    sizes.push_back(o.size);
  return sizes;
}

ArrayRef<LinearLayout::Image> LinearLayout::getBases(StringRef name) const {
  int i = inIndex(name);
  if (i < 0)
    return {};
  return ins_[i].bases;
}

LinearLayout::Image
LinearLayout::apply(ArrayRef<std::pair<StringRef, int32_t>> inputs) const {
  Image out(outs_.size(), 0);
  for (auto [name, value] : inputs) {
    int i = inIndex(name);
    assert((i >= 0 || value == 0) && "no such input dimension");
    if (i < 0)
      continue;
    const auto &bases = ins_[i].bases;
    assert(uint64_t(value) < (uint64_t(1) << bases.size()) &&
           "input value out of range");
    for (size_t b = 0; b < bases.size(); ++b)
      if (value >> b & 1)
        for (size_t o = 0; o < outs_.size(); ++o)
          out[o] ^= bases[b][o];
  }
  return out;
}

unsigned LinearLayout::outBitOffset(unsigned out) const {
  unsigned offset = 0;
  for (unsigned o = 0; o < out; ++o)
    offset += Log2_32(outs_[o].size);
  return offset;
}

unsigned LinearLayout::inBitOffset(unsigned in) const {
  unsigned offset = 0;
  for (unsigned i = 0; i < in; ++i)
    offset += ins_[i].bases.size();
  return offset;
}

uint64_t LinearLayout::flatImage(unsigned in, unsigned bit) const {
  return flattenOut(ins_[in].bases[bit]);
}

LinearLayout::Image LinearLayout::unflattenOut(uint64_t flat) const {
  Image image(outs_.size());
  for (unsigned o = 0; o < outs_.size(); ++o)
    image[o] = int32_t((flat >> outBitOffset(o)) & uint64_t(outs_[o].size - 1));
  return image;
}

uint64_t LinearLayout::flattenOut(ArrayRef<int32_t> image) const {
  assert(image.size() == outs_.size() && "one value per output dimension");
  uint64_t flat = 0;
  for (unsigned o = 0; o < outs_.size(); ++o)
    flat |= uint64_t(image[o]) << outBitOffset(o);
  return flat;
}

LinearLayout LinearLayout::operator*(const LinearLayout &rhs) const {
  // Outputs: ours, then rhs's new ones; shared ones grow.
  SmallVector<OutDim> outs = outs_;
  SmallVector<int32_t> rhsShift; // per rhs output: multiplier into ours
  SmallVector<int> rhsOutAt;
  for (const OutDim &o : rhs.outs_) {
    int at = outIndex(o.name);
    if (at < 0) {
      rhsOutAt.push_back(outs.size());
      rhsShift.push_back(1);
      outs.push_back(o);
    } else {
      rhsOutAt.push_back(at);
      rhsShift.push_back(outs[at].size);
      outs[at].size *= o.size;
    }
  }
  auto widen = [&](const Image &image, bool fromRhs) {
    Image wide(outs.size(), 0);
    if (!fromRhs) {
      for (size_t o = 0; o < image.size(); ++o)
        wide[o] = image[o];
      return wide;
    }
    for (size_t o = 0; o < image.size(); ++o)
      wide[rhsOutAt[o]] = image[o] * rhsShift[o];
    return wide;
  };
  SmallVector<InDim> ins;
  for (const InDim &in : ins_) {
    InDim dim{in.name, {}};
    for (const Image &image : in.bases)
      dim.bases.push_back(widen(image, false));
    ins.push_back(std::move(dim));
  }
  for (const InDim &in : rhs.ins_) {
    int at = -1;
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i].name == in.name)
        at = int(i);
    if (at < 0) {
      ins.push_back({in.name, {}});
      at = ins.size() - 1;
    }
    for (const Image &image : in.bases)
      ins[at].bases.push_back(widen(image, true));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  SmallVector<InDim> ins;
  for (const InDim &in : ins_) {
    InDim dim{in.name, {}};
    for (const Image &image : in.bases) {
      SmallVector<std::pair<StringRef, int32_t>> args;
      for (size_t o = 0; o < outs_.size(); ++o) {
        assert(outer.hasInDim(outs_[o].name) || image[o] == 0);
        assert(outs_[o].size <= outer.getInDimSize(outs_[o].name) &&
               "compose: an output is wider than the outer layout's input");
        args.push_back({outs_[o].name, image[o]});
      }
      dim.bases.push_back(outer.apply(args));
    }
    ins.push_back(std::move(dim));
  }
  return LinearLayout(std::move(ins), outer.outs_);
}

std::optional<LinearLayout> LinearLayout::pseudoinvert() const {
  EchelonBasis basis;
  for (unsigned i = 0; i < ins_.size(); ++i)
    for (unsigned b = 0; b < ins_[i].bases.size(); ++b)
      basis.insert(flatImage(i, b), uint64_t(1) << (inBitOffset(i) + b));
  // The inverse's outputs are our inputs, sized by their bit counts.
  SmallVector<OutDim> outs;
  for (const InDim &in : ins_)
    outs.push_back({in.name, int32_t(1) << in.bases.size()});
  auto splitInputs = [&](uint64_t combo) {
    Image image(ins_.size());
    for (unsigned i = 0; i < ins_.size(); ++i)
      image[i] = int32_t((combo >> inBitOffset(i)) &
                         ((uint64_t(1) << ins_[i].bases.size()) - 1));
    return image;
  };
  SmallVector<InDim> ins;
  for (unsigned o = 0; o < outs_.size(); ++o) {
    InDim dim{outs_[o].name, {}};
    for (unsigned b = 0; b < Log2_32(outs_[o].size); ++b) {
      std::optional<uint64_t> combo = basis.solve(uint64_t(1)
                                                  << (outBitOffset(o) + b));
      if (!combo)
        return std::nullopt;
      dim.bases.push_back(splitInputs(*combo));
    }
    ins.push_back(std::move(dim));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &other) const {
  std::optional<LinearLayout> inverse = pseudoinvert();
  if (!inverse)
    return std::nullopt;
  return other.compose(*inverse);
}

bool LinearLayout::isSurjective() const {
  EchelonBasis basis;
  unsigned rank = 0;
  for (unsigned i = 0; i < ins_.size(); ++i)
    for (unsigned b = 0; b < ins_[i].bases.size(); ++b)
      rank += basis.insert(flatImage(i, b), 0);
  return rank == getTotalOutBits();
}

bool LinearLayout::isInjectiveUpToFreeBits() const {
  EchelonBasis basis;
  for (unsigned i = 0; i < ins_.size(); ++i)
    for (unsigned b = 0; b < ins_[i].bases.size(); ++b) {
      uint64_t image = flatImage(i, b);
      if (image && !basis.insert(image, 0))
        return false;
    }
  return true;
}

bool LinearLayout::isInjective() const {
  for (unsigned i = 0; i < ins_.size(); ++i)
    if (getFreeVariableMask(ins_[i].name))
      return false;
  return isInjectiveUpToFreeBits();
}

int32_t LinearLayout::getFreeVariableMask(StringRef name) const {
  int i = inIndex(name);
  if (i < 0)
    return 0;
  int32_t mask = 0;
  for (size_t b = 0; b < ins_[i].bases.size(); ++b)
    if (llvm::all_of(ins_[i].bases[b], [](int32_t v) { return v == 0; }))
      mask |= int32_t(1) << b;
  return mask;
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> ins,
                                     ArrayRef<std::string> outs) const {
  SmallVector<OutDim> keptOuts;
  SmallVector<int> keptAt;
  for (unsigned o = 0; o < outs_.size(); ++o)
    if (llvm::is_contained(outs, outs_[o].name)) {
      keptOuts.push_back(outs_[o]);
      keptAt.push_back(o);
    }
  SmallVector<InDim> keptIns;
  for (const InDim &in : ins_) {
    if (!llvm::is_contained(ins, in.name))
      continue;
    InDim dim{in.name, {}};
    for (const Image &image : in.bases) {
      Image kept;
      for (int o : keptAt)
        kept.push_back(image[o]);
      dim.bases.push_back(kept);
    }
    keptIns.push_back(std::move(dim));
  }
  return LinearLayout(std::move(keptIns), std::move(keptOuts));
}

LinearLayout LinearLayout::dropOutDim(StringRef name) const {
  SmallVector<std::string> ins, outs;
  for (const InDim &in : ins_)
    ins.push_back(in.name);
  for (const OutDim &o : outs_)
    if (o.name != name)
      outs.push_back(o.name);
  return sublayout(ins, outs);
}

LinearLayout LinearLayout::removeZeroBases(StringRef name) const {
  SmallVector<InDim> ins = ins_;
  for (InDim &in : ins)
    if (in.name == name)
      llvm::erase_if(in.bases, [](const Image &image) {
        return llvm::all_of(image, [](int32_t v) { return v == 0; });
      });
  return LinearLayout(std::move(ins), outs_);
}

LinearLayout LinearLayout::transposeOuts(ArrayRef<std::string> names) const {
  assert(names.size() == outs_.size() && "transposeOuts needs every output");
  SmallVector<int> from;
  SmallVector<OutDim> outs;
  for (const std::string &name : names) {
    int o = outIndex(name);
    assert(o >= 0 && "transposeOuts: unknown output dimension");
    from.push_back(o);
    outs.push_back(outs_[o]);
  }
  SmallVector<InDim> ins;
  for (const InDim &in : ins_) {
    InDim dim{in.name, {}};
    for (const Image &image : in.bases) {
      Image moved;
      for (int o : from)
        moved.push_back(image[o]);
      dim.bases.push_back(moved);
    }
    ins.push_back(std::move(dim));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::resizeOutDim(StringRef name, int32_t size) const {
  assert(isPow2(size) && "resizeOutDim needs a power of two");
  int o = outIndex(name);
  assert(o >= 0 && "resizeOutDim: unknown output dimension");
  SmallVector<OutDim> outs = outs_;
  outs[o].size = size;
  SmallVector<InDim> ins = ins_;
  for (InDim &in : ins)
    for (Image &image : in.bases)
      image[o] &= size - 1;
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::reshapeOuts(ArrayRef<int64_t> shape) const {
  // Bit offsets of each dimension in the row-major flat index: the last
  // dimension lowest.
  auto rowMajor = [](ArrayRef<int64_t> sizes) {
    SmallVector<unsigned> offsets(sizes.size());
    unsigned bit = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      offsets[d] = bit;
      bit += Log2_64(sizes[d]);
    }
    return offsets;
  };
  SmallVector<unsigned> from = rowMajor(getOutDimSizes()), to = rowMajor(shape);
  SmallVector<OutDim> outs;
  unsigned bits = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    assert(isPow2(shape[d]) && "reshapeOuts needs powers of two");
    outs.push_back({outDimName(d), int32_t(shape[d])});
    bits += Log2_64(shape[d]);
  }
  assert(bits == getTotalOutBits() && "reshapeOuts must keep the element count");
  (void)bits;
  SmallVector<InDim> ins;
  for (const InDim &in : ins_) {
    InDim dim{in.name, {}};
    for (const Image &image : in.bases) {
      uint64_t flat = 0;
      for (size_t o = 0; o < outs_.size(); ++o)
        flat |= uint64_t(image[o]) << from[o];
      Image moved;
      for (size_t d = 0; d < shape.size(); ++d)
        moved.push_back(int32_t((flat >> to[d]) & uint64_t(shape[d] - 1)));
      dim.bases.push_back(std::move(moved));
    }
    ins.push_back(std::move(dim));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

unsigned LinearLayout::getNumConsecutiveBits(StringRef in, StringRef out) const {
  int i = inIndex(in), o = outIndex(out);
  if (i < 0 || o < 0)
    return 0;
  unsigned n = 0;
  for (const Image &image : ins_[i].bases) {
    bool next = true;
    for (size_t d = 0; d < image.size(); ++d)
      next &= image[d] == (int(d) == o ? int32_t(1) << n : 0);
    if (!next)
      break;
    ++n;
  }
  return n;
}

bool LinearLayout::operator==(const LinearLayout &other) const {
  if (ins_.size() != other.ins_.size() || outs_.size() != other.outs_.size())
    return false;
  for (size_t o = 0; o < outs_.size(); ++o)
    if (outs_[o].name != other.outs_[o].name ||
        outs_[o].size != other.outs_[o].size)
      return false;
  for (size_t i = 0; i < ins_.size(); ++i)
    if (ins_[i].name != other.ins_[i].name ||
        ins_[i].bases != other.ins_[i].bases)
      return false;
  return true;
}

std::string LinearLayout::toString() const {
  std::string text;
  raw_string_ostream os(text);
  for (size_t i = 0; i < ins_.size(); ++i) {
    os << (i ? ", " : "") << ins_[i].name << ": [";
    for (size_t b = 0; b < ins_[i].bases.size(); ++b) {
      os << (b ? ", " : "") << "[";
      llvm::interleaveComma(ins_[i].bases[b], os);
      os << "]";
    }
    os << "]";
  }
  os << " -> ";
  for (size_t o = 0; o < outs_.size(); ++o)
    os << (o ? ", " : "") << outs_[o].name << ": " << outs_[o].size;
  return text;
}

} // namespace tilec::tilegpu
