// Resources stay flat: a million tensors created and destroyed, as many scalars, arrays and lists
// (each list with the tensors or scalars it owns), many executors made by phase one and destroyed,
// and hundreds of short-lived host threads that each use the API (a stream, a
// launch, a failed call that leaves a message, then exit) leave the resident set size where it
// was after a warm-up. LeakSanitizer (the AddressSanitizer build) checks the rest at exit.
//
// Under an emulator (ACLNN_CPU_TEST_EMULATED, a compile definition; qemu-user for the aarch64 suite)
// the resident set is the emulator's, and qemu-user's grows by about 240 KiB for every guest thread
// that it starts and ends (a program that only starts and joins threads shows it), so there the
// measure is this program's own memory: its mappings (/proc/self/maps, which qemu-user emulates with
// the guest's) plus the bytes malloc has handed out.
//
// ACLNN_CPU_RESOURCE_TENSOR_CYCLES, ACLNN_CPU_RESOURCE_EXECUTOR_CYCLES and
// ACLNN_CPU_RESOURCE_THREADS (compile definitions) set the counts.
#include <gtest/gtest.h>
#include <unistd.h>

#ifdef ACLNN_CPU_TEST_EMULATED
#include <malloc.h>
#endif

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"

#ifndef ACLNN_CPU_RESOURCE_TENSOR_CYCLES
#define ACLNN_CPU_RESOURCE_TENSOR_CYCLES 1000000
#endif
#ifndef ACLNN_CPU_RESOURCE_EXECUTOR_CYCLES
#define ACLNN_CPU_RESOURCE_EXECUTOR_CYCLES 200000
#endif
#ifndef ACLNN_CPU_RESOURCE_THREADS
#define ACLNN_CPU_RESOURCE_THREADS 500
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACLNN_CPU_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(ACLNN_CPU_TEST_ASAN)
#define ACLNN_CPU_TEST_ASAN 1
#endif

#ifdef ACLNN_CPU_TEST_ASAN
// AddressSanitizer keeps freed blocks in a quarantine (256 MiB by default) before reusing them, so
// in this program alone a smaller one: otherwise the resident size grows with the quarantine, not
// with anything the library keeps. (ASAN_OPTIONS still overrides it.)
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=1"; }
#endif

namespace {

constexpr int64_t kAllowedGrowthKiB = 4 * 1024;

#ifndef ACLNN_CPU_TEST_EMULATED
constexpr const char* kMeasure = "RSS";

// The resident set size of this process, in KiB (/proc/self/statm counts pages).
int64_t MemoryKiB() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}
#else
constexpr const char* kMeasure = "mapped + malloc'ed";

// The address space this program has mapped plus the bytes malloc has handed out, in KiB.
int64_t MemoryKiB() {
  std::ifstream maps("/proc/self/maps");
  int64_t bytes = 0;
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &begin, &end) == 2) bytes += static_cast<int64_t>(end - begin);
  }
  const struct mallinfo2 heap = mallinfo2();
  bytes += static_cast<int64_t>(heap.uordblks + heap.hblkhd);
  return bytes / 1024;
}
#endif

