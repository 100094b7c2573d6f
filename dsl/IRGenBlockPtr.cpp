// Block pointers and tensor descriptors, as Triton has them.
//
// tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)
// describes a block of a strided tensor in memory, tl.advance moves it, and
// tl.load / tl.store through it read and write the whole block, masked
// where boundary_check asks.
//
// tl.make_tensor_descriptor(base, shape, strides, block_shape,
// padding_option="zero") describes the tensor and the block shape its
// accesses move; desc.load(offsets), desc.store(offsets, value) and
// desc.atomic_add(offsets, value) (and min, max, and, or, xor) take the
// block at `offsets`, every dimension checked as TMA does: elements outside
// the tensor read as the padding (zero, or NaN) and are not written.
//
// Both are values of the front end (Value::Kind::BlockPtr: the base
// pointer, and per dimension the tensor's size and stride, as i64, and the
// block's offset, as i32), not IR types; a descriptor is a block pointer
// whose offsets stay 0 and whose Value::text names its padding. An access
// becomes the pointer tensor base + sum over d of (offset_d +
// arange(block_d)) * stride_d and, for the checked dimensions, the mask 0
// <= index_d < shape_d, which the compiler then treats as any other (a
// stride of 1 known at compile time keeps the block's rows contiguous for
// the axis analysis, so the accesses stay vectorised, and loops feeding
// tl.dot pipeline them through cp.async). desc.load is the exception: it
// becomes one tile.descriptor_load, which keeps the descriptor's structure
// (the form the Tensor Memory Accelerator reads blocks in) until
// tile-lower-descriptors expands it into that same access. Loops carry both as their IR
// values (IRGenLoops.cpp), and @jit helpers take them. `order` is checked
// and kept; the layouts follow the memory's contiguity whatever it says.
#include "dsl/BuiltinTable.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <map>
#include <optional>

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

/// The entries of `v`, a tuple (or list) of `rank` integers (numbers or
/// integer scalars), each converted to `type`; `function`'s `name` in
/// messages.
std::vector<Value> integerTuple(Generator &g, const Value &v, SourceLoc at,
                                const std::string &function, const std::string &name,
                                size_t rank, DType type) {
  std::vector<Value> entries =
      v.kind == Value::Kind::Tuple ? v.elements : std::vector<Value>{v};
  if (entries.size() != rank)
    fail(at, function + "'s " + name + " needs " + std::to_string(rank) +
                 " entries (one per dimension of the block), got " +
                 std::to_string(entries.size()));
  std::vector<Value> out;
  for (const Value &e : entries) {
    if (!e.isIntegerScalar())
      fail(at, function + "'s " + name + " must hold integers, got " + e.describe());
    // Offsets are int32, as Triton's: a wider one would be cut.
    if (e.isIR() && e.type.element.bits() > type.bits())
      fail(at, function + "'s " + name + " are int32, got " + e.describe() +
                   " (convert it with .to(tl.int32))");
    out.push_back(g.cast(g.toIR(e, at, type), type, at));
  }
  return out;
}

std::vector<Value> integerTuple(Generator &g, const BuiltinArguments &args,
                                const std::string &name, size_t rank, DType type) {
  return integerTuple(g, args[name], args.loc(name), args.function(), name, rank, type);
}

/// The `base` of make_block_ptr / make_tensor_descriptor: a scalar pointer.
const Value &basePointer(Generator &g, const BuiltinArguments &args) {
  g.requireIR(args.at(), args.function().c_str());
  const Value &base = args["base"];
  if (!base.isIR() || base.type.isTensor() || !base.type.element.isPointer)
    fail(args.loc("base"), args.function() + "'s base must be a pointer, got " +
                               base.describe());
  return base;
}

