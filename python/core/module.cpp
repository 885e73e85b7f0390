// aclnn_cpu._core: the MSE loss operators for Python, a client of the public aclnn C API.
// Arguments are read in place (buffer protocol or DLPack), admitted with aclrtHostRegister, and the
// operator's two phases run on a stream of the binding's own, with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "host_memory.h"
#include "operand.h"
#include "ops/api_table.h"

namespace aclnn_py {
namespace {

constexpr int kMaxOperands = 4;  // the most an operator here takes: three inputs and out

[[noreturn]] void Throw(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// ---- arguments ---------------------------------------------------------------------------------

// aclnn's reduction numbers: 0 none, 1 mean, 2 sum. An integer goes to the C API as it is (which
// validates it); a string must name one.
int64_t ParseReduction(py::handle reduction) {
  static const char* const kNames[] = {"none", "mean", "sum"};
  if (PyUnicode_Check(reduction.ptr())) {  // compared in place: no std::string made on a call
    for (int64_t value = 0; value < 3; ++value) {
      if (PyUnicode_CompareWithASCIIString(reduction.ptr(), kNames[value]) == 0) return value;
    }
  }
  if (py::isinstance<py::str>(reduction)) {  // any other text, or bytes as pybind11 reads them
    const std::string name = py::str(reduction);
    if (name == "none") return 0;
    if (name == "mean") return 1;
    if (name == "sum") return 2;
    Throw(PyExc_ValueError, "reduction must be 'none', 'mean', 'sum' or 0, 1, 2, not '" + name + "'");
  }
  if (PyIndex_Check(reduction.ptr()) && !PyBool_Check(reduction.ptr())) {
    const long long value = PyLong_AsLongLong(py::reinterpret_steal<py::object>(PyNumber_Index(reduction.ptr())).ptr());
    if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
    return value;
  }
  Throw(PyExc_TypeError, "reduction must be a str ('none', 'mean', 'sum') or an int (0, 1, 2), not " +
                             std::string(py::str(py::type::handle_of(reduction).attr("__name__"))));
}

// dtype=: None, or "bfloat16" (uint16 arrays hold bfloat16 bits, as the result's will).
bool ParseBf16Option(py::handle dtype) {
  if (dtype.is_none()) return false;
  if (py::isinstance<py::str>(dtype) && std::string(py::str(dtype)) == "bfloat16") return true;
  Throw(PyExc_ValueError, "dtype must be None or 'bfloat16' (uint16 arrays then hold bfloat16 bits), not " +
                              std::string(py::repr(dtype)));
}

bool IsFloatType(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

// NumPy's broadcast of the shapes; false when they do not broadcast (the C API then says why).
bool BroadcastShape(std::initializer_list<const Dims*> shapes, Dims* result) {
  size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  result->resize(rank);
  for (size_t i = 0; i < rank; ++i) (*result)[i] = 1;
  for (const Dims* s : shapes) {
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t& r = (*result)[rank - s->size() + i];
      const int64_t d = (*s)[i];
      if (d == r || d == 1) continue;
      if (r != 1) return false;
      r = d;
    }
  }
  return true;
}

// ---- results -------------------------------------------------------------------------------------

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
// be released. operands: the inputs in API order, then out.
Failure Run(const Operand* operands, int count, int64_t attribute, const aclcpu::ApiOp& api) {
  Failure failure;
  ByteRange ranges[kMaxOperands];
  int range_count = 0;
  for (int i = 0; i < count; ++i) {
    const Operand& op = operands[i];
    if (op.storage_elements() == 0) continue;
    const auto begin = reinterpret_cast<uintptr_t>(op.data());
    ranges[range_count++] = {begin, begin + static_cast<uintptr_t>(op.storage_elements() * op.element_size())};
  }
  uintptr_t registrations[kMaxOperands];
  int registration_count = 0;
  if (!HostRegistrations::Instance().Acquire(ranges, range_count, registrations, &registration_count,
                                             &failure.message)) {
    failure.code = ACLNN_ERR_RUNTIME_ERROR;
    return failure;
  }
  aclTensor* tensors[kMaxOperands] = {};
  for (int i = 0; i < count && failure.code == 0; ++i) {
    const Operand& op = operands[i];
    const int64_t storage = op.storage_elements();
    tensors[i] = aclCreateTensor(op.shape().data(), op.shape().size(), op.dtype(), op.strides().data(), 0,
                                 ACL_FORMAT_ND, &storage, 1, op.data());
    if (tensors[i] == nullptr)
      failure = {ACLNN_ERR_PARAM_INVALID, std::string(op.name()) + ": " + aclGetRecentErrMsg()};
  }
  StreamPool::Slot* slot = nullptr;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  auto fail = [&](int code) { failure = {code, aclGetRecentErrMsg()}; };
  if (failure.code == 0) {
    if (aclnnStatus status = api.phase_one(tensors, attribute, tensors[count - 1], &workspace_size, &executor)) {
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
  for (aclTensor* tensor : tensors) aclDestroyTensor(tensor);  // (null: nothing)
  HostRegistrations::Instance().Release(registrations, registration_count);
  return failure;
}

[[noreturn]] void RaiseAclnnError(const Failure& failure) {
  py::object error_type = py::module_::import("aclnn_cpu._errors").attr("AclnnError");
  PyErr_SetObject(error_type.ptr(), error_type(failure.code, failure.message).ptr());
  throw py::error_already_set();
}

// An API's entry in the libraries' table (ops/api_table.h); each wrapper looks it up once.
const aclcpu::ApiOp& Api(const char* name) {
  const aclcpu::ApiOp* api = aclcpu::FindApiOp(name);
  if (api == nullptr) throw std::logic_error(std::string(name) + " is not in the API table");
  return *api;
}

// The common part of the functions: read, make out when not given, run api, return out. inputs:
// the API's tensor parameters in its order (Python's names); attribute: its integer parameter.
// out_shape(inputs, attribute) and out_dtype(inputs) say what a new out is.
template <typename OutShape, typename OutDtype>
py::object Call(const aclcpu::ApiOp& api, std::initializer_list<std::pair<const char*, py::handle>> inputs,
                int64_t attribute, py::handle out_arg, py::handle dtype_arg, OutShape out_shape, OutDtype out_dtype) {
  const bool bf16_bits = ParseBf16Option(dtype_arg);
  Operand operands[kMaxOperands];  // the inputs, then out
  int count = 0;
  bool torch = false;
  for (const auto& input : inputs) {
    operands[count].Read(input.first, input.second, false, bf16_bits);
    torch = torch || operands[count].kind() == Kind::kTorch;
    ++count;
  }
  py::object out = py::reinterpret_borrow<py::object>(out_arg);
  if (out.is_none()) {
    const Dims shape = out_shape(operands, attribute);
    const aclDataType dtype = out_dtype(operands);
    py::handle like;
    int i = 0;
    for (const auto& input : inputs) {
      const Operand& op = operands[i++];
      if (!like && op.kind() == Kind::kTorch && op.dtype() == dtype && IsRowMajorOf(op, shape) &&
          IsPlainTorchTensor(input.second)) {
        like = input.second;
      }
    }
    out = NewResult(torch, shape, dtype, like);
  }
  operands[count++].Read("out", out, true, bf16_bits);
  Failure failure;
  {
    py::gil_scoped_release unlocked;
    failure = Run(operands, count, attribute, api);
  }
  if (failure.code != 0) RaiseAclnnError(failure);
  return out;
}

using Operands = const Operand*;  // the inputs, in API order

// The forward's compute dtype: the promotion of self's and target's (FLOAT for anything mixed).
aclDataType ForwardDtype(Operands ops) {
  const aclDataType a = ops[0].dtype(), b = ops[1].dtype();
  return a == b && IsFloatType(a) ? a : ACL_FLOAT;
}

Dims ForwardBroadcast(Operands ops) {
  Dims shape;
  if (!BroadcastShape({&ops[0].shape(), &ops[1].shape()}, &shape)) return ops[0].shape();
  return shape;
}

py::object MseLoss(py::handle self, py::handle target, py::handle reduction, py::handle out, py::handle dtype) {
  static const aclcpu::ApiOp& api = Api("aclnnMseLoss");
  return Call(
      api, {{"self", self}, {"target", target}}, ParseReduction(reduction), out, dtype,
      [](Operands ops, int64_t r) { return r == 0 ? ForwardBroadcast(ops) : Dims(); }, ForwardDtype);
}

py::object MseLossOut(py::handle self, py::handle target, py::handle reduction, py::handle out, py::handle dtype) {
  static const aclcpu::ApiOp& api = Api("aclnnMseLossOut");
  return Call(
      api, {{"self", self}, {"target", target}}, ParseReduction(reduction), out, dtype,
      [](Operands ops, int64_t r) {
        const Dims shape = ForwardBroadcast(ops);
        if (r == 0 || shape.empty()) return shape;
        Dims rows;  // over dim 0: the shape without it
        rows.assign(shape.data() + 1, shape.size() - 1);
        return rows;
      },
      ForwardDtype);
}

// The backward APIs' out: the broadcast of gradOutput, self and target (self's shape when they do
// not broadcast, for the C API to refuse).
Dims BackwardBroadcast(Operands ops) {
  Dims shape;
  if (!BroadcastShape({&ops[0].shape(), &ops[1].shape(), &ops[2].shape()}, &shape)) return ops[1].shape();
  return shape;
}

py::object MseLossBackward(py::handle grad_output, py::handle self, py::handle target, py::handle reduction,
                           py::handle out, py::handle dtype) {
  static const aclcpu::ApiOp& api = Api("aclnnMseLossBackward");
  return Call(
      api, {{"grad_output", grad_output}, {"self", self}, {"target", target}}, ParseReduction(reduction), out, dtype,
      [](Operands ops, int64_t) { return BackwardBroadcast(ops); },
      [](Operands ops) { return IsFloatType(ops[1].dtype()) ? ops[1].dtype() : ACL_FLOAT; });
}

py::object L1LossBackward(py::handle grad_output, py::handle self, py::handle target, py::handle reduction,
                          py::handle out, py::handle dtype) {
  static const aclcpu::ApiOp& api = Api("aclnnL1LossBackward");
  return Call(
      api, {{"grad_output", grad_output}, {"self", self}, {"target", target}}, ParseReduction(reduction), out, dtype,
      [](Operands ops, int64_t) { return BackwardBroadcast(ops); },
      [](Operands ops) {  // aclnn's promotion: one floating dtype stays, a mix of them is FLOAT, and
                          // integer or bool inputs take the floating one (the C API refuses the rest)
        aclDataType floating = ACL_DT_UNDEFINED;
        for (int i = 0; i < 3; ++i) {
          const aclDataType d = ops[i].dtype();
          if (IsFloatType(d)) floating = floating == ACL_DT_UNDEFINED || floating == d ? d : ACL_FLOAT;
        }
        return floating == ACL_DT_UNDEFINED ? ACL_FLOAT : floating;
      });
}

}  // namespace
}  // namespace aclnn_py

PYBIND11_MODULE(_core, m) {
  using namespace aclnn_py;
  m.doc() = "aclnn_cpu's compiled part: the operators through the public aclnn C API.";
  m.attr("__version__") = ACLNN_CPU_VERSION;  // CMakeLists.txt's project VERSION, as the wheel's
#if PYBIND11_VERSION_MAJOR < 3 && (PYBIND11_VERSION_MAJOR < 2 || PYBIND11_VERSION_MINOR < 12)
  // pybind11 before 2.12 reads numpy 2's dtypes wrongly (new arrays get strides 0): refuse to load
  // rather than compute into them. Debian's pybind11 2.10 serves Debian's numpy 1.24; pip's build
  // (pyproject.toml) takes a pybind11 that knows numpy 2.
  std::string numpy_version = "1.";  // no numpy: nothing to refuse
  try {
    numpy_version = py::str(py::module_::import("numpy").attr("__version__"));
  } catch (const py::error_already_set&) {
  }
  if (numpy_version.rfind("1.", 0) != 0) {
    const std::string built_with =
        std::to_string(PYBIND11_VERSION_MAJOR) + "." + std::to_string(PYBIND11_VERSION_MINOR);
    throw py::import_error("aclnn_cpu: this module was built with pybind11 " + built_with +
                           ", which does not support numpy " + numpy_version +
                           "; install it with pip (pip install .), or build it with pybind11 2.12 or later");
  }
#endif
  // The runtime and device 0, as a CANN program sets them up; already set up by the process is fine.
  // (ACLNN_CPU_SOC_NAME chooses the SoC whose kernels the operators follow; an unknown name makes
  // aclInit fail, and the import with it, naming the known ones.)
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    throw py::import_error(std::string("aclnn_cpu: aclInit failed: ") + aclGetRecentErrMsg());
  }
  if (aclrtSetDevice(0) != ACL_SUCCESS) {
    throw py::import_error(std::string("aclnn_cpu: aclrtSetDevice(0) failed: ") + aclGetRecentErrMsg());
  }
  m.def("mse_loss", &MseLoss, py::arg("self"), py::arg("target"), py::arg("reduction") = "mean", py::kw_only(),
        py::arg("out") = py::none(), py::arg("dtype") = py::none(),
        R"(aclnnMseLoss: (self - target)**2 over the broadcast of the two, reduced over all elements ("mean",
"sum": a 0-d result) or not ("none"). reduction is "none", "mean", "sum" or aclnn's 0, 1, 2.

The result has the promotion of self's and target's dtypes, in the callers' kind (a torch tensor
when an input is one, else a numpy array); out= is written in place and returned. dtype="bfloat16":
uint16 arrays hold bfloat16 bits (numpy has no bfloat16), as does a new result.)");
  m.def("mse_loss_out", &MseLossOut, py::arg("self"), py::arg("target"), py::arg("reduction") = "mean", py::kw_only(),
        py::arg("out") = py::none(), py::arg("dtype") = py::none(),
        R"(aclnnMseLossOut: as mse_loss, but "mean" and "sum" reduce over dim 0 only (the result has the
broadcast shape without its first dim).)");
  m.def("mse_loss_backward", &MseLossBackward, py::arg("grad_output"), py::arg("self"), py::arg("target"),
        py::arg("reduction") = "mean", py::kw_only(), py::arg("out") = py::none(), py::arg("dtype") = py::none(),
        R"(aclnnMseLossBackward: grad_output * (self - target) * 2, divided by self's element count for
"mean", over the broadcast of the three. The result has self's dtype (out= may have another float
dtype), in the callers' kind; arguments as for mse_loss.)");
  m.def("l1_loss_backward", &L1LossBackward, py::arg("grad_output"), py::arg("self"), py::arg("target"),
        py::arg("reduction") = "mean", py::kw_only(), py::arg("out") = py::none(), py::arg("dtype") = py::none(),
        R"(aclnnL1LossBackward: sign(self - target) * grad_output, divided by the broadcast element count
for "mean", over the broadcast of the three. The result has the promotion of the three dtypes (an
integer or bool input is cast to the floating one; out= may have another float dtype), in the
callers' kind; arguments as for mse_loss.)");
  m.def(
      "soc_name", [] { return std::string(aclrtGetSocName()); },
      "The SoC the operators compute for (aclrtGetSocName; ACLNN_CPU_SOC_NAME selects it).");
}
