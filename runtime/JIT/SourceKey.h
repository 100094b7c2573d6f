// What a kernel's machine code depends on in its source: its own text, the
// text of every @jit function it reaches, and the values of the globals
// they use — the source half of a disk-cache key (DiskCache.h). Changing
// another function of the same file changes none of it.
#pragma once

#include "runtime/JIT/DiskCache.h"

#include "dsl/Values.h"

#include <set>
#include <string>
#include <vector>

namespace tilec::jit {

/// The text of `fn`'s definition as written in its file, decorators
/// included and trailing blank or comment-only lines left out, with the
/// file line it starts at.
struct FunctionText {
  std::string text;
  unsigned firstLine = 1;
};
FunctionText functionText(const dsl::JitFunction &fn);

/// Appends, for a parsed function: "source NAME" (its text) when `isRoot`,
/// else "callee NAME"; then, for each name its text uses that its scope
/// binds (sorted), a callee's parts (each function once, by `seen`) or
/// "global NAME" = the value's repr.
void appendSourceParts(const dsl::JitFunction &fn, bool isRoot,
                       std::set<const void *> &seen, std::vector<KeyPart> &parts);

/// "global NAME" part for a value bound in a scope.
KeyPart globalPart(const std::string &name, const dsl::Value &value);

} // namespace tilec::jit
