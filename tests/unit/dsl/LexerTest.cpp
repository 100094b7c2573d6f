// Tests of the tokenizer: Python's line structure (NEWLINE, INDENT, DEDENT,
// joining), literals, operators, locations and lexical errors.
#include "dsl/Lexer.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace tilec::dsl;

namespace {

/// The tokens of `text` as one line: names, keywords and operators as
/// written, literals as `int:N`, `float:X`, `str:'...'`, and the layout
/// tokens in capitals.
std::string lex(const std::string &text) {
  SourceBuffer buffer("test.py", text);
  std::string out;
  for (const Token &t : tokenize(buffer)) {
    if (!out.empty())
      out += ' ';
    switch (t.kind) {
    case TokenKind::Name:
    case TokenKind::Keyword:
    case TokenKind::Op:
      out += t.text;
      break;
    case TokenKind::Int:
      out += "int:" + std::to_string(t.intValue);
      break;
    case TokenKind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "float:%g", t.floatValue);
      out += buf;
      break;
    }
    case TokenKind::String:
      out += "str:'" + t.text + "'";
      break;
    default:
      out += spelling(t.kind);
      break;
    }
  }
  return out;
}

/// The error that tokenizing `text` must raise.
Diagnostic lexError(const std::string &text, unsigned firstLine = 1) {
  SourceBuffer buffer("test.py", text, firstLine);
  try {
    tokenize(buffer);
  } catch (const CompileError &e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "no error for: " << text;
  return {};
}

/// A literal the language does not take lexes as one UNSUPPORTED token
/// (module-level Python may hold it), carrying the message the parser
/// reports where a kernel uses it.
#define EXPECT_UNSUPPORTED(TEXT, COL, MESSAGE)                                 \
  do {                                                                         \
    SourceBuffer buffer("test.py", TEXT);                                      \
    std::vector<Token> tokens = tokenize(buffer);                              \
    auto it = std::find_if(tokens.begin(), tokens.end(), [](const Token &t) {  \
      return t.is(TokenKind::Unsupported);                                     \
    });                                                                        \
    ASSERT_NE(it, tokens.end()) << "for: " << (TEXT);                          \
    EXPECT_EQ(it->text, MESSAGE) << "for: " << (TEXT);                         \
    EXPECT_EQ(it->loc.col, unsigned(COL)) << "for: " << (TEXT);                \
    EXPECT_TRUE(std::next(it)->is(TokenKind::Newline)) << "for: " << (TEXT);   \
  } while (0)

#define EXPECT_LEX_ERROR(TEXT, LINE, COL, MESSAGE)                             \
  do {                                                                         \
    Diagnostic d = lexError(TEXT);                                             \
    EXPECT_EQ(d.message, MESSAGE) << "for: " << (TEXT);                        \
    EXPECT_EQ(d.line, unsigned(LINE)) << "for: " << (TEXT);                    \
    EXPECT_EQ(d.col, unsigned(COL)) << "for: " << (TEXT);                      \
  } while (0)

TEST(Lexer, SimpleLine) {
  EXPECT_EQ(lex("x = 1\n"), "x = int:1 NEWLINE EOF");
  EXPECT_EQ(lex("y=x+1"), "y = x + int:1 NEWLINE EOF");
}

TEST(Lexer, EmptyAndCommentOnlySources) {
  EXPECT_EQ(lex(""), "EOF");
  EXPECT_EQ(lex("\n\n   \n"), "EOF");
  EXPECT_EQ(lex("# just a comment"), "EOF");
  EXPECT_EQ(lex("    # indented comment\n# another\n"), "EOF");
}

TEST(Lexer, IndentAndDedent) {
  EXPECT_EQ(lex("def f(x):\n"
                "    if x:\n"
                "        return 1\n"
                "    return 2\n"
                "y = 3\n"),
            "def f ( x ) : NEWLINE INDENT if x : NEWLINE INDENT return int:1 "
            "NEWLINE DEDENT return int:2 NEWLINE DEDENT y = int:3 NEWLINE EOF");
}

TEST(Lexer, SeveralDedentsAtOnceAndAtEndOfFile) {
  EXPECT_EQ(lex("if a:\n"
                "  if b:\n"
                "    c\n"
                "d\n"),
            "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT "
            "DEDENT d NEWLINE EOF");
  // Without a final newline the DEDENTs still close the file.
  EXPECT_EQ(lex("if a:\n  if b:\n    c"),
            "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT "
            "DEDENT EOF");
}

TEST(Lexer, BlankAndCommentLinesDoNotChangeIndentation) {
  EXPECT_EQ(lex("if a:\n"
                "    b\n"
                "\n"
                "        # deeper comment\n"
                "  \n"
                "# column-0 comment\n"
                "    c\n"),
            "if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT EOF");
}

TEST(Lexer, Tabs) {
  EXPECT_EQ(lex("if a:\n\tif b:\n\t\tc\n\td\n"),
            "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT d "
            "NEWLINE DEDENT EOF");
  // A tab then four spaces is deeper than a tab.
  EXPECT_EQ(lex("if a:\n\tb\n\t    c\n"),
            "if a : NEWLINE INDENT b NEWLINE INDENT c NEWLINE DEDENT DEDENT "
            "EOF");
  // Two spaces, a tab and three spaces are deeper than four spaces whatever
  // the width of a tab.
  EXPECT_EQ(lex("if a:\n    b\n  \t   c\n"),
            "if a : NEWLINE INDENT b NEWLINE INDENT c NEWLINE DEDENT DEDENT "
            "EOF");
}

TEST(Lexer, TabsAndSpacesMustAgree) {
  const char *message = "inconsistent use of tabs and spaces in indentation";
  // A tab and eight spaces are equal only if a tab is 8 columns wide.
  EXPECT_LEX_ERROR("if a:\n\tb\n        c\n", 3, 9, message);
  // A tab is deeper than four (or two) spaces only if it is wider than they
  // are.
  EXPECT_LEX_ERROR("if a:\n    b\n\tc\n", 3, 2, message);
  EXPECT_LEX_ERROR("if a:\n  if b:\n\tc\n  d\n", 3, 2, message);
}

TEST(Lexer, InconsistentDedentIsAnError) {
  EXPECT_LEX_ERROR("if a:\n    b\n  c\n", 3, 3,
                   "unindent does not match any outer indentation level");
}

TEST(Lexer, TooManyIndentationLevels) {
  std::string text;
  for (int i = 0; i < 150; ++i)
    text += std::string(i, ' ') + "if a:\n";
  Diagnostic d = lexError(text);
  EXPECT_EQ(d.message, "too many levels of indentation");
  EXPECT_EQ(d.line, 102u);
}

TEST(Lexer, ImplicitLineJoiningInsideBrackets) {
  EXPECT_EQ(lex("x = (1,\n"
                "        2)\n"
                "y = [a,\n"
                "# comment inside\n"
                "  b]\n"
                "z = {\n"
                "}\n"),
            "x = ( int:1 , int:2 ) NEWLINE y = [ a , b ] NEWLINE z = { } "
            "NEWLINE EOF");
}

TEST(Lexer, BackslashContinuation) {
  EXPECT_EQ(lex("x = 1 + \\\n        2\ny\n"),
            "x = int:1 + int:2 NEWLINE y NEWLINE EOF");
  EXPECT_EQ(lex("x = 1 + \\\r\n2\r\n"), "x = int:1 + int:2 NEWLINE EOF");
  EXPECT_LEX_ERROR("x = 1 + \\ 2\n", 1, 10,
                   "unexpected character after line continuation character");
  EXPECT_LEX_ERROR("x = \\", 1, 5,
                   "unexpected end of file after line continuation character");
}

TEST(Lexer, CarriageReturnLineFeed) {
  EXPECT_EQ(lex("if a:\r\n    b\r\n"),
            "if a : NEWLINE INDENT b NEWLINE DEDENT EOF");
}

TEST(Lexer, NamesAndKeywords) {
  EXPECT_EQ(lex("match ifx _a1 True None and not_"),
            "match ifx _a1 True None and not_ NEWLINE EOF");
  SourceBuffer buffer("t.py", "match if True x_");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].kind, TokenKind::Name); // a soft keyword stays a name
  EXPECT_EQ(tokens[1].kind, TokenKind::Keyword);
  EXPECT_EQ(tokens[2].kind, TokenKind::Keyword);
  EXPECT_EQ(tokens[3].kind, TokenKind::Name);
  EXPECT_TRUE(isKeyword("lambda"));
  EXPECT_FALSE(isKeyword("match"));
}

