// Runtime-dependence analysis: what the value of an integer or float may
// depend on besides compile-time constants and the program's own id — the
// launch grid (tl.num_programs) and runtime data (a kernel's scalar
// arguments, values loaded from memory or returned by atomics).
//
// tile-check-deterministic asks it whether the partition of a loop that
// accumulates floats (its start and step) could change with the grid or
// with a runtime size: if so the order of the sum, and hence its rounding,
// could change with the batch a request shares.
//
// A sparse forward analysis on MLIR's dataflow framework: every op's
// results depend on what its operands depend on, plus the grid for
// tile.num_programs and runtime data for loads, atomics and calls; an
// scf.for induction variable depends on its lower bound and step, except
// that a loop that accumulates nothing (accumulatesFloats) and steps by the
// grid counts out ids of work, as tl.program_id does (a persistent
// kernel's tile loop): its counter drops the step's grid dependence;
// values carried by scf.for, scf.while and scf.if join what flows into
// them.
// Pointer arguments depend on nothing (an address does not order a sum);
// a pointer offset by a runtime value does. The lattice is a set of two
// bits, so every loop reaches its fixpoint within three visits.
#pragma once

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"

#include <memory>

namespace tilec {

/// The lattice value: not reached yet, or the set of sources.
class RuntimeDependence {
public:
  enum Source : unsigned {
    None = 0,
    Grid = 1,    ///< tl.num_programs
    Runtime = 2, ///< a scalar argument, a loaded value
  };

  RuntimeDependence() = default; ///< not reached yet
  static RuntimeDependence of(unsigned sources) {
    RuntimeDependence d;
    d.reached_ = true;
    d.sources_ = sources;
    return d;
  }

  bool isUninitialized() const { return !reached_; }
  unsigned sources() const { return sources_; }
  bool dependsOnGrid() const { return sources_ & Grid; }
  bool dependsOnRuntime() const { return sources_ & Runtime; }

  static RuntimeDependence join(const RuntimeDependence &a, const RuntimeDependence &b) {
    if (a.isUninitialized())
      return b;
    if (b.isUninitialized())
      return a;
    return of(a.sources_ | b.sources_);
  }
  bool operator==(const RuntimeDependence &o) const {
    return reached_ == o.reached_ && sources_ == o.sources_;
  }
  void print(llvm::raw_ostream &os) const;

private:
  bool reached_ = false;
  unsigned sources_ = None;
};

/// True when `type`, or a tensor's elements, are floats (integers).
bool isFloatLike(mlir::Type type);
bool isIntegerLike(mlir::Type type);

/// True when `loop` (scf.for or scf.while) accumulates floating-point
/// values: it carries a float (scalar or tile) that an iteration combines
/// with its previous value, or stores a float computed from a load of the
/// same address (a sum kept in memory).
bool accumulatesFloats(mlir::Operation *loop);

/// The analysis over `root` (a module or a function), run on construction.
class RuntimeDependenceAnalysis {
public:
  explicit RuntimeDependenceAnalysis(mlir::Operation *root);
  ~RuntimeDependenceAnalysis();
  /// What `value` may depend on; everything when the analysis did not
  /// reach it (code it proved dead, say).
  RuntimeDependence lookup(mlir::Value value) const;

private:
  std::unique_ptr<mlir::DataFlowSolver> solver_;
};

} // namespace tilec
