// The CPU interpreter of tile-dialect IR (runtime/Interpreter.h).
//
// Every SSA value is a Tensor: a row-major array of elements with a shape
// (empty for a scalar). Integers are kept sign-extended from their width in
// int64_t, floats as the double holding their exact value, pointers as
// (argument index, byte offset). An op never throws through MLIR code: the
// walk over blocks is ours, and InterpreterError propagates through our
// frames only.
#include "runtime/Interpreter.h"
#include "runtime/InterpreterDot.h"

#include "compiler/Dialect/Tile/PrintFormat.h"
#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/RenderLocation.h"
#include "compiler/StackSpace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

using namespace mlir;

namespace tilec::interp {

//===----------------------------------------------------------------------===//
// Public helpers
//===----------------------------------------------------------------------===//

Arg Arg::ofBuffer(void *data, size_t bytes, std::string name) {
  Arg a;
  a.kind = Kind::Buffer;
  a.buffer = {data, bytes};
  a.name = std::move(name);
  return a;
}
Arg Arg::ofInt(int64_t value, std::string name) {
  Arg a;
  a.kind = Kind::Int;
  a.intValue = value;
  a.name = std::move(name);
  return a;
}
Arg Arg::ofFloat(double value, std::string name) {
  Arg a;
  a.kind = Kind::Float;
  a.floatValue = value;
  a.name = std::move(name);
  return a;
}

namespace {
std::string renderError(const std::string &location, const std::string &message,
                        const std::string &kernel, bool inProgram,
                        std::array<uint32_t, 3> p) {
  std::string text = location.empty() ? "" : location + ": ";
  text += "error: " + message;
  if (inProgram)
    text += " in program (" + std::to_string(p[0]) + ", " +
            std::to_string(p[1]) + ", " + std::to_string(p[2]) + ") of kernel '" +
            kernel + "'";
  else if (!kernel.empty())
    text += " (kernel '" + kernel + "')";
  return text;
}
} // namespace

InterpreterError::InterpreterError(const std::string &location,
                                   const std::string &message,
                                   const std::string &kernel, bool inProgram,
                                   std::array<uint32_t, 3> program)
    : std::runtime_error(
          renderError(location, message, kernel, inProgram, program)),
      location_(location), message_(message), kernel_(kernel),
      inProgram_(inProgram), program_(program) {}

namespace {

/// Round `x` to a binary format with `precision` significand bits (the
/// implicit one included) and exponents [emin, emax], to nearest even;
/// subnormals are kept, too large a result becomes infinity.
double roundToFormat(double x, int precision, int emin, int emax) {
  if (!std::isfinite(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e); // |x| = m * 2^e, m in [0.5, 1)
  int quantum = std::max(e - 1, emin) - (precision - 1);
  double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
  double maxFinite =
      std::ldexp(2.0 - std::ldexp(1.0, 1 - precision), emax);
  if (std::fabs(r) > maxFinite)
    return std::copysign(INFINITY, x);
  return r;
}
double roundHalf(double x) { return roundToFormat(x, 11, -14, 15); }
double roundBF16(double x) { return roundToFormat(x, 8, -126, 127); }

/// The two fp8 formats: significand bits (implicit one included), the
/// smallest normal exponent and the largest finite value. e4m3 spends its
/// all-ones pattern on NaN and has no infinity, so its largest value is
/// 1.75 * 2^8 rather than 1.875 * 2^8.
struct FP8Format {
  int precision, emin;
  double maxFinite;
  int bias() const { return 1 - emin; }
};
constexpr FP8Format kE4M3{4, -6, 448.0}, kE5M2{3, -14, 57344.0};

uint64_t doubleBits(double x) {
  uint64_t d;
  std::memcpy(&d, &x, 8);
  return d;
}
double bitsDouble(uint64_t d) {
  double x;
  std::memcpy(&x, &d, 8);
  return x;
}

/// The NaN an fp8 NaN with `sign` and 2-bit `payload` decodes to: the
/// payload in the top bits of the double's, so that a copy (a load and a
/// store, a select) keeps the byte. e4m3's only NaN pattern has payload 3.
double fp8NaN(bool sign, unsigned payload) {
  return bitsDouble((uint64_t(sign) << 63) | (0x7ffull << 52) |
                    (uint64_t(payload & 3) << 50));
}

/// `x` rounded to an fp8 format as the GPU's cvt.rn.satfinite does: to
/// nearest even, anything beyond the largest finite value (infinities too)
/// clamped to it, NaN to the canonical NaN (0x7f).
double roundFP8(double x, const FP8Format &f) {
  if (std::isnan(x))
    return fp8NaN(false, 3);
  double r = std::isinf(x) ? x : roundToFormat(x, f.precision, f.emin, 1024);
  if (std::fabs(r) > f.maxFinite)
    return std::copysign(f.maxFinite, x);
  return r;
}

/// The code of `value`, exactly when the format holds it (a stored or
/// copied value always is: e5m2's infinities, NaNs with their sign and
/// payload); other values round as a conversion does.
uint8_t toFP8Bits(double value, const FP8Format &f) {
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  bool isE4M3 = f.precision == 4;
  if (std::isnan(value)) {
    if (isE4M3)
      return sign | 0x7f;
    unsigned payload = unsigned(doubleBits(value) >> 50) & 3;
    return uint8_t(sign | 0x7c | (payload ? payload : 2));
  }
  if (std::isinf(value) && !isE4M3)
    return sign | 0x7c;
  double a = std::fabs(roundFP8(value, f));
  int mantissaBits = f.precision - 1;
  if (a < std::ldexp(1.0, f.emin)) // zero or subnormal
    return uint8_t(sign | uint8_t(std::ldexp(a, mantissaBits - f.emin)));
  int e;
  double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  return uint8_t(sign | ((e - 1 + f.bias()) << mantissaBits) |
                 uint8_t(std::ldexp(m * 2 - 1, mantissaBits)));
}

double fromFP8Bits(uint8_t bits, const FP8Format &f) {
  bool negative = bits & 0x80;
  int mantissaBits = f.precision - 1;
  int exp = (bits & 0x7f) >> mantissaBits, mant = bits & ((1 << mantissaBits) - 1);
  int maxExp = (1 << (7 - mantissaBits)) - 1;
  bool isE4M3 = f.precision == 4;
  double v;
  if (exp == maxExp && (isE4M3 ? mant == 7 : true)) {
    if (isE4M3 || mant)
      return fp8NaN(negative, isE4M3 ? 3 : unsigned(mant));
    v = INFINITY; // e5m2's infinity
  } else if (exp == 0) {
    v = std::ldexp(double(mant), f.emin - mantissaBits);
  } else {
    v = std::ldexp(double(mant | (1 << mantissaBits)), exp - f.bias() - mantissaBits);
  }
  return negative ? -v : v;
}
} // namespace

uint16_t toHalfBits(double value) {
  uint64_t d = doubleBits(value);
  uint16_t sign = uint16_t((d >> 48) & 0x8000);
  if (std::isnan(value)) // quiet, with the leading payload bits
    return uint16_t(sign | 0x7e00 | ((d >> 42) & 0x3ff));
  double a = std::fabs(roundHalf(value));
  if (std::isinf(a))
    return uint16_t(sign | 0x7c00);
  if (a < 0x1p-14) // zero or subnormal: a multiple of 2^-24
    return uint16_t(sign | uint16_t(a * 0x1p24));
  int e;
  double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  return uint16_t(sign | ((e - 1 + 15) << 10) | uint16_t((m * 2 - 1) * 1024));
}

double fromHalfBits(uint16_t bits) {
  bool negative = bits & 0x8000;
  int exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  double v;
  if (exp == 31) {
    if (mant)
      return bitsDouble((uint64_t(negative) << 63) | (0x7ffull << 52) |
                        (1ull << 51) | (uint64_t(mant) << 42));
    v = INFINITY;
  } else if (exp == 0) {
    v = std::ldexp(double(mant), -24);
  } else {
    v = std::ldexp(double(mant | 0x400), exp - 25);
  }
  return negative ? -v : v;
}

uint16_t toBFloat16Bits(double value) {
  uint64_t d = doubleBits(value);
  uint16_t sign = uint16_t((d >> 48) & 0x8000);
  if (std::isnan(value))
    return uint16_t(sign | 0x7fc0 | ((d >> 45) & 0x7f));
  float f = float(roundBF16(value)); // exact: the low 16 bits are zero
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t(x >> 16);
}

uint8_t toFP8E4M3Bits(double value) { return toFP8Bits(value, kE4M3); }
double fromFP8E4M3Bits(uint8_t bits) { return fromFP8Bits(bits, kE4M3); }
uint8_t toFP8E5M2Bits(double value) { return toFP8Bits(value, kE5M2); }
double fromFP8E5M2Bits(uint8_t bits) { return fromFP8Bits(bits, kE5M2); }

double fromBFloat16Bits(uint16_t bits) {
  uint32_t x = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return double(f);
}

namespace {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

enum class Kind : uint8_t { Int, Float, Ptr };
enum class Fmt : uint8_t { F8E4M3, F8E5M2, F16, BF16, F32, F64 };

/// An element type: integers of `bits`, floats of `fmt`, pointers.
struct Elem {
  Kind kind = Kind::Int;
  unsigned bits = 32;
  Fmt fmt = Fmt::F32;
};

using Shape = llvm::SmallVector<int64_t, 4>;

struct Tensor {
  Elem elem;
  Shape shape;               ///< empty for a scalar
  std::vector<int64_t> i;    ///< Int: sign-extended value; Ptr: byte offset
  std::vector<double> f;     ///< Float: the exact value
  std::vector<int32_t> buf;  ///< Ptr: argument index

