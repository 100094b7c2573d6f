// Shape builtins: tl.trans, tl.permute, tl.reshape (and tl.view), tl.ravel,
// tl.broadcast_to, tl.broadcast and tl.expand_dims, the tensor methods of
// the same names and `x.T`; tl.join, tl.interleave and tl.cat (tile.join,
// reshaped or transposed), tl.split, tl.flip, tl.gather, tl.histogram. Their rules are Triton's: dims and shapes may
// be one tuple or one argument each (`tl.trans(x, 1, 0)`), permutations
// list each dimension once (no negative entries), reshape keeps the
// row-major order and the element count, broadcast_to keeps the rank, and
// expand_dims takes negative axes (counted in the result). The tl.X forms
// are registered in the builtins table (addShapeBuiltins); the methods bind
// their arguments the same way, the receiver standing for `input`.
#include "dsl/BuiltinTable.h"

#include <algorithm>
#include <cassert>

namespace tilec::dsl {

namespace {
std::string tupleString(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

/// The arguments of a shape builtin, from its table binding: its tensor
/// (the receiver of a method call, else the first positional argument or
/// `input=`), then integers given as one tuple or as one argument each
/// (Triton's `*dims`, `*shape`; also accepted by keyword under `listName`).
/// Other keywords stay in the binding.
struct ShapeArguments {
  ShapeArguments(const BuiltinArguments &args, const Value *self,
                 const std::string &listName, const std::string &keywords)
      : function(args.function() + "()"), listName(listName) {
    const std::vector<Value> &positional = args.variadic();
    size_t next = 0;
    inputLoc = args.at();
    if (self) {
      input = *self;
    } else if (!positional.empty()) {
      if (args.has("input"))
        fail(args.loc("input"), function + " got multiple values for 'input'");
      input = positional[0];
      inputLoc = args.variadicLoc(0);
      next = 1;
    } else if (args.has("input")) {
      input = args["input"];
      inputLoc = args.loc("input");
    } else {
      fail(args.at(), function + " missing required argument 'input'");
    }
    if (next < positional.size()) {
      if (listName.empty())
        fail(args.variadicLoc(next), function + " takes no other positional "
                                                "argument (keywords: " +
                                         keywords + ")");
      if (args.has(listName))
        fail(args.loc(listName),
             function + " got multiple values for '" + listName + "'");
      listLoc = args.variadicLoc(next);
      setList({positional.begin() + next, positional.end()});
    } else if (!listName.empty() && args.has(listName)) {
      listLoc = args.loc(listName);
      setList({args[listName]});
    }
  }

  /// The integers, each a compile-time int.
  std::vector<int64_t> ints(Generator &gen) const {
    std::vector<int64_t> out;
    for (const Value &v : list)
      out.push_back(gen.constInt(v, listLoc, "each entry of the " + listName +
                                                 " of " + function));
    return out;
  }

  /// The call as messages name it: "tl.trans()", "x.reshape()".
  std::string function, listName;
  Value input;
  SourceLoc inputLoc;
  std::vector<Value> list;
  SourceLoc listLoc;
  bool hasList = false;

private:
  /// One tuple stands for its elements; several values for themselves.
  void setList(const std::vector<Value> &values) {
    hasList = true;
    if (values.size() == 1 && values[0].kind == Value::Kind::Tuple)
      list = values[0].elements;
    else
      list = values;
  }
};

/// `x` must be a tensor (not a scalar or a compile-time value).
void requireTensor(const Value &x, SourceLoc at, const std::string &what) {
  if (!x.isIR() || !x.type.isTensor())
    fail(at, what + " needs a tensor, got " + x.describe());
}

} // namespace

bool isShapeMethod(const std::string &name) {
  return name == "trans" || name == "permute" || name == "reshape" ||
         name == "view" || name == "ravel" || name == "broadcast_to" || name == "expand_dims";
}

Value Generator::permute(const Value &x, const std::vector<int64_t> &dims,
                         SourceLoc at, const std::string &what) {
  requireTensor(x, at, what);
  size_t rank = x.type.shape.size();
  if (dims.size() != rank)
    fail(at, what + ": dims " + tupleString(dims) +
                 " must have one entry per dimension of " + x.describe());
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= int64_t(rank) || seen[d])
      fail(at, what + ": dims " + tupleString(dims) +
                   " must be a permutation of 0, ..., " + std::to_string(rank - 1));
    seen[d] = true;
  }
  std::vector<int64_t> shape;
  std::vector<int32_t> order;
  for (int64_t d : dims) {
    shape.push_back(x.type.shape[d]);
    order.push_back(int32_t(d));
  }
  if (shape == x.type.shape && std::is_sorted(order.begin(), order.end()))
    return x; // the identity
  ValueType type{x.type.element, shape};
  auto op = builder().create<tile::TransOp>(loc(at), type.toMLIR(builder().getContext()),
                                            x.ir, order);
  return Value::ofIR(op, type);
}

