// Lexing and parsing of tilec kernel sources (a strict subset of Python).
#pragma once

#include "dsl/AST.h"

#include <memory>

namespace tilec::dsl {

/// Parse a whole source (a file of kernels, or one function's source).
/// Throws CompileError, located at the offending token, for syntax errors and
/// for Python constructs outside tilec's subset (class, lambda, try, with,
/// comprehensions, ...).
std::unique_ptr<ModuleAST> parseModule(std::shared_ptr<SourceBuffer> source);

} // namespace tilec::dsl
