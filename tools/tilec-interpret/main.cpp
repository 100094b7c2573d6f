// tilec-interpret: run a kernel on the CPU, through the tile-IR
// interpreter, with every load and store bounds-checked.
//
//   tilec-interpret FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...
//                   --grid X[,Y[,Z]] [--arg NAME=SPEC]...
//                   [--print NAME[:COUNT]]... [--dump NAME=PATH]...
//                   [--debug] [--deterministic] [--emit-tile] [--quiet]
//
// --help says what SPEC can be. Exit status 0 on success, 1 on a compile or
// interpreter error (printed as `file:line:col: error: ...`), 2 on a usage
// error.
#include "runtime/JIT/Compiler.h"
#include "runtime/JIT/Interpret.h"

#include "dsl/Signature.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

using namespace tilec;

namespace {
const char *kUsage = R"(usage: tilec-interpret FILE -k KERNEL -s SIGNATURE [-D NAME=VALUE]...
                       --grid X[,Y[,Z]] [--arg NAME=SPEC]...
                       [--print NAME[:COUNT]]... [--dump NAME=PATH]...
                       [--debug] [--deterministic] [--emit-tile] [--quiet]

Runs KERNEL of FILE on the CPU: the tile IR that `tilec compile --emit tile`
shows, one program at a time for every point of the grid (x fastest), with
every unmasked load and store checked against its buffer. An error names
the source line, the program and the access:
  vector_add.py:23:9: error: out-of-bounds load of 4 bytes at offset 16000 of
  argument 'x_ptr' (16000 bytes), element [928] in program (3, 0, 0) of kernel 'add'

tl.device_print lines go to stdout as the GPU prints them; --debug checks
tl.device_assert and `assert` on runtime values (Triton's debug=True);
--deterministic first checks the kernel for batch invariance, as `tilec
compile --deterministic` does.

SIGNATURE and -D are those of `tilec compile`. Every non-constexpr
parameter needs one --arg NAME=SPEC:
  scalar parameters:  a number: 1000, -3, 0x10, 1e-5
  pointer parameters: a host buffer of the pointee type
    zeros:N          N zeros
    fill:N:V         N copies of V
    range:N          0, 1, ..., N-1
    rand:N[:SEED]    N pseudo-random values from SEED (default 1): floats
                     uniform in [-1, 1), signed integers in [-100, 100),
                     unsigned in [0, 200), booleans 0 or 1
    file:PATH        the bytes of PATH (host byte order), a whole number
                     of elements
    alias:NAME       the buffer of pointer parameter NAME (in-place kernels)

After the run, every buffer is summarised: element count, sum, the FNV-1a
hash of its bytes (a checksum to compare runs) and its first 8 elements.
  --print NAME[:COUNT]  print COUNT elements of NAME (all without COUNT)
  --dump NAME=PATH      write NAME's bytes to PATH
  --emit-tile           print the tile IR that runs, before running it
  --quiet               print nothing but errors and --print output

Not supported by the interpreter (each is an error at the op): ops outside
the tile dialect, arith, math, scf.for/if and func.return; 8-bit floats.
)";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// xorshift64*: the same numbers everywhere.
struct Random {
  uint64_t state;
  explicit Random(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
  }
  double unit() { return double(next() >> 11) * 0x1p-53; } // [0, 1)
};

int64_t parseInt(const std::string &text, const std::string &what) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end || errno)
    throw Usage(what + " needs an integer, got '" + text + "'");
  return v;
}
double parseNumber(const std::string &text, const std::string &what) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end)
    throw Usage(what + " needs a number, got '" + text + "'");
  return v;
}

/// Element `k` of a buffer of `type`, as a double.
double readElement(const std::vector<uint8_t> &bytes, dsl::DType type, size_t k) {
  using K = dsl::ScalarKind;
  const uint8_t *p = bytes.data() + k * (type.bits() == 1 ? 1 : type.bits() / 8);
  auto get = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (type.scalar) {
  case K::Int1: return get(uint8_t()) != 0;
  case K::Int8: return get(int8_t());
  case K::Int16: return get(int16_t());
  case K::Int32: return get(int32_t());
  case K::Int64: return double(get(int64_t()));
  case K::UInt8: return get(uint8_t());
  case K::UInt16: return get(uint16_t());
  case K::UInt32: return get(uint32_t());
  case K::UInt64: return double(get(uint64_t()));
  case K::Float16: return interp::fromHalfBits(get(uint16_t()));
  case K::BFloat16: return interp::fromBFloat16Bits(get(uint16_t()));
  case K::Float32: return get(float());
  case K::Float64: return get(double());
  }
  return 0;
}

