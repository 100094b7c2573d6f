// tilec._tilec: the Python binding of the public C++ API (include/tilec/tilec.h,
// nothing else of tilec), linked against libtilec.so.
//
// Most of it is plain pybind11. The launch path is not: `kernel[grid](*args,
// **kwargs)` is two plain CPython types (LaunchHandle[grid] makes a
// BoundLaunch, whose call launches), which bind the arguments to the
// kernel's parameters, turn tensors and numbers into tilec::Arg and the
// constexprs into tilec::Constexpr with the CPython API (fixed buffers, no
// Python objects created for a warm launch beyond the BoundLaunch and what
// the tensors' own data_ptr() returns), and call Kernel::launch with the GIL
// released. A torch tensor's Arg carries its device, so the launch asks the
// driver nothing about its address.
//
// Builds against pybind11 2.10 (Debian 12) and 3.x.
#include "tilec/tilec.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <new>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

constexpr size_t kMaxParams = 64;

//===----------------------------------------------------------------------===//
// Interned names and small helpers
//===----------------------------------------------------------------------===//

struct Names {
  PyObject *data_ptr, *dtype, *is_cuda, *cai, *dlpack, *typestr, *data, *value,
      *name, *cuda_stream, *num_warps, *stream, *num_stages, *num_ctas, *maxnreg, *debug,
      *deterministic, *array_interface, *device, *type, *shape, *strides, *nbytes,
      *get_device, *launch_pdl;
};
Names names;

void internNames() {
  auto in = [](const char *s) { return PyUnicode_InternFromString(s); };
  names = {in("data_ptr"), in("dtype"),   in("is_cuda"),
           in("__cuda_array_interface__"),  in("__dlpack__"),
           in("typestr"),  in("data"),    in("value"),
           in("name"),     in("cuda_stream"), in("num_warps"),
           in("stream"),   in("num_stages"), in("num_ctas"), in("maxnreg"), in("debug"),
           in("deterministic"), in("__array_interface__"), in("device"), in("type"),
           in("shape"), in("strides"), in("nbytes"), in("get_device"), in("launch_pdl")};
}

[[noreturn]] void throwPython() { throw py::error_already_set(); }

[[noreturn]] void typeError(const std::string &message) {
  throw py::type_error(message);
}

std::string typeName(PyObject *o) { return Py_TYPE(o)->tp_name; }

/// The `tl.constexpr` and `tl.dtype` classes of tilec.language, registered
/// by the package at import (set_language_types).
PyObject *constexprType = nullptr;
/// tilec._tilec.Error, and the package's hook over its messages.
PyObject *errorType = nullptr;
PyObject *errorHook = nullptr;
PyObject *dtypeType = nullptr;
PyObject *wrapperType = nullptr; ///< tilec.TensorWrapper (tilec.reinterpret)

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element type of an array-interface typestr ("<f4", "|u1", ...).
bool scalarFromTypestr(const char *t, tilec::ScalarType &out) {
  if (!t || std::strlen(t) < 3)
    return false;
  char kind = t[1];
  int bytes = std::atoi(t + 2);
  using S = tilec::ScalarType;
  switch (kind) {
  case 'f':
    if (bytes == 2) { out = S::FP16; return true; }
    if (bytes == 4) { out = S::FP32; return true; }
    if (bytes == 8) { out = S::FP64; return true; }
    return false;
  case 'i':
    if (bytes == 1) { out = S::I8; return true; }
    if (bytes == 2) { out = S::I16; return true; }
    if (bytes == 4) { out = S::I32; return true; }
    if (bytes == 8) { out = S::I64; return true; }
    return false;
  case 'u':
    if (bytes == 1) { out = S::U8; return true; }
    if (bytes == 2) { out = S::U16; return true; }
    if (bytes == 4) { out = S::U32; return true; }
    if (bytes == 8) { out = S::U64; return true; }
    return false;
  case 'b':
    if (bytes == 1) { out = S::I1; return true; }
    return false;
  }
  return false;
}

/// torch dtypes by identity: torch.float32 and friends are singletons.
struct TorchDType {
  PyObject *dtype;
  tilec::ScalarType scalar;
};
std::vector<TorchDType> torchDTypes;

tilec::ScalarType torchScalar(PyObject *dtype, const char *param) {
  for (const TorchDType &t : torchDTypes)
    if (t.dtype == dtype)
      return t.scalar;
  py::str text(py::handle(dtype).attr("__str__")());
  std::string s = text;
  if (s.rfind("torch.", 0) == 0)
    s = s.substr(6);
  static const std::pair<const char *, tilec::ScalarType> table[] = {
      {"float32", tilec::ScalarType::FP32},  {"float16", tilec::ScalarType::FP16},
      {"bfloat16", tilec::ScalarType::BF16}, {"float64", tilec::ScalarType::FP64},
      {"int8", tilec::ScalarType::I8},       {"int16", tilec::ScalarType::I16},
      {"int32", tilec::ScalarType::I32},     {"int64", tilec::ScalarType::I64},
      {"uint8", tilec::ScalarType::U8},      {"uint16", tilec::ScalarType::U16},
      {"uint32", tilec::ScalarType::U32},    {"uint64", tilec::ScalarType::U64},
      {"bool", tilec::ScalarType::I1},
      {"float8_e4m3fn", tilec::ScalarType::FP8E4M3},
      {"float8_e5m2", tilec::ScalarType::FP8E5M2},
  };
  for (const auto &[n, scalar] : table)
    if (s == n) {
      Py_INCREF(dtype);
      torchDTypes.push_back({dtype, scalar});
      return scalar;
    }
  typeError(std::string("argument '") + param + "': tensors of dtype " + s +
            " are not supported by tilec kernels");
}

//===----------------------------------------------------------------------===//
// DLPack (the ABI-stable structs of dlpack.h, version 0.x capsules)
//===----------------------------------------------------------------------===//

struct DLDevice { int32_t device_type; int32_t device_id; };
struct DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; };
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6,
       kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12 };

