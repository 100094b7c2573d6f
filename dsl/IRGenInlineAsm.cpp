// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
// PTX the user writes, applied elementwise to tensors broadcast to one
// shape (tile.inline_asm); and tl.cuda_device_call, a CUDA C++ device
// function applied the same way (tile.cuda_call). Everything the op's verifier would refuse is a
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

/// The `args` list of tl.inline_asm_elementwise and tl.cuda_device_call:
/// tensors and numbers, as IR broadcast to one shape.
std::vector<Value> broadcastOperands(Generator &g, const BuiltinArguments &args,
                                     const std::string &what) {
  const Value &list = args["args"];
  if (list.kind != Value::Kind::Tuple)
    fail(args.loc("args"), what + "'s args must be a list of tensors or numbers, got " +
                               list.describe());
  std::vector<Value> operands;
  for (const Value &v : list.elements) {
    if (!v.isIR() && !v.isNumber())
      fail(args.loc("args"), what + "'s args must be tensors or numbers, got " +
                                 v.describe());
    operands.push_back(g.toIR(v, args.loc("args")));
  }
  if (operands.empty())
    return operands;
  Value common = operands.front();
  for (size_t i = 1; i < operands.size(); ++i) {
    Value other = operands[i];
    g.broadcastPair(common, other, args.loc("args"));
  }
  for (Value &v : operands)
    v = g.broadcastTo(v, common.type.shape, args.loc("args"));
  return operands;
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
  std::vector<Value> operands = broadcastOperands(g, args, "tl.inline_asm_elementwise");
  for (const Value &v : operands)
    requireAsmType(v.type.element, args.loc("args"), "args");
  std::vector<int64_t> shape = operands.empty() ? std::vector<int64_t>{}
                                                : operands.front().type.shape;
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

  std::string badReference = tile::InlineAsmOp::checkOperandReferences(asmText, outputs + inputs);
  if (!badReference.empty())
    fail(args.loc("asm"), "tl.inline_asm_elementwise's " + badReference);

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

/// tl.cuda_device_call(source, name, args, dtype, is_pure=True): the
/// `extern "C" __device__` function `name` of the CUDA C++ `source`,
/// applied elementwise (tile.cuda_call; NVRTC compiles the source after
/// the kernel, compiler/Target/NVRTC.h).
Value cudaDeviceCall(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  g.requireIR(at, "tl.cuda_device_call");
  const Value &source = args["source"];
  if (source.kind != Value::Kind::String || source.text.empty())
    fail(args.loc("source"), "tl.cuda_device_call's source must be a non-empty string of "
                             "CUDA C++, got " + (source.kind == Value::Kind::String
                                                     ? std::string("''")
                                                     : source.describe()));
  const Value &name = args["name"];
  bool identifier = name.kind == Value::Kind::String && !name.text.empty() &&
                    !std::isdigit(static_cast<unsigned char>(name.text[0])) &&
                    llvm::all_of(name.text, [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                    });
  if (!identifier)
    fail(args.loc("name"), "tl.cuda_device_call's name must be the C name of an "
                           "extern \"C\" __device__ function, got " +
                               (name.kind == Value::Kind::String ? "'" + name.text + "'"
                                                                 : name.describe()));
  if (g.hasSymbol(name.text))
    fail(args.loc("name"), "the CUDA device function '" + name.text + "' has the name of "
                           "the kernel (or a helper) it is called from; PTX needs the two "
                           "named apart");
  bool pure = true;
  if (args.has("is_pure")) {
    const Value &p = args["is_pure"];
    std::optional<bool> truth = p.isConstexpr() ? p.truthiness() : std::nullopt;
    if (!truth)
      fail(args.loc("is_pure"), "is_pure must be a compile-time bool, got " + p.describe());
    pure = *truth;
  }
  std::vector<Value> operands = broadcastOperands(g, args, "tl.cuda_device_call");
  auto callable = [](DType t) {
    return !t.isPointer && !t.isBool() && !t.isFP8();
  };
  for (const Value &v : operands)
    if (!callable(v.type.element))
      fail(args.loc("args"), "tl.cuda_device_call passes integers of 8 to 64 bits and "
                             "fp16, bf16, fp32, fp64, not " + v.type.element.name());
  DType dtype = dtypeArg(args["dtype"], args.loc("dtype"), "dtype");
  if (!callable(dtype))
    fail(args.loc("dtype"), "tl.cuda_device_call returns integers of 8 to 64 bits or "
                            "fp16, bf16, fp32, fp64, not " + dtype.name());
  std::vector<int64_t> shape = operands.empty() ? std::vector<int64_t>{}
                                                : operands.front().type.shape;
  ValueType type = shape.empty() ? ValueType{dtype, {}} : g.tensorType(dtype, shape, at);
  g.addCudaSource(source.text);
  mlir::OpBuilder &b = g.builder();
  llvm::SmallVector<mlir::Value> irs;
  for (const Value &v : operands)
    irs.push_back(v.ir);
  auto op = b.create<tile::CudaCallOp>(
      g.loc(at), type.toMLIR(b.getContext()),
      mlir::FlatSymbolRefAttr::get(b.getContext(), name.text), b.getBoolAttr(pure), irs);
  return Value::ofIR(op.getResult(), type);
}

} // namespace

void addInlineAsmBuiltins(BuiltinTable &t) {
  t.add("tl.inline_asm_elementwise",
        {{"asm", "constraints", "args", "dtype", "is_pure", "pack"}, 6}, inlineAsm);
  t.add("tl.cuda_device_call", {{"source", "name", "args", "dtype", "is_pure"}, 4},
        cudaDeviceCall);
}

} // namespace tilec::dsl
