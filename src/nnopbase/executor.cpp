// aclOpExecutor: the result of phase one. It owns a LaunchSpec; a one-shot executor is released by
// its launch, a repeatable one by aclDestroyAclOpExecutor. Handles are checked against a registry,
// so a released executor passed again is an error, never a use of freed memory.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "nnopbase_internal.h"
#include "runtime/api_guard.h"

struct aclOpExecutor {
  aclcpu::LaunchSpec spec;
  bool repeatable = false;
};

namespace aclcpu {
namespace {

struct ExecutorRegistry {
  std::mutex mutex;
  std::unordered_map<const aclOpExecutor*, std::shared_ptr<aclOpExecutor>> live;
};

ExecutorRegistry& Executors() {
  static ExecutorRegistry* registry = new ExecutorRegistry;
  return *registry;
}

std::shared_ptr<aclOpExecutor> FindExecutor(const aclOpExecutor* executor) {
  ExecutorRegistry& registry = Executors();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.live.find(executor);
  return it == registry.live.end() ? nullptr : it->second;
}

const char* kNotLive = " is not a live executor (a one-shot executor runs once; a destroyed one never again)";

std::string Hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

}  // namespace

aclOpExecutor* CreateExecutor(LaunchSpec spec) {
  auto executor = std::make_shared<aclOpExecutor>();
  executor->spec = std::move(spec);
  aclOpExecutor* handle = executor.get();
  ExecutorRegistry& registry = Executors();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.live.emplace(handle, std::move(executor));
  return handle;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* handle,
                           aclrtStream stream) {
  const std::string name(api);
  if (handle == nullptr) {
    SetRecentError(name + ": executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<aclOpExecutor> executor = FindExecutor(handle);
  if (!executor) {
    SetRecentError(name + ": executor " + Hex(handle) + kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const LaunchSpec& spec = executor->spec;
  if (workspace_size < spec.workspace_size) {
    SetRecentError(name + ": workspaceSize " + std::to_string(workspace_size) + " is smaller than the " +
                   std::to_string(spec.workspace_size) + " bytes phase one asked for");
    return ACLNN_ERR_PARAM_INVALID;
  }
  // Pin every byte range the launch touches, so that aclrtFree waits for the work.
  std::vector<MemoryPin> pins;
  for (const MemoryRange& range : spec.memory) {
    MemoryPin pin;
    if (range.bytes != 0 && !PinDeviceRange(range.begin, range.bytes, &pin)) {
      SetRecentError(name + ": the memory of " + range.owner + " is no longer inside a live aclrtMalloc allocation");
      return ACLNN_ERR_PARAM_INVALID;
    }
    pins.push_back(std::move(pin));
  }
  if (spec.workspace_size > 0) {
    if (workspace == nullptr) {
      SetRecentError(name + ": workspace is null but " + std::to_string(spec.workspace_size) + " bytes are needed");
      return ACLNN_ERR_PARAM_NULLPTR;
    }
    MemoryPin pin;
    if (!PinDeviceRange(workspace, spec.workspace_size, &pin)) {
      SetRecentError(name + ": workspace " + Hex(workspace) + " + " + std::to_string(spec.workspace_size) +
                     " bytes is not inside one live aclrtMalloc allocation");
      return ACLNN_ERR_PARAM_INVALID;
    }
    pins.push_back(std::move(pin));
  }
  ExecutorRegistry& registry = Executors();
  if (!executor->repeatable) {  // a one-shot executor is consumed by this launch
    std::lock_guard<std::mutex> lock(registry.mutex);
    if (registry.live.erase(handle) == 0) {
      SetRecentError(name + ": executor " + Hex(handle) + kNotLive);
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  aclError queued = EnqueueOnStream(
      stream, [executor, workspace] { executor->spec.run(workspace); }, std::move(pins));
  if (queued != ACL_SUCCESS) {
    if (!executor->repeatable) {  // not launched after all: the caller may try again
      std::lock_guard<std::mutex> lock(registry.mutex);
      registry.live.emplace(handle, executor);
    }
    SetRecentError(name + ": cannot queue the work: " + aclGetRecentErrMsg());
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
  aclcpu::ExecutorRegistry& registry = aclcpu::Executors();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.live.find(executor);
  if (it == registry.live.end()) {
    SetRecentError("aclSetAclOpExecutorRepeatable: executor " + aclcpu::Hex(executor) + aclcpu::kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  it->second->repeatable = true;
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) {
    SetRecentError("aclDestroyAclOpExecutor: executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<aclOpExecutor> taken;  // released outside the lock; queued launches hold their own
  aclcpu::ExecutorRegistry& registry = aclcpu::Executors();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.live.find(executor);
  if (it == registry.live.end()) {
    SetRecentError("aclDestroyAclOpExecutor: executor " + aclcpu::Hex(executor) + aclcpu::kNotLive);
    return ACLNN_ERR_PARAM_INVALID;
  }
  taken = std::move(it->second);
  registry.live.erase(it);
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* /*configPath*/) { return ACLNN_SUCCESS; }

ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"
