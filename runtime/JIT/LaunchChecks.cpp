// Launch-argument checks (LaunchChecks.h). The ones on the warm path
// (count, grid, pointers) allocate nothing unless they fail.
#include "runtime/JIT/LaunchChecks.h"

#include "runtime/Device.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace tilec::jit {
namespace {

[[noreturn]] void fail(const std::string &kernel, const std::string &why) {
  throw Error("cannot launch kernel '" + kernel + "': " + why);
}

const char *kindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Pointer: return "a pointer";
  case Arg::Kind::I32: return "an i32";
  case Arg::Kind::I64: return "an i64";
  case Arg::Kind::F32: return "an fp32";
  case Arg::Kind::F64: return "an fp64";
  }
  return "an argument";
}

std::string describe(const Arg &a) {
  if (a.kind == Arg::Kind::Pointer)
    return std::string("a pointer to ") + scalarTypeName(a.element);
  return kindName(a.kind);
}

} // namespace

int specialisedFact(const Arg &a) {
  if (a.facts == Arg::Facts::None)
    return 0;
  bool aligned = a.facts == Arg::Facts::All;
  switch (a.kind) {
  case Arg::Kind::Pointer:
    return aligned && a.bits % 16 == 0 ? 16 : 0;
  case Arg::Kind::I32:
  case Arg::Kind::I64: {
    int64_t v = a.kind == Arg::Kind::I32 ? int64_t(int32_t(uint32_t(a.bits))) : int64_t(a.bits);
    if (v == 1)
      return 1;
    if (!aligned)
      return 0;
    return v % 16 == 0 ? 16 : v % 8 == 0 ? 8 : 0;
  }
  case Arg::Kind::F32:
  case Arg::Kind::F64:
    return 0;
  }
  return 0;
}

void checkArgumentCount(const std::string &kernel, const ParamNames &names,
                        size_t numArgs) {
  if (numArgs == names.size())
    return;
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i ? ", " : "") + *names[i];
  std::string why = "it takes " + std::to_string(names.size()) + " argument" +
                    (names.size() == 1 ? "" : "s") + " besides its constexprs (" + list +
                    "), got " + std::to_string(numArgs);
  if (numArgs < names.size()) {
    why += ": missing";
    for (size_t i = numArgs; i < names.size(); ++i)
      why += (i > numArgs ? ", '" : " '") + *names[i] + "'";
  }
  fail(kernel, why);
}

void checkGrid(const std::string &kernel, const Grid &grid) {
  const unsigned dims[3] = {grid.x, grid.y, grid.z};
  const char *axes[3] = {"x", "y", "z"};
  // The limits of every GPU from sm_80 on (cudaDeviceProp::maxGridSize).
  const unsigned limits[3] = {2147483647u, 65535u, 65535u};
  for (int i = 0; i < 3; ++i) {
    if (dims[i] == 0)
      fail(kernel, std::string("grid ") + axes[i] +
                       " is 0; every grid dimension must be at least 1");
    if (dims[i] > limits[i])
      fail(kernel, std::string("grid ") + axes[i] + " is " + std::to_string(dims[i]) +
                       ", more than the " + std::to_string(limits[i]) +
                       " the GPU allows");
  }
}

void checkPointerArguments(const std::string &kernel, const ParamNames &names,
                           const Arg *args, size_t numArgs, Backend backend) {
  for (size_t i = 0; i < numArgs; ++i) {
    const Arg &a = args[i];
    if (a.kind != Arg::Kind::Pointer)
      continue;
    if (a.bits == 0)
      fail(kernel, "argument " + quotedParameter(names, i) + " is a null pointer");
    if (a.inHostMemory && backend == Backend::GPU)
      fail(kernel, "argument " + quotedParameter(names, i) +
                       " is host memory (Arg::host is for Backend::Interpreter)");
  }
}

void checkDevicePointers(const std::string &kernel, const ParamNames &names,
                         const Arg *args, size_t numArgs, int deviceOrdinal) {
  for (size_t i = 0; i < numArgs; ++i) {
    const Arg &a = args[i];
    if (a.kind != Arg::Kind::Pointer)
      continue;
    // The caller vouches for the memory's GPU (a Buffer, a torch CUDA
    // tensor): no driver query on the launch path. A claim of another GPU
    // is checked with the driver, whose answer stands (managed memory a
    // tensor reports as its device's is reachable from every GPU).
    if (a.device == deviceOrdinal && a.bits != 0)
      continue;
    runtime::PointerInfo info = runtime::pointerInfo(a.bits);
    switch (info.kind) {
    case runtime::PointerInfo::Kind::Unknown:
      fail(kernel, "argument " + quotedParameter(names, i) + " (" + hexAddress(a.bits) +
                       ") is not memory the GPU can reach: host memory that was not "
                       "allocated or registered through CUDA, or no allocation at all");
    case runtime::PointerInfo::Kind::Device:
      if (info.ordinal != deviceOrdinal)
        fail(kernel, "argument " + quotedParameter(names, i) + " is memory of GPU " +
                         std::to_string(info.ordinal) + ", and the kernel runs on GPU " +
                         std::to_string(deviceOrdinal));
      break;
    case runtime::PointerInfo::Kind::Host:
    case runtime::PointerInfo::Kind::Managed:
      break; // page-locked and managed memory are reachable from every GPU
    }
  }
}

