#include "runtime/JIT/Compiler.h"

#include "dsl/IRGen.h"
#include "dsl/Parser.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>

namespace tilec::jit {

namespace {
double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

std::shared_ptr<const dsl::JitFunction>
ParsedSource::function(const std::string &name) const {
  if (!scope)
    return nullptr;
  const dsl::Value *v = scope->lookup(name);
  if (!v || v->kind != dsl::Value::Kind::Function || !v->function)
    return nullptr;
  // The function points at its scope without owning it (dsl/Values.h): the
  // pointer returned owns both, so that the scope, and through it every
  // function and value the function can name, lives as long as it.
  return std::shared_ptr<const dsl::JitFunction>(
      v->function.get(),
      [scope = scope, fn = v->function](const dsl::JitFunction *) {});
}

ParsedSource parseSource(const std::string &path, const std::string &text,
                         unsigned firstLine) {
  ParsedSource parsed;
  try {
    auto buffer = std::make_shared<dsl::SourceBuffer>(path, text, firstLine);
    parsed.module = dsl::parseModule(buffer);
    parsed.scope = dsl::buildFileScope(parsed.module);
  } catch (const dsl::CompileError &e) {
    parsed.errors.push_back(e.diagnostic().render());
  }
  return parsed;
}

const mlir::DialectRegistry &tilecDialectRegistry() {
  static const mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    registerTilecDialects(r);
    return r;
  }();
  return registry;
}

mlir::OwningOpRef<mlir::ModuleOp>
generateTileIR(mlir::MLIRContext &ctx, const dsl::JitFunction &kernel,
               const dsl::KernelSpecialization &spec,
               const std::function<void(const std::string &)> &staticPrint,
               std::vector<std::string> &errors) {
  try {
    return dsl::generateKernel(ctx, kernel, spec, staticPrint);
  } catch (const dsl::CompileError &e) {
    errors.push_back(e.diagnostic().render());
    return nullptr;
  }
}

CompileResult compile(const dsl::JitFunction &kernel,
                      const std::string &signatureText,
                      const std::map<std::string, dsl::Value> &constexprs,
                      const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  CompileResult result;
  auto compiled = std::make_shared<CompiledKernel>();
  compiled->name = kernel.name();

  PipelineOptions pipeline;
  pipeline.numWarps = options.numWarps;
  pipeline.numStages = options.numStages;
  pipeline.maxRegisters = options.maxRegisters;
  pipeline.debug = options.debug;
  pipeline.deterministic = options.deterministic;
  pipeline.lineInfo = options.lineInfo;
  pipeline.tensorMaps = options.tensorMaps;
  std::string error;
  std::optional<TargetInfo> target = TargetInfo::parse(options.target, error);
  if (!target) {
    result.errors.push_back("error: " + error);
    return result;
  }
  pipeline.ptx.target = *target;
  if (options.numWarps == 0 || options.numWarps > 32 ||
      (options.numWarps & (options.numWarps - 1))) {
    result.errors.push_back("error: num_warps must be a power of two from 1 "
                            "to 32, got " +
                            std::to_string(options.numWarps));
    return result;
  }
  if (options.numStages == 0 || options.numStages > 16) {
    result.errors.push_back("error: num_stages must be from 1 to 16, got " +
                            std::to_string(options.numStages));
    return result;
  }
  if (options.maxRegisters != 0 &&
      (options.maxRegisters < 16 || options.maxRegisters > 255)) {
    result.errors.push_back("error: maxnreg must be from 16 to 255 (or 0: no limit), got " +
                            std::to_string(options.maxRegisters));
    return result;
  }
  dsl::KernelSpecialization spec;
  if (!dsl::parseSignature(signatureText, spec.signature, error)) {
    result.errors.push_back("error: " + error);
    return result;
  }
  compiled->signature = spec.signature;
  spec.constexprs = constexprs;
  spec.debug = options.debug;

  mlir::MLIRContext ctx(tilecDialectRegistry(),
                        mlir::MLIRContext::Threading::DISABLED);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      generateTileIR(ctx, kernel, spec, options.staticPrint, result.errors);
  if (!module)
    return result;
  compiled->times.frontEnd = millisecondsSince(start);
  // TILEC_DUMP_IR=1: the IR exactly as the front end made it, before any
  // pass runs (and before the verifier can reject it).
  if (const char *dump = std::getenv("TILEC_DUMP_IR"); dump && *dump == '1') {
    mlir::OpPrintingFlags flags;
    flags.printGenericOpForm().assumeVerified();
    module->print(llvm::errs(), flags);
    llvm::errs() << "\n";
  }
  if (!compileToPTX(*module, pipeline, compiled->stages, result.errors)) {
    if (compiled->stages.sharedBytesExceeded) {
      result.sharedBytesNeeded = compiled->stages.sharedBytes;
      result.sharedBytesLimit = target->maxSharedBytesPerBlock;
    }
    if (result.errors.empty())
      result.errors.push_back("error: compilation of '" + kernel.name() +
                              "' failed");
    return result;
  }
  compiled->times.total = millisecondsSince(start);
  result.kernel = compiled;
  return result;
}

std::optional<TargetInfo> targetForDevice(unsigned cc, const std::string &deviceName,
                                          std::string &error) {
  TargetInfo target = TargetInfo::forComputeCapability(cc);
  if (targetRunsOn(target, cc))
    return target;
  error = "the GPU " + deviceName + " has compute capability " +
          std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
          "; tilec compiles for compute capability 8.0 and newer (" +
          TargetInfo::knownChips() + ")";
  return std::nullopt;
}

bool targetRunsOn(const TargetInfo &target, unsigned cc) {
  return target.archSpecific ? target.computeCapability == cc
                             : target.computeCapability <= cc;
}

dsl::Value parseConstexprValue(const std::string &text) {
  if (text == "True")
    return dsl::Value::ofBool(true);
  if (text == "False")
    return dsl::Value::ofBool(false);
  if (text == "None")
    return dsl::Value::none();
  std::string dtypeName = text.rfind("tl.", 0) == 0 ? text.substr(3) : text;
  if (auto dtype = dsl::DType::parse(dtypeName))
    return dsl::Value::ofDType(*dtype);
  char *end = nullptr;
  errno = 0;
  long long i = std::strtoll(text.c_str(), &end, 0);
  if (!text.empty() && *end == '\0' && errno == 0)
    return dsl::Value::ofInt(i);
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0')
    return dsl::Value::ofFloat(d);
  return dsl::Value::ofString(text);
}

std::string summarizePTX(const std::string &ptx) {
  auto count = [&](const std::string &pattern) {
    std::regex re(pattern);
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re),
                         std::sregex_iterator());
  };
  std::ostringstream os;
  std::smatch m;
  if (std::regex_search(ptx, m, std::regex(R"(\.target\s+(\S+))")))
    os << "target:            " << m[1] << "\n";
  if (std::regex_search(ptx, m, std::regex(R"(\.version\s+(\S+))")))
    os << "PTX ISA:           " << m[1] << "\n";
  os << "global loads:      " << count(R"(ld\.global[\w.:]*\.v4\.)") << " x 128-bit (v4), "
     << count(R"(ld\.global[\w.:]*\.v2\.)") << " x v2, "
     << count(R"(ld\.global(?![\w.:]*\.v[24])[\w.:]*\s)") << " scalar\n";
  os << "global stores:     " << count(R"(st\.global[\w.:]*\.v4\.)") << " x 128-bit (v4), "
     << count(R"(st\.global[\w.:]*\.v2\.)") << " x v2, "
     << count(R"(st\.global(?![\w.:]*\.v[24])[\w.:]*\s)") << " scalar\n";
  os << "predicated access: " << count(R"(@%p\d+\s+(ld|st)\.global)") << "\n";
  os << "shared memory:     " << count(R"((ld|st)\.shared)") << " accesses, "
     << count(R"(bar\.sync|barrier\.sync)") << " barriers\n";
  os << "shuffles:          " << count(R"(shfl\.sync)") << "\n";
  os << "tensor-core ops:   " << count(R"(mma\.sync|wgmma)") << "\n";
  os << "local memory:      " << count(R"((ld|st)\.local)") << " accesses\n";
  os << "TMA copies:        " << count(R"(cp\.async\.bulk\.tensor\.\w+\.shared::cluster\.global)")
     << " into shared memory, " << count(R"(cp\.async\.bulk\.tensor\.\w+\.global\.shared)")
     << " out to global memory\n";
  return os.str();
}

} // namespace tilec::jit
