// The algebra of linear layouts: products, composition, inverses, the
// vector width a layout permits, and layouts written two ways.
#include "compiler/Dialect/TileGPU/LinearLayout.h"

#include <gtest/gtest.h>

#include <set>

using namespace tilec::tilegpu;
using Image = LinearLayout::Image;

namespace {
/// The mma.sync m16n8k16 f32 accumulator of one warp (TENSOR-CORES.md).
LinearLayout mmaAccumulator() {
  return LinearLayout({{kRegister, {{0, 1}, {8, 0}}},
                       {kLane, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
                      {{"dim0", 16}, {"dim1", 8}});
}
} // namespace

TEST(LinearLayoutTest, ProductStacksBitsOfSharedDimensions) {
  LinearLayout l = LinearLayout::identity1D(4, kRegister, "dim0") *
                   LinearLayout::identity1D(8, kLane, "dim0") *
                   LinearLayout::identity1D(2, kRegister, "dim0");
  EXPECT_EQ(l.getOutDimSize("dim0"), 64);
  EXPECT_EQ(l.getInDimSize(kRegister), 8);
  // Registers 0..3 are consecutive, register bit 2 is above the lanes.
  EXPECT_EQ(l.getBases(kRegister)[2], Image({32}));
  EXPECT_EQ(l.applyOne(kLane, 5), Image({20}));
  EXPECT_EQ(l.apply({{kRegister, 5}, {kLane, 1}}), Image({32 + 4 + 1}));
}

TEST(LinearLayoutTest, MmaAccumulatorPutsARegisterBitAboveTheLanes) {
  LinearLayout l = mmaAccumulator();
  // Register 3 of lane 5: (8, 1) ^ (0, 2) ^ (1, 0) = (9, 3).
  EXPECT_EQ(l.apply({{kRegister, 3}, {kLane, 5}}), Image({9, 3}));
  EXPECT_TRUE(l.isInjective());
  EXPECT_TRUE(l.isSurjective());
  // Two registers hold consecutive columns: 2-element vectors.
  EXPECT_EQ(l.getNumConsecutiveBits(kRegister, "dim1"), 1u);
  EXPECT_EQ(l.getNumConsecutiveBits(kRegister, "dim0"), 0u);
  // Every one of the 128 elements has exactly one holder.
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r) {
      Image c = l.apply({{kRegister, r}, {kLane, lane}});
      seen.insert({c[0], c[1]});
    }
  EXPECT_EQ(seen.size(), 128u);
}

TEST(LinearLayoutTest, ComposeAppliesOneMapAfterTheOther) {
  // Transpose as a layout on (dim0, dim1) -> (dim1, dim0) coordinates.
  LinearLayout transpose({{"dim0", {{0, 1}, {0, 2}}}, {"dim1", {{1, 0}, {2, 0}, {4, 0}}}},
                         {{"dim0", 8}, {"dim1", 4}});
  LinearLayout l = LinearLayout::identity1D(4, kRegister, "dim0") *
                   LinearLayout::identity1D(8, kLane, "dim1");
  LinearLayout c = l.compose(transpose);
  for (int r = 0; r < 4; ++r)
    for (int lane = 0; lane < 8; ++lane) {
      Image before = l.apply({{kRegister, r}, {kLane, lane}});
      Image after = c.apply({{kRegister, r}, {kLane, lane}});
      EXPECT_EQ(after, Image({before[1], before[0]}));
    }
}

TEST(LinearLayoutTest, PseudoinverseIsARightInverse) {
  LinearLayout l = mmaAccumulator();
  std::optional<LinearLayout> inverse = l.pseudoinvert();
  ASSERT_TRUE(inverse);
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      Image hw = inverse->apply({{"dim0", row}, {"dim1", col}});
      EXPECT_EQ(l.apply({{kRegister, hw[0]}, {kLane, hw[1]}}), Image({row, col}));
    }
  // Not surjective: no inverse.
  LinearLayout half = LinearLayout::identity1D(4, kLane, "dim0").resizeOutDim("dim0", 4) *
                      LinearLayout::zeros1D(2, kWarp, "dim0");
  EXPECT_TRUE(half.isSurjective());
  LinearLayout partial({{kLane, {{1}, {2}}}}, {{"dim0", 8}});
  EXPECT_FALSE(partial.isSurjective());
  EXPECT_FALSE(partial.pseudoinvert());
}

TEST(LinearLayoutTest, InverseSkipsFreeBits) {
  // 64 elements over 128 threads: lane bit 0 is free (copies).
  LinearLayout l({{kLane, {{0}, {1}, {2}, {4}, {8}}}, {kWarp, {{16}, {32}}}},
                 {{"dim0", 64}});
  EXPECT_EQ(l.getFreeVariableMask(kLane), 1);
  EXPECT_FALSE(l.isInjective());
  EXPECT_TRUE(l.isInjectiveUpToFreeBits());
  std::optional<LinearLayout> inverse = l.pseudoinvert();
  ASSERT_TRUE(inverse);
  for (int x = 0; x < 64; ++x) {
    Image hw = inverse->apply({{"dim0", x}});
    EXPECT_EQ(hw[0] & 1, 0) << "the owner has its free bits clear";
    EXPECT_EQ(l.apply({{kLane, hw[0]}, {kWarp, hw[1]}}), Image({x}));
  }
}