  size_t size() const { return elem.kind == Kind::Float ? f.size() : i.size(); }
};
using TensorRef = std::shared_ptr<const Tensor>;

Tensor makeTensor(Elem elem, const Shape &shape, size_t n) {
  Tensor t;
  t.elem = elem;
  t.shape = shape;
  if (elem.kind == Kind::Float)
    t.f.resize(n);
  else
    t.i.resize(n);
  if (elem.kind == Kind::Ptr)
    t.buf.resize(n);
  return t;
}

inline void copyElem(Tensor &dst, size_t d, const Tensor &src, size_t s) {
  switch (dst.elem.kind) {
  case Kind::Float:
    dst.f[d] = src.f[s];
    break;
  case Kind::Ptr:
    dst.buf[d] = src.buf[s];
    [[fallthrough]];
  case Kind::Int:
    dst.i[d] = src.i[s];
    break;
  }
}

/// A tensor of `shape` (n elements) read from `a` in row-major order,
/// result dimension d stepping `a`'s flat index by `strides[d]` (0 to
/// repeat, a permuted stride to transpose).
Tensor stridedCopy(const Tensor &a, const Shape &shape,
                   llvm::ArrayRef<size_t> strides, size_t n) {
  size_t rank = shape.size();
  Tensor r = makeTensor(a.elem, shape, n);
  llvm::SmallVector<int64_t, 4> counter(rank, 0);
  size_t src = 0;
  for (size_t k = 0; k < n; ++k) {
    copyElem(r, k, a, src);
    for (size_t d = rank; d-- > 0;) {
      src += strides[d];
      if (++counter[d] < shape[d])
        break;
      src -= strides[d] * size_t(shape[d]);
      counter[d] = 0;
    }
  }
  return r;
}

/// `v` sign-extended from its low `bits`.
inline int64_t wrapInt(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  unsigned s = 64 - bits;
  return int64_t(v << s) >> s;
}
/// The low `bits` of `v`, zero-extended.
inline uint64_t zext(int64_t v, unsigned bits) {
  return bits >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << bits) - 1);
}

inline double roundTo(double x, Fmt fmt) {
  switch (fmt) {
  case Fmt::F64:
    return x;
  case Fmt::F32:
    return double(float(x));
  case Fmt::F16:
    return roundHalf(x);
  case Fmt::BF16:
    return roundBF16(x);
  case Fmt::F8E4M3:
    return roundFP8(x, kE4M3);
  case Fmt::F8E5M2:
    return roundFP8(x, kE5M2);
  }
  return x;
}

/// `f` applied in `fmt`'s precision: f32 in float, f64 in double, f16 and
/// bf16 in float rounded to the format (for + - * / and sqrt the float
/// result rounds to the same value as the exact one would).
template <typename F, typename... D>
inline double evalFloat(Fmt fmt, F f, D... x) {
  switch (fmt) {
  case Fmt::F64:
    return double(f(double(x)...));
  case Fmt::F32:
    return double(float(f(float(x)...)));
  case Fmt::F16:
    return roundHalf(double(float(f(float(x)...))));
  case Fmt::BF16:
    return roundBF16(double(float(f(float(x)...))));
  case Fmt::F8E4M3: // fp32 holds the exact result to well past 2p + 2 bits,
  case Fmt::F8E5M2: // so rounding it again to fp8 is correct rounding
    return roundTo(double(float(f(float(x)...))), fmt);
  }
  return 0;
}

uint64_t floatToBits(double x, Fmt fmt) {
  switch (fmt) {
  case Fmt::F64:
    return doubleBits(x);
  case Fmt::F32: {
    float f = float(x);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  case Fmt::F16:
    return toHalfBits(x);
  case Fmt::BF16:
    return toBFloat16Bits(x);
  case Fmt::F8E4M3:
    return toFP8E4M3Bits(x);
  case Fmt::F8E5M2:
    return toFP8E5M2Bits(x);
  }
  return 0;
}

double bitsToFloat(uint64_t bits, Fmt fmt) {
  switch (fmt) {
  case Fmt::F64:
    return bitsDouble(bits);
  case Fmt::F32: {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return double(f);
  }
  case Fmt::F16:
    return fromHalfBits(uint16_t(bits));
  case Fmt::BF16:
    return fromBFloat16Bits(uint16_t(bits));
  case Fmt::F8E4M3:
    return fromFP8E4M3Bits(uint8_t(bits));
  case Fmt::F8E5M2:
    return fromFP8E5M2Bits(uint8_t(bits));
  }
  return 0;
}

std::string typeString(Type t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  t.print(os);
  return text;
}

/// The coordinates of row-major element `flat` of `shape`.
llvm::SmallVector<int64_t, 4> coordinates(size_t flat, const Shape &shape) {
  llvm::SmallVector<int64_t, 4> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = int64_t(flat % size_t(shape[d]));
    flat /= size_t(shape[d]);
  }
  return idx;
}

std::string indexString(size_t flat, const Shape &shape) {
  llvm::SmallVector<int64_t, 4> idx = coordinates(flat, shape);
  std::string text = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    text += (d ? ", " : "") + std::to_string(idx[d]);
  return text + "]";
}

//===----------------------------------------------------------------------===//
// The machine
//===----------------------------------------------------------------------===//

class Machine {
public:
  Machine(func::FuncOp fn, const std::string &kernel, Grid grid,
          const std::vector<Arg> &args, const RunLimits &limits,
          const PrintSink &print)
      : fn_(fn), kernel_(kernel), grid_(grid), args_(args), limits_(limits),
        print_(print) {}

  RunStats run();

private:
  [[noreturn]] void failAt(Location loc, const std::string &message) {
    throw InterpreterError(renderLocation(loc), message, kernel_, inProgram_,
                           pid_);
  }
  [[noreturn]] void fail(Operation *op, const std::string &message) {
    failAt(op->getLoc(), message);
  }
  [[noreturn]] void unsupported(Operation *op) {
    std::string name = op->getName().getStringRef().str();
    std::string hint = isa<func::CallOp>(op)
                           ? " (run buildTileOptimizationPipeline first: it "
                             "inlines helpers)"
                           : "";
    fail(op, "the interpreter does not support '" + name + "'" + hint);
  }

  Elem elemOf(Operation *op, Type t);
  Shape shapeOf(Type t) {
    if (auto ranked = dyn_cast<RankedTensorType>(t))
      return Shape(ranked.getShape().begin(), ranked.getShape().end());
    return {};
  }
  Elem resultElem(Operation *op, unsigned index = 0) {
    return elemOf(op, tile::getElementTypeOrSelf(op->getResult(index).getType()));
  }

  const TensorRef &ref(Operation *op, Value v) {
    auto it = env_.find(v);
    if (it == env_.end())
      fail(op, "internal error: an operand has no value");
    return it->second;
  }
  const Tensor &in(Operation *op, Value v) { return *ref(op, v); }
  const Tensor &operand(Operation *op, unsigned i) {
    return in(op, op->getOperand(i));
  }
  void set(Value v, Tensor &&t) {
    env_[v] = std::make_shared<const Tensor>(std::move(t));
  }
  void set(Value v, TensorRef t) { env_[v] = std::move(t); }

  std::string argName(size_t i) const {
    return args_[i].name.empty() ? "argument " + std::to_string(i + 1)
                                 : args_[i].name;
  }

  void bindArguments(std::vector<TensorRef> &values);
  void runBlock(Block &block, llvm::SmallVectorImpl<TensorRef> &yielded);
  void exec(Operation &op);

  // Elementwise helpers: operands are all of one lane count, or single
  // values (scalars, and constants inside a vectorised combiner) that are
  // used for every lane.
  struct Lanes {
    size_t n;
    Shape shape;
  };
  Lanes lanes(Operation *op, std::initializer_list<const Tensor *> operands);
  static size_t stride(const Tensor &t, size_t n) { return t.size() == n ? 1 : 0; }
  void expectKind(Operation *op, const Tensor &t, Kind kind);

  template <typename F> void intBinary(Operation *op, F f);
  template <typename F> void floatBinary(Operation *op, F f);
  template <typename F> void floatUnary(Operation *op, F f);
  void cmpi(arith::CmpIOp op);
  void cmpf(arith::CmpFOp op);
  void select(arith::SelectOp op);
  void constant(arith::ConstantOp op);
  void cast(Operation *op);
  void fma(math::FmaOp op);
  void dot(tile::DotOp op);
  void absi(math::AbsIOp op);
  /// math.isnan / math.isinf: an i1 per element.
  template <typename F> void floatTest(Operation *op, F test);
  /// math.ctlz / math.ctpop, counted in the operand's width.
  void countBits(Operation *op, bool leadingZeros);
  void assertOp(tile::AssertOp op);
  void printOp(tile::PrintOp op);
  /// The texts of "pid (X, Y, Z)" (print::programIdFormat's values).
  void programIdTexts(std::vector<std::string> &texts) const;

  void makeRange(tile::MakeRangeOp op);
  void splat(tile::SplatOp op);
  void broadcast(tile::BroadcastOp op);
  void trans(tile::TransOp op);
  void join(tile::JoinOp op);
  void gather(tile::GatherOp op);
  void histogram(tile::HistogramOp op);
  void addptr(tile::AddPtrOp op);
  void load(tile::LoadOp op);
  void prefetchL2(tile::PrefetchL2Op op);
  void store(tile::StoreOp op);
  void atomicRMW(tile::AtomicRMWOp op);
  void atomicCAS(tile::AtomicCASOp op);
  /// The old value at lane `k` of an atomic's pointer `p` as an element of
  /// `r`, after writing `update(old bits)` there; nothing for lanes `mask`
  /// turns off (their result is 0).
  void atomicLanes(Operation *op, const Tensor &p, const Tensor *mask, Tensor &r,
                   llvm::function_ref<uint64_t(size_t k, uint64_t old)> update);
  void reduce(tile::ReduceOp op);
  void scan(tile::ScanOp op);
  void combine(Operation *op, Block &body, bool vectorised, std::vector<Tensor> &a,
               std::vector<Tensor> &b, std::vector<Tensor> &out);
  void forOp(scf::ForOp op);
  void ifOp(scf::IfOp op);
  void whileOp(scf::WhileOp op);

  /// Check the access of `bytes` at lane `k` of pointer `p`; return the host
  /// address.
  uint8_t *address(Operation *op, const char *what, const Tensor &p, size_t k,
                   unsigned bytes);

  func::FuncOp fn_;
  std::string kernel_;
  Grid grid_;
  const std::vector<Arg> &args_;
  RunLimits limits_;
  const PrintSink &print_;
  std::array<uint32_t, 3> pid_{0, 0, 0};
  /// Programs per cluster along axis 0 (tile.num_ctas of the kernel's
  /// warp-specialised loop, as the GPU launches it on sm_90a), else 1.
  uint32_t clusterSize_ = 1;
  bool inProgram_ = false;
  llvm::DenseMap<Value, TensorRef> env_;
  RunStats stats_;
};

/// The interpreter's format of a float type, nullopt for others.
std::optional<Fmt> floatFormat(Type t) {
  if (isa<Float8E4M3FNType>(t)) return Fmt::F8E4M3;
  if (isa<Float8E5M2Type>(t)) return Fmt::F8E5M2;
  if (isa<Float16Type>(t)) return Fmt::F16;
  if (isa<BFloat16Type>(t)) return Fmt::BF16;
  if (isa<Float32Type>(t)) return Fmt::F32;
  if (isa<Float64Type>(t)) return Fmt::F64;
  return std::nullopt;
}

Elem Machine::elemOf(Operation *op, Type t) {
  Elem e;
  if (auto it = dyn_cast<IntegerType>(t)) {
    e.kind = Kind::Int;
    e.bits = it.getWidth();
    if (e.bits == 0 || e.bits > 64)
      fail(op, "the interpreter does not support values of type '" +
                   typeString(t) + "'");
  } else if (isa<IndexType>(t)) {
    e.kind = Kind::Int;
    e.bits = 64;
  } else if (std::optional<Fmt> fmt = floatFormat(t)) {
    e.kind = Kind::Float;
    e.fmt = *fmt;
    e.bits = t.getIntOrFloatBitWidth();
  } else if (isa<tile::PointerType>(t)) {
    e.kind = Kind::Ptr;
    e.bits = 64;
  } else {
    fail(op, "the interpreter does not support values of type '" +
                 typeString(t) + "'");
  }
  return e;
}

Machine::Lanes Machine::lanes(Operation *op,
                              std::initializer_list<const Tensor *> operands) {
  const Tensor *widest = *operands.begin();
  for (const Tensor *t : operands)
    if (t->size() > widest->size())
      widest = t;
  size_t n = widest->size();
  for (const Tensor *t : operands)
    if (t->size() != n && t->size() != 1)
      fail(op, "internal error: operands of different shapes");
  return {n, widest->shape};
}

void Machine::expectKind(Operation *op, const Tensor &t, Kind kind) {
  if (t.elem.kind != kind)
    fail(op, std::string("internal error: expected ") +
                 (kind == Kind::Int     ? "integer"
                  : kind == Kind::Float ? "float"
                                        : "pointer") +
                 " operands");
}

//===----------------------------------------------------------------------===//
// arith and math
//===----------------------------------------------------------------------===//

template <typename F> void Machine::intBinary(Operation *op, F f) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1);
  expectKind(op, a, Kind::Int);
  expectKind(op, b, Kind::Int);
  Elem e = resultElem(op);
  Lanes l = lanes(op, {&a, &b});
  Tensor r = makeTensor(e, l.shape, l.n);
  size_t sa = stride(a, l.n), sb = stride(b, l.n);
  unsigned bits = e.bits;
  for (size_t k = 0; k < l.n; ++k)
    r.i[k] = wrapInt(uint64_t(f(a.i[k * sa], b.i[k * sb], bits)), bits);
  set(op->getResult(0), std::move(r));
}

