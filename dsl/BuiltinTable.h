// Private to IRGen*.cpp: the table of builtins. Every function a kernel may
// call by name (the members of `tl` and the few Python builtins) has one
// entry: its parameters, declared once, and the code that generates a
// call from the arguments bound to them.
//
// Adding a builtin is one line in its family's registration function:
//
//   t.add("tl.trans", {{"input", "dims"}, 1}, trans);
//
// where `Value trans(Generator &, const BuiltinArguments &)` generates the
// call (a lambda works too, to share one generator between entries).
// Adding a family, e.g. the shape builtins of IRGenShape.cpp: write
// `void addShapeBuiltins(BuiltinTable &)` next to the family's code,
// declare it at the end of this file and list it in builtins()
// (BuiltinTable.cpp). A family written as
// `std::optional<Value> Generator::callX(name, call)` converts by moving
// each `BuiltinArguments args(*this, call, name, {params}, n)` into its
// entry's signature and the rest of the branch into its generator.
//
// A new `tl.X` also goes into python/tilec/language.py's _BUILTINS:
// tests/python/test_language.py compares the two lists.
#pragma once

#include "dsl/IRGenImpl.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tilec::dsl {

/// How a builtin takes its arguments, Python-style.
struct BuiltinSignature {
  /// Parameter names, in positional order.
  std::vector<std::string> params;
  /// How many of `params`, from the first, have no default.
  size_t required = 0;
  /// Takes any number of positional arguments (Python's `*args`, as
  /// `min(a, b, c)`); `params` are then keyword-only.
  bool variadic = false;
};

/// Arguments of a builtin call, bound to its parameter names Python-style.
/// Binding evaluates them, in the order written, and reports a wrong count,
/// an unknown keyword or a parameter given twice at the user's call.
class BuiltinArguments {
public:
  /// `self`, when given, is the receiver of a method call (x.sum(...)):
  /// the first argument, before the call's own.
  BuiltinArguments(Generator &gen, const CallExpr &call, std::string function,
                   BuiltinSignature signature, const Value *self = nullptr);
  BuiltinArguments(Generator &gen, const CallExpr &call, std::string function,
                   std::vector<std::string> params, size_t required)
      : BuiltinArguments(gen, call, std::move(function),
                         BuiltinSignature{std::move(params), required}) {}

  /// The builtin as the kernel names it ("tl.load", "min"), for messages.
  const std::string &function() const { return function_; }
  /// Where the call is.
  SourceLoc at() const { return call_.loc; }

  bool has(const std::string &name) const {
    size_t i = indexOf(name);
    return given_[i] && values_[i].kind != Value::Kind::None;
  }
  const Value &operator[](const std::string &name) const {
    return values_[indexOf(name)];
  }
  SourceLoc loc(const std::string &name) const { return locs_[indexOf(name)]; }
  /// A string argument (cache_modifier="...") or "" when absent.
  std::string text(const std::string &name) const;

  /// A variadic builtin's positional arguments (its `*args`), in order.
  const std::vector<Value> &variadic() const { return variadic_; }
  SourceLoc variadicLoc(size_t i) const { return variadicLocs_[i]; }

private:
  /// The index of a declared parameter (a generator asking for one it did
  /// not declare is a bug of the table).
  size_t indexOf(const std::string &name) const;
  std::optional<size_t> find(const std::string &name) const;

  const CallExpr &call_;
  std::string function_;
  std::vector<std::string> params_;
  std::vector<Value> values_;
  std::vector<SourceLoc> locs_;
  std::vector<bool> given_;
  std::vector<Value> variadic_;
  std::vector<SourceLoc> variadicLocs_;
};

/// Generates a call of a builtin from its bound arguments.
using BuiltinGenerator =
    std::function<Value(Generator &, const BuiltinArguments &)>;

struct Builtin {
  BuiltinSignature signature;
  BuiltinGenerator generate;
};

/// Builtins by the name a kernel calls them with: "tl.load" for `tl.load`
/// (also `tl.math.load`, `from triton.language import load`), "min" for
/// Python's `min`.
class BuiltinTable {
public:
  /// Each name once.
  void add(const std::string &name, BuiltinSignature signature,
           BuiltinGenerator generate);
  const Builtin *find(const std::string &name) const;
  /// Sorted.
  std::vector<std::string> names() const;

private:
  std::map<std::string, Builtin> entries_;
};

/// The table, filled by every family's registration on first use.
const BuiltinTable &builtins();

/// A dtype argument (tl.float16, ...), or a located error naming `what`.
inline DType dtypeArg(const Value &v, SourceLoc l, const std::string &what) {
  if (v.kind != Value::Kind::DType)
    fail(l, what + " must be a dtype such as tl.float32, got " + v.describe());
  return v.dtype;
}

/// A string option of a builtin (cache_modifier=, sem=, ...): the value
/// `text` names among `allowed`, or a located error listing them.
template <typename E>
E parseHint(const std::string &text, SourceLoc l, const char *what,
            std::initializer_list<std::pair<const char *, E>> allowed) {
  for (auto &[spelling, value] : allowed)
    if (text == spelling)
      return value;
  std::string names;
  for (auto &[spelling, _] : allowed)
    names += std::string(names.empty() ? "" : ", ") + "'" + spelling + "'";
  fail(l, "unknown " + std::string(what) + " '" + text + "' (expected one of " +
              names + ")");
}

