// The layouts of tile.trans and tile.reshape results: the operand's linear
// layout with its coordinates permuted or refolded, written as a
// #tilegpu.blocked when one describes it and as a #tilegpu.linear
// otherwise.
#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;
using namespace tilec::tilegpu;
using Image = LinearLayout::Image;

namespace {
struct RearrangeLayoutsTest : ::testing::Test {
  RearrangeLayoutsTest() { ctx.loadDialect<TileGPUDialect>(); }

  /// Blocked layouts the compiler makes, over shapes that wrap (threads
  /// holding copies) and repeat (several tiles per CTA), every order.
  std::vector<std::pair<SmallVector<int64_t>, BlockedEncodingAttr>> blockedLayouts() {
    std::vector<std::pair<SmallVector<int64_t>, BlockedEncodingAttr>> all;
    std::vector<SmallVector<int64_t>> shapes = {
        {1024}, {4}, {32, 64}, {64, 32}, {4, 128}, {2, 1}, {1, 1}, {128, 2},
        {8, 8, 8}, {2, 4, 64}, {16, 1, 32}, {1, 256, 4}};
    for (const SmallVector<int64_t> &shape : shapes) {
      SmallVector<unsigned> order(shape.size());
      for (unsigned i = 0; i < order.size(); ++i)
        order[i] = i;
      do {
        for (unsigned spt : {1u, 4u})
          for (unsigned warps : {1u, 4u, 8u}) {
            SmallVector<unsigned> sizePerThread(shape.size(), 1);
            sizePerThread[order.front()] = spt;
            all.push_back({shape, getBlockedLayout(&ctx, shape, sizePerThread,
                                                   order, warps)});
          }
      } while (std::next_permutation(order.begin(), order.end()));
    }
    return all;
  }

  /// The encoding verifies for `shape` (what a tensor type of it checks).
  bool verifies(Attribute layout, ArrayRef<int64_t> shape) {
    auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    return succeeded(cast<VerifiableTensorEncoding>(layout).verifyEncoding(
        shape, IntegerType::get(&ctx, 32), emitError));
  }

  MLIRContext ctx;
};

LinearLayout layoutOf(Attribute encoding, ArrayRef<int64_t> shape) {
  return cast<DistributedEncodingAttrInterface>(encoding).toLinearLayout(shape);
}
} // namespace

TEST_F(RearrangeLayoutsTest, EveryBlockedLayoutIsRecognised) {
  for (auto &[shape, blocked] : blockedLayouts()) {
    LinearLayout l = layoutOf(blocked, shape);
    std::optional<BlockedEncodingAttr> found = getBlockedLayoutFor(&ctx, l);
    ASSERT_TRUE(found.has_value()) << l.toString();
    EXPECT_EQ(layoutOf(*found, shape), l);
  }
}

