// Shared-memory layouts for conversions: the vector width they allow each
// side, and bank conflicts counted by a model of the hardware's banks.
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tilec::tilegpu;

namespace {
struct SharedLayoutsTest : ::testing::Test {
  SharedLayoutsTest() { ctx.loadDialect<TileGPUDialect>(); }
  LinearLayout layout(ArrayRef<int64_t> shape, ArrayRef<unsigned> spt,
                      ArrayRef<unsigned> order, unsigned warps = 4) {
    auto attr = getBlockedLayout(&ctx, shape, spt, order, warps);
    return attr.toLinearLayout(shape);
  }
  /// (vector, wavefronts per instruction) of one side through `shared`.
  std::pair<unsigned, unsigned> access(const LinearLayout &regs,
                                       const LinearLayout &shared,
                                       unsigned bytes) {
    LinearLayout toOffset = *shared.invertAndCompose(regs);
    unsigned vector = sharedAccessVector(toOffset, bytes);
    return {vector, sharedWavefronts(toOffset, vector, bytes)};
  }
  MLIRContext ctx;
};
} // namespace

TEST_F(SharedLayoutsTest, WavefrontModel) {
  // Row-major 32x32 fp32, one row per warp's 32 lanes: one wavefront.
  LinearLayout rows = layout({32, 32}, {1, 1}, {1, 0});
  LinearLayout plain = SwizzledSharedEncodingAttr::get(&ctx, 1, 1, 1, {1, 0})
                           .toLinearLayout({32, 32});
  EXPECT_EQ(access(rows, plain, 4), std::make_pair(1u, 1u));
  // Reading it down the columns without a swizzle: all 32 lanes in bank 0.
  LinearLayout cols = layout({32, 32}, {1, 1}, {0, 1});
  EXPECT_EQ(access(cols, plain, 4), std::make_pair(1u, 32u));
  // The classic XOR swizzle removes the conflict.
  LinearLayout swizzled = SwizzledSharedEncodingAttr::get(&ctx, 1, 1, 32, {1, 0})
                              .toLinearLayout({32, 32});
  EXPECT_EQ(access(cols, swizzled, 4), std::make_pair(1u, 1u));
  // 16-byte vectors: a quarter warp per wavefront, four per instruction.
  LinearLayout vec = layout({32, 32}, {1, 4}, {1, 0});
  EXPECT_EQ(access(vec, plain, 4), std::make_pair(4u, 4u));
}

TEST_F(SharedLayoutsTest, TransposeIsConflictFreeOnBothSides) {
  for (unsigned bytes : {2u, 4u, 8u}) {
    unsigned vec = 16 / bytes;
    LinearLayout byRows = layout({64, 64}, {1, vec}, {1, 0});
    LinearLayout byCols = layout({64, 64}, {vec, 1}, {0, 1});
    LinearLayout shared = conflictFreeSharedLayout(byCols, byRows, bytes);
    EXPECT_TRUE(shared.isInjective() && shared.isSurjective());
    auto [srcVector, srcWaves] = access(byCols, shared, bytes);
    auto [dstVector, dstWaves] = access(byRows, shared, bytes);
    // Neither side has a conflict: each takes the minimum of 128 bytes per
    // wavefront at its width (a narrow access still takes one).
    EXPECT_EQ(srcWaves, std::max(1u, 32 * srcVector * bytes / 128)) << bytes;
    EXPECT_EQ(dstWaves, std::max(1u, 32 * dstVector * bytes / 128)) << bytes;
    // 2-byte elements: one side moves 16 bytes at a time (both cannot:
    // their vectors run along different dimensions). For 4- and 8-byte
    // elements a 16-byte vector on one side would leave the other side's
    // lanes two to a bank, so both move single elements, which costs fewer
    // wavefronts in all.
    if (bytes == 2)
      EXPECT_EQ(std::max(srcVector, dstVector) * bytes, 16u);
    else
      EXPECT_EQ(srcVector + dstVector, 2u) << bytes;
  }
}

TEST_F(SharedLayoutsTest, SameVectorOnBothSidesIsKept) {
  // Warps split rows in one, columns in the other; registers agree.
  LinearLayout a = layout({64, 64}, {1, 4}, {1, 0}, 4);
  auto other = BlockedEncodingAttr::get(&ctx, {1, 4}, {16, 2}, {1, 4}, {1, 0});
  LinearLayout b = other.toLinearLayout({64, 64});
  LinearLayout shared = conflictFreeSharedLayout(a, b, 4);
  EXPECT_EQ(access(a, shared, 4), std::make_pair(4u, 4u));
  EXPECT_EQ(access(b, shared, 4), std::make_pair(4u, 4u));
}