// The memory of one tensor's storage, and tensors of a few shapes over it.
class Memory {
 public:
  explicit Memory(size_t bytes) {
    support::EnsureRuntime();
    EXPECT_EQ(aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtMemset(ptr_, bytes, 0, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  ~Memory() { aclrtFree(ptr_); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// cycles create/destroy pairs; false (with the message) on the first failure.
bool CreateAndDestroyTensors(int64_t cycles, void* data, std::string* failure) {
  const int64_t dims[3][4] = {{2, 3, 4, 5}, {7, 1, 9, 2}, {120, 1, 1, 1}};
  const int64_t strides[4] = {60, 20, 5, 1};
  const int64_t storage[1] = {126};
  for (int64_t i = 0; i < cycles; ++i) {
    const int variant = static_cast<int>(i % 3);
    const uint64_t rank = 1 + static_cast<uint64_t>(i % 4);
    aclTensor* tensor =
        aclCreateTensor(dims[variant], rank, i % 2 == 0 ? ACL_FLOAT : ACL_BF16,
                        variant == 0 ? strides + (4 - rank) : nullptr, i % 5, ACL_FORMAT_ND, storage, 1, data);
    if (tensor == nullptr) {
      *failure = "aclCreateTensor at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
      return false;
    }
    if (aclDestroyTensor(tensor) != ACLNN_SUCCESS) {
      *failure = "aclDestroyTensor at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
      return false;
    }
  }
  return true;
}

TEST(Resources, MillionTensorsKeepMemoryFlat) {
  Memory memory(4096);
  const int64_t cycles = ACLNN_CPU_RESOURCE_TENSOR_CYCLES;
  std::string failure;
  ASSERT_TRUE(CreateAndDestroyTensors(cycles / 10, memory.get(), &failure)) << failure;  // warm-up
  const int64_t before = MemoryKiB();
  ASSERT_TRUE(CreateAndDestroyTensors(cycles, memory.get(), &failure)) << failure;
  const int64_t after = MemoryKiB();
  std::printf("resources: %lld tensors created and destroyed: %s %lld KiB before, %lld KiB after (%+lld KiB)\n",
              static_cast<long long>(cycles), kMeasure, static_cast<long long>(before), static_cast<long long>(after),
              static_cast<long long>(after - before));
  EXPECT_LT(after - before, kAllowedGrowthKiB);
}

// cycles of: a scalar, an int, a float and a bool array, a tensor list of two tensors and a
// scalar list of two scalars, all created and destroyed (the lists destroy their elements).
bool CreateAndDestroyOtherHandles(int64_t cycles, std::string* failure) {
  const int64_t ints[] = {1, 2, 3, 4};
  const float floats[] = {0.5f, 1.5f};
  const bool bools[] = {true, false, true};
  const int64_t dims[] = {4};
  for (int64_t i = 0; i < cycles; ++i) {
    double value = static_cast<double>(i);
    aclScalar* scalar = aclCreateScalar(&value, ACL_DOUBLE);
    aclIntArray* int_array = aclCreateIntArray(ints, 1 + i % 4);
    aclFloatArray* float_array = aclCreateFloatArray(floats, 2);
    aclBoolArray* bool_array = aclCreateBoolArray(bools, 3);
    const aclTensor* tensors[] = {aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr),
                                  aclCreateTensor(dims, 1, ACL_INT8, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr)};
    const aclScalar* scalars[] = {aclCreateScalar(&value, ACL_DOUBLE), aclCreateScalar(&value, ACL_DOUBLE)};
    aclTensorList* tensor_list = aclCreateTensorList(tensors, 2);
    aclScalarList* scalar_list = aclCreateScalarList(scalars, 2);
    if (scalar == nullptr || int_array == nullptr || float_array == nullptr || bool_array == nullptr ||
        tensor_list == nullptr || scalar_list == nullptr) {
      *failure = "a create at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
      return false;
    }
    if (aclDestroyScalar(scalar) != ACLNN_SUCCESS || aclDestroyIntArray(int_array) != ACLNN_SUCCESS ||
        aclDestroyFloatArray(float_array) != ACLNN_SUCCESS || aclDestroyBoolArray(bool_array) != ACLNN_SUCCESS ||
        aclDestroyTensorList(tensor_list) != ACLNN_SUCCESS || aclDestroyScalarList(scalar_list) != ACLNN_SUCCESS) {
      *failure = "a destroy at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
      return false;
    }
  }
  return true;
}

TEST(Resources, ScalarsArraysAndListsKeepMemoryFlat) {
  const int64_t cycles = ACLNN_CPU_RESOURCE_TENSOR_CYCLES / 5;  // eight handles a cycle
  std::string failure;
  ASSERT_TRUE(CreateAndDestroyOtherHandles(cycles / 10, &failure)) << failure;  // warm-up
  const int64_t before = MemoryKiB();
  ASSERT_TRUE(CreateAndDestroyOtherHandles(cycles, &failure)) << failure;
  const int64_t after = MemoryKiB();
  std::printf(
      "resources: %lld cycles of a scalar, three arrays and two lists of two: %s %lld KiB before, %lld KiB "
      "after (%+lld KiB)\n",
      static_cast<long long>(cycles), kMeasure, static_cast<long long>(before), static_cast<long long>(after),
      static_cast<long long>(after - before));
  EXPECT_LT(after - before, kAllowedGrowthKiB);
}

// Four tensors over separate memory, and phase one + aclDestroyAclOpExecutor cycles over them.
class ExecutorCycles {
 public:
  ExecutorCycles() : grad_(64 * 4), self_(64 * 4), target_(64 * 4), out_(2 * 64 * 4) {
    const int64_t dims[] = {8, 8};
    const int64_t one[] = {1};
    const int64_t storage[] = {64};
    const int64_t out_storage[] = {128};
    const int64_t out_strides[] = {16, 2};  // gaps: out is not contiguous
    tensors_[0] = aclCreateTensor(one, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, one, 1, grad_.get());
    tensors_[1] = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, self_.get());
    tensors_[2] = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, storage, 1, target_.get());
    tensors_[3] = aclCreateTensor(dims, 2, ACL_FLOAT16, out_strides, 0, ACL_FORMAT_ND, out_storage, 1, out_.get());
    for (aclTensor* t : tensors_) EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  }
  ~ExecutorCycles() {
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
  }
  ExecutorCycles(const ExecutorCycles&) = delete;
  ExecutorCycles& operator=(const ExecutorCycles&) = delete;

  bool Run(int64_t cycles, std::string* failure) {
    for (int64_t i = 0; i < cycles; ++i) {
      uint64_t workspace_size = 1;
      aclOpExecutor* executor = nullptr;
      if (aclnnMseLossBackwardGetWorkspaceSize(tensors_[0], tensors_[1], tensors_[2], i % 3, tensors_[3],
                                               &workspace_size, &executor) != ACLNN_SUCCESS) {
        *failure = "phase one at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
        return false;
      }
      if (i % 4 == 0 && aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) {
        *failure = "aclSetAclOpExecutorRepeatable at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
        return false;
      }
      if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) {
        *failure = "aclDestroyAclOpExecutor at cycle " + std::to_string(i) + ": " + aclGetRecentErrMsg();
        return false;
      }
    }
    return true;
  }

 private:
  Memory grad_, self_, target_, out_;
  aclTensor* tensors_[4] = {};
};

TEST(Resources, ExecutorsMadeAndDestroyedKeepMemoryFlat) {
  ExecutorCycles executors;
  const int64_t cycles = ACLNN_CPU_RESOURCE_EXECUTOR_CYCLES;
  std::string failure;
  ASSERT_TRUE(executors.Run(cycles / 10, &failure)) << failure;  // warm-up
  const int64_t before = MemoryKiB();
  ASSERT_TRUE(executors.Run(cycles, &failure)) << failure;
  const int64_t after = MemoryKiB();
  std::printf(
      "resources: %lld executors made by phase one and destroyed: %s %lld KiB before, %lld KiB after (%+lld KiB)\n",
      static_cast<long long>(cycles), kMeasure, static_cast<long long>(before), static_cast<long long>(after),
      static_cast<long long>(after - before));
  EXPECT_LT(after - before, kAllowedGrowthKiB);
}

// What one short-lived thread does: its own stream, a launch and a synchronize, a failed call (so
// that it has an error message of its own), the stream destroyed. "" or the first failure.
std::string UseTheApiOnce(int index) {
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return std::string("aclrtCreateStream: ") + aclGetRecentErrMsg();
  std::string failure;
  try {
    std::mt19937 rng(static_cast<uint32_t>(index));
    const std::vector<int64_t> shape = {3, 5 + index % 4};
    support::DeviceTensor grad(ACL_FLOAT, shape, support::Layout::kContiguous);
    support::DeviceTensor self(ACL_FLOAT, shape, support::Layout::kStridedOffset);
    support::DeviceTensor target(ACL_FLOAT, shape, support::Layout::kContiguous);
    support::DeviceTensor out(ACL_FLOAT, shape, support::Layout::kTransposed);
    for (support::DeviceTensor* t : {&grad, &self, &target}) {
      t->Write(support::RandomBits(ACL_FLOAT, t->numel(), support::ValueClass::kNormal, rng));
    }
    const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                        target.ToGoldenTensor(), index % 3, golden::Dtype::kFloat32);
    const aclnnStatus status =
        support::RunMseLossBackward(grad.get(), self.get(), target.get(), index % 3, out.get(), stream);
    if (status != ACLNN_SUCCESS) {
      failure = "launch: status " + std::to_string(status) + ": " + aclGetRecentErrMsg();
    } else {
      failure = support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read());
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (aclrtFree(nullptr) != ACL_ERROR_INVALID_PARAM && failure.empty()) failure = "aclrtFree(nullptr) succeeded";
  if (std::string(aclGetRecentErrMsg()).empty() && failure.empty()) failure = "no error message";
  if (aclrtDestroyStream(stream) != ACL_SUCCESS && failure.empty()) {
    failure = std::string("aclrtDestroyStream: ") + aclGetRecentErrMsg();
  }
  return failure;
}

// count threads, one after another; false (with the message) on the first failure.
bool RunThreadsOneAfterAnother(int first, int count, std::string* failure) {
  for (int i = first; i < first + count; ++i) {
    std::string result;
    std::thread thread([&result, i] { result = UseTheApiOnce(i); });
    thread.join();
    if (!result.empty()) {
      *failure = "thread " + std::to_string(i) + ": " + result;
      return false;
    }
  }
  return true;
}

TEST(Resources, ShortLivedThreadsUsingTheApiLeaveNothingBehind) {
  support::EnsureRuntime();
  const int threads = ACLNN_CPU_RESOURCE_THREADS;
  std::string failure;
  ASSERT_TRUE(RunThreadsOneAfterAnother(0, threads / 10, &failure)) << failure;  // warm-up
  const int64_t before = MemoryKiB();
  ASSERT_TRUE(RunThreadsOneAfterAnother(threads / 10, threads, &failure)) << failure;
  const int64_t after = MemoryKiB();
  std::printf("resources: %d threads each with a stream and a launch: %s %lld KiB before, %lld KiB after (%+lld KiB)\n",
              threads, kMeasure, static_cast<long long>(before), static_cast<long long>(after),
              static_cast<long long>(after - before));
  EXPECT_LT(after - before, kAllowedGrowthKiB);
}

}  // namespace
