// A decoder layer's decode step from C++ (issue 15): random bf16 weights
// and caches, one step checked against a float64 reference of the layer,
// then (on the GPU) the step captured into a CUDA graph and replayed for
// new positions, bitwise equal to eager steps, and timed.
//
//   tilec-example-decode [--interpret] [--batch B] [--context L] [--replays N] [--pdl]
//                        [--pdl-exit] [--l2-ahead N]
//
// --interpret runs a small layer (hidden 96, 6/2 heads of 32, intermediate
// 100) on tilec's CPU interpreter: no GPU needed (CI runs it). Otherwise
// Qwen2.5-1.5B's shapes on the GPU, batch 1 with a context of 1024 tokens
// unless told. --pdl launches every kernel with LaunchOptions::launchPdl
// (programmatic dependent launch: each kernel's programs are placed while
// the one before it finishes; sm_90+), each kernel releasing the next
// right after its wait; --pdl-exit launches them so too, but each kernel
// releases the next only as its programs exit (decode.py's
// RELEASE_EARLY off). --l2-ahead N has each GEMV program
// ask the L2 for the first N columns of its weight rows before it waits for
// the kernel before (decode.py's L2_AHEAD). Exit status 0 when every check
// passed.
#include "decode_layer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

using decode::Array;
using decode::Config;

namespace {

/// Normal-ish values (the sum of four uniforms, scaled to unit variance)
/// from a fixed seed, rounded to bf16: the bits and their exact values.
struct Bf16Data {
  std::vector<uint16_t> bits;
  std::vector<double> value;
};

Bf16Data random(size_t n, double scale, double offset, uint64_t seed) {
  Bf16Data d{std::vector<uint16_t>(n), std::vector<double>(n)};
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto uniform = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return double(s >> 11) / double(1ull << 53) - 0.5;
  };
  for (size_t i = 0; i < n; ++i) {
    double v = (uniform() + uniform() + uniform() + uniform()) * std::sqrt(3.0);
    d.bits[i] = decode::toBF16(float(offset + scale * v));
    d.value[i] = decode::fromBF16(d.bits[i]);
  }
  return d;
}

Array upload(const Bf16Data &d, tilec::Backend where) {
  Array a(d.bits.size(), tilec::ScalarType::BF16, where);
  a.upload(d.bits.data());
  return a;
}

struct HostWeights {
  Bf16Data inputNorm, qkv, qkvBias, o, postNorm, gateUp, down;
};

HostWeights randomWeights(const Config &c) {
  auto linear = [](int out, int in, uint64_t seed) {
    return random(size_t(out) * in, 1.0 / std::sqrt(double(in)), 0.0, seed);
  };
  return {random(c.hidden, 0.1, 1.0, 1),
          linear(c.qkvRows(), c.hidden, 2),
          random(c.qkvRows(), 0.1, 0.0, 3),
          linear(c.hidden, c.qSize(), 4),
          random(c.hidden, 0.1, 1.0, 5),
          linear(2 * c.intermediate, c.hidden, 6),
          linear(c.hidden, c.intermediate, 7)};
}

// -- the float64 reference ---------------------------------------------------

std::vector<double> rmsNorm(const double *x, const std::vector<double> &gamma, int n,
                            double eps) {
  double ss = 0;
  for (int i = 0; i < n; ++i)
    ss += x[i] * x[i];
  double scale = 1.0 / std::sqrt(ss / n + eps);
  std::vector<double> y(n);
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * scale * gamma[i];
  return y;
}

/// y[r] = sum_k W[r, k] x[k] for rows [first, first + count) of W [*, n].
std::vector<double> matvec(const std::vector<double> &w, const double *x, int first,
                           int count, int n) {
  std::vector<double> y(count);
  for (int r = 0; r < count; ++r) {
    const double *row = &w[size_t(first + r) * n];
    double acc = 0;
    for (int k = 0; k < n; ++k)
      acc += row[k] * x[k];
    y[r] = acc;
  }
  return y;
}

void rope(double *v, int d, int pos, double theta) {
  for (int i = 0; i < d / 2; ++i) {
    double angle = pos * std::pow(theta, -2.0 * i / d);
    double lo = v[i], hi = v[i + d / 2];
    v[i] = lo * std::cos(angle) - hi * std::sin(angle);
    v[i + d / 2] = hi * std::cos(angle) + lo * std::sin(angle);
  }
}

