#include "dsl/Lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <utility>

namespace tilec::dsl {

namespace {

// Python caps indentation at 100 levels as well; the cap also bounds how
// deeply the parser recurses into nested blocks.
constexpr size_t kMaxIndentLevels = 100;

constexpr std::string_view kKeywords[] = {
    "False",  "None",   "True",    "and",      "as",       "assert", "async",
    "await",  "break",  "class",   "continue", "def",      "del",    "elif",
    "else",   "except", "finally", "for",      "from",     "global", "if",
    "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
    "pass",   "raise",  "return",  "try",      "while",    "with",   "yield",
};

// Longest first: the first entry that matches is the longest match.
constexpr std::string_view kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "+=",
    "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", "@=", "**", "//", "<<", ">>",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ";",  ".",  "=",
};

// The escapes that stand for one character: \n is a line feed, ...
constexpr std::pair<char, char> kSimpleEscapes[] = {
    {'\\', '\\'}, {'\'', '\''}, {'"', '"'},  {'n', '\n'}, {'t', '\t'},
    {'r', '\r'},  {'a', '\a'},  {'b', '\b'}, {'f', '\f'}, {'v', '\v'},
};

const char *const kTooLarge =
    "integer literal is too large (tilec integers have 64 bits)";

bool isDigit(int c) { return c >= '0' && c <= '9'; }
bool isIdentStart(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(int c) { return isIdentStart(c) || isDigit(c); }

/// The value of `c` as a digit in `base`, or -1.
int digitValue(int c, int base) {
  int v = -1;
  if (isDigit(c))
    v = c - '0';
  else if (c >= 'a' && c <= 'f')
    v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F')
    v = c - 'A' + 10;
  return v < base ? v : -1;
}

std::string hex(unsigned value, int width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", width, value);
  return buf;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Lexer {
public:
  explicit Lexer(const SourceBuffer &source)
      : source_(source), text_(source.text()) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n')
        lineStarts_.push_back(i + 1);
  }

  std::vector<Token> run();

private:
  /// The indentation of a line: `col` counts a tab up to the next multiple
  /// of 8, `altCol` counts it as 1.
  struct Indentation {
    unsigned col = 0, altCol = 0;
  };
  struct OpenBracket {
    char c;
    SourceLoc loc;
  };

  const SourceBuffer &source_;
  const std::string &text_;
  size_t pos_ = 0;
  std::vector<size_t> lineStarts_;
  std::vector<Indentation> indents_{Indentation{}};
  std::vector<OpenBracket> brackets_;
  std::vector<Token> tokens_;
  size_t lastTokenEnd_ = 0;    ///< offset just past the last real token
  bool lineHasTokens_ = false; ///< the logical line so far holds a token

  SourceLoc locAt(size_t offset) const {
    size_t index =
        std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset) -
        lineStarts_.begin() - 1;
    return {&source_, unsigned(source_.firstLine() + index),
            unsigned(offset - lineStarts_[index] + 1)};
  }
  /// The byte at `i`, or -1 past the end (NUL is a byte like any other).
  int at(size_t i) const {
    return i < text_.size() ? (unsigned char)text_[i] : -1;
  }
  bool atEnd() const { return pos_ >= text_.size(); }
  /// The length of the line break starting at `i`: 1 for "\n", 2 for "\r\n".
  size_t lineBreakAt(size_t i) const {
    if (at(i) == '\n')
      return 1;
    return at(i) == '\r' && at(i + 1) == '\n' ? 2 : 0;
  }
  /// Spaces, tabs, form feeds and a '\r' that does not end a line.
  bool isBlank(size_t i) const {
    int c = at(i);
    return c == ' ' || c == '\t' || c == '\f' ||
           (c == '\r' && at(i + 1) != '\n');
  }

  Token &push(TokenKind kind, SourceLoc loc, std::string text = {}) {
    tokens_.push_back(Token{kind, std::move(text), loc});
    return tokens_.back();
  }
  /// A token of the source text from `begin` to pos_.
  Token &pushReal(TokenKind kind, size_t begin, std::string text = {}) {
    lastTokenEnd_ = pos_;
    lineHasTokens_ = true;
    return push(kind, locAt(begin), std::move(text));
  }
  void endLogicalLine() {
    if (lineHasTokens_)
      push(TokenKind::Newline, locAt(lastTokenEnd_));
    lineHasTokens_ = false;
  }

  void lexIndentation();
  void lexNameOrString();
  void lexNumber();
  void lexString(size_t begin, bool raw);
  void lexEscape(std::string &value, bool raw);
  void lexOperator();
  [[noreturn]] void invalidCharacter(size_t offset);
};

std::vector<Token> Lexer::run() {
  bool lineStart = true;
  for (;;) {
    if (lineStart && brackets_.empty())
      lexIndentation();
    lineStart = false;
    while (isBlank(pos_))
      ++pos_;
    if (atEnd())
      break;
    int c = at(pos_);
    if (c == '#') {
      while (!atEnd() && at(pos_) != '\n')
        ++pos_;
      continue;
    }
    if (size_t n = lineBreakAt(pos_)) {
      pos_ += n;
      // Inside brackets a line break joins lines, as in Python.
      if (brackets_.empty()) {
        endLogicalLine();
        lineStart = true;
      }
      continue;
    }
    if (c == '\\') {
      if (size_t n = lineBreakAt(pos_ + 1)) {
        pos_ += 1 + n; // explicit line joining: no NEWLINE, no indentation
        continue;
      }
      if (pos_ + 1 >= text_.size())
        fail(locAt(pos_), "unexpected end of file after line continuation "
                          "character");
      fail(locAt(pos_ + 1),
           "unexpected character after line continuation character");
    }
    if (isIdentStart(c))
      lexNameOrString();
    else if (isDigit(c) || (c == '.' && isDigit(at(pos_ + 1))))
      lexNumber();
    else if (c == '"' || c == '\'')
      lexString(pos_, /*raw=*/false);
    else
      lexOperator();
  }

  if (!brackets_.empty()) {
    const OpenBracket &open = brackets_.back();
    fail(open.loc, std::string("'") + open.c + "' was never closed");
  }
  endLogicalLine();
  SourceLoc end = locAt(lastTokenEnd_);
  for (; indents_.size() > 1; indents_.pop_back())
    push(TokenKind::Dedent, end);
  push(TokenKind::EndOfFile, end);
  return std::move(tokens_);
}

// At the start of a line outside brackets: skip the lines that hold no
// token (blank or comment only), then compare the indentation of the next
// line with the stack of open levels.
void Lexer::lexIndentation() {
  Indentation indent;
  for (;;) {
    indent = {};
    for (; isBlank(pos_); ++pos_) {
      int c = at(pos_);
      if (c == ' ') {
        ++indent.col;
        ++indent.altCol;
      } else if (c == '\t') {
        indent.col = (indent.col / 8 + 1) * 8;
        ++indent.altCol;
      } else if (c == '\f') {
        indent = {}; // Python resets the count at a form feed
      }
    }
    if (atEnd())
      return;
    if (at(pos_) == '#')
      while (!atEnd() && at(pos_) != '\n')
        ++pos_;
    size_t n = lineBreakAt(pos_);
    if (n == 0) {
      if (atEnd())
        return;
      break;
    }
    pos_ += n;
  }

  // As in Python, an indentation must compare with the open levels the same
  // way whether a tab counts 8 columns or 1: otherwise its meaning depends on
  // the editor's tab width.
  const char *const inconsistent =
      "inconsistent use of tabs and spaces in indentation";
  SourceLoc loc = locAt(pos_);
  if (indent.col > indents_.back().col) {
    if (indent.altCol <= indents_.back().altCol)
      fail(loc, inconsistent);
    if (indents_.size() > kMaxIndentLevels)
      fail(loc, "too many levels of indentation");
    indents_.push_back(indent);
    push(TokenKind::Indent, loc);
    return;
  }
  for (; indent.col < indents_.back().col; indents_.pop_back())
    push(TokenKind::Dedent, loc);
  if (indent.col != indents_.back().col)
    fail(loc, "unindent does not match any outer indentation level");
  if (indent.altCol != indents_.back().altCol)
    fail(loc, inconsistent);
}

void Lexer::lexNameOrString() {
  size_t begin = pos_;
  while (isIdentChar(at(pos_)))
    ++pos_;
  std::string word = text_.substr(begin, pos_ - begin);

  int next = at(pos_);
  if ((next == '"' || next == '\'') && word.size() <= 2) {
    std::string prefix;
    for (char c : word)
      prefix += char(c | 0x20); // lower case: prefixes are case-insensitive
    if (prefix == "r" || prefix == "u")
      return lexString(begin, /*raw=*/prefix == "r");
    bool fString = prefix == "f" || prefix == "fr" || prefix == "rf";
    bool bytes = prefix == "b" || prefix == "br" || prefix == "rb";
    if (fString || bytes) {
      lexString(begin, /*raw=*/prefix.find('r') != std::string::npos);
      Token &t = tokens_.back();
      t.kind = TokenKind::Unsupported;
      t.text = fString ? "f-strings are not supported in tilec kernels"
                       : "bytes literals are not supported in tilec kernels";
      return;
    }
  }
  TokenKind kind = isKeyword(word) ? TokenKind::Keyword : TokenKind::Name;
  pushReal(kind, begin, std::move(word));
}

void Lexer::lexNumber() {
  size_t begin = pos_;
  SourceLoc loc = locAt(begin);

  int prefix = at(pos_ + 1) | 0x20;
  if (at(pos_) == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
    int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
    std::string name = base == 16  ? "hexadecimal"
                       : base == 8 ? "octal"
                                   : "binary";
    pos_ += 2;
    uint64_t value = 0;
    bool anyDigit = false;
    for (;; ++pos_) {
      int c = at(pos_);
      if (c == '_' && digitValue(at(pos_ + 1), base) >= 0)
        continue; // one '_' may precede each digit, the first one included
      int d = digitValue(c, base);
      if (d < 0)
        break;
      if (value > (UINT64_MAX - uint64_t(d)) / uint64_t(base))
        fail(loc, kTooLarge);
      value = value * base + d;
      anyDigit = true;
    }
    if (isDigit(at(pos_)))
      fail(locAt(pos_), std::string("invalid digit '") + char(at(pos_)) +
                            "' in " + name + " literal");
    if (!anyDigit || isIdentChar(at(pos_)))
      fail(loc, "invalid " + name + " literal");
    pushReal(TokenKind::Int, begin).intValue = value;
    return;
  }

  // Decimal digits, with single underscores between them.
  auto digitPart = [&] {
    if (!isDigit(at(pos_)))
      return false;
    for (;;) {
      while (isDigit(at(pos_)))
        ++pos_;
      if (at(pos_) != '_')
        return true;
      if (!isDigit(at(pos_ + 1)))
        fail(loc, "invalid decimal literal");
      ++pos_;
    }
  };
  bool isFloat = false;
  digitPart();
  if (at(pos_) == '.') {
    isFloat = true;
    ++pos_;
    if (at(pos_) == '_')
      fail(loc, "invalid decimal literal");
    digitPart();
  }
  if ((at(pos_) | 0x20) == 'e') {
    isFloat = true;
    ++pos_;
    if (at(pos_) == '+' || at(pos_) == '-')
      ++pos_;
    if (!digitPart())
      fail(loc, "invalid decimal literal");
  }
  if ((at(pos_) | 0x20) == 'j') {
    ++pos_;
    pushReal(TokenKind::Unsupported, begin,
             "complex literals are not supported in tilec kernels");
    return;
  }
  if (isIdentChar(at(pos_)))
    fail(loc, "invalid decimal literal");

  std::string digits;
  for (size_t i = begin; i < pos_; ++i)
    if (text_[i] != '_')
      digits += text_[i];

  if (isFloat) {
    double value = 0;
    auto result =
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (result.ec != std::errc() || result.ptr != digits.data() + digits.size())
      fail(loc, "float literal is out of the range of a 64-bit float");
    pushReal(TokenKind::Float, begin).floatValue = value;
    return;
  }
  if (digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos)
    fail(loc, "leading zeros in decimal integer literals are not permitted; "
              "use an 0o prefix for octal integers");
  uint64_t value = 0;
  for (char c : digits) {
    uint64_t d = c - '0';
    if (value > (UINT64_MAX - d) / 10)
      fail(loc, kTooLarge);
    value = value * 10 + d;
  }
  pushReal(TokenKind::Int, begin).intValue = value;
}

// pos_ is at the opening quote; `begin` is where the prefix (if any) starts.
void Lexer::lexString(size_t begin, bool raw) {
  char quote = text_[pos_];
  bool triple = at(pos_ + 1) == quote && at(pos_ + 2) == quote;
  size_t quoteLen = triple ? 3 : 1;
  const char *unterminated = triple
                                 ? "unterminated triple-quoted string literal"
                                 : "unterminated string literal";
  pos_ += quoteLen;
  std::string value;
  for (;;) {
    if (atEnd())
      fail(locAt(begin), unterminated);
    int c = at(pos_);
    if (c == quote &&
        (!triple || (at(pos_ + 1) == quote && at(pos_ + 2) == quote))) {
      pos_ += quoteLen;
      break;
    }
    if (size_t n = lineBreakAt(pos_)) {
      if (!triple)
        fail(locAt(begin), unterminated);
      value += '\n'; // "\r\n" reads as "\n", as Python reads source text
      pos_ += n;
      continue;
    }
    if (c == '\\') {
      lexEscape(value, raw);
      continue;
    }
    value += char(c);
    ++pos_;
  }
  pushReal(TokenKind::String, begin, std::move(value));
}

// pos_ is at a backslash inside a string literal.
void Lexer::lexEscape(std::string &value, bool raw) {
  size_t backslash = pos_++;
  if (atEnd()) {
    value += '\\'; // the caller then reports the unterminated literal
    return;
  }
  if (size_t n = lineBreakAt(pos_)) {
    pos_ += n;
    // A backslash before a line break joins the lines; a raw literal keeps
    // both characters.
    if (raw)
      value += "\\\n";
    return;
  }
  int c = at(pos_);
  if (raw) {
    // Even in a raw literal the backslash stops the next character from
    // ending the literal; both stay in the value.
    value += '\\';
    value += char(c);
    ++pos_;
    return;
  }

  auto readHex = [&](int count, const char *what) {
    uint32_t cp = 0;
    for (int i = 0; i < count; ++i, ++pos_) {
      int d = digitValue(at(pos_), 16);
      if (d < 0)
        fail(locAt(backslash), std::string("truncated ") + what + " escape");
      cp = cp * 16 + d;
    }
    return cp;
  };

  ++pos_;
  for (auto [letter, meaning] : kSimpleEscapes) {
    if (c == letter) {
      value += meaning;
      return;
    }
  }
  if (c == 'x')
    return appendUtf8(value, readHex(2, "\\xXX"));
  if (c == 'u' || c == 'U') {
    uint32_t cp = c == 'u' ? readHex(4, "\\uXXXX") : readHex(8, "\\UXXXXXXXX");
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      fail(locAt(backslash), "invalid Unicode code point in escape");
    return appendUtf8(value, cp);
  }
  if (c == 'N')
    fail(locAt(backslash),
         "'\\N{...}' escapes are not supported in tilec kernels");
  if (c >= '0' && c <= '7') {
    uint32_t cp = c - '0';
    for (int i = 0; i < 2 && digitValue(at(pos_), 8) >= 0; ++i, ++pos_)
      cp = cp * 8 + (at(pos_) - '0');
    appendUtf8(value, cp);
    return;
  }
  // An unknown escape keeps its backslash, as in Python.
  value += '\\';
  --pos_;
}

void Lexer::lexOperator() {
  size_t begin = pos_;
  for (std::string_view op : kOperators) {
    size_t n = op.size();
    if (op[0] != text_[pos_] || text_.compare(pos_, n, op) != 0)
      continue;
    pos_ += n;
    SourceLoc loc = locAt(begin);
    char c = op[0];
    if (n == 1 && (c == '(' || c == '[' || c == '{')) {
      brackets_.push_back({c, loc});
    } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
      if (brackets_.empty())
        fail(loc, std::string("unmatched '") + c + "'");
      char open = brackets_.back().c;
      char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != expected)
        fail(loc,
             std::string("closing '") + c + "' does not match '" + open + "'");
      brackets_.pop_back();
    }
    pushReal(TokenKind::Op, begin, std::string(op));
    return;
  }
  invalidCharacter(begin);
}

