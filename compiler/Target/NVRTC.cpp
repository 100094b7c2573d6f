#include "compiler/Target/NVRTC.h"
#include "compiler/Target/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <set>

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
  nvrtcResult (*version)(int *, int *);
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
    load(api.version, "nvrtcVersion");
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

std::string nvrtcVersion() {
  const Nvrtc &api = nvrtc();
  int major = 0, minor = 0;
  if (!api.error.empty() || api.version(&major, &minor) != 0)
    return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

/// Every name a PTX module's text defines (`.entry` and `.func`
/// definitions, module-scope `.global` and `.const` variables; not
/// `.extern` declarations), and whether it is `.visible`.
std::map<std::string, bool> definedSymbols(const std::string &text) {
  std::map<std::string, bool> names;
  // Variables, one per line: `[.visible] .global .align 8 .b8 name[144] = {...};`
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  llvm::Regex variable("^(\\.visible[ \t]+)?\\.(global|const)[ \t][^=;]*[ \t]"
                       "([A-Za-z_$][A-Za-z0-9_$]*)[ \t]*(\\[[0-9]*\\][ \t]*)*(=|;)");
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> v;
    if (variable.match(line.trim(), &v))
      names[v[3].str()] = !v[1].empty();
  }
  llvm::Regex definition("\\.(entry|func)[ \t]*(\\([^)]*\\))?[ \t\n]*([A-Za-z_$][A-Za-z0-9_$]*)");
  llvm::StringRef rest(text);
  llvm::SmallVector<llvm::StringRef> m;
  while (definition.match(rest, &m)) {
    size_t lineStart = rest.substr(0, m[0].data() - rest.data()).rfind('\n');
    llvm::StringRef line = rest.substr(lineStart == llvm::StringRef::npos ? 0 : lineStart + 1);
    if (!line.starts_with(".extern"))
      names[m[3].str()] = line.starts_with(".visible");
    rest = rest.substr(m[0].data() - rest.data() + m[0].size());
  }
  return names;
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

/// `text` with every whole-word `name` replaced by `to`.
std::string renameSymbol(const std::string &text, const std::string &name,
                         const std::string &to) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = text.find(name, from)) != std::string::npos;) {
    size_t end = at + name.size();
    bool whole = (at == 0 || !isIdentifierChar(text[at - 1])) &&
                 (end == text.size() || !isIdentifierChar(text[end]));
    out += text.substr(from, at - from) + (whole ? to : name);
    from = end;
  }
  return out + text.substr(from);
}

} // namespace

std::vector<std::string> resolveClashingSymbols(const std::string &ptx, std::string &functions) {
  std::map<std::string, bool> ours = definedSymbols(body(ptx));
  std::vector<std::string> visible;
  for (const auto &[name, isVisible] : definedSymbols(body(functions))) {
    if (!ours.count(name))
      continue;
    if (isVisible)
      visible.push_back(name);
    else // internal to NVRTC's module: its own calls follow the new name
      functions = renameSymbol(functions, name, name + "_nvrtc");
  }
  return visible;
}

