#include "operand.h"

#include <string>
#include <utility>
#include <vector>

namespace aclnn_py {
namespace {

constexpr int32_t kDlpackCpu = 1;
constexpr uint8_t kDlpackInt = 0, kDlpackUInt = 1, kDlpackFloat = 2, kDlpackComplex = 5, kDlpackBfloat = 4,
                  kDlpackBool = 6;

[[noreturn]] void Throw(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

std::string TypeName(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__name__")); }

// The aclDataType of a buffer-protocol format (struct module syntax, one element), or
// ACL_DT_UNDEFINED. Sets *foreign_order for a byte order other than this machine's.
aclDataType FormatDtype(const char* format, bool bf16_bits, bool* foreign_order) {
  *foreign_order = false;
  const bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (*format == '@' || *format == '=') ++format;
  if (*format == '<' || *format == '>' || *format == '!') {
    *foreign_order = (*format == '<') != little;
    ++format;
  }
  const std::string f = format;
  if (f == "f") return ACL_FLOAT;
  if (f == "e") return ACL_FLOAT16;
  if (f == "d") return ACL_DOUBLE;
  if (f == "H") return bf16_bits ? ACL_BF16 : ACL_UINT16;
  if (f == "h") return ACL_INT16;
  if (f == "b") return ACL_INT8;
  if (f == "B") return ACL_UINT8;
  if (f == "?") return ACL_BOOL;
  if (f == "i") return ACL_INT32;
  if (f == "I") return ACL_UINT32;
  if (f == "q" || f == "l") return ACL_INT64;  // (l is 8 bytes on LP64 Linux; the size is checked)
  if (f == "Q" || f == "L") return ACL_UINT64;
  if (f == "Zf") return ACL_COMPLEX64;
  if (f == "Zd") return ACL_COMPLEX128;
  return ACL_DT_UNDEFINED;
}

aclDataType DlpackDtype(const DLDataType& type) {
  struct Entry {
    uint8_t code, bits;
    aclDataType dtype;
  };
  static const Entry kTable[] = {
      {kDlpackFloat, 32, ACL_FLOAT}, {kDlpackFloat, 16, ACL_FLOAT16},     {kDlpackFloat, 64, ACL_DOUBLE},
      {kDlpackBfloat, 16, ACL_BF16}, {kDlpackInt, 8, ACL_INT8},           {kDlpackInt, 16, ACL_INT16},
      {kDlpackInt, 32, ACL_INT32},   {kDlpackInt, 64, ACL_INT64},         {kDlpackUInt, 8, ACL_UINT8},
      {kDlpackUInt, 16, ACL_UINT16}, {kDlpackUInt, 32, ACL_UINT32},       {kDlpackUInt, 64, ACL_UINT64},
      {kDlpackBool, 8, ACL_BOOL},    {kDlpackComplex, 64, ACL_COMPLEX64}, {kDlpackComplex, 128, ACL_COMPLEX128}};
  if (type.lanes != 1) return ACL_DT_UNDEFINED;
  for (const Entry& e : kTable) {
    if (e.code == type.code && e.bits == type.bits) return e.dtype;
  }
  return ACL_DT_UNDEFINED;
}

// The leading fields of numpy's PyArrayObject_fields and PyArray_Descr (numpy/ndarraytypes.h), the
// same in numpy 1 and 2: an ndarray read in place, as the buffer protocol would read it, without
// building the buffer's format string and arrays.
struct NumpyArrayFields {
  PyObject ob_base;  // PyObject_HEAD
  char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;  // in bytes
  PyObject* base;
  PyObject* descr;
  int flags;
};
struct NumpyDescrPrefix {
  PyObject ob_base;  // PyObject_HEAD
  PyTypeObject* typeobj;
  char kind, type, byteorder, flags;
  int type_num;
};
constexpr int kNumpyWriteable = 0x0400;  // NPY_ARRAY_WRITEABLE

// The aclDataType of numpy's built-in type numbers (NPY_BOOL 0 ... NPY_HALF 23), or ACL_DT_UNDEFINED
// for the others, which the buffer protocol then reads (and refuses with its message).
aclDataType NumpyDtype(int type_num, bool bf16_bits) {
  static_assert(sizeof(long) == 8, "NPY_LONG is int64 on LP64 Linux");
  switch (type_num) {
    case 0:
      return ACL_BOOL;
    case 1:
      return ACL_INT8;
    case 2:
      return ACL_UINT8;
    case 3:
      return ACL_INT16;
    case 4:
      return bf16_bits ? ACL_BF16 : ACL_UINT16;
    case 5:
      return ACL_INT32;
    case 6:
      return ACL_UINT32;
    case 7:
    case 9:
      return ACL_INT64;
    case 8:
    case 10:
      return ACL_UINT64;
    case 11:
      return ACL_FLOAT;
    case 12:
      return ACL_DOUBLE;
    case 14:
      return ACL_COMPLEX64;
    case 15:
      return ACL_COMPLEX128;
    case 23:
      return ACL_FLOAT16;
    default:
      return ACL_DT_UNDEFINED;
  }
}

// numpy's attributes the binding uses, looked up once (an import per call costs more than a call).
struct Numpy {
  py::object ndarray, ascontiguousarray, from_dlpack;
};
const Numpy& TheNumpy() {
  static const Numpy* numpy = [] {
    py::module_ np = py::module_::import("numpy");
    return new Numpy{np.attr("ndarray"), np.attr("ascontiguousarray"), np.attr("from_dlpack")};  // never freed
  }();
  return *numpy;
}

}  // namespace

namespace {

// torch.Tensor, or null while torch was never imported.
PyObject* TorchTensorType() {
  static PyObject* tensor_type = nullptr;  // torch is never unloaded once imported
  if (tensor_type == nullptr) {
    static PyObject* key = PyUnicode_InternFromString("torch");
    PyObject* torch = PyDict_GetItem(PyImport_GetModuleDict(), key);
    if (torch == nullptr) return nullptr;
    PyObject* type = PyObject_GetAttrString(torch, "Tensor");
    if (type == nullptr) {
      PyErr_Clear();
      return nullptr;
    }
    tensor_type = type;  // keeps the reference
  }
  return tensor_type;
}

}  // namespace

bool IsTorchTensor(py::handle obj) {
  PyObject* tensor_type = TorchTensorType();
  if (tensor_type == nullptr) return false;
  const int is = PyObject_IsInstance(obj.ptr(), tensor_type);
  if (is < 0) throw py::error_already_set();
  return is == 1;
}

bool IsPlainTorchTensor(py::handle obj) {
  PyObject* tensor_type = TorchTensorType();
  return tensor_type != nullptr && reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())) == tensor_type;
}

void Operand::Read(const char* name, py::handle obj, bool output, bool bf16_bits) {
  name_ = name;
  Load(obj, output, bf16_bits);
  if (!needs_copy_) return;
  if (output) {
    Throw(PyExc_ValueError, std::string(name) +
                                " has negative strides or strides that are not whole elements; out= must be a view "
                                "the result can be written to in place");
  }
  // An input the C API cannot describe as it is: read a contiguous copy (the uncommon path).
  const Kind kind = kind_;
  const bool in_place = has_buffer_ || kind == Kind::kNumpy;  // numpy reads it as it is
  py::object source = in_place ? py::reinterpret_borrow<py::object>(obj) : TheNumpy().from_dlpack(obj);
  py::object copy = TheNumpy().ascontiguousarray(source);
  Release();
  Load(copy, false, bf16_bits);  // keeps the copy alive
  kind_ = kind;
}

void Operand::Release() {
  if (has_buffer_) PyBuffer_Release(&buffer_);
  has_buffer_ = false;
  if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  managed_ = nullptr;
  keep_ = py::object();
  needs_copy_ = false;
}

void Operand::Load(py::handle obj, bool output, bool bf16_bits) {
  if (obj.is_none()) Throw(PyExc_TypeError, std::string(name_) + " is None; a tensor or an array is needed");
  const bool numpy = Py_TYPE(obj.ptr()) == reinterpret_cast<PyTypeObject*>(TheNumpy().ndarray.ptr()) ||
                     py::isinstance(obj, TheNumpy().ndarray);
  if (numpy) {
    kind_ = Kind::kNumpy;
    if (!FromNumpy(obj, output, bf16_bits)) FromBuffer(obj, output, bf16_bits);
  } else if (IsTorchTensor(obj)) {
    kind_ = Kind::kTorch;
    FromTorch(obj, output);
  } else if (PyObject_CheckBuffer(obj.ptr())) {
    kind_ = Kind::kOther;
    FromBuffer(obj, output, bf16_bits);
  } else if (py::hasattr(obj, "__dlpack__")) {
    FromDlpack(obj.attr("__dlpack__")());
  } else {
    Throw(PyExc_TypeError, std::string(name_) +
                               " must be a numpy array, a torch tensor, or an object with __dlpack__ or the buffer "
                               "protocol, not " +
                               TypeName(obj));
  }
  for (int64_t stride : strides_) needs_copy_ = needs_copy_ || stride < 0;
}

void Operand::FromBuffer(py::handle obj, bool output, bool bf16_bits) {
  const int flags = output ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
  if (PyObject_GetBuffer(obj.ptr(), &buffer_, flags) != 0) {
    PyErr_Clear();
    if (output) Throw(PyExc_ValueError, std::string(name_) + " is read-only; out= must be writable");
    Throw(PyExc_TypeError, std::string(name_) + " (" + TypeName(obj) + ") does not export its memory with strides");
  }
  has_buffer_ = true;
  bool foreign_order = false;
  dtype_ = FormatDtype(buffer_.format != nullptr ? buffer_.format : "B", bf16_bits, &foreign_order);
  if (foreign_order) {
    Throw(PyExc_ValueError, std::string(name_) + " has the byte order of another machine (format '" + buffer_.format +
                                "'); pass it in native order (numpy: .astype(x.dtype.newbyteorder('=')))");
  }
  if (dtype_ == ACL_DT_UNDEFINED || static_cast<int64_t>(aclDataTypeSize(dtype_)) != buffer_.itemsize) {
    Throw(PyExc_TypeError, std::string(name_) + " has elements of format '" + (buffer_.format ? buffer_.format : "B") +
                               "' (" + std::to_string(buffer_.itemsize) + " bytes), which no aclDataType describes");
  }
  element_size_ = buffer_.itemsize;
  SetLayout(static_cast<char*>(buffer_.buf), buffer_.ndim, buffer_.shape, buffer_.strides);
}

bool Operand::FromNumpy(py::handle obj, bool output, bool bf16_bits) {
  const auto& array = *reinterpret_cast<const NumpyArrayFields*>(obj.ptr());
  const auto& descr = *reinterpret_cast<const NumpyDescrPrefix*>(array.descr);
  const bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (descr.byteorder == (little ? '>' : '<') || (output && (array.flags & kNumpyWriteable) == 0)) return false;
  dtype_ = NumpyDtype(descr.type_num, bf16_bits);
  if (dtype_ == ACL_DT_UNDEFINED) return false;
  keep_ = py::reinterpret_borrow<py::object>(obj);  // as a buffer would: resize(refcheck=True) refuses meanwhile
  element_size_ = static_cast<int64_t>(aclDataTypeSize(dtype_));
  SetLayout(array.data, array.nd, array.dimensions, array.strides);
  return true;
}

void Operand::SetLayout(char* data, int ndim, const Py_ssize_t* shape, const Py_ssize_t* byte_strides) {
  data_ = data;
  shape_.resize(static_cast<size_t>(ndim));
  strides_.resize(static_cast<size_t>(ndim));
  bool whole_elements = true;
  for (int i = 0; i < ndim; ++i) {
    shape_[i] = shape[i];
    whole_elements = whole_elements && byte_strides[i] % element_size_ == 0;
    strides_[i] = byte_strides[i] / element_size_;
  }
  needs_copy_ = !whole_elements;
  Finish();
}

// torch's objects and the attribute names the reader needs, found (and interned) once.
struct Torch {
  py::object strided;
  py::object to_dlpack;  // torch._C._to_dlpack, or None where this torch has no such function
  std::vector<std::pair<py::object, aclDataType>> dtypes;
  PyObject *is_cpu, *layout, *is_neg, *dtype, *data_ptr, *shape, *stride;
};
const Torch& TheTorch() {
  static const Torch* torch = [] {
    py::module_ t = py::module_::import("torch");
    // torch 1.x's _to_dlpack costs more than the accessors (0.47 us on 1.13): those read it there.
    const bool torch1 = std::string(py::str(t.attr("__version__"))).rfind("1.", 0) == 0;
    auto* names = new Torch{t.attr("strided"),
                            torch1 ? py::none() : py::getattr(t.attr("_C"), "_to_dlpack", py::none()),
                            {},
                            nullptr,
                            nullptr,
                            nullptr,
                            nullptr,
                            nullptr,
                            nullptr,
                            nullptr};
    const std::pair<const char*, aclDataType> dtypes[] = {
        {"float32", ACL_FLOAT}, {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16},       {"float64", ACL_DOUBLE},
        {"int8", ACL_INT8},     {"uint8", ACL_UINT8},     {"int16", ACL_INT16},         {"int32", ACL_INT32},
        {"int64", ACL_INT64},   {"bool", ACL_BOOL},       {"complex64", ACL_COMPLEX64}, {"complex128", ACL_COMPLEX128}};
    for (const auto& d : dtypes) names->dtypes.emplace_back(t.attr(d.first), d.second);
    names->is_cpu = PyUnicode_InternFromString("is_cpu");
    names->layout = PyUnicode_InternFromString("layout");
    names->is_neg = PyUnicode_InternFromString("is_neg");
    names->dtype = PyUnicode_InternFromString("dtype");
    names->data_ptr = PyUnicode_InternFromString("data_ptr");
    names->shape = PyUnicode_InternFromString("shape");
    names->stride = PyUnicode_InternFromString("stride");
    return names;
  }();
  return *torch;
}

py::object Attribute(py::handle obj, PyObject* name) {
  PyObject* value = PyObject_GetAttr(obj.ptr(), name);
  if (value == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(value);
}

py::object CallMethod(py::handle obj, PyObject* name) {
  PyObject* value = PyObject_CallMethodNoArgs(obj.ptr(), name);
  if (value == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(value);
}

// A torch tensor: from one call of torch._C._to_dlpack (0.2 us on torch 2.13, against 0.45 us for
// the five accessors; Tensor.__dlpack__ is Python, and refuses a tensor that requires grad), an
// 8-bit unsigned or bool dtype from the tensor's own accessor (DLPack's codes for bool changed
// between torch releases).
// A tensor that call refuses or puts on another device, and a lazily negated view (whose memory
// holds -values, which DLPack does not say), take the accessors' path and its messages.
void Operand::FromTorch(py::handle obj, bool output) {
  const Torch& torch = TheTorch();
  if (!torch.to_dlpack.is_none() && !CallMethod(obj, torch.is_neg).is(py::handle(Py_True))) {
    PyObject* capsule = PyObject_CallOneArg(torch.to_dlpack.ptr(), obj.ptr());
    if (capsule == nullptr) {
      PyErr_Clear();
    } else {
      FromDlpack(py::reinterpret_steal<py::object>(capsule), /*only_cpu=*/true);
      if (managed_ != nullptr) {
        if (dtype_ == ACL_UINT8 || dtype_ == ACL_BOOL) dtype_ = TorchDtype(Attribute(obj, torch.dtype));
        return;
      }
    }
  }
  FromTorchAccessors(obj, output);
}

aclDataType Operand::TorchDtype(const py::object& dtype) const {
  for (const auto& d : TheTorch().dtypes) {
    if (dtype.is(d.first)) return d.second;
  }
  Throw(PyExc_TypeError,
        std::string(name_) + " has dtype " + std::string(py::str(dtype)) + ", which no aclDataType describes");
}

void Operand::FromTorchAccessors(py::handle obj, bool output) {
  const Torch& torch = TheTorch();
  py::handle tensor = obj;
  if (!Attribute(obj, torch.is_cpu).is(py::handle(Py_True))) {
    Throw(PyExc_ValueError, std::string(name_) + " is on " + std::string(py::str(obj.attr("device"))) +
                                "; aclnn_cpu computes on the CPU (move it there: .cpu())");
  }
  if (!Attribute(obj, torch.layout).is(torch.strided)) {
    Throw(PyExc_TypeError, std::string(name_) + " has layout " + std::string(py::str(obj.attr("layout"))) +
                               "; aclnn_cpu takes strided (dense) tensors");
  }
  if (CallMethod(obj, torch.is_neg).is(py::handle(Py_True))) {
    // A lazily negated view (a real one: the .imag of a conjugate): its memory holds -values.
    // (A conjugate view is complex, a dtype the operators refuse before reading anything.)
    if (output) Throw(PyExc_ValueError, std::string(name_) + " is a lazily negated view; out= cannot be");
    keep_ = obj.attr("resolve_neg")();
    tensor = keep_;
  }
  dtype_ = TorchDtype(Attribute(tensor, torch.dtype));
  element_size_ = static_cast<int64_t>(aclDataTypeSize(dtype_));
  data_ = reinterpret_cast<char*>(PyLong_AsVoidPtr(CallMethod(tensor, torch.data_ptr).ptr()));
  const py::object shape = Attribute(tensor, torch.shape);
  const py::object strides = CallMethod(tensor, torch.stride);
  const Py_ssize_t rank = PyTuple_Size(shape.ptr());
  if (rank < 0 || PyTuple_Size(strides.ptr()) != rank) throw py::error_already_set();
  shape_.resize(static_cast<size_t>(rank));
  strides_.resize(static_cast<size_t>(rank));
  for (Py_ssize_t i = 0; i < rank; ++i) {
    shape_[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), i));
    strides_[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), i));
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  Finish();
}

