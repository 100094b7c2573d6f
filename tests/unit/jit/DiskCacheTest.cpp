// The disk cache's pieces without a GPU: keys, the wording of recompile
// reasons, the source parts of a file's functions, round trips of entries,
// and damaged entries (truncated, garbled, under another key) refused and
// removed.
#include "runtime/JIT/DiskCache.h"
#include "runtime/JIT/Compiler.h"
#include "runtime/JIT/SourceKey.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

using namespace tilec;
using namespace tilec::jit;

namespace {

std::string tempDir(const char *name) {
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("tilec-cache-test-") + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

CachedKernel sample() {
  CachedKernel k;
  k.name = "add";
  k.signature = "*fp32:16,i32";
  k.stages.tile = "module {}\n";
  k.stages.tilegpu = "module attributes {} {}\n";
  k.stages.llir = "; llvm\n";
  k.stages.ptx = ".version 8.6\n.target sm_90a\n.visible .entry add() { ret; }\n";
  k.stages.sharedBytes = 512;
  k.stages.numWarps = 8;
  k.stages.clusterCtas = 2;
  return k;
}

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(DiskCacheKey, DependsOnEveryPartAndItsName) {
  std::vector<KeyPart> a = {{"signature", "*fp32", "", ""}, {"num_warps", "4", "", ""}};
  std::string k = hashKey(a);
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, hashKey(a));
  auto b = a;
  b[1].value = "8";
  EXPECT_NE(k, hashKey(b));
  auto c = a;
  c[1].name = "num_stages";
  EXPECT_NE(k, hashKey(c));
  // Length prefixes: moving text between name and value changes the key.
  EXPECT_NE(hashKey({{"ab", "c", "", ""}}), hashKey({{"a", "bc", "", ""}}));
}

TEST(DiskCacheKey, DescribesChanges) {
  std::vector<KeyPart> before = {
      {"source k", "d1", "f.py:10", "def k():\n    a = 1\n    b = 2\n"},
      {"global SCALE", "2.0", "", ""},
      {"constexpr BLOCK", "1024", "", ""},
  };
  auto after = before;
  after[0] = {"source k", "d2", "f.py:10", "def k():\n    a = 1\n    b = 3\n"};
  after[1].value = "3.0";
  after[2].value = "512";
  after.push_back({"num_warps", "8", "", ""});
  std::vector<std::string> r = describeChanges(before, after);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], "source 'k' changed at f.py:12");
  EXPECT_EQ(r[1], "global 'SCALE' changed: 2.0 -> 3.0");
  EXPECT_EQ(r[2], "constexpr 'BLOCK' changed: 1024 -> 512");
  EXPECT_EQ(r[3], "num_warps is new");
  EXPECT_TRUE(describeChanges(before, before).empty());
}

TEST(DiskCacheSource, UnrelatedFunctionsDoNotEnterTheKey) {
  const char *text = "import tilec.language as tl\n"
                     "SCALE = 2\n"
                     "OTHER = 5\n"
                     "def helper(x):\n"
                     "    return x * SCALE\n"
                     "\n"
                     "# a comment between functions\n"
                     "def kern(p):\n"
                     "    tl.store(p, helper(1))\n"
                     "\n"
                     "def unrelated(p):\n"
                     "    tl.store(p, OTHER)\n";
  ParsedSource parsed = parseSource("f.py", text);
  ASSERT_TRUE(parsed.ok());
  std::set<const void *> seen;
  std::vector<KeyPart> parts;
  appendSourceParts(*parsed.function("kern"), true, seen, parts);
  std::set<std::string> names;
  for (const KeyPart &p : parts)
    names.insert(p.name);
  EXPECT_TRUE(names.count("source kern"));
  EXPECT_TRUE(names.count("callee helper"));
  EXPECT_TRUE(names.count("global SCALE"));
  EXPECT_TRUE(names.count("global tl"));
  EXPECT_FALSE(names.count("global OTHER"));
  EXPECT_FALSE(names.count("callee unrelated"));
  EXPECT_EQ(parts[0].text, "def kern(p):\n    tl.store(p, helper(1))\n");
  EXPECT_EQ(parts[0].location, "f.py:8");
  for (const KeyPart &p : parts)
    if (p.name == "callee helper") // the comment after it is not its text
      EXPECT_EQ(p.text, "def helper(x):\n    return x * SCALE\n");
}

TEST(DiskCacheStore, RoundTripsEveryField) {
  DiskCache cache(tempDir("roundtrip"));
  CachedKernel k = sample();
  k.cubin = std::string("\x7f" "ELF\0\1\2", 7);
  k.cubinArch = "sm_90";
  ASSERT_TRUE(cache.store("00ff00ff00ff00ff00ff00ff00ff00ff", k));
  std::string problem;
  auto back = cache.load("00ff00ff00ff00ff00ff00ff00ff00ff", &problem);
  ASSERT_TRUE(back) << problem;
  EXPECT_EQ(back->name, k.name);
  EXPECT_EQ(back->signature, k.signature);
  EXPECT_EQ(back->stages.ptx, k.stages.ptx);
  EXPECT_EQ(back->stages.llir, k.stages.llir);
  EXPECT_EQ(back->stages.sharedBytes, 512u);
  EXPECT_EQ(back->stages.numWarps, 8u);
  EXPECT_EQ(back->stages.clusterCtas, 2u);
  EXPECT_EQ(back->cubin, k.cubin);
  EXPECT_EQ(back->cubinArch, "sm_90");
  EXPECT_FALSE(cache.load("11111111111111111111111111111111"));
  auto listed = cache.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].name, "add");
  EXPECT_GT(cache.sizeBytes(), 0u);
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_TRUE(cache.list().empty());
}

