// libFuzzer target: kernel source text → parse → tile IR generation → the
// whole pipeline → PTX, through jit::compile, the entry point every compile
// of tilec goes through (the CLI, the C++ API, Python). FuzzCase.h says how
// an input picks the kernel, its signature, constexprs and options.
//
// A crash, a sanitizer report, a failed assertion or an error that only a
// compiler bug can produce (FuzzCase.h: checkErrors) is a finding; so is a
// compile that fails without saying why, or succeeds without PTX.
#include "FuzzCase.h"

#include <cstdio>
#include <cstdlib>

using namespace tilec;

namespace {
// Tiles of up to 4096 elements and 4000 ops of tile IR: every kernel of
// kernels/ at small block sizes, compiled in well under a second.
constexpr int64_t kMaxElements = 4096;
constexpr int64_t kMaxOps = 4000;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::optional<fuzz::FuzzCase> c = fuzz::makeCase(data, size);
  if (!c || !fuzz::smallEnough(*c, kMaxElements, kMaxOps))
    return 0;
  jit::CompileResult r =
      jit::compile(*c->kernel, c->signature, c->constexprs, c->options);
  if (!r.ok()) {
    if (r.errors.empty()) {
      std::fprintf(stderr, "tilec fuzz: compile failed without an error\n%s\n",
                   c->source.c_str());
      std::abort();
    }
    fuzz::checkErrors(*c, r.errors);
    fuzz::report("compile error", r.errors[0]);
    return 0;
  }
  if (r.kernel->stages.ptx.find(".entry " + r.kernel->name) == std::string::npos) {
    std::fprintf(stderr, "tilec fuzz: no '.entry %s' in the PTX\n%s\n",
                 r.kernel->name.c_str(), c->source.c_str());
    std::abort();
  }
  fuzz::report("compiled", r.kernel->name);
  return 0;
}
