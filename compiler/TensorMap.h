// What the compiler tells the launcher about each TMA tensor map a kernel
// takes. A tensor descriptor (tl.make_tensor_descriptor) whose base, sizes
// and strides are the kernel's own arguments can be read by the Tensor
// Memory Accelerator (cp.async.bulk.tensor); TMA reads through a 128-byte
// CUtensorMap, which only the driver can encode (cuTensorMapEncodeTiled).
// So the compiler appends one parameter per such descriptor to the kernel
// (`.param .align 64 .b8 [128]`, a grid constant) and says here how the
// launcher builds it from the launch's arguments; the launcher encodes it
// once per distinct set of values and passes it after every other
// parameter (the user's arguments, then a debug compile's extents).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

struct TensorMapSpec {
  /// One of the tensor's sizes or strides: the value of kernel argument
  /// `arg` (an index into the launch's arguments, an integer), or, when
  /// `arg` is negative, `value` (known when compiling: a constant, a
  /// constexpr or an argument specialised `:1`).
  struct Operand {
    int arg = -1;
    int64_t value = 0;

    static Operand argument(int index) {
      Operand o;
      o.arg = index;
      return o;
    }
    static Operand constant(int64_t value) {
      Operand o;
      o.value = value;
      return o;
    }
  };
  /// The kernel argument holding the tensor's address (a pointer; its
  /// specialisation guarantees 16-byte alignment).
  int base = 0;
  /// Elements, outermost dimension first (as the kernel writes them).
  std::vector<Operand> sizes;
  /// Elements, outermost dimension first; the last is always 1.
  std::vector<Operand> strides;
  /// The box one copy moves, elements, outermost first. Its innermost
  /// extent times elementBytes is at most swizzleBytes when that is not 0.
  std::vector<uint32_t> box;
  /// CUtensorMapDataType of the elements (CU_TENSOR_MAP_DATA_TYPE_*).
  unsigned dataType = 0;
  unsigned elementBytes = 0;
  /// 0 (no swizzle), 32, 64 or 128: CU_TENSOR_MAP_SWIZZLE_*B, the
  /// shared-memory layout the copies write (#tilegpu.nvmma_shared).
  unsigned swizzleBytes = 0;
  /// Out-of-bounds elements read as NaN
  /// (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) instead of zero.
  bool nanFill = false;

  bool operator==(const TensorMapSpec &o) const;
  /// One line, for caches and `--emit summary`:
  /// "base=0 sizes=[a1,a2] strides=[a3,1] box=[128,64] type=6 bytes=2
  ///  swizzle=128 fill=zero" (an argument as aN, a constant as its value).
  std::string str() const;
  /// The inverse of str(); false when `text` is not one.
  static bool parse(const std::string &text, TensorMapSpec &out);
};

/// The bytes of one encoded tensor map (sizeof(CUtensorMap)).
constexpr unsigned kTensorMapBytes = 128;

/// How TMA fills a shared buffer with a 2-D block of `rows` x `cols`
/// elements of `elementBits`: in columns of `swizzleBytes` (128-, 64- or
/// 32-byte swizzles, each column a copy of a `boxRows` x `boxCols` box,
/// the columns one after the other: #tilegpu.nvmma_shared), or, with
/// `swizzleBytes` 0, as plain rows in one copy.
struct TMABlockLayout {
  unsigned swizzleBytes = 0;
  uint32_t boxRows = 0, boxCols = 0;
  unsigned copies = 1;
};

/// The layout TMA writes a block of this shape in: swizzled with the
/// widest swizzle its rows fill when they are 32 bytes or longer and the
/// rows come in whole 8-row patterns, else unswizzled. False when TMA
/// cannot copy it: rows not whole multiples of 16 bytes, or more than 256
/// rows or box columns.
bool tmaBlockLayout(int64_t rows, int64_t cols, unsigned elementBits, TMABlockLayout &out);

} // namespace tilec
