#include "runtime/JIT/Interpret.h"

#include "compiler/Pipeline.h"
#include "compiler/RenderLocation.h"
#include "runtime/JIT/Compiler.h"
#include "dsl/AST.h"
#include "dsl/Diagnostics.h"
#include "dsl/IRGen.h"
#include "dsl/Signature.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace tilec::jit {

namespace {
// As the front end decides it (dsl/IRGen.cpp): `tl.constexpr` or
// `constexpr` as the annotation.
bool isConstexprAnnotation(const dsl::Expr *annotation) {
  if (!annotation)
    return false;
  if (auto *a = llvm::dyn_cast<dsl::AttributeExpr>(annotation))
    return a->attr == "constexpr";
  if (auto *n = llvm::dyn_cast<dsl::NameExpr>(annotation))
    return n->id == "constexpr";
  return false;
}
} // namespace

std::vector<std::string> runtimeParameterNames(const dsl::JitFunction &kernel) {
  std::vector<std::string> names;
  for (const dsl::Param &p : kernel.def->params)
    if (!isConstexprAnnotation(p.annotation.get()))
      names.push_back(p.name);
  return names;
}

InterpretResult interpret(const dsl::JitFunction &kernel,
                          const std::string &signatureText,
                          const std::map<std::string, dsl::Value> &constexprs,
                          interp::Grid grid, std::vector<interp::Arg> args,
                          const InterpretOptions &options) {
  InterpretResult result;
  dsl::KernelSpecialization spec;
  std::string error;
  if (!dsl::parseSignature(signatureText, spec.signature, error)) {
    result.errors.push_back("error: " + error);
    return result;
  }
  spec.constexprs = constexprs;
  spec.debug = options.debug;

  std::vector<std::string> names = runtimeParameterNames(kernel);
  for (size_t i = 0; i < args.size() && i < names.size(); ++i)
    if (args[i].name.empty())
      args[i].name = names[i];
  if (args.size() != spec.signature.args.size()) {
    result.errors.push_back(
        "error: the signature of '" + kernel.name() + "' has " +
        std::to_string(spec.signature.args.size()) + " entries but " +
        std::to_string(args.size()) + " arguments were given");
    return result;
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (spec.signature.args[i].equalsOne &&
        (args[i].kind != interp::Arg::Kind::Int || args[i].intValue != 1)) {
      result.errors.push_back(
          "error: argument '" + args[i].name +
          "' is specialised as 1 (':1' in the signature) but is " +
          (args[i].kind == interp::Arg::Kind::Int
               ? std::to_string(args[i].intValue)
               : std::string("not an integer")));
      return result;
    }

  mlir::MLIRContext ctx(tilecDialectRegistry(),
                        mlir::MLIRContext::Threading::DISABLED);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      generateTileIR(ctx, kernel, spec, options.staticPrint, result.errors);
  if (!module)
    return result;
  {
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
      if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
        result.errors.push_back(renderLocation(diag.getLocation()) +
                                ": error: " + diag.str());
      return mlir::success();
    });
    mlir::PassManager pm(&ctx);
    PipelineOptions pipeline;
    pipeline.deterministic = options.deterministic;
    pipeline.tensorMaps = false; // (the interpreter reads through pointers)
    buildTileOptimizationPipeline(pm, pipeline);
    if (mlir::failed(pm.run(*module))) {
      if (result.errors.empty())
        result.errors.push_back("error: simplifying the tile IR of '" +
                                kernel.name() + "' failed");
      return result;
    }
  }
  if (options.keepTileIR) {
    llvm::raw_string_ostream os(result.tile);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(false);
    module->print(os, flags);
  }
  auto start = std::chrono::steady_clock::now();
  try {
    result.stats = interp::run(*module, kernel.name(), grid, args, options.limits,
                                options.devicePrint);
  } catch (const interp::InterpreterError &e) {
    result.errors.push_back(e.what());
  }
  result.milliseconds = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  return result;
}

} // namespace tilec::jit
