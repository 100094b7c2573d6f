// The Python builtins a kernel may call: min, max and abs (of compile-time
// values as in Python, of runtime values elementwise as tl.minimum,
// tl.maximum and tl.abs, as Triton has them), len, int, float and bool of
// compile-time values, and range and print, which only name what to use.
#include "dsl/BuiltinTable.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace tilec::dsl {

namespace {
/// The values min() or max() chooses among: its arguments, or the
/// elements of a lone tuple (Python's min(iterable)).
std::vector<Value> minMaxCandidates(const BuiltinArguments &args) {
  const std::string &name = args.function();
  const std::vector<Value> &values = args.variadic();
  if (values.empty())
    fail(args.at(), name + "() expected at least 1 argument, got 0");
  if (values.size() > 1)
    return values;
  const Value &only = values[0];
  SourceLoc l = args.variadicLoc(0);
  if (only.kind == Value::Kind::Tuple) {
    if (only.elements.empty())
      fail(l, name + "() arg is an empty sequence");
    return only.elements;
  }
  if (only.isIR() && only.type.isTensor())
    fail(l, name + "() of one tensor is not a reduction: use tl." + name +
                "(x, axis) to reduce it, or " + name +
                "(x, y) for the elementwise " +
                (name == "min" ? "minimum" : "maximum"));
  fail(l, name + "() needs two or more values, or a tuple; got only " +
              only.describe());
}

/// min(a, b, ...) and max(a, b, ...): as Python between compile-time
/// values (the first of equal ones wins), else elementwise as tl.minimum
/// and tl.maximum, left to right.
Value pythonMinMax(Generator &g, const BuiltinArguments &args, bool isMin) {
  std::vector<Value> values = minMaxCandidates(args);
  SourceLoc at = args.at();
  Value best = values[0];
  for (size_t i = 1; i < values.size(); ++i) {
    const Value &v = values[i];
    if (best.isConstexpr() && v.isConstexpr()) {
      Value better = g.compare(isMin ? CompareOp::Lt : CompareOp::Gt, v, best, at);
      if (better.boolValue)
        best = v;
      continue;
    }
    best = g.minMax(isMin, best, v, /*propagateNan=*/false, at,
                    args.function() + "()");
  }
  return best;
}

/// abs(x): Python's of a compile-time number, tl.abs of a runtime value.
Value pythonAbs(Generator &g, const BuiltinArguments &args) {
  const Value &v = args["x"];
  SourceLoc l = args.loc("x");
  if (v.isIR()) {
    if (v.type.element.isPointer)
      fail(l, "bad operand for abs(): " + v.describe());
    return g.absolute(v, l, args.at(), "abs()");
  }
  if (!v.isNumber())
    fail(l, "bad operand for abs(): " + v.describe());
  if (v.kind == Value::Kind::Float)
    return Value::ofFloat(std::fabs(v.floatValue));
  int64_t i = v.kind == Value::Kind::Int ? v.intValue : v.boolValue;
  if (i == INT64_MIN)
    fail(args.at(), "integer overflow in constant expression");
  return Value::ofInt(i < 0 ? -i : i);
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

/// The number int() or float() converts, or a located error.
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
  // min(*args) and max(*args); Python's keyword-only key= and default= are
  // not accepted.
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