Value reshapeTensor(Generator &gen, const Value &x, const std::vector<int64_t> &shape,
                    SourceLoc at, SourceLoc shapeAt, const std::string &what) {
  requireTensor(x, at, what);
  if (shape.empty())
    fail(shapeAt, what + " needs a shape of at least one dimension");
  ValueType type = gen.tensorType(x.type.element, shape, shapeAt);
  int64_t from = 1, to = 1;
  for (int64_t d : x.type.shape)
    from *= d;
  for (int64_t d : shape)
    to *= d;
  if (from != to)
    fail(shapeAt, what + " cannot change the number of elements: " +
                      shapeString(x.type.shape) + " has " + std::to_string(from) +
                      ", " + shapeString(shape) + " has " + std::to_string(to));
  if (shape == x.type.shape)
    return x;
  mlir::OpBuilder &b = gen.builder();
  auto op = b.create<tile::ReshapeOp>(gen.loc(at), type.toMLIR(b.getContext()), x.ir);
  return Value::ofIR(op, type);
}

Value rangeOf(Generator &g, int64_t n, SourceLoc at) {
  ValueType type = g.tensorType(DType{ScalarKind::Int32, false}, {n}, at);
  mlir::OpBuilder &b = g.builder();
  return Value::ofIR(b.create<tile::MakeRangeOp>(g.loc(at), type.toMLIR(b.getContext()), 0,
                                                 int32_t(n)),
                     type);
}

namespace {
/// tl.broadcast_to: the same rank, size-1 dimensions stretched; a scalar
/// is splatted.
Value broadcastShape(Generator &gen, const Value &input,
                     const std::vector<int64_t> &shape, SourceLoc at,
                     SourceLoc shapeAt, const std::string &what) {
  if (!input.isIR() && !input.isNumber())
    fail(at, what + " needs a tensor or a number, got " + input.describe());
  gen.requireIR(at, what.c_str());
  Value x = gen.toIR(input, at);
  if (shape.empty())
    fail(shapeAt, what + " needs a shape of at least one dimension");
  gen.tensorType(x.type.element, shape, shapeAt); // powers of two, size
  if (x.type.isTensor()) {
    const std::vector<int64_t> &from = x.type.shape;
    if (from.size() != shape.size())
      fail(shapeAt, what + " keeps the rank: " + shapeString(from) +
                        " cannot become " + shapeString(shape) +
                        " (insert dimensions with x[None, :] or tl.expand_dims)");
    for (size_t d = 0; d < shape.size(); ++d)
      if (from[d] != shape[d] && from[d] != 1)
        fail(shapeAt, what + ": dimension " + std::to_string(d) + " of size " +
                          std::to_string(from[d]) + " cannot become " +
                          std::to_string(shape[d]) + " (only size-1 dimensions "
                          "stretch): " + shapeString(from) + " to " +
                          shapeString(shape));
  }
  return gen.broadcastTo(x, shape, at);
}

/// tl.expand_dims: a size-1 dimension at each of `axes` of the result
/// (negative ones count from its end); a scalar becomes a 1-element tensor
/// first.
Value expandDims(Generator &gen, const Value &input, std::vector<int64_t> axes,
                 SourceLoc at, SourceLoc axisAt, const std::string &what) {
  if (!input.isIR() && !input.isNumber())
    fail(at, what + " needs a tensor or a number, got " + input.describe());
  if (axes.empty())
    fail(axisAt, what + " needs at least one axis");
  gen.requireIR(at, what.c_str());
  Value x = gen.toIR(input, at);
  int64_t rank = int64_t(x.type.shape.size() + axes.size());
  std::vector<int64_t> given = axes;
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      fail(axisAt, what + ": axis " + std::to_string(a) + " is out of range for " +
                       "the rank-" + std::to_string(rank) + " result (" +
                       std::to_string(-rank) + " <= axis < " + std::to_string(rank) + ")");
    if (a < 0)
      a += rank;
  }
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    fail(axisAt, what + ": axes " + tupleString(given) + " name one axis twice");
  mlir::OpBuilder &b = gen.builder();
  for (int64_t axis : sorted) {
    std::vector<int64_t> shape = x.type.shape;
    shape.insert(shape.begin() + axis, 1);
    if (!x.type.isTensor()) {
      x = gen.broadcastTo(x, shape, at);
      continue;
    }
    ValueType type = gen.tensorType(x.type.element, shape, at);
    auto op = b.create<tile::ExpandDimsOp>(gen.loc(at), type.toMLIR(b.getContext()),
                                           x.ir, b.getI32IntegerAttr(int32_t(axis)));
    x = Value::ofIR(op, type);
  }
  return x;
}
} // namespace