/// Reads a "dltensor" capsule without consuming it: the producer's deleter
/// runs when the capsule is released, the memory stays owned by the object
/// it came from.
tilec::Arg argFromCapsule(PyObject *capsule, const char *param, bool interpret) {
  auto *t = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (!t)
    throwPython();
  const DLTensor &d = t->dl_tensor;
  bool onHost = d.device.device_type == kDLCPU;
  if (!(interpret && onHost) && d.device.device_type != kDLCUDA &&
      d.device.device_type != kDLCUDAManaged)
    typeError(std::string("argument '") + param +
              "': the DLPack tensor is not in CUDA device memory (device type " +
              std::to_string(d.device.device_type) + ")");
  using S = tilec::ScalarType;
  S scalar;
  unsigned bits = d.dtype.bits;
  bool ok = d.dtype.lanes == 1;
  switch (d.dtype.code) {
  case kDLFloat:
    scalar = bits == 16 ? S::FP16 : bits == 32 ? S::FP32 : S::FP64;
    ok &= bits == 16 || bits == 32 || bits == 64;
    break;
  case kDLBfloat: scalar = S::BF16; ok &= bits == 16; break;
  case kDLInt:
    scalar = bits == 8 ? S::I8 : bits == 16 ? S::I16 : bits == 32 ? S::I32 : S::I64;
    ok &= bits == 8 || bits == 16 || bits == 32 || bits == 64;
    break;
  case kDLUInt:
    scalar = bits == 8 ? S::U8 : bits == 16 ? S::U16 : bits == 32 ? S::U32 : S::U64;
    ok &= bits == 8 || bits == 16 || bits == 32 || bits == 64;
    break;
  case kDLBool: scalar = S::I1; ok &= bits == 8; break;
  case kDLFloat8_e4m3fn: scalar = S::FP8E4M3; ok &= bits == 8; break;
  case kDLFloat8_e5m2: scalar = S::FP8E5M2; ok &= bits == 8; break;
  default: ok = false; scalar = S::FP32;
  }
  if (!ok)
    typeError(std::string("argument '") + param + "': DLPack dtype (code " +
              std::to_string(d.dtype.code) + ", " + std::to_string(bits) +
              " bits, " + std::to_string(d.dtype.lanes) +
              " lanes) is not supported by tilec kernels");
  void *data = static_cast<char *>(d.data) + d.byte_offset;
  if (!interpret) {
    tilec::Arg arg = tilec::Arg::pointer(data, scalar);
    if (d.device.device_type == kDLCUDA)
      arg.device = d.device.device_id; // device memory of that GPU, by DLPack's word
    return arg;
  }
  // The interpreter checks every access against the tensor's extent.
  size_t itemBytes = (bits + 7) / 8, bytes = itemBytes;
  bool empty = false;
  for (int32_t i = 0; i < d.ndim; ++i) {
    int64_t stride = d.strides ? d.strides[i] : 1;
    if (d.shape[i] == 0)
      empty = true;
    else if (d.strides)
      bytes += size_t(d.shape[i] - 1) * size_t(stride < 0 ? -stride : stride) * itemBytes;
  }
  if (!d.strides) {
    bytes = itemBytes;
    for (int32_t i = 0; i < d.ndim; ++i)
      bytes *= size_t(d.shape[i]);
  }
  if (empty)
    bytes = 0;
  return onHost ? tilec::Arg::host(data, bytes, scalar)
                : tilec::Arg::pointer(data, scalar, bytes);
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// How objects of one Python type become pointer arguments, decided once
/// per type.
enum class ObjKind : uint8_t { Torch, CudaArrayInterface, DLPack, HostArray, None };

struct TypeKind {
  PyTypeObject *type;
  ObjKind kind;
};
std::vector<TypeKind> typeKinds;

/// torch._C._cuda_getDevice / _cuda_getCurrentRawStream, once a torch
/// tensor has been seen: launches without stream= go to torch's current
/// stream, as Triton's do.
PyObject *torchGetDevice = nullptr;
PyObject *torchGetStream = nullptr;

void noticeTorch() {
  if (torchGetStream)
    return;
  PyObject *modules = PyImport_GetModuleDict();
  PyObject *torchC = PyDict_GetItemString(modules, "torch._C");
  if (!torchC)
    return;
  PyObject *dev = PyObject_GetAttrString(torchC, "_cuda_getDevice");
  PyObject *stream = PyObject_GetAttrString(torchC, "_cuda_getCurrentRawStream");
  if (!dev || !stream) {
    PyErr_Clear();
    Py_XDECREF(dev);
    Py_XDECREF(stream);
    return;
  }
  torchGetDevice = dev;
  torchGetStream = stream;
}

bool hasAttr(PyObject *o, PyObject *name) {
  int r = PyObject_HasAttr(o, name);
  return r == 1;
}

ObjKind classify(PyObject *o) {
  PyTypeObject *t = Py_TYPE(o);
  for (const TypeKind &k : typeKinds)
    if (k.type == t)
      return k.kind;
  ObjKind kind = ObjKind::None;
  if (hasAttr(o, names.data_ptr) && hasAttr(o, names.dtype) &&
      hasAttr(o, names.is_cuda)) {
    kind = ObjKind::Torch;
    noticeTorch();
  } else if (hasAttr(o, names.cai)) {
    kind = ObjKind::CudaArrayInterface;
  } else if (hasAttr(o, names.array_interface)) {
    kind = ObjKind::HostArray; // numpy and friends: host memory
  } else if (hasAttr(o, names.dlpack)) {
    kind = ObjKind::DLPack;
  }
  Py_INCREF(t);
  typeKinds.push_back({t, kind});
  return kind;
}

/// Owned reference, released at scope exit.
struct Ref {
  PyObject *p;
  explicit Ref(PyObject *p) : p(p) {
    if (!p)
      throwPython();
  }
  ~Ref() { Py_DECREF(p); }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
};

tilec::Arg intArg(PyObject *o, const char *param) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred())
    throwPython();
  if (overflow)
    throw py::value_error(std::string("argument '") + param +
                          "': the integer does not fit in 64 bits");
  if (v >= INT32_MIN && v <= INT32_MAX)
    return tilec::Arg(int32_t(v));
  return tilec::Arg(int64_t(v));
}

/// Bytes spanned by an array interface's shape and strides (None: C order).
size_t arrayExtent(PyObject *shape, PyObject *strides, size_t itemBytes,
                   const char *param) {
  if (!shape || !PyTuple_Check(shape))
    typeError(std::string("argument '") + param + "': the array interface has no shape");
  Py_ssize_t n = PyTuple_GET_SIZE(shape);
  bool strided = strides && strides != Py_None;
  if (strided && (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != n))
    typeError(std::string("argument '") + param + "': bad strides in the array interface");
  size_t bytes = itemBytes;
  for (Py_ssize_t i = 0; i < n; ++i) {
    long long extent = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    if (extent == -1 && PyErr_Occurred())
      throwPython();
    if (extent == 0)
      return 0;
    if (!strided) {
      bytes *= size_t(extent);
      continue;
    }
    long long stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i));
    if (stride == -1 && PyErr_Occurred())
      throwPython();
    if (stride < 0)
      typeError(std::string("argument '") + param +
                "': arrays with negative strides cannot be passed to a kernel");
    bytes += size_t(extent - 1) * size_t(stride);
  }
  return bytes;
}

/// (address, element type, bytes) of an __array_interface__ or
/// __cuda_array_interface__ dict.
tilec::Arg arrayInterfaceArg(PyObject *o, PyObject *attr, bool host, bool interpret,
                             const char *param) {
  const char *what = host ? "__array_interface__" : "__cuda_array_interface__";
  Ref ai(PyObject_GetAttr(o, attr));
  if (!PyDict_Check(ai.p))
    typeError(std::string("argument '") + param + "': " + what + " is not a dict");
  PyObject *typestr = PyDict_GetItem(ai.p, names.typestr);
  PyObject *data = PyDict_GetItem(ai.p, names.data);
  if (!typestr || !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data) ||
      PyTuple_GET_SIZE(data) < 1)
    typeError(std::string("argument '") + param + "': " + what +
              " lacks 'typestr' or 'data'");
  tilec::ScalarType scalar;
  const char *ts = PyUnicode_AsUTF8(typestr);
  if (!scalarFromTypestr(ts, scalar))
    typeError(std::string("argument '") + param + "': array typestr '" +
              (ts ? ts : "?") + "' is not supported by tilec kernels");
  uint64_t address = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
  if (PyErr_Occurred())
    throwPython();
  auto *ptr = reinterpret_cast<void *>(address);
  if (!interpret)
    return tilec::Arg::pointer(ptr, scalar);
  size_t bytes = arrayExtent(PyDict_GetItem(ai.p, names.shape),
                             PyDict_GetItem(ai.p, names.strides),
                             size_t(std::atoi(ts + 2)), param);
  if (!host)
    return tilec::Arg::pointer(ptr, scalar, bytes);
  tilec::Arg arg = tilec::Arg::host(ptr, bytes, scalar);
  // data = (address, read_only): the interpreter refuses stores into it.
  arg.readOnly = PyTuple_GET_SIZE(data) > 1 && PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
  return arg;
}

/// One runtime argument: a tensor-like object (a pointer to its data), an
/// int (i32, or i64 when it does not fit) or a float (fp32). With
/// `interpret`, host arrays (numpy, CPU tensors) are accepted too, and
/// every pointer carries its extent for the interpreter's bounds checks.
/// The bytes of a torch tensor's storage from its first element on: what a
/// debug launch's bounds checks allow (a view may reach anywhere in it).
size_t torchStorageBytesFrom(PyObject *tensor) {
  Ref storage(PyObject_CallMethod(tensor, "untyped_storage", nullptr));
  Ref total(PyObject_CallMethod(storage.p, "nbytes", nullptr));
  Ref offset(PyObject_CallMethod(tensor, "storage_offset", nullptr));
  Ref item(PyObject_CallMethod(tensor, "element_size", nullptr));
  long long t = PyLong_AsLongLong(total.p), o = PyLong_AsLongLong(offset.p),
            e = PyLong_AsLongLong(item.p);
  if (PyErr_Occurred())
    throwPython();
  return t > o * e ? size_t(t - o * e) : 0;
}

