#include "runtime/JIT/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tilec::jit {

namespace {
// The format's version; 3 added the "tensormap" lines, 4 the "cluster" line.
constexpr const char *kEntryMagic = "tilec-cache-entry 4";
constexpr const char *kHistoryMagic = "tilec-history 1";

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Newlines and backslashes escaped, so that a value fits on one line.
std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out;
}

std::string unescape(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

std::vector<std::string> splitTabs(const std::string &line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos)
      return fields;
    start = tab + 1;
  }
}

std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return text.str();
}

std::string defaultDirectory() {
  const char *off = std::getenv("TILEC_CACHE");
  if (off && std::strcmp(off, "0") == 0)
    return "";
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tilec";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tilec";
  return "";
}

/// The sections of an entry, in file order.
struct Section {
  const char *name;
  std::string CachedKernel::*text = nullptr;
  std::string CompiledStages::*stage = nullptr;
};
const Section kSections[] = {
    {"tile", nullptr, &CompiledStages::tile},
    {"tilegpu", nullptr, &CompiledStages::tilegpu},
    {"llir", nullptr, &CompiledStages::llir},
    {"ptx", nullptr, &CompiledStages::ptx},
    {"cubin", &CachedKernel::cubin, nullptr},
};

std::string &sectionOf(CachedKernel &k, const Section &s) {
  return s.text ? k.*(s.text) : k.stages.*(s.stage);
}
} // namespace

std::string digest(const std::string &bytes) { return hex64(llvm::xxh3_64bits(bytes)); }

std::string hashKey(const std::vector<KeyPart> &parts) {
  llvm::SHA256 sha;
  for (const KeyPart &p : parts) {
    // Length-prefixed, so that no two part lists hash the same text.
    std::string field = std::to_string(p.name.size()) + ":" + p.name +
                        std::to_string(p.value.size()) + ":" + p.value;
    sha.update(field);
  }
  auto bytes = sha.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(bytes.data(), 16), /*LowerCase=*/true);
}

std::vector<std::string> describeChanges(const std::vector<KeyPart> &before,
                                         const std::vector<KeyPart> &after) {
  std::map<std::string, const KeyPart *> old;
  for (const KeyPart &p : before)
    old[p.name] = &p;
  std::vector<std::string> changes;
  auto label = [](const std::string &name) {
    size_t space = name.find(' ');
    if (space == std::string::npos)
      return name;
    return name.substr(0, space) + " '" + name.substr(space + 1) + "'";
  };
  for (const KeyPart &p : after) {
    auto it = old.find(p.name);
    if (it == old.end()) {
      changes.push_back(label(p.name) + " is new");
      continue;
    }
    const KeyPart &was = *it->second;
    old.erase(it);
    if (was.value == p.value)
      continue;
    if (!p.text.empty() || !was.text.empty()) {
      // Name the first line that differs, in the file's numbering.
      unsigned firstLine = 1;
      std::string path = p.location;
      if (size_t colon = p.location.rfind(':'); colon != std::string::npos) {
        path = p.location.substr(0, colon);
        firstLine = unsigned(std::atoi(p.location.c_str() + colon + 1));
      }
      std::istringstream a(was.text), b(p.text);
      std::string la, lb;
      unsigned line = firstLine;
      for (;;) {
        bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
        if (!ga && !gb)
          break;
        if (ga != gb || la != lb)
          break;
        ++line;
      }
      changes.push_back(label(p.name) + " changed at " + path + ":" + std::to_string(line));
      continue;
    }
    changes.push_back(label(p.name) + " changed: " + was.value + " -> " + p.value);
  }
  for (auto &[name, part] : old)
    changes.push_back(label(name) + " is gone");
  return changes;
}

bool writeFileAtomically(const std::string &path, const std::string &bytes) {
  std::error_code ec;
  fs::path target(path);
  fs::create_directories(target.parent_path(), ec);
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(counter++) + "." + std::to_string(rd());
  FILE *f = std::fopen(temp.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok &= std::fflush(f) == 0;
  ok &= std::fclose(f) == 0;
  if (ok)
    ok = std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok)
    std::remove(temp.c_str());
  return ok;
}