/// Two TMA tensor maps: an fp16 matrix with argument sizes and stride, and
/// a 3-D fp32 tensor with a constant and NaN fill.
std::vector<TensorMapSpec> sampleTensorMaps() {
  auto arg = [](int i) {
    TensorMapSpec::Operand o;
    o.arg = i;
    return o;
  };
  auto constant = [](int64_t v) {
    TensorMapSpec::Operand o;
    o.value = v;
    return o;
  };
  TensorMapSpec a;
  a.base = 0;
  a.sizes = {arg(3), arg(4)};
  a.strides = {arg(5), constant(1)};
  a.box = {128, 64};
  a.dataType = 6;
  a.elementBytes = 2;
  a.swizzleBytes = 128;
  TensorMapSpec b;
  b.base = 2;
  b.sizes = {constant(8), arg(3), arg(4)};
  b.strides = {arg(6), arg(7), constant(1)};
  b.box = {1, 64, 32};
  b.dataType = 7;
  b.elementBytes = 4;
  b.swizzleBytes = 0;
  b.nanFill = true;
  return {a, b};
}

TEST(DiskCacheStore, RoundTripsTensorMaps) {
  DiskCache cache(tempDir("tensormaps"));
  const std::string key = "0123456789abcdef0123456789abcdef";
  CachedKernel k = sample();
  k.stages.tensorMaps = sampleTensorMaps();
  ASSERT_TRUE(cache.store(key, k));
  // One header line per map, in order, as docs/cache.md shows.
  std::string bytes = readAll(cache.entryPath(key));
  size_t first = bytes.find("tensormap\t" + k.stages.tensorMaps[0].str() + "\n");
  size_t second = bytes.find("tensormap\t" + k.stages.tensorMaps[1].str() + "\n");
  ASSERT_NE(first, std::string::npos) << bytes.substr(0, 600);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, bytes.find("header\t"));
  std::string problem;
  auto back = cache.load(key, &problem);
  ASSERT_TRUE(back) << problem;
  ASSERT_EQ(back->stages.tensorMaps.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_TRUE(back->stages.tensorMaps[i] == k.stages.tensorMaps[i])
        << back->stages.tensorMaps[i].str();
  // A kernel without maps has none after the round trip.
  ASSERT_TRUE(cache.store(key, sample()));
  back = cache.load(key, &problem);
  ASSERT_TRUE(back) << problem;
  EXPECT_TRUE(back->stages.tensorMaps.empty());
}

