// What a fuzz input means to the fuzz targets of tests/fuzz: kernel source
// text, which kernel of it to compile and how, and (for the interpreter)
// the bytes of its buffers.
//
// An input is source text, then optionally a NUL byte and raw bytes that
// fill the interpreter's buffers. Comment lines of the source that start
// with `# fuzz:` say what to do with it, as space-separated KEY=VALUE
// words (the seed corpus has one such line per file; the fuzzer mutates it
// like the rest):
//
//   kernel=NAME      the function to compile (default: the last one)
//   sig=SIGNATURE    as `tilec compile -s` (default: guessed from the
//                    parameter names: sizes and strides i32, eps fp32,
//                    others *fp32)
//   warps=N stages=N target=sm_XX   the compile options
//   debug=1          a debug compile (assertions, bounds checks)
//   grid=X[,Y[,Z]]   programs the interpreter runs (each at most 4)
//   elems=N          elements of each interpreter buffer (at most 1024)
//   NAME=VALUE       a constexpr of the kernel (as `tilec compile -D`), or
//                    the value of a scalar parameter for the interpreter
//
// Constexprs without a value or a default get 16.
#pragma once

#include "runtime/JIT/Compiler.h"
#include "runtime/Interpreter.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tilec::fuzz {

struct FuzzCase {
  std::string source; ///< the text before the first NUL
  std::string data;   ///< the bytes after it
  jit::ParsedSource parsed;
  std::shared_ptr<const dsl::JitFunction> kernel;
  std::string signature;
  std::map<std::string, dsl::Value> constexprs;
  /// Values of runtime (non-constexpr) parameters, as text.
  std::map<std::string, std::string> runtimeValues;
  jit::CompileOptions options;
  interp::Grid grid;
  unsigned elements = 64;
};

/// The case an input describes; nullopt when the source does not parse or
/// defines no function (the parser has run: nothing more to fuzz).
std::optional<FuzzCase> makeCase(const uint8_t *data, size_t size);

/// Runs the front end for `c` in a scratch context and says whether the
/// tile IR is small enough to go further in a fuzz run: every tensor of at
/// most `maxElements` elements and at most `maxOps` ops. Large tiles are
/// legal but compile (or interpret) slowly, which a fuzzer would report as
/// hangs; the seed corpus keeps its tiles small. False also when the front
/// end reports an error (it has then run in full).
bool smallEnough(const FuzzCase &c, int64_t maxElements, int64_t maxOps);

/// Aborts, printing the input's source and the message, when an error
/// message shows a compiler bug rather than a mistake in the source: an op
/// the verifier rejects, a pass that finds IR it does not expect, an
/// internal error, a failure without a message.
void checkErrors(const FuzzCase &c, const std::vector<std::string> &errors);

/// With TILEC_FUZZ_VERBOSE=1 in the environment, prints one line per input
/// saying what became of it (to see what a corpus exercises).
void report(const char *outcome, const std::string &detail = "");

} // namespace tilec::fuzz
