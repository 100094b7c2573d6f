// The builtins: members of `tl` and the few Python builtins a kernel may
// call. Each checks its arguments and reports misuse at the user's call.
#include "dsl/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace tilec::dsl {

namespace arith = mlir::arith;

namespace {
template <typename E>
E parseHint(const std::string &text, SourceLoc l, const char *what,
            std::initializer_list<std::pair<const char *, E>> allowed) {
  for (auto &[spelling, value] : allowed)
    if (text == spelling)
      return value;
  std::string names;
  for (auto &[spelling, _] : allowed)
    names += std::string(names.empty() ? "" : ", ") + "'" + spelling + "'";
  fail(l, "unknown " + std::string(what) + " '" + text + "' (expected one of " +
              names + ")");
}
} // namespace

namespace {
tile::EvictionPolicy evictionPolicy(const BuiltinArguments &args) {
  return parseHint<tile::EvictionPolicy>(
      args.text("eviction_policy"), args.loc("eviction_policy"),
      "eviction policy",
      {{"", tile::EvictionPolicy::normal},
       {"evict_first", tile::EvictionPolicy::evict_first},
       {"evict_last", tile::EvictionPolicy::evict_last}});
}
} // namespace

Value Generator::maskArgument(const BuiltinArguments &args, Value &ptr) {
  if (!args.has("mask"))
    return Value();
  const Value &m = args["mask"];
  if (m.kind == Value::Kind::Bool && m.boolValue)
    return Value(); // mask=True masks nothing
  Value mask = toBool(toIR(m, args.loc("mask")), args.loc("mask"));
  broadcastPair(ptr, mask, args.loc("mask"));
  return mask;
}

