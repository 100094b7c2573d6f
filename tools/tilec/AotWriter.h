// The C++ that `tilec aot` writes: a header declaring one typed launch
// function per kernel, and a source embedding the machine code of every
// target with the support that loads and launches it (AotSupport.inc).
// Nothing here compiles kernels: AotCommand.cpp does, then fills an AotUnit.
#pragma once

#include <tilec/tilec.h>

#include <string>
#include <vector>

namespace tilec::aotgen {

/// One kernel specialisation, becoming one launch function.
struct AotKernel {
  std::string function; ///< the C++ launch function's name
  std::string entry;    ///< the kernel's entry in the PTX
  std::string sourceFile, kernelName, signature;
  std::string constexprs; ///< "BLOCK=1024, DTYPE=fp16" for the comment
  unsigned numWarps = 4, numStages = 3, maxRegisters = 0;
  /// The runtime parameters, in order, and what each was compiled for.
  std::vector<std::string> parameterNames;
  std::vector<ArgumentType> types;
};

/// One kernel's machine code in one image.
struct AotCode {
  std::string bytes; ///< a cubin, or PTX text
  unsigned sharedBytes = 0;
  std::string note; ///< "40 registers, no spills" for the comment
};

/// The machine code for one target: a cubin per kernel, or PTX.
struct AotImage {
  std::string target; ///< "sm_90a"
  unsigned computeCapability = 90;
  bool archSpecific = false;
  bool ptx = false;
  std::vector<AotCode> kernels; ///< in the order of AotUnit::kernels
  /// "sm_90a cubin", "compute_80 PTX".
  std::string description() const;
};

struct AotUnit {
  std::string headerFileName; ///< what the source includes ("kernels.h")
  std::string nameSpace;      ///< "tilec_kernels", or nested "a::b"
  std::string commandLine;    ///< how the files were made, for the comment
  std::vector<AotKernel> kernels;
  std::vector<AotImage> images;
};

/// Why `name` cannot name a launch function or parameter in C++ (a
/// keyword, a name the generated code uses itself, not an identifier);
/// empty when it can.
std::string cppNameProblem(const std::string &name);

/// The parameters' C++ names: their own, with underscores appended where
/// that is a C++ keyword or a name the launch function uses itself (grid,
/// stream, tilec_*), until every name is distinct.
std::vector<std::string> cppParameterNames(const std::vector<std::string> &names);

std::string writeHeader(const AotUnit &unit);
std::string writeSource(const AotUnit &unit);

} // namespace tilec::aotgen
