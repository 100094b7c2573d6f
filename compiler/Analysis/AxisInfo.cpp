#include "compiler/Analysis/AxisInfo.h"

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace tilec;

namespace {
/// Divisibility is capped so that products cannot overflow; 2^30 already
/// exceeds any alignment the lowering asks about.
constexpr int64_t kMaxDivisor = int64_t(1) << 30;

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
int64_t capped(int64_t v) { return std::min(v, kMaxDivisor); }

SmallVector<int64_t, 2> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 2>(tensor.getShape());
  return {1};
}
} // namespace

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

AxisInfo AxisInfo::join(const AxisInfo &a, const AxisInfo &b) {
  if (a.isUninitialized())
    return b;
  if (b.isUninitialized())
    return a;
  assert(a.rank() == b.rank() && "joining facts of different ranks");
  AxisInfo r = unknown(a.rank());
  for (unsigned d = 0; d < a.rank(); ++d) {
    r.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
    r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constantValue == b.constantValue)
    r.constantValue = a.constantValue;
  return r;
}

bool AxisInfo::operator==(const AxisInfo &other) const {
  return contiguity == other.contiguity && divisibility == other.divisibility &&
         constancy == other.constancy && constantValue == other.constantValue;
}

void AxisInfo::print(raw_ostream &os) const {
  if (isUninitialized()) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constantValue)
    os << ", constant = " << *constantValue;
}

int64_t AxisInfoAnalysis::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return capped(value & -value);
}

unsigned AxisInfoAnalysis::getVectorWidth(Value ptr, unsigned dim) const {
  auto pointee = tile::getElementTypeOrSelf(tile::getPointeeTypeLike(ptr.getType()));
  int64_t bytes = tile::getElementBytes(pointee);
  AxisInfo info = lookup(ptr);
  int64_t alignedElems = std::max<int64_t>(1, info.divisibility[dim] / bytes);
  int64_t width = std::min({info.contiguity[dim], alignedElems,
                            std::max<int64_t>(1, 16 / bytes)});
  return std::max<int64_t>(1, width);
}

int64_t AxisInfoAnalysis::getConstancy(Value value, unsigned dim) const {
  if (!isa<RankedTensorType>(value.getType()))
    return kMaxDivisor;
  return lookup(value).constancy[dim];
}

SmallVector<unsigned> AxisInfoAnalysis::getMemoryOrder(Value ptr) const {
  AxisInfo info = lookup(ptr);
  SmallVector<unsigned> order(info.rank());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = order.size() - 1 - i;
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return info.contiguity[a] > info.contiguity[b];
  });
  return order;
}

namespace {
/// The divisibility every element has: inside a run of consecutive
/// integers only the run's first element is known to be a multiple.
int64_t elementDivisibility(const AxisInfo &info, unsigned d) {
  return info.contiguity[d] > 1 ? 1 : info.divisibility[d];
}

/// Facts about a + b (and a - b when `subtract`).
AxisInfo addInfo(const AxisInfo &a, const AxisInfo &b, bool subtract) {
  AxisInfo r = AxisInfo::unknown(a.rank());
  for (unsigned d = 0; d < a.rank(); ++d) {
    // A run plus a constant stays a run; a constant minus a run does not.
    int64_t fromA = gcd(a.contiguity[d], b.constancy[d]);
    int64_t fromB = subtract ? 1 : gcd(b.contiguity[d], a.constancy[d]);
    r.contiguity[d] = std::max(fromA, fromB);
    r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constantValue && b.constantValue)
    r.constantValue = subtract ? *a.constantValue - *b.constantValue
                               : *a.constantValue + *b.constantValue;
  return r;
}

AxisInfo mulInfo(const AxisInfo &a, const AxisInfo &b) {
  if (b.constantValue == 1)
    return a;
  if (a.constantValue == 1)
    return b;
  AxisInfo r = AxisInfo::unknown(a.rank());
  for (unsigned d = 0; d < a.rank(); ++d) {
    r.divisibility[d] =
        capped(elementDivisibility(a, d) * elementDivisibility(b, d));
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constantValue && b.constantValue)
    r.constantValue = *a.constantValue * *b.constantValue;
  return r;
}

/// Facts about a comparison: `x < n` is constant over a run of x that
/// starts at a multiple of k when n is a multiple of k too.
AxisInfo compareInfo(arith::CmpIPredicate pred, const AxisInfo &a,
                     const AxisInfo &b) {
  AxisInfo r = AxisInfo::unknown(a.rank());
  bool ordered = pred != arith::CmpIPredicate::eq &&
                 pred != arith::CmpIPredicate::ne;
  for (unsigned d = 0; d < a.rank(); ++d) {
    int64_t k = gcd(a.constancy[d], b.constancy[d]);
    if (ordered) {
      auto runOverConstant = [&](const AxisInfo &run, const AxisInfo &bound) {
        int64_t len = gcd(run.contiguity[d],
                          gcd(run.divisibility[d], bound.divisibility[d]));
        return std::min(len, bound.constancy[d]);
      };
      k = std::max({k, runOverConstant(a, b), runOverConstant(b, a)});
    }
    r.constancy[d] = k;
  }
  return r;
}

AxisInfo elementwiseConstancyOnly(ArrayRef<AxisInfo> operands) {
  AxisInfo r = AxisInfo::unknown(operands.front().rank());
  for (unsigned d = 0; d < r.rank(); ++d) {
    int64_t k = operands.front().constancy[d];
    for (const AxisInfo &o : operands.drop_front())
      k = gcd(k, o.constancy[d]);
    r.constancy[d] = k;
  }
  return r;
}

std::optional<int64_t> constantOf(Attribute attr) {
  if (auto i = dyn_cast_if_present<IntegerAttr>(attr))
    return i.getValue().getSExtValue();
  if (auto dense = dyn_cast_if_present<SplatElementsAttr>(attr))
    if (isa<IntegerType>(dense.getElementType()))
      return dense.getSplatValue<APInt>().getSExtValue();
  return std::nullopt;
}
} // namespace

