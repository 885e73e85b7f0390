// nnopbase's interface to the operators: tensor internals, executors, the parallel runner and the
// platform facts. Not installed; nothing here is part of the CANN API.
#ifndef ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_
#define ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "kernel/parallel.h"
#include "kernel/shape.h"
#include "nnopbase/inline_function.h"
#include "runtime/handle_table.h"
#include "runtime/runtime_internal.h"

namespace aclcpu {

// A tensor's dims (or strides) as aclCreateTensor records them: in place up to kernel::kMaxRank,
// the most an operator takes (describing such a tensor allocates nothing for them), on the heap
// beyond. Read as kernel::Dims.
class TensorDims {
 public:
  // Copies only (a moved-from heap list would leave the size without its dims).
  TensorDims() = default;
  TensorDims(const TensorDims&) = default;
  TensorDims& operator=(const TensorDims&) = default;

  void assign(const int64_t* first, const int64_t* last) {
    const size_t count = static_cast<size_t>(last - first);
    heap_.assign(count > kInPlace ? first : last, last);
    std::copy(first, count > kInPlace ? first : last, in_place_);
    size_ = count;
  }
  void assign(size_t count, int64_t value) {
    heap_.assign(count > kInPlace ? count : 0, value);
    std::fill(in_place_, in_place_ + (count > kInPlace ? 0 : count), value);
    size_ = count;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return size_ > kInPlace ? heap_.data() : in_place_; }
  int64_t* data() { return size_ > kInPlace ? heap_.data() : in_place_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& operator[](size_t i) { return data()[i]; }
  operator kernel::Dims() const { return kernel::Dims(data(), size_); }  // NOLINT: implicit, read in place

 private:
  static constexpr size_t kInPlace = static_cast<size_t>(kernel::kMaxRank);
  int64_t in_place_[kInPlace] = {};
  std::vector<int64_t> heap_;  // the dims when there are more than kInPlace
  size_t size_ = 0;
};

}  // namespace aclcpu

// What aclCreateTensor records: the view, and the storage it lies in. (aclTensor* handles are not
// pointers to this: see FindTensor.)
struct aclTensor {
  aclcpu::TensorDims view_dims;
  aclcpu::TensorDims strides;  // elements
  int64_t offset = 0;          // elements from data to the view's first element
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  aclcpu::TensorDims storage_dims;
  void* data = nullptr;
  // Counted once, when the tensor is described (every call reads them): the view's elements
  // (0 when any dim is 0; INT64_MAX, with numel_overflows, when they overflow int64) and the
  // storage's (-1 on overflow).
  int64_t numel = 0;
  bool numel_overflows = false;
  int64_t storage_numel = 0;
  int64_t element_size = 0;  // DataTypeSize(dtype)
  // For a view with elements: its last element's index from data, offset + sum (dim - 1) * stride
  // (last_overflows when that overflows int64); the storage's bytes (-1 on overflow).
  int64_t last_element = 0;
  bool last_overflows = false;
  int64_t storage_bytes = 0;
};

// What aclCreateScalar records: a copy of the caller's value, as raw bytes of its dtype.
struct aclScalar {
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::array<unsigned char, 16> bytes{};  // the first aclDataTypeSize(dtype) of them
};

// The arrays keep copies of the caller's values.
struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

// The lists hold handles (null entries allowed) of tensors and scalars they own: destroying a list
// destroys them, and neither can be destroyed on its own meanwhile.
struct aclTensorList {
  std::vector<const aclTensor*> tensors;
};
struct aclScalarList {
  std::vector<const aclScalar*> scalars;
};

namespace aclcpu {

// The tensor a handle from aclCreateTensor names, or null once it was destroyed (or never was).
// Handles are never reused, so a destroyed handle never names a later tensor.
ACLCPU_API std::shared_ptr<const aclTensor> FindTensor(const aclTensor* handle);
// The same, lent for the length of a call (no reference counted; aclDestroyTensor and
// aclSetTensorData on the handle wait until it is returned).
using BorrowedTensor = HandleTable<aclTensor>::Borrowed;
ACLCPU_API BorrowedTensor BorrowTensor(const aclTensor* handle);

// Gives a live tensor another storage address (161002, message naming api, when it is not live).
// Records already handed out stay as they were.
ACLCPU_API aclnnStatus SetTensorData(const char* api, const aclTensor* handle, void* data);

// Tensor lists take ownership of their tensors through these (nulls are skipped). Adopt fails, with
// the message set, for a tensor that is not live, already owned, or given twice.
ACLCPU_API bool AdoptTensors(const char* api, const std::vector<const aclTensor*>& handles);
ACLCPU_API aclnnStatus DestroyAdoptedTensors(const char* api, const std::vector<const aclTensor*>& handles);

// The objects the other handles name, or null once destroyed (the handles are never reused).
ACLCPU_API std::shared_ptr<const aclScalar> FindScalar(const aclScalar* handle);
ACLCPU_API std::shared_ptr<const aclIntArray> FindIntArray(const aclIntArray* handle);
ACLCPU_API std::shared_ptr<const aclFloatArray> FindFloatArray(const aclFloatArray* handle);
ACLCPU_API std::shared_ptr<const aclBoolArray> FindBoolArray(const aclBoolArray* handle);
ACLCPU_API std::shared_ptr<const aclTensorList> FindTensorList(const aclTensorList* handle);
ACLCPU_API std::shared_ptr<const aclScalarList> FindScalarList(const aclScalarList* handle);

// A scalar's value as the type an operator wants, converted as C++ converts (FLOAT16 and BF16
// widened exactly; a float to an integer rounds toward zero). False, *value untouched, when the
// conversion has no meaning: a complex or 8-bit float scalar, or a float that is NaN or out of the
// integer's range.
ACLCPU_API bool ScalarToDouble(const aclScalar& scalar, double* value);
ACLCPU_API bool ScalarToFloat(const aclScalar& scalar, float* value);
ACLCPU_API bool ScalarToInt64(const aclScalar& scalar, int64_t* value);
ACLCPU_API bool ScalarToBool(const aclScalar& scalar, bool* value);

// A byte range a launch reads or writes; pinned for the duration of the launch.
struct MemoryRange {
  const void* begin;
  uint64_t bytes;
  const char* owner;  // the parameter it belongs to, for messages (a string literal)
};

// A tensor argument of an operator, by which aclSetInputTensorAddr and its kin point a phase-one
// result at other memory.
struct TensorArgument {
  const char* name;        // the parameter, for messages (a string literal)
  bool output;             // an output (else an input)
  char* base;              // its storage address at phase one
  uint64_t storage_bytes;  // its storage (0: an empty tensor, of which nothing is touched)
  uint64_t span_begin;     // the bytes its view's elements occupy, from base
  uint64_t span_end;
  int64_t first_element;  // bytes from base to the view's first element
};

// Everything one launch of an operator needs, owned by its executor: its tensors, inputs first (in
// the order of its API), which aclSetInputTensorAddr and its kin may point at other memory; and
// the work, which gets each argument's first element at the addresses of this launch. The launch
// checks those addresses as phase one checked the first ones, and that no new overlap between an
// output and another argument has appeared.
struct LaunchSpec {
  static constexpr int kMaxArguments = 6;
  // What an operator's launch may capture (its tiling, plan and staging), kept in the executor.
  static constexpr size_t kRunCapacity = 2048;
  using Run = InlineFunction<void(void* workspace, char* const* data), kRunCapacity>;
  uint64_t workspace_size = 0;
  int argument_count = 0;
  TensorArgument arguments[kMaxArguments];  // the first argument_count (not zeroed: every call makes one)
  Run run;                                  // runs on the stream (or inline)
};

// An executor being made: its spec and the allocations its arguments lie in are filled in place,
// then Publish gives it its handle (never reused, like tensor handles). Dropped unpublished, it is
// simply released.
class ACLCPU_API NewExecutor {
 public:
  NewExecutor();
  LaunchSpec& spec() { return *spec_; }
  // The live allocation argument k's storage lies in (empty for an argument of which nothing is
  // touched); launches pin it, aclSetInputTensorAddr and its kin replace it.
  std::shared_ptr<Allocation>& allocation(int k) { return allocations_[k]; }
  const std::shared_ptr<Allocation>* allocations() const { return allocations_; }
  aclOpExecutor* Publish();  // once

