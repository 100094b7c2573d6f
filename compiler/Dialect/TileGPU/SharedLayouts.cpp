#include "compiler/Dialect/TileGPU/SharedLayouts.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace llvm;

namespace tilec::tilegpu {

namespace {
/// Effective bytes of one element (pointers are 8).
unsigned bytesOf(unsigned elementBytes) { return elementBytes ? elementBytes : 8; }

/// The rank of a set of GF(2) vectors, kept incrementally.
class Span {
public:
  /// Adds `v`; false when it was already in the span.
  bool add(uint64_t v) {
    v = reduce(v);
    if (!v)
      return false;
    basis_.push_back(v);
    return true;
  }
  bool contains(uint64_t v) const { return reduce(v) == 0; }
  unsigned rank() const { return basis_.size(); }

private:
  uint64_t reduce(uint64_t v) const {
    // Each basis vector is reduced against the earlier ones at its top bit.
    for (uint64_t b : basis_)
      if (v >> (63 - countl_zero(b)) & 1)
        v ^= b;
    return v;
  }
  SmallVector<uint64_t> basis_;
};

/// True when span(a) and span(b) meet only in 0.
bool disjoint(ArrayRef<uint64_t> a, ArrayRef<uint64_t> b) {
  Span sa, all;
  for (uint64_t v : a)
    sa.add(v);
  unsigned rankB = 0;
  {
    Span sb;
    for (uint64_t v : b)
      rankB += sb.add(v);
  }
  for (uint64_t v : a)
    all.add(v);
  for (uint64_t v : b)
    all.add(v);
  return all.rank() == sa.rank() + rankB;
}

/// The flat image of bit `bit` of input `in` (an index into the layout's
/// input dimensions).
uint64_t flat(const LinearLayout &l, StringRef in, unsigned bit) {
  for (unsigned i = 0; i < l.getInDims().size(); ++i)
    if (l.getInDims()[i].name == in)
      return l.flatImage(i, bit);
  return 0;
}

/// The leading register images of `l` that are independent and non-zero,
/// at most `limit` of them.
SmallVector<uint64_t> leadingRegisters(const LinearLayout &l, unsigned limit) {
  SmallVector<uint64_t> out;
  Span span;
  for (unsigned b = 0; b < l.getInDimSizeLog2(kRegister) && out.size() < limit; ++b) {
    uint64_t v = flat(l, kRegister, b);
    if (!v || !span.add(v))
      break;
    out.push_back(v);
  }
  return out;
}

/// Lane images of the lanes that share a wavefront when `l` moves
/// `accessBytes` at a time.
SmallVector<uint64_t> phaseLanes(const LinearLayout &l, unsigned accessBytes) {
  unsigned lanes = accessBytes <= 4 ? 32 : std::min(32u, 128 / accessBytes);
  SmallVector<uint64_t> out;
  for (unsigned b = 0; b < Log2_32(lanes) && b < l.getInDimSizeLog2(kLane); ++b)
    if (uint64_t v = flat(l, kLane, b))
      out.push_back(v);
  return out;
}

/// The shared layout whose offset bit i holds flat coordinates basis[i].
LinearLayout fromBasis(const LinearLayout &shape, ArrayRef<uint64_t> basis) {
  LinearLayout::InDim offset{kOffset, {}};
  for (uint64_t v : basis)
    offset.bases.push_back(shape.unflattenOut(v));
  return LinearLayout({offset}, SmallVector<LinearLayout::OutDim>(shape.getOutDims()));
}

/// A shared layout with `vector` as its lowest offset bits, and high bits
/// chosen so that the lanes of src and dst meet no bank conflict where
/// possible.
///
/// With the offset basis B (offset bit i holds coordinates B[i]), a side
/// whose registers start with the first k vectors of B moves them as one
/// access only if its other inputs stay clear of offset bits below k: the
/// span of B[k..] must be the span of its other inputs' images. Its lanes
/// of one wavefront avoid each other's banks when no two differ only in
/// offset bits below k or at and above the 128-byte row: span(B[..k] and
/// the row bits and above) must meet the span of those lanes only in 0.
LinearLayout swizzledAround(const LinearLayout &src, const LinearLayout &dst,
                            ArrayRef<uint64_t> vector, unsigned bytes) {
  unsigned n = src.getTotalOutBits();
  unsigned lineBits = std::min<unsigned>(n, Log2_32(std::max(1u, 128 / bytes)));
  struct Side {
    SmallVector<uint64_t> ownVector, lanes;
    Span others; ///< images of every input but the own vector's
  };
  SmallVector<Side> sides;
  for (const LinearLayout *l : {&src, &dst}) {
    Side side;
    SmallVector<uint64_t> regs = leadingRegisters(*l, vector.size());
    for (unsigned i = 0; i < regs.size() && regs[i] == vector[i]; ++i)
      side.ownVector.push_back(regs[i]);
    side.lanes = phaseLanes(*l, (1u << side.ownVector.size()) * bytes);
    for (const char *in : {kRegister, kLane, kWarp})
      for (unsigned b = in == StringRef(kRegister) ? side.ownVector.size() : 0;
           b < l->getInDimSizeLog2(in); ++b)
        side.others.add(flat(*l, in, b));
    sides.push_back(std::move(side));
  }
  Span used;
  for (uint64_t v : vector)
    used.add(v);
  SmallVector<uint64_t> high;
  // Keeps every vectorising side aligned.
  auto aligned = [&](uint64_t c) {
    for (const Side &side : sides)
      if (!side.ownVector.empty() && !side.others.contains(c))
        return false;
    return true;
  };
  auto conflictFree = [&](uint64_t c, unsigned numSides) {
    for (unsigned s = 0; s < numSides; ++s) {
      SmallVector<uint64_t> kernel(sides[s].ownVector);
      kernel.append(high);
      kernel.push_back(c);
      if (!disjoint(kernel, sides[s].lanes))
        return false;
    }
    return true;
  };
  // Candidates: plain coordinate bits first (no swizzle), highest first so
  // that the slow dimensions stay the high offsets; then each XORed with a
  // combination of lane images (a swizzle).
  SmallVector<uint64_t> laneSpan{0};
  for (const Side &side : sides)
    for (uint64_t lane : side.lanes) {
      unsigned size = laneSpan.size();
      for (unsigned i = 0; i < size; ++i)
        if (!llvm::is_contained(laneSpan, laneSpan[i] ^ lane))
          laneSpan.push_back(laneSpan[i] ^ lane);
    }
  auto pick = [&](llvm::function_ref<bool(uint64_t)> accept) -> std::optional<uint64_t> {
    for (uint64_t swizzle : laneSpan)
      for (int bit = int(n) - 1; bit >= 0; --bit) {
        uint64_t c = (uint64_t(1) << bit) ^ swizzle;
        if (c && !used.contains(c) && accept(c))
          return c;
      }
    return std::nullopt;
  };
  while (high.size() + lineBits < n) {
    // Both sides conflict-free, then the writer alone, then any bit that
    // keeps the vector aligned, then any bit at all.
    std::optional<uint64_t> c = pick([&](uint64_t c) { return aligned(c) && conflictFree(c, 2); });
    if (!c)
      c = pick([&](uint64_t c) { return aligned(c) && conflictFree(c, 1); });
    if (!c)
      c = pick(aligned);
    if (!c)
      c = pick([](uint64_t) { return true; });
    assert(c && "some coordinate bit is outside the span so far");
    high.push_back(*c);
    used.add(*c);
  }
  // The bits within a row complete the basis, lowest coordinate bits first,
  // keeping the vector aligned where that is possible.
  SmallVector<uint64_t> basis(vector);
  while (basis.size() + high.size() < n) {
    std::optional<uint64_t> c;
    for (unsigned bit = 0; bit < n && !c; ++bit)
      if (!used.contains(uint64_t(1) << bit) && aligned(uint64_t(1) << bit))
        c = uint64_t(1) << bit;
    if (!c)
      c = pick(aligned);
    if (!c)
      c = pick([](uint64_t) { return true; });
    assert(c && "some coordinate bit is outside the span so far");
    basis.push_back(*c);
    used.add(*c);
  }
  basis.append(high.rbegin(), high.rend());
  return fromBasis(src, basis);
}

/// The cost of one side's accesses: every instruction's wavefronts, plus
/// one per instruction for issuing it and computing its address.
uint64_t accessCost(const LinearLayout &regs, const LinearLayout &shared,
                    unsigned elementBytes) {
  std::optional<LinearLayout> toOffset = shared.invertAndCompose(regs);
  assert(toOffset && "a shared layout covers its buffer");
  unsigned vector = sharedAccessVector(*toOffset, elementBytes);
  int32_t registers = regs.getInDimSize(kRegister) >>
                      llvm::popcount(uint32_t(regs.getFreeVariableMask(kRegister)));
  uint64_t instructions = std::max<int32_t>(1, registers / vector);
  return instructions * (1 + sharedWavefronts(*toOffset, vector, elementBytes));
}
} // namespace

unsigned sharedAccessVector(const LinearLayout &toOffset, unsigned elementBytes) {
  if (!elementBytes)
    return 1; // pointers move one at a time
  unsigned bits = toOffset.getNumConsecutiveBits(kRegister, kOffset);
  // A vector must start at a multiple of its size: no other input may
  // touch its offset bits.
  int32_t others = 0;
  for (const LinearLayout::InDim &in : toOffset.getInDims())
    for (unsigned i = in.name == kRegister ? bits : 0; i < in.bases.size(); ++i)
      others |= in.bases[i][0];
  while (bits && (others & ((1 << bits) - 1)))
    --bits;
  return std::min(1u << bits, std::max(1u, 16 / elementBytes));
}

unsigned sharedWavefronts(const LinearLayout &toOffset, unsigned vector,
                          unsigned elementBytes) {
  unsigned bytes = bytesOf(elementBytes);
  unsigned access = vector * bytes;
  unsigned lanesPerPhase = access <= 4 ? 32 : std::max(1u, 128 / access);
  int32_t lanes = std::min<int32_t>(32, toOffset.getInDimSize(kLane));
  unsigned total = 0;
  for (int32_t first = 0; first < lanes; first += lanesPerPhase) {
    // Distinct 4-byte words per bank in this phase.
    DenseMap<unsigned, DenseSet<uint64_t>> words;
    for (int32_t lane = first; lane < std::min<int32_t>(lanes, first + lanesPerPhase);
         ++lane) {
      uint64_t byte = uint64_t(toOffset.applyOne(kLane, lane)[0]) * bytes;
      for (uint64_t w = byte / 4; w < (byte + std::max(access, 1u) + 3) / 4; ++w)
        words[w % 32].insert(w);
    }
    unsigned worst = 1;
    for (auto &[bank, set] : words)
      worst = std::max<unsigned>(worst, set.size());
    total += worst;
  }
  return total;
}

LinearLayout conflictFreeSharedLayout(const LinearLayout &src,
                                      const LinearLayout &dst,
                                      unsigned elementBytes,
                                      bool keepSourceVector) {
  unsigned bytes = bytesOf(elementBytes);
  unsigned maxVectorBits = elementBytes ? Log2_32(std::max(1u, 16 / bytes)) : 0;
  SmallVector<uint64_t> srcVector = leadingRegisters(src, maxVectorBits);
  SmallVector<uint64_t> dstVector = leadingRegisters(dst, maxVectorBits);
  if (keepSourceVector)
    return swizzledAround(src, dst, srcVector, bytes);
  SmallVector<uint64_t> common;
  for (unsigned i = 0; i < std::min(srcVector.size(), dstVector.size()) &&
                       srcVector[i] == dstVector[i];
       ++i)
    common.push_back(srcVector[i]);
  // Candidates: the vector both sides share, or either side's own (the
  // other side then moves narrower pieces). The cheapest wins; ties go to
  // the first.
  std::optional<LinearLayout> best;
  uint64_t bestCost = 0;
  for (ArrayRef<uint64_t> vector :
       {ArrayRef<uint64_t>(common), ArrayRef<uint64_t>(srcVector),
        ArrayRef<uint64_t>(dstVector)}) {
    LinearLayout shared = swizzledAround(src, dst, vector, bytes);
    uint64_t cost = accessCost(src, shared, elementBytes) +
                    accessCost(dst, shared, elementBytes);
    if (!best || cost < bestCost) {
      best = shared;
      bestCost = cost;
    }
  }
  return *best;
}


namespace {
/// The offset (in elements) that input bit `bit` of `dim` reaches.
int32_t offsetOf(const LinearLayout &map, StringRef dim, unsigned bit) {
  ArrayRef<LinearLayout::Image> bases = map.getBases(dim);
  return bit < bases.size() ? bases[bit][0] : -1;
}

std::optional<LinearLayout> matrixAddresses(const LinearLayout &map, bool trans) {
  if (map.getInDimSizeLog2(kRegister) < 3 || map.getInDimSizeLog2(kLane) != 5)
    return std::nullopt;
  using Bit = std::pair<const char *, unsigned>;
  SmallVector<Bit> along = {{kRegister, 0}, {kLane, 0}, {kLane, 1}};
  SmallVector<Bit> rows = {{kLane, 2}, {kLane, 3}, {kLane, 4}};
  if (trans)
    std::swap(along, rows);
  // One row: 8 consecutive elements.
  for (auto [i, bit] : llvm::enumerate(along))
    if (offsetOf(map, bit.first, bit.second) != int32_t(1) << i)
      return std::nullopt;
  // Every other bit moves whole 16-byte rows. The address layout's lanes:
  // 0-2 the row within a matrix, 3-4 the matrix (fragment registers 1-2).
  auto aligned = [](int32_t offset) { return offset % 8 == 0; };
  SmallVector<LinearLayout::Image> laneBases, registerBases, warpBases;
  for (auto [dim, bit] : rows) {
    int32_t offset = offsetOf(map, dim, bit);
    if (!aligned(offset))
      return std::nullopt;
    laneBases.push_back({offset});
  }
  ArrayRef<LinearLayout::Image> regs = map.getBases(kRegister);
  for (unsigned bit = 1; bit < regs.size(); ++bit) {
    if (!aligned(regs[bit][0]))
      return std::nullopt;
    (bit < 3 ? laneBases : registerBases).push_back(regs[bit]);
  }
  for (const LinearLayout::Image &image : map.getBases(kWarp)) {
    if (!aligned(image[0]))
      return std::nullopt;
    warpBases.push_back(image);
  }
  return LinearLayout({{kRegister, registerBases}, {kLane, laneBases}, {kWarp, warpBases}},
                      SmallVector<LinearLayout::OutDim>(map.getOutDims()));
}
} // namespace

std::optional<MatrixMove> matrixMove(const LinearLayout &toOffset) {
  for (bool trans : {false, true})
    if (std::optional<LinearLayout> addresses = matrixAddresses(toOffset, trans))
      return MatrixMove{std::move(*addresses), trans};
  return std::nullopt;
}

bool isConflictFree(const MatrixMove &move) {
  // The 16-byte slot of 128 (offset bits 3-5 of 16-bit elements) that
  // each of lanes 1, 2, 4 XORs into the row address: the eight rows are
  // in different slots exactly when the three are independent.
  ArrayRef<LinearLayout::Image> lanes = move.addresses.getBases(kLane);
  auto slot = [&](unsigned bit) { return (uint32_t(lanes[bit][0]) >> 3) & 7; };
  uint32_t a = slot(0), b = slot(1), c = slot(2);
  return a && b && c && a != b && c != a && c != b && c != (a ^ b);
}

} // namespace tilec::tilegpu
