#include "runtime/InterpreterDot.h"

#include <cmath>
#include <cstring>

namespace tilec::interp {

float roundToTF32(float x) {
  if (!std::isfinite(x))
    return x;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  // Add half of the 13 dropped bits' weight to the magnitude, then drop
  // them: ties go away from zero. A carry into the exponent is the right
  // rounding too (to the next power of two, or to infinity).
  bits = (bits + 0x1000u) & ~0x1fffu;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

namespace {
/// x rounded to f16, through the half conversion the interpreter uses for
/// stores (to nearest even, overflow to infinity).
float roundToHalf(float x) {
  if (!std::isfinite(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e);
  int quantum = std::max(e - 1, -14) - 10;
  double r = std::ldexp(std::nearbyint(std::ldexp(double(x), -quantum)), quantum);
  if (std::fabs(r) > 65504.0)
    return std::copysign(INFINITY, x);
  return float(r);
}
} // namespace

void dotFloat(DotArithmetic arithmetic, const std::vector<double> &a,
              const std::vector<double> &b, std::vector<double> &acc,
              int64_t batch, int64_t m, int64_t n, int64_t k) {
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double &out = acc[(z * m + i) * n + j];
        float sum = float(out);
        for (int64_t p = 0; p < k; ++p) {
          float x = float(a[(z * m + i) * k + p]);
          float y = float(b[(z * k + p) * n + j]);
          switch (arithmetic) {
          case DotArithmetic::Exact16:
            sum += x * y; // exact product, one f32 rounding per term
            break;
          case DotArithmetic::F16Acc:
            sum += x * y;
            if (p % 16 == 15 || p == k - 1)
              sum = roundToHalf(sum); // each mma.sync m16n8k16 rounds
            break;
          case DotArithmetic::TF32:
            sum += roundToTF32(x) * roundToTF32(y);
            break;
          case DotArithmetic::TF32x3: {
            float xh = roundToTF32(x), yh = roundToTF32(y);
            float xl = roundToTF32(x - xh), yl = roundToTF32(y - yh);
            // The small terms first, as the three MMAs run.
            sum += xl * yh;
            sum += xh * yl;
            sum += xh * yh;
            break;
          }
          case DotArithmetic::IEEE:
            sum = std::fma(x, y, sum);
            break;
          }
        }
        out = double(sum);
      }
}

void dotInt(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
            std::vector<int64_t> &acc, int64_t batch, int64_t m, int64_t n,
            int64_t k) {
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t &out = acc[(z * m + i) * n + j];
        uint32_t sum = uint32_t(out);
        for (int64_t p = 0; p < k; ++p)
          sum += uint32_t(a[(z * m + i) * k + p] * b[(z * k + p) * n + j]);
        out = int64_t(int32_t(sum));
      }
}

} // namespace tilec::interp
