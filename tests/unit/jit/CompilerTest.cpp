// The JIT compiler end to end on the CPU: source → PTX, located errors,
// and no crash on any of a corpus of kernels, good or bad. The PTX these
// tests make is assembled with ptxas; where there is no ptxas, a test checks
// what it can without it and then reports itself skipped, with the reason.
#include "runtime/Device.h"
#include "runtime/JIT/Compiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>


using namespace tilec;

namespace {
/// Why ptxas cannot check PTX here, or "" when it can: the build found no
/// ptxas, or the one it found is gone.
std::string ptxasMissing() {
#ifdef TILEC_PTXAS
  if (access(TILEC_PTXAS, X_OK) != 0)
    return std::string("ptxas is gone from ") + TILEC_PTXAS +
           " (found when the build was configured)";
  return "";
#else
  return "the build found no ptxas (TILEC_PTXAS), so the PTX is not assembled";
#endif
}

/// Skips the rest of the test, naming the reason, when ptxas is missing.
#define SKIP_WITHOUT_PTXAS()                                                   \
  do {                                                                         \
    std::string why_ = ptxasMissing();                                         \
    if (!why_.empty())                                                         \
      GTEST_SKIP() << why_;                                                    \
  } while (0)

/// Assemble PTX with ptxas for `target`: success when ptxas accepts it,
/// else a failure quoting what ptxas said. Callers check ptxasMissing()
/// first (SKIP_WITHOUT_PTXAS); without ptxas this is a failure.
::testing::AssertionResult ptxasAccepts(const std::string &ptx,
                                        const std::string &target = "sm_90a") {
#ifdef TILEC_PTXAS
  char path[] = "/tmp/tilec-unit-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return ::testing::AssertionFailure() << "mkstemp failed";
  FILE *f = fdopen(fd, "w");
  fwrite(ptx.data(), 1, ptx.size(), f);
  fclose(f);
  std::string command = std::string(TILEC_PTXAS) + " -arch=" + target + " " +
                        path + " -o /dev/null 2>&1";
  std::string output;
  FILE *p = popen(command.c_str(), "r");
  if (!p) {
    std::remove(path);
    return ::testing::AssertionFailure() << "cannot run " << command;
  }
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, p)) > 0;)
    output.append(chunk, n);
  int status = pclose(p);
  std::remove(path);
  if (status != 0)
    return ::testing::AssertionFailure()
           << "ptxas -arch=" << target << " rejected the PTX ("
           << (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                 : "status " + std::to_string(status))
           << "):\n" << output;
  return ::testing::AssertionSuccess();
#else
  (void)ptx;
  (void)target;
  return ::testing::AssertionFailure() << ptxasMissing();
#endif
}

jit::CompileResult compileSource(const std::string &source,
                                 const std::string &kernel,
                                 const std::string &signature,
                                 std::map<std::string, dsl::Value> constexprs = {}) {
  jit::ParsedSource parsed = jit::parseSource("test.py", source);
  jit::CompileResult result;
  if (!parsed.ok()) {
    result.errors = parsed.errors;
    return result;
  }
  auto fn = parsed.function(kernel);
  if (!fn) {
    result.errors.push_back("no kernel");
    return result;
  }
  jit::CompileOptions options;
  options.staticPrint = [](const std::string &) {};
  return jit::compile(*fn, signature, constexprs, options);
}

const char *kVectorAdd = R"(
import tilec.language as tl

def add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)
)";
} // namespace

TEST(Compiler, VectorAddToPTX) {
  auto r = compileSource(kVectorAdd, "add", "*fp32:16,*fp32:16,*fp32:16,i32:16",
                         {{"BLOCK", dsl::Value::ofInt(1024)}});
  ASSERT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0]);
  const CompiledStages &s = r.kernel->stages;
  EXPECT_NE(s.tile.find("tile.load"), std::string::npos);
  EXPECT_NE(s.tilegpu.find("#tilegpu.blocked"), std::string::npos);
  EXPECT_NE(s.llir.find("define"), std::string::npos);
  EXPECT_NE(s.ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(s.ptx.find("ld.global.v4.b32"), std::string::npos);
  SKIP_WITHOUT_PTXAS();
  EXPECT_TRUE(ptxasAccepts(s.ptx));
}