TEST(Lexer, IntegerLiterals) {
  EXPECT_EQ(lex("0 7 1_000_000 0x1F 0XfF 0o17 0O7 0b101 0B1_0 0x_ff 00"),
            "int:0 int:7 int:1000000 int:31 int:255 int:15 int:7 int:5 int:2 "
            "int:255 int:0 NEWLINE EOF");
  EXPECT_EQ(lex("18446744073709551615"),
            "int:18446744073709551615 NEWLINE EOF");
  EXPECT_EQ(lex("0xFFFF_FFFF_FFFF_FFFF"),
            "int:18446744073709551615 NEWLINE EOF");
}

TEST(Lexer, IntegerLiteralErrors) {
  const char *tooLarge =
      "integer literal is too large (tilec integers have 64 bits)";
  EXPECT_LEX_ERROR("x = 18446744073709551616", 1, 5, tooLarge);
  EXPECT_LEX_ERROR("x = 0x1_0000_0000_0000_0000", 1, 5, tooLarge);
  EXPECT_LEX_ERROR("x = 1_", 1, 5, "invalid decimal literal");
  EXPECT_LEX_ERROR("x = 1__0", 1, 5, "invalid decimal literal");
  EXPECT_LEX_ERROR("x = 12abc", 1, 5, "invalid decimal literal");
  EXPECT_LEX_ERROR("x = 0x", 1, 5, "invalid hexadecimal literal");
  EXPECT_LEX_ERROR("x = 0xfg", 1, 5, "invalid hexadecimal literal");
  EXPECT_LEX_ERROR("x = 0b102", 1, 9, "invalid digit '2' in binary literal");
  EXPECT_LEX_ERROR("x = 0o8", 1, 7, "invalid digit '8' in octal literal");
  EXPECT_LEX_ERROR("x = 012", 1, 5,
                   "leading zeros in decimal integer literals are not "
                   "permitted; use an 0o prefix for octal integers");
  EXPECT_UNSUPPORTED("x = 3j", 5,
                     "complex literals are not supported in tilec kernels");
}

