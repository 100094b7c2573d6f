#include "dsl/Values.h"

#include "dsl/BuiltinTable.h"
#include "dsl/IRGen.h"

#include "llvm/Support/Casting.h"

#include <cmath>
#include <sstream>

using llvm::dyn_cast;

namespace tilec::dsl {

Value Value::ofBool(bool b) { Value v; v.kind = Kind::Bool; v.boolValue = b; return v; }
Value Value::ofInt(int64_t i) { Value v; v.kind = Kind::Int; v.intValue = i; return v; }
Value Value::ofFloat(double f) { Value v; v.kind = Kind::Float; v.floatValue = f; return v; }
Value Value::ofString(std::string s) { Value v; v.kind = Kind::String; v.text = std::move(s); return v; }
Value Value::ofDType(DType t) { Value v; v.kind = Kind::DType; v.dtype = t; return v; }
Value Value::ofTuple(std::vector<Value> e) { Value v; v.kind = Kind::Tuple; v.elements = std::move(e); return v; }
Value Value::ofFunction(std::shared_ptr<const JitFunction> f) { Value v; v.kind = Kind::Function; v.function = std::move(f); return v; }
Value Value::ofModule(std::string name) { Value v; v.kind = Kind::Module; v.text = std::move(name); return v; }
Value Value::ofBuiltin(std::string name) { Value v; v.kind = Kind::Builtin; v.text = std::move(name); return v; }
Value Value::ofMethod(std::string name, Value self) {
  Value v;
  v.kind = Kind::Method;
  v.text = std::move(name);
  v.self = std::make_shared<Value>(std::move(self));
  return v;
}
Value Value::ofEnum(std::string member) { Value v; v.kind = Kind::Enum; v.text = std::move(member); return v; }
Value Value::unavailable(std::string why) {
  Value v;
  v.kind = Kind::Unavailable;
  v.text = std::move(why);
  return v;
}

Value Value::ofIR(mlir::Value ir, ValueType type) {
  Value v;
  v.kind = Kind::IR;
  v.ir = ir;
  v.type = std::move(type);
  return v;
}

Value Value::ofBlockPtr(Value base, std::vector<Value> shape, std::vector<Value> strides,
                        std::vector<Value> offsets, std::vector<int64_t> blockShape,
                        std::vector<int64_t> order) {
  Value v;
  v.kind = Kind::BlockPtr;
  v.elements.push_back(std::move(base));
  for (size_t d = 0; d < blockShape.size(); ++d) {
    v.elements.push_back(std::move(shape[d]));
    v.elements.push_back(std::move(strides[d]));
    v.elements.push_back(std::move(offsets[d]));
  }
  v.blockShape = std::move(blockShape);
  v.order = std::move(order);
  return v;
}

bool Value::isConstexpr() const {
  if (kind == Kind::IR || kind == Kind::Method || kind == Kind::BlockPtr)
    return false;
  if (kind == Kind::Tuple)
    for (const Value &e : elements)
      if (!e.isConstexpr())
        return false;
  return true;
}

std::string Value::describe() const {
  switch (kind) {
  case Kind::None: return "None";
  case Kind::Bool: return "a bool constant";
  case Kind::Int: return "an int constant";
  case Kind::Float: return "a float constant";
  case Kind::String: return "a string";
  case Kind::DType: return "the dtype " + dtype.name();
  case Kind::Tuple: return "a tuple";
  case Kind::BlockPtr: {
    std::string s = isDescriptor() ? "a tensor descriptor of block shape ("
                                   : "a block pointer of block shape (";
    for (size_t i = 0; i < blockShape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(blockShape[i]);
    return s + (blockShape.size() == 1 ? ",)" : ")") + " to " +
           elements[0].type.element.pointee().name() + (text == "nan" ? ", NaN padding" : "");
  }
  case Kind::Function: return "function '" + function->name() + "'";
  case Kind::Module: return "module '" + text + "'";
  case Kind::Builtin: return "builtin '" + text + "'";
  case Kind::Method: return "method '" + text + "'";
  case Kind::Unavailable: return "an unavailable global";
  case Kind::Enum: return "tl." + text;
  case Kind::IR:
    return (type.isTensor() ? "a tensor of type " : "a value of type ") +
           type.str();
  }
  return "a value";
}

std::string Value::repr() const {
  switch (kind) {
  case Kind::None: return "None";
  case Kind::Bool: return boolValue ? "True" : "False";
  case Kind::Int: return std::to_string(intValue);
  case Kind::Float: {
    std::ostringstream os;
    os.precision(17);
    os << floatValue;
    std::string s = os.str();
    if (s.find_first_of(".eni") == std::string::npos)
      s += ".0";
    return s;
  }
  case Kind::String: return "'" + text + "'";
  case Kind::DType: return dtype.name();
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elements.size(); ++i)
      s += (i ? ", " : "") + elements[i].repr();
    return s + (elements.size() == 1 ? ",)" : ")");
  }
  case Kind::BlockPtr: return "<" + describe() + ">";
  case Kind::Function: return "<function " + function->name() + ">";
  case Kind::Module: return "<module " + text + ">";
  case Kind::Builtin: return "<builtin " + text + ">";
  case Kind::Method: return "<method " + text + ">";
  case Kind::Enum: return text; // as Python's str() of an Enum member
  case Kind::IR: return "<" + type.str() + ">";
  case Kind::Unavailable: return "<unavailable: " + text + ">";
  }
  return "?";
}

