#include "operand.h"

#include <string>
#include <utility>

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
  if (type.lanes != 1) return ACL_DT_UNDEFINED;
  switch (type.code) {
    case kDlpackFloat:
      return type.bits == 32   ? ACL_FLOAT
             : type.bits == 16 ? ACL_FLOAT16
             : type.bits == 64 ? ACL_DOUBLE
                               : ACL_DT_UNDEFINED;
    case kDlpackBfloat:
      return type.bits == 16 ? ACL_BF16 : ACL_DT_UNDEFINED;
    case kDlpackInt:
      return type.bits == 8    ? ACL_INT8
             : type.bits == 16 ? ACL_INT16
             : type.bits == 32 ? ACL_INT32
             : type.bits == 64 ? ACL_INT64
                               : ACL_DT_UNDEFINED;
    case kDlpackUInt:
      return type.bits == 8    ? ACL_UINT8
             : type.bits == 16 ? ACL_UINT16
             : type.bits == 32 ? ACL_UINT32
             : type.bits == 64 ? ACL_UINT64
                               : ACL_DT_UNDEFINED;
    case kDlpackBool:
      return type.bits == 8 ? ACL_BOOL : ACL_DT_UNDEFINED;
    case kDlpackComplex:
      return type.bits == 64 ? ACL_COMPLEX64 : type.bits == 128 ? ACL_COMPLEX128 : ACL_DT_UNDEFINED;
    default:
      return ACL_DT_UNDEFINED;
  }
}

py::object CachedNumpy(const char* attribute) { return py::module_::import("numpy").attr(attribute); }

}  // namespace

bool IsTorchTensor(py::handle obj) {
  static PyObject* tensor_type = nullptr;  // torch is never unloaded once imported
  if (tensor_type == nullptr) {
    PyObject* modules = PyImport_GetModuleDict();
    PyObject* torch = PyDict_GetItemString(modules, "torch");
    if (torch == nullptr) return false;
    PyObject* type = PyObject_GetAttrString(torch, "Tensor");
    if (type == nullptr) {
      PyErr_Clear();
      return false;
    }
    tensor_type = type;  // keeps the reference
  }
  const int is = PyObject_IsInstance(obj.ptr(), tensor_type);
  if (is < 0) throw py::error_already_set();
  return is == 1;
}

std::unique_ptr<Operand> Operand::Read(const char* name, py::handle obj, bool output, bool bf16_bits) {
  std::unique_ptr<Operand> operand(new Operand(name));
  operand->Load(obj, output, bf16_bits);
  if (!operand->needs_copy_) return operand;
  if (output) {
    Throw(PyExc_ValueError, std::string(name) +
                                " has negative strides or strides that are not whole elements; out= must be a view "
                                "the result can be written to in place");
  }
  // An input the C API cannot describe as it is: read a contiguous copy (the uncommon path).
  py::object source = operand->has_buffer_ ? py::reinterpret_borrow<py::object>(obj) : CachedNumpy("from_dlpack")(obj);
  std::unique_ptr<Operand> copy = Read(name, CachedNumpy("ascontiguousarray")(source), false, bf16_bits);
  copy->kind_ = operand->kind_;
  return copy;
}

void Operand::Load(py::handle obj, bool output, bool bf16_bits) {
  if (obj.is_none()) Throw(PyExc_TypeError, std::string(name_) + " is None; a tensor or an array is needed");
  if (IsTorchTensor(obj)) {
    kind_ = Kind::kTorch;
    // torch's own exporter: unlike Tensor.__dlpack__ it takes tensors that require grad (we only read).
    FromDlpack(py::module_::import("torch").attr("_C").attr("_to_dlpack")(obj));
  } else if (PyObject_CheckBuffer(obj.ptr())) {
    kind_ = py::isinstance(obj, CachedNumpy("ndarray")) ? Kind::kNumpy : Kind::kOther;
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
  data_ = static_cast<char*>(buffer_.buf);
  shape_.assign(buffer_.shape, buffer_.shape + buffer_.ndim);
  strides_.resize(static_cast<size_t>(buffer_.ndim));
  bool whole_elements = true;
  for (int i = 0; i < buffer_.ndim; ++i) {
    const Py_ssize_t bytes = buffer_.strides[i];
    whole_elements = whole_elements && bytes % element_size_ == 0;
    strides_[i] = bytes / element_size_;
  }
  needs_copy_ = !whole_elements;
  Finish();
}

void Operand::FromDlpack(py::object capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
    Throw(PyExc_TypeError, std::string(name_) + ": __dlpack__ did not return an unused DLPack capsule");
  }
  managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ours now: its deleter runs in ~Operand
  capsule_ = std::move(capsule);
  const DLTensor& t = managed_->dl_tensor;
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
  shape_.assign(t.shape, t.shape + t.ndim);
  if (t.strides != nullptr) {
    strides_.assign(t.strides, t.strides + t.ndim);
  } else {
    strides_.assign(static_cast<size_t>(t.ndim), 1);
    for (int i = t.ndim - 2; i >= 0; --i) strides_[i] = strides_[i + 1] * shape_[i + 1];
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

Operand::~Operand() {
  if (has_buffer_) PyBuffer_Release(&buffer_);
  if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
}

}  // namespace aclnn_py
