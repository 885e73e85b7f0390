// nnopbase's interface to the operators: tensor internals, executors, the thread pool and the
// platform facts. Not installed; nothing here is part of the CANN API.
#ifndef ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_
#define ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "kernel/parallel.h"
#include "runtime/runtime_internal.h"

// What aclCreateTensor records: the view, and the storage it lies in. (aclTensor* handles are not
// pointers to this: see FindTensor.)
struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements from data to the view's first element
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storage_dims;
  void* data = nullptr;
};

namespace aclcpu {

// The tensor a handle from aclCreateTensor names, or null once it was destroyed (or never was).
// Handles are never reused, so a destroyed handle never names a later tensor.
ACLCPU_API std::shared_ptr<const aclTensor> FindTensor(const aclTensor* handle);

// A byte range a launch reads or writes; pinned for the duration of the launch.
struct MemoryRange {
  const void* begin;
  uint64_t bytes;
  uint64_t allocation_id;  // the allocation it lay in at phase one (freed and reallocated: another id)
  const char* owner;       // the parameter it belongs to, for messages (a string literal)
};

// Everything one launch of an operator needs, owned by its executor.
struct LaunchSpec {
  uint64_t workspace_size = 0;
  std::vector<MemoryRange> memory;
  std::function<void(void* workspace)> run;  // runs on the stream's worker thread
};

// A new executor handle owning spec (never reused, like tensor handles).
ACLCPU_API aclOpExecutor* CreateExecutor(LaunchSpec spec);

// Phase two of every operator: checks the executor and workspace, then queues the work.
ACLCPU_API aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size,
                                      aclOpExecutor* executor, aclrtStream stream);

// Facts about the host the tiling depends on.
struct PlatformFacts {
  int threads = 1;               // ACLNN_CPU_NUM_THREADS, or the CPUs this process may use
  int64_t l2_bytes = 1 << 20;    // per-core cache the tiles should fit
  int64_t llc_bytes = 32 << 20;  // last-level cache
};
ACLCPU_API const PlatformFacts& HostPlatform();

// The process's persistent kernel thread pool; it grows to KernelThreadCount() threads (the
// calling thread included).
ACLCPU_API kernel::ParallelRunner& KernelThreadPool();

// How many threads kernels planned from now on use: HostPlatform().threads unless set. Results do
// not depend on it. (For benchmarks and tests; programs set ACLNN_CPU_NUM_THREADS.)
ACLCPU_API int KernelThreadCount();
ACLCPU_API void SetKernelThreadCount(int threads);

}  // namespace aclcpu

#endif  // ACLNN_CPU_NNOPBASE_NNOPBASE_INTERNAL_H_
