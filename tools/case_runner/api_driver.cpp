#include "api_driver.h"

#include <cstring>
#include <mutex>
#include <stdexcept>

namespace case_runner {
namespace {

std::mutex streams_mutex;
std::vector<aclrtStream>* streams = new std::vector<aclrtStream>;  // every stream created, for StopRuntime

bool ThreadStream(aclrtStream* stream, std::string* error) {
  thread_local aclrtStream mine = nullptr;
  if (mine == nullptr) {
    if (aclError rc = aclrtCreateStream(&mine)) return AclFailed("aclrtCreateStream", rc, error);
    std::lock_guard<std::mutex> lock(streams_mutex);
    streams->push_back(mine);
  }
  *stream = mine;
  return true;
}

// The aclTensor of a contiguous RunTensor; destroyed with it.
class AclTensor {
 public:
  AclTensor() = default;
  AclTensor(const AclTensor&) = delete;
  AclTensor& operator=(const AclTensor&) = delete;
  ~AclTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }
  bool Create(const RunTensor& t, std::string* error) {
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t d = t.shape.size(); d > 1; --d) strides[d - 2] = strides[d - 1] * t.shape[d - 1];
    tensor_ =
        aclCreateTensor(t.shape.data(), t.shape.size(), static_cast<aclDataType>(aclcpu::kernel::Traits(t.dtype).acl),
                        strides.data(), 0, ACL_FORMAT_ND, t.shape.data(), t.shape.size(), t.memory.data());
    if (tensor_ == nullptr) return AclFailed("aclCreateTensor", 0, error);
    return true;
  }
  aclTensor* get() const { return tensor_; }

 private:
  aclTensor* tensor_ = nullptr;
};

}  // namespace

bool StartRuntime(std::string* error) {
  if (aclError rc = aclInit(nullptr)) return AclFailed("aclInit", rc, error);
  if (aclError rc = aclrtSetDevice(0)) return AclFailed("aclrtSetDevice", rc, error);
  return true;
}

void StopRuntime() {
  std::lock_guard<std::mutex> lock(streams_mutex);
  for (aclrtStream stream : *streams) aclrtDestroyStream(stream);
  streams->clear();
  aclrtResetDevice(0);
  aclFinalize();
}

bool RunApi(const OpInfo& op, const std::vector<std::unique_ptr<RunTensor>>& inputs,
            const std::vector<aclcpu::AttrValue>& attributes, RunTensor* out, std::string* error) {
  const aclcpu::ApiOp& api = *op.api;
  // The arguments in the API's order: its inputs' tensors (inputs[] is in the definition's order),
  // its attributes' values, out.
  std::vector<std::unique_ptr<AclTensor>> tensors;
  std::vector<aclcpu::ApiArg> args(static_cast<size_t>(api.param_count));
  for (int i = 0; i < api.param_count; ++i) {
    const aclcpu::ApiParam& param = api.params[i];
    aclcpu::ApiArg& arg = args[static_cast<size_t>(i)];
    if (param.kind == aclcpu::ParamKind::kAttribute) {
      arg.value = attributes[static_cast<size_t>(param.index)];
      continue;
    }
    const RunTensor& tensor =
        param.kind == aclcpu::ParamKind::kOutput ? *out : *inputs[static_cast<size_t>(param.index)];
    if (tensor.absent) continue;  // null: an optional input left out
    tensors.push_back(std::make_unique<AclTensor>());
    if (!tensors.back()->Create(tensor, error)) return false;
    arg.tensor = tensors.back()->get();
  }
  aclrtStream stream = nullptr;
  if (!ThreadStream(&stream, error)) return false;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus rc = api.phase_one(args.data(), &workspace_size, &executor)) {
    return AclFailed(api.phase_one_name, rc, error);
  }
  // In the tensor region when it has room, like the tensors; no queued work uses it once this
  // returns (the launch fails without queuing, or the stream is synchronized).
  Memory workspace;
  if (!workspace.Allocate(true, static_cast<int64_t>(workspace_size), error)) return false;
  if (aclnnStatus rc = api.launch(workspace.data(), workspace_size, executor, stream)) {
    return AclFailed(api.name, rc, error);
  }
  if (aclError rc = aclrtSynchronizeStream(stream)) return AclFailed("aclrtSynchronizeStream", rc, error);
  return true;
}

}  // namespace case_runner