void Operand::FromDlpack(py::object capsule, bool only_cpu) {
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
    Throw(PyExc_TypeError, std::string(name_) + ": __dlpack__ did not return an unused DLPack capsule");
  }
  managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ours now: its deleter runs in ~Operand
  keep_ = std::move(capsule);
  const DLTensor& t = managed_->dl_tensor;
  if (only_cpu && t.device.device_type != kDlpackCpu) {  // the caller reads it another way
    Release();
    return;
  }
  if (t.device.device_type != kDlpackCpu) {
    Throw(PyExc_ValueError, std::string(name_) + " is on DLPack device type " + std::to_string(t.device.device_type) +
                                "; aclnn_cpu computes on the CPU (move it there: .cpu())");
  }
  dtype_ = DlpackDtype(t.dtype);
  if (dtype_ == ACL_DT_UNDEFINED) {
    Throw(PyExc_TypeError, std::string(name_) + " has DLPack type code " + std::to_string(t.dtype.code) + ", " +
                               std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                               " lanes, which no aclDataType describes");
  }
  element_size_ = t.dtype.bits / 8;
  data_ = static_cast<char*>(t.data) + t.byte_offset;
  shape_.assign(t.shape, static_cast<size_t>(t.ndim));
  if (t.strides != nullptr) {
    strides_.assign(t.strides, static_cast<size_t>(t.ndim));
  } else {  // row-major
    strides_.resize(static_cast<size_t>(t.ndim));
    int64_t stride = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      strides_[i] = stride;
      stride *= shape_[i];
    }
  }
  Finish();
}

void Operand::Finish() {
  storage_elements_ = 1;
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 0) {
      storage_elements_ = 0;
      return;
    }
  }
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (strides_[i] > 0) storage_elements_ += (shape_[i] - 1) * strides_[i];
  }
}

}  // namespace aclnn_py
