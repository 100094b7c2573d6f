// `tilec aot`: kernels compiled ahead of time into C++ (AotWriter.h says
// what is written). Each kernel is compiled for every target through the
// public API, and its PTX assembled to a cubin by the CUDA toolkit's ptxas.
#include "AotCommand.h"

#include "AotWriter.h"
#include "CommandLine.h"

#include <tilec/tilec.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace {
using tilec::aotgen::AotCode;
using tilec::aotgen::AotImage;
using tilec::aotgen::AotKernel;
using tilec::aotgen::AotUnit;

/// The targets `tilec aot` builds without --targets: Ampere (A100, and by
/// binary compatibility every 8.x GPU), the RTX 30 and 40 series, and
/// Hopper with its arch-specific instructions.
const char *kDefaultTargets = "sm_80,sm_86,sm_89,sm_90a";

/// One -k group of the command line.
struct KernelRequest {
  std::string file, kernel, function, signature;
  bool haveSignature = false;
  tilec::Constexprs constexprs;
  std::string constexprText;
  unsigned numWarps = 4, numStages = 3, maxRegisters = 0;
  bool deterministic = false; ///< checked for batch invariance
};

struct Options {
  std::vector<KernelRequest> kernels;
  std::vector<std::string> targets;
  std::string output, nameSpace, ptxas; ///< nameSpace: empty for the default
  bool embedPTX = true;
};

unsigned parseNumber(const std::string &option, const std::string &text, unsigned low,
                     unsigned high) {
  char *end = nullptr;
  errno = 0;
  long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || n < long(low) || n > long(high))
    throw std::runtime_error(option + " needs a number from " + std::to_string(low) +
                             " to " + std::to_string(high) + ", got '" + text + "'");
  return unsigned(n);
}

std::vector<std::string> splitTargets(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  if (out.empty())
    throw std::runtime_error("--targets needs a list such as sm_80,sm_90a");
  return out;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  std::string file;
  bool explicitTargets = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::runtime_error("option " + arg + " needs a value");
      return argv[++i];
    };
    // Options of one kernel follow its -k.
    auto current = [&]() -> KernelRequest & {
      if (o.kernels.empty())
        throw std::runtime_error(arg + " must follow the -k KERNEL it applies to");
      return o.kernels.back();
    };
    if (arg == "-k" || arg == "--kernel") {
      if (file.empty())
        throw std::runtime_error("-k needs a kernel file before it (tilec aot FILE -k KERNEL ...)");
      KernelRequest request;
      request.file = file;
      request.kernel = value();
      request.function = request.kernel;
      o.kernels.push_back(std::move(request));
    } else if (arg == "-s" || arg == "--signature" || arg.rfind("--signature=", 0) == 0) {
      // --signature=TEXT also takes an empty signature (a kernel of
      // constexprs only) where an empty word would be lost (CMake).
      std::string text = arg == "-s" || arg == "--signature" ? value() : arg.substr(12);
      current().signature = text;
      current().haveSignature = true;
    } else if (arg == "-D" || (arg.rfind("-D", 0) == 0 && arg.size() > 2)) {
      std::string def = arg == "-D" ? value() : arg.substr(2);
      KernelRequest &k = current();
      addDefinition(def, k.constexprs);
      k.constexprText += (k.constexprText.empty() ? "" : ", ") + def;
    } else if (arg == "--name") {
      std::string name = value();
      current().function = name;
    } else if (arg == "--num-warps") {
      std::string text = value();
      current().numWarps = parseNumber(arg, text, 1, 32);
    } else if (arg == "--num-stages") {
      std::string text = value();
      current().numStages = parseNumber(arg, text, 1, 16);
    } else if (arg == "--maxnreg") {
      std::string text = value();
      current().maxRegisters = parseNumber(arg, text, 16, 255);
    } else if (arg == "--deterministic") {
      current().deterministic = true;
    } else if (arg == "--targets") {
      std::vector<std::string> more = splitTargets(value());
      if (!explicitTargets)
        o.targets.clear();
      explicitTargets = true;
      o.targets.insert(o.targets.end(), more.begin(), more.end());
    } else if (arg == "--namespace") {
      o.nameSpace = value();
    } else if (arg == "-o") {
      o.output = value();
    } else if (arg == "--ptxas") {
      o.ptxas = value();
    } else if (arg == "--no-ptx") {
      o.embedPTX = false;
    } else if (arg == "--no-line-info") {
      ::setenv("TILEC_DISABLE_LINE_INFO", "1", 1); // read by the first compile
    } else if (arg == "--debug") {
      throw std::runtime_error("--debug is not available to tilec aot: a debug compile's "
                               "bounds checks need each buffer's size at every launch");
    } else if (!arg.empty() && arg[0] == '-') {
      throw std::runtime_error("unknown option '" + arg + "'");
    } else {
      file = arg;
    }
  }
  if (!explicitTargets)
    o.targets = splitTargets(kDefaultTargets);
  if (o.kernels.empty())
    throw std::runtime_error("no kernel named (tilec aot FILE -k KERNEL -s SIGNATURE ...)");
  if (o.output.empty())
    throw std::runtime_error("no output named (-o PREFIX writes PREFIX.h and PREFIX.cpp)");
  for (const KernelRequest &k : o.kernels)
    if (!k.haveSignature)
      throw std::runtime_error("kernel '" + k.kernel + "' has no signature (-s SIGNATURE after its -k)");
  return o;
}