template <typename F> void Machine::floatBinary(Operation *op, F f) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1);
  expectKind(op, a, Kind::Float);
  expectKind(op, b, Kind::Float);
  Elem e = resultElem(op);
  Lanes l = lanes(op, {&a, &b});
  Tensor r = makeTensor(e, l.shape, l.n);
  size_t sa = stride(a, l.n), sb = stride(b, l.n);
  for (size_t k = 0; k < l.n; ++k)
    r.f[k] = evalFloat(e.fmt, f, a.f[k * sa], b.f[k * sb]);
  set(op->getResult(0), std::move(r));
}

template <typename F> void Machine::floatUnary(Operation *op, F f) {
  const Tensor &a = operand(op, 0);
  expectKind(op, a, Kind::Float);
  Elem e = resultElem(op);
  Tensor r = makeTensor(e, a.shape, a.size());
  for (size_t k = 0; k < a.size(); ++k)
    r.f[k] = evalFloat(e.fmt, f, a.f[k]);
  set(op->getResult(0), std::move(r));
}

void Machine::fma(math::FmaOp op) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1), &c = operand(op, 2);
  for (const Tensor *t : {&a, &b, &c})
    expectKind(op, *t, Kind::Float);
  Elem e = resultElem(op);
  Lanes l = lanes(op, {&a, &b, &c});
  Tensor r = makeTensor(e, l.shape, l.n);
  size_t sa = stride(a, l.n), sb = stride(b, l.n), sc = stride(c, l.n);
  for (size_t k = 0; k < l.n; ++k)
    r.f[k] = evalFloat(
        e.fmt, [](auto x, auto y, auto z) { return std::fma(x, y, z); },
        a.f[k * sa], b.f[k * sb], c.f[k * sc]);
  set(op.getResult(), std::move(r));
}

void Machine::absi(math::AbsIOp op) {
  const Tensor &a = operand(op, 0);
  expectKind(op, a, Kind::Int);
  Elem e = resultElem(op);
  Tensor r = makeTensor(e, a.shape, a.size());
  for (size_t k = 0; k < a.size(); ++k)
    r.i[k] = wrapInt(a.i[k] < 0 ? 0 - uint64_t(a.i[k]) : uint64_t(a.i[k]), e.bits);
  set(op.getResult(), std::move(r));
}

template <typename F> void Machine::floatTest(Operation *op, F test) {
  const Tensor &a = operand(op, 0);
  expectKind(op, a, Kind::Float);
  Tensor r = makeTensor(Elem{Kind::Int, 1}, a.shape, a.size());
  for (size_t k = 0; k < a.size(); ++k)
    r.i[k] = test(a.f[k]) ? 1 : 0;
  set(op->getResult(0), std::move(r));
}

void Machine::countBits(Operation *op, bool leadingZeros) {
  const Tensor &a = operand(op, 0);
  expectKind(op, a, Kind::Int);
  Elem e = resultElem(op);
  Tensor r = makeTensor(e, a.shape, a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    uint64_t v = zext(a.i[k], e.bits);
    int64_t n = 0;
    if (leadingZeros)
      n = v == 0 ? e.bits : __builtin_clzll(v) - (64 - int64_t(e.bits));
    else
      n = __builtin_popcountll(v);
    r.i[k] = wrapInt(uint64_t(n), e.bits);
  }
  set(op->getResult(0), std::move(r));
}

void Machine::cmpi(arith::CmpIOp op) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1);
  expectKind(op, a, Kind::Int);
  expectKind(op, b, Kind::Int);
  Lanes l = lanes(op, {&a, &b});
  Tensor r = makeTensor(Elem{Kind::Int, 1}, l.shape, l.n);
  size_t sa = stride(a, l.n), sb = stride(b, l.n);
  unsigned bits = a.elem.bits;
  auto loop = [&](auto pred) {
    for (size_t k = 0; k < l.n; ++k)
      r.i[k] = pred(a.i[k * sa], b.i[k * sb]) ? -1 : 0;
  };
  auto u = [bits](int64_t v) { return zext(v, bits); };
  using P = arith::CmpIPredicate;
  switch (op.getPredicate()) {
  case P::eq: loop([](int64_t x, int64_t y) { return x == y; }); break;
  case P::ne: loop([](int64_t x, int64_t y) { return x != y; }); break;
  case P::slt: loop([](int64_t x, int64_t y) { return x < y; }); break;
  case P::sle: loop([](int64_t x, int64_t y) { return x <= y; }); break;
  case P::sgt: loop([](int64_t x, int64_t y) { return x > y; }); break;
  case P::sge: loop([](int64_t x, int64_t y) { return x >= y; }); break;
  case P::ult: loop([&](int64_t x, int64_t y) { return u(x) < u(y); }); break;
  case P::ule: loop([&](int64_t x, int64_t y) { return u(x) <= u(y); }); break;
  case P::ugt: loop([&](int64_t x, int64_t y) { return u(x) > u(y); }); break;
  case P::uge: loop([&](int64_t x, int64_t y) { return u(x) >= u(y); }); break;
  }
  set(op.getResult(), std::move(r));
}

void Machine::cmpf(arith::CmpFOp op) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1);
  expectKind(op, a, Kind::Float);
  expectKind(op, b, Kind::Float);
  Lanes l = lanes(op, {&a, &b});
  Tensor r = makeTensor(Elem{Kind::Int, 1}, l.shape, l.n);
  size_t sa = stride(a, l.n), sb = stride(b, l.n);
  // Values are exact in double, so comparing doubles compares the formats.
  auto loop = [&](auto pred) {
    for (size_t k = 0; k < l.n; ++k)
      r.i[k] = pred(a.f[k * sa], b.f[k * sb]) ? -1 : 0;
  };
  auto uno = [](double x, double y) { return std::isnan(x) || std::isnan(y); };
  using P = arith::CmpFPredicate;
  switch (op.getPredicate()) {
  case P::AlwaysFalse: loop([](double, double) { return false; }); break;
  case P::AlwaysTrue: loop([](double, double) { return true; }); break;
  case P::OEQ: loop([](double x, double y) { return x == y; }); break;
  case P::OGT: loop([](double x, double y) { return x > y; }); break;
  case P::OGE: loop([](double x, double y) { return x >= y; }); break;
  case P::OLT: loop([](double x, double y) { return x < y; }); break;
  case P::OLE: loop([](double x, double y) { return x <= y; }); break;
  case P::ONE: loop([&](double x, double y) { return !uno(x, y) && x != y; }); break;
  case P::ORD: loop([&](double x, double y) { return !uno(x, y); }); break;
  case P::UEQ: loop([&](double x, double y) { return uno(x, y) || x == y; }); break;
  case P::UGT: loop([&](double x, double y) { return uno(x, y) || x > y; }); break;
  case P::UGE: loop([&](double x, double y) { return uno(x, y) || x >= y; }); break;
  case P::ULT: loop([&](double x, double y) { return uno(x, y) || x < y; }); break;
  case P::ULE: loop([&](double x, double y) { return uno(x, y) || x <= y; }); break;
  case P::UNE: loop([](double x, double y) { return x != y; }); break;
  case P::UNO: loop(uno); break;
  }
  set(op.getResult(), std::move(r));
}

void Machine::select(arith::SelectOp op) {
  const Tensor &c = operand(op, 0), &a = operand(op, 1), &b = operand(op, 2);
  expectKind(op, c, Kind::Int);
  Elem e = resultElem(op);
  if (a.elem.kind != e.kind || b.elem.kind != e.kind)
    fail(op, "internal error: select of mismatched operands");
  Lanes l = lanes(op, {&c, &a, &b});
  Tensor r = makeTensor(e, l.shape, l.n);
  size_t sc = stride(c, l.n), sa = stride(a, l.n), sb = stride(b, l.n);
  for (size_t k = 0; k < l.n; ++k) {
    if (c.i[k * sc])
      copyElem(r, k, a, k * sa);
    else
      copyElem(r, k, b, k * sb);
  }
  set(op.getResult(), std::move(r));
}

void Machine::constant(arith::ConstantOp op) {
  Type type = op.getType();
  Elem e = resultElem(op);
  Shape shape = shapeOf(type);
  Attribute value = op.getValue();
  auto toDouble = [](APFloat f) {
    bool losesInfo;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    return f.convertToDouble();
  };
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (e.kind != Kind::Int)
      fail(op, "internal error: integer constant of a non-integer type");
    Tensor r = makeTensor(e, shape, 1);
    r.i[0] = wrapInt(i.getValue().getZExtValue(), e.bits);
    return set(op.getResult(), std::move(r));
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    if (e.kind != Kind::Float)
      fail(op, "internal error: float constant of a non-float type");
    Tensor r = makeTensor(e, shape, 1);
    r.f[0] = roundTo(toDouble(f.getValue()), e.fmt);
    return set(op.getResult(), std::move(r));
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || e.kind == Kind::Ptr)
    fail(op, "the interpreter does not support this constant");
  size_t n = size_t(dense.getNumElements());
  Tensor r = makeTensor(e, shape, n);
  if (e.kind == Kind::Int) {
    if (dense.isSplat()) {
      int64_t v = wrapInt(dense.getSplatValue<APInt>().getZExtValue(), e.bits);
      std::fill(r.i.begin(), r.i.end(), v);
    } else {
      size_t k = 0;
      for (const APInt &v : dense.getValues<APInt>())
        r.i[k++] = wrapInt(v.getZExtValue(), e.bits);
    }
  } else {
    if (dense.isSplat()) {
      double v = roundTo(toDouble(dense.getSplatValue<APFloat>()), e.fmt);
      std::fill(r.f.begin(), r.f.end(), v);
    } else {
      size_t k = 0;
      for (const APFloat &v : dense.getValues<APFloat>())
        r.f[k++] = roundTo(toDouble(v), e.fmt);
    }
  }
  set(op.getResult(), std::move(r));
}

/// fptosi/fptoui: toward zero, saturating at the type's range, NaN → 0
/// (what PTX's cvt.rzi does; MLIR leaves these cases undefined).
int64_t floatToInt(double x, unsigned bits, bool isSigned) {
  if (std::isnan(x))
    return 0;
  double t = std::trunc(x);
  if (isSigned) {
    double limit = std::ldexp(1.0, int(bits) - 1);
    if (t >= limit)
      return wrapInt((uint64_t(1) << (bits - 1)) - 1, bits);
    if (t < -limit)
      return wrapInt(uint64_t(1) << (bits - 1), bits);
    return int64_t(t);
  }
  if (t <= 0)
    return 0;
  if (t >= std::ldexp(1.0, int(bits)))
    return wrapInt(~uint64_t(0), bits);
  return wrapInt(uint64_t(t), bits);
}

