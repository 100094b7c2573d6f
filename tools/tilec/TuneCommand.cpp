// tilec tune: an autotuning sweep of one kernel from the command line, on
// buffers it allocates and fills with random values (docs/autotune.md).
//
//   tilec tune FILE -k KERNEL --arg SPEC... --grid G[,G[,G]]
//              (--config 'NAME=V ... num_warps=W' | --sweep NAME=V1,V2,...)...
//              [-D NAME=VALUE]... [--bytes N] [--flops N] [--key TEXT]
//              [--warmup MS] [--rep MS] [--force] [--deterministic]
//              [--csv F] [--json F] [--svg F]
//
// SPEC, one per runtime parameter in order: `fp32[N]` (a device buffer of N
// elements; any element type), or `i32=V`, `i64=V`, `fp32=V`, `fp64=V`.
// A grid entry is an integer or `N/NAME`: ceil(N / the config's NAME).
#include "TuneCommand.h"

#include "CommandLine.h"

#include <tilec/tilec.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace {

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep))
    if (!item.empty())
      out.push_back(item);
  return out;
}

int64_t parseInt(const std::string &text, const std::string &what) {
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end)
    throw std::runtime_error(what + ": '" + text + "' is not an integer");
  return v;
}

double parseFloat(const std::string &text, const std::string &what) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end)
    throw std::runtime_error(what + ": '" + text + "' is not a number");
  return v;
}

/// Fills device memory of `count` elements of `type` with values in [-1, 1]
/// (floats) or [0, 8) (integers); returns the buffer.
tilec::Buffer randomBuffer(tilec::ScalarType type, size_t count, std::mt19937 &rng) {
  using S = tilec::ScalarType;
  size_t width = 0;
  switch (type) {
  case S::I1: case S::I8: case S::U8: case S::FP8E4M3: case S::FP8E5M2: width = 1; break;
  case S::I16: case S::U16: case S::FP16: case S::BF16: width = 2; break;
  case S::I32: case S::U32: case S::FP32: width = 4; break;
  case S::I64: case S::U64: case S::FP64: width = 8; break;
  }
  std::vector<uint8_t> host(count * width);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *p = host.data() + i * width;
    float f = real(rng);
    if (type == S::FP32) {
      std::memcpy(p, &f, 4);
    } else if (type == S::FP64) {
      double d = f;
      std::memcpy(p, &d, 8);
    } else if (type == S::BF16 || type == S::FP16) {
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t h;
      if (type == S::BF16) {
        h = uint16_t(bits >> 16);
      } else { // round toward zero into fp16 (values in [-1, 1], normal range)
        uint32_t sign = (bits >> 16) & 0x8000u;
        int exponent = int((bits >> 23) & 0xff) - 127 + 15;
        uint32_t mantissa = (bits >> 13) & 0x3ffu;
        h = exponent <= 0 ? uint16_t(sign) : uint16_t(sign | (uint32_t(exponent) << 10) | mantissa);
      }
      std::memcpy(p, &h, 2);
    } else if (type == S::FP8E4M3 || type == S::FP8E5M2) {
      // A random sign, exponent field 0..7 and mantissa: magnitudes below 2
      // in both formats (their biases are 7 and 15), never NaN or inf.
      *p = uint8_t((rng() & 0x3f) | ((rng() & 1) << 7));
    } else {
      uint64_t v = rng() % 8;
      std::memcpy(p, &v, width);
    }
  }
  tilec::Buffer b = tilec::Buffer::allocate(std::max<size_t>(host.size(), 1));
  b.copyFromHost(host.data(), host.size());
  return b;
}