tilec::Arg toArg(PyObject *o, const char *param, bool interpret = false,
                 bool wantExtent = false) {
  if (PyBool_Check(o))
    return tilec::Arg(int32_t(o == Py_True));
  if (PyLong_CheckExact(o))
    return intArg(o, param);
  if (PyFloat_Check(o))
    return tilec::Arg(float(PyFloat_AS_DOUBLE(o)));
  if (PyCapsule_CheckExact(o))
    return argFromCapsule(o, param, interpret);
  if (wrapperType && Py_TYPE(o) == reinterpret_cast<PyTypeObject *>(wrapperType)) {
    // tilec.reinterpret(base, dtype): base's memory as elements of dtype.
    Ref base(PyObject_GetAttrString(o, "base"));
    Ref dtype(PyObject_GetAttrString(o, "dtype"));
    Ref name(PyObject_GetAttrString(dtype.p, "name"));
    const char *text = PyUnicode_Check(name.p) ? PyUnicode_AsUTF8(name.p) : nullptr;
    if (!text)
      PyErr_Clear();
    std::optional<tilec::ScalarType> element =
        text ? tilec::parseScalarType(text) : std::nullopt;
    if (!element)
      typeError(std::string("argument '") + param +
                "': tilec.reinterpret with an unknown dtype");
    tilec::Arg arg = toArg(base.p, param, interpret, wantExtent);
    if (arg.kind != tilec::Arg::Kind::Pointer)
      typeError(std::string("argument '") + param +
                "': tilec.reinterpret wraps tensors, not scalars");
    arg.element = *element;
    return arg;
  }
  switch (classify(o)) {
  case ObjKind::Torch: {
    Ref isCuda(PyObject_GetAttr(o, names.is_cuda));
    if (isCuda.p != Py_True && !interpret)
      typeError(std::string("argument '") + param +
                "' is a tensor in host memory; tilec kernels need CUDA "
                "tensors (tensor.cuda()), or the interpreter (TILEC_INTERPRET=1 "
                "or @tilec.jit(interpret=True))");
    Ref dtype(PyObject_GetAttr(o, names.dtype));
    tilec::ScalarType scalar = torchScalar(dtype.p, param);
    Ref ptr(PyObject_CallMethodObjArgs(o, names.data_ptr, nullptr));
    uint64_t address = PyLong_AsUnsignedLongLong(ptr.p);
    if (PyErr_Occurred())
      throwPython();
    auto *data = reinterpret_cast<void *>(address);
    if (!interpret) {
      tilec::Arg arg =
          tilec::Arg::pointer(data, scalar, wantExtent ? torchStorageBytesFrom(o) : 0);
      // A CUDA tensor's data is device memory of its device: the launch
      // compares that with the kernel's GPU instead of asking the driver.
      // (Something torch-like without an int get_device() is asked about.)
      if (PyObject *device = PyObject_CallMethodObjArgs(o, names.get_device, nullptr)) {
        if (PyLong_CheckExact(device)) {
          long ordinal = PyLong_AsLong(device);
          if (ordinal == -1 && PyErr_Occurred())
            PyErr_Clear();
          else if (ordinal >= 0 && ordinal < 1024)
            arg.device = int(ordinal);
        }
        Py_DECREF(device);
      } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
      } else {
        throwPython();
      }
      return arg;
    }
    Ref nbytes(PyObject_GetAttr(o, names.nbytes));
    size_t bytes = PyLong_AsSize_t(nbytes.p);
    if (PyErr_Occurred())
      throwPython();
    return isCuda.p == Py_True ? tilec::Arg::pointer(data, scalar, bytes)
                               : tilec::Arg::host(data, bytes, scalar);
  }
  case ObjKind::CudaArrayInterface:
    return arrayInterfaceArg(o, names.cai, false, interpret, param);
  case ObjKind::DLPack: {
    Ref capsule(PyObject_CallMethodObjArgs(o, names.dlpack, nullptr));
    return argFromCapsule(capsule.p, param, interpret);
  }
  case ObjKind::HostArray:
    if (interpret)
      return arrayInterfaceArg(o, names.array_interface, true, true, param);
    typeError(std::string("argument '") + param + "' is a " + typeName(o) +
              " in host memory; tilec kernels run on the GPU: pass a torch "
              "CUDA tensor, a CuPy array or any object with "
              "__cuda_array_interface__ or __dlpack__ on a CUDA device (or "
              "run the interpreter: TILEC_INTERPRET=1 or "
              "@tilec.jit(interpret=True))");
  case ObjKind::None:
    break;
  }
  if (PyIndex_Check(o)) { // numpy integers and other int-likes
    Ref i(PyNumber_Index(o));
    return intArg(i.p, param);
  }
  if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float) {
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred())
      throwPython();
    return tilec::Arg(float(d));
  }
  typeError(std::string("argument '") + param + "': cannot pass a " + typeName(o) +
            " to a tilec kernel (expected a CUDA tensor, an int or a float)");
}

/// A constexpr value: bool, int, float, a dtype (tl.float16 → "fp16"), a
/// string, or tl.constexpr(x) around one of them.
tilec::Constexpr toConstexpr(PyObject *o, const char *param) {
  if (PyBool_Check(o))
    return tilec::Constexpr(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      throw py::value_error(std::string("constexpr '") + param +
                            "' does not fit in 64 bits");
    if (v == -1 && PyErr_Occurred())
      throwPython();
    return tilec::Constexpr(int64_t(v));
  }
  if (PyFloat_Check(o))
    return tilec::Constexpr(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s)
      throwPython();
    return tilec::Constexpr(std::string(s, size_t(n)));
  }
  if (constexprType && PyObject_TypeCheck(o, reinterpret_cast<PyTypeObject *>(constexprType))) {
    Ref v(PyObject_GetAttr(o, names.value));
    return toConstexpr(v.p, param);
  }
  bool isDType = dtypeType && PyObject_TypeCheck(o, reinterpret_cast<PyTypeObject *>(dtypeType));
  if (!isDType) {
    // triton.language's dtypes, and anything else named like one.
    const char *tn = Py_TYPE(o)->tp_name;
    isDType = std::strcmp(tn, "dtype") == 0 && hasAttr(o, names.name);
  }
  if (isDType) {
    Ref n(PyObject_GetAttr(o, names.name));
    const char *s = PyUnicode_AsUTF8(n.p);
    if (!s)
      throwPython();
    return tilec::Constexpr(std::string(s));
  }
  if (o == Py_None)
    typeError(std::string("constexpr '") + param +
              "' is None: tilec constexprs are ints, floats, bools or dtypes");
  typeError(std::string("constexpr '") + param + "': cannot use a " + typeName(o) +
            " as a constexpr (ints, floats, bools and dtypes can be)");
}

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

/// Uninitialised storage for up to N values of T, destroyed on scope exit.
template <typename T, size_t N>
struct FixedArray {
  alignas(T) unsigned char storage[N * sizeof(T)];
  size_t size = 0;
  T *data() { return reinterpret_cast<T *>(storage); }
  template <typename... A>
  void emplace(A &&...a) { new (data() + size) T(std::forward<A>(a)...); ++size; }
  ~FixedArray() {
    for (size_t i = 0; i < size; ++i)
      data()[i].~T();
  }
};

tilec::Constexprs constexprsFromDict(const py::dict &d);

/// A CUstream from a launch's `stream=`: None (torch's current stream when
/// torch is loaded, else the default stream), an int handle, or an object
/// with .cuda_stream (torch.cuda.Stream). `device`, when not -1, is the GPU
/// torch's stream is asked for instead of torch's current device: that of
/// the launch's tensors, which must be the current one for the launch to
/// go ahead (one torch call fewer per launch).
void *streamOf(PyObject *stream, int device = -1) {
  if (!stream || stream == Py_None) {
    if (!torchGetStream)
      return nullptr;
    if (device >= 0) {
      // (An ordinal torch does not know, from something torch-like: asked
      // the usual way, and the launch's checks say what is wrong.)
      Ref ordinal(PyLong_FromLong(device));
      if (PyObject *s = PyObject_CallOneArg(torchGetStream, ordinal.p)) {
        void *handle = reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(s));
        Py_DECREF(s);
        if (!PyErr_Occurred())
          return handle;
      }
      PyErr_Clear();
    }
    Ref ordinal(PyObject_CallNoArgs(torchGetDevice));
    Ref s(PyObject_CallOneArg(torchGetStream, ordinal.p));
    return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(s.p));
  }
  if (PyLong_Check(stream))
    return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(stream));
  Ref handle(PyObject_GetAttr(stream, names.cuda_stream));
  return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(handle.p));
}

/// A call's arguments as CPython passes them either way: positional ones
/// in an array, keywords as names (a tuple) with their values after the
/// positional ones (vectorcall), or as a dict (tp_call, pybind11's
/// py::kwargs). All borrowed.
struct CallArgs {
  PyObject *const *args = nullptr;
  size_t nargs = 0;
  PyObject *kwnames = nullptr; ///< tuple of str, or null
  PyObject *kwargs = nullptr;  ///< dict, or null (when kwnames is used)

  static CallArgs ofTuple(PyObject *tuple, PyObject *dict) {
    CallArgs c;
    c.args = &PyTuple_GET_ITEM(tuple, 0);
    c.nargs = size_t(PyTuple_GET_SIZE(tuple));
    c.kwargs = dict;
    return c;
  }

  /// fn(key, value) for each keyword, in the call's order.
  template <typename Fn>
  void forEachKeyword(Fn &&fn) const {
    if (kwnames) {
      for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(kwnames); i < n; ++i)
        fn(PyTuple_GET_ITEM(kwnames, i), args[nargs + size_t(i)]);
    } else if (kwargs) {
      PyObject *key, *value;
      Py_ssize_t pos = 0;
      while (PyDict_Next(kwargs, &pos, &key, &value))
        fn(key, value);
    }
  }
};