// A function keeps its file's scope (and the parsed module) alive, and
// nothing else does: once the last function of a file is dropped, the scope
// and the AST are freed. A shared_ptr cycle between the scope and its
// functions used to keep every parsed file forever (LeakSanitizer reports
// it in `make test-asan`; this test catches it in every build).
TEST(ParsedSource, FreedWithItsLastFunction) {
  std::weak_ptr<dsl::Scope> scope;
  std::weak_ptr<dsl::ModuleAST> module;
  std::shared_ptr<const dsl::JitFunction> kernel;
  {
    jit::ParsedSource parsed = jit::parseSource("t.py", std::string(kVectorAdd) + R"(
def helper(x):
    return x + 1

def uses_helper(out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, helper(offs))
)");
    ASSERT_TRUE(parsed.ok()) << parsed.errors[0];
    scope = parsed.scope;
    module = parsed.module;
    kernel = parsed.function("uses_helper");
    ASSERT_NE(kernel, nullptr);
  }
  ASSERT_FALSE(scope.expired());
  ASSERT_FALSE(module.expired());
  EXPECT_EQ(kernel->scope, scope.lock().get());
  const dsl::Value *helper = kernel->scope->lookup("helper");
  ASSERT_NE(helper, nullptr);
  ASSERT_EQ(helper->kind, dsl::Value::Kind::Function);
  EXPECT_EQ(helper->function->scope, kernel->scope);
  // The function compiles with its helper after the ParsedSource is gone.
  jit::CompileOptions options;
  auto r = jit::compile(*kernel, "*i32", {{"BLOCK", dsl::Value::ofInt(128)}}, options);
  ASSERT_TRUE(r.ok()) << r.errors[0];
  kernel.reset();
  EXPECT_TRUE(scope.expired());
  EXPECT_TRUE(module.expired());
}

TEST(Compiler, NumWarpsChangesTheBlock) {
  jit::ParsedSource parsed = jit::parseSource("t.py", kVectorAdd);
  jit::CompileOptions options;
  options.numWarps = 8;
  auto r = jit::compile(*parsed.function("add"), "*fp32:16,*fp32:16,*fp32:16,i32",
                        {{"BLOCK", dsl::Value::ofInt(2048)}}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r.kernel->stages.ptx.find(".reqntid 256, 1, 1"), std::string::npos);
  SKIP_WITHOUT_PTXAS();
  EXPECT_TRUE(ptxasAccepts(r.kernel->stages.ptx));
}

TEST(Compiler, BadTargetAndWarpsAreErrors) {
  jit::ParsedSource parsed = jit::parseSource("t.py", kVectorAdd);
  jit::CompileOptions options;
  options.target = "sm_70";
  auto r = jit::compile(*parsed.function("add"), "*fp32,*fp32,*fp32,i32",
                        {{"BLOCK", dsl::Value::ofInt(1024)}}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("unknown GPU target 'sm_70'"), std::string::npos);
  options.target = "sm_90a";
  options.numWarps = 3;
  r = jit::compile(*parsed.function("add"), "*fp32,*fp32,*fp32,i32",
                   {{"BLOCK", dsl::Value::ofInt(1024)}}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("num_warps must be a power of two"), std::string::npos);
}

TEST(Compiler, EveryKnownTargetAssembles) {
  // The same kernel for every chip: the PTX names it, and ptxas assembles
  // it for that chip.
  jit::ParsedSource parsed = jit::parseSource("t.py", kVectorAdd);
  for (const char *chip : {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a",
                           "sm_100", "sm_100a", "sm_120", "sm_120a"}) {
    jit::CompileOptions options;
    options.target = chip;
    auto r = jit::compile(*parsed.function("add"), "*fp32:16,*fp32:16,*fp32:16,i32:16",
                          {{"BLOCK", dsl::Value::ofInt(1024)}}, options);
    ASSERT_TRUE(r.ok()) << chip << ": " << (r.errors.empty() ? "" : r.errors[0]);
    EXPECT_NE(r.kernel->stages.ptx.find(std::string(".target ") + chip + "\n"),
              std::string::npos)
        << chip;
    EXPECT_TRUE(ptxasAccepts(r.kernel->stages.ptx, chip)) << chip;
  }
}

