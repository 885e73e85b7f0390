// aclScalar, the arrays and the lists: creation (copies of the caller's values; lists take
// ownership of their elements), destruction, the Get*Size functions CANN programs call, and the
// typed getters operators use.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kernel/float_convert.h"
#include "nnopbase_internal.h"
#include "runtime/api_guard.h"
#include "runtime/handle_table.h"

namespace aclcpu {
namespace {

template <typename T>
HandleTable<T>& Table(uint64_t tag) {
  static HandleTable<T>* table = new HandleTable<T>(tag);
  return *table;
}

HandleTable<aclScalar>& Scalars() { return Table<aclScalar>(0xb3); }
HandleTable<aclIntArray>& IntArrays() { return Table<aclIntArray>(0xb4); }
HandleTable<aclFloatArray>& FloatArrays() { return Table<aclFloatArray>(0xb5); }
HandleTable<aclBoolArray>& BoolArrays() { return Table<aclBoolArray>(0xb6); }
HandleTable<aclTensorList>& TensorLists() { return Table<aclTensorList>(0xb7); }
HandleTable<aclScalarList>& ScalarLists() { return Table<aclScalarList>(0xb8); }

// The scalars that scalar lists hold, under the mutex that orders aclDestroyScalar against them.
struct ScalarOwnership {
  std::mutex mutex;
  std::unordered_set<const void*> owned;
};

ScalarOwnership& TheScalarOwnership() {
  static ScalarOwnership* ownership = new ScalarOwnership;
  return *ownership;
}

const char kNotLiveSuffix[] = " (destroyed already, or never created)";

// A pointer to size values: null only for an empty array, and size small enough to address.
template <typename T>
bool CheckValues(const char* api, const void* value, uint64_t size) {
  if (size > static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()) / sizeof(T)) {
    SetRecentError(std::string(api) + ": size " + std::to_string(size) + " is too large to address");
    return false;
  }
  if (value == nullptr && size > 0) {
    SetRecentError(std::string(api) + ": value is null but size is " + std::to_string(size));
    return false;
  }
  return true;
}

// aclCreate{Int,Float,Bool}Array: a copy of the values.
template <typename Array, typename T>
Array* CreateArray(const char* api, HandleTable<Array>& table, const T* value, uint64_t size) {
  Array* created = nullptr;
  Guarded(api, 1, 1, [&]() -> int {
    if (!CheckValues<T>(api, value, size)) return 1;
    auto array = std::make_shared<Array>();
    if (size > 0) array->values.assign(value, value + size);
    created = static_cast<Array*>(table.Add(std::move(array)));
    return 0;
  });
  return created;
}

template <typename T>
aclnnStatus DestroyHandle(const char* api, const char* type, HandleTable<T>& table, const T* handle) {
  if (handle == nullptr) return ACLNN_SUCCESS;  // as free(NULL)
  if (!table.Remove(handle)) {
    SetRecentError(std::string(api) + ": the handle is not a live " + type + kNotLiveSuffix);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

// aclGet*Size: the element count of a live handle.
template <typename T, typename Count>
aclnnStatus GetSize(const char* api, const char* type, HandleTable<T>& table, const T* handle, uint64_t* size,
                    Count count) {
  if (handle == nullptr || size == nullptr) {
    SetRecentError(std::string(api) + ": " + (handle == nullptr ? "the handle" : "size") + " is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<T> live = table.Find(handle);
  if (!live) {
    SetRecentError(std::string(api) + ": the handle is not a live " + type + kNotLiveSuffix);
    return ACLNN_ERR_PARAM_INVALID;
  }
  *size = static_cast<uint64_t>(count(*live));
  return ACLNN_SUCCESS;
}

template <typename T>
T ReadAs(const aclScalar& scalar) {
  T value;
  std::memcpy(&value, scalar.bytes.data(), sizeof value);
  return value;
}

// The value of a real (non-complex) scalar that widens to double exactly; false for the others.
bool RealValue(const aclScalar& scalar, double* value, bool* integral) {
  *integral = true;
  switch (scalar.dtype) {
    case ACL_BOOL:
      *value = ReadAs<uint8_t>(scalar) != 0 ? 1.0 : 0.0;
      return true;
    case ACL_INT8:
      *value = ReadAs<int8_t>(scalar);
      return true;
    case ACL_UINT8:
      *value = ReadAs<uint8_t>(scalar);
      return true;
    case ACL_INT16:
      *value = ReadAs<int16_t>(scalar);
      return true;
    case ACL_UINT16:
      *value = ReadAs<uint16_t>(scalar);
      return true;
    case ACL_INT32:
      *value = ReadAs<int32_t>(scalar);
      return true;
    case ACL_UINT32:
      *value = ReadAs<uint32_t>(scalar);
      return true;
    default:
      break;
  }
  *integral = false;
  switch (scalar.dtype) {
    case ACL_FLOAT16:
      *value = kernel::Float16BitsToFloat(ReadAs<uint16_t>(scalar));
      return true;
    case ACL_BF16:
      *value = kernel::BFloat16BitsToFloat(ReadAs<uint16_t>(scalar));
      return true;
    case ACL_FLOAT:
      *value = ReadAs<float>(scalar);
      return true;
    case ACL_DOUBLE:
      *value = ReadAs<double>(scalar);
      return true;
    default:
      return false;  // the 64-bit integers (not exact as double: see ScalarToInt64), complex, 8-bit floats
  }
}

}  // namespace

std::shared_ptr<const aclScalar> FindScalar(const aclScalar* handle) { return Scalars().Find(handle); }
std::shared_ptr<const aclIntArray> FindIntArray(const aclIntArray* handle) { return IntArrays().Find(handle); }
std::shared_ptr<const aclFloatArray> FindFloatArray(const aclFloatArray* handle) { return FloatArrays().Find(handle); }
std::shared_ptr<const aclBoolArray> FindBoolArray(const aclBoolArray* handle) { return BoolArrays().Find(handle); }
std::shared_ptr<const aclTensorList> FindTensorList(const aclTensorList* handle) { return TensorLists().Find(handle); }
std::shared_ptr<const aclScalarList> FindScalarList(const aclScalarList* handle) { return ScalarLists().Find(handle); }

bool ScalarToDouble(const aclScalar& scalar, double* value) {
  bool integral = false;
  double real = 0;
  if (RealValue(scalar, &real, &integral)) {
    *value = real;
    return true;
  }
  if (scalar.dtype == ACL_INT64) {
    *value = static_cast<double>(ReadAs<int64_t>(scalar));
    return true;
  }
  if (scalar.dtype == ACL_UINT64) {
    *value = static_cast<double>(ReadAs<uint64_t>(scalar));
    return true;
  }
  return false;
}

bool ScalarToFloat(const aclScalar& scalar, float* value) {
  double wide = 0;
  if (!ScalarToDouble(scalar, &wide)) return false;
  // Rounds to nearest, as the conversion does; beyond float's range by half a unit or more it is an
  // infinity (done here: converting a double outside float's range is undefined behaviour).
  const double limit = static_cast<double>(std::numeric_limits<float>::max());
  if (std::fabs(wide) > limit) {
    const double overflow = 0x1.ffffffp127;  // FLT_MAX plus half its last unit
    const float magnitude =
        std::fabs(wide) >= overflow ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::max();
    *value = std::signbit(wide) ? -magnitude : magnitude;
    return true;
  }
  *value = static_cast<float>(wide);
  return true;
}

bool ScalarToInt64(const aclScalar& scalar, int64_t* value) {
  if (scalar.dtype == ACL_INT64) {
    *value = ReadAs<int64_t>(scalar);
    return true;
  }
  if (scalar.dtype == ACL_UINT64) {
    const uint64_t wide = ReadAs<uint64_t>(scalar);
    if (wide > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *value = static_cast<int64_t>(wide);
    return true;
  }
  bool integral = false;
  double real = 0;
  if (!RealValue(scalar, &real, &integral)) return false;
  // A float must be a number in int64's range: [-2^63, 2^63).
  if (!integral && !(real >= -9223372036854775808.0 && real < 9223372036854775808.0)) return false;
  *value = static_cast<int64_t>(real);
  return true;
}

bool ScalarToBool(const aclScalar& scalar, bool* value) {
  if (scalar.dtype == ACL_INT64 || scalar.dtype == ACL_UINT64) {
    *value = ReadAs<uint64_t>(scalar) != 0;
    return true;
  }
  bool integral = false;
  double real = 0;
  if (!RealValue(scalar, &real, &integral)) return false;
  *value = real != 0;  // NaN is true, as in C++
  return true;
}

}  // namespace aclcpu

using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  const char* api = "aclCreateScalar";
  aclScalar* created = nullptr;
  aclcpu::Guarded(api, 1, 1, [&]() -> int {
    if (value == nullptr) {
      SetRecentError(std::string(api) + ": value is null");
      return 1;
    }
    const int dtype = aclcpu::EnumBits(dataType);
    const size_t bytes = aclcpu::DataTypeSize(dtype);  // the bytes one element of dtype takes
    if (bytes == 0) {
      SetRecentError(std::string(api) + ": dataType " + std::to_string(dtype) +
                     " has no whole-byte value a scalar could hold (DT_UNDEFINED, STRING, the sub-byte types and "
                     "unknown values have none)");
      return 1;
    }
    auto scalar = std::make_shared<aclScalar>();
    scalar->dtype = dataType;
    std::memcpy(scalar->bytes.data(), value, bytes);
    created = static_cast<aclScalar*>(aclcpu::Scalars().Add(std::move(scalar)));
    return 0;
  });
  return created;
}

ACL_FUNC_VISIBILITY aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return aclcpu::CreateArray("aclCreateIntArray", aclcpu::IntArrays(), value, size);
}

ACL_FUNC_VISIBILITY aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return aclcpu::CreateArray("aclCreateFloatArray", aclcpu::FloatArrays(), value, size);
}

ACL_FUNC_VISIBILITY aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return aclcpu::CreateArray("aclCreateBoolArray", aclcpu::BoolArrays(), value, size);
}

