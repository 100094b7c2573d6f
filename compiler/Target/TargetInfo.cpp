#include "compiler/Target/TargetInfo.h"

namespace tilec {
namespace {
// Shared memory per CTA with the opt-in attribute, from the CUDA
// programming guide's table of compute capabilities.
constexpr unsigned kSharedAmpere = 166912;   // 163 KB: sm_80, sm_87
constexpr unsigned kSharedConsumer = 101376; // 99 KB: sm_86, sm_89, sm_120
constexpr unsigned kSharedHopper = 232448;   // 227 KB: sm_90, sm_100

struct KnownTarget {
  const char *chip;
  unsigned capability;
  bool archSpecific;
  unsigned ptxVersion;
  unsigned sharedBytes;
};

// Every chip here is one LLVM 22's NVPTX back end and CUDA 13's ptxas both
// accept. PTX 8.6 is the oldest ISA that has every instruction tilec emits
// for these; sm_120a first appears in 8.7.
constexpr KnownTarget kKnown[] = {
    {"sm_80", 80, false, 86, kSharedAmpere},
    {"sm_86", 86, false, 86, kSharedConsumer},
    {"sm_87", 87, false, 86, kSharedAmpere},
    {"sm_89", 89, false, 86, kSharedConsumer},
    {"sm_90", 90, false, 86, kSharedHopper},
    {"sm_90a", 90, true, 86, kSharedHopper},
    {"sm_100", 100, false, 86, kSharedHopper},
    {"sm_100a", 100, true, 86, kSharedHopper},
    {"sm_120", 120, false, 87, kSharedConsumer},
    {"sm_120a", 120, true, 87, kSharedConsumer},
};

TargetInfo fromKnown(const KnownTarget &k) {
  TargetInfo t;
  t.chip = k.chip;
  t.computeCapability = k.capability;
  t.archSpecific = k.archSpecific;
  t.ptxVersion = k.ptxVersion;
  t.maxSharedBytesPerBlock = k.sharedBytes;
  t.registersPerBlock = 65536;
  return t;
}
} // namespace

std::optional<TargetInfo> TargetInfo::parse(const std::string &name,
                                            std::string &error) {
  for (const KnownTarget &k : kKnown)
    if (name == k.chip)
      return fromKnown(k);
  error = "unknown GPU target '" + name + "' (expected one of " + knownChips() +
          ")";
  return std::nullopt;
}

TargetInfo TargetInfo::forComputeCapability(unsigned cc) {
  // The exact architecture, arch-specific where it exists.
  const KnownTarget *best = nullptr;
  for (const KnownTarget &k : kKnown)
    if (k.capability == cc && (!best || k.archSpecific))
      best = &k;
  if (best)
    return fromKnown(*best);
  // Otherwise the newest portable target not above the device: its PTX is
  // compiled by the driver for the device (sm_80 PTX runs on an sm_88).
  for (const KnownTarget &k : kKnown)
    if (!k.archSpecific && k.capability <= cc)
      best = &k;
  return fromKnown(best ? *best : kKnown[0]);
}

std::string TargetInfo::knownChips() {
  std::string list;
  for (const KnownTarget &k : kKnown)
    list += std::string(list.empty() ? "" : ", ") + k.chip;
  return list;
}

} // namespace tilec
