// A C++ program that runs tilec kernels with no compiler inside: the
// kernels were compiled ahead of time by `tilec aot` (see CMakeLists.txt in
// this folder, which asks for them with tilec_add_aot_kernels), and the
// program links only the C++ runtime and, through dlopen, the CUDA driver.
//
// It runs vector add and an fp16 matmul (128 x 64 x 64 tiles, three
// pipeline stages: 56 KiB of shared memory) on random inputs and checks
// every element against a float64 reference computed here. Run:
//   build/bin/tilec-example-aot [M N K]
#include "example_kernels.h" // written by tilec aot at build time

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <vector>

namespace {

// The few CUDA driver calls the example itself needs (memory, copies): the
// generated code loads the driver its own way, so the example does too.
struct Memory {
  int (*alloc)(unsigned long long *, size_t);
  int (*free)(unsigned long long);
  int (*toDevice)(unsigned long long, const void *, size_t);
  int (*toHost)(void *, unsigned long long, size_t);
  int (*synchronize)();
};

bool loadMemory(Memory &m) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda)
    return false;
  m.alloc = reinterpret_cast<decltype(m.alloc)>(dlsym(cuda, "cuMemAlloc_v2"));
  m.free = reinterpret_cast<decltype(m.free)>(dlsym(cuda, "cuMemFree_v2"));
  m.toDevice = reinterpret_cast<decltype(m.toDevice)>(dlsym(cuda, "cuMemcpyHtoD_v2"));
  m.toHost = reinterpret_cast<decltype(m.toHost)>(dlsym(cuda, "cuMemcpyDtoH_v2"));
  m.synchronize = reinterpret_cast<decltype(m.synchronize)>(dlsym(cuda, "cuCtxSynchronize"));
  return m.alloc && m.free && m.toDevice && m.toHost && m.synchronize;
}

bool check(const tilec::aot::Status &s, const char *what) {
  if (!s.ok())
    std::fprintf(stderr, "%s: %s (code %d)\n", what, s.message, s.code);
  return s.ok();
}

/// fp16 bits of a float that is exactly representable (small integers / 8).
uint16_t toHalf(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  if ((x & 0x7fffffffu) == 0)
    return uint16_t(x >> 16);
  uint32_t sign = (x >> 16) & 0x8000u;
  int e = int((x >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | (uint32_t(e) << 10) | ((x & 0x7fffffu) >> 13));
}

} // namespace

int main(int argc, char **argv) {
  int M = argc > 3 ? std::atoi(argv[1]) : 1000;
  int N = argc > 3 ? std::atoi(argv[2]) : 512;
  int K = argc > 3 ? std::atoi(argv[3]) : 272;
  if (M <= 0 || N <= 0 || K <= 0 || N % 16 || K % 16) {
    std::fprintf(stderr, "usage: %s [M N K] (N and K multiples of 16)\n", argv[0]);
    return 2;
  }
  // Loading first says which machine code this GPU runs, or why none.
  const char *image = nullptr;
  if (!check(example_kernels::load_kernels(&image), "loading the kernels"))
    return 1;
  std::printf("machine code: %s\n", image);
  Memory cu;
  if (!loadMemory(cu))
    return 1;

  std::mt19937 rng(7);
  // Vector add: n not a multiple of the block, and divisible by 16 as the
  // signature promised.
  const int n = (1 << 20) + 48;
  std::vector<float> x(n), y(n), sum(n);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = uniform(rng);
    y[i] = uniform(rng);
  }
  unsigned long long dx = 0, dy = 0, dsum = 0;
  cu.alloc(&dx, n * 4);
  cu.alloc(&dy, n * 4);
  cu.alloc(&dsum, n * 4);
  cu.toDevice(dx, x.data(), n * 4);
  cu.toDevice(dy, y.data(), n * 4);
  auto ptr = [](unsigned long long p) { return reinterpret_cast<const void *>(p); };
  if (!check(example_kernels::add({unsigned((n + 1023) / 1024)}, ptr(dx), ptr(dy), ptr(dsum), n),
             "add"))
    return 1;

  // C (fp32) = A (fp16, M x K) @ B (fp16, K x N), row-major; values that
  // fp16 holds exactly, so that only the sums' order can differ.
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
  std::vector<uint16_t> a16(a.size()), b16(b.size());
  std::uniform_int_distribution<int> small(-8, 8);
  for (size_t i = 0; i < a.size(); ++i)
    a16[i] = toHalf(a[i] = small(rng) / 8.0f);
  for (size_t i = 0; i < b.size(); ++i)
    b16[i] = toHalf(b[i] = small(rng) / 8.0f);
  unsigned long long da = 0, db = 0, dc = 0;
  cu.alloc(&da, a16.size() * 2);
  cu.alloc(&db, b16.size() * 2);
  cu.alloc(&dc, c.size() * 4);
  cu.toDevice(da, a16.data(), a16.size() * 2);
  cu.toDevice(db, b16.data(), b16.size() * 2);
  unsigned tiles = unsigned(((M + 127) / 128) * ((N + 63) / 64)); // BLOCK_M x BLOCK_N
  // The unused bias pointer gets C, as kernels/matmul.py's wrapper does.
  if (!check(example_kernels::matmul_fp16({tiles}, ptr(da), ptr(db), ptr(dc), ptr(dc), M, N, K,
                                          K, 1, N, 1, N, 1),
             "matmul_fp16"))
    return 1;
  if (cu.synchronize() != 0) {
    std::fprintf(stderr, "the kernels failed on the GPU\n");
    return 1;
  }
  cu.toHost(sum.data(), dsum, n * 4);
  cu.toHost(c.data(), dc, c.size() * 4);

  long badSum = 0, badC = 0;
  for (int i = 0; i < n; ++i) {
    double ref = double(x[i]) + double(y[i]);
    badSum += !(std::fabs(sum[i] - ref) <= 1e-6 * (1 + std::fabs(ref)));
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k)
        ref += double(a[size_t(i) * K + k]) * double(b[size_t(k) * N + j]);
      // Products of k/8 values are multiples of 1/64; their sums are exact
      // in fp32 while below 2^18.
      badC += c[size_t(i) * N + j] != ref;
    }
  std::printf("vector add, n = %d: %ld wrong\n", n, badSum);
  std::printf("matmul %d x %d x %d (fp16 in, fp32 out): %ld wrong\n", M, N, K, badC);
  for (unsigned long long p : {dx, dy, dsum, da, db, dc})
    cu.free(p);
  bool ok = badSum == 0 && badC == 0;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
