// A recursive-descent parser over the tokens of Lexer.h. Its grammar is
// Python's, less what tilec rejects; each rejected construct gets its own
// located message rather than a bare "invalid syntax".
#include "dsl/Parser.h"

#include "dsl/Lexer.h"

#include "llvm/Support/Casting.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tilec::dsl {

namespace {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

// Parentheses, unary operators, `not` and the right operands of `**` and of
// `a if c else b` make the parser recurse; 200 levels take about 250 KB of
// stack in a release build, well within any thread's.
constexpr unsigned kMaxNesting = 200;
// Chains such as `a + b + c ...`, `a.b.c` or `f()()` deepen the tree without
// recursion in the parser. The passes after it walk the tree recursively (and
// so does its destructor), so the height of an expression is capped too.
constexpr unsigned kMaxExprHeight = 1000;
// Each `elif` nests an IfStmt inside the previous one, for the same passes.
constexpr unsigned kMaxElifs = 1000;

const char *const kNestedTooDeeply = "expression nested too deeply";
const char *const kComprehensions =
    "comprehensions are not supported in tilec kernels";

// Keywords of constructs that tilec rejects wherever they appear. A statement
// that tilec lacks (`class`, `try`, ...) is parsed as an expression
// statement, so parseAtom meets all of these words.
const char *const kUnsupportedKeywords[] = {
    "class", "try",   "with",   "async", "global", "nonlocal",
    "del",   "raise", "lambda", "yield", "await",
};

// Words that can neither start a statement nor an expression.
const char *const kMisplacedKeywords[] = {
    "and", "as", "elif", "else", "except", "finally", "in", "is", "or",
};

template <size_t N>
bool isOneOf(std::string_view word, const char *const (&words)[N]) {
  return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

struct BinaryOpInfo {
  std::string_view spelling;
  BinaryOp op;
  int precedence; ///< larger binds tighter
};

// The left-associative binary operators. `**` is apart: it is
// right-associative and binds tighter than a unary minus on its left.
const BinaryOpInfo kBinaryOps[] = {
    {"|", BinaryOp::BitOr, 1},   {"^", BinaryOp::BitXor, 2},
    {"&", BinaryOp::BitAnd, 3},  {"<<", BinaryOp::LShift, 4},
    {">>", BinaryOp::RShift, 4}, {"+", BinaryOp::Add, 5},
    {"-", BinaryOp::Sub, 5},     {"*", BinaryOp::Mul, 6},
    {"/", BinaryOp::Div, 6},     {"//", BinaryOp::FloorDiv, 6},
    {"%", BinaryOp::Mod, 6},     {"@", BinaryOp::MatMul, 6},
};

const BinaryOpInfo *binaryOpAt(const Token &t) {
  if (!t.is(TokenKind::Op))
    return nullptr;
  for (const BinaryOpInfo &info : kBinaryOps)
    if (t.text == info.spelling)
      return &info;
  return nullptr;
}

struct OpSpelling {
  std::string_view spelling;
  BinaryOp op;
};

const OpSpelling kAugmentedOps[] = {
    {"+=", BinaryOp::Add},       {"-=", BinaryOp::Sub},
    {"*=", BinaryOp::Mul},       {"/=", BinaryOp::Div},
    {"//=", BinaryOp::FloorDiv}, {"%=", BinaryOp::Mod},
    {"**=", BinaryOp::Pow},      {"@=", BinaryOp::MatMul},
    {"<<=", BinaryOp::LShift},   {">>=", BinaryOp::RShift},
    {"&=", BinaryOp::BitAnd},    {"|=", BinaryOp::BitOr},
    {"^=", BinaryOp::BitXor},
};

/// Calls `f` on each direct child expression of `e`.
template <typename F> void forEachChild(const Expr &e, F f) {
  switch (e.kind) {
  case Expr::Kind::Tuple:
    for (const ExprPtr &elt : cast<TupleExpr>(e).elts)
      f(elt.get());
    break;
  case Expr::Kind::List:
    for (const ExprPtr &elt : cast<ListExpr>(e).elts)
      f(elt.get());
    break;
  case Expr::Kind::Attribute:
    f(cast<AttributeExpr>(e).value.get());
    break;
  case Expr::Kind::Call: {
    auto &call = cast<CallExpr>(e);
    f(call.func.get());
    for (const ExprPtr &arg : call.args)
      f(arg.get());
    for (const Keyword &kw : call.keywords)
      f(kw.value.get());
    break;
  }
  case Expr::Kind::Subscript: {
    auto &sub = cast<SubscriptExpr>(e);
    f(sub.value.get());
    for (const ExprPtr &index : sub.indices)
      f(index.get());
    break;
  }
  case Expr::Kind::Slice: {
    auto &slice = cast<SliceExpr>(e);
    f(slice.lower.get());
    f(slice.upper.get());
    f(slice.step.get());
    break;
  }
  case Expr::Kind::Binary:
    f(cast<BinaryExpr>(e).lhs.get());
    f(cast<BinaryExpr>(e).rhs.get());
    break;
  case Expr::Kind::Unary:
    f(cast<UnaryExpr>(e).operand.get());
    break;
  case Expr::Kind::BoolOp:
    for (const ExprPtr &value : cast<BoolOpExpr>(e).values)
      f(value.get());
    break;
  case Expr::Kind::Compare:
    for (const ExprPtr &operand : cast<CompareExpr>(e).operands)
      f(operand.get());
    break;
  case Expr::Kind::IfExp: {
    auto &ifExp = cast<IfExpExpr>(e);
    f(ifExp.cond.get());
    f(ifExp.thenValue.get());
    f(ifExp.elseValue.get());
    break;
  }
  case Expr::Kind::Name:
  case Expr::Kind::Int:
  case Expr::Kind::Float:
  case Expr::Kind::Bool:
  case Expr::Kind::None:
  case Expr::Kind::String:
    break;
  }
}

/// What an assignment target is, for "cannot assign to ...".
std::string describeTarget(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Int:
  case Expr::Kind::Float:
  case Expr::Kind::String:
    return "literal";
  case Expr::Kind::Bool:
    return cast<BoolExpr>(e).value ? "True" : "False";
  case Expr::Kind::None:
    return "None";
  case Expr::Kind::List:
    return "list";
  case Expr::Kind::Attribute:
    return "attribute";
  case Expr::Kind::Subscript:
    return "subscript";
  case Expr::Kind::Call:
    return "function call";
  case Expr::Kind::Slice:
    return "slice";
  case Expr::Kind::Compare:
    return "comparison";
  case Expr::Kind::IfExp:
    return "conditional expression";
  default:
    return "expression";
  }
}

/// A name or a (nested) tuple of names; anything else is an error at it.
void checkAssignTarget(const Expr &target) {
  if (isa<NameExpr>(target))
    return;
  if (auto *tuple = dyn_cast<TupleExpr>(&target)) {
    for (const ExprPtr &elt : tuple->elts)
      checkAssignTarget(*elt);
    return;
  }
  fail(target.loc, "cannot assign to " + describeTarget(target));
}

/// Whether `t` can start an expression: decides whether a trailing comma
/// ends a tuple and whether a slice has an upper bound or a step. It includes
/// the tokens of rejected constructs (`*`, `{`, `lambda`, ...) so that they
/// reach the parser's located error instead of a vaguer one.
bool startsExpression(const Token &t) {
  switch (t.kind) {
  case TokenKind::Name:
  case TokenKind::Int:
  case TokenKind::Float:
  case TokenKind::String:
    return true;
  case TokenKind::Keyword:
    return t.text == "not" || t.text == "True" || t.text == "False" ||
           t.text == "None" || isOneOf(t.text, kUnsupportedKeywords);
  case TokenKind::Op:
    return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" ||
           t.text == "+" || t.text == "~" || t.text == "*" || t.text == "**" ||
           t.text == "...";
  default:
    return false;
  }
}

class Parser {
public:
  explicit Parser(std::shared_ptr<SourceBuffer> source)
      : source_(std::move(source)), tokens_(tokenize(*source_)) {}