double intToFloat(uint64_t v, bool isSigned, Fmt fmt) {
  switch (fmt) {
  case Fmt::F32:
    return isSigned ? double(float(int64_t(v))) : double(float(v));
  case Fmt::F64:
    return isSigned ? double(int64_t(v)) : double(v);
  default:
    return roundTo(isSigned ? double(int64_t(v)) : double(v), fmt);
  }
}

void Machine::cast(Operation *op) {
  const Tensor &a = operand(op, 0);
  Elem e = resultElem(op);
  size_t n = a.size();
  Tensor r = makeTensor(e, a.shape, n);
  unsigned from = a.elem.bits, to = e.bits;
  auto needs = [&](Kind src, Kind dst) {
    if (a.elem.kind != src || e.kind != dst)
      fail(op, "internal error: cast of unexpected types");
  };
  if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
    needs(Kind::Int, Kind::Int);
    for (size_t k = 0; k < n; ++k)
      r.i[k] = wrapInt(uint64_t(a.i[k]), to);
  } else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) {
    needs(Kind::Int, Kind::Int);
    for (size_t k = 0; k < n; ++k)
      r.i[k] = wrapInt(zext(a.i[k], from), to);
  } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    needs(Kind::Int, Kind::Float);
    bool isSigned = isa<arith::SIToFPOp>(op);
    for (size_t k = 0; k < n; ++k)
      r.f[k] = intToFloat(isSigned ? uint64_t(a.i[k]) : zext(a.i[k], from),
                          isSigned, e.fmt);
  } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    needs(Kind::Float, Kind::Int);
    bool isSigned = isa<arith::FPToSIOp>(op);
    for (size_t k = 0; k < n; ++k)
      r.i[k] = floatToInt(a.f[k], to, isSigned);
  } else if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    needs(Kind::Float, Kind::Float);
    for (size_t k = 0; k < n; ++k)
      r.f[k] = roundTo(a.f[k], e.fmt);
  } else if (isa<arith::BitcastOp>(op)) {
    if (a.elem.kind == Kind::Ptr || e.kind == Kind::Ptr)
      fail(op, "the interpreter does not support bitcasts of pointers");
    for (size_t k = 0; k < n; ++k) {
      uint64_t bits = a.elem.kind == Kind::Int ? zext(a.i[k], from)
                                               : floatToBits(a.f[k], a.elem.fmt);
      if (e.kind == Kind::Int)
        r.i[k] = wrapInt(bits, to);
      else
        r.f[k] = bitsToFloat(bits, e.fmt);
    }
  } else {
    unsupported(op);
  }
  set(op->getResult(0), std::move(r));
}

// maxnumf/minnumf: the non-NaN operand wins. maximumf/minimumf: NaN wins,
// and -0 < +0.
double maxNum(double x, double y) { return std::fmax(x, y); }
double minNum(double x, double y) { return std::fmin(x, y); }
double maximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return NAN;
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
double minimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return NAN;
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

//===----------------------------------------------------------------------===//
// tile
//===----------------------------------------------------------------------===//

void Machine::makeRange(tile::MakeRangeOp op) {
  int64_t start = int32_t(op.getStart()), end = int32_t(op.getEnd());
  Shape shape = shapeOf(op.getType());
  Tensor r = makeTensor(resultElem(op), shape, size_t(end - start));
  for (int64_t k = 0; k < end - start; ++k)
    r.i[size_t(k)] = wrapInt(uint64_t(start + k), 32);
  set(op.getResult(), std::move(r));
}

void Machine::splat(tile::SplatOp op) {
  const Tensor &a = operand(op, 0);
  Shape shape = shapeOf(op.getType());
  size_t n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  Tensor r = makeTensor(a.elem, shape, n);
  for (size_t k = 0; k < n; ++k)
    copyElem(r, k, a, 0);
  set(op.getResult(), std::move(r));
}

void Machine::dot(tile::DotOp op) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1), &c = operand(op, 2);
  size_t rank = a.shape.size();
  int64_t batch = rank == 3 ? a.shape[0] : 1;
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  Tensor d = c; // the accumulator, updated in place
  if (a.elem.kind == Kind::Int) {
    dotInt(a.i, b.i, d.i, batch, m, n, k);
  } else {
    DotArithmetic arithmetic = DotArithmetic::Exact16;
    if (a.elem.fmt == Fmt::F32) {
      switch (op.getInputPrecision()) {
      case tile::InputPrecision::tf32:
        arithmetic = DotArithmetic::TF32;
        break;
      case tile::InputPrecision::tf32x3:
        arithmetic = DotArithmetic::TF32x3;
        break;
      case tile::InputPrecision::ieee:
        arithmetic = DotArithmetic::IEEE;
        break;
      }
    } else if (d.elem.fmt == Fmt::F16) {
      arithmetic = DotArithmetic::F16Acc;
    }
    dotFloat(arithmetic, a.f, b.f, d.f, batch, m, n, k);
  }
  set(op.getResult(), std::move(d));
}

void Machine::broadcast(tile::BroadcastOp op) {
  const Tensor &a = operand(op, 0);
  Shape shape = shapeOf(op.getType());
  if (shape.size() != a.shape.size())
    fail(op, "internal error: broadcast of a different rank");
  size_t rank = shape.size(), n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  // Source strides, 0 along stretched dimensions.
  llvm::SmallVector<size_t, 4> st(rank);
  size_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    st[d] = a.shape[d] == 1 ? 0 : s;
    s *= size_t(a.shape[d]);
  }
  set(op.getResult(), stridedCopy(a, shape, st, n));
}

void Machine::trans(tile::TransOp op) {
  const Tensor &a = operand(op, 0);
  Shape shape = shapeOf(op.getType());
  ArrayRef<int32_t> order = op.getOrder();
  size_t rank = shape.size(), n = a.size();
  // Walk the result in row-major order; result dimension d steps the
  // operand by the stride of its dimension order[d].
  llvm::SmallVector<size_t, 4> srcStride(rank), st(rank);
  size_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    srcStride[d] = s;
    s *= size_t(a.shape[d]);
  }
  for (size_t d = 0; d < rank; ++d)
    st[d] = srcStride[order[d]];
  set(op.getResult(), stridedCopy(a, shape, st, n));
}

void Machine::join(tile::JoinOp op) {
  const Tensor &a = operand(op, 0), &b = operand(op, 1);
  size_t n = a.size();
  Tensor r = makeTensor(a.elem, shapeOf(op.getType()), 2 * n);
  // Row-major: the new last dimension alternates the operands.
  for (size_t k = 0; k < n; ++k) {
    copyElem(r, 2 * k, a, k);
    copyElem(r, 2 * k + 1, b, k);
  }
  set(op.getResult(), std::move(r));
}

void Machine::gather(tile::GatherOp op) {
  const Tensor &src = operand(op, 0), &index = operand(op, 1);
  Shape shape = shapeOf(op.getType());
  size_t rank = shape.size(), axis = op.getAxis(), n = index.size();
  Tensor r = makeTensor(src.elem, shape, n);
  // Row-major strides of the source; walk the result (the indices' shape)
  // in row-major order, carrying its coordinates.
  llvm::SmallVector<int64_t, 4> stride(rank), coord(rank, 0);
  int64_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= src.shape[d];
  }
  for (size_t k = 0; k < n; ++k) {
    int64_t i = index.i[k];
    if (i < 0 || i >= src.shape[axis])
      fail(op, "tl.gather index " + std::to_string(i) + " is outside [0, " +
                   std::to_string(src.shape[axis]) + ") along axis " +
                   std::to_string(axis) + " (the GPU gives 0)");
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d)
      at += (d == axis ? i : coord[d]) * stride[d];
    copyElem(r, k, src, size_t(at));
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < shape[d])
        break;
      coord[d] = 0;
    }
  }
  set(op.getResult(), std::move(r));
}

void Machine::histogram(tile::HistogramOp op) {
  const Tensor &input = operand(op, 0);
  const Tensor *mask = op.getMask() ? &operand(op, 1) : nullptr;
  Shape shape = shapeOf(op.getType());
  Tensor r = makeTensor(resultElem(op), shape, size_t(shape[0]));
  for (size_t k = 0; k < input.size(); ++k) {
    int64_t v = input.i[k];
    if ((!mask || mask->i[k]) && v >= 0 && v < shape[0])
      ++r.i[size_t(v)];
  }
  set(op.getResult(), std::move(r));
}

void Machine::addptr(tile::AddPtrOp op) {
  const Tensor &p = operand(op, 0), &o = operand(op, 1);
  expectKind(op, p, Kind::Ptr);
  expectKind(op, o, Kind::Int);
  auto pointer = mlir::cast<tile::PointerType>(tile::getElementTypeOrSelf(op.getType()));
  uint64_t bytes = tile::getElementBytes(pointer.getPointeeType());
  Lanes l = lanes(op, {&p, &o});
  Tensor r = makeTensor(p.elem, l.shape, l.n);
  size_t sp = stride(p, l.n), so = stride(o, l.n);
  for (size_t k = 0; k < l.n; ++k) {
    r.buf[k] = p.buf[k * sp];
    r.i[k] = int64_t(uint64_t(p.i[k * sp]) + uint64_t(o.i[k * so]) * bytes);
  }
  set(op.getResult(), std::move(r));
}

uint8_t *Machine::address(Operation *op, const char *what, const Tensor &p,
                          size_t k, unsigned bytes) {
  int32_t b = p.buf[k];
  if (b < 0 || size_t(b) >= args_.size() || args_[b].kind != Arg::Kind::Buffer)
    fail(op, "internal error: a pointer to no buffer");
  const HostBuffer &buffer = args_[b].buffer;
  int64_t offset = p.i[k];
  if (offset < 0 || uint64_t(offset) + bytes > buffer.bytes) {
    std::string element =
        p.shape.empty() ? "" : ", element " + indexString(k, p.shape);
    fail(op, std::string("out-of-bounds ") + what + " of " +
                 std::to_string(bytes) + " byte" + (bytes == 1 ? "" : "s") +
                 " at offset " + std::to_string(offset) + " of argument '" +
                 argName(size_t(b)) + "' (" + std::to_string(buffer.bytes) +
                 " bytes)" + element);
  }
  if (buffer.readOnly && std::strcmp(what, "store") == 0)
    fail(op, "store into read-only argument '" + argName(size_t(b)) + "'" +
                 (p.shape.empty() ? "" : ", element " + indexString(k, p.shape)));
  return static_cast<uint8_t *>(buffer.data) + offset;
}

uint64_t readRaw(const uint8_t *p, unsigned bytes) {
  switch (bytes) {
  case 1:
    return *p;
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  }
}

void writeRaw(uint8_t *p, unsigned bytes, uint64_t raw) {
  switch (bytes) {
  case 1: {
    uint8_t v = uint8_t(raw);
    std::memcpy(p, &v, 1);
    break;
  }
  case 2: {
    uint16_t v = uint16_t(raw);
    std::memcpy(p, &v, 2);
    break;
  }
  case 4: {
    uint32_t v = uint32_t(raw);
    std::memcpy(p, &v, 4);
    break;
  }
  default:
    std::memcpy(p, &raw, 8);
  }
}

