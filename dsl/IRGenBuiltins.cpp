// The core builtins of `tl`: program ids, ranges, tensors, loads and
// stores, where, cdiv, hints to the analyses, compile-time printing and
// assertions, casts. Each checks its arguments and reports misuse at the
// user's call. Their parameters are declared once, in addCoreBuiltins.
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <set>

namespace tilec::dsl {

namespace arith = mlir::arith;

namespace {
tile::EvictionPolicy evictionPolicy(const BuiltinArguments &args) {
  return parseHint<tile::EvictionPolicy>(
      args.text("eviction_policy"), args.loc("eviction_policy"),
      "eviction policy",
      {{"", tile::EvictionPolicy::normal},
       {"evict_first", tile::EvictionPolicy::evict_first},
       {"evict_last", tile::EvictionPolicy::evict_last}});
}

/// tl.program_id and tl.num_programs.
template <typename Op>
Value gridQuery(Generator &g, const BuiltinArguments &args) {
  int64_t axis = args.has("axis") ? g.constInt(args["axis"], args.loc("axis"), "axis") : 0;
  if (axis < 0 || axis > 2)
    fail(args.loc("axis"), "axis must be 0, 1 or 2, got " + std::to_string(axis));
  g.requireIR(args.at(), args.function().c_str());
  mlir::OpBuilder &b = g.builder();
  mlir::Value v = b.create<Op>(g.loc(args.at()), b.getI32Type(), axis);
  return Value::ofIR(v, ValueType{DType{ScalarKind::Int32, false}, {}});
}

Value arange(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  int64_t start = g.constInt(args["start"], args.loc("start"), "the start of tl.arange");
  int64_t end = g.constInt(args["end"], args.loc("end"), "the end of tl.arange");
  if (end <= start)
    fail(at, "tl.arange needs end > start, got (" + std::to_string(start) +
                 ", " + std::to_string(end) + ")");
  if (start < INT32_MIN || end > INT32_MAX)
    fail(at, "tl.arange bounds must fit in int32");
  g.requireIR(at, args.function().c_str());
  ValueType type = g.tensorType(DType{ScalarKind::Int32, false}, {end - start}, at);
  mlir::OpBuilder &b = g.builder();
  auto op = b.create<tile::MakeRangeOp>(g.loc(at), type.toMLIR(b.getContext()),
                                        int32_t(start), int32_t(end));
  return Value::ofIR(op, type);
}

/// tl.zeros(shape, dtype) and tl.full(shape, value, dtype).
/// A tensor of `shape` and `dtype` every element of which is `value` (a
/// number, or a runtime scalar).
Value filledTensor(Generator &g, const std::vector<int64_t> &shape, DType dtype,
                   SourceLoc dtypeLoc, const Value &value, SourceLoc valueLoc,
                   SourceLoc at, const std::string &name) {
  if (dtype.isPointer)
    fail(dtypeLoc, "cannot make a tensor of pointers with " + name);
  g.requireIR(at, name.c_str());
  ValueType type = g.tensorType(dtype, shape, at);
  if (value.isConstexpr()) {
    if (!value.isNumber())
      fail(valueLoc, "the fill value must be a number, got " + value.describe());
    mlir::OpBuilder &b = g.builder();
    auto dense = mlir::DenseElementsAttr::get(
        mlir::cast<mlir::ShapedType>(type.toMLIR(b.getContext())),
        g.numberAttr(value, dtype, valueLoc));
    return Value::ofIR(b.create<arith::ConstantOp>(g.loc(at), dense), type);
  }
  if (value.type.isTensor())
    fail(valueLoc, "the fill value must be a scalar");
  return g.broadcastTo(g.cast(value, dtype, at), shape, at);
}

/// tl.zeros(shape, dtype), tl.full(shape, value, dtype).
Value filled(Generator &g, const BuiltinArguments &args, bool full) {
  std::vector<int64_t> shape = g.constShape(args["shape"], args.loc("shape"), "the shape");
  DType dtype = dtypeArg(args["dtype"], args.loc("dtype"), "dtype");
  return filledTensor(g, shape, dtype, args.loc("dtype"),
                      full ? args["value"] : Value::ofInt(0),
                      full ? args.loc("value") : args.at(), args.at(), args.function());
}

/// tl.zeros_like(input, dtype=None), tl.full_like(input, value, dtype=None):
/// the shape of `input`, its element type unless `dtype` is given.
Value filledLike(Generator &g, const BuiltinArguments &args, bool full) {
  const Value &input = args["input"];
  if (!input.isIR() || !input.type.isTensor())
    fail(args.loc("input"), args.function() + " needs a tensor, got " + input.describe());
  DType dtype = args.has("dtype") ? dtypeArg(args["dtype"], args.loc("dtype"), "dtype")
                                  : input.type.element;
  return filledTensor(g, input.type.shape, dtype,
                      args.has("dtype") ? args.loc("dtype") : args.loc("input"),
                      full ? args["value"] : Value::ofInt(0),
                      full ? args.loc("value") : args.at(), args.at(), args.function());
}

/// mask= and other= with a block pointer, boundary_check= or
/// padding_option= without one: located errors.
void checkBlockArguments(const BuiltinArguments &args, const Value &ptr,
                         std::initializer_list<const char *> elementwise,
                         std::initializer_list<const char *> block) {
  bool isBlock = ptr.kind == Value::Kind::BlockPtr;
  for (const char *name : isBlock ? elementwise : block)
    if (args.has(name))
      fail(args.loc(name),
           isBlock ? std::string(name) + " cannot be given with a block pointer (use "
                                         "boundary_check and padding_option)"
                   : std::string(name) + " needs a block pointer (tl.make_block_ptr), "
                                         "got " + ptr.describe());
}

/// tl.load / tl.store given a tensor descriptor: a located error.
void refuseDescriptor(const BuiltinArguments &args, const Value &ptr, const char *method) {
  if (ptr.isDescriptor())
    fail(args.loc("pointer"), args.function() + " cannot take " + ptr.describe() +
                                  ": use desc." + method + "(offsets" +
                                  (std::string(method) == "store" ? ", value" : "") +
                                  ") (or tl." + method + "_tensor_descriptor)");
}

Value load(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  Value ptr = args["pointer"];
  refuseDescriptor(args, ptr, "load");
  checkBlockArguments(args, ptr, {"mask", "other"}, {"boundary_check", "padding_option"});
  if (ptr.kind != Value::Kind::BlockPtr && (!ptr.isIR() || !ptr.type.element.isPointer))
    fail(args.loc("pointer"), "tl.load needs a pointer, a tensor of "
                              "pointers or a block pointer, got " + ptr.describe());
  auto cache = parseHint<tile::CacheModifier>(
      args.text("cache_modifier"), args.loc("cache_modifier"),
      "load cache modifier",
      {{"", tile::CacheModifier::none}, {".ca", tile::CacheModifier::ca},
       {".cg", tile::CacheModifier::cg}, {".cs", tile::CacheModifier::cs},
       {".cv", tile::CacheModifier::cv}});
  auto evict = evictionPolicy(args);
  bool isVolatile = false;
  if (args.has("volatile")) {
    const Value &v = args["volatile"];
    if (v.kind != Value::Kind::Bool)
      fail(args.loc("volatile"), "volatile must be True or False");
    isVolatile = v.boolValue;
  }
  if (int(cache != tile::CacheModifier::none) +
          int(evict != tile::EvictionPolicy::normal) + int(isVolatile) > 1)
    fail(at, "cache_modifier, eviction_policy and volatile cannot be "
             "combined (PTX has no instruction for both)");
  Value mask, other;
  if (ptr.kind == Value::Kind::BlockPtr) {
    BlockAccess access = blockAccess(g, ptr, args, at);
    ptr = access.pointers;
    mask = access.mask;
    DType pointee = ptr.type.element.pointee();
    std::string padding = paddingOption(args, pointee, "block");
    if (mask.isIR())
      other = paddingTensor(g, padding, pointee, ptr.type.shape, at);
  } else {
    mask = maskArgument(g, args, ptr);
  }
  bool hasMask = mask.isIR();
  DType pointee = ptr.type.element.pointee();
  if (hasMask && args.has("other")) {
    const Value &o = args["other"];
    SourceLoc l = args.loc("other");
    if (!o.isIR() && !o.isNumber())
      fail(l, "'other' must be a number or a tensor, got " + o.describe());
    other = g.broadcastTo(g.cast(g.toIR(o, l, pointee), pointee, l),
                          ptr.type.shape, l);
  }
  ValueType resultType{pointee, ptr.type.shape};
  mlir::OpBuilder &b = g.builder();
  auto op = b.create<tile::LoadOp>(
      g.loc(at), resultType.toMLIR(b.getContext()), ptr.ir,
      hasMask ? mask.ir : mlir::Value(), other.isIR() ? other.ir : mlir::Value(),
      cache, evict, isVolatile);
  return Value::ofIR(op, resultType);
}

Value store(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  Value ptr = args["pointer"];
  refuseDescriptor(args, ptr, "store");
  checkBlockArguments(args, ptr, {"mask"}, {"boundary_check"});
  if (ptr.kind != Value::Kind::BlockPtr && (!ptr.isIR() || !ptr.type.element.isPointer))
    fail(args.loc("pointer"), "tl.store needs a pointer, a tensor of "
                              "pointers or a block pointer, got " + ptr.describe());
  auto cache = parseHint<tile::CacheModifier>(
      args.text("cache_modifier"), args.loc("cache_modifier"),
      "store cache modifier",
      {{"", tile::CacheModifier::none}, {".wb", tile::CacheModifier::wb},
       {".cg", tile::CacheModifier::cg}, {".cs", tile::CacheModifier::cs},
       {".wt", tile::CacheModifier::wt}});
  auto evict = evictionPolicy(args);
  if (cache != tile::CacheModifier::none && evict != tile::EvictionPolicy::normal)
    fail(at, "cache_modifier and eviction_policy cannot be combined");
  const Value &raw = args["value"];
  SourceLoc l = args.loc("value");
  if (!raw.isIR() && !raw.isNumber())
    fail(l, "cannot store " + raw.describe());
  Value blockMask;
  if (ptr.kind == Value::Kind::BlockPtr) {
    // A block takes a scalar or a tensor of its own shape (as Triton's).
    if (raw.isIR() && raw.type.isTensor() && raw.type.shape != ptr.blockShape)
      fail(l, "a block pointer of block shape " + shapeString(ptr.blockShape) +
                  " stores a scalar or a tensor of that shape, not " + raw.describe());
    BlockAccess access = blockAccess(g, ptr, args, at);
    ptr = access.pointers;
    blockMask = access.mask;
  }
  DType pointee = ptr.type.element.pointee();
  // The value takes the pointer's element type, as in Triton.
  Value value = g.cast(g.toIR(raw, l, pointee), pointee, l);
  g.broadcastPair(ptr, value, l);
  Value mask = blockMask.isIR() ? blockMask : maskArgument(g, args, ptr);
  bool hasMask = mask.isIR();
  if (hasMask)
    value = g.broadcastTo(value, ptr.type.shape, l);
  g.builder().create<tile::StoreOp>(g.loc(at), ptr.ir, value.ir,
                                    hasMask ? mask.ir : mlir::Value(), cache,
                                    evict);
  return Value::none();
}

Value cdiv(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &x = args["x"], &d = args["div"];
  Value top = g.binary(BinaryOp::Sub, g.binary(BinaryOp::Add, x, d, at),
                       Value::ofInt(1), at);
  return g.binary(BinaryOp::FloorDiv, top, d, at);
}

/// tl.multiple_of and tl.max_contiguous: promises to the axis analysis.
Value assume(Generator &g, const BuiltinArguments &args, bool multiple) {
  const std::string &name = args.function();
  const Value &x = args["input"];
  const Value &values = args["values"];
  SourceLoc valuesLoc = args.loc("values");
  int64_t n = values.kind == Value::Kind::Tuple
                  ? (values.elements.empty()
                         ? 0
                         : g.constInt(values.elements.back(), valuesLoc, "values"))
                  : g.constInt(values, valuesLoc, "values");
  if (n <= 0)
    fail(valuesLoc, name + " needs a positive value");
  if (x.isConstexpr())
    return x;
  if (!x.type.element.isInt() || x.type.element.isBool())
    fail(args.loc("input"), name + " applies to integers, got " + x.describe());
  mlir::Location where = g.loc(args.at());
  if (multiple)
    return Value::ofIR(g.builder().create<tile::AssumeMultipleOp>(where, x.ir, n),
                       x.type);
  if (!x.type.isTensor())
    fail(args.loc("input"), "tl.max_contiguous applies to tensors");
  return Value::ofIR(g.builder().create<tile::AssumeContiguousOp>(where, x.ir, n),
                     x.type);
}

Value staticPrint(Generator &g, const BuiltinArguments &args) {
  std::string text;
  for (const Value &v : args.variadic())
    text += (text.empty() ? "" : " ") +
            (v.kind == Value::Kind::String ? v.text : v.repr());
  SourceLoc at = args.at();
  std::string path = at.buffer ? at.buffer->path() : "<unknown>";
  g.staticPrint(path + ":" + std::to_string(at.line) + ": " + text);
  return Value::none();
}

Value staticAssert(Generator &g, const BuiltinArguments &args) {
  std::optional<bool> ok = args["cond"].truthiness();
  if (!ok)
    fail(args.loc("cond"), "tl.static_assert needs a compile-time condition");
  if (!*ok)
    fail(args.at(), "static assertion failed" +
                        (args.has("msg") ? ": " + args.text("msg") : std::string()));
  return Value::none();
}

Value castBuiltin(Generator &g, const BuiltinArguments &args) {
  bool bitcast = args.has("bitcast") && args["bitcast"].kind == Value::Kind::Bool &&
                 args["bitcast"].boolValue;
  return g.cast(args["input"], dtypeArg(args["dtype"], args.loc("dtype"), "dtype"),
                args.at(), bitcast);
}

Value constexprBuiltin(Generator &, const BuiltinArguments &args) {
  if (!args["value"].isConstexpr())
    fail(args.loc("value"), "tl.constexpr() needs a compile-time value");
  return args["value"];
}
} // namespace

Value loopOnly(Generator &, const BuiltinArguments &args) {
  fail(args.at(), args.function() + "() can only be the iterable of a for loop");
}

Value maskArgument(Generator &g, const BuiltinArguments &args, Value &ptr) {
  if (!args.has("mask"))
    return Value();
  const Value &m = args["mask"];
  if (m.kind == Value::Kind::Bool && m.boolValue)
    return Value(); // mask=True masks nothing
  Value mask = g.toBool(g.toIR(m, args.loc("mask")), args.loc("mask"));
  g.broadcastPair(ptr, mask, args.loc("mask"));
  return mask;
}

void addCoreBuiltins(BuiltinTable &t) {
  t.add("tl.program_id", {{"axis"}, 0}, gridQuery<tile::ProgramIdOp>);
  t.add("tl.num_programs", {{"axis"}, 0}, gridQuery<tile::NumProgramsOp>);
  t.add("tl.arange", {{"start", "end"}, 2}, arange);
  t.add("tl.zeros", {{"shape", "dtype"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return filled(g, a, false); });
  t.add("tl.full", {{"shape", "value", "dtype"}, 3},
        [](Generator &g, const BuiltinArguments &a) { return filled(g, a, true); });
  t.add("tl.zeros_like", {{"input", "dtype"}, 1},
        [](Generator &g, const BuiltinArguments &a) { return filledLike(g, a, false); });
  t.add("tl.full_like", {{"input", "value", "dtype"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return filledLike(g, a, true); });
  t.add("tl.load",
        {{"pointer", "mask", "other", "boundary_check", "padding_option",
          "cache_modifier", "eviction_policy", "volatile"},
         1},
        load);
  t.add("tl.store",
        {{"pointer", "value", "mask", "boundary_check", "cache_modifier",
          "eviction_policy"},
         2},
        store);
  t.add("tl.where", {{"condition", "x", "y"}, 3},
        [](Generator &g, const BuiltinArguments &a) {
          return g.where(a["condition"], a["x"], a["y"], a.at());
        });
  t.add("tl.cdiv", {{"x", "div"}, 2}, cdiv);
  t.add("tl.multiple_of", {{"input", "values"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return assume(g, a, true); });
  t.add("tl.max_contiguous", {{"input", "values"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return assume(g, a, false); });
  t.add("tl.static_print", {{}, 0, /*variadic=*/true}, staticPrint);
  t.add("tl.static_assert", {{"cond", "msg"}, 1}, staticAssert);
  t.add("tl.cast", {{"input", "dtype", "bitcast"}, 2}, castBuiltin);
  t.add("tl.constexpr", {{"value"}, 1}, constexprBuiltin);
  // Their arguments are bound by genFor; any are accepted here so that the
  // message says where they may appear.
  t.add("tl.range", {{}, 0, /*variadic=*/true}, loopOnly);
  t.add("tl.static_range", {{}, 0, /*variadic=*/true}, loopOnly);
}

Value Generator::callMethod(const Value &method, const CallExpr &call) {
  const Value &self = *method.self;
  if (method.text == "to") {
    BuiltinArguments args(*this, call, "to", {"dtype", "fp_downcast_rounding", "bitcast"}, 1);
    if (args.has("fp_downcast_rounding"))
      fail(args.loc("fp_downcast_rounding"),
           "fp_downcast_rounding is not supported by tilec (yet)");
    bool bitcast = false;
    if (args.has("bitcast")) {
      const Value &b = args["bitcast"];
      if (b.kind != Value::Kind::Bool)
        fail(args.loc("bitcast"), "bitcast must be True or False");
      bitcast = b.boolValue;
    }
    return cast(self, dtypeArg(args["dtype"], args.loc("dtype"), "dtype"),
                call.loc, bitcast);
  }
  // Triton's tensor methods: tl.NAME with the receiver first.
  const Builtin *builtin = isMemberFunction(method.text)
                               ? builtins().find("tl." + method.text)
                               : nullptr;
  if (!builtin)
    fail(call.loc, "unknown method '" + method.text + "'");
  BuiltinArguments args(*this, call, "x." + method.text, builtin->signature, &self);
  return builtin->generate(*this, args);
}

bool isMemberFunction(const std::string &name) {
  // The tl functions Triton also makes methods of a tensor (x.sum(1),
  // ptr.store(v), block.advance(...)), besides `to` and the shape methods.
  static const std::set<std::string> members = {
      "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add",
      "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or",
      "atomic_xchg", "atomic_xor", "cast", "cdiv", "ceil", "cos", "cumprod",
      "cumsum", "erf", "exp", "exp2", "flip", "floor", "gather", "histogram",
      "log", "log2", "max", "min", "reduce", "rsqrt", "sigmoid", "sin", "split",
      "sqrt", "store", "sum", "xor_sum"};
  return members.count(name) > 0;
}

} // namespace tilec::dsl