namespace {
/// How tl.OP binds its arguments (`method`: how x.OP does, the receiver
/// standing for `input`). `*dims`, `*shape` and ravel's keyword-only
/// can_reorder make most of them variadic: the positional arguments are
/// the tensor, then the list (ShapeArguments sorts them out).
BuiltinSignature shapeSignature(const std::string &op, bool method) {
  auto sig = [&](std::vector<std::string> params, size_t required,
                 bool variadic) {
    if (!method)
      params.insert(params.begin(), "input");
    else if (required)
      --required;
    return BuiltinSignature{std::move(params), required, variadic};
  };
  if (op == "trans" || op == "permute")
    return sig({"dims"}, 0, true);
  if (op == "reshape")
    return sig({"shape", "can_reorder"}, 0, true);
  if (op == "view")
    return sig({"shape"}, 0, true);
  if (op == "ravel")
    return sig({"can_reorder"}, 0, true);
  if (op == "broadcast_to")
    return sig({"shape"}, 0, true);
  assert(op == "expand_dims" && "not a shape method");
  return sig({"axis"}, 2, false);
}

/// tl.OP(x, ...) when `self` is null, x.OP(...) when it is x: the shape
/// builtins that are also tensor methods, from their bound arguments.
Value shapeCall(Generator &gen, const std::string &op,
                const BuiltinArguments &bound, const Value *self) {
  SourceLoc at = bound.at();
  if (op == "trans" || op == "permute") {
    ShapeArguments args(bound, self, "dims", "");
    const std::string &what = args.function;
    if (args.hasList)
      return gen.permute(args.input, args.ints(gen), args.listLoc, what);
    if (op == "permute")
      fail(at, what + " needs dims, the order of the dimensions");
    // Without dims, trans swaps the two dimensions of a 2-D tensor, as
    // Triton's does.
    requireTensor(args.input, args.inputLoc, what);
    if (args.input.type.shape.size() != 2)
      fail(at, what + " without dims swaps the dimensions of a 2-D tensor; "
                      "give the order of the dimensions of " +
                   args.input.describe());
    return gen.permute(args.input, {1, 0}, at, what);
  }
  if (op == "reshape" || op == "view" || op == "ravel") {
    // tl.view (deprecated in Triton, whose order it leaves unspecified) is
    // tilec's reshape.
    bool ravel = op == "ravel";
    ShapeArguments args(bound, self, ravel ? "" : "shape",
                        op == "view" ? "" : "can_reorder");
    const std::string &what = args.function;
    // can_reorder=True lets the compiler pick any order; tilec's is always
    // the row-major one, which needs no data to move.
    if (op != "view" && bound.has("can_reorder") && !bound["can_reorder"].isConstexpr())
      fail(bound.loc("can_reorder"),
           "can_reorder must be a compile-time boolean, got " +
               bound["can_reorder"].describe());
    requireTensor(args.input, args.inputLoc, what);
    if (ravel) {
      int64_t n = 1;
      for (int64_t d : args.input.type.shape)
        n *= d;
      return reshapeTensor(gen, args.input, {n}, at, at, what);
    }
    if (!args.hasList)
      fail(at, what + " missing required argument 'shape'");
    return reshapeTensor(gen, args.input, args.ints(gen), at, args.listLoc, what);
  }
  if (op == "broadcast_to") {
    ShapeArguments args(bound, self, "shape", "");
    if (!args.hasList)
      fail(at, args.function + " missing required argument 'shape'");
    return broadcastShape(gen, args.input, args.ints(gen), at, args.listLoc,
                          args.function);
  }
  assert(op == "expand_dims" && "not a shape method");
  ShapeArguments args(bound, self, "axis", "");
  return expandDims(gen, args.input, args.ints(gen), at, args.listLoc,
                    args.function);
}

/// tl.broadcast: two values broadcast to their common shape (numpy's
/// rules).
Value broadcastBuiltin(Generator &g, const BuiltinArguments &args) {
  std::string what = args.function() + "()";
  g.requireIR(args.at(), args.function().c_str());
  for (const char *param : {"input", "other"})
    if (!args[param].isIR() && !args[param].isNumber())
      fail(args.loc(param),
           what + " needs tensors or numbers, got " + args[param].describe());
  Value a = g.toIR(args["input"], args.loc("input")),
        b = g.toIR(args["other"], args.loc("other"));
  g.broadcastPair(a, b, args.at());
  return Value::ofTuple({a, b});
}

} // namespace