/// "sm_90a" → compute capability 90, arch-specific; a name tilec does not
/// know is refused, listing those it does.
void describeTarget(const std::string &target, AotImage &image) {
  std::string known = tilec::knownTargets();
  std::stringstream list(known);
  std::string name;
  bool found = false;
  while (std::getline(list, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    found |= name == target;
  }
  if (!found)
    throw std::runtime_error("--targets: unknown GPU target '" + target +
                             "' (expected one of " + known + ")");
  image.target = target;
  image.archSpecific = !target.empty() && target.back() == 'a';
  image.computeCapability = unsigned(std::atoi(target.c_str() + 3));
}

bool isExecutable(const std::string &path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

/// ptxas: --ptxas, $TILEC_PTXAS, the CUDA toolkit ($CUDA_HOME, $CUDA_PATH,
/// /usr/local/cuda), then $PATH.
std::string findPtxas(const std::string &given) {
  if (!given.empty()) {
    if (!isExecutable(given))
      throw tilec::Error("--ptxas '" + given + "' is not an executable");
    return given;
  }
  if (const char *env = std::getenv("TILEC_PTXAS"); env && isExecutable(env))
    return env;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && isExecutable(std::string(root) + "/bin/ptxas"))
      return std::string(root) + "/bin/ptxas";
  if (isExecutable("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (const char *path = std::getenv("PATH")) {
    std::stringstream in(path);
    std::string dir;
    while (std::getline(in, dir, ':'))
      if (!dir.empty() && isExecutable(dir + "/ptxas"))
        return dir + "/ptxas";
  }
  throw tilec::Error("tilec aot needs the CUDA toolkit's ptxas to make cubins, and found "
                     "none (looked at --ptxas, $TILEC_PTXAS, $CUDA_HOME/bin, $CUDA_PATH/bin, "
                     "/usr/local/cuda/bin and $PATH)");
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A scratch directory, removed with what it holds.
struct TempDir {
  std::string path;
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/tilec-aot-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      throw tilec::Error("cannot make a scratch directory: " + std::string(std::strerror(errno)));
    path = buffer.data();
  }
  ~TempDir() {
    for (const char *name : {"/in.ptx", "/out.cubin", "/log.txt"})
      ::unlink((path + name).c_str());
    ::rmdir(path.c_str());
  }
};

/// Runs ptxas on `ptx` for `target`: the cubin, and a note of its
/// registers and spills (a warning on stderr when it spills).
AotCode assemble(const std::string &ptxas, const std::string &ptx, const std::string &target,
                 const std::string &what, const TempDir &dir) {
  std::string in = dir.path + "/in.ptx", out = dir.path + "/out.cubin",
              log = dir.path + "/log.txt";
  {
    std::ofstream file(in, std::ios::binary);
    file << ptx;
    if (!file)
      throw tilec::Error("cannot write '" + in + "'");
  }
  ::unlink(out.c_str());
  std::string arch = "-arch=" + target;
  // -lineinfo: the PTX's .loc lines (when compiled with line info) become
  // the cubin's line table; the code is the same.
  std::vector<const char *> args = {ptxas.c_str(), arch.c_str(), "-O3", "-v", "-lineinfo",
                                    in.c_str(), "-o", out.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int error = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr,
                          const_cast<char *const *>(args.data()), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error)
    throw tilec::Error("cannot run '" + ptxas + "': " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string output = readFile(log);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw tilec::Error("ptxas failed on " + what + " for " + target + ":\n" + output);
  AotCode code;
  code.bytes = readFile(out);
  if (code.bytes.empty())
    throw tilec::Error("ptxas wrote no cubin for " + what + " for " + target);
  // "Used 40 registers, ..." and "0 bytes spill stores, 0 bytes spill loads".
  auto numberBefore = [&](const std::string &marker, const char *fallback) -> std::string {
    size_t at = output.find(marker);
    if (at == std::string::npos)
      return fallback;
    size_t start = output.rfind(' ', at - 1);
    return output.substr(start + 1, at - start - 1);
  };
  std::string registers = numberBefore(" registers", "?");
  if (size_t used = output.find("Used "); used != std::string::npos) {
    size_t end = output.find(' ', used + 5);
    registers = output.substr(used + 5, end - used - 5);
  }
  std::string spills = numberBefore(" bytes spill stores", "0");
  code.note = registers + " registers, " +
              (spills == "0" ? std::string("no spills") : spills + " bytes spilled");
  if (spills != "0")
    std::cerr << "tilec aot: warning: " << what << " spills " << spills
              << " bytes per thread for " << target << "\n";
  return code;
}

/// The name after `.entry` in the PTX.
std::string entryName(const std::string &ptx) {
  size_t at = ptx.find(".entry ");
  if (at == std::string::npos)
    throw tilec::Error("the PTX has no .entry");
  size_t start = at + 7, end = ptx.find_first_of("( \n", start);
  return ptx.substr(start, end - start);
}

void writeIfChanged(const std::string &path, const std::string &text) {
  if (readFile(path) == text)
    return; // unchanged: keep its time stamp, so builds do not redo it
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out)
    throw tilec::Error("cannot write '" + path + "'");
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void checkNamespace(const std::string &ns) {
  size_t start = 0;
  while (true) {
    size_t end = ns.find("::", start);
    std::string part = ns.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string problem = tilec::aotgen::cppNameProblem(part);
    // Namespaces may start with tilec_, but not be those the source uses.
    if (part.rfind("tilec_", 0) == 0 && part != "tilec_aot_support" && part != "tilec_aot_unit")
      problem.clear();
    if (!problem.empty())
      throw std::runtime_error("--namespace '" + ns + "': " + problem);
    if (end == std::string::npos)
      return;
    start = end + 2;
  }
}

} // namespace

int aotCommand(int argc, char **argv) {
  Options o = parseOptions(argc, argv);

  AotUnit unit;
  unit.headerFileName = baseName(o.output) + ".h";
  // By default the namespace is the output's name (as an identifier), so
  // that two generated units never define the same load_kernels.
  if (o.nameSpace.empty()) {
    for (char c : baseName(o.output))
      o.nameSpace += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (o.nameSpace.empty() || std::isdigit(static_cast<unsigned char>(o.nameSpace[0])))
      o.nameSpace = "k_" + o.nameSpace;
  }
  checkNamespace(o.nameSpace);
  unit.nameSpace = o.nameSpace;
  unit.commandLine = "tilec aot";
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    bool plain = arg.find_first_of(" '\"*,$\\") == std::string::npos && !arg.empty();
    std::string quoted = "'";
    for (char c : arg)
      quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    unit.commandLine += " " + (plain ? arg : quoted + "'");
  }

  std::map<std::string, std::string> functions; // C++ name → what it launches
  for (const KernelRequest &k : o.kernels) {
    std::string problem = tilec::aotgen::cppNameProblem(k.function);
    if (!problem.empty())
      throw std::runtime_error("kernel '" + k.kernel + "' cannot be launched as " + problem +
                               " (--name gives its launch function another name)");
    std::string what = "'" + k.kernel + "' of " + k.file;
    auto [at, fresh] = functions.emplace(k.function, what);
    if (!fresh)
      throw std::runtime_error("two kernels would both be launched by '" + k.function +
                               "' (" + at->second + " and " + what +
                               "): give one of them --name");
  }

  std::string ptxas = findPtxas(o.ptxas);
  TempDir scratch;
  std::map<std::string, std::unique_ptr<tilec::Library>> libraries;
  for (const std::string &target : o.targets) {
    AotImage image;
    describeTarget(target, image);
    for (const AotImage &seen : unit.images)
      if (seen.target == target)
        throw std::runtime_error("--targets lists " + target + " twice");
    unit.images.push_back(image);
  }
  // The PTX of the oldest portable target runs, through the driver's
  // compiler, on every GPU at least as new.
  int ptxImage = -1;
  if (o.embedPTX)
    for (size_t i = 0; i < unit.images.size(); ++i)
      if (!unit.images[i].archSpecific &&
          (ptxImage < 0 ||
           unit.images[i].computeCapability < unit.images[ptxImage].computeCapability))
        ptxImage = int(i);
  AotImage ptx;
  if (ptxImage >= 0) {
    ptx = unit.images[ptxImage];
    ptx.ptx = true;
  }

  for (const KernelRequest &request : o.kernels) {
    auto &library = libraries[request.file];
    if (!library)
      library = std::make_unique<tilec::Library>(tilec::Library::fromFile(request.file));
    tilec::Kernel kernel = library->kernel(request.kernel);
    AotKernel k;
    k.function = request.function;
    k.sourceFile = request.file;
    k.kernelName = request.kernel;
    k.constexprs = request.constexprText;
    k.numWarps = request.numWarps;
    k.numStages = request.numStages;
    k.maxRegisters = request.maxRegisters;
    for (const tilec::Parameter &p : kernel.parameters())
      if (!p.isConstexpr)
        k.parameterNames.push_back(p.name);
    std::string what = "kernel '" + request.kernel + "' [" + request.signature + "]";
    for (size_t i = 0; i < unit.images.size(); ++i) {
      AotImage &image = unit.images[i];
      tilec::CompiledKernel compiled =
          kernel.compile(request.signature, request.constexprs, request.numWarps, image.target,
                         request.numStages, request.maxRegisters, /*debug=*/false,
                         request.deterministic,
                         // The launch functions pass the arguments alone:
                         // descriptors read through pointers, not TMA.
                         /*tensorMaps=*/false);
      if (i == 0) {
        k.signature = compiled.signature();
        k.types = compiled.argumentTypes();
        k.entry = entryName(compiled.ptx());
        if (k.types.size() != k.parameterNames.size())
          throw tilec::Error(what + ": the signature has " + std::to_string(k.types.size()) +
                             " entries for " + std::to_string(k.parameterNames.size()) +
                             " runtime parameters");
        for (size_t p = 0; p < k.types.size(); ++p)
          if (!k.types[p].pointer && (k.types[p].element == tilec::ScalarType::FP8E4M3 ||
                                      k.types[p].element == tilec::ScalarType::FP8E5M2))
            throw tilec::Error(what + ": parameter '" + k.parameterNames[p] +
                               "' is an fp8 scalar, which tilec aot cannot take from C++ "
                               "(pass it as fp16 or fp32 and convert in the kernel)");
      }
      AotCode code = assemble(ptxas, compiled.ptx(), image.target, what, scratch);
      code.sharedBytes = compiled.sharedBytes();
      image.kernels.push_back(code);
      if (int(i) == ptxImage) {
        AotCode text;
        text.bytes = compiled.ptx();
        text.sharedBytes = compiled.sharedBytes();
        text.note = "PTX for the driver to compile on GPUs with no cubin here";
        ptx.kernels.push_back(text);
      }
    }
    unit.kernels.push_back(std::move(k));
  }
  if (ptxImage >= 0)
    unit.images.push_back(std::move(ptx));

  writeIfChanged(o.output + ".h", tilec::aotgen::writeHeader(unit));
  writeIfChanged(o.output + ".cpp", tilec::aotgen::writeSource(unit));
  return 0;
}
