// tilec: the command-line compiler.
//
//   tilec compile FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...
//         [--num-warps N] [--target sm_90a] [--emit STAGE] [-o DIR] [--time]
//
// STAGE is tile, tilegpu, llvm, ptx, summary or all. Errors are printed as
// `file:line:col: error: ...` with the source line, and exit with code 1.
#include "runtime/JIT/Compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace {
const char *kUsage =
    "usage: tilec compile FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...\n"
    "                     [--num-warps N] [--target sm_80|sm_86|sm_89|sm_90|sm_90a]\n"
    "                     [--emit tile|tilegpu|llvm|ptx|summary|all] [-o DIR] [--time]\n"
    "       tilec --version\n"
    "\n"
    "SIGNATURE lists the non-constexpr parameters in Triton's notation, e.g.\n"
    "'*fp32:16,*fp32:16,*fp32:16,i32:16' (':16' = 16-byte aligned pointer or\n"
    "integer divisible by 16, ':1' = integer equal to 1).\n";

int usageError(const std::string &message) {
  std::cerr << "tilec: error: " << message << "\n\n" << kUsage;
  return 2;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

int compileCommand(int argc, char **argv) {
  std::string file, kernel, signature, emit = "ptx", outDir;
  bool haveSignature = false, time = false;
  std::map<std::string, tilec::dsl::Value> constexprs;
  tilec::jit::CompileOptions options;
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
      std::string def = arg == "-D" ? value() : arg.substr(2);
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::runtime_error("-D needs NAME=VALUE, got '" + def + "'");
      constexprs[def.substr(0, eq)] =
          tilec::jit::parseConstexprValue(def.substr(eq + 1));
    } else if (arg == "--num-warps") {
      std::string v = value();
      char *end;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n <= 0 || n > 1024)
        throw std::runtime_error("--num-warps needs a number, got '" + v + "'");
      options.numWarps = n;
    } else if (arg == "--target")
      options.target = value();
    else if (arg == "--emit")
      emit = value();
    else if (arg == "-o")
      outDir = value();
    else if (arg == "--time")
      time = true;
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
  std::stringstream text;
  text << in.rdbuf();

  auto start = std::chrono::steady_clock::now();
  tilec::jit::ParsedSource source = tilec::jit::parseSource(file, text.str());
  if (!source.ok()) {
    for (const std::string &e : source.errors)
      std::cerr << e;
    return 1;
  }
  auto fn = source.function(kernel);
  if (!fn) {
    std::cerr << file << ": error: no function named '" << kernel << "'\n";
    return 1;
  }
  tilec::jit::CompileResult result =
      tilec::jit::compile(*fn, signature, constexprs, options);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!result.ok()) {
    for (const std::string &e : result.errors) {
      std::cerr << e;
      if (!e.empty() && e.back() != '\n')
        std::cerr << "\n";
    }
    return 1;
  }
  const tilec::CompiledStages &s = result.kernel->stages;
  if (time)
    std::cerr << "tilec: compiled '" << kernel << "' in " << ms
              << " ms (front end " << result.kernel->times.frontEnd
              << " ms)\n";

  struct Stage {
    const char *name, *suffix;
    std::string text;
  } all[] = {{"tile", ".tile.mlir", s.tile},
             {"tilegpu", ".tilegpu.mlir", s.tilegpu},
             {"llvm", ".ll", s.llir},
             {"ptx", ".ptx", s.ptx},
             {"summary", ".summary.txt", tilec::jit::summarizePTX(s.ptx)}};
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
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string command = argv[1];
  if (command == "--version") {
    std::cout << "tilec 0.1.0 (LLVM/MLIR 22)\n";
    return 0;
  }
  if (command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (command != "compile")
    return usageError("unknown command '" + command + "'");
  try {
    return compileCommand(argc - 2, argv + 2);
  } catch (const std::runtime_error &e) {
    return usageError(e.what());
  }
}
