// tilec::Stream and tilec::Graph on a GPU (issue 15): launches captured
// once replay what eager launches compute, reading their inputs at replay
// time; a capture that allocates fails with an Error and leaves the
// stream usable. Skipped without a CUDA driver.
#include "runtime/Device.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

namespace {

class GpuGraph : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!tilec::runtime::driverAvailable(&why))
      GTEST_SKIP() << why;
  }
};

TEST_F(GpuGraph, ReplaysTheCapturedLaunchesOnNewInputs) {
  tilec::Kernel add =
      tilec::Library::fromFile(TILEC_KERNELS_DIR "/vector_add.py").kernel("add");
  const int n = 5000;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.5f * float(i);
  }
  tilec::Buffer bx = tilec::Buffer::allocate(n * 4), by = tilec::Buffer::allocate(n * 4),
                bout = tilec::Buffer::allocate(n * 4);
  bx.copyFromHost(x.data(), n * 4);
  by.copyFromHost(y.data(), n * 4);
  tilec::Stream stream = tilec::Stream::create();
  ASSERT_NE(stream.handle(), nullptr);
  tilec::LaunchOptions o;
  o.stream = stream.handle();
  std::vector<tilec::Arg> args{tilec::Arg(bx, "fp32"), tilec::Arg(by, "fp32"),
                               tilec::Arg(bout, "fp32"), n};
  tilec::Grid grid{(n + 1023) / 1024};
  add.launch(grid, args, {{"BLOCK", 1024}}, o); // warm: compiled and loaded
  stream.synchronize();
  // Two launches: out = x + y, then x' = out + y (x' written into x).
  std::vector<tilec::Arg> again{tilec::Arg(bout, "fp32"), tilec::Arg(by, "fp32"),
                                tilec::Arg(bx, "fp32"), n};
  tilec::Graph graph = tilec::Graph::capture(stream, [&] {
    add.launch(grid, args, {{"BLOCK", 1024}}, o);
    add.launch(grid, again, {{"BLOCK", 1024}}, o);
  });
  EXPECT_EQ(graph.numNodes(), 2u);
  for (int replay = 1; replay <= 3; ++replay) {
    graph.launch(stream);
    stream.synchronize();
    bx.copyToHost(x.data(), n * 4);
    for (int i = 0; i < n; i += 97)
      ASSERT_EQ(x[i], float(i) + float(replay) * float(i)) << "replay " << replay;
  }
}

TEST_F(GpuGraph, ACaptureThatAllocatesFailsAndTheStreamStaysUsable) {
  tilec::Stream stream = tilec::Stream::create();
  EXPECT_THROW(tilec::Graph::capture(stream, [] { tilec::Buffer::allocate(1 << 20); }),
               tilec::Error);
  tilec::Graph empty = tilec::Graph::capture(stream, [] {});
  EXPECT_EQ(empty.numNodes(), 0u);
  empty.launch(stream);
  stream.synchronize();
}

TEST_F(GpuGraph, AnExceptionFromTheLaunchesEndsTheCapture) {
  tilec::Stream stream = tilec::Stream::create();
  EXPECT_THROW(tilec::Graph::capture(stream, [] { throw std::runtime_error("stop"); }),
               std::runtime_error);
  tilec::Graph empty = tilec::Graph::capture(stream, [] {});
  empty.launch(stream);
  stream.synchronize();
}

} // namespace
