// A complete C++ program that runs tilec's vector add on the GPU.
//
// It loads kernels/vector_add.py (the same file Python users decorate with
// @tilec.jit), launches `add` on random inputs, and checks every element
// against a float64 reference. Build: part of `make`; run:
//   build/bin/tilec-example-vector-add [n]
#include <tilec/tilec.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

int main(int argc, char **argv) {
  int32_t n = argc > 1 ? std::atoi(argv[1]) : (1 << 20) + 3;
  try {
    // $TILEC_KERNELS_DIR overrides the folder compiled in (for bundles).
    const char *dir = std::getenv("TILEC_KERNELS_DIR");
    auto lib = tilec::Library::fromFile(
        std::string(dir ? dir : TILEC_KERNELS_DIR) + "/vector_add.py");
    tilec::Kernel add = lib.kernel("add");

    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n), y(n), out(n);
    for (int32_t i = 0; i < n; ++i) {
      x[i] = dist(rng);
      y[i] = dist(rng);
    }
    size_t bytes = size_t(n) * sizeof(float);
    auto dx = tilec::Buffer::allocate(bytes), dy = tilec::Buffer::allocate(bytes),
         dout = tilec::Buffer::allocate(bytes);
    dx.copyFromHost(x.data(), bytes);
    dy.copyFromHost(y.data(), bytes);
    dout.fill(0xff); // NaN everywhere: an element not written cannot pass

    const int block = 1024;
    add.launch({unsigned(tilec::cdiv(n, block))},
               {{dx, "fp32"}, {dy, "fp32"}, {dout, "fp32"}, n},
               {{"BLOCK", block}});
    dout.copyToHost(out.data(), bytes);

    int32_t bad = 0;
    for (int32_t i = 0; i < n; ++i) {
      double ref = double(x[i]) + double(y[i]);
      if (!(std::fabs(out[i] - ref) <= 1e-6 * (1 + std::fabs(ref))))
        ++bad;
    }
    std::printf("vector add, n = %d: %s (%d wrong elements)\n", n,
                bad ? "FAILED" : "ok", bad);
    return bad ? 1 : 0;
  } catch (const tilec::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
