// The names of the builtins a kernel may call: what the compiler's table
// (BuiltinTable.h) holds, for the Python package's tests and for the
// checks that decide which free names a kernel may use.
#pragma once

#include <string>
#include <vector>

namespace tilec::dsl {

/// Every builtin a kernel may call, sorted: the members of `tl` as
/// "tl.load", ... and the Python builtins as "min", "range", ...
std::vector<std::string> builtinNames();

/// A Python builtin a kernel may use without importing it (range, min,
/// abs, ...).
bool isPythonBuiltin(const std::string &name);

} // namespace tilec::dsl