/// The `mask=` of a memory builtin (tl.load, tl.store, the atomics) as an
/// i1, it and `ptr` broadcast to their common shape; not IR when there is
/// none or it is True (IRGenBuiltins.cpp).
Value maskArgument(Generator &g, const BuiltinArguments &args, Value &ptr);

/// The generator of range, tl.range and tl.static_range, which only a for
/// loop may call (IRGen.cpp's genFor binds their arguments itself): a
/// located error anywhere else.
[[noreturn]] Value loopOnly(Generator &, const BuiltinArguments &args);

/// The integer type as wide as `t`: what flip, split and sort move an
/// element's bits in (IRGenShape.cpp).
ScalarKind bitsType(DType t);

/// The int32 tensor 0, 1, ..., n - 1 (tile.make_range; IRGenShape.cpp).
Value rangeOf(Generator &g, int64_t n, SourceLoc at);

/// tl.reshape's checks, then `x` reshaped to `shape` in row-major order
/// (`x` itself when the shape is its own); `what` names the call in
/// messages (IRGenShape.cpp).
Value reshapeTensor(Generator &g, const Value &x, const std::vector<int64_t> &shape,
                    SourceLoc at, SourceLoc shapeAt, const std::string &what);

/// An access through a block pointer (IRGenBlockPtr.cpp): the tensor of
/// the block's pointers and, where the call's boundary_check names
/// dimensions, the mask of the elements inside the tensor (else None).
struct BlockAccess {
  Value pointers, mask;
};
BlockAccess blockAccess(Generator &g, const Value &block, const BuiltinArguments &args,
                        SourceLoc at);
/// The call's padding_option ("zero" when absent or ""), checked: "zero"
/// or "nan", and "nan" only for floats (`holder`: "block", "tensor", for
/// the message).
std::string paddingOption(const BuiltinArguments &args, DType element, const char *holder);
/// The padding a masked-off element reads as, in `shape`.
Value paddingTensor(Generator &g, const std::string &padding, DType element,
                    const std::vector<int64_t> &shape, SourceLoc at);

/// An atomic read-modify-write of `value` at `ptr` where `mask` (None: all)
/// holds, whose old values are not used (IRGenAtomic.cpp); `function`
/// names the call in messages.
void atomicUpdate(Generator &g, tile::AtomicKind kind, const Value &ptr, const Value &value,
                  const Value &mask, tile::MemSemantic sem, tile::MemScope scope,
                  const std::string &function, SourceLoc at);

// The families, each registered next to its code.

/// program_id, arange, load, store, where, zeros, cdiv, static_print, ...
void addCoreBuiltins(BuiltinTable &t); // IRGenBuiltins.cpp
/// exp, sqrt, abs, fma, div_rn, minimum, maximum, ...
void addMathBuiltins(BuiltinTable &t); // IRGenMath.cpp
/// sum, max, min, argmax, argmin, reduce.
void addReductionBuiltins(BuiltinTable &t); // IRGenReduce.cpp
/// dot.
void addDotBuiltins(BuiltinTable &t); // IRGenDot.cpp
/// cumsum, cumprod, associative_scan.
void addScanBuiltins(BuiltinTable &t); // IRGenReduce.cpp
/// trans, permute, reshape, view, ravel, broadcast_to, broadcast,
/// expand_dims, join, interleave, cat, split, flip, gather, histogram.
void addShapeBuiltins(BuiltinTable &t); // IRGenShape.cpp
/// atomic_add, atomic_max, ..., atomic_xchg, atomic_cas.
void addAtomicBuiltins(BuiltinTable &t); // IRGenAtomic.cpp
/// umulhi, randint, randint4x, rand, rand4x, randn, randn4x, ...
void addRandomBuiltins(BuiltinTable &t); // IRGenRandom.cpp
/// device_assert, device_print, debug_barrier.
void addDebugBuiltins(BuiltinTable &t); // IRGenDebug.cpp
/// tl.extra.cuda's gdc_wait, gdc_launch_dependents and prefetch_l2.
void addCudaBuiltins(BuiltinTable &t); // IRGenCuda.cpp
/// Python's min, max, abs, len, int, float, bool, range, print.
void addPythonBuiltins(BuiltinTable &t); // IRGenPython.cpp
/// libdevice.pow, atan2, acos, ..., isnan, clz, popc (Triton's
/// triton.language.extra.libdevice).
void addLibdeviceBuiltins(BuiltinTable &t); // IRGenLibdevice.cpp
void addInlineAsmBuiltins(BuiltinTable &t); // IRGenInlineAsm.cpp
/// sort.
void addSortBuiltins(BuiltinTable &t); // IRGenSort.cpp
/// make_block_ptr, advance.
void addBlockPointerBuiltins(BuiltinTable &t); // IRGenBlockPtr.cpp

} // namespace tilec::dsl