namespace {

/// C++ appended to the sources: for each argument and result of each call,
/// a static_assert that the function's parameter (or return) type is of the
/// kind the kernel passes, failing with "tilec:<call>:<argument>"
/// (argument 0: the result). Kinds: 0 unknown (a struct, or __half without
/// its header; not checked), 1 integer, 2 float or double, 3 __half, 4
/// __nv_bfloat16. A function the probe cannot name (not declared at global
/// scope) makes the probe fail without the marker; the caller then
/// compiles without it.
std::string kindProbe(const std::vector<CudaCall> &calls) {
  auto kindOf = [](const CudaValue &v) {
    switch (v.kind) {
    case CudaValue::Kind::Integer: return 1;
    case CudaValue::Kind::Float: return 2;
    case CudaValue::Kind::Half: return 3;
    case CudaValue::Kind::BFloat16: return 4;
    }
    return 0;
  };
  std::string p = "\n#line 1 \"tilec_call_checks\"\nnamespace tilec_call_checks {\n"
                  "template <class T> struct kind { static constexpr int value = 0; };\n";
  for (const char *t : {"bool", "char", "signed char", "unsigned char", "short",
                        "unsigned short", "int", "unsigned int", "long", "unsigned long",
                        "long long", "unsigned long long"})
    p += std::string("template <> struct kind<") + t + "> { static constexpr int value = 1; };\n";
  p += "template <> struct kind<float> { static constexpr int value = 2; };\n"
       "template <> struct kind<double> { static constexpr int value = 2; };\n"
       "#ifdef __CUDA_FP16_TYPES_EXIST__\n"
       "template <> struct kind<__half> { static constexpr int value = 3; };\n"
       "#endif\n"
       "#ifdef __CUDA_BF16_TYPES_EXIST__\n"
       "template <> struct kind<__nv_bfloat16> { static constexpr int value = 4; };\n"
       "#endif\n"
       "template <class R, class... A> constexpr int count(R (*)(A...)) { return sizeof...(A); }\n"
       "template <class R, class... A> constexpr int result(R (*)(A...)) { return kind<R>::value; }\n"
       "template <class R, class... A> constexpr int param(R (*)(A...), int i) {\n"
       "  constexpr int k[] = {kind<A>::value..., 0};\n"
       "  return k[i];\n"
       "}\n"
       "constexpr bool fits(int type, int given) { return type == 0 || type == given; }\n"
       "}\n";
  for (size_t c = 0; c < calls.size(); ++c) {
    std::string fn = "&::" + calls[c].callee, ns = "tilec_call_checks::";
    auto marker = [&](size_t arg) {
      return "\"tilec:" + std::to_string(c) + ":" + std::to_string(arg) + "\"";
    };
    for (size_t j = 0; j < calls[c].args.size(); ++j)
      p += "static_assert(" + ns + "count(" + fn + ") <= " + std::to_string(j) + " || " + ns +
           "fits(" + ns + "param(" + fn + ", " + std::to_string(j) + "), " +
           std::to_string(kindOf(calls[c].args[j])) + "), " + marker(j + 1) + ");\n";
    p += "static_assert(" + ns + "fits(" + ns + "result(" + fn + "), " +
         std::to_string(kindOf(calls[c].result)) + "), " + marker(0) + ");\n";
  }
  return p;
}

/// A (call, argument) pair; argument 0 is the result.
using CallPlace = std::pair<size_t, size_t>;

/// The checks that need only NVRTC's PTX: the function is there, with as
/// many parameters as the call has arguments, each of the bytes given.
/// The places whose bytes differ go to `wrong`.
void checkSizes(const std::string &functions, const std::vector<CudaCall> &calls,
                std::set<CallPlace> &wrong, std::vector<CudaCallProblem> &problems) {
  for (size_t c = 0; c < calls.size(); ++c) {
    const CudaCall &call = calls[c];
    std::optional<DeviceFunctionParams> params = deviceFunctionParams(functions, call.callee);
    if (!params) {
      problems.push_back({c, "the CUDA sources define no device function '" + call.callee +
                                 "' (it must be declared extern \"C\" __device__)"});
      continue;
    }
    if (params->params.size() != call.args.size()) {
      problems.push_back({c, "the CUDA device function '" + call.callee + "' takes " +
                                 std::to_string(params->params.size()) + " arguments, " +
                                 std::to_string(call.args.size()) + " given"});
      wrong.insert({c, 0});
      for (size_t i = 0; i < call.args.size(); ++i)
        wrong.insert({c, i + 1});
      continue;
    }
    for (size_t i = 0; i < call.args.size(); ++i)
      if (params->params[i] != call.args[i].bytes) {
        problems.push_back(
            {c, "argument " + std::to_string(i + 1) + " of '" + call.callee + "' takes " +
                    std::to_string(params->params[i]) + " bytes, but the call passes " +
                    call.args[i].name + " (" + std::to_string(call.args[i].bytes) +
                    "); convert it (numbers pass as int32 or fp32)"});
        wrong.insert({c, i + 1});
      }
    if (params->result != call.result.bytes) {
      problems.push_back({c, "'" + call.callee + "' returns " + std::to_string(params->result) +
                                 " bytes, but the call's dtype is " + call.result.name + " (" +
                                 std::to_string(call.result.bytes) + ")"});
      wrong.insert({c, 0});
    }
  }
}

/// The places whose kinds NVRTC's log reports wrong through the probe's
/// markers (none when the probe did not fail on a kind).
std::set<CallPlace> wrongKinds(const std::string &log, const std::vector<CudaCall> &calls) {
  // The failed assertion's message only: NVRTC also quotes the source line
  // of any error, which holds the marker too.
  llvm::Regex marker("static assertion failed with \"tilec:([0-9]{1,9}):([0-9]{1,9})\"");
  llvm::StringRef rest(log);
  llvm::SmallVector<llvm::StringRef> m;
  std::set<CallPlace> out;
  while (marker.match(rest, &m)) {
    rest = rest.substr(m[0].data() - rest.data() + m[0].size());
    size_t c = std::strtoul(m[1].str().c_str(), nullptr, 10);
    size_t arg = std::strtoul(m[2].str().c_str(), nullptr, 10);
    if (c < calls.size() && arg <= calls[c].args.size())
      out.insert({c, arg});
  }
  return out;
}

/// What a wrong kind at `place` says (where its bytes were right).
std::string kindMessage(const std::vector<CudaCall> &calls, CallPlace place) {
  const CudaCall &call = calls[place.first];
  const CudaValue &given = place.second ? call.args[place.second - 1] : call.result;
  std::string kind = given.kind == CudaValue::Kind::Integer ? "an integer"
                     : given.kind == CudaValue::Kind::Float ? "a float or double"
                     : given.kind == CudaValue::Kind::Half  ? "a __half"
                                                            : "a __nv_bfloat16";
  if (place.second)
    return "argument " + std::to_string(place.second) + " of '" + call.callee + "' is " +
           given.name + ", but that parameter is not " + kind +
           "; convert it to the parameter's type (numbers pass as int32 or fp32)";
  return "'" + call.callee + "' does not return " + kind + ", but the call's dtype is " +
         given.name;
}

/// One NVRTC compile: the PTX, or the log of its failure.
struct Compiled {
  bool ok = false;
  std::string ptx, log;
};

/// NVRTC's compile of `source` for `target`, remembered in the process
/// (the configs an autotuner compiles share their sources).
Compiled compileOnce(const std::string &source, const TargetInfo &target) {
  static std::mutex mutex;
  static std::map<std::string, Compiled> memo;
  std::string key = target.chip + '\0' + source;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
  }
  Compiled out;
  out.ok = compile(source, target, out.ptx, out.log);
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() >= 64)
    memo.clear();
  memo.emplace(key, out);
  return out;
}

} // namespace