namespace {
/// The facts about `op`'s results from the facts about its operands (the
/// transfer function). Unmodelled ops know nothing about their results.
SmallVector<AxisInfo> transfer(Operation *op, ArrayRef<AxisInfo> operands) {
  SmallVector<AxisInfo> results;
  for (Value result : op->getResults())
    results.push_back(AxisInfo::unknown(shapeOf(result.getType()).size()));
  auto in = [&](unsigned i) { return operands[i]; };
  auto set = [&](Value result, AxisInfo info) {
    results[cast<OpResult>(result).getResultNumber()] = std::move(info);
  };
  auto highestPowerOf2Divisor = AxisInfoAnalysis::highestPowerOf2Divisor;

  llvm::TypeSwitch<Operation *>(op)
      .Case<arith::ConstantOp>([&](auto c) {
        auto shape = shapeOf(c.getType());
        AxisInfo info = AxisInfo::unknown(shape.size());
        if (auto value = constantOf(c.getValue())) {
          info.constantValue = value;
          for (unsigned d = 0; d < shape.size(); ++d) {
            info.divisibility[d] = highestPowerOf2Divisor(*value);
            info.constancy[d] = shape[d];
          }
        } else if (isa<SplatElementsAttr>(c.getValue())) {
          info.constancy = shape;
        }
        set(c, info);
      })
      .Case<tile::MakeRangeOp>([&](auto r) {
        AxisInfo info = AxisInfo::unknown(1);
        info.contiguity[0] = r.getEnd() - r.getStart();
        info.divisibility[0] = highestPowerOf2Divisor(r.getStart());
        set(r, info);
      })
      .Case<tile::SplatOp>([&](auto s) {
        auto shape = shapeOf(s.getType());
        AxisInfo src = in(0), info = AxisInfo::unknown(shape.size());
        for (unsigned d = 0; d < shape.size(); ++d) {
          info.divisibility[d] = src.divisibility[0];
          info.constancy[d] = shape[d];
        }
        info.constantValue = src.constantValue;
        set(s, info);
      })
      .Case<tile::BroadcastOp>([&](auto b) {
        auto from = shapeOf(b.getSrc().getType()), to = shapeOf(b.getType());
        AxisInfo info = in(0);
        for (unsigned d = 0; d < to.size(); ++d)
          if (from[d] == 1 && to[d] != 1) {
            info.contiguity[d] = 1;
            info.constancy[d] = to[d];
          }
        set(b, info);
      })
      .Case<tile::ExpandDimsOp>([&](auto e) {
        AxisInfo info = in(0);
        // Along the new dimension of size 1 each element is its own run:
        // what every element is a multiple of (a run of consecutive
        // integers promises that only of its first).
        int64_t div = elementDivisibility(info, 0);
        for (unsigned d = 1; d < info.rank(); ++d)
          div = std::gcd(div, elementDivisibility(info, d));
        unsigned axis = e.getAxis();
        info.contiguity.insert(info.contiguity.begin() + axis, 1);
        info.divisibility.insert(info.divisibility.begin() + axis, div);
        info.constancy.insert(info.constancy.begin() + axis, 1);
        set(e, info);
      })
      .Case<tile::TransOp>([&](auto t) {
        // The facts of each dimension move with it.
        AxisInfo src = in(0), info = AxisInfo::unknown(src.rank());
        for (auto [i, d] : llvm::enumerate(t.getOrder())) {
          info.contiguity[i] = src.contiguity[d];
          info.divisibility[i] = src.divisibility[d];
          info.constancy[i] = src.constancy[d];
        }
        info.constantValue = src.constantValue;
        set(t, info);
      })
      .Case<tile::JoinOp>([&](auto j) {
        // What holds of both operands holds along their dimensions; along
        // the new one of 2, only what every element is a multiple of.
        AxisInfo info = AxisInfo::join(in(0), in(1));
        int64_t div = 0;
        for (unsigned d = 0; d < info.rank(); ++d)
          div = std::gcd(div, elementDivisibility(info, d));
        info.contiguity.push_back(1);
        info.divisibility.push_back(div);
        info.constancy.push_back(info.constantValue ? 2 : 1);
        set(j, info);
      })
      .Case<tile::ReshapeOp>([&](auto r) {
        // Row-major refolding keeps runs along the last dimension: a run
        // of c along the operand's last dimension is a run of
        // min(c, last) along the result's, which starts at a multiple of
        // the run's divisibility when it is a whole run, of that and the
        // new length when it is a piece of one. Other dimensions learn
        // nothing (their neighbours were elsewhere).
        AxisInfo src = in(0);
        auto to = shapeOf(r.getType());
        AxisInfo info = AxisInfo::unknown(to.size());
        int64_t last = to.back();
        int64_t run = src.contiguity.back(), same = src.constancy.back();
        info.contiguity.back() = std::min(run, last);
        info.constancy.back() = std::min(same, last);
        info.divisibility.back() = run <= last
                                       ? src.divisibility.back()
                                       : gcd(src.divisibility.back(), last);
        info.constantValue = src.constantValue;
        set(r, info);
      })
      .Case<tile::AssumeMultipleOp>([&](auto a) {
        AxisInfo info = in(0);
        for (int64_t &div : info.divisibility)
          div = std::max(div, highestPowerOf2Divisor(a.getDivisor()));
        set(a, info);
      })
      .Case<tile::AssumeContiguousOp>([&](auto a) {
        AxisInfo info = in(0);
        info.contiguity.back() = std::max<int64_t>(
            info.contiguity.back(), highestPowerOf2Divisor(a.getSize()));
        set(a, info);
      })
      .Case<tilegpu::ConvertLayoutOp>([&](auto c) { set(c, in(0)); })
      .Case<tile::AddPtrOp>([&](auto a) {
        // Pointer arithmetic is addition with the offsets scaled to bytes:
        // a run of addresses plus a constant stays a run, and so does a
        // constant address plus a run of offsets.
        AxisInfo off = in(1);
        int64_t bytes = tile::getElementBytes(tile::getElementTypeOrSelf(
            tile::getPointeeTypeLike(a.getType())));
        for (int64_t &div : off.divisibility)
          div = capped(div * bytes);
        AxisInfo info = addInfo(in(0), off, /*subtract=*/false);
        info.constantValue.reset();
        set(a, info);
      })
      .Case<arith::AddIOp>([&](auto) { set(op->getResult(0), addInfo(in(0), in(1), false)); })
      .Case<arith::SubIOp>([&](auto) { set(op->getResult(0), addInfo(in(0), in(1), true)); })
      .Case<arith::MulIOp>([&](auto) { set(op->getResult(0), mulInfo(in(0), in(1))); })
      .Case<arith::ShLIOp>([&](auto) {
        AxisInfo shift = in(1);
        if (shift.constantValue && *shift.constantValue >= 0 &&
            *shift.constantValue < 31) {
          AxisInfo factor = shift;
          factor.constantValue = int64_t(1) << *shift.constantValue;
          for (int64_t &div : factor.divisibility)
            div = *factor.constantValue;
          set(op->getResult(0), mulInfo(in(0), factor));
        } else {
          set(op->getResult(0), elementwiseConstancyOnly({in(0), in(1)}));
        }
      })
      .Case<arith::DivSIOp, arith::DivUIOp>([&](auto) {
        AxisInfo a = in(0), b = in(1);
        AxisInfo info = elementwiseConstancyOnly({a, b});
        if (b.constantValue && *b.constantValue > 0)
          for (unsigned d = 0; d < a.rank(); ++d) {
            int64_t div = elementDivisibility(a, d);
            if (div % *b.constantValue == 0)
              info.divisibility[d] = div / *b.constantValue;
          }
        set(op->getResult(0), info);
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) {
        AxisInfo a = in(0), b = in(1);
        AxisInfo info = elementwiseConstancyOnly({a, b});
        if (b.constantValue && *b.constantValue > 0 &&
            llvm::isPowerOf2_64(*b.constantValue))
          for (unsigned d = 0; d < a.rank(); ++d) {
            // A run that starts at a multiple of the modulus stays a run
            // until the modulus wraps it.
            if (a.divisibility[d] % *b.constantValue == 0 ||
                a.contiguity[d] == 1)
              info.contiguity[d] = gcd(a.contiguity[d], *b.constantValue);
            info.divisibility[d] =
                gcd(a.divisibility[d], *b.constantValue);
          }
        set(op->getResult(0), info);
      })
      .Case<arith::CmpIOp>([&](auto c) {
        set(c, compareInfo(c.getPredicate(), in(0), in(1)));
      })
      .Case<arith::SelectOp>([&](auto s) {
        AxisInfo a = in(1), b = in(2);
        AxisInfo info = AxisInfo::unknown(a.rank());
        bool scalarCond = !isa<RankedTensorType>(s.getCondition().getType());
        AxisInfo c = scalarCond ? AxisInfo() : in(0);
        for (unsigned d = 0; d < a.rank(); ++d) {
          int64_t condRun = scalarCond ? kMaxDivisor : c.constancy[d];
          info.contiguity[d] =
              gcd(condRun, gcd(a.contiguity[d], b.contiguity[d]));
          info.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
          info.constancy[d] =
              gcd(condRun, gcd(a.constancy[d], b.constancy[d]));
        }
        set(s, info);
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](auto) {
        set(op->getResult(0), elementwiseConstancyOnly({in(0), in(1)}));
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::IndexCastOp>([&](auto) { set(op->getResult(0), in(0)); })
      .Default([&](Operation *) {
        // Loads, floats, anything not modelled above: nothing is known.
      });
  return results;
}

using AxisInfoLattice = dataflow::Lattice<AxisInfo>;

class AxisInfoDataFlow
    : public dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const AxisInfoLattice *> operands,
                               ArrayRef<AxisInfoLattice *> results) override {
    SmallVector<AxisInfo> in;
    for (const AxisInfoLattice *operand : operands) {
      // Wait until every operand has been reached.
      if (operand->getValue().isUninitialized())
        return success();
      in.push_back(operand->getValue());
    }
    SmallVector<AxisInfo> out = transfer(op, in);
    for (auto [lattice, info] : llvm::zip(results, out))
      propagateIfChanged(lattice, lattice->join(info));
    return success();
  }

  /// The induction variable of scf.for: a multiple of what its lower bound
  /// and step are both multiples of. Other arguments the control flow does
  /// not feed know nothing.
  void visitNonControlFlowArguments(Operation *op,
                                    const RegionSuccessor &successor,
                                    ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override {
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
          op, successor, argLattices, firstIndex);
    ValueRange fed = successor.getSuccessorInputs();
    for (AxisInfoLattice *lattice : argLattices) {
      Value arg = lattice->getAnchor();
      if (llvm::is_contained(fed, arg))
        continue; // the control flow gives it its facts
      if (arg != forOp.getInductionVar()) {
        setToEntryState(lattice);
        continue;
      }
      ProgramPoint *point = getProgramPointAfter(op);
      const AxisInfoLattice *lb = getLatticeElementFor(point, forOp.getLowerBound());
      const AxisInfoLattice *step = getLatticeElementFor(point, forOp.getStep());
      if (lb->getValue().isUninitialized() || step->getValue().isUninitialized())
        continue; // revisited once they are known
      AxisInfo iv = AxisInfo::unknown(1);
      iv.divisibility[0] =
          gcd(lb->getValue().divisibility[0], step->getValue().divisibility[0]);
      propagateIfChanged(lattice, lattice->join(iv));
    }
  }

  /// Kernel arguments carry the specialisation's facts; any other value
  /// the analysis cannot follow knows nothing.
  void setToEntryState(AxisInfoLattice *lattice) override {
    Value value = lattice->getAnchor();
    AxisInfo info = AxisInfo::unknown(shapeOf(value.getType()).size());
    if (auto arg = dyn_cast<BlockArgument>(value))
      if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
        if (arg.getOwner()->isEntryBlock())
          if (auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                            tile::kDivisibilityAttr))
            info.divisibility[0] =
                AxisInfoAnalysis::highestPowerOf2Divisor(div.getInt());
    propagateIfChanged(lattice, lattice->join(info));
  }
};
} // namespace

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root)
    : solver_(std::make_unique<DataFlowSolver>()) {
  dataflow::loadBaselineAnalyses(*solver_);
  solver_->load<AxisInfoDataFlow>();
  // The analysis cannot fail on valid IR: every op has a transfer function
  // (unmodelled ones yield "unknown").
  [[maybe_unused]] LogicalResult result = solver_->initializeAndRun(root);
  assert(succeeded(result) && "axis-info analysis failed");
}

AxisInfoAnalysis::~AxisInfoAnalysis() = default;

AxisInfo AxisInfoAnalysis::lookup(Value value) const {
  if (const auto *lattice = solver_->lookupState<AxisInfoLattice>(value))
    if (!lattice->getValue().isUninitialized())
      return lattice->getValue();
  return AxisInfo::unknown(shapeOf(value.getType()).size());
}