 private:
  std::shared_ptr<void> executor_;
  LaunchSpec* spec_;
  std::shared_ptr<Allocation>* allocations_;
};

// Points argument index of the inputs (output: of the outputs) of a live executor at addr, for the
// launches from now on. 161002 with a message (naming api) when the executor is not live, has no
// such argument, or addr is not inside one live allocation large enough.
ACLCPU_API aclnnStatus RebindExecutorArgument(const char* api, aclOpExecutor* executor, bool output, size_t index,
                                              void* addr);
// How many inputs (outputs) a live executor's operator described for rebinding; -1 if not live.
ACLCPU_API int64_t ExecutorArgumentCount(const aclOpExecutor* executor, bool output);

// Phase two of every operator: checks the executor and workspace, then queues the work.
ACLCPU_API aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size,
                                      aclOpExecutor* executor, aclrtStream stream);

// Facts about the host the tiling depends on.
struct PlatformFacts {
  int threads = 0;               // ACLNN_CPU_NUM_THREADS (0: unset)
  int64_t l2_bytes = 1 << 20;    // per-core cache the tiles should fit
  int64_t llc_bytes = 32 << 20;  // last-level cache
};
ACLCPU_API const PlatformFacts& HostPlatform();

// How kernels run their parallel parts: on the process's OpenMP runtime (its threads, as many as
// a launch asks for; see platform.cpp).
ACLCPU_API kernel::ParallelRunner& KernelThreadPool();

// How many threads kernels planned or launched from this thread now use: SetKernelThreadCount's
// count, else ACLNN_CPU_NUM_THREADS, else what OpenMP would give a parallel region of the calling
// thread (omp_set_num_threads, OMP_NUM_THREADS, the CPUs the process may use), as PyTorch and the
// BLAS libraries take it. Results do not depend on it.
ACLCPU_API int KernelThreadCount();
// For benchmarks and tests (0: no override); programs set ACLNN_CPU_NUM_THREADS or OpenMP's count.
ACLCPU_API void SetKernelThreadCount(int threads);

// While one is in scope on a thread, launches run there use at most `threads` threads: the count
// of the thread that queued them, taken when it queued (KernelThreadCount there).
class ACLCPU_API LaunchThreads {
 public:
  explicit LaunchThreads(int threads);
  ~LaunchThreads();
  LaunchThreads(const LaunchThreads&) = delete;
  LaunchThreads& operator=(const LaunchThreads&) = delete;

 private:
  int saved_;
};

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_
