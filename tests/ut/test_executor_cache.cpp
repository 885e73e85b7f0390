// The aclnn cache (nnopbase/executor_cache.h): a phase one that repeats an earlier successful call
// of its thread copies that call's executor. These tests check that it does (the thread's hit
// count), that the copy computes what the whole call computes, and that everything the call's
// checks and plan depend on outside the tensor records -- live memory, writable outputs, the
// thread setting -- is looked at again.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "nnopbase/executor_cache.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::DeviceTensor;
using support::Layout;

constexpr int64_t kMean = 1;

aclcpu::ExecutorCacheStats Stats() {
  aclcpu::ExecutorCache* cache = aclcpu::ThreadExecutorCache();
  return cache == nullptr ? aclcpu::ExecutorCacheStats{} : cache->stats();
}

// gradOutput, self, target and out of one shape, with random values; Expected() is the golden.
struct Backward {
  explicit Backward(std::vector<int64_t> shape)
      : grad(ACL_FLOAT, shape, Layout::kContiguous),
        self(ACL_FLOAT, shape, Layout::kContiguous),
        target(ACL_FLOAT, shape, Layout::kContiguous),
        out(ACL_FLOAT, shape, Layout::kContiguous) {}
  void Fill(uint32_t seed) {
    std::mt19937 rng(seed);
    for (DeviceTensor* t : {&grad, &self, &target}) {
      t->Write(support::RandomBits(ACL_FLOAT, t->numel(), support::ValueClass::kNormal, rng));
    }
  }
  std::vector<uint32_t> Expected() const {
    return golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(), kMean,
                               golden::Dtype::kFloat32)
        .bits;
  }
  aclnnStatus Run() { return support::RunMseLossBackward(grad.get(), self.get(), target.get(), kMean, out.get()); }
  DeviceTensor grad, self, target, out;
};

TEST(ExecutorCache, ARepeatedCallIsServedFromTheCacheAndComputesItsOwnValues) {
  support::EnsureRuntime();
  ASSERT_NE(aclcpu::ThreadExecutorCache(), nullptr) << "the cache is on by default";
  Backward call({3, 70});
  const aclcpu::ExecutorCacheStats before = Stats();
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    call.Fill(seed);  // new values each time: the executor is the call's, its data read at launch
    ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, call.Expected(), call.out.Read()), "") << seed;
  }
  const aclcpu::ExecutorCacheStats after = Stats();
  EXPECT_EQ(after.hits - before.hits, 2u);
  EXPECT_EQ(after.misses - before.misses, 1u);
}

TEST(ExecutorCache, TensorsDescribedAgainAlikeAreTheSameCall) {
  support::EnsureRuntime();
  Backward call({5, 9});
  call.Fill(7);
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // New handles, the same records: as a program that describes its tensors for every call.
  const int64_t shape[] = {5, 9}, strides[] = {9, 1}, storage[] = {45};
  aclTensor* out = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, call.out.storage());
  ASSERT_NE(out, nullptr);
  const uint64_t hits = Stats().hits;
  ASSERT_EQ(support::RunMseLossBackward(call.grad.get(), call.self.get(), call.target.get(), kMean, out), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(Stats().hits, hits + 1);
  // Another record (another format) is another call.
  aclDestroyTensor(out);
  out = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, storage, 1, call.out.storage());
  ASSERT_EQ(support::RunMseLossBackward(call.grad.get(), call.self.get(), call.target.get(), kMean, out), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(Stats().hits, hits + 1);
  aclDestroyTensor(out);
}

// Page-aligned host memory for gradOutput, self, target and out (one page each), admitted with
// aclrtHostRegister page by page, so that a test can take one page back and admit it again at the
// same address.
class RegisteredPages {
 public:
  static constexpr size_t kPage = 4096;
  RegisteredPages() : memory_(std::aligned_alloc(kPage, 4 * kPage)) {}
  ~RegisteredPages() {
    for (int i = 0; i < 4; ++i) {
      if (registered_[i]) aclrtHostUnregister(page(i));
    }
    std::free(memory_);
  }
  void* page(int i) const { return static_cast<char*>(memory_) + static_cast<size_t>(i) * kPage; }
  aclError Register(int i, aclrtHostRegisterType type) {
    void* device = nullptr;
    const aclError code = aclrtHostRegister(page(i), kPage, type, &device);
    registered_[i] = code == ACL_SUCCESS;
    return code;
  }
  aclError Unregister(int i) {
    registered_[i] = false;
    return aclrtHostUnregister(page(i));
  }

 private:
  void* memory_;
  bool registered_[4] = {};
};

