#include "decode_layer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace decode {

namespace {
size_t elementBytes(tilec::ScalarType type) {
  return type == tilec::ScalarType::BF16 ? 2 : 4;
}
// The shipped configs of kernels/decode_step.py: its INVARIANT_TILES (16
// batch rows per program, tensor cores; the same at every batch size, so
// each row's result is too) and the attention's blocks.
constexpr int kBlockB = 16;
/// Each GEMV's tile, loop stages (MMA_TILES' qkv_stages, gate_up_stages
/// and stages; 0: a plain loop), accumulator chains (*_chains) and K
/// slices (*_slices).
constexpr int kQkvPairs = 16, kQkvBlockK = 64, kQkvStages = 3, kQkvChains = 1,
              kQkvSlices = 1;
constexpr int kGateUpPairs = 32, kGateUpBlockK = 64, kGateUpStages = 3, kGateUpChains = 1,
              kGateUpSlices = 1;
constexpr int kGemvRows = 16, kGemvBlockK = 512, kGemvStages = 3, kGemvChains = 2,
              kGemvSlices = 4;
/// Programs sharing each QKV and projection tile's K (MMA_TILES'
/// qkv_ksplit and ksplit; 1: not shared).
constexpr int kQkvKsplit = 4, kGemvKsplit = 1;
constexpr int kBlockL = 64, kBlockS = 64;
/// attention_split's loop stages, as kernels/decode_step.py's ATTENTION_STAGES.
constexpr int kAttentionStages = 2;

int cdiv(int a, int b) { return (a + b - 1) / b; }

/// KSPLIT and K_CHUNK for a K of nIn, as decode_step.k_shares: at most
/// `ksplit` shares of whole blockK spans (BLOCK_K times CHAINS), none
/// empty.
std::pair<int, int> kShares(int nIn, int ksplit, int blockK) {
  ksplit = std::max(1, std::min(ksplit, cdiv(nIn, blockK)));
  const int chunk = cdiv(cdiv(nIn, ksplit), blockK) * blockK;
  return {cdiv(nIn, chunk), chunk};
}

tilec::Constexprs withShares(tilec::Constexprs constexprs, std::pair<int, int> shares) {
  constexprs.insert_or_assign("KSPLIT", shares.first);
  constexprs.insert_or_assign("K_CHUNK", shares.first > 1 ? shares.second : 0);
  return constexprs;
}
} // namespace

uint16_t toBF16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if (std::isnan(value))
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