void Machine::load(tile::LoadOp op) {
  const Tensor &p = in(op, op.getPtr());
  expectKind(op, p, Kind::Ptr);
  const Tensor *mask = op.getMask() ? &in(op, op.getMask()) : nullptr;
  const Tensor *other = op.getOther() ? &in(op, op.getOther()) : nullptr;
  Elem e = resultElem(op);
  if (e.kind == Kind::Ptr)
    fail(op, "the interpreter does not support loads of pointers");
  unsigned bytes = e.kind == Kind::Int && e.bits == 1 ? 1 : e.bits / 8;
  size_t n = p.size();
  if ((mask && mask->size() != n) || (other && other->size() != n && other->size() != 1))
    fail(op, "internal error: mask or other of another shape");
  Tensor r = makeTensor(e, p.shape, n);
  size_t so = other ? stride(*other, n) : 0;
  for (size_t k = 0; k < n; ++k) {
    if (mask && !mask->i[k]) {
      if (other)
        copyElem(r, k, *other, k * so);
      continue; // 0 without `other`
    }
    uint64_t raw = readRaw(address(op, "load", p, k, bytes), bytes);
    stats_.bytesLoaded += bytes;
    if (e.kind == Kind::Int)
      r.i[k] = e.bits == 1 ? (raw ? -1 : 0) : wrapInt(raw, e.bits);
    else
      r.f[k] = bitsToFloat(raw, e.fmt);
  }
  set(op.getResult(), std::move(r));
}

/// A hint of no effect here; its range is checked as a load's would be,
/// so that a kernel asking for memory outside its arguments fails in CI.
void Machine::prefetchL2(tile::PrefetchL2Op op) {
  const Tensor &p = in(op, op.getPtr());
  expectKind(op, p, Kind::Ptr);
  int64_t count = in(op, op.getCount()).i.at(0);
  if (count <= 0)
    return;
  uint64_t bytes = uint64_t(count) * tile::getElementBytes(
      mlir::cast<tile::PointerType>(op.getPtr().getType()).getPointeeType());
  address(op, "prefetch_l2", p, 0, unsigned(std::min<uint64_t>(bytes, UINT32_MAX)));
}

void Machine::store(tile::StoreOp op) {
  const Tensor &p = in(op, op.getPtr()), &v = in(op, op.getValue());
  expectKind(op, p, Kind::Ptr);
  const Tensor *mask = op.getMask() ? &in(op, op.getMask()) : nullptr;
  Elem e = v.elem;
  if (e.kind == Kind::Ptr)
    fail(op, "the interpreter does not support stores of pointers");
  unsigned bytes = e.kind == Kind::Int && e.bits == 1 ? 1 : e.bits / 8;
  size_t n = p.size();
  if ((mask && mask->size() != n) || v.size() != n)
    fail(op, "internal error: value or mask of another shape");
  // Check every lane before writing any.
  llvm::SmallVector<uint8_t *, 0> where(n, nullptr);
  for (size_t k = 0; k < n; ++k)
    if (!mask || mask->i[k])
      where[k] = address(op, "store", p, k, bytes);
  for (size_t k = 0; k < n; ++k) {
    if (!where[k])
      continue;
    uint64_t raw = e.kind == Kind::Int
                       ? (e.bits == 1 ? uint64_t(v.i[k] != 0) : zext(v.i[k], e.bits))
                       : floatToBits(v.f[k], e.fmt);
    writeRaw(where[k], bytes, raw);
    stats_.bytesStored += bytes;
  }
}

/// The raw bits of lane `k` of `t`, as memory holds them.
uint64_t rawBits(const Tensor &t, size_t k) {
  return t.elem.kind == Kind::Int ? zext(t.i[k], t.elem.bits)
                                  : floatToBits(t.f[k], t.elem.fmt);
}

/// The order tl.atomic_max and atomic_min give floats (the GPU's, which
/// compares their bits as integers): the value's bits as a signed integer,
/// with the magnitude bits of negative values flipped, so that -NaN < -inf
/// < ... < -0.0 < +0.0 < ... < +inf < +NaN.
int64_t floatOrderKey(uint64_t bits, unsigned width) {
  int64_t s = wrapInt(bits, width);
  uint64_t magnitude = width >= 64 ? ~uint64_t(0) >> 1 : (uint64_t(1) << (width - 1)) - 1;
  return s >= 0 ? s : int64_t(uint64_t(s) ^ magnitude);
}

/// What an atomic read-modify-write leaves in memory, on raw bits.
uint64_t atomicUpdate(tile::AtomicKind kind, const Elem &e, uint64_t old,
                      uint64_t value) {
  using K = tile::AtomicKind;
  if (kind == K::xchg)
    return value;
  if (e.kind == Kind::Float) {
    if (kind == K::add) {
      // fp32 adds flush subnormal inputs and results to zero, keeping the
      // sign (PTX's atom.add.f32 on global memory); the others keep them.
      auto flush = [&](double x) {
        return e.fmt == Fmt::F32 && x != 0 && std::fabs(x) < 0x1p-126
                   ? std::copysign(0.0, x)
                   : x;
      };
      double sum = evalFloat(e.fmt, [](auto a, auto b) { return a + b; },
                             flush(bitsToFloat(old, e.fmt)),
                             flush(bitsToFloat(value, e.fmt)));
      return floatToBits(flush(sum), e.fmt);
    }
    if (std::isnan(bitsToFloat(value, e.fmt)))
      return old; // a NaN value changes nothing
    bool greater = floatOrderKey(value, e.bits) > floatOrderKey(old, e.bits);
    return (kind == K::max) == greater ? value : old;
  }
  uint64_t m = zext(-1, e.bits);
  int64_t so = wrapInt(old, e.bits), sv = wrapInt(value, e.bits);
  switch (kind) {
  case K::add:
    return (old + value) & m;
  case K::max:
    return sv > so ? value : old;
  case K::min:
    return sv < so ? value : old;
  case K::umax:
    return value > old ? value : old;
  case K::umin:
    return value < old ? value : old;
  case K::and_:
    return old & value;
  case K::or_:
    return old | value;
  case K::xor_:
    return old ^ value;
  case K::xchg: // (returned above)
    break;
  }
  return old;
}

void Machine::atomicLanes(Operation *op, const Tensor &p, const Tensor *mask,
                          Tensor &r,
                          llvm::function_ref<uint64_t(size_t, uint64_t)> update) {
  expectKind(op, p, Kind::Ptr);
  unsigned bytes = r.elem.bits / 8;
  // Lanes apply one after another, in element order: each sees the writes
  // of the ones before it (two lanes at one address both take effect).
  for (size_t k = 0; k < p.size(); ++k) {
    if (mask && !mask->i[k])
      continue; // the result stays 0
    uint8_t *where = address(op, "atomic access", p, k, bytes);
    uint64_t old = readRaw(where, bytes);
    writeRaw(where, bytes, update(k, old));
    stats_.bytesLoaded += bytes;
    stats_.bytesStored += bytes;
    if (r.elem.kind == Kind::Int)
      r.i[k] = wrapInt(old, r.elem.bits);
    else
      r.f[k] = bitsToFloat(old, r.elem.fmt);
  }
}

void Machine::atomicRMW(tile::AtomicRMWOp op) {
  const Tensor &p = in(op, op.getPtr()), &v = in(op, op.getValue());
  const Tensor *mask = op.getMask() ? &in(op, op.getMask()) : nullptr;
  if (v.size() != p.size() || (mask && mask->size() != p.size()))
    fail(op, "internal error: value or mask of another shape");
  Elem e = resultElem(op);
  Tensor r = makeTensor(e, p.shape, p.size());
  atomicLanes(op, p, mask, r, [&](size_t k, uint64_t old) {
    return atomicUpdate(op.getKind(), e, old, rawBits(v, k));
  });
  set(op.getResult(), std::move(r));
}

void Machine::atomicCAS(tile::AtomicCASOp op) {
  const Tensor &p = in(op, op.getPtr()), &c = in(op, op.getCmp()),
               &v = in(op, op.getValue());
  if (v.size() != p.size() || c.size() != p.size())
    fail(op, "internal error: cmp or value of another shape");
  Elem e = resultElem(op);
  Tensor r = makeTensor(e, p.shape, p.size());
  atomicLanes(op, p, nullptr, r, [&](size_t k, uint64_t old) {
    return old == rawBits(c, k) ? rawBits(v, k) : old; // bits, as atom.cas
  });
  set(op.getResult(), std::move(r));
}

/// A tensor's shape seen as [outer, h, inner] around one axis of length h:
/// how reductions and scans walk their operands.
struct AxisView {
  size_t outer = 1, h = 1, inner = 1;
};

/// Null when `axis` is not a dimension of `shape`.
std::optional<AxisView> viewAround(const Shape &shape, int64_t axis) {
  if (axis < 0 || size_t(axis) >= shape.size())
    return std::nullopt;
  AxisView v;
  v.h = size_t(shape[axis]);
  for (int64_t d = 0; d < axis; ++d)
    v.outer *= size_t(shape[d]);
  for (size_t d = size_t(axis) + 1; d < shape.size(); ++d)
    v.inner *= size_t(shape[d]);
  return v;
}

/// Gather lanes (o, j, i) of a tensor viewed as [outer, h, inner], for j in
/// [first, first + count).
Tensor gatherAxis(const Tensor &t, size_t outer, size_t h, size_t inner,
                  size_t first, size_t count) {
  Tensor r = makeTensor(t.elem, {}, outer * count * inner);
  size_t k = 0;
  for (size_t o = 0; o < outer; ++o)
    for (size_t j = first; j < first + count; ++j)
      for (size_t i = 0; i < inner; ++i)
        copyElem(r, k++, t, (o * h + j) * inner + i);
  r.shape = {int64_t(r.size())};
  return r;
}

/// True when every op of a combiner is arith or math without regions: it
/// can run once on all lanes instead of lane by lane.
bool isElementwiseCombiner(Block &body) {
  for (Operation &op : body) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    StringRef dialect = op.getName().getDialectNamespace();
    if ((dialect != "arith" && dialect != "math") || op.getNumRegions())
      return false;
  }
  return true;
}

