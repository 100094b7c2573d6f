// cuTensorMapEncodeTiled through the dlopen'd driver (TensorMapEncoding.h).
#include "runtime/TensorMapEncoding.h"

#include "runtime/CudaDriver.h"

#include <cinttypes>
#include <cstdio>

namespace tilec::runtime {
namespace {

/// CUtensorMapDataType's names, in the driver's order (cuda.h).
const char *dataTypeName(int type) {
  static const char *const names[] = {
      "UINT8",        "UINT16",         "UINT32",         "INT32",
      "UINT64",       "INT64",          "FLOAT16",        "FLOAT32",
      "FLOAT64",      "BFLOAT16",       "FLOAT32_FTZ",    "TFLOAT32",
      "TFLOAT32_FTZ", "16U4_ALIGN8B",   "16U4_ALIGN16B",  "16U6_ALIGN16B"};
  return type >= 0 && type < int(sizeof names / sizeof names[0]) ? names[type] : nullptr;
}

const char *swizzleName(int swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_NONE: return "none";
  case CU_TENSOR_MAP_SWIZZLE_32B: return "32B";
  case CU_TENSOR_MAP_SWIZZLE_64B: return "64B";
  case CU_TENSOR_MAP_SWIZZLE_128B: return "128B";
  }
  return nullptr;
}

template <class T> std::string list(const T *values, unsigned n) {
  std::string text = "[";
  for (unsigned i = 0; i < n; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

} // namespace

std::string describe(const TensorMapArguments &a) {
  unsigned rank = a.rank <= kMaxTensorMapRank ? a.rank : kMaxTensorMapRank;
  char address[24];
  std::snprintf(address, sizeof address, "0x%" PRIx64, a.globalAddress);
  const char *typeName = dataTypeName(a.dataType);
  const char *swizzle = swizzleName(a.swizzle);
  std::string type = typeName ? typeName : std::to_string(a.dataType);
  return "type " + type + ", rank " + std::to_string(a.rank) + ", address " + address +
         ", globalDim " + list(a.globalDim, rank) + ", globalStrides " +
         list(a.globalStrides, rank ? rank - 1 : 0) + " bytes, boxDim " +
         list(a.boxDim, rank) + ", elementStrides " + list(a.elementStrides, rank) +
         ", interleave " + std::to_string(a.interleave) + ", swizzle " +
         (swizzle ? std::string(swizzle) : std::to_string(a.swizzle)) + ", L2 promotion " +
         std::to_string(a.l2Promotion) + ", OOB fill " +
         (a.oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ? "zero" : "NaN") +
         " (arrays innermost dimension first)";
}

void encodeTensorMap(const TensorMapArguments &args, EncodedTensorMap &out) {
  const CudaDriver &driver = CudaDriver::initialized();
  auto encode = CudaDriver::need(driver.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  CUresult result = encode(
      &out, args.dataType, args.rank, reinterpret_cast<void *>(uintptr_t(args.globalAddress)),
      args.globalDim, args.globalStrides, args.boxDim, args.elementStrides, args.interleave,
      args.swizzle, args.l2Promotion, args.oobFill);
  if (result != CUDA_SUCCESS)
    fail(result, "cuTensorMapEncodeTiled (" + describe(args) + ")");
}

} // namespace tilec::runtime
