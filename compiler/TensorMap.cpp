#include "compiler/TensorMap.h"

#include <cstdlib>
#include <sstream>

namespace tilec {

namespace {

bool sameOperand(const TensorMapSpec::Operand &a, const TensorMapSpec::Operand &b) {
  return a.arg == b.arg && (a.arg >= 0 || a.value == b.value);
}

bool sameOperands(const std::vector<TensorMapSpec::Operand> &a,
                  const std::vector<TensorMapSpec::Operand> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameOperand(a[i], b[i]))
      return false;
  return true;
}

void printOperands(std::ostream &os, const std::vector<TensorMapSpec::Operand> &list) {
  os << '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i)
      os << ',';
    if (list[i].arg >= 0)
      os << 'a' << list[i].arg;
    else
      os << list[i].value;
  }
  os << ']';
}

/// The entries of "[x,y,...]" (without the brackets' contents' spaces).
bool splitList(const std::string &text, std::vector<std::string> &out) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return false;
  std::string body = text.substr(1, text.size() - 2);
  out.clear();
  if (body.empty())
    return true;
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ','))
    out.push_back(item);
  return true;
}

bool parseInt(const std::string &text, int64_t &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end)
    return false;
  out = v;
  return true;
}

bool parseOperands(const std::string &text, std::vector<TensorMapSpec::Operand> &out) {
  std::vector<std::string> items;
  if (!splitList(text, items))
    return false;
  out.clear();
  for (const std::string &item : items) {
    TensorMapSpec::Operand o;
    int64_t v;
    if (!item.empty() && item[0] == 'a') {
      if (!parseInt(item.substr(1), v) || v < 0)
        return false;
      o.arg = int(v);
    } else {
      if (!parseInt(item, v))
        return false;
      o.value = v;
    }
    out.push_back(o);
  }
  return true;
}

} // namespace

bool tmaBlockLayout(int64_t rows, int64_t cols, unsigned elementBits, TMABlockLayout &out) {
  if (rows < 1 || cols < 1 || elementBits % 8 || elementBits == 0)
    return false;
  int64_t rowBytes = cols * elementBits / 8;
  if (rowBytes % 16 || rows > 256)
    return false;
  TMABlockLayout layout;
  if (rowBytes >= 32 && rows % 8 == 0) {
    layout.swizzleBytes = rowBytes >= 128 ? 128 : unsigned(rowBytes);
    // (Powers of two: rowBytes is a multiple of the swizzle.)
    if (rowBytes % layout.swizzleBytes)
      return false;
    layout.boxCols = layout.swizzleBytes * 8 / elementBits;
    layout.copies = unsigned(rowBytes / layout.swizzleBytes);
  } else {
    if (cols > 256)
      return false;
    layout.boxCols = uint32_t(cols);
  }
  layout.boxRows = uint32_t(rows);
  out = layout;
  return true;
}

bool TensorMapSpec::operator==(const TensorMapSpec &o) const {
  return base == o.base && sameOperands(sizes, o.sizes) && sameOperands(strides, o.strides) &&
         box == o.box && dataType == o.dataType && elementBytes == o.elementBytes &&
         swizzleBytes == o.swizzleBytes && nanFill == o.nanFill;
}

std::string TensorMapSpec::str() const {
  std::ostringstream os;
  os << "base=" << base << " sizes=";
  printOperands(os, sizes);
  os << " strides=";
  printOperands(os, strides);
  os << " box=[";
  for (size_t i = 0; i < box.size(); ++i)
    os << (i ? "," : "") << box[i];
  os << "] type=" << dataType << " bytes=" << elementBytes << " swizzle=" << swizzleBytes
     << " fill=" << (nanFill ? "nan" : "zero");
  return os.str();
}

bool TensorMapSpec::parse(const std::string &text, TensorMapSpec &out) {
  std::stringstream ss(text);
  std::string field;
  TensorMapSpec spec;
  static const char *const keys[] = {"base", "sizes",   "strides", "box",
                                     "type", "bytes",   "swizzle", "fill"};
  unsigned seen = 0; // one bit per key: each exactly once
  while (ss >> field) {
    size_t eq = field.find('=');
    if (eq == std::string::npos)
      return false;
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    unsigned bit = 0;
    while (bit < 8 && key != keys[bit])
      ++bit;
    if (bit == 8 || (seen & (1u << bit)))
      return false;
    seen |= 1u << bit;
    int64_t v = 0;
    if (key == "base") {
      if (!parseInt(value, v) || v < 0)
        return false;
      spec.base = int(v);
    } else if (key == "sizes") {
      if (!parseOperands(value, spec.sizes))
        return false;
    } else if (key == "strides") {
      if (!parseOperands(value, spec.strides))
        return false;
    } else if (key == "box") {
      std::vector<std::string> items;
      if (!splitList(value, items))
        return false;
      for (const std::string &item : items) {
        if (!parseInt(item, v) || v <= 0 || v > 256)
          return false;
        spec.box.push_back(uint32_t(v));
      }
    } else if (key == "type") {
      if (!parseInt(value, v) || v < 0)
        return false;
      spec.dataType = unsigned(v);
    } else if (key == "bytes") {
      if (!parseInt(value, v) || v <= 0 || v > 8)
        return false;
      spec.elementBytes = unsigned(v);
    } else if (key == "swizzle") {
      if (!parseInt(value, v) || (v != 0 && v != 32 && v != 64 && v != 128))
        return false;
      spec.swizzleBytes = unsigned(v);
    } else if (key == "fill") {
      if (value != "nan" && value != "zero")
        return false;
      spec.nanFill = value == "nan";
    }
  }
  size_t rank = spec.box.size();
  if (seen != 0xffu || rank < 1 || rank > 5 || spec.sizes.size() != rank ||
      spec.strides.size() != rank)
    return false;
  out = spec;
  return true;
}

} // namespace tilec
