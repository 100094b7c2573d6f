// The on-disk compile cache (docs/cache.md): compiled kernels stored by the
// hash of everything their code depends on, so that a new process launching
// a kernel it has compiled before neither parses nor lowers it.
//
// Layout of the cache directory:
//   kernels/<k0k1>/<key>.tlc   one compiled kernel: every stage's text, the
//                              cubin once a GPU has loaded it, and metadata;
//                              each section with its size and xxh64 digest
//   history/<id>.txt           the key parts of the last compile of each
//                              kernel (path:name), for the recompile log
//   tune/<key>.txt             autotuning results (runtime/Autotune.h)
// Every file is written to a temporary name in its directory and renamed
// into place, so concurrent processes see a whole file or none.
#pragma once

#include "compiler/Pipeline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::jit {

/// One named input of a compile key.
///   source NAME      the kernel's own text     callee NAME  a @jit it calls
///   global NAME      a module-level value      signature    argument types
///   constexpr NAME   a constexpr's value       num_warps, target, tilec, llvm
struct KeyPart {
  std::string name;
  std::string value;    ///< what is hashed (a digest for source texts)
  std::string location; ///< source and callee parts: "file:line" of the def
  std::string text;     ///< source and callee parts: the text itself
};

/// The hex digest (32 characters) of the parts, in order.
std::string hashKey(const std::vector<KeyPart> &parts);
/// Hex xxh64 of some bytes.
std::string digest(const std::string &bytes);

/// How `after` differs from `before`, one phrase per changed part:
///   "constexpr BLOCK changed: 1024 -> 512"
///   "callee 'helper' changed at kernels/x.py:12"
///   "global 'SCALE' changed: 2.0 -> 3.0", "num_warps changed: 4 -> 8"
std::vector<std::string> describeChanges(const std::vector<KeyPart> &before,
                                         const std::vector<KeyPart> &after);

/// A compiled kernel as the cache holds it.
struct CachedKernel {
  std::string name;
  std::string signature;
  CompiledStages stages;
  /// Machine code for the GPU named by cubinArch ("sm_90"); may be empty.
  std::string cubinArch;
  std::string cubin;
};

struct CacheEntryInfo {
  std::string key, name, signature, cubinArch;
  uint64_t bytes = 0;
  int64_t modified = 0; ///< seconds since the epoch
};

class DiskCache {
public:
  /// The process-wide cache: TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec,
  /// else $HOME/.cache/tilec. TILEC_CACHE=0 turns it off (enabled() false).
  static const DiskCache &instance();
  explicit DiskCache(std::string dir);

  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }

  /// The entry stored under `key`, every section checked against its size
  /// and digest. A missing entry gives nullopt; so does a bad one, which is
  /// deleted, with the reason in *problem.
  std::optional<CachedKernel> load(const std::string &key,
                                   std::string *problem = nullptr) const;
  /// Writes the entry atomically; false (and nothing changed) when the
  /// directory cannot be written.
  bool store(const std::string &key, const CachedKernel &entry) const;

  std::vector<CacheEntryInfo> list() const;
  /// Bytes of every file under the directory.
  uint64_t sizeBytes() const;
  /// Removes every entry, the history and the autotuning results; returns
  /// the number of files removed.
  size_t clear() const;
  /// The file of the entry `key` (whether or not it exists).
  std::string entryPath(const std::string &key) const;

  /// The key parts of the last compile of kernel `id` ("path:name").
  std::optional<std::vector<KeyPart>> lastParts(const std::string &id) const;
  void recordParts(const std::string &id, const std::vector<KeyPart> &parts) const;

  /// Small text files in `<dir>/<folder>/<name>`, written atomically (the
  /// autotuning database).
  std::optional<std::string> readText(const std::string &folder,
                                      const std::string &name) const;
  bool writeText(const std::string &folder, const std::string &name,
                 const std::string &text) const;

private:
  std::string dir_;
};

/// Writes `bytes` to `path` through a temporary file in the same
/// directory and a rename; creates the directory. False on any failure.
bool writeFileAtomically(const std::string &path, const std::string &bytes);

} // namespace tilec::jit