TEST(Lexer, FloatLiterals) {
  EXPECT_EQ(lex("1.0 .5 1e-3 1_000.5 2. 1E+2 3e5 0.25e1 09.5"),
            "float:1 float:0.5 float:0.001 float:1000.5 float:2 float:100 "
            "float:300000 float:2.5 float:9.5 NEWLINE EOF");
  SourceBuffer buffer("t.py", "0.1");
  EXPECT_DOUBLE_EQ(tokenize(buffer)[0].floatValue, 0.1);
  EXPECT_LEX_ERROR("x = 1e", 1, 5, "invalid decimal literal");
  EXPECT_LEX_ERROR("x = 1.5e+", 1, 5, "invalid decimal literal");
  EXPECT_LEX_ERROR("x = 1e999", 1, 5,
                   "float literal is out of the range of a 64-bit float");
}

TEST(Lexer, AttributeOfNameIsNotAFloat) {
  EXPECT_EQ(lex("tl.arange(0, 8)"),
            "tl . arange ( int:0 , int:8 ) NEWLINE EOF");
}

TEST(Lexer, StringLiterals) {
  EXPECT_EQ(lex("'a' \"b\" '''c''' \"\"\"d\"\"\""),
            "str:'a' str:'b' str:'c' str:'d' NEWLINE EOF");
  EXPECT_EQ(lex("\"it's\" 'say \"hi\"'"),
            "str:'it's' str:'say \"hi\"' NEWLINE EOF");
  EXPECT_EQ(lex("'''x''y'''"), "str:'x''y' NEWLINE EOF");
}

