// tilec: the command-line compiler.
//
//   tilec compile FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...
//         [--num-warps N] [--num-stages S] [--maxnreg R] [--target CHIP]
//         [--debug] [--deterministic] [--emit STAGE]
//         [-o DIR] [--time]
//   tilec cache list|size|clear|show KEY
//   tilec tune FILE -k KERNEL --arg SPEC... --grid G... --config|--sweep ...
//   tilec aot FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]... [FILE] -k ...
//         [--targets sm_80,sm_90a] [--namespace NS] -o PREFIX
//
// STAGE is tile, tilegpu, llvm, ptx, summary or all. Errors are printed as
// `file:line:col: error: ...` with the source line, and exit with code 1.
#include <tilec/tilec.h>

#include "AotCommand.h"
#include "CommandLine.h"
#include "TuneCommand.h"

#include <cerrno>
#include <cstdlib>
#include <map>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace {
/// What `tilec compile` targets without --target: compiling for inspection
/// needs no GPU, so the default does not depend on the machine.
const char *kDefaultTarget = "sm_90a";

std::string usage() {
  return std::string(
    "usage: tilec compile FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...\n"
    "                     [--num-warps N] [--num-stages S] [--maxnreg R] [--target CHIP]\n"
    "                     [--debug] [--deterministic] [--no-line-info]\n"
    "                     [--emit tile|tilegpu|llvm|ptx|summary|all]\n"
    "                     [-o DIR] [--time]\n"
    "       tilec cache list|size|clear|show KEY\n"
    "       tilec tune FILE -k KERNEL --arg SPEC... --grid G[,G[,G]]\n"
    "                  (--config 'NAME=V ... num_warps=W' | --sweep NAME=V1,V2,...)...\n"
    "                  [-D NAME=VALUE]... [--bytes N] [--flops N] [--key TEXT]\n"
    "                  [--warmup MS] [--rep MS] [--force] [--deterministic]\n"
    "                  [--csv F] [--json F] [--svg F]\n"
    "       tilec aot FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]... [--num-warps N]\n"
    "                 [--num-stages S] [--maxnreg R] [--deterministic] [--name FUNCTION]\n"
    "                 [[FILE] -k ...]...\n"
    "                 [--targets CHIP,CHIP...] [--namespace NS] [--no-ptx] [--no-line-info]\n"
    "                 [--ptxas PATH]\n"
    "                 -o PREFIX\n"
    "       tilec --version\n"
    "\n"
    "SIGNATURE lists the non-constexpr parameters in Triton's notation, e.g.\n"
    "'*fp32:16,*fp32:16,*fp32:16,i32:16' (':16' = 16-byte aligned pointer or\n"
    "integer divisible by 16, ':8' = integer divisible by 8, ':1' = integer\n"
    "equal to 1).\n"
    "S is the software-pipeline depth of loops feeding tl.dot (default 3;\n"
    "1: off), as Triton's num_stages. R caps the registers per thread (PTX .maxnreg,\n"
    "16 to 255), as Triton's maxnreg. --debug compiles as Triton's debug=True:\n"
    "tl.device_assert checked, loads and stores checked against their buffers.\n"
    "--deterministic checks for batch invariance: float atomics and float sums\n"
    "split by the grid or by runtime values are errors (docs/determinism.md).\n"
    "--no-line-info leaves out the PTX's .file/.loc source lines (as\n"
    "TILEC_DISABLE_LINE_INFO=1 does).\n"
    "CHIP is the GPU target of the PTX, one of\n  ") +
    tilec::knownTargets() + "\n"
    "(default " + kDefaultTarget + " on every machine, with a GPU or without: compiling\n"
    "needs none; launches and `tilec tune` compile for the GPU they run on).\n"
    "tune: SPEC is TYPE[N] (a device buffer of N random elements) or TYPE=VALUE\n"
    "(i32, i64, fp32, fp64), one per runtime parameter; a grid entry is an\n"
    "integer or N/NAME (ceil(N / the config's NAME)). Needs a GPU.\n"
    "aot: writes PREFIX.h and PREFIX.cpp, a typed launch function per -k (named\n"
    "FUNCTION, default KERNEL; the options after a -k are its own) with a cubin per\n"
    "target (default sm_80,sm_86,sm_89,sm_90a) and the oldest portable target's PTX\n"
    "built in; the program needs only the CUDA driver. Needs ptxas (docs/aot.md).\n";
}

