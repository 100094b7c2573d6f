// The public API's value types (include/tilec/tilec.h): Buffer, the scalar
// types, Arg and Grid, and what an Arg specialises a launch on.
#include "tilec/tilec.h"

#include "dsl/Types.h"
#include "runtime/Device.h"
#include "runtime/JIT/Environment.h"
#include "runtime/JIT/LaunchChecks.h"

#include <cstdlib>
#include <cstring>

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
int Buffer::device() const { return impl_ ? impl_->buffer.deviceOrdinal() : -1; }
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
// Scalar types and Arg
//===----------------------------------------------------------------------===//

// ScalarType mirrors dsl::ScalarKind, so that the two convert by a cast.
static_assert(int(ScalarType::I1) == int(dsl::ScalarKind::Int1) &&
                  int(ScalarType::U8) == int(dsl::ScalarKind::UInt8) &&
                  int(ScalarType::FP16) == int(dsl::ScalarKind::Float16) &&
                  int(ScalarType::FP64) == int(dsl::ScalarKind::Float64) &&
                  int(ScalarType::FP8E5M2) == int(dsl::ScalarKind::Float8E5M2),
              "ScalarType and dsl::ScalarKind must list the types in one order");

const char *scalarTypeName(ScalarType type) {
  static const char *names[] = {"i1",  "i8",  "i16",  "i32",  "i64",
                                "u8",  "u16", "u32",  "u64",  "fp16",
                                "bf16", "fp32", "fp64", "fp8e4nv",
                                "fp8e5"};
  unsigned i = unsigned(type);
  return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

std::optional<ScalarType> parseScalarType(const std::string &name) {
  std::string text = name.rfind("tl.", 0) == 0 ? name.substr(3) : name;
  auto t = dsl::DType::parse(text);
  if (!t || t->isPointer)
    return std::nullopt;
  return ScalarType(int(t->scalar));
}

Arg Arg::pointer(const void *ptr, ScalarType element, size_t bytes) {
  Arg a = i64(0);
  a.kind = Kind::Pointer;
  a.element = element;
  a.bits = reinterpret_cast<uintptr_t>(ptr);
  a.bytes = bytes;
  return a;
}
Arg Arg::pointer(const void *ptr, const std::string &element, size_t bytes) {
  auto t = parseScalarType(element);
  if (!t)
    throw Error("unknown pointer element type '" + element + "'");
  return pointer(ptr, *t, bytes);
}
Arg Arg::host(void *data, size_t bytes, ScalarType element) {
  Arg a = pointer(data, element, bytes);
  a.inHostMemory = true;
  return a;
}

Backend defaultBackend() {
  static const Backend backend = [] {
    return jit::environmentFlag("TILEC_INTERPRET") ? Backend::Interpreter : Backend::GPU;
  }();
  return backend;
}
bool defaultDebug() {
  static const bool debug = jit::environmentFlag("TILEC_DEBUG");
  return debug;
}
int64_t detail::toInt64(uint64_t v, const char *what) {
  if (v > uint64_t(INT64_MAX))
    throw Error(std::string(what) + " of " + std::to_string(v) +
                " does not fit in 64 signed bits");
  return int64_t(v);
}

unsigned Grid::checkedSize(int64_t v, const char *axis) {
  if (v < 0)
    throw Error(std::string("grid size ") + axis + " = " + std::to_string(v) +
                " is negative");
  return checkedSize(uint64_t(v), axis);
}

unsigned Grid::checkedSize(uint64_t v, const char *axis) {
  if (v > UINT32_MAX)
    throw Error(std::string("grid size ") + axis + " = " + std::to_string(v) +
                " does not fit in 32 bits");
  return unsigned(v);
}

Arg Arg::i32(int32_t v) {
  Arg a;
  a.kind = Kind::I32;
  a.bits = uint32_t(v);
  return a;
}
Arg Arg::i64(int64_t v) {
  Arg a;
  a.kind = Kind::I64;
  a.bits = uint64_t(v);
  return a;
}
Arg Arg::fromUnsigned(uint64_t v) {
  if (v <= uint64_t(INT32_MAX))
    return i32(int32_t(v));
  return i64(detail::toInt64(v, "an integer argument"));
}
Arg::Arg(float v) : kind(Kind::F32) { std::memcpy(&bits, &v, sizeof v); }
Arg::Arg(double v) : kind(Kind::F64) { std::memcpy(&bits, &v, sizeof v); }

namespace {
const char *factSuffix(int fact) {
  return fact == 16 ? ":16" : fact == 8 ? ":8" : fact == 1 ? ":1" : "";
}
} // namespace

std::string Arg::signature() const {
  const char *suffix = factSuffix(jit::specialisedFact(*this));
  switch (kind) {
  case Kind::Pointer:
    return std::string("*") + scalarTypeName(element) + suffix;
  case Kind::I32:
    return std::string("i32") + suffix;
  case Kind::I64:
    return std::string("i64") + suffix;
  case Kind::F32: return "fp32";
  case Kind::F64: return "fp64";
  }
  return "?";
}

} // namespace tilec
