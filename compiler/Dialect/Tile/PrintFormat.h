// The text of tl.device_print and of a failed assertion, written once for
// the GPU (printf format strings for vprintf) and the interpreter (which
// formats the same conversions with snprintf), so that both print alike:
//
//   pid (X, Y, Z) idx (I, J)<prefix><value>
//
// as Triton prints, each index padded to the digits of its dimension.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tilec::tile::print {

/// What a printed value is, after printf's promotions.
enum class Kind { Signed, Unsigned, Float, Pointer };

/// The printf conversion of one value: `bits` is its width (1 to 64; floats
/// print through double), `hex` prints the bits zero-padded to the width's
/// hex digits ("0x%04x" for 16 bits), `width` pads a decimal index.
inline std::string conversion(Kind kind, unsigned bits, bool hex, int width = -1) {
  if (kind == Kind::Pointer)
    return "%p";
  if (hex)
    return "0x%0" + std::to_string(std::max(1u, bits / 4)) + (bits > 32 ? "ll" : "") + "x";
  std::string spec = "%" + (width > 0 ? std::to_string(width) : std::string());
  switch (kind) {
  case Kind::Float:
    return spec + "f";
  case Kind::Signed:
    return spec + (bits > 32 ? "lli" : "i");
  default:
    return spec + (bits > 32 ? "llu" : "u");
  }
}

/// Digits of the largest index of a dimension of `size` elements, as the
/// padding of its index (Triton's ceil(log10(size))).
inline int indexWidth(int64_t size) {
  return size > 0 ? int(std::ceil(std::log10(double(size)))) : 0;
}

/// `text` as literal printf format text ('%' doubled).
inline std::string literal(const std::string &text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

/// Stands for one value in the line formats below; each user fills it with
/// the value's conversion (the GPU) or its text (the interpreter).
constexpr char kValue = '\x01';

/// A user's text (a prefix, a message) for a line format: a kValue in it
/// would be read as a value, so it shows as '?'.
inline std::string userText(std::string text) {
  std::replace(text.begin(), text.end(), kValue, '?');
  return text;
}

/// "pid (X, Y, Z)": three values.
inline std::string programIdFormat() {
  return std::string("pid (") + kValue + ", " + kValue + ", " + kValue + ")";
}

/// " idx (I, J)": `rank` values, none for a scalar.
inline std::string indexFormat(size_t rank) {
  std::string out = " idx (";
  for (size_t d = 0; d < rank; ++d)
    out += d ? std::string(", ") + kValue : std::string(1, kValue);
  return out + ")";
}

/// What follows the pid and index in tl.device_print's line for operand
/// `operand` of `numOperands`: the prefix, "(operand N) " when there are
/// several, the value.
inline std::string printValueFormat(const std::string &prefix, size_t operand,
                                    size_t numOperands) {
  std::string out = userText(prefix);
  if (numOperands > 1)
    out += "(operand " + std::to_string(operand) + ") ";
  return out + kValue;
}

/// What follows the pid and index in a failed assertion's line:
/// ": MESSAGE" and, when there is anything to show, ": " and `details`
/// interleaved with its values (one value between each two pieces).
inline std::string assertFormat(const std::string &message,
                                const std::vector<std::string> &details) {
  std::string out = ": " + userText(message);
  if (details.size() > 1 || (!details.empty() && !details.front().empty()))
    out += ": ";
  for (size_t k = 0; k < details.size(); ++k)
    out += (k ? std::string(1, kValue) : std::string()) + userText(details[k]);
  return out;
}

} // namespace tilec::tile::print