void writeElement(std::vector<uint8_t> &bytes, dsl::DType type, size_t k, double v) {
  using K = dsl::ScalarKind;
  uint8_t *p = bytes.data() + k * (type.bits() == 1 ? 1 : type.bits() / 8);
  auto put = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
  switch (type.scalar) {
  case K::Int1: put(uint8_t(v != 0)); break;
  case K::Int8: put(int8_t(v)); break;
  case K::Int16: put(int16_t(v)); break;
  case K::Int32: put(int32_t(v)); break;
  case K::Int64: put(int64_t(v)); break;
  case K::UInt8: put(uint8_t(v)); break;
  case K::UInt16: put(uint16_t(v)); break;
  case K::UInt32: put(uint32_t(v)); break;
  case K::UInt64: put(uint64_t(v)); break;
  case K::Float16: put(interp::toHalfBits(v)); break;
  case K::BFloat16: put(interp::toBFloat16Bits(v)); break;
  case K::Float32: put(float(v)); break;
  case K::Float64: put(v); break;
  }
}

std::string formatElement(dsl::DType type, double v) {
  char text[64];
  if (type.isInt())
    std::snprintf(text, sizeof text, "%.0f", v);
  else
    std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

struct Buffer {
  dsl::DType type; ///< the element type
  std::shared_ptr<std::vector<uint8_t>> bytes;
  size_t count = 0;
  std::string aliasOf;
};

Buffer makeBuffer(const std::string &name, dsl::DType type, const std::string &spec) {
  Buffer b;
  b.type = type;
  size_t elementBytes = type.bits() == 1 ? 1 : type.bits() / 8;
  std::string what = "--arg " + name;
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "file") {
    std::ifstream in(rest, std::ios::binary);
    if (!in)
      throw Usage(what + ": cannot read '" + rest + "'");
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (data.size() % elementBytes)
      throw Usage(what + ": '" + rest + "' holds " + std::to_string(data.size()) +
                  " bytes, not a whole number of " + type.name() + " elements");
    b.count = data.size() / elementBytes;
    b.bytes = std::make_shared<std::vector<uint8_t>>(std::move(data));
    return b;
  }
  std::vector<std::string> parts;
  std::stringstream ss(rest);
  for (std::string part; std::getline(ss, part, ':');)
    parts.push_back(part);
  if (parts.empty())
    throw Usage(what + ": '" + spec + "' needs an element count (e.g. zeros:1024)");
  int64_t n = parseInt(parts[0], what + " (element count)");
  if (n < 0)
    throw Usage(what + ": negative element count");
  b.count = size_t(n);
  b.bytes = std::make_shared<std::vector<uint8_t>>(b.count * elementBytes, 0);
  if (kind == "zeros" && parts.size() == 1)
    return b;
  if (kind == "fill" && parts.size() == 2) {
    double v = parseNumber(parts[1], what + " (fill value)");
    for (size_t k = 0; k < b.count; ++k)
      writeElement(*b.bytes, type, k, v);
    return b;
  }
  if (kind == "range" && parts.size() == 1) {
    for (size_t k = 0; k < b.count; ++k)
      writeElement(*b.bytes, type, k, double(k));
    return b;
  }
  if (kind == "rand" && parts.size() <= 2) {
    Random random(parts.size() == 2 ? uint64_t(parseInt(parts[1], what + " (seed)")) : 1);
    for (size_t k = 0; k < b.count; ++k) {
      double v;
      if (type.isBool())
        v = double(random.next() >> 63);
      else if (type.isFloat())
        v = random.unit() * 2 - 1;
      else if (type.isSigned())
        v = double(int64_t(random.next() % 200) - 100);
      else
        v = double(random.next() % 200);
      writeElement(*b.bytes, type, k, v);
    }
    return b;
  }
  throw Usage(what + ": unknown buffer '" + spec +
              "' (zeros:N, fill:N:V, range:N, rand:N[:SEED], file:PATH, alias:NAME)");
}