struct Param {
  std::string name;
  py::object pyName; ///< interned str
  bool isConstexpr;
  py::object defaultValue; ///< null when none
  /// What launches specialise on (do_not_specialize...).
  tilec::Arg::Facts facts = tilec::Arg::Facts::All;
  /// Named as a launch option (num_warps, num_stages): a keyword for it
  /// sets the option too, as in Triton.
  bool isLaunchOption = false;
};

/// The launch state of one kernel: its parameters, their Python defaults,
/// and what the last launch specialised on (for JITFunction.asm).
struct Launcher {
  tilec::Kernel kernel;
  std::vector<Param> params;
  size_t numRuntime = 0;
  size_t numConstexpr = 0;
  /// Launches run in tilec's CPU interpreter (host arrays accepted).
  bool interpret = false;
  /// What the package keeps here (a weak reference to the JITFunction),
  /// for the descriptor hook.
  py::object owner;
  /// Launches compile with debug=True unless a launch says otherwise.
  bool debug = false;
  /// Launches compile with deterministic=True (batch invariance checked)
  /// unless a launch says otherwise.
  bool deterministic = false;

  // The last successful launch.
  uint64_t launches = 0;
  std::vector<tilec::Arg> lastArgs;
  std::vector<tilec::Constexpr> lastConstexprs;
  unsigned lastNumWarps = 4, lastNumStages = 3, lastMaxRegisters = 0;
  bool lastDebug = false, lastDeterministic = false;

  Launcher(tilec::Kernel k, py::dict defaults, bool interpret, py::dict unspecialized,
           bool debug, bool deterministic)
      : kernel(std::move(k)), interpret(interpret), debug(debug),
        deterministic(deterministic) {
    for (const tilec::Parameter &p : kernel.parameters()) {
      Param param;
      param.name = p.name;
      param.pyName = py::reinterpret_steal<py::object>(
          PyUnicode_InternFromString(p.name.c_str()));
      param.isConstexpr = p.isConstexpr;
      param.isLaunchOption = p.name == "num_warps" || p.name == "num_stages";
      if (defaults.contains(param.pyName))
        param.defaultValue = defaults[param.pyName];
      if (unspecialized.contains(param.pyName)) {
        std::string facts = py::str(unspecialized[param.pyName]);
        if (facts != "none" && facts != "alignment")
          throw py::value_error("parameter '" + p.name + "': not specialised on '" + facts +
                                "'; expected 'none' or 'alignment'");
        param.facts = facts == "none" ? tilec::Arg::Facts::None
                                      : tilec::Arg::Facts::NoAlignment;
      }
      (p.isConstexpr ? numConstexpr : numRuntime)++;
      params.push_back(std::move(param));
    }
    if (params.size() > kMaxParams)
      throw py::value_error("kernel '" + kernel.name() + "' has more than " +
                            std::to_string(kMaxParams) + " parameters");
  }

  /// Parameter i's value as a launch passes it.
  tilec::Arg argOf(size_t i, PyObject *value, bool interpretArg = false,
                   bool wantExtent = false) const {
    tilec::Arg a = toArg(value, params[i].name.c_str(), interpretArg, wantExtent);
    a.facts = params[i].facts;
    return a;
  }

  /// What a call binds: each parameter's value (borrowed), num_warps,
  /// num_stages and the stream.
  struct Bound {
    PyObject *values[kMaxParams];
    unsigned numWarps = 4;
    unsigned numStages = 3;
    unsigned maxRegisters = 0; ///< maxnreg; 0: none
    bool debug = false;
    bool deterministic = false;
    bool launchPdl = false; ///< launch_pdl: programmatic dependent launch
    PyObject *stream = nullptr;
  };

  /// A flag keyword (debug=, deterministic=): None keeps the default.
  static void setFlag(PyObject *value, bool &flag) {
    if (value == Py_None)
      return;
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
      throwPython();
    flag = truth != 0;
  }

  void bind(PyObject *args, PyObject *kwargs, Bound &b) const {
    bind(CallArgs::ofTuple(args, kwargs), b);
  }

  void bind(const CallArgs &call, Bound &b) const {
    size_t n = params.size();
    b.debug = debug;
    b.deterministic = deterministic;
    size_t nargs = call.nargs;
    if (nargs > n)
      typeError(kernel.name() + "() takes " + std::to_string(n) +
                " arguments but " + std::to_string(nargs) + " were given");
    for (size_t i = 0; i < n; ++i)
      b.values[i] = i < nargs ? call.args[i] : nullptr;
    call.forEachKeyword([&](PyObject *key, PyObject *value) {
        size_t i = 0;
        for (; i < n; ++i)
          if (params[i].pyName.ptr() == key)
            break;
        if (i == n)
          for (i = 0; i < n; ++i)
            if (PyUnicode_Compare(params[i].pyName.ptr(), key) == 0)
              break;
        if (i < n) {
          if (b.values[i])
            typeError(kernel.name() + "() got multiple values for argument '" +
                      params[i].name + "'");
          b.values[i] = value;
          // A parameter named as a launch option gets the value and sets the
          // option too, as Triton passes it to both (its fused-softmax
          // tutorial has a `num_stages: tl.constexpr`).
          if (!params[i].isLaunchOption || !PyIndex_Check(value))
            return;
        }
        if (key == names.num_warps || PyUnicode_Compare(key, names.num_warps) == 0) {
          long w = PyLong_AsLong(value);
          if (w == -1 && PyErr_Occurred())
            throwPython();
          if (w <= 0 || w > 32 || (w & (w - 1)))
            throw py::value_error("num_warps must be a power of two from 1 to 32, got " +
                                  std::to_string(w));
          b.numWarps = unsigned(w);
        } else if (key == names.stream || PyUnicode_Compare(key, names.stream) == 0) {
          b.stream = value;
        } else if (key == names.num_stages ||
                   PyUnicode_Compare(key, names.num_stages) == 0) {
          long s = PyLong_AsLong(value);
          if (s == -1 && PyErr_Occurred())
            throwPython();
          if (s < 1 || s > 16)
            throw py::value_error("num_stages must be from 1 to 16, got " +
                                  std::to_string(s));
          b.numStages = unsigned(s);
        } else if (PyUnicode_Compare(key, names.num_ctas) == 0) {
          // Triton's cluster option: tilec launches one CTA per program.
          long c = PyLong_AsLong(value);
          if (c == -1 && PyErr_Occurred())
            throwPython();
          if (c != 1)
            throw py::value_error("num_ctas=" + std::to_string(c) +
                                  ": tilec launches one CTA per program (clusters of "
                                  "programs come from tl.range(..., warp_specialize=True, "
                                  "num_ctas=N) in the kernel)");
        } else if (PyUnicode_Compare(key, names.maxnreg) == 0) {
          if (value != Py_None) {
            long r = PyLong_AsLong(value);
            if (r == -1 && PyErr_Occurred())
              throwPython();
            if (r < 16 || r > 255)
              throw py::value_error("maxnreg must be from 16 to 255 (or None), got " +
                                    std::to_string(r));
            b.maxRegisters = unsigned(r);
          }
        } else if (PyUnicode_Compare(key, names.debug) == 0) {
          setFlag(value, b.debug);
        } else if (PyUnicode_Compare(key, names.deterministic) == 0) {
          setFlag(value, b.deterministic);
        } else if (PyUnicode_Compare(key, names.launch_pdl) == 0) {
          setFlag(value, b.launchPdl);
        } else {
          PyErr_Clear();
          typeError(kernel.name() + "() got an unexpected keyword argument '" +
                    py::str(key).cast<std::string>() + "'");
        }
    });
    for (size_t i = 0; i < n; ++i)
      if (!b.values[i]) {
        if (!params[i].defaultValue)
          typeError(kernel.name() + "() missing argument '" + params[i].name + "'");
        b.values[i] = params[i].defaultValue.ptr();
      }
  }

