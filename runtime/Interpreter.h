// The CPU interpreter of tile-dialect IR: runs a kernel over host memory,
// one program instance at a time, with every load and store bounds-checked.
//
// It executes the *inlined, simplified* tile IR, the output of
// buildTileOptimizationPipeline (one public func.func per kernel, no
// func.call). jit::interpret (runtime/JIT/Interpret.h) goes there from
// kernel source; the tool tilec-interpret does it from the command line.
//
// Semantics, in short (docs/pipeline.md, "The interpreter", has the rest):
//   - integers are signless, two's complement, wrapping at their width; each
//     op says how to read them (divsi/divui, cmpi slt/ult, extsi/extui);
//   - f32 computes in float, f64 in double, f16/bf16 in float rounded to the
//     format (nearest-even) after every op;
//   - a pointer is (argument index, byte offset): every unmasked lane of a
//     load or store is checked against its argument's buffer; a masked-off
//     lane is never touched;
//   - tile.reduce combines pairwise, in a fixed tree order along the axis;
//   - programs run in order x fastest, then y, then z; races between
//     programs are not detected.
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::interp {

/// Number of program instances along each axis (tl.num_programs).
struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

/// Host memory a pointer argument points at: its first byte and its size.
/// The kernel may read and write exactly bytes [0, bytes).
struct HostBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  bool readOnly = false; ///< a store into it is an error, like one out of bounds
};

/// One runtime (non-constexpr) argument of a kernel, in signature order.
/// The element type of a pointer comes from the kernel's signature; an
/// integer is truncated to its parameter's width (it must fit, read signed
/// or unsigned); a float is rounded to its parameter's format. An Int may
/// be passed for a float parameter.
struct Arg {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  HostBuffer buffer;       ///< Buffer
  int64_t intValue = 0;    ///< Int
  double floatValue = 0;   ///< Float
  std::string name;        ///< for messages; "argument N" when empty

  static Arg ofBuffer(void *data, size_t bytes, std::string name = {});
  template <typename T>
  static Arg ofBuffer(std::vector<T> &v, std::string name = {}) {
    return ofBuffer(v.data(), v.size() * sizeof(T), std::move(name));
  }
  static Arg ofInt(int64_t value, std::string name = {});
  static Arg ofFloat(double value, std::string name = {});
};

/// What a run did.
struct RunStats {
  uint64_t programs = 0;
  uint64_t operations = 0;   ///< ops executed (combiner ops counted once per step)
  uint64_t bytesLoaded = 0;  ///< by unmasked lanes
  uint64_t bytesStored = 0;
};

/// An error of a run: an out-of-bounds access, an unsupported op, an
/// argument that does not match the kernel. what() is the whole message:
///   `FILE:LINE:COL: error: MESSAGE in program (X, Y, Z) of kernel 'K'`
/// or, for an error before any program runs (the arguments),
///   `FILE:LINE:COL: error: MESSAGE (kernel 'K')`.
class InterpreterError : public std::runtime_error {
public:
  InterpreterError(const std::string &location, const std::string &message,
                   const std::string &kernel, bool inProgram,
                   std::array<uint32_t, 3> program);
  /// `file:line:col` of the op (or of the kernel).
  const std::string &location() const { return location_; }
  /// The message alone, without location, program or kernel.
  const std::string &message() const { return message_; }
  const std::string &kernel() const { return kernel_; }
  bool inProgram() const { return inProgram_; }
  std::array<uint32_t, 3> program() const { return program_; }

private:
  std::string location_, message_, kernel_;
  bool inProgram_;
  std::array<uint32_t, 3> program_;
};

/// Bounds on a run, for kernels that are not trusted to end (the fuzzer of
/// tests/fuzz): 0 is no bound.
struct RunLimits {
  /// Ops executed, counted as RunStats::operations; past it the run stops
  /// with an InterpreterError at the op.
  uint64_t maxOperations = 0;
};

/// Where tile.print's lines go (one call per line, without its newline);
/// stdout when empty.
using PrintSink = std::function<void(const std::string &)>;

/// Run the public func.func `kernel` of `tileModule` for every program of
/// `grid`, reading and writing the argument buffers. Throws
/// InterpreterError; the buffers then hold what the programs before the
/// failing access wrote (a failing store writes none of its lanes). A
/// failing tile.assert (a kernel compiled with debug) is an InterpreterError
/// "assertion failed, idx (I): MESSAGE: DETAILS"; tile.print writes the
/// lines the GPU would, in element order.
RunStats run(mlir::ModuleOp tileModule, const std::string &kernel, Grid grid,
             const std::vector<Arg> &args, const RunLimits &limits = {},
             const PrintSink &print = {});

/// IEEE binary16 and bfloat16, rounded to nearest even (overflow to
/// infinity, subnormals kept, NaN stays NaN with its leading payload bits).
uint16_t toHalfBits(double value);
double fromHalfBits(uint16_t bits);
uint16_t toBFloat16Bits(double value);
double fromBFloat16Bits(uint16_t bits);
/// The fp8 formats. A value the format holds encodes exactly (e5m2's
/// infinities, NaNs with their sign and payload: a copied byte stays the
/// same); any other is converted as the GPU's cvt.rn.satfinite converts:
/// to nearest even, values past the largest finite one (448 for e4m3,
/// 57344 for e5m2; infinity in e4m3) clamped to it.
uint8_t toFP8E4M3Bits(double value);
double fromFP8E4M3Bits(uint8_t bits);
uint8_t toFP8E5M2Bits(double value);
double fromFP8E5M2Bits(uint8_t bits);

} // namespace tilec::interp