  std::unique_ptr<ModuleAST> parseModule();

private:
  /// Counts one level of parser recursion for as long as it lives.
  struct NestingGuard {
    explicit NestingGuard(Parser &parser) : parser(parser) {
      if (++parser.nesting_ > kMaxNesting)
        fail(parser.peek().loc, kNestedTooDeeply);
    }
    ~NestingGuard() { --parser.nesting_; }
    Parser &parser;
  };

  std::shared_ptr<SourceBuffer> source_;
  std::vector<Token> tokens_; ///< never empty: the last one is EOF
  size_t pos_ = 0;
  unsigned nesting_ = 0;
  /// The height of each expression of the current statement built so far
  /// (a leaf has height 1).
  std::unordered_map<const Expr *, unsigned> heights_;

  // Token access. The token vector never changes, so references into it
  // stay valid.
  const Token &peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token &take() {
    const Token &t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size())
      ++pos_;
    return t;
  }
  bool at(TokenKind kind) const { return peek().is(kind); }
  bool atOp(std::string_view op) const { return peek().isOp(op); }
  bool atKeyword(std::string_view word) const { return peek().isKeyword(word); }
  bool acceptOp(std::string_view op) {
    if (!atOp(op))
      return false;
    take();
    return true;
  }
  bool acceptKeyword(std::string_view word) {
    if (!atKeyword(word))
      return false;
    take();
    return true;
  }
  [[noreturn]] void failHere(const std::string &message) const {
    fail(peek().loc, message);
  }
  void expectOp(std::string_view op) {
    if (!acceptOp(op))
      failHere("expected '" + std::string(op) + "'");
  }
  std::string expectName(const char *message) {
    if (!at(TokenKind::Name))
      failHere(message);
    return take().text;
  }
  void expectClose(std::string_view close, const Token &open);