TEST_F(RearrangeLayoutsTest, LinearEncodingRoundTripsALayout) {
  // The f32 mma.sync accumulator of one warp, copied over four warps, is a
  // blocked layout at this shape (its register bit 1 is the repetition
  // down the rows) ...
  LinearLayout mma({{kRegister, {{0, 1}, {8, 0}}},
                    {kLane, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                    {kWarp, {{0, 0}, {0, 0}}}},
                   {{"dim0", 16}, {"dim1", 8}});
  EXPECT_EQ(getDistributedEncoding(&ctx, mma),
            BlockedEncodingAttr::get(&ctx, {1, 2}, {8, 4}, {1, 4}, {1, 0}));
  // ... but with its two registers swapped no blocked layout describes it:
  // registers would run down the rows first and lanes along them.
  LinearLayout swapped({{kRegister, {{8, 0}, {0, 1}}},
                        {kLane, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                        {kWarp, {{0, 0}, {0, 0}}}},
                       {{"dim0", 16}, {"dim1", 8}});
  EXPECT_FALSE(getBlockedLayoutFor(&ctx, swapped).has_value());
  Attribute encoding = getDistributedEncoding(&ctx, swapped);
  ASSERT_TRUE(isa<LinearEncodingAttr>(encoding));
  EXPECT_EQ(layoutOf(encoding, {16, 8}), swapped);
  EXPECT_EQ(cast<LinearEncodingAttr>(encoding).getNumWarps(), 4u);
  EXPECT_TRUE(verifies(encoding, {16, 8}));
  EXPECT_FALSE(verifies(encoding, {16, 16})); // leaves columns 8..15 to no one
  EXPECT_FALSE(verifies(encoding, {8, 8}));   // register 0 is past the rows
}

TEST_F(RearrangeLayoutsTest, TransposedBlockedStaysBlocked) {
  for (auto &[shape, blocked] : blockedLayouts()) {
    SmallVector<int32_t> order(shape.size());
    for (unsigned i = 0; i < order.size(); ++i)
      order[i] = i;
    std::reverse(order.begin(), order.end());
    do {
      SmallVector<int64_t> newShape;
      SmallVector<std::string> names;
      for (int32_t d : order) {
        newShape.push_back(shape[d]);
        names.push_back(outDimName(d));
      }
      Attribute t = inferTransEncoding(blocked, shape, order);
      ASSERT_TRUE(isa_and_present<BlockedEncodingAttr>(t));
      LinearLayout moved = renameOutDims(layoutOf(blocked, shape).transposeOuts(names),
                                         outDimNames(shape.size()));
      EXPECT_EQ(layoutOf(t, newShape), moved);
    } while (std::next_permutation(order.begin(), order.end()));
  }
}

TEST_F(RearrangeLayoutsTest, TransposeOfASliceKeepsEveryElementInPlace) {
  auto parent = getBlockedLayout(&ctx, {4, 16, 32}, {1, 1, 4}, {2, 1, 0}, 4);
  auto slice = SliceEncodingAttr::get(&ctx, 0, parent); // 16 x 32
  Attribute t = inferTransEncoding(slice, {16, 32}, {1, 0});
  ASSERT_TRUE(t);
  EXPECT_TRUE(verifies(t, {32, 16}));
  LinearLayout src = layoutOf(slice, {16, 32}), dst = layoutOf(t, {32, 16});
  for (int32_t r = 0; r < src.getInDimSize(kRegister); ++r)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t w = 0; w < 4; ++w) {
        Image a = src.apply({{kRegister, r}, {kLane, lane}, {kWarp, w}});
        EXPECT_EQ(dst.apply({{kRegister, r}, {kLane, lane}, {kWarp, w}}),
                  Image({a[1], a[0]}));
      }
}

TEST_F(RearrangeLayoutsTest, ReshapeRefoldsRowMajor) {
  // 32 x 64 with 4-wide rows: flattened, the second column repetition is
  // element 32 and the row repetition 1024, where no blocked layout of
  // 2048 elements puts registers.
  auto rows = BlockedEncodingAttr::get(&ctx, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  Attribute flat = inferReshapeEncoding(rows, {32, 64}, {2048});
  ASSERT_TRUE(isa_and_present<LinearEncodingAttr>(flat));
  EXPECT_EQ(layoutOf(flat, {2048}).getBases(kRegister),
            ArrayRef<Image>({{1}, {2}, {32}, {1024}}));
  EXPECT_TRUE(verifies(flat, {2048}));
  // Folding it back gives the same places as the blocked layout.
  Attribute back = inferReshapeEncoding(flat, {2048}, {32, 64});
  EXPECT_TRUE(isSameLayout(back, rows, {32, 64}));
  // A vector layout cut into rows is a blocked layout of rows.
  auto vector = getBlockedLayout(&ctx, {1024}, {4}, {0}, 4);
  Attribute cut = inferReshapeEncoding(vector, {1024}, {8, 128});
  ASSERT_TRUE(isa_and_present<BlockedEncodingAttr>(cut));
  EXPECT_EQ(cut, BlockedEncodingAttr::get(&ctx, {1, 4}, {1, 32}, {4, 1}, {1, 0}));
}

TEST_F(RearrangeLayoutsTest, ReshapeKeepsCopiesCopies) {
  // 16 elements over 128 threads: most threads hold copies, and still do
  // after a reshape.
  auto small = getBlockedLayout(&ctx, {16}, {1}, {0}, 4);
  Attribute grid = inferReshapeEncoding(small, {16}, {4, 4});
  ASSERT_TRUE(grid);
  EXPECT_TRUE(verifies(grid, {4, 4}));
  LinearLayout l = layoutOf(grid, {4, 4});
  EXPECT_EQ(l.getFreeVariableMask(kLane), 0b10000);
  EXPECT_EQ(l.getFreeVariableMask(kWarp), 0b11);
}

TEST_F(RearrangeLayoutsTest, SliceOfALinearLayout) {
  // What a reduction of a flattened transpose refolded to 16 x 128 gives:
  // the slice keeps each thread's elements of the other dimension, and
  // the bits along the reduced one go free (registers holding only them
  // are dropped).
  auto rows = BlockedEncodingAttr::get(&ctx, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  Attribute t = inferTransEncoding(rows, {32, 64}, {1, 0});
  Attribute folded = inferReshapeEncoding(
      inferReshapeEncoding(t, {64, 32}, {2048}), {2048}, {16, 128});
  ASSERT_TRUE(isa_and_present<LinearEncodingAttr>(folded));
  LinearLayout full = layoutOf(folded, {16, 128});
  for (unsigned dim : {0u, 1u}) {
    auto slice = SliceEncodingAttr::get(&ctx, dim, folded);
    int64_t kept = dim ? 16 : 128;
    EXPECT_TRUE(verifies(slice, {kept}));
    LinearLayout sliced = layoutOf(slice, {kept});
    LinearLayout expected = renameOutDims(full.dropOutDim(outDimName(dim)), {"dim0"})
                                .removeZeroBases(kRegister);
    EXPECT_EQ(sliced, expected) << dim;
  }
}
