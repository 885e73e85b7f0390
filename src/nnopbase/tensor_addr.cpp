// aclSetInputTensorAddr and its kin: a tensor gets a new storage address, and an executor from
// phase one points that tensor's argument at it for the launches to come. As CANN does, a null
// tensor or executor is ACLNN_ERR_INNER_NULLPTR, and the tensor's address is set before the
// executor is looked at.
#include <string>

#include "nnopbase_internal.h"
#include "runtime/api_guard.h"

namespace aclcpu {
namespace {

enum class Role { kInput, kOutput, kEither };

aclnnStatus NullArgument(const char* api, const char* name) {
  SetRecentError(std::string(api) + ": " + name + " is null");
  return ACLNN_ERR_INNER_NULLPTR;
}

// The executor part: index among the inputs, the outputs, or (kEither) the inputs then the outputs.
aclnnStatus Rebind(const char* api, aclOpExecutor* executor, Role role, size_t index, void* addr) {
  if (executor == nullptr) return NullArgument(api, "executor");
  if (role != Role::kEither) return RebindExecutorArgument(api, executor, role == Role::kOutput, index, addr);
  const int64_t inputs = ExecutorArgumentCount(executor, false);
  if (inputs >= 0 && index >= static_cast<size_t>(inputs)) {
    return RebindExecutorArgument(api, executor, true, index - static_cast<size_t>(inputs), addr);
  }
  return RebindExecutorArgument(api, executor, false, index, addr);
}

aclnnStatus SetAddr(const char* api, aclOpExecutor* executor, Role role, size_t index, aclTensor* tensor, void* addr) {
  return Guarded(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER_NULLPTR), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
                 [&]() -> aclnnStatus {
                   if (tensor == nullptr) return NullArgument(api, "tensor");
                   if (aclnnStatus status = SetTensorData(api, tensor, addr)) return status;
                   return Rebind(api, executor, role, index, addr);
                 });
}

// The Dynamic forms: the tensor is element relativeIndex of a tensor list. No operator here takes a
// tensor-list argument, so a live executor has none at irIndex.
aclnnStatus SetDynamicAddr(const char* api, aclOpExecutor* executor, size_t irIndex, size_t relativeIndex,
                           aclTensorList* tensors, void* addr) {
  return Guarded(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER_NULLPTR), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
                 [&]() -> aclnnStatus {
                   if (tensors == nullptr) return NullArgument(api, "tensors");
                   std::shared_ptr<const aclTensorList> list = FindTensorList(tensors);
                   if (!list) {
                     SetRecentError(std::string(api) + ": tensors is not a live aclTensorList");
                     return ACLNN_ERR_PARAM_INVALID;
                   }
                   if (relativeIndex >= list->tensors.size()) {
                     SetRecentError(std::string(api) + ": relativeIndex " + std::to_string(relativeIndex) +
                                    " is outside the list of " + std::to_string(list->tensors.size()) + " tensors");
                     return ACLNN_ERR_PARAM_INVALID;
                   }
                   const aclTensor* tensor = list->tensors[relativeIndex];
                   if (tensor == nullptr) return NullArgument(api, "the list's tensor at relativeIndex");
                   if (aclnnStatus status = SetTensorData(api, tensor, addr)) return status;
                   if (executor == nullptr) return NullArgument(api, "executor");
                   if (ExecutorArgumentCount(executor, false) < 0) {
                     SetRecentError(std::string(api) +
                                    ": executor is not a live executor (a one-shot executor runs "
                                    "once; a destroyed one never again)");
                     return ACLNN_ERR_PARAM_INVALID;
                   }
                   SetRecentError(std::string(api) + ": the executor's operator has no tensor-list argument (irIndex " +
                                  std::to_string(irIndex) + ")");
                   return ACLNN_ERR_PARAM_INVALID;
                 });
}

}  // namespace
}  // namespace aclcpu

using aclcpu::Role;
using aclcpu::SetAddr;
using aclcpu::SetDynamicAddr;

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                      void* addr) {
  return SetAddr("aclSetInputTensorAddr", executor, Role::kInput, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                       void* addr) {
  return SetAddr("aclSetOutputTensorAddr", executor, Role::kOutput, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                 void* addr) {
  return SetAddr("aclSetTensorAddr", executor, Role::kEither, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList* tensors,
                                                             void* addr) {
  return SetDynamicAddr("aclSetDynamicInputTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList* tensors,
                                                              void* addr) {
  return SetDynamicAddr("aclSetDynamicOutputTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList* tensors,
                                                        void* addr) {
  return SetDynamicAddr("aclSetDynamicTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                      void* addr) {
  return SetAddr("AclSetInputTensorAddr", executor, Role::kInput, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                       void* addr) {
  return SetAddr("AclSetOutputTensorAddr", executor, Role::kOutput, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                                 void* addr) {
  return SetAddr("AclSetTensorAddr", executor, Role::kEither, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList* tensors,
                                                             void* addr) {
  return SetDynamicAddr("AclSetDynamicInputTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList* tensors,
                                                              void* addr) {
  return SetDynamicAddr("AclSetDynamicOutputTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList* tensors,
                                                        void* addr) {
  return SetDynamicAddr("AclSetDynamicTensorAddr", executor, irIndex, relativeIndex, tensors, addr);
}

}  // extern "C"