  /// Triton's META: every parameter by name, and num_warps.
  py::dict meta(const Bound &b) const {
    py::dict d;
    for (size_t i = 0; i < params.size(); ++i) {
      PyObject *v = b.values[i];
      if (params[i].isConstexpr && constexprType &&
          PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject *>(constexprType)))
        d[params[i].pyName] = py::handle(v).attr("value");
      else
        d[params[i].pyName] = py::handle(v);
    }
    d["num_warps"] = b.numWarps;
    d["num_stages"] = b.numStages;
    if (b.maxRegisters)
      d["maxnreg"] = b.maxRegisters;
    if (b.debug)
      d["debug"] = true;
    if (b.deterministic)
      d["deterministic"] = true;
    return d;
  }

  static unsigned gridDim(PyObject *v, int axis) {
    long long d = PyLong_AsLongLong(v);
    if (d == -1 && PyErr_Occurred())
      throwPython();
    if (d < 0 || d > 0x7fffffffLL)
      throw py::value_error("grid dimension " + std::to_string(axis) +
                            " out of range: " + std::to_string(d));
    return unsigned(d);
  }

  static tilec::Grid parseGrid(PyObject *g) {
    tilec::Grid grid;
    if (PyLong_Check(g)) {
      grid.x = gridDim(g, 0);
      return grid;
    }
    if (!PyTuple_Check(g) && !PyList_Check(g))
      typeError(std::string("the grid must be a tuple of 1 to 3 ints or a callable "
                            "returning one, got ") + typeName(g));
    Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
    if (n < 1 || n > 3)
      throw py::value_error("the grid must have 1 to 3 dimensions, got " +
                            std::to_string(n));
    PyObject **items = PySequence_Fast_ITEMS(g);
    grid.x = gridDim(items[0], 0);
    if (n > 1)
      grid.y = gridDim(items[1], 1);
    if (n > 2)
      grid.z = gridDim(items[2], 2);
    return grid;
  }

  void launch(PyObject *gridObj, const CallArgs &call) {
    Bound b;
    bind(call, b);
    tilec::Grid grid;
    if (PyCallable_Check(gridObj)) {
      py::object g = py::reinterpret_borrow<py::object>(gridObj)(meta(b));
      grid = parseGrid(g.ptr());
    } else {
      grid = parseGrid(gridObj);
    }

    FixedArray<tilec::Arg, kMaxParams> argv;
    FixedArray<tilec::Constexpr, kMaxParams> cx;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].isConstexpr)
        cx.emplace(toConstexpr(b.values[i], params[i].name.c_str()));
      else
        argv.emplace(argOf(i, b.values[i], interpret, b.debug));
    }
    tilec::LaunchOptions options;
    options.numWarps = b.numWarps;
    options.numStages = b.numStages;
    options.maxRegisters = b.maxRegisters;
    options.debug = b.debug;
    options.deterministic = b.deterministic;
    options.launchPdl = b.launchPdl;
    if (interpret) {
      // Device memory is staged with synchronous copies on the legacy
      // default stream, which wait for work queued before them.
      options.backend = tilec::Backend::Interpreter;
    } else {
      options.backend = tilec::Backend::GPU;
      // (The tensors' GPU: a launch whose tensors are not on the current
      // GPU fails its pointer checks, whichever stream it was given.)
      int device = -1;
      for (size_t i = 0; i < argv.size && device < 0; ++i)
        device = argv.data()[i].device;
      options.stream = streamOf(b.stream, device);
    }
    // A grid dimension of 0 is refused by Kernel::launch, naming the axis.
    {
      py::gil_scoped_release release;
      kernel.launch(grid, argv.data(), argv.size, cx.data(), cx.size, options);
    }
    ++launches;
    lastArgs.assign(argv.data(), argv.data() + argv.size);
    lastConstexprs.assign(cx.data(), cx.data() + cx.size);
    lastNumWarps = b.numWarps;
    lastNumStages = b.numStages;
    lastMaxRegisters = b.maxRegisters;
    lastDebug = b.debug;
    lastDeterministic = b.deterministic;
  }

  /// Kernel::tune over Python configs [(constexprs dict, num_warps,
  /// num_stages)] and grids [tuple]; args/kwargs bind as for a launch
  /// (kwargs holding some value for every tuned constexpr).
  tilec::TuneReport tune(py::list configs, py::list grids, py::tuple args, py::dict kwargs,
                         py::dict options) {
    Bound b;
    bind(args.ptr(), kwargs.ptr(), b);
    std::vector<tilec::Arg> argv;
    for (size_t i = 0; i < params.size(); ++i)
      if (!params[i].isConstexpr)
        argv.push_back(argOf(i, b.values[i], false, b.debug));
    std::vector<tilec::Config> cs;
    for (auto item : configs) {
      py::tuple t = item.cast<py::tuple>();
      tilec::Config c;
      c.constexprs = constexprsFromDict(t[0].cast<py::dict>());
      c.numWarps = t[1].cast<unsigned>();
      c.numStages = t[2].cast<unsigned>();
      if (t.size() > 3 && !t[3].is_none())
        c.maxRegisters = t[3].cast<unsigned>();
      cs.push_back(std::move(c));
    }
    std::vector<tilec::Grid> gs;
    for (auto g : grids)
      gs.push_back(parseGrid(g.ptr()));
    tilec::TuneOptions o;
    if (options.contains("warmup")) o.warmupMs = options["warmup"].cast<double>();
    if (options.contains("rep")) o.repMs = options["rep"].cast<double>();
    if (options.contains("bytes")) o.bytes = options["bytes"].cast<double>();
    if (options.contains("flops")) o.flops = options["flops"].cast<double>();
    if (options.contains("key")) o.key = options["key"].cast<std::string>();
    if (options.contains("force")) o.force = options["force"].cast<bool>();
    if (options.contains("progress")) o.progress = options["progress"].cast<bool>();
    if (options.contains("database")) o.useDatabase = options["database"].cast<bool>();
    // Hooks run Python with the GIL taken back; `options` (held by the
    // caller) keeps the callables alive for the call.
    if (options.contains("before") && !options["before"].is_none()) {
      PyObject *f = options["before"].ptr();
      o.beforeLaunch = [f](size_t config) {
        py::gil_scoped_acquire gil;
        py::handle hook(f);
        hook(config);
      };
    }
    if (options.contains("after") && !options["after"].is_none()) {
      PyObject *f = options["after"].ptr();
      o.afterLaunch = [f](size_t config, const char *error) {
        py::gil_scoped_acquire gil;
        py::handle hook(f);
        if (error)
          hook(config, py::str(error));
        else
          hook(config, py::none());
      };
    }
    o.stream = streamOf(b.stream);
    o.debug = b.debug;
    o.deterministic = b.deterministic;
    py::gil_scoped_release release;
    return kernel.tune(cs, gs, argv, o);
  }

  /// What a launch with these arguments would compile, without launching:
  /// (signature, {constexpr name: value}, num_warps, num_stages, maxnreg or
  /// 0, debug, deterministic). A str in a runtime
  /// position is taken as that argument's signature entry ("*fp16:16").
  py::tuple specialize(py::args args, py::kwargs kwargs) const {
    Bound b;
    bind(args.ptr(), kwargs.ptr(), b);
    std::string signature;
    py::dict constexprs;
    for (size_t i = 0; i < params.size(); ++i) {
      PyObject *v = b.values[i];
      if (params[i].isConstexpr) {
        tilec::Constexpr c = toConstexpr(v, params[i].name.c_str());
        py::object value;
        if (auto *x = std::get_if<int64_t>(&c.value)) value = py::int_(*x);
        else if (auto *d = std::get_if<double>(&c.value)) value = py::float_(*d);
        else if (auto *t = std::get_if<bool>(&c.value)) value = py::bool_(*t);
        else value = py::str(std::get<std::string>(c.value));
        constexprs[params[i].pyName] = value;
        continue;
      }
      std::string entry;
      if (PyUnicode_Check(v))
        entry = py::handle(v).cast<std::string>();
      else
        entry = argOf(i, v).signature();
      signature += (signature.empty() ? "" : ",") + entry;
    }
    return py::make_tuple(signature, constexprs, b.numWarps, b.numStages, b.maxRegisters,
                          b.debug, b.deterministic);
  }

  /// The last launch's specialisation, as specialize() returns it; None
  /// before the first launch.
  py::object lastSpecialization() const {
    if (!launches)
      return py::none();
    std::string signature;
    for (const tilec::Arg &a : lastArgs)
      signature += (signature.empty() ? "" : ",") + a.signature();
    py::dict constexprs;
    size_t j = 0;
    for (const Param &p : params) {
      if (!p.isConstexpr)
        continue;
      const tilec::Constexpr &c = lastConstexprs[j++];
      py::object value;
      if (auto *x = std::get_if<int64_t>(&c.value)) value = py::int_(*x);
      else if (auto *d = std::get_if<double>(&c.value)) value = py::float_(*d);
      else if (auto *t = std::get_if<bool>(&c.value)) value = py::bool_(*t);
      else value = py::str(std::get<std::string>(c.value));
      constexprs[p.pyName] = value;
    }
    return py::make_tuple(signature, constexprs, lastNumWarps, lastNumStages,
                          lastMaxRegisters, lastDebug, lastDeterministic);
  }
};

