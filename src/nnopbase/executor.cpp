// aclOpExecutor: the result of phase one. It owns a LaunchSpec; a one-shot executor is released by
// its launch, a repeatable one by aclDestroyAclOpExecutor. Handles are never reused (HandleTable),
// so a released executor passed again is an error, never a use of freed memory.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"

namespace aclcpu {
namespace {

// What an aclOpExecutor handle names.
struct Executor {
  LaunchSpec spec;
  std::atomic<bool> repeatable{false};
  // Where each of spec.arguments is now, and the allocation that was live there when it was set.
  std::mutex mutex;
  char* bases[LaunchSpec::kMaxArguments] = {};
  uint64_t allocation_ids[LaunchSpec::kMaxArguments] = {};
};

HandleTable<Executor>& Executors() {
  static HandleTable<Executor>* executors = new HandleTable<Executor>(0xb2);
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

// Pins the arguments' storage at the addresses of this launch into *pins. An output that overlaps
// another argument must do so exactly as at phase one (which planned for it); nothing else may.
aclnnStatus PrepareArguments(const char* api, const LaunchSpec& spec, char* const* bases,
                             const uint64_t* allocation_ids, std::vector<MemoryPin>* pins) {
  const TensorArgument* args = spec.arguments;
  const size_t count = static_cast<size_t>(spec.argument_count);
  for (size_t k = 0; k < count; ++k) {
    if (args[k].storage_bytes == 0) continue;
    MemoryPin pin;
    uint64_t allocation_id = 0;
    if (!PinDeviceRange(bases[k], args[k].storage_bytes, &pin, &allocation_id) || allocation_id != allocation_ids[k]) {
      SetRecentError(std::string(api) + ": the memory of " + args[k].name +
                     " is no longer inside a live aclrtMalloc allocation");
      return ACLNN_ERR_PARAM_INVALID;
    }
    pins->push_back(std::move(pin));
  }
  auto span = [&](size_t k, char* base, uintptr_t* begin, uintptr_t* end) {
    *begin = reinterpret_cast<uintptr_t>(base) + args[k].span_begin;
    *end = reinterpret_cast<uintptr_t>(base) + args[k].span_end;
  };
  for (size_t o = 0; o < count; ++o) {
    if (!args[o].output || args[o].storage_bytes == 0) continue;
    for (size_t k = 0; k < count; ++k) {
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

aclOpExecutor* CreateExecutor(LaunchSpec spec) {
  auto executor = std::make_shared<Executor>();
  executor->spec = std::move(spec);
  for (int k = 0; k < executor->spec.argument_count; ++k) {
    executor->bases[k] = executor->spec.arguments[k].base;
    executor->allocation_ids[k] = executor->spec.arguments[k].allocation_id;
  }
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
  uint64_t allocation_id = 0;
  if (argument.storage_bytes > 0 && !PinDeviceRange(addr, argument.storage_bytes, nullptr, &allocation_id)) {
    SetRecentError(std::string(api) + ": the storage of " + argument.name + " at " + Hex(addr) + " (" +
                   std::to_string(argument.storage_bytes) + " bytes) is not inside one live aclrtMalloc allocation");
    return ACLNN_ERR_PARAM_INVALID;
  }
  std::lock_guard<std::mutex> lock(executor->mutex);
  executor->bases[k] = static_cast<char*>(addr);
  executor->allocation_ids[k] = allocation_id;
  return ACLNN_SUCCESS;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* handle,
                           aclrtStream stream) {
  if (handle == nullptr) {
    SetRecentError(std::string(api) + ": executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<Executor> executor = Executors().Find(handle);
  if (!executor) {
    SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const LaunchSpec& spec = executor->spec;
  if (workspace_size < spec.workspace_size) {
    SetRecentError(std::string(api) + ": workspaceSize " + std::to_string(workspace_size) + " is smaller than the " +
                   std::to_string(spec.workspace_size) + " bytes phase one asked for");
    return ACLNN_ERR_PARAM_INVALID;
  }
  // Pin every byte range the launch touches, so that aclrtFree waits for the work.
  std::vector<MemoryPin> pins;
  pins.reserve(static_cast<size_t>(spec.argument_count) + 1);
  struct Bases {
    char* at[LaunchSpec::kMaxArguments];
  } bases;
  uint64_t allocation_ids[LaunchSpec::kMaxArguments];
  {
    std::lock_guard<std::mutex> lock(executor->mutex);
    std::copy(executor->bases, executor->bases + spec.argument_count, bases.at);
    std::copy(executor->allocation_ids, executor->allocation_ids + spec.argument_count, allocation_ids);
  }
  if (aclnnStatus status = PrepareArguments(api, spec, bases.at, allocation_ids, &pins)) return status;
  if (spec.workspace_size > 0) {
    if (workspace == nullptr) {
      SetRecentError(std::string(api) + ": workspace is null but " + std::to_string(spec.workspace_size) +
                     " bytes are needed");
      return ACLNN_ERR_PARAM_NULLPTR;
    }
    MemoryPin pin;
    if (!PinDeviceRange(workspace, spec.workspace_size, &pin)) {
      SetRecentError(std::string(api) + ": workspace " + Hex(workspace) + " + " + std::to_string(spec.workspace_size) +
                     " bytes is not inside one live aclrtMalloc allocation");
      return ACLNN_ERR_PARAM_INVALID;
    }
    pins.push_back(std::move(pin));
  }
  const bool one_shot = !executor->repeatable;
  if (one_shot && !Executors().Remove(handle)) {  // consumed by this launch; or raced by another
    SetRecentError(std::string(api) + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  std::function<void()> work = [executor, workspace, bases] { executor->spec.run_at(workspace, bases.at); };
  aclError queued = EnqueueOnStream(api, stream, std::move(work), std::move(pins));
  if (queued != ACL_SUCCESS) {
    if (one_shot) Executors().Restore(handle, executor);  // not launched after all: may try again
    SetRecentError(std::string(api) + ": cannot queue the work: " + aclGetRecentErrMsg());
    return ACLNN_ERR_RUNTIME_ERROR;
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
  if (!aclcpu::Executors().Remove(executor)) {  // queued launches hold their own reference
    SetRecentError("aclDestroyAclOpExecutor: executor " + aclcpu::Hex(executor) + aclcpu::kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* /*configPath*/) { return ACLNN_SUCCESS; }

ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"