  /// Records the height of the finished node `e` and rejects a tree that is
  /// too tall. Every expression goes through here once its children are set.
  ExprPtr finish(ExprPtr e);
  /// At the start of a statement every expression built before is complete
  /// and will never be a child again: drop their heights to keep the map
  /// small.
  void forgetHeights() {
    if (heights_.bucket_count() > 1024)
      heights_ = {}; // clear() would keep and sweep a huge bucket array
    else
      heights_.clear();
  }

  // Statements.
  /// One module-level statement; one that does not parse is skipped, with
  /// its indented block and clauses, as an UnparsedStmt.
  void parseModuleStatement(StmtList &out);
  StmtPtr skipStatement(Diagnostic error);
  void parseStatement(StmtList &out);
  void parseSimpleStatements(StmtList &out);
  StmtPtr parseSmallStatement();
  StmtPtr parseExprOrAssign();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  std::string parseDottedName();
  StmtPtr parseDecorated();
  StmtPtr parseFunctionDef(std::vector<SourceLoc> decorators);
  void parseParams(FunctionDef &fn);
  StmtPtr parseIf();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  StmtList parseBlock(const char *after);

  // Expressions, from the loosest binding to the tightest.
  ExprPtr parseTestList();
  ExprPtr parseTargetList();
  ExprPtr parseTest();
  ExprPtr parseBoolOp(BoolOpExpr::Op op);
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseBinary(int minPrecedence = 1);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseCall(SourceLoc start, ExprPtr func);
  ExprPtr parseSubscript(SourceLoc start, ExprPtr value);
  ExprPtr parseIndex();
  ExprPtr parseAtom();
  ExprPtr parseParenthesized();
  ExprPtr parseList();
};

ExprPtr Parser::finish(ExprPtr e) {
  unsigned height = 0;
  forEachChild(*e, [&](const Expr *child) {
    if (!child)
      return;
    auto it = heights_.find(child);
    height = std::max(height, it == heights_.end() ? 1u : it->second);
  });
  ++height;
  if (height > kMaxExprHeight)
    fail(e->loc, kNestedTooDeeply);
  heights_[e.get()] = height;
  return e;
}