/// Host-side tensor descriptors (tilec.TensorDescriptor) as arguments: the
/// package launches those calls itself (through a kernel that makes the
/// descriptors and calls this one); set_descriptor_hook registers the type
/// and that hook. A launch without one pays a type compare per argument.
PyTypeObject *descriptorType = nullptr;
py::object *descriptorHook = nullptr; // dropped at exit (see PYBIND11_MODULE)

bool hasDescriptor(const CallArgs &call) {
  if (!descriptorType)
    return false;
  for (size_t i = 0; i < call.nargs; ++i)
    if (Py_TYPE(call.args[i]) == descriptorType)
      return true;
  bool found = false;
  call.forEachKeyword([&](PyObject *, PyObject *value) {
    found |= Py_TYPE(value) == descriptorType;
  });
  return found;
}

/// Launches `l` on `grid` with a call's positional arguments (a tuple) and
/// keywords (a dict or null): through the descriptor hook when an argument
/// is a tensor descriptor.
void launchOrHook(Launcher &l, PyObject *grid, const CallArgs &call) {
  if (hasDescriptor(call)) {
    // hook(owner, grid, *args, **kwargs)
    Ref all(PyTuple_New(Py_ssize_t(call.nargs) + 2));
    PyObject *owner = l.owner ? l.owner.ptr() : Py_None; // (a Launcher made by hand)
    Py_INCREF(owner);
    PyTuple_SET_ITEM(all.p, 0, owner);
    Py_INCREF(grid);
    PyTuple_SET_ITEM(all.p, 1, grid);
    for (size_t i = 0; i < call.nargs; ++i) {
      Py_INCREF(call.args[i]);
      PyTuple_SET_ITEM(all.p, Py_ssize_t(i) + 2, call.args[i]);
    }
    Ref keywords(PyDict_New());
    call.forEachKeyword([&](PyObject *key, PyObject *value) {
      if (PyDict_SetItem(keywords.p, key, value) < 0)
        throwPython();
    });
    Ref result(PyObject_Call(descriptorHook->ptr(), all.p, keywords.p));
    return;
  }
  l.launch(grid, call);
}

/// A tilec::Error as the Python exception tilec._tilec.Error, its text
/// passed through the package's hook (set_error_hook).
void setTilecError(const tilec::Error &e) {
  if (errorHook) {
    PyObject *fixed = PyObject_CallFunction(errorHook, "s", e.what());
    if (fixed && PyUnicode_Check(fixed)) {
      PyErr_SetObject(errorType, fixed);
      Py_DECREF(fixed);
      return;
    }
    Py_XDECREF(fixed);
    PyErr_Clear();
  }
  PyErr_SetString(errorType, e.what());
}

/// In a catch block of the raw CPython entry points below: sets the Python
/// error for the exception being handled, as pybind11's dispatcher does.
void setPythonErrorFromCurrent() {
  try {
    throw;
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (const py::builtin_exception &e) {
    e.set_error();
  } catch (const tilec::Error &e) {
    setTilecError(e);
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  } catch (const std::domain_error &e) { // pybind11's mapping of the standard ones
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::invalid_argument &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::length_error &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::out_of_range &e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const std::range_error &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::overflow_error &e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "tilec: unknown C++ exception");
  }
}

//===----------------------------------------------------------------------===//
// kernel[grid](...) without pybind11's dispatch
//===----------------------------------------------------------------------===//
//
// A warm launch's host time is what issue 15 bounds (bench/small_kernel.py:
// the launcher's own share next to a bare cuLaunchKernel). pybind11's
// dispatcher, with its py::args/py::kwargs copies and a registered instance
// for every `kernel[grid]` result, cost several hundred nanoseconds of it;
// these two plain CPython types take its place on that path.

/// `kernel[grid]`: a launcher bound to a grid, called with the arguments
/// (through vectorcall: no tuple or dict is built for the call).
struct BoundLaunchObject {
  PyObject_HEAD
  PyObject *owner; ///< the Launcher's Python object: keeps `impl` alive
  Launcher *impl;
  PyObject *grid;
  vectorcallfunc vectorcall;
};

/// Launcher.launch_handle: the Launcher as an object whose [grid] makes a
/// BoundLaunch (what JITFunction.__getitem__ calls).
struct LaunchHandleObject {
  PyObject_HEAD
  PyObject *owner;
  Launcher *impl;
};

PyTypeObject boundLaunchType = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject launchHandleType = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyMappingMethods launchHandleMapping = {};