const DiskCache &DiskCache::instance() {
  static const DiskCache cache(defaultDirectory());
  return cache;
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

std::string DiskCache::entryPath(const std::string &key) const {
  return dir_ + "/kernels/" + key.substr(0, 2) + "/" + key + ".tlc";
}

bool DiskCache::store(const std::string &key, const CachedKernel &entry) const {
  if (!enabled())
    return false;
  CachedKernel copy = entry;
  std::string header = std::string(kEntryMagic) + "\n";
  header += "key\t" + key + "\n";
  header += "name\t" + escape(entry.name) + "\n";
  header += "signature\t" + escape(entry.signature) + "\n";
  header += "shared\t" + std::to_string(entry.stages.sharedBytes) + "\n";
  header += "warps\t" + std::to_string(entry.stages.numWarps) + "\n";
  header += "cluster\t" + std::to_string(entry.stages.clusterCtas) + "\n";
  header += "cubin-arch\t" + escape(entry.cubinArch) + "\n";
  // One line per TMA tensor map, in parameter order (TensorMapSpec::str()
  // holds neither tabs nor newlines).
  for (const TensorMapSpec &spec : entry.stages.tensorMaps)
    header += "tensormap\t" + spec.str() + "\n";
  std::string payload;
  for (const Section &s : kSections) {
    const std::string &bytes = sectionOf(copy, s);
    header += std::string("section\t") + s.name + "\t" + std::to_string(bytes.size()) +
              "\t" + digest(bytes) + "\n";
    payload += bytes;
  }
  // The digest of every line above it: a flipped bit in a field that has
  // no digest of its own (warps, shared, name, ...) is caught too.
  header += "header\t" + digest(header) + "\n";
  header += "end\t" + std::to_string(payload.size()) + "\n";
  return writeFileAtomically(entryPath(key), header + payload);
}

std::optional<CachedKernel> DiskCache::load(const std::string &key,
                                            std::string *problem) const {
  if (!enabled())
    return std::nullopt;
  std::string path = entryPath(key);
  std::optional<std::string> file = readFile(path);
  if (!file)
    return std::nullopt;
  auto bad = [&](const std::string &why) -> std::optional<CachedKernel> {
    if (problem)
      *problem = "cache entry " + path + " is damaged (" + why + "); recompiling";
    std::remove(path.c_str());
    return std::nullopt;
  };
  CachedKernel k;
  size_t pos = 0;
  auto nextLine = [&](std::string &line) {
    size_t nl = file->find('\n', pos);
    if (nl == std::string::npos)
      return false;
    line = file->substr(pos, nl - pos);
    pos = nl + 1;
    return true;
  };
  // A header number: decimal digits only, at most `digits` of them.
  auto number = [](const std::string &text, auto &out, size_t digits) {
    if (text.empty() || text.size() > digits ||
        text.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = decltype(+out)(std::strtoull(text.c_str(), nullptr, 10));
    return true;
  };
  std::string line;
  if (!nextLine(line) || line != kEntryMagic)
    return bad("not a tilec cache entry");
  struct Expected { const Section *section; uint64_t size; std::string digest; };
  std::vector<Expected> sections;
  uint64_t payloadSize = 0;
  bool ended = false, keyMatches = false, headerChecked = false;
  size_t lineStart = pos;
  while (!ended && (lineStart = pos, nextLine(line))) {
    std::vector<std::string> f = splitTabs(line);
    const std::string &tag = f[0];
    if (tag == "key" && f.size() == 2) keyMatches = f[1] == key;
    else if (tag == "name" && f.size() == 2) k.name = unescape(f[1]);
    else if (tag == "signature" && f.size() == 2) k.signature = unescape(f[1]);
    else if (tag == "shared" && f.size() == 2) {
      if (!number(f[1], k.stages.sharedBytes, 9))
        return bad("bad shared memory size");
    } else if (tag == "warps" && f.size() == 2) {
      if (!number(f[1], k.stages.numWarps, 9) || k.stages.numWarps == 0)
        return bad("bad warp count");
    } else if (tag == "cluster" && f.size() == 2) {
      if (!number(f[1], k.stages.clusterCtas, 2) || k.stages.clusterCtas == 0)
        return bad("bad cluster size");
    }
    else if (tag == "cubin-arch" && f.size() == 2) k.cubinArch = unescape(f[1]);
    else if (tag == "tensormap" && f.size() == 2) {
      TensorMapSpec spec;
      if (!TensorMapSpec::parse(f[1], spec))
        return bad("bad tensor map");
      k.stages.tensorMaps.push_back(std::move(spec));
    }
    else if (tag == "section" && f.size() == 4) {
      const Section *s = nullptr;
      for (const Section &candidate : kSections)
        if (f[1] == candidate.name)
          s = &candidate;
      if (!s)
        return bad("unknown section '" + f[1] + "'");
      uint64_t size = 0;
      if (!number(f[2], size, 19))
        return bad("bad section size");
      sections.push_back({s, size, f[3]});
    } else if (tag == "header" && f.size() == 2) {
      if (digest(file->substr(0, lineStart)) != f[1])
        return bad("header fails its digest");
      headerChecked = true;
    } else if (tag == "end" && f.size() == 2) {
      if (!headerChecked)
        return bad("header has no digest");
      if (!number(f[1], payloadSize, 19))
        return bad("bad payload size");
      ended = true;
    } else {
      return bad("unexpected header line");
    }
  }
  if (!ended)
    return bad("truncated header");
  if (!keyMatches)
    return bad("stored under another key");
  uint64_t sum = 0;
  for (const Expected &e : sections)
    sum += e.size;
  if (sum != payloadSize || file->size() - pos != payloadSize)
    return bad("truncated or padded: " + std::to_string(file->size() - pos) +
               " payload bytes, " + std::to_string(payloadSize) + " expected");
  for (const Expected &e : sections) {
    std::string bytes = file->substr(pos, size_t(e.size));
    pos += size_t(e.size);
    if (digest(bytes) != e.digest)
      return bad(std::string("section ") + e.section->name + " fails its digest");
    sectionOf(k, *e.section) = std::move(bytes);
  }
  if (k.stages.ptx.empty())
    return bad("no PTX");
  return k;
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  std::vector<CacheEntryInfo> out;
  std::error_code ec;
  fs::path root = fs::path(dir_) / "kernels";
  if (!enabled() || !fs::exists(root, ec))
    return out;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".tlc")
      continue;
    CacheEntryInfo info;
    info.key = it->path().stem().string();
    info.bytes = it->file_size(ec);
    struct stat st;
    if (::stat(it->path().c_str(), &st) == 0)
      info.modified = int64_t(st.st_mtime);
    // The header is enough: the name, signature and cubin architecture.
    std::ifstream in(it->path());
    std::string line;
    while (std::getline(in, line) && line.rfind("end\t", 0) != 0) {
      std::vector<std::string> f = splitTabs(line);
      if (f.size() != 2)
        continue;
      if (f[0] == "name") info.name = unescape(f[1]);
      else if (f[0] == "signature") info.signature = unescape(f[1]);
      else if (f[0] == "cubin-arch") info.cubinArch = unescape(f[1]);
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
    return a.modified != b.modified ? a.modified > b.modified : a.key < b.key;
  });
  return out;
}