/// "NAME=V NAME=V num_warps=W num_stages=S maxnreg=R" (spaces or commas
/// between).
tilec::Config parseConfig(const std::string &text, const tilec::Constexprs &fixed) {
  tilec::Config c;
  c.constexprs = fixed;
  std::string normalised = text;
  for (char &ch : normalised)
    if (ch == ',')
      ch = ' ';
  for (const std::string &item : split(normalised, ' ')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw std::runtime_error("--config: '" + item + "' is not NAME=VALUE");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "num_warps")
      c.numWarps = unsigned(parseInt(value, "num_warps"));
    else if (name == "num_stages")
      c.numStages = unsigned(parseInt(value, "num_stages"));
    else if (name == "maxnreg")
      c.maxRegisters = unsigned(parseInt(value, "maxnreg"));
    else
      c.constexprs.insert_or_assign(name, parseConstexprValue(value));
  }
  return c;
}

/// A --grid entry for config c; tilec::Grid refuses what is negative or
/// too large, Kernel::tune what is 0 or past the GPU's limits.
int64_t gridEntry(const std::string &text, const tilec::Config &c) {
  size_t slash = text.find('/');
  if (slash == std::string::npos)
    return parseInt(text, "--grid");
  int64_t n = parseInt(text.substr(0, slash), "--grid");
  std::string name = text.substr(slash + 1);
  auto it = c.constexprs.find(name);
  if (it == c.constexprs.end() || !std::holds_alternative<int64_t>(it->second.value))
    throw std::runtime_error("--grid " + text + ": config '" + c.str() +
                             "' has no integer constexpr " + name);
  int64_t d = std::get<int64_t>(it->second.value);
  if (d <= 0)
    throw std::runtime_error("--grid " + text + ": " + name + " must be positive");
  return (n + d - 1) / d;
}

bool writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

} // namespace

