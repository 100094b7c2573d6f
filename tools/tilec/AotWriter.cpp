// The text of the header and source `tilec aot` writes (AotWriter.h).
#include "AotWriter.h"

#include "AotSupportText.h" // kAotSupportText: AotSupport.inc, embedded by CMake

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <set>

namespace tilec::aotgen {
namespace {

const std::set<std::string> &cppKeywords() {
  static const std::set<std::string> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool",
      "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class",
      "compl", "concept", "const", "consteval", "constexpr", "constinit", "const_cast",
      "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator",
      "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return words;
}

/// Names a launch function's body uses itself (its locals, the namespaces
/// it qualifies from the global one), and macros a compiler predefines.
bool takenByLauncher(const std::string &name) {
  static const std::set<std::string> taken = {
      "grid", "stream", "std", "tilec", "tilec_aot_support", "tilec_aot_unit",
      "tilec_status", "tilec_launches", "tilec_params",
      // Macros GCC and clang predefine outside strict ISO modes.
      "linux", "unix", "i386"};
  if (taken.count(name))
    return true;
  // tilec_arg<i>: a converted argument.
  return name.rfind("tilec_arg", 0) == 0 && name.size() > 9 &&
         name.find_first_not_of("0123456789", 9) == std::string::npos;
}

bool isIdentifier(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// How a parameter of type `t` is taken by the launch function, and the
/// type the kernel reads it as when that differs (bool as a byte, fp16 and
/// bf16 from a float).
struct CppParameter {
  const char *type;
  const char *storage = nullptr; ///< null: passed as taken
  const char *convert = nullptr; ///< function from tilec_aot_support, or a cast
};

CppParameter cppParameter(const ArgumentType &t) {
  if (t.pointer)
    return {"const void *"};
  switch (t.element) {
  case ScalarType::I1: return {"bool", "::std::uint8_t", "::std::uint8_t"};
  case ScalarType::I8: return {"::std::int8_t"};
  case ScalarType::I16: return {"::std::int16_t"};
  case ScalarType::I32: return {"::std::int32_t"};
  case ScalarType::I64: return {"::std::int64_t"};
  case ScalarType::U8: return {"::std::uint8_t"};
  case ScalarType::U16: return {"::std::uint16_t"};
  case ScalarType::U32: return {"::std::uint32_t"};
  case ScalarType::U64: return {"::std::uint64_t"};
  case ScalarType::FP16: return {"float", "::std::uint16_t", "::tilec_aot_support::fp16Bits"};
  case ScalarType::BF16: return {"float", "::std::uint16_t", "::tilec_aot_support::bf16Bits"};
  case ScalarType::FP32: return {"float"};
  case ScalarType::FP64: return {"double"};
  case ScalarType::FP8E4M3:
  case ScalarType::FP8E5M2: break;
  }
  // AotCommand refuses fp8 scalars before anything is written.
  assert(false && "fp8 scalar parameters are refused by tilec aot");
  return {"::std::uint8_t"};
}

std::string entryText(const ArgumentType &t) {
  std::string text = std::string(t.pointer ? "*" : "") + scalarTypeName(t.element);
  if (t.equalsOne)
    text += ":1";
  else if (t.divisibility > 1)
    text += ":" + std::to_string(t.divisibility);
  return text;
}

/// A C++ string literal holding `text`.
std::string literal(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// `text` made safe for a // comment: line breaks spelled out.
std::string commentText(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
  return out;
}

/// `bytes` as the initialiser of an unsigned char array, 20 per line.
void appendBytes(std::string &out, const std::string &bytes, bool terminate) {
  static const char *hex = "0123456789abcdef";
  size_t n = bytes.size() + (terminate ? 1 : 0);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0;
    out += i % 20 == 0 ? "\n    " : " ";
    out += "0x";
    out += hex[c >> 4];
    out += hex[c & 15];
    out += ',';
  }
  out += "\n";
}

std::string targetsText(const AotUnit &unit) {
  std::string text;
  for (const AotImage &image : unit.images)
    text += (text.empty() ? "" : ", ") + image.description();
  return text;
}

/// The comment above a launch function's declaration and definition.
std::string kernelComment(const AotKernel &k) {
  std::string text = "/// " + k.kernelName + "(";
  for (size_t i = 0; i < k.types.size(); ++i)
    text += (i ? ", " : "") + k.parameterNames[i] + ": " + entryText(k.types[i]);
  text += ") from " + commentText(k.sourceFile);
  text += "\n/// " + (k.constexprs.empty() ? std::string("no constexprs") : commentText(k.constexprs)) +
          "; " + std::to_string(k.numWarps) + " warps (" + std::to_string(k.numWarps * 32) +
          " threads per program), num_stages=" + std::to_string(k.numStages) +
          (k.maxRegisters ? ", maxnreg=" + std::to_string(k.maxRegisters) : "") + ".\n";
  return text;
}

std::string declaration(const AotKernel &k, bool withDefault) {
  std::vector<std::string> names = cppParameterNames(k.parameterNames);
  std::string text = "::tilec::aot::Status " + k.function + "(::tilec::aot::Grid grid";
  for (size_t i = 0; i < k.types.size(); ++i) {
    std::string type = cppParameter(k.types[i]).type;
    text += ", " + type + (type.back() == '*' ? "" : " ") + names[i];
  }
  return text + ", void *stream" + (withDefault ? " = nullptr" : "") + ")";
}

/// The checks of the promises the signature made, each failing with a
/// message naming the kernel, the argument and its entry.
std::string argumentChecks(const AotKernel &k) {
  std::vector<std::string> names = cppParameterNames(k.parameterNames);
  std::string out;
  // A failed check returns a message: `before` + the value (when
  // `value` names one) + `after`.
  auto fail = [&](const std::string &cond, const std::string &before,
                  const std::string &value = "", const std::string &after = "") {
    out += "  if (" + cond + ")\n    return ::tilec_aot_support::fail(::tilec::aot::kInvalidArgument, " +
           (value.empty() ? literal(before + after)
                          : "::std::string(" + literal(before) + ") + ::std::to_string(" + value +
                                ") + " + literal(after)) +
           ");\n";
  };
  for (size_t i = 0; i < k.types.size(); ++i) {
    const ArgumentType &t = k.types[i];
    std::string who = k.function + ": argument '" + k.parameterNames[i] + "' (" +
                      entryText(t) + ")";
    const std::string &n = names[i];
    if (t.pointer) {
      fail("!" + n, who + " is a null pointer");
      if (t.divisibility > 1)
        fail("reinterpret_cast<::std::uintptr_t>(" + n + ") % " +
                 std::to_string(t.divisibility) + " != 0",
             who + " is not " + std::to_string(t.divisibility) +
                 "-byte aligned, as the kernel was compiled to assume");
      continue;
    }
    if (t.equalsOne)
      fail(n + " != 1", who + " is ", n, ", not 1, as the kernel was compiled to assume");
    else if (t.divisibility > 1)
      fail(n + " % " + std::to_string(t.divisibility) + " != 0",
           who + " is ", n,
           ", not divisible by " + std::to_string(t.divisibility) +
               ", as the kernel was compiled to assume");
  }
  return out;
}

std::string definition(const AotKernel &k, size_t index) {
  std::vector<std::string> names = cppParameterNames(k.parameterNames);
  std::string out = kernelComment(k) + declaration(k, false) + " {\n";
  out += argumentChecks(k);
  out += "  bool tilec_launches = false;\n"
         "  ::tilec::aot::Status tilec_status = ::tilec_aot_support::checkGrid(" +
         literal(k.function) +
         ", grid, &tilec_launches);\n"
         "  if (tilec_status.code || !tilec_launches)\n"
         "    return tilec_status;\n";
  std::string params;
  for (size_t i = 0; i < k.types.size(); ++i) {
    CppParameter p = cppParameter(k.types[i]);
    std::string what = names[i];
    if (p.storage) {
      what = "tilec_arg" + std::to_string(i);
      out += "  " + std::string(p.storage) + " " + what + " = " + p.convert + "(" +
             names[i] + ");\n";
    }
    params += (i ? ", " : "") + std::string("&") + what;
  }
  out += "  void *tilec_params[] = {" + (params.empty() ? "nullptr" : params) + "};\n";
  out += "  return ::tilec_aot_support::launch(::tilec_aot_unit::kUnit, "
         "::tilec_aot_unit::state, " +
         std::to_string(index) + ", grid, " + std::to_string(k.numWarps * 32) +
         ", stream, tilec_params);\n}\n";
  return out;
}

std::string openNamespace(const std::string &ns) { return "namespace " + ns + " {\n"; }

} // namespace

std::string AotImage::description() const {
  return ptx ? "compute_" + target.substr(3) + " PTX" : target + " cubin";
}

std::string cppNameProblem(const std::string &name) {
  if (!isIdentifier(name))
    return "'" + name + "' is not a C++ identifier";
  if (cppKeywords().count(name))
    return "'" + name + "' is a C++ keyword";
  if (name == "load_kernels" || name.rfind("tilec_", 0) == 0)
    return "'" + name + "' is a name the generated code uses itself";
  if (name == "linux" || name == "unix" || name == "i386")
    return "'" + name + "' is a macro compilers predefine";
  return "";
}

std::vector<std::string> cppParameterNames(const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (const std::string &name : names) {
    std::string cpp = name;
    while (cppKeywords().count(cpp) || takenByLauncher(cpp) ||
           std::count(names.begin(), names.end(), cpp) > (cpp == name ? 1 : 0) ||
           std::count(out.begin(), out.end(), cpp))
      cpp += '_';
    out.push_back(cpp);
  }
  return out;
}

std::string writeHeader(const AotUnit &unit) {
  std::string out =
      "// Generated by `tilec aot`: do not edit; change the command and run it again.\n"
      "//   " + commentText(unit.commandLine) + "\n"
      "//\n"
      "// Launch functions for kernels written in tilec's kernel language, with\n"
      "// their machine code built in: " + targetsText(unit) + ".\n"
      "// The program needs no tilec, LLVM, MLIR or Python: the source opens the\n"
      "// CUDA driver (libcuda.so.1) with dlopen at the first launch, and picks the\n"
      "// code for the GPU it finds (a cubin for that GPU, else one of its major\n"
      "// version, else the PTX, which the driver compiles). Link it with -ldl.\n"
      "//\n"
      "// A launch function checks the promises the kernel was compiled on\n"
      "// (alignment, divisibility), loads the kernel in the CUDA context current\n"
      "// on the calling thread (device 0's primary context when none is) on first\n"
      "// use, and enqueues it on `stream` (a CUstream; null: the default stream).\n"
      "// Pointers are device addresses the kernel reads or writes. It returns a\n"
      "// tilec::aot::Status and never throws; a grid with a zero dimension\n"
      "// launches nothing. Thread-safe.\n"
      "#pragma once\n\n"
      "#include <cstdint>\n\n"
      "#ifndef TILEC_AOT_TYPES_V1\n"
      "#define TILEC_AOT_TYPES_V1\n"
      "// The same in every header tilec aot writes.\n"
      "namespace tilec {\n"
      "namespace aot {\n"
      "/// Programs along x, y and z.\n"
      "struct Grid {\n"
      "  unsigned x = 1, y = 1, z = 1;\n"
      "};\n"
      "/// Status codes of tilec's own (a driver failure's code is its CUresult).\n"
      "enum : int {\n"
      "  kInvalidArgument = -1,  ///< an argument breaks the kernel's signature\n"
      "  kNoDriver = -2,         ///< no usable CUDA driver\n"
      "  kNoImageForDevice = -3, ///< no machine code built for this GPU\n"
      "};\n"
      "/// What a launch (or load) did: code 0 when it was enqueued; otherwise\n"
      "/// the failure, and `message` saying what failed, valid until the\n"
      "/// thread's next failing call. Errors of the kernel itself appear, as\n"
      "/// always in CUDA, at a later synchronisation.\n"
      "struct Status {\n"
      "  int code = 0;\n"
      "  const char *message = \"\";\n"
      "  bool ok() const { return code == 0; }\n"
      "};\n"
      "} // namespace aot\n"
      "} // namespace tilec\n"
      "#endif // TILEC_AOT_TYPES_V1\n\n" +
      openNamespace(unit.nameSpace) + "\n";
  for (const AotKernel &k : unit.kernels)
    out += kernelComment(k) + declaration(k, true) + ";\n\n";
  out += "/// Loads every kernel above in the current CUDA context (what the first\n"
         "/// launch of each would do): before timing, or before capturing a CUDA\n"
         "/// graph. `image`, when not null, gets the machine code chosen for the\n"
         "/// GPU (\"sm_90a cubin\", \"compute_80 PTX\").\n"
         "::tilec::aot::Status load_kernels(const char **image = nullptr);\n\n"
         "} // namespace " + unit.nameSpace + "\n";
  return out;
}

std::string writeSource(const AotUnit &unit) {
  std::string out = "// Generated by `tilec aot`: do not edit (see " + unit.headerFileName +
                    ").\n"
                    "#include \"" + unit.headerFileName + "\"\n\n"
                    "#include <atomic>\n#include <cstdint>\n#include <cstring>\n"
                    "#include <mutex>\n#include <string>\n\n#include <dlfcn.h>\n\n";
  out += kAotSupportText;
  out += "\nnamespace {\nnamespace tilec_aot_unit {\n";
  for (size_t i = 0; i < unit.images.size(); ++i) {
    const AotImage &image = unit.images[i];
    for (size_t k = 0; k < unit.kernels.size(); ++k) {
      const AotCode &code = image.kernels[k];
      out += "\n// " + unit.kernels[k].function + ", " + image.description() + ": " +
             code.note + "\n";
      out += "alignas(64) const unsigned char kCode" + std::to_string(i) + "_" +
             std::to_string(k) + "[] = {";
      appendBytes(out, code.bytes, image.ptx);
      out += "};\n";
    }
    out += "const tilec_aot_support::KernelCode kImage" + std::to_string(i) + "[] = {\n";
    for (size_t k = 0; k < unit.kernels.size(); ++k)
      out += "    {kCode" + std::to_string(i) + "_" + std::to_string(k) + ", " +
             std::to_string(image.kernels[k].sharedBytes) + "u},\n";
    out += "};\n";
  }
  out += "\nconst tilec_aot_support::Image kImages[] = {\n";
  for (size_t i = 0; i < unit.images.size(); ++i) {
    const AotImage &image = unit.images[i];
    out += "    {" + literal(image.description()) + ", " +
           std::to_string(image.computeCapability) + ", " +
           (image.archSpecific ? "true" : "false") + ", " + (image.ptx ? "true" : "false") +
           ", kImage" + std::to_string(i) + "},\n";
  }
  out += "};\nconst char *const kEntries[] = {";
  for (size_t k = 0; k < unit.kernels.size(); ++k)
    out += (k ? ", " : "") + literal(unit.kernels[k].entry);
  out += "};\nconst tilec_aot_support::Unit kUnit = {kImages, " +
         std::to_string(unit.images.size()) + ", kEntries, " +
         std::to_string(unit.kernels.size()) + ", " + literal(targetsText(unit)) +
         "};\ntilec_aot_support::UnitState state;\n\n"
         "} // namespace tilec_aot_unit\n} // namespace\n\n" +
         openNamespace(unit.nameSpace) + "\n";
  for (size_t k = 0; k < unit.kernels.size(); ++k)
    out += definition(unit.kernels[k], k) + "\n";
  out += "::tilec::aot::Status load_kernels(const char **image) {\n"
         "  return ::tilec_aot_support::loadAll(::tilec_aot_unit::kUnit, "
         "::tilec_aot_unit::state, image);\n}\n\n} // namespace " +
         unit.nameSpace + "\n";
  return out;
}

} // namespace tilec::aotgen
