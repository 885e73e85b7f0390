// The API-level path of a JSON case, exactly as a user program calls the operator: device memory,
// copies in, aclTensors, both phases on a stream, a synchronize, the copy back.
#include <memory>

#include "acl/acl.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "levels.h"

namespace case_runner {
namespace {

aclrtStream g_stream = nullptr;

aclDataType ToAcl(golden::Dtype dtype) {
  return dtype == golden::Dtype::kFloat32 ? ACL_FLOAT : (dtype == golden::Dtype::kFloat16 ? ACL_FLOAT16 : ACL_BF16);
}

bool Failed(const std::string& call, int64_t code, std::string* error) {
  *error = call + " returned " + std::to_string(code) + ": " + aclGetRecentErrMsg();
  return false;
}

// One tensor in its own device allocation (none when empty: aclrtMalloc refuses size 0).
class DeviceTensor {
 public:
  ~DeviceTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
    if (data_ != nullptr) aclrtFree(data_);
  }

  bool Create(golden::Dtype dtype, const std::vector<int64_t>& shape, const std::vector<char>& host,
              std::string* error) {
    bytes_ = host.size();
    if (bytes_ != 0) {
      if (aclError rc = aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST)) return Failed("aclrtMalloc", rc, error);
      if (aclError rc = aclrtMemcpy(data_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE)) {
        return Failed("aclrtMemcpy", rc, error);
      }
    }
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d > 1; --d) strides[d - 2] = strides[d - 1] * shape[d - 1];
    tensor_ = aclCreateTensor(shape.data(), shape.size(), ToAcl(dtype), strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                              shape.size(), data_);
    if (tensor_ == nullptr) return Failed("aclCreateTensor", 0, error);
    return true;
  }

  bool CopyBack(std::vector<char>* host, std::string* error) const {
    host->assign(bytes_, 0);
    if (bytes_ == 0) return true;
    if (aclError rc = aclrtMemcpy(host->data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST)) {
      return Failed("aclrtMemcpy", rc, error);
    }
    return true;
  }

  aclTensor* get() const { return tensor_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  aclTensor* tensor_ = nullptr;
};

}  // namespace

bool StartRuntime(std::string* error) {
  if (aclError rc = aclInit(nullptr)) return Failed("aclInit", rc, error);
  if (aclError rc = aclrtSetDevice(0)) return Failed("aclrtSetDevice", rc, error);
  if (aclError rc = aclrtCreateStream(&g_stream)) return Failed("aclrtCreateStream", rc, error);
  return true;
}

void StopRuntime() {
  aclrtDestroyStream(g_stream);
  g_stream = nullptr;
  aclrtResetDevice(0);
  aclFinalize();
}

bool RunApiLevel(const Inputs& inputs, int64_t reduction, golden::Tensor* out, std::string* error) {
  const golden::Tensor& self = inputs[kSelf];
  // out: the broadcast shape, or (when there is none) self's, for the API to reject.
  std::vector<int64_t> out_shape = self.shape;
  golden::BroadcastShape({inputs[kGrad].shape, self.shape, inputs[kTarget].shape}, &out_shape);
  int64_t out_numel = 1;
  for (int64_t dim : out_shape) out_numel *= dim;
  golden::Tensor zeros{self.dtype, out_shape, std::vector<uint32_t>(static_cast<size_t>(out_numel), 0)};

  DeviceTensor grad_t, self_t, target_t, out_t;
  if (!grad_t.Create(inputs[kGrad].dtype, inputs[kGrad].shape, ToBytes(inputs[kGrad]), error) ||
      !self_t.Create(self.dtype, self.shape, ToBytes(self), error) ||
      !target_t.Create(inputs[kTarget].dtype, inputs[kTarget].shape, ToBytes(inputs[kTarget]), error) ||
      !out_t.Create(self.dtype, out_shape, ToBytes(zeros), error)) {
    return false;
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus rc = aclnnMseLossBackwardGetWorkspaceSize(grad_t.get(), self_t.get(), target_t.get(), reduction,
                                                            out_t.get(), &workspace_size, &executor)) {
    return Failed("aclnnMseLossBackwardGetWorkspaceSize", rc, error);
  }
  void* workspace = nullptr;
  if (workspace_size > 0) {
    if (aclError rc = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)) {
      return Failed("aclrtMalloc (workspace)", rc, error);
    }
  }
  // Frees the workspace on every path below (aclrtFree waits for queued work that uses it).
  const std::unique_ptr<void, aclError (*)(void*)> workspace_owner(workspace, aclrtFree);
  if (aclnnStatus rc = aclnnMseLossBackward(workspace, workspace_size, executor, g_stream)) {
    return Failed("aclnnMseLossBackward", rc, error);
  }
  if (aclError rc = aclrtSynchronizeStream(g_stream)) return Failed("aclrtSynchronizeStream", rc, error);
  std::vector<char> host;
  if (!out_t.CopyBack(&host, error)) return false;
  *out = FromBytes(self.dtype, out_shape, host);
  return true;
}

}  // namespace case_runner