void Parser::expectClose(std::string_view close, const Token &open) {
  if (acceptOp(close))
    return;
  // `[x for x in xs]` and `f(x for x in xs)` stop at the `for`.
  if (atKeyword("for") || atKeyword("async"))
    failHere(kComprehensions);
  failHere("expected '" + std::string(close) + "' to close '" + open.text +
           "' at line " + std::to_string(open.loc.line));
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

std::unique_ptr<ModuleAST> Parser::parseModule() {
  auto module = std::make_unique<ModuleAST>();
  module->source = source_;
  while (!at(TokenKind::EndOfFile))
    parseModuleStatement(module->body);
  return module;
}

void Parser::parseModuleStatement(StmtList &out) {
  size_t start = pos_;
  size_t before = out.size();
  try {
    parseStatement(out);
  } catch (const CompileError &e) {
    // An indented line at module level is no statement at all.
    if (tokens_[start].is(TokenKind::Indent))
      throw;
    out.resize(before);
    pos_ = start;
    nesting_ = 0;
    out.push_back(skipStatement(e.diagnostic()));
  }
}

StmtPtr Parser::skipStatement(Diagnostic error) {
  auto stmt = std::make_unique<UnparsedStmt>(peek().loc, std::move(error));
  for (;;) {
    bool decorator = atOp("@");
    if (!decorator && stmt->name.empty()) {
      size_t def = atKeyword("async") ? 1 : 0;
      if ((peek(def).isKeyword("def") || peek(def).isKeyword("class")) &&
          peek(def + 1).is(TokenKind::Name)) {
        stmt->name = peek(def + 1).text;
        stmt->isFunction = peek(def).isKeyword("def");
      } else if (at(TokenKind::Name) && (peek(1).isOp("=") || peek(1).isOp(":"))) {
        stmt->name = peek().text;
      }
    }
    // The rest of the logical line (brackets never end one), then the
    // indented block after it.
    while (!at(TokenKind::Newline) && !at(TokenKind::EndOfFile))
      take();
    if (at(TokenKind::Newline))
      take();
    if (at(TokenKind::Indent)) {
      int depth = 0;
      do {
        if (at(TokenKind::Indent))
          ++depth;
        else if (at(TokenKind::Dedent))
          --depth;
        take();
      } while (depth > 0 && !at(TokenKind::EndOfFile));
    }
    // A decorator's statement, and the clauses of a compound one, follow.
    if (decorator || atKeyword("elif") || atKeyword("else") ||
        atKeyword("except") || atKeyword("finally"))
      continue;
    return stmt;
  }
}

void Parser::parseStatement(StmtList &out) {
  forgetHeights();
  const Token &t = peek();
  if (t.is(TokenKind::Indent))
    fail(t.loc, "unexpected indent");
  if (t.isOp("@")) {
    out.push_back(parseDecorated());
    return;
  }
  if (t.is(TokenKind::Keyword)) {
    if (t.text == "def") {
      out.push_back(parseFunctionDef({}));
      return;
    }
    if (t.text == "if") {
      out.push_back(parseIf());
      return;
    }
    if (t.text == "for") {
      out.push_back(parseFor());
      return;
    }
    if (t.text == "while") {
      out.push_back(parseWhile());
      return;
    }
    if (isOneOf(t.text, kMisplacedKeywords))
      fail(t.loc, "invalid syntax");
  }
  parseSimpleStatements(out);
}

// simple_stmt (';' simple_stmt)* [';'] NEWLINE
void Parser::parseSimpleStatements(StmtList &out) {
  for (;;) {
    out.push_back(parseSmallStatement());
    if (!acceptOp(";") || at(TokenKind::Newline))
      break;
  }
  if (!at(TokenKind::Newline))
    failHere("invalid syntax");
  take();
}

StmtPtr Parser::parseSmallStatement() {
  forgetHeights();
  const Token &t = peek();
  if (t.isKeyword("pass"))
    return std::make_unique<PassStmt>(take().loc);
  if (t.isKeyword("break"))
    return std::make_unique<BreakStmt>(take().loc);
  if (t.isKeyword("continue"))
    return std::make_unique<ContinueStmt>(take().loc);
  if (t.isKeyword("return")) {
    take();
    ExprPtr value;
    if (!at(TokenKind::Newline) && !atOp(";"))
      value = parseTestList();
    return std::make_unique<ReturnStmt>(t.loc, std::move(value));
  }
  if (t.isKeyword("assert")) {
    take();
    auto stmt = std::make_unique<AssertStmt>(t.loc);
    stmt->test = parseTest();
    if (acceptOp(","))
      stmt->msg = parseTest();
    return stmt;
  }
  if (t.isKeyword("import"))
    return parseImport();
  if (t.isKeyword("from"))
    return parseFromImport();
  return parseExprOrAssign();
}

// An expression statement, `a = b = value`, `a += value` or `a: ann = value`.
StmtPtr Parser::parseExprOrAssign() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseTestList();

  if (atOp("=")) {
    std::vector<ExprPtr> chain;
    chain.push_back(std::move(first));
    while (acceptOp("="))
      chain.push_back(parseTestList());
    auto stmt = std::make_unique<AssignStmt>(start);
    stmt->value = std::move(chain.back());
    chain.pop_back();
    for (ExprPtr &target : chain) {
      checkAssignTarget(*target);
      stmt->targets.push_back(std::move(target));
    }
    return stmt;
  }

  for (const OpSpelling &aug : kAugmentedOps) {
    if (!atOp(aug.spelling))
      continue;
    if (!isa<NameExpr>(*first))
      fail(first->loc, "augmented assignment target must be a name");
    take();
    ExprPtr value = parseTestList();
    return std::make_unique<AugAssignStmt>(start, std::move(first), aug.op,
                                           std::move(value));
  }

  if (atOp(":")) {
    if (!isa<NameExpr>(*first))
      fail(first->loc, "annotated assignment target must be a name");
    take();
    auto stmt = std::make_unique<AnnAssignStmt>(start);
    stmt->target = std::move(first);
    stmt->annotation = parseTest();
    if (acceptOp("="))
      stmt->value = parseTestList();
    return stmt;
  }

  return std::make_unique<ExprStmt>(start, std::move(first));
}

