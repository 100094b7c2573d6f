// Generation of tile-dialect IR from a checked kernel, specialised on a
// signature and constexpr values.
#pragma once

#include "dsl/Signature.h"
#include "dsl/Values.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <map>
#include <string>

namespace tilec::dsl {

struct KernelSpecialization {
  Signature signature;
  /// Values of constexpr parameters, by name. Parameters not given use
  /// their default.
  std::map<std::string, Value> constexprs;
  /// Compile tl.device_assert and runtime `assert` statements into checks
  /// (Triton's debug=True); without it they generate nothing.
  bool debug = false;
};

/// Where tl.static_print writes (stderr unless replaced).
using StaticPrintSink = std::function<void(const std::string &)>;

/// Build a module holding the kernel (public func.func) and its helpers
/// (private, called with func.call; tile-inline splices them in). Every op
/// carries the FileLineColLoc of the expression that made it. Throws
/// CompileError, located in the user's source, for any error.
mlir::OwningOpRef<mlir::ModuleOp>
generateKernel(mlir::MLIRContext &ctx, const JitFunction &kernel,
               const KernelSpecialization &spec,
               const StaticPrintSink &print = nullptr);

/// Evaluate an expression that must be known at compile time (module-level
/// constants, parameter defaults). Throws CompileError otherwise.
Value evaluateConstantExpression(const Expr &expr, const Scope &scope);

} // namespace tilec::dsl