bool Value::sameAs(const Value &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::None: return true;
  case Kind::Bool: return boolValue == o.boolValue;
  case Kind::Int: return intValue == o.intValue;
  case Kind::Float: return floatValue == o.floatValue;
  case Kind::String:
  case Kind::Module:
  case Kind::Builtin:
  case Kind::Enum:
  case Kind::Unavailable: return text == o.text;
  case Kind::DType: return dtype == o.dtype;
  case Kind::Tuple:
    if (elements.size() != o.elements.size())
      return false;
    for (size_t i = 0; i < elements.size(); ++i)
      if (!elements[i].sameAs(o.elements[i]))
        return false;
    return true;
  case Kind::BlockPtr:
    if (blockShape != o.blockShape || order != o.order || text != o.text)
      return false;
    for (size_t i = 0; i < elements.size(); ++i)
      if (!elements[i].sameAs(o.elements[i]))
        return false;
    return true;
  case Kind::Function: return function->def == o.function->def;
  case Kind::Method: return false;
  case Kind::IR: return ir == o.ir;
  }
  return false;
}

std::optional<bool> Value::truthiness() const {
  switch (kind) {
  case Kind::None: return false;
  case Kind::Bool: return boolValue;
  case Kind::Int: return intValue != 0;
  case Kind::Float: return floatValue != 0; // -0.0 is false, NaN true
  case Kind::String: return !text.empty();
  case Kind::Tuple: return !elements.empty();
  case Kind::BlockPtr:
  case Kind::DType:
  case Kind::Function:
  case Kind::Module:
  case Kind::Builtin:
  case Kind::Method:
  case Kind::Enum: return true;
  case Kind::IR:
  case Kind::Unavailable: return std::nullopt;
  }
  return std::nullopt;
}

std::string classifyModule(const std::string &name) {
  if (name == "triton.language" || name == "tilec.language")
    return "tl";
  // Triton's CUDA extras: tl.extra, tl.extra.cuda and libdevice, which both
  // tl.extra.libdevice and tl.extra.cuda.libdevice name.
  for (const char *root : {"triton.language.extra", "tilec.language.extra"}) {
    std::string r = root;
    if (name == r)
      return "tl.extra";
    if (name == r + ".cuda")
      return "tl.extra.cuda";
    if (name == r + ".libdevice" || name == r + ".cuda.libdevice")
      return "libdevice";
  }
  if (name == "triton" || name == "tilec")
    return name;
  return name;
}

namespace {
bool isDocstring(const Stmt &s) {
  auto *e = dyn_cast<ExprStmt>(&s);
  return e && llvm::isa<StringExpr>(e->value.get());
}

/// What a skipped module-level statement is, for messages.
std::string statementName(const Stmt &s) {
  switch (s.kind) {
  case Stmt::Kind::If: return "the 'if' at " + lineOf(s.loc);
  case Stmt::Kind::For: return "the 'for' loop at " + lineOf(s.loc);
  case Stmt::Kind::While: return "the 'while' loop at " + lineOf(s.loc);
  default: return "the statement at " + lineOf(s.loc);
  }
}
} // namespace

