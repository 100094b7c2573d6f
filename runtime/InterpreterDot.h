// The interpreter's tile.dot: the arithmetic of a tensor-core matrix
// product on the host, rounding as tilec's GPU code rounds, so that a
// kernel's CPU run predicts its GPU run to the last few ulps.
#pragma once

#include <cstdint>
#include <vector>

namespace tilec::interp {

/// How the products of a dot are formed and summed.
enum class DotArithmetic {
  Exact16,  ///< f16/bf16 operands: products exact, summed in f32
  F16Acc,   ///< f16 operands into an f16 accumulator, rounded every 16 terms
  TF32,     ///< f32 operands rounded to tf32 (ties away), summed in f32
  TF32x3,   ///< f32 split into tf32 high and low parts, three products
  IEEE,     ///< f32 fused multiply-add per term
};

/// d = a @ b + c over `batch` matrices: a is batch x m x k, b batch x k x n,
/// c (in) and d (out, in `acc`) batch x m x n, all row-major, values exact
/// in doubles.
void dotFloat(DotArithmetic arithmetic, const std::vector<double> &a,
              const std::vector<double> &b, std::vector<double> &acc,
              int64_t batch, int64_t m, int64_t n, int64_t k);

/// The same for i8 operands into an i32 accumulator (wrapping sums).
void dotInt(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
            std::vector<int64_t> &acc, int64_t batch, int64_t m, int64_t n,
            int64_t k);

/// `x` rounded to tf32 (10 fraction bits) to nearest, ties away from zero,
/// as `cvt.rna.tf32.f32` does.
float roundToTF32(float x);

} // namespace tilec::interp
