// Layout attributes as linear layouts: blocked and slice layouts, shared
// encodings, and the same layout written two ways.
#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace tilec::tilegpu;
using Image = LinearLayout::Image;

namespace {
struct LayoutsTest : ::testing::Test {
  LayoutsTest() { ctx.loadDialect<TileGPUDialect>(); }
  RankedTensorType tensor(ArrayRef<int64_t> shape, Attribute layout) {
    return RankedTensorType::get(shape, IntegerType::get(&ctx, 32), layout);
  }
  MLIRContext ctx;
};

/// Every element of the tensor is held by some (warp, lane, register), and
/// by exactly one whose free bits are clear.
void expectCoversOnce(const LinearLayout &l) {
  std::set<Image> owned, all;
  int64_t elements = 1;
  for (int64_t s : l.getOutDimSizes())
    elements *= s;
  int32_t freeRegs = l.getFreeVariableMask(kRegister),
          freeLanes = l.getFreeVariableMask(kLane),
          freeWarps = l.getFreeVariableMask(kWarp);
  for (int w = 0; w < l.getInDimSize(kWarp); ++w)
    for (int lane = 0; lane < l.getInDimSize(kLane); ++lane)
      for (int r = 0; r < l.getInDimSize(kRegister); ++r) {
        Image c = l.apply({{kRegister, r}, {kLane, lane}, {kWarp, w}});
        all.insert(c);
        if (!(r & freeRegs) && !(lane & freeLanes) && !(w & freeWarps))
          EXPECT_TRUE(owned.insert(c).second) << "element held by two owners";
      }
  EXPECT_EQ(int64_t(all.size()), elements);
  EXPECT_EQ(int64_t(owned.size()), elements);
}
} // namespace

TEST_F(LayoutsTest, VectorAddLayout) {
  auto layout = getBlockedLayout(&ctx, {1024}, {4}, {0}, 4);
  EXPECT_EQ(layout.getThreadsPerWarp()[0], 32u);
  EXPECT_EQ(layout.getWarpsPerCTA()[0], 4u);
  LinearLayout l = toLinearLayout(tensor({1024}, layout));
  EXPECT_EQ(l.getInDimSize(kRegister), 8); // 1024 / 128 threads
  EXPECT_EQ(1 << l.getNumConsecutiveBits(kRegister, "dim0"), 4);
  // Registers 0..3 then the second repetition 512 elements further.
  EXPECT_EQ(l.applyOne(kRegister, 3), Image({3}));
  EXPECT_EQ(l.applyOne(kRegister, 4), Image({512}));
  EXPECT_EQ(l.applyOne(kLane, 1), Image({4}));
  EXPECT_EQ(l.applyOne(kWarp, 1), Image({128}));
  expectCoversOnce(l);
}

TEST_F(LayoutsTest, SmallTensorWrapsAndHoldsCopies) {
  auto layout = getBlockedLayout(&ctx, {1024}, {1}, {0}, 4);
  LinearLayout l = toLinearLayout(tensor({64}, layout));
  EXPECT_EQ(l.getInDimSize(kRegister), 1);
  // 128 threads for 64 elements: the warp bit above 64 is free.
  EXPECT_EQ(l.getFreeVariableMask(kWarp), 0b10);
  EXPECT_EQ(l.getFreeVariableMask(kLane), 0);
  expectCoversOnce(l);
}

TEST_F(LayoutsTest, TwoDimensionalRowMajor) {
  auto layout = getBlockedLayout(&ctx, {32, 64}, {1, 4}, {1, 0}, 4);
  EXPECT_EQ(layout.getThreadsPerWarp()[1], 16u);
  EXPECT_EQ(layout.getThreadsPerWarp()[0], 2u);
  LinearLayout l = toLinearLayout(tensor({32, 64}, layout));
  EXPECT_EQ(l.getInDimSize(kRegister), 16);
  EXPECT_EQ(l.getNumConsecutiveBits(kRegister, "dim1"), 2u);
  // The repetition along rows comes after the per-thread block.
  EXPECT_EQ(l.getBases(kRegister)[2], Image({8, 0}));
  expectCoversOnce(l);
}

