// Launches the AOT-compiled vector add where there is a GPU; without one,
// checks that the launch function refuses a bad argument and reports the
// missing driver.
#include "consumer_kernels.h"

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <vector>

int main() {
  alignas(16) static float host[16];
  tilec::aot::Status s = consumer::add({1}, host, host, host, 17);
  if (s.code != tilec::aot::kInvalidArgument) {
    std::fprintf(stderr, "n = 17 was not refused (code %d)\n", s.code);
    return 1;
  }
  const char *image = nullptr;
  s = consumer::load_kernels(&image);
  if (s.code == tilec::aot::kNoDriver) {
    std::printf("aot consumer: no CUDA driver here (%s); arguments checked\n", s.message);
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message);
    return 1;
  }
  // A GPU: run it, with the driver's own memory functions.
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  using Alloc = int (*)(unsigned long long *, size_t);
  using Copy = int (*)(unsigned long long, const void *, size_t);
  using Back = int (*)(void *, unsigned long long, size_t);
  auto alloc = reinterpret_cast<Alloc>(dlsym(cuda, "cuMemAlloc_v2"));
  auto copy = reinterpret_cast<Copy>(dlsym(cuda, "cuMemcpyHtoD_v2"));
  auto back = reinterpret_cast<Back>(dlsym(cuda, "cuMemcpyDtoH_v2"));
  const int n = 4096;
  std::vector<float> x(n, 1.5f), out(n, 0.0f);
  unsigned long long dx = 0, dout = 0;
  if (alloc(&dx, n * 4) || alloc(&dout, n * 4) || copy(dx, x.data(), n * 4))
    return 1;
  auto p = [](unsigned long long a) { return reinterpret_cast<const void *>(a); };
  s = consumer::add({n / 1024}, p(dx), p(dx), p(dout), n);
  if (!s.ok() || back(out.data(), dout, n * 4)) {
    std::fprintf(stderr, "launch failed: %s\n", s.message);
    return 1;
  }
  for (float v : out)
    if (v != 3.0f)
      return 1;
  std::printf("aot consumer: %s, %d elements right\n", image, n);
  return 0;
}