// import a.b as c, d
StmtPtr Parser::parseImport() {
  auto stmt = std::make_unique<ImportStmt>(take().loc);
  do {
    ImportStmt::Alias alias;
    alias.name = parseDottedName();
    if (acceptKeyword("as"))
      alias.asName = expectName("expected a name after 'as'");
    stmt->names.push_back(std::move(alias));
  } while (acceptOp(","));
  return stmt;
}

// from a.b import c as d, e    or    from a.b import (c, d,)
StmtPtr Parser::parseFromImport() {
  auto stmt = std::make_unique<ImportStmt>(take().loc);
  if (atOp(".") || atOp("..."))
    failHere("relative imports are not supported in tilec kernels");
  stmt->fromModule = parseDottedName();
  if (!acceptKeyword("import"))
    failHere("expected 'import'");
  if (atOp("*"))
    failHere("'import *' is not supported in tilec kernels");
  const Token &open = peek();
  bool parenthesized = acceptOp("(");
  do {
    if (parenthesized && atOp(")") && !stmt->names.empty())
      break; // a trailing comma
    ImportStmt::Alias alias;
    alias.name = expectName("expected a name to import");
    if (acceptKeyword("as"))
      alias.asName = expectName("expected a name after 'as'");
    stmt->names.push_back(std::move(alias));
  } while (acceptOp(","));
  if (parenthesized)
    expectClose(")", open);
  return stmt;
}

std::string Parser::parseDottedName() {
  std::string name = expectName("expected a module name");
  while (acceptOp("."))
    name += "." + expectName("expected a module name");
  return name;
}

// ('@' tokens NEWLINE)+ 'def' ...: a decorator is host code (it may hold
// dicts, lambdas, anything Python has), so its tokens are skipped; the
// lexer already joined the lines inside its brackets.
StmtPtr Parser::parseDecorated() {
  std::vector<SourceLoc> decorators;
  while (atOp("@")) {
    decorators.push_back(take().loc);
    if (at(TokenKind::Newline) || at(TokenKind::EndOfFile))
      failHere("expected an expression after '@'");
    while (!at(TokenKind::Newline) && !at(TokenKind::EndOfFile))
      take();
    if (!at(TokenKind::Newline))
      failHere("expected a newline after the decorator");
    take();
  }
  const Token &t = peek();
  if (t.isKeyword("def"))
    return parseFunctionDef(std::move(decorators));
  if (t.is(TokenKind::Indent))
    fail(t.loc, "unexpected indent");
  if (t.isKeyword("class") || t.isKeyword("async"))
    fail(t.loc, "'" + t.text + "' is not supported in tilec kernels");
  fail(t.loc, "expected 'def' after the decorators");
}

StmtPtr Parser::parseFunctionDef(std::vector<SourceLoc> decorators) {
  auto fn = std::make_unique<FunctionDef>(take().loc);
  fn->decorators = std::move(decorators);
  if (!at(TokenKind::Name))
    failHere("expected a function name after 'def'");
  fn->nameLoc = peek().loc;
  fn->name = take().text;
  const Token &open = peek();
  expectOp("(");
  parseParams(*fn);
  expectClose(")", open);
  if (acceptOp("->"))
    fn->returns = parseTest();
  expectOp(":");
  fn->body = parseBlock("'def'");
  return fn;
}

void Parser::parseParams(FunctionDef &fn) {
  std::unordered_set<std::string> seen;
  bool sawDefault = false;
  while (!atOp(")")) {
    const Token &t = peek();
    if (t.isOp("*")) {
      if (peek(1).isOp(",") || peek(1).isOp(")"))
        fail(t.loc, "keyword-only parameters ('*') are not supported in "
                    "tilec kernels");
      fail(t.loc, "'*args' parameters are not supported in tilec kernels");
    }
    if (t.isOp("**"))
      fail(t.loc, "'**kwargs' parameters are not supported in tilec kernels");
    if (t.isOp("/"))
      fail(t.loc, "positional-only parameters ('/') are not supported in "
                  "tilec kernels");
    if (!t.is(TokenKind::Name))
      fail(t.loc, "expected a parameter name");
    take();

    Param param;
    param.loc = t.loc;
    param.name = t.text;
    if (!seen.insert(param.name).second)
      fail(t.loc,
           "duplicate parameter '" + param.name + "' in function definition");
    if (acceptOp(":"))
      param.annotation = parseTest();
    if (acceptOp("=")) {
      param.defaultValue = parseTest();
      sawDefault = true;
    } else if (sawDefault) {
      fail(t.loc, "parameter without a default follows parameter with a "
                  "default");
    }
    fn.params.push_back(std::move(param));
    if (!acceptOp(","))
      break;
  }
}

