// The launcher's part of TMA (compiler/TensorMap.h has the compiler's): a
// kernel whose CompiledStages::tensorMaps is not empty takes, after every
// other parameter (its arguments, then a debug compile's extents), one
// 128-byte CUtensorMap per spec, which the driver encodes from the launch's
// argument values. An encoding costs microseconds, so each compiled kernel
// keeps the maps it has encoded (TensorMapCache): a launch with values seen
// before encodes nothing, allocates nothing and stays capture-safe.
//
// The pieces are pure functions (values off the arguments, then the
// driver's arguments, checked) so that tests need no GPU; only the
// encoder, runtime::encodeTensorMap by default, calls the driver.
#pragma once

#include "compiler/TensorMap.h"
#include "runtime/TensorMapEncoding.h"
#include "tilec/tilec.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tilec::jit {

/// The runtime parameters' names, in order: LaunchChecks.h's ParamNames,
/// declared again so that this header needs no MLIR.
using ParamNames = std::vector<const std::string *>;

/// What one launch gives a spec: the tensor's base address, and its sizes
/// and strides in elements, outermost first (constants included; entries
/// past the rank are 0). The encoded map depends on nothing else, so this
/// is the cache's key.
struct TensorMapValues {
  uint64_t base = 0;
  int64_t sizes[runtime::kMaxTensorMapRank] = {};
  int64_t strides[runtime::kMaxTensorMapRank] = {};
  bool operator==(const TensorMapValues &o) const;
  bool operator!=(const TensorMapValues &o) const { return !(*this == o); }
};

/// Reads spec number `index` of kernel `kernel` off a launch's arguments
/// (`names`: its runtime parameters, for messages). Allocates nothing
/// unless it throws: Error, naming the kernel, when the spec names an
/// argument the launch lacks or one of the wrong kind (the base must be a
/// pointer, the sizes and strides integers), which only a spec that does
/// not match the signature can do.
TensorMapValues tensorMapValues(const TensorMapSpec &spec, size_t index, const Arg *args,
                                size_t numArgs, const std::string &kernel,
                                const ParamNames &names);

/// cuTensorMapEncodeTiled's arguments for `values`: the arrays reversed to
/// innermost first, the strides in bytes (the innermost one left out),
/// every element stride 1, no interleave, the spec's swizzle and
/// out-of-bounds fill, L2 promotion to 256 bytes (as CUTLASS does for large
/// tiles). Throws Error naming the kernel, the map and the argument when a
/// value breaks TMA's rules: a size that is 0 (TMA cannot describe an empty
/// tensor), negative or above 2^32; a stride that is negative, not a
/// multiple of 16 bytes or not below 2^40 bytes; an innermost stride other
/// than 1; a base address not 16-byte aligned.
runtime::TensorMapArguments tensorMapArguments(const TensorMapSpec &spec, size_t index,
                                               const TensorMapValues &values,
                                               const std::string &kernel,
                                               const ParamNames &names);

/// The encoded maps of one compiled kernel, by the values they were encoded
/// from. It keeps the last kSlotsPerMap distinct values of each spec (the
/// least recently used goes first), enough for the shapes a serving loop
/// alternates between. Thread-safe: launches from several threads share it.
class TensorMapCache {
public:
  static constexpr unsigned kSlotsPerMap = 16;
  /// Writes the map for `args` into `out`; throws runtime::CudaError.
  using Encoder = void (*)(const runtime::TensorMapArguments &args,
                           runtime::EncodedTensorMap &out);

  /// `encoder`: the driver's, or a stand-in in tests.
  explicit TensorMapCache(std::vector<TensorMapSpec> specs,
                          Encoder encoder = &runtime::encodeTensorMap);
  ~TensorMapCache();
  TensorMapCache(const TensorMapCache &) = delete;
  TensorMapCache &operator=(const TensorMapCache &) = delete;

  const std::vector<TensorMapSpec> &specs() const { return specs_; }

  /// Writes the map of spec `index` for this launch's arguments into `out`:
  /// the one encoded from the same values before, else one encoded now,
  /// after tensorMapArguments' checks (an encoder's failure becomes Error,
  /// naming the kernel). A hit holds a mutex for a search among
  /// kSlotsPerMap keys and a 128-byte copy, and allocates nothing; `out`
  /// is the caller's, so it stays valid whatever other launches evict.
  void get(size_t index, const Arg *args, size_t numArgs, const std::string &kernel,
           const ParamNames &names, runtime::EncodedTensorMap &out) const;

  /// How many maps the encoder has made: launches whose values were new.
  uint64_t encodings() const;

private:
  struct Slot;
  /// The slot holding `values` among spec `index`'s, or null. Under mutex_.
  Slot *find(size_t index, const TensorMapValues &values) const;

  std::vector<TensorMapSpec> specs_;
  Encoder encoder_;
  mutable std::mutex mutex_;
  /// kSlotsPerMap per spec, spec by spec. Guarded by mutex_, as are:
  std::unique_ptr<Slot[]> slots_;
  mutable uint64_t clock_ = 0; ///< ticks at every use: what "recent" means
  mutable uint64_t encodings_ = 0;
};

} // namespace tilec::jit
