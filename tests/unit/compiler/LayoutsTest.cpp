// The compile-time layout arithmetic: which registers each thread holds.
#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace tilec::tilegpu;

namespace {
struct LayoutsTest : ::testing::Test {
  LayoutsTest() { ctx.loadDialect<TileGPUDialect>(); }
  RankedTensorType tensor(ArrayRef<int64_t> shape, Attribute layout) {
    return RankedTensorType::get(shape, IntegerType::get(&ctx, 32), layout);
  }
  MLIRContext ctx;
};

/// Every element of `shape` is held by some (thread, register) pair: the
/// coordinates of all threads together cover the tensor.
void expectCovers(const RegisterMap &map, BlockedEncodingAttr root,
                  unsigned numThreads) {
  std::set<std::vector<int64_t>> seen;
  for (unsigned tid = 0; tid < numThreads; ++tid) {
    unsigned lane = tid % 32, warp = tid / 32;
    std::vector<int64_t> offset(root.getRank());
    unsigned lanesBefore = 1, warpsBefore = 1;
    for (unsigned d : root.getOrder()) {
      unsigned l = (lane / lanesBefore) % root.getThreadsPerWarp()[d];
      unsigned w = (warp / warpsBefore) % root.getWarpsPerCTA()[d];
      offset[d] = (w * root.getThreadsPerWarp()[d] + l) * root.getSizePerThread()[d];
      lanesBefore *= root.getThreadsPerWarp()[d];
      warpsBefore *= root.getWarpsPerCTA()[d];
    }
    for (unsigned r = 0; r < map.numRegisters(); ++r) {
      std::vector<int64_t> coord;
      for (unsigned d = 0; d < map.rank(); ++d)
        coord.push_back((map.constPart(r, d) + offset[map.rootDim(d)]) %
                        map.shape()[d]);
      seen.insert(coord);
    }
  }
  EXPECT_EQ(int64_t(seen.size()), map.numElements());
}
} // namespace

TEST_F(LayoutsTest, VectorAddLayout) {
  auto layout = getBlockedLayout(&ctx, {1024}, {4}, {0}, 4);
  EXPECT_EQ(layout.getThreadsPerWarp()[0], 32u);
  EXPECT_EQ(layout.getWarpsPerCTA()[0], 4u);
  RegisterMap map(tensor({1024}, layout));
  EXPECT_EQ(map.numRegisters(), 8u); // 1024 / 128 threads
  EXPECT_EQ(map.contiguousRegisters(), 4u);
  // Registers 0..3 then the second repetition 512 elements further.
  EXPECT_EQ(map.constPart(3, 0), 3);
  EXPECT_EQ(map.constPart(4, 0), 512);
  EXPECT_FALSE(map.wraps(0));
  expectCovers(map, layout, 128);
}

TEST_F(LayoutsTest, SmallTensorWrapsAndHoldsCopies) {
  auto layout = getBlockedLayout(&ctx, {1024}, {1}, {0}, 4);
  RegisterMap map(tensor({64}, layout));
  EXPECT_EQ(map.numRegisters(), 1u);
  EXPECT_TRUE(map.wraps(0)); // 128 threads for 64 elements
  expectCovers(map, layout, 128);
}

TEST_F(LayoutsTest, TwoDimensionalRowMajor) {
  auto layout = getBlockedLayout(&ctx, {32, 64}, {1, 4}, {1, 0}, 4);
  EXPECT_EQ(layout.getThreadsPerWarp()[1], 16u);
  EXPECT_EQ(layout.getThreadsPerWarp()[0], 2u);
  RegisterMap map(tensor({32, 64}, layout));
  EXPECT_EQ(map.numRegisters(), 16u);
  EXPECT_EQ(map.order()[0], 1u);
  expectCovers(map, layout, 128);
}

TEST_F(LayoutsTest, SlicesDropADimension) {
  auto layout = getBlockedLayout(&ctx, {32, 64}, {1, 4}, {1, 0}, 4);
  for (unsigned dim : {0u, 1u}) {
    auto slice = SliceEncodingAttr::get(&ctx, dim, layout);
    int64_t size = dim == 0 ? 64 : 32;
    RegisterMap map(tensor({size}, slice));
    EXPECT_EQ(map.rootDim(0), 1 - dim);
    expectCovers(map, layout, 128);
  }
}

TEST_F(LayoutsTest, WarpsLeftOverGoToTheSlowestDimension) {
  auto layout = getBlockedLayout(&ctx, {4, 8}, {1, 1}, {1, 0}, 8);
  unsigned warps = 1, lanes = 1;
  for (unsigned d = 0; d < 2; ++d) {
    warps *= layout.getWarpsPerCTA()[d];
    lanes *= layout.getThreadsPerWarp()[d];
  }
  EXPECT_EQ(warps, 8u);
  EXPECT_EQ(lanes, 32u);
  RegisterMap map(tensor({4, 8}, layout));
  expectCovers(map, layout, 256);
}