Value Generator::callBuiltin(const std::string &name, const CallExpr &call) {
  SourceLoc at = call.loc;
  mlir::Location where = loc(at);
  if (auto v = callMath(name, call))
    return *v;
  if (auto v = callScan(name, call))
    return *v;
  if (auto v = callShape(name, call))
    return *v;
  if (auto v = callReduction(name, call))
    return *v;

  if (name == "tl.program_id" || name == "tl.num_programs") {
    BuiltinArguments args(*this, call, name, {"axis"}, 0);
    int64_t axis = args.has("axis") ? constInt(args["axis"], args.loc("axis"), "axis") : 0;
    if (axis < 0 || axis > 2)
      fail(args.loc("axis"), "axis must be 0, 1 or 2, got " + std::to_string(axis));
    requireIR(at, name.c_str());
    mlir::Value v;
    if (name == "tl.program_id")
      v = b_.create<tile::ProgramIdOp>(where, b_.getI32Type(), axis);
    else
      v = b_.create<tile::NumProgramsOp>(where, b_.getI32Type(), axis);
    return Value::ofIR(v, ValueType{DType{ScalarKind::Int32, false}, {}});
  }

  if (name == "tl.arange") {
    BuiltinArguments args(*this, call, name, {"start", "end"}, 2);
    int64_t start = constInt(args["start"], args.loc("start"), "the start of tl.arange");
    int64_t end = constInt(args["end"], args.loc("end"), "the end of tl.arange");
    if (end <= start)
      fail(at, "tl.arange needs end > start, got (" + std::to_string(start) +
                   ", " + std::to_string(end) + ")");
    if (start < INT32_MIN || end > INT32_MAX)
      fail(at, "tl.arange bounds must fit in int32");
    requireIR(at, name.c_str());
    ValueType type =
        tensorType(DType{ScalarKind::Int32, false}, {end - start}, at);
    auto op = b_.create<tile::MakeRangeOp>(where, type.toMLIR(&ctx_),
                                           int32_t(start), int32_t(end));
    return Value::ofIR(op, type);
  }

  if (name == "tl.zeros" || name == "tl.full") {
    bool full = name == "tl.full";
    BuiltinArguments args = full ? BuiltinArguments(*this, call, name, {"shape", "value", "dtype"}, 3)
                          : BuiltinArguments(*this, call, name, {"shape", "dtype"}, 2);
    std::vector<int64_t> shape = constShape(args["shape"], args.loc("shape"), "the shape");
    DType dtype = dtypeArg(args["dtype"], args.loc("dtype"), "dtype");
    if (dtype.isPointer)
      fail(args.loc("dtype"), "cannot make a tensor of pointers with " + name);
    requireIR(at, name.c_str());
    ValueType type = tensorType(dtype, shape, at);
    Value value = full ? args["value"] : Value::ofInt(0);
    if (value.isConstexpr()) {
      if (!value.isNumber())
        fail(args.loc("value"), "the fill value must be a number, got " +
                                    value.describe());
      auto dense = mlir::DenseElementsAttr::get(
          mlir::cast<mlir::ShapedType>(type.toMLIR(&ctx_)),
          numberAttr(value, dtype, args.loc("value")));
      return Value::ofIR(b_.create<arith::ConstantOp>(where, dense), type);
    }
    if (value.type.isTensor())
      fail(args.loc("value"), "the fill value must be a scalar");
    return broadcastTo(cast(value, dtype, at), shape, at);
  }

  if (name == "tl.load") {
    BuiltinArguments args(*this, call, name,
                   {"pointer", "mask", "other", "boundary_check",
                    "padding_option", "cache_modifier", "eviction_policy",
                    "volatile"},
                   1);
    if (args.has("boundary_check") || args.has("padding_option"))
      fail(at, "block pointers (boundary_check, padding_option) are not "
               "supported by tilec yet");
    Value ptr = args["pointer"];
    if (!ptr.isIR() || !ptr.type.element.isPointer)
      fail(args.loc("pointer"), "tl.load needs a pointer or a tensor of "
                                "pointers, got " + ptr.describe());
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
    Value mask = maskArgument(args, ptr);
    bool hasMask = mask.isIR();
    DType pointee = ptr.type.element.pointee();
    Value other;
    if (hasMask && args.has("other")) {
      const Value &o = args["other"];
      if (!o.isIR() && !o.isNumber())
        fail(args.loc("other"), "'other' must be a number or a tensor, got " +
                                    o.describe());
      other = cast(toIR(o, args.loc("other"), pointee), pointee, args.loc("other"));
      other = broadcastTo(other, ptr.type.shape, args.loc("other"));
    }
    ValueType resultType{pointee, ptr.type.shape};
    auto op = b_.create<tile::LoadOp>(
        where, resultType.toMLIR(&ctx_), ptr.ir,
        hasMask ? mask.ir : mlir::Value(), other.isIR() ? other.ir : mlir::Value(),
        cache, evict, isVolatile);
    return Value::ofIR(op, resultType);
  }

  if (name == "tl.store") {
    BuiltinArguments args(*this, call, name,
                   {"pointer", "value", "mask", "boundary_check",
                    "cache_modifier", "eviction_policy"},
                   2);
    if (args.has("boundary_check"))
      fail(at, "block pointers (boundary_check) are not supported by tilec yet");
    Value ptr = args["pointer"];
    if (!ptr.isIR() || !ptr.type.element.isPointer)
      fail(args.loc("pointer"), "tl.store needs a pointer or a tensor of "
                                "pointers, got " + ptr.describe());
    auto cache = parseHint<tile::CacheModifier>(
        args.text("cache_modifier"), args.loc("cache_modifier"),
        "store cache modifier",
        {{"", tile::CacheModifier::none}, {".wb", tile::CacheModifier::wb},
         {".cg", tile::CacheModifier::cg}, {".cs", tile::CacheModifier::cs},
         {".wt", tile::CacheModifier::wt}});
    auto evict = evictionPolicy(args);
    if (cache != tile::CacheModifier::none &&
        evict != tile::EvictionPolicy::normal)
      fail(at, "cache_modifier and eviction_policy cannot be combined");
    const Value &raw = args["value"];
    if (!raw.isIR() && !raw.isNumber())
      fail(args.loc("value"), "cannot store " + raw.describe());
    DType pointee = ptr.type.element.pointee();
    // The value takes the pointer's element type, as in Triton.
    Value value = cast(toIR(raw, args.loc("value"), pointee), pointee,
                       args.loc("value"));
    broadcastPair(ptr, value, args.loc("value"));
    Value mask = maskArgument(args, ptr);
    bool hasMask = mask.isIR();
    if (hasMask)
      value = broadcastTo(value, ptr.type.shape, args.loc("value"));
    b_.create<tile::StoreOp>(where, ptr.ir, value.ir,
                             hasMask ? mask.ir : mlir::Value(), cache, evict);
    return Value::none();
  }

  if (name == "tl.where") {
    BuiltinArguments args(*this, call, name, {"condition", "x", "y"}, 3);
    return this->where(args["condition"], args["x"], args["y"], at);
  }

  if (name == "tl.minimum" || name == "tl.maximum") {
    BuiltinArguments args(*this, call, name, {"x", "y", "propagate_nan"}, 2);
    bool isMin = name == "tl.minimum";
    const Value &x = args["x"], &y = args["y"];
    if (x.isConstexpr() && y.isConstexpr()) {
      Value less = compare(CompareOp::Lt, x, y, at);
      return (less.boolValue == isMin) ? x : y;
    }
    if (!(x.isIR() || x.isNumber()) || !(y.isIR() || y.isNumber()))
      fail(at, name + " needs numbers or tensors, got " + x.describe() +
                   " and " + y.describe());
    Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
    if (!p.type || p.type->isBool())
      fail(at, name + " needs numbers, got " + x.describe() + " and " +
                   y.describe());
    DType type = *p.type;
    Value a = cast(toIR(x, at, type), type, at), b = cast(toIR(y, at, type), type, at);
    broadcastPair(a, b, at);
    mlir::Value out;
    if (type.isFloat())
      out = isMin ? b_.create<arith::MinNumFOp>(where, a.ir, b.ir).getResult()
                  : b_.create<arith::MaxNumFOp>(where, a.ir, b.ir).getResult();
    else if (type.isSigned())
      out = isMin ? b_.create<arith::MinSIOp>(where, a.ir, b.ir).getResult()
                  : b_.create<arith::MaxSIOp>(where, a.ir, b.ir).getResult();
    else
      out = isMin ? b_.create<arith::MinUIOp>(where, a.ir, b.ir).getResult()
                  : b_.create<arith::MaxUIOp>(where, a.ir, b.ir).getResult();
    return Value::ofIR(out, a.type);
  }

  if (name == "tl.cdiv") {
    BuiltinArguments args(*this, call, name, {"x", "div"}, 2);
    const Value &x = args["x"], &d = args["div"];
    Value top = binary(BinaryOp::Sub, binary(BinaryOp::Add, x, d, at),
                       Value::ofInt(1), at);
    return binary(BinaryOp::FloorDiv, top, d, at);
  }

  if (name == "tl.multiple_of" || name == "tl.max_contiguous") {
    BuiltinArguments args(*this, call, name, {"input", "values"}, 2);
    const Value &x = args["input"];
    Value values = args["values"];
    int64_t n = values.kind == Value::Kind::Tuple
                    ? (values.elements.empty()
                           ? 0
                           : constInt(values.elements.back(), args.loc("values"),
                                      "values"))
                    : constInt(values, args.loc("values"), "values");
    if (n <= 0)
      fail(args.loc("values"), name + " needs a positive value");
    if (x.isConstexpr())
      return x;
    if (!x.type.element.isInt() || x.type.element.isBool())
      fail(args.loc("input"), name + " applies to integers, got " + x.describe());
    if (name == "tl.multiple_of") {
      auto op = b_.create<tile::AssumeMultipleOp>(where, x.ir, n);
      return Value::ofIR(op, x.type);
    }
    if (!x.type.isTensor())
      fail(args.loc("input"), "tl.max_contiguous applies to tensors");
    auto op = b_.create<tile::AssumeContiguousOp>(where, x.ir, n);
    return Value::ofIR(op, x.type);
  }

  if (name == "tl.static_print" || name == "print") {
    if (name == "print")
      fail(at, "print() runs on the host; use tl.static_print (at compile "
               "time) instead");
    std::string text;
    for (const ExprPtr &arg : call.args) {
      Value v = gen(*arg);
      text += (text.empty() ? "" : " ") +
              (v.kind == Value::Kind::String ? v.text : v.repr());
    }
    std::string path = at.buffer ? at.buffer->path() : "<unknown>";
    staticPrint(path + ":" + std::to_string(at.line) + ": " + text);
    return Value::none();
  }

  if (name == "tl.static_assert") {
    BuiltinArguments args(*this, call, name, {"cond", "msg"}, 1);
    std::optional<bool> ok = args["cond"].truthiness();
    if (!ok)
      fail(args.loc("cond"), "tl.static_assert needs a compile-time condition");
    if (!*ok)
      fail(at, "static assertion failed" +
                   (args.has("msg") ? ": " + args.text("msg") : std::string()));
    return Value::none();
  }

  if (name == "tl.cast") {
    BuiltinArguments args(*this, call, name, {"input", "dtype", "bitcast"}, 2);
    bool bitcast = args.has("bitcast") && args["bitcast"].kind == Value::Kind::Bool &&
                   args["bitcast"].boolValue;
    return cast(args["input"], dtypeArg(args["dtype"], args.loc("dtype"), "dtype"),
                at, bitcast);
  }

  if (name == "tl.constexpr") {
    BuiltinArguments args(*this, call, name, {"value"}, 1);
    if (!args["value"].isConstexpr())
      fail(args.loc("value"), "tl.constexpr() needs a compile-time value");
    return args["value"];
  }

  if (name == "range" || name == "tl.range" || name == "tl.static_range")
    fail(at, name + "() can only be the iterable of a for loop");

  // Python builtins on compile-time values.
  if (name == "min" || name == "max") {
    if (call.args.size() < 2 || !call.keywords.empty())
      fail(at, name + "() takes two or more positional arguments here");
    Value best = gen(*call.args[0]);
    for (size_t i = 1; i < call.args.size(); ++i) {
      Value v = gen(*call.args[i]);
      if (!best.isConstexpr() || !v.isConstexpr())
        fail(at, name + "() works on compile-time values; use tl.minimum / "
                        "tl.maximum for runtime values");
      Value less = compare(CompareOp::Lt, v, best, at);
      if (less.boolValue == (name == "min"))
        best = v;
    }
    return best;
  }
  if (name == "len") {
    BuiltinArguments args(*this, call, name, {"obj"}, 1);
    const Value &v = args["obj"];
    if (v.kind == Value::Kind::Tuple)
      return Value::ofInt(v.elements.size());
    if (v.kind == Value::Kind::String)
      return Value::ofInt(v.text.size());
    fail(args.loc("obj"), "len() of " + v.describe() + " is not supported");
  }
  if (name == "bool") {
    BuiltinArguments args(*this, call, name, {"x"}, 1);
    std::optional<bool> truth = args["x"].truthiness();
    if (!truth)
      fail(args.loc("x"), "bool() works on compile-time values here, got " +
                              args["x"].describe() + "; compare with 0 instead");
    return Value::ofBool(*truth);
  }
  if (name == "abs" || name == "int" || name == "float") {
    BuiltinArguments args(*this, call, name, {"x"}, 1);
    const Value &v = args["x"];
    if (name == "float" && v.kind == Value::Kind::String) {
      // float("inf"), float("-inf"), float("nan"), as in Python.
      std::string t = v.text;
      for (char &c : t)
        c = char(std::tolower(static_cast<unsigned char>(c)));
      if (t == "inf" || t == "+inf" || t == "infinity")
        return Value::ofFloat(INFINITY);
      if (t == "-inf" || t == "-infinity")
        return Value::ofFloat(-INFINITY);
      if (t == "nan")
        return Value::ofFloat(NAN);
      char *end = nullptr;
      double d = std::strtod(v.text.c_str(), &end);
      if (v.text.empty() || *end)
        fail(args.loc("x"), "could not convert string to float: '" + v.text + "'");
      return Value::ofFloat(d);
    }
    if (!v.isNumber())
      fail(args.loc("x"), name + "() works on compile-time numbers here, got " +
                              v.describe());
    double d = v.kind == Value::Kind::Float ? v.floatValue
               : v.kind == Value::Kind::Int ? double(v.intValue)
                                            : double(v.boolValue);
    if (name == "abs") {
      if (v.kind == Value::Kind::Float)
        return Value::ofFloat(std::fabs(d));
      int64_t i = v.kind == Value::Kind::Int ? v.intValue : v.boolValue;
      if (i == INT64_MIN)
        fail(at, "integer overflow in constant expression");
      return Value::ofInt(i < 0 ? -i : i);
    }
    if (name == "int") {
      if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
        fail(at, "int() of a value out of range");
      return Value::ofInt(v.kind == Value::Kind::Int ? v.intValue : int64_t(d));
    }
    return Value::ofFloat(d); // float
  }
  if (name == "tl.jit")
    fail(at, "@jit is a decorator; call the decorated function directly");
  fail(at, "'" + name + "' is not supported by tilec (yet)");
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
  fail(call.loc, "unknown method '" + method.text + "'");
}

} // namespace tilec::dsl
