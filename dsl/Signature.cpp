#include "dsl/Signature.h"

namespace tilec::dsl {

std::string ArgSpec::str() const {
  std::string s = type.name();
  if (equalsOne)
    s += ":1";
  else if (divisibility == 16 || divisibility == 8)
    s += ":" + std::to_string(divisibility);
  return s;
}

std::string Signature::str() const {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i)
    s += (i ? "," : "") + args[i].str();
  return s;
}

static std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool parseSignature(const std::string &text, Signature &signature,
                    std::string &error) {
  signature.args.clear();
  if (trim(text).empty())
    return true; // a kernel with only constexpr parameters
  size_t start = 0;
  for (unsigned index = 1;; ++index) {
    size_t comma = text.find(',', start);
    std::string entry = trim(text.substr(start, comma == std::string::npos
                                                    ? std::string::npos
                                                    : comma - start));
    std::string where = "signature entry " + std::to_string(index) + " ('" +
                        entry + "')";
    ArgSpec arg;
    std::string typeName = entry, fact;
    if (size_t colon = entry.find(':'); colon != std::string::npos) {
      typeName = trim(entry.substr(0, colon));
      fact = trim(entry.substr(colon + 1));
    }
    auto type = DType::parse(typeName);
    if (!type) {
      error = where + ": unknown type '" + typeName +
              "' (expected e.g. *fp32, *fp16, *bf16, i32, i64, fp32)";
      return false;
    }
    arg.type = *type;
    if (fact == "16") {
      if (!arg.type.isPointer && !arg.type.isInt()) {
        error = where + ": ':16' applies to pointers and integers only";
        return false;
      }
      arg.divisibility = 16;
    } else if (fact == "8") {
      if (arg.type.isPointer || !arg.type.isInt()) {
        error = where + ": ':8' applies to integers only";
        return false;
      }
      arg.divisibility = 8;
    } else if (fact == "1") {
      if (arg.type.isPointer || !arg.type.isInt()) {
        error = where + ": ':1' applies to integers only";
        return false;
      }
      arg.equalsOne = true;
    } else if (!fact.empty()) {
      error = where + ": unknown specialisation ':" + fact +
              "' (expected ':16', ':8' or ':1')";
      return false;
    }
    signature.args.push_back(arg);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

} // namespace tilec::dsl
