// deterministic=True through the C++ API (issue 15): LaunchOptions and
// Kernel::compile check a kernel for batch invariance; a refusal is an
// Error at the kernel's line, on the interpreter as on the compile path.
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

const char *kSource = R"(
import tilec.language as tl

@tilec.jit
def partial_sums(x_ptr, out_ptr, n, splits, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(pid * BLOCK, n, splits * BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc))
)";

tilec::Kernel partialSums() {
  return tilec::Library::fromString(kSource, "deterministic_api.py").kernel("partial_sums");
}

} // namespace

TEST(Deterministic, CompileRefusesARuntimeSplitAtItsLine) {
  tilec::Kernel k = partialSums();
  tilec::CompiledKernel plain =
      k.compile("*fp32:16,*fp32:16,i32,i32", {{"BLOCK", 64}}, 4, "sm_90a");
  EXPECT_FALSE(plain.deterministic());
  try {
    k.compile("*fp32:16,*fp32:16,i32,i32", {{"BLOCK", 64}}, 4, "sm_90a", 3, 0,
              /*debug=*/false, /*deterministic=*/true);
    ADD_FAILURE() << "no error";
  } catch (const tilec::Error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("deterministic_api.py:8:5: error: this loop accumulates "
                        "floating-point values and its step depends on a runtime value"),
              std::string::npos)
        << what;
  }
}

TEST(Deterministic, InterpreterLaunchChecksOnlyWhenAsked) {
  std::vector<float> x(300, 1.0f), out(4, 0.0f);
  tilec::Kernel k = partialSums();
  std::vector<tilec::Arg> args{tilec::Arg::host(x, tilec::ScalarType::FP32),
                               tilec::Arg::host(out, tilec::ScalarType::FP32), 300, 4};
  tilec::LaunchOptions o;
  o.backend = tilec::Backend::Interpreter;
  k.launch({4}, args, {{"BLOCK", 64}}, o);
  EXPECT_EQ(out[0] + out[1] + out[2] + out[3], 300.0f);
  o.deterministic = true;
  EXPECT_THROW(k.launch({4}, args, {{"BLOCK", 64}}, o), tilec::Error);
}