PyObject *boundLaunchVectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames) {
  auto *b = reinterpret_cast<BoundLaunchObject *>(self);
  CallArgs call;
  call.args = args;
  call.nargs = size_t(PyVectorcall_NARGS(nargsf));
  call.kwnames = kwnames && PyTuple_GET_SIZE(kwnames) ? kwnames : nullptr;
  try {
    launchOrHook(*b->impl, b->grid, call);
  } catch (...) {
    setPythonErrorFromCurrent();
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject *newBoundLaunch(PyObject *owner, Launcher *impl, PyObject *grid) {
  auto *b = PyObject_New(BoundLaunchObject, &boundLaunchType);
  if (!b)
    return nullptr;
  Py_INCREF(owner);
  Py_INCREF(grid);
  b->owner = owner;
  b->impl = impl;
  b->grid = grid;
  b->vectorcall = boundLaunchVectorcall;
  return reinterpret_cast<PyObject *>(b);
}

void boundLaunchDealloc(PyObject *self) {
  auto *b = reinterpret_cast<BoundLaunchObject *>(self);
  Py_DECREF(b->owner);
  Py_DECREF(b->grid);
  PyObject_Free(self);
}

PyObject *newLaunchHandle(PyObject *owner, Launcher *impl) {
  auto *h = PyObject_New(LaunchHandleObject, &launchHandleType);
  if (!h)
    return nullptr;
  Py_INCREF(owner);
  h->owner = owner;
  h->impl = impl;
  return reinterpret_cast<PyObject *>(h);
}

void launchHandleDealloc(PyObject *self) {
  Py_DECREF(reinterpret_cast<LaunchHandleObject *>(self)->owner);
  PyObject_Free(self);
}

PyObject *launchHandleSubscript(PyObject *self, PyObject *grid) {
  auto *h = reinterpret_cast<LaunchHandleObject *>(self);
  return newBoundLaunch(h->owner, h->impl, grid);
}

/// Readies the two types and adds them to the module.
void addLaunchTypes(py::module_ &m) {
  boundLaunchType.tp_name = "tilec._tilec.BoundLaunch";
  boundLaunchType.tp_basicsize = sizeof(BoundLaunchObject);
  boundLaunchType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  boundLaunchType.tp_doc = "kernel[grid]: call it with the kernel's arguments to launch.";
  boundLaunchType.tp_dealloc = boundLaunchDealloc;
  boundLaunchType.tp_vectorcall_offset = offsetof(BoundLaunchObject, vectorcall);
  boundLaunchType.tp_call = PyVectorcall_Call;
  launchHandleMapping.mp_subscript = launchHandleSubscript;
  launchHandleType.tp_name = "tilec._tilec.LaunchHandle";
  launchHandleType.tp_basicsize = sizeof(LaunchHandleObject);
  launchHandleType.tp_flags = Py_TPFLAGS_DEFAULT;
  launchHandleType.tp_doc = "A Launcher's handle[grid]: a BoundLaunch, as Launcher[grid].";
  launchHandleType.tp_dealloc = launchHandleDealloc;
  launchHandleType.tp_as_mapping = &launchHandleMapping;
  if (PyType_Ready(&boundLaunchType) < 0 || PyType_Ready(&launchHandleType) < 0)
    throwPython();
  Py_INCREF(&boundLaunchType);
  m.add_object("BoundLaunch", py::handle(reinterpret_cast<PyObject *>(&boundLaunchType)));
  Py_INCREF(&launchHandleType);
  m.add_object("LaunchHandle", py::handle(reinterpret_cast<PyObject *>(&launchHandleType)));
}

tilec::Constexprs constexprsFromDict(const py::dict &d) {
  tilec::Constexprs out;
  for (auto item : d) {
    std::string name = py::str(item.first);
    out.emplace(name, toConstexpr(item.second.ptr(), name.c_str()));
  }
  return out;
}

tilec::Global globalFrom(const std::string &name, const py::handle &spec) {
  if (!py::isinstance<py::tuple>(spec) || py::len(spec) != 2)
    typeError("global '" + name + "': expected a (kind, value) tuple");
  std::string kind = py::str(spec[py::int_(0)]);
  py::handle value = spec[py::int_(1)];
  if (kind == "const")
    return tilec::Global(toConstexpr(value.ptr(), name.c_str()));
  if (kind == "kernel")
    return tilec::Global(value.cast<tilec::Kernel>());
  if (kind == "module")
    return tilec::Global::module(py::str(value));
  if (kind == "builtin")
    return tilec::Global::builtin(py::str(value));
  throw py::value_error("global '" + name + "': unknown kind '" + kind + "'");
}

} // namespace

PYBIND11_MODULE(_tilec, m) {
  m.doc() = "tilec's C++ API (include/tilec/tilec.h), for the tilec package";
  internNames();
  // tilec::Error (compile errors, bad arguments, CUDA errors) raises
  // tilec._tilec.Error, a RuntimeError, its text passed through the hook
  // the package sets (set_error_hook: it puts back the indentation that
  // textwrap.dedent took from nested kernels' error columns).
  errorType = PyErr_NewException("tilec._tilec.Error", PyExc_RuntimeError, nullptr);
  m.add_object("Error", py::handle(errorType));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tilec::Error &e) {
      setTilecError(e);
    }
  });
  addLaunchTypes(m);
  m.def("set_error_hook",
        [](py::object hook) {
          Py_XDECREF(errorHook);
          errorHook = hook.is_none() ? nullptr : hook.release().ptr();
        },
        "hook(message) -> message, applied to the text of every tilec error.");

  m.def("set_language_types",
        [](py::object constexprCls, py::object dtypeCls, py::object wrapperCls) {
          Py_XDECREF(constexprType);
          Py_XDECREF(dtypeType);
          Py_XDECREF(wrapperType);
          constexprType = constexprCls.release().ptr();
          dtypeType = dtypeCls.release().ptr();
          wrapperType = wrapperCls.release().ptr();
        },
        "Registers tilec.language's constexpr and dtype classes and "
        "tilec.TensorWrapper.");
  m.def("cuda_available",
        []() {
          std::string why;
          bool ok = tilec::cudaAvailable(&why);
          return py::make_tuple(ok, why);
        },
        "(True, '') when a CUDA driver and a GPU are there, else (False, why).");
  m.def("device_properties",
        [](int ordinal) {
          tilec::DeviceProperties p;
          {
            py::gil_scoped_release release;
            p = tilec::deviceProperties(ordinal);
          }
          py::dict d;
          d["name"] = p.name;
          d["ordinal"] = p.ordinal;
          d["compute_capability"] = p.computeCapability;
          d["multiprocessor_count"] = p.multiprocessorCount;
          d["max_shared_mem"] = p.maxSharedMemoryPerBlock;
          d["max_num_regs"] = p.maxRegistersPerBlock;
          d["max_threads_per_sm"] = p.maxThreadsPerMultiprocessor;
          d["warpSize"] = p.warpSize;
          d["sm_clock_rate"] = p.smClockKHz;
          d["mem_clock_rate"] = p.memoryClockKHz;
          d["mem_bus_width"] = p.memoryBusWidthBits;
          d["l2_cache_size"] = p.l2CacheBytes;
          return d;
        },
        py::arg("ordinal") = -1,
        "The GPU's properties under Triton's names (max_shared_mem, max_num_regs, "
        "multiprocessor_count, warpSize, ...); ordinal -1: the current GPU.");
  m.def("known_targets", &tilec::knownTargets,
        "Every GPU target compile() accepts: 'sm_80, sm_86, ..., sm_120a'.");
  m.def("default_target", &tilec::defaultTarget,
        "The target compile() uses when given none, and launches use: the current "
        "GPU's ('sm_80' on an A100, 'sm_90a' on an H100), 'sm_90a' without a GPU.");
  m.def("target_runs_on_gpu", &tilec::targetRunsOnCurrentGPU, py::arg("target"),
        "True when PTX for `target` can run on the current GPU; False without one.");
  m.def("builtin_names", &tilec::builtinNames,
        "Every builtin the compiler implements, sorted: 'tl.load', ... for the "
        "members of tilec.language, 'min', ... for Python's.");
  m.def("summarize_ptx", &tilec::summarizePTX, py::arg("ptx"));
  m.def("set_recompile_hook",
        [](py::object hook) {
          if (hook.is_none()) {
            tilec::setRecompileHook(nullptr);
            return;
          }
          // Compiles run with the GIL released; the hook takes it back.
          auto shared = std::make_shared<py::object>(std::move(hook));
          tilec::setRecompileHook([shared](const tilec::RecompileEvent &e) {
            py::gil_scoped_acquire gil;
            try {
              (*shared)(e.kernel, e.path, e.reasons);
            } catch (py::error_already_set &err) {
              err.discard_as_unraisable("tilec recompile hook");
            }
          });
        },
        py::arg("hook"),
        "hook(kernel, path, reasons) for every recompile of a kernel seen before; None removes it.");
  // The hook holds a Python object in a C++ static; drop it while the
  // interpreter is still alive, not in static destruction after it is gone.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([]() { tilec::setRecompileHook(nullptr); }));
  m.def("set_descriptor_hook",
        [](py::object type, py::object hook) {
          if (!PyType_Check(type.ptr()))
            throw py::type_error("set_descriptor_hook: the first argument must be a type");
          delete descriptorHook;
          Py_XDECREF(reinterpret_cast<PyObject *>(descriptorType));
          descriptorType = reinterpret_cast<PyTypeObject *>(type.release().ptr());
          descriptorHook = new py::object(std::move(hook));
        },
        py::arg("type"), py::arg("hook"),
        "Launches given an instance of `type` call hook(owner, grid, *args, **kwargs) "
        "instead (tilec.TensorDescriptor's).");
  py::module_::import("atexit").attr("register")(py::cpp_function([]() {
    delete descriptorHook;
    descriptorHook = nullptr;
    Py_XDECREF(reinterpret_cast<PyObject *>(descriptorType));
    descriptorType = nullptr;
  }));
  m.def("cache_dir", &tilec::cache::directory);
  m.def("cache_list", []() {
    py::list out;
    for (const tilec::cache::Entry &e : tilec::cache::list())
      out.append(py::dict(py::arg("key") = e.key, py::arg("kernel") = e.kernel,
                          py::arg("signature") = e.signature,
                          py::arg("cubin_arch") = e.cubinArch, py::arg("bytes") = e.bytes,
                          py::arg("modified") = e.modified));
    return out;
  });
  m.def("cache_show", &tilec::cache::show, py::arg("key"));
  m.def("cache_size", &tilec::cache::sizeBytes);
  m.def("cache_clear", &tilec::cache::clear);

  py::class_<tilec::CompiledKernel>(m, "CompiledKernel")
      .def_property_readonly("tile", &tilec::CompiledKernel::tile)
      .def_property_readonly("tilegpu", &tilec::CompiledKernel::tilegpu)
      .def_property_readonly("llir", &tilec::CompiledKernel::llir)
      .def_property_readonly("ptx", &tilec::CompiledKernel::ptx)
      .def_property_readonly("shared_bytes", &tilec::CompiledKernel::sharedBytes)
      .def_property_readonly("num_warps", &tilec::CompiledKernel::numWarps)
      .def_property_readonly("num_stages", &tilec::CompiledKernel::numStages)
      .def_property_readonly("cluster_size", &tilec::CompiledKernel::clusterSize)
      .def("max_active_clusters", &tilec::CompiledKernel::maxActiveClusters)
      .def_property_readonly("maxnreg", &tilec::CompiledKernel::maxRegisters)
      .def_property_readonly("debug", &tilec::CompiledKernel::debug)
      .def_property_readonly("tensor_maps", &tilec::CompiledKernel::tensorMaps)
      .def_property_readonly("deterministic", &tilec::CompiledKernel::deterministic)
      .def_property_readonly("compile_ms", &tilec::CompiledKernel::compileMilliseconds)
      .def_property_readonly("from_cache", &tilec::CompiledKernel::fromDiskCache)
      .def_property_readonly("cache_key", &tilec::CompiledKernel::cacheKey)
      .def_property_readonly("target", &tilec::CompiledKernel::target)
      .def("launch",
           [](const tilec::CompiledKernel &k, py::object grid, py::tuple args,
              py::list names, py::object stream, bool launchPdl) {
             std::vector<tilec::Arg> argv;
             for (size_t i = 0; i < args.size(); ++i) {
               std::string name = i < names.size() ? py::str(names[i]).cast<std::string>()
                                                   : "#" + std::to_string(i + 1);
               argv.push_back(toArg(args[i].ptr(), name.c_str(), false, k.debug()));
             }
             tilec::Grid g = Launcher::parseGrid(grid.ptr());
             void *s = streamOf(stream.ptr());
             py::gil_scoped_release release;
             k.launch(g, argv, s, launchPdl);
           },
           py::arg("grid"), py::arg("args"), py::arg("names"), py::arg("stream") = py::none(),
           py::arg("launch_pdl") = false,
           "Launch this specialisation; args are its runtime arguments, checked "
           "against its signature (launch_pdl: programmatic dependent launch).")
      .def_property_readonly("num_registers", &tilec::CompiledKernel::numRegisters,
                             "Registers per thread once loaded on the GPU; -1 before.")
      .def_property_readonly("spill_bytes", &tilec::CompiledKernel::spillBytes,
                             "Local memory per thread once loaded on the GPU; -1 before.")
      .def("load",
           [](const tilec::CompiledKernel &k) {
             py::gil_scoped_release release;
             k.load();
           },
           "Load the machine code on the current GPU, as a first launch does.")
      .def("cubin", [](const tilec::CompiledKernel &k) {
        std::vector<char> bytes;
        {
          py::gil_scoped_release release;
          bytes = k.cubin();
        }
        return py::bytes(bytes.data(), bytes.size());
      }, "Machine code for the current GPU (needs a CUDA driver).")
      .def("jit_log", [](const tilec::CompiledKernel &k) {
        py::gil_scoped_release release;
        return k.jitLog();
      }, "The CUDA driver compiler's info log of assembling the PTX for the current GPU "
         "(registers, spills, its warnings).");

  py::class_<tilec::Kernel>(m, "Kernel")
      .def_property_readonly("name", &tilec::Kernel::name)
      .def_property_readonly("parameters", [](const tilec::Kernel &k) {
        py::list out;
        for (const tilec::Parameter &p : k.parameters())
          out.append(py::make_tuple(p.name, p.isConstexpr, p.hasDefault));
        return out;
      }, "[(name, is_constexpr, has_default)] in the order of the definition")
      .def("compile",
           [](const tilec::Kernel &k, const std::string &signature, py::dict constexprs,
              unsigned numWarps, py::object target, unsigned numStages,
              unsigned maxRegisters, bool debug, bool deterministic) {
             tilec::Constexprs values = constexprsFromDict(constexprs);
             std::string chip = target.is_none() ? std::string() : py::str(target).cast<std::string>();
             if (!target.is_none() && chip.empty())
               throw py::value_error("target must be a GPU target name (" +
                                     tilec::knownTargets() + ") or None, got ''");
             py::gil_scoped_release release;
             return k.compile(signature, values, numWarps, chip, numStages, maxRegisters,
                              debug, deterministic);
           },
           py::arg("signature"), py::arg("constexprs") = py::dict(),
           py::arg("num_warps") = 4, py::arg("target") = py::none(),
           py::arg("num_stages") = 3, py::arg("maxnreg") = 0, py::arg("debug") = false,
           py::arg("deterministic") = false,
           "Compile for `target`; None: tilec.default_target() (the current GPU's, "
           "else sm_90a).");

  py::class_<tilec::Library>(m, "Library")
      .def_static("from_file", &tilec::Library::fromFile, py::arg("path"))
      .def_static("from_string", &tilec::Library::fromString, py::arg("source"),
                  py::arg("name") = "<string>")
      .def_static(
          "from_function",
          [](const std::string &source, const std::string &path, unsigned firstLine,
             py::dict globals) {
            std::map<std::string, tilec::Global> g;
            for (auto item : globals) {
              std::string name = py::str(item.first);
              g.emplace(name, globalFrom(name, item.second));
            }
            return tilec::Library::fromFunction(source, path, firstLine, g);
          },
          py::arg("source"), py::arg("path"), py::arg("first_line"),
          py::arg("globals"),
          "One Python function's source, parsed now; see the overload with "
          "name and parameters, which parses on the first compile.")
      .def_static(
          "from_function",
          [](const std::string &source, const std::string &path, unsigned firstLine,
             py::dict globals, const std::string &name, py::list parameters) {
            std::map<std::string, tilec::Global> g;
            for (auto item : globals) {
              std::string gname = py::str(item.first);
              g.emplace(gname, globalFrom(gname, item.second));
            }
            std::vector<tilec::Parameter> params;
            for (auto p : parameters) {
              auto t = p.cast<py::tuple>();
              params.push_back(tilec::Parameter{t[0].cast<std::string>(), t[1].cast<bool>(),
                                                t[2].cast<bool>()});
            }
            return tilec::Library::fromFunction(source, path, firstLine, g, name, params);
          },
          py::arg("source"), py::arg("path"), py::arg("first_line"),
          py::arg("globals"), py::arg("name"), py::arg("parameters"),
          "One Python function's source; globals maps each name it uses to "
          "(kind, value): ('const', 3), ('kernel', Kernel), ('module', 'tl'), "
          "('builtin', 'arange').")
      .def("kernel", &tilec::Library::kernel, py::arg("name"));

  py::class_<tilec::TuneReport>(m, "TuneReport")
      .def_readonly("kernel", &tilec::TuneReport::kernel)
      .def_readonly("gpu", &tilec::TuneReport::gpu)
      .def_readonly("target", &tilec::TuneReport::target)
      .def_readonly("key", &tilec::TuneReport::key)
      .def_readonly("signature", &tilec::TuneReport::signature)
      .def_readonly("best", &tilec::TuneReport::best)
      .def_property_readonly("reused", &tilec::TuneReport::reused)
      .def_property_readonly("results", [](const tilec::TuneReport &r) {
        py::list out;
        for (const tilec::TuneResult &x : r.results) {
          py::dict c;
          for (const auto &[name, value] : x.config.constexprs) {
            if (auto *i = std::get_if<int64_t>(&value.value)) c[py::str(name)] = *i;
            else if (auto *d = std::get_if<double>(&value.value)) c[py::str(name)] = *d;
            else if (auto *t = std::get_if<bool>(&value.value)) c[py::str(name)] = *t;
            else c[py::str(name)] = std::get<std::string>(value.value);
          }
          out.append(py::dict(
              py::arg("config") = x.config.str(), py::arg("constexprs") = c,
              py::arg("num_warps") = x.config.numWarps,
              py::arg("num_stages") = x.config.numStages,
              py::arg("maxnreg") = x.config.maxRegisters, py::arg("ok") = x.ok,
              py::arg("error") = x.error, py::arg("median_ms") = x.medianMs,
              py::arg("min_ms") = x.minMs, py::arg("max_ms") = x.maxMs,
              py::arg("gb_per_s") = x.gbPerSecond, py::arg("tflops") = x.tflops,
              py::arg("registers") = x.registers, py::arg("shared_bytes") = x.sharedBytes,
              py::arg("spill_bytes") = x.spillBytes,
              py::arg("from_database") = x.fromDatabase,
              py::arg("dropped_for_shared_memory") = x.droppedForSharedMemory));
        }
        return out;
      })
      .def("table", &tilec::TuneReport::table)
      .def("csv", &tilec::TuneReport::csv)
      .def("json", &tilec::TuneReport::json)
      .def("svg", &tilec::TuneReport::svg)
      .def("__str__", &tilec::TuneReport::table);

  py::class_<Launcher>(m, "Launcher")
      .def(py::init<tilec::Kernel, py::dict, bool, py::dict, bool, bool>(), py::arg("kernel"),
           py::arg("defaults") = py::dict(), py::arg("interpret") = false,
           py::arg("unspecialized") = py::dict(), py::arg("debug") = false,
           py::arg("deterministic") = false)
      .def_property_readonly("interpret", [](const Launcher &l) { return l.interpret; })
      .def_property_readonly("debug", [](const Launcher &l) { return l.debug; })
      .def_property_readonly("deterministic",
                             [](const Launcher &l) { return l.deterministic; })
      .def("__getitem__",
           [](py::object self, py::object grid) {
             return py::reinterpret_steal<py::object>(
                 newBoundLaunch(self.ptr(), self.cast<Launcher *>(), grid.ptr()));
           })
      .def_property_readonly(
          "launch_handle",
          [](py::object self) {
            return py::reinterpret_steal<py::object>(
                newLaunchHandle(self.ptr(), self.cast<Launcher *>()));
          },
          "handle[grid] is launcher[grid] without pybind11's dispatch: keep it for "
          "warm launches")
      .def("run",
           [](Launcher &l, py::object grid, py::args args, py::kwargs kwargs) {
             launchOrHook(l, grid.ptr(), CallArgs::ofTuple(args.ptr(), kwargs.ptr()));
           })
      .def_readwrite("owner", &Launcher::owner)
      .def("specialize", &Launcher::specialize)
      .def("tune", &Launcher::tune, py::arg("configs"), py::arg("grids"), py::arg("args"),
           py::arg("kwargs"), py::arg("options"))
      .def("last_specialization", &Launcher::lastSpecialization)
      .def_property_readonly("launches", [](const Launcher &l) { return l.launches; })
      .def_property_readonly("kernel", [](const Launcher &l) { return l.kernel; });

}