uint64_t fnv1a(const std::vector<uint8_t> &bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

int run(int argc, char **argv) {
  std::string file, kernel, signature;
  bool haveSignature = false, emitTile = false, quiet = false, debug = false,
       deterministic = false;
  std::string gridText;
  std::map<std::string, dsl::Value> constexprs;
  std::vector<std::pair<std::string, std::string>> argSpecs;
  std::vector<std::pair<std::string, int64_t>> prints;
  std::vector<std::pair<std::string, std::string>> dumps;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw Usage("option " + arg + " needs a value");
      return argv[++i];
    };
    auto nameValue = [&](const std::string &text, char sep) {
      size_t at = text.find(sep);
      if (at == std::string::npos || at == 0)
        throw Usage(arg + " needs NAME" + sep + "VALUE, got '" + text + "'");
      return std::make_pair(text.substr(0, at), text.substr(at + 1));
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "-k" || arg == "--kernel")
      kernel = value();
    else if (arg == "-s" || arg == "--signature") {
      signature = value();
      haveSignature = true;
    } else if (arg == "-D" || (arg.rfind("-D", 0) == 0 && arg.size() > 2)) {
      auto [name, v] = nameValue(arg == "-D" ? value() : arg.substr(2), '=');
      constexprs.insert_or_assign(name, jit::parseConstexprValue(v));
    } else if (arg == "--grid")
      gridText = value();
    else if (arg == "--arg" || arg == "-a")
      argSpecs.push_back(nameValue(value(), '='));
    else if (arg == "--print") {
      std::string v = value();
      size_t colon = v.find(':');
      if (colon == std::string::npos)
        prints.push_back({v, -1});
      else
        prints.push_back({v.substr(0, colon),
                          parseInt(v.substr(colon + 1), "--print " + v)});
    } else if (arg == "--dump")
      dumps.push_back(nameValue(value(), '='));
    else if (arg == "--emit-tile")
      emitTile = true;
    else if (arg == "--debug")
      debug = true;
    else if (arg == "--deterministic")
      deterministic = true;
    else if (arg == "--quiet" || arg == "-q")
      quiet = true;
    else if (!arg.empty() && arg[0] == '-')
      throw Usage("unknown option '" + arg + "'");
    else if (file.empty())
      file = arg;
    else
      throw Usage("more than one input file");
  }
  if (file.empty())
    throw Usage("no input file");
  if (kernel.empty())
    throw Usage("no kernel named (-k KERNEL)");
  if (!haveSignature)
    throw Usage("no signature given (-s SIGNATURE)");
  if (gridText.empty())
    throw Usage("no grid given (--grid X[,Y[,Z]])");

  interp::Grid grid;
  {
    std::vector<uint32_t> dims;
    std::stringstream ss(gridText);
    for (std::string part; std::getline(ss, part, ',');) {
      int64_t d = parseInt(part, "--grid");
      if (d < 0 || d > INT32_MAX)
        throw Usage("--grid: " + part + " is not a grid size");
      dims.push_back(uint32_t(d));
    }
    if (dims.empty() || dims.size() > 3)
      throw Usage("--grid needs 1 to 3 sizes, got '" + gridText + "'");
    dims.resize(3, 1);
    grid = {dims[0], dims[1], dims[2]};
  }
  dsl::Signature sig;
  std::string error;
  if (!dsl::parseSignature(signature, sig, error))
    throw Usage("-s: " + error);

  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "tilec-interpret: error: cannot read '" << file << "'\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  jit::ParsedSource parsed = jit::parseSource(file, text.str());
  if (!parsed.ok()) {
    for (const std::string &e : parsed.errors)
      std::cerr << e << "\n";
    return 1;
  }
  auto fn = parsed.function(kernel);
  if (!fn) {
    std::cerr << "tilec-interpret: error: no function '" << kernel << "' in '"
              << file << "'\n";
    return 1;
  }
  std::vector<std::string> names = jit::runtimeParameterNames(*fn);
  if (names.size() != sig.args.size())
    throw Usage("the signature has " + std::to_string(sig.args.size()) +
                " entries but '" + kernel + "' has " +
                std::to_string(names.size()) + " non-constexpr parameters");

  std::map<std::string, std::string> specs;
  for (auto &[name, spec] : argSpecs) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw Usage("--arg " + name + ": '" + kernel +
                  "' has no non-constexpr parameter of that name");
    if (!specs.emplace(name, spec).second)
      throw Usage("--arg " + name + " given twice");
  }
  std::string missing;
  for (const std::string &n : names)
    if (!specs.count(n))
      missing += (missing.empty() ? "" : ", ") + n;
  if (!missing.empty())
    throw Usage("no --arg for " + missing);

  // Buffers first (aliases after the buffers they name), then the args.
  std::map<std::string, Buffer> buffers;
  for (size_t i = 0; i < names.size(); ++i) {
    const dsl::ArgSpec &a = sig.args[i];
    const std::string &spec = specs[names[i]];
    if (a.type.isPointer && spec.rfind("alias:", 0) != 0)
      buffers[names[i]] = makeBuffer(names[i], a.type.pointee(), spec);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string &spec = specs[names[i]];
    if (!sig.args[i].type.isPointer || spec.rfind("alias:", 0) != 0)
      continue;
    std::string target = spec.substr(6);
    auto it = buffers.find(target);
    if (it == buffers.end() || !it->second.aliasOf.empty())
      throw Usage("--arg " + names[i] + ": '" + target +
                  "' is not a pointer parameter with a buffer of its own");
    Buffer b = it->second;
    b.aliasOf = target;
    b.type = sig.args[i].type.pointee();
    size_t elementBytes = b.type.bits() == 1 ? 1 : b.type.bits() / 8;
    b.count = b.bytes->size() / elementBytes;
    buffers[names[i]] = b;
  }
  std::vector<interp::Arg> args;
  for (size_t i = 0; i < names.size(); ++i) {
    const dsl::ArgSpec &a = sig.args[i];
    const std::string &spec = specs[names[i]];
    std::string what = "--arg " + names[i];
    if (a.type.isPointer) {
      Buffer &b = buffers[names[i]];
      args.push_back(interp::Arg::ofBuffer(b.bytes->data(), b.bytes->size(), names[i]));
    } else if (a.type.isFloat()) {
      args.push_back(interp::Arg::ofFloat(parseNumber(spec, what), names[i]));
    } else {
      args.push_back(interp::Arg::ofInt(parseInt(spec, what), names[i]));
    }
  }

  jit::InterpretOptions options;
  options.keepTileIR = emitTile;
  options.debug = debug;
  options.deterministic = deterministic;
  jit::InterpretResult result =
      jit::interpret(*fn, signature, constexprs, grid, args, options);
  if (emitTile && !result.tile.empty())
    std::cout << result.tile << "\n";
  if (!result.ok()) {
    for (const std::string &e : result.errors)
      std::cerr << e << "\n";
    return 1;
  }
  if (!quiet) {
    std::printf("ran %" PRIu64 " programs (grid %u x %u x %u), %" PRIu64
                " ops, %" PRIu64 " bytes loaded, %" PRIu64
                " bytes stored, in %.1f ms\n",
                result.stats.programs, grid.x, grid.y, grid.z,
                result.stats.operations, result.stats.bytesLoaded,
                result.stats.bytesStored, result.milliseconds);
    for (const std::string &n : names) {
      auto it = buffers.find(n);
      if (it == buffers.end())
        continue;
      const Buffer &b = it->second;
      double sum = 0;
      for (size_t k = 0; k < b.count; ++k)
        sum += readElement(*b.bytes, b.type, k);
      std::printf("%s: %zu x %s, sum=%.9g, fnv1a=%016" PRIx64 "%s%s, [", n.c_str(),
                  b.count, b.type.name().c_str(), sum, fnv1a(*b.bytes),
                  b.aliasOf.empty() ? "" : ", alias of ", b.aliasOf.c_str());
      for (size_t k = 0; k < b.count && k < 8; ++k)
        std::printf("%s%s", k ? ", " : "",
                    formatElement(b.type, readElement(*b.bytes, b.type, k)).c_str());
      std::printf("%s]\n", b.count > 8 ? ", ..." : "");
    }
  }
  for (auto &[name, count] : prints) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      throw Usage("--print " + name + ": not a pointer parameter");
    const Buffer &b = it->second;
    size_t n = count < 0 ? b.count : std::min(b.count, size_t(count));
    std::printf("%s:", name.c_str());
    for (size_t k = 0; k < n; ++k)
      std::printf(" %s", formatElement(b.type, readElement(*b.bytes, b.type, k)).c_str());
    std::printf("\n");
  }
  for (auto &[name, path] : dumps) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      throw Usage("--dump " + name + ": not a pointer parameter");
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(it->second.bytes->data()),
              std::streamsize(it->second.bytes->size()));
    if (!out) {
      std::cerr << "tilec-interpret: error: cannot write '" << path << "'\n";
      return 1;
    }
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const Usage &e) {
    std::cerr << "tilec-interpret: error: " << e.what()
              << "\n(tilec-interpret --help for the options)\n";
    return 2;
  }
}
