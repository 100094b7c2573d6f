#include "CommandLine.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

tilec::Constexpr parseConstexprValue(const std::string &text) {
  if (text == "True" || text == "False")
    return tilec::Constexpr(text == "True");
  char *end = nullptr;
  errno = 0;
  long long i = std::strtoll(text.c_str(), &end, 0);
  if (!text.empty() && *end == '\0' && errno == 0)
    return tilec::Constexpr(int64_t(i));
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0')
    return tilec::Constexpr(d);
  return tilec::Constexpr(text);
}

void addDefinition(const std::string &def, tilec::Constexprs &into) {
  size_t eq = def.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::runtime_error("-D needs NAME=VALUE, got '" + def + "'");
  into.insert_or_assign(def.substr(0, eq), parseConstexprValue(def.substr(eq + 1)));
}
