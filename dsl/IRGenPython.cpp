// The Python builtins a kernel may call: min, max, abs, len, int, float
// and bool of compile-time values, and range and print, which only name
// what to use.
#include "dsl/BuiltinTable.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace tilec::dsl {

namespace {
/// min(a, b, ...) and max(a, b, ...) of compile-time values.
Value pythonMinMax(Generator &g, const BuiltinArguments &args, bool isMin) {
  const std::string &name = args.function();
  SourceLoc at = args.at();
  const std::vector<Value> &values = args.variadic();
  if (values.size() < 2)
    fail(at, name + "() takes two or more positional arguments here");
  Value best = values[0];
  for (size_t i = 1; i < values.size(); ++i) {
    const Value &v = values[i];
    if (!best.isConstexpr() || !v.isConstexpr())
      fail(at, name + "() works on compile-time values; use tl.minimum / "
                      "tl.maximum for runtime values");
    Value less = g.compare(CompareOp::Lt, v, best, at);
    if (less.boolValue == isMin)
      best = v;
  }
  return best;
}

Value pythonLen(Generator &, const BuiltinArguments &args) {
  const Value &v = args["obj"];
  if (v.kind == Value::Kind::Tuple)
    return Value::ofInt(v.elements.size());
  if (v.kind == Value::Kind::String)
    return Value::ofInt(v.text.size());
  fail(args.loc("obj"), "len() of " + v.describe() + " is not supported");
}

Value pythonBool(Generator &, const BuiltinArguments &args) {
  std::optional<bool> truth = args["x"].truthiness();
  if (!truth)
    fail(args.loc("x"), "bool() works on compile-time values here, got " +
                            args["x"].describe() + "; compare with 0 instead");
  return Value::ofBool(*truth);
}

/// The number abs(), int() or float() converts, or a located error.
double compileTimeNumber(const BuiltinArguments &args) {
  const Value &v = args["x"];
  if (!v.isNumber())
    fail(args.loc("x"), args.function() +
                            "() works on compile-time numbers here, got " +
                            v.describe());
  return v.kind == Value::Kind::Float ? v.floatValue
         : v.kind == Value::Kind::Int ? double(v.intValue)
                                      : double(v.boolValue);
}

Value pythonAbs(Generator &, const BuiltinArguments &args) {
  double d = compileTimeNumber(args);
  const Value &v = args["x"];
  if (v.kind == Value::Kind::Float)
    return Value::ofFloat(std::fabs(d));
  int64_t i = v.kind == Value::Kind::Int ? v.intValue : v.boolValue;
  if (i == INT64_MIN)
    fail(args.at(), "integer overflow in constant expression");
  return Value::ofInt(i < 0 ? -i : i);
}

Value pythonInt(Generator &, const BuiltinArguments &args) {
  double d = compileTimeNumber(args);
  const Value &v = args["x"];
  if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
    fail(args.at(), "int() of a value out of range");
  return Value::ofInt(v.kind == Value::Kind::Int ? v.intValue : int64_t(d));
}

/// float(x), also float("inf"), float("-inf"), float("nan") as in Python.
Value pythonFloat(Generator &, const BuiltinArguments &args) {
  const Value &v = args["x"];
  if (v.kind != Value::Kind::String)
    return Value::ofFloat(compileTimeNumber(args));
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

Value pythonPrint(Generator &, const BuiltinArguments &args) {
  fail(args.at(), "print() runs on the host; use tl.static_print (at compile "
                  "time) instead");
}
} // namespace

void addPythonBuiltins(BuiltinTable &t) {
  t.add("min", {{}, 0, /*variadic=*/true},
        [](Generator &g, const BuiltinArguments &a) { return pythonMinMax(g, a, true); });
  t.add("max", {{}, 0, /*variadic=*/true},
        [](Generator &g, const BuiltinArguments &a) { return pythonMinMax(g, a, false); });
  t.add("abs", {{"x"}, 1}, pythonAbs);
  t.add("len", {{"obj"}, 1}, pythonLen);
  t.add("bool", {{"x"}, 1}, pythonBool);
  t.add("int", {{"x"}, 1}, pythonInt);
  t.add("float", {{"x"}, 1}, pythonFloat);
  // Python's print(*objects, sep=' ', end='\n', file=None, flush=False),
  // declared so that any call of it gets the message saying what to use.
  t.add("print", {{"sep", "end", "file", "flush"}, 0, /*variadic=*/true},
        pythonPrint);
  t.add("range", {{}, 0, /*variadic=*/true}, loopOnly);
}

} // namespace tilec::dsl