Value makeBlockPtr(Generator &g, const BuiltinArguments &args) {
  const Value &base = basePointer(g, args);
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
  if (block.kind != Value::Kind::BlockPtr || block.isDescriptor())
    fail(args.loc("base"), "tl.advance needs a block pointer (tl.make_block_ptr), got " +
                               block.describe() +
                               (block.isDescriptor() ? " (its accesses take their offsets)"
                                                     : ""));
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

/// The pointers of `block`'s elements and, over the `checked` dimensions,
/// the mask of those inside the tensor.
BlockAccess accessOf(Generator &g, const Value &block, const std::vector<bool> &checked,
                     SourceLoc at) {
  size_t rank = block.blockShape.size();
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

Value makeTensorDescriptor(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &base = basePointer(g, args);
  SourceLoc blockAt = args.loc("block_shape");
  std::vector<int64_t> blockShape = constInts(g, args["block_shape"], blockAt, "block_shape");
  size_t rank = blockShape.size();
  if (rank < 1 || rank > 5)
    fail(blockAt, "a tensor descriptor has 1 to 5 dimensions (TMA's), got " +
                      std::to_string(rank));
  DType element = base.type.element.pointee();
  g.tensorType(element, blockShape, blockAt);
  if (blockShape.back() * int64_t(element.bits()) < 16 * 8)
    fail(blockAt, "a tensor descriptor's block must hold at least 16 bytes along its last "
                  "dimension (TMA's least), got " + std::to_string(blockShape.back()) +
                  " " + element.name());
  std::vector<Value> shape = integerTuple(g, args, "shape", rank, kI64);
  std::vector<Value> strides = integerTuple(g, args, "strides", rank, kI64);
  // The last dimension is contiguous: its stride must be 1, known when
  // compiling (a literal, a constexpr, or an int argument specialised `:1`,
  // which arrives as a constant).
  const Value &given = args["strides"].kind == Value::Kind::Tuple
                           ? args["strides"].elements.back()
                           : args["strides"];
  bool one = given.kind == Value::Kind::Int ? given.intValue == 1
                                             : given.isIR() &&
                                                   mlir::matchPattern(given.ir, mlir::m_One());
  if (!one)
    fail(args.loc("strides"), "a tensor descriptor's last stride must be 1 when compiling "
                              "(its last dimension contiguous), got " +
                                  (given.isConstexpr() ? given.repr() : given.describe()));
  std::string padding = paddingOption(args, element, "tensor");
  std::vector<Value> offsets(rank, g.toIR(Value::ofInt(0), at, kI32));
  std::vector<int64_t> order;
  for (size_t d = rank; d-- > 0;)
    order.push_back(int64_t(d));
  Value desc = Value::ofBlockPtr(base, shape, strides, offsets, blockShape, order);
  desc.text = padding;
  return desc;
}

/// The descriptor's access at the call's `offsets`: every dimension checked.
BlockAccess descriptorAccess(Generator &g, const Value &desc, const BuiltinArguments &args) {
  size_t rank = desc.blockShape.size();
  std::vector<Value> starts = integerTuple(g, args, "offsets", rank, kI32);
  Value moved = desc;
  for (size_t d = 0; d < rank; ++d)
    moved.elements[3 + 3 * d] = starts[d];
  return accessOf(g, moved, std::vector<bool>(rank, true), args.at());
}

const Value &descriptorArgument(const BuiltinArguments &args, const std::string &name) {
  const Value &desc = args[name];
  if (!desc.isDescriptor())
    fail(args.loc(name), args.function() + " needs a tensor descriptor "
                                           "(tl.make_tensor_descriptor), got " +
                             desc.describe());
  return desc;
}

/// The operands of a descriptor's block access at the call's `offsets`:
/// the tensor's sizes and strides and the block's offsets, one per
/// dimension.
struct DescriptorOperands {
  std::vector<mlir::Value> shape, strides, offsets;
};

DescriptorOperands descriptorOperands(Generator &g, const Value &desc,
                                      const BuiltinArguments &args) {
  size_t rank = desc.blockShape.size();
  std::vector<Value> starts = integerTuple(g, args, "offsets", rank, kI32);
  DescriptorOperands operands;
  for (size_t d = 0; d < rank; ++d) {
    operands.shape.push_back(desc.blockDimShape(d).ir);
    operands.strides.push_back(desc.blockStride(d).ir);
    operands.offsets.push_back(starts[d].ir);
  }
  return operands;
}

Value loadTensorDescriptor(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &desc = descriptorArgument(args, "desc");
  // One op that keeps the descriptor's structure (the form TMA reads
  // blocks in); tile-lower-descriptors expands it into the access above.
  DescriptorOperands operands = descriptorOperands(g, desc, args);
  DType element = desc.blockBase().type.element.pointee();
  ValueType resultType{element, desc.blockShape};
  mlir::OpBuilder &b = g.builder();
  auto op = b.create<tile::DescriptorLoadOp>(g.loc(at), resultType.toMLIR(b.getContext()),
                                             desc.blockBase().ir, operands.shape,
                                             operands.strides, operands.offsets,
                                             desc.text == "nan");
  return Value::ofIR(op, resultType);
}

/// `value` (a scalar or a tensor of the block's shape) as the descriptor's
/// element type, in the block's shape.
Value blockValue(Generator &g, const Value &desc, const Value &value, SourceLoc l,
                 DType element, const std::string &function) {
  if (!value.isIR() && !value.isNumber())
    fail(l, function + " cannot store " + value.describe());
  if (value.isIR() && value.type.element.isPointer)
    fail(l, function + "'s value cannot be a pointer");
  if (value.isIR() && value.type.isTensor() && value.type.shape != desc.blockShape)
    fail(l, desc.describe() + " takes a scalar or a tensor of its block's shape, not " +
                value.describe());
  return g.broadcastTo(g.cast(g.toIR(value, l, element), element, l), desc.blockShape, l);
}

Value storeTensorDescriptor(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  const Value &desc = descriptorArgument(args, "desc");
  // One op, as for a load: TMA may write the block (tile-lower-descriptors).
  DescriptorOperands operands = descriptorOperands(g, desc, args);
  DType element = desc.blockBase().type.element.pointee();
  Value value = blockValue(g, desc, args["value"], args.loc("value"), element, args.function());
  g.builder().create<tile::DescriptorStoreOp>(g.loc(at), desc.blockBase().ir, operands.shape,
                                              operands.strides, operands.offsets, value.ir);
  return Value::none();
}

/// The atomic a descriptor's method names (desc.atomic_add, ...).
std::optional<tile::AtomicKind> descriptorAtomic(const std::string &method) {
  static const std::map<std::string, tile::AtomicKind> kinds = {
      {"atomic_add", tile::AtomicKind::add}, {"atomic_min", tile::AtomicKind::min},
      {"atomic_max", tile::AtomicKind::max}, {"atomic_and", tile::AtomicKind::and_},
      {"atomic_or", tile::AtomicKind::or_},  {"atomic_xor", tile::AtomicKind::xor_}};
  auto it = kinds.find(method);
  if (it == kinds.end())
    return std::nullopt;
  return it->second;
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
  return accessOf(g, block, checked, at);
}

std::string paddingOption(const BuiltinArguments &args, DType element, const char *holder) {
  std::string padding = args.has("padding_option") ? args.text("padding_option") : "";
  if (padding.empty())
    return "zero";
  if (padding != "zero" && padding != "nan")
    fail(args.loc("padding_option"),
         "padding_option must be \"zero\" or \"nan\", got \"" + padding + "\"");
  if (padding == "nan" && !element.isFloat())
    fail(args.loc("padding_option"), std::string("padding_option \"nan\" needs floats, the ") +
                                         holder + " holds " + element.name());
  return padding;
}

Value paddingTensor(Generator &g, const std::string &padding, DType element,
                    const std::vector<int64_t> &shape, SourceLoc at) {
  Value pad = padding == "nan" ? Value::ofFloat(std::nan("")) : Value::ofInt(0);
  return g.broadcastTo(g.toIR(pad, at, element), shape, at);
}

Value Generator::callDescriptorMethod(const Value &desc, const std::string &method,
                                      const CallExpr &call) {
  std::string function = "desc." + method;
  if (method == "load") {
    BuiltinArguments args(*this, call, function, {{"desc", "offsets"}, 2}, &desc);
    return loadTensorDescriptor(*this, args);
  }
  if (method == "store") {
    BuiltinArguments args(*this, call, function, {{"desc", "offsets", "value"}, 3}, &desc);
    return storeTensorDescriptor(*this, args);
  }
  std::optional<tile::AtomicKind> kind = descriptorAtomic(method);
  if (!kind)
    fail(call.loc, desc.describe() + " has no method '" + method +
                       "' (it has load, store and atomic_add, _min, _max, _and, _or, _xor)");
  // The element types TMA's reductions take (Triton's): add of 32-bit
  // integers, u64 and 16/32-bit floats; min and max of integers and 16-bit
  // floats; and, or, xor of integers of 32 or 64 bits.
  DType element = desc.blockBase().type.element.pointee();
  bool integer = element.isInt() && !element.isBool() && element.bits() >= 32;
  bool half = element.isFloat() && element.bits() == 16 && !element.isFP8();
  bool supported =
      *kind == tile::AtomicKind::add
          ? (integer && (element.bits() == 32 || !element.isSigned())) || half ||
                (element.isFloat() && element.bits() == 32)
      : *kind == tile::AtomicKind::min || *kind == tile::AtomicKind::max ? integer || half
                                                                         : integer;
  if (!supported)
    fail(call.loc, function + " does not support " + element.name() +
                       " (a descriptor's atomics are TMA's reductions: add of i32, u32, u64, "
                       "fp16, bf16, fp32; min and max of integers of 32 or 64 bits, fp16, "
                       "bf16; and, or, xor of integers of 32 or 64 bits)");
  // A reduction into the block (TMA's), relaxed, whose old values are not
  // returned.
  BuiltinArguments args(*this, call, function, {{"desc", "offsets", "value"}, 3}, &desc);
  SourceLoc at = args.at();
  BlockAccess access = descriptorAccess(*this, desc, args);
  Value value = blockValue(*this, desc, args["value"], args.loc("value"), element, function);
  atomicUpdate(*this, *kind, access.pointers, value, access.mask, tile::MemSemantic::relaxed,
               tile::MemScope::gpu, function, at);
  return Value::none();
}

void addBlockPointerBuiltins(BuiltinTable &t) {
  t.add("tl.make_block_ptr",
        {{"base", "shape", "strides", "offsets", "block_shape", "order"}, 6},
        makeBlockPtr);
  t.add("tl.advance", {{"base", "offsets"}, 2}, advance);
  t.add("tl.make_tensor_descriptor",
        {{"base", "shape", "strides", "block_shape", "padding_option"}, 4},
        makeTensorDescriptor);
  t.add("tl.load_tensor_descriptor", {{"desc", "offsets"}, 2}, loadTensorDescriptor);
  t.add("tl.store_tensor_descriptor", {{"desc", "offsets", "value"}, 3},
        storeTensorDescriptor);
}

} // namespace tilec::dsl
