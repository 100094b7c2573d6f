// What a name or an expression denotes while a kernel is generated:
// a compile-time value (int, float, bool, None, string, dtype, tuple, a
// function, the `tl` module, a member of a `tl` enumeration) or an IR
// value with its kernel-language type.
#pragma once

#include "dsl/AST.h"
#include "dsl/Types.h"

#include "mlir/IR/Value.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::dsl {

class Scope;

/// A @jit function: its definition and the scope its free names resolve in.
///
/// The scope owns the functions defined in it, and a function only points
/// back at its scope: an owning pointer both ways would be a cycle that
/// keeps a parsed file alive forever. Whoever keeps a function keeps its
/// scope: ParsedSource::function (runtime/JIT/Compiler.h) returns a pointer
/// that shares the ownership of the scope.
struct JitFunction {
  std::shared_ptr<ModuleAST> module; ///< owns `def`
  const FunctionDef *def = nullptr;
  const Scope *scope = nullptr; ///< not owned: the scope owns the function
  /// Stable text identifying the function (its name and source), used in
  /// specialisation keys.
  std::string name() const { return def->name; }
};

struct Value {
  enum class Kind {
    None, Bool, Int, Float, String, DType, Tuple,
    Function, ///< a @jit function
    Module,   ///< `tl`, `triton`, or a module the kernel cannot use
    Builtin,  ///< a member of `tl` or a Python builtin (range, min, ...)
    Method,   ///< `x.to` bound to x
    Enum,     ///< a member of an enumeration of `tl` (tl.PropagateNan.ALL)
    IR,
    /// A module-level name tilec cannot give a value (set-up code, a
    /// statement it does not run, a definition that does not parse): an
    /// error where a kernel uses it, `text` saying why.
    Unavailable,
    /// tl.make_block_ptr's result: `elements` are the base pointer, then
    /// per dimension the shape and the stride (i64) and the offset (i32),
    /// all scalar IR values; `blockShape` and `order` are compile-time.
    /// tl.make_tensor_descriptor's result is one too, whose offsets stay 0
    /// (each access gives its own) and whose `text` is its padding
    /// ("zero" or "nan"): see isDescriptor().
    BlockPtr,
  };
  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;
  double floatValue = 0;
  /// String; Module, Builtin or Method name; Enum member as
  /// "PropagateNan.ALL"
  std::string text;
  DType dtype;      ///< DType
  std::vector<Value> elements;               ///< Tuple
  std::shared_ptr<const JitFunction> function; ///< Function
  std::shared_ptr<Value> self;               ///< Method receiver
  std::vector<int64_t> blockShape, order;    ///< BlockPtr
  mlir::Value ir;   ///< IR
  ValueType type;   ///< IR

  static Value none() { return Value(); }
  static Value ofBool(bool b);
  static Value ofInt(int64_t i);
  static Value ofFloat(double f);
  static Value ofString(std::string s);
  static Value ofDType(DType t);
  static Value ofTuple(std::vector<Value> elements);
  static Value ofFunction(std::shared_ptr<const JitFunction> f);
  static Value ofModule(std::string name);
  static Value ofBuiltin(std::string name);
  static Value ofMethod(std::string name, Value self);
  /// `member` is qualified by its enumeration: "PropagateNan.ALL".
  static Value ofEnum(std::string member);
  static Value ofIR(mlir::Value v, ValueType type);
  static Value unavailable(std::string why);
  /// A block pointer of rank r: `shape`, `strides` and `offsets` hold r
  /// scalar IR values each.
  static Value ofBlockPtr(Value base, std::vector<Value> shape,
                          std::vector<Value> strides, std::vector<Value> offsets,
                          std::vector<int64_t> blockShape, std::vector<int64_t> order);

  bool isIR() const { return kind == Kind::IR; }
  /// A tensor descriptor (tl.make_tensor_descriptor): a block pointer
  /// that names its padding.
  bool isDescriptor() const { return kind == Kind::BlockPtr && !text.empty(); }
  /// A block pointer's parts (Kind::BlockPtr).
  const Value &blockBase() const { return elements[0]; }
  const Value &blockDimShape(size_t d) const { return elements[1 + 3 * d]; }
  const Value &blockStride(size_t d) const { return elements[2 + 3 * d]; }
  const Value &blockOffset(size_t d) const { return elements[3 + 3 * d]; }
  /// Numbers and booleans known at compile time.
  bool isNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// One integer: a compile-time int, or a scalar IR integer that is not a
  /// bool or a pointer.
  bool isIntegerScalar() const {
    return kind == Kind::Int || (kind == Kind::IR && !type.isTensor() && type.element.isInt() &&
                                 !type.element.isBool() && !type.element.isPointer);
  }
  /// Known at compile time (everything but IR values; a tuple when all its
  /// elements are).
  bool isConstexpr() const;
  /// "int", "fp32 tensor", "function 'helper'" — for error messages.
  std::string describe() const;
  /// Python-style text of a compile-time value: 1024, 1.5, True, fp16.
  std::string repr() const;
  /// Equality of compile-time values (IR values compare by identity).
  bool sameAs(const Value &other) const;
  /// Python's truth value, the one rule behind `if`, `assert`,
  /// tl.static_assert, `and`/`or`/`not`, `x if c else y` and bool() on
  /// values known at compile time: False, 0, 0.0, -0.0, None, '' and ()
  /// are false; everything else is true (NaN, dtypes, functions, modules,
  /// builtins, a non-empty tuple even of tensors). Empty for IR values,
  /// whose truth is only known when the kernel runs.
  std::optional<bool> truthiness() const;
};

/// The names a kernel's free variables resolve to: module constants,
/// other @jit functions, imported modules. Built from a file's top level
/// (C++ users) or from a Python function's globals.
class Scope {
public:
  void define(const std::string &name, Value value) { names_[name] = std::move(value); }
  /// Defines `name` as a function of this scope, which owns it for as long
  /// as the scope lives, even after another definition replaces the name.
  void defineFunction(const std::string &name, std::shared_ptr<const JitFunction> fn) {
    functions_.push_back(fn);
    define(name, Value::ofFunction(std::move(fn)));
  }
  const Value *lookup(const std::string &name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, Value> &names() const { return names_; }

private:
  std::map<std::string, Value> names_;
  std::vector<std::shared_ptr<const JitFunction>> functions_;
};

/// The scope of a parsed file: its imports, module-level constants (each
/// evaluated at compile time, in order) and functions. What else a kernel
/// file holds at module level, as Triton users write it (set-up code, an
/// `if __name__ == "__main__":` block, statements that do not parse) is
/// skipped; the names it would bind are unavailable, an error only where
/// a kernel uses one, as is a constant that cannot be evaluated.
std::shared_ptr<Scope> buildFileScope(std::shared_ptr<ModuleAST> module);

/// Maps an imported module name to what it means inside a kernel:
/// "tl" for triton.language / tilec.language, "triton"/"tilec" for the
/// package itself, "tl.extra", "tl.extra.cuda" and "libdevice" for
/// (triton|tilec).language.extra[.cuda][.libdevice], or the name for
/// anything else.
std::string classifyModule(const std::string &dottedName);

} // namespace tilec::dsl
