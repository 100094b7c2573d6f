// Linear layouts: where the elements of a tile live, as a linear map over
// GF(2).
//
// A layout maps the bits of some *input* dimensions (for registers
// distributed over a CTA: "register", "lane", "warp"; for shared memory:
// "offset") to the bits of *output* dimensions (the tensor's coordinates,
// "dim0", "dim1", ...). Each input bit has an image, one integer per output
// dimension; the image of an input value is the XOR of the images of its
// set bits. Every size is a power of two.
//
// Example: the f32 accumulator of mma.sync m16n8k16 (one warp, 16x8):
//   register bit 0 -> (0, 1)    lane bit 0 -> (0, 2)   lane bit 2 -> (1, 0)
//   register bit 1 -> (8, 0)    lane bit 1 -> (0, 4)   lane bit 3 -> (2, 0)
//                                                      lane bit 4 -> (4, 0)
// so register 3 of lane 5 holds element (8, 1) ^ (1, 2) = (9, 3).
//
// An input bit whose image is zero is *free*: flipping it reaches the same
// element, so threads (or registers) that differ only in free bits hold
// copies. tilec's distributed layouts are injective up to free bits: the
// non-zero images are linearly independent, so every element has exactly
// one holder whose free bits are all zero (its *owner*).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tilec::tilegpu {

class LinearLayout {
public:
  /// One output value per output dimension.
  using Image = llvm::SmallVector<int32_t, 4>;

  struct InDim {
    std::string name;
    /// bases[i] is the image of bit i.
    llvm::SmallVector<Image> bases;
  };
  struct OutDim {
    std::string name;
    int32_t size; ///< a power of two; every image lies below it
  };

  /// The empty layout: no inputs, no outputs.
  LinearLayout() = default;
  /// Asserts that sizes are powers of two and images fit their dimension.
  LinearLayout(llvm::SmallVector<InDim> ins, llvm::SmallVector<OutDim> outs);

  /// `size` values of `in` mapped one to one onto `out`.
  static LinearLayout identity1D(int32_t size, llvm::StringRef in,
                                 llvm::StringRef out);
  /// `size` values of `in` all mapped to 0 of `out` (of size `outSize`).
  static LinearLayout zeros1D(int32_t size, llvm::StringRef in,
                              llvm::StringRef out, int32_t outSize = 1);

  //===--- Shape ----------------------------------------------------------===//
  llvm::ArrayRef<InDim> getInDims() const { return ins_; }
  llvm::ArrayRef<OutDim> getOutDims() const { return outs_; }
  bool hasInDim(llvm::StringRef name) const { return inIndex(name) >= 0; }
  bool hasOutDim(llvm::StringRef name) const { return outIndex(name) >= 0; }
  /// Bits of input dimension `name` (0 when the layout does not have it).
  unsigned getInDimSizeLog2(llvm::StringRef name) const;
  int32_t getInDimSize(llvm::StringRef name) const {
    return int32_t(1) << getInDimSizeLog2(name);
  }
  unsigned getOutDimSizeLog2(llvm::StringRef name) const;
  int32_t getOutDimSize(llvm::StringRef name) const;
  unsigned getTotalInBits() const;
  unsigned getTotalOutBits() const;
  llvm::SmallVector<int64_t> getOutDimSizes() const;
  /// The images of input dimension `name`'s bits (empty when absent).
  llvm::ArrayRef<Image> getBases(llvm::StringRef name) const;

  //===--- Evaluation -----------------------------------------------------===//
  /// The image of the given input values (input dimensions not named are
  /// 0), one value per output dimension.
  Image apply(llvm::ArrayRef<std::pair<llvm::StringRef, int32_t>> inputs) const;
  /// The image of value `value` of input dimension `in` alone.
  Image applyOne(llvm::StringRef in, int32_t value) const {
    return apply({{in, value}});
  }

