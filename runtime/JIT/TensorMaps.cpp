// TMA tensor maps at launch (TensorMaps.h).
#include "runtime/JIT/TensorMaps.h"
#include "runtime/JIT/LaunchChecks.h"

#include "runtime/CudaDriver.h"
#include "runtime/Device.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace tilec::jit {
namespace {

using runtime::kMaxTensorMapRank;

/// TMA's limits (cuTensorMapEncodeTiled in cuda.h): a size is at most
/// 2^32 elements, a stride below 2^40 bytes and a multiple of 16.
constexpr uint64_t kMaxSize = uint64_t(1) << 32;
constexpr uint64_t kStrideLimitBytes = uint64_t(1) << 40;
constexpr uint64_t kAlignment = 16;

/// Throws the Error of every tensor-map failure: "cannot launch kernel
/// 'k': tensor map 0 (over argument 'a'): <why>".
[[noreturn]] void fail(const TensorMapSpec &spec, size_t index, const std::string &kernel,
                       const ParamNames &names, const std::string &why) {
  throw Error("cannot launch kernel '" + kernel + "': tensor map " + std::to_string(index) +
              " (the tensor descriptor over argument " + quotedParameter(names, size_t(spec.base)) +
              "): " + why);
}

/// "dimension 1 (of 0..1, outermost first)".
std::string dimension(size_t d, size_t rank) {
  return "dimension " + std::to_string(d) + " (of 0.." + std::to_string(rank - 1) +
         ", outermost first)";
}

/// Where an operand comes from: "argument 'N'", or "a constant".
std::string source(const TensorMapSpec::Operand &o, const ParamNames &names) {
  return o.arg >= 0 ? "argument " + quotedParameter(names, size_t(o.arg)) : std::string("a constant");
}

int swizzleCode(unsigned swizzleBytes) {
  switch (swizzleBytes) {
  case 32: return runtime::CU_TENSOR_MAP_SWIZZLE_32B;
  case 64: return runtime::CU_TENSOR_MAP_SWIZZLE_64B;
  case 128: return runtime::CU_TENSOR_MAP_SWIZZLE_128B;
  default: return runtime::CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

} // namespace

bool TensorMapValues::operator==(const TensorMapValues &o) const {
  return base == o.base && std::equal(sizes, sizes + kMaxTensorMapRank, o.sizes) &&
         std::equal(strides, strides + kMaxTensorMapRank, o.strides);
}

TensorMapValues tensorMapValues(const TensorMapSpec &spec, size_t index, const Arg *args,
                                size_t numArgs, const std::string &kernel,
                                const ParamNames &names) {
  auto argument = [&](int i, const char *what) -> const Arg & {
    if (i < 0 || size_t(i) >= numArgs)
      throw Error("cannot launch kernel '" + kernel + "': tensor map " +
                  std::to_string(index) + " takes its " + what + " from argument #" +
                  std::to_string(i + 1) + ", and the launch has " + std::to_string(numArgs));
    return args[i];
  };
  auto integer = [&](const TensorMapSpec::Operand &o, const char *what) -> int64_t {
    if (o.arg < 0)
      return o.value;
    const Arg &a = argument(o.arg, what);
    // As the launch checks read integers (LaunchChecks.cpp): an i32 sits
    // in the low 32 bits.
    if (a.kind == Arg::Kind::I32)
      return int64_t(int32_t(uint32_t(a.bits)));
    if (a.kind == Arg::Kind::I64)
      return int64_t(a.bits);
    fail(spec, index, kernel, names,
         std::string("its ") + what + " comes from argument " + quotedParameter(names, size_t(o.arg)) +
             ", which is not an integer");
  };
  size_t rank = spec.box.size();
  if (rank == 0 || rank > kMaxTensorMapRank || spec.sizes.size() != rank ||
      spec.strides.size() != rank)
    throw Error("cannot launch kernel '" + kernel + "': tensor map " + std::to_string(index) +
                " is malformed (" + spec.str() + ")");
  TensorMapValues values;
  const Arg &base = argument(spec.base, "base");
  if (base.kind != Arg::Kind::Pointer)
    fail(spec, index, kernel, names, "that argument is not a pointer");
  values.base = base.bits;
  for (size_t d = 0; d < rank; ++d) {
    values.sizes[d] = integer(spec.sizes[d], "size");
    values.strides[d] = integer(spec.strides[d], "stride");
  }
  return values;
}

runtime::TensorMapArguments tensorMapArguments(const TensorMapSpec &spec, size_t index,
                                               const TensorMapValues &values,
                                               const std::string &kernel,
                                               const ParamNames &names) {
  auto refuse = [&](const std::string &why) { fail(spec, index, kernel, names, why); };
  size_t rank = spec.box.size();
  if (rank == 0 || rank > kMaxTensorMapRank || spec.sizes.size() != rank ||
      spec.strides.size() != rank)
    refuse("the spec is malformed (" + spec.str() + ")");
  uint64_t elementBytes = spec.elementBytes;
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8)
    refuse("the spec's element size, " + std::to_string(elementBytes) +
           " bytes, is none TMA has (" + spec.str() + ")");
  if (values.base % kAlignment != 0)
    refuse("its base address, " + hexAddress(values.base) +
           ", is not 16-byte aligned, which TMA needs of a tensor's start (pass a "
           "16-byte aligned pointer, or load the tensor without a descriptor)");

  runtime::TensorMapArguments a;
  a.rank = uint32_t(rank);
  a.globalAddress = values.base;
  // The driver lists dimensions innermost first; the spec outermost first.
  for (size_t d = 0; d < rank; ++d) {
    size_t r = rank - 1 - d;
    int64_t size = values.sizes[d];
    std::string what = "its size along " + dimension(d, rank) + ", " +
                       source(spec.sizes[d], names) + ", is " + std::to_string(size);
    if (size == 0)
      refuse(what + ": TMA cannot describe an empty tensor (skip the launch when a "
                    "dimension is empty)");
    if (size < 0)
      refuse(what + ", negative");
    if (uint64_t(size) > kMaxSize)
      refuse(what + ", more than the 2^32 elements TMA allows along a dimension");
    a.globalDim[r] = uint64_t(size);
    a.boxDim[r] = spec.box[d];
    a.elementStrides[r] = 1;
  }
  if (values.strides[rank - 1] != 1)
    refuse("the stride of its innermost " + dimension(rank - 1, rank) + ", " +
           source(spec.strides[rank - 1], names) + ", is " +
           std::to_string(values.strides[rank - 1]) +
           "; TMA reads that dimension contiguously (stride 1)");
  for (size_t d = 0; d + 1 < rank; ++d) {
    int64_t stride = values.strides[d];
    std::string what = "its stride along " + dimension(d, rank) + ", " +
                       source(spec.strides[d], names) + ", is " + std::to_string(stride) +
                       " elements";
    // 0 is a stride the driver takes (every index reads one row).
    if (stride < 0)
      refuse(what + "; TMA's strides cannot be negative");
    if (uint64_t(stride) >= kStrideLimitBytes / elementBytes)
      refuse(what + ", at least 2^40 bytes, more than TMA allows");
    uint64_t bytes = uint64_t(stride) * elementBytes;
    if (bytes % kAlignment != 0)
      refuse(what + " (" + std::to_string(bytes) +
             " bytes), not a multiple of 16 bytes, which TMA needs (pad the rows to a "
             "multiple of 16 bytes, or load the tensor without a descriptor)");
    // globalStrides[0] is the stride of the driver's dimension 1.
    a.globalStrides[rank - 2 - d] = bytes;
  }
  a.dataType = int(spec.dataType);
  a.interleave = runtime::CU_TENSOR_MAP_INTERLEAVE_NONE;
  a.swizzle = swizzleCode(spec.swizzleBytes);
  a.l2Promotion = runtime::CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  a.oobFill = spec.nanFill ? runtime::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                           : runtime::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  return a;
}

/// One encoded map and the values it came from; lastUse 0: empty.
struct TensorMapCache::Slot {
  TensorMapValues key;
  uint64_t lastUse = 0;
  runtime::EncodedTensorMap map;
};

TensorMapCache::TensorMapCache(std::vector<TensorMapSpec> specs, Encoder encoder)
    : specs_(std::move(specs)), encoder_(encoder),
      slots_(specs_.empty() ? nullptr : new Slot[specs_.size() * kSlotsPerMap]) {}

TensorMapCache::~TensorMapCache() = default;

TensorMapCache::Slot *TensorMapCache::find(size_t index, const TensorMapValues &values) const {
  Slot *slots = &slots_[index * kSlotsPerMap];
  for (unsigned i = 0; i < kSlotsPerMap; ++i)
    if (slots[i].lastUse && slots[i].key == values)
      return &slots[i];
  return nullptr;
}

void TensorMapCache::get(size_t index, const Arg *args, size_t numArgs,
                         const std::string &kernel, const ParamNames &names,
                         runtime::EncodedTensorMap &out) const {
  const TensorMapSpec &spec = specs_[index];
  TensorMapValues values = tensorMapValues(spec, index, args, numArgs, kernel, names);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Slot *hit = find(index, values)) {
      hit->lastUse = ++clock_;
      out = hit->map;
      return;
    }
  }
  // A miss: check and encode without the lock, so that launches of this
  // kernel with known values do not wait for the driver.
  runtime::TensorMapArguments arguments = tensorMapArguments(spec, index, values, kernel, names);
  try {
    encoder_(arguments, out);
  } catch (const runtime::CudaError &e) {
    fail(spec, index, kernel, names, e.what());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++encodings_;
  if (find(index, values))
    return; // another launch stored the same values meanwhile
  Slot *slots = &slots_[index * kSlotsPerMap];
  Slot *victim = std::min_element(slots, slots + kSlotsPerMap, [](const Slot &a, const Slot &b) {
    return a.lastUse < b.lastUse;
  });
  victim->key = values;
  victim->map = out;
  victim->lastUse = ++clock_;
}

uint64_t TensorMapCache::encodings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return encodings_;
}

} // namespace tilec::jit
