// Pointer-origin analysis: which pointer argument of a kernel every element
// of a pointer value (scalar or tensor) is derived from. tile-check-bounds
// measures each load's and store's addresses against that argument's
// buffer.
//
// A sparse forward analysis on MLIR's dataflow framework. A kernel's pointer
// arguments are their own origin; addptr, splat, broadcast, expand_dims,
// reshape, trans and tilegpu.convert_layout keep their pointer operand's; a select joins its two
// operands'; values carried by scf.for / scf.if / scf.while join what flows
// into them. Two different origins join to "unknown", as does any other
// pointer (one loaded from memory, say). The lattice is two levels high, so
// the fixpoint is reached in a pass or two over each loop, however long the
// chains of pointer arithmetic are.
#pragma once

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"

#include <memory>

namespace tilec {

/// The lattice value: not reached yet, one argument, or unknown.
class PointerOrigin {
public:
  PointerOrigin() = default; ///< not reached yet
  static PointerOrigin of(mlir::BlockArgument argument) {
    PointerOrigin o;
    o.state_ = State::Argument;
    o.argument_ = argument;
    return o;
  }
  static PointerOrigin unknown() {
    PointerOrigin o;
    o.state_ = State::Unknown;
    return o;
  }

  bool isUninitialized() const { return state_ == State::Uninitialized; }
  /// The one argument, or null (not reached, or unknown).
  mlir::BlockArgument argument() const {
    return state_ == State::Argument ? argument_ : mlir::BlockArgument();
  }

  static PointerOrigin join(const PointerOrigin &a, const PointerOrigin &b);
  bool operator==(const PointerOrigin &o) const {
    return state_ == o.state_ && argument_ == o.argument_;
  }
  void print(llvm::raw_ostream &os) const;

private:
  enum class State { Uninitialized, Argument, Unknown } state_ = State::Uninitialized;
  mlir::BlockArgument argument_;
};

/// The analysis over `root` (a module or a function), run on construction.
class PointerOriginAnalysis {
public:
  explicit PointerOriginAnalysis(mlir::Operation *root);
  ~PointerOriginAnalysis();
  /// The pointer argument every element of `pointer` derives from; null
  /// when there is no single one.
  mlir::BlockArgument originOf(mlir::Value pointer) const;

private:
  std::unique_ptr<mlir::DataFlowSolver> solver_;
};

} // namespace tilec
