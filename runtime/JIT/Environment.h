// The switches tilec reads from the environment (TILEC_DEBUG,
// TILEC_INTERPRET, TILEC_DISABLE_LINE_INFO), one rule for all of them.
#pragma once

#include <cstdlib>
#include <cstring>

namespace tilec::jit {

/// True when the variable `name` is set to anything but "" or "0".
inline bool environmentFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

} // namespace tilec::jit
