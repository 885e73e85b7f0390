// aclnn/acl_meta.h alone: every handle type and the functions CANN declares with them. (The ACLNN_*
// names are in other headers, so the codes are written as numbers: 161001 ACLNN_ERR_PARAM_NULLPTR,
// 161002 ACLNN_ERR_PARAM_INVALID, 561103 ACLNN_ERR_INNER_NULLPTR.)
#include "aclnn/acl_meta.h"
// (first: the header must compile with nothing before it)

#include <cstdint>

#include "check.h"

int main() {
  const int64_t dims[] = {2, 2};
  const int64_t storage[] = {4};
  float data[4] = {};
  aclTensor* tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data);
  CHECK(tensor != nullptr);
  int64_t* values = nullptr;
  uint64_t count = 0;
  CHECK(aclGetViewShape(tensor, &values, &count) == OK && count == 2 && values[0] == 2);
  delete[] values;
  CHECK(aclGetStorageShape(tensor, &values, &count) == OK && count == 1 && values[0] == 4);
  delete[] values;
  CHECK(aclGetViewStrides(tensor, &values, &count) == OK && count == 2 && values[0] == 2);
  delete[] values;
  int64_t offset = -1;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  aclDataType dtype = ACL_DT_UNDEFINED;
  CHECK(aclGetViewOffset(tensor, &offset) == OK && offset == 0);
  CHECK(aclGetFormat(tensor, &format) == OK && format == ACL_FORMAT_ND);
  CHECK(aclGetDataType(tensor, &dtype) == OK && dtype == ACL_FLOAT);
  CHECK(aclInitTensor(tensor, dims, 2, ACL_BF16, nullptr, 0, ACL_FORMAT_NCHW, storage, 1, data) == OK);
  void* addr = nullptr;
  CHECK(aclSetRawTensorAddr(tensor, data + 1) == OK);
  CHECK(aclGetRawTensorAddr(tensor, &addr) == OK && addr == data + 1);

  double alpha = 0.5;
  aclScalar* scalar = aclCreateScalar(&alpha, ACL_DOUBLE);
  const int64_t ints[] = {1, 2, 3};
  const float floats[] = {1.5f};
  const bool bools[] = {true, false};
  aclIntArray* int_array = aclCreateIntArray(ints, 3);
  aclFloatArray* float_array = aclCreateFloatArray(floats, 1);
  aclBoolArray* bool_array = aclCreateBoolArray(bools, 2);
  CHECK(scalar != nullptr && int_array != nullptr && float_array != nullptr && bool_array != nullptr);
  uint64_t size = 0;
  CHECK(aclGetIntArraySize(int_array, &size) == OK && size == 3);
  CHECK(aclGetFloatArraySize(float_array, &size) == OK && size == 1);
  CHECK(aclGetBoolArraySize(bool_array, &size) == OK && size == 2);
  const aclTensor* tensors[] = {tensor};
  aclTensorList* tensor_list = aclCreateTensorList(tensors, 1);
  const aclScalar* scalars[] = {scalar};
  aclScalarList* scalar_list = aclCreateScalarList(scalars, 1);
  CHECK(tensor_list != nullptr && scalar_list != nullptr);
  CHECK(aclGetTensorListSize(tensor_list, &size) == OK && size == 1);
  CHECK(aclGetScalarListSize(scalar_list, &size) == OK && size == 1);

  CHECK(aclSetInputTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(aclSetOutputTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(aclSetTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(AclSetInputTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(AclSetOutputTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(AclSetTensorAddr(nullptr, 0, tensor, data) == 561103);
  CHECK(aclSetDynamicInputTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(aclSetDynamicOutputTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(aclSetDynamicTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(AclSetDynamicInputTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(AclSetDynamicOutputTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(AclSetDynamicTensorAddr(nullptr, 0, 0, tensor_list, data) == 561103);
  CHECK(aclSetAclOpExecutorRepeatable(nullptr) == 161001);
  CHECK(aclDestroyAclOpExecutor(nullptr) == 161001);

  CHECK(aclDestroyIntArray(int_array) == OK);
  CHECK(aclDestroyFloatArray(float_array) == OK);
  CHECK(aclDestroyBoolArray(bool_array) == OK);
  CHECK(aclDestroyTensorList(tensor_list) == OK);  // and the tensor in it
  CHECK(aclDestroyScalarList(scalar_list) == OK);  // and the scalar in it
  CHECK(aclDestroyTensor(tensor) == 161002);
  CHECK(aclDestroyScalar(scalar) == 161002);
  CHECK(aclDestroyTensor(nullptr) == OK);
  return 0;
}