int usageError(const std::string &message) {
  std::cerr << "tilec: error: " << message << "\n\n" << usage();
  return 2;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

int compileCommand(int argc, char **argv) {
  std::string file, kernel, signature, emit = "ptx", outDir;
  bool haveSignature = false, time = false, debug = false, deterministic = false;
  tilec::Constexprs constexprs;
  unsigned numWarps = 4, numStages = 3, maxRegisters = 0;
  std::string target = kDefaultTarget;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::runtime_error("option " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-k" || arg == "--kernel")
      kernel = value();
    else if (arg == "-s" || arg == "--signature") {
      signature = value();
      haveSignature = true;
    } else if (arg == "-D" || (arg.rfind("-D", 0) == 0 && arg.size() > 2)) {
      addDefinition(arg == "-D" ? value() : arg.substr(2), constexprs);
    } else if (arg == "--num-warps") {
      std::string v = value();
      char *end;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n <= 0 || n > 1024)
        throw std::runtime_error("--num-warps needs a number, got '" + v + "'");
      numWarps = n;
    } else if (arg == "--maxnreg") {
      std::string v = value();
      char *end;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || v.empty() || n < 16 || n > 255)
        throw std::runtime_error("--maxnreg needs a number from 16 to 255, got '" + v + "'");
      maxRegisters = unsigned(n);
    } else if (arg == "--num-stages") {
      std::string v = value();
      char *end;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n <= 0 || n > 16)
        throw std::runtime_error("--num-stages needs a number from 1 to 16, got '" +
                                 v + "'");
      numStages = unsigned(n);
    } else if (arg == "--target") {
      target = value();
      // Empty would mean "this machine's GPU" to Kernel::compile.
      if (target.empty())
        throw std::runtime_error("--target needs a GPU target, one of " +
                                 tilec::knownTargets());
    }
    else if (arg == "--emit")
      emit = value();
    else if (arg == "-o")
      outDir = value();
    else if (arg == "--time")
      time = true;
    else if (arg == "--debug")
      debug = true;
    else if (arg == "--deterministic")
      deterministic = true;
    else if (arg == "--no-line-info")
      ::setenv("TILEC_DISABLE_LINE_INFO", "1", 1); // read by the first compile
    else if (!arg.empty() && arg[0] == '-')
      throw std::runtime_error("unknown option '" + arg + "'");
    else if (file.empty())
      file = arg;
    else
      throw std::runtime_error("more than one input file");
  }
  if (file.empty())
    throw std::runtime_error("no input file");
  if (kernel.empty())
    throw std::runtime_error("no kernel named (-k KERNEL)");
  if (!haveSignature)
    throw std::runtime_error("no signature given (-s SIGNATURE)");
  static const char *stages[] = {"tile", "tilegpu", "llvm", "ptx", "summary", "all"};
  if (std::find(std::begin(stages), std::end(stages), emit) == std::end(stages))
    throw std::runtime_error("unknown stage '" + emit + "' for --emit");

  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "tilec: error: cannot read '" << file << "'\n";
    return 1;
  }
  tilec::CompiledKernel compiled;
  double ms = 0;
  try {
    auto start = std::chrono::steady_clock::now();
    tilec::Library library = tilec::Library::fromFile(file);
    compiled = library.kernel(kernel).compile(signature, constexprs, numWarps,
                                              target, numStages, maxRegisters, debug,
                                              deterministic);
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
             .count();
  } catch (const tilec::Error &e) {
    std::string text = e.what();
    std::cerr << text << (text.empty() || text.back() != '\n' ? "\n" : "");
    return 1;
  }
  if (time && compiled.fromDiskCache())
    std::cerr << "tilec: read '" << kernel << "' from the disk cache in " << ms
              << " ms (key " << compiled.cacheKey() << ")\n";
  else if (time)
    std::cerr << "tilec: compiled '" << kernel << "' in " << ms
              << " ms (source to PTX " << compiled.compileMilliseconds()
              << " ms)\n";

  std::string summary = tilec::summarizePTX(compiled.ptx()) + "shared bytes:      " +
                        std::to_string(compiled.sharedBytes()) +
                        " per block (tilegpu-allocate-shared)\n";
  // What a launcher must pass after the arguments (CompiledKernel::tensorMaps).
  std::vector<std::string> tensorMaps = compiled.tensorMaps();
  for (size_t i = 0; i < tensorMaps.size(); ++i)
    summary += "tensor map " + std::to_string(i) + ":      " + tensorMaps[i] + "\n";
  struct Stage {
    const char *name, *suffix;
    std::string text;
  } all[] = {{"tile", ".tile.mlir", compiled.tile()},
             {"tilegpu", ".tilegpu.mlir", compiled.tilegpu()},
             {"llvm", ".ll", compiled.llir()},
             {"ptx", ".ptx", compiled.ptx()},
             {"summary", ".summary.txt", summary}};
  if (!outDir.empty())
    ::mkdir(outDir.c_str(), 0755);
  for (const Stage &stage : all) {
    if (emit != "all" && emit != stage.name)
      continue;
    if (!outDir.empty()) {
      std::string path = outDir + "/" + kernel + stage.suffix;
      if (!writeFile(path, stage.text)) {
        std::cerr << "tilec: error: cannot write '" << path << "'\n";
        return 1;
      }
      continue;
    }
    if (emit == "all")
      std::cout << "// ----- " << stage.name << " -----\n";
    std::cout << stage.text;
  }
  return 0;
}
std::string humanBytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  return buf;
}

