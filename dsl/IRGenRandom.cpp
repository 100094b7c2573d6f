// tl.umulhi and the random numbers of `tl`: Philox 4x32-10 (Salmon et
// al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) keyed by a
// seed and counted by an offset per element, as Triton's tl.randint,
// randint4x, rand, rand4x, randn and randn4x compute it, so that a kernel
// draws the same stream under tilec as under Triton for the same seed and
// offsets (tests/python/test_gpu_random.py compares the two).
//
// The counter is (offset, 0, 0, 0) for 32-bit offsets and (offset's low
// word, its high word, 0, 0) for 64-bit ones (what Triton 3.6 computes:
// checked on the H200), the key (seed low word, seed high word). Each
// round multiplies two counter words by the round constants, keeping both
// halves of the products, and the key advances by the Weyl constants. Uniform floats take the integer as
// signed, fold negatives onto the non-negatives (-x - 1) and scale by the
// largest float s with INT_MAX * s < 1; normals come from two uniforms
// through Box-Muller.
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace tilec::dsl {

namespace {

constexpr int64_t kDefaultRounds = 10;

// Philox 4x32's Weyl (key) and round multipliers.
constexpr uint64_t kKeyA = 0x9E3779B9, kKeyB = 0xBB67AE85;
constexpr uint64_t kRoundA = 0xD2511F53, kRoundB = 0xCD9E8D57;

DType u32() { return DType{ScalarKind::UInt32, false}; }
DType u64() { return DType{ScalarKind::UInt64, false}; }

/// A scalar integer constant of `type` with these bits.
Value bitsConstant(Generator &g, uint64_t bits, DType type, SourceLoc at) {
  mlir::OpBuilder &b = g.builder();
  mlir::Type t = type.toMLIR(b.getContext());
  auto attr = b.getIntegerAttr(t, llvm::APInt(type.bits(), bits));
  return Value::ofIR(b.create<mlir::arith::ConstantOp>(g.loc(at), attr),
                     ValueType{type, {}});
}

/// The high half of the unsigned product of two integers of one type (32
/// or 64 bits).
Value mulHigh(Generator &g, const Value &a, const Value &b, SourceLoc at) {
  DType type = a.type.element;
  if (type.bits() == 32) {
    // Zero-extended, whatever the signedness: the product is unsigned.
    auto widen = [&](const Value &x) {
      return g.cast(g.cast(x, u32(), at, /*bitcast=*/type != u32()), u64(), at);
    };
    Value wide = g.binary(BinaryOp::Mul, widen(a), widen(b), at);
    Value high = g.binary(BinaryOp::RShift, wide, bitsConstant(g, 32, u64(), at), at);
    return g.cast(g.cast(high, u32(), at), type, at, /*bitcast=*/type != u32());
  }
  // 64 bits, from the 32-bit halves: hi = a1*b1 + (a0*b1 >> 32) +
  // (a1*b0 >> 32) + ((a0*b0 >> 32) + low32(a0*b1) + low32(a1*b0)) >> 32.
  Value ua = g.cast(a, u64(), at, /*bitcast=*/type != u64());
  Value ub = g.cast(b, u64(), at, /*bitcast=*/type != u64());
  Value mask = bitsConstant(g, 0xFFFFFFFF, u64(), at);
  Value shift = bitsConstant(g, 32, u64(), at);
  auto low = [&](const Value &x) { return g.binary(BinaryOp::BitAnd, x, mask, at); };
  auto high = [&](const Value &x) { return g.binary(BinaryOp::RShift, x, shift, at); };
  auto mul = [&](const Value &x, const Value &y) { return g.binary(BinaryOp::Mul, x, y, at); };
  auto add = [&](const Value &x, const Value &y) { return g.binary(BinaryOp::Add, x, y, at); };
  Value a0 = low(ua), a1 = high(ua), b0 = low(ub), b1 = high(ub);
  Value p00 = mul(a0, b0), p01 = mul(a0, b1), p10 = mul(a1, b0), p11 = mul(a1, b1);
  Value middle = add(add(high(p00), low(p01)), low(p10));
  Value hi = add(add(add(p11, high(p01)), high(p10)), high(middle));
  return g.cast(hi, type, at, /*bitcast=*/type != u64());
}

/// tl.umulhi(x, y): both integers of 32 or 64 bits after promotion.
Value umulhi(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  Value x = g.toIR(args["x"], args.loc("x")), y = g.toIR(args["y"], args.loc("y"));
  Promotion p = promoteArithmetic(promotionOperand(args["x"]), promotionOperand(args["y"]));
  if (!p.type)
    fail(at, "tl.umulhi: " + p.error);
  if (!p.type->isInt() || p.type->isPointer || (p.type->bits() != 32 && p.type->bits() != 64))
    fail(at, "tl.umulhi needs integers of 32 or 64 bits, got " + x.type.str() +
                 " and " + y.type.str());
  x = g.cast(x, *p.type, args.loc("x"));
  y = g.cast(y, *p.type, args.loc("y"));
  g.broadcastPair(x, y, at);
  return mulHigh(g, x, y, at);
}

int64_t rounds(Generator &g, const BuiltinArguments &args) {
  if (!args.has("n_rounds"))
    return kDefaultRounds;
  int64_t n = g.constInt(args["n_rounds"], args.loc("n_rounds"), "n_rounds");
  if (n < 0 || n > 64)
    fail(args.loc("n_rounds"), "n_rounds must be from 0 to 64, got " + std::to_string(n));
  return n;
}

/// The offset argument: an integer of 32 or 64 bits.
void checkOffset(const Value &offset, SourceLoc l, const std::string &what) {
  if (!offset.type.element.isInt() || offset.type.element.isPointer ||
      (offset.type.element.bits() != 32 && offset.type.element.bits() != 64))
    fail(l, what + ": the offset must be an integer of 32 or 64 bits, got " +
                offset.type.str());
}

/// Philox 4x32 with counter (c0, c1, c2, c3) and key (k0, k1), all
/// uint32, for `n` rounds.
std::vector<Value> philoxRounds(Generator &g, std::vector<Value> c, Value k0, Value k1,
                                int64_t n, SourceLoc at) {
  Value a = bitsConstant(g, kRoundA, u32(), at), b = bitsConstant(g, kRoundB, u32(), at);
  Value keyA = bitsConstant(g, kKeyA, u32(), at), keyB = bitsConstant(g, kKeyB, u32(), at);
  auto x = [&](const Value &l, const Value &r) { return g.binary(BinaryOp::BitXor, l, r, at); };
  for (int64_t r = 0; r < n; ++r) {
    Value c0 = c[0], c2 = c[2];
    c[0] = x(x(mulHigh(g, b, c2, at), c[1]), k0);
    c[2] = x(x(mulHigh(g, a, c0, at), c[3]), k1);
    c[1] = g.binary(BinaryOp::Mul, b, c2, at);
    c[3] = g.binary(BinaryOp::Mul, a, c0, at);
    k0 = g.binary(BinaryOp::Add, k0, keyA, at);
    k1 = g.binary(BinaryOp::Add, k1, keyB, at);
  }
  return c;
}

/// The key words of `seed`: its low and high 32 bits.
std::pair<Value, Value> philoxKey(Generator &g, const BuiltinArguments &args) {
  SourceLoc l = args.loc("seed");
  Value seed = g.toIR(args["seed"], l);
  if (!seed.type.element.isInt() || seed.type.element.isPointer || seed.type.isTensor())
    fail(l, args.function() + ": the seed must be a scalar integer, got " + seed.type.str());
  seed = g.cast(seed, u64(), l);
  Value lo = g.cast(seed, u32(), l);
  Value hi = g.cast(g.binary(BinaryOp::RShift, seed, bitsConstant(g, 32, u64(), l), l), u32(), l);
  return {lo, hi};
}

/// randint4x: the four words of Philox at counter (offset, 0, 0, 0), or
/// (low word, high word, 0, 0) of a 64-bit offset.
std::vector<Value> randomWords(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at(), l = args.loc("offset");
  g.requireIR(at, args.function().c_str());
  Value offset = g.toIR(args["offset"], l);
  checkOffset(offset, l, args.function());
  bool wide = offset.type.element.bits() == 64;
  Value bits = g.cast(offset, wide ? u64() : u32(), l, /*bitcast=*/true);
  Value c0 = wide ? g.cast(bits, u32(), l) : bits;
  Value zero = g.binary(BinaryOp::Mul, c0, bitsConstant(g, 0, u32(), at), at);
  Value c1 = wide ? g.cast(g.binary(BinaryOp::RShift, bits, bitsConstant(g, 32, u64(), l), l),
                           u32(), l)
                  : zero;
  auto [k0, k1] = philoxKey(g, args);
  if (c0.type.isTensor()) {
    k0 = g.broadcastTo(k0, c0.type.shape, at);
    k1 = g.broadcastTo(k1, c0.type.shape, at);
  }
  return philoxRounds(g, {c0, c1, zero, zero}, k0, k1, rounds(g, args), at);
}

/// A random 32- or 64-bit word → a float32 in [0, 1).
Value uniformFloat(Generator &g, const Value &word, SourceLoc at) {
  bool wide = word.type.element.bits() == 64;
  DType signedType{wide ? ScalarKind::Int64 : ScalarKind::Int32, false};
  Value x = g.cast(word, signedType, at, /*bitcast=*/true);
  Value zero = bitsConstant(g, 0, signedType, at);
  Value negative = g.compare(CompareOp::Lt, x, zero, at);
  Value folded = g.binary(BinaryOp::Sub, g.binary(BinaryOp::Sub, zero, x, at),
                          bitsConstant(g, 1, signedType, at), at);
  x = g.where(negative, folded, x, at);
  // The largest scale s with INT_MAX * s < 1 in float32 arithmetic.
  double scale = wide ? 1.0842020432385337e-19 : 4.6566127342e-10;
  DType f32{ScalarKind::Float32, false};
  return g.binary(BinaryOp::Mul, g.cast(x, f32, at),
                  g.toIR(Value::ofFloat(double(float(scale))), at, f32), at);
}

/// Box-Muller: two uniforms → two standard normals.
std::pair<Value, Value> normalPair(Generator &g, const Value &u1, const Value &u2,
                                   SourceLoc at) {
  DType f32{ScalarKind::Float32, false};
  auto constant = [&](double v) { return g.toIR(Value::ofFloat(v), at, f32); };
  Value floor = g.minMax(false, constant(1.0e-7), u1, false, at, "tl.maximum");
  Value theta = g.binary(BinaryOp::Mul, constant(6.283185307179586), u2, at);
  Value r = g.mathFunction(
      "tl.sqrt",
      g.binary(BinaryOp::Mul, constant(-2.0), g.mathFunction("tl.log", floor, at), at),
      at);
  return {g.binary(BinaryOp::Mul, r, g.mathFunction("tl.cos", theta, at), at),
          g.binary(BinaryOp::Mul, r, g.mathFunction("tl.sin", theta, at), at)};
}

Value randint4x(Generator &g, const BuiltinArguments &args) {
  return Value::ofTuple(randomWords(g, args));
}
Value randint(Generator &g, const BuiltinArguments &args) {
  return randomWords(g, args)[0];
}
Value rand(Generator &g, const BuiltinArguments &args) {
  return uniformFloat(g, randomWords(g, args)[0], args.at());
}
Value rand4x(Generator &g, const BuiltinArguments &args) {
  std::vector<Value> words = randomWords(g, args);
  for (Value &w : words)
    w = uniformFloat(g, w, args.at());
  return Value::ofTuple(words);
}
Value randn(Generator &g, const BuiltinArguments &args) {
  std::vector<Value> words = randomWords(g, args);
  return normalPair(g, uniformFloat(g, words[0], args.at()),
                    uniformFloat(g, words[1], args.at()), args.at())
      .first;
}
Value randn4x(Generator &g, const BuiltinArguments &args) {
  std::vector<Value> words = randomWords(g, args);
  std::vector<Value> u;
  for (Value &w : words)
    u.push_back(uniformFloat(g, w, args.at()));
  auto [n1, n2] = normalPair(g, u[0], u[1], args.at());
  auto [n3, n4] = normalPair(g, u[2], u[3], args.at());
  return Value::ofTuple({n1, n2, n3, n4});
}

Value uintToUniformFloat(Generator &g, const BuiltinArguments &args) {
  Value x = g.toIR(args["x"], args.loc("x"));
  if (!x.type.element.isInt() || x.type.element.isPointer ||
      (x.type.element.bits() != 32 && x.type.element.bits() != 64))
    fail(args.loc("x"), "tl.uint_to_uniform_float needs integers of 32 or 64 bits, got " +
                            x.type.str());
  return uniformFloat(g, x, args.at());
}

Value pairUniformToNormal(Generator &g, const BuiltinArguments &args) {
  DType f32{ScalarKind::Float32, false};
  Value u1 = g.cast(g.toIR(args["u1"], args.loc("u1")), f32, args.loc("u1"));
  Value u2 = g.cast(g.toIR(args["u2"], args.loc("u2")), f32, args.loc("u2"));
  g.broadcastPair(u1, u2, args.at());
  auto [n1, n2] = normalPair(g, u1, u2, args.at());
  return Value::ofTuple({n1, n2});
}

} // namespace

void addRandomBuiltins(BuiltinTable &t) {
  t.add("tl.umulhi", {{"x", "y"}, 2}, umulhi);
  BuiltinSignature random{{"seed", "offset", "n_rounds"}, 2};
  t.add("tl.randint", random, randint);
  t.add("tl.randint4x", random, randint4x);
  t.add("tl.rand", random, rand);
  t.add("tl.rand4x", random, rand4x);
  t.add("tl.randn", random, randn);
  t.add("tl.randn4x", random, randn4x);
  t.add("tl.uint_to_uniform_float", {{"x"}, 1}, uintToUniformFloat);
  t.add("tl.pair_uniform_to_normal", {{"u1", "u2"}, 2}, pairUniformToNormal);
}

} // namespace tilec::dsl
