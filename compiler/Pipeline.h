// The whole path from tile-dialect IR to PTX, in one place, so that the
// CLI, the JIT, tilec-opt and the tests run the very same pipeline.
#pragma once

#include "compiler/Target/PTXEmitter.h"
#include "compiler/TensorMap.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tilec {

struct PipelineOptions {
  unsigned numWarps = 4;
  /// Software-pipeline stages of loops that feed a dot (on sm_80+ through
  /// cp.async; `tl.range(..., num_stages=)` overrides it per loop). 1 turns
  /// the shared-memory pipeline off.
  unsigned numStages = 3;
  /// Most registers per thread (PTX .maxnreg, Triton's maxnreg); 0: ptxas
  /// decides.
  unsigned maxRegisters = 0;
  /// Triton's debug=True: tile-check-bounds runs first, so that every
  /// kernel takes the extents of its pointer arguments after its own
  /// arguments (the runtime passes them) and checks its loads and stores.
  bool debug = false;
  /// deterministic=True (batch invariance): tile-check-deterministic runs
  /// after inlining and rejects, at the user's line, float atomics and
  /// float accumulations split by the grid or by runtime values.
  bool deterministic = false;
  /// Source lines in the PTX (.file/.loc, tilec-attach-line-info), as
  /// Triton writes them by default.
  bool lineInfo = true;
  /// Tensor descriptors' blocks through TMA where it pays
  /// (tile-lower-descriptors): on sm_90a (where wgmma reads the copies),
  /// outside debug compiles. Off, every descriptor access is a pointer
  /// access: the interpreter's view, and `tilec aot`'s, whose launch
  /// functions pass no tensor maps.
  bool tensorMaps = true;
  PTXOptions ptx;
};

/// Dialects, interfaces and LLVM IR translations tilec needs.
void registerTilecDialects(mlir::DialectRegistry &registry);
/// tilec's passes plus the pipelines `tilec-optimize-tile`,
/// `tilec-to-tilegpu` and `tilec-to-llvm`, for tilec-opt.
void registerTilecPassesAndPipelines();

/// tile-inline, tile-widen-fp8, tile-lower-descriptors, canonicalize, CSE, and
/// tile-check-deterministic with options.deterministic.
void buildTileOptimizationPipeline(mlir::OpPassManager &pm,
                                   const PipelineOptions &options = {});
/// tile-to-tilegpu, canonicalize, CSE.
void buildTileGPUPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
/// tilegpu-to-llvm, reconcile-unrealized-casts, canonicalize, CSE, and
/// tilec-attach-line-info unless line info is off.
void buildLLVMDialectPipeline(mlir::OpPassManager &pm,
                              const PipelineOptions &options);

/// The text of every stage of one compilation.
struct CompiledStages {
  std::string tile;    ///< tile dialect after inlining and simplification
  std::string tilegpu; ///< with layouts
  std::string llir;    ///< optimised LLVM IR
  std::string ptx;
  unsigned sharedBytes = 0; ///< dynamic shared memory the kernel needs
  /// Set when the compile failed because the kernel needs more shared
  /// memory than the target allows one block (`sharedBytes` is then the
  /// need): the autotuner drops such a config instead of failing it.
  bool sharedBytesExceeded = false;
  unsigned numWarps = 0;
  /// Programs per cluster along axis 0 (tl.range(..., num_ctas=N): the
  /// PTX's .reqnctapercluster); 1: no clusters. A launch's grid must be
  /// whole clusters.
  unsigned clusterCtas = 1;
  /// The TMA tensor maps the kernel takes after its other parameters, in
  /// order (compiler/TensorMap.h); empty for most kernels.
  std::vector<TensorMapSpec> tensorMaps;
};

/// Run the pipeline on a module fresh from the front end. On failure returns
/// false and fills `errors` with the located diagnostics (`file:line:col:
/// error: message`).
bool compileToPTX(mlir::ModuleOp module, const PipelineOptions &options,
                  CompiledStages &stages, std::vector<std::string> &errors);

} // namespace tilec
