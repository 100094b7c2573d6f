// Compiles the installed vector add to PTX and runs it on the CPU
// interpreter (no GPU needed), checking every element.
#include <tilec/tilec.h>

#include <cstdio>
#include <vector>

int main() {
  try {
    auto lib = tilec::Library::fromFile(std::string(KERNELS_DIR) + "/vector_add.py");
    tilec::Kernel add = lib.kernel("add");
    std::string ptx =
        add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16", {{"BLOCK", 256}}, 4, "sm_90a").ptx();
    if (ptx.find(".entry add") == std::string::npos) {
      std::fprintf(stderr, "no kernel entry in the PTX\n");
      return 1;
    }
    const int n = 1000;
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i) {
      x[i] = float(i);
      y[i] = 0.5f;
    }
    tilec::LaunchOptions options;
    options.backend = tilec::Backend::Interpreter;
    add.launch({tilec::cdiv(n, 256)},
               {tilec::Arg::host(x, tilec::ScalarType::FP32),
                tilec::Arg::host(y, tilec::ScalarType::FP32),
                tilec::Arg::host(out, tilec::ScalarType::FP32), n},
               {{"BLOCK", 256}}, options);
    for (int i = 0; i < n; ++i)
      if (out[i] != float(i) + 0.5f) {
        std::fprintf(stderr, "element %d: %g\n", i, out[i]);
        return 1;
      }
    std::printf("jit consumer: PTX compiled, %d elements right on the interpreter\n", n);
    return 0;
  } catch (const tilec::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
