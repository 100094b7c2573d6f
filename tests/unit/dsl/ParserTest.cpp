// Tests of the parser: precedence, statements, whole kernels, locations, the
// located errors for unsupported Python and for syntax errors, and
// robustness against arbitrary input.
#include "dsl/Parser.h"

#include "llvm/Support/Casting.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

using namespace tilec::dsl;
using llvm::cast;
using llvm::dyn_cast;

namespace {

//===----------------------------------------------------------------------===//
// Helpers: a compact S-expression rendering of the tree
//===----------------------------------------------------------------------===//

std::string dump(const Expr *e);

std::string dumpList(const char *head, const std::vector<ExprPtr> &elts) {
  std::string out = std::string("(") + head;
  for (const ExprPtr &elt : elts)
    out += " " + dump(elt.get());
  return out + ")";
}

std::string dump(const Expr *e) {
  if (!e)
    return "_";
  switch (e->kind) {
  case Expr::Kind::Name:
    return cast<NameExpr>(e)->id;
  case Expr::Kind::Int:
    return std::to_string(cast<IntExpr>(e)->value);
  case Expr::Kind::Float: {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", cast<FloatExpr>(e)->value);
    return buf;
  }
  case Expr::Kind::Bool:
    return cast<BoolExpr>(e)->value ? "True" : "False";
  case Expr::Kind::None:
    return "None";
  case Expr::Kind::String:
    return "'" + cast<StringExpr>(e)->value + "'";
  case Expr::Kind::Tuple:
    return dumpList("tuple", cast<TupleExpr>(e)->elts);
  case Expr::Kind::List:
    return dumpList("list", cast<ListExpr>(e)->elts);
  case Expr::Kind::Attribute: {
    auto *a = cast<AttributeExpr>(e);
    return "(. " + dump(a->value.get()) + " " + a->attr + ")";
  }
  case Expr::Kind::Call: {
    auto *c = cast<CallExpr>(e);
    std::string out = "(call " + dump(c->func.get());
    for (const ExprPtr &arg : c->args)
      out += " " + dump(arg.get());
    for (const Keyword &kw : c->keywords)
      out += " " + kw.name + "=" + dump(kw.value.get());
    return out + ")";
  }
  case Expr::Kind::Subscript: {
    auto *s = cast<SubscriptExpr>(e);
    std::string out = "(sub " + dump(s->value.get());
    for (const ExprPtr &index : s->indices)
      out += " " + dump(index.get());
    return out + ")";
  }
  case Expr::Kind::Slice: {
    auto *s = cast<SliceExpr>(e);
    return "(slice " + dump(s->lower.get()) + " " + dump(s->upper.get()) + " " +
           dump(s->step.get()) + ")";
  }
  case Expr::Kind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    return std::string("(") + spelling(b->op) + " " + dump(b->lhs.get()) + " " +
           dump(b->rhs.get()) + ")";
  }
  case Expr::Kind::Unary: {
    auto *u = cast<UnaryExpr>(e);
    return std::string("(") + spelling(u->op) + " " + dump(u->operand.get()) +
           ")";
  }
  case Expr::Kind::BoolOp: {
    auto *b = cast<BoolOpExpr>(e);
    return dumpList(b->op == BoolOpExpr::Op::And ? "and" : "or", b->values);
  }
  case Expr::Kind::Compare: {
    auto *c = cast<CompareExpr>(e);
    std::string out = "(cmp " + dump(c->operands[0].get());
    for (size_t i = 0; i < c->ops.size(); ++i)
      out += std::string(" ") + spelling(c->ops[i]) + " " +
             dump(c->operands[i + 1].get());
    return out + ")";
  }
  case Expr::Kind::IfExp: {
    auto *i = cast<IfExpExpr>(e);
    return "(ifexp " + dump(i->cond.get()) + " " + dump(i->thenValue.get()) +
           " " + dump(i->elseValue.get()) + ")";
  }
  }
  return "?";
}

std::string dump(const Stmt *s);

std::string dump(const StmtList &body) {
  std::string out = "[";
  for (const StmtPtr &s : body)
    out += (out.size() > 1 ? "; " : "") + dump(s.get());
  return out + "]";
}

std::string dump(const Stmt *s) {
  switch (s->kind) {
  case Stmt::Kind::Expr:
    return dump(cast<ExprStmt>(s)->value.get());
  case Stmt::Kind::Assign: {
    auto *a = cast<AssignStmt>(s);
    std::string out = "(=";
    for (const ExprPtr &t : a->targets)
      out += " " + dump(t.get());
    return out + " " + dump(a->value.get()) + ")";
  }
  case Stmt::Kind::AugAssign: {
    auto *a = cast<AugAssignStmt>(s);
    return std::string("(") + spelling(a->op) + "= " + dump(a->target.get()) +
           " " + dump(a->value.get()) + ")";
  }
  case Stmt::Kind::AnnAssign: {
    auto *a = cast<AnnAssignStmt>(s);
    std::string out =
        "(: " + dump(a->target.get()) + " " + dump(a->annotation.get());
    if (a->value)
      out += " " + dump(a->value.get());
    return out + ")";
  }
  case Stmt::Kind::If: {
    auto *i = cast<IfStmt>(s);
    return "(if " + dump(i->cond.get()) + " " + dump(i->body) + " " +
           dump(i->orelse) + ")";
  }
  case Stmt::Kind::For: {
    auto *f = cast<ForStmt>(s);
    return "(for " + dump(f->target.get()) + " " + dump(f->iter.get()) + " " +
           dump(f->body) + " " + dump(f->orelse) + ")";
  }
  case Stmt::Kind::While: {
    auto *w = cast<WhileStmt>(s);
    return "(while " + dump(w->cond.get()) + " " + dump(w->body) + " " +
           dump(w->orelse) + ")";
  }
  case Stmt::Kind::Return: {
    auto *r = cast<ReturnStmt>(s);
    return r->value ? "(return " + dump(r->value.get()) + ")" : "(return)";
  }
  case Stmt::Kind::Pass:
    return "pass";
  case Stmt::Kind::Break:
    return "break";
  case Stmt::Kind::Continue:
    return "continue";
  case Stmt::Kind::Assert: {
    auto *a = cast<AssertStmt>(s);
    std::string out = "(assert " + dump(a->test.get());
    if (a->msg)
      out += " " + dump(a->msg.get());
    return out + ")";
  }
  case Stmt::Kind::FunctionDef: {
    auto *f = cast<FunctionDef>(s);
    std::string out = "(def " + f->name;
    for (const SourceLoc &d : f->decorators)
      out += " @" + std::to_string(d.line);
    out += " (";
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param &p = f->params[i];
      out += (i ? " " : "") + p.name;
      if (p.annotation)
        out += ":" + dump(p.annotation.get());
      if (p.defaultValue)
        out += "=" + dump(p.defaultValue.get());
    }
    out += ")";
    if (f->returns)
      out += " -> " + dump(f->returns.get());
    return out + " " + dump(f->body) + ")";
  }
  case Stmt::Kind::Import: {
    auto *i = cast<ImportStmt>(s);
    std::string out = i->fromModule.empty()
                          ? "(import "
                          : "(from " + i->fromModule + " import ";
    for (size_t n = 0; n < i->names.size(); ++n) {
      out += (n ? ", " : "") + i->names[n].name;
      if (!i->names[n].asName.empty())
        out += " as " + i->names[n].asName;
    }
    return out + ")";
  }
  }
  return "?";
}

