// Host-side conversions between float and the 16-bit formats, for GPU
// tests that build inputs and check outputs on the host.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tilec::test {

inline uint16_t toHalf(float f) {
  // Round-to-nearest-even float → IEEE half, subnormals included (inputs
  // stay far inside the range, so no overflow handling).
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  float a = std::fabs(f);
  if (a < 6.103515625e-05f) // below the smallest normal: a multiple of 2^-24
    return uint16_t(sign | uint16_t(std::nearbyint(a * 16777216.0f)));
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  uint32_t h = (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(sign | h);
}
inline float fromHalf(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0)
    return sign * std::ldexp(float(mant), -24); // zero and subnormals
  if (exp == 31)
    return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mant | 0x400), exp - 25);
}
inline uint16_t toBF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}
inline float fromBF16(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace tilec::test