TEST(Lexer, StringEscapes) {
  SourceBuffer buffer("t.py",
                      R"('a\nb\tc\\d\'e\"f\x41\x7a' '\q' '\101\0' 'a\
b' '\u00e9')");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[0].text, "a\nb\tc\\d'e\"fAz");
  EXPECT_EQ(tokens[1].text, "\\q"); // an unknown escape keeps its backslash
  EXPECT_EQ(tokens[2].text, std::string("A\0", 2));
  EXPECT_EQ(tokens[3].text, "ab"); // backslash-newline joins the lines
  EXPECT_EQ(tokens[4].text, "\xC3\xA9");
  EXPECT_LEX_ERROR("'\\x4'", 1, 2, "truncated \\xXX escape");
}

TEST(Lexer, RawAndPrefixedStrings) {
  SourceBuffer buffer("t.py", R"(r'a\nb' R"\"" u'x\n')");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].text, "a\\nb");
  EXPECT_EQ(tokens[1].text, "\\\""); // the escaped quote does not end it
  EXPECT_EQ(tokens[2].text, "x\n");
  EXPECT_EQ(tokens[0].loc.col, 1u); // the prefix is part of the token
  EXPECT_UNSUPPORTED("x = f'{y}'", 5, "f-strings are not supported in tilec kernels");
  EXPECT_UNSUPPORTED("x = Rf'{y}'", 5, "f-strings are not supported in tilec kernels");
  EXPECT_UNSUPPORTED("x = b'y'", 5, "bytes literals are not supported in tilec kernels");
}

TEST(Lexer, TripleQuotedStringSpansLines) {
  SourceBuffer buffer("t.py", "s = '''one\ntwo\n  three'''\nx\n");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[2].text, "one\ntwo\n  three");
  EXPECT_EQ(tokens[2].loc.line, 1u);
  EXPECT_EQ(tokens[3].kind, TokenKind::Newline);
  EXPECT_EQ(tokens[3].loc.line, 3u); // just after the closing quotes
  EXPECT_EQ(tokens[3].loc.col, 11u);
  EXPECT_EQ(tokens[4].text, "x");
  EXPECT_EQ(tokens[4].loc.line, 4u);
}

TEST(Lexer, UnterminatedStrings) {
  EXPECT_LEX_ERROR("x = 'abc\ny = 1\n", 1, 5, "unterminated string literal");
  EXPECT_LEX_ERROR("x = \"abc", 1, 5, "unterminated string literal");
  EXPECT_LEX_ERROR("x = 'abc\\", 1, 5, "unterminated string literal");
  EXPECT_LEX_ERROR("\n  x = \"\"\"abc\n\n", 2, 7,
                   "unterminated triple-quoted string literal");
}

TEST(Lexer, OperatorsTakeTheLongestMatch) {
  EXPECT_EQ(lex("a **= b //= c >>= d <<= e -> f := g"),
            "a **= b //= c >>= d <<= e -> f := g NEWLINE EOF");
  EXPECT_EQ(lex("a == b != c <= d >= e < f > g = h"),
            "a == b != c <= d >= e < f > g = h NEWLINE EOF");
  EXPECT_EQ(lex("a += b -= c *= d /= e %= f &= g |= h ^= i @= j"),
            "a += b -= c *= d /= e %= f &= g |= h ^= i @= j NEWLINE EOF");
  EXPECT_EQ(lex("a**b//c<<d>>e*f/g%h@i&j|k^~l"),
            "a ** b // c << d >> e * f / g % h @ i & j | k ^ ~ l NEWLINE EOF");
  EXPECT_EQ(lex("a***b"), "a ** * b NEWLINE EOF");
  EXPECT_EQ(lex("x[:, None]; y.z"), "x [ : , None ] ; y . z NEWLINE EOF");
  EXPECT_EQ(lex("a ... b"), "a ... b NEWLINE EOF");
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_LEX_ERROR("x = $y", 1, 5, "invalid character '$'");
  EXPECT_LEX_ERROR("x = a ? b", 1, 7, "invalid character '?'");
  EXPECT_LEX_ERROR("x = !a", 1, 5, "invalid character '!'");
  EXPECT_LEX_ERROR("x = `a`", 1, 5, "invalid character '`'");
  EXPECT_LEX_ERROR(std::string("x = \0", 5), 1, 5,
                   "source code cannot contain null bytes");
  EXPECT_LEX_ERROR("x = \x01", 1, 5, "invalid non-printable character U+0001");
  EXPECT_LEX_ERROR("x = \xC3\xA9", 1, 5,
                   "invalid character '\xC3\xA9' (U+00E9)");
  EXPECT_LEX_ERROR("x = \xFF", 1, 5,
                   "invalid byte 0xFF (the source is not UTF-8)");
  // Inside strings and comments any byte is fine.
  EXPECT_EQ(lex("'$?!\xC3\xA9' # $ \xFF"), "str:'$?!\xC3\xA9' NEWLINE EOF");
}