std::unique_ptr<ModuleAST> parse(const std::string &text,
                                 unsigned firstLine = 1) {
  return parseModule(
      std::make_shared<SourceBuffer>("test.py", text, firstLine));
}

/// The statements of `text`, rendered and joined by "; ".
std::string stmts(const std::string &text) {
  std::unique_ptr<ModuleAST> module = parse(text);
  std::string out = dump(module->body);
  return out.substr(1, out.size() - 2);
}

/// The rendering of `text` parsed as one expression statement.
std::string expr(const std::string &text) {
  std::unique_ptr<ModuleAST> module = parse(text + "\n");
  if (module->body.size() != 1 || !llvm::isa<ExprStmt>(*module->body[0])) {
    ADD_FAILURE() << "not a single expression: " << text;
    return "";
  }
  return dump(module->body[0].get());
}

/// The error that parsing `text` must raise.
/// The first error of `text`: one that stops the parse, or that of the
/// first module-level statement skipped as unparsed.
Diagnostic parseError(const std::string &text, unsigned firstLine = 1) {
  try {
    std::unique_ptr<ModuleAST> module = parse(text, firstLine);
    for (const StmtPtr &s : module->body)
      if (auto *u = llvm::dyn_cast<UnparsedStmt>(s.get()))
        return u->error;
  } catch (const CompileError &e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "no error for: " << text;
  return {};
}

#define EXPECT_PARSE_ERROR(TEXT, LINE, COL, MESSAGE)                           \
  do {                                                                         \
    Diagnostic d = parseError(TEXT);                                           \
    EXPECT_EQ(d.message, MESSAGE) << "for: " << (TEXT);                        \
    EXPECT_EQ(d.line, unsigned(LINE)) << "for: " << (TEXT);                    \
    EXPECT_EQ(d.col, unsigned(COL)) << "for: " << (TEXT);                      \
  } while (0)

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

//===----------------------------------------------------------------------===//
// Precedence and associativity
//===----------------------------------------------------------------------===//

TEST(ParserPrecedence, Arithmetic) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a // b % c @ d / e"), "(/ (@ (% (// a b) c) d) e)");
  EXPECT_EQ(expr("a * b + c * d"), "(+ (* a b) (* c d))");
}

TEST(ParserPrecedence, PowerAndUnary) {
  EXPECT_EQ(expr("-x**2"), "(- (** x 2))");
  EXPECT_EQ(expr("a**b**c"), "(** a (** b c))");
  EXPECT_EQ(expr("2**-1"), "(** 2 (- 1))");
  EXPECT_EQ(expr("-a * b"), "(* (- a) b)");
  EXPECT_EQ(expr("- - a"), "(- (- a))");
  EXPECT_EQ(expr("+a"), "(+ a)");
  EXPECT_EQ(expr("~a & b"), "(& (~ a) b)");
  EXPECT_EQ(expr("a.b**c.d"), "(** (. a b) (. c d))");
}