ScalarKind bitsType(DType t) {
  switch (t.bits()) {
  case 1: return ScalarKind::Int1;
  case 8: return ScalarKind::Int8;
  case 16: return ScalarKind::Int16;
  case 32: return ScalarKind::Int32;
  default: return ScalarKind::Int64;
  }
}

namespace {

/// tl.split(a): the two halves of a last dimension of two, as a tuple. Each
/// is the XOR over that dimension of the element's bits where it is the
/// half wanted and 0 elsewhere: exact for any element type.
Value split(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &input = args["a"];
  requireTensor(input, args.loc("a"), "tl.split");
  if (input.type.shape.back() != 2)
    fail(args.loc("a"), "tl.split needs a last dimension of 2, got " + input.type.str());
  if (input.type.element.isPointer)
    fail(args.loc("a"), "tl.split of pointers is not supported");
  ScalarKind kind = bitsType(input.type.element);
  bool recast = kind != input.type.element.scalar;
  Value y = g.cast(input, DType{kind, false}, at, /*bitcast=*/recast);
  int64_t last = int64_t(y.type.shape.size()) - 1;
  Value index = rangeOf(g, 2, at);
  std::vector<int64_t> indexShape(y.type.shape.size(), 1);
  indexShape[last] = 2;
  index = g.broadcastTo(reshapeTensor(g, index, indexShape, at, at, "tl.split"), y.type.shape, at);
  Value zero = g.broadcastTo(g.cast(g.toIR(Value::ofInt(0), at), y.type.element, at),
                             y.type.shape, at);
  auto xorCombiner = [&](const std::vector<Value> &l, const std::vector<Value> &r) {
    return std::vector<Value>{g.binary(BinaryOp::BitXor, l[0], r[0], at)};
  };
  std::vector<Value> halves;
  for (int64_t half = 0; half < 2; ++half) {
    Value pick = g.compare(CompareOp::Eq, index, g.toIR(Value::ofInt(half), at), at);
    Value part = g.reduce({g.where(pick, y, zero, at)}, last, /*keepDims=*/false,
                          xorCombiner, at)[0];
    halves.push_back(g.cast(part, input.type.element, at, /*bitcast=*/recast));
  }
  return Value::ofTuple(halves);
}

/// The two operands of join, interleave and cat as IR values of one
/// element type and (numpy's broadcasting) one shape. A number takes the
/// other operand's element type; two IR values must already share one.
std::pair<Value, Value> pairedOperands(Generator &g, const BuiltinArguments &args,
                                       const std::string &p, const std::string &q) {
  std::string what = args.function() + "()";
  g.requireIR(args.at(), args.function().c_str());
  for (const std::string &param : {p, q}) {
    const Value &v = args[param];
    if (!v.isIR() && !v.isNumber())
      fail(args.loc(param), what + " needs tensors or numbers, got " + v.describe());
  }
  const Value &x = args[p], &y = args[q];
  Value a = x.isIR() || !y.isIR() ? g.toIR(x, args.loc(p))
                                  : g.toIR(x, args.loc(p), y.type.element);
  Value b = y.isIR() || !x.isIR() ? g.toIR(y, args.loc(q))
                                  : g.toIR(y, args.loc(q), x.type.element);
  if (!(a.type.element == b.type.element))
    fail(args.at(), what + " needs operands of one dtype, got " + a.type.str() +
                        " and " + b.type.str() + " (convert one with .to())");
  g.broadcastPair(a, b, args.at());
  return {a, b};
}

/// tile.join of two IR values of one type: the shape with a last dimension
/// of 2. Two scalars join into a tensor of 2 (as Triton's do).
Value joinValues(Generator &g, Value a, Value b, SourceLoc at) {
  if (!a.type.isTensor()) {
    a = g.broadcastTo(a, {1}, at);
    b = g.broadcastTo(b, {1}, at);
    return reshapeTensor(g, joinValues(g, a, b, at), {2}, at, at, "tl.join");
  }
  std::vector<int64_t> shape = a.type.shape;
  shape.push_back(2);
  ValueType type = g.tensorType(a.type.element, shape, at);
  mlir::OpBuilder &b2 = g.builder();
  auto op = b2.create<tile::JoinOp>(g.loc(at), type.toMLIR(b2.getContext()), a.ir, b.ir);
  return Value::ofIR(op.getResult(), type);
}

/// tl.join(a, b): r[..., 0] = a, r[..., 1] = b.
Value join(Generator &g, const BuiltinArguments &args) {
  auto [a, b] = pairedOperands(g, args, "a", "b");
  return joinValues(g, a, b, args.at());
}

/// tl.interleave(a, b): the last dimensions interleaved, a's elements at
/// even positions: join, then the last two dimensions as one.
Value interleave(Generator &g, const BuiltinArguments &args) {
  auto [a, b] = pairedOperands(g, args, "a", "b");
  Value joined = joinValues(g, a, b, args.at());
  if (joined.type.shape.size() == 1)
    return joined; // two scalars
  std::vector<int64_t> shape(joined.type.shape.begin(), joined.type.shape.end() - 2);
  shape.push_back(2 * joined.type.shape[joined.type.shape.size() - 2]);
  return reshapeTensor(g, joined, shape, args.at(), args.at(), "tl.interleave");
}

/// tl.cat(input, other, can_reorder=False): the two tensors, of one shape,
/// one after the other along the first dimension. Triton's may reorder
/// the elements (and needs can_reorder=True); tilec's keeps numpy's
/// order, which needs no data to move either: join, the new dimension
/// moved to the front, and the first two dimensions as one.
Value cat(Generator &g, const BuiltinArguments &args) {
  for (const char *param : {"input", "other"})
    requireTensor(args[param], args.loc(param), "tl.cat");
  if (args.has("can_reorder") && !args["can_reorder"].isConstexpr())
    fail(args.loc("can_reorder"), "can_reorder must be a compile-time boolean, got " +
                                      args["can_reorder"].describe());
  const Value &x = args["input"], &y = args["other"];
  if (x.type.shape != y.type.shape)
    fail(args.at(), "tl.cat needs two tensors of one shape (tilec's dimensions are "
                    "powers of two), got " + x.type.str() + " and " + y.type.str());
  if (!(x.type.element == y.type.element))
    fail(args.at(), "tl.cat needs operands of one dtype, got " + x.type.str() + " and " +
                        y.type.str() + " (convert one with .to())");
  SourceLoc at = args.at();
  Value joined = joinValues(g, x, y, at);
  int64_t rank = x.type.shape.size();
  std::vector<int64_t> order{rank};
  for (int64_t d = 0; d < rank; ++d)
    order.push_back(d);
  Value front = g.permute(joined, order, at, "tl.cat");
  std::vector<int64_t> shape = x.type.shape;
  shape[0] *= 2;
  return reshapeTensor(g, front, shape, at, at, "tl.cat");
}

/// tl.flip(x, dim=None): `x` reversed along `dim` (the last by default),
/// whose size must be a power of two. With that size 2^k split into k
/// axes of 2, reversing is swapping the two halves of every one of them,
/// and y ^ xor_sum(y, axis) swaps them exactly, on the bits, for any
/// element type: no element moves between threads except through the
/// reductions (as Triton's flip computes it).
Value flip(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &input = args["x"];
  requireTensor(input, args.loc("x"), "tl.flip");
  if (input.type.element.isPointer)
    fail(args.loc("x"), "tl.flip of pointers is not supported");
  std::vector<int64_t> shape = input.type.shape;
  int64_t rank = shape.size();
  int64_t dim = args.has("dim") ? g.constInt(args["dim"], args.loc("dim"), "dim") : rank - 1;
  if (dim < -rank || dim >= rank)
    fail(args.loc("dim"), "dim " + std::to_string(dim) + " is out of range for rank " +
                              std::to_string(rank));
  if (dim < 0)
    dim += rank;
  int64_t steps = llvm::Log2_64(uint64_t(shape[dim]));
  if (steps == 0)
    return input;
  ScalarKind kind = bitsType(input.type.element);
  Value y = g.cast(input, DType{kind, false}, at, /*bitcast=*/kind != input.type.element.scalar);
  std::vector<int64_t> split(shape.begin(), shape.begin() + dim);
  split.insert(split.end(), steps, 2);
  split.insert(split.end(), shape.begin() + dim + 1, shape.end());
  y = reshapeTensor(g, y, split, at, at, "tl.flip");
  auto xorCombiner = [&](const std::vector<Value> &l, const std::vector<Value> &r) {
    return std::vector<Value>{g.binary(BinaryOp::BitXor, l[0], r[0], at)};
  };
  for (int64_t i = 0; i < steps; ++i) {
    Value both = g.reduce({y}, dim + i, /*keepDims=*/true, xorCombiner, at)[0];
    y = g.binary(BinaryOp::BitXor, y, both, at);
  }
  y = reshapeTensor(g, y, shape, at, at, "tl.flip");
  return g.cast(y, input.type.element, at, /*bitcast=*/kind != input.type.element.scalar);
}
/// tl.gather(src, index, axis): numpy's take_along_axis, through shared
/// memory (tile.gather). Narrow indices are widened to int32 first, by
/// their own signedness, so the op sees 32- or 64-bit values.
Value gather(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &src = args["src"];
  Value index = args["index"];
  requireTensor(src, args.loc("src"), "tl.gather");
  requireTensor(index, args.loc("index"), "tl.gather");
  if (src.type.element.isPointer)
    fail(args.loc("src"), "tl.gather of pointers is not supported");
  if (index.type.element.isPointer || !index.type.element.isInt() ||
      index.type.element.isBool())
    fail(args.loc("index"), "tl.gather's index must be a tensor of integers, got " +
                                index.type.str());
  int64_t rank = src.type.shape.size();
  if (int64_t(index.type.shape.size()) != rank)
    fail(args.loc("index"), "tl.gather's index must have the source's rank: " +
                                src.type.str() + " and " + index.type.str());
  int64_t axis = g.constInt(args["axis"], args.loc("axis"), "axis");
  if (axis < -rank || axis >= rank)
    fail(args.loc("axis"), "axis " + std::to_string(axis) + " is out of range for rank " +
                               std::to_string(rank));
  if (axis < 0)
    axis += rank;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && src.type.shape[d] != index.type.shape[d])
      fail(args.loc("index"), "tl.gather's index must match the source in every dimension "
                              "but axis " + std::to_string(axis) + ": " + src.type.str() +
                              " and " + index.type.str());
  if (index.type.element.bits() < 32)
    index = g.cast(index, DType{ScalarKind::Int32, false}, at);
  ValueType type = g.tensorType(src.type.element, index.type.shape, at);
  mlir::OpBuilder &b = g.builder();
  auto op = b.create<tile::GatherOp>(g.loc(at), type.toMLIR(b.getContext()), src.ir,
                                     index.ir, b.getI32IntegerAttr(int32_t(axis)));
  return Value::ofIR(op.getResult(), type);
}
/// tl.histogram(input, num_bins, mask=None): counts of the values 0 ..
/// num_bins - 1 of a 1-D integer tensor (tile.histogram); values outside
/// are not counted. Narrow inputs are widened to int32 by their own
/// signedness first.
Value histogram(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  Value input = args["input"];
  requireTensor(input, args.loc("input"), "tl.histogram");
  if (input.type.element.isPointer || !input.type.element.isInt() ||
      input.type.element.isBool() || input.type.shape.size() != 1)
    fail(args.loc("input"), "tl.histogram needs a 1-D tensor of integers, got " +
                                input.type.str());
  int64_t bins = g.constInt(args["num_bins"], args.loc("num_bins"), "num_bins");
  if (bins < 1 || (bins & (bins - 1)))
    fail(args.loc("num_bins"), "num_bins must be a power of two (the result is a "
                               "tensor), got " + std::to_string(bins));
  if (input.type.element.bits() < 32)
    input = g.cast(input, DType{ScalarKind::Int32, false}, at);
  mlir::Value mask;
  if (args.has("mask") && args["mask"].kind != Value::Kind::None) {
    const Value &m = args["mask"];
    if (!m.isIR() && !m.isNumber() && m.kind != Value::Kind::Bool)
      fail(args.loc("mask"), "tl.histogram's mask must be booleans, got " + m.describe());
    mask = g.broadcastTo(g.toBool(g.toIR(m, args.loc("mask")), args.loc("mask")),
                         input.type.shape, args.loc("mask"))
               .ir;
  }
  ValueType type = g.tensorType(DType{ScalarKind::Int32, false}, {bins}, at);
  mlir::OpBuilder &b = g.builder();
  auto op = b.create<tile::HistogramOp>(g.loc(at), type.toMLIR(b.getContext()), input.ir,
                                        mask);
  return Value::ofIR(op.getResult(), type);
}
} // namespace

