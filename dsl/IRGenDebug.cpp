// The debugging builtins: tl.device_assert (also what a runtime `assert`
// statement becomes), tl.device_print and tl.debug_barrier. Assertions
// generate code only when the kernel is compiled with debug=True, as in
// Triton; prints and barriers always do.
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace tilec::dsl {

namespace arith = mlir::arith;

namespace {

/// A value a device print or failed assertion can show: its IR (fp8 and
/// bool widened to what printf takes) and whether to read it signed.
struct Printable {
  mlir::Value ir;
  bool isSigned = false;
};

Printable printable(Generator &g, const Value &v, SourceLoc l, const std::string &what) {
  if (v.kind == Value::Kind::String || !(v.isIR() || v.isNumber()))
    fail(l, what + " takes numbers and tensors, got " + v.describe());
  Value ir = g.toIR(v, l);
  DType element = ir.type.element;
  if (element.isFP8())
    ir = g.cast(ir, DType{ScalarKind::Float32, false}, l);
  return {ir.ir, element.isSigned()};
}

Value deviceAssertBuiltin(Generator &g, const BuiltinArguments &args) {
  std::string message;
  if (args.has("msg")) {
    const Value &msg = args["msg"];
    if (msg.kind != Value::Kind::String)
      fail(args.loc("msg"), "tl.device_assert's msg must be a string, got " +
                                msg.describe());
    message = msg.text;
  }
  const Value *mask = args.has("mask") ? &args["mask"] : nullptr;
  g.deviceAssert(args["cond"], message, mask, args.at());
  return Value::none();
}

Value devicePrint(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  std::vector<Value> operands = args.variadic();
  std::vector<SourceLoc> locs;
  for (size_t i = 0; i < operands.size(); ++i)
    locs.push_back(args.variadicLoc(i));
  // The prefix is the first positional argument, or prefix=.
  std::string prefix;
  if (args.has("prefix")) {
    if (args["prefix"].kind != Value::Kind::String)
      fail(args.loc("prefix"), "tl.device_print's prefix must be a string");
    prefix = args["prefix"].text;
  } else if (!operands.empty() && operands.front().kind == Value::Kind::String) {
    prefix = operands.front().text;
    operands.erase(operands.begin());
    locs.erase(locs.begin());
  } else {
    fail(at, "tl.device_print needs a prefix string first, as "
             "tl.device_print(\"x\", x)");
  }
  for (char c : prefix)
    if (c < 0x20 || c > 0x7e)
      fail(at, "tl.device_print's prefix must be printable ASCII");
  bool hex = false;
  if (args.has("hex")) {
    std::optional<bool> h = args["hex"].truthiness();
    if (!h || !args["hex"].isConstexpr())
      fail(args.loc("hex"), "hex= must be a compile-time bool");
    hex = *h;
  }
  // Triton's spelling of the prefix: a separating space before it and ": "
  // after it when values follow.
  if (!operands.empty()) {
    if (prefix.empty() || prefix.back() != ' ')
      prefix += ' ';
    if (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0)
      prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  }
  if (prefix.size() > 2 && prefix.front() != ' ')
    prefix = " " + prefix;
  g.requireIR(at, "tl.device_print");
  llvm::SmallVector<mlir::Value> irs;
  llvm::SmallVector<bool> signs;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].kind == Value::Kind::String)
      fail(locs[i], "tl.device_print takes one prefix string; put the text "
                    "into it");
    Printable p = printable(g, operands[i], locs[i], "tl.device_print");
    irs.push_back(p.ir);
    signs.push_back(p.isSigned);
  }
  mlir::OpBuilder &b = g.builder();
  b.create<tile::PrintOp>(g.loc(at), irs, b.getStringAttr(prefix),
                          b.getBoolAttr(hex), b.getDenseBoolArrayAttr(signs));
  return Value::none();
}

Value debugBarrier(Generator &g, const BuiltinArguments &args) {
  g.requireIR(args.at(), "tl.debug_barrier");
  g.builder().create<tile::DebugBarrierOp>(g.loc(args.at()));
  return Value::none();
}
} // namespace

void Generator::deviceAssert(const Value &cond, const std::string &message,
                             const Value *mask, SourceLoc at) {
  bool runtimeMask = mask && !mask->isConstexpr();
  if (cond.isConstexpr()) {
    std::optional<bool> ok = cond.truthiness();
    if (!ok)
      fail(at, "the condition of an assertion must be a bool, a number or a "
               "tensor, got " + cond.describe());
    if (*ok || (mask && mask->isConstexpr() && mask->truthiness() == false))
      return;
    // Known to fail while compiling: an error now, whatever the debug
    // setting; under a runtime mask it fails where the mask is set.
    if (!runtimeMask)
      fail(at, "assertion failed" + (message.empty() ? "" : ": " + message));
  }
  requireIR(at, "tl.device_assert");
  // Checked like an active one, so that a kernel's errors do not depend on
  // the debug setting; generated only under it.
  Value ok = cond.isConstexpr() ? toIR(Value::ofBool(false), at) : toBool(cond, at);
  std::vector<Value> shown;
  if (auto it = comparisons_.find(cond.ir); cond.isIR() && it != comparisons_.end())
    shown = {it->second.first, it->second.second};
  if (mask) {
    Value m = toBool(toIR(*mask, at), at);
    broadcastPair(ok, m, at);
    // Masked-off elements pass: ok | !mask.
    mlir::Location where = loc(at);
    mlir::TypedAttr true_ =
        m.type.isTensor()
            ? mlir::TypedAttr(mlir::DenseElementsAttr::get(
                  mlir::cast<mlir::ShapedType>(m.ir.getType()), true))
            : mlir::TypedAttr(b_.getBoolAttr(true));
    mlir::Value ones = b_.create<arith::ConstantOp>(where, true_);
    mlir::Value off = b_.create<arith::XOrIOp>(where, m.ir, ones);
    ok = Value::ofIR(b_.create<arith::OrIOp>(where, ok.ir, off), ok.type);
  }
  if (!debug_)
    return;
  llvm::SmallVector<mlir::Value> values;
  llvm::SmallVector<bool> signs;
  for (const Value &v : shown) {
    Value wide = broadcastTo(v, ok.type.shape, at);
    if (wide.type.element.isPointer || wide.type.element.isFP8())
      break; // shown only when printf can show them as numbers
    values.push_back(wide.ir);
    signs.push_back(wide.type.element.isSigned());
  }
  llvm::SmallVector<llvm::StringRef> details{""};
  if (values.size() == 2) {
    details = {"left ", ", right ", ""};
  } else {
    values.clear();
    signs.clear();
  }
  b_.create<tile::AssertOp>(loc(at), ok.ir, values,
                            b_.getStringAttr(message.empty() ? "assertion failed"
                                                             : message),
                            b_.getStrArrayAttr(details),
                            b_.getDenseBoolArrayAttr(signs));
}

void addDebugBuiltins(BuiltinTable &t) {
  t.add("tl.device_assert", {{"cond", "msg", "mask"}, 1}, deviceAssertBuiltin);
  t.add("tl.device_print", {{"prefix", "hex"}, 0, /*variadic=*/true}, devicePrint);
  t.add("tl.debug_barrier", {{}, 0}, debugBarrier);
}

} // namespace tilec::dsl