void Lexer::invalidCharacter(size_t offset) {
  SourceLoc loc = locAt(offset);
  unsigned c = at(offset);
  if (c == 0)
    fail(loc, "source code cannot contain null bytes");
  if (c > 0x20 && c < 0x7F)
    fail(loc, std::string("invalid character '") + char(c) + "'");
  if (c < 0x80)
    fail(loc, "invalid non-printable character U+" + hex(c, 4));

  // Decode the UTF-8 sequence so the message can show the character.
  int length = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (c >= 0xF8)
    length = 0;
  uint32_t cp = length == 4 ? c & 0x07 : length == 3 ? c & 0x0F : c & 0x1F;
  for (int i = 1; i < length; ++i) {
    int next = at(offset + i);
    if (next < 0 || (next & 0xC0) != 0x80) {
      length = 0;
      break;
    }
    cp = (cp << 6) | (next & 0x3F);
  }
  if (length == 0)
    fail(loc, "invalid byte 0x" + hex(c, 2) + " (the source is not UTF-8)");
  fail(loc, "invalid character '" + text_.substr(offset, length) + "' (U+" +
                hex(cp, 4) + ")");
}

} // namespace

const char *spelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::Name:
    return "NAME";
  case TokenKind::Keyword:
    return "KEYWORD";
  case TokenKind::Int:
    return "INT";
  case TokenKind::Float:
    return "FLOAT";
  case TokenKind::String:
    return "STRING";
  case TokenKind::Unsupported:
    return "UNSUPPORTED";
  case TokenKind::Op:
    return "OP";
  case TokenKind::Newline:
    return "NEWLINE";
  case TokenKind::Indent:
    return "INDENT";
  case TokenKind::Dedent:
    return "DEDENT";
  case TokenKind::EndOfFile:
    return "EOF";
  }
  return "?";
}

bool isKeyword(std::string_view word) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), word) !=
         std::end(kKeywords);
}

std::vector<Token> tokenize(const SourceBuffer &source) {
  return Lexer(source).run();
}

} // namespace tilec::dsl
