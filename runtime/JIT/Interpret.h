// Running a kernel on the CPU: source + signature + constexprs → tile IR
// (the front end and buildTileOptimizationPipeline, exactly as
// jit::compile does) → the interpreter (runtime/Interpreter.h) over host
// buffers. No GPU and no PTX involved.
#pragma once

#include "runtime/Interpreter.h"

#include "dsl/Values.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tilec::jit {

struct InterpretOptions {
  /// Where tl.static_print goes; stderr when empty.
  std::function<void(const std::string &)> staticPrint;
  /// Keep the text of the tile IR that ran in InterpretResult::tile.
  bool keepTileIR = false;
  /// tl.device_assert (and `assert` on runtime values) checked, as
  /// CompileOptions::debug; the interpreter checks every access anyway.
  bool debug = false;
  /// The checks of a deterministic=True compile, as
  /// CompileOptions::deterministic.
  bool deterministic = false;
  /// Where tl.device_print's lines go; stdout when empty.
  std::function<void(const std::string &)> devicePrint;
  /// Bounds on the run (none by default).
  interp::RunLimits limits;
};

struct InterpretResult {
  /// Located errors, one string each: front-end errors as jit::compile
  /// renders them, interpreter errors as InterpreterError::what()
  /// (`file:line:col: error: ... in program (x, y, z) of kernel 'k'`).
  std::vector<std::string> errors;
  std::string tile;          ///< with keepTileIR
  interp::RunStats stats;
  double milliseconds = 0;   ///< the run alone, without the front end
  bool ok() const { return errors.empty(); }
};

/// Generate the kernel's tile IR for `signature` and `constexprs`, simplify
/// it, and run it for every program of `grid` on `args` (one per
/// non-constexpr parameter, in order). Arguments without a name get their
/// parameter's, for messages. A `:1` entry of the signature needs the
/// integer 1; `:16` needs a 16-byte aligned buffer or a multiple of 16.
InterpretResult interpret(const dsl::JitFunction &kernel,
                          const std::string &signature,
                          const std::map<std::string, dsl::Value> &constexprs,
                          interp::Grid grid, std::vector<interp::Arg> args,
                          const InterpretOptions &options = {});

/// The names of the kernel's non-constexpr parameters, in order.
std::vector<std::string> runtimeParameterNames(const dsl::JitFunction &kernel);

} // namespace tilec::jit
