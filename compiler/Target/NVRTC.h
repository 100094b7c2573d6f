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

/// Compiles `sources` (one translation unit, in order) for `target` with
/// NVRTC into `functions` (PTX). Returns false with `error` set (NVRTC's
/// log included) on failure.
bool compileCudaSources(const std::vector<std::string> &sources, const TargetInfo &target,
                        std::string &functions, std::string &error);

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