/// The combiner on lanes: out[j][k] = combine(a[..][k], b[..][k]). In the
/// vectorised form `a` and `b` are consumed.
void Machine::combine(Operation *op, Block &body, bool vectorised,
                      std::vector<Tensor> &a, std::vector<Tensor> &b,
                      std::vector<Tensor> &out) {
  size_t nvals = a.size(), n = a[0].size();
  llvm::SmallVector<TensorRef, 4> yielded;
  auto check = [&](size_t lanesWanted) {
    if (yielded.size() != nvals)
      fail(op, "internal error: the combiner returns the wrong number of values");
    for (size_t j = 0; j < nvals; ++j)
      if (yielded[j]->elem.kind != a[j].elem.kind ||
          (yielded[j]->size() != lanesWanted && yielded[j]->size() != 1))
        fail(op, "internal error: the combiner returns values of another type");
  };
  out.clear();
  if (vectorised) {
    // Every op is elementwise: run the combiner once on all the lanes.
    std::vector<Elem> elems;
    for (size_t j = 0; j < nvals; ++j) {
      elems.push_back(a[j].elem);
      set(body.getArgument(j), std::make_shared<const Tensor>(std::move(a[j])));
      set(body.getArgument(nvals + j),
          std::make_shared<const Tensor>(std::move(b[j])));
    }
    runBlock(body, yielded);
    check(n);
    for (size_t j = 0; j < nvals; ++j) {
      Tensor r = makeTensor(elems[j], {int64_t(n)}, n);
      for (size_t k = 0; k < n; ++k)
        copyElem(r, k, *yielded[j], yielded[j]->size() == 1 ? 0 : k);
      out.push_back(std::move(r));
    }
    return;
  }
  // One lane at a time, on scalars.
  for (size_t j = 0; j < nvals; ++j)
    out.push_back(makeTensor(a[j].elem, a[j].shape, n));
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < nvals; ++j) {
      Tensor x = makeTensor(a[j].elem, {}, 1), y = makeTensor(b[j].elem, {}, 1);
      copyElem(x, 0, a[j], k);
      copyElem(y, 0, b[j], k);
      set(body.getArgument(j), std::move(x));
      set(body.getArgument(nvals + j), std::move(y));
    }
    runBlock(body, yielded);
    check(1);
    for (size_t j = 0; j < nvals; ++j)
      copyElem(out[j], k, *yielded[j], 0);
  }
}

void Machine::reduce(tile::ReduceOp op) {
  size_t nvals = op.getSrcs().size();
  std::vector<Tensor> work;
  for (Value v : op.getSrcs())
    work.push_back(in(op, v));
  const Shape shape = work[0].shape;
  int64_t axis = op.getAxis();
  std::optional<AxisView> view = viewAround(shape, axis);
  if (!view)
    fail(op, "internal error: reduction axis out of range");
  const size_t outer = view->outer, inner = view->inner;
  size_t h = view->h;
  Shape resultShape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (int64_t(d) != axis)
      resultShape.push_back(shape[d]);

  bool vectorised = isElementwiseCombiner(op.getCombiner().front());

  // Pairwise, in a fixed order: at each step element j combines with
  // element j + h/2 (the lower index first); an odd last element waits.
  std::vector<Tensor> a(nvals), b(nvals), combined;
  while (h > 1) {
    size_t half = h / 2;
    bool odd = h % 2;
    for (size_t j = 0; j < nvals; ++j) {
      a[j] = gatherAxis(work[j], outer, h, inner, 0, half);
      b[j] = gatherAxis(work[j], outer, h, inner, half, half);
    }
    combine(op, op.getCombiner().front(), vectorised, a, b, combined);
    size_t next = half + (odd ? 1 : 0);
    for (size_t j = 0; j < nvals; ++j) {
      Tensor r = makeTensor(work[j].elem, {}, outer * next * inner);
      for (size_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < inner; ++i) {
          for (size_t q = 0; q < half; ++q)
            copyElem(r, (o * next + q) * inner + i, combined[j],
                     (o * half + q) * inner + i);
          if (odd)
            copyElem(r, (o * next + half) * inner + i, work[j],
                     (o * h + h - 1) * inner + i);
        }
      work[j] = std::move(r);
    }
    h = next;
  }
  for (size_t j = 0; j < nvals; ++j) {
    work[j].shape = resultShape;
    set(op->getResult(j), std::move(work[j]));
  }
}

/// Inclusive, in order along the axis: result j = combine(result j-1,
/// element j), all lines (the other dimensions) at once.
void Machine::scan(tile::ScanOp op) {
  size_t nvals = op.getSrcs().size();
  std::vector<Tensor> srcs;
  for (Value v : op.getSrcs())
    srcs.push_back(in(op, v));
  const Shape shape = srcs[0].shape;
  std::optional<AxisView> view = viewAround(shape, op.getAxis());
  if (!view)
    fail(op, "internal error: scan axis out of range");
  const size_t outer = view->outer, h = view->h, inner = view->inner;
  Block &body = op.getCombiner().front();
  bool vectorised = isElementwiseCombiner(body);

  std::vector<Tensor> results, acc(nvals), next(nvals), combined;
  for (size_t j = 0; j < nvals; ++j) {
    results.push_back(makeTensor(srcs[j].elem, shape, srcs[j].size()));
    acc[j] = gatherAxis(srcs[j], outer, h, inner, 0, 1);
  }
  auto scatter = [&](size_t step) {
    for (size_t j = 0; j < nvals; ++j)
      for (size_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < inner; ++i)
          copyElem(results[j], (o * h + step) * inner + i, acc[j], o * inner + i);
  };
  scatter(0);
  for (size_t step = 1; step < h; ++step) {
    for (size_t j = 0; j < nvals; ++j)
      next[j] = gatherAxis(srcs[j], outer, h, inner, step, 1);
    combine(op, body, vectorised, acc, next, combined);
    acc = std::move(combined);
    combined.clear();
    acc.resize(nvals);
    scatter(step);
  }
  for (size_t j = 0; j < nvals; ++j)
    set(op->getResult(j), std::move(results[j]));
}

//===----------------------------------------------------------------------===//
// Debugging: the text the GPU prints (compiler/Dialect/Tile/PrintFormat.h)
//===----------------------------------------------------------------------===//

/// printf of one value through its conversion, as vprintf would print it.
template <typename T> std::string printfText(const std::string &conversion, T value) {
  char text[64];
  std::snprintf(text, sizeof text, conversion.c_str(), value);
  return text;
}

/// Element `k` of `t` as the GPU's vprintf shows it (print::conversion's
/// promotions: small integers through 32 bits, floats through double).
std::string valueText(const Tensor &t, size_t k, bool isSigned, bool hex,
                      const HostBuffer *buffer) {
  namespace print = tile::print;
  if (t.elem.kind == Kind::Ptr) {
    auto base = reinterpret_cast<uintptr_t>(buffer ? buffer->data : nullptr);
    return printfText(print::conversion(print::Kind::Pointer, 64, false),
                      reinterpret_cast<void *>(base + uintptr_t(t.i[k])));
  }
  unsigned bits = t.elem.kind == Kind::Float ? 0 : t.elem.bits;
  uint64_t raw;
  if (t.elem.kind == Kind::Float) {
    if (!hex)
      return printfText(print::conversion(print::Kind::Float, 64, false), t.f[k]);
    static const unsigned formatBits[] = {8, 8, 16, 16, 32, 64};
    bits = formatBits[unsigned(t.elem.fmt)];
    raw = floatToBits(t.f[k], t.elem.fmt);
  } else {
    raw = bits >= 64 ? uint64_t(t.i[k]) : uint64_t(t.i[k]) & ((uint64_t(1) << bits) - 1);
  }
  bool wide = bits > 32;
  bool showSigned = isSigned && bits > 1 && !hex;
  std::string conversion = print::conversion(
      showSigned ? print::Kind::Signed : print::Kind::Unsigned, hex ? bits : wide ? 64 : 32,
      hex);
  if (showSigned)
    return wide ? printfText(conversion, (long long)t.i[k])
                : printfText(conversion, int(t.i[k]));
  return wide ? printfText(conversion, (unsigned long long)raw)
              : printfText(conversion, unsigned(raw));
}

void Machine::programIdTexts(std::vector<std::string> &texts) const {
  std::string u = tile::print::conversion(tile::print::Kind::Unsigned, 32, false);
  for (uint32_t p : pid_)
    texts.push_back(printfText(u, p));
}

/// The texts of " idx (I, J)" (print::indexFormat's values) for element
/// `flat` of `shape`, each padded to its dimension's digits.
void indexTexts(size_t flat, const Shape &shape, std::vector<std::string> &texts) {
  namespace print = tile::print;
  llvm::SmallVector<int64_t, 4> idx = coordinates(flat, shape);
  for (size_t d = 0; d < shape.size(); ++d)
    texts.push_back(printfText(
        print::conversion(print::Kind::Unsigned, 32, false, print::indexWidth(shape[d])),
        unsigned(idx[d])));
}

/// `format` with its kValue placeholders replaced by `texts`, in order.
std::string fillFormat(const std::string &format, const std::vector<std::string> &texts) {
  std::string out;
  size_t next = 0;
  for (char c : format)
    if (c == tile::print::kValue)
      out += next < texts.size() ? texts[next++] : std::string("?");
    else
      out += c;
  return out;
}

void Machine::assertOp(tile::AssertOp op) {
  const Tensor &cond = operand(op, 0);
  for (size_t k = 0; k < cond.size(); ++k) {
    if (cond.i[k] & 1)
      continue;
    // The line of the GPU less its pid: InterpreterError names the program.
    std::vector<std::string> texts;
    indexTexts(k, cond.shape, texts);
    std::string format =
        cond.shape.empty() ? "" : ", " + tile::print::indexFormat(cond.shape.size()).substr(1);
    format += tile::print::assertFormat(op.getMessage().str(), op.getDetailPieces());
    for (auto [i, v] : llvm::enumerate(op.getValues())) {
      const Tensor &t = in(op, v);
      texts.push_back(valueText(t, t.size() == 1 ? 0 : k, op.getValuesSigned()[i],
                                false, nullptr));
    }
    fail(op, "assertion failed" + fillFormat(format, texts));
  }
}

void Machine::printOp(tile::PrintOp op) {
  auto emit = [&](const std::string &line) {
    if (print_) {
      print_(line);
    } else {
      // Flushed at once, as the GPU's lines are at the launch's end: a
      // failure a moment later must not lose them.
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
  };
  size_t n = op.getArgs().size();
  if (n == 0) {
    std::vector<std::string> texts;
    programIdTexts(texts);
    std::string format = tile::print::programIdFormat() +
                         tile::print::userText(op.getPrefix().str());
    emit(fillFormat(format, texts));
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const Tensor &t = operand(op, unsigned(i));
    const HostBuffer *buffer = nullptr;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t.elem.kind == Kind::Ptr && t.buf[k] >= 0 && size_t(t.buf[k]) < args_.size())
        buffer = &args_[size_t(t.buf[k])].buffer;
      std::vector<std::string> texts;
      programIdTexts(texts);
      indexTexts(k, t.shape, texts);
      std::string format = tile::print::programIdFormat() +
                           tile::print::indexFormat(t.shape.size()) +
                           tile::print::printValueFormat(op.getPrefix().str(), i, n);
      texts.push_back(valueText(t, k, op.getArgsSigned()[i], op.getHex(), buffer));
      emit(fillFormat(format, texts));
    }
  }
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

