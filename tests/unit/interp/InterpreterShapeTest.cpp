// tile.trans and tile.reshape on the interpreter: the ops themselves (on
// hand-written tile IR), and kernels that use tl.trans, tl.permute,
// tl.reshape and x.T, checked element by element against the index
// arithmetic numpy uses (row-major, result dimension i = operand
// dimension dims[i]).
#include "InterpreterTestUtil.h"

#include "compiler/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <array>

using namespace tilec;
using namespace tilec::test;
using interp::Arg;

namespace {


/// Row-major index of `idx` in a tensor of `shape`.
int64_t flatIndex(const std::array<int64_t, 3> &idx, const std::array<int64_t, 3> &shape) {
  return (idx[0] * shape[1] + idx[1]) * shape[2] + idx[2];
}

TEST(InterpreterShape, TransOf3DTensor) {
  // x = range(64) as 2 x 4 x 8, transposed with order [2, 0, 1]:
  // result[i, j, k] = x[j, k, i].
  const char *ir = R"(
func.func @k(%out: !tile.ptr<i32>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %x = tile.reshape %r : tensor<64xi32> -> tensor<2x4x8xi32>
  %t = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x4x8xi32> -> tensor<8x2x4xi32>
  %f = tile.reshape %t : tensor<8x2x4xi32> -> tensor<64xi32>
  %os = tile.splat %out : tensor<64x!tile.ptr<i32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %op, %f : tensor<64x!tile.ptr<i32>>
  return
}
)";
  std::vector<int32_t> out(64, -1);
  runIR(ir, "k", {Arg::ofBuffer(out)});
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(out[size_t(flatIndex({i, j, k}, {8, 2, 4}))],
                  flatIndex({j, k, i}, {2, 4, 8}))
            << "[" << i << ", " << j << ", " << k << "]";
}

TEST(InterpreterShape, ReshapeKeepsRowMajorOrder) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %f = arith.sitofp %r : tensor<32xi32> to tensor<32xf32>
  %a = tile.reshape %f : tensor<32xf32> -> tensor<4x8xf32>
  %b = tile.reshape %a : tensor<4x8xf32> -> tensor<2x16xf32>
  %c = tile.trans %b {order = array<i32: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  %d = tile.reshape %c : tensor<16x2xf32> -> tensor<32xf32>
  %os = tile.splat %out : tensor<32x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %op, %d : tensor<32x!tile.ptr<f32>>
  return
}
)";
  std::vector<float> out(32, -1.0f);
  runIR(ir, "k", {Arg::ofBuffer(out)});
  // The 2 x 16 view transposed: out[i * 2 + j] = b[j, i] = j * 16 + i.
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(out[size_t(i * 2 + j)], float(j * 16 + i));
}

const char *kPermute = R"(
import tilec.language as tl


def permute_flat(x, out, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                 P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    offs = tl.arange(0, A * B * C)
    t = tl.load(x + offs).reshape(A, B, C)
    tl.store(out + offs, tl.permute(t, P0, P1, P2).reshape(A * B * C))


def trans_tile(x, out, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    tile = tl.load(x + rows[:, None] * N + cols[None, :])
    # x.T, tl.trans(x) and tl.trans(x, 1, 0) are one transpose.
    t = tile.T + tl.trans(tile) - tl.trans(tile, (1, 0))
    tl.store(out + cols[:, None] * M + rows[None, :], t)
)";

TEST(InterpreterShape, EveryPermutationOfA3DTile) {
  const std::array<int64_t, 3> shape = {2, 4, 8};
  std::vector<int32_t> x(64);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = int32_t(i * 7 + 3);
  std::array<int64_t, 3> p = {0, 1, 2};
  do {
    SCOPED_TRACE("dims (" + std::to_string(p[0]) + ", " + std::to_string(p[1]) +
                 ", " + std::to_string(p[2]) + ")");
    std::vector<int32_t> out(64, -1);
    auto r = interpretSource("permute.py", kPermute, "permute_flat", "*i32,*i32",
                             ints({{"A", shape[0]}, {"B", shape[1]}, {"C", shape[2]},
                                   {"P0", p[0]}, {"P1", p[1]}, {"P2", p[2]}}),
                             {1, 1, 1}, {Arg::ofBuffer(x), Arg::ofBuffer(out)});
    ASSERT_TRUE(r.ok()) << firstError(r);
    std::array<int64_t, 3> permuted = {shape[p[0]], shape[p[1]], shape[p[2]]};
    size_t bad = 0;
    for (int64_t i = 0; i < permuted[0]; ++i)
      for (int64_t j = 0; j < permuted[1]; ++j)
        for (int64_t k = 0; k < permuted[2]; ++k) {
          std::array<int64_t, 3> at = {i, j, k}, src{};
          for (int d = 0; d < 3; ++d)
            src[p[d]] = at[d];
          bad += out[size_t(flatIndex(at, permuted))] != x[size_t(flatIndex(src, shape))];
        }
    EXPECT_EQ(bad, 0u);
  } while (std::next_permutation(p.begin(), p.end()));
}

TEST(InterpreterShape, TransposeSpellings) {
  const int64_t M = 8, N = 16;
  std::vector<float> x(size_t(M * N)), out(size_t(M * N), -1.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  auto r = interpretSource("trans.py", kPermute, "trans_tile", "*fp32,*fp32",
                           ints({{"M", M}, {"N", N}}), {1, 1, 1},
                           {Arg::ofBuffer(x), Arg::ofBuffer(out)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  // out (N x M) is x^T: out[j, i] = x[i, j], stored at out[j * M + i].
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      EXPECT_EQ(out[size_t(j * M + i)], x[size_t(i * N + j)]);
}

} // namespace
