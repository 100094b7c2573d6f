// Checks of a function that need no specialisation: the statements it may
// use and the names it refers to. Type checks happen during IR generation,
// where types are known.
#pragma once

#include "dsl/Values.h"

namespace tilec::dsl {

/// Throws CompileError at the first problem: an unsupported statement
/// (nested def, while, break, ...), a duplicate parameter, a name that is
/// neither local, a parameter, in the function's scope nor a builtin.
void checkFunction(const JitFunction &fn);

} // namespace tilec::dsl
