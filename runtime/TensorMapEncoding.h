// Encoding TMA tensor maps (CUtensorMap) with the CUDA driver's
// cuTensorMapEncodeTiled, for kernels that read tensors through the Tensor
// Memory Accelerator. A tensor map is opaque: only the driver can write
// one, from the tensor's address, sizes and strides and the box one copy
// moves. This file knows the driver's call and nothing of where the values
// come from (runtime/JIT/TensorMaps.h reads them off a launch's arguments,
// as the compiler's TensorMapSpec says).
#pragma once

#include <cstdint>
#include <string>

namespace tilec::runtime {

/// The most dimensions a tiled tensor map describes.
constexpr unsigned kMaxTensorMapRank = 5;

/// One encoded CUtensorMap: what a kernel takes as a
/// `.param .align 64 .b8 [128]` parameter. The driver writes it only at a
/// 64-byte aligned address.
struct alignas(64) EncodedTensorMap {
  uint64_t words[16];
};
static_assert(sizeof(EncodedTensorMap) == 128, "a CUtensorMap is 128 bytes");

/// cuTensorMapEncodeTiled's arguments, as the driver takes them: every
/// array lists the innermost dimension first, and globalStrides, in bytes,
/// holds the strides of dimensions 1 to rank - 1 (the innermost one is
/// contiguous). Entries past the rank are ignored.
struct TensorMapArguments {
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  uint64_t globalDim[kMaxTensorMapRank] = {};
  uint64_t globalStrides[kMaxTensorMapRank - 1] = {};
  uint32_t boxDim[kMaxTensorMapRank] = {};
  uint32_t elementStrides[kMaxTensorMapRank] = {};
  int dataType = 0;   ///< CUtensorMapDataType
  int interleave = 0; ///< CUtensorMapInterleave (0: none)
  int swizzle = 0;    ///< CUtensorMapSwizzle (0: none, 1: 32B, 2: 64B, 3: 128B)
  int l2Promotion = 0; ///< CUtensorMapL2promotion
  int oobFill = 0;    ///< CUtensorMapFloatOOBfill (0: zeros, 1: NaN)
};

/// The arguments in one line, for error messages: "type FLOAT16, rank 2,
/// address 0x7f0000000000, globalDim [64, 100], globalStrides [128] bytes,
/// boxDim [64, 128], elementStrides [1, 1], interleave 0, swizzle 128B,
/// L2 promotion 3, OOB fill zero (arrays innermost first)".
std::string describe(const TensorMapArguments &args);

/// Encodes the map into `out` with the driver. Throws CudaError when there
/// is no driver, when it lacks cuTensorMapEncodeTiled (older than CUDA
/// 12.0), or when it refuses the values: then the message holds the
/// CUresult and describe(args). A host-side call: it enqueues nothing and
/// may run while a stream is being captured.
void encodeTensorMap(const TensorMapArguments &args, EncodedTensorMap &out);

} // namespace tilec::runtime