// The four tensors of 1000 FLOAT over the pages, values set.
struct PageTensors {
  explicit PageTensors(const RegisteredPages& pages) {
    const int64_t shape[] = {1000}, strides[] = {1};
    for (int i = 0; i < 4; ++i) {
      tensors[i] = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, pages.page(i));
      float* values = static_cast<float*>(pages.page(i));
      for (int k = 0; k < 1000; ++k) values[k] = static_cast<float>(k % 17 + i);
    }
  }
  ~PageTensors() {
    for (aclTensor* t : tensors) aclDestroyTensor(t);
  }
  aclnnStatus Run() const { return support::RunMseLossBackward(tensors[0], tensors[1], tensors[2], kMean, tensors[3]); }
  // Phase one alone (its executor destroyed).
  aclnnStatus PhaseOne() const {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], kMean,
                                                                    tensors[3], &workspace_size, &executor);
    if (executor != nullptr) aclDestroyAclOpExecutor(executor);
    return status;
  }
  aclTensor* tensors[4] = {};
};

// The four pages admitted and a call over them made once: the thread's cache holds it.
class CachedPageCall : public ::testing::Test {
 protected:
  void SetUp() override {
    support::EnsureRuntime();
    for (int i = 0; i < 4; ++i) ASSERT_EQ(pages.Register(i, ACL_HOST_REGISTER_MAPPED), ACL_SUCCESS);
    ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  const float* out() const { return static_cast<const float*>(pages.page(3)); }
  RegisteredPages pages;
  PageTensors call{pages};
};

TEST_F(CachedPageCall, MemoryTakenBackIsCheckedAgain) {
  ASSERT_EQ(pages.Unregister(3), ACL_SUCCESS);
  // The same records, out's memory no longer admitted: phase one refuses it, as the whole call does.
  EXPECT_FAILS(call.PhaseOne(), ACLNN_ERR_PARAM_INVALID, "out storage", "aclrtMalloc");
}

TEST_F(CachedPageCall, MemoryAdmittedAgainAtTheSamePlaceIsFoundAgain) {
  const std::vector<float> first(out(), out() + 1000);
  // Each page taken back and admitted again, as a caller that registers its buffers for every call
  // does: the call is the same, in new allocations (its launch pins those).
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(pages.Unregister(i), ACL_SUCCESS);
    ASSERT_EQ(pages.Register(i, ACL_HOST_REGISTER_MAPPED), ACL_SUCCESS);
  }
  std::fill(static_cast<float*>(pages.page(3)), static_cast<float*>(pages.page(3)) + 1000, -1.0f);
  const aclcpu::ExecutorCacheStats before = Stats();
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const aclcpu::ExecutorCacheStats after = Stats();
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(after.refound - before.refound, 1u);
  EXPECT_EQ(first, std::vector<float>(out(), out() + 1000));
}

TEST_F(CachedPageCall, AnOutputAdmittedAgainReadOnlyIsRefused) {
  ASSERT_EQ(pages.Unregister(3), ACL_SUCCESS);
  ASSERT_EQ(pages.Register(3, ACL_HOST_REGISTER_READONLY), ACL_SUCCESS);
  EXPECT_FAILS(call.PhaseOne(), ACLNN_ERR_PARAM_INVALID, "out", "read-only");
}

