// aclTensor: creation, destruction, and the accessors CANN programs call.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "kernel/shape.h"
#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"

namespace aclcpu {
namespace {

// The most dims a tensor may have; operators apply their own, smaller limits.
constexpr uint64_t kMaxTensorDims = 64;

HandleTable<aclTensor>& Tensors() {
  static HandleTable<aclTensor>* tensors = new HandleTable<aclTensor>(0xb1);
  return *tensors;
}

bool CheckDims(const char* name, const int64_t* dims, uint64_t count) {
  if (count > kMaxTensorDims) {
    SetRecentError("aclCreateTensor: " + std::string(name) + " has " + std::to_string(count) + " dims; at most " +
                   std::to_string(kMaxTensorDims) + " are allowed");
    return false;
  }
  if (count > 0 && dims == nullptr) {
    SetRecentError("aclCreateTensor: " + std::string(name) + " is null but its count is " + std::to_string(count));
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (dims[i] < 0) {
      SetRecentError("aclCreateTensor: " + std::string(name) + "[" + std::to_string(i) + "] is " +
                     std::to_string(dims[i]) + "; it must not be negative");
      return false;
    }
  }
  return true;
}

// Every aclFormat enumerator: only these are stored (an enum must hold one of its values).
bool IsKnownFormat(int format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FRACTAL_Z_3D:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

// The accessors' shared shape: copy a vector into a new[] array the caller deletes.
aclnnStatus CopyOut(const char* api, const aclTensor* tensor, const std::vector<int64_t> aclTensor::*field,
                    int64_t** values, uint64_t* count) {
  return Guarded(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER_NULLPTR), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
                 [&]() -> aclnnStatus {
                   if (tensor == nullptr || values == nullptr || count == nullptr) {
                     SetRecentError(std::string(api) + ": tensor and output pointers must not be null");
                     return ACLNN_ERR_PARAM_NULLPTR;
                   }
                   std::shared_ptr<const aclTensor> live = FindTensor(tensor);
                   if (!live) {
                     SetRecentError(std::string(api) + ": tensor is not a live aclTensor");
                     return ACLNN_ERR_PARAM_INVALID;
                   }
                   const std::vector<int64_t>& source = (*live).*field;
                   int64_t* copy = new int64_t[source.empty() ? 1 : source.size()];
                   if (!source.empty()) std::memcpy(copy, source.data(), source.size() * sizeof(int64_t));
                   *values = copy;
                   *count = source.size();
                   return ACLNN_SUCCESS;
                 });
}

template <typename Value, typename Read>
aclnnStatus ReadField(const char* api, const aclTensor* tensor, Value* value, Read read) {
  if (tensor == nullptr || value == nullptr) {
    SetRecentError(std::string(api) + ": tensor and output pointer must not be null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<const aclTensor> live = FindTensor(tensor);
  if (!live) {
    SetRecentError(std::string(api) + ": tensor is not a live aclTensor");
    return ACLNN_ERR_PARAM_INVALID;
  }
  *value = read(*live);
  return ACLNN_SUCCESS;
}

}  // namespace

std::shared_ptr<const aclTensor> FindTensor(const aclTensor* handle) { return Tensors().Find(handle); }

}  // namespace aclcpu

using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t* stride, int64_t offset, aclFormat format,
                                               const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  aclTensor* created = nullptr;
  aclcpu::Guarded("aclCreateTensor", 1, 1, [&]() -> int {
    if (!aclcpu::CheckDims("viewDims", viewDims, viewDimsNum) ||
        !aclcpu::CheckDims("storageDims", storageDims, storageDimsNum)) {
      return 1;
    }
    if (stride != nullptr && !aclcpu::CheckDims("stride", stride, viewDimsNum)) return 1;
    if (offset < 0) {
      SetRecentError("aclCreateTensor: offset " + std::to_string(offset) + " is negative");
      return 1;
    }
    const int dtype_value = aclcpu::EnumBits(dataType);
    if (aclcpu::DataTypeSize(dtype_value) == 0 && dtype_value != ACL_INT4 && dtype_value != ACL_UINT1) {
      SetRecentError("aclCreateTensor: dataType " + std::to_string(dtype_value) + " is not an aclDataType with a size");
      return 1;
    }
    if (!aclcpu::IsKnownFormat(aclcpu::EnumBits(format))) {
      SetRecentError("aclCreateTensor: format " + std::to_string(aclcpu::EnumBits(format)) + " is not an aclFormat");
      return 1;
    }
    auto tensor = std::make_shared<aclTensor>();
    tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
    if (stride != nullptr) {
      tensor->strides.assign(stride, stride + viewDimsNum);
    } else {  // no strides given: the view is contiguous
      tensor->strides.assign(viewDimsNum, 1);
      for (uint64_t i = viewDimsNum; i > 1; --i) {
        if (!aclcpu::kernel::CheckedMul(tensor->strides[i - 1], std::max<int64_t>(viewDims[i - 1], 1),
                                        &tensor->strides[i - 2])) {
          SetRecentError("aclCreateTensor: the contiguous strides of viewDims overflow int64");
          return 1;
        }
      }
    }
    tensor->offset = offset;
    tensor->dtype = dataType;
    tensor->format = format;
    tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
    tensor->data = tensorData;
    created = static_cast<aclTensor*>(aclcpu::Tensors().Add(std::move(tensor)));
    return 0;
  });
  return created;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  if (tensor == nullptr) return ACLNN_SUCCESS;  // as free(NULL)
  if (!aclcpu::Tensors().Remove(tensor)) {
    SetRecentError("aclDestroyTensor: tensor is not a live aclTensor (destroyed already, or never created)");
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return aclcpu::CopyOut("aclGetViewShape", tensor, &aclTensor::view_dims, viewDims, viewDimsNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                                                   uint64_t* storageDimsNum) {
  return aclcpu::CopyOut("aclGetStorageShape", tensor, &aclTensor::storage_dims, storageDims, storageDimsNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                                                  uint64_t* stridesNum) {
  return aclcpu::CopyOut("aclGetViewStrides", tensor, &aclTensor::strides, stridesValue, stridesNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  return aclcpu::ReadField("aclGetViewOffset", tensor, offset, [](const aclTensor& t) { return t.offset; });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  return aclcpu::ReadField("aclGetFormat", tensor, format, [](const aclTensor& t) { return t.format; });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  return aclcpu::ReadField("aclGetDataType", tensor, dataType, [](const aclTensor& t) { return t.dtype; });
}

}  // extern "C"