TEST(Lexer, BracketErrors) {
  EXPECT_LEX_ERROR("x = f(a,\n  [b, c\n", 2, 3, "'[' was never closed");
  EXPECT_LEX_ERROR("x = (a,\n b\n", 1, 5, "'(' was never closed");
  EXPECT_LEX_ERROR("x = (a]", 1, 7, "closing ']' does not match '('");
  EXPECT_LEX_ERROR("x = [a)", 1, 7, "closing ')' does not match '['");
  EXPECT_LEX_ERROR("x = a)\n", 1, 6, "unmatched ')'");
}

TEST(Lexer, Locations) {
  SourceBuffer buffer("t.py", "def f():\n    return  a+1\n", 40);
  std::vector<Token> tokens = tokenize(buffer);
  // def f ( ) : NEWLINE INDENT return a + 1 NEWLINE DEDENT EOF
  ASSERT_EQ(tokens.size(), 14u);
  EXPECT_EQ(tokens[0].loc.line, 40u);
  EXPECT_EQ(tokens[0].loc.col, 1u);
  EXPECT_EQ(tokens[1].loc.col, 5u);
  EXPECT_EQ(tokens[0].loc.buffer, &buffer);
  EXPECT_EQ(tokens[5].kind, TokenKind::Newline);
  EXPECT_EQ(tokens[5].loc.line, 40u);
  EXPECT_EQ(tokens[5].loc.col, 9u); // just after ':'
  EXPECT_EQ(tokens[6].kind, TokenKind::Indent);
  EXPECT_EQ(tokens[6].loc.line, 41u);
  EXPECT_EQ(tokens[6].loc.col, 5u);
  EXPECT_EQ(tokens[8].text, "a");
  EXPECT_EQ(tokens[8].loc.line, 41u);
  EXPECT_EQ(tokens[8].loc.col, 13u);
  EXPECT_EQ(tokens[10].loc.col, 15u);
  // The closing tokens sit just after the last token of the file.
  EXPECT_EQ(tokens[12].kind, TokenKind::Dedent);
  EXPECT_EQ(tokens[13].kind, TokenKind::EndOfFile);
  EXPECT_EQ(tokens[13].loc.line, 41u);
  EXPECT_EQ(tokens[13].loc.col, 16u);
}

TEST(Lexer, NewlineSitsBeforeATrailingComment) {
  SourceBuffer buffer("t.py", "x = 1   # note\n");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_EQ(tokens[3].kind, TokenKind::Newline);
  EXPECT_EQ(tokens[3].loc.col, 6u);
}

TEST(Lexer, ColumnsCountBytes) {
  SourceBuffer buffer("t.py", "s = '\xC3\xA9\xC3\xA9' + t");
  std::vector<Token> tokens = tokenize(buffer);
  ASSERT_GE(tokens.size(), 5u);
  EXPECT_EQ(tokens[4].text, "t");
  EXPECT_EQ(tokens[4].loc.col, 14u);
}

TEST(Lexer, ErrorLocationHonoursFirstLine) {
  Diagnostic d = lexError("x = 1\ny = $\n", 40);
  EXPECT_EQ(d.line, 41u);
  EXPECT_EQ(d.col, 5u);
  EXPECT_EQ(d.sourceLine, "y = $");
  EXPECT_EQ(d.render(), "test.py:41:5: error: invalid character '$'\n"
                        "y = $\n"
                        "    ^\n");
}

TEST(Lexer, TokenKindSpellings) {
  EXPECT_STREQ(spelling(TokenKind::Indent), "INDENT");
  EXPECT_STREQ(spelling(TokenKind::EndOfFile), "EOF");
  EXPECT_STREQ(spelling(TokenKind::Name), "NAME");
}

} // namespace
