// aclOpExecutor: the result of phase one. It owns a LaunchSpec; a one-shot executor is released by
// its launch, a repeatable one by aclDestroyAclOpExecutor. Handles are never reused (HandleTable),
// so a released executor passed again is an error, never a use of freed memory.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"
#include "tensor_checks.h"
#include "thread_block_cache.h"

namespace aclcpu {
namespace {

// Launches read an executor's argument addresses on every call; aclSetInputTensorAddr and its kin
// change them now and then. Readers count themselves in one atomic word (no mutex on a launch); a
// writer, one at a time, sets its bit and waits for the readers to leave. (Named as the standard's
// shared mutexes name these, for std::shared_lock and std::lock_guard.)
class AddressLock {
 public:
  void lock_shared() {
    uint32_t state = state_.load(std::memory_order_relaxed);
    for (int attempt = 0;; ++attempt) {
      if ((state & kWriter) == 0) {
        if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acquire)) return;
        continue;  // state reloaded by the failed exchange
      }
      Pause(attempt);
      state = state_.load(std::memory_order_relaxed);
    }
  }
  void unlock_shared() { state_.fetch_sub(1, std::memory_order_release); }
  void lock() {
    writers_.lock();
    state_.fetch_or(kWriter);  // no new readers; seq_cst: see WriterAnnounced
    for (int attempt = 0; (state_.load(std::memory_order_acquire) & ~kWriter) != 0; ++attempt) Pause(attempt);
  }
  void unlock() {
    state_.fetch_and(~kWriter, std::memory_order_release);
    writers_.unlock();
  }
  // Whether a writer holds the lock or waits for it. A reader that stored a flag (seq_cst) which
  // every writer reads after lock() need not lock when this is false: a writer that comes later
  // sees the flag.
  bool WriterAnnounced() const { return (state_.load() & kWriter) != 0; }

 private:
  static constexpr uint32_t kWriter = uint32_t{1} << 31;
  static void Pause(int attempt) {
    if (attempt >= 64) std::this_thread::yield();  // the other side holds it for a few instructions
  }
  std::atomic<uint32_t> state_{0};  // readers inside, plus kWriter while a writer holds it
  std::mutex writers_;
};

// What an aclOpExecutor handle names.
struct Executor {
  // User-provided, so that making one (value-initialization, as std::allocate_shared does) does not
  // first zero its 2 KiB launch closure: every member has its own initializer.
  Executor() {}  // NOLINT(modernize-use-equals-default)
  LaunchSpec spec;
  std::atomic<bool> repeatable{false};
  // A one-shot executor's launch has begun (it runs once). From then on its arguments stay as they
  // are (RebindExecutorArgument refuses), so its launch's pins borrow the references below.
  std::atomic<bool> launching{false};
  // Where each of spec.arguments is now, and the allocation that was live there when it was set.
  AddressLock address_lock;
  char* bases[LaunchSpec::kMaxArguments];  // the first spec.argument_count (set by Publish)
  std::shared_ptr<Allocation> allocations[LaunchSpec::kMaxArguments];
};

HandleTable<Executor>& Executors() {
  // Never destroyed: each thread may keep the slots it frees (adding and removing take no lock).
  static HandleTable<Executor>* executors = new HandleTable<Executor>(0xb2, /*thread_slots=*/true);
  return *executors;
}

const char* kNotLive = " is not a live executor (a one-shot executor runs once; a destroyed one never again)";

std::string Hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

// The argument number index among the inputs (output: the outputs), or -1.
int64_t ArgumentPosition(const LaunchSpec& spec, bool output, size_t index) {
  size_t seen = 0;
  for (int k = 0; k < spec.argument_count; ++k) {
    if (spec.arguments[k].output != output) continue;
    if (seen++ == index) return static_cast<int64_t>(k);
  }
  return -1;
}

bool SpansOverlap(uintptr_t a_begin, uintptr_t a_end, uintptr_t b_begin, uintptr_t b_end) {
  return a_begin < a_end && b_begin < b_end && a_begin < b_end && b_begin < a_end;
}

// The most pins a launch takes: its arguments' storage and the workspace.
constexpr int kMaxLaunchPins = LaunchSpec::kMaxArguments + 1;