// A kernel that needs more shared memory than its target allows one block
// fails at the allocation, before LLVM and ptxas, and the result says how
// much it needed: what the autotuner drops a config for. On sm_90a, two
// 256 x 256 fp16 tiles (256 KB) exceed the 227 KB a block may have, even
// unpipelined; with 256 x 128 tiles the loop's stages fit.
TEST(Compiler, SharedMemoryNeedIsReportedWhenOverTheLimit) {
  const char *matmul = R"(
import tilec.language as tl

def mm(a, b, c, K, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(a + rows[:, None] * K + (k + ks)[None, :])
        y = tl.load(b + (k + ks)[:, None] * BLOCK + rows[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rows[:, None] * BLOCK + rows[None, :], acc)
)";
  jit::ParsedSource parsed = jit::parseSource("t.py", matmul);
  ASSERT_TRUE(parsed.ok()) << parsed.errors[0];
  auto compileFor = [&](int64_t blockK) {
    jit::CompileOptions options;
    options.numWarps = 8;
    return jit::compile(*parsed.function("mm"), "*fp16:16,*fp16:16,*fp32:16,i32:16",
                        {{"BLOCK", dsl::Value::ofInt(256)}, {"BLOCK_K", dsl::Value::ofInt(blockK)}},
                        options);
  };
  jit::CompileResult big = compileFor(256);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.sharedBytesNeeded, 262144u);
  EXPECT_EQ(big.sharedBytesLimit, 232448u);
  ASSERT_FALSE(big.errors.empty());
  EXPECT_NE(big.errors[0].find("needs 262144 bytes of shared memory"), std::string::npos)
      << big.errors[0];
  jit::CompileResult fits = compileFor(128);
  ASSERT_TRUE(fits.ok()) << fits.errors[0];
  EXPECT_EQ(fits.sharedBytesNeeded, 0u);
  EXPECT_GT(fits.kernel->stages.sharedBytes, 0u);
  EXPECT_LE(fits.kernel->stages.sharedBytes, 232448u);
  // A compile that fails for another reason reports no need.
  jit::CompileResult bad = compileFor(100);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.sharedBytesNeeded, 0u);
}

// The autotuner's L2 flush kernel (hand-written PTX in runtime/Device.cpp)
// assembles for the oldest and the newest targets tilec runs on.
TEST(Compiler, L2FlushKernelAssembles) {
  SKIP_WITHOUT_PTXAS();
  EXPECT_TRUE(ptxasAccepts(runtime::readL2KernelPTX(), "sm_80"));
  EXPECT_TRUE(ptxasAccepts(runtime::readL2KernelPTX(), "sm_90a"));
}

TEST(Compiler, TargetForDevice) {
  struct Case {
    unsigned cc;
    const char *chip;
  } cases[] = {{80, "sm_80"},   {86, "sm_86"},    {87, "sm_87"},
               {89, "sm_89"},   {90, "sm_90a"},   {100, "sm_100a"},
               {120, "sm_120a"}, {88, "sm_87"},   {130, "sm_120"}};
  for (const Case &c : cases) {
    std::string error;
    std::optional<TargetInfo> t = jit::targetForDevice(c.cc, "GPU", error);
    ASSERT_TRUE(t.has_value()) << c.cc << ": " << error;
    EXPECT_EQ(t->chip, c.chip) << c.cc;
  }
  // Older than every target: a clear error, not PTX the driver rejects.
  for (unsigned cc : {75u, 70u, 61u}) {
    std::string error;
    EXPECT_FALSE(jit::targetForDevice(cc, "Tesla T4", error).has_value()) << cc;
    std::string version = std::to_string(cc / 10) + "." + std::to_string(cc % 10);
    EXPECT_NE(error.find("Tesla T4 has compute capability " + version), std::string::npos)
        << error;
    EXPECT_NE(error.find("8.0 and newer"), std::string::npos) << error;
  }
}

TEST(Compiler, TargetRunsOn) {
  auto runs = [](const char *chip, unsigned cc) {
    std::string error;
    std::optional<TargetInfo> t = TargetInfo::parse(chip, error);
    EXPECT_TRUE(t.has_value()) << error;
    return t && jit::targetRunsOn(*t, cc);
  };
  // Portable PTX runs on its architecture and every newer one.
  EXPECT_TRUE(runs("sm_80", 80));
  EXPECT_TRUE(runs("sm_80", 86));
  EXPECT_TRUE(runs("sm_80", 90));
  EXPECT_TRUE(runs("sm_80", 120));
  EXPECT_FALSE(runs("sm_80", 75));
  EXPECT_FALSE(runs("sm_86", 80));
  EXPECT_TRUE(runs("sm_90", 100));
  // Arch-specific PTX runs on its own architecture only.
  EXPECT_TRUE(runs("sm_90a", 90));
  EXPECT_FALSE(runs("sm_90a", 89));
  EXPECT_FALSE(runs("sm_90a", 100));
  EXPECT_TRUE(runs("sm_100a", 100));
  EXPECT_FALSE(runs("sm_100a", 120));
  EXPECT_TRUE(runs("sm_120a", 120));
  EXPECT_FALSE(runs("sm_120a", 121));
  // What a launch picks always runs on the device it was picked for.
  for (unsigned cc : {80u, 86u, 87u, 88u, 89u, 90u, 95u, 100u, 103u, 120u, 121u, 130u})
    EXPECT_TRUE(jit::targetRunsOn(TargetInfo::forComputeCapability(cc), cc)) << cc;
}

