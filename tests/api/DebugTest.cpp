// Debugging through the C++ API (issues 16, 17): LaunchOptions::debug and
// Kernel::compile's `debug` turn runtime assertions on, in a compile of
// their own; the interpreter backend then reports a failure as an Error
// naming the element, the message and the compared values. The GPU side
// is tests/python/test_gpu_debug.py.
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

const char *kSource = R"(
import tilec.language as tl

@tilec.jit
def bounded(x_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x <= limit, "over the limit", mask=offs < n)
    tl.store(x_ptr + offs, x * 2.0, mask=offs < n)
)";

tilec::Kernel bounded() {
  return tilec::Library::fromString(kSource, "debug_api.py").kernel("bounded");
}

tilec::LaunchOptions interpreter(bool debug) {
  tilec::LaunchOptions o;
  o.backend = tilec::Backend::Interpreter;
  o.debug = debug;
  return o;
}

} // namespace

TEST(Debug, CompileWithDebugHasTheAssertion) {
  tilec::Kernel k = bounded();
  std::string plain = k.compile("*fp32:16,i32,fp32", {{"BLOCK", 128}}, 4, "sm_90a", 3, 0,
                                /*debug=*/false)
                          .ptx();
  std::string checked = k.compile("*fp32:16,i32,fp32", {{"BLOCK", 128}}, 4, "sm_90a", 3, 0,
                                  /*debug=*/true)
                            .ptx();
  EXPECT_EQ(plain.find("__assertfail"), std::string::npos);
  EXPECT_NE(checked.find("__assertfail"), std::string::npos);
}

TEST(Debug, InterpreterChecksOnlyWithDebug) {
  std::vector<float> x{1.0f, 8.0f, 2.0f};
  tilec::Kernel k = bounded();
  std::vector<tilec::Arg> args{tilec::Arg::host(x, tilec::ScalarType::FP32), 3, 4.0f};
  k.launch({1}, args, {{"BLOCK", 4}}, interpreter(false));
  EXPECT_EQ(x[1], 16.0f);
  x = {1.0f, 8.0f, 2.0f};
  try {
    k.launch({1}, args, {{"BLOCK", 4}}, interpreter(true));
    ADD_FAILURE() << "no error";
  } catch (const tilec::Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "debug_api.py:8:5: error: assertion failed, idx (1): over the limit: "
                  "left 8.000000, right 4.000000 in program (0, 0, 0) of kernel 'bounded'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(x[1], 8.0f); // the failing program stored nothing
}
