#include "FuzzCase.h"

#include "dsl/AST.h"
#include "dsl/IRGen.h"
#include "dsl/Signature.h"
#include "runtime/JIT/Interpret.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

// What the fuzz targets run with where ASAN_OPTIONS does not say otherwise
// (tests/sanitizers/env.cmake.in says why user poisoning is off).
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_leaks=1";
}

namespace tilec::fuzz {

namespace {

std::string lower(std::string s) {
  for (char &ch : s)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// The words of every `# fuzz:` line, in order.
std::vector<std::pair<std::string, std::string>> directives(const std::string &source) {
  std::vector<std::pair<std::string, std::string>> words;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || !startsWith(line.substr(start), "# fuzz:"))
      continue;
    std::istringstream in(line.substr(start + 7));
    for (std::string word; in >> word;) {
      size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0)
        continue;
      words.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    }
  }
  return words;
}

/// A number of the directive line, clamped to [lo, hi]; `fallback` when it
/// is not a number.
int64_t clampedNumber(const std::string &text, int64_t lo, int64_t hi, int64_t fallback) {
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0')
    return fallback;
  return std::clamp<int64_t>(v, lo, hi);
}

/// The signature entry a parameter named `name` most likely has.
std::string guessType(const std::string &name) {
  std::string n = lower(name);
  if (n == "n" || n == "m" || n == "k" || startsWith(n, "n_") || startsWith(n, "num") ||
      startsWith(n, "stride") || n.find("size") != std::string::npos ||
      n.find("len") != std::string::npos || n.find("rows") != std::string::npos ||
      n.find("cols") != std::string::npos)
    return "i32";
  if (n.find("eps") != std::string::npos || n.find("scale") != std::string::npos ||
      n.find("alpha") != std::string::npos || n.find("beta") != std::string::npos)
    return "fp32";
  return "*fp32";
}

} // namespace

std::optional<FuzzCase> makeCase(const uint8_t *data, size_t size) {
  FuzzCase c;
  std::string input(reinterpret_cast<const char *>(data), size);
  size_t nul = input.find('\0');
  c.source = input.substr(0, nul);
  if (nul != std::string::npos)
    c.data = input.substr(nul + 1);

  c.parsed = jit::parseSource("fuzz.py", c.source);
  if (!c.parsed.ok()) {
    report("parse error", c.parsed.errors[0]);
    return std::nullopt;
  }
  const dsl::FunctionDef *last = nullptr;
  for (const dsl::StmtPtr &s : c.parsed.module->body)
    if (auto *def = llvm::dyn_cast<dsl::FunctionDef>(s.get()))
      last = def;
  if (!last) {
    report("no function");
    return std::nullopt;
  }

  auto words = directives(c.source);
  std::string kernelName = last->name;
  for (const auto &[key, value] : words)
    if (key == "kernel" && c.parsed.function(value))
      kernelName = value;
  c.kernel = c.parsed.function(kernelName);
  if (!c.kernel) // `last` named something else later (NAME = 1)
    return std::nullopt;

  std::vector<std::string> runtime = jit::runtimeParameterNames(*c.kernel);
  std::set<std::string> runtimeNames(runtime.begin(), runtime.end());
  bool haveSignature = false;
  for (const auto &[key, value] : words) {
    if (key == "kernel") {
      continue;
    } else if (key == "sig") {
      c.signature = value;
      haveSignature = true;
    } else if (key == "warps") {
      c.options.numWarps = unsigned(clampedNumber(value, 0, 64, 4));
    } else if (key == "stages") {
      c.options.numStages = unsigned(clampedNumber(value, 0, 32, 3));
    } else if (key == "target") {
      c.options.target = value;
    } else if (key == "debug") {
      c.options.debug = value != "0";
    } else if (key == "elems") {
      c.elements = unsigned(clampedNumber(value, 1, 1024, 64));
    } else if (key == "grid") {
      uint32_t dims[3] = {1, 1, 1};
      std::istringstream in(value);
      std::string part;
      for (int i = 0; i < 3 && std::getline(in, part, ','); ++i)
        dims[i] = uint32_t(clampedNumber(part, 1, 4, 1));
      c.grid = {dims[0], dims[1], dims[2]};
    } else if (runtimeNames.count(key)) {
      c.runtimeValues[key] = value;
    } else {
      // A constexpr, or a name the kernel does not have (an error to report).
      c.constexprs[key] = jit::parseConstexprValue(value);
    }
  }
  if (!haveSignature)
    for (size_t i = 0; i < runtime.size(); ++i)
      c.signature += (i ? "," : "") + guessType(runtime[i]);
  for (const dsl::Param &p : c.kernel->def->params)
    if (!runtimeNames.count(p.name) && !p.defaultValue && !c.constexprs.count(p.name))
      c.constexprs[p.name] = dsl::Value::ofInt(16);
  c.options.staticPrint = [](const std::string &) {};
  return c;
}

