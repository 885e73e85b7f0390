// An operator argument as the binding sees it: a Python object's memory, shape, strides and dtype,
// read through the buffer protocol or DLPack, and held for the length of one call.
#ifndef ACLNN_CPU_PYTHON_OPERAND_H_
#define ACLNN_CPU_PYTHON_OPERAND_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace aclnn_py {

namespace py = pybind11;

// What kind of object an operand came from; a result is made of the callers' kind.
enum class Kind { kNumpy, kTorch, kOther };

// DLPack's C ABI (dlpack.h, version 0.x as torch 1.13 and numpy 1.24 export it).
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

// A shape or strides: up to 8 dims (every rank the operators take) in place, more on the heap.
class Dims {
 public:
  void assign(const int64_t* first, size_t count) {
    resize(count);
    for (size_t i = 0; i < count; ++i) data_[i] = first[i];
  }
  void resize(size_t count) {
    if (count > kInPlace) {
      heap_.resize(count);
      data_ = heap_.data();
    } else {
      data_ = in_place_;
    }
    size_ = count;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  Dims() = default;
  Dims(const Dims& other) { assign(other.data(), other.size()); }
  Dims& operator=(const Dims& other) {
    if (this != &other) assign(other.data(), other.size());
    return *this;
  }

 private:
  static constexpr size_t kInPlace = 8;
  int64_t in_place_[kInPlace];
  std::vector<int64_t> heap_;
  int64_t* data_ = in_place_;
  size_t size_ = 0;
};

class Operand {
 public:
  Operand() = default;
  ~Operand() { Release(); }  // with the GIL held
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;

  // Reads obj (the argument called name). An input whose strides the C API cannot describe
  // (negative, or not whole elements) is read from a contiguous copy; an output must be writable
  // and describable. bf16_bits: uint16 elements hold bfloat16 bits. Raises TypeError or
  // ValueError with a sentence that names the argument.
  void Read(const char* name, py::handle obj, bool output, bool bf16_bits);

  const char* name() const { return name_; }
  Kind kind() const { return kind_; }
  aclDataType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }                // in elements, none negative
  char* data() const { return data_; }                            // the first element
  int64_t storage_elements() const { return storage_elements_; }  // 0 when empty
  int64_t element_size() const { return element_size_; }

 private:
  void Load(py::handle obj, bool output, bool bf16_bits);
  void FromBuffer(py::handle obj, bool output, bool bf16_bits);
  // An ndarray of a built-in dtype in native byte order (writable for an output) read from its
  // fields; false, having read nothing, for any other (FromBuffer reads it, or says why not).
  bool FromNumpy(py::handle obj, bool output, bool bf16_bits);
  // data_, shape_ and strides_ from a view's byte strides (element_size_ set): needs_copy_ when a
  // stride is negative or not whole elements.
  void SetLayout(char* data, int ndim, const Py_ssize_t* shape, const Py_ssize_t* byte_strides);
  void FromTorch(py::handle obj, bool output);
  void FromTorchAccessors(py::handle obj, bool output);
  aclDataType TorchDtype(const py::object& dtype) const;
  // only_cpu: a capsule of another device is released, leaving managed_ null, instead of refused.
  void FromDlpack(py::object capsule, bool only_cpu = false);
  void Finish();
  void Release();  // what Load took: the buffer, the DLPack tensor

  const char* name_ = "";
  Kind kind_ = Kind::kOther;
  aclDataType dtype_ = ACL_DT_UNDEFINED;
  Dims shape_;
  Dims strides_;
  char* data_ = nullptr;
  int64_t element_size_ = 0;
  int64_t storage_elements_ = 0;
  bool needs_copy_ = false;  // strides negative or not whole elements
  Py_buffer buffer_{};
  bool has_buffer_ = false;
  DLManagedTensor* managed_ = nullptr;
  py::object keep_;  // a DLPack capsule, or a resolved copy of a torch view
};

// Whether obj is a torch.Tensor (false while torch was never imported).
bool IsTorchTensor(py::handle obj);
// Whether obj is a torch.Tensor itself (no subclass, whose functions may return its own kind).
bool IsPlainTorchTensor(py::handle obj);

}  // namespace aclnn_py

#endif  // ACLNN_CPU_PYTHON_OPERAND_H_
