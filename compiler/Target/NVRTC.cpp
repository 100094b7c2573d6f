#include "compiler/Target/NVRTC.h"
#include "compiler/Target/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace tilec {

namespace {

// The few NVRTC entry points used, declared here so that building needs no
// CUDA headers (their C ABI is stable across releases).
using nvrtcProgram = struct _nvrtcProgram *;
using nvrtcResult = int;
struct Nvrtc {
  nvrtcResult (*createProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getPTX)(nvrtcProgram, char *);
  nvrtcResult (*destroyProgram)(nvrtcProgram *);
  const char *(*getErrorString)(nvrtcResult);
  std::string error; ///< why it could not be loaded
};

std::string toolkitRoot() {
#ifdef TILEC_DEFAULT_LIBDEVICE
  // .../nvvm/libdevice/libdevice.10.bc: the toolkit is three levels up.
  llvm::StringRef path(TILEC_DEFAULT_LIBDEVICE);
  size_t at = path.rfind("/nvvm/");
  if (at != llvm::StringRef::npos)
    return path.substr(0, at).str();
#endif
  return "";
}

const Nvrtc &nvrtc() {
  static Nvrtc api;
  static std::once_flag once;
  std::call_once(once, [] {
    void *library = nullptr;
    std::string tried;
    for (const std::string &candidate : nvrtcCandidates()) {
      library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library)
        break;
      tried += (tried.empty() ? "" : ", ") + candidate;
    }
    if (!library) {
      api.error = "NVRTC, which compiles CUDA device functions, was not found (tried " +
                  tried + "; set TILEC_NVRTC to libnvrtc.so's path)";
      return;
    }
    auto load = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      if (!fn && api.error.empty())
        api.error = std::string("NVRTC has no '") + name + "'";
    };
    load(api.createProgram, "nvrtcCreateProgram");
    load(api.compileProgram, "nvrtcCompileProgram");
    load(api.getProgramLogSize, "nvrtcGetProgramLogSize");
    load(api.getProgramLog, "nvrtcGetProgramLog");
    load(api.getPTXSize, "nvrtcGetPTXSize");
    load(api.getPTX, "nvrtcGetPTX");
    load(api.destroyProgram, "nvrtcDestroyProgram");
    load(api.getErrorString, "nvrtcGetErrorString");
  });
  return api;
}

/// The PTX ISA version a `.version X.Y` line in `ptx` names, as X * 10 + Y.
int ptxVersion(const std::string &ptx) {
  llvm::SmallVector<llvm::StringRef> m;
  if (!llvm::Regex("\\.version ([0-9]+)\\.([0-9]+)").match(ptx, &m))
    return 0;
  return std::atoi(m[1].str().c_str()) * 10 + std::atoi(m[2].str().c_str());
}

/// Compiles one translation unit to PTX.
bool compile(const std::string &source, const TargetInfo &target, std::string &ptx,
             std::string &error) {
  const Nvrtc &api = nvrtc();
  if (!api.error.empty()) {
    error = api.error;
    return false;
  }
  // compute_90a for sm_90a: NVRTC emits PTX for the virtual architecture.
  std::string arch = "--gpu-architecture=compute_" + target.chip.substr(3);
  std::vector<std::string> options = {arch, "-rdc=true", "--std=c++17"};
  std::string root = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : toolkitRoot();
  if (!root.empty())
    options.push_back("-I" + root + "/include");
  std::vector<const char *> argv;
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  nvrtcProgram program = nullptr;
  nvrtcResult r = api.createProgram(&program, source.c_str(), "tilec_device_functions.cu",
                                    0, nullptr, nullptr);
  if (r != 0) {
    error = std::string("NVRTC could not take the CUDA source: ") + api.getErrorString(r);
    return false;
  }
  r = api.compileProgram(program, int(argv.size()), argv.data());
  size_t logSize = 0;
  api.getProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize)
    api.getProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (r != 0) {
    error = "NVRTC could not compile the CUDA device functions (" +
            std::string(api.getErrorString(r)) + "):\n" + log;
    api.destroyProgram(&program);
    return false;
  }
  size_t size = 0;
  api.getPTXSize(program, &size);
  ptx.assign(size, '\0');
  api.getPTX(program, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  api.destroyProgram(&program);
  return true;
}

