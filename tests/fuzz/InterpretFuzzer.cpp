// libFuzzer target: kernel source text and small buffers → the front end →
// the tile optimisation pipeline → the CPU interpreter, through
// jit::interpret (what tilec-interpret and the interpreter tests use).
// FuzzCase.h says how an input picks the kernel, signature, constexprs,
// grid and buffers; the bytes after the input's first NUL fill the buffers.
//
// Each buffer is allocated exactly as large as the interpreter is told, so
// an access it lets through past the end is an AddressSanitizer report. An
// interpreter error is the kernel's (out of bounds, unsupported op), unless
// it says "internal error".
#include "FuzzCase.h"

#include "runtime/JIT/Interpret.h"

#include "dsl/Signature.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace tilec;

namespace {
// Tiles of up to 1024 elements, at most 2000 ops of tile IR, and a run of
// at most 20000 ops: milliseconds of interpretation.
constexpr int64_t kMaxElements = 1024;
constexpr int64_t kMaxOps = 2000;
constexpr uint64_t kMaxRunOperations = 20000;

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::optional<fuzz::FuzzCase> c = fuzz::makeCase(data, size);
  if (!c || !fuzz::smallEnough(*c, kMaxElements, kMaxOps))
    return 0;
  dsl::Signature sig;
  std::string error;
  if (!dsl::parseSignature(c->signature, sig, error)) {
    fuzz::report("signature error", error);
    return 0;
  }
  std::vector<std::string> names = jit::runtimeParameterNames(*c->kernel);

  std::vector<std::unique_ptr<void, FreeDeleter>> buffers;
  std::vector<interp::Arg> args;
  size_t next = 0; // the next byte of c->data
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const dsl::ArgSpec &a = sig.args[i];
    std::string name = i < names.size() ? names[i] : "";
    auto value = c->runtimeValues.find(name);
    if (a.type.isPointer) {
      unsigned bits = a.type.pointee().bits();
      size_t bytes = size_t(c->elements) * (bits < 8 ? 1 : bits / 8);
      void *p = nullptr;
      if (posix_memalign(&p, 16, bytes) != 0)
        return 0;
      buffers.emplace_back(p);
      auto *b = static_cast<uint8_t *>(p);
      for (size_t k = 0; k < bytes; ++k, ++next)
        b[k] = c->data.empty() ? uint8_t(next * 37 + 11)
                               : uint8_t(c->data[next % c->data.size()]);
      args.push_back(interp::Arg::ofBuffer(p, bytes));
    } else if (a.equalsOne) {
      args.push_back(interp::Arg::ofInt(1));
    } else if (value != c->runtimeValues.end()) {
      dsl::Value v = jit::parseConstexprValue(value->second);
      if (v.kind == dsl::Value::Kind::Float)
        args.push_back(interp::Arg::ofFloat(v.floatValue));
      else
        args.push_back(interp::Arg::ofInt(v.kind == dsl::Value::Kind::Int ? v.intValue
                                                                          : 0));
    } else if (a.type.isFloat()) {
      args.push_back(interp::Arg::ofFloat(0.5));
    } else {
      // Sizes and strides of small tiles: 16x16 fits the default buffers.
      args.push_back(interp::Arg::ofInt(a.divisibility > 1 ? 16 : 8));
    }
  }

  jit::InterpretOptions options;
  options.staticPrint = c->options.staticPrint;
  options.debug = c->options.debug;
  options.devicePrint = [](const std::string &) {};
  options.limits.maxOperations = kMaxRunOperations;
  jit::InterpretResult r =
      jit::interpret(*c->kernel, c->signature, c->constexprs, c->grid, args, options);
  fuzz::checkErrors(*c, r.errors);
  fuzz::report(r.ok() ? "ran" : "run error", r.ok() ? c->kernel->name() : r.errors[0]);
  return 0;
}
