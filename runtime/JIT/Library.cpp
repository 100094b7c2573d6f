// The public C++ API (include/tilec/tilec.h) over the JIT compiler and the
// device runtime.
#include "tilec/tilec.h"

#include "runtime/Device.h"
#include "runtime/JIT/Compiler.h"

#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace tilec {

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//

struct Buffer::Impl {
  runtime::DeviceBuffer buffer;
};

Buffer::Buffer() = default;
Buffer::Buffer(Buffer &&) noexcept = default;
Buffer &Buffer::operator=(Buffer &&) noexcept = default;
Buffer::~Buffer() = default;

Buffer Buffer::allocate(size_t bytes) {
  Buffer b;
  try {
    b.impl_ = std::make_unique<Impl>(Impl{runtime::DeviceBuffer::allocate(bytes)});
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
  return b;
}
void *Buffer::data() const { return impl_ ? impl_->buffer.data() : nullptr; }
size_t Buffer::size() const { return impl_ ? impl_->buffer.size() : 0; }
void Buffer::copyFromHost(const void *src, size_t bytes) {
  if (!impl_)
    throw Error("copy into an empty Buffer");
  try { impl_->buffer.copyFromHost(src, bytes); }
  catch (const std::exception &e) { throw Error(e.what()); }
}
void Buffer::copyToHost(void *dst, size_t bytes) const {
  if (!impl_)
    throw Error("copy from an empty Buffer");
  try { impl_->buffer.copyToHost(dst, bytes); }
  catch (const std::exception &e) { throw Error(e.what()); }
}
void Buffer::fill(uint8_t byte) {
  if (!impl_)
    return;
  try { impl_->buffer.fill(byte); }
  catch (const std::exception &e) { throw Error(e.what()); }
}

//===----------------------------------------------------------------------===//
// Arg
//===----------------------------------------------------------------------===//

Arg Arg::pointer(const void *ptr, std::string element) {
  if (!dsl::DType::parse(element) || dsl::DType::parse(element)->isPointer)
    throw Error("unknown pointer element type '" + element + "'");
  Arg a(int64_t(0));
  a.kind = Kind::Pointer;
  a.bits = reinterpret_cast<uintptr_t>(ptr);
  a.element = dsl::DType::parse(element)->name();
  return a;
}
Arg::Arg(int32_t v) : kind(Kind::I32), bits(uint32_t(v)) {}
Arg::Arg(int64_t v) : kind(Kind::I64), bits(uint64_t(v)) {}
Arg::Arg(float v) : kind(Kind::F32) { std::memcpy(&bits, &v, sizeof v); }
Arg::Arg(double v) : kind(Kind::F64) { std::memcpy(&bits, &v, sizeof v); }

std::string Arg::signature() const {
  switch (kind) {
  case Kind::Pointer:
    return "*" + element + (bits % 16 == 0 ? ":16" : "");
  case Kind::I32: {
    int32_t v = int32_t(uint32_t(bits));
    return v == 1 ? "i32:1" : v % 16 == 0 ? "i32:16" : "i32";
  }
  case Kind::I64: {
    int64_t v = int64_t(bits);
    return v == 1 ? "i64:1" : v % 16 == 0 ? "i64:16" : "i64";
  }
  case Kind::F32: return "fp32";
  case Kind::F64: return "fp64";
  }
  return "?";
}

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

/// A compiled kernel and, once launched, its loaded machine code.
struct CacheEntry {
  std::shared_ptr<jit::CompiledKernel> compiled;
  std::unique_ptr<runtime::Module> module;
};
} // namespace

struct Kernel::Impl {
  std::shared_ptr<const dsl::JitFunction> function;
  std::string name;
  mutable std::mutex mutex;
  mutable std::map<std::string, std::shared_ptr<CacheEntry>> cache;

  std::shared_ptr<CacheEntry> lookup(const std::string &signature,
                                     const Constexprs &constexprs,
                                     unsigned numWarps,
                                     const std::string &target = "sm_90a") const {
    std::string key = signature + "|w" + std::to_string(numWarps) + "|" + target;
    std::map<std::string, dsl::Value> values;
    for (const auto &[k, v] : constexprs) {
      values[k] = toValue(v);
      key += "|" + k + "=" + values[k].repr();
    }
    std::lock_guard<std::mutex> lock(mutex);
    auto &entry = cache[key];
    if (!entry) {
      jit::CompileOptions options;
      options.numWarps = numWarps;
      options.target = target;
      jit::CompileResult result = jit::compile(*function, signature, values, options);
      if (!result.ok()) {
        cache.erase(key);
        throw Error(joinErrors(result.errors));
      }
      entry = std::make_shared<CacheEntry>();
      entry->compiled = result.kernel;
    }
    return entry;
  }
};

const std::string &CompiledKernel::tile() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.tile;
}
const std::string &CompiledKernel::tilegpu() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.tilegpu;
}
const std::string &CompiledKernel::llir() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.llir;
}
const std::string &CompiledKernel::ptx() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.ptx;
}
unsigned CompiledKernel::sharedBytes() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.sharedBytes;
}
unsigned CompiledKernel::numWarps() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->stages.numWarps;
}
double CompiledKernel::compileMilliseconds() const {
  return static_cast<const jit::CompiledKernel *>(impl_.get())->times.total;
}

CompiledKernel Kernel::compile(const std::string &signature,
                               const Constexprs &constexprs, unsigned numWarps,
                               const std::string &target) const {
  CompiledKernel k;
  k.impl_ = impl_->lookup(signature, constexprs, numWarps, target)->compiled;
  return k;
}

std::string summarizePTX(const std::string &ptx) { return jit::summarizePTX(ptx); }

const std::string &Kernel::name() const { return impl_->name; }

void Kernel::launch(Grid grid, const std::vector<Arg> &args,
                    const Constexprs &constexprs,
                    const LaunchOptions &options) const {
  std::string signature;
  for (size_t i = 0; i < args.size(); ++i)
    signature += (i ? "," : "") + args[i].signature();
  std::shared_ptr<CacheEntry> entry =
      impl_->lookup(signature, constexprs, options.numWarps);
  try {
    if (!entry->module) {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      if (!entry->module) {
        entry->module = runtime::Module::loadPTX(entry->compiled->stages.ptx,
                                                 impl_->name);
        if (entry->compiled->stages.sharedBytes > 48 * 1024)
          entry->module->setDynamicSharedBytes(entry->compiled->stages.sharedBytes);
      }
    }
    // Every parameter is passed by address; scalars narrower than 64 bits
    // sit at the start of their slot (little-endian).
    std::vector<uint64_t> storage(args.size());
    std::vector<void *> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      storage[i] = args[i].bits;
      params[i] = &storage[i];
    }
    runtime::LaunchDims dims;
    dims.grid[0] = grid.x;
    dims.grid[1] = grid.y;
    dims.grid[2] = grid.z;
    dims.block[0] = options.numWarps * 32;
    dims.sharedBytes = entry->compiled->stages.sharedBytes;
    dims.stream = options.stream;
    runtime::launch(*entry->module, dims, params.data());
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
}

//===----------------------------------------------------------------------===//
// Library
//===----------------------------------------------------------------------===//

struct Library::Impl {
  jit::ParsedSource source;
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

Kernel Library::kernel(const std::string &name) const {
  auto fn = impl_->source.function(name);
  if (!fn)
    throw Error("no function named '" + name + "' in " +
                impl_->source.module->source->path());
  Kernel k;
  k.impl_ = std::make_shared<Kernel::Impl>();
  k.impl_->function = fn;
  k.impl_->name = name;
  return k;
}

} // namespace tilec