TEST(LinearLayoutTest, InvertAndComposeMapsOneLayoutOntoAnother) {
  // Two ways of holding 8 elements in 2 registers x 4 lanes.
  LinearLayout a = LinearLayout::identity1D(2, kRegister, "dim0") *
                   LinearLayout::identity1D(4, kLane, "dim0");
  LinearLayout b({{kRegister, {{4}}}, {kLane, {{1}, {2}}}}, {{"dim0", 8}});
  std::optional<LinearLayout> m = a.invertAndCompose(b);
  ASSERT_TRUE(m);
  for (int r = 0; r < 2; ++r)
    for (int lane = 0; lane < 4; ++lane) {
      Image src = m->apply({{kRegister, r}, {kLane, lane}});
      EXPECT_EQ(a.apply({{kRegister, src[0]}, {kLane, src[1]}}),
                b.apply({{kRegister, r}, {kLane, lane}}));
    }
}

TEST(LinearLayoutTest, NotInjectiveWhenImagesDepend) {
  LinearLayout l({{kRegister, {{1}, {2}, {3}}}}, {{"dim0", 4}});
  EXPECT_FALSE(l.isInjectiveUpToFreeBits());
}

TEST(LinearLayoutTest, ConsecutiveBitsStopAtTheFirstOtherImage) {
  LinearLayout l({{kRegister, {{0, 1}, {0, 2}, {1, 0}, {0, 4}}}},
                 {{"dim0", 2}, {"dim1", 8}});
  EXPECT_EQ(l.getNumConsecutiveBits(kRegister, "dim1"), 2u);
  EXPECT_EQ(l.getNumConsecutiveBits(kLane, "dim1"), 0u);
}

TEST(LinearLayoutTest, ReshapingHelpers) {
  LinearLayout l = mmaAccumulator();
  LinearLayout dropped = l.dropOutDim("dim0");
  EXPECT_EQ(dropped.getFreeVariableMask(kRegister), 0b10);
  EXPECT_EQ(dropped.getFreeVariableMask(kLane), 0b11100);
  EXPECT_EQ(dropped.removeZeroBases(kRegister).getInDimSize(kRegister), 2);
  LinearLayout t = l.transposeOuts({"dim1", "dim0"});
  EXPECT_EQ(t.apply({{kRegister, 3}, {kLane, 5}}), Image({3, 9}));
  LinearLayout wrapped = l.resizeOutDim("dim0", 4);
  EXPECT_EQ(wrapped.getFreeVariableMask(kRegister), 0b10);
  EXPECT_EQ(wrapped.getFreeVariableMask(kLane), 0b10000);
  EXPECT_EQ(l, mmaAccumulator());
  EXPECT_NE(l, t);
}

// Row-major reshapes renumber coordinate bits: every element keeps its
// holder, at the coordinates numpy's reshape gives it.
TEST(LinearLayoutTest, ReshapeOutsFollowsRowMajorOrder) {
  LinearLayout l = mmaAccumulator(); // 16 x 8
  LinearLayout flat = l.reshapeOuts({128});
  LinearLayout folded = l.reshapeOuts({4, 4, 8});
  ASSERT_EQ(flat.getOutDimSizes(), (llvm::SmallVector<int64_t>{128}));
  for (int32_t r = 0; r < 4; ++r)
    for (int32_t lane = 0; lane < 32; ++lane) {
      Image at = l.apply({{kRegister, r}, {kLane, lane}});
      int32_t index = at[0] * 8 + at[1];
      EXPECT_EQ(flat.apply({{kRegister, r}, {kLane, lane}}), Image({index}));
      EXPECT_EQ(folded.apply({{kRegister, r}, {kLane, lane}}),
                Image({index / 32, index / 8 % 4, index % 8}));
    }
  EXPECT_EQ(folded.reshapeOuts({16, 8}), l);
  // Free bits stay free.
  LinearLayout wrapped = l.resizeOutDim("dim0", 4).reshapeOuts({32});
  EXPECT_EQ(wrapped.getFreeVariableMask(kRegister), 0b10);
}

// The tested build keeps assertions on (TILEC_ASSERTIONS): the invariants
// asserted in the compiler, like an image inside its output, really run.
TEST(LinearLayoutDeathTest, BrokenInvariantsStopTheProcess) {
#if defined(NDEBUG)
#if defined(TILEC_EXPECT_ASSERTIONS)
  FAIL() << "configured with TILEC_ASSERTIONS=ON, yet compiled with NDEBUG";
#else
  GTEST_SKIP() << "built without assertions (TILEC_ASSERTIONS=OFF)";
#endif
#else
  EXPECT_DEATH(LinearLayout({{kRegister, {{5}}}}, {{"dim0", 4}}),
               "an image lies outside its output dimension");
#endif
}
