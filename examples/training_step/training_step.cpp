// A training loop as a CANN program writes it: the loss (aclnnMseLoss, mean), its gradient
// (aclnnMseLossBackward), and one step of gradient descent, eight times over.
//
// The model is a line, pred = w * x + b, fitted to the points (0, 1), (1, 3), (2, 5), (4, 9) of
// y = 2x + 1, from w = b = 0 with learning rate 0.125. The predictions are computed on the host
// and copied in; the loss and dL/dpred come from the operators; dL/dw = sum(dL/dpred_i * x_i) and
// dL/db = sum(dL/dpred_i) are summed on the host, which updates w and b. (x is 0, 1, 2 or 4 and
// the rate a power of two, so every host product is exact: the printed numbers are the same on
// every machine and compiler.)
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (size_t i = 0; i < shape.size(); ++i) size *= shape[i];
  return size;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

// Allocates device memory, copies hostData in, and describes it as a contiguous ND tensor.
template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
  const size_t size = static_cast<size_t>(GetShapeSize(shape)) * sizeof(T);
  aclError ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                            shape.size(), *deviceAddr);
  return *tensor == nullptr ? 1 : 0;
}

// Runs a second phase with a workspace of the size the first phase asked for, then waits.
template <typename Launch>
int RunWithWorkspace(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, Launch launch,
                     const char* name) {
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    aclError ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  int ret = launch(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d %s\n", name, ret, aclGetRecentErrMsg()); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
  if (workspaceAddr != nullptr) aclrtFree(workspaceAddr);
  return 0;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  int ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  const std::vector<float> x = {0, 1, 2, 4};
  const std::vector<float> y = {1, 3, 5, 9};
  const float learningRate = 0.125f;
  const int steps = 8;
  float w = 0.0f, b = 0.0f;
  const int64_t reduction = 1;  // mean

  // pred (self), target, the 0-d loss, gradOutput (the 0-d 1.0 of dL/dL) and the gradient.
  std::vector<int64_t> vectorShape = {4};
  std::vector<int64_t> scalarShape = {};
  std::vector<float> predHostData(4, 0.0f);
  std::vector<float> lossHostData = {0};
  std::vector<float> gradOutputHostData = {1.0f};
  std::vector<float> gradHostData(4, 0.0f);
  void* predDeviceAddr = nullptr;
  void* targetDeviceAddr = nullptr;
  void* lossDeviceAddr = nullptr;
  void* gradOutputDeviceAddr = nullptr;
  void* gradDeviceAddr = nullptr;
  aclTensor* pred = nullptr;
  aclTensor* target = nullptr;
  aclTensor* loss = nullptr;
  aclTensor* gradOutput = nullptr;
  aclTensor* grad = nullptr;
  ret = CreateAclTensor(predHostData, vectorShape, &predDeviceAddr, aclDataType::ACL_FLOAT, &pred);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(y, vectorShape, &targetDeviceAddr, aclDataType::ACL_FLOAT, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(lossHostData, scalarShape, &lossDeviceAddr, aclDataType::ACL_FLOAT, &loss);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradOutputHostData, scalarShape, &gradOutputDeviceAddr, aclDataType::ACL_FLOAT, &gradOutput);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradHostData, vectorShape, &gradDeviceAddr, aclDataType::ACL_FLOAT, &grad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  for (int step = 0; step < steps; ++step) {
    // The model's predictions, copied in.
    for (size_t i = 0; i < x.size(); ++i) predHostData[i] = w * x[i] + b;
    ret = aclrtMemcpy(predDeviceAddr, 4 * sizeof(float), predHostData.data(), 4 * sizeof(float),
                      ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy predictions to device failed. ERROR: %d\n", ret); return ret);

    // Forward: the mean squared error.
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ret = aclnnMseLossGetWorkspaceSize(pred, target, reduction, loss, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMseLossGetWorkspaceSize failed. ERROR: %d %s\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunWithWorkspace(workspaceSize, executor, stream, aclnnMseLoss, "aclnnMseLoss");
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(lossHostData.data(), sizeof(float), lossDeviceAddr, sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy loss from device failed. ERROR: %d\n", ret); return ret);
    LOG_PRINT("step %d: loss %f\n", step, lossHostData[0]);

    // Backward: dL/dpred.
    ret = aclnnMseLossBackwardGetWorkspaceSize(gradOutput, pred, target, reduction, grad, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMseLossBackwardGetWorkspaceSize failed. ERROR: %d %s\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunWithWorkspace(workspaceSize, executor, stream, aclnnMseLossBackward, "aclnnMseLossBackward");
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(gradHostData.data(), 4 * sizeof(float), gradDeviceAddr, 4 * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy gradient from device failed. ERROR: %d\n", ret); return ret);

    // One step of gradient descent on w and b (the chain rule through pred = w * x + b).
    float gradW = 0.0f, gradB = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) {
      gradW += gradHostData[i] * x[i];
      gradB += gradHostData[i];
    }
    w -= learningRate * gradW;
    b -= learningRate * gradB;
  }
  LOG_PRINT("after %d steps: w %f, b %f\n", steps, w, b);

  aclDestroyTensor(pred);
  aclDestroyTensor(target);
  aclDestroyTensor(loss);
  aclDestroyTensor(gradOutput);
  aclDestroyTensor(grad);
  aclrtFree(predDeviceAddr);
  aclrtFree(targetDeviceAddr);
  aclrtFree(lossDeviceAddr);
  aclrtFree(gradOutputDeviceAddr);
  aclrtFree(gradDeviceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
