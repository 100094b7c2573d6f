#include "compiler/Analysis/AxisInfo.h"

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

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

int64_t AxisInfoAnalysis::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return capped(value & -value);
}

AxisInfoAnalysis::AxisInfoAnalysis(ModuleOp module) {
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (BlockArgument arg : func.getArguments()) {
        AxisInfo info = AxisInfo::unknown(1);
        if (auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                          tile::kDivisibilityAttr))
          info.divisibility[0] = highestPowerOf2Divisor(div.getInt());
        set(arg, info);
      }
      return;
    }
    visit(op);
  });
}

AxisInfo AxisInfoAnalysis::lookup(Value value) const {
  auto it = infos_.find(value);
  if (it != infos_.end())
    return it->second;
  return AxisInfo::unknown(shapeOf(value.getType()).size());
}

void AxisInfoAnalysis::set(Value value, AxisInfo info) {
  infos_[value] = std::move(info);
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

void AxisInfoAnalysis::visit(Operation *op) {
  if (op->getNumResults() == 0 && !isa<scf::ForOp>(op))
    return;
  auto in = [&](unsigned i) { return lookup(op->getOperand(i)); };
  auto rankOfResult = [&](unsigned i = 0) {
    return unsigned(shapeOf(op->getResult(i).getType()).size());
  };

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
        int64_t div = *std::min_element(info.divisibility.begin(),
                                        info.divisibility.end());
        unsigned axis = e.getAxis();
        info.contiguity.insert(info.contiguity.begin() + axis, 1);
        info.divisibility.insert(info.divisibility.begin() + axis, div);
        info.constancy.insert(info.constancy.begin() + axis, 1);
        set(e, info);
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
        AxisInfo ptr = in(0), off = in(1);
        int64_t bytes = tile::getElementBytes(tile::getElementTypeOrSelf(
            tile::getPointeeTypeLike(a.getType())));
        AxisInfo info = AxisInfo::unknown(ptr.rank());
        for (unsigned d = 0; d < ptr.rank(); ++d) {
          info.contiguity[d] = gcd(ptr.constancy[d], off.contiguity[d]);
          info.divisibility[d] =
              gcd(ptr.divisibility[d], capped(off.divisibility[d] * bytes));
          info.constancy[d] = gcd(ptr.constancy[d], off.constancy[d]);
        }
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
      .Case<scf::ForOp>([&](auto f) {
        AxisInfo iv = AxisInfo::unknown(1);
        iv.divisibility[0] =
            gcd(lookup(f.getLowerBound()).divisibility[0],
                lookup(f.getStep()).divisibility[0]);
        set(f.getInductionVar(), iv);
      })
      .Default([&](Operation *) {
        // Loads, floats, loop-carried values, anything not modelled above:
        // nothing is known.
        for (unsigned i = 0; i < op->getNumResults(); ++i)
          set(op->getResult(i), AxisInfo::unknown(rankOfResult(i)));
      });
}