// A tensor map line that does not parse makes the entry damaged, even when
// the header's digest is right (a writer's bug rather than a flipped bit).
TEST(DiskCacheStore, MalformedTensorMapIsDamage) {
  DiskCache cache(tempDir("badtensormap"));
  const std::string key = "fedcba9876543210fedcba9876543210";
  CachedKernel k = sample();
  k.stages.tensorMaps = sampleTensorMaps();
  ASSERT_TRUE(cache.store(key, k));
  std::string path = cache.entryPath(key), bytes = readAll(path);
  size_t headerLine = bytes.find("header\t");
  size_t headerEnd = bytes.find('\n', headerLine);
  ASSERT_NE(headerLine, std::string::npos);
  std::string above = bytes.substr(0, headerLine);
  std::string good = k.stages.tensorMaps[1].str();
  above.replace(above.find(good), good.size(), "base=2 sizes=[8,a3] box=[1,64]");
  writeAll(path, above + "header\t" + digest(above) + bytes.substr(headerEnd));
  std::string problem;
  EXPECT_FALSE(cache.load(key, &problem));
  EXPECT_NE(problem.find("bad tensor map"), std::string::npos) << problem;
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A cluster size of 0 or of more digits than any GPU's clusters is damage
// too: the launcher checks grids against it.
TEST(DiskCacheStore, BadClusterSizeIsDamage) {
  for (const char *bad : {"0", "123", "2x"}) {
    DiskCache cache(tempDir((std::string("badcluster") + bad).c_str()));
    const std::string key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";
    ASSERT_TRUE(cache.store(key, sample()));
    std::string path = cache.entryPath(key), bytes = readAll(path);
    size_t headerLine = bytes.find("header\t");
    size_t headerEnd = bytes.find('\n', headerLine);
    std::string above = bytes.substr(0, headerLine);
    size_t at = above.find("cluster\t2\n");
    ASSERT_NE(at, std::string::npos) << above;
    above.replace(at, 10, std::string("cluster\t") + bad + "\n");
    writeAll(path, above + "header\t" + digest(above) + bytes.substr(headerEnd));
    std::string problem;
    EXPECT_FALSE(cache.load(key, &problem)) << bad;
    EXPECT_NE(problem.find("bad cluster size"), std::string::npos) << problem;
  }
}

class DamagedEntry : public ::testing::TestWithParam<int> {};

TEST_P(DamagedEntry, IsRefusedAndRemoved) {
  DiskCache cache(tempDir(("damaged" + std::to_string(GetParam())).c_str()));
  const std::string key = "abcdefabcdefabcdefabcdefabcdef01";
  ASSERT_TRUE(cache.store(key, sample()));
  std::string path = cache.entryPath(key), bytes = readAll(path);
  switch (GetParam()) {
  case 0: bytes.resize(bytes.size() - 10); break;            // truncated payload
  case 1: bytes[bytes.size() - 20] ^= 0x01; break;           // one bit of PTX
  case 2: bytes += "extra"; break;                           // padded
  case 3: bytes.resize(bytes.find("section")); break;        // truncated header
  case 4: bytes.replace(bytes.find(key), 4, "0000"); break;  // another key
  case 5: bytes = ""; break;                                  // empty file
  }
  writeAll(path, bytes);
  std::string problem;
  EXPECT_FALSE(cache.load(key, &problem));
  EXPECT_NE(problem.find("damaged"), std::string::npos) << problem;
  EXPECT_FALSE(std::filesystem::exists(path));
}

INSTANTIATE_TEST_SUITE_P(Kinds, DamagedEntry, ::testing::Range(0, 6));

// A process killed with SIGKILL while it writes entries (really killed, at
// random moments, mostly in the middle of a 4 MiB write) leaves whole
// entries and temporary files; every entry a load or a listing finds reads
// back whole, and no temporary file is ever listed or loaded.
TEST(DiskCacheFaults, SigkillWhileWritingLeavesNothingDamaged) {
  std::string dir = tempDir("sigkill");
  CachedKernel big = sample();
  big.stages.ptx = std::string(4u << 20, 'p'); // a write long enough to interrupt
  auto keyOf = [](int i) { return std::string(30, 'a') + char('0' + i) + "0"; };
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> delayUs(2000, 40000);
  std::uniform_int_distribution<int> slowDelayUs(2000, 400000);
  int roundsWithTemporaries = 0;
  // 24 rounds; then, until a kill has landed in a write, up to 96 more
  // with delays spread up to 400 ms: on a loaded machine (sanitizers,
  // builds beside the tests) a writer may not reach its first write for
  // a long time, and none of 48 rounds up to 200 ms landed in one once.
  for (int round = 0; round < 120 && !(round >= 24 && roundsWithTemporaries > 0);
       ++round) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      DiskCache writer(dir);
      for (int i = 0;; i = (i + 1) % 4)
        writer.store(keyOf(i), big);
    }
    ::usleep(useconds_t(round < 24 ? delayUs(rng) : slowDelayUs(rng)));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    DiskCache reader(dir);
    bool temporaries = false;
    std::error_code ec; // an early kill may come before the first directory
    for (const auto &file :
         std::filesystem::recursive_directory_iterator(dir + "/kernels", ec)) {
      if (!file.is_regular_file())
        continue;
      std::string name = file.path().filename().string();
      if (file.path().extension() != ".tlc") {
        EXPECT_NE(name.find(".tmp."), std::string::npos) << name;
        temporaries = true;
      }
    }
    roundsWithTemporaries += temporaries;
    for (const CacheEntryInfo &info : reader.list()) {
      std::string problem;
      auto entry = reader.load(info.key, &problem);
      ASSERT_TRUE(entry) << "round " << round << ": " << problem;
      EXPECT_EQ(entry->stages.ptx.size(), big.stages.ptx.size());
      EXPECT_EQ(info.name, "add");
    }
  }
  // The kills did land in the middle of writes (else the test tested
  // nothing); `clear` removes what they left.
  EXPECT_GT(roundsWithTemporaries, 0);
  DiskCache(dir).clear();
  EXPECT_FALSE(std::filesystem::exists(dir + "/kernels"));
}

TEST(DiskCacheHistory, RoundTripsPartsWithNewlinesAndTabs) {
  DiskCache cache(tempDir("history"));
  std::vector<KeyPart> parts = {{"source k", "d", "f.py:3", "def k():\n\tpass\n"},
                                {"constexpr B", "4", "", ""}};
  cache.recordParts("f.py:k", parts);
  auto back = cache.lastParts("f.py:k");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].text, parts[0].text);
  EXPECT_EQ((*back)[1].value, "4");
  EXPECT_FALSE(cache.lastParts("f.py:other"));
}

TEST(DiskCacheOff, StoresNothing) {
  DiskCache off("");
  EXPECT_FALSE(off.enabled());
  EXPECT_FALSE(off.store("00", sample()));
  EXPECT_FALSE(off.load("00"));
}

} // namespace
