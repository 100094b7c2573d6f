#include "runtime/JIT/SourceKey.h"

#include "dsl/AST.h"
#include "dsl/Diagnostics.h"
#include "dsl/Lexer.h"

#include "llvm/Support/Casting.h"

#include <sstream>

namespace tilec::jit {

namespace {
/// The first line of a statement, its decorators included.
unsigned startLine(const dsl::Stmt &s) {
  unsigned line = s.loc.line;
  if (auto *def = llvm::dyn_cast<dsl::FunctionDef>(&s))
    for (const dsl::SourceLoc &d : def->decorators)
      line = std::min(line, d.line);
  return line;
}

bool isBlankOrComment(const std::string &line) {
  size_t first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}
} // namespace

FunctionText functionText(const dsl::JitFunction &fn) {
  const dsl::SourceBuffer &buffer = *fn.module->source;
  unsigned begin = startLine(*fn.def), end = 0; // end: first line after it
  const dsl::StmtList &body = fn.module->body;
  for (size_t i = 0; i < body.size(); ++i)
    if (body[i].get() == fn.def && i + 1 < body.size())
      end = startLine(*body[i + 1]);
  std::vector<std::string> lines;
  unsigned last = buffer.firstLine() +
                  unsigned(std::count(buffer.text().begin(), buffer.text().end(), '\n'));
  for (unsigned line = begin; end ? line < end : line <= last; ++line)
    lines.emplace_back(buffer.line(line));
  while (lines.size() > 1 && isBlankOrComment(lines.back()))
    lines.pop_back();
  FunctionText out;
  out.firstLine = begin;
  for (const std::string &l : lines)
    out.text += l + "\n";
  return out;
}

KeyPart globalPart(const std::string &name, const dsl::Value &value) {
  KeyPart p;
  p.name = "global " + name;
  p.value = value.repr();
  return p;
}

void appendSourceParts(const dsl::JitFunction &fn, bool isRoot,
                       std::set<const void *> &seen, std::vector<KeyPart> &parts) {
  if (!seen.insert(fn.def).second)
    return;
  FunctionText text = functionText(fn);
  KeyPart self;
  self.name = (isRoot ? "source " : "callee ") + fn.name();
  self.value = digest(text.text);
  self.location = fn.module->source->path() + ":" + std::to_string(text.firstLine);
  self.text = text.text;
  parts.push_back(self);

  // Every name token of the text that the scope binds: a superset of the
  // globals the function reads (a local that shadows one adds a part that
  // never changes the code, which is harmless).
  std::set<std::string> names;
  try {
    dsl::SourceBuffer buffer(fn.module->source->path(), text.text, text.firstLine);
    for (const dsl::Token &t : dsl::tokenize(buffer))
      if (t.kind == dsl::TokenKind::Name && t.text != fn.name())
        names.insert(t.text);
  } catch (const std::exception &) {
    // The text parsed as part of its file; on its own it cannot fail to
    // tokenize, but if it did, the digest of the text still keys it.
  }
  std::vector<const dsl::JitFunction *> callees;
  for (const std::string &name : names) {
    const dsl::Value *value = fn.scope ? fn.scope->lookup(name) : nullptr;
    if (!value)
      continue;
    if (value->kind == dsl::Value::Kind::Function && value->function)
      callees.push_back(value->function.get());
    else
      parts.push_back(globalPart(name, *value));
  }
  for (const dsl::JitFunction *callee : callees)
    appendSourceParts(*callee, false, seen, parts);
}

} // namespace tilec::jit
