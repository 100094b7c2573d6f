// The JIT compiler: kernel source + signature + constexprs → every stage's
// text. The one place where the front end (dsl/) and the compiler meet;
// the runtime loads what it produces.
#pragma once

#include "compiler/Pipeline.h"
#include "compiler/Target/TargetInfo.h"
#include "dsl/IRGen.h"
#include "dsl/Signature.h"
#include "dsl/Values.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::jit {

struct CompileOptions {
  unsigned numWarps = 4;
  unsigned numStages = 3; ///< PipelineOptions::numStages
  unsigned maxRegisters = 0; ///< PipelineOptions::maxRegisters
  /// tl.device_assert (and `assert` on runtime values) checked, and every
  /// load and store checked against its argument's extent (Triton's
  /// debug=True; docs/language.md, "Debugging").
  bool debug = false;
  /// deterministic=True: tile-check-deterministic rejects, with located
  /// errors, what could make results depend on the grid or the batch
  /// (PipelineOptions::deterministic; docs/determinism.md).
  bool deterministic = false;
  /// .file/.loc source lines in the PTX (PipelineOptions::lineInfo).
  bool lineInfo = true;
  /// Descriptors through TMA where it pays (PipelineOptions::tensorMaps).
  bool tensorMaps = true;
  std::string target = "sm_90a";
  /// Where tl.static_print goes; stderr when empty.
  std::function<void(const std::string &)> staticPrint;
};

/// Time spent in each phase of one compilation, in milliseconds.
struct CompileTimes {
  double frontEnd = 0; ///< parse check + tile IR generation
  double total = 0;    ///< up to PTX text
};

struct CompiledKernel {
  std::string name;
  dsl::Signature signature;
  CompiledStages stages;
  CompileTimes times;
};

/// The result of a compilation: the kernel, or the located errors (each
/// rendered as `file:line:col: error: ...` with the source line and caret
/// when the front end found it).
struct CompileResult {
  std::shared_ptr<CompiledKernel> kernel;
  std::vector<std::string> errors;
  /// Non-zero when the compile failed because the kernel needs this many
  /// bytes of shared memory, more than `sharedBytesLimit`, the target's
  /// limit per block (found before LLVM and ptxas run).
  unsigned sharedBytesNeeded = 0, sharedBytesLimit = 0;
  bool ok() const { return kernel != nullptr; }
};


/// A parsed source with its scope: a file of kernels, or one Python
/// function with the globals Python gave. Parse errors are reported here.
struct ParsedSource {
  std::shared_ptr<dsl::ModuleAST> module;
  std::shared_ptr<dsl::Scope> scope;
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
  /// The function named `name`, or null. The pointer keeps the scope the
  /// function's names resolve in alive (a function does not own its scope).
  std::shared_ptr<const dsl::JitFunction> function(const std::string &name) const;
};

ParsedSource parseSource(const std::string &path, const std::string &text,
                         unsigned firstLine = 1);

/// The dialects and translations every tilec compilation registers.
const mlir::DialectRegistry &tilecDialectRegistry();

/// Tile IR of `kernel` for `spec`, built in `ctx` (which must outlive the
/// module); null after appending the rendered front-end error to `errors`.
mlir::OwningOpRef<mlir::ModuleOp>
generateTileIR(mlir::MLIRContext &ctx, const dsl::JitFunction &kernel,
               const dsl::KernelSpecialization &spec,
               const std::function<void(const std::string &)> &staticPrint,
               std::vector<std::string> &errors);

CompileResult compile(const dsl::JitFunction &kernel,
                      const std::string &signature,
                      const std::map<std::string, dsl::Value> &constexprs,
                      const CompileOptions &options);

/// The target a launch compiles for on a GPU of compute capability `cc`
/// (major * 10 + minor) named `deviceName`: TargetInfo::forComputeCapability,
/// the device's own architecture. nullopt, with `error` saying why, for a
/// GPU older than every target tilec knows (below compute capability 8.0),
/// which could not run any PTX tilec writes.
std::optional<TargetInfo> targetForDevice(unsigned cc, const std::string &deviceName,
                                          std::string &error);

/// True when PTX written for `target` runs on a GPU of compute capability
/// `cc`: the GPU is at least the target's architecture, and exactly it for
/// an arch-specific target (sm_90a code runs on compute capability 9.0 only).
bool targetRunsOn(const TargetInfo &target, unsigned cc);

/// Parse `-D NAME=VALUE` text: ints (decimal or 0x), floats, True/False,
/// dtypes (fp16, tl.float16), anything else a string.
dsl::Value parseConstexprValue(const std::string &text);

/// What a reader of PTX looks for first: access widths, predication,
/// special instructions. Registers come from ptxas (`-v`) when it is found.
std::string summarizePTX(const std::string &ptx);

} // namespace tilec::jit
