// aclTensor: creation, description anew, destruction, and the accessors CANN programs call.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "kernel/shape.h"
#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"
#include "thread_block_cache.h"

namespace aclcpu {
namespace {

// The most dims a tensor may have; operators apply their own, smaller limits.
constexpr uint64_t kMaxTensorDims = 64;

HandleTable<aclTensor>& Tensors() {
  // Never destroyed: each thread may keep the slots it frees (adding and removing take no lock).
  static HandleTable<aclTensor>* tensors = new HandleTable<aclTensor>(0xb1, /*thread_slots=*/true);
  return *tensors;
}

// The tensors that tensor lists hold (the lists destroy them), under the mutex that also orders
// every aclDestroyTensor against them.
struct Ownership {
  std::mutex mutex;
  std::unordered_set<const void*> owned;
};

Ownership& TheOwnership() {
  static Ownership* ownership = new Ownership;
  return *ownership;
}

bool CheckDims(const char* api, const char* name, const int64_t* dims, uint64_t count) {
  if (count > kMaxTensorDims) {
    SetRecentError(std::string(api) + ": " + name + " has " + std::to_string(count) + " dims; at most " +
                   std::to_string(kMaxTensorDims) + " are allowed");
    return false;
  }
  if (count > 0 && dims == nullptr) {
    SetRecentError(std::string(api) + ": " + name + " is null but its count is " + std::to_string(count));
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (dims[i] < 0) {
      SetRecentError(std::string(api) + ": " + name + "[" + std::to_string(i) + "] is " + std::to_string(dims[i]) +
                     "; it must not be negative");
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
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
      return true;
    default:
      return false;
  }
}

// A tensor that holds elements: every aclDataType but DT_UNDEFINED and STRING (the sub-byte types
// included, though no byte size describes them).
bool IsElementType(int dtype) { return IsDataType(dtype) && dtype != ACL_DT_UNDEFINED && dtype != ACL_STRING; }

// aclCreateTensor's checks and record, for it and aclInitTensor; null (message set) on bad arguments.
// (The enums come by reference: a caller's value that is no enumerator is read as its bits only.)
std::shared_ptr<aclTensor> BuildTensor(const char* api, const int64_t* viewDims, uint64_t viewDimsNum,
                                       const aclDataType& dataType, const int64_t* stride, int64_t offset,
                                       const aclFormat& format, const int64_t* storageDims, uint64_t storageDimsNum,
                                       void* tensorData) {
  if (!CheckDims(api, "viewDims", viewDims, viewDimsNum) ||
      !CheckDims(api, "storageDims", storageDims, storageDimsNum)) {
    return nullptr;
  }
  if (stride != nullptr && !CheckDims(api, "stride", stride, viewDimsNum)) return nullptr;
  if (offset < 0) {
    SetRecentError(std::string(api) + ": offset " + std::to_string(offset) + " is negative");
    return nullptr;
  }
  const int dtype_value = EnumBits(dataType);
  if (!IsElementType(dtype_value)) {
    SetRecentError(std::string(api) + ": dataType " + std::to_string(dtype_value) +
                   " is not an aclDataType a tensor holds (DT_UNDEFINED, STRING and unknown values are not)");
    return nullptr;
  }
  if (!IsKnownFormat(EnumBits(format))) {
    SetRecentError(std::string(api) + ": format " + std::to_string(EnumBits(format)) + " is not an aclFormat");
    return nullptr;
  }
  auto tensor = std::allocate_shared<aclTensor>(ThreadCachedAllocator<aclTensor, aclTensor>());
  tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
  if (stride != nullptr) {
    tensor->strides.assign(stride, stride + viewDimsNum);
  } else {  // no strides given: the view is contiguous
    tensor->strides.assign(viewDimsNum, 1);
    for (uint64_t i = viewDimsNum; i > 1; --i) {
      if (!kernel::CheckedMul(tensor->strides[i - 1], std::max<int64_t>(viewDims[i - 1], 1), &tensor->strides[i - 2])) {
        SetRecentError(std::string(api) + ": the contiguous strides of viewDims overflow int64");
        return nullptr;
      }
    }
  }
  tensor->offset = offset;
  tensor->dtype = dataType;
  tensor->format = format;
  tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  tensor->data = tensorData;
  tensor->numel_overflows = !kernel::CheckedNumel(tensor->view_dims, &tensor->numel);
  if (tensor->numel_overflows) tensor->numel = INT64_MAX;
  if (!kernel::CheckedNumel(tensor->storage_dims, &tensor->storage_numel)) tensor->storage_numel = -1;
  tensor->element_size = static_cast<int64_t>(DataTypeSize(dtype_value));
  if (tensor->numel > 0 && !tensor->numel_overflows) {
    tensor->last_element = offset;
    for (uint64_t i = 0; i < viewDimsNum && !tensor->last_overflows; ++i) {
      int64_t step = 0;
      tensor->last_overflows = !kernel::CheckedMul(tensor->view_dims[i] - 1, tensor->strides[i], &step) ||
                               !kernel::CheckedAdd(tensor->last_element, step, &tensor->last_element);
    }
  }
  if (tensor->storage_numel < 0 ||
      !kernel::CheckedMul(tensor->storage_numel, tensor->element_size, &tensor->storage_bytes)) {
    tensor->storage_bytes = -1;
  }
  return tensor;
}

// The accessors' shared shape: copy dims into a new[] array the caller deletes.
aclnnStatus CopyOut(const char* api, const aclTensor* tensor, const TensorDims aclTensor::*field, int64_t** values,
                    uint64_t* count) {
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
                   const TensorDims& source = (*live).*field;
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

BorrowedTensor BorrowTensor(const aclTensor* handle) { return Tensors().Borrow(handle); }

aclnnStatus SetTensorData(const char* api, const aclTensor* handle, void* data) {
  // Copy on write: whoever holds the old record (FindTensor) keeps reading it unchanged; a phase
  // one that borrows it (BorrowTensor) holds this off until it is done.
  std::shared_ptr<const aclTensor> live = Tensors().Find(handle);
  if (live) {
    auto changed = std::make_shared<aclTensor>(*live);
    changed->data = data;
    if (Tensors().Replace(handle, std::move(changed))) return ACLNN_SUCCESS;
  }
  SetRecentError(std::string(api) + ": tensor is not a live aclTensor (destroyed, or never created)");
  return ACLNN_ERR_PARAM_INVALID;
}

bool AdoptTensors(const char* api, const std::vector<const aclTensor*>& handles) {
  Ownership& ownership = TheOwnership();
  std::lock_guard<std::mutex> lock(ownership.mutex);
  std::unordered_set<const void*> seen;
  for (size_t i = 0; i < handles.size(); ++i) {
    const aclTensor* handle = handles[i];
    if (handle == nullptr) continue;
    const std::string which = std::string(api) + ": value[" + std::to_string(i) + "]";
    if (!Tensors().Find(handle)) {
      SetRecentError(which + " is not a live aclTensor (destroyed, or never created)");
      return false;
    }
    if (ownership.owned.count(handle) != 0) {
      SetRecentError(which + " already belongs to a tensor list, which destroys it; a tensor goes in one list");
      return false;
    }
    if (!seen.insert(handle).second) {
      SetRecentError(which + " is in the list twice; the list destroys each of its tensors once");
      return false;
    }
  }
  ownership.owned.insert(seen.begin(), seen.end());
  return true;
}

aclnnStatus DestroyAdoptedTensors(const char* api, const std::vector<const aclTensor*>& handles) {
  Ownership& ownership = TheOwnership();
  std::lock_guard<std::mutex> lock(ownership.mutex);
  aclnnStatus status = ACLNN_SUCCESS;
  for (size_t i = 0; i < handles.size(); ++i) {
    if (handles[i] == nullptr) continue;
    ownership.owned.erase(handles[i]);
    if (!Tensors().Remove(handles[i]) && status == ACLNN_SUCCESS) {
      SetRecentError(std::string(api) + ": element " + std::to_string(i) + " is not a live aclTensor any more");
      status = ACLNN_ERR_PARAM_INVALID;
    }
  }
  return status;
}

}  // namespace aclcpu

using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t* stride, int64_t offset, aclFormat format,
                                               const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  aclTensor* created = nullptr;
  aclcpu::Guarded("aclCreateTensor", 1, 1, [&]() -> int {
    std::shared_ptr<aclTensor> tensor = aclcpu::BuildTensor("aclCreateTensor", viewDims, viewDimsNum, dataType, stride,
                                                            offset, format, storageDims, storageDimsNum, tensorData);
    if (!tensor) return 1;
    created = static_cast<aclTensor*>(aclcpu::Tensors().Add(std::move(tensor)));
    return 0;
  });
  return created;
}

ACL_FUNC_VISIBILITY aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                                              aclDataType dataType, const int64_t* stride, int64_t offset,
                                              aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                                              void* tensorDataAddr) {
  const char* api = "aclInitTensor";
  return aclcpu::Guarded(
      api, static_cast<aclnnStatus>(ACLNN_ERR_INNER_NULLPTR), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
      [&]() -> aclnnStatus {
        if (tensor == nullptr) {
          SetRecentError(std::string(api) + ": tensor is null");
          return ACLNN_ERR_PARAM_NULLPTR;
        }
        if (!aclcpu::FindTensor(tensor)) {
          SetRecentError(std::string(api) + ": tensor is not a live aclTensor (destroyed, or never created)");
          return ACLNN_ERR_PARAM_INVALID;
        }
        std::shared_ptr<aclTensor> described = aclcpu::BuildTensor(api, viewDims, viewDimsNum, dataType, stride, offset,
                                                                   format, storageDims, storageDimsNum, tensorDataAddr);
        if (!described) return ACLNN_ERR_PARAM_INVALID;
        if (!aclcpu::Tensors().Replace(tensor, std::move(described))) {
          SetRecentError(std::string(api) + ": tensor was destroyed meanwhile");
          return ACLNN_ERR_PARAM_INVALID;
        }
        return ACLNN_SUCCESS;
      });
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  if (tensor == nullptr) return ACLNN_SUCCESS;  // as free(NULL)
  aclcpu::Ownership& ownership = aclcpu::TheOwnership();
  std::lock_guard<std::mutex> lock(ownership.mutex);
  if (ownership.owned.count(tensor) != 0) {
    SetRecentError("aclDestroyTensor: tensor belongs to a tensor list; aclDestroyTensorList destroys it");
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (!aclcpu::Tensors().Remove(tensor)) {
    SetRecentError("aclDestroyTensor: tensor is not a live aclTensor (destroyed already, or never created)");
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (tensor == nullptr) {
    SetRecentError("aclSetRawTensorAddr: tensor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  return aclcpu::Guarded("aclSetRawTensorAddr", static_cast<aclnnStatus>(ACLNN_ERR_INNER_NULLPTR),
                         static_cast<aclnnStatus>(ACLNN_ERR_INNER),
                         [&] { return aclcpu::SetTensorData("aclSetRawTensorAddr", tensor, addr); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  return aclcpu::ReadField("aclGetRawTensorAddr", tensor, addr, [](const aclTensor& t) { return t.data; });
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