StmtPtr Parser::parseIf() {
  auto root = std::make_unique<IfStmt>(take().loc);
  root->cond = parseTest();
  expectOp(":");
  root->body = parseBlock("'if'");

  // Each elif becomes the only statement in the orelse of the branch before.
  IfStmt *last = root.get();
  unsigned elifs = 0;
  while (atKeyword("elif")) {
    if (++elifs > kMaxElifs)
      failHere("too many 'elif' branches (at most " +
               std::to_string(kMaxElifs) + ")");
    auto branch = std::make_unique<IfStmt>(take().loc);
    branch->cond = parseTest();
    expectOp(":");
    branch->body = parseBlock("'elif'");
    IfStmt *next = branch.get();
    last->orelse.push_back(std::move(branch));
    last = next;
  }
  if (acceptKeyword("else")) {
    expectOp(":");
    last->orelse = parseBlock("'else'");
  }
  return root;
}

StmtPtr Parser::parseFor() {
  auto stmt = std::make_unique<ForStmt>(take().loc);
  stmt->target = parseTargetList();
  checkAssignTarget(*stmt->target);
  if (!acceptKeyword("in"))
    failHere("expected 'in'");
  stmt->iter = parseTestList();
  expectOp(":");
  stmt->body = parseBlock("'for'");
  if (acceptKeyword("else")) {
    expectOp(":");
    stmt->orelse = parseBlock("'else'");
  }
  return stmt;
}

StmtPtr Parser::parseWhile() {
  auto stmt = std::make_unique<WhileStmt>(take().loc);
  stmt->cond = parseTest();
  expectOp(":");
  stmt->body = parseBlock("'while'");
  if (acceptKeyword("else")) {
    expectOp(":");
    stmt->orelse = parseBlock("'else'");
  }
  return stmt;
}

// The body after a compound statement's ':': simple statements on the same
// line, or NEWLINE INDENT statement+ DEDENT.
StmtList Parser::parseBlock(const char *after) {
  StmtList body;
  if (!at(TokenKind::Newline)) {
    parseSimpleStatements(body);
    return body;
  }
  take();
  if (!at(TokenKind::Indent))
    failHere(std::string("expected an indented block after ") + after);
  take();
  while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile))
    parseStatement(body);
  if (at(TokenKind::Dedent))
    take();
  return body;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

// test (',' test)* [',']: a bare tuple when there is a comma.
ExprPtr Parser::parseTestList() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseTest();
  if (!atOp(","))
    return first;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (acceptOp(",") && startsExpression(peek()))
    elts.push_back(parseTest());
  return finish(std::make_unique<TupleExpr>(start, std::move(elts)));
}

// The target of `for`: like parseTestList, but each element stops before
// comparisons so that `in` stays for the loop.
ExprPtr Parser::parseTargetList() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseBinary();
  if (!atOp(","))
    return first;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (acceptOp(",") && startsExpression(peek()))
    elts.push_back(parseBinary());
  return finish(std::make_unique<TupleExpr>(start, std::move(elts)));
}

// or_test ['if' or_test 'else' test]
ExprPtr Parser::parseTest() {
  NestingGuard guard(*this);
  SourceLoc start = peek().loc;
  ExprPtr e = parseBoolOp(BoolOpExpr::Op::Or);
  if (acceptKeyword("if")) {
    ExprPtr cond = parseBoolOp(BoolOpExpr::Op::Or);
    if (!acceptKeyword("else"))
      failHere("expected 'else' after 'if' expression");
    ExprPtr elseValue = parseTest();
    e = finish(std::make_unique<IfExpExpr>(start, std::move(cond), std::move(e),
                                           std::move(elseValue)));
  }
  if (atOp(":="))
    failHere("':=' (assignment expression) is not supported in tilec kernels");
  return e;
}

// and_test ('or' and_test)*   and   not_test ('and' not_test)*
ExprPtr Parser::parseBoolOp(BoolOpExpr::Op op) {
  bool isOr = op == BoolOpExpr::Op::Or;
  const char *word = isOr ? "or" : "and";
  auto operand = [&] {
    return isOr ? parseBoolOp(BoolOpExpr::Op::And) : parseNot();
  };
  SourceLoc start = peek().loc;
  ExprPtr first = operand();
  if (!atKeyword(word))
    return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (acceptKeyword(word))
    values.push_back(operand());
  return finish(std::make_unique<BoolOpExpr>(start, op, std::move(values)));
}

ExprPtr Parser::parseNot() {
  if (!atKeyword("not"))
    return parseComparison();
  SourceLoc loc = take().loc;
  NestingGuard guard(*this);
  ExprPtr operand = parseNot();
  return finish(
      std::make_unique<UnaryExpr>(loc, UnaryOp::Not, std::move(operand)));
}

