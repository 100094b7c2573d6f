// The tokenizer of tilec kernel sources. It follows Python's lexical rules:
// a logical line ends in NEWLINE, changes of indentation become INDENT and
// DEDENT, and line breaks inside (), [] and {} or after a backslash join
// physical lines into one logical line.
#pragma once

#include "dsl/Diagnostics.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::dsl {

enum class TokenKind {
  Name,      ///< identifier (soft keywords such as `match` are names)
  Keyword,   ///< a reserved word of Python, True/False/None included
  Int,       ///< integer literal; value in Token::intValue
  Float,     ///< float literal; value in Token::floatValue
  String,    ///< string literal; Token::text holds the decoded value
  Op,        ///< operator or delimiter; Token::text holds its spelling
  Newline,   ///< end of a logical line
  Indent,    ///< the indentation grew
  Dedent,    ///< the indentation went back one level
  EndOfFile, ///< always the last token
  /// A literal of Python the language does not take (an f-string, bytes,
  /// a complex number): Token::text holds the message the parser reports
  /// if a kernel uses it. Module-level Python around the kernels may.
  Unsupported,
};

/// A readable name for `kind` ("NAME", "INDENT", ...), for messages and tests.
const char *spelling(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  /// Names and keywords: the word; Op: its spelling ("**=", "("); String: the
  /// decoded value. Empty for the other kinds.
  std::string text;
  /// Where the token starts. NEWLINE sits just after the last token of its
  /// line, and so do the DEDENTs and the EOF that close the file, so an error
  /// reported at them quotes the line that is left unfinished.
  SourceLoc loc;
  uint64_t intValue = 0;
  double floatValue = 0;

  bool is(TokenKind k) const { return kind == k; }
  bool isOp(std::string_view op) const {
    return kind == TokenKind::Op && text == op;
  }
  bool isKeyword(std::string_view word) const {
    return kind == TokenKind::Keyword && text == word;
  }
};

/// True for the reserved words of Python 3 (not the soft keywords).
bool isKeyword(std::string_view word);

/// Tokenize all of `source`. The result ends with EOF, preceded by a NEWLINE
/// when the last line holds tokens, and by the DEDENTs that close every open
/// indentation level. Throws CompileError on the first lexical error.
/// `source` must outlive the tokens: their locations point to it.
std::vector<Token> tokenize(const SourceBuffer &source);

} // namespace tilec::dsl
