// Python's truth rule on compile-time values (Value::truthiness), and the
// constructs that test it, evaluated as module-level constants: `and`/`or`
// (which return an operand), `not`, `x if c else y` and bool(). Also the
// members of tl.PropagateNan.
#include "dsl/Diagnostics.h"
#include "dsl/Parser.h"
#include "dsl/Values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

using namespace tilec::dsl;

namespace {
/// The value of the module-level constant X in `source`.
Value constant(const std::string &source) {
  auto buffer = std::make_shared<SourceBuffer>("test.py", source);
  std::shared_ptr<ModuleAST> module = parseModule(buffer);
  std::shared_ptr<Scope> scope = buildFileScope(module);
  const Value *x = scope->lookup("X");
  EXPECT_NE(x, nullptr) << source;
  return x ? *x : Value::none();
}

/// repr() of `expression` evaluated at compile time, or "error: ...".
std::string reprOf(const std::string &expression) {
  try {
    return constant("X = " + expression + "\n").repr();
  } catch (const CompileError &e) {
    return std::string("error: ") + e.what();
  }
}
} // namespace

TEST(Truthiness, FalseValues) {
  EXPECT_EQ(Value::none().truthiness(), false);
  EXPECT_EQ(Value::ofBool(false).truthiness(), false);
  EXPECT_EQ(Value::ofInt(0).truthiness(), false);
  EXPECT_EQ(Value::ofFloat(0.0).truthiness(), false);
  EXPECT_EQ(Value::ofFloat(-0.0).truthiness(), false);
  EXPECT_EQ(Value::ofString("").truthiness(), false);
  EXPECT_EQ(Value::ofTuple({}).truthiness(), false);
}

TEST(Truthiness, TrueValues) {
  EXPECT_EQ(Value::ofBool(true).truthiness(), true);
  EXPECT_EQ(Value::ofInt(-1).truthiness(), true);
  EXPECT_EQ(Value::ofFloat(0.5).truthiness(), true);
  EXPECT_EQ(Value::ofFloat(1e-300).truthiness(), true);
  EXPECT_EQ(Value::ofFloat(NAN).truthiness(), true);
  EXPECT_EQ(Value::ofFloat(-INFINITY).truthiness(), true);
  EXPECT_EQ(Value::ofString("0").truthiness(), true);
  EXPECT_EQ(Value::ofTuple({Value::ofInt(0)}).truthiness(), true);
  EXPECT_EQ(Value::ofDType(*DType::parse("fp32")).truthiness(), true);
  EXPECT_EQ(Value::ofModule("tl").truthiness(), true);
  EXPECT_EQ(Value::ofBuiltin("tl.load").truthiness(), true);
  EXPECT_EQ(Value::ofEnum("PropagateNan.NONE").truthiness(), true);
}

TEST(Truthiness, IRValuesAreDecidedAtRunTime) {
  Value ir = Value::ofIR(mlir::Value(), ValueType{*DType::parse("i32"), {}});
  EXPECT_EQ(ir.truthiness(), std::nullopt);
}

TEST(Truthiness, AndOrReturnAnOperand) {
  EXPECT_EQ(reprOf("0.0 or 3"), "3");
  EXPECT_EQ(reprOf("0.0 and 3"), "0.0");
  EXPECT_EQ(reprOf("-0.0 or 0"), "0");
  EXPECT_EQ(reprOf("0.5 and 3"), "3");
  EXPECT_EQ(reprOf("'' or 2"), "2");
  EXPECT_EQ(reprOf("'' and 2"), "''");
  EXPECT_EQ(reprOf("() or None"), "None");
  EXPECT_EQ(reprOf("() and 1"), "()");
  EXPECT_EQ(reprOf("None or 0.0 or 'x'"), "'x'");
  EXPECT_EQ(reprOf("float('nan') and 7"), "7");
  EXPECT_EQ(reprOf("1 and 2 and 0 and 3"), "0");
}

TEST(Truthiness, NotConditionalAndBool) {
  EXPECT_EQ(reprOf("not 0.0"), "True");
  EXPECT_EQ(reprOf("not 0.25"), "False");
  EXPECT_EQ(reprOf("not ''"), "True");
  EXPECT_EQ(reprOf("not ()"), "True");
  EXPECT_EQ(reprOf("not 'a'"), "False");
  EXPECT_EQ(reprOf("1 if 0.0 else 2"), "2");
  EXPECT_EQ(reprOf("1 if -0.0 else 2"), "2");
  EXPECT_EQ(reprOf("1 if float('nan') else 2"), "1");
  EXPECT_EQ(reprOf("1 if '' else 2"), "2");
  EXPECT_EQ(reprOf("1 if () else 2"), "2");
  EXPECT_EQ(reprOf("bool(0.0)"), "False");
  EXPECT_EQ(reprOf("bool(float('nan'))"), "True");
  EXPECT_EQ(reprOf("bool('')"), "False");
  EXPECT_EQ(reprOf("bool(None)"), "False");
  EXPECT_EQ(reprOf("bool((0,))"), "True");
}

// tl.PropagateNan's members: compile-time values that print as Python's
// str() of an Enum member prints, equal only to themselves.
TEST(EnumMembers, PrintCompareAndDescribe) {
  auto withTl = [](const std::string &expression) {
    try {
      return constant("import tilec.language as tl\nX = " + expression + "\n").repr();
    } catch (const CompileError &e) {
      return std::string("error: ") + e.what();
    }
  };
  EXPECT_EQ(withTl("tl.PropagateNan.ALL"), "PropagateNan.ALL");
  EXPECT_EQ(withTl("tl.PropagateNan.ALL == tl.PropagateNan.ALL"), "True");
  EXPECT_EQ(withTl("tl.PropagateNan.ALL == tl.PropagateNan.NONE"), "False");
  EXPECT_EQ(withTl("tl.PropagateNan.NONE == 0"), "False");
  EXPECT_EQ(withTl("tl.PropagateNan.NONE is tl.PropagateNan.NONE"), "True");
  EXPECT_NE(withTl("tl.PropagateNan.MOST").find("tl.PropagateNan has no member 'MOST'"),
            std::string::npos);
  EXPECT_EQ(Value::ofEnum("PropagateNan.ALL").describe(), "tl.PropagateNan.ALL");
  EXPECT_TRUE(Value::ofEnum("PropagateNan.ALL").isConstexpr());
}
