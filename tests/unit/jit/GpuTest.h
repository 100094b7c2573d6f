// The fixture of the parameterised GPU kernel tests: each test skips
// itself (saying why) where no CUDA driver can be loaded.
#pragma once

#include "runtime/Device.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec::test {

template <typename Param>
class GpuKernelTest : public ::testing::TestWithParam<Param> {
protected:
  void SetUp() override {
    std::string why;
    if (!tilec::runtime::driverAvailable(&why))
      GTEST_SKIP() << why;
  }
  /// Bytes of one element of the case's dtype ("fp32", or a 16-bit type);
  /// for parameters with a `dtype` field.
  size_t bytes() const {
    return std::string(this->GetParam().dtype) == "fp32" ? 4 : 2;
  }
};

} // namespace tilec::test
