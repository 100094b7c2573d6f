// Shape builtins: tl.trans, tl.permute, tl.reshape, tl.ravel,
// tl.broadcast_to, tl.broadcast and tl.expand_dims, the tensor methods of
// the same names and `x.T`. Their rules are Triton's: dims and shapes may
// be one tuple or one argument each (`tl.trans(x, 1, 0)`), permutations
// list each dimension once (no negative entries), reshape keeps the
// row-major order and the element count, broadcast_to keeps the rank, and
// expand_dims takes negative axes (counted in the result).
#include "dsl/IRGenImpl.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>

namespace tilec::dsl {

namespace {
std::string tupleString(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

/// The arguments of a shape builtin: its tensor (the receiver of a method
/// call, else the first argument or `input=`), then integers given as one
/// tuple or as one argument each (Triton's `*dims`, `*shape`; also
/// accepted by keyword under `listName`), then other keywords.
class ShapeArguments {
public:
  ShapeArguments(Generator &gen, const CallExpr &call, const std::string &function,
                 const Value *self, const std::string &listName,
                 std::vector<std::string> keywords)
      : function_(function), listName_(listName) {
    size_t next = 0;
    inputLoc_ = call.loc;
    if (self) {
      input_ = *self;
      hasInput_ = true;
    } else if (!call.args.empty()) {
      input_ = gen.gen(*call.args[0]);
      inputLoc_ = call.args[0]->loc;
      hasInput_ = true;
      next = 1;
    }
    std::vector<Value> positional;
    for (size_t i = next; i < call.args.size(); ++i)
      positional.push_back(gen.gen(*call.args[i]));
    if (next < call.args.size()) {
      if (listName.empty())
        fail(call.args[next]->loc, function + " takes no other positional "
                                              "argument (keywords: " +
                                       llvm::join(keywords, ", ") + ")");
      listLoc_ = call.args[next]->loc;
      setList(positional);
    }
    for (const Keyword &k : call.keywords) {
      Value v = gen.gen(*k.value);
      if (k.name == "input" && !self) {
        if (hasInput_)
          fail(k.loc, function + " got multiple values for 'input'");
        input_ = v;
        inputLoc_ = k.value->loc;
        hasInput_ = true;
      } else if (k.name == listName && !listName.empty()) {
        if (hasList_)
          fail(k.loc, function + " got multiple values for '" + listName + "'");
        listLoc_ = k.value->loc;
        setList({v});
      } else if (std::find(keywords.begin(), keywords.end(), k.name) !=
                 keywords.end()) {
        keywords_[k.name] = {v, k.value->loc};
      } else {
        fail(k.loc, function + " got an unexpected keyword argument '" + k.name + "'");
      }
    }
    if (!hasInput_)
      fail(call.loc, function + " missing required argument 'input'");
  }

  const Value &input() const { return input_; }
  SourceLoc inputLoc() const { return inputLoc_; }
  bool hasList() const { return hasList_; }
  SourceLoc listLoc() const { return listLoc_; }
  /// The integers, each a compile-time int.
  std::vector<int64_t> ints(Generator &gen) const {
    std::vector<int64_t> out;
    for (const Value &v : list_)
      out.push_back(gen.constInt(v, listLoc_, "each entry of the " + listName_ +
                                                  " of " + function_));
    return out;
  }
  const Value *keyword(const std::string &name) const {
    auto it = keywords_.find(name);
    return it == keywords_.end() ? nullptr : &it->second.first;
  }
  SourceLoc keywordLoc(const std::string &name) const {
    return keywords_.at(name).second;
  }

private:
  /// One tuple stands for its elements; several values for themselves.
  void setList(const std::vector<Value> &values) {
    hasList_ = true;
    if (values.size() == 1 && values[0].kind == Value::Kind::Tuple)
      list_ = values[0].elements;
    else
      list_ = values;
  }

  std::string function_, listName_;
  Value input_;
  SourceLoc inputLoc_;
  bool hasInput_ = false;
  std::vector<Value> list_;
  SourceLoc listLoc_;
  bool hasList_ = false;
  std::map<std::string, std::pair<Value, SourceLoc>> keywords_;
};

/// `x` must be a tensor (not a scalar or a compile-time value).
void requireTensor(const Value &x, SourceLoc at, const std::string &what) {
  if (!x.isIR() || !x.type.isTensor())
    fail(at, what + " needs a tensor, got " + x.describe());
}

} // namespace

bool isShapeMethod(const std::string &name) {
  return name == "trans" || name == "permute" || name == "reshape" ||
         name == "ravel" || name == "broadcast_to" || name == "expand_dims";
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

namespace {
/// tl.reshape's checks; `x` reshaped to `shape` in row-major order.
Value reshape(Generator &gen, const Value &x, const std::vector<int64_t> &shape,
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
/// tl.OP(x, ...) when `self` is null, x.OP(...) when it is x: the shape
/// builtins that are also tensor methods. `what` names the call in
/// messages.
Value shapeCall(Generator &gen, const std::string &op, const CallExpr &call,
                const Value *self, const std::string &what) {
  SourceLoc at = call.loc;
  if (op == "trans" || op == "permute") {
    ShapeArguments args(gen, call, what, self, "dims", {});
    if (args.hasList())
      return gen.permute(args.input(), args.ints(gen), args.listLoc(), what);
    if (op == "permute")
      fail(at, what + " needs dims, the order of the dimensions");
    // Without dims, trans swaps the two dimensions of a 2-D tensor, as
    // Triton's does.
    requireTensor(args.input(), args.inputLoc(), what);
    if (args.input().type.shape.size() != 2)
      fail(at, what + " without dims swaps the dimensions of a 2-D tensor; "
                      "give the order of the dimensions of " +
                   args.input().describe());
    return gen.permute(args.input(), {1, 0}, at, what);
  }
  if (op == "reshape" || op == "ravel") {
    bool ravel = op == "ravel";
    ShapeArguments args(gen, call, what, self, ravel ? "" : "shape",
                        {"can_reorder"});
    // can_reorder=True lets the compiler pick any order; tilec's is always
    // the row-major one, which needs no data to move.
    if (const Value *v = args.keyword("can_reorder"))
      if (!v->isConstexpr())
        fail(args.keywordLoc("can_reorder"),
             "can_reorder must be a compile-time boolean, got " + v->describe());
    requireTensor(args.input(), args.inputLoc(), what);
    if (ravel) {
      int64_t n = 1;
      for (int64_t d : args.input().type.shape)
        n *= d;
      return reshape(gen, args.input(), {n}, at, at, what);
    }
    if (!args.hasList())
      fail(at, what + " missing required argument 'shape'");
    return reshape(gen, args.input(), args.ints(gen), at, args.listLoc(), what);
  }
  if (op == "broadcast_to") {
    ShapeArguments args(gen, call, what, self, "shape", {});
    if (!args.hasList())
      fail(at, what + " missing required argument 'shape'");
    return broadcastShape(gen, args.input(), args.ints(gen), at, args.listLoc(),
                          what);
  }
  assert(op == "expand_dims" && "not a shape method");
  ShapeArguments args(gen, call, what, self, "axis", {});
  if (!args.hasList())
    fail(at, what + " missing required argument 'axis'");
  return expandDims(gen, args.input(), args.ints(gen), at, args.listLoc(), what);
}
} // namespace

std::optional<Value> Generator::callShape(const std::string &name,
                                          const CallExpr &call) {
  if (name.rfind("tl.", 0) == 0 && isShapeMethod(name.substr(3)))
    return shapeCall(*this, name.substr(3), call, nullptr, name + "()");
  if (name == "tl.broadcast") {
    // Two values broadcast to their common shape (numpy's rules).
    BuiltinArguments args(*this, call, name, {"input", "other"}, 2);
    requireIR(call.loc, name.c_str());
    for (const char *param : {"input", "other"})
      if (!args[param].isIR() && !args[param].isNumber())
        fail(args.loc(param), name + "() needs tensors or numbers, got " +
                                  args[param].describe());
    Value a = toIR(args["input"], args.loc("input")),
          b = toIR(args["other"], args.loc("other"));
    broadcastPair(a, b, call.loc);
    return Value::ofTuple({a, b});
  }
  return std::nullopt;
}

std::optional<Value> Generator::callShapeMethod(const Value &method,
                                                const CallExpr &call) {
  if (!isShapeMethod(method.text))
    return std::nullopt;
  return shapeCall(*this, method.text, call, method.self.get(),
                   "x." + method.text + "()");
}

} // namespace tilec::dsl
