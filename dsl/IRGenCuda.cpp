// tl.extra.cuda's builtins that overlap a kernel with the one before it on
// the stream (docs/language.md): gdc_wait and gdc_launch_dependents, as
// Triton spells programmatic dependent launch, and prefetch_l2, which asks
// the L2 for memory ahead of the loads that read it; and where a program
// stands in its cluster. (tl.extra.cuda's libdevice is IRGenLibdevice.cpp's.)
#include "dsl/BuiltinTable.h"

namespace tilec::dsl {

namespace {

const DType kI64{ScalarKind::Int64, false};

// Where a kernel launched with launch_pdl waits for the kernel before it,
// and where it lets the next one start.
Value gdcWait(Generator &g, const BuiltinArguments &args) {
  g.requireIR(args.at(), "tl.extra.cuda.gdc_wait");
  g.builder().create<tile::GridDependencyWaitOp>(g.loc(args.at()));
  return Value::none();
}

Value gdcLaunchDependents(Generator &g, const BuiltinArguments &args) {
  g.requireIR(args.at(), "tl.extra.cuda.gdc_launch_dependents");
  g.builder().create<tile::LaunchDependentsOp>(g.loc(args.at()));
  return Value::none();
}

// prefetch_l2(pointer, count): the count elements from pointer on. One
// range per call, issued by one thread: a program asks for its own
// contiguous run (a block of weight rows), not for a tile of addresses.
Value prefetchL2(Generator &g, const BuiltinArguments &args) {
  const Value &pointer = args["pointer"];
  if (!pointer.isIR() || pointer.type.isTensor() || !pointer.type.element.isPointer)
    fail(args.loc("pointer"),
         "tl.extra.cuda.prefetch_l2 takes one pointer (a scalar: the range's first element), "
         "got " + pointer.describe());
  const Value &count = args["count"];
  if (!count.isIntegerScalar())
    fail(args.loc("count"), "tl.extra.cuda.prefetch_l2's count (elements from the pointer "
                            "on) must be an integer scalar, got " + count.describe());
  g.requireIR(args.at(), "tl.extra.cuda.prefetch_l2");
  Value n = g.cast(g.toIR(count, args.loc("count"), kI64), kI64, args.loc("count"));
  g.builder().create<tile::PrefetchL2Op>(g.loc(args.at()), pointer.ir, n.ir);
  return Value::none();
}

// cluster_id(), cluster_cta_rank(), cluster_size(): this program's
// cluster (tl.range(..., num_ctas=N) launches the kernel's programs in
// clusters of N along axis 0), its place in it, and the cluster's size,
// 1 where the kernel has no clusters.
template <typename Op>
Value clusterQuery(Generator &g, const BuiltinArguments &args) {
  g.requireIR(args.at(), args.function().c_str());
  mlir::OpBuilder &b = g.builder();
  mlir::Value v = b.create<Op>(g.loc(args.at()), b.getI32Type());
  return Value::ofIR(v, ValueType{DType{ScalarKind::Int32, false}, {}});
}

} // namespace

void addCudaBuiltins(BuiltinTable &t) {
  t.add("tl.extra.cuda.cluster_id", {{}, 0}, clusterQuery<tile::ClusterIdOp>);
  t.add("tl.extra.cuda.cluster_cta_rank", {{}, 0}, clusterQuery<tile::ClusterCtaRankOp>);
  t.add("tl.extra.cuda.cluster_size", {{}, 0}, clusterQuery<tile::ClusterSizeOp>);
  t.add("tl.extra.cuda.gdc_wait", {{}, 0}, gdcWait);
  t.add("tl.extra.cuda.gdc_launch_dependents", {{}, 0}, gdcLaunchDependents);
  t.add("tl.extra.cuda.prefetch_l2", {{"pointer", "count"}, 2}, prefetchL2);
}

} // namespace tilec::dsl