void addShapeBuiltins(BuiltinTable &t) {
  for (const char *op :
       {"trans", "permute", "reshape", "view", "ravel", "broadcast_to", "expand_dims"})
    t.add(std::string("tl.") + op, shapeSignature(op, /*method=*/false),
          [op = std::string(op)](Generator &g, const BuiltinArguments &args) {
            return shapeCall(g, op, args, nullptr);
          });
  t.add("tl.broadcast", {{"input", "other"}, 2}, broadcastBuiltin);
  t.add("tl.flip", {{"x", "dim"}, 1}, flip);
  t.add("tl.split", {{"a"}, 1}, split);
  t.add("tl.join", {{"a", "b"}, 2}, join);
  t.add("tl.interleave", {{"a", "b"}, 2}, interleave);
  t.add("tl.cat", {{"input", "other", "can_reorder"}, 2}, cat);
  t.add("tl.gather", {{"src", "index", "axis"}, 3}, gather);
  t.add("tl.histogram", {{"input", "num_bins", "mask"}, 2}, histogram);
}

std::optional<Value> Generator::callShapeMethod(const Value &method,
                                                const CallExpr &call) {
  if (!isShapeMethod(method.text))
    return std::nullopt;
  BuiltinArguments args(*this, call, "x." + method.text,
                        shapeSignature(method.text, /*method=*/true));
  return shapeCall(*this, method.text, args, method.self.get());
}

} // namespace tilec::dsl