/// tilec cache list|size|clear|show KEY (docs/cache.md).
int cacheCommand(int argc, char **argv) {
  std::string dir = tilec::cache::directory();
  if (argc < 1)
    return usageError("tilec cache needs list, size, clear or show KEY");
  std::string what = argv[0];
  if (dir.empty()) {
    std::cerr << "tilec: the disk cache is off (TILEC_CACHE=0)\n";
    return what == "list" || what == "size" ? 0 : 1;
  }
  if (what == "list" && argc == 1) {
    auto entries = tilec::cache::list();
    std::cout << "# " << entries.size() << " entries in " << dir << "\n";
    for (const auto &e : entries) {
      char when[32];
      std::time_t t = std::time_t(e.modified);
      std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
      std::cout << e.key << "  " << when << "  " << humanBytes(e.bytes) << "  "
                << e.kernel << " [" << e.signature << "]"
                << (e.cubinArch.empty() ? "" : " +cubin " + e.cubinArch) << "\n";
    }
    return 0;
  }
  if (what == "size" && argc == 1) {
    std::cout << humanBytes(tilec::cache::sizeBytes()) << " in "
              << tilec::cache::list().size() << " entries (" << dir << ")\n";
    return 0;
  }
  if (what == "clear" && argc == 1) {
    size_t n = tilec::cache::clear();
    std::cout << "removed " << n << " files from " << dir << "\n";
    return 0;
  }
  if (what == "show" && argc == 2) {
    std::cout << tilec::cache::show(argv[1]);
    return 0;
  }
  return usageError("tilec cache needs list, size, clear or show KEY");
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << usage();
    return 2;
  }
  std::string command = argv[1];
  if (command == "--version") {
    std::cout << "tilec 0.1.0 (LLVM/MLIR 22)\n";
    return 0;
  }
  if (command == "--help" || command == "-h") {
    std::cout << usage();
    return 0;
  }
  try {
    if (command == "cache")
      return cacheCommand(argc - 2, argv + 2);
    if (command == "tune")
      return tuneCommand(argc - 2, argv + 2);
    if (command == "aot")
      return aotCommand(argc - 2, argv + 2);
    if (command != "compile")
      return usageError("unknown command '" + command + "'");
    return compileCommand(argc - 2, argv + 2);
  } catch (const tilec::Error &e) {
    std::cerr << "tilec: error: " << e.what() << "\n";
    return 1;
  } catch (const std::runtime_error &e) {
    return usageError(e.what());
  }
}