std::vector<Arg> argumentsForSignature(const std::string &kernel, const ParamNames &names,
                                       const dsl::Signature &signature,
                                       const std::vector<Arg> &args) {
  if (args.size() != signature.args.size()) {
    // names may list more parameters than a hand-written signature has.
    ParamNames shown(names.begin(),
                     names.begin() + std::min(names.size(), signature.args.size()));
    checkArgumentCount(kernel, shown, args.size());
    fail(kernel, "its signature '" + signature.str() + "' has " +
                     std::to_string(signature.args.size()) + " entries, got " +
                     std::to_string(args.size()) + " arguments");
  }
  std::vector<Arg> out = args;
  for (size_t i = 0; i < args.size(); ++i) {
    const dsl::ArgSpec &spec = signature.args[i];
    Arg &a = out[i];
    std::string entry = spec.str();
    auto mismatch = [&]() {
      fail(kernel, "argument " + quotedParameter(names, i) + " is " + describe(args[i]) +
                       ", and this compile takes " + entry);
    };
    if (spec.type.isPointer) {
      if (a.kind != Arg::Kind::Pointer ||
          int(a.element) != int(spec.type.scalar))
        mismatch();
      if (spec.divisibility >= 16 && a.bits % 16 != 0)
        fail(kernel, "argument " + quotedParameter(names, i) + " (" + hexAddress(a.bits) +
                         ") is not 16-byte aligned, which its signature entry " + entry +
                         " promises; compile without ':16' for such pointers");
      continue;
    }
    if (spec.type.isFloat()) {
      bool isFloat = a.kind == Arg::Kind::F32 || a.kind == Arg::Kind::F64;
      unsigned bits = spec.type.bits();
      if (!isFloat || (bits != 32 && bits != 64))
        mismatch();
      if (bits == 32 && a.kind == Arg::Kind::F64) {
        double d;
        std::memcpy(&d, &a.bits, sizeof d);
        a = Arg(float(d));
      } else if (bits == 64 && a.kind == Arg::Kind::F32) {
        float f;
        std::memcpy(&f, &a.bits, sizeof f);
        a = Arg(double(f));
      }
      continue;
    }
    // Integers: the value must fit the entry's width and signedness.
    unsigned bits = spec.type.bits();
    if ((a.kind != Arg::Kind::I32 && a.kind != Arg::Kind::I64) || !spec.type.isInt() ||
        bits > 64)
      mismatch();
    int64_t v = a.kind == Arg::Kind::I32 ? int64_t(int32_t(uint32_t(a.bits))) : int64_t(a.bits);
    bool fits = true;
    if (bits < 64) {
      int64_t lo = spec.type.isSigned() ? -(int64_t(1) << (bits - 1)) : 0;
      int64_t hi = spec.type.isSigned() ? (int64_t(1) << (bits - 1)) - 1
                                        : (int64_t(1) << bits) - 1;
      fits = v >= lo && v <= hi;
    } else if (!spec.type.isSigned()) {
      fits = v >= 0 || a.kind == Arg::Kind::I64; // u64 past INT64_MAX arrives as i64 bits
    }
    if (!fits)
      fail(kernel, "argument " + quotedParameter(names, i) + " is " + std::to_string(v) +
                       ", which does not fit the " + entry + " it was compiled for");
    if (spec.equalsOne && v != 1)
      fail(kernel, "argument " + quotedParameter(names, i) + " is " + std::to_string(v) +
                       ", and its signature entry " + entry +
                       " compiled it as the constant 1");
    if (spec.divisibility > 1 && v % spec.divisibility != 0)
      fail(kernel, "argument " + quotedParameter(names, i) + " is " + std::to_string(v) +
                       ", not divisible by " + std::to_string(spec.divisibility) +
                       " as its signature entry " + entry + " promises");
    // Narrow values sit at the start of their slot (little-endian).
    a = bits <= 32 ? Arg(int32_t(uint32_t(uint64_t(v)))) : Arg(int64_t(v));
  }
  return out;
}

std::string quotedParameter(const ParamNames &names, size_t i) {
  return i < names.size() ? "'" + *names[i] + "'" : "#" + std::to_string(i + 1);
}

std::string hexAddress(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

} // namespace tilec::jit
