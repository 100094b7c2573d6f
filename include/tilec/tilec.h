// tilec's C++ API: load kernels written in the kernel language, compile
// them for a signature, inspect every stage, launch them on a GPU.
//
//   auto lib = tilec::Library::fromFile("kernels/vector_add.py");
//   auto add = lib.kernel("add");
//   add.launch({tilec::cdiv(n, 1024)}, {{x, "fp32"}, {y, "fp32"}, {out, "fp32"}, n},
//              {{"BLOCK", 1024}});
//   std::string ptx = add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16",
//                                 {{"BLOCK", 1024}}).ptx();
//
// (x, y and out are tilec::Buffer, n any integer type; tests/api builds
// this example and README.md's with -Werror under g++ and clang.)
//
// The Python package (python/tilec) is a thin binding over this header:
// Library::fromFunction takes a decorated function's source and globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace tilec {

/// Any failure: a located compile error (the text quotes the source line),
/// a bad argument, or a CUDA error naming the kernel.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {
/// Integer types other than bool: what the integer constructors below take,
/// so that int, unsigned, size_t, int64_t and long long all convert
/// without ambiguity.
template <typename T>
using IfInteger =
    std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int>;
/// `v` as an int64_t; throws Error for an unsigned value past INT64_MAX.
int64_t toInt64(uint64_t v, const char *what);
} // namespace detail

/// A constexpr value: an integer, a float, a bool, or a dtype name ("fp16").
struct Constexpr {
  std::variant<int64_t, double, bool, std::string> value;
  /// Any integer type; an unsigned value past INT64_MAX throws Error.
  template <typename T, detail::IfInteger<T> = 0>
  Constexpr(T v)
      : value(std::is_signed_v<T> ? int64_t(v)
                                  : detail::toInt64(uint64_t(v), "a constexpr")) {}
  Constexpr(double v) : value(v) {}
  Constexpr(bool v) : value(v) {}
  Constexpr(const char *dtype) : value(std::string(dtype)) {}
  Constexpr(std::string dtype) : value(std::move(dtype)) {}
};
using Constexprs = std::map<std::string, Constexpr>;