void Machine::forOp(scf::ForOp op) {
  const Tensor &lb = in(op, op.getLowerBound()), &ub = in(op, op.getUpperBound()),
               &step = in(op, op.getStep());
  for (const Tensor *t : {&lb, &ub, &step})
    if (t->elem.kind != Kind::Int || t->size() != 1)
      fail(op, "internal error: loop bounds must be integer scalars");
  Elem e = lb.elem;
  unsigned bits = e.bits;
  bool isUnsigned = op.getUnsignedCmp();
  int64_t s = step.i[0];
  if (isUnsigned ? zext(s, bits) == 0 : s <= 0)
    fail(op, "the loop step is " +
                 (isUnsigned ? std::to_string(zext(s, bits)) : std::to_string(s)) +
                 "; it must be positive");
  llvm::SmallVector<TensorRef, 4> iters;
  for (Value v : op.getInitArgs())
    iters.push_back(ref(op, v));
  Block &body = *op.getBody();
  int64_t iv = lb.i[0], end = ub.i[0];
  auto less = [&](int64_t x, int64_t y) {
    return isUnsigned ? zext(x, bits) < zext(y, bits) : x < y;
  };
  llvm::SmallVector<TensorRef, 4> yielded;
  while (less(iv, end)) {
    Tensor ivValue = makeTensor(e, {}, 1);
    ivValue.i[0] = iv;
    set(body.getArgument(0), std::move(ivValue));
    for (size_t j = 0; j < iters.size(); ++j)
      set(body.getArgument(j + 1), iters[j]);
    runBlock(body, yielded);
    iters.assign(yielded.begin(), yielded.end());
    // The next value, stopping where it would leave the type's range
    // (it would not be below the bound either).
    if (isUnsigned) {
      unsigned __int128 next = (unsigned __int128)zext(iv, bits) + zext(s, bits);
      if (bits < 64 ? next >> bits : next >> 64)
        break;
      iv = wrapInt(uint64_t(next), bits);
    } else {
      __int128 next = (__int128)iv + s;
      __int128 max = bits >= 64 ? (__int128)std::numeric_limits<int64_t>::max()
                                : ((__int128)1 << (bits - 1)) - 1;
      if (next > max)
        break;
      iv = int64_t(next);
    }
  }
  if (iters.size() != op.getNumResults())
    fail(op, "internal error: the loop yields the wrong number of values");
  for (size_t j = 0; j < iters.size(); ++j)
    set(op.getResult(j), iters[j]);
}

void Machine::whileOp(scf::WhileOp op) {
  llvm::SmallVector<TensorRef, 4> values, yielded;
  for (Value v : op.getInits())
    values.push_back(ref(op, v));
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  for (;;) {
    for (size_t j = 0; j < values.size(); ++j)
      set(before.getArgument(j), values[j]);
    runBlock(before, yielded); // the condition, then the values it forwards
    if (yielded.empty() || yielded[0]->elem.kind != Kind::Int || yielded[0]->size() != 1)
      fail(op, "internal error: the loop condition must be an i1 scalar");
    bool again = yielded[0]->i[0] != 0;
    values.assign(yielded.begin() + 1, yielded.end());
    if (!again)
      break;
    for (size_t j = 0; j < values.size(); ++j)
      set(after.getArgument(j), values[j]);
    runBlock(after, yielded);
    values.assign(yielded.begin(), yielded.end());
  }
  if (values.size() != op.getNumResults())
    fail(op, "internal error: the loop forwards the wrong number of values");
  for (size_t j = 0; j < values.size(); ++j)
    set(op.getResult(j), values[j]);
}

void Machine::ifOp(scf::IfOp op) {
  const Tensor &c = in(op, op.getCondition());
  if (c.elem.kind != Kind::Int || c.size() != 1)
    fail(op, "internal error: the condition must be an i1 scalar");
  Region &region = c.i[0] ? op.getThenRegion() : op.getElseRegion();
  if (region.empty()) {
    if (op.getNumResults())
      fail(op, "internal error: scf.if without else yields values");
    return;
  }
  llvm::SmallVector<TensorRef, 4> yielded;
  runBlock(region.front(), yielded);
  if (yielded.size() != op.getNumResults())
    fail(op, "internal error: scf.if yields the wrong number of values");
  for (size_t j = 0; j < yielded.size(); ++j)
    set(op.getResult(j), yielded[j]);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

void Machine::runBlock(Block &block, llvm::SmallVectorImpl<TensorRef> &yielded) {
  // Regions nest as deep as the kernel's ifs and loops, inlined helpers'
  // included; stop before the stack overflows.
  if (stackNearlyExhausted())
    fail(block.getParentOp(), "ifs and loops nest too deeply for the "
                              "interpreter's stack");
  yielded.clear();
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (!isa<scf::YieldOp, scf::ConditionOp, func::ReturnOp, tile::ReduceReturnOp,
               tile::ScanReturnOp>(op))
        unsupported(&op);
      for (Value v : op.getOperands())
        yielded.push_back(ref(&op, v));
      return;
    }
    if (++stats_.operations > limits_.maxOperations && limits_.maxOperations)
      fail(&op, "the run exceeded its limit of " +
                    std::to_string(limits_.maxOperations) + " operations");
    exec(op);
  }
}

void Machine::exec(Operation &operation) {
  Operation *op = &operation;
  using llvm::TypeSwitch;
  TypeSwitch<Operation *, void>(op)
      // tile
      .Case<tile::ProgramIdOp>([&](tile::ProgramIdOp o) {
        Tensor r = makeTensor(Elem{Kind::Int, 32}, {}, 1);
        r.i[0] = wrapInt(pid_[o.getAxis()], 32);
        set(o.getResult(), std::move(r));
      })
      .Case<tile::NumProgramsOp>([&](tile::NumProgramsOp o) {
        uint32_t counts[3] = {grid_.x, grid_.y, grid_.z};
        Tensor r = makeTensor(Elem{Kind::Int, 32}, {}, 1);
        r.i[0] = wrapInt(counts[o.getAxis()], 32);
        set(o.getResult(), std::move(r));
      })
      .Case<tile::ClusterIdOp, tile::ClusterCtaRankOp, tile::ClusterSizeOp>([&](auto o) {
        Tensor r = makeTensor(Elem{Kind::Int, 32}, {}, 1);
        uint32_t value = clusterSize_;
        if (isa<tile::ClusterIdOp>(o.getOperation()))
          value = pid_[0] / clusterSize_;
        else if (isa<tile::ClusterCtaRankOp>(o.getOperation()))
          value = pid_[0] % clusterSize_;
        r.i[0] = wrapInt(value, 32);
        set(o.getResult(), std::move(r));
      })
      .Case<tile::MakeRangeOp>([&](auto o) { makeRange(o); })
      .Case<tile::SplatOp>([&](auto o) { splat(o); })
      .Case<tile::BroadcastOp>([&](auto o) { broadcast(o); })
      .Case<tile::ExpandDimsOp, tile::ReshapeOp>([&](auto o) {
        // Row-major data stays as it is; only the shape changes.
        Tensor r = in(o, o.getSrc());
        r.shape = shapeOf(o.getType());
        set(o.getResult(), std::move(r));
      })
      .Case<tile::TransOp>([&](auto o) { trans(o); })
      .Case<tile::JoinOp>([&](auto o) { join(o); })
      .Case<tile::GatherOp>([&](auto o) { gather(o); })
      .Case<tile::HistogramOp>([&](auto o) { histogram(o); })
      .Case<tile::AddPtrOp>([&](auto o) { addptr(o); })
      .Case<tile::LoadOp>([&](auto o) { load(o); })
      .Case<tile::StoreOp>([&](auto o) { store(o); })
      .Case<tile::AtomicRMWOp>([&](auto o) { atomicRMW(o); })
      .Case<tile::AtomicCASOp>([&](auto o) { atomicCAS(o); })
      .Case<tile::ReduceOp>([&](auto o) { reduce(o); })
      .Case<tile::ScanOp>([&](auto o) { scan(o); })
      .Case<tile::DotOp>([&](auto o) { dot(o); })
      .Case<tile::AssertOp>([&](auto o) { assertOp(o); })
      .Case<tile::PrintOp>([&](auto o) { printOp(o); })
      .Case<tile::DebugBarrierOp>([&](auto) {}) // programs run one at a time
      // (Launches run one after the other: nothing to wait for or release.)
      .Case<tile::GridDependencyWaitOp, tile::LaunchDependentsOp>([&](auto) {})
      .Case<tile::PrefetchL2Op>([&](auto o) { prefetchL2(o); })
      .Case<tile::InlineAsmOp>([&](auto o) {
        fail(o, "tl.inline_asm_elementwise runs PTX, which the interpreter cannot run: "
                "launch the kernel on the GPU");
      })
      .Case<tile::CudaCallOp>([&](auto o) {
        fail(o, "tl.cuda_device_call runs CUDA C++ compiled for the GPU, which the "
                "interpreter cannot run: launch the kernel on the GPU");
      })
      .Case<tile::AssumeMultipleOp, tile::AssumeContiguousOp>(
          [&](auto o) { set(o.getResult(), ref(o, o.getSrc())); })
      // arith: integers
      .Case<arith::ConstantOp>([&](auto o) { constant(o); })
      .Case<arith::AddIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a) + uint64_t(b); });
      })
      .Case<arith::SubIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a) - uint64_t(b); });
      })
      .Case<arith::MulIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a) * uint64_t(b); });
      })
      // Division by zero is undefined in MLIR; masked-off lanes often
      // divide by the load's `other`, so it is no error here: the quotient
      // is all ones and the remainder the dividend (RISC-V's answers).
      // The signed overflow MIN / -1 wraps to MIN, remainder 0.
      .Case<arith::DivSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          if (b == 0)
            return ~uint64_t(0);
          if (b == -1)
            return 0 - uint64_t(a);
          return uint64_t(a / b);
        });
      })
      .Case<arith::RemSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) -> uint64_t {
          if (b == 0)
            return uint64_t(a);
          if (b == -1)
            return 0;
          return uint64_t(a % b);
        });
      })
      .Case<arith::DivUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t x = zext(a, bits), y = zext(b, bits);
          return y == 0 ? ~uint64_t(0) : x / y;
        });
      })
      .Case<arith::RemUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t x = zext(a, bits), y = zext(b, bits);
          return y == 0 ? x : x % y;
        });
      })
      .Case<arith::FloorDivSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) -> uint64_t {
          if (b == 0)
            return ~uint64_t(0);
          if (b == -1)
            return 0 - uint64_t(a);
          int64_t q = a / b;
          return uint64_t((a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
        });
      })
      .Case<arith::CeilDivSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) -> uint64_t {
          if (b == 0)
            return ~uint64_t(0);
          if (b == -1)
            return 0 - uint64_t(a);
          int64_t q = a / b;
          return uint64_t((a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q);
        });
      })
      .Case<arith::CeilDivUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t x = zext(a, bits), y = zext(b, bits);
          if (y == 0)
            return ~uint64_t(0);
          return x / y + (x % y != 0);
        });
      })
      .Case<arith::AndIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a & b); });
      })
      .Case<arith::OrIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a | b); });
      })
      .Case<arith::XOrIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(a ^ b); });
      })
      // A shift by the width or more is poison in MLIR: here it gives 0
      // (shrsi: the sign).
      .Case<arith::ShLIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t s = zext(b, bits);
          return s >= bits ? 0 : uint64_t(a) << s;
        });
      })
      .Case<arith::ShRUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t s = zext(b, bits);
          return s >= bits ? 0 : zext(a, bits) >> s;
        });
      })
      .Case<arith::ShRSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) -> uint64_t {
          uint64_t s = zext(b, bits);
          return uint64_t(s >= bits ? (a < 0 ? -1 : 0) : a >> s);
        });
      })
      .Case<arith::MaxSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(std::max(a, b)); });
      })
      .Case<arith::MinSIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned) { return uint64_t(std::min(a, b)); });
      })
      .Case<arith::MaxUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) {
          return std::max(zext(a, bits), zext(b, bits));
        });
      })
      .Case<arith::MinUIOp>([&](auto) {
        intBinary(op, [](int64_t a, int64_t b, unsigned bits) {
          return std::min(zext(a, bits), zext(b, bits));
        });
      })
      .Case<arith::CmpIOp>([&](auto o) { cmpi(o); })
      .Case<arith::CmpFOp>([&](auto o) { cmpf(o); })
      .Case<arith::SelectOp>([&](auto o) { select(o); })
      // arith: floats
      .Case<arith::AddFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return a + b; }); })
      .Case<arith::SubFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return a - b; }); })
      .Case<arith::MulFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return a * b; }); })
      .Case<arith::DivFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return a / b; }); })
      .Case<arith::RemFOp>([&](auto) {
        floatBinary(op, [](auto a, auto b) { return std::fmod(a, b); });
      })
      .Case<arith::MaxNumFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return maxNum(a, b); }); })
      .Case<arith::MinNumFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return minNum(a, b); }); })
      .Case<arith::MaximumFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return maximum(a, b); }); })
      .Case<arith::MinimumFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return minimum(a, b); }); })
      .Case<arith::NegFOp>([&](auto) { floatUnary(op, [](auto a) { return -a; }); })
      // arith: casts
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp, arith::SIToFPOp, arith::UIToFPOp,
            arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp,
            arith::BitcastOp>([&](auto) { cast(op); })
      // math
      .Case<math::ExpOp>([&](auto) { floatUnary(op, [](auto a) { return std::exp(a); }); })
      .Case<math::Exp2Op>([&](auto) { floatUnary(op, [](auto a) { return std::exp2(a); }); })
      .Case<math::ExpM1Op>([&](auto) { floatUnary(op, [](auto a) { return std::expm1(a); }); })
      .Case<math::LogOp>([&](auto) { floatUnary(op, [](auto a) { return std::log(a); }); })
      .Case<math::Log2Op>([&](auto) { floatUnary(op, [](auto a) { return std::log2(a); }); })
      .Case<math::Log10Op>([&](auto) { floatUnary(op, [](auto a) { return std::log10(a); }); })
      .Case<math::Log1pOp>([&](auto) { floatUnary(op, [](auto a) { return std::log1p(a); }); })
      .Case<math::SqrtOp>([&](auto) { floatUnary(op, [](auto a) { return std::sqrt(a); }); })
      .Case<math::RsqrtOp>([&](auto) {
        floatUnary(op, [](auto a) { return decltype(a)(1) / std::sqrt(a); });
      })
      .Case<math::SinOp>([&](auto) { floatUnary(op, [](auto a) { return std::sin(a); }); })
      .Case<math::CosOp>([&](auto) { floatUnary(op, [](auto a) { return std::cos(a); }); })
      .Case<math::TanOp>([&](auto) { floatUnary(op, [](auto a) { return std::tan(a); }); })
      .Case<math::ErfOp>([&](auto) { floatUnary(op, [](auto a) { return std::erf(a); }); })
      .Case<math::TanhOp>([&](auto) { floatUnary(op, [](auto a) { return std::tanh(a); }); })
      .Case<math::FloorOp>([&](auto) { floatUnary(op, [](auto a) { return std::floor(a); }); })
      .Case<math::CeilOp>([&](auto) { floatUnary(op, [](auto a) { return std::ceil(a); }); })
      .Case<math::TruncOp>([&](auto) { floatUnary(op, [](auto a) { return std::trunc(a); }); })
      .Case<math::RoundOp>([&](auto) { floatUnary(op, [](auto a) { return std::round(a); }); })
      .Case<math::RoundEvenOp>([&](auto) { floatUnary(op, [](auto a) { return std::nearbyint(a); }); })
      .Case<math::AbsFOp>([&](auto) { floatUnary(op, [](auto a) { return std::fabs(a); }); })
      .Case<math::CopySignOp>([&](auto) {
        floatBinary(op, [](auto a, auto b) { return std::copysign(a, b); });
      })
      .Case<math::PowFOp>([&](auto) { floatBinary(op, [](auto a, auto b) { return std::pow(a, b); }); })
      .Case<math::Atan2Op>([&](auto) {
        floatBinary(op, [](auto a, auto b) { return std::atan2(a, b); });
      })
      .Case<math::AcosOp>([&](auto) { floatUnary(op, [](auto a) { return std::acos(a); }); })
      .Case<math::AcoshOp>([&](auto) { floatUnary(op, [](auto a) { return std::acosh(a); }); })
      .Case<math::AsinOp>([&](auto) { floatUnary(op, [](auto a) { return std::asin(a); }); })
      .Case<math::AsinhOp>([&](auto) { floatUnary(op, [](auto a) { return std::asinh(a); }); })
      .Case<math::AtanOp>([&](auto) { floatUnary(op, [](auto a) { return std::atan(a); }); })
      .Case<math::AtanhOp>([&](auto) { floatUnary(op, [](auto a) { return std::atanh(a); }); })
      .Case<math::CbrtOp>([&](auto) { floatUnary(op, [](auto a) { return std::cbrt(a); }); })
      .Case<math::CoshOp>([&](auto) { floatUnary(op, [](auto a) { return std::cosh(a); }); })
      .Case<math::SinhOp>([&](auto) { floatUnary(op, [](auto a) { return std::sinh(a); }); })
      .Case<math::ErfcOp>([&](auto) { floatUnary(op, [](auto a) { return std::erfc(a); }); })
      .Case<math::IsNaNOp>([&](auto) { floatTest(op, [](double a) { return std::isnan(a); }); })
      .Case<math::IsInfOp>([&](auto) { floatTest(op, [](double a) { return std::isinf(a); }); })
      .Case<math::CountLeadingZerosOp>([&](auto) { countBits(op, true); })
      .Case<math::CtPopOp>([&](auto) { countBits(op, false); })
      .Case<math::FmaOp>([&](auto o) { fma(o); })
      .Case<math::AbsIOp>([&](auto o) { absi(o); })
      // scf
      .Case<scf::ForOp>([&](auto o) { forOp(o); })
      .Case<scf::IfOp>([&](auto o) { ifOp(o); })
      .Case<scf::WhileOp>([&](auto o) { whileOp(o); })
      .Default([&](Operation *o) { unsupported(o); });
}

