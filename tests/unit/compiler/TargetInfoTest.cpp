// What tilec knows about each GPU architecture (compiler/Target/TargetInfo.h):
// every known chip parses to itself, unknown ones are errors that list the
// known ones, each compute capability maps to the chip launches compile for,
// and the per-CTA limits are those of the CUDA programming guide.
#include "compiler/Target/TargetInfo.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using tilec::TargetInfo;

namespace {

const std::vector<std::string> kExpectedChips = {
    "sm_80", "sm_86",  "sm_87", "sm_89",   "sm_90",
    "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a"};

std::vector<std::string> split(const std::string &list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t start = item.find_first_not_of(' ');
    out.push_back(start == std::string::npos ? "" : item.substr(start));
  }
  return out;
}

TargetInfo parsed(const std::string &name) {
  std::string error;
  std::optional<TargetInfo> t = TargetInfo::parse(name, error);
  EXPECT_TRUE(t.has_value()) << name << ": " << error;
  return t.value_or(TargetInfo{});
}

TEST(TargetInfo, KnownChipsListsEveryTargetInOrder) {
  EXPECT_EQ(split(TargetInfo::knownChips()), kExpectedChips);
}

TEST(TargetInfo, EveryKnownChipParsesToItself) {
  for (const std::string &chip : kExpectedChips) {
    TargetInfo t = parsed(chip);
    EXPECT_EQ(t.chip, chip);
    bool archSpecific = chip.back() == 'a';
    EXPECT_EQ(t.archSpecific, archSpecific) << chip;
    std::string digits = chip.substr(3, chip.size() - 3 - (archSpecific ? 1 : 0));
    EXPECT_EQ(t.computeCapability, unsigned(std::stoul(digits))) << chip;
    EXPECT_EQ(t.registersPerBlock, 65536u) << chip;
    EXPECT_GE(t.ptxVersion, 86u) << chip;
  }
}

TEST(TargetInfo, PTXVersions) {
  EXPECT_EQ(parsed("sm_80").ptxVersion, 86u);
  EXPECT_EQ(parsed("sm_90a").ptxVersion, 86u);
  // sm_120a first appears in PTX ISA 8.7.
  EXPECT_EQ(parsed("sm_120").ptxVersion, 87u);
  EXPECT_EQ(parsed("sm_120a").ptxVersion, 87u);
}

TEST(TargetInfo, UnknownChipIsAnErrorListingTheKnownOnes) {
  for (const char *name : {"sm_70", "sm_91", "sm_90b", "compute_90", "", "SM_90A"}) {
    std::string error;
    EXPECT_FALSE(TargetInfo::parse(name, error).has_value()) << name;
    EXPECT_NE(error.find(std::string("unknown GPU target '") + name + "'"),
              std::string::npos)
        << error;
    for (const std::string &chip : kExpectedChips)
      EXPECT_NE(error.find(chip), std::string::npos) << error;
  }
}

TEST(TargetInfo, SharedMemoryPerBlock) {
  // The opt-in maximum per block of the CUDA programming guide's table.
  EXPECT_EQ(parsed("sm_80").maxSharedBytesPerBlock, 166912u);
  EXPECT_EQ(parsed("sm_86").maxSharedBytesPerBlock, 101376u);
  EXPECT_EQ(parsed("sm_87").maxSharedBytesPerBlock, 166912u);
  EXPECT_EQ(parsed("sm_89").maxSharedBytesPerBlock, 101376u);
  EXPECT_EQ(parsed("sm_90").maxSharedBytesPerBlock, 232448u);
  EXPECT_EQ(parsed("sm_90a").maxSharedBytesPerBlock, 232448u);
  EXPECT_EQ(parsed("sm_100a").maxSharedBytesPerBlock, 232448u);
  EXPECT_EQ(parsed("sm_120a").maxSharedBytesPerBlock, 101376u);
}

TEST(TargetInfo, ForComputeCapabilityOfKnownDevices) {
  struct Case {
    unsigned cc;
    const char *chip;
  } cases[] = {{80, "sm_80"},  {86, "sm_86"},    {87, "sm_87"},   {89, "sm_89"},
               {90, "sm_90a"}, {100, "sm_100a"}, {120, "sm_120a"}};
  for (const Case &c : cases) {
    TargetInfo t = TargetInfo::forComputeCapability(c.cc);
    EXPECT_EQ(t.chip, c.chip) << c.cc;
    EXPECT_EQ(t.computeCapability, c.cc) << c.cc;
    // The whole description, not only the name.
    TargetInfo p = parsed(c.chip);
    EXPECT_EQ(t.archSpecific, p.archSpecific) << c.cc;
    EXPECT_EQ(t.ptxVersion, p.ptxVersion) << c.cc;
    EXPECT_EQ(t.maxSharedBytesPerBlock, p.maxSharedBytesPerBlock) << c.cc;
  }
}

TEST(TargetInfo, ForComputeCapabilityOfUnknownDevices) {
  // A device tilec has no target for gets the newest portable (not "a")
  // target below it, whose PTX the driver compiles for it.
  EXPECT_EQ(TargetInfo::forComputeCapability(88).chip, "sm_87");
  EXPECT_EQ(TargetInfo::forComputeCapability(95).chip, "sm_90");
  EXPECT_EQ(TargetInfo::forComputeCapability(103).chip, "sm_100");
  EXPECT_EQ(TargetInfo::forComputeCapability(121).chip, "sm_120");
  EXPECT_EQ(TargetInfo::forComputeCapability(130).chip, "sm_120");
  EXPECT_FALSE(TargetInfo::forComputeCapability(130).archSpecific);
}

} // namespace
