// The table of builtins (BuiltinTable.h): binding a call's arguments to a
// builtin's parameters, and the dispatch of every builtin call through it.
#include "dsl/BuiltinTable.h"

#include "dsl/Builtins.h"

#include <cassert>

namespace tilec::dsl {

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

BuiltinArguments::BuiltinArguments(Generator &gen, const CallExpr &call,
                                   std::string function,
                                   BuiltinSignature signature, const Value *self)
    : call_(call), function_(std::move(function)),
      params_(std::move(signature.params)) {
  values_.resize(params_.size());
  locs_.resize(params_.size(), call.loc);
  given_.resize(params_.size(), false);
  size_t first = self ? 1 : 0; // the receiver comes first
  if (!signature.variadic && call.args.size() + first > params_.size())
    fail(call.loc, function_ + "() takes at most " +
                       std::to_string(params_.size() - first) + " arguments, got " +
                       std::to_string(call.args.size()));
  auto bind = [&](size_t i, Value v, SourceLoc l) {
    if (signature.variadic) {
      variadic_.push_back(std::move(v));
      variadicLocs_.push_back(l);
      return;
    }
    values_[i] = std::move(v);
    locs_[i] = l;
    given_[i] = true;
  };
  if (self)
    bind(0, *self, call.func->loc);
  for (size_t i = 0; i < call.args.size(); ++i)
    bind(i + first, gen.gen(*call.args[i]), call.args[i]->loc);
  for (const Keyword &k : call.keywords) {
    std::optional<size_t> i = find(k.name);
    if (!i)
      fail(k.loc, function_ + "() got an unexpected keyword argument '" +
                      k.name + "'");
    if (given_[*i])
      fail(k.loc, function_ + "() got multiple values for '" + k.name + "'");
    values_[*i] = gen.gen(*k.value);
    locs_[*i] = k.value->loc;
    given_[*i] = true;
  }
  for (size_t i = 0; i < signature.required; ++i)
    if (!given_[i])
      fail(call.loc, function_ + "() missing required argument '" +
                         params_[i] + "'");
}

std::string BuiltinArguments::text(const std::string &name) const {
  if (!has(name))
    return "";
  const Value &v = (*this)[name];
  if (v.kind != Value::Kind::String)
    fail(loc(name), function_ + "(): '" + name + "' must be a string");
  return v.text;
}

std::optional<size_t> BuiltinArguments::find(const std::string &name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i] == name)
      return i;
  return std::nullopt;
}

size_t BuiltinArguments::indexOf(const std::string &name) const {
  std::optional<size_t> i = find(name);
  assert(i && "a builtin's generator reads a parameter its signature lacks");
  return *i;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

void BuiltinTable::add(const std::string &name, BuiltinSignature signature,
                       BuiltinGenerator generate) {
  assert(signature.required <= signature.params.size());
  bool added =
      entries_.emplace(name, Builtin{std::move(signature), std::move(generate)})
          .second;
  assert(added && "a builtin registered twice");
  (void)added;
}

const Builtin *BuiltinTable::find(const std::string &name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> BuiltinTable::names() const {
  std::vector<std::string> out;
  for (const auto &entry : entries_)
    out.push_back(entry.first);
  return out;
}

const BuiltinTable &builtins() {
  // One line per family; see BuiltinTable.h. Built once (thread-safe) and
  // read-only afterwards, so concurrent compiles share it.
  static const BuiltinTable table = [] {
    BuiltinTable t;
    addCoreBuiltins(t);
    addMathBuiltins(t);
    addReductionBuiltins(t);
    addScanBuiltins(t);
    addShapeBuiltins(t);
    addDotBuiltins(t);
    addAtomicBuiltins(t);
    addRandomBuiltins(t);
    addDebugBuiltins(t);
    addCudaBuiltins(t);
    addPythonBuiltins(t);
    addLibdeviceBuiltins(t);
    addInlineAsmBuiltins(t);
    addSortBuiltins(t);
    addBlockPointerBuiltins(t);
    return t;
  }();
  return table;
}

std::vector<std::string> builtinNames() { return builtins().names(); }

bool isPythonBuiltin(const std::string &name) {
  return name.rfind("tl.", 0) != 0 && name.rfind("libdevice.", 0) != 0 &&
         builtins().find(name);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

Value Generator::callBuiltin(const std::string &name, const CallExpr &call) {
  if (const Builtin *builtin = builtins().find(name)) {
    BuiltinArguments args(*this, call, name, builtin->signature);
    return builtin->generate(*this, args);
  }
  // `triton.jit` and `tilec.jit` reach here as tl.jit: a decorator, not a
  // builtin of the language.
  if (name == "tl.jit")
    fail(call.loc, "@jit is a decorator; call the decorated function directly");
  fail(call.loc, "'" + name + "' is not supported by tilec (yet)");
}

} // namespace tilec::dsl
