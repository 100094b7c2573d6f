// Recomputing cheap index arithmetic instead of moving its results between
// layouts, for tilegpu-remove-layout-conversions: index chains shared by
// several ops are cloned per use (so each use can take its own layout),
// and conversions whose operand is such a chain are replaced by the chain
// recomputed in the wanted layout.
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace tilec {

/// Give every user but the first of a cheap index value its own copy of the
/// chain computing it (placed next to the original; CSE merges copies that
/// end in one layout).
void rematerialiseSharedChains(mlir::IRRewriter &rewriter, mlir::func::FuncOp func);

/// Replace each tilegpu.convert_layout whose operand is computed from
/// scalars by cheap pure ops with that computation done in the wanted
/// layout.
void rematerialiseConversions(mlir::IRRewriter &rewriter, mlir::func::FuncOp func);

} // namespace tilec