bool compileCudaCalls(const std::vector<std::string> &sources,
                      const std::vector<CudaCall> &calls, const TargetInfo &target,
                      std::string &functions, std::vector<CudaCallProblem> &problems,
                      std::string &error) {
  std::string unit;
  for (const std::string &s : sources)
    unit += s + "\n";
  std::set<CallPlace> kinds;
  Compiled probed = compileOnce(unit + kindProbe(calls), target);
  Compiled plain = probed;
  if (!probed.ok) {
    // Kinds that do not fit fail the probe with its markers; the sources'
    // own errors, or a function the probe cannot name, fail it without.
    // Either way the PTX, or the sources' errors, come from a compile
    // without the probe.
    kinds = wrongKinds(probed.log, calls);
    plain = compileOnce(unit, target);
  }
  if (!plain.ok) {
    error = plain.log;
    return false;
  }
  functions = plain.ptx;
  // A wrong size says more than a wrong kind ("takes 2 bytes"): the kind
  // is reported where the size was right.
  std::set<CallPlace> sizes;
  checkSizes(functions, calls, sizes, problems);
  // Per call, its arguments first, then its result.
  std::vector<CallPlace> ordered(kinds.begin(), kinds.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](CallPlace a, CallPlace b) {
    return std::make_pair(a.first, a.second == 0) < std::make_pair(b.first, b.second == 0);
  });
  for (CallPlace place : ordered)
    if (!sizes.count(place))
      problems.push_back({place.first, kindMessage(calls, place)});
  return true;
}

} // namespace tilec