/// The layer for every row; writes the new k, v into the caches.
std::vector<double> referenceLayer(const Config &c, const HostWeights &w,
                                   const std::vector<double> &x, const std::vector<int> &pos,
                                   std::vector<double> &kc, std::vector<double> &vc,
                                   int maxLen) {
  const int batch = int(pos.size()), d = c.headDim;
  std::vector<double> out(size_t(batch) * c.hidden);
  for (int b = 0; b < batch; ++b) {
    const double *xb = &x[size_t(b) * c.hidden];
    std::vector<double> xn = rmsNorm(xb, w.inputNorm.value, c.hidden, c.eps);
    std::vector<double> y = matvec(w.qkv.value, xn.data(), 0, c.qkvRows(), c.hidden);
    if (c.qkvBias)
      for (int r = 0; r < c.qkvRows(); ++r)
        y[r] += w.qkvBias.value[r];
    for (int h = 0; h < c.qHeads + c.kvHeads; ++h)
      rope(&y[size_t(h) * d], d, pos[b], c.ropeTheta);
    for (int h = 0; h < c.kvHeads; ++h)
      for (int i = 0; i < d; ++i) {
        size_t at = ((size_t(b) * c.kvHeads + h) * maxLen + pos[b]) * d + i;
        kc[at] = y[size_t(c.qHeads + h) * d + i];
        vc[at] = y[size_t(c.qHeads + c.kvHeads + h) * d + i];
      }
    std::vector<double> attn(c.qSize());
    for (int h = 0; h < c.qHeads; ++h) {
      int kv = h / c.group();
      const double *q = &y[size_t(h) * d];
      std::vector<double> s(pos[b] + 1);
      double m = -INFINITY;
      for (int t = 0; t <= pos[b]; ++t) {
        const double *k = &kc[((size_t(b) * c.kvHeads + kv) * maxLen + t) * d];
        double dot = 0;
        for (int i = 0; i < d; ++i)
          dot += q[i] * k[i];
        s[t] = dot / std::sqrt(double(d));
        m = std::max(m, s[t]);
      }
      double total = 0;
      for (double &e : s)
        total += (e = std::exp(e - m));
      for (int t = 0; t <= pos[b]; ++t) {
        const double *v = &vc[((size_t(b) * c.kvHeads + kv) * maxLen + t) * d];
        for (int i = 0; i < d; ++i)
          attn[size_t(h) * d + i] += s[t] / total * v[i];
      }
    }
    std::vector<double> mid = matvec(w.o.value, attn.data(), 0, c.hidden, c.qSize());
    for (int i = 0; i < c.hidden; ++i)
      mid[i] += xb[i];
    std::vector<double> mn = rmsNorm(mid.data(), w.postNorm.value, c.hidden, c.eps);
    std::vector<double> g = matvec(w.gateUp.value, mn.data(), 0, c.intermediate, c.hidden);
    std::vector<double> u =
        matvec(w.gateUp.value, mn.data(), c.intermediate, c.intermediate, c.hidden);
    std::vector<double> h(c.intermediate);
    for (int i = 0; i < c.intermediate; ++i)
      h[i] = g[i] / (1.0 + std::exp(-g[i])) * u[i];
    std::vector<double> down = matvec(w.down.value, h.data(), 0, c.hidden, c.intermediate);
    for (int i = 0; i < c.hidden; ++i)
      out[size_t(b) * c.hidden + i] = down[i] + mid[i];
  }
  return out;
}

/// The decode tests' tolerance (tests/python/decode_reference.py): the
/// output and four intermediates are rounded to bf16 on the way.
bool closeToReference(const std::vector<uint16_t> &got, const std::vector<double> &want) {
  double mean = 0;
  for (double v : want)
    mean += std::fabs(v);
  mean /= double(want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double bound = 4 * std::ldexp(1.0, -8) * (std::fabs(want[i]) + mean);
    worst = std::max(worst, std::fabs(decode::fromBF16(got[i]) - want[i]) / bound);
  }
  std::printf("  largest error: %.2f of the tolerance\n", worst);
  return worst <= 1.0;
}

