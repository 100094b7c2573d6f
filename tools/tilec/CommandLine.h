// What the CLI's commands (main.cpp, TuneCommand.cpp, AotCommand.cpp) read
// off their command lines alike.
#pragma once

#include <tilec/tilec.h>

#include <string>

/// A -D NAME=VALUE (or --config) value: an integer (decimal or 0x), a
/// float, True/False, else a string (a dtype name such as fp16).
tilec::Constexpr parseConstexprValue(const std::string &text);

/// A -D NAME=VALUE definition (`def` is NAME=VALUE) added to `into`;
/// throws std::runtime_error when there is no name or no '='.
void addDefinition(const std::string &def, tilec::Constexprs &into);