TEST(ParserPrecedence, BitwiseAndShifts) {
  EXPECT_EQ(expr("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
  EXPECT_EQ(expr("a & b | c & d"), "(| (& a b) (& c d))");
}

TEST(ParserPrecedence, ComparisonsChain) {
  EXPECT_EQ(expr("a < b < c"), "(cmp a < b < c)");
  EXPECT_EQ(expr("a != b >= c > d <= e == f"),
            "(cmp a != b >= c > d <= e == f)");
  EXPECT_EQ(expr("a is not b"), "(cmp a is not b)");
  EXPECT_EQ(expr("a not in b"), "(cmp a not in b)");
  EXPECT_EQ(expr("a in b is c"), "(cmp a in b is c)");
  EXPECT_EQ(expr("a + 1 < b | c"), "(cmp (+ a 1) < (| b c))");
}

TEST(ParserPrecedence, BooleanOperators) {
  EXPECT_EQ(expr("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(expr("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(expr("a and b and c"), "(and a b c)");
  EXPECT_EQ(expr("a or b or c and d"), "(or a b (and c d))");
  EXPECT_EQ(expr("not a and b"), "(and (not a) b)");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
}

TEST(ParserPrecedence, ConditionalExpressionIsLowest) {
  EXPECT_EQ(expr("x if c else y"), "(ifexp c x y)");
  EXPECT_EQ(expr("x if c else y if d else z"), "(ifexp c x (ifexp d y z))");
  EXPECT_EQ(expr("a + b if c or d else e"), "(ifexp (or c d) (+ a b) e)");
  EXPECT_EQ(expr("f(a if b else c)"), "(call f (ifexp b a c))");
}

//===----------------------------------------------------------------------===//
// Primaries and atoms
//===----------------------------------------------------------------------===//

TEST(ParserPrimary, CallsWithKeywordArguments) {
  EXPECT_EQ(expr("tl.load(ptr + offs, mask=m, other=0.0)"),
            "(call (. tl load) (+ ptr offs) mask=m other=0)");
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(a,)"), "(call f a)");
  EXPECT_EQ(expr("f(a, b=1,)"), "(call f a b=1)");
  EXPECT_EQ(expr("f(\n  a,\n  b=1,\n)"), "(call f a b=1)");
  EXPECT_EQ(expr("f(x)(y)"), "(call (call f x) y)");
  EXPECT_EQ(expr("f(a == b)"), "(call f (cmp a == b))");
}

TEST(ParserPrimary, Subscripts) {
  EXPECT_EQ(expr("x[:, None]"), "(sub x (slice _ _ _) None)");
  EXPECT_EQ(expr("x[None, :]"), "(sub x None (slice _ _ _))");
  EXPECT_EQ(expr("x[1:2:3]"), "(sub x (slice 1 2 3))");
  EXPECT_EQ(expr("x[::2]"), "(sub x (slice _ _ 2))");
  EXPECT_EQ(expr("x[::]"), "(sub x (slice _ _ _))");
  EXPECT_EQ(expr("x[a:]"), "(sub x (slice a _ _))");
  EXPECT_EQ(expr("x[:b]"), "(sub x (slice _ b _))");
  EXPECT_EQ(expr("x[a,]"), "(sub x a)");
  EXPECT_EQ(expr("x[i][j]"), "(sub (sub x i) j)");
  EXPECT_EQ(expr("x[i + 1, j * 2]"), "(sub x (+ i 1) (* j 2))");
}

TEST(ParserPrimary, TrailerChains) {
  EXPECT_EQ(expr("a.b.c(d)[e].f"), "(. (sub (call (. (. a b) c) d) e) f)");
}

TEST(ParserAtoms, TuplesListsAndParentheses) {
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a, b)"), "(tuple a b)");
  EXPECT_EQ(expr("(a, b,)"), "(tuple a b)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("((a))"), "a");
  EXPECT_EQ(expr("[]"), "(list)");
  EXPECT_EQ(expr("[a, b,]"), "(list a b)");
  EXPECT_EQ(expr("[[1], (2,)]"), "(list (list 1) (tuple 2))");
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("a,"), "(tuple a)");
}

TEST(ParserAtoms, Literals) {
  EXPECT_EQ(expr("True, False, None"), "(tuple True False None)");
  EXPECT_EQ(expr("1.5e3"), "1500");
  EXPECT_EQ(expr("0x10"), "16");
  EXPECT_EQ(expr("'a' 'b' \"c\""), "'abc'");
  EXPECT_EQ(expr("('a'\n 'b')"), "'ab'");
  std::unique_ptr<ModuleAST> m = parse("18446744073709551615\n");
  auto *value = cast<ExprStmt>(m->body[0].get())->value.get();
  EXPECT_EQ(cast<IntExpr>(value)->value, UINT64_MAX);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST(ParserStatements, Assignments) {
  EXPECT_EQ(stmts("x = 1, 2\n"), "(= x (tuple 1 2))");
  EXPECT_EQ(stmts("a = b = 1\n"), "(= a b 1)");
  EXPECT_EQ(stmts("a, b = f(x)\n"), "(= (tuple a b) (call f x))");
  EXPECT_EQ(stmts("(a, b) = c, d\n"), "(= (tuple a b) (tuple c d))");
  EXPECT_EQ(stmts("a, (b, c) = t\n"), "(= (tuple a (tuple b c)) t)");
  EXPECT_EQ(stmts("a, b, = t\n"), "(= (tuple a b) t)");
}

TEST(ParserStatements, AugmentedAssignments) {
  EXPECT_EQ(stmts("x += 1\n"), "(+= x 1)");
  EXPECT_EQ(stmts("x -= 1; x *= 2; x /= 3; x //= 4; x %= 5; x **= 6\n"),
            "(-= x 1); (*= x 2); (/= x 3); (//= x 4); (%= x 5); (**= x 6)");
  EXPECT_EQ(stmts("x @= y; x <<= 1; x >>= 2; x &= 3; x |= 4; x ^= 5\n"),
            "(@= x y); (<<= x 1); (>>= x 2); (&= x 3); (|= x 4); (^= x 5)");
  EXPECT_EQ(stmts("acc += tl.dot(a, b)\n"), "(+= acc (call (. tl dot) a b))");
}

TEST(ParserStatements, AnnotatedAssignments) {
  EXPECT_EQ(stmts("x: int = 5\n"), "(: x int 5)");
  EXPECT_EQ(stmts("x: tl.tensor\n"), "(: x (. tl tensor))");
  EXPECT_EQ(stmts("x: tl.constexpr = 1, 2\n"),
            "(: x (. tl constexpr) (tuple 1 2))");
}

TEST(ParserStatements, ElifChainsNest) {
  EXPECT_EQ(stmts("if a:\n"
                  "    x = 1\n"
                  "elif b:\n"
                  "    x = 2\n"
                  "elif c:\n"
                  "    x = 3\n"
                  "else:\n"
                  "    x = 4\n"),
            "(if a [(= x 1)] [(if b [(= x 2)] [(if c [(= x 3)] [(= x 4)])])])");
  EXPECT_EQ(stmts("if a:\n    pass\n"), "(if a [pass] [])");
  EXPECT_EQ(stmts("if a:\n    pass\nelse:\n    pass\n"),
            "(if a [pass] [pass])");
}

TEST(ParserStatements, Loops) {
  EXPECT_EQ(stmts("for i in range(0, n, 2):\n"
                  "    acc += i\n"
                  "else:\n"
                  "    pass\n"),
            "(for i (call range 0 n 2) [(+= acc i)] [pass])");
  EXPECT_EQ(stmts("for a, b in pairs:\n    pass\n"),
            "(for (tuple a b) pairs [pass] [])");
  EXPECT_EQ(stmts("for (a, b) in x, y:\n    pass\n"),
            "(for (tuple a b) (tuple x y) [pass] [])");
  EXPECT_EQ(stmts("while i < n:\n"
                  "    i += 1\n"
                  "    if i == 3: break\n"
                  "    continue\n"
                  "else:\n"
                  "    pass\n"),
            "(while (cmp i < n) [(+= i 1); (if (cmp i == 3) [break] []); "
            "continue] [pass])");
}

TEST(ParserStatements, ReturnPassAssert) {
  EXPECT_EQ(stmts("def f():\n"
                  "    return\n"
                  "    return a, b\n"
                  "    return (a)\n"
                  "    pass\n"),
            "(def f () [(return); (return (tuple a b)); (return a); pass])");
  EXPECT_EQ(stmts("assert x > 0, 'msg'\nassert x\n"),
            "(assert (cmp x > 0) 'msg'); (assert x)");
}

TEST(ParserStatements, Imports) {
  EXPECT_EQ(stmts("import a.b as c, d\n"), "(import a.b as c, d)");
  EXPECT_EQ(stmts("import triton\nimport triton.language as tl\n"),
            "(import triton); (import triton.language as tl)");
  EXPECT_EQ(stmts("from a.b import c as d, e\n"),
            "(from a.b import c as d, e)");
  EXPECT_EQ(stmts("from x import (a,\n    b,)\n"), "(from x import a, b)");
}

TEST(ParserStatements, SemicolonsAndOneLineBodies) {
  EXPECT_EQ(stmts("x = 1; y = 2;\n"), "(= x 1); (= y 2)");
  EXPECT_EQ(stmts("if x: y = 1; z = 2\n"), "(if x [(= y 1); (= z 2)] [])");
  EXPECT_EQ(stmts("for i in r: pass\nwhile x: x -= 1\n"),
            "(for i r [pass] []); (while x [(-= x 1)] [])");
  EXPECT_EQ(stmts("def f(): return 1\n"), "(def f () [(return 1)])");
  EXPECT_EQ(stmts("if a: pass\nelif b: pass\nelse: pass\n"),
            "(if a [pass] [(if b [pass] [pass])])");
}

TEST(ParserStatements, Docstrings) {
  std::unique_ptr<ModuleAST> m =
      parse("'''Module doc.'''\ndef f():\n    \"\"\"Doc.\"\"\"\n    pass\n");
  ASSERT_EQ(m->body.size(), 2u);
  auto *fn = cast<FunctionDef>(m->body[1].get());
  ASSERT_EQ(fn->body.size(), 2u);
  auto *doc = dyn_cast<ExprStmt>(fn->body[0].get());
  ASSERT_NE(doc, nullptr);
  auto *text = dyn_cast<StringExpr>(doc->value.get());
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->value, "Doc.");
}

TEST(ParserStatements, DecoratorsParametersAndReturnAnnotation) {
  EXPECT_EQ(stmts("@tilec.jit(noinline=False)\n"
                  "@jit\n"
                  "def f(x: tl.constexpr, y=3, BLOCK: tl.constexpr = 1024,) "
                  "-> None:\n"
                  "    pass\n"),
            "(def f @1 @2 "
            "(x:(. tl constexpr) y=3 BLOCK:(. tl constexpr)=1024) -> None "
            "[pass])");
  EXPECT_EQ(stmts("@triton.jit\ndef g():\n    pass\n"),
            "(def g @1 () [pass])");
}

TEST(ParserStatements, NestedBlocksAndBlankLines) {
  EXPECT_EQ(stmts("def f(n):\n"
                  "    # comment\n"
                  "\n"
                  "    for i in range(n):\n"
                  "        if i:\n"
                  "            x = i\n"
                  "\n"
                  "        else:\n"
                  "            x = 0\n"
                  "    return x\n"
                  "y = f(3)\n"),
            "(def f (n) [(for i (call range n) [(if i [(= x i)] [(= x 0)])] "
            "[]); (return x)]); (= y (call f 3))");
}

TEST(ParserStatements, EmptyAndCommentOnlySources) {
  EXPECT_TRUE(parse("")->body.empty());
  EXPECT_TRUE(parse("# only a comment\n\n   # another\n")->body.empty());
  std::unique_ptr<ModuleAST> m = parse("x\n");
  EXPECT_EQ(m->source->path(), "test.py");
}

//===----------------------------------------------------------------------===//
// Whole kernels
//===----------------------------------------------------------------------===//

const char *const kVectorAdd = R"(import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
)";

TEST(ParserKernels, VectorAdd) {
  std::unique_ptr<ModuleAST> m = parse(kVectorAdd);
  ASSERT_EQ(m->body.size(), 3u);
  auto *fn = dyn_cast<FunctionDef>(m->body[2].get());
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->name, "add_kernel");
  ASSERT_EQ(fn->decorators.size(), 1u);
  EXPECT_EQ(fn->decorators[0].line, fn->loc.line - 1);
  ASSERT_EQ(fn->params.size(), 5u);
  EXPECT_EQ(fn->params[0].name, "x_ptr");
  EXPECT_EQ(fn->params[0].annotation, nullptr);
  EXPECT_EQ(fn->params[4].name, "BLOCK_SIZE");
  EXPECT_EQ(dump(fn->params[4].annotation.get()), "(. tl constexpr)");
  EXPECT_EQ(dump(fn->body),
            "[(= pid (call (. tl program_id) axis=0)); "
            "(= block_start (* pid BLOCK_SIZE)); "
            "(= offsets (+ block_start (call (. tl arange) 0 BLOCK_SIZE))); "
            "(= mask (cmp offsets < n_elements)); "
            "(= x (call (. tl load) (+ x_ptr offsets) mask=mask)); "
            "(= y (call (. tl load) (+ y_ptr offsets) mask=mask)); "
            "(= output (+ x y)); "
            "(call (. tl store) (+ output_ptr offsets) output mask=mask)]");
  // Locations: `def` stands on line 6, the store call on line 14.
  EXPECT_EQ(fn->loc.line, 6u);
  EXPECT_EQ(fn->loc.col, 1u);
  EXPECT_EQ(fn->nameLoc.col, 5u);
  EXPECT_EQ(fn->params[4].loc.col, 54u);
  EXPECT_EQ(fn->body[7]->loc.line, 14u);
  EXPECT_EQ(fn->body[7]->loc.col, 5u);
}

const char *const kMatrixAdd = R"(@tilec.jit
def matrix_add(a_ptr, b_ptr, c_ptr, M, N, stride_m, stride_n,
               BLOCK_M: tl.constexpr = 64, BLOCK_N: tl.constexpr = 64):
    """Adds two M x N matrices."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offsets = offs_m[:, None] * stride_m + offs_n[None, :] * stride_n
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0)
    tl.store(c_ptr + offsets, a + b, mask=mask)
)";

TEST(ParserKernels, MatrixAdd2D) {
  std::unique_ptr<ModuleAST> m = parse(kMatrixAdd);
  ASSERT_EQ(m->body.size(), 1u);
  auto *fn = cast<FunctionDef>(m->body[0].get());
  ASSERT_EQ(fn->params.size(), 9u);
  EXPECT_EQ(fn->params[7].name, "BLOCK_M");
  EXPECT_EQ(fn->params[7].loc.line, 3u);
  EXPECT_EQ(fn->params[7].loc.col, 16u);
  EXPECT_EQ(dump(fn->params[8].defaultValue.get()), "64");
  ASSERT_EQ(fn->body.size(), 10u);
  EXPECT_EQ(dump(fn->body[0].get()), "'Adds two M x N matrices.'");
  EXPECT_EQ(dump(fn->body[5].get()),
            "(= offsets (+ (* (sub offs_m (slice _ _ _) None) stride_m) "
            "(* (sub offs_n None (slice _ _ _)) stride_n)))");
  EXPECT_EQ(dump(fn->body[6].get()),
            "(= mask (& (cmp (sub offs_m (slice _ _ _) None) < M) "
            "(cmp (sub offs_n None (slice _ _ _)) < N)))");
  EXPECT_EQ(dump(fn->body[9].get()),
            "(call (. tl store) (+ c_ptr offsets) (+ a b) mask=mask)");
}

TEST(ParserKernels, LoopKernelWithControlFlow) {
  std::unique_ptr<ModuleAST> m = parse(R"(
@tilec.jit
def reduce(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ACT: tl.constexpr = "relu"):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if ACT == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACT == "neg":
        acc = -acc
    tl.store(out_ptr, tl.sum(acc, axis=0))
)");
  auto *fn = cast<FunctionDef>(m->body[0].get());
  EXPECT_EQ(fn->loc.line, 3u);
  EXPECT_EQ(dump(fn->body),
            "[(= acc (call (. tl zeros) (tuple BLOCK) dtype=(. tl float32))); "
            "(for start (call range 0 n BLOCK) "
            "[(= offs (+ start (call (. tl arange) 0 BLOCK))); "
            "(+= acc (call (. tl load) (+ x_ptr offs) mask=(cmp offs < n) "
            "other=0))] []); "
            "(if (cmp ACT == 'relu') [(= acc (call (. tl maximum) acc 0))] "
            "[(if (cmp ACT == 'neg') [(= acc (- acc))] [])]); "
            "(call (. tl store) out_ptr (call (. tl sum) acc axis=0))]");
}

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

TEST(ParserLocations, ExpressionsStartAtTheirFirstToken) {
  std::unique_ptr<ModuleAST> m = parse("x = a + b * c\ny = (a + b) * c\n");
  auto *first = cast<AssignStmt>(m->body[0].get());
  EXPECT_EQ(first->loc.line, 1u);
  EXPECT_EQ(first->loc.col, 1u);
  auto *sum = cast<BinaryExpr>(first->value.get());
  EXPECT_EQ(sum->loc.col, 5u);
  EXPECT_EQ(sum->rhs->loc.col, 9u);
  EXPECT_EQ(cast<BinaryExpr>(sum->rhs.get())->rhs->loc.col, 13u);

  auto *second = cast<AssignStmt>(m->body[1].get());
  auto *product = cast<BinaryExpr>(second->value.get());
  EXPECT_EQ(product->loc.line, 2u);
  EXPECT_EQ(product->loc.col, 5u); // at the '(' that starts it
  EXPECT_EQ(product->lhs->loc.col, 6u);
}

TEST(ParserLocations, CompareOperatorsCallsAndSlices) {
  std::unique_ptr<ModuleAST> m =
      parse("a < b  <= c\nf  (k=1)\nx[:, lo:hi]\nt = a, b\n");
  auto *cmp = cast<CompareExpr>(cast<ExprStmt>(m->body[0].get())->value.get());
  ASSERT_EQ(cmp->opLocs.size(), 2u);
  EXPECT_EQ(cmp->opLocs[0].col, 3u);
  EXPECT_EQ(cmp->opLocs[1].col, 8u);

  auto *call = cast<CallExpr>(cast<ExprStmt>(m->body[1].get())->value.get());
  EXPECT_EQ(call->loc.col, 1u);
  ASSERT_EQ(call->keywords.size(), 1u);
  EXPECT_EQ(call->keywords[0].loc.line, 2u);
  EXPECT_EQ(call->keywords[0].loc.col, 5u);

  auto *sub =
      cast<SubscriptExpr>(cast<ExprStmt>(m->body[2].get())->value.get());
  ASSERT_EQ(sub->indices.size(), 2u);
  EXPECT_EQ(sub->indices[0]->loc.col, 3u);
  EXPECT_EQ(sub->indices[1]->loc.col, 6u);

  auto *tuple = cast<AssignStmt>(m->body[3].get())->value.get();
  EXPECT_EQ(tuple->kind, Expr::Kind::Tuple);
  EXPECT_EQ(tuple->loc.col, 5u);
}

TEST(ParserLocations, ElifSitsAtItsKeyword) {
  std::unique_ptr<ModuleAST> m = parse("if a:\n    pass\nelif b:\n    pass\n");
  auto *outer = cast<IfStmt>(m->body[0].get());
  ASSERT_EQ(outer->orelse.size(), 1u);
  auto *inner = cast<IfStmt>(outer->orelse[0].get());
  EXPECT_EQ(inner->loc.line, 3u);
  EXPECT_EQ(inner->loc.col, 1u);
  EXPECT_EQ(inner->cond->loc.col, 6u);
}

TEST(ParserLocations, FirstLineOffset) {
  std::unique_ptr<ModuleAST> m =
      parse("@jit\ndef f(x):\n    return x + 1\n", 40);
  auto *fn = cast<FunctionDef>(m->body[0].get());
  EXPECT_EQ(fn->decorators[0].line, 40u);
  EXPECT_EQ(fn->loc.line, 41u);
  EXPECT_EQ(fn->params[0].loc.line, 41u);
  EXPECT_EQ(fn->params[0].loc.col, 7u);
  EXPECT_EQ(fn->body[0]->loc.line, 42u);
  EXPECT_EQ(cast<ReturnStmt>(fn->body[0].get())->value->loc.col, 12u);

  Diagnostic d = parseError("@jit\ndef f(x):\n    return x +\n", 40);
  EXPECT_EQ(d.message, "expected an expression");
  EXPECT_EQ(d.line, 42u);
  EXPECT_EQ(d.col, 15u);
  EXPECT_EQ(d.render(), "test.py:42:15: error: expected an expression\n"
                        "    return x +\n"
                        "              ^\n");
}

//===----------------------------------------------------------------------===//
// Unsupported Python
//===----------------------------------------------------------------------===//

TEST(ParserUnsupported, Keywords) {
  EXPECT_PARSE_ERROR("class A:\n    pass\n", 1, 1,
                     "'class' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("f = lambda x: x\n", 1, 5,
                     "'lambda' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("try:\n    pass\nexcept E:\n    pass\n", 1, 1,
                     "'try' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("with open(f) as g:\n    pass\n", 1, 1,
                     "'with' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("def f():\n    global x\n", 2, 5,
                     "'global' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("def f():\n    nonlocal x\n", 2, 5,
                     "'nonlocal' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("del x\n", 1, 1,
                     "'del' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("def f():\n    yield x\n", 2, 5,
                     "'yield' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = yield\n", 1, 5,
                     "'yield' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = await y\n", 1, 5,
                     "'await' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("async def f():\n    pass\n", 1, 1,
                     "'async' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = 1\nraise ValueError('x')\n", 2, 1,
                     "'raise' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = 1; class A: pass\n", 1, 8,
                     "'class' is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("@jit\nclass A:\n    pass\n", 2, 1,
                     "'class' is not supported in tilec kernels");
}

TEST(ParserUnsupported, MatchIsAName) {
  EXPECT_EQ(stmts("match = 1\nmatch(x)\n"), "(= match 1); (call match x)");
}

TEST(ParserUnsupported, Walrus) {
  EXPECT_PARSE_ERROR("if (n := 10) > 5:\n    pass\n", 1, 7,
                     "':=' (assignment expression) is not supported in "
                     "tilec kernels");
  EXPECT_PARSE_ERROR("x := 1\n", 1, 3,
                     "':=' (assignment expression) is not supported in "
                     "tilec kernels");
}

TEST(ParserUnsupported, Comprehensions) {
  const char *message = "comprehensions are not supported in tilec kernels";
  EXPECT_PARSE_ERROR("x = [i for i in y]\n", 1, 8, message);
  EXPECT_PARSE_ERROR("x = [i * 2 if i else 0 for i in y]\n", 1, 24, message);
  EXPECT_PARSE_ERROR("x = (i for i in y)\n", 1, 8, message);
  EXPECT_PARSE_ERROR("s = sum(i for i in y)\n", 1, 11, message);
  EXPECT_PARSE_ERROR("s = f(a, i for i in y)\n", 1, 12, message);
}

TEST(ParserUnsupported, DictAndSetLiterals) {
  const char *message =
      "dict and set literals are not supported in tilec kernels";
  EXPECT_PARSE_ERROR("x = {}\n", 1, 5, message);
  EXPECT_PARSE_ERROR("x = {1: 2}\n", 1, 5, message);
  EXPECT_PARSE_ERROR("x = f(a, {1, 2})\n", 1, 10, message);
  EXPECT_PARSE_ERROR("x = {i for i in y}\n", 1, 5, message);
}

TEST(ParserUnsupported, StarredArgumentsAndParameters) {
  EXPECT_PARSE_ERROR(
      "f(*a)\n", 1, 3,
      "'*' argument unpacking is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("f(x, **kw)\n", 1, 6,
                     "'**' argument unpacking is not supported in tilec "
                     "kernels");
  EXPECT_PARSE_ERROR("def f(*args):\n    pass\n", 1, 7,
                     "'*args' parameters are not supported in tilec kernels");
  EXPECT_PARSE_ERROR("def f(a, **kw):\n    pass\n", 1, 10,
                     "'**kwargs' parameters are not supported in tilec "
                     "kernels");
  EXPECT_PARSE_ERROR("def f(a, *, b):\n    pass\n", 1, 10,
                     "keyword-only parameters ('*') are not supported in "
                     "tilec kernels");
  EXPECT_PARSE_ERROR("def f(a, /):\n    pass\n", 1, 10,
                     "positional-only parameters ('/') are not supported in "
                     "tilec kernels");
  EXPECT_PARSE_ERROR("a, *b = c\n", 1, 4,
                     "'*' unpacking is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = [*a]\n", 1, 6,
                     "'*' unpacking is not supported in tilec kernels");
}

TEST(ParserUnsupported, EllipsisAndImports) {
  EXPECT_PARSE_ERROR("x = ...\n", 1, 5,
                     "'...' (Ellipsis) is not supported in tilec kernels");
  EXPECT_PARSE_ERROR("from . import x\n", 1, 6,
                     "relative imports are not supported in tilec kernels");
  EXPECT_PARSE_ERROR("from a import *\n", 1, 15,
                     "'import *' is not supported in tilec kernels");
}

//===----------------------------------------------------------------------===//
// Syntax errors
//===----------------------------------------------------------------------===//

TEST(ParserErrors, MissingColonAndIndentedBlocks) {
  EXPECT_PARSE_ERROR("if x\n    pass\n", 1, 5, "expected ':'");
  EXPECT_PARSE_ERROR("def f()\n    pass\n", 1, 8, "expected ':'");
  EXPECT_PARSE_ERROR("for i in r pass\n", 1, 12, "expected ':'");
  EXPECT_PARSE_ERROR("if x:\npass\n", 2, 1,
                     "expected an indented block after 'if'");
  EXPECT_PARSE_ERROR("if x:\n", 1, 6, "expected an indented block after 'if'");
  EXPECT_PARSE_ERROR("def f():\n# nothing\n", 1, 9,
                     "expected an indented block after 'def'");
  EXPECT_PARSE_ERROR("for i in x:\ny\n", 2, 1,
                     "expected an indented block after 'for'");
  EXPECT_PARSE_ERROR("while x:\n", 1, 9,
                     "expected an indented block after 'while'");
  EXPECT_PARSE_ERROR("if a:\n    pass\nelif b:\nx = 1\n", 4, 1,
                     "expected an indented block after 'elif'");
  EXPECT_PARSE_ERROR("if a:\n    pass\nelse:\nx = 1\n", 4, 1,
                     "expected an indented block after 'else'");
  EXPECT_PARSE_ERROR("def f():\n    if a:\n    return\n", 3, 5,
                     "expected an indented block after 'if'");
}

TEST(ParserErrors, UnexpectedIndent) {
  EXPECT_PARSE_ERROR("  x = 1\n", 1, 3, "unexpected indent");
  EXPECT_PARSE_ERROR("x = 1\n    y = 2\n", 2, 5, "unexpected indent");
  EXPECT_PARSE_ERROR("def f():\n    x = 1\n        y = 2\n", 3, 9,
                     "unexpected indent");
  EXPECT_PARSE_ERROR("@jit\n    def f():\n        pass\n", 2, 5,
                     "unexpected indent");
}

TEST(ParserErrors, MissingExpressions) {
  EXPECT_PARSE_ERROR("x = \n", 1, 4, "expected an expression");
  EXPECT_PARSE_ERROR("x = 1 +\n", 1, 8, "expected an expression");
  EXPECT_PARSE_ERROR("x = = 1\n", 1, 5, "expected an expression");
  EXPECT_PARSE_ERROR("x = (1 + )\n", 1, 10, "expected an expression");
  EXPECT_PARSE_ERROR("x = a[]\n", 1, 7, "expected an expression");
  EXPECT_PARSE_ERROR("x = if\n", 1, 5, "expected an expression");
  EXPECT_PARSE_ERROR("x = a if b\n", 1, 11,
                     "expected 'else' after 'if' expression");
}

TEST(ParserErrors, InvalidSyntax) {
  EXPECT_PARSE_ERROR("x = 1 2\n", 1, 7, "invalid syntax");
  EXPECT_PARSE_ERROR("else:\n    pass\n", 1, 1, "invalid syntax");
  EXPECT_PARSE_ERROR("print 'x'\n", 1, 7, "invalid syntax");
}

TEST(ParserErrors, UnclosedBrackets) {
  EXPECT_PARSE_ERROR("f(a b)\n", 1, 5, "expected ')' to close '(' at line 1");
  EXPECT_PARSE_ERROR("x = [1,\n 2 3]\n", 2, 4,
                     "expected ']' to close '[' at line 1");
  EXPECT_PARSE_ERROR("x = a[1\n  2]\n", 2, 3,
                     "expected ']' to close '[' at line 1");
  EXPECT_PARSE_ERROR("x = (a b)\n", 1, 8,
                     "expected ')' to close '(' at line 1");
  EXPECT_PARSE_ERROR("def f(a b):\n    pass\n", 1, 9,
                     "expected ')' to close '(' at line 1");
  // The lexer reports a bracket still open at the end of the file.
  EXPECT_PARSE_ERROR("x = f(a,\n", 1, 6, "'(' was never closed");
}

TEST(ParserErrors, CallArguments) {
  EXPECT_PARSE_ERROR("x = f(a=1, b)\n", 1, 12,
                     "positional argument follows keyword argument");
  EXPECT_PARSE_ERROR("f(a=1, a=2)\n", 1, 8, "keyword argument repeated: a");
  EXPECT_PARSE_ERROR("f(a.b=1)\n", 1, 6,
                     "expression cannot contain assignment, perhaps you "
                     "meant \"==\"?");
}

TEST(ParserErrors, AssignmentTargets) {
  EXPECT_PARSE_ERROR("x.a = 1\n", 1, 1, "cannot assign to attribute");
  EXPECT_PARSE_ERROR("x[0] = 1\n", 1, 1, "cannot assign to subscript");
  EXPECT_PARSE_ERROR("f() = 1\n", 1, 1, "cannot assign to function call");
  EXPECT_PARSE_ERROR("1 = x\n", 1, 1, "cannot assign to literal");
  EXPECT_PARSE_ERROR("'s' = x\n", 1, 1, "cannot assign to literal");
  EXPECT_PARSE_ERROR("None = 1\n", 1, 1, "cannot assign to None");
  EXPECT_PARSE_ERROR("True = 1\n", 1, 1, "cannot assign to True");
  EXPECT_PARSE_ERROR("a + b = c\n", 1, 1, "cannot assign to expression");
  EXPECT_PARSE_ERROR("a < b = c\n", 1, 1, "cannot assign to comparison");
  EXPECT_PARSE_ERROR("[a, b] = c\n", 1, 1, "cannot assign to list");
  EXPECT_PARSE_ERROR("a, b[0] = c\n", 1, 4, "cannot assign to subscript");
  EXPECT_PARSE_ERROR("a, (b, f()) = c\n", 1, 8,
                     "cannot assign to function call");
  EXPECT_PARSE_ERROR("a = 1 = b\n", 1, 5, "cannot assign to literal");
  EXPECT_PARSE_ERROR("for f() in x:\n    pass\n", 1, 5,
                     "cannot assign to function call");
  EXPECT_PARSE_ERROR("x[0] += 1\n", 1, 1,
                     "augmented assignment target must be a name");
  EXPECT_PARSE_ERROR("a, b += 1\n", 1, 1,
                     "augmented assignment target must be a name");
  EXPECT_PARSE_ERROR("a.b: int = 1\n", 1, 1,
                     "annotated assignment target must be a name");
}

TEST(ParserErrors, FunctionDefinitions) {
  EXPECT_PARSE_ERROR("def f(a=1, b):\n    pass\n", 1, 12,
                     "parameter without a default follows parameter with a "
                     "default");
  EXPECT_PARSE_ERROR("def f(a, a):\n    pass\n", 1, 10,
                     "duplicate parameter 'a' in function definition");
  EXPECT_PARSE_ERROR("def (x):\n    pass\n", 1, 5,
                     "expected a function name after 'def'");
  EXPECT_PARSE_ERROR("def f(1):\n    pass\n", 1, 7,
                     "expected a parameter name");
  EXPECT_PARSE_ERROR("def f:\n    pass\n", 1, 6, "expected '('");
  EXPECT_PARSE_ERROR("@jit\nx = 1\n", 2, 1,
                     "expected 'def' after the decorators");
  EXPECT_PARSE_ERROR("@\ndef f(): pass\n", 1, 2,
                     "expected an expression after '@'");
}

// Decorators are host code: whatever Python allows in them (dicts, lambdas,
// comprehensions, over several lines) is skipped, not parsed.
TEST(ParserDecorators, HostCodeIsSkipped) {
  std::unique_ptr<ModuleAST> m = parse(
      "@tilec.autotune(configs=[tilec.Config({'BLOCK': b}, num_warps=w)\n"
      "                         for b, w in [(256, 2), (1024, 4)]],\n"
      "                key=['n'], prune_configs_by={'f': lambda c, **k: c})\n"
      "@tilec.jit\n"
      "def f(x):\n"
      "    return x + 1\n");
  ASSERT_EQ(m->body.size(), 1u);
  auto *fn = cast<FunctionDef>(m->body[0].get());
  ASSERT_EQ(fn->decorators.size(), 2u);
  EXPECT_EQ(fn->decorators[0].line, 1u);
  EXPECT_EQ(fn->decorators[0].col, 1u);
  EXPECT_EQ(fn->decorators[1].line, 4u);
  EXPECT_EQ(fn->name, "f");
  EXPECT_EQ(fn->loc.line, 5u);
}

TEST(ParserErrors, OtherStatements) {
  EXPECT_PARSE_ERROR("for x y:\n    pass\n", 1, 7, "expected 'in'");
  EXPECT_PARSE_ERROR("x. = 1\n", 1, 4, "expected an attribute name after '.'");
  EXPECT_PARSE_ERROR("import\n", 1, 7, "expected a module name");
  EXPECT_PARSE_ERROR("import a as\n", 1, 12, "expected a name after 'as'");
  EXPECT_PARSE_ERROR("from a b\n", 1, 8, "expected 'import'");
  EXPECT_PARSE_ERROR("from a import\n", 1, 14, "expected a name to import");
}

TEST(ParserErrors, LexerErrorsComeThrough) {
  EXPECT_PARSE_ERROR("if x:\n        a\n    b\n", 3, 5,
                     "unindent does not match any outer indentation level");
  EXPECT_PARSE_ERROR("x = f'{a}'\n", 1, 5,
                     "f-strings are not supported in tilec kernels");
  EXPECT_PARSE_ERROR("x = a $ b\n", 1, 7, "invalid character '$'");
}

//===----------------------------------------------------------------------===//
// Limits and robustness
//===----------------------------------------------------------------------===//

TEST(ParserLimits, NestingIsCapped) {
  EXPECT_EQ(expr(repeat("(", 150) + "x" + repeat(")", 150)), "x");
  EXPECT_PARSE_ERROR(repeat("(", 300) + "x" + repeat(")", 300) + "\n", 1, 201,
                     "expression nested too deeply");
  EXPECT_PARSE_ERROR(repeat("[", 300) + repeat("]", 300) + "\n", 1, 201,
                     "expression nested too deeply");
  EXPECT_EQ(parseError(repeat("-", 300) + "x\n").message,
            "expression nested too deeply");
  EXPECT_EQ(parseError(repeat("not ", 300) + "x\n").message,
            "expression nested too deeply");
  EXPECT_EQ(parseError("x" + repeat(" ** x", 300) + "\n").message,
            "expression nested too deeply");
  EXPECT_EQ(parseError("x = " + repeat("a if b else ", 300) + "c\n").message,
            "expression nested too deeply");
}

TEST(ParserLimits, LongChainsAreCapped) {
  std::unique_ptr<ModuleAST> m = parse("x = a" + repeat(" + a", 500) + "\n");
  EXPECT_EQ(m->body.size(), 1u);
  EXPECT_PARSE_ERROR("x = a" + repeat(" + a", 5000) + "\n", 1, 5,
                     "expression nested too deeply");
  EXPECT_EQ(parseError("x" + repeat(".a", 5000) + "\n").message,
            "expression nested too deeply");
  EXPECT_EQ(parseError("f" + repeat("()", 5000) + "\n").message,
            "expression nested too deeply");
  // Flat lists are not chains.
  EXPECT_EQ(parse("x = [" + repeat("1, ", 5000) + "]\n")->body.size(), 1u);
  EXPECT_EQ(parse("x = a" + repeat(" < a", 5000) + "\n")->body.size(), 1u);
}

TEST(ParserLimits, ElifChainsAreCapped) {
  std::string ok = "if a: pass\n" + repeat("elif b: pass\n", 1000);
  EXPECT_EQ(parse(ok)->body.size(), 1u);
  std::string tooMany = ok + "elif b: pass\n";
  EXPECT_PARSE_ERROR(tooMany, 1002, 1,
                     "too many 'elif' branches (at most 1000)");
}

TEST(ParserRobustness, SpecialInputs) {
  EXPECT_EQ(parseError(std::string("x = 1\0\n", 7)).message,
            "source code cannot contain null bytes");
  EXPECT_EQ(parseError(std::string(1, '\0')).message,
            "source code cannot contain null bytes");
  EXPECT_EQ(parseError("def").message, "expected a function name after 'def'");
  EXPECT_EQ(parseError("x = '''abc").message,
            "unterminated triple-quoted string literal");
  EXPECT_EQ(parseError("if x:\n    y = (\n").message, "'(' was never closed");
  EXPECT_EQ(parseError("@").message, "expected an expression after '@'");
  EXPECT_EQ(parseError("\\").message,
            "unexpected end of file after line continuation character");
}

/// Parses `text`, which may be anything: a CompileError is fine, any other
/// exception (or a crash) is a bug. Returns whether it parsed.
bool parsesOrFailsCleanly(const std::string &text) {
  try {
    parse(text);
    return true;
  } catch (const CompileError &e) {
    EXPECT_FALSE(e.diagnostic().message.empty()) << "for: " << text;
    EXPECT_GE(e.diagnostic().line, 1u) << "for: " << text;
    return false;
  }
}

TEST(ParserRobustness, EveryPrefixOfAKernel) {
  std::string kernel = kMatrixAdd;
  int parsed = 0;
  for (size_t n = 0; n <= kernel.size(); ++n)
    parsed += parsesOrFailsCleanly(kernel.substr(0, n));
  // The empty prefix, the whole kernel and the prefixes that end a line of
  // the last statement parse; most others do not.
  EXPECT_GE(parsed, 2);
  EXPECT_LT(parsed, int(kernel.size()) / 2);
}

TEST(ParserRobustness, EveryByteDeletedFromAKernel) {
  std::string kernel = kVectorAdd;
  int failed = 0;
  for (size_t i = 0; i < kernel.size(); ++i)
    failed += !parsesOrFailsCleanly(kernel.substr(0, i) + kernel.substr(i + 1));
  EXPECT_GT(failed, 0);
}

TEST(ParserRobustness, RandomTokenSoup) {
  const char *const pieces[] = {
      "(",   ")",    "[",    "]",      ",",   ":",    "x",   "1",      "2.5",
      "def", "if",   "else", "elif",   "\n",  "    ", "\t",  "=",      "+",
      "-",   "**",   "'s'",  "lambda", "for", "in",   "not", ".",      "@",
      ";",   "\\\n", "#c\n", "\"\"\"", "{",   "}",    "*",   "return", "f",
      "(x)", ":=",   "->",   "is",     "\0",  "\xff", "0x",  "1_",
  };
  const size_t count = sizeof pieces / sizeof pieces[0];
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return size_t(state >> 33);
  };
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    size_t length = 1 + next() % 30;
    for (size_t j = 0; j < length; ++j) {
      const char *piece = pieces[next() % count];
      text += *piece ? std::string(piece) : std::string(1, '\0');
    }
    parsed += parsesOrFailsCleanly(text);
  }
  EXPECT_GT(parsed, 0);
  EXPECT_LT(parsed, 3000);
}

} // namespace

//===----------------------------------------------------------------------===//
// Module level: Python that is no kernel is skipped, not an error
//===----------------------------------------------------------------------===//

TEST(ParserModule, SkipsStatementsThatDoNotParse) {
  std::unique_ptr<ModuleAST> module = parse("import x\n"
                                            "class A:\n"
                                            "    def f(self):\n"
                                            "        return [i for i in y]\n"
                                            "@deco(1)\n"
                                            "@other\n"
                                            "def g():\n"
                                            "    return {1: 2}\n"
                                            "try:\n"
                                            "    import torch\n"
                                            "except ImportError:\n"
                                            "    pass\n"
                                            "finally:\n"
                                            "    pass\n"
                                            "h = lambda v: v\n"
                                            "print(f'{h(1)}')\n"
                                            "B = 1\n");
  ASSERT_EQ(module->body.size(), 7u);
  EXPECT_TRUE(llvm::isa<ImportStmt>(*module->body[0]));
  struct Expected {
    unsigned line;
    const char *name;
    bool isFunction;
    const char *message;
  };
  Expected expected[] = {
      {2, "A", false, "'class' is not supported in tilec kernels"},
      {5, "g", true, "dict and set literals are not supported in tilec kernels"},
      {9, "", false, "'try' is not supported in tilec kernels"},
      {15, "h", false, "'lambda' is not supported in tilec kernels"},
      {16, "", false, "f-strings are not supported in tilec kernels"},
  };
  for (size_t i = 0; i < 5; ++i) {
    auto *u = llvm::dyn_cast<UnparsedStmt>(module->body[i + 1].get());
    ASSERT_NE(u, nullptr) << "statement " << i + 1;
    EXPECT_EQ(u->loc.line, expected[i].line);
    EXPECT_EQ(u->name, expected[i].name);
    EXPECT_EQ(u->isFunction, expected[i].isFunction);
    EXPECT_EQ(u->error.message, expected[i].message);
  }
  auto *b = llvm::dyn_cast<AssignStmt>(module->body[6].get());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->loc.line, 17u);
}

TEST(ParserModule, OneLineCompoundStatementsAndClausesAreSkippedWhole) {
  std::unique_ptr<ModuleAST> module = parse("if a: x = [i for i in b]\n"
                                            "elif c: x = 2\n"
                                            "else: x = 3\n"
                                            "y = 4\n");
  ASSERT_EQ(module->body.size(), 2u);
  EXPECT_TRUE(llvm::isa<UnparsedStmt>(*module->body[0]));
  EXPECT_TRUE(llvm::isa<AssignStmt>(*module->body[1]));
}

TEST(ParserModule, AnUnexpectedIndentIsStillAnError) {
  EXPECT_PARSE_ERROR("x = 1\n    y = 2\n", 2, 5, "unexpected indent");
}