float fromBF16(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

Array::Array(size_t count, tilec::ScalarType type, tilec::Backend where)
    : type_(type), bytes_(count * elementBytes(type)) {
  if (where == tilec::Backend::GPU)
    device_ = tilec::Buffer::allocate(bytes_);
  else
    host_.assign(bytes_, 0);
}

tilec::Arg Array::arg() const {
  if (device_.data())
    return tilec::Arg(device_, type_);
  return tilec::Arg::host(host_.data(), host_.size(), type_);
}

void Array::upload(const void *data) {
  if (device_.data())
    device_.copyFromHost(data, bytes_);
  else
    std::memcpy(host_.data(), data, bytes_);
}

void Array::download(void *data) const {
  if (device_.data())
    device_.copyToHost(data, bytes_);
  else
    std::memcpy(data, host_.data(), bytes_);
}

DecoderLayer::DecoderLayer(const Config &c, const tilec::Library &kernels,
                           const Weights &w, int batch, int maxLen, const Array &x,
                           const Array &pos, const Array &kCache, const Array &vCache,
                           const Array &out, const tilec::LaunchOptions &options, int split,
                           int l2Ahead, bool releaseEarly)
    : options_(options) {
  using tilec::ScalarType;
  // The kernels' offsets are 32-bit.
  if (double(batch) * c.kvHeads * maxLen * c.headDim >= 2147483648.0)
    throw std::invalid_argument("the caches hold 2^31 elements or more: the kernels' "
                                "offsets are 32-bit");
  const tilec::Backend where = options.backend;
  const int d = c.headDim, splits = cdiv(maxLen, split);
  q_ = Array(size_t(batch) * c.qSize(), ScalarType::BF16, where);
  attn_ = Array(size_t(batch) * c.qSize(), ScalarType::BF16, where);
  mid_ = Array(size_t(batch) * c.hidden, ScalarType::BF16, where);
  h_ = Array(size_t(batch) * c.intermediate, ScalarType::BF16, where);
  oPart_ = Array(size_t(batch) * c.qHeads * splits * d, ScalarType::FP32, where);
  lsePart_ = Array(size_t(batch) * c.qHeads * splits, ScalarType::FP32, where);
  // One scratch serves the K-shared GEMVs (they run one after another, and
  // each leaves its counters at zero), sized as decode_step.scratch_size.
  const int batchBlocks = cdiv(batch, kBlockB);
  const auto qkvShares = kShares(c.hidden, kQkvKsplit, kQkvBlockK * kQkvChains);
  const auto oShares = kShares(c.qSize(), kGemvKsplit, kGemvBlockK * kGemvChains);
  const auto downShares = kShares(c.intermediate, kGemvKsplit, kGemvBlockK * kGemvChains);
  const int qkvTiles = c.qkvRows() / 2 / kQkvPairs, projTiles = cdiv(c.hidden, kGemvRows);
  const int projSplit = std::max(oShares.first, downShares.first);
  const size_t tiles = size_t(batchBlocks) * std::max(qkvShares.first > 1 ? qkvTiles : 0,
                                                      projSplit > 1 ? projTiles : 0);
  // QKV's shares also write their sums of x^2 (one more column).
  const size_t partials =
      size_t(batchBlocks) * kBlockB *
      std::max(qkvShares.first > 1 ? size_t(qkvTiles) * qkvShares.first * (2 * kQkvPairs + 1)
                                   : 0,
               projSplit > 1 ? size_t(projTiles) * projSplit * kGemvRows : 0);
  parts_ = Array(std::max<size_t>(partials, 1), ScalarType::FP32, where);
  counters_ = Array(std::max<size_t>(tiles, 1), ScalarType::I32, where);
  const std::vector<int32_t> zeros(std::max<size_t>(tiles, 1), 0);
  counters_.upload(zeros.data());
  options_.deterministic = true; // the kernels are batch-invariant: checked
  options_.numWarps = 4;

  const int cacheB = c.kvHeads * maxLen * d, cacheH = maxLen * d;
  const float eps = float(c.eps);
  auto kernel = [&](const char *name) { return kernels.kernel(name); };
  // RMSNorm + QKV + bias + RoPE + cache append.
  launches_.push_back(
      {kernel("rmsnorm_qkv_rope"),
       {batchBlocks, qkvTiles * qkvShares.first},
       {x.arg(), w.inputNorm.arg(), w.qkv.arg(), c.qkvBias ? w.qkvBias.arg() : w.qkv.arg(),
        pos.arg(), q_.arg(), kCache.arg(), vCache.arg(), batch, c.hidden, c.hidden,
        c.qSize(), cacheB, cacheH, d, eps, parts_.arg(), counters_.arg()},
       withShares({{"HQ", c.qHeads},
                   {"HKV", c.kvHeads},
                   {"D", d},
                   {"LOG2_THETA", std::log2(c.ropeTheta)},
                   {"HAS_BIAS", c.qkvBias},
                   {"PAIRS", kQkvPairs},
                   {"BLOCK_B", kBlockB},
                   {"BLOCK_K", kQkvBlockK},
                   {"STAGES", kQkvStages},
                   {"CHAINS", kQkvChains},
                   {"SLICES", kQkvSlices},
                   {"L2_AHEAD", l2Ahead}},
                  qkvShares)});
  // Attention: the splits, then their combination.
  launches_.push_back(
      {kernel("attention_split"),
       {splits, c.kvHeads, batch},
       {q_.arg(), kCache.arg(), vCache.arg(), pos.arg(), oPart_.arg(), lsePart_.arg(),
        c.qSize(), cacheB, cacheH, d, c.qHeads * splits * d, splits * d, d,
        c.qHeads * splits, splits, float(1.0 / std::sqrt(double(d)) * std::log2(std::exp(1.0)))},
       {{"GROUP", c.group()},
        {"GROUP_PAD", std::max(16, 1 << int(std::ceil(std::log2(double(c.group())))))},
        {"D", d},
        {"SPLIT", split},
        {"BLOCK_L", kBlockL},
        {"STAGES", split > kBlockL ? kAttentionStages : 0}}});
  launches_.push_back({kernel("attention_combine"),
                       {c.qHeads, batch},
                       {oPart_.arg(), lsePart_.arg(), pos.arg(), attn_.arg(),
                        c.qHeads * splits * d, splits * d, d, c.qHeads * splits, splits,
                        c.qSize()},
                       {{"D", d}, {"SPLIT", split}, {"BLOCK_S", kBlockS}}});
  // O projection + residual, gate/up + SwiGLU, down projection + residual.
  const tilec::Constexprs gemv{
      {"ROWS", kGemvRows},     {"BLOCK_B", kBlockB},       {"BLOCK_K", kGemvBlockK},
      {"STAGES", kGemvStages}, {"CHAINS", kGemvChains}, {"SLICES", kGemvSlices},
      {"L2_AHEAD", l2Ahead}};
  launches_.push_back({kernel("gemv_residual"),
                       {batchBlocks, projTiles * oShares.first},
                       {attn_.arg(), w.o.arg(), x.arg(), mid_.arg(), batch, c.qSize(),
                        c.hidden, c.qSize(), c.hidden, c.hidden, parts_.arg(),
                        counters_.arg()},
                       withShares(gemv, oShares)});
  launches_.push_back({kernel("gate_up_swiglu"),
                       {batchBlocks, cdiv(c.intermediate, kGateUpPairs)},
                       {mid_.arg(), w.postNorm.arg(), w.gateUp.arg(), h_.arg(), batch,
                        c.hidden, c.intermediate, c.hidden, c.intermediate, eps},
                       {{"NORM", true},
                        {"PAIRS", kGateUpPairs},
                        {"BLOCK_B", kBlockB},
                        {"BLOCK_K", kGateUpBlockK},
                        {"STAGES", kGateUpStages},
                        {"CHAINS", kGateUpChains},
                        {"SLICES", kGateUpSlices},
                        {"L2_AHEAD", l2Ahead}}});
  launches_.push_back({kernel("gemv_residual"),
                       {batchBlocks, projTiles * downShares.first},
                       {h_.arg(), w.down.arg(), mid_.arg(), out.arg(), batch, c.intermediate,
                        c.hidden, c.intermediate, c.hidden, c.hidden, parts_.arg(),
                        counters_.arg()},
                       withShares(gemv, downShares)});
  // Every kernel calls _after_previous_kernel(RELEASE_EARLY).
  for (Launch &l : launches_)
    l.constexprs.insert_or_assign("RELEASE_EARLY", releaseEarly);
}

void DecoderLayer::step() const {
  for (const Launch &l : launches_)
    l.kernel.launch(l.grid, l.args, l.constexprs, options_);
}

} // namespace decode
