// Shared helpers of the interpreter tests: kernels from files or strings,
// seeded random inputs, tolerance checks.
#pragma once

#include "compiler/Pipeline.h"
#include "runtime/JIT/Compiler.h"
#include "runtime/JIT/Interpret.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::test {

/// The seed of this run: TILEC_TEST_SEED when set, else a fresh one (each
/// test prints it with SCOPED_TRACE, so a failure can be replayed).
inline uint64_t testSeed() {
  static uint64_t seed = [] {
    if (const char *s = std::getenv("TILEC_TEST_SEED"))
      return uint64_t(std::strtoull(s, nullptr, 0));
    return uint64_t(std::random_device{}());
  }();
  return seed;
}

/// Run `kernel` of hand-written tile IR on the interpreter.
inline interp::RunStats runIR(const std::string &ir, const std::string &kernel,
                              const std::vector<interp::Arg> &args,
                              interp::Grid grid = {}) {
  mlir::DialectRegistry registry;
  registerTilecDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  if (!module)
    throw std::runtime_error("the test IR does not parse");
  return interp::run(*module, kernel, grid, args);
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Run `kernel` of `source` (named `path` in messages) on the interpreter.
inline jit::InterpretResult interpretSource(
    const std::string &path, const std::string &source, const std::string &kernel,
    const std::string &signature, const std::map<std::string, dsl::Value> &constexprs,
    interp::Grid grid, std::vector<interp::Arg> args) {
  jit::ParsedSource parsed = jit::parseSource(path, source);
  jit::InterpretResult result;
  if (!parsed.ok()) {
    result.errors = parsed.errors;
    return result;
  }
  auto fn = parsed.function(kernel);
  if (!fn) {
    result.errors.push_back("no function '" + kernel + "'");
    return result;
  }
  jit::InterpretOptions options;
  options.staticPrint = [](const std::string &) {};
  return jit::interpret(*fn, signature, constexprs, grid, std::move(args), options);
}

/// Run `kernel` of kernels/FILE.
inline jit::InterpretResult interpretKernelFile(
    const std::string &file, const std::string &kernel, const std::string &signature,
    const std::map<std::string, dsl::Value> &constexprs, interp::Grid grid,
    std::vector<interp::Arg> args) {
  std::string path = std::string(TILEC_KERNELS_DIR) + "/" + file;
  return interpretSource(path, readFile(path), kernel, signature, constexprs, grid,
                         std::move(args));
}

inline std::string firstError(const jit::InterpretResult &r) {
  return r.errors.empty() ? "" : r.errors[0];
}

inline std::map<std::string, dsl::Value> ints(
    std::initializer_list<std::pair<const char *, int64_t>> values) {
  std::map<std::string, dsl::Value> m;
  for (auto &[k, v] : values)
    m[k] = dsl::Value::ofInt(v);
  return m;
}

inline uint32_t cdiv(int64_t a, int64_t b) { return uint32_t((a + b - 1) / b); }

/// Uniform values in [lo, hi).
inline std::vector<double> randomValues(std::mt19937_64 &rng, size_t n, double lo,
                                        double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return v;
}

/// Counts values outside |got - want| <= abs + rel * |want| (NaN is never
/// close) and remembers the first few, for one EXPECT per array.
struct Closeness {
  double rel, abs;
  size_t bad = 0, checked = 0;
  double worst = 0; ///< largest |got - want| / (abs + rel * |want|)
  std::string first;
  /// `extra`: more absolute error allowed for this value (a bound that
  /// depends on how it was computed, e.g. a long sum's).
  void operator()(double got, double want, const std::string &where, double extra = 0) {
    ++checked;
    double limit = abs + extra + rel * std::fabs(want);
    double err = std::fabs(got - want);
    if (!(err <= limit)) {
      if (++bad <= 5)
        first += where + ": got " + std::to_string(got) + ", want " +
                 std::to_string(want) + "\n";
    }
    if (std::isfinite(err / limit) && err / limit > worst)
      worst = err / limit;
  }
};
#define EXPECT_ALL_CLOSE(c)                                                     \
  EXPECT_EQ((c).bad, 0u) << (c).bad << " of " << (c).checked                     \
                         << " values differ; first:\n"                           \
                         << (c).first

} // namespace tilec::test