  //===--- Algebra --------------------------------------------------------===//
  /// The direct sum: input dimensions of both, `rhs`'s bits above this
  /// one's where a dimension is in both; likewise for outputs, so that
  /// identity1D(4, "r", "d") * identity1D(2, "l", "d") maps r to d bits 0-1
  /// and l to d bit 2.
  LinearLayout operator*(const LinearLayout &rhs) const;
  /// `outer` after this one: this one's output dimensions must be input
  /// dimensions of `outer` (same names, sizes no larger).
  LinearLayout compose(const LinearLayout &outer) const;
  /// A right inverse of a surjective layout: a map R from the outputs back
  /// to the inputs with this(R(x)) = x for every x. Free bits are never
  /// used, and earlier input dimensions are preferred over later ones.
  /// nullopt when the layout is not surjective.
  std::optional<LinearLayout> pseudoinvert() const;
  /// For two layouts onto the same outputs, the map that sends an input of
  /// `other` to an input of this layout holding the same element: this^-1 ∘
  /// other. nullopt when this layout is not surjective.
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &other) const;

  bool isSurjective() const;
  /// True when no two inputs share an image (no free bits and independent
  /// images).
  bool isInjective() const;
  /// True when the non-zero images are linearly independent: the invariant
  /// of tilec's distributed layouts.
  bool isInjectiveUpToFreeBits() const;
  /// The bits of `in` whose image is zero.
  int32_t getFreeVariableMask(llvm::StringRef in) const;

  //===--- Reshaping ------------------------------------------------------===//
  /// Only the named dimensions (in their current order); images lose the
  /// components of dropped output dimensions.
  LinearLayout sublayout(llvm::ArrayRef<std::string> ins,
                         llvm::ArrayRef<std::string> outs) const;
  /// Without output dimension `name`: its bits are dropped from every image
  /// (bits that only reached it become free).
  LinearLayout dropOutDim(llvm::StringRef name) const;
  /// Without the bits of `in` whose image is zero.
  LinearLayout removeZeroBases(llvm::StringRef in) const;
  /// The output dimensions in the order given by `names`.
  LinearLayout transposeOuts(llvm::ArrayRef<std::string> names) const;
  /// Output dimension `name` resized to `size`: larger adds room, smaller
  /// drops the image bits at or above `size` (coordinates wrap modulo size).
  LinearLayout resizeOutDim(llvm::StringRef name, int32_t size) const;
  /// The same elements seen as a tensor of `shape` (outputs renamed dim0,
  /// dim1, ...): coordinates are flattened and refolded in row-major order,
  /// the last dimension fastest, as tl.reshape does. Every size being a
  /// power of two, this only renumbers coordinate bits. `shape` must have
  /// as many elements as the outputs.
  LinearLayout reshapeOuts(llvm::ArrayRef<int64_t> shape) const;

  /// How many of the lowest bits of `in` map, in order, onto bits 0, 1, ...
  /// of output `out` and nothing else: log2 of the longest run of
  /// consecutive values of `in` that hold consecutive coordinates along
  /// `out` (the widest vector a thread can move as one access).
  unsigned getNumConsecutiveBits(llvm::StringRef in, llvm::StringRef out) const;

  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }
  /// `register: [[0, 1], [8, 0]], lane: [...] -> dim0: 16, dim1: 8`.
  std::string toString() const;

  //===--- Flat form ------------------------------------------------------===//
  // Inputs and outputs as single bit vectors: dimension 0's bits lowest.
  /// The flat image of input bit `bit` of input dimension number `in`.
  uint64_t flatImage(unsigned in, unsigned bit) const;
  /// Bit position of output dimension number `out`'s bit 0 in flat images.
  unsigned outBitOffset(unsigned out) const;
  /// Bit position of input dimension number `in`'s bit 0 in flat inputs.
  unsigned inBitOffset(unsigned in) const;
  /// A flat output vector split back into one value per output dimension.
  Image unflattenOut(uint64_t flat) const;
  /// One value per output dimension packed into a flat output vector (a
  /// key for maps of elements).
  uint64_t flattenOut(llvm::ArrayRef<int32_t> image) const;

private:
  int inIndex(llvm::StringRef name) const;
  int outIndex(llvm::StringRef name) const;

  llvm::SmallVector<InDim> ins_;
  llvm::SmallVector<OutDim> outs_;
};

/// "dim0", "dim1", ...: the output dimension names of a tensor's layout.
std::string outDimName(unsigned d);
/// The output dimension names of a rank-`rank` tensor.
llvm::SmallVector<std::string> outDimNames(unsigned rank);

/// Input dimension names of distributed layouts and of shared memory.
constexpr const char *kRegister = "register";
constexpr const char *kLane = "lane";
constexpr const char *kWarp = "warp";
constexpr const char *kOffset = "offset";

} // namespace tilec::tilegpu
