// What a launch checks before anything reaches the GPU: the number of
// arguments, the grid, and each pointer (not null, memory the GPU running
// the kernel can reach, and, for a CompiledKernel, the types and `:16`/`:1`
// facts its signature was compiled for). Each failure throws tilec::Error
// naming the kernel and the argument; nothing has been launched then.
//
// The checks the Python binding and `tilec tune` rely on too: they pass
// their arguments through Kernel::launch and CompiledKernel::launch.
#pragma once

#include "tilec/tilec.h"

#include "dsl/Signature.h"

#include <string>
#include <vector>

namespace tilec::jit {

/// A compile or a load refused because the kernel needs more shared memory
/// (`needed` bytes) than the target or the GPU holds per block (`limit`):
/// the autotuner drops such a config instead of reporting it failed.
class SharedMemoryExceeded : public Error {
public:
  SharedMemoryExceeded(const std::string &message, unsigned needed, unsigned limit)
      : Error(message), needed(needed), limit(limit) {}
  unsigned needed, limit;
};

/// The runtime (non-constexpr) parameters' names, in order.
using ParamNames = std::vector<const std::string *>;

/// Parameter i as messages name it: 'name', or #i+1 past the known names.
std::string quotedParameter(const ParamNames &names, size_t i);
/// An address as messages print it (0x...).
std::string hexAddress(uint64_t v);

/// The `:16`/`:8`/`:1` fact a launch specialises `a` on, given its value
/// and Arg::facts: 16, 8 (integers divisible by 8 but not 16), 1, or 0 for
/// none (what Arg::signature() spells).
int specialisedFact(const Arg &a);

/// numArgs must be the number of runtime parameters.
void checkArgumentCount(const std::string &kernel, const ParamNames &names,
                        size_t numArgs);

/// Every dimension at least 1 and within the GPU's limits (x < 2^31,
/// y and z <= 65535, as on every GPU tilec targets).
void checkGrid(const std::string &kernel, const Grid &grid);

/// No pointer argument is null; on the GPU, none is Arg::host memory.
void checkPointerArguments(const std::string &kernel, const ParamNames &names,
                           const Arg *args, size_t numArgs, Backend backend);

/// On the GPU: every pointer argument is memory the driver knows that GPU
/// `deviceOrdinal` can reach (its device memory, managed memory, or
/// page-locked host memory), never pageable host memory or another GPU's.
/// One driver call per pointer, except those whose Arg::device says they
/// are `deviceOrdinal`'s memory.
void checkDevicePointers(const std::string &kernel, const ParamNames &names,
                         const Arg *args, size_t numArgs, int deviceOrdinal);

/// A CompiledKernel's launch: each argument has the kind and element type
/// of its signature entry and keeps its promises (`:16` pointers 16-byte
/// aligned, `:16` integers divisible by 16, `:1` integers equal to 1). An
/// integer must fit its entry's width and signedness (and is passed at that
/// width); fp32 and fp64 values convert into each other (fp64 to fp32
/// rounds). Returns the arguments as the kernel takes them.
std::vector<Arg> argumentsForSignature(const std::string &kernel, const ParamNames &names,
                                       const dsl::Signature &signature,
                                       const std::vector<Arg> &args);

} // namespace tilec::jit