/// The text after the `.address_size` line of a PTX module (its
/// declarations and functions), or after `.target` when there is none.
std::string body(const std::string &ptx) {
  for (const char *directive : {".address_size", ".target"}) {
    size_t at = ptx.find(directive);
    if (at == std::string::npos)
      continue;
    size_t eol = ptx.find('\n', at);
    return eol == std::string::npos ? "" : ptx.substr(eol + 1);
  }
  return ptx;
}

} // namespace

std::vector<std::string> nvrtcCandidates() {
  std::vector<std::string> out;
  if (const char *path = std::getenv("TILEC_NVRTC"))
    out.push_back(path);
  for (const char *name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    out.push_back(name);
  std::vector<std::string> roots;
  if (const char *home = std::getenv("CUDA_HOME"))
    roots.push_back(home);
  roots.push_back(toolkitRoot());
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots)
    if (!root.empty())
      out.push_back(root + "/lib64/libnvrtc.so");
  return out;
}

bool compileCudaSources(const std::vector<std::string> &sources, const TargetInfo &target,
                        std::string &functions, std::string &error) {
  std::string unit;
  for (const std::string &s : sources)
    unit += s + "\n";
  return compile(unit, target, functions, error);
}

namespace {
/// The bytes a `.param` declaration holds: `.bN` / `.uN` / `.sN` / `.fN`
/// is N / 8, an array `.b8 p[K]` is K.
unsigned paramBytes(llvm::StringRef decl) {
  llvm::SmallVector<llvm::StringRef> m;
  if (llvm::Regex("\\.[bsuf]([0-9]+)[ \t]+[A-Za-z_$][A-Za-z0-9_$]*(\\[([0-9]+)\\])?")
          .match(decl, &m)) {
    if (!m[3].empty())
      return unsigned(std::atoi(m[3].str().c_str())) * unsigned(std::atoi(m[1].str().c_str())) /
             8;
    return unsigned(std::atoi(m[1].str().c_str())) / 8;
  }
  return 0;
}
} // namespace

std::optional<DeviceFunctionParams> deviceFunctionParams(const std::string &functions,
                                                         const std::string &name) {
  llvm::SmallVector<llvm::StringRef> m;
  llvm::Regex header("\\.visible \\.func[ \t]*(\\(([^)]*)\\))?[ \t\n]*" +
                     llvm::Regex::escape(name) + "[ \t\n]*\\(([^)]*)\\)");
  std::string text = body(functions);
  if (!header.match(text, &m))
    return std::nullopt;
  DeviceFunctionParams out;
  if (!m[2].empty())
    out.result = paramBytes(m[2]);
  llvm::SmallVector<llvm::StringRef> decls;
  m[3].split(decls, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef decl : decls)
    if (decl.contains(".param"))
      out.params.push_back(paramBytes(decl));
  return out;
}

void mergeDeviceFunctions(std::string &ptx, const std::string &functions,
                          const std::vector<std::string> &callees) {
  // The kernel's declarations of the functions go: the definitions come
  // first in the merged module.
  for (const std::string &name : callees) {
    llvm::Regex declaration("\\.extern \\.func[^;]*[ \t\n)]" + llvm::Regex::escape(name) +
                            "[ \t\n]*\\([^;]*;\n?");
    std::string rest = ptx, kept;
    llvm::SmallVector<llvm::StringRef> m;
    while (declaration.match(rest, &m)) {
      size_t at = m[0].data() - rest.data();
      kept += rest.substr(0, at);
      rest = rest.substr(at + m[0].size());
    }
    ptx = kept + rest;
  }
  int theirs = ptxVersion(functions), ours = ptxVersion(ptx);
  if (theirs > ours) {
    llvm::Regex version("\\.version [0-9]+\\.[0-9]+");
    ptx = version.sub(".version " + std::to_string(theirs / 10) + "." +
                          std::to_string(theirs % 10),
                      ptx);
  }
  std::string header = ptx.substr(0, ptx.size() - body(ptx).size());
  ptx = header + "\n// CUDA device functions (NVRTC)\n" + body(functions) +
        "\n// The kernel\n" + body(ptx);
}

} // namespace tilec