ACL_FUNC_VISIBILITY aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  const char* api = "aclCreateTensorList";
  aclTensorList* created = nullptr;
  aclcpu::Guarded(api, 1, 1, [&]() -> int {
    if (!aclcpu::CheckValues<const aclTensor*>(api, value, size)) return 1;
    auto list = std::make_shared<aclTensorList>();
    if (size > 0) list->tensors.assign(value, value + size);
    if (!aclcpu::AdoptTensors(api, list->tensors)) return 1;
    created = static_cast<aclTensorList*>(aclcpu::TensorLists().Add(std::move(list)));
    return 0;
  });
  return created;
}

ACL_FUNC_VISIBILITY aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  const char* api = "aclCreateScalarList";
  aclScalarList* created = nullptr;
  aclcpu::Guarded(api, 1, 1, [&]() -> int {
    if (!aclcpu::CheckValues<const aclScalar*>(api, value, size)) return 1;
    auto list = std::make_shared<aclScalarList>();
    if (size > 0) list->scalars.assign(value, value + size);
    aclcpu::ScalarOwnership& ownership = aclcpu::TheScalarOwnership();
    std::lock_guard<std::mutex> lock(ownership.mutex);
    std::unordered_set<const void*> seen;
    for (size_t i = 0; i < list->scalars.size(); ++i) {
      const aclScalar* handle = list->scalars[i];
      if (handle == nullptr) continue;
      const std::string which = std::string(api) + ": value[" + std::to_string(i) + "]";
      if (!aclcpu::FindScalar(handle)) {
        SetRecentError(which + " is not a live aclScalar" + aclcpu::kNotLiveSuffix);
        return 1;
      }
      if (ownership.owned.count(handle) != 0) {
        SetRecentError(which + " already belongs to a scalar list, which destroys it; a scalar goes in one list");
        return 1;
      }
      if (!seen.insert(handle).second) {
        SetRecentError(which + " is in the list twice; the list destroys each of its scalars once");
        return 1;
      }
    }
    ownership.owned.insert(seen.begin(), seen.end());
    created = static_cast<aclScalarList*>(aclcpu::ScalarLists().Add(std::move(list)));
    return 0;
  });
  return created;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  if (scalar == nullptr) return ACLNN_SUCCESS;
  aclcpu::ScalarOwnership& ownership = aclcpu::TheScalarOwnership();
  std::lock_guard<std::mutex> lock(ownership.mutex);
  if (ownership.owned.count(scalar) != 0) {
    SetRecentError("aclDestroyScalar: the scalar belongs to a scalar list; aclDestroyScalarList destroys it");
    return ACLNN_ERR_PARAM_INVALID;
  }
  return aclcpu::DestroyHandle("aclDestroyScalar", "aclScalar", aclcpu::Scalars(), scalar);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return aclcpu::DestroyHandle("aclDestroyIntArray", "aclIntArray", aclcpu::IntArrays(), array);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return aclcpu::DestroyHandle("aclDestroyFloatArray", "aclFloatArray", aclcpu::FloatArrays(), array);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return aclcpu::DestroyHandle("aclDestroyBoolArray", "aclBoolArray", aclcpu::BoolArrays(), array);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  const char* api = "aclDestroyTensorList";
  if (array == nullptr) return ACLNN_SUCCESS;
  std::shared_ptr<aclTensorList> list = aclcpu::TensorLists().Remove(array);
  if (!list) {
    SetRecentError(std::string(api) + ": the handle is not a live aclTensorList" + aclcpu::kNotLiveSuffix);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return aclcpu::DestroyAdoptedTensors(api, list->tensors);  // the list's tensors go with it
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  const char* api = "aclDestroyScalarList";
  if (array == nullptr) return ACLNN_SUCCESS;
  std::shared_ptr<aclScalarList> list = aclcpu::ScalarLists().Remove(array);
  if (!list) {
    SetRecentError(std::string(api) + ": the handle is not a live aclScalarList" + aclcpu::kNotLiveSuffix);
    return ACLNN_ERR_PARAM_INVALID;
  }
  aclcpu::ScalarOwnership& ownership = aclcpu::TheScalarOwnership();
  std::lock_guard<std::mutex> lock(ownership.mutex);
  aclnnStatus status = ACLNN_SUCCESS;
  for (size_t i = 0; i < list->scalars.size(); ++i) {  // the list's scalars go with it
    const aclScalar* scalar = list->scalars[i];
    if (scalar == nullptr) continue;
    ownership.owned.erase(scalar);
    if (!aclcpu::Scalars().Remove(scalar) && status == ACLNN_SUCCESS) {
      SetRecentError(std::string(api) + ": element " + std::to_string(i) + " is not a live aclScalar any more");
      status = ACLNN_ERR_PARAM_INVALID;
    }
  }
  return status;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return aclcpu::GetSize("aclGetIntArraySize", "aclIntArray", aclcpu::IntArrays(), array, size,
                         [](const aclIntArray& a) { return a.values.size(); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return aclcpu::GetSize("aclGetFloatArraySize", "aclFloatArray", aclcpu::FloatArrays(), array, size,
                         [](const aclFloatArray& a) { return a.values.size(); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return aclcpu::GetSize("aclGetBoolArraySize", "aclBoolArray", aclcpu::BoolArrays(), array, size,
                         [](const aclBoolArray& a) { return a.values.size(); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  return aclcpu::GetSize("aclGetTensorListSize", "aclTensorList", aclcpu::TensorLists(), tensorList, size,
                         [](const aclTensorList& l) { return l.tensors.size(); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  return aclcpu::GetSize("aclGetScalarListSize", "aclScalarList", aclcpu::ScalarLists(), scalarList, size,
                         [](const aclScalarList& l) { return l.scalars.size(); });
}

}  // extern "C"