using LentExecutor = HandleTable<Executor>::Borrowed;

// One launch of an executor as stream work: the executor, the addresses of this launch and the
// pins that keep their memory from being freed meanwhile. The launch's caller lends the executor
// (its handle's slot counts the launch as a reader, so no aclDestroyAclOpExecutor takes it until
// the call returns); work queued for later takes a reference of its own (Detach).
class LaunchTask final : public StreamTask {
 public:
  LaunchTask(const LentExecutor& lent, void* workspace)
      : lent_(&lent),
        executor_(&*lent),
        workspace_(workspace),
        threads_(KernelThreadCount()),
        queued_by_(std::this_thread::get_id()) {}
  Executor& executor() const { return *executor_; }
  LaunchTask(LaunchTask&&) = default;

  char** bases() { return bases_; }
  // Pins an allocation for this launch; false when aclrtFree has taken it.
  bool AddPin(std::shared_ptr<Allocation> allocation) {
    if (!pins_[pin_count_].Pin(std::move(allocation), /*queued=*/true)) return false;
    ++pin_count_;
    return true;
  }
  // The same for an allocation the executor holds a reference to for longer than the pin: the pin
  // counts no reference of its own (a shared_ptr without an owner; Release drops the pins before
  // the executor).
  bool AddBorrowedPin(const std::shared_ptr<Allocation>& held) {
    return AddPin(std::shared_ptr<Allocation>(std::shared_ptr<Allocation>(), held.get()));
  }

  void Run() override {
    const LaunchSpec& spec = executor_->spec;
    char* data[LaunchSpec::kMaxArguments];
    for (int k = 0; k < spec.argument_count; ++k) data[k] = bases_[k] + spec.arguments[k].first_element;
    if (std::this_thread::get_id() == queued_by_) {  // run inline: the setting is this thread's own
      spec.run(workspace_, data);
      return;
    }
    LaunchThreads threads(threads_);  // the queuing thread's setting, on the stream's thread
    spec.run(workspace_, data);
  }
  void Release() override {
    for (int i = 0; i < pin_count_; ++i) pins_[i].Release();  // before the executor: borrowed pins
    pin_count_ = 0;
    owner_.reset();
  }
  std::unique_ptr<StreamTask> Detach() override {
    owner_ = lent_->Share();  // still lent: the call that lends it is queuing this
    lent_ = nullptr;
    return std::make_unique<LaunchTask>(std::move(*this));
  }

 private:
  const LentExecutor* lent_;         // the caller's loan, until Detach
  Executor* executor_;               // lent, or held by owner_
  std::shared_ptr<Executor> owner_;  // queued work's own reference
  void* workspace_;
  int threads_;  // KernelThreadCount() of the thread that queued the launch
  std::thread::id queued_by_;
  char* bases_[LaunchSpec::kMaxArguments];  // the first argument_count (PrepareArguments)
  MemoryPin pins_[kMaxLaunchPins];
  int pin_count_ = 0;
};

// A one-shot executor's claim on its one launch (its launching flag, set by the caller): given back
// when the claim ends, unless Keep() -- the launch was queued or run.
class OneShotClaim {
 public:
  OneShotClaim(Executor& executor, bool one_shot) : executor_(one_shot ? &executor : nullptr) {}
  ~OneShotClaim() {
    if (executor_ != nullptr) executor_->launching = false;
  }
  OneShotClaim(const OneShotClaim&) = delete;
  OneShotClaim& operator=(const OneShotClaim&) = delete;
  void Keep() { executor_ = nullptr; }

 private:
  Executor* executor_;
};

