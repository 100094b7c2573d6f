// tilec's C++ API: load kernels written in the kernel language, compile
// them for a signature, inspect every stage, launch them on a GPU.
//
//   auto lib = tilec::Library::fromFile("kernels/vector_add.py");
//   auto add = lib.kernel("add");
//   add.launch({tilec::cdiv(n, 1024)}, {x, y, out, n}, {{"BLOCK", 1024}});
//   std::string ptx = add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16",
//                                 {{"BLOCK", 1024}}).ptx();
//
// The Python package (python/tilec) is a thin binding over this header:
// Library::fromFunction takes a decorated function's source and globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace tilec {

/// Any failure: a located compile error (the text quotes the source line),
/// a bad argument, or a CUDA error naming the kernel.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A constexpr value: an integer, a float, a bool, or a dtype name ("fp16").
struct Constexpr {
  std::variant<int64_t, double, bool, std::string> value;
  Constexpr(int v) : value(int64_t(v)) {}
  Constexpr(int64_t v) : value(v) {}
  Constexpr(double v) : value(v) {}
  Constexpr(bool v) : value(v) {}
  Constexpr(const char *dtype) : value(std::string(dtype)) {}
  Constexpr(std::string dtype) : value(std::move(dtype)) {}
};
using Constexprs = std::map<std::string, Constexpr>;

struct Grid {
  unsigned x = 1, y = 1, z = 1;
};

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The element types of pointer arguments (the kernel language's scalars).
enum class ScalarType : uint8_t {
  I1, I8, I16, I32, I64, U8, U16, U32, U64, FP16, BF16, FP32, FP64,
};
/// Triton's short name: "i1", "i32", "u8", "fp16", "bf16", "fp32", ...
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
  void copyFromHost(const void *src, size_t bytes);
  void copyToHost(void *dst, size_t bytes) const;
  /// Every byte set to `byte` (poisoning outputs before a test).
  void fill(uint8_t byte);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A kernel argument. Pointers name their element type; scalars are typed
/// by their C++ type (int32_t → i32, int64_t → i64, float → fp32, double →
/// fp64). The specialisation facts (`:16`, `:1`) are read off the values.
struct Arg {
  enum class Kind : uint8_t { Pointer, I32, I64, F32, F64 } kind;
  ScalarType element = ScalarType::FP32; ///< pointers: what they point to
  uint64_t bits = 0; ///< the value (pointer address or scalar bits)

  static Arg pointer(const void *devicePtr, ScalarType element);
  /// Throws Error for an unknown element name.
  static Arg pointer(const void *devicePtr, const std::string &element);
  Arg(const Buffer &b, const std::string &element) : Arg(pointer(b.data(), element)) {}
  Arg(const Buffer &b, ScalarType element) : Arg(pointer(b.data(), element)) {}
  Arg(int32_t v);
  Arg(int64_t v);
  Arg(float v);
  Arg(double v);

  /// The signature entry this argument specialises on: "*fp32:16", "i32:1".
  std::string signature() const;
};

struct LaunchOptions {
  unsigned numWarps = 4;
  void *stream = nullptr; ///< a CUstream; null for the default stream
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
  /// Milliseconds from source to PTX.
  double compileMilliseconds() const;
  /// Machine code for the current GPU: the PTX assembled and linked by the
  /// CUDA driver. Needs a driver and a GPU (throws Error "no CUDA driver
  /// found: ..." otherwise); the result is not cached.
  std::vector<char> cubin() const;

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
  /// Compile without launching: needs no GPU. `target` is sm_80, sm_86,
  /// sm_89, sm_90 or sm_90a.
  CompiledKernel compile(const std::string &signature,
                         const Constexprs &constexprs = {},
                         unsigned numWarps = 4,
                         const std::string &target = "sm_90a") const;
  /// Specialise on the arguments, compile on first use (then cached in
  /// memory), and launch on the grid. Needs a CUDA driver.
  ///
  /// Once a specialisation has been launched, launching it again builds no
  /// strings and allocates nothing: the arguments' types, `:16`/`:1` facts,
  /// the constexprs and num_warps form a small fixed-size key, compared
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

private:
  friend class Library;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// What one name of a Python function's globals means inside the kernel
/// (Library::fromFunction): a constant, another @jit function, a module or
/// a member of tilec.language imported by name.
class Global {
public:
  /// A module-level constant: int, float, bool or a dtype name ("fp16").
  Global(Constexpr value) : value_(std::move(value)) {}
  Global(int v) : value_(Constexpr(v)) {}
  Global(int64_t v) : value_(Constexpr(v)) {}
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
  /// The function `name` of the source; throws Error when there is none.
  Kernel kernel(const std::string &name) const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

} // namespace tilec
