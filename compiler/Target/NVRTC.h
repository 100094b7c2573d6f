// CUDA C++ device functions in a kernel's PTX: NVRTC compiles the sources a
// module lists (tile.cuda_sources) to PTX, and their functions join the
// kernel's PTX as one module, replacing the kernel's `.extern .func`
// declarations of them (tile.cuda_call's lowering calls them by name).
// NVRTC is loaded when first needed, so a build or a program that calls no
// CUDA function needs none.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilec {

struct TargetInfo;

/// A value crossing into or out of a CUDA device function, as the kernel
/// has it.
struct CudaValue {
  enum class Kind { Integer, Float, Half, BFloat16 };
  Kind kind = Kind::Float;
  /// Its bytes in the PTX calling convention: 16-bit floats 2, narrower
  /// integers promoted to 4.
  unsigned bytes = 4;
  std::string name; ///< for messages: "f32", "i32"
};

/// One call of a CUDA device function.
struct CudaCall {
  std::string callee;
  std::vector<CudaValue> args;
  CudaValue result;
};

/// What is wrong with calls[call].
struct CudaCallProblem {
  size_t call = 0;
  std::string message;
};

/// Compiles `sources` (one translation unit, in order) for `target` with
/// NVRTC into `functions` (PTX) and checks each call against the function
/// it names: defined (extern "C" __device__), its number of arguments, each
/// argument's and the result's bytes in the PTX calling convention, and
/// their kinds as the function's C++ type has them (an integer given where
/// it takes a float or the other way round; __half where it takes
/// __nv_bfloat16), which NVRTC itself checks on the function's type.
/// Returns false with `error` (NVRTC's log included) when the sources do
/// not compile; otherwise `problems` lists what is wrong with calls.
/// Results are remembered in the process per sources, calls and target, so
/// that the configs an autotuner compiles run NVRTC once.
bool compileCudaCalls(const std::vector<std::string> &sources,
                      const std::vector<CudaCall> &calls, const TargetInfo &target,
                      std::string &functions, std::vector<CudaCallProblem> &problems,
                      std::string &error);

/// Two definitions of one name in the merged module, which ptxas refuses:
/// the functions NVRTC's `functions` define without `.visible` (libdevice's
/// internals, `static` helpers) that the kernel's `ptx` defines too are
/// renamed in `functions` (with their calls there); the `.visible` ones,
/// which the kernel calls by name, are returned.
std::vector<std::string> resolveClashingSymbols(const std::string &ptx, std::string &functions);

/// The version of the NVRTC that compileCudaCalls loads ("13.0"), or ""
/// when none loads: kernels that call CUDA functions have it in their
/// disk-cache key.
std::string nvrtcVersion();

/// The bytes of each parameter of the function `name` in the PTX
/// `functions`, and of its return value (0 for none): `.param .b32` is 4,
/// `.param .align 2 .b8 p[2]` (a __half) is 2. Empty when `name` is not
/// defined.
struct DeviceFunctionParams {
  std::vector<unsigned> params;
  unsigned result = 0;
};
std::optional<DeviceFunctionParams> deviceFunctionParams(const std::string &functions,
                                                         const std::string &name);

/// Merges NVRTC's `functions` into the kernel's `ptx`: the PTX version
/// becomes the newer of the two, the definitions come right after the
/// header, and the kernel's declarations of `callees` go.
void mergeDeviceFunctions(std::string &ptx, const std::string &functions,
                          const std::vector<std::string> &callees);

/// Where NVRTC is looked for: $TILEC_NVRTC, then the dynamic loader's
/// libnvrtc.so.13 / .12 / libnvrtc.so, then the CUDA toolkit's lib64
/// ($CUDA_HOME, the toolkit found at build time, /usr/local/cuda).
std::vector<std::string> nvrtcCandidates();

} // namespace tilec