/// A launch grid: programs along x, y and z. Built from any integer types
/// (`{tilec::cdiv(n, 1024)}` is an int64_t); a negative size or one past
/// 2^32 - 1 throws Error. A size of 0 launches nothing.
struct Grid {
  unsigned x = 1, y = 1, z = 1;
  Grid() = default;
  template <typename X, typename Y = unsigned, typename Z = unsigned,
            detail::IfInteger<X> = 0, detail::IfInteger<Y> = 0,
            detail::IfInteger<Z> = 0>
  Grid(X x, Y y = 1, Z z = 1) : x(size(x, "x")), y(size(y, "y")), z(size(z, "z")) {}

private:
  template <typename T> static unsigned size(T v, const char *axis) {
    return std::is_signed_v<T> ? checkedSize(int64_t(v), axis)
                               : checkedSize(uint64_t(v), axis);
  }
  static unsigned checkedSize(int64_t v, const char *axis);
  static unsigned checkedSize(uint64_t v, const char *axis);
};

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The element types of pointer arguments (the kernel language's scalars).
enum class ScalarType : uint8_t {
  I1, I8, I16, I32, I64, U8, U16, U32, U64, FP16, BF16, FP32, FP64,
  FP8E4M3, ///< "fp8e4nv": torch.float8_e4m3fn
  FP8E5M2, ///< "fp8e5": torch.float8_e5m2
};
/// Triton's short name: "i1", "i32", "u8", "fp16", "bf16", "fp32",
/// "fp8e4nv", ...
const char *scalarTypeName(ScalarType type);
/// Accepts the short names, tl's long ones ("float16", "int32", "bfloat16")
/// and "tl."-prefixed ones; nullopt for anything else (pointers included).
std::optional<ScalarType> parseScalarType(const std::string &name);

/// Device memory owned by the caller of tilec (move-only).
class Buffer {
public:
  static Buffer allocate(size_t bytes);
  Buffer();
  Buffer(Buffer &&) noexcept;
  Buffer &operator=(Buffer &&) noexcept;
  ~Buffer();

  void *data() const;
  size_t size() const;
  /// The GPU (ordinal) it was allocated on; -1 for an empty Buffer.
  int device() const;
  /// Synchronous copies on the legacy default stream. copyFromHost and
  /// fill have landed on the device when they return, so launches on any
  /// stream see the data; copyToHost does not wait for work on a
  /// tilec::Stream (or another non-blocking stream): synchronize it first.
  void copyFromHost(const void *src, size_t bytes);
  void copyToHost(void *dst, size_t bytes) const;
  /// Every byte set to `byte` (poisoning outputs before a test).
  void fill(uint8_t byte);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A CUDA stream of the current GPU (non-blocking, of its primary context:
/// the one PyTorch and the CUDA runtime use), owned (move-only). Launches
/// take `stream.handle()` as their stream.
class Stream {
public:
  /// Throws Error without a driver.
  static Stream create();
  Stream();
  Stream(Stream &&) noexcept;
  Stream &operator=(Stream &&) noexcept;
  ~Stream();
  /// The CUstream; null for an empty Stream.
  void *handle() const;
  /// Waits for the work queued on it; reports the first asynchronous error
  /// of that work as an Error.
  void synchronize() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A CUDA graph: the launches a function makes on a stream, captured once
/// and replayed with one call (move-only). Launches of kernels that have
/// already run with the same specialisation are capture-safe: they
/// allocate, synchronise and compile nothing, so launch each kernel once
/// before capturing. What a graph launches reads its arguments' memory at
/// replay time: write new inputs (positions, tokens) into the same
/// buffers and replay.
///
///   tilec::Stream stream = tilec::Stream::create();
///   LaunchOptions o; o.stream = stream.handle();
///   kernel.launch(grid, args, constexprs, o);           // warm
///   tilec::Graph g = tilec::Graph::capture(stream, [&] {
///     kernel.launch(grid, args, constexprs, o);
///   });
///   g.launch(stream); stream.synchronize();
class Graph {
public:
  /// Captures what `launches` enqueues on `stream`. Throws Error when the
  /// capture breaks (an allocation or a synchronisation on this thread, a
  /// launch that had to load its kernel); an exception from `launches`
  /// ends the capture and propagates. Interpreter launches are not
  /// captured: they run when called.
  static Graph capture(const Stream &stream, const std::function<void()> &launches);
  Graph();
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;
  ~Graph();
  /// Enqueues one replay on `stream` (any stream of the same GPU).
  void launch(const Stream &stream) const;
  /// The nodes (kernel launches) it holds.
  size_t numNodes() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A kernel argument. Pointers name their element type; scalars are typed
/// by their C++ type: signed integers of up to 32 bits → i32, 64-bit ones
/// (int64_t, long long) → i64, unsigned ones (unsigned, size_t) by their
/// value as Python ints are (i32 when it fits, else i64; past INT64_MAX an
/// Error), bool → i32 0 or 1, float → fp32, double → fp64. The
/// specialisation facts (`:16`, `:8`, `:1`) are read off the values.
struct Arg {
  enum class Kind : uint8_t { Pointer, I32, I64, F32, F64 } kind;
  ScalarType element = ScalarType::FP32; ///< pointers: what they point to
  bool inHostMemory = false; ///< pointers: host memory (interpreter only)
  /// Host pointers: the interpreter refuses to store through it (a
  /// read-only numpy array); the GPU ignores it.
  bool readOnly = false;
  uint64_t bits = 0; ///< the value (pointer address or scalar bits)
  /// What a launch specialises on for this argument: everything (`:16` for
  /// 16-byte aligned pointers and integers divisible by 16, `:8` for other
  /// integers divisible by 8, `:1` for integers equal to 1), everything but
  /// alignment (no `:16` or `:8`: Triton's
  /// do_not_specialize_on_alignment), or nothing (Triton's
  /// do_not_specialize: one compile for every value).
  enum class Facts : uint8_t { All, NoAlignment, None } facts = Facts::All;
  /// Pointers: bytes the kernel may touch from the address, 0 when unknown.
  /// The interpreter needs it (every access is checked against it); on the
  /// GPU a debug compile's bounds checks use it (LaunchOptions::debug),
  /// else it is ignored.
  size_t bytes = 0;
  /// Pointers: the GPU (its ordinal) whose memory this is, when the caller
  /// knows it: a Buffer's, a torch CUDA tensor's device. A launch on that
  /// GPU then takes it at its word instead of asking the driver about the
  /// address (cuPointerGetAttributes, a few hundred nanoseconds per pointer
  /// per launch); on another GPU, or with -1 (unknown), it asks.
  int device = -1;

  /// A device pointer (raw CUDA memory); `bytes` as above.
  static Arg pointer(const void *devicePtr, ScalarType element, size_t bytes = 0);
  /// Throws Error for an unknown element name.
  static Arg pointer(const void *devicePtr, const std::string &element,
                     size_t bytes = 0);
  /// Host memory of `bytes` bytes, for the interpreter backend.
  static Arg host(void *data, size_t bytes, ScalarType element);
  template <typename T>
  static Arg host(std::vector<T> &v, ScalarType element) {
    return host(v.data(), v.size() * sizeof(T), element);
  }
  Arg(const Buffer &b, const std::string &element)
      : Arg(pointer(b.data(), element, b.size())) {
    device = b.device();
  }
  Arg(const Buffer &b, ScalarType element) : Arg(pointer(b.data(), element, b.size())) {
    device = b.device();
  }
  template <typename T, detail::IfInteger<T> = 0>
  Arg(T v)
      : Arg(std::is_signed_v<T> ? (sizeof(T) <= 4 ? i32(int32_t(v)) : i64(int64_t(v)))
                                : fromUnsigned(uint64_t(v))) {}
  Arg(bool v) : Arg(i32(v ? 1 : 0)) {}
  Arg(float v);
  Arg(double v);

  /// The signature entry this argument specialises on: "*fp32:16", "i32:1".
  std::string signature() const;

private:
  static Arg i32(int32_t v);
  static Arg i64(int64_t v);
  static Arg fromUnsigned(uint64_t v);
  Arg() = default;
};

/// Where a launch runs.
enum class Backend : uint8_t {
  GPU,
  /// tilec's CPU interpreter of the tile IR (runtime/Interpreter.h): one
  /// program after another on the host, every load and store checked
  /// against its argument's `bytes`. Host pointers (Arg::host) are used
  /// in place; device pointers with a known size are copied to the host
  /// and back (which needs the driver). No driver is needed otherwise.
  Interpreter,
};
/// Backend::Interpreter when the environment has TILEC_INTERPRET=1 (read
/// once), else Backend::GPU.
Backend defaultBackend();
/// True when the environment has TILEC_DEBUG=1 (read once; Triton's
/// TRITON_DEBUG): LaunchOptions::debug's default.
bool defaultDebug();

struct LaunchOptions {
  unsigned numWarps = 4;
  /// Software-pipeline stages of the loops that feed tl.dot (Triton's
  /// num_stages; `tl.range(..., num_stages=)` overrides it per loop): on
  /// sm_80+ that many shared buffers per operand, filled through cp.async
  /// num_stages - 1 iterations ahead; 1 turns it off.
  unsigned numStages = 3;
  /// Most registers per thread (PTX .maxnreg, Triton's maxnreg), 16 to
  /// 255; 0 leaves the choice to the assembler.
  unsigned maxRegisters = 0;
  /// Triton's debug=True: tl.device_assert and `assert` on runtime values
  /// are checked (a failure stops the kernel with the failing element's
  /// program, index and values, and the launch's next synchronisation
  /// throws), and every load and store is checked against the extent of
  /// the buffer its pointer argument points into (docs/language.md,
  /// "Debugging"). A separate compile, slower; off unless TILEC_DEBUG=1.
  bool debug = defaultDebug();
  /// Batch invariance (docs/determinism.md): the compile rejects, with an
  /// error at the user's line, float atomics and float accumulations whose
  /// split depends on the grid (tl.num_programs) or on runtime values, so
  /// that what a kernel computes for one row cannot change with the rows
  /// launched beside it. Changes no code; keyed apart in the caches.
  bool deterministic = false;
  /// Programmatic dependent launch (Triton's launch_pdl; sm_90+, ignored
  /// before and by the interpreter): the kernel may start while the kernel
  /// ahead of it on the stream still runs (as soon as every program of
  /// that one has run tl.extra.cuda.gdc_launch_dependents, or ended), and
  /// must call tl.extra.cuda.gdc_wait before it touches anything that
  /// kernel writes or reads, and in every program (a kernel that never
  /// waits may end before the one ahead of it does). Kept in CUDA graphs
  /// captured from the stream. Changes no code.
  bool launchPdl = false;
  void *stream = nullptr; ///< a CUstream; null for the default stream
  Backend backend = defaultBackend();
};

/// One entry of a compiled signature: the type a runtime parameter was
/// specialised on ("*fp32:16" is a pointer to FP32, 16-byte aligned).
struct ArgumentType {
  bool pointer = false;
  ScalarType element = ScalarType::FP32; ///< the scalar, or the pointee
  /// `:16` → 16, `:8` → 8, else 1; for pointers, bytes of alignment.
  unsigned divisibility = 1;
  bool equalsOne = false; ///< `:1`: an integer specialised on being 1
};

/// A kernel compiled for one signature and set of constexprs.
class CompiledKernel {
public:
  const std::string &tile() const;    ///< tile dialect IR
  const std::string &tilegpu() const; ///< with layouts
  const std::string &llir() const;    ///< LLVM IR
  const std::string &ptx() const;
  unsigned sharedBytes() const;
  unsigned numWarps() const;
  unsigned numStages() const;
  /// Programs per cluster along axis 0 (tl.range(..., num_ctas=N)); 1
  /// when the kernel runs in no clusters. launch() refuses a grid whose
  /// axis 0 is not a multiple of it.
  unsigned clusterSize() const;
  /// How many of its clusters (of clusterSize() programs; 1 for a kernel
  /// without clusters) the current GPU runs at once, given its block and
  /// shared memory (cuOccupancyMaxActiveClusters): a persistent grid in
  /// clusters wider than that many clusters leaves the extra ones waiting
  /// for a whole earlier cluster to end. Loads the kernel as load() does;
  /// throws Error before sm_90 or without the driver's query.
  int maxActiveClusters() const;
  /// The .maxnreg it was compiled with; 0 for none.
  unsigned maxRegisters() const;
  /// Compiled with debug=True (LaunchOptions::debug). Its kernel then
  /// takes, after the arguments of the signature, one i64 per pointer
  /// argument, in their order: the bytes the buffer holds from that
  /// pointer on (-1: unknown), which launch() passes; whoever launches
  /// ptx() or cubin() another way must pass them too.
  bool debug() const;
  /// The TMA tensor maps the kernel takes (tensor descriptors it reads
  /// through the Tensor Memory Accelerator, on sm_90 and later), one line
  /// each: "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6
  /// bytes=2 swizzle=128 fill=zero" (aN: the value of runtime argument N,
  /// counted from 0; sizes and strides in elements, outermost first). Empty
  /// for most kernels. The kernel takes one 128-byte CUtensorMap per line,
  /// after every other parameter (the arguments, then debug()'s extents),
  /// which launch() encodes with the driver (cuTensorMapEncodeTiled) once
  /// per distinct set of values; whoever launches ptx() or cubin() another
  /// way must pass them too.
  std::vector<std::string> tensorMaps() const;
  /// Compiled with LaunchOptions::deterministic (and so checked).
  bool deterministic() const;
  /// Milliseconds from source to PTX (0 when it came from the disk cache).
  double compileMilliseconds() const;
  /// True when this specialisation was read from the disk cache instead of
  /// compiled (docs/cache.md).
  bool fromDiskCache() const;
  /// Its disk-cache key (32 hex digits).
  const std::string &cacheKey() const;
  /// Registers and local memory (spills) per thread of the machine code,
  /// once a launch or load() has put it on the GPU; -1 before.
  int numRegisters() const;
  int spillBytes() const;
  /// Loads the machine code on the current GPU, as a first launch does
  /// (then numRegisters() and spillBytes() are known; Triton's
  /// CompiledKernel._init_handles). target() must run on the GPU; throws
  /// Error otherwise, or without a driver or GPU. Loading twice is free.
  void load() const;
  /// The GPU target the PTX was written for ("sm_90a", "sm_80").
  const std::string &target() const;
  /// The signature compiled for, in Triton's notation ("*fp32:16,i32"),
  /// and its entries, one per runtime parameter, in order (what
  /// `tilec aot` writes typed launch functions from).
  std::string signature() const;
  std::vector<ArgumentType> argumentTypes() const;
  /// Machine code for the current GPU: the PTX assembled and linked by the
  /// CUDA driver. Needs a driver and a GPU that can run target() (see
  /// targetRunsOnCurrentGPU; throws Error "no CUDA driver found: ..." or
  /// naming the GPU otherwise); the result is not cached.
  std::vector<char> cubin() const;
  /// What the CUDA driver's compiler says of this PTX as it assembles it
  /// for the current GPU (its verbose info log: registers, spills, and
  /// warnings such as ptxas's C7515 "wgmma.mma_async instructions are
  /// serialized"), which the driver's compiler and the toolkit's ptxas do
  /// not always agree on. Needs what cubin() needs; assembles anew.
  std::string jitLog() const;
  /// Launches this specialisation on the current GPU (on `stream`, a
  /// CUstream; null: the default stream), with the num_warps it was compiled
  /// for. `args` are the runtime arguments, as for Kernel::launch, checked
  /// against the signature compiled for: each of its kind and element type,
  /// `:16` pointers 16-byte aligned, `:16` (`:8`) integers divisible by 16
  /// (8), `:1`
  /// integers equal to 1 (an i32 value widens to an i64 entry; fp32 and fp64
  /// convert). target() must run on the GPU. Every failure throws Error
  /// naming the argument, and then nothing is launched.
  /// `launchPdl` as LaunchOptions::launchPdl.
  void launch(Grid grid, const std::vector<Arg> &args, void *stream = nullptr,
              bool launchPdl = false) const;

private:
  friend class Kernel;
  std::shared_ptr<const void> impl_;
};

/// One parameter of a kernel, in the order of the definition.
struct Parameter {
  std::string name;
  bool isConstexpr = false; ///< annotated `tl.constexpr`
  bool hasDefault = false;
};

class Kernel {
public:
  /// Compile without launching: needs no GPU. `target` is one of
  /// knownTargets() ("sm_80", ..., "sm_90a", ..., "sm_120a"), always
  /// honoured; empty means defaultTarget(): the current GPU's own target
  /// when a CUDA driver and a GPU are present (what a launch there
  /// compiles, so the two share one compile), else "sm_90a". An unknown
  /// target throws Error listing the known ones. `tensorMaps` false reads
  /// every tensor descriptor through pointers, never through TMA, whose
  /// tensor maps only tilec's launcher passes (for code launched another
  /// way, as `tilec aot`'s).
  CompiledKernel compile(const std::string &signature,
                         const Constexprs &constexprs = {},
                         unsigned numWarps = 4,
                         const std::string &target = "",
                         unsigned numStages = 3, unsigned maxRegisters = 0,
                         bool debug = defaultDebug(),
                         bool deterministic = false, bool tensorMaps = true) const;
  /// Specialise on the arguments, compile on first use (then cached in
  /// memory), and launch on the grid. Needs a CUDA driver, unless
  /// options.backend is Backend::Interpreter: then the kernel's tile IR
  /// runs on the CPU and the call returns when it is done (an
  /// out-of-bounds access throws Error naming the source line).
  ///
  /// A launch compiles for the architecture of the GPU it runs on (the
  /// one current on the calling thread, device 0 when none is): sm_80 on
  /// an A100, sm_89 on an RTX 4090, sm_90a on an H100 or H200, ...; the
  /// in-memory and disk caches key on that target.
  ///
  /// Once a specialisation has been launched, launching it again builds no
  /// strings and allocates nothing: the arguments' types, `:16`/`:8`/`:1` facts,
  /// the constexprs, num_warps and num_stages form a small fixed-size key, compared
  /// with the last one launched and otherwise looked up in a map.
  void launch(Grid grid, const std::vector<Arg> &args,
              const Constexprs &constexprs = {},
              const LaunchOptions &options = {}) const;
  /// The same, with the constexprs by position: constexprs[i] is the value
  /// of the i-th constexpr parameter (see parameters()); parameters past
  /// `numConstexprs` take their defaults. What the Python binding calls.
  void launch(Grid grid, const Arg *args, size_t numArgs,
              const Constexpr *constexprs, size_t numConstexprs,
              const LaunchOptions &options = {}) const;
  const std::string &name() const;
  const std::vector<Parameter> &parameters() const;
  /// A digest of what the kernel's code depends on in its source: its
  /// text, its callees', the globals they use (the disk cache's source
  /// key; the autotuning database keys on it too).
  std::string sourceDigest() const;

  /// Autotune (docs/autotune.md): time every config on the GPU (grids[i]
  /// for configs[i]), each compiled for the GPU's own target as a launch
  /// is, and return the report, best first marked. Results already in the
  /// autotuning database (same kernel source, signature, options.key, GPU
  /// and target) are reused per config, without timing; the rest
  /// are compiled in parallel threads and timed. A config that fails to
  /// compile or launch is reported and skipped. Throws Error when timing
  /// is needed while the stream is being captured into a CUDA graph.
  struct TuneReport tune(const std::vector<struct Config> &configs,
                         const std::vector<Grid> &grids, const std::vector<Arg> &args,
                         const struct TuneOptions &options) const;

private:
  friend class Library;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

struct GlobalAccess;

/// One autotuning candidate: constexpr values and launch options.
struct Config {
  Constexprs constexprs;
  unsigned numWarps = 4;
  /// As LaunchOptions::numStages and maxRegisters.
  unsigned numStages = 3;
  unsigned maxRegisters = 0;
  /// "BLOCK=1024, num_warps=4, num_stages=3": stable, the database's key.
  std::string str() const;
};

struct TuneOptions {
  /// Like triton.testing.do_bench: about `warmupMs` of warm-up launches,
  /// then repeats filling about `repMs` (at least 5, at most 1000), each
  /// timed with CUDA events after the L2 cache is flushed; the median wins.
  double warmupMs = 25, repMs = 100;
  /// Work per launch, for GB/s and TFLOP/s in the report (0: not shown).
  double bytes = 0, flops = 0;
  /// The values the choice depends on ("n=1048576"), part of the database key.
  std::string key;
  /// Re-time every config, ignoring (and then updating) the database.
  bool force = false;
  /// Tune the kernel compiled with LaunchOptions::debug (its checks timed
  /// too); the database keeps such results apart.
  bool debug = defaultDebug();
  /// Compile every config with LaunchOptions::deterministic (a config the
  /// check refuses is reported and skipped); kept apart in the database.
  bool deterministic = false;
  /// A line per config on stderr.
  bool progress = true;
  /// Read stored results and store new ones in the autotuning database;
  /// false times every config and keeps nothing.
  bool useDatabase = true;
  void *stream = nullptr;
  /// Called, on the calling thread, before and after every launch of
  /// configs[i] that tuning makes (the first, the warm-up and the timed
  /// ones), outside the timed interval: what restores an in-place kernel's
  /// input or zeroes an accumulator between runs (Python's restore_value,
  /// reset_to_zero, pre_hook and post_hook). afterLaunch gets the error of
  /// a launch that failed (then the config is skipped), null otherwise. An
  /// exception from either hook ends the tuning and propagates; nothing is
  /// stored for that config.
  std::function<void(size_t config)> beforeLaunch;
  std::function<void(size_t config, const char *error)> afterLaunch;
};

struct TuneResult {
  Config config;
  bool ok = false;
  std::string error;        ///< why the config was skipped
  /// The config needs more shared memory per block than the GPU holds
  /// (`sharedBytes` is its need): dropped when the compiler's allocation
  /// found it, before LLVM and ptxas ran, and never launched.
  bool droppedForSharedMemory = false;
  double medianMs = 0, minMs = 0, maxMs = 0;
  double gbPerSecond = 0, tflops = 0;
  int registers = -1, sharedBytes = 0, spillBytes = -1;
  bool fromDatabase = false; ///< not timed in this run
};

struct TuneReport {
  std::string kernel, gpu, key, signature;
  /// The target every config was compiled for: the GPU's ("sm_90a").
  std::string target;
  std::vector<TuneResult> results; ///< in the order of the configs
  int best = -1;                   ///< index into results; -1 if all failed
  /// True when every result came from the database (nothing was timed).
  bool reused() const;
  std::string table() const;
  std::string csv() const;
  std::string json() const;
  /// A bar chart of the median time per config (failed ones marked).
  std::string svg() const;
};

/// What one name of a Python function's globals means inside the kernel
/// (Library::fromFunction): a constant, another @jit function, a module or
/// a member of tilec.language imported by name.
class Global {
public:
  /// A module-level constant: int, float, bool or a dtype name ("fp16").
  Global(Constexpr value) : value_(std::move(value)) {}
  template <typename T, detail::IfInteger<T> = 0>
  Global(T v) : value_(Constexpr(v)) {}
  Global(double v) : value_(Constexpr(v)) {}
  Global(bool v) : value_(Constexpr(v)) {}
  Global(const char *dtype) : value_(Constexpr(dtype)) {}
  Global(std::string dtype) : value_(Constexpr(std::move(dtype))) {}
  /// Another @jit function, callable from the kernel.
  Global(Kernel function) : value_(std::move(function)) {}
  /// A module: "tl" (tilec.language, triton.language), "triton", "tilec";
  /// any other name is a module kernels cannot use (a clear error if they
  /// do).
  static Global module(std::string name);
  /// A member of tilec.language bound to a name (`from tilec.language
  /// import arange`): builtin("arange").
  static Global builtin(std::string name);

private:
  friend class Library;
  friend struct GlobalAccess; // the implementation's view of value_
  struct Module { std::string name; };
  struct Builtin { std::string name; };
  Global(Module m) : value_(std::move(m)) {}
  Global(Builtin b) : value_(std::move(b)) {}
  std::variant<Constexpr, Kernel, Module, Builtin> value_;
};

/// What a reader of PTX looks for first: the target, how wide the global
/// loads and stores are, predication, shared memory, shuffles, tensor-core
/// and local-memory instructions. One line each.
std::string summarizePTX(const std::string &ptx);

/// True when a CUDA driver loads and reports a GPU; otherwise false, with
/// the reason in *why ("no CUDA driver found: ..."). Never throws.
bool cudaAvailable(std::string *why = nullptr);

/// What a GPU offers a kernel, read from the CUDA driver (Triton's
/// driver.active.utils.get_device_properties).
struct DeviceProperties {
  std::string name;
  int ordinal = 0;
  int computeCapability = 0;         ///< major * 10 + minor (90: H100, H200)
  int multiprocessorCount = 0;
  int maxSharedMemoryPerBlock = 0;   ///< bytes, once a kernel opts in
  int maxRegistersPerBlock = 0;      ///< 32-bit registers
  int maxThreadsPerMultiprocessor = 0;
  int warpSize = 0;
  int smClockKHz = 0;
  int memoryClockKHz = 0;
  int memoryBusWidthBits = 0;
  int l2CacheBytes = 0;
};
/// The properties of GPU `ordinal`; -1: the one current on the calling
/// thread (device 0 when none is). Throws Error without a driver or GPU.
DeviceProperties deviceProperties(int ordinal = -1);

/// Every GPU target Kernel::compile and `tilec compile --target` accept,
/// oldest first: "sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, ...".
std::string knownTargets();
/// The target Kernel::compile uses when given none: that of the current
/// GPU when a CUDA driver and a GPU are present, the one launches there
/// compile for ("sm_80" on an A100, "sm_90a" on an H100); "sm_90a" without
/// a GPU. Throws Error for a GPU older than every known target (compute
/// capability below 8.0).
std::string defaultTarget();
/// True when PTX written for `target` can run on the current GPU: the GPU
/// is that architecture or a newer one, and exactly that one for an
/// arch-specific target ("sm_90a" runs on compute capability 9.0 only).
/// False without a GPU or for an unknown target. Never throws.
bool targetRunsOnCurrentGPU(const std::string &target);

/// Every builtin a kernel may call, sorted: the members of the kernel
/// language's `tl` as "tl.load", "tl.sum", ... and the Python builtins as
/// "min", "range", ... (what tilec.language must define, and no more).
std::vector<std::string> builtinNames();

/// A compile of a kernel that had been compiled before (in this process or,
/// by the disk cache's history, in an earlier one), and what changed.
struct RecompileEvent {
  std::string kernel;               ///< its name
  std::string path;                 ///< its source file
  std::vector<std::string> reasons; ///< "constexpr 'BLOCK' changed: 1024 -> 512"
};
/// Called for every such compile (null to remove). TILEC_LOG=recompile
/// prints the same to stderr.
void setRecompileHook(std::function<void(const RecompileEvent &)> hook);

/// The on-disk compile cache (docs/cache.md): ~/.cache/tilec, or
/// TILEC_CACHE_DIR; TILEC_CACHE=0 turns it off.
namespace cache {
struct Entry {
  std::string key, kernel, signature;
  std::string cubinArch; ///< "sm_90" when machine code is stored too
  uint64_t bytes = 0;
  int64_t modified = 0; ///< seconds since the epoch
};
/// The directory in use; empty when the cache is off.
std::string directory();
/// Newest first.
std::vector<Entry> list();
/// Metadata and every stage of the one entry whose key starts with
/// `keyPrefix`; throws Error when none or several match, or it is damaged.
std::string show(const std::string &keyPrefix);
uint64_t sizeBytes();
/// Removes every entry, the recompile history and the autotuning results;
/// returns the number of files removed.
size_t clear();
} // namespace cache

/// A source of kernels: a file written in the kernel language, or a string.
class Library {
public:
  static Library fromFile(const std::string &path);
  static Library fromString(const std::string &source,
                            const std::string &name = "<string>");
  /// One Python function: `source` is its dedented text (decorator lines
  /// included), which starts at line `firstLine` of the file `path` (for
  /// error locations). Its free names resolve in `globals` only; the source
  /// must hold exactly one `def`, which kernel(name) then returns.
  static Library fromFunction(const std::string &source, const std::string &path,
                              unsigned firstLine,
                              const std::map<std::string, Global> &globals);
  /// The same, with the function's name and parameters known to the
  /// caller (Python's inspect): the source is then parsed only when a
  /// specialisation must be compiled, so a launch that the disk cache
  /// serves never parses it. Errors in the source show at that compile.
  static Library fromFunction(const std::string &source, const std::string &path,
                              unsigned firstLine,
                              const std::map<std::string, Global> &globals,
                              const std::string &name,
                              const std::vector<Parameter> &parameters);
  /// The function `name` of the source; throws Error when there is none.
  Kernel kernel(const std::string &name) const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

} // namespace tilec