TEST_F(LayoutsTest, SlicesDropADimension) {
  auto layout = getBlockedLayout(&ctx, {32, 64}, {1, 4}, {1, 0}, 4);
  for (unsigned dim : {0u, 1u}) {
    auto slice = SliceEncodingAttr::get(&ctx, dim, layout);
    int64_t size = dim == 0 ? 64 : 32;
    LinearLayout l = toLinearLayout(tensor({size}, slice));
    EXPECT_EQ(l.getOutDims().size(), 1u);
    expectCoversOnce(l);
  }
  // Rows of the row-major layout: a thread's four columns collapse into
  // one register.
  LinearLayout rows = toLinearLayout(tensor({32}, SliceEncodingAttr::get(&ctx, 1, layout)));
  EXPECT_EQ(rows.getFreeVariableMask(kLane), 0b1111);
}

TEST_F(LayoutsTest, TheSameLayoutWrittenTwoWays) {
  // The columns of a [1, 4] x [1, 32] x [4, 1] layout, and a 1-D layout
  // with the warps wrapping: four registers, lanes by 4, warps free.
  auto parent = BlockedEncodingAttr::get(&ctx, {1, 4}, {1, 32}, {4, 1}, {1, 0});
  auto oneD = BlockedEncodingAttr::get(&ctx, {4}, {32}, {4}, {0});
  LinearLayout a = toLinearLayout(tensor({128}, SliceEncodingAttr::get(&ctx, 0, parent)));
  LinearLayout b = toLinearLayout(tensor({128}, oneD));
  EXPECT_EQ(a, b);
  // Different orders of a square tensor are different layouts.
  auto rowMajor = getBlockedLayout(&ctx, {32, 32}, {1, 4}, {1, 0}, 4);
  auto colMajor = getBlockedLayout(&ctx, {32, 32}, {4, 1}, {0, 1}, 4);
  EXPECT_NE(toLinearLayout(tensor({32, 32}, rowMajor)),
            toLinearLayout(tensor({32, 32}, colMajor)));
}

TEST_F(LayoutsTest, WarpsLeftOverGoToTheSlowestDimension) {
  auto layout = getBlockedLayout(&ctx, {4, 8}, {1, 1}, {1, 0}, 8);
  EXPECT_EQ(layout.getNumWarps(), 8u);
  LinearLayout l = toLinearLayout(tensor({4, 8}, layout));
  EXPECT_EQ(l.getInDimSize(kWarp), 8);
  expectCoversOnce(l);
}

TEST_F(LayoutsTest, SwizzledSharedXorsRowsIntoVectors) {
  auto shared = SwizzledSharedEncodingAttr::get(&ctx, 4, 1, 8, {1, 0});
  LinearLayout l = shared.toLinearLayout({32, 32});
  EXPECT_TRUE(l.isInjective());
  EXPECT_TRUE(l.isSurjective());
  // Offsets 0..3 are a row's first vector; row r's vector v sits at
  // vector slot v ^ (r % 8).
  for (int row = 0; row < 32; ++row)
    for (int col = 0; col < 32; ++col) {
      int slot = ((col / 4) ^ (row % 8)) * 4 + col % 4;
      EXPECT_EQ(l.applyOne(kOffset, row * 32 + slot), Image({row, col}));
    }
  // Without a phase it is plain row-major.
  auto plain = SwizzledSharedEncodingAttr::get(&ctx, 1, 1, 1, {1, 0});
  EXPECT_EQ(plain.toLinearLayout({4, 8}).applyOne(kOffset, 13), Image({1, 5}));
}

TEST_F(LayoutsTest, SharedLinearRoundTripsALayout) {
  LinearLayout l = SwizzledSharedEncodingAttr::get(&ctx, 2, 2, 4, {1, 0})
                       .toLinearLayout({16, 16});
  auto attr = SharedLinearEncodingAttr::get(&ctx, l);
  EXPECT_EQ(attr.toLinearLayout({16, 16}), l);
}

namespace {
/// The element register r of (warp, lane) holds under layout `l`.
LinearLayout::Image element(const LinearLayout &l, int r, int lane, int warp) {
  return l.apply({{kRegister, r}, {kLane, lane}, {kWarp, warp}});
}
} // namespace

TEST_F(LayoutsTest, RegisterPermutationMovesOnlyRegisters) {
  auto a = BlockedEncodingAttr::get(&ctx, {2, 2}, {1, 32}, {1, 4}, {1, 0});
  auto b = BlockedEncodingAttr::get(&ctx, {2, 2}, {1, 32}, {1, 4}, {0, 1});
  LinearLayout src = toLinearLayout(tensor({2, 64}, a));
  LinearLayout dst = toLinearLayout(tensor({2, 64}, b));
  auto sources = registerPermutation(src, dst);
  ASSERT_TRUE(sources);
  EXPECT_EQ(*sources, (SmallVector<unsigned>{0, 2, 1, 3}));
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(element(dst, r, lane, w), element(src, (*sources)[r], lane, w));
  // Different lanes: not a permutation of registers.
  auto c = BlockedEncodingAttr::get(&ctx, {1, 1}, {4, 8}, {1, 4}, {0, 1});
  auto d = BlockedEncodingAttr::get(&ctx, {1, 1}, {4, 8}, {1, 4}, {1, 0});
  EXPECT_FALSE(registerPermutation(toLinearLayout(tensor({4, 8}, c)),
                                   toLinearLayout(tensor({4, 8}, d))));
}

