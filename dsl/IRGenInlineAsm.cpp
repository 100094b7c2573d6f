// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
// PTX the user writes, applied elementwise to tensors broadcast to one
// shape (tile.inline_asm). Everything the op's verifier would refuse is a
// located error here first, phrased in the language's terms.
#include "dsl/BuiltinTable.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec::dsl {

namespace {

std::string stringArg(const BuiltinArguments &args, const char *name) {
  const Value &v = args[name];
  if (v.kind != Value::Kind::String)
    fail(args.loc(name), std::string("tl.inline_asm_elementwise's ") + name +
                             " must be a string, got " + v.describe());
  return v.text;
}

/// The registers one invocation passes for a value of `element`.
unsigned registers(Generator &g, DType element, unsigned pack) {
  mlir::Type type = ValueType{element, {}}.toMLIR(g.builder().getContext());
  return tile::InlineAsmOp::registersPerInvocation(type, pack);
}

void requireAsmType(DType t, SourceLoc l, const std::string &what) {
  if (t.isPointer || t.scalar == ScalarKind::Int1)
    fail(l, "tl.inline_asm_elementwise's " + what +
                " must be integers of 8 to 64 bits or floats, got " + t.name());
}

Value inlineAsm(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  g.requireIR(at, "tl.inline_asm_elementwise");
  std::string asmText = stringArg(args, "asm");
  std::string constraints = stringArg(args, "constraints");

  const Value &isPure = args["is_pure"];
  std::optional<bool> pure = isPure.truthiness();
  if (!isPure.isConstexpr() || !pure)
    fail(args.loc("is_pure"), "is_pure must be a compile-time bool, got " + isPure.describe());
  int64_t pack = g.constInt(args["pack"], args.loc("pack"), "pack");
  if (pack < 1 || pack > 16 || (pack & (pack - 1)))
    fail(args.loc("pack"), "pack must be a power of two from 1 to 16, got " +
                               std::to_string(pack));

  // The operands, broadcast to one shape.
  const Value &list = args["args"];
  if (list.kind != Value::Kind::Tuple)
    fail(args.loc("args"), "tl.inline_asm_elementwise's args must be a list of tensors or "
                           "numbers, got " + list.describe());
  std::vector<Value> operands;
  for (const Value &v : list.elements) {
    if (!v.isIR() && !v.isNumber())
      fail(args.loc("args"), "tl.inline_asm_elementwise's args must be tensors or "
                             "numbers, got " + v.describe());
    Value ir = g.toIR(v, args.loc("args"));
    requireAsmType(ir.type.element, args.loc("args"), "args");
    operands.push_back(ir);
  }
  std::vector<int64_t> shape;
  if (!operands.empty()) {
    Value common = operands.front();
    for (size_t i = 1; i < operands.size(); ++i) {
      Value other = operands[i];
      g.broadcastPair(common, other, args.loc("args"));
    }
    shape = common.type.shape;
    for (Value &v : operands)
      v = g.broadcastTo(v, shape, args.loc("args"));
  }
  if (shape.empty() && pack != 1)
    fail(args.loc("pack"), "scalar operands take pack=1, got " + std::to_string(pack));

  // The results: one dtype, or a tuple of them.
  const Value &dtype = args["dtype"];
  std::vector<DType> dtypes;
  if (dtype.kind == Value::Kind::Tuple) {
    for (const Value &d : dtype.elements)
      dtypes.push_back(dtypeArg(d, args.loc("dtype"), "each dtype"));
    if (dtypes.empty())
      fail(args.loc("dtype"), "tl.inline_asm_elementwise must return at least one value "
                              "(return a dummy tensor if the asm has no result)");
  } else {
    dtypes.push_back(dtypeArg(dtype, args.loc("dtype"), "dtype"));
  }
  for (DType t : dtypes)
    requireAsmType(t, args.loc("dtype"), "dtype");

  // The constraints must name one register per output and input an
  // invocation passes (ptxas would report the mismatch on the PTX).
  unsigned outputs = 0, inputs = 0, wantOutputs = 0, wantInputs = 0;
  for (DType t : dtypes)
    outputs += registers(g, t, unsigned(pack));
  for (const Value &v : operands)
    inputs += registers(g, v.type.element, unsigned(pack));
  for (llvm::StringRef c : llvm::split(llvm::StringRef(constraints), ',')) {
    c = c.trim();
    if (c.starts_with("~"))
      continue;
    (c.starts_with("=") ? wantOutputs : wantInputs)++;
  }
  if (wantOutputs != outputs || wantInputs != inputs)
    fail(args.loc("constraints"),
         "the constraints name " + std::to_string(wantOutputs) + " outputs and " +
             std::to_string(wantInputs) + " inputs, but with pack=" + std::to_string(pack) +
             " each invocation has " + std::to_string(outputs) + " output and " +
             std::to_string(inputs) +
             " input registers (one per element, or per 32 bits of packed elements "
             "narrower than 32 bits; outputs first, each written `=r`)");

  mlir::OpBuilder &b = g.builder();
  llvm::SmallVector<mlir::Type> resultTypes;
  std::vector<ValueType> valueTypes;
  for (DType t : dtypes) {
    ValueType type = shape.empty() ? ValueType{t, {}} : g.tensorType(t, shape, at);
    valueTypes.push_back(type);
    resultTypes.push_back(type.toMLIR(b.getContext()));
  }
  llvm::SmallVector<mlir::Value> irs;
  for (const Value &v : operands)
    irs.push_back(v.ir);
  auto op = b.create<tile::InlineAsmOp>(g.loc(at), resultTypes, b.getStringAttr(asmText),
                                        b.getStringAttr(constraints), b.getBoolAttr(*pure),
                                        b.getI32IntegerAttr(int32_t(pack)), irs);
  std::vector<Value> results;
  for (auto [value, type] : llvm::zip(op.getResults(), valueTypes))
    results.push_back(Value::ofIR(value, type));
  if (dtype.kind != Value::Kind::Tuple)
    return results.front();
  return Value::ofTuple(results);
}

} // namespace

void addInlineAsmBuiltins(BuiltinTable &t) {
  t.add("tl.inline_asm_elementwise",
        {{"asm", "constraints", "args", "dtype", "is_pure", "pack"}, 6}, inlineAsm);
}

} // namespace tilec::dsl
