// One decoder layer's decode step from C++, through tilec's API alone (no
// Python): the kernels of kernels/decode.py, launched with the configs
// kernels/decode_step.py ships. Every argument list, constexpr map and
// scratch buffer is made by the constructor, so step() allocates nothing
// and only launches: it can be captured into a tilec::Graph and replayed.
#pragma once

#include "tilec/tilec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace decode {

/// A decoder layer's shapes (defaults: Qwen2.5-1.5B).
struct Config {
  int hidden = 1536, qHeads = 12, kvHeads = 2, headDim = 128, intermediate = 8960;
  double eps = 1e-6, ropeTheta = 1e6;
  bool qkvBias = true;
  int qSize() const { return qHeads * headDim; }
  int qkvRows() const { return (qHeads + 2 * kvHeads) * headDim; }
  int group() const { return qHeads / kvHeads; }
};

/// An array of bf16, fp32 or i32 elements, in GPU memory or (for the
/// interpreter backend) in host memory.
class Array {
public:
  Array() = default;
  Array(size_t count, tilec::ScalarType type, tilec::Backend where);
  tilec::Arg arg() const;
  /// Copies of the whole array from and to host memory of its bytes.
  void upload(const void *data);
  void download(void *data) const;
  size_t bytes() const { return bytes_; }

private:
  tilec::ScalarType type_ = tilec::ScalarType::FP32;
  size_t bytes_ = 0;
  mutable std::vector<uint8_t> host_;
  tilec::Buffer device_;
};

struct Weights {
  Array inputNorm, qkv, qkvBias, o, postNorm, gateUp, down;
};

/// The layer for `batch` rows with caches of `maxLen` tokens, bound to its
/// inputs and outputs: x [batch, hidden] bf16, pos [batch] i32 (the new
/// token's position; context pos + 1), kCache/vCache [batch, kvHeads,
/// maxLen, headDim] bf16 (the new k, v are written at pos), out [batch,
/// hidden] bf16 (may be x). Caches of 2^31 elements or more are refused
/// (std::invalid_argument): the kernels' offsets are 32-bit. l2Ahead > 0:
/// each GEMV program asks the L2 for the first l2Ahead columns of its
/// weight rows before it waits for the kernel before (decode.py's
/// L2_AHEAD; it pays with options.launchPdl). releaseEarly (decode.py's
/// RELEASE_EARLY; it matters with options.launchPdl): each kernel lets
/// the next one launch right after its own wait; false: only as its
/// programs exit, so that waiting programs do not share the SMs with
/// running ones.
class DecoderLayer {
public:
  DecoderLayer(const Config &config, const tilec::Library &kernels, const Weights &weights,
               int batch, int maxLen, const Array &x, const Array &pos, const Array &kCache,
               const Array &vCache, const Array &out, const tilec::LaunchOptions &options,
               int split = 128, int l2Ahead = 0, bool releaseEarly = true);
  /// The six launches, on options.stream.
  void step() const;

private:
  struct Launch {
    tilec::Kernel kernel;
    tilec::Grid grid;
    std::vector<tilec::Arg> args;
    tilec::Constexprs constexprs;
  };
  tilec::LaunchOptions options_;
  Array q_, attn_, mid_, h_, oPart_, lsePart_;
  /// The K-shared GEMVs' partials (fp32) and counters (int32, zeroed).
  Array parts_, counters_;
  std::vector<Launch> launches_;
};

/// bf16 <-> float, round to nearest even (what the kernels store).
uint16_t toBF16(float value);
float fromBF16(uint16_t bits);

} // namespace decode
