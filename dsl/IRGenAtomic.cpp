// The atomics of `tl`: atomic_add, atomic_max, atomic_min, atomic_and,
// atomic_or, atomic_xor, atomic_xchg and atomic_cas, as Triton spells them.
// Each value is broadcast with the pointer and converted to its element
// type; the element type decides which operations exist (integers of 32
// and 64 bits for all, fp16/bf16/fp32/fp64 for add, max, min and xchg;
// compare-and-swap also takes 16-bit elements), and unsigned integers pick
// the unsigned max and min. docs/language.md states the rules.
#include "dsl/BuiltinTable.h"

namespace tilec::dsl {

namespace {

tile::MemSemantic semantic(const BuiltinArguments &args) {
  std::string text = args.text("sem");
  return parseHint<tile::MemSemantic>(
      text.empty() ? "acq_rel" : text, args.loc("sem"), "memory semantic",
      {{"acquire", tile::MemSemantic::acquire},
       {"release", tile::MemSemantic::release},
       {"acq_rel", tile::MemSemantic::acq_rel},
       {"relaxed", tile::MemSemantic::relaxed}});
}

tile::MemScope scope(const BuiltinArguments &args) {
  std::string text = args.text("scope");
  return parseHint<tile::MemScope>(text.empty() ? "gpu" : text, args.loc("scope"),
                                   "memory scope",
                                   {{"gpu", tile::MemScope::gpu},
                                    {"cta", tile::MemScope::cta},
                                    {"sys", tile::MemScope::sys}});
}

/// The pointer argument of an atomic: a pointer or a tensor of them, to an
/// element type some atomic takes.
Value atomicPointer(const BuiltinArguments &args) {
  const Value &ptr = args["pointer"];
  if (!ptr.isIR() || !ptr.type.element.isPointer)
    fail(args.loc("pointer"), args.function() +
                                  " needs a pointer or a tensor of pointers, got " +
                                  ptr.describe());
  return ptr;
}

/// `raw` as a value of `ptr`'s element type, broadcast with `ptr`.
Value atomicOperand(Generator &g, const BuiltinArguments &args, Value &ptr,
                    const std::string &name) {
  const Value &raw = args[name];
  SourceLoc l = args.loc(name);
  if (!raw.isIR() && !raw.isNumber())
    fail(l, args.function() + "(): '" + name + "' must be a number or a tensor, got " +
                raw.describe());
  if (raw.isIR() && raw.type.element.isPointer)
    fail(l, args.function() + "(): '" + name + "' cannot be a pointer");
  DType pointee = ptr.type.element.pointee();
  Value v = g.cast(g.toIR(raw, l, pointee), pointee, l);
  g.broadcastPair(ptr, v, l);
  return v;
}

std::string opName(tile::AtomicKind kind) {
  switch (kind) {
  case tile::AtomicKind::umax:
    return "max";
  case tile::AtomicKind::umin:
    return "min";
  case tile::AtomicKind::and_:
    return "and";
  case tile::AtomicKind::or_:
    return "or";
  case tile::AtomicKind::xor_:
    return "xor";
  default:
    return tile::stringifyAtomicKind(kind).str();
  }
}

/// The kind for `pointee` (unsigned max and min for unsigned integers),
/// after checking that the hardware has it.
tile::AtomicKind checkedKind(Generator &g, tile::AtomicKind kind, DType pointee,
                             const std::string &function, SourceLoc at) {
  if (!tile::atomicSupports(kind, pointee.toMLIR(g.builder().getContext())))
    fail(at, function + " does not support " + pointee.name() + " (" +
                 (pointee.isFP8()     ? "8-bit floats take no atomics"
                  : pointee.isFloat() ? "floats take add, max, min and xchg"
                                      : "integers of 32 or 64 bits only") +
                 ")");
  if (pointee.isInt() && !pointee.isSigned()) {
    if (kind == tile::AtomicKind::max)
      return tile::AtomicKind::umax;
    if (kind == tile::AtomicKind::min)
      return tile::AtomicKind::umin;
  }
  return kind;
}

Value atomicRMW(Generator &g, const BuiltinArguments &args, tile::AtomicKind kind) {
  SourceLoc at = args.at();
  Value ptr = atomicPointer(args);
  DType pointee = ptr.type.element.pointee();
  mlir::OpBuilder &b = g.builder();
  kind = checkedKind(g, kind, pointee, args.function(), args.loc("pointer"));
  Value value = atomicOperand(g, args, ptr, "val");
  Value mask = maskArgument(g, args, ptr);
  if (mask.isIR())
    value = g.broadcastTo(value, ptr.type.shape, args.loc("val"));
  ValueType resultType{pointee, ptr.type.shape};
  auto op = b.create<tile::AtomicRMWOp>(
      g.loc(at), resultType.toMLIR(b.getContext()), kind, ptr.ir, value.ir,
      mask.isIR() ? mask.ir : mlir::Value(), semantic(args), scope(args));
  return Value::ofIR(op, resultType);
}

Value atomicCAS(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  Value ptr = atomicPointer(args);
  DType pointee = ptr.type.element.pointee();
  mlir::OpBuilder &b = g.builder();
  if (!tile::atomicCASSupports(pointee.toMLIR(b.getContext())))
    fail(args.loc("pointer"), "tl.atomic_cas needs elements of 16, 32 or 64 "
                              "bits, got " + pointee.name());
  Value cmp = atomicOperand(g, args, ptr, "cmp");
  Value value = atomicOperand(g, args, ptr, "val");
  cmp = g.broadcastTo(cmp, ptr.type.shape, args.loc("cmp"));
  ValueType resultType{pointee, ptr.type.shape};
  auto op = b.create<tile::AtomicCASOp>(g.loc(at), resultType.toMLIR(b.getContext()),
                                        ptr.ir, cmp.ir, value.ir, semantic(args),
                                        scope(args));
  return Value::ofIR(op, resultType);
}

} // namespace

void atomicUpdate(Generator &g, tile::AtomicKind kind, const Value &ptr, const Value &value,
                  const Value &mask, tile::MemSemantic sem, tile::MemScope scope,
                  const std::string &function, SourceLoc at) {
  DType pointee = ptr.type.element.pointee();
  kind = checkedKind(g, kind, pointee, function, at);
  mlir::OpBuilder &b = g.builder();
  ValueType resultType{pointee, ptr.type.shape};
  b.create<tile::AtomicRMWOp>(g.loc(at), resultType.toMLIR(b.getContext()), kind, ptr.ir,
                              value.ir, mask.isIR() ? mask.ir : mlir::Value(), sem, scope);
}

void addAtomicBuiltins(BuiltinTable &t) {
  for (tile::AtomicKind kind :
       {tile::AtomicKind::add, tile::AtomicKind::max, tile::AtomicKind::min,
        tile::AtomicKind::and_, tile::AtomicKind::or_, tile::AtomicKind::xor_,
        tile::AtomicKind::xchg})
    t.add("tl.atomic_" + opName(kind), {{"pointer", "val", "mask", "sem", "scope"}, 2},
          [kind](Generator &g, const BuiltinArguments &a) {
            return atomicRMW(g, a, kind);
          });
  t.add("tl.atomic_cas", {{"pointer", "cmp", "val", "sem", "scope"}, 3}, atomicCAS);
}

} // namespace tilec::dsl