TEST(Compiler, ErrorsAreLocatedWithCaret) {
  auto r = compileSource("import tilec.language as tl\n\ndef k(p):\n    tl.store(p, q)\n",
                         "k", "*fp32");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0], "test.py:4:17: error: name 'q' is not defined\n"
                         "    tl.store(p, q)\n"
                         "                ^\n");
}

// A corpus of kernels assembled from fragments, valid and not: each must
// compile or fail with a located error, never crash.
TEST(Compiler, FragmentCorpusNeverCrashes) {
  const char *exprs[] = {
      "x", "x + 1", "x * 2.5", "x // 3", "x % 7", "x << 2", "-x", "~i",
      "x < n", "tl.where(x > 0, x, 0)", "tl.maximum(x, 1.0)", "x.to(tl.float16)",
      "x[:, None]", "x[None, :] + x[:, None]", "tl.arange(0, 16)",
      "tl.zeros([16], tl.float32)", "tl.full([4, 4], 2, tl.int8)", "p + i",
      "p + x", "x + p", "p * 2", "tl.load(p + i)", "i / 3", "n and i",
      "not x", "x if n > 0 else x * 2", "tl.cdiv(n, 16)", "tl.multiple_of(n, 16)",
      "x.shape", "x.dtype", "(x, i)", "x[0]", "tl.program_id(3)", "x ** 2",
      "tl.arange(0, 10)", "tl.arange(0, n)", "tl.load(x)", "undefined",
      "tl.sum(x)", "min(1, 2)", "len(x.shape)", "True + 1", "1 / 0", "1 << 70",
      "min(x, 1.0)", "max(x, i, n)", "min(n, 16)", "max(x)", "abs(x)", "abs(i)",
      "abs(p)", "min(p, x)", "tl.maximum(x, 0.0, tl.PropagateNan.ALL)",
  };
  const char *stmts[] = {
      "y = {e}", "tl.store(p + i, {e})", "tl.store(p + i, {e}, mask=i < n)",
      "if n > 0:\n        y = {e}\n    else:\n        y = x",
      "for j in range(n):\n        x += {e}", "y = {e}\n    tl.store(p + i, y)",
      "for j in tl.static_range(2):\n        tl.store(p + i + j, {e})",
  };
  // Every statement shape with every expression.
  int compiled = 0, rejected = 0;
  std::vector<std::pair<std::string, std::string>> assemble; // source, PTX
  for (const char *stmtShape : stmts) {
    for (const char *expr : exprs) {
      std::string stmt = stmtShape;
      for (size_t at; (at = stmt.find("{e}")) != std::string::npos;)
        stmt.replace(at, 3, expr);
      std::string source = "import tilec.language as tl\n\ndef k(p, n):\n"
                           "    i = tl.arange(0, 16)\n"
                           "    x = tl.load(p + i, mask=i < n, other=0.0)\n    " +
                           stmt + "\n";
      auto r = compileSource(source, "k", "*fp32:16,i32");
      if (r.ok()) {
        ++compiled;
        EXPECT_NE(r.kernel->stages.ptx.find(".entry k"), std::string::npos);
        assemble.emplace_back(source, r.kernel->stages.ptx);
      } else {
        ++rejected;
        ASSERT_FALSE(r.errors.empty());
        EXPECT_NE(r.errors[0].find("error:"), std::string::npos) << source;
      }
    }
  }
  EXPECT_GT(compiled, 0);
  EXPECT_GT(rejected, 0);
  // Every kernel that compiled must also assemble.
  SKIP_WITHOUT_PTXAS();
  for (const auto &[source, ptx] : assemble)
    EXPECT_TRUE(ptxasAccepts(ptx)) << source;
}
