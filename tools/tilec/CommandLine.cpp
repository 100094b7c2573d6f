#include "CommandLine.h"

#include <cerrno>
#include <cstdlib>

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
