// Launches compile for the GPU they run on, through the public C++ API:
// after a launch of vector add, the compile without a target is the
// launched one (loaded: it has registers) and its PTX names the device's
// own architecture; explicit targets are honoured; a cubin is refused for
// a target this GPU cannot run. Skipped without a CUDA driver.
#include "runtime/Device.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

namespace {

const char *kSignature = "*fp32:16,*fp32:16,*fp32:16,i32";

class GpuTarget : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!tilec::runtime::driverAvailable(&why))
      GTEST_SKIP() << why;
    int cc = tilec::runtime::Device::current().computeCapability();
    // sm_XY, with the arch-specific "a" where the architecture has one.
    expected = "sm_" + std::to_string(cc) + (cc == 90 || cc == 100 || cc == 120 ? "a" : "");
    if (tilec::knownTargets().find(expected) == std::string::npos)
      GTEST_SKIP() << "tilec has no target of its own for " << expected;
  }
  std::string expected;
};

TEST_F(GpuTarget, LaunchCompilesForTheDevice) {
  EXPECT_EQ(tilec::defaultTarget(), expected);
  EXPECT_TRUE(tilec::targetRunsOnCurrentGPU(expected));
  tilec::Kernel add =
      tilec::Library::fromFile(TILEC_KERNELS_DIR "/vector_add.py").kernel("add");
  // Another target first: the launch must compile its own.
  std::string other = expected == "sm_80" ? "sm_86" : "sm_80";
  tilec::CompiledKernel before = add.compile(kSignature, {{"BLOCK", 128}}, 4, other);
  EXPECT_EQ(before.target(), other);
  EXPECT_NE(before.ptx().find(".target " + other + "\n"), std::string::npos);

  const int n = 300;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i);
  tilec::Buffer in = tilec::Buffer::allocate(n * sizeof(float));
  tilec::Buffer out = tilec::Buffer::allocate(n * sizeof(float));
  in.copyFromHost(x.data(), n * sizeof(float));
  out.fill(0xff);
  add.launch({unsigned(tilec::cdiv(n, 128))},
             {{in, "fp32"}, {in, "fp32"}, {out, "fp32"}, int32_t(n)}, {{"BLOCK", 128}});
  std::vector<float> got(n);
  out.copyToHost(got.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 2.0f * float(i)) << i;

  // No target: the device's, the compile the launch loaded.
  tilec::CompiledKernel launched = add.compile(kSignature, {{"BLOCK", 128}});
  EXPECT_EQ(launched.target(), expected);
  EXPECT_NE(launched.ptx().find(".target " + expected + "\n"), std::string::npos);
  EXPECT_GT(launched.numRegisters(), 0) << "not the variant the launch loaded";
  EXPECT_NE(launched.cacheKey(), before.cacheKey());
  EXPECT_EQ(before.numRegisters(), -1) << "the launch loaded the " << other << " variant";
}

TEST_F(GpuTarget, CubinOnlyForATargetThisGPURuns) {
  tilec::Kernel add =
      tilec::Library::fromFile(TILEC_KERNELS_DIR "/vector_add.py").kernel("add");
  std::string foreign = expected == "sm_90a" ? "sm_100a" : "sm_90a";
  EXPECT_FALSE(tilec::targetRunsOnCurrentGPU(foreign));
  tilec::CompiledKernel k = add.compile(kSignature, {{"BLOCK", 128}}, 4, foreign);
  EXPECT_NE(k.ptx().find(".target " + foreign + "\n"), std::string::npos);
  try {
    k.cubin();
    FAIL() << "a cubin of " << foreign << " PTX on a " << expected << " GPU";
  } catch (const tilec::Error &e) {
    EXPECT_NE(std::string(e.what()).find("compiled for " + foreign), std::string::npos)
        << e.what();
  }
  // sm_80 PTX runs on every GPU tilec has a target for.
  EXPECT_TRUE(tilec::targetRunsOnCurrentGPU("sm_80"));
  EXPECT_FALSE(add.compile(kSignature, {{"BLOCK", 128}}, 4, "sm_80").cubin().empty());
}

} // namespace