// Pins the arguments' storage at the addresses of this launch (taken from the executor) into
// *task. An output that overlaps another argument must do so exactly as at phase one (which
// planned for it); nothing else may. borrow: the launch is the one launch of a one-shot executor,
// whose arguments no longer change (RebindExecutorArgument refuses it): its pins borrow the
// executor's references.
aclnnStatus PrepareArguments(const char* api, LaunchTask* task, bool borrow) {
  Executor& executor = task->executor();
  const LaunchSpec& spec = executor.spec;
  const TensorArgument* args = spec.arguments;
  const int count = spec.argument_count;
  char** bases = task->bases();
  bool moved = false;  // an argument is no longer where phase one planned it
  {
    // Against a concurrent aclSetInputTensorAddr. A one-shot launch has set the executor's
    // launching flag, which a rebind reads under the lock and then refuses: the addresses are read
    // without the lock unless a rebind took it first.
    std::shared_lock<AddressLock> lock(executor.address_lock, std::defer_lock);
    if (!borrow || executor.address_lock.WriterAnnounced()) lock.lock();
    for (int k = 0; k < count; ++k) {
      bases[k] = executor.bases[k];
      moved = moved || bases[k] != args[k].base;
      if (args[k].storage_bytes == 0) continue;
      const std::shared_ptr<Allocation>& allocation = executor.allocations[k];
      if (!(borrow ? task->AddBorrowedPin(allocation) : task->AddPin(allocation))) {
        SetRecentError(std::string(api) + ": the memory of " + args[k].name +
                       " is no longer inside a live aclrtMalloc allocation or aclrtHostRegister range");
        return ACLNN_ERR_PARAM_INVALID;
      }
    }
  }
  if (!moved) return ACLNN_SUCCESS;  // every argument where phase one planned it, overlaps included
  auto span = [&](int k, char* base, uintptr_t* begin, uintptr_t* end) {
    *begin = reinterpret_cast<uintptr_t>(base) + args[k].span_begin;
    *end = reinterpret_cast<uintptr_t>(base) + args[k].span_end;
  };
  for (int o = 0; o < count; ++o) {
    if (!args[o].output || args[o].storage_bytes == 0) continue;
    for (int k = 0; k < count; ++k) {
      if (k == o || args[k].storage_bytes == 0) continue;
      uintptr_t ob, oe, kb, ke, ob0, oe0, kb0, ke0;
      span(o, bases[o], &ob, &oe);
      span(k, bases[k], &kb, &ke);
      if (!SpansOverlap(ob, oe, kb, ke)) continue;
      span(o, args[o].base, &ob0, &oe0);
      span(k, args[k].base, &kb0, &ke0);
      if (SpansOverlap(ob0, oe0, kb0, ke0) && kb - ob == kb0 - ob0) continue;  // the same aliasing as planned
      SetRecentError(std::string(api) + ": at its new address " + args[k].name + " overlaps " + args[o].name +
                     " otherwise than at phase one; call phase one again for memory laid out like this");
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

NewExecutor::NewExecutor() {
  // Executors are made and released on every call, and are larger (2 KiB) than malloc keeps per
  // thread.
  auto executor = std::allocate_shared<Executor>(ThreadCachedAllocator<Executor, Executor>());
  spec_ = &executor->spec;
  allocations_ = executor->allocations;
  executor_ = std::move(executor);
}

aclOpExecutor* NewExecutor::Publish() {
  std::shared_ptr<Executor> executor = std::static_pointer_cast<Executor>(std::move(executor_));
  for (int k = 0; k < executor->spec.argument_count; ++k) executor->bases[k] = executor->spec.arguments[k].base;
  return static_cast<aclOpExecutor*>(Executors().Add(std::move(executor)));
}

int64_t ExecutorArgumentCount(const aclOpExecutor* handle, bool output) {
  std::shared_ptr<Executor> executor = Executors().Find(handle);
  if (!executor) return -1;
  int64_t count = 0;
  for (int k = 0; k < executor->spec.argument_count; ++k) count += executor->spec.arguments[k].output == output ? 1 : 0;
  return count;
}

aclnnStatus RebindExecutorArgument(const char* api, aclOpExecutor* handle, bool output, size_t index, void* addr) {
  std::shared_ptr<Executor> executor = Executors().Find(handle);
  if (!executor) {
    SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const int64_t k = ArgumentPosition(executor->spec, output, index);
  if (k < 0) {
    SetRecentError(std::string(api) + ": the executor's operator has " +
                   std::to_string(ExecutorArgumentCount(handle, output)) + (output ? " outputs" : " inputs") +
                   " that take new addresses; index " + std::to_string(index) + " is not one of them");
    return ACLNN_ERR_PARAM_INVALID;
  }
  const TensorArgument& argument = executor->spec.arguments[k];
  std::shared_ptr<Allocation> allocation;
  if (argument.storage_bytes > 0 && !(allocation = FindDeviceRange(addr, argument.storage_bytes))) {
    SetRecentError(std::string(api) + ": the storage of " + argument.name + " at " + Hex(addr) + " (" +
                   std::to_string(argument.storage_bytes) + " bytes) " + kOutsideDeviceMemory);
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (output && allocation && allocation->read_only) return WriteToReadOnlyMemory(api, argument.name, addr);
  {
    std::lock_guard<AddressLock> lock(executor->address_lock);
    if (executor->launching.load()) {  // a one-shot executor being launched: consumed
      SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
      return ACLNN_ERR_PARAM_INVALID;
    }
    executor->bases[k] = static_cast<char*>(addr);
    std::swap(executor->allocations[k], allocation);  // the old one is released after the lock
  }
  return ACLNN_SUCCESS;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* handle,
                           aclrtStream stream) {
  if (handle == nullptr) {
    SetRecentError(std::string(api) + ": executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  // Lent for the call (no reference counted), as phase one's tensors are: an
  // aclDestroyAclOpExecutor meanwhile waits for the call to return.
  LentExecutor lent = Executors().Borrow(handle);
  if (!lent) {
    SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  Executor& executor = *lent;
  const uint64_t needed = executor.spec.workspace_size;
  if (workspace_size < needed) {
    SetRecentError(std::string(api) + ": workspaceSize " + std::to_string(workspace_size) + " is smaller than the " +
                   std::to_string(needed) + " bytes phase one asked for");
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (needed > 0 && workspace == nullptr) {
    SetRecentError(std::string(api) + ": workspace is null but " + std::to_string(needed) + " bytes are needed");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  const bool one_shot = !executor.repeatable;
  if (one_shot && executor.launching.exchange(true)) {  // another thread launches it right now
    SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  // Declared before the task: a launch refused below, or an exception, releases the task's pins
  // first and then gives the one-shot executor back (it may be launched again).
  OneShotClaim claim(executor, one_shot);
  // A one-shot launch's pins borrow the executor's references: its arguments stay as they are now.
  LaunchTask task(lent, workspace);
  // Pin every byte range the launch touches, so that aclrtFree waits for the work.
  if (aclnnStatus status = PrepareArguments(api, &task, /*borrow=*/one_shot)) return status;
  if (needed > 0) {
    std::shared_ptr<Allocation> allocation;
    const void* begin = workspace;
    if (FindDeviceRanges(&begin, &needed, 1, &allocation) >= 0 || !task.AddPin(std::move(allocation))) {
      SetRecentError(std::string(api) + ": workspace " + Hex(workspace) + " + " + std::to_string(needed) + " bytes " +
                     kOutsideDeviceMemory);
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  aclError queued = EnqueueOnStream(api, stream, task);
  if (queued != ACL_SUCCESS) {  // the task was neither run nor queued
    SetRecentError(std::string(api) + ": cannot queue the work: " + aclGetRecentErrMsg());
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  claim.Keep();
  if (one_shot) {           // consumed by this launch
    lent = LentExecutor();  // returned first: Remove waits for every loan
    Executors().Remove(handle);
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclcpu

using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (executor == nullptr) {
    SetRecentError("aclSetAclOpExecutorRepeatable: executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<aclcpu::Executor> live = aclcpu::Executors().Find(executor);
  if (!live) {
    SetRecentError("aclSetAclOpExecutorRepeatable: executor " + aclcpu::Hex(executor) + aclcpu::kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  live->repeatable = true;
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) {
    SetRecentError("aclDestroyAclOpExecutor: executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  // A launch in progress is waited for; queued launches hold their own reference.
  if (!aclcpu::Executors().Remove(executor)) {
    SetRecentError("aclDestroyAclOpExecutor: executor " + aclcpu::Hex(executor) + aclcpu::kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* /*configPath*/) { return ACLNN_SUCCESS; }

ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"