uint64_t DiskCache::sizeBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  if (!enabled() || !fs::exists(dir_, ec))
    return 0;
  for (auto it = fs::recursive_directory_iterator(dir_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec))
      total += it->file_size(ec);
  return total;
}

size_t DiskCache::clear() const {
  size_t removed = 0;
  std::error_code ec;
  if (!enabled())
    return 0;
  for (const char *folder : {"kernels", "history", "tune"}) {
    fs::path root = fs::path(dir_) / folder;
    if (!fs::exists(root, ec))
      continue;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      removed += it->is_regular_file(ec);
    fs::remove_all(root, ec);
  }
  return removed;
}

std::optional<std::string> DiskCache::readText(const std::string &folder,
                                               const std::string &name) const {
  if (!enabled())
    return std::nullopt;
  return readFile(dir_ + "/" + folder + "/" + name);
}

bool DiskCache::writeText(const std::string &folder, const std::string &name,
                          const std::string &text) const {
  return enabled() && writeFileAtomically(dir_ + "/" + folder + "/" + name, text);
}

std::optional<std::vector<KeyPart>> DiskCache::lastParts(const std::string &id) const {
  std::optional<std::string> text = readText("history", digest(id) + ".txt");
  if (!text)
    return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  if (!std::getline(in, line) || line != kHistoryMagic)
    return std::nullopt;
  std::vector<KeyPart> parts;
  while (std::getline(in, line)) {
    std::vector<std::string> f = splitTabs(line);
    if (f.size() != 4)
      return std::nullopt;
    parts.push_back({unescape(f[0]), unescape(f[1]), unescape(f[2]), unescape(f[3])});
  }
  return parts;
}

void DiskCache::recordParts(const std::string &id,
                            const std::vector<KeyPart> &parts) const {
  std::string text = std::string(kHistoryMagic) + "\n";
  for (const KeyPart &p : parts)
    text += escape(p.name) + "\t" + escape(p.value) + "\t" + escape(p.location) +
            "\t" + escape(p.text) + "\n";
  writeText("history", digest(id) + ".txt", text);
}

} // namespace tilec::jit
