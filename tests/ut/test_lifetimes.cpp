// Lifetimes: every use of something that is gone — a consumed or destroyed executor, a destroyed
// tensor, a reset device, a finalized runtime, a destroyed stream with work still queued, freed or
// foreign memory — has a defined, tested outcome: an error code with a message, or a wait and then
// success. Never a read of freed memory: the AddressSanitizer build runs these too. (Cases that
// test_runtime.cpp and test_tensor_executor.cpp already cover the same way are not repeated.)
// Every test leaves the runtime initialized with device 0 set.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"
#include "support/raw_tensor.h"

namespace {

using support::MessageMentions;
using support::PtrText;

const char* const kNames[4] = {"gradOutput", "self", "target", "out"};

// Resets device 0 until it is released; returns how many references there were.
int ResetDeviceCompletely() {
  int resets = 0;
  while (resets < 1000 && aclrtResetDevice(0) == ACL_SUCCESS) ++resets;
  return resets;
}

// A contiguous FLOAT tensor over its own allocation, with random values (or zeros for seed 0).
class Operand : public support::RawFloatTensor {
 public:
  Operand(const std::vector<int64_t>& shape, uint32_t seed) : RawFloatTensor(shape, Values(shape, seed)) {}

 private:
  static std::vector<uint32_t> Values(const std::vector<int64_t>& shape, uint32_t seed) {
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::mt19937 rng(seed);
    return seed == 0 ? std::vector<uint32_t>(static_cast<size_t>(numel), 0)
                     : support::RandomBits(ACL_FLOAT, numel, support::ValueClass::kNormal, rng);
  }
};

// gradOutput, self, target and out of one call, all of one shape.
struct Problem {
  Problem(const std::vector<int64_t>& shape, uint32_t seed)
      : operands{std::make_unique<Operand>(shape, seed), std::make_unique<Operand>(shape, seed + 1),
                 std::make_unique<Operand>(shape, seed + 2), std::make_unique<Operand>(shape, 0)} {}

  Operand& at(int i) { return *operands[i]; }
  Operand& out() { return *operands[3]; }
  golden::Tensor Expected(int reduction) const {
    return golden::MseLossGrad(operands[0]->Golden(), operands[1]->Golden(), operands[2]->Golden(), reduction,
                               golden::Dtype::kFloat32);
  }
  aclnnStatus PhaseOne(int64_t reduction, aclOpExecutor** executor) {
    uint64_t workspace_size = 0;
    const aclnnStatus status =
        aclnnMseLossBackwardGetWorkspaceSize(operands[0]->get(), operands[1]->get(), operands[2]->get(), reduction,
                                             operands[3]->get(), &workspace_size, executor);
    EXPECT_EQ(workspace_size, 0u);
    return status;
  }

