// Axis-info analysis: what is known, per dimension, about the integers and
// pointers of a tile program. It decides how wide a load or store may be.
//
// For a value of shape S (scalars are treated as shape [1]) and dimension d:
//  - contiguity[d] = c: along d the elements come in runs of c consecutive
//    integers (or addresses, counted in elements), each run starting at an
//    index that is a multiple of c;
//  - divisibility[d] = v: the first element of each run (every element when
//    c == 1) is a multiple of v — bytes for pointers;
//  - constancy[d] = k: along d the elements come in runs of k equal values.
// All three are powers of two. The facts are seeded from the kernel's
// specialisation (tile::kDivisibilityAttr on arguments) and from tl.multiple_of /
// tl.max_contiguous hints.
//
// The analysis is a sparse forward analysis on MLIR's dataflow framework:
// facts flow through scf.for / scf.if / scf.while to a fixpoint, so a
// loop-carried pointer advanced by a multiple of 16 bytes each iteration
// keeps its contiguity and alignment. Where two paths meet (a loop's
// initial value and its yield, the two arms of an if) the facts are the
// weaker of the two: the gcd of each number.
#pragma once

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace tilec {

struct AxisInfo {
  llvm::SmallVector<int64_t, 2> contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;

  /// 0 for the lattice's "not yet reached" state.
  unsigned rank() const { return contiguity.size(); }
  bool isUninitialized() const { return contiguity.empty(); }
  /// Nothing known: runs of 1, divisible by 1.
  static AxisInfo unknown(unsigned rank);
  /// What holds on both of two paths.
  static AxisInfo join(const AxisInfo &a, const AxisInfo &b);
  bool operator==(const AxisInfo &other) const;
  void print(llvm::raw_ostream &os) const;
};

class AxisInfoAnalysis {
public:
  /// Analyse every function under `root` (to a fixpoint).
  explicit AxisInfoAnalysis(mlir::Operation *root);
  ~AxisInfoAnalysis();

  /// The facts for `value`; unknown() for values the analysis did not reach.
  AxisInfo lookup(mlir::Value value) const;

  /// Elements a single access may cover along `dim` of the pointer tensor
  /// `ptr`: contiguity and alignment together, capped at 16 bytes.
  unsigned getVectorWidth(mlir::Value ptr, unsigned dim) const;
  /// Run length of equal mask values along `dim` (the whole shape for a
  /// scalar mask).
  int64_t getConstancy(mlir::Value value, unsigned dim) const;
  /// The dimensions of `ptr` ordered by decreasing contiguity; ties keep
  /// the row-major preference (last dimension first).
  llvm::SmallVector<unsigned> getMemoryOrder(mlir::Value ptr) const;

  /// Largest power of two dividing `value` (capped; 0 divides by anything).
  static int64_t highestPowerOf2Divisor(int64_t value);

private:
  std::unique_ptr<mlir::DataFlowSolver> solver_;
};

} // namespace tilec
