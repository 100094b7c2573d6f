// Block pointers, as Triton has them: tl.make_block_ptr(base, shape,
// strides, offsets, block_shape, order) describes a block of a strided
// tensor in memory, tl.advance moves it, and tl.load / tl.store through it
// read and write the whole block, masked where boundary_check asks.
//
// A block pointer is a value of the front end (Value::Kind::BlockPtr: the
// base pointer, and per dimension the tensor's size and stride, as i64,
// and the block's offset, as i32), not an IR type: an access becomes the
// pointer tensor base + sum over d of (offset_d + arange(block_d)) *
// stride_d and, for the checked dimensions, the mask 0 <= index_d <
// shape_d, which the compiler then treats as any other (a stride of 1
// known at compile time keeps the block's rows contiguous for the axis
// analysis, so the accesses stay vectorised). Loops carry block pointers
// as their IR values (IRGenLoops.cpp), and @jit helpers take them.
// `order` is checked and kept; the layouts follow the memory's contiguity
// whatever it says.
#include "dsl/BuiltinTable.h"

namespace tilec::dsl {

namespace {

const DType kI32{ScalarKind::Int32, false};
const DType kI64{ScalarKind::Int64, false};

/// A tuple of compile-time ints (or one int, as one element).
std::vector<int64_t> constInts(Generator &g, const Value &v, SourceLoc at,
                               const std::string &what) {
  std::vector<int64_t> out;
  if (v.kind != Value::Kind::Tuple) {
    out.push_back(g.constInt(v, at, what));
    return out;
  }
  for (const Value &e : v.elements)
    out.push_back(g.constInt(e, at, "each entry of " + what));
  return out;
}

/// The entries of a tuple argument of `rank` integers (numbers or integer
/// scalars), each converted to `type`.
std::vector<Value> integerTuple(Generator &g, const BuiltinArguments &args,
                                const std::string &name, size_t rank, DType type) {
  const Value &v = args[name];
  SourceLoc at = args.loc(name);
  std::vector<Value> entries =
      v.kind == Value::Kind::Tuple ? v.elements : std::vector<Value>{v};
  if (entries.size() != rank)
    fail(at, args.function() + "'s " + name + " needs " + std::to_string(rank) +
                 " entries (one per dimension of the block), got " +
                 std::to_string(entries.size()));
  std::vector<Value> out;
  for (const Value &e : entries) {
    bool integer = e.kind == Value::Kind::Int ||
                   (e.isIR() && !e.type.isTensor() && e.type.element.isInt() &&
                    !e.type.element.isBool() && !e.type.element.isPointer);
    if (!integer)
      fail(at, args.function() + "'s " + name + " must hold integers, got " +
                   e.describe());
    // Offsets are int32, as Triton's: a wider one would be cut.
    if (e.isIR() && e.type.element.bits() > type.bits())
      fail(at, args.function() + "'s " + name + " are int32, got " + e.describe() +
                   " (convert it with .to(tl.int32))");
    out.push_back(g.cast(g.toIR(e, at, type), type, at));
  }
  return out;
}

Value makeBlockPtr(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  g.requireIR(at, "tl.make_block_ptr");
  const Value &base = args["base"];
  if (!base.isIR() || base.type.isTensor() || !base.type.element.isPointer)
    fail(args.loc("base"), "tl.make_block_ptr's base must be a pointer, got " +
                               base.describe());
  std::vector<int64_t> blockShape =
      constInts(g, args["block_shape"], args.loc("block_shape"), "block_shape");
  size_t rank = blockShape.size();
  if (rank == 0)
    fail(args.loc("block_shape"), "tl.make_block_ptr needs a block of one dimension or more");
  // The block's tensor type checks the sizes (powers of two, the limit).
  g.tensorType(base.type.element.pointee(), blockShape, args.loc("block_shape"));
  std::vector<int64_t> order = constInts(g, args["order"], args.loc("order"), "order");
  std::vector<bool> seen(rank, false);
  bool permutation = order.size() == rank;
  for (int64_t d : order) {
    permutation = permutation && d >= 0 && d < int64_t(rank) && !seen[d];
    if (permutation)
      seen[d] = true;
  }
  if (!permutation)
    fail(args.loc("order"), "tl.make_block_ptr's order must be a permutation of the " +
                                std::to_string(rank) + " dimensions of the block");
  return Value::ofBlockPtr(base, integerTuple(g, args, "shape", rank, kI64),
                           integerTuple(g, args, "strides", rank, kI64),
                           integerTuple(g, args, "offsets", rank, kI32), blockShape,
                           order);
}

Value advance(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &block = args["base"];
  if (block.kind != Value::Kind::BlockPtr)
    fail(args.loc("base"), "tl.advance needs a block pointer (tl.make_block_ptr), got " +
                               block.describe());
  size_t rank = block.blockShape.size();
  std::vector<Value> deltas = integerTuple(g, args, "offsets", rank, kI32);
  Value moved = block;
  for (size_t d = 0; d < rank; ++d)
    moved.elements[3 + 3 * d] = g.binary(BinaryOp::Add, block.blockOffset(d), deltas[d], at);
  return moved;
}

/// Each element's index along dimension `d` of the block (offset +
/// arange), shaped to broadcast along the others.
Value indexAlong(Generator &g, const Value &block, size_t d, SourceLoc at) {
  int64_t size = block.blockShape[d];
  Value index = g.binary(BinaryOp::Add, rangeOf(g, size, at), block.blockOffset(d), at);
  std::vector<int64_t> shape(block.blockShape.size(), 1);
  shape[d] = size;
  return reshapeTensor(g, index, shape, at, at, "a block pointer's access");
}

} // namespace

BlockAccess blockAccess(Generator &g, const Value &block, const BuiltinArguments &args,
                        SourceLoc at) {
  size_t rank = block.blockShape.size();
  std::vector<bool> checked(rank, false);
  if (args.has("boundary_check")) {
    SourceLoc l = args.loc("boundary_check");
    for (int64_t d : constInts(g, args["boundary_check"], l, "boundary_check")) {
      if (d < 0 || d >= int64_t(rank))
        fail(l, "boundary_check names dimension " + std::to_string(d) +
                    " of a block of " + std::to_string(rank));
      checked[d] = true;
    }
  }
  BlockAccess access;
  Value offsets;
  for (size_t d = 0; d < rank; ++d) {
    Value index = indexAlong(g, block, d, at);
    Value term = g.binary(BinaryOp::Mul, g.cast(index, kI64, at), block.blockStride(d), at);
    offsets = d == 0 ? term : g.binary(BinaryOp::Add, offsets, term, at);
    if (!checked[d])
      continue;
    Value inside = g.binary(
        BinaryOp::BitAnd, g.compare(CompareOp::Ge, index, Value::ofInt(0), at),
        g.compare(CompareOp::Lt, g.cast(index, kI64, at), block.blockDimShape(d), at), at);
    access.mask = access.mask.isIR() ? g.binary(BinaryOp::BitAnd, access.mask, inside, at)
                                     : inside;
  }
  offsets = g.broadcastTo(offsets, block.blockShape, at);
  access.pointers = g.binary(BinaryOp::Add, block.blockBase(), offsets, at);
  if (access.mask.isIR())
    access.mask = g.broadcastTo(access.mask, block.blockShape, at);
  return access;
}

void addBlockPointerBuiltins(BuiltinTable &t) {
  t.add("tl.make_block_ptr",
        {{"base", "shape", "strides", "offsets", "block_shape", "order"}, 6},
        makeBlockPtr);
  t.add("tl.advance", {{"base", "offsets"}, 2}, advance);
}

} // namespace tilec::dsl
