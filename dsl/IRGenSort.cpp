// tl.sort(x, dim=None, descending=False): a bitonic sorting network along
// one dimension of a tile, built from ops the layouts already place.
//
// For a dimension of n = 2^k, stage s = 1..k makes runs of 2^s sorted,
// alternately ascending and descending (by bit s of the index), so that
// each pair of neighbouring runs is bitonic for the next stage; the last
// stage sorts the whole dimension the way asked. A stage is s steps of
// compare-and-swap at strides 2^(s-1) .. 1: each element meets the
// element whose index differs in the stride's bit (its partner) and keeps
// the smaller or the larger of the two.
//
// A partner is fetched bit for bit: with the dimension cut into
// [n / 2stride, 2, stride], the XOR over the axis of 2 of the element's
// bits, XORed with its own, is the other's (as tl.flip swaps halves).
// That axis is registers, lanes or warps as the layout has it, so the
// exchange is a register move, a shuffle or a trip through shared memory,
// and nothing else moves. An element is replaced only by its partner,
// chosen by a comparison, never computed: the result is a permutation of
// x whatever it holds. NaN counts as larger than every number (numpy's
// order: last when ascending, first when descending); equal elements
// (0.0 and -0.0, NaNs of different payloads) keep an unspecified order.
#include "dsl/BuiltinTable.h"

#include "llvm/Support/MathExtras.h"

namespace tilec::dsl {

namespace {

/// Bit `bit` of each element's index along the last dimension of `shape`,
/// as 0 or 1 (i32), broadcast to `shape`.
Value indexBit(Generator &g, const std::vector<int64_t> &shape, unsigned bit,
               SourceLoc at) {
  int64_t n = shape.back();
  std::vector<int64_t> along(shape.size(), 1);
  along.back() = n;
  Value index = g.broadcastTo(reshapeTensor(g, rangeOf(g, n, at), along, at, at, "tl.sort"),
                              shape, at);
  Value shifted = g.binary(BinaryOp::RShift, index, Value::ofInt(bit), at);
  return g.binary(BinaryOp::BitAnd, shifted, Value::ofInt(1), at);
}

/// Sorts `bits` (the elements of type `element` as integers of their
/// width) along their last dimension.
Value bitonicSort(Generator &g, Value bits, DType element, bool descending,
                  SourceLoc at) {
  std::vector<int64_t> shape = bits.type.shape;
  int64_t n = shape.back();
  unsigned k = llvm::Log2_64(uint64_t(n));
  int64_t rank = shape.size();
  auto xorCombiner = [&](const std::vector<Value> &l, const std::vector<Value> &r) {
    return std::vector<Value>{g.binary(BinaryOp::BitXor, l[0], r[0], at)};
  };
  for (unsigned stage = 1; stage <= k; ++stage) {
    // 1 in the runs this stage sorts descending (none at the last stage,
    // whose bit is past the dimension, unless `descending` flips all).
    Value inDescendingRun = indexBit(g, shape, stage, at);
    for (unsigned step = stage; step-- > 0;) {
      int64_t stride = int64_t(1) << step;
      std::vector<int64_t> pairs(shape.begin(), shape.end() - 1);
      pairs.insert(pairs.end(), {n / (2 * stride), 2, stride});
      Value y = reshapeTensor(g, bits, pairs, at, at, "tl.sort");
      Value both = g.reduce({y}, rank, /*keepDims=*/true, xorCombiner, at)[0];
      Value partner = reshapeTensor(g, g.binary(BinaryOp::BitXor, y, both, at), shape, at, at,
                                    "tl.sort");
      // The left element of an ascending pair keeps the smaller, the
      // right one the larger; descending the other way round.
      Value isRight = indexBit(g, shape, step, at);
      Value keepSmaller = g.compare(descending ? CompareOp::Ne : CompareOp::Eq,
                                    isRight, inDescendingRun, at);
      auto value = [&](const Value &v) {
        Value typed = g.cast(v, element, at, /*bitcast=*/true);
        // 8-bit floats take no arithmetic: compare them widened.
        return element.isFP8() ? g.cast(typed, DType{ScalarKind::Float32, false}, at)
                               : typed;
      };
      Value mine = value(bits), theirs = value(partner);
      Value less = g.compare(CompareOp::Lt, theirs, mine, at);
      Value greater = g.compare(CompareOp::Gt, theirs, mine, at);
      if (element.isFloat()) {
        // NaN is larger than every number (numpy's order, NaNs last), so
        // that every pair compares and the network sorts the rest.
        Value mineNaN = g.compare(CompareOp::Ne, mine, mine, at);
        Value theirsNaN = g.compare(CompareOp::Ne, theirs, theirs, at);
        auto andNot = [&](const Value &a, const Value &b) {
          return g.binary(BinaryOp::BitAnd, a,
                          g.compare(CompareOp::Eq, b, Value::ofBool(false), at), at);
        };
        less = g.binary(BinaryOp::BitOr, less, andNot(mineNaN, theirsNaN), at);
        greater = g.binary(BinaryOp::BitOr, greater, andNot(theirsNaN, mineNaN), at);
      }
      Value take = g.where(keepSmaller, less, greater, at);
      bits = g.where(take, partner, bits, at);
    }
  }
  return bits;
}

Value sort(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &x = args["x"];
  if (!x.isIR() || !x.type.isTensor())
    fail(args.loc("x"), "tl.sort needs a tensor, got " + x.describe());
  if (x.type.element.isPointer)
    fail(args.loc("x"), "tl.sort of pointers is not supported");
  int64_t rank = x.type.shape.size();
  int64_t dim = rank - 1;
  if (args.has("dim")) {
    dim = g.constInt(args["dim"], args.loc("dim"), "dim");
    if (dim < -rank || dim >= rank)
      fail(args.loc("dim"), "dim " + std::to_string(dim) + " is out of range for rank " +
                                std::to_string(rank));
    if (dim < 0)
      dim += rank;
  }
  bool descending = false;
  if (args.has("descending")) {
    const Value &d = args["descending"];
    std::optional<bool> truth = d.isConstexpr() ? d.truthiness() : std::nullopt;
    if (!truth)
      fail(args.loc("descending"),
           "descending must be a compile-time boolean, got " + d.describe());
    descending = *truth;
  }
  if (x.type.shape[dim] == 1)
    return x;
  // The sorted dimension last (a permutation moves no data).
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      order.push_back(d);
  order.push_back(dim);
  Value y = dim == rank - 1 ? x : g.permute(x, order, at, "tl.sort");
  // Booleans compare as the integers 0 and 1.
  bool isBool = y.type.element.isBool();
  DType element = isBool ? DType{ScalarKind::Int8, false} : y.type.element;
  if (isBool)
    y = g.cast(y, element, at);
  ScalarKind kind = bitsType(element);
  Value bits = kind == element.scalar ? y : g.cast(y, DType{kind, false}, at, true);
  Value sorted = bitonicSort(g, bits, element, descending, at);
  if (kind != element.scalar)
    sorted = g.cast(sorted, element, at, /*bitcast=*/true);
  if (isBool)
    sorted = g.compare(CompareOp::Ne, sorted, Value::ofInt(0), at);
  if (dim == rank - 1)
    return sorted;
  std::vector<int64_t> back(rank);
  for (int64_t i = 0; i < rank; ++i)
    back[order[i]] = i;
  return g.permute(sorted, back, at, "tl.sort");
}

} // namespace

void addSortBuiltins(BuiltinTable &t) {
  t.add("tl.sort", {{"x", "dim", "descending"}, 1}, sort);
}

} // namespace tilec::dsl