// expr (comp_op expr)*, kept as one chain
ExprPtr Parser::parseComparison() {
  SourceLoc start = peek().loc;
  ExprPtr first = parseBinary();
  std::unique_ptr<CompareExpr> compare;
  for (;;) {
    const Token &t = peek();
    CompareOp op;
    size_t words = 1; // `not in` and `is not` take two tokens
    if (t.isOp("<"))
      op = CompareOp::Lt;
    else if (t.isOp("<="))
      op = CompareOp::Le;
    else if (t.isOp(">"))
      op = CompareOp::Gt;
    else if (t.isOp(">="))
      op = CompareOp::Ge;
    else if (t.isOp("=="))
      op = CompareOp::Eq;
    else if (t.isOp("!="))
      op = CompareOp::Ne;
    else if (t.isKeyword("in"))
      op = CompareOp::In;
    else if (t.isKeyword("not") && peek(1).isKeyword("in"))
      op = CompareOp::NotIn, words = 2;
    else if (t.isKeyword("is") && peek(1).isKeyword("not"))
      op = CompareOp::IsNot, words = 2;
    else if (t.isKeyword("is"))
      op = CompareOp::Is;
    else
      break;
    for (; words > 0; --words)
      take();
    if (!compare)
      compare = std::make_unique<CompareExpr>(start, std::move(first));
    compare->ops.push_back(op);
    compare->opLocs.push_back(t.loc);
    compare->operands.push_back(parseBinary());
  }
  if (!compare)
    return first;
  return finish(std::move(compare));
}

// The left-associative binary operators that bind at least as tightly as
// `minPrecedence`, by precedence climbing: one call per operand rather than
// one per precedence level keeps the recursion shallow.
ExprPtr Parser::parseBinary(int minPrecedence) {
  SourceLoc start = peek().loc;
  ExprPtr lhs = parseFactor();
  for (;;) {
    const BinaryOpInfo *info = binaryOpAt(peek());
    if (!info || info->precedence < minPrecedence)
      return lhs;
    take();
    ExprPtr rhs = parseBinary(info->precedence + 1);
    lhs = finish(std::make_unique<BinaryExpr>(start, info->op, std::move(lhs),
                                              std::move(rhs)));
  }
}

// ('+' | '-' | '~') factor | power
ExprPtr Parser::parseFactor() {
  UnaryOp op;
  if (atOp("-"))
    op = UnaryOp::Neg;
  else if (atOp("+"))
    op = UnaryOp::Pos;
  else if (atOp("~"))
    op = UnaryOp::Invert;
  else
    return parsePower();
  SourceLoc loc = take().loc;
  NestingGuard guard(*this);
  ExprPtr operand = parseFactor();
  return finish(std::make_unique<UnaryExpr>(loc, op, std::move(operand)));
}

// primary ['**' factor]: right-associative, and tighter than a unary
// operator on its left (`-x**2` is `-(x**2)`) but not on its right.
ExprPtr Parser::parsePower() {
  SourceLoc start = peek().loc;
  ExprPtr base = parsePrimary();
  if (!acceptOp("**"))
    return base;
  NestingGuard guard(*this);
  ExprPtr exponent = parseFactor();
  return finish(std::make_unique<BinaryExpr>(
      start, BinaryOp::Pow, std::move(base), std::move(exponent)));
}

// atom ('.' NAME | '(' args ')' | '[' indices ']')*
ExprPtr Parser::parsePrimary() {
  SourceLoc start = peek().loc;
  ExprPtr e = parseAtom();
  for (;;) {
    if (acceptOp(".")) {
      std::string attr = expectName("expected an attribute name after '.'");
      e = finish(std::make_unique<AttributeExpr>(start, std::move(e),
                                                 std::move(attr)));
    } else if (atOp("(")) {
      e = parseCall(start, std::move(e));
    } else if (atOp("[")) {
      e = parseSubscript(start, std::move(e));
    } else {
      return e;
    }
  }
}

