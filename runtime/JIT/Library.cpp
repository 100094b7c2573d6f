// The public C++ API (include/tilec/tilec.h) over the JIT compiler and the
// device runtime.
#include "tilec/tilec.h"

#include "compiler/Target/NVRTC.h"
#include "dsl/Builtins.h"
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/JIT/Compiler.h"
#include "runtime/JIT/Interpret.h"
#include "runtime/JIT/LaunchChecks.h"
#include "runtime/JIT/DiskCache.h"
#include "runtime/JIT/Environment.h"
#include "runtime/JIT/SourceKey.h"
#include "runtime/JIT/TensorMaps.h"

#include "llvm/Config/llvm-config.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace tilec {

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {
dsl::Value toValue(const Constexpr &c) {
  if (auto *i = std::get_if<int64_t>(&c.value))
    return dsl::Value::ofInt(*i);
  if (auto *d = std::get_if<double>(&c.value))
    return dsl::Value::ofFloat(*d);
  if (auto *b = std::get_if<bool>(&c.value))
    return dsl::Value::ofBool(*b);
  const std::string &s = std::get<std::string>(c.value);
  std::string name = s.rfind("tl.", 0) == 0 ? s.substr(3) : s;
  if (auto t = dsl::DType::parse(name))
    return dsl::Value::ofDType(*t);
  return dsl::Value::ofString(s);
}

std::string joinErrors(const std::vector<std::string> &errors) {
  std::string text;
  for (const std::string &e : errors) {
    text += e;
    if (!e.empty() && e.back() != '\n')
      text += "\n";
  }
  return text;
}

bool isConstexprAnnotation(const dsl::Expr *annotation) {
  if (!annotation)
    return false;
  if (auto *a = llvm::dyn_cast<dsl::AttributeExpr>(annotation))
    return a->attr == "constexpr";
  if (auto *n = llvm::dyn_cast<dsl::NameExpr>(annotation))
    return n->id == "constexpr";
  return false;
}

/// A compiled kernel and, once launched, its loaded machine code (written
/// once, under moduleMutex).
struct CacheEntry {
  std::shared_ptr<jit::CompiledKernel> compiled;
  std::mutex moduleMutex;
  std::unique_ptr<runtime::Module> module;
  /// The kernel's runtime parameters, for CompiledKernel::launch's messages
  /// (the entry may outlive its Kernel), and pointers to them as the checks
  /// take them (both filled once, by newEntry).
  std::vector<std::string> runtimeNames;
  jit::ParamNames runtimeNameRefs;
  unsigned sharedBytes = 0;
  /// The warps of a launch's block: num_warps, and a warp-specialised
  /// kernel's producer warp (CompiledStages::numWarps).
  unsigned blockWarps = 0;
  unsigned numStages = 0;    ///< what it was compiled with
  unsigned maxRegisters = 0; ///< its .maxnreg; 0: none
  /// Programs per cluster along x (CompiledStages::clusterCtas); 1: no
  /// clusters.
  unsigned clusterCtas = 1;
  bool debug = false;        ///< compiled with debug=True
  bool deterministic = false; ///< compiled (and checked) with deterministic=True
  /// The GPU target the PTX is for ("sm_90a").
  std::string target;
  std::string diskKey;
  bool fromDisk = false;
  /// Machine code from the disk cache, and the GPU it is for ("sm_90").
  std::string cubin, cubinArch;
  /// The TMA tensor maps the kernel takes after its other parameters,
  /// encoded per distinct argument values (runtime/JIT/TensorMaps.h); null
  /// for the kernels that take none. Set with `compiled`.
  std::unique_ptr<jit::TensorMapCache> tensorMaps;
};

/// A tensor-map cache for a kernel whose stages take maps; null otherwise.
std::unique_ptr<jit::TensorMapCache> tensorMapCacheFor(const CompiledStages &stages) {
  if (stages.tensorMaps.empty())
    return nullptr;
  return std::make_unique<jit::TensorMapCache>(stages.tensorMaps);
}

/// False when the environment has TILEC_DISABLE_LINE_INFO=1 (read once,
/// as Triton's TRITON_DISABLE_LINE_INFO): compiles then leave the PTX's
/// .file/.loc source lines out.
bool lineInfoEnabled() {
  static const bool enabled = !jit::environmentFlag("TILEC_DISABLE_LINE_INFO");
  return enabled;
}

/// What a compile takes besides the signature, constexprs and target: the
/// launch options that change the code (LaunchOptions, Config), and
/// whether the PTX carries line info.
struct Knobs {
  unsigned numWarps = 4, numStages = 3, maxRegisters = 0;
  bool debug = false;
  /// Changes no code, but a specialisation compiled without the check
  /// must not stand in for one that promised it: keyed apart.
  bool deterministic = false;
  bool lineInfo = lineInfoEnabled();
  /// Descriptors through TMA where it pays (false: through pointers only).
  bool tensorMaps = true;
  Knobs() = default;
  Knobs(unsigned numWarps, unsigned numStages, unsigned maxRegisters, bool debug,
        bool deterministic)
      : numWarps(numWarps), numStages(numStages), maxRegisters(maxRegisters),
        debug(debug), deterministic(deterministic) {}
  explicit Knobs(const LaunchOptions &o)
      : Knobs(o.numWarps, o.numStages, o.maxRegisters, o.debug, o.deterministic) {}
  std::string text() const {
    return "|w" + std::to_string(numWarps) + "|s" + std::to_string(numStages) +
           (maxRegisters ? "|r" + std::to_string(maxRegisters) : "") + (debug ? "|d" : "") +
           (deterministic ? "|det" : "") + (lineInfo ? "" : "|nl") +
           (tensorMaps ? "" : "|nomaps");
  }
};

/// The target to compile for on `device`: its own architecture
/// (TargetInfo::forComputeCapability). Throws Error for a GPU older than
/// every target tilec knows.
std::string targetOf(const runtime::Device &device) {
  std::string error;
  std::optional<TargetInfo> target =
      jit::targetForDevice(unsigned(device.computeCapability()), device.name(), error);
  if (!target)
    throw Error(error);
  return target->chip;
}

/// Loads `entry` on `device` unless it is loaded: machine code from the disk
/// cache when it is for this GPU, else the PTX linked to a cubin, which the
/// entry (and its disk-cache file) then keeps. A kernel that needs more
/// shared memory than the GPU allows one block is refused here, naming it.
void loadModule(CacheEntry &entry, runtime::Device &device, const std::string &name,
                const std::string &signature) {
  std::lock_guard<std::mutex> lock(entry.moduleMutex);
  if (entry.module)
    return;
  if (entry.sharedBytes > unsigned(device.maxSharedMemoryPerBlockOptin()))
    throw jit::SharedMemoryExceeded("cannot launch kernel '" + name + "' [" + signature + "]: it needs " +
                std::to_string(entry.sharedBytes) + " bytes of shared memory, and " +
                device.name() + " allows " +
                std::to_string(device.maxSharedMemoryPerBlockOptin()) +
                " per block (smaller tiles or fewer num_stages need less)",
        entry.sharedBytes, unsigned(device.maxSharedMemoryPerBlockOptin()));
  try {
    std::string arch = "sm_" + std::to_string(device.computeCapability());
    std::unique_ptr<runtime::Module> module;
    if (!entry.cubin.empty() && entry.cubinArch == arch) {
      module = runtime::Module::loadCubin(entry.cubin.data(), entry.cubin.size(), name);
    } else {
      std::vector<char> cubin = runtime::Module::linkPTXToCubin(entry.compiled->stages.ptx);
      module = runtime::Module::loadCubin(cubin.data(), cubin.size(), name);
      entry.cubin.assign(cubin.begin(), cubin.end());
      entry.cubinArch = arch;
      if (!entry.diskKey.empty()) {
        jit::CachedKernel stored;
        stored.name = name;
        stored.signature = signature;
        stored.stages = entry.compiled->stages;
        stored.cubin = entry.cubin;
        stored.cubinArch = arch;
        jit::DiskCache::instance().store(entry.diskKey, stored);
      }
    }
    if (entry.sharedBytes > 48 * 1024)
      module->setDynamicSharedBytes(entry.sharedBytes);
    entry.module = std::move(module);
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
}

/// The GPU a launch of kernel `name` goes to: the current one. Throws Error
/// when there is no driver or no GPU.
runtime::Device &launchDevice(const std::string &name) {
  std::string why;
  if (!runtime::driverAvailable(&why))
    throw Error("cannot launch kernel '" + name + "': " + why);
  try {
    return runtime::Device::current();
  } catch (const runtime::CudaError &e) {
    throw Error("cannot launch kernel '" + name + "': " + e.what());
  }
}

/// What a debug compile's bounds checks measure a pointer argument's
/// accesses against (tile-check-bounds): the bytes from the pointer on,
/// Arg::bytes when the caller said, else to the end of the driver's
/// allocation; -1 (unknown: every access passes) when neither knows.
int64_t extentOf(const Arg &a) {
  uint64_t bytes = a.bytes ? a.bytes : runtime::allocationBytesFrom(a.bits);
  if (!bytes)
    return -1;
  return int64_t(std::min<uint64_t>(bytes, uint64_t(INT64_MAX)));
}

/// Whether PTX for `target` ("sm_90a", "sm_80", ...) keeps griddepcontrol
/// (tl.extra.cuda.gdc_wait): sm_90 and newer.
bool hasGridDependencyControl(const std::string &target) {
  return target.rfind("sm_", 0) == 0 && std::atoi(target.c_str() + 3) >= 90;
}

/// Enqueues one launch of a loaded entry with its parameters, and waits
/// for a debug compile's kernel.
void enqueue(const CacheEntry &entry, Grid grid, void **params, unsigned numWarps,
             void *stream, bool programmatic) {
  // (The driver would refuse a grid of broken clusters with a bare
  // CUDA_ERROR_INVALID_VALUE.)
  if (grid.x % entry.clusterCtas)
    throw Error("kernel '" + entry.compiled->name + "' runs in clusters of " +
                std::to_string(entry.clusterCtas) + " programs along axis 0 (tl.range(..., "
                "num_ctas=" + std::to_string(entry.clusterCtas) + ")): a grid of " +
                std::to_string(grid.x) + " along axis 0 is not whole clusters");
  runtime::LaunchDims dims;
  dims.grid[0] = grid.x;
  dims.grid[1] = grid.y;
  dims.grid[2] = grid.z;
  dims.block[0] = numWarps * 32;
  dims.sharedBytes = entry.sharedBytes;
  dims.stream = stream;
  // (Only a kernel compiled for sm_90+ waits where it says: one compiled
  // for an older target, running on a newer GPU, lost its gdc_wait.)
  dims.programmaticDependence = programmatic && hasGridDependencyControl(entry.target);
  try {
    runtime::launch(*entry.module, dims, params);
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
  // A debug launch waits for its kernel, so that a failed assertion is
  // this launch's error, reported here (not at some later synchronisation,
  // by whoever makes it); not while the stream is captured into a graph.
  if (entry.debug && !runtime::streamIsCapturing(stream)) {
    try {
      runtime::synchronizeStream(stream);
    } catch (const runtime::CudaError &e) {
      throw Error("kernel '" + entry.compiled->name + "' (compiled with debug=True) failed: " +
                  e.what());
    }
  }
}

/// Enqueues a launch of a kernel that takes TMA tensor maps: the maps for
/// this launch's values (from the entry's cache; encoded when new) go on
/// this frame, which outlives cuLaunchKernel (the driver copies the
/// parameters), and params[firstMap...] point at them. Apart from
/// launchEntry, so that the frame of every other launch stays as it was.
[[gnu::noinline]] void launchWithTensorMaps(const CacheEntry &entry, Grid grid,
                                            const Arg *args, size_t numArgs, void **params,
                                            size_t firstMap, unsigned numWarps,
                                            void *stream, bool programmatic) {
  const jit::TensorMapCache &cache = *entry.tensorMaps;
  size_t numMaps = cache.specs().size();
  constexpr size_t kFixedMaps = 8;
  runtime::EncodedTensorMap fixedMaps[kFixedMaps];
  std::vector<runtime::EncodedTensorMap> heapMaps;
  runtime::EncodedTensorMap *maps = fixedMaps;
  if (numMaps > kFixedMaps) {
    heapMaps.resize(numMaps);
    maps = heapMaps.data();
  }
  for (size_t i = 0; i < numMaps; ++i) {
    cache.get(i, args, numArgs, entry.compiled->name, entry.runtimeNameRefs, maps[i]);
    params[firstMap + i] = &maps[i];
  }
  enqueue(entry, grid, params, numWarps, stream, programmatic);
}

/// Enqueues one launch of a loaded entry. Every parameter is passed by
/// address; scalars narrower than 64 bits sit at the start of their slot
/// (little-endian). After the arguments come a debug compile's extents,
/// then the kernel's tensor maps.
void launchEntry(const CacheEntry &entry, Grid grid, const Arg *args, size_t numArgs,
                 unsigned numWarps, void *stream, bool programmatic) {
  // A debug compile takes the extent of each pointer argument after the
  // arguments, in their order.
  size_t numExtents = 0;
  if (entry.debug)
    for (const dsl::ArgSpec &spec : entry.compiled->signature.args)
      numExtents += spec.type.isPointer;
  size_t numMaps = entry.tensorMaps ? entry.tensorMaps->specs().size() : 0;
  size_t numParams = numArgs + numExtents + numMaps;
  constexpr size_t kFixed = 64;
  uint64_t fixedStorage[kFixed];
  void *fixedParams[kFixed];
  std::vector<uint64_t> heapStorage;
  std::vector<void *> heapParams;
  uint64_t *storage = fixedStorage;
  void **params = fixedParams;
  if (numParams > kFixed) {
    heapStorage.resize(numParams);
    heapParams.resize(numParams);
    storage = heapStorage.data();
    params = heapParams.data();
  }
  for (size_t i = 0; i < numArgs; ++i) {
    storage[i] = args[i].bits;
    params[i] = &storage[i];
  }
  for (size_t i = 0, next = numArgs; numExtents && i < numArgs; ++i)
    if (args[i].kind == Arg::Kind::Pointer) {
      storage[next] = uint64_t(extentOf(args[i]));
      params[next] = &storage[next];
      ++next;
    }
  if (numMaps)
    return launchWithTensorMaps(entry, grid, args, numArgs, params, numArgs + numExtents,
                                numWarps, stream, programmatic);
  enqueue(entry, grid, params, numWarps, stream, programmatic);
}

/// The target of the GPU current on this thread (device 0 when none is).
std::string currentDeviceTarget() {
  runtime::Device *device;
  try {
    device = &runtime::Device::current();
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
  return targetOf(*device);
}

/// What identifies this build of tilec in cache keys: the version, and the
/// size and modification time of the library holding this code, so that a
/// rebuilt compiler never reads entries an older one wrote.
const std::string &tilecBuildId() {
  static const std::string id = [] {
    std::string text = "tilec 0.1.0";
    Dl_info info;
    struct stat st;
    if (dladdr(reinterpret_cast<void *>(&tilecBuildId), &info) && info.dli_fname &&
        stat(info.dli_fname, &st) == 0)
      text += " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtime);
    return text;
  }();
  return id;
}

std::function<void(const RecompileEvent &)> &recompileHook() {
  static std::function<void(const RecompileEvent &)> hook;
  return hook;
}
std::mutex recompileHookMutex;

/// TILEC_LOG: comma-separated topics ("recompile", "cache").
bool logs(const char *topic) {
  static const std::string topics = [] {
    const char *v = std::getenv("TILEC_LOG");
    return std::string(",") + (v ? v : "") + ",";
  }();
  return topics.find(std::string(",") + topic + ",") != std::string::npos ||
         topics.find(",all,") != std::string::npos;
}

/// What a launch specialises on, packed into a fixed buffer: the number of
/// warps, one byte per argument (kind, element type, `:16`/`:1`) and each
/// constexpr (a tag and its value). Building it allocates nothing; a launch
/// whose key does not fit (very many arguments, long string constexprs)
/// takes the slow path every time.
struct SpecKey {
  static constexpr unsigned kCapacity = 256;
  uint16_t size = 0;
  uint8_t bytes[kCapacity];

  bool put(const void *data, unsigned n) {
    if (size + n > kCapacity)
      return false;
    std::memcpy(bytes + size, data, n);
    size += n;
    return true;
  }
  bool put8(uint8_t b) { return put(&b, 1); }
  bool operator==(const SpecKey &o) const {
    return size == o.size && std::memcmp(bytes, o.bytes, size) == 0;
  }
};

struct SpecKeyHash {
  size_t operator()(const SpecKey &k) const {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (unsigned i = 0; i < k.size; ++i)
      h = (h ^ k.bytes[i]) * 1099511628211ull;
    return size_t(h);
  }
};

/// The specialisation facts of one argument in one byte; the same facts
/// Arg::signature() spells out.
uint8_t argCode(const Arg &a) {
  int fact = jit::specialisedFact(a);
  unsigned integerFact = fact == 1 ? 2 : fact == 16 ? 1 : fact == 8 ? 3 : 0;
  switch (a.kind) {
  case Arg::Kind::Pointer:
    return uint8_t(0x80 | (unsigned(a.element) << 1) | (fact == 16));
  case Arg::Kind::I32:
    return uint8_t(0x10 | integerFact);
  case Arg::Kind::I64:
    return uint8_t(0x20 | integerFact);
  case Arg::Kind::F32: return 0x30;
  case Arg::Kind::F64: return 0x40;
  }
  return 0x7f;
}

bool putConstexpr(SpecKey &key, const Constexpr *c) {
  if (!c)
    return key.put8(0); // the parameter's default
  if (auto *i = std::get_if<int64_t>(&c->value))
    return key.put8(1) && key.put(i, sizeof *i);
  if (auto *d = std::get_if<double>(&c->value))
    return key.put8(2) && key.put(d, sizeof *d);
  if (auto *b = std::get_if<bool>(&c->value))
    return key.put8(3) && key.put8(*b);
  const std::string &s = std::get<std::string>(c->value);
  if (s.size() > 64)
    return false;
  return key.put8(4) && key.put8(uint8_t(s.size())) && key.put(s.data(), s.size());
}

/// A loaded specialisation as the fast path finds it. Lives in
/// Kernel::Impl::launchCache (node-based: its address never changes) until
/// the kernel is destroyed. Its entry was compiled for the target of the
/// GPU that was current when the slot was made (prepare() asks the device
/// before it compiles) and is loaded there: a kernel's launches go to the
/// device of its first launch (python/README.md, "Not done").
struct LaunchSlot {
  SpecKey key;
  CacheEntry *entry = nullptr;
};

constexpr size_t kMaxFastArgs = 64;
constexpr size_t kMaxConstexprs = 64;
} // namespace

/// What a Global holds, for the code below.
struct GlobalAccess {
  using Module = Global::Module;
  using Builtin = Global::Builtin;
  static const std::variant<Constexpr, Kernel, Global::Module, Global::Builtin> &
  value(const Global &g) {
    return g.value_;
  }
};

struct Kernel::Impl {
  /// A Python function's source, parsed on first need (Library::fromFunction
  /// with parameters).
  struct Deferred {
    std::string source, path;
    unsigned firstLine = 1;
    std::map<std::string, Global> globals;
  };
  std::shared_ptr<const Deferred> deferred;
  mutable std::shared_ptr<const dsl::JitFunction> parsed;
  mutable std::mutex parseMutex;
  std::string name;
  std::string path; ///< the source file, for ids and messages
  std::vector<Parameter> params;
  std::vector<const std::string *> constexprNames; ///< into params
  jit::ParamNames runtimeNames;                    ///< into params

  void setParameters(std::vector<Parameter> parameters) {
    params = std::move(parameters);
    constexprNames.clear();
    runtimeNames.clear();
    for (const Parameter &p : params)
      (p.isConstexpr ? constexprNames : runtimeNames).push_back(&p.name);
  }

  mutable std::mutex mutex;
  /// Compiled kernels by the text of their specialisation.
  /// (Being) compiled kernels by the text of their specialisation: a
  /// compile runs without `mutex`, so that several specialisations of one
  /// kernel compile in parallel (the autotuner's threads); a second thread
  /// asking for the same one waits for the first.
  mutable std::map<std::string, std::shared_future<std::shared_ptr<CacheEntry>>> cache;
  /// Guards sourceParts and lastCompileParts.
  mutable std::mutex keyMutex;
  /// Loaded kernels by launch key.
  mutable std::unordered_map<SpecKey, LaunchSlot, SpecKeyHash> launchCache;
  /// The slot of the last launch, or null: what the warm path compares with.
  mutable std::atomic<const LaunchSlot *> last{nullptr};
  /// The key parts of the source (computed once) and of the last compile.
  mutable std::optional<std::vector<jit::KeyPart>> sourceParts;
  mutable std::optional<std::vector<jit::KeyPart>> lastCompileParts;

  /// The parsed definition; parses a deferred source on first use.
  const std::shared_ptr<const dsl::JitFunction> &function() const {
    std::lock_guard<std::mutex> lock(parseMutex);
    if (!parsed)
      parsed = parseDeferred(*deferred, name);
    return parsed;
  }

  static std::shared_ptr<const dsl::JitFunction>
  parseDeferred(const Deferred &d, const std::string &name);

  /// Key parts of the source: "source NAME", then the globals and callees.
  void appendSourceParts(bool isRoot, std::set<const void *> &seen,
                         std::vector<jit::KeyPart> &parts) const {
    if (!deferred) {
      jit::appendSourceParts(*function(), isRoot, seen, parts);
      return;
    }
    if (!seen.insert(this).second)
      return;
    jit::KeyPart self;
    self.name = (isRoot ? "source " : "callee ") + name;
    self.value = jit::digest(deferred->source);
    self.location = deferred->path + ":" + std::to_string(deferred->firstLine);
    self.text = deferred->source;
    parts.push_back(self);
    std::vector<const Impl *> callees;
    for (const auto &[gname, global] : deferred->globals) {
      if (auto *c = std::get_if<Constexpr>(&GlobalAccess::value(global)))
        parts.push_back(jit::globalPart(gname, toValue(*c)));
      else if (auto *k = std::get_if<Kernel>(&GlobalAccess::value(global)))
        callees.push_back(k->impl_.get());
      else if (auto *m = std::get_if<GlobalAccess::Module>(&GlobalAccess::value(global)))
        parts.push_back(jit::globalPart(gname, dsl::Value::ofModule(m->name)));
      else
        parts.push_back(jit::globalPart(
            gname, dsl::Value::ofBuiltin(std::get<GlobalAccess::Builtin>(GlobalAccess::value(global)).name)));
    }
    for (const Impl *callee : callees)
      if (callee)
        callee->appendSourceParts(false, seen, parts);
  }

  /// Called with `mutex` held.
  std::vector<jit::KeyPart> keyParts(const std::string &signature,
                                     const std::map<std::string, dsl::Value> &values,
                                     const Knobs &knobs, const std::string &target) const {
    if (!sourceParts) {
      std::set<const void *> seen;
      std::vector<jit::KeyPart> parts;
      appendSourceParts(true, seen, parts);
      sourceParts = std::move(parts);
    }
    std::vector<jit::KeyPart> parts = *sourceParts;
    parts.push_back({"signature", signature, "", ""});
    for (const auto &[k, v] : values)
      parts.push_back({"constexpr " + k, v.repr(), "", ""});
    parts.push_back({"num_warps", std::to_string(knobs.numWarps), "", ""});
    parts.push_back({"num_stages", std::to_string(knobs.numStages), "", ""});
    if (knobs.maxRegisters)
      parts.push_back({"maxnreg", std::to_string(knobs.maxRegisters), "", ""});
    if (knobs.debug)
      parts.push_back({"debug", "True", "", ""});
    if (knobs.deterministic)
      parts.push_back({"deterministic", "True", "", ""});
    if (!knobs.lineInfo)
      parts.push_back({"line_info", "False", "", ""});
    if (!knobs.tensorMaps)
      parts.push_back({"tensor_maps", "False", "", ""});
    parts.push_back({"target", target, "", ""});
    parts.push_back({"tilec", tilecBuildId(), "", ""});
    parts.push_back({"llvm", LLVM_VERSION_STRING, "", ""});
    // CUDA device functions put NVRTC's PTX in the kernel's: another NVRTC
    // is another kernel. (Read from the source parts: a kernel reaches
    // tl.cuda_device_call from its own text or a callee's, or through a
    // global naming it. Without NVRTC such a kernel does not compile, so
    // nothing is keyed then.)
    for (const jit::KeyPart &part : *sourceParts)
      if (part.text.find("cuda_device_call") != std::string::npos ||
          part.value.find("cuda_device_call") != std::string::npos) {
        if (std::string version = nvrtcVersion(); !version.empty())
          parts.push_back({"nvrtc", version, "", ""});
        break;
      }
    return parts;
  }

  /// A compile is about to happen: say what changed since the last one
  /// (in this process, or as the disk cache's history remembers).
  void noteCompile(const std::vector<jit::KeyPart> &parts) const {
    const jit::DiskCache &disk = jit::DiskCache::instance();
    std::string id = path + ":" + name;
    std::optional<std::vector<jit::KeyPart>> before = lastCompileParts;
    if (!before)
      before = disk.lastParts(id);
    lastCompileParts = parts;
    disk.recordParts(id, parts);
    if (!before)
      return;
    RecompileEvent event;
    event.kernel = name;
    event.path = path;
    event.reasons = jit::describeChanges(*before, parts);
    if (event.reasons.empty())
      event.reasons.push_back("its cache entry is missing or damaged");
    if (logs("recompile")) {
      std::string line = "tilec: recompiling '" + name + "' (" + path + "): ";
      for (size_t i = 0; i < event.reasons.size(); ++i)
        line += (i ? "; " : "") + event.reasons[i];
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::lock_guard<std::mutex> lock(recompileHookMutex);
    if (recompileHook())
      recompileHook()(event);
  }

  /// The compiled specialisation for `target` (one of knownTargets();
  /// anything else throws Error listing them), compiled on first use. The
  /// in-memory key holds the target, like the disk cache's.
  std::shared_ptr<CacheEntry> lookup(const std::string &signature,
                                     const Constexprs &constexprs, const Knobs &knobs,
                                     const std::string &target) const {
    std::string targetError;
    if (!TargetInfo::parse(target, targetError))
      throw Error("cannot compile kernel '" + name + "': " + targetError);
    std::string key = signature + knobs.text() + "|" + target;
    std::map<std::string, dsl::Value> values;
    for (const auto &[k, v] : constexprs) {
      values[k] = toValue(v);
      key += "|" + k + "=" + values[k].repr();
    }
    std::promise<std::shared_ptr<CacheEntry>> promise;
    std::shared_future<std::shared_ptr<CacheEntry>> pending;
    bool mine = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = cache.find(key);
      if (it != cache.end()) {
        pending = it->second;
      } else {
        pending = promise.get_future().share();
        cache.emplace(key, pending);
        mine = true;
      }
    }
    if (!mine)
      return pending.get(); // rethrows the first thread's error
    try {
      std::shared_ptr<CacheEntry> entry =
          build(signature, values, knobs, target);
      promise.set_value(entry);
      return entry;
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::lock_guard<std::mutex> lock(mutex);
      cache.erase(key); // a later call tries again
      throw;
    }
  }

  std::shared_ptr<CacheEntry> newEntry() const {
    auto entry = std::make_shared<CacheEntry>();
    for (const std::string *n : runtimeNames)
      entry->runtimeNames.push_back(*n);
    for (const std::string &n : entry->runtimeNames)
      entry->runtimeNameRefs.push_back(&n);
    return entry;
  }

  /// The disk cache's entry, or a fresh compile stored there.
  std::shared_ptr<CacheEntry> build(const std::string &signature,
                                    const std::map<std::string, dsl::Value> &values,
                                    const Knobs &knobs, const std::string &target) const {
    std::shared_ptr<CacheEntry> entry;
    std::vector<jit::KeyPart> parts;
    {
      std::lock_guard<std::mutex> lock(keyMutex);
      parts = keyParts(signature, values, knobs, target);
    }
    std::string diskKey = jit::hashKey(parts);
    const jit::DiskCache &disk = jit::DiskCache::instance();
    std::string problem;
    if (std::optional<jit::CachedKernel> hit = disk.load(diskKey, &problem)) {
      auto compiled = std::make_shared<jit::CompiledKernel>();
      compiled->name = hit->name;
      std::string error;
      dsl::parseSignature(signature, compiled->signature, error);
      compiled->stages = std::move(hit->stages);
      entry = newEntry();
      entry->compiled = compiled;
      entry->tensorMaps = tensorMapCacheFor(compiled->stages);
      entry->sharedBytes = compiled->stages.sharedBytes;
      entry->blockWarps = compiled->stages.numWarps;
      entry->clusterCtas = compiled->stages.clusterCtas;
      entry->numStages = knobs.numStages;
      entry->maxRegisters = knobs.maxRegisters;
      entry->debug = knobs.debug;
      entry->deterministic = knobs.deterministic;
      entry->target = target;
      entry->diskKey = diskKey;
      entry->fromDisk = true;
      entry->cubin = std::move(hit->cubin);
      entry->cubinArch = hit->cubinArch;
      {
        std::lock_guard<std::mutex> lock(keyMutex);
        lastCompileParts = parts;
      }
      if (logs("cache"))
        std::fprintf(stderr, "tilec: cache hit for '%s' [%s] %s %s\n", name.c_str(),
                     signature.c_str(), target.c_str(), diskKey.c_str());
      return entry;
    }
    if (!problem.empty())
      std::fprintf(stderr, "tilec: %s\n", problem.c_str());
    {
      std::lock_guard<std::mutex> lock(keyMutex);
      noteCompile(parts);
    }
    jit::CompileOptions options;
    options.numWarps = knobs.numWarps;
    options.numStages = knobs.numStages;
    options.maxRegisters = knobs.maxRegisters;
    options.debug = knobs.debug;
    options.deterministic = knobs.deterministic;
    options.lineInfo = knobs.lineInfo;
    options.tensorMaps = knobs.tensorMaps;
    options.target = target;
    jit::CompileResult result = jit::compile(*function(), signature, values, options);
    if (!result.ok()) {
      if (result.sharedBytesNeeded)
        throw jit::SharedMemoryExceeded(joinErrors(result.errors), result.sharedBytesNeeded,
                                        result.sharedBytesLimit);
      throw Error(joinErrors(result.errors));
    }
    entry = newEntry();
    entry->compiled = result.kernel;
    entry->tensorMaps = tensorMapCacheFor(result.kernel->stages);
    entry->sharedBytes = result.kernel->stages.sharedBytes;
    entry->blockWarps = result.kernel->stages.numWarps;
    entry->clusterCtas = result.kernel->stages.clusterCtas;
    entry->numStages = knobs.numStages;
    entry->maxRegisters = knobs.maxRegisters;
    entry->debug = knobs.debug;
    entry->deterministic = knobs.deterministic;
    entry->target = target;
    entry->diskKey = diskKey;
    jit::CachedKernel stored;
    stored.name = name;
    stored.signature = signature;
    stored.stages = entry->compiled->stages;
    disk.store(diskKey, stored);
    if (logs("cache"))
      std::fprintf(stderr, "tilec: compiled '%s' [%s] for %s into %s\n", name.c_str(),
                   signature.c_str(), target.c_str(), diskKey.c_str());
    return entry;
  }

  /// The slow path of a launch: compile for the current GPU's target (or
  /// find that compile), load it on the GPU, remember it under `key` (when
  /// it fits) and make it the last one launched.
  CacheEntry *prepare(const SpecKey *key, const Arg *args, size_t numArgs,
                      const Constexprs &constexprs, const Knobs &knobs) const {
    if (key) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = launchCache.find(*key);
      if (it != launchCache.end()) {
        last.store(&it->second, std::memory_order_release);
        return it->second.entry;
      }
    }
    // The device first: its architecture is the target to compile for.
    runtime::Device &device = launchDevice(name);
    std::string target;
    try {
      target = targetOf(device);
    } catch (const Error &e) {
      throw Error("cannot launch kernel '" + name + "': " + e.what());
    }
    std::string signature;
    for (size_t i = 0; i < numArgs; ++i)
      signature += (i ? "," : "") + args[i].signature();
    std::shared_ptr<CacheEntry> entry =
        lookup(signature, constexprs, knobs, target);
    loadModule(*entry, device, name, signature);
    std::lock_guard<std::mutex> lock(mutex);
    if (key) {
      // `cache` keeps the entry alive as long as the kernel.
      LaunchSlot &slot = launchCache[*key];
      slot.key = *key;
      slot.entry = entry.get();
      last.store(&slot, std::memory_order_release);
    }
    return entry.get();
  }

  /// Backend::Interpreter: the tile IR of this specialisation on the CPU,
  /// device memory staged through host copies.
  void interpret(Grid grid, const Arg *args, size_t numArgs,
                 const Constexpr *const *constexprs, size_t numConstexprs,
                 bool debug, bool deterministic) const {
    std::string signature;
    for (size_t i = 0; i < numArgs; ++i)
      signature += (i ? "," : "") + args[i].signature();
    std::map<std::string, dsl::Value> values;
    for (size_t i = 0; i < numConstexprs; ++i)
      if (constexprs[i])
        values[*constexprNames[i]] = toValue(*constexprs[i]);
    std::vector<std::vector<uint8_t>> staged(numArgs);
    std::vector<interp::Arg> hostArgs;
    // launch() checked that there is one argument per runtime parameter.
    auto argName = [&](size_t i) { return "'" + *runtimeNames[i] + "'"; };
    for (size_t i = 0; i < numArgs; ++i) {
      const Arg &a = args[i];
      switch (a.kind) {
      case Arg::Kind::Pointer: {
        if (a.bytes == 0 && a.bits != 0 && !a.inHostMemory)
          throw Error("cannot interpret kernel '" + name + "': pointer argument " +
                      argName(i) + " has no size (pass Arg::host(data, bytes, "
                      "type), a Buffer, or Arg::pointer(ptr, type, bytes))");
        void *data = reinterpret_cast<void *>(uintptr_t(a.bits));
        if (!a.inHostMemory && a.bytes) {
          std::string why;
          if (!runtime::driverAvailable(&why))
            throw Error("cannot interpret kernel '" + name + "' on device memory (" +
                        argName(i) + "): " + why);
          staged[i].resize(a.bytes);
          try {
            runtime::copyDeviceToHost(staged[i].data(), data, a.bytes);
          } catch (const runtime::CudaError &e) {
            throw Error(e.what());
          }
          data = staged[i].data();
        }
        hostArgs.push_back(interp::Arg::ofBuffer(data, a.bytes));
        hostArgs.back().buffer.readOnly = a.inHostMemory && a.readOnly;
        break;
      }
      case Arg::Kind::I32:
        hostArgs.push_back(interp::Arg::ofInt(int32_t(uint32_t(a.bits))));
        break;
      case Arg::Kind::I64:
        hostArgs.push_back(interp::Arg::ofInt(int64_t(a.bits)));
        break;
      case Arg::Kind::F32: {
        float f;
        std::memcpy(&f, &a.bits, sizeof f);
        hostArgs.push_back(interp::Arg::ofFloat(f));
        break;
      }
      case Arg::Kind::F64: {
        double d;
        std::memcpy(&d, &a.bits, sizeof d);
        hostArgs.push_back(interp::Arg::ofFloat(d));
        break;
      }
      }
    }
    jit::InterpretOptions interpretOptions;
    interpretOptions.debug = debug;
    interpretOptions.deterministic = deterministic;
    jit::InterpretResult result = jit::interpret(
        *function(), signature, values, interp::Grid{grid.x, grid.y, grid.z},
        std::move(hostArgs), interpretOptions);
    if (!result.ok())
      throw Error(joinErrors(result.errors));
    for (size_t i = 0; i < numArgs; ++i)
      if (!staged[i].empty()) {
        try {
          runtime::copyHostToDevice(reinterpret_cast<void *>(uintptr_t(args[i].bits)),
                                    staged[i].data(), staged[i].size());
        } catch (const runtime::CudaError &e) {
          throw Error(e.what());
        }
      }
  }

  void launch(Grid grid, const Arg *args, size_t numArgs,
              const Constexpr *const *constexprs, size_t numConstexprs,
              const LaunchOptions &options) const {
    if (numConstexprs > constexprNames.size())
      throw Error("kernel '" + name + "' takes " +
                  std::to_string(constexprNames.size()) +
                  " constexpr parameters, got " + std::to_string(numConstexprs));
    jit::checkArgumentCount(name, runtimeNames, numArgs);
    jit::checkGrid(name, grid);
    jit::checkPointerArguments(name, runtimeNames, args, numArgs, options.backend);
    if (options.backend == Backend::Interpreter)
      return interpret(grid, args, numArgs, constexprs, numConstexprs, options.debug,
                       options.deterministic);
    SpecKey key;
    bool fits = numArgs <= kMaxFastArgs && key.put(&options.numWarps, sizeof(unsigned)) &&
                key.put(&options.numStages, sizeof(unsigned)) &&
                key.put(&options.maxRegisters, sizeof(unsigned)) &&
                key.put8(uint8_t(options.debug)) &&
                key.put8(uint8_t(options.deterministic)) &&
                key.put8(uint8_t(numArgs));
    for (size_t i = 0; fits && i < numArgs; ++i)
      fits = key.put8(argCode(args[i]));
    for (size_t i = 0; fits && i < constexprNames.size(); ++i)
      fits = putConstexpr(key, i < numConstexprs ? constexprs[i] : nullptr);

    CacheEntry *entry = nullptr;
    const LaunchSlot *slot = fits ? last.load(std::memory_order_acquire) : nullptr;
    if (slot && slot->key == key) {
      entry = slot->entry;
    } else {
      Constexprs given;
      for (size_t i = 0; i < numConstexprs; ++i)
        if (constexprs[i])
          given.emplace(*constexprNames[i], *constexprs[i]);
      entry = prepare(fits ? &key : nullptr, args, numArgs, given,
                      Knobs(options));
    }

    jit::checkDevicePointers(name, runtimeNames, args, numArgs,
                             entry->module->device().ordinal());
    launchEntry(*entry, grid, args, numArgs, entry->blockWarps, options.stream,
                options.launchPdl);
  }
};

namespace {
const CacheEntry &entryOf(const std::shared_ptr<const void> &impl) {
  return *static_cast<const CacheEntry *>(impl.get());
}

/// Loads a compiled kernel's machine code on the current GPU (once) and
/// returns that GPU; throws Error when its target cannot run there or an
/// earlier launch loaded it on another GPU.
runtime::Device &loadOnCurrentDevice(CacheEntry &entry) {
  const std::string &name = entry.compiled->name;
  runtime::Device *device = &launchDevice(name);
  std::string error;
  std::optional<TargetInfo> target = TargetInfo::parse(entry.target, error);
  if (!target || !jit::targetRunsOn(*target, unsigned(device->computeCapability())))
    throw Error("cannot launch kernel '" + name + "': it was compiled for " + entry.target +
                ", which " + device->name() + " (sm_" +
                std::to_string(device->computeCapability()) +
                ") cannot run; compile for its own target (defaultTarget())");
  loadModule(entry, *device, name, entry.compiled->signature.str());
  if (entry.module->device().ordinal() != device->ordinal())
    throw Error("cannot launch kernel '" + name + "': this compile was loaded on GPU " +
                std::to_string(entry.module->device().ordinal()) + " by its first launch, and GPU " +
                std::to_string(device->ordinal()) + " is current");
  return *device;
}

/// The entry of a compile; only its module, written once under its mutex,
/// changes after the compile.
CacheEntry &mutableEntryOf(const std::shared_ptr<const void> &impl) {
  if (!impl)
    throw Error("cannot launch an empty CompiledKernel (Kernel::compile makes them)");
  return *static_cast<CacheEntry *>(const_cast<void *>(impl.get()));
}
} // namespace

void CompiledKernel::load() const { loadOnCurrentDevice(mutableEntryOf(impl_)); }

int CompiledKernel::maxActiveClusters() const {
  CacheEntry &entry = mutableEntryOf(impl_);
  loadOnCurrentDevice(entry);
  std::lock_guard<std::mutex> lock(entry.moduleMutex);
  try {
    return entry.module->maxActiveClusters(entry.blockWarps * 32, entry.sharedBytes,
                                           entry.clusterCtas);
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
}

void CompiledKernel::launch(Grid grid, const std::vector<Arg> &args, void *stream,
                            bool launchPdl) const {
  CacheEntry &entry = mutableEntryOf(impl_);
  const std::string &name = entry.compiled->name;
  const jit::ParamNames &names = entry.runtimeNameRefs;
  std::vector<Arg> converted =
      jit::argumentsForSignature(name, names, entry.compiled->signature, args);
  jit::checkGrid(name, grid);
  jit::checkPointerArguments(name, names, converted.data(), converted.size(), Backend::GPU);
  loadOnCurrentDevice(entry);
  jit::checkDevicePointers(name, names, converted.data(), converted.size(),
                           entry.module->device().ordinal());
  launchEntry(entry, grid, converted.data(), converted.size(),
              entry.compiled->stages.numWarps, stream, launchPdl);
}

const std::string &CompiledKernel::tile() const { return entryOf(impl_).compiled->stages.tile; }
const std::string &CompiledKernel::tilegpu() const {
  return entryOf(impl_).compiled->stages.tilegpu;
}
const std::string &CompiledKernel::llir() const { return entryOf(impl_).compiled->stages.llir; }
const std::string &CompiledKernel::ptx() const { return entryOf(impl_).compiled->stages.ptx; }
unsigned CompiledKernel::sharedBytes() const {
  return entryOf(impl_).compiled->stages.sharedBytes;
}
unsigned CompiledKernel::numWarps() const { return entryOf(impl_).compiled->stages.numWarps; }
unsigned CompiledKernel::numStages() const { return entryOf(impl_).numStages; }
unsigned CompiledKernel::clusterSize() const { return entryOf(impl_).clusterCtas; }
unsigned CompiledKernel::maxRegisters() const { return entryOf(impl_).maxRegisters; }
bool CompiledKernel::debug() const { return entryOf(impl_).debug; }
std::vector<std::string> CompiledKernel::tensorMaps() const {
  std::vector<std::string> out;
  for (const TensorMapSpec &spec : entryOf(impl_).compiled->stages.tensorMaps)
    out.push_back(spec.str());
  return out;
}
bool CompiledKernel::deterministic() const { return entryOf(impl_).deterministic; }
double CompiledKernel::compileMilliseconds() const {
  return entryOf(impl_).compiled->times.total;
}
bool CompiledKernel::fromDiskCache() const { return entryOf(impl_).fromDisk; }
int CompiledKernel::numRegisters() const {
  CacheEntry &e = mutableEntryOf(impl_);
  std::lock_guard<std::mutex> lock(e.moduleMutex); // a load may be writing it
  return e.module ? e.module->numRegisters() : -1;
}
int CompiledKernel::spillBytes() const {
  CacheEntry &e = mutableEntryOf(impl_);
  std::lock_guard<std::mutex> lock(e.moduleMutex);
  return e.module ? e.module->localBytesPerThread() : -1;
}
const std::string &CompiledKernel::cacheKey() const { return entryOf(impl_).diskKey; }
const std::string &CompiledKernel::target() const { return entryOf(impl_).target; }
std::string CompiledKernel::signature() const {
  return entryOf(impl_).compiled->signature.str();
}
std::vector<ArgumentType> CompiledKernel::argumentTypes() const {
  std::vector<ArgumentType> types;
  for (const dsl::ArgSpec &spec : entryOf(impl_).compiled->signature.args) {
    ArgumentType t;
    t.pointer = spec.type.isPointer;
    t.element = ScalarType(int(spec.type.scalar)); // same order (Values.cpp)
    t.divisibility = spec.divisibility;
    t.equalsOne = spec.equalsOne;
    types.push_back(t);
  }
  return types;
}
/// Machine code of `ptx` for the current GPU, and the driver compiler's
/// info log into *log when given; refused (Error) where the target does
/// not run on that GPU.
static std::vector<char> assembleForCurrentGPU(const std::string &ptx,
                                               const std::string &targetName,
                                               const std::string &kernelName,
                                               std::string *log) {
  try {
    const runtime::Device &device = runtime::Device::current();
    std::string error;
    std::optional<TargetInfo> target = TargetInfo::parse(targetName, error);
    if (target && !jit::targetRunsOn(*target, unsigned(device.computeCapability())))
      throw Error("cannot make a cubin of kernel '" + kernelName + "' compiled for " +
                  target->chip + " on the GPU " + device.name() + " (compute capability " +
                  std::to_string(device.computeCapability() / 10) + "." +
                  std::to_string(device.computeCapability() % 10) + "): compile it for " +
                  targetOf(device) + ", or omit the target");
    return runtime::Module::linkPTXToCubin(ptx, log);
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
}

std::vector<char> CompiledKernel::cubin() const {
  return assembleForCurrentGPU(ptx(), target(), entryOf(impl_).compiled->name, nullptr);
}

std::string CompiledKernel::jitLog() const {
  std::string log;
  assembleForCurrentGPU(ptx(), target(), entryOf(impl_).compiled->name, &log);
  return log;
}

CompiledKernel Kernel::compile(const std::string &signature,
                               const Constexprs &constexprs, unsigned numWarps,
                               const std::string &target, unsigned numStages,
                               unsigned maxRegisters, bool debug,
                               bool deterministic, bool tensorMaps) const {
  CompiledKernel k;
  Knobs knobs(numWarps, numStages, maxRegisters, debug, deterministic);
  knobs.tensorMaps = tensorMaps;
  k.impl_ = impl_->lookup(signature, constexprs, knobs,
                          target.empty() ? defaultTarget() : target);
  return k;
}

std::string summarizePTX(const std::string &ptx) { return jit::summarizePTX(ptx); }

bool cudaAvailable(std::string *why) { return runtime::driverAvailable(why); }

DeviceProperties deviceProperties(int ordinal) {
  std::string why;
  if (!runtime::driverAvailable(&why))
    throw Error("cannot read the GPU's properties: " + why);
  try {
    runtime::Device &d = ordinal < 0 ? runtime::Device::current() : runtime::Device::get(ordinal);
    DeviceProperties p;
    p.name = d.name();
    p.ordinal = d.ordinal();
    p.computeCapability = d.computeCapability();
    p.multiprocessorCount = d.multiprocessorCount();
    p.maxSharedMemoryPerBlock = d.maxSharedMemoryPerBlockOptin();
    p.maxRegistersPerBlock = d.attribute(runtime::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    p.maxThreadsPerMultiprocessor =
        d.attribute(runtime::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    p.warpSize = d.attribute(runtime::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    p.smClockKHz = d.attribute(runtime::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    p.memoryClockKHz = d.attribute(runtime::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p.memoryBusWidthBits = d.attribute(runtime::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    p.l2CacheBytes = d.l2CacheBytes();
    return p;
  } catch (const runtime::CudaError &e) {
    throw Error(std::string("cannot read the GPU's properties: ") + e.what());
  }
}

std::string knownTargets() { return TargetInfo::knownChips(); }

std::vector<std::string> builtinNames() { return dsl::builtinNames(); }

std::string defaultTarget() {
  if (!runtime::driverAvailable())
    return "sm_90a";
  return currentDeviceTarget();
}

bool targetRunsOnCurrentGPU(const std::string &target) {
  std::string error;
  std::optional<TargetInfo> t = TargetInfo::parse(target, error);
  if (!t || !runtime::driverAvailable())
    return false;
  try {
    return jit::targetRunsOn(*t, unsigned(runtime::Device::current().computeCapability()));
  } catch (const std::exception &) {
    return false;
  }
}

const std::string &Kernel::name() const { return impl_->name; }

std::string Kernel::sourceDigest() const {
  std::lock_guard<std::mutex> lock(impl_->keyMutex);
  std::vector<jit::KeyPart> parts = impl_->keyParts("", {}, Knobs{}, "");
  parts.resize(impl_->sourceParts->size());
  return jit::hashKey(parts);
}
const std::vector<Parameter> &Kernel::parameters() const { return impl_->params; }

void Kernel::launch(Grid grid, const std::vector<Arg> &args,
                    const Constexprs &constexprs,
                    const LaunchOptions &options) const {
  const Impl &impl = *impl_;
  size_t n = impl.constexprNames.size();
  const Constexpr *fixed[kMaxConstexprs];
  std::vector<const Constexpr *> heap;
  const Constexpr **values = fixed;
  if (n > kMaxConstexprs) {
    heap.resize(n);
    values = heap.data();
  }
  size_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    auto it = constexprs.find(*impl.constexprNames[i]);
    values[i] = it == constexprs.end() ? nullptr : &it->second;
    found += values[i] != nullptr;
  }
  if (found != constexprs.size()) {
    // A name that is no constexpr parameter: let the compiler say so (its
    // front end does, before any target matters).
    std::string signature;
    for (size_t i = 0; i < args.size(); ++i)
      signature += (i ? "," : "") + args[i].signature();
    impl.lookup(signature, constexprs,
                Knobs(options), "sm_90a");
    throw Error("kernel '" + impl.name + "' has no such constexpr parameter");
  }
  impl.launch(grid, args.data(), args.size(), values, n, options);
}

void Kernel::launch(Grid grid, const Arg *args, size_t numArgs,
                    const Constexpr *constexprs, size_t numConstexprs,
                    const LaunchOptions &options) const {
  const Constexpr *fixed[kMaxConstexprs];
  std::vector<const Constexpr *> heap;
  const Constexpr **values = fixed;
  if (numConstexprs > kMaxConstexprs) {
    heap.resize(numConstexprs);
    values = heap.data();
  }
  for (size_t i = 0; i < numConstexprs; ++i)
    values[i] = &constexprs[i];
  impl_->launch(grid, args, numArgs, values, numConstexprs, options);
}

void setRecompileHook(std::function<void(const RecompileEvent &)> hook) {
  std::lock_guard<std::mutex> lock(recompileHookMutex);
  recompileHook() = std::move(hook);
}

namespace cache {
std::string directory() { return jit::DiskCache::instance().dir(); }

std::vector<Entry> list() {
  std::vector<Entry> out;
  for (const jit::CacheEntryInfo &i : jit::DiskCache::instance().list())
    out.push_back(Entry{i.key, i.name, i.signature, i.cubinArch, i.bytes, i.modified});
  return out;
}

std::string show(const std::string &keyPrefix) {
  const jit::DiskCache &disk = jit::DiskCache::instance();
  if (keyPrefix.empty())
    throw Error("tilec cache show: give a key (or its first digits)");
  std::vector<std::string> matches;
  for (const jit::CacheEntryInfo &i : disk.list())
    if (i.key.rfind(keyPrefix, 0) == 0)
      matches.push_back(i.key);
  if (matches.empty())
    throw Error("no cache entry has a key starting with '" + keyPrefix + "'");
  if (matches.size() > 1)
    throw Error(std::to_string(matches.size()) + " cache entries have keys starting with '" +
                keyPrefix + "'; give more digits");
  std::string problem;
  std::optional<jit::CachedKernel> k = disk.load(matches[0], &problem);
  if (!k)
    throw Error(problem.empty() ? "cannot read cache entry " + matches[0] : problem);
  std::string text = "key: " + matches[0] + "\nfile: " + disk.entryPath(matches[0]) +
                     "\nkernel: " + k->name + "\nsignature: " + k->signature +
                     "\nnum_warps: " + std::to_string(k->stages.numWarps) +
                     "\nshared bytes: " + std::to_string(k->stages.sharedBytes) +
                     (k->stages.clusterCtas > 1
                          ? "\nclusters of: " + std::to_string(k->stages.clusterCtas)
                          : std::string()) +
                     "\ncubin: " +
                     (k->cubin.empty() ? std::string("none")
                                       : std::to_string(k->cubin.size()) + " bytes for " +
                                             k->cubinArch) +
                     "\n";
  for (size_t i = 0; i < k->stages.tensorMaps.size(); ++i)
    text += "tensor map " + std::to_string(i) + ": " + k->stages.tensorMaps[i].str() + "\n";
  text += "\n// ----- tile -----\n" + k->stages.tile;
  text += "\n// ----- tilegpu -----\n" + k->stages.tilegpu;
  text += "\n; ----- llir -----\n" + k->stages.llir;
  text += "\n// ----- ptx -----\n" + k->stages.ptx;
  return text;
}

uint64_t sizeBytes() { return jit::DiskCache::instance().sizeBytes(); }
size_t clear() { return jit::DiskCache::instance().clear(); }
} // namespace cache

//===----------------------------------------------------------------------===//
// Global
//===----------------------------------------------------------------------===//

Global Global::module(std::string name) { return Global(Module{std::move(name)}); }
Global Global::builtin(std::string name) { return Global(Builtin{std::move(name)}); }

//===----------------------------------------------------------------------===//
// Library
//===----------------------------------------------------------------------===//

struct Library::Impl {
  jit::ParsedSource source;
  /// fromFunction with parameters: its one kernel, not parsed yet.
  std::shared_ptr<Kernel> deferredKernel;
};

Library Library::fromString(const std::string &text, const std::string &name) {
  Library lib;
  lib.impl_ = std::make_shared<Impl>();
  lib.impl_->source = jit::parseSource(name, text);
  if (!lib.impl_->source.ok())
    throw Error(joinErrors(lib.impl_->source.errors));
  return lib;
}

Library Library::fromFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot read kernel source '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return fromString(text.str(), path);
}

namespace {
/// One Python function's source, parsed, its free names bound to `globals`.
jit::ParsedSource parseFunction(const std::string &source, const std::string &path,
                                unsigned firstLine,
                                const std::map<std::string, Global> &globals,
                                const std::function<dsl::Value(const Kernel &)> &functionOf);
} // namespace

Library Library::fromFunction(const std::string &source, const std::string &path,
                              unsigned firstLine,
                              const std::map<std::string, Global> &globals) {
  Library lib;
  lib.impl_ = std::make_shared<Impl>();
  lib.impl_->source = parseFunction(source, path, firstLine, globals, [&](const Kernel &k) {
    if (!k.impl_)
      throw Error("a global of '" + path + "' is an empty Kernel");
    return dsl::Value::ofFunction(k.impl_->function());
  });
  return lib;
}

Library Library::fromFunction(const std::string &source, const std::string &path,
                              unsigned firstLine,
                              const std::map<std::string, Global> &globals,
                              const std::string &name,
                              const std::vector<Parameter> &parameters) {
  for (const auto &[gname, global] : globals)
    if (auto *k = std::get_if<Kernel>(&GlobalAccess::value(global)); k && !k->impl_)
      throw Error("global '" + gname + "' is an empty Kernel");
  Library lib;
  lib.impl_ = std::make_shared<Impl>();
  Kernel k;
  k.impl_ = std::make_shared<Kernel::Impl>();
  auto deferred = std::make_shared<Kernel::Impl::Deferred>();
  deferred->source = source;
  deferred->path = path;
  deferred->firstLine = firstLine ? firstLine : 1;
  deferred->globals = globals;
  k.impl_->deferred = std::move(deferred);
  k.impl_->name = name;
  k.impl_->path = path;
  k.impl_->setParameters(parameters);
  lib.impl_->deferredKernel = std::make_shared<Kernel>(std::move(k));
  return lib;
}

std::shared_ptr<const dsl::JitFunction>
Kernel::Impl::parseDeferred(const Deferred &d, const std::string &name) {
  jit::ParsedSource parsed =
      parseFunction(d.source, d.path, d.firstLine, d.globals, [](const Kernel &k) {
        return dsl::Value::ofFunction(k.impl_->function());
      });
  auto fn = parsed.function(name);
  if (!fn)
    throw Error(d.path + ": error: the source given for '" + name +
                "' defines no function of that name");
  return fn;
}

namespace {
jit::ParsedSource parseFunction(const std::string &source, const std::string &path,
                                unsigned firstLine,
                                const std::map<std::string, Global> &globals,
                                const std::function<dsl::Value(const Kernel &)> &functionOf) {
  jit::ParsedSource parsed = jit::parseSource(path, source, firstLine ? firstLine : 1);
  if (!parsed.ok())
    throw Error(joinErrors(parsed.errors));
  const dsl::FunctionDef *def = nullptr;
  for (const dsl::StmtPtr &s : parsed.module->body) {
    // A function that does not parse is that function's error.
    if (auto *u = llvm::dyn_cast<dsl::UnparsedStmt>(s.get()))
      throw Error(u->error.render());
    auto *d = llvm::dyn_cast<dsl::FunctionDef>(s.get());
    if (!d || def)
      throw Error(path + ":" + std::to_string(s->loc.line) + ":" +
                  std::to_string(s->loc.col) +
                  ": error: the source of a @jit function must hold that one "
                  "function and nothing else");
    def = d;
  }
  if (!def)
    throw Error(path + ": error: no function definition in the source given");
  // Python's globals replace what the file scope would bind; the function
  // keeps its own name, so that it may call itself by it.
  for (const auto &[name, global] : globals) {
    if (name == def->name)
      continue;
    dsl::Value value;
    if (auto *c = std::get_if<Constexpr>(&GlobalAccess::value(global))) {
      value = toValue(*c);
    } else if (auto *k = std::get_if<Kernel>(&GlobalAccess::value(global))) {
      value = functionOf(*k);
    } else if (auto *m = std::get_if<GlobalAccess::Module>(&GlobalAccess::value(global))) {
      // Python passes a module's own name: "triton.language.extra.libdevice".
      value = dsl::Value::ofModule(dsl::classifyModule(m->name));
    } else {
      const std::string &b = std::get<GlobalAccess::Builtin>(GlobalAccess::value(global)).name;
      bool qualified = b.rfind("tl.", 0) == 0 || b.rfind("libdevice.", 0) == 0;
      value = dsl::Value::ofBuiltin(qualified ? b : "tl." + b);
    }
    parsed.scope->define(name, std::move(value));
  }
  return parsed;
}
} // namespace

Kernel Library::kernel(const std::string &name) const {
  if (impl_->deferredKernel) {
    if (name != impl_->deferredKernel->name())
      throw Error("no function named '" + name + "' in the source given (it defines '" +
                  impl_->deferredKernel->name() + "')");
    return *impl_->deferredKernel;
  }
  auto fn = impl_->source.function(name);
  if (!fn) {
    // A definition that did not parse: its own error.
    for (const dsl::StmtPtr &s : impl_->source.module->body)
      if (auto *u = llvm::dyn_cast<dsl::UnparsedStmt>(s.get()))
        if (u->isFunction && u->name == name)
          throw Error(u->error.render());
    throw Error("no function named '" + name + "' in " +
                impl_->source.module->source->path());
  }
  Kernel k;
  k.impl_ = std::make_shared<Kernel::Impl>();
  k.impl_->parsed = fn;
  k.impl_->name = name;
  k.impl_->path = impl_->source.module->source->path();
  std::vector<Parameter> params;
  for (const dsl::Param &p : fn->def->params)
    params.push_back(Parameter{p.name, isConstexprAnnotation(p.annotation.get()),
                               p.defaultValue != nullptr});
  k.impl_->setParameters(std::move(params));
  return k;
}

} // namespace tilec