TEST_F(SharedLayoutsTest, PointersMoveOneAtATime) {
  LinearLayout byRows = layout({32, 32}, {1, 4}, {1, 0});
  LinearLayout byCols = layout({32, 32}, {4, 1}, {0, 1});
  LinearLayout shared = conflictFreeSharedLayout(byCols, byRows, 0);
  EXPECT_EQ(access(byCols, shared, 0).first, 1u);
  EXPECT_EQ(access(byRows, shared, 0).first, 1u);
}

namespace {
/// Where ldmatrix / stmatrix .x4 put each register of each thread,
/// following the PTX ISA's description of the instructions rather than
/// the layouts: lane l's word j holds elements (l / 4, 2 (l % 4) + i) of
/// matrix j, i = 0, 1 (transposed: (2 (l % 4) + i, l / 4)), and lane
/// 8j + r gives the address of matrix j's row r. Returns, per (warp, lane,
/// register), the offset reached; `move` gives the row addresses.
std::vector<int32_t> emulateMatrixMove(const MatrixMove &move, int32_t registers,
                                       int32_t warps) {
  std::vector<int32_t> offsets;
  for (int32_t warp = 0; warp < warps; ++warp)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t reg = 0; reg < registers; ++reg) {
        int32_t group = reg / 8, word = (reg % 8) / 2, half = reg % 2;
        int32_t row = lane / 4, column = 2 * (lane % 4) + half;
        if (move.transposed)
          std::swap(row, column);
        int32_t rowAddress = move.addresses.apply({{kRegister, group},
                                                   {kLane, 8 * word + row},
                                                   {kWarp, warp}})[0];
        EXPECT_EQ(rowAddress % 8, 0);
        offsets.push_back(rowAddress + column);
      }
  return offsets;
}

/// The offsets `toOffset` gives each (warp, lane, register), in the order
/// of emulateMatrixMove.
std::vector<int32_t> expectedOffsets(const LinearLayout &toOffset) {
  std::vector<int32_t> offsets;
  for (int32_t warp = 0; warp < toOffset.getInDimSize(kWarp); ++warp)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t reg = 0; reg < toOffset.getInDimSize(kRegister); ++reg)
        offsets.push_back(
            toOffset.apply({{kRegister, reg}, {kLane, lane}, {kWarp, warp}})[0]);
  return offsets;
}
} // namespace

TEST_F(SharedLayoutsTest, WgmmaAccumulatorMovesAsMatricesIntoTheTMABuffer) {
  // A 128 x 256 accumulator of two warpgroups (fp16 once narrowed), written
  // into the 128-byte-swizzled buffer a TMA store reads: every register
  // lands where the layouts say, each matrix's rows in different banks.
  auto mma = MmaEncodingAttr::get(&ctx, 3, {8, 1}, {64, 256});
  LinearLayout regs = mma.toLinearLayout({128, 256});
  // Rows along N, and the buffer stored with the other dimension
  // contiguous, which takes .trans.
  for (auto [order, transposed] : {std::pair{SmallVector<unsigned>{1, 0}, false},
                                   std::pair{SmallVector<unsigned>{0, 1}, true}}) {
    LinearLayout buffer = NVMMASharedEncodingAttr::get(&ctx, 128, 16, order)
                              .toLinearLayout({128, 256});
    LinearLayout toOffset = *buffer.invertAndCompose(regs);
    std::optional<MatrixMove> move = matrixMove(toOffset);
    ASSERT_TRUE(move) << transposed;
    EXPECT_EQ(move->transposed, transposed);
    EXPECT_TRUE(isConflictFree(*move)) << transposed;
    EXPECT_EQ(emulateMatrixMove(*move, toOffset.getInDimSize(kRegister), 8),
              expectedOffsets(toOffset))
        << transposed;
  }
}

TEST_F(SharedLayoutsTest, MatrixMovesNeedRowsOfEightAndSeparateBanks) {
  auto mma = MmaEncodingAttr::get(&ctx, 3, {4, 1}, {64, 64});
  LinearLayout regs = mma.toLinearLayout({64, 64});
  // Unswizzled rows of 128 bytes: a matrix's eight rows share a bank
  // quarter, so the move fits but conflicts.
  LinearLayout plain = SwizzledSharedEncodingAttr::get(&ctx, 1, 1, 1, {1, 0})
                           .toLinearLayout({64, 64});
  std::optional<MatrixMove> move = matrixMove(*plain.invertAndCompose(regs));
  ASSERT_TRUE(move);
  EXPECT_FALSE(isConflictFree(*move));
  // A blocked layout whose threads hold one element each does not fit.
  EXPECT_FALSE(matrixMove(*plain.invertAndCompose(layout({64, 64}, {1, 1}, {1, 0}))));
}
