// aclnn_small_call: the fixed cost of one whole call, as programs make it (phase one, launch,
// aclrtSynchronizeStream), of a 32 x 32 FLOAT aclnnMseLossBackward or aclnnMseLoss (mean) on
// one stream: the heap allocations per call (counted here by wrapping malloc) and the median
// time per call. bench/small_call_profile.sh adds the instructions per call (callgrind).
// --describe: each call also describes its four tensors anew and destroys them after, as ops-nn's
// examples and the Python binding do (aclCreateTensor, aclDestroyTensor). --uncached: without the
// aclnn cache (ACLNN_CACHE_LIMIT=0), every phase one whole. --miss: a cache of one entry and the
// reduction alternating between mean and sum, so that every phase one runs whole and is then kept
// (what the cache costs calls that never repeat).
//
//   aclnn_small_call backward|forward|l1 CALLS [--describe] [--uncached|--miss] [--quiet]
//   (l1: aclnnL1LossBackward)

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_l1_loss_backward.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"

// Every heap allocation of the process goes through these (the libraries' too): counted, then
// passed to glibc's own.
extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void* __libc_realloc(void* ptr, size_t size);
extern "C" void __libc_free(void* ptr);

namespace {
std::atomic<long> allocations{0};
}  // namespace

extern "C" void* malloc(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t count, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
extern "C" void* realloc(void* ptr, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(ptr, size);
}
extern "C" void free(void* ptr) { __libc_free(ptr); }

namespace {

enum class Op { kMseBackward, kMseForward, kL1Backward };

struct Call {
  Op op;
  bool describe;           // each call describes its tensors
  bool alternate = false;  // the reduction alternates between mean (1) and sum (2)
  int64_t reduction = 1;
  aclTensor* tensors[4] = {};
  void* memory[4] = {};
  aclrtStream stream = nullptr;

  Call(Op which, bool describe_each) : op(which), describe(describe_each) {
    for (int i = 0; i < 4; ++i) {
      aclrtMalloc(&memory[i], 4096, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMemset(memory[i], 4096, 0, 4096);
    }
    if (!describe) Describe();
    aclrtCreateStream(&stream);
  }
  ~Call() {
    aclrtDestroyStream(stream);
    if (!describe) Forget();
    for (void* m : memory) aclrtFree(m);
  }
  void Describe() {
    const int64_t shape[2] = {32, 32}, strides[2] = {32, 1}, storage[1] = {1024};
    for (int i = 0; i < 4; ++i) {
      const bool scalar = op == Op::kMseForward && i == 3;  // the forward's out: the 0-d mean
      tensors[i] = aclCreateTensor(shape, scalar ? 0 : 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, memory[i]);
    }
  }
  void Forget() {
    for (aclTensor*& t : tensors) {
      aclDestroyTensor(t);
      t = nullptr;
    }
  }
  bool Run() {
    if (describe) Describe();
    if (alternate) reduction = 3 - reduction;
    const bool done = RunOnce();
    if (describe) Forget();
    return done;
  }
  bool RunOnce() {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = ACLNN_SUCCESS;
    switch (op) {
      case Op::kMseBackward:
        status = aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], reduction, tensors[3], &size,
                                                      &executor);
        if (status == ACLNN_SUCCESS) status = aclnnMseLossBackward(nullptr, 0, executor, stream);
        break;
      case Op::kMseForward:
        status = aclnnMseLossGetWorkspaceSize(tensors[1], tensors[2], reduction, tensors[3], &size, &executor);
        if (status == ACLNN_SUCCESS) status = aclnnMseLoss(nullptr, 0, executor, stream);
        break;
      case Op::kL1Backward:
        status = aclnnL1LossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], reduction, tensors[3], &size,
                                                     &executor);
        if (status == ACLNN_SUCCESS) status = aclnnL1LossBackward(nullptr, 0, executor, stream);
        break;
    }
    if (status != ACLNN_SUCCESS) {
      std::fprintf(stderr, "call failed: %s\n", aclGetRecentErrMsg());
      return false;
    }
    return aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const char* const names[] = {"backward", "forward", "l1"};
  const char* const apis[] = {"aclnnMseLossBackward", "aclnnMseLoss", "aclnnL1LossBackward"};
  int which = -1;
  for (int k = 0; k < 3 && argc >= 3; ++k) {
    if (std::strcmp(argv[1], names[k]) == 0) which = k;
  }
  if (which < 0) {
    std::fprintf(stderr, "usage: %s backward|forward|l1 CALLS [--describe] [--uncached|--miss] [--quiet]\n", argv[0]);
    return 2;
  }
  const long calls = std::max(1L, std::atol(argv[2]));
  bool quiet = false, describe = false, uncached = false, miss = false;
  for (int i = 3; i < argc; ++i) {
    quiet = quiet || std::strcmp(argv[i], "--quiet") == 0;
    describe = describe || std::strcmp(argv[i], "--describe") == 0;
    uncached = uncached || std::strcmp(argv[i], "--uncached") == 0;
    miss = miss || std::strcmp(argv[i], "--miss") == 0;
  }
  // Read at this thread's first phase one.
  if (uncached || miss) setenv("ACLNN_CACHE_LIMIT", miss ? "1" : "0", 1);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  int code = 0;
  {
    Call call(static_cast<Op>(which), describe);
    call.alternate = miss;
    for (int i = 0; i < 100; ++i) {  // the first calls fill the caches a call keeps
      if (!call.Run()) return 1;
    }
    const long before = allocations.load();
    std::vector<double> times;
    const long batch = std::max(1L, calls / 20);
    for (long done = 0; done < calls; done += batch) {
      // Quiet (counting instructions under valgrind): no clock, whose vDSO may use an instruction
      // valgrind cannot run (rdtscp).
      const auto start = quiet ? std::chrono::steady_clock::time_point() : std::chrono::steady_clock::now();
      for (long k = 0; k < batch; ++k) {
        if (!call.Run()) return 1;
      }
      const auto stop = quiet ? start : std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / batch);
    }
    const long allocated = allocations.load() - before;
    std::sort(times.begin(), times.end());
    if (!quiet) {
      std::printf("%s 1K FLOAT%s%s: %.3f heap allocations per call; %.2f us per call (median of %zu batches)\n",
                  apis[which], describe ? ", tensors described each call" : "",
                  uncached ? ", no aclnn cache" : (miss ? ", every call missing the aclnn cache" : ""),
                  static_cast<double>(allocated) / calls, times[times.size() / 2], times.size());
    }
  }
  aclrtResetDevice(0);
  aclFinalize();
  return code;
}
