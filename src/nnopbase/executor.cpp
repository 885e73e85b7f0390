// aclOpExecutor: the result of phase one. It owns a LaunchSpec; a one-shot executor is released by
// its launch, a repeatable one by aclDestroyAclOpExecutor. Handles are never reused (HandleTable),
// so a released executor passed again is an error, never a use of freed memory.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"

namespace aclcpu {
namespace {

// What an aclOpExecutor handle names.
struct Executor {
  LaunchSpec spec;
  std::atomic<bool> repeatable{false};
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

}  // namespace

aclOpExecutor* CreateExecutor(LaunchSpec spec) {
  auto executor = std::make_shared<Executor>();
  executor->spec = std::move(spec);
  return static_cast<aclOpExecutor*>(Executors().Add(std::move(executor)));
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
  pins.reserve(spec.memory.size() + 1);
  for (const MemoryRange& range : spec.memory) {
    MemoryPin pin;
    uint64_t allocation_id = 0;
    if (range.bytes != 0 &&
        (!PinDeviceRange(range.begin, range.bytes, &pin, &allocation_id) || allocation_id != range.allocation_id)) {
      SetRecentError(std::string(api) + ": the memory of " + std::string(range.owner) +
                     " is no longer inside a live aclrtMalloc allocation");
      return ACLNN_ERR_PARAM_INVALID;
    }
    pins.push_back(std::move(pin));
  }
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
  aclError queued = EnqueueOnStream(
      api, stream, [executor, workspace] { executor->spec.run(workspace); }, std::move(pins));
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