bool smallEnough(const FuzzCase &c, int64_t maxElements, int64_t maxOps) {
  dsl::KernelSpecialization spec;
  std::string error;
  if (!dsl::parseSignature(c.signature, spec.signature, error))
    return true; // compile and interpret report it before the front end
  spec.constexprs = c.constexprs;
  mlir::MLIRContext ctx(jit::tilecDialectRegistry(),
                        mlir::MLIRContext::Threading::DISABLED);
  std::vector<std::string> errors;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      jit::generateTileIR(ctx, *c.kernel, spec, c.options.staticPrint, errors);
  if (!module) {
    checkErrors(c, errors);
    report("front-end error", errors.empty() ? "" : errors[0]);
    return false;
  }
  int64_t ops = 0;
  bool small = true;
  module->walk([&](mlir::Operation *op) {
    if (++ops > maxOps)
      small = false;
    for (mlir::Type t : op->getResultTypes())
      if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(t))
        if (shaped.hasStaticShape() && shaped.getNumElements() > maxElements)
          small = false;
    return small ? mlir::WalkResult::advance() : mlir::WalkResult::interrupt();
  });
  if (!small)
    report("too large");
  return small;
}

void report(const char *outcome, const std::string &detail) {
  static const bool verbose = [] {
    const char *v = std::getenv("TILEC_FUZZ_VERBOSE");
    return v && *v == '1';
  }();
  if (verbose)
    std::fprintf(stderr, "tilec fuzz: %s%s%s\n", outcome, detail.empty() ? "" : ": ",
                 detail.substr(0, detail.find('\n')).c_str());
}

void checkErrors(const FuzzCase &c, const std::vector<std::string> &errors) {
  // Messages of passes and verifiers that only broken IR from the front end
  // (or a broken pass) can produce.
  static const char *const kBugMarkers[] = {
      "internal error",       "failed to legalize", "failed to materialize",
      "no layout rule",       "needs a module that", "translation to LLVM IR failed",
      "LLVM ERROR",           "failed to verify",
  };
  for (const std::string &e : errors) {
    std::string why;
    size_t at = e.find("error: ");
    // The message's first line: front-end errors go on with the source line.
    std::string message = at == std::string::npos ? e : e.substr(at + 7);
    message = message.substr(0, message.find('\n'));
    if (at == std::string::npos)
      why = "an error without 'error: '";
    else if (message.empty())
      why = "an empty error message";
    else if (message[0] == '\'' && message.find("' op ") != std::string::npos)
      why = "an op diagnostic (the verifier or a pass rejected the IR)";
    // A failed static assertion quotes the kernel's own message, which may
    // say anything, a marker's words included.
    bool quotesTheKernel = message.rfind("static assertion failed", 0) == 0;
    for (const char *marker : kBugMarkers)
      if (why.empty() && !quotesTheKernel && message.find(marker) != std::string::npos)
        why = std::string("'") + marker + "'";
    if (why.empty())
      continue;
    std::fprintf(stderr,
                 "tilec fuzz: compiler bug (%s) compiling '%s' with -s '%s':\n%s\n"
                 "--- source ---\n%s\n--- end ---\n",
                 why.c_str(), c.kernel->name().c_str(), c.signature.c_str(), e.c_str(),
                 c.source.c_str());
    std::abort();
  }
}

} // namespace tilec::fuzz