TEST_F(LayoutsTest, WarpShuffleFetchesEveryElementFromItsHolder) {
  // Lanes along columns first, then along rows first; every warp holds a
  // copy of the 4x8 tile.
  auto a = BlockedEncodingAttr::get(&ctx, {1, 1}, {4, 8}, {1, 4}, {1, 0});
  auto b = BlockedEncodingAttr::get(&ctx, {1, 1}, {4, 8}, {1, 4}, {0, 1});
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    LinearLayout src = toLinearLayout(tensor({4, 8}, from));
    LinearLayout dst = toLinearLayout(tensor({4, 8}, to));
    std::optional<WarpShuffle> shuffle = warpShuffle(src, dst);
    ASSERT_TRUE(shuffle);
    for (int w = 0; w < 4; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < dst.getInDimSize(kRegister); ++r) {
          int sourceLane =
              shuffle->sourceLane.apply({{kRegister, r}, {kLane, lane}})[0];
          EXPECT_EQ(element(dst, r, lane, w),
                    element(src, shuffle->sourceRegister[r], sourceLane, w));
        }
  }
  EXPECT_EQ(classifyConversion(tensor({4, 8}, a), tensor({4, 8}, b)),
            ConversionKind::WarpShuffle);
  // Rows spread over warps one way and columns the other: warps must
  // exchange elements, through shared memory.
  auto rows = BlockedEncodingAttr::get(&ctx, {1, 1}, {1, 32}, {4, 1}, {1, 0});
  auto cols = BlockedEncodingAttr::get(&ctx, {1, 1}, {32, 1}, {1, 4}, {0, 1});
  EXPECT_FALSE(warpShuffle(toLinearLayout(tensor({32, 32}, rows)),
                           toLinearLayout(tensor({32, 32}, cols))));
  EXPECT_EQ(classifyConversion(tensor({32, 32}, rows), tensor({32, 32}, cols)),
            ConversionKind::SharedMemory);
}

TEST_F(LayoutsTest, JoinAddsTheLowestRegisterBitAndInvertsBack) {
  // A vector-add layout: the join of two such vectors is the blocked
  // layout with a last dimension of 2 held in each thread's registers.
  auto src = getBlockedLayout(&ctx, {1024}, {4}, {0}, 4);
  Attribute joined = inferJoinEncoding(src, {1024});
  auto expected = BlockedEncodingAttr::get(&ctx, {4, 2}, {32, 1}, {4, 1}, {1, 0});
  EXPECT_TRUE(isSameLayout(joined, expected, {1024, 2}));
  LinearLayout l = toLinearLayout(tensor({1024, 2}, joined));
  EXPECT_EQ(l.applyOne(kRegister, 1), Image({0, 1}));
  EXPECT_EQ(l.applyOne(kRegister, 2), Image({1, 0}));
  expectCoversOnce(l);
  EXPECT_TRUE(isSameLayout(inferJoinSourceEncoding(joined, {1024, 2}), src, {1024}));

  // A small operand whose lanes hold copies keeps them.
  auto tiny = getBlockedLayout(&ctx, {16}, {1}, {0}, 4);
  Attribute tinyJoined = inferJoinEncoding(tiny, {16});
  EXPECT_TRUE(isSameLayout(inferJoinSourceEncoding(tinyJoined, {16, 2}), tiny, {16}));
  EXPECT_EQ(toLinearLayout(tensor({16, 2}, tinyJoined)).getFreeVariableMask(kWarp),
            toLinearLayout(tensor({16}, tiny)).getFreeVariableMask(kWarp));

  // The new dimension across lanes has no operand layout.
  auto lanes = BlockedEncodingAttr::get(&ctx, {4, 1}, {16, 2}, {4, 1}, {1, 0});
  EXPECT_FALSE(inferJoinSourceEncoding(lanes, {512, 2}));
  // Nor does a last dimension that is not 2.
  EXPECT_FALSE(inferJoinSourceEncoding(expected, {512, 4}));
}
