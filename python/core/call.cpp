// The one path of every operator function (call.h).
#include "core/call.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "core/host_memory.h"
#include "core/operand.h"

namespace aclnn_py {
namespace {

constexpr int kMaxParams = 8;  // more than any aclnn API here takes

[[noreturn]] void Throw(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

std::string TypeName(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__name__")); }

// ---- arguments ---------------------------------------------------------------------------------

// An attribute argument as its declared type takes it. An enum: one of its names, or aclnn's
// number, passed to the C API as it is (which validates it); an int; a float (an int too); a bool.
aclcpu::AttrValue ParseAttribute(const aclcpu::AttrDeclaration& attribute, py::handle value) {
  const std::string name = attribute.name;
  const auto integer = [&]() -> int64_t {
    const long long v = PyLong_AsLongLong(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())).ptr());
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return v;
  };
  const bool is_int = PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr());
  switch (attribute.kind) {
    case aclcpu::AttrKind::kEnum: {
      const aclcpu::EnumType& type = *attribute.enum_type;
      if (PyUnicode_Check(value.ptr())) {  // compared in place: no std::string made on a call
        for (int i = 0; i < type.count; ++i) {
          if (PyUnicode_CompareWithASCIIString(value.ptr(), type.values[i]) == 0) return aclcpu::AttrValue{i, 0.0};
        }
      }
      std::string names, numbers;
      for (int i = 0; i < type.count; ++i) {
        names += std::string(i == 0 ? "" : (i + 1 == type.count ? " or " : ", ")) + "'" + type.values[i] + "'";
        numbers += std::string(i == 0 ? "" : (i + 1 == type.count ? " or " : ", ")) + std::to_string(i);
      }
      if (py::isinstance<py::str>(value)) {  // any other text
        Throw(PyExc_ValueError,
              name + " must be " + names + " or " + numbers + ", not '" + std::string(py::str(value)) + "'");
      }
      if (is_int) return aclcpu::AttrValue{integer(), 0.0};
      Throw(PyExc_TypeError,
            name + " must be a str (" + names + ") or an int (" + numbers + "), not " + TypeName(value));
    }
    case aclcpu::AttrKind::kInt:
      if (is_int) return aclcpu::AttrValue{integer(), 0.0};
      Throw(PyExc_TypeError, name + " must be an int, not " + TypeName(value));
    case aclcpu::AttrKind::kFloat:
      if (PyFloat_Check(value.ptr()) || is_int) return aclcpu::AttrValue{0, py::cast<double>(value)};
      Throw(PyExc_TypeError, name + " must be a float, not " + TypeName(value));
    case aclcpu::AttrKind::kBool:
      if (PyBool_Check(value.ptr())) return aclcpu::AttrValue{value.ptr() == Py_True ? 1 : 0, 0.0};
      Throw(PyExc_TypeError, name + " must be a bool, not " + TypeName(value));
  }
  Throw(PyExc_TypeError, name + ": an attribute of no known type");
}

// dtype=: None, or the name of the floating dtype of the call's floating inputs. "bfloat16" also
// makes uint16 arrays hold bfloat16 bits (numpy has none), as a new result's will.
enum class DtypeOption { kNone, kFloat32, kFloat16, kBFloat16 };
DtypeOption ParseDtypeOption(py::handle dtype) {
  if (dtype.is_none()) return DtypeOption::kNone;
  if (py::isinstance<py::str>(dtype)) {
    const std::string name = py::str(dtype);
    if (name == "float32") return DtypeOption::kFloat32;
    if (name == "float16") return DtypeOption::kFloat16;
    if (name == "bfloat16") return DtypeOption::kBFloat16;
  }
  Throw(PyExc_ValueError,
        "dtype must be None, 'float32', 'float16' or 'bfloat16' (uint16 arrays then hold bfloat16 "
        "bits), not " +
            std::string(py::repr(dtype)));
}

bool IsFloatType(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

// dtype= names the floating dtype of every floating input: refuse the call when one has another.
void CheckDtypeOption(DtypeOption option, const Operand& operand) {
  static const aclDataType kOf[] = {ACL_DT_UNDEFINED, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  static const char* const kNames[] = {"", "float32", "float16", "bfloat16"};
  const int which = static_cast<int>(option);
  const aclDataType got = operand.dtype();
  const bool floating = IsFloatType(got) || got == ACL_DOUBLE;
  if (option == DtypeOption::kNone || !floating || got == kOf[which]) return;
  static const char* const kGot[] = {"float32", "float16", "bfloat16", "float64"};
  const char* got_name = kGot[got == ACL_FLOAT ? 0 : got == ACL_FLOAT16 ? 1 : got == ACL_BF16 ? 2 : 3];
  Throw(PyExc_ValueError, std::string("dtype='") + kNames[which] + "' names the dtype of the floating inputs, but " +
                              operand.name() + " is " + got_name +
                              (option == DtypeOption::kBFloat16 ? " (bfloat16 bits travel as uint16 arrays)" : ""));
}

// Whether the operand is a row-major contiguous view of exactly this shape.
bool IsRowMajorOf(const Operand& op, const Dims& shape) {
  if (op.shape().size() != shape.size()) return false;
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (op.shape()[i] != shape[i] || op.strides()[i] != stride) return false;
    stride *= shape[i];
  }
  return true;
}

// A new array or tensor of the callers' kind: torch when any input is a torch tensor, else numpy.
// like: null, or an input torch.Tensor of the result's dtype that is a row-major view of its shape,
// whose torch.empty_like is such a result too (0.7 us on torch 2.13, against empty()'s 0.9).
py::object NewResult(bool torch, const Dims& shape, aclDataType dtype, py::handle like) {
  const int which = dtype == ACL_FLOAT ? 0 : dtype == ACL_FLOAT16 ? 1 : 2;  // FLOAT, FLOAT16, BF16
  if (torch) {
    struct Torch {
      py::object empty, empty_like;
      py::object dtypes[3];
    };
    static const Torch* t = [] {
      py::module_ m = py::module_::import("torch");
      return new Torch{
          m.attr("empty"), m.attr("empty_like"), {m.attr("float32"), m.attr("float16"), m.attr("bfloat16")}};  // kept
    }();
    if (like) {
      PyObject* result = PyObject_CallOneArg(t->empty_like.ptr(), like.ptr());
      if (result == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(result);
    }
    py::tuple dims(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) dims[i] = py::int_(shape[i]);
    // torch.empty(size=dims, dtype=...): torch parses size= faster than a positional tuple
    // (1.0 us against 1.5 us on torch 2.13), and nothing here builds more than the one dict.
    py::dict kwargs;
    kwargs["size"] = dims;
    kwargs["dtype"] = t->dtypes[which];
    PyObject* result = PyObject_Call(t->empty.ptr(), py::tuple().ptr(), kwargs.ptr());
    if (result == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(result);
  }
  // numpy's type numbers: NPY_FLOAT 11, NPY_HALF 23, NPY_USHORT 4 (bfloat16 bits).
  static const int kTypes[3] = {11, 23, 4};
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array(py::dtype(kTypes[which]), dims);
}

// ---- the call --------------------------------------------------------------------------------------

// Streams (each with a workspace buffer) lent to one call at a time, so that calls from several
// threads run side by side and each waits only for its own work.
class StreamPool {
 public:
  struct Slot {
    aclrtStream stream = nullptr;
    void* workspace = nullptr;
    uint64_t capacity = 0;
  };
  static StreamPool& Instance() {
    static StreamPool* pool = new StreamPool;  // used until the process ends
    return *pool;
  }
  Slot* Take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        Slot* slot = free_.back();
        free_.pop_back();
        return slot;
      }
    }
    auto* slot = new Slot;
    if (aclrtCreateStream(&slot->stream) != ACL_SUCCESS) {
      delete slot;
      return nullptr;
    }
    return slot;
  }
  void Give(Slot* slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(slot);
  }

 private:
  std::mutex mutex_;
  std::vector<Slot*> free_;
};

// What went wrong in a call, raised as aclnn_cpu.AclnnError once the GIL is back.
struct Failure {
  int code = 0;
  std::string message;
};

// Registers the operands' memory, describes them as aclTensors and runs both phases; the GIL must
// be released. operands[i]: parameter i's operand (null for an attribute); values[i]: parameter
// i's attribute value.
Failure Run(const aclcpu::ApiOp& api, const Operand* const* operands, const aclcpu::AttrValue* values) {
  Failure failure;
  const int count = api.param_count;
  ByteRange ranges[kMaxParams];
  int range_count = 0;
  for (int i = 0; i < count; ++i) {
    const Operand* op = operands[i];
    if (op == nullptr || op->storage_elements() == 0) continue;
    const auto begin = reinterpret_cast<uintptr_t>(op->data());
    ranges[range_count++] = {begin, begin + static_cast<uintptr_t>(op->storage_elements() * op->element_size())};
  }
  uintptr_t registrations[kMaxParams];
  int registration_count = 0;
  if (!HostRegistrations::Instance().Acquire(ranges, range_count, registrations, &registration_count,
                                             &failure.message)) {
    failure.code = ACLNN_ERR_RUNTIME_ERROR;
    return failure;
  }
  aclcpu::ApiArg args[kMaxParams];
  aclTensor* tensors[kMaxParams] = {};
  for (int i = 0; i < count && failure.code == 0; ++i) {
    const Operand* op = operands[i];
    if (op == nullptr) {
      args[i].value = values[i];
      continue;
    }
    const int64_t storage = op->storage_elements();
    tensors[i] = aclCreateTensor(op->shape().data(), op->shape().size(), op->dtype(), op->strides().data(), 0,
                                 ACL_FORMAT_ND, &storage, 1, op->data());
    if (tensors[i] == nullptr)
      failure = {ACLNN_ERR_PARAM_INVALID, std::string(op->name()) + ": " + aclGetRecentErrMsg()};
    args[i].tensor = tensors[i];
  }
  StreamPool::Slot* slot = nullptr;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  auto fail = [&](int code) { failure = {code, aclGetRecentErrMsg()}; };
  if (failure.code == 0) {
    if (aclnnStatus status = api.phase_one(args, &workspace_size, &executor)) {
      fail(status);
    } else if ((slot = StreamPool::Instance().Take()) == nullptr) {
      fail(ACLNN_ERR_RUNTIME_ERROR);
    } else if (workspace_size > slot->capacity &&
               ((slot->workspace != nullptr && aclrtFree(slot->workspace) != ACL_SUCCESS) ||
                (slot->capacity = 0, slot->workspace = nullptr,
                 aclrtMalloc(&slot->workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS))) {
      fail(ACLNN_ERR_RUNTIME_ERROR);
    } else {
      if (workspace_size > slot->capacity) slot->capacity = workspace_size;
      if (aclnnStatus status = api.launch(slot->workspace, workspace_size, executor, slot->stream)) {
        fail(status);
        aclDestroyAclOpExecutor(executor);  // not consumed by a launch that failed
      } else if (aclError code = aclrtSynchronizeStream(slot->stream)) {
        fail(code);
      }
    }
  }
  if (slot != nullptr) StreamPool::Instance().Give(slot);
  for (int i = 0; i < count; ++i) aclDestroyTensor(tensors[i]);  // (null: nothing)
  HostRegistrations::Instance().Release(registrations, registration_count);
  return failure;
}

[[noreturn]] void RaiseAclnnError(const Failure& failure) {
  py::object error_type = py::module_::import("aclnn_cpu._errors").attr("AclnnError");
  PyErr_SetObject(error_type.ptr(), error_type(failure.code, failure.message).ptr());
  throw py::error_already_set();
}

}  // namespace

const aclcpu::ApiOp& Api(const char* name) {
  const aclcpu::ApiOp* api = aclcpu::FindApiOp(name);
  if (api == nullptr) throw std::logic_error(std::string(name) + " is not in the API table");
  return *api;
}

py::object Call(const aclcpu::ApiOp& api, const py::handle* tensors, const py::handle* attributes, py::handle out_arg,
                py::handle dtype_arg) {
  const DtypeOption option = ParseDtypeOption(dtype_arg);
  const bool bf16_bits = option == DtypeOption::kBFloat16;
  const int count = api.param_count;
  Operand operands[kMaxParams];
  const Operand* by_param[kMaxParams] = {};
  aclcpu::AttrValue values[kMaxParams];
  aclcpu::AttrValue attribute_values[kMaxParams];  // in the operator's order, for out's rule
  bool torch = false;
  int input = 0, attribute = 0, out_param = -1;
  for (int i = 0; i < count; ++i) {
    const aclcpu::ApiParam& param = api.params[i];
    if (param.kind == aclcpu::ParamKind::kAttribute) {
      values[i] = ParseAttribute(api.op->attributes[param.index], attributes[attribute++]);
      attribute_values[param.index] = values[i];
    } else if (param.kind == aclcpu::ParamKind::kInput) {
      if (param.optional && tensors[input].is_none()) {  // absent: the API reads ones
        ++input;
        continue;
      }
      operands[i].Read(param.python, tensors[input++], false, bf16_bits);
      CheckDtypeOption(option, operands[i]);
      torch = torch || operands[i].kind() == Kind::kTorch;
      by_param[i] = &operands[i];
    } else {
      out_param = i;
    }
  }
  py::object out = py::reinterpret_borrow<py::object>(out_arg);
  if (out.is_none()) {
    aclcpu::kernel::Dims shapes[kMaxParams];
    aclDataType dtypes[kMaxParams];
    std::fill(dtypes, dtypes + kMaxParams, ACL_DT_UNDEFINED);  // an absent input's: promoted with none
    for (int i = 0; i < count; ++i) {
      if (by_param[i] == nullptr) continue;
      shapes[i] = aclcpu::kernel::Dims(by_param[i]->shape().data(), by_param[i]->shape().size());
      dtypes[i] = by_param[i]->dtype();
    }
    aclcpu::kernel::Shape new_shape;
    aclcpu::NewOutShape(api, shapes, attribute_values, &new_shape);  // (no broadcast: the C API refuses the call)
    Dims shape;
    shape.assign(new_shape.data(), new_shape.size());
    // A dtype the operators do not compute (integer inputs alone): FLOAT, for the C API to refuse
    // the call with its own message.
    aclDataType dtype = aclcpu::NewOutDtype(api, dtypes);
    if (!IsFloatType(dtype)) dtype = ACL_FLOAT;
    py::handle like;
    for (int i = 0, k = 0; i < count; ++i) {
      if (api.params[i].kind != aclcpu::ParamKind::kInput) continue;
      const py::handle given = tensors[k++];
      if (by_param[i] == nullptr) continue;  // absent
      const Operand& op = *by_param[i];
      if (!like && op.kind() == Kind::kTorch && op.dtype() == dtype && IsRowMajorOf(op, shape) &&
          IsPlainTorchTensor(given)) {
        like = given;
      }
    }
    out = NewResult(torch, shape, dtype, like);
  }
  operands[out_param].Read("out", out, true, bf16_bits);
  by_param[out_param] = &operands[out_param];
  Failure failure;
  {
    py::gil_scoped_release unlocked;
    failure = Run(api, by_param, values);
  }
  if (failure.code != 0) RaiseAclnnError(failure);
  return out;
}

}  // namespace aclnn_py
