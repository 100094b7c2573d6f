// tilec's C++ API: load kernels written in the kernel language, compile
// them for a signature, inspect every stage, launch them on a GPU.
//
//   auto lib = tilec::Library::fromFile("kernels/vector_add.py");
//   auto add = lib.kernel("add");
//   add.launch({tilec::cdiv(n, 1024)}, {x, y, out, n}, {{"BLOCK", 1024}});
//   std::string ptx = add.compile("*fp32:16,*fp32:16,*fp32:16,i32:16",
//                                 {{"BLOCK", 1024}}).ptx();
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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
  enum class Kind { Pointer, I32, I64, F32, F64 } kind;
  uint64_t bits = 0;   ///< the value (pointer address or scalar bits)
  std::string element; ///< pointers: "fp32", "fp16", "bf16", "i32", ...

  static Arg pointer(const void *devicePtr, std::string element);
  Arg(const Buffer &b, std::string element) : Arg(pointer(b.data(), std::move(element))) {}
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

private:
  friend class Kernel;
  std::shared_ptr<const void> impl_;
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
  void launch(Grid grid, const std::vector<Arg> &args,
              const Constexprs &constexprs = {},
              const LaunchOptions &options = {}) const;
  const std::string &name() const;

private:
  friend class Library;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// What a reader of PTX looks for first: the target, how wide the global
/// loads and stores are, predication, shared memory, shuffles, tensor-core
/// and local-memory instructions. One line each.
std::string summarizePTX(const std::string &ptx);

/// A source of kernels: a file written in the kernel language, or a string.
class Library {
public:
  static Library fromFile(const std::string &path);
  static Library fromString(const std::string &source,
                            const std::string &name = "<string>");
  /// The function `name` of the source; throws Error when there is none.
  Kernel kernel(const std::string &name) const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

} // namespace tilec