  std::unique_ptr<Operand> operands[4];
};

// Two allocations whose copy keeps a stream busy for a while. A stream runs work inline on the
// pushing thread when it is idle, so the copy runs on a thread of the filler's own: Queue returns
// once that thread is inside it, and work pushed meanwhile waits in the stream's queue. No timing
// is relied on: whether that work has run yet or not, every outcome checked is the same.
class Filler {
 public:
  Filler() {
    support::EnsureRuntime();
    EXPECT_EQ(aclrtMalloc(&a_, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtMalloc(&b_, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtMemset(a_, kBytes, 1, kBytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  ~Filler() {
    Join();
    if (a_ != nullptr) aclrtFree(a_);
    if (b_ != nullptr) aclrtFree(b_);
  }
  Filler(const Filler&) = delete;
  Filler& operator=(const Filler&) = delete;
  void* a() const { return a_; }
  void* b() const { return b_; }
  void Queue(aclrtStream stream) {
    Join();
    started_ = false;
    copier_ = std::thread([this, stream] {
      started_ = true;
      // (The stream may be destroyed by the time this pushes: then it only fails.)
      (void)aclrtMemcpyAsync(b_, kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
    });
    while (!started_.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // into the copy, most likely
  }
  // One more copy, pushed from the calling thread: behind the copy Queue started, it waits in the
  // stream's queue.
  void Copy(aclrtStream stream) {
    EXPECT_EQ(aclrtMemcpyAsync(b_, kBytes, a_, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }

 private:
  void Join() {
    if (copier_.joinable()) copier_.join();
  }
  static constexpr size_t kBytes = size_t{16} << 20;
  void* a_ = nullptr;
  void* b_ = nullptr;
  std::thread copier_;
  std::atomic<bool> started_{false};
};

// Launches a repeatable executor on a stream from a thread of its own until a launch is refused,
// and keeps the refusal. It synchronizes after every 8th launch, so that at most 8 wait in the
// stream's queue (once the stream is gone that fails, and so does the next launch).
class LaunchUntilRefused {
 public:
  LaunchUntilRefused(aclOpExecutor* executor, aclrtStream stream)
      : thread_([this, executor, stream] { Run(executor, stream); }) {}
  ~LaunchUntilRefused() {
    if (thread_.joinable()) thread_.join();
  }
  LaunchUntilRefused(const LaunchUntilRefused&) = delete;
  LaunchUntilRefused& operator=(const LaunchUntilRefused&) = delete;
  void AwaitLaunches(int count) const {
    while (launched_.load() < count) std::this_thread::yield();
  }
  // Waits for the refusal: its code is code and its message names every part.
  void ExpectRefused(aclnnStatus code, const std::vector<std::string>& parts) {
    thread_.join();
    EXPECT_EQ(refused_, code);
    for (const std::string& part : parts) EXPECT_NE(message_.find(part), std::string::npos) << message_;
  }

 private:
  void Run(aclOpExecutor* executor, aclrtStream stream) {
    for (;;) {
      const aclnnStatus status = aclnnMseLossBackward(nullptr, 0, executor, stream);
      if (status != ACLNN_SUCCESS) {
        refused_ = status;
        message_ = aclGetRecentErrMsg();
        return;
      }
      if (launched_.fetch_add(1) % 8 == 7) aclrtSynchronizeStream(stream);
    }
  }
  std::atomic<int> launched_{0};
  aclnnStatus refused_ = ACLNN_SUCCESS;
  std::string message_;
  std::thread thread_;  // last: it starts once the rest is made
};

// ---------------------------------------------------------------------------------------------
// Executors.

TEST(Lifetimes, OneShotExecutorLaunchedAgainWhileItsFirstLaunchIsQueued) {
  Problem problem({96, 40}, 10);
  const golden::Tensor expected = problem.Expected(1);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  Filler filler;
  filler.Queue(stream);
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(problem.PhaseOne(1, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // Consumed at the launch, not when the work runs.
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor));
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
               PtrText(executor));
  EXPECT_FAILS(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor",
               PtrText(executor));
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, problem.out().Read()), "");
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(Lifetimes, OneShotExecutorRacedByTwoThreadsRunsOnce) {
  // Both threads launch the same one-shot executor at once: exactly one launch is accepted.
  for (int round = 0; round < 20; ++round) {
    Problem problem({8, 8}, 20 + static_cast<uint32_t>(round));
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(problem.PhaseOne(2, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    std::atomic<int> ready{0};
    aclnnStatus results[2] = {-1, -1};
    std::string messages[2];
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        results[t] = aclnnMseLossBackward(nullptr, 0, executor, nullptr);
        messages[t] = aclGetRecentErrMsg();
      });
    }
    for (std::thread& thread : threads) thread.join();
    const int accepted = (results[0] == ACLNN_SUCCESS) + (results[1] == ACLNN_SUCCESS);
    EXPECT_EQ(accepted, 1) << "round " << round << ": " << results[0] << ", " << results[1];
    for (int t = 0; t < 2; ++t) {
      if (results[t] != ACLNN_SUCCESS) {
        EXPECT_EQ(results[t], ACLNN_ERR_PARAM_INVALID);
        EXPECT_NE(messages[t].find("not a live executor"), std::string::npos) << messages[t];
      }
    }
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(2).bits, problem.out().Read()), "");
  }
}

TEST(Lifetimes, RepeatableExecutorDestroyedWhileAnotherThreadLaunchesIt) {
  // A launch borrows its executor for the call: a destroy meanwhile waits for the call, then
  // takes the executor; every later launch is refused.
  for (int round = 0; round < 20; ++round) {
    Problem problem({256, 64}, 300 + static_cast<uint32_t>(round));
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(problem.PhaseOne(1, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    LaunchUntilRefused launcher(executor, nullptr);
    launcher.AwaitLaunches(10);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    launcher.ExpectRefused(ACLNN_ERR_PARAM_INVALID, {"aclnnMseLossBackward", PtrText(executor), "not a live"});
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(1).bits, problem.out().Read()), "");
  }
}

TEST(Lifetimes, RepeatableExecutorDestroyedWithItsLaunchesQueued) {
  // Launches queued behind another thread's copy hold the executor themselves: destroyed, and
  // its memory free for the next executor made at once (of another reduction, over other memory),
  // they still run it.
  for (int round = 0; round < 10; ++round) {
    Problem problem({256, 64}, 400 + static_cast<uint32_t>(round));
    Problem other({256, 64}, 450 + static_cast<uint32_t>(round));
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(problem.PhaseOne(1, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    Filler filler;
    filler.Queue(stream);
    for (int launch = 0; launch < 8; ++launch) {
      ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclOpExecutor* next = nullptr;
    EXPECT_EQ(other.PhaseOne(2, &next), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(1).bits, problem.out().Read()), "");
    EXPECT_EQ(aclDestroyAclOpExecutor(next), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(Lifetimes, DestroyedExecutorPassedAgain) {
  // A repeatable executor, launched, then destroyed: launch, destroy and SetRepeatable all refuse it.
  Problem problem({5, 6}, 30);
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(problem.PhaseOne(0, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor", PtrText(executor),
               "not a live executor");
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(0).bits, problem.out().Read()), "");

  // A one-shot executor destroyed before any launch cannot be made repeatable afterwards.
  aclOpExecutor* unused = nullptr;
  ASSERT_EQ(problem.PhaseOne(0, &unused), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclDestroyAclOpExecutor(unused), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(unused), ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
               PtrText(unused), "not a live executor");

  // Things that were never executors.
  int not_an_executor = 0;
  aclOpExecutor* fake = reinterpret_cast<aclOpExecutor*>(&not_an_executor);
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, fake, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(fake));
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(fake), ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable");
  EXPECT_FAILS(aclDestroyAclOpExecutor(fake), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor");
  aclOpExecutor* tensor_handle = reinterpret_cast<aclOpExecutor*>(problem.at(0).get());
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, tensor_handle, nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossBackward", "not a live executor");
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(0).bits, problem.out().Read()), "");
}

// ---------------------------------------------------------------------------------------------
// Tensors.

TEST(Lifetimes, DestroyedTensorPassedAgainInEveryPosition) {
  for (int position = 0; position < 4; ++position) {
    SCOPED_TRACE(kNames[position]);
    Problem problem({3, 7}, 40);
    // A phase one made while it was alive is not affected by the destruction.
    aclOpExecutor* made_before = nullptr;
    ASSERT_EQ(problem.PhaseOne(2, &made_before), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclTensor* dead = problem.at(position).get();
    ASSERT_EQ(problem.at(position).DestroyDescriptor(), ACLNN_SUCCESS);

    uint64_t workspace_size = 77;
    aclOpExecutor* executor = nullptr;
    aclTensor* args[4] = {problem.at(0).get(), problem.at(1).get(), problem.at(2).get(), problem.at(3).get()};
    args[position] = dead;
    EXPECT_FAILS(
        aclnnMseLossBackwardGetWorkspaceSize(args[0], args[1], args[2], 2, args[3], &workspace_size, &executor),
        ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackwardGetWorkspaceSize", kNames[position], "not a live aclTensor");
    EXPECT_EQ(executor, nullptr);
    int64_t* values = nullptr;
    uint64_t count = 0;
    EXPECT_FAILS(aclGetViewShape(dead, &values, &count), ACLNN_ERR_PARAM_INVALID, "aclGetViewShape",
                 "not a live aclTensor");
    EXPECT_EQ(values, nullptr);
    aclDataType dtype = ACL_DT_UNDEFINED;
    EXPECT_FAILS(aclGetDataType(dead, &dtype), ACLNN_ERR_PARAM_INVALID, "aclGetDataType", "not a live aclTensor");
    EXPECT_FAILS(aclDestroyTensor(dead), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "not a live aclTensor");

    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, made_before, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(2).bits, problem.out().Read()), "");
  }
}

// ---------------------------------------------------------------------------------------------
// Device reset and finalize.

TEST(Lifetimes, LaunchAfterTheLastDeviceResetThenAfterSetDevice) {
  support::EnsureRuntime();
  support::RuntimeRestorer restorer;
  Problem one_shot({4, 9}, 50);
  Problem repeatable({4, 9}, 60);
  aclOpExecutor* first = nullptr;
  aclOpExecutor* second = nullptr;
  ASSERT_EQ(one_shot.PhaseOne(1, &first), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(repeatable.PhaseOne(2, &second), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(second), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  const int references = ResetDeviceCompletely();
  ASSERT_GE(references, 1);
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, first, nullptr), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward",
               "aclrtSetDevice");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, second, stream), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward");
  // Neither executor was consumed or released by the failed launches.
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(second), ACLNN_SUCCESS) << aclGetRecentErrMsg();

  for (int i = 0; i < references; ++i) ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  // The reset released the stream: a launch on it is still a runtime error, and still consumes nothing.
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, first, stream), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward",
               PtrText(stream));
  EXPECT_FAILS(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyStream", PtrText(stream));

  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, first, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, second, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, second, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, one_shot.Expected(1).bits, one_shot.out().Read()), "");
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, repeatable.Expected(2).bits, repeatable.out().Read()), "");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, first, nullptr), ACLNN_ERR_PARAM_INVALID, "not a live executor");
  EXPECT_EQ(aclDestroyAclOpExecutor(second), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(Lifetimes, FinalizeDrainsQueuedLaunchesAndARepeatableExecutorSurvivesIt) {
  support::EnsureRuntime();
  support::RuntimeRestorer restorer;
  Problem queued({128, 64}, 70);
  Problem repeatable({6, 6}, 80);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  Filler filler;
  filler.Queue(stream);
  for (int i = 0; i < 4; ++i) filler.Copy(stream);  // queued work that takes a while, ahead of the launch
  aclOpExecutor* one_shot = nullptr;
  ASSERT_EQ(queued.PhaseOne(0, &one_shot), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, one_shot, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // The launch's output also lands in plain host memory, so it can be looked at without the runtime.
  std::vector<uint32_t> seen(128 * 64, 0);
  ASSERT_EQ(aclrtMemcpyAsync(seen.data(), queued.out().bytes(), queued.out().data(), queued.out().bytes(),
                             ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(repeatable.PhaseOne(1, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // Another thread waits on the stream meanwhile, holding it: aclFinalize must not leave the
  // queued work to whoever lets the stream go last.
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    waiting = true;
    (void)aclrtSynchronizeStream(stream);  // (fails when aclFinalize took the stream first)
  });
  while (!waiting.load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::microseconds(200));  // into the wait, most likely

  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  // The queued work ran before aclFinalize returned.
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, queued.Expected(0).bits, seen), "");
  waiter.join();
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward",
               "aclInit");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward");

  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, repeatable.Expected(1).bits, repeatable.out().Read()), "");
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, queued.Expected(0).bits, queued.out().Read()), "");
  // The stream went with aclFinalize.
  EXPECT_FAILS(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyStream", PtrText(stream));
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Streams.

TEST(Lifetimes, DestroyStreamWithLaunchesQueuedWaitsForThem) {
  support::EnsureRuntime();
  aclrtStream busy = nullptr;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&busy), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS) << aclGetRecentErrMsg();
  // The stream waits for copies on another one, so what follows on it stays queued for a while.
  Filler filler;
  filler.Queue(busy);
  ASSERT_EQ(aclrtRecordEvent(event, busy), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtStreamWaitEvent(stream, event), ACL_SUCCESS) << aclGetRecentErrMsg();

  constexpr int kLaunches = 6;
  std::vector<std::unique_ptr<Problem>> problems;
  std::vector<std::vector<uint32_t>> seen(kLaunches);
  for (int i = 0; i < kLaunches; ++i) {
    problems.push_back(std::make_unique<Problem>(std::vector<int64_t>{33, 17 + i}, 90 + 10 * static_cast<uint32_t>(i)));
    Problem& p = *problems.back();
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(p.PhaseOne(i % 3, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int k = 0; k < 4; ++k) EXPECT_EQ(p.at(k).DestroyDescriptor(), ACLNN_SUCCESS);
    seen[i].assign(p.out().bytes() / sizeof(float), 0);
    ASSERT_EQ(aclrtMemcpyAsync(seen[i].data(), p.out().bytes(), p.out().data(), p.out().bytes(),
                               ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  // Plain host memory, looked at without any synchronize: the destroy waited for every launch.
  for (int i = 0; i < kLaunches; ++i) {
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problems[i]->Expected(i % 3).bits, seen[i]), "")
        << "launch " << i;
  }
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeStream", PtrText(stream));
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyStream(busy), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(Lifetimes, StreamDestroyedWhileAnotherThreadLaunchesOnIt) {
  // A launch borrows its stream for the push: a destroy meanwhile waits for the push, then for the
  // work queued; every later launch is refused. A third thread's copies keep the stream busy in
  // half the rounds, so that launches queue.
  for (int round = 0; round < 20; ++round) {
    const bool busy = round % 2 == 1;
    Problem problem({256, 64}, 500 + static_cast<uint32_t>(round));
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(problem.PhaseOne(2, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    Filler filler;
    std::atomic<bool> stop{false};
    std::thread blocker([&] {  // one copy at a time, and what queued behind it
      while (busy && !stop.load()) {
        if (aclrtMemcpyAsync(filler.b(), 4096, filler.a(), 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, stream) != ACL_SUCCESS ||
            aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
          return;  // the stream is gone
        }
      }
    });
    LaunchUntilRefused launcher(executor, stream);
    launcher.AwaitLaunches(50);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    // Every launch accepted has run: the destroy waited for the work queued on the stream.
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, problem.Expected(2).bits, problem.out().Read()), "");
    launcher.ExpectRefused(ACLNN_ERR_RUNTIME_ERROR, {"aclnnMseLossBackward", PtrText(stream), "not a live"});
    stop = true;
    blocker.join();
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

// ---------------------------------------------------------------------------------------------
// aclrtFree.

TEST(Lifetimes, FreeOfPointersThatAreNotAnAllocationStart) {
  support::EnsureRuntime();
  const size_t bytes = 256;
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  char* base = static_cast<char*>(memory);
  EXPECT_FAILS(aclrtFree(base + bytes), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(base + bytes));  // one past
  EXPECT_FAILS(aclrtFree(base + bytes - 1), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(base + bytes - 1));
  EXPECT_FAILS(aclrtFree(base + 64), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(base + 64));  // aligned, inside
  void* foreign = std::malloc(64);
  ASSERT_NE(foreign, nullptr);
  EXPECT_FAILS(aclrtFree(foreign), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(foreign));
  std::free(foreign);
  // Handles of other kinds are not allocations either (and are never dereferenced).
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFree(stream), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(stream));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  const int64_t dims[] = {4};
  aclTensor* tensor = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, memory);
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFree(tensor), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(tensor));
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);

  // The failed frees left the allocation whole.
  std::vector<uint8_t> data(bytes, 0x6b), back(bytes, 0);
  ASSERT_EQ(aclrtMemcpy(memory, bytes, data.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpy(back.data(), bytes, memory, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(back, data);

  // Freed by two threads at once: exactly one free succeeds, the other is refused.
  for (int round = 0; round < 50; ++round) {
    void* shared = nullptr;
    ASSERT_EQ(aclrtMalloc(&shared, 64 + static_cast<size_t>(round), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::atomic<int> ready{0};
    aclError codes[2] = {-1, -1};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        codes[t] = aclrtFree(shared);
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ((codes[0] == ACL_SUCCESS) + (codes[1] == ACL_SUCCESS), 1) << codes[0] << ", " << codes[1];
    EXPECT_TRUE(codes[0] == ACL_ERROR_INVALID_PARAM || codes[1] == ACL_ERROR_INVALID_PARAM);
  }
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFree(memory), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(memory));
}

TEST(Lifetimes, FreeWhileARepeatableExecutorUsesTheMemory) {
  for (int freed = 0; freed < 4; ++freed) {
    SCOPED_TRACE(kNames[freed]);
    Problem problem({256, 64}, 200 + static_cast<uint32_t>(freed));
    const golden::Tensor expected = problem.Expected(1);
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(problem.PhaseOne(1, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    Filler filler;
    filler.Queue(stream);
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    std::vector<uint32_t> seen(256 * 64, 0);
    ASSERT_EQ(aclrtMemcpyAsync(seen.data(), problem.out().bytes(), problem.out().data(), problem.out().bytes(),
                               ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    // The free waits for the queued launch (and, for out, for the copy after it).
    void* gone = problem.at(freed).data();
    ASSERT_EQ(problem.at(freed).FreeMemory(), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, seen), "");

    // The executor is alive but its memory is not: the next launch is refused and queues nothing.
    EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
                 std::string("memory of ") + kNames[freed]);
    EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, kNames[freed]);
    EXPECT_FAILS(aclrtFree(gone), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(gone));
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    if (freed != 3) {
      EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, problem.out().Read()), "");
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(Lifetimes, FreedWorkspaceIsRefusedAtTheNextLaunch) {
  support::EnsureRuntime();
  // out overlaps self partially, so the launch stages self in a workspace.
  const int64_t n = 512;
  void* shared = nullptr;
  ASSERT_EQ(aclrtMalloc(&shared, 2 * n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::mt19937 rng(300);
  const std::vector<uint32_t> values = support::RandomBits(ACL_FLOAT, 2 * n, support::ValueClass::kNormal, rng);
  ASSERT_EQ(aclrtMemcpy(shared, 2 * n * sizeof(float), values.data(), 2 * n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  const int64_t dims[] = {n};
  const int64_t storage[] = {2 * n};
  aclTensor* self = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, shared);
  aclTensor* out = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, n / 4, ACL_FORMAT_ND, storage, 1, shared);
  Operand grad({n}, 301);
  Operand target({n}, 302);
  const golden::Tensor self_golden{
      golden::Dtype::kFloat32, {n}, std::vector<uint32_t>(values.begin(), values.begin() + n)};
  const golden::Tensor expected =
      golden::MseLossGrad(grad.Golden(), self_golden, target.Golden(), 2, golden::Dtype::kFloat32);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self, target.get(), 2, out, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_GT(workspace_size, 0u);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyTensor(self), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(out), ACLNN_SUCCESS);
  void* workspace = nullptr;
  ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclnnMseLossBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtFree(workspace), ACL_SUCCESS) << aclGetRecentErrMsg();  // waits for the launch
  std::vector<uint32_t> after(2 * n, 0);
  ASSERT_EQ(aclrtMemcpy(after.data(), 2 * n * sizeof(float), shared, 2 * n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits,
                                 std::vector<uint32_t>(after.begin() + n / 4, after.begin() + n / 4 + n)),
            "");
  EXPECT_FAILS(aclnnMseLossBackward(workspace, workspace_size, executor, nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossBackward", "workspace", PtrText(workspace));
  // Nothing ran: the memory is as the first launch left it.
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint32_t> again(2 * n, 0);
  ASSERT_EQ(aclrtMemcpy(again.data(), 2 * n * sizeof(float), shared, 2 * n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(again, after);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtFree(shared), ACL_SUCCESS) << aclGetRecentErrMsg();
}

}  // namespace

// Phase one finds allocations without the registry's lock through the ones its thread found last:
// once an allocation is freed (here, or by another thread) it is never found again, and an
// allocation made later at the same address is checked by its own size.
TEST(Lifetimes, PhaseOneAfterItsMemoryWasFreedAndAllocatedAgain) {
  support::EnsureRuntime();
  const int64_t dims[] = {16, 16};
  const int64_t storage[] = {256};
  const uint64_t bytes = 256 * sizeof(float);
  for (bool freed_elsewhere : {false, true}) {
    SCOPED_TRACE(freed_elsewhere ? "freed by another thread" : "freed by this thread");
    void* memory[4] = {};
    aclTensor* tensors[4] = {};
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(aclrtMalloc(&memory[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
      ASSERT_EQ(aclrtMemset(memory[i], bytes, 0, bytes), ACL_SUCCESS);
      tensors[i] = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, memory[i]);
    }
    auto phase_one = [&] {
      uint64_t workspace_size = 0;
      aclOpExecutor* executor = nullptr;
      const aclnnStatus status = aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], 1, tensors[3],
                                                                      &workspace_size, &executor);
      if (status == ACLNN_SUCCESS) {
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
      }
      return status;
    };
    ASSERT_EQ(phase_one(), ACLNN_SUCCESS) << aclGetRecentErrMsg();  // this thread now knows the four
    void* const gone = memory[1];
    if (freed_elsewhere) {
      std::thread([&] { EXPECT_EQ(aclrtFree(gone), ACL_SUCCESS) << aclGetRecentErrMsg(); }).join();
    } else {
      ASSERT_EQ(aclrtFree(gone), ACL_SUCCESS);
    }
    EXPECT_FAILS(phase_one(), ACLNN_ERR_PARAM_INVALID, "self", "not inside one live aclrtMalloc allocation");
    // A smaller allocation, perhaps at the same address: self's 1 KiB storage still lies in none.
    void* smaller = nullptr;
    ASSERT_EQ(aclrtMalloc(&smaller, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_FAILS(phase_one(), ACLNN_ERR_PARAM_INVALID, "self", "not inside one live aclrtMalloc allocation");
    // Self pointed at a new allocation of its size: accepted again.
    void* fresh = nullptr;
    ASSERT_EQ(aclrtMalloc(&fresh, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclDestroyTensor(tensors[1]), ACLNN_SUCCESS);
    tensors[1] = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, fresh);
    EXPECT_EQ(phase_one(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    memory[1] = fresh;
    EXPECT_EQ(aclrtFree(smaller), ACL_SUCCESS);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(aclDestroyTensor(tensors[i]), ACLNN_SUCCESS);
      EXPECT_EQ(aclrtFree(memory[i]), ACL_SUCCESS);
    }
  }
}