TEST(ExecutorCache, AnEmptyCallBesideMemoryFreedSinceIsRefusedAsUncached) {
  // self and out of shape (0), target (1) in an allocation: nothing to compute, but target's memory
  // is checked. Freed, the repeated call must be refused as a first call would be.
  support::EnsureRuntime();
  const int64_t empty[] = {0}, one[] = {1}, strides[] = {1};
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclTensor* self = aclCreateTensor(empty, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, empty, 1, nullptr);
  aclTensor* out = aclCreateTensor(empty, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, empty, 1, nullptr);
  aclTensor* target = aclCreateTensor(one, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, one, 1, memory);
  const auto phase_one = [&] {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnMseLossGetWorkspaceSize(self, target, 0, out, &workspace_size, &executor);
    if (executor != nullptr) aclDestroyAclOpExecutor(executor);
    return status;
  };
  EXPECT_EQ(phase_one(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_FAILS(phase_one(), ACLNN_ERR_PARAM_INVALID, "target storage");
  for (aclTensor* t : {self, target, out}) aclDestroyTensor(t);
}

TEST(ExecutorCache, TheThreadSettingIsPartOfTheCall) {
  support::EnsureRuntime();
  const int threads = omp_get_max_threads();
  Backward call({4, 8});
  call.Fill(3);
  omp_set_num_threads(1);
  const int one = aclcpu::KernelThreadCount();
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const aclcpu::ExecutorCacheStats before = Stats();
  omp_set_num_threads(2);  // planned anew: the plan's thread count is the setting's
  const int two = aclcpu::KernelThreadCount();
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  omp_set_num_threads(1);
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const aclcpu::ExecutorCacheStats after = Stats();
  omp_set_num_threads(threads);
  // ACLNN_CPU_NUM_THREADS, when set, overrides the setting: then nothing is planned anew.
  const uint64_t replanned = one != two ? 1 : 0;
  EXPECT_EQ(after.misses - before.misses, replanned);
  EXPECT_EQ(after.hits - before.hits, 2 - replanned);
}

TEST(ExecutorCache, ExecutorsFromTheCacheAreEachTheirOwn) {
  support::EnsureRuntime();
  Backward call({64});
  call.Fill(11);
  uint64_t size_a = 0, size_b = 0;
  aclOpExecutor *a = nullptr, *b = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(call.grad.get(), call.self.get(), call.target.get(), kMean,
                                                 call.out.get(), &size_a, &a),
            ACLNN_SUCCESS);
  const uint64_t hits = Stats().hits;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(call.grad.get(), call.self.get(), call.target.get(), kMean,
                                                 call.out.get(), &size_b, &b),
            ACLNN_SUCCESS);
  EXPECT_EQ(Stats().hits, hits + 1);
  ASSERT_NE(a, b);
  EXPECT_EQ(size_a, size_b);
  // b's out moved elsewhere: a still writes the first out.
  DeviceTensor other(ACL_FLOAT, {64}, Layout::kContiguous);
  ASSERT_EQ(aclSetOutputTensorAddr(b, 0, call.out.get(), other.storage()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, b, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, a, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const std::vector<uint32_t> expected = call.Expected();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected, call.out.Read()), "");
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected, other.Read()), "");
}

// The limit, read when a thread first calls a phase one (here: threads started after setenv).
aclcpu::ExecutorCacheStats StatsOfAThreadThatRunsTwoCallsTwice(const char* limit) {
  setenv("ACLNN_CACHE_LIMIT", limit, 1);
  aclcpu::ExecutorCacheStats stats;
  std::thread thread([&] {
    Backward first({16}), second({16});
    first.Fill(1);
    second.Fill(2);
    for (int round = 0; round < 2; ++round) {
      EXPECT_EQ(first.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(second.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, first.Expected(), first.out.Read()), "");
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, second.Expected(), second.out.Read()), "");
    stats = Stats();
  });
  thread.join();
  unsetenv("ACLNN_CACHE_LIMIT");
  return stats;
}

TEST(ExecutorCache, AclnnCacheLimitBoundsTheEntriesOfEachThread) {
  support::EnsureRuntime();
  const aclcpu::ExecutorCacheStats none = StatsOfAThreadThatRunsTwoCallsTwice("0");
  EXPECT_EQ(none.limit, 0u);
  EXPECT_EQ(none.hits + none.misses, 0u) << "no cache at all";
  const aclcpu::ExecutorCacheStats one = StatsOfAThreadThatRunsTwoCallsTwice("1");
  EXPECT_EQ(one.hits, 0u) << "each call drops the other's entry";
  EXPECT_EQ(one.misses, 4u);
  EXPECT_EQ(one.entries, 1u);
  const aclcpu::ExecutorCacheStats two = StatsOfAThreadThatRunsTwoCallsTwice("2");
  EXPECT_EQ(two.hits, 2u);
  EXPECT_EQ(two.misses, 2u);
  EXPECT_EQ(two.entries, 2u);
}

TEST(ExecutorCache, AclnnCacheLimitIsReadAsCannReadsIt) {
  const char* saved = std::getenv("ACLNN_CACHE_LIMIT");
  const std::string kept = saved == nullptr ? "" : saved;
  struct Case {
    const char* text;
    size_t limit;
  };
  for (const Case& c : {Case{nullptr, 10000}, Case{"", 10000}, Case{"abc", 10000}, Case{"0", 0}, Case{"25", 25},
                        Case{"  25", 25}, Case{"25x", 25}, Case{"99999999999", 10000000}}) {
    if (c.text == nullptr) {
      unsetenv("ACLNN_CACHE_LIMIT");
    } else {
      setenv("ACLNN_CACHE_LIMIT", c.text, 1);
    }
    EXPECT_EQ(aclcpu::ExecutorCache::LimitFromEnvironment(), c.limit) << (c.text == nullptr ? "unset" : c.text);
  }
  if (saved != nullptr) {
    setenv("ACLNN_CACHE_LIMIT", kept.c_str(), 1);
  } else {
    unsetenv("ACLNN_CACHE_LIMIT");
  }
}

}  // namespace
