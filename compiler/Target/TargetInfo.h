// What the compiler needs to know about one GPU architecture: which chip
// to name in the PTX, which PTX ISA version to write, what the hardware
// allows one CTA. Passes read it from the module's `tilegpu.target`
// attribute; the runtime picks the one for the device it launches on.
#pragma once

#include <optional>
#include <string>

namespace tilec {

struct TargetInfo {
  /// The PTX target name: "sm_80", "sm_90a", ...
  std::string chip = "sm_90a";
  /// 80, 86, 89, 90, 100, 120, ...
  unsigned computeCapability = 90;
  /// True for the "a" targets (sm_90a, sm_100a, sm_120a): code that uses
  /// their architecture-specific instructions (wgmma, setmaxnreg) runs only
  /// on that exact architecture.
  bool archSpecific = true;
  /// PTX ISA version written into the PTX, as LLVM's feature number
  /// (86 means `.version 8.6`).
  unsigned ptxVersion = 86;
  /// Most shared memory one CTA can use (with the opt-in attribute), bytes.
  unsigned maxSharedBytesPerBlock = 232448;
  /// 32-bit registers available to one CTA.
  unsigned registersPerBlock = 65536;

  /// Asynchronous copies from global to shared memory (cp.async), sm_80+.
  bool hasAsyncCopy() const { return computeCapability >= 80; }

  /// Warpgroup tensor-core instructions (wgmma.mma_async): sm_90a only
  /// (the arch-specific target; sm_100 dropped them).
  bool hasWgmma() const { return computeCapability == 90 && archSpecific; }

  /// The target named `name` ("sm_90a"); nullopt, with `error` set, for a
  /// name tilec does not know.
  static std::optional<TargetInfo> parse(const std::string &name,
                                         std::string &error);
  /// The target tilec compiles for on a device of compute capability `cc`
  /// (major * 10 + minor): its own architecture, with the "a" features
  /// where the architecture has them. A device newer than any tilec knows
  /// gets the newest portable target, whose PTX the driver compiles for it.
  static TargetInfo forComputeCapability(unsigned cc);
  /// "sm_80, sm_86, ..., sm_120a" for error messages and --help.
  static std::string knownChips();
};

} // namespace tilec