int tuneCommand(int argc, char **argv) {
  std::string file, kernelName, grid, csvPath, jsonPath, svgPath;
  std::vector<std::string> argSpecs, configTexts, sweeps;
  tilec::Constexprs fixed;
  tilec::TuneOptions options;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::runtime_error("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "-k" || a == "--kernel") kernelName = value();
    else if (a == "--arg") argSpecs.push_back(value());
    else if (a == "--grid") grid = value();
    else if (a == "--config") configTexts.push_back(value());
    else if (a == "--sweep") sweeps.push_back(value());
    else if (a == "-D") {
      std::string d = value();
      size_t eq = d.find('=');
      if (eq == std::string::npos)
        throw std::runtime_error("-D needs NAME=VALUE");
      fixed.insert_or_assign(d.substr(0, eq), parseConstexprValue(d.substr(eq + 1)));
    } else if (a == "--bytes") options.bytes = std::strtod(value().c_str(), nullptr);
    else if (a == "--flops") options.flops = std::strtod(value().c_str(), nullptr);
    else if (a == "--key") options.key = value();
    else if (a == "--warmup") options.warmupMs = std::strtod(value().c_str(), nullptr);
    else if (a == "--rep") options.repMs = std::strtod(value().c_str(), nullptr);
    else if (a == "--force") options.force = true;
    else if (a == "--deterministic") options.deterministic = true;
    else if (a == "--csv") csvPath = value();
    else if (a == "--json") jsonPath = value();
    else if (a == "--svg") svgPath = value();
    else if (!a.empty() && a[0] == '-')
      throw std::runtime_error("unknown option '" + a + "' for tilec tune");
    else if (file.empty()) file = a;
    else throw std::runtime_error("tilec tune takes one FILE");
  }
  if (file.empty() || kernelName.empty() || grid.empty())
    throw std::runtime_error("tilec tune needs FILE, -k KERNEL and --grid");

  // Configs: the --config lines, then the product of the --sweep lists.
  std::vector<tilec::Config> configs;
  for (const std::string &t : configTexts)
    configs.push_back(parseConfig(t, fixed));
  if (!sweeps.empty()) {
    std::vector<std::string> product = {""};
    for (const std::string &s : sweeps) {
      size_t eq = s.find('=');
      if (eq == std::string::npos)
        throw std::runtime_error("--sweep needs NAME=V1,V2,...");
      std::vector<std::string> next;
      for (const std::string &prefix : product)
        for (const std::string &v : split(s.substr(eq + 1), ','))
          next.push_back(prefix + " " + s.substr(0, eq) + "=" + v);
      product = next;
    }
    for (const std::string &t : product)
      configs.push_back(parseConfig(t, fixed));
  }
  if (configs.empty())
    throw std::runtime_error("tilec tune needs --config or --sweep");
  if (options.key.empty())
    for (const std::string &spec : argSpecs)
      options.key += (options.key.empty() ? "" : " ") + spec;

  tilec::Kernel kernel = tilec::Library::fromFile(file).kernel(kernelName);
  std::vector<std::string> runtimeParams;
  for (const tilec::Parameter &p : kernel.parameters())
    if (!p.isConstexpr)
      runtimeParams.push_back(p.name);
  if (argSpecs.size() != runtimeParams.size()) {
    std::string list, missing;
    for (size_t i = 0; i < runtimeParams.size(); ++i) {
      list += (i ? ", " : "") + runtimeParams[i];
      if (i >= argSpecs.size())
        missing += (missing.empty() ? "" : ", ") + ("'" + runtimeParams[i] + "'");
    }
    throw std::runtime_error(
        "kernel '" + kernelName + "' takes " + std::to_string(runtimeParams.size()) +
        " runtime arguments (" + list + "), one --arg each; got " +
        std::to_string(argSpecs.size()) + (missing.empty() ? "" : ": missing " + missing));
  }
  std::vector<tilec::Grid> grids;
  std::vector<std::string> entries = split(grid, ',');
  if (entries.empty() || entries.size() > 3)
    throw std::runtime_error("--grid takes 1 to 3 entries");
  for (const tilec::Config &c : configs)
    grids.push_back(tilec::Grid(gridEntry(entries[0], c),
                                entries.size() > 1 ? gridEntry(entries[1], c) : 1,
                                entries.size() > 2 ? gridEntry(entries[2], c) : 1));

  std::mt19937 rng(1234);
  std::vector<tilec::Buffer> buffers;
  std::vector<tilec::Arg> args;
  buffers.reserve(argSpecs.size());
  for (const std::string &spec : argSpecs) {
    size_t open = spec.find('['), eq = spec.find('=');
    if (open != std::string::npos && spec.back() == ']') {
      std::string type = spec.substr(0, open);
      auto scalar = tilec::parseScalarType(type);
      if (!scalar)
        throw std::runtime_error("--arg " + spec + ": unknown element type '" + type + "'");
      int64_t n = parseInt(spec.substr(open + 1, spec.size() - open - 2), "--arg " + spec);
      buffers.push_back(randomBuffer(*scalar, size_t(n), rng));
      args.emplace_back(buffers.back(), *scalar);
    } else if (eq != std::string::npos) {
      std::string type = spec.substr(0, eq), v = spec.substr(eq + 1);
      if (type == "i32") args.emplace_back(int32_t(parseInt(v, "--arg " + spec)));
      else if (type == "i64") args.emplace_back(int64_t(parseInt(v, "--arg " + spec)));
      else if (type == "fp32") args.emplace_back(float(parseFloat(v, "--arg " + spec)));
      else if (type == "fp64") args.emplace_back(parseFloat(v, "--arg " + spec));
      else throw std::runtime_error("--arg " + spec + ": scalars are i32, i64, fp32, fp64");
    } else {
      throw std::runtime_error("--arg " + spec + ": expected TYPE[N] or TYPE=VALUE");
    }
  }

  tilec::TuneReport report = kernel.tune(configs, grids, args, options);
  std::cout << report.table();
  if (report.reused())
    std::cout << "(every result from the autotuning database: nothing was timed)\n";
  for (auto [path, text] : {std::pair{csvPath, report.csv()}, std::pair{jsonPath, report.json()},
                            std::pair{svgPath, report.svg()}})
    if (!path.empty() && !writeText(path, text)) {
      std::cerr << "tilec: error: cannot write " << path << "\n";
      return 1;
    }
  return report.best >= 0 ? 0 : 1;
}