std::shared_ptr<Scope> buildFileScope(std::shared_ptr<ModuleAST> module) {
  auto scope = std::make_shared<Scope>();
  // Functions first, so constants and defaults may not use them but
  // kernels can call helpers defined later in the file.
  for (const StmtPtr &s : module->body) {
    if (auto *def = dyn_cast<FunctionDef>(s.get())) {
      auto fn = std::make_shared<JitFunction>();
      fn->module = module;
      fn->def = def;
      fn->scope = scope.get();
      scope->defineFunction(def->name, std::move(fn));
    } else if (auto *u = dyn_cast<UnparsedStmt>(s.get()); u && !u->name.empty()) {
      scope->define(u->name, Value::unavailable(
                                 "its definition at " + lineOf(u->loc) +
                                 " is not in tilec's language (" +
                                 u->error.message + ", at column " +
                                 std::to_string(u->error.col) + ")"));
    }
  }
  for (const StmtPtr &s : module->body) {
    if (llvm::isa<FunctionDef, UnparsedStmt>(s.get()) || isDocstring(*s))
      continue;
    if (auto *imp = dyn_cast<ImportStmt>(s.get())) {
      for (const auto &alias : imp->names) {
        if (imp->fromModule.empty()) {
          // `import a.b` binds `a`; `import a.b as c` binds c to a.b.
          std::string bound = alias.asName.empty()
                                  ? alias.name.substr(0, alias.name.find('.'))
                                  : alias.asName;
          std::string target = alias.asName.empty() ? bound : alias.name;
          scope->define(bound, Value::ofModule(classifyModule(target)));
        } else {
          std::string full = imp->fromModule + "." + alias.name;
          std::string bound = alias.asName.empty() ? alias.name : alias.asName;
          std::string kind = classifyModule(full);
          std::string from = classifyModule(imp->fromModule);
          if (kind == "tl" || kind == "triton" || kind == "tilec" || kind == "libdevice" ||
              kind == "tl.extra" || kind == "tl.extra.cuda")
            scope->define(bound, Value::ofModule(kind));
          else if (from == "tl")
            scope->define(bound, Value::ofBuiltin("tl." + alias.name));
          else if (from == "libdevice")
            scope->define(bound, Value::ofBuiltin("libdevice." + alias.name));
          else if (from == "tl.extra.cuda" && builtins().find("tl.extra.cuda." + alias.name))
            scope->define(bound, Value::ofBuiltin("tl.extra.cuda." + alias.name));
          else if (imp->fromModule == "triton" || imp->fromModule == "tilec")
            scope->define(bound, alias.name == "jit"
                                     ? Value::ofBuiltin("tl.jit")
                                     : Value::ofModule(full));
          else
            scope->define(bound, Value::ofModule(full));
        }
      }
      continue;
    }
    const Expr *target = nullptr, *value = nullptr;
    if (auto *a = dyn_cast<AssignStmt>(s.get())) {
      if (a->targets.size() == 1) {
        target = a->targets[0].get();
        value = a->value.get();
      }
    } else if (auto *a = dyn_cast<AnnAssignStmt>(s.get())) {
      target = a->target.get();
      value = a->value.get();
    }
    auto *name = target ? dyn_cast<NameExpr>(target) : nullptr;
    if (!name || !value) {
      // Python tilec does not run (`if __name__ == "__main__":`, set-up
      // code): whatever it binds is unavailable to kernels.
      std::set<std::string> names;
      collectAssignedNames(*s, names);
      for (const std::string &n : names)
        scope->define(n, Value::unavailable("it is assigned by " + statementName(*s) +
                                            ", which tilec does not run (at module "
                                            "level it evaluates imports, constants "
                                            "and functions)"));
      continue;
    }
    try {
      scope->define(name->id, evaluateConstantExpression(*value, *scope));
    } catch (const CompileError &e) {
      // Set-up code such as `x = np.ones(4)`: an error only where used.
      scope->define(name->id, Value::unavailable(
                                  "its value at " + lineOf(s->loc) +
                                  " cannot be computed at compile time (" +
                                  e.diagnostic().message + ")"));
    }
  }
  return scope;
}

} // namespace tilec::dsl