//===----------------------------------------------------------------------===//
// Arguments and the grid
//===----------------------------------------------------------------------===//

void Machine::bindArguments(std::vector<TensorRef> &values) {
  FunctionType type = fn_.getFunctionType();
  Location loc = fn_.getLoc();
  if (args_.size() != type.getNumInputs())
    failAt(loc, "the kernel takes " + std::to_string(type.getNumInputs()) +
                    " runtime arguments, got " + std::to_string(args_.size()));
  for (size_t k = 0; k < args_.size(); ++k) {
    const Arg &arg = args_[k];
    Type t = type.getInput(k);
    Elem e = elemOf(fn_, t);
    auto divisibility =
        fn_.getArgAttrOfType<IntegerAttr>(unsigned(k), tile::kDivisibilityAttr);
    int64_t divisor = divisibility ? divisibility.getInt() : 1;
    Tensor v = makeTensor(e, {}, 1);
    std::string name = "'" + argName(k) + "'";
    switch (e.kind) {
    case Kind::Ptr: {
      if (arg.kind != Arg::Kind::Buffer)
        failAt(loc, "argument " + name + " is a pointer (" + typeString(t) +
                        ") but was given a number");
      if (!arg.buffer.data && arg.buffer.bytes)
        failAt(loc, "argument " + name + " is a null pointer of " +
                        std::to_string(arg.buffer.bytes) + " bytes");
      auto address = reinterpret_cast<uintptr_t>(arg.buffer.data);
      if (divisor > 1 && address % uint64_t(divisor))
        failAt(loc, "argument " + name + " is promised to be " +
                        std::to_string(divisor) + "-byte aligned (':" +
                        std::to_string(divisor) +
                        "' in the signature) but its address is " +
                        std::to_string(address % uint64_t(divisor)) +
                        " bytes past a multiple of " + std::to_string(divisor));
      v.buf[0] = int32_t(k);
      v.i[0] = 0;
      break;
    }
    case Kind::Int: {
      if (arg.kind != Arg::Kind::Int)
        failAt(loc, "argument " + name + " is an integer (" + typeString(t) +
                        ") but was given " +
                        (arg.kind == Arg::Kind::Buffer ? "a buffer" : "a float"));
      int64_t x = arg.intValue;
      if (e.bits < 64) {
        int64_t lo = -(int64_t(1) << (e.bits - 1)), hi = (int64_t(1) << e.bits) - 1;
        if (x < lo || x > hi)
          failAt(loc, "argument " + name + " = " + std::to_string(x) +
                          " does not fit in " + typeString(t));
      }
      if (divisor > 1 && x % divisor)
        failAt(loc, "argument " + name + " is promised to be divisible by " +
                        std::to_string(divisor) + " (':" + std::to_string(divisor) +
                        "' in the signature) but is " + std::to_string(x));
      v.i[0] = wrapInt(uint64_t(x), e.bits);
      break;
    }
    case Kind::Float:
      if (arg.kind == Arg::Kind::Buffer)
        failAt(loc, "argument " + name + " is a float (" + typeString(t) +
                        ") but was given a buffer");
      v.f[0] = roundTo(arg.kind == Arg::Kind::Int ? double(arg.intValue)
                                                  : arg.floatValue,
                       e.fmt);
      break;
    }
    values.push_back(std::make_shared<const Tensor>(std::move(v)));
  }
}

RunStats Machine::run() {
  if (fn_.isExternal())
    failAt(fn_.getLoc(), "the kernel has no body");
  std::vector<TensorRef> argValues;
  bindArguments(argValues);
  Block &entry = fn_.getBody().front();
  fn_.walk([&](scf::ForOp loop) {
    if (auto n = loop->getAttrOfType<IntegerAttr>(tile::kNumCtasAttr))
      clusterSize_ = uint32_t(n.getInt());
  });
  if (grid_.x % clusterSize_)
    failAt(fn_.getLoc(), "the grid's " + std::to_string(grid_.x) +
                             " programs along axis 0 are not whole clusters of " +
                             std::to_string(clusterSize_) + " (tl.range(..., num_ctas=" +
                             std::to_string(clusterSize_) + "))");
  llvm::SmallVector<TensorRef, 4> yielded;
  inProgram_ = true;
  for (uint32_t z = 0; z < grid_.z; ++z)
    for (uint32_t y = 0; y < grid_.y; ++y)
      for (uint32_t x = 0; x < grid_.x; ++x) {
        pid_ = {x, y, z};
        env_.clear();
        for (size_t k = 0; k < argValues.size(); ++k)
          set(entry.getArgument(k), argValues[k]);
        runBlock(entry, yielded);
        ++stats_.programs;
      }
  inProgram_ = false;
  env_.clear();
  return stats_;
}

} // namespace

RunStats run(ModuleOp tileModule, const std::string &kernel, Grid grid,
             const std::vector<Arg> &args, const RunLimits &limits,
             const PrintSink &print) {
  auto fn = tileModule.lookupSymbol<func::FuncOp>(kernel);
  if (!fn)
    throw InterpreterError("", "no function '" + kernel + "' in the module",
                           kernel, false, {0, 0, 0});
  Machine machine(fn, kernel, grid, args, limits, print);
  return machine.run();
}

} // namespace tilec::interp