int run(bool interpret, int batch, int maxLen, int replays, bool pdl, bool releaseEarly,
        int l2Ahead) {
  const tilec::Backend where = interpret ? tilec::Backend::Interpreter : tilec::Backend::GPU;
  Config c;
  if (interpret)
    c = Config{96, 6, 2, 32, 100, 1e-6, 1e4, true};
  const char *dir = std::getenv("TILEC_KERNELS_DIR");
  tilec::Library kernels =
      tilec::Library::fromFile(std::string(dir ? dir : TILEC_KERNELS_DIR) + "/decode.py");

  HostWeights hw = randomWeights(c);
  decode::Weights w{upload(hw.inputNorm, where), upload(hw.qkv, where),
                    upload(hw.qkvBias, where),   upload(hw.o, where),
                    upload(hw.postNorm, where),  upload(hw.gateUp, where),
                    upload(hw.down, where)};
  size_t cacheCount = size_t(batch) * c.kvHeads * maxLen * c.headDim;
  Bf16Data x = random(size_t(batch) * c.hidden, 1.0, 0.0, 8);
  Bf16Data k = random(cacheCount, 1.0, 0.0, 9), v = random(cacheCount, 1.0, 0.0, 10);
  std::vector<int> pos(batch);
  for (int b = 0; b < batch; ++b) // the last row sees the whole cache
    pos[b] = maxLen - 1 - (batch - 1 - b) * (maxLen / (2 * batch));

  Array dx = upload(x, where), dk = upload(k, where), dv = upload(v, where);
  Array dpos(batch, tilec::ScalarType::I32, where), dout(dx.bytes() / 2,
                                                          tilec::ScalarType::BF16, where);
  dpos.upload(pos.data());
  tilec::LaunchOptions options;
  options.backend = where;
  options.launchPdl = pdl;
  tilec::Stream stream;
  if (!interpret) {
    stream = tilec::Stream::create();
    options.stream = stream.handle();
  }
  decode::DecoderLayer layer(c, kernels, w, batch, maxLen, dx, dpos, dk, dv, dout, options,
                             128, l2Ahead, releaseEarly);

  std::printf("decoder layer: hidden %d, %d/%d heads of %d, intermediate %d; batch %d, "
              "cache %d tokens, on the %s%s%s\n",
              c.hidden, c.qHeads, c.kvHeads, c.headDim, c.intermediate, batch, maxLen,
              interpret ? "interpreter" : "GPU",
              !pdl || interpret ? ""
              : releaseEarly    ? " (programmatic dependent launches)"
                                : " (programmatic dependent launches, released at exit)",
              l2Ahead > 0 ? ", weights asked into the L2 before each wait" : "");
  layer.step();
  stream.synchronize();
  std::vector<uint16_t> got(size_t(batch) * c.hidden);
  dout.download(got.data());
  std::vector<double> kc = k.value, vc = v.value;
  bool ok = closeToReference(got, referenceLayer(c, hw, x.value, pos, kc, vc, maxLen));
  std::printf("%s: one step against float64\n", ok ? "ok" : "FAILED");
  if (interpret)
    return ok ? 0 : 1;

  // The same step captured in a graph (on the caches as they are now),
  // and an eager twin on copies of them: each replay at the next
  // positions must match the eager step bit for bit. (The twin releases
  // each kernel's successor after its wait whatever --pdl-exit says: the
  // results do not depend on when a kernel is released.)
  std::vector<uint16_t> kNow(cacheCount), vNow(cacheCount);
  dk.download(kNow.data());
  dv.download(vNow.data());
  Array ek(cacheCount, tilec::ScalarType::BF16, where), ev(cacheCount, tilec::ScalarType::BF16,
                                                           where);
  ek.upload(kNow.data());
  ev.upload(vNow.data());
  Array eout(dx.bytes() / 2, tilec::ScalarType::BF16, where);
  decode::DecoderLayer eager(c, kernels, w, batch, maxLen, dx, dpos, ek, ev, eout, options);
  tilec::Graph graph = tilec::Graph::capture(stream, [&] { layer.step(); });
  std::printf("captured %zu launches in a graph\n", graph.numNodes());
  bool same = true;
  std::vector<uint16_t> a(got.size()), b(got.size());
  for (int replay = 0; replay < 3; ++replay) {
    for (int &p : pos)
      p = (p + 1) % maxLen;
    dpos.upload(pos.data());
    graph.launch(stream);
    eager.step();
    stream.synchronize();
    dout.download(a.data());
    eout.download(b.data());
    same &= std::memcmp(a.data(), b.data(), a.size() * 2) == 0;
  }
  std::printf("%s: graph replays bitwise equal to eager steps\n", same ? "ok" : "FAILED");

  // Time: replays back to back, and eager steps back to back.
  auto perStep = [&](auto &&launchOnce) {
    for (int i = 0; i < 10; ++i)
      launchOnce();
    stream.synchronize();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < replays; ++i)
      launchOnce();
    stream.synchronize();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
               .count() /
           replays;
  };
  double graphUs = perStep([&] { graph.launch(stream); });
  double eagerUs = perStep([&] { layer.step(); });
  std::printf("per step (%d back to back, L2 warm): graph %.1f us, eager %.1f us\n", replays,
              graphUs, eagerUs);
  return ok && same ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  bool interpret = false, pdl = false, releaseEarly = true;
  int batch = 0, context = 0, replays = 200, l2Ahead = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto number = [&]() {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a number\n", a.c_str());
        std::exit(2);
      }
      return std::atoi(argv[++i]);
    };
    if (a == "--interpret")
      interpret = true;
    else if (a == "--batch")
      batch = number();
    else if (a == "--context")
      context = number();
    else if (a == "--replays")
      replays = number();
    else if (a == "--pdl")
      pdl = true;
    else if (a == "--pdl-exit")
      pdl = true, releaseEarly = false;
    else if (a == "--l2-ahead")
      l2Ahead = number();
    else {
      std::fprintf(stderr,
                   "usage: tilec-example-decode [--interpret] [--batch B] [--context L] "
                   "[--replays N] [--pdl] [--pdl-exit] [--l2-ahead N]\n");
      return 2;
    }
  }
  if (batch <= 0)
    batch = interpret ? 3 : 1;
  if (context <= 0)
    context = interpret ? 150 : 1024;
  if (replays <= 0)
    replays = 1;
  try {
    return run(interpret, batch, context, replays, pdl, releaseEarly, l2Ahead);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