ExprPtr Parser::parseCall(SourceLoc start, ExprPtr func) {
  const Token &open = take();
  auto call = std::make_unique<CallExpr>(start, std::move(func));
  std::unordered_set<std::string> keywordNames;
  while (!atOp(")")) {
    const Token &t = peek();
    if (t.isOp("*"))
      fail(t.loc, "'*' argument unpacking is not supported in tilec kernels");
    if (t.isOp("**"))
      fail(t.loc, "'**' argument unpacking is not supported in tilec kernels");
    if (t.is(TokenKind::Name) && peek(1).isOp("=")) {
      take();
      take();
      Keyword kw{t.loc, t.text, parseTest()};
      if (!keywordNames.insert(kw.name).second)
        fail(t.loc, "keyword argument repeated: " + kw.name);
      call->keywords.push_back(std::move(kw));
    } else {
      ExprPtr arg = parseTest();
      if (atOp("="))
        failHere("expression cannot contain assignment, perhaps you meant "
                 "\"==\"?");
      if (!call->keywords.empty())
        fail(t.loc, "positional argument follows keyword argument");
      call->args.push_back(std::move(arg));
    }
    if (!acceptOp(","))
      break;
  }
  expectClose(")", open);
  return finish(std::move(call));
}

ExprPtr Parser::parseSubscript(SourceLoc start, ExprPtr value) {
  const Token &open = take();
  auto sub = std::make_unique<SubscriptExpr>(start, std::move(value));
  do {
    if (atOp("]") && !sub->indices.empty())
      break; // a trailing comma
    sub->indices.push_back(parseIndex());
  } while (acceptOp(","));
  expectClose("]", open);
  return finish(std::move(sub));
}

// test | [test] ':' [test] [':' [test]]
ExprPtr Parser::parseIndex() {
  SourceLoc start = peek().loc;
  ExprPtr lower;
  if (!atOp(":")) {
    lower = parseTest();
    if (!atOp(":"))
      return lower;
  }
  take();
  auto slice = std::make_unique<SliceExpr>(start);
  slice->lower = std::move(lower);
  if (startsExpression(peek()))
    slice->upper = parseTest();
  if (acceptOp(":") && startsExpression(peek()))
    slice->step = parseTest();
  return finish(std::move(slice));
}

ExprPtr Parser::parseAtom() {
  const Token &t = peek();
  switch (t.kind) {
  case TokenKind::Unsupported:
    fail(t.loc, t.text);
  case TokenKind::Name:
    take();
    return finish(std::make_unique<NameExpr>(t.loc, t.text));
  case TokenKind::Int:
    take();
    return finish(std::make_unique<IntExpr>(t.loc, t.intValue));
  case TokenKind::Float:
    take();
    return finish(std::make_unique<FloatExpr>(t.loc, t.floatValue));
  case TokenKind::String: {
    std::string value; // adjacent literals join: "a" "b" is "ab"
    while (at(TokenKind::String))
      value += take().text;
    return finish(std::make_unique<StringExpr>(t.loc, std::move(value)));
  }
  case TokenKind::Keyword:
    if (t.text == "True" || t.text == "False") {
      take();
      return finish(std::make_unique<BoolExpr>(t.loc, t.text == "True"));
    }
    if (t.text == "None") {
      take();
      return finish(std::make_unique<NoneExpr>(t.loc));
    }
    if (isOneOf(t.text, kUnsupportedKeywords))
      fail(t.loc, "'" + t.text + "' is not supported in tilec kernels");
    break;
  case TokenKind::Op:
    if (t.text == "(")
      return parseParenthesized();
    if (t.text == "[")
      return parseList();
    if (t.text == "{")
      fail(t.loc, "dict and set literals are not supported in tilec kernels");
    if (t.text == "...")
      fail(t.loc, "'...' (Ellipsis) is not supported in tilec kernels");
    if (t.text == "*" || t.text == "**")
      fail(t.loc,
           "'" + t.text + "' unpacking is not supported in tilec kernels");
    break;
  default:
    break;
  }
  fail(t.loc, "expected an expression");
}

// () | (test) | (test, test, ...)
ExprPtr Parser::parseParenthesized() {
  const Token &open = take();
  if (acceptOp(")"))
    return finish(
        std::make_unique<TupleExpr>(open.loc, std::vector<ExprPtr>{}));
  ExprPtr first = parseTest();
  if (!atOp(",")) {
    expectClose(")", open);
    return first; // parentheses only group
  }
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (acceptOp(",") && !atOp(")"))
    elts.push_back(parseTest());
  expectClose(")", open);
  return finish(std::make_unique<TupleExpr>(open.loc, std::move(elts)));
}

ExprPtr Parser::parseList() {
  const Token &open = take();
  std::vector<ExprPtr> elts;
  while (!atOp("]")) {
    elts.push_back(parseTest());
    if (!acceptOp(","))
      break;
  }
  expectClose("]", open);
  return finish(std::make_unique<ListExpr>(open.loc, std::move(elts)));
}

} // namespace

std::unique_ptr<ModuleAST> parseModule(std::shared_ptr<SourceBuffer> source) {
  return Parser(std::move(source)).parseModule();
}

} // namespace tilec::dsl
