// Unit tests of nnopbase's other handles through the public API: aclScalar (a copy of the value,
// read back through the typed getters operators use), the int, float and bool arrays, tensor and
// scalar lists (which own their elements), the Get*Size functions, aclInitTensor, the raw tensor
// address, and aclSet*TensorAddr pointing a repeatable executor at other memory.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "kernel/float_convert.h"
#include "nnopbase/nnopbase_internal.h"
#include "support/api_support.h"
#include "support/expect_error.h"
#include "support/raw_tensor.h"

namespace {

using support::PtrText;

// aclCreate* returns nullptr and the message mentions every part.
#define EXPECT_CREATE_FAILS(call, ...)                               \
  do {                                                               \
    const void* created_ = (call);                                   \
    EXPECT_EQ(created_, nullptr) << #call;                           \
    EXPECT_TRUE(::support::MessageMentions({__VA_ARGS__})) << #call; \
  } while (0)

aclTensor* SmallTensor() {
  const int64_t dims[] = {2};
  return aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
}

template <typename T>
std::shared_ptr<const aclScalar> ScalarOf(T value, aclDataType dtype, aclScalar** handle) {
  *handle = aclCreateScalar(&value, dtype);
  EXPECT_NE(*handle, nullptr) << aclGetRecentErrMsg();
  return aclcpu::FindScalar(*handle);
}

// ---------------------------------------------------------------------------------------------
// Scalars.

TEST(Scalar, KeepsACopyOfTheValue) {
  int64_t value = -1234567890123;
  aclScalar* scalar = aclCreateScalar(&value, ACL_INT64);
  ASSERT_NE(scalar, nullptr) << aclGetRecentErrMsg();
  value = 5;  // the scalar keeps what it was given
  std::shared_ptr<const aclScalar> live = aclcpu::FindScalar(scalar);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->dtype, ACL_INT64);
  int64_t read = 0;
  ASSERT_TRUE(aclcpu::ScalarToInt64(*live, &read));
  EXPECT_EQ(read, -1234567890123);
  double wide = 0;
  ASSERT_TRUE(aclcpu::ScalarToDouble(*live, &wide));
  EXPECT_EQ(wide, -1234567890123.0);
  EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  EXPECT_FALSE(aclcpu::FindScalar(scalar));
  EXPECT_FAILS(aclDestroyScalar(scalar), ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar", "not a live aclScalar");
  EXPECT_EQ(aclDestroyScalar(nullptr), ACLNN_SUCCESS);
}

TEST(Scalar, TypedGettersConvertEveryRealType) {
  struct Case {
    aclDataType dtype;
    std::vector<unsigned char> bytes;
    double as_double;
  };
  auto bytes_of = [](auto value) {
    std::vector<unsigned char> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
  };
  const Case cases[] = {
      {ACL_BOOL, {1}, 1.0},
      {ACL_INT8, bytes_of(int8_t{-7}), -7.0},
      {ACL_UINT8, bytes_of(uint8_t{250}), 250.0},
      {ACL_INT16, bytes_of(int16_t{-30000}), -30000.0},
      {ACL_UINT16, bytes_of(uint16_t{65000}), 65000.0},
      {ACL_INT32, bytes_of(int32_t{-2000000000}), -2000000000.0},
      {ACL_UINT32, bytes_of(uint32_t{4000000000u}), 4000000000.0},
      {ACL_INT64, bytes_of(int64_t{-5}), -5.0},
      {ACL_UINT64, bytes_of(uint64_t{1} << 40), 1099511627776.0},
      {ACL_FLOAT16, bytes_of(uint16_t{0xC500}), -5.0},   // FLOAT16 -5
      {ACL_BF16, bytes_of(uint16_t{0x4049}), 3.140625},  // BF16 pi, rounded
      {ACL_FLOAT, bytes_of(2.5f), 2.5},
      {ACL_DOUBLE, bytes_of(-1e300), -1e300},
  };
  for (const Case& c : cases) {
    std::vector<unsigned char> value = c.bytes;
    aclScalar* handle = aclCreateScalar(value.data(), c.dtype);
    ASSERT_NE(handle, nullptr) << c.dtype << ": " << aclGetRecentErrMsg();
    std::shared_ptr<const aclScalar> scalar = aclcpu::FindScalar(handle);
    double d = 0;
    float f = 0;
    int64_t i = 0;
    bool b = false;
    ASSERT_TRUE(aclcpu::ScalarToDouble(*scalar, &d)) << c.dtype;
    EXPECT_EQ(d, c.as_double) << c.dtype;
    ASSERT_TRUE(aclcpu::ScalarToFloat(*scalar, &f)) << c.dtype;
    // -1e300 is beyond float: the rounding gives -inf.
    EXPECT_EQ(f, c.dtype == ACL_DOUBLE ? -std::numeric_limits<float>::infinity() : static_cast<float>(c.as_double))
        << c.dtype;
    ASSERT_TRUE(aclcpu::ScalarToBool(*scalar, &b)) << c.dtype;
    EXPECT_EQ(b, c.as_double != 0) << c.dtype;
    if (c.dtype == ACL_DOUBLE) {
      EXPECT_FALSE(aclcpu::ScalarToInt64(*scalar, &i));  // -1e300 is outside int64
    } else {
      ASSERT_TRUE(aclcpu::ScalarToInt64(*scalar, &i)) << c.dtype;
      EXPECT_EQ(i, static_cast<int64_t>(c.as_double)) << c.dtype;  // 3.140625 rounds toward zero: 3
    }
    EXPECT_EQ(aclDestroyScalar(handle), ACLNN_SUCCESS);
  }
}

TEST(Scalar, GettersRefuseConversionsWithoutMeaning) {
  aclScalar* handle = nullptr;
  int64_t i = 99;
  double d = 99;
  auto nan = ScalarOf(std::numeric_limits<float>::quiet_NaN(), ACL_FLOAT, &handle);
  EXPECT_FALSE(aclcpu::ScalarToInt64(*nan, &i));
  EXPECT_EQ(i, 99);  // untouched
  bool b = false;
  EXPECT_TRUE(aclcpu::ScalarToBool(*nan, &b));
  EXPECT_TRUE(b);  // NaN is true, as in C++
  aclDestroyScalar(handle);
  auto big = ScalarOf(std::numeric_limits<uint64_t>::max(), ACL_UINT64, &handle);
  EXPECT_FALSE(aclcpu::ScalarToInt64(*big, &i));
  EXPECT_TRUE(aclcpu::ScalarToDouble(*big, &d));
  EXPECT_EQ(d, 18446744073709551616.0);
  aclDestroyScalar(handle);
  auto edge = ScalarOf(9223372036854775808.0f, ACL_FLOAT, &handle);  // 2^63: just outside
  EXPECT_FALSE(aclcpu::ScalarToInt64(*edge, &i));
  aclDestroyScalar(handle);
  auto low = ScalarOf(-9223372036854775808.0, ACL_DOUBLE, &handle);  // -2^63: inside
  EXPECT_TRUE(aclcpu::ScalarToInt64(*low, &i));
  EXPECT_EQ(i, std::numeric_limits<int64_t>::min());
  aclDestroyScalar(handle);
  for (aclDataType dtype : {ACL_COMPLEX64, ACL_COMPLEX128, ACL_COMPLEX32, ACL_FLOAT8_E4M3FN, ACL_HIFLOAT8}) {
    unsigned char value[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    aclScalar* scalar = aclCreateScalar(value, dtype);
    ASSERT_NE(scalar, nullptr) << dtype << ": " << aclGetRecentErrMsg();
    std::shared_ptr<const aclScalar> live = aclcpu::FindScalar(scalar);
    EXPECT_EQ(std::memcmp(live->bytes.data(), value, aclDataTypeSize(dtype)), 0) << dtype;  // the raw value kept
    EXPECT_FALSE(aclcpu::ScalarToDouble(*live, &d)) << dtype;
    EXPECT_FALSE(aclcpu::ScalarToInt64(*live, &i)) << dtype;
    EXPECT_FALSE(aclcpu::ScalarToBool(*live, &b)) << dtype;
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  }
}

TEST(Scalar, CreateChecksItsArguments) {
  float value = 1;
  EXPECT_CREATE_FAILS(aclCreateScalar(nullptr, ACL_FLOAT), "aclCreateScalar", "value is null");
  EXPECT_CREATE_FAILS(aclCreateScalar(&value, ACL_STRING), "aclCreateScalar", "dataType 13");
  EXPECT_CREATE_FAILS(aclCreateScalar(&value, ACL_DT_UNDEFINED), "aclCreateScalar", "dataType -1");
  EXPECT_CREATE_FAILS(aclCreateScalar(&value, ACL_INT4), "aclCreateScalar", "dataType 29", "sub-byte");
  EXPECT_CREATE_FAILS(aclCreateScalar(&value, ACL_FLOAT4_E2M1), "aclCreateScalar", "dataType 40");
  EXPECT_CREATE_FAILS(aclCreateScalar(&value, static_cast<aclDataType>(50)), "aclCreateScalar", "dataType 50");
}

// ---------------------------------------------------------------------------------------------
// Arrays.

TEST(Array, EachKindKeepsACopyAndReportsItsSize) {
  std::vector<int64_t> ints = {3, -1, INT64_MAX};
  std::vector<float> floats = {0.5f, -0.0f};
  bool bools[] = {true, false, true, true};
  aclIntArray* int_array = aclCreateIntArray(ints.data(), ints.size());
  aclFloatArray* float_array = aclCreateFloatArray(floats.data(), floats.size());
  aclBoolArray* bool_array = aclCreateBoolArray(bools, 4);
  ASSERT_NE(int_array, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(float_array, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(bool_array, nullptr) << aclGetRecentErrMsg();
  ints[0] = 0;
  floats[0] = 0;
  bools[0] = false;
  EXPECT_EQ(aclcpu::FindIntArray(int_array)->values, (std::vector<int64_t>{3, -1, INT64_MAX}));
  EXPECT_EQ(aclcpu::FindFloatArray(float_array)->values, (std::vector<float>{0.5f, -0.0f}));
  EXPECT_TRUE(std::signbit(aclcpu::FindFloatArray(float_array)->values[1]));
  EXPECT_EQ(aclcpu::FindBoolArray(bool_array)->values, (std::vector<bool>{true, false, true, true}));
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(int_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclGetFloatArraySize(float_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclGetBoolArraySize(bool_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 4u);

  EXPECT_EQ(aclDestroyIntArray(int_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(float_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(bool_array), ACLNN_SUCCESS);
  // Destroyed: every use is an error, never another array.
  size = 77;
  EXPECT_FAILS(aclGetIntArraySize(int_array, &size), ACLNN_ERR_PARAM_INVALID, "aclGetIntArraySize",
               "not a live aclIntArray");
  EXPECT_FAILS(aclGetFloatArraySize(float_array, &size), ACLNN_ERR_PARAM_INVALID, "aclGetFloatArraySize",
               "not a live aclFloatArray");
  EXPECT_FAILS(aclGetBoolArraySize(bool_array, &size), ACLNN_ERR_PARAM_INVALID, "aclGetBoolArraySize",
               "not a live aclBoolArray");
  EXPECT_EQ(size, 77u);
  EXPECT_FAILS(aclDestroyIntArray(int_array), ACLNN_ERR_PARAM_INVALID, "aclDestroyIntArray", "not a live");
  EXPECT_FAILS(aclDestroyFloatArray(float_array), ACLNN_ERR_PARAM_INVALID, "aclDestroyFloatArray", "not a live");
  EXPECT_FAILS(aclDestroyBoolArray(bool_array), ACLNN_ERR_PARAM_INVALID, "aclDestroyBoolArray", "not a live");
  // A handle of another kind is not an array.
  aclTensor* tensor = SmallTensor();
  EXPECT_FAILS(aclGetIntArraySize(reinterpret_cast<aclIntArray*>(tensor), &size), ACLNN_ERR_PARAM_INVALID,
               "aclGetIntArraySize", "not a live aclIntArray");
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(Array, EmptyNullAndHugeArrays) {
  aclIntArray* empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr) << aclGetRecentErrMsg();
  uint64_t size = 5;
  EXPECT_EQ(aclGetIntArraySize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyIntArray(empty), ACLNN_SUCCESS);
  EXPECT_CREATE_FAILS(aclCreateIntArray(nullptr, 2), "aclCreateIntArray", "value is null", "size is 2");
  EXPECT_CREATE_FAILS(aclCreateFloatArray(nullptr, 1), "aclCreateFloatArray", "value is null");
  EXPECT_CREATE_FAILS(aclCreateBoolArray(nullptr, 3), "aclCreateBoolArray", "value is null");
  const int64_t one = 1;
  EXPECT_CREATE_FAILS(aclCreateIntArray(&one, UINT64_MAX), "aclCreateIntArray", "too large");
  EXPECT_CREATE_FAILS(aclCreateIntArray(&one, uint64_t{1} << 61), "aclCreateIntArray", "too large");
  EXPECT_FAILS(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR, "aclGetIntArraySize", "null");
  aclIntArray* array = aclCreateIntArray(&one, 1);
  EXPECT_FAILS(aclGetIntArraySize(array, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetIntArraySize", "size is null");
  EXPECT_FAILS(aclGetFloatArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR, "aclGetFloatArraySize", "null");
  EXPECT_FAILS(aclGetBoolArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR, "aclGetBoolArraySize", "null");
  EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Lists own their elements.

TEST(TensorList, HoldsItsTensorsAndDestroysThem) {
  aclTensor* a = SmallTensor();
  aclTensor* b = SmallTensor();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const aclTensor* elements[] = {a, nullptr, b};  // a null entry is allowed (an absent optional tensor)
  aclTensorList* list = aclCreateTensorList(elements, 3);
  ASSERT_NE(list, nullptr) << aclGetRecentErrMsg();
  uint64_t size = 0;
  EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclcpu::FindTensorList(list)->tensors, (std::vector<const aclTensor*>{a, nullptr, b}));

  // The list owns them: destroying one on its own would be a second destroy later.
  EXPECT_FAILS(aclDestroyTensor(a), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "belongs to a tensor list");
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(a, &dtype), ACLNN_SUCCESS);  // still live, and usable
  // A tensor goes in one list only.
  const aclTensor* again[] = {b};
  EXPECT_CREATE_FAILS(aclCreateTensorList(again, 1), "aclCreateTensorList", "value[0]", "already belongs");

  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclGetDataType(a, &dtype), ACLNN_ERR_PARAM_INVALID, "aclGetDataType", "not a live aclTensor");
  EXPECT_FAILS(aclDestroyTensor(b), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "not a live aclTensor");
  EXPECT_FAILS(aclDestroyTensorList(list), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensorList", "not a live aclTensorList");
  EXPECT_FAILS(aclGetTensorListSize(list, &size), ACLNN_ERR_PARAM_INVALID, "aclGetTensorListSize",
               "not a live aclTensorList");
  EXPECT_EQ(aclDestroyTensorList(nullptr), ACLNN_SUCCESS);
}

TEST(TensorList, CreateChecksItsTensors) {
  aclTensor* a = SmallTensor();
  aclTensor* dead = SmallTensor();
  ASSERT_EQ(aclDestroyTensor(dead), ACLNN_SUCCESS);
  const aclTensor* with_dead[] = {a, dead};
  EXPECT_CREATE_FAILS(aclCreateTensorList(with_dead, 2), "aclCreateTensorList", "value[1]", "not a live aclTensor");
  const aclTensor* twice[] = {a, a};
  EXPECT_CREATE_FAILS(aclCreateTensorList(twice, 2), "aclCreateTensorList", "value[1]", "twice");
  EXPECT_CREATE_FAILS(aclCreateTensorList(nullptr, 1), "aclCreateTensorList", "value is null");
  // The failures adopted nothing: a is still the caller's to destroy.
  EXPECT_EQ(aclDestroyTensor(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclTensorList* empty = aclCreateTensorList(nullptr, 0);
  ASSERT_NE(empty, nullptr) << aclGetRecentErrMsg();
  uint64_t size = 9;
  EXPECT_EQ(aclGetTensorListSize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_FAILS(aclGetTensorListSize(empty, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetTensorListSize", "size");
  EXPECT_FAILS(aclGetTensorListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR, "aclGetTensorListSize", "null");
  EXPECT_EQ(aclDestroyTensorList(empty), ACLNN_SUCCESS);
}

TEST(ScalarList, HoldsItsScalarsAndDestroysThem) {
  float one = 1;
  int32_t two = 2;
  aclScalar* a = aclCreateScalar(&one, ACL_FLOAT);
  aclScalar* b = aclCreateScalar(&two, ACL_INT32);
  const aclScalar* elements[] = {a, b};
  aclScalarList* list = aclCreateScalarList(elements, 2);
  ASSERT_NE(list, nullptr) << aclGetRecentErrMsg();
  uint64_t size = 0;
  EXPECT_EQ(aclGetScalarListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_FAILS(aclDestroyScalar(b), ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar", "belongs to a scalar list");
  const aclScalar* again[] = {a};
  EXPECT_CREATE_FAILS(aclCreateScalarList(again, 1), "aclCreateScalarList", "value[0]", "already belongs");
  const aclScalar* twice[] = {nullptr, nullptr};  // nulls are no duplicates
  aclScalarList* nulls = aclCreateScalarList(twice, 2);
  ASSERT_NE(nulls, nullptr) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyScalarList(nulls), ACLNN_SUCCESS);

  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FALSE(aclcpu::FindScalar(a));
  EXPECT_FAILS(aclDestroyScalar(a), ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar", "not a live aclScalar");
  EXPECT_FAILS(aclDestroyScalarList(list), ACLNN_ERR_PARAM_INVALID, "aclDestroyScalarList", "not a live");
  EXPECT_FAILS(aclGetScalarListSize(list, &size), ACLNN_ERR_PARAM_INVALID, "aclGetScalarListSize", "not a live");
  EXPECT_FAILS(aclGetScalarListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR, "aclGetScalarListSize", "null");
  aclScalar* dead = aclCreateScalar(&one, ACL_FLOAT);
  ASSERT_EQ(aclDestroyScalar(dead), ACLNN_SUCCESS);
  const aclScalar* with_dead[] = {dead};
  EXPECT_CREATE_FAILS(aclCreateScalarList(with_dead, 1), "aclCreateScalarList", "value[0]", "not a live aclScalar");
  EXPECT_EQ(aclDestroyScalarList(nullptr), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclInitTensor and the raw address.

TEST(InitTensor, DescribesTheSameHandleAnew) {
  const int64_t dims[] = {2, 3};
  const int64_t storage[] = {6};
  int payload[6] = {};
  aclTensor* tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, payload);
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  const int64_t new_dims[] = {4};
  const int64_t new_strides[] = {2};
  const int64_t new_storage[] = {9};
  ASSERT_EQ(aclInitTensor(tensor, new_dims, 1, ACL_FLOAT8_E4M3FN, new_strides, 1, ACL_FORMAT_FRACTAL_NZ_C0_16,
                          new_storage, 1, payload + 1),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  int64_t* values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), std::vector<int64_t>{4});
  delete[] values;
  ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), std::vector<int64_t>{2});
  delete[] values;
  int64_t offset = -1;
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 1);
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_FLOAT8_E4M3FN);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_FRACTAL_NZ_C0_16);
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, payload + 1);

  // Bad arguments leave the tensor as it was, with the reason.
  const int64_t negative[] = {-3};
  EXPECT_FAILS(aclInitTensor(tensor, negative, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, payload),
               ACLNN_ERR_PARAM_INVALID, "aclInitTensor", "viewDims[0] is -3");
  EXPECT_FAILS(aclInitTensor(tensor, dims, 2, ACL_STRING, nullptr, 0, ACL_FORMAT_ND, storage, 1, payload),
               ACLNN_ERR_PARAM_INVALID, "aclInitTensor", "dataType 13");
  EXPECT_FAILS(aclInitTensor(tensor, dims, 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, storage, 1, payload),
               ACLNN_ERR_PARAM_INVALID, "aclInitTensor", "offset -1");
  EXPECT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_FLOAT8_E4M3FN);
  EXPECT_FAILS(aclInitTensor(nullptr, dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, payload),
               ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor", "tensor is null");
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  EXPECT_FAILS(aclInitTensor(tensor, dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, payload),
               ACLNN_ERR_PARAM_INVALID, "aclInitTensor", "not a live aclTensor");
}

TEST(RawTensorAddr, SetsAndReadsTheStorageAddress) {
  aclTensor* tensor = SmallTensor();
  int storage[4] = {};
  EXPECT_EQ(aclSetRawTensorAddr(tensor, storage), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, static_cast<void*>(storage));
  EXPECT_FAILS(aclGetRawTensorAddr(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetRawTensorAddr");
  EXPECT_FAILS(aclSetRawTensorAddr(nullptr, storage), ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr", "tensor is null");
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  EXPECT_FAILS(aclSetRawTensorAddr(tensor, storage), ACLNN_ERR_PARAM_INVALID, "aclSetRawTensorAddr", "not a live");
  EXPECT_FAILS(aclGetRawTensorAddr(tensor, &addr), ACLNN_ERR_PARAM_INVALID, "aclGetRawTensorAddr", "not a live");
}

// ---------------------------------------------------------------------------------------------
// aclSet*TensorAddr: a repeatable executor runs on other memory.

std::vector<uint32_t> Floats(int n, float first, float step) {
  std::vector<uint32_t> bits;
  for (int i = 0; i < n; ++i) bits.push_back(aclcpu::kernel::FloatBits(first + step * static_cast<float>(i)));
  return bits;
}

struct Call {
  Call()
      : grad({2, 3}, Floats(6, 1, 0.5f)),
        self({2, 3}, Floats(6, -2, 1)),
        target({2, 3}, Floats(6, 0.25f, -0.75f)),
        out({2, 3}, std::vector<uint32_t>(6, 0)) {}
  support::RawFloatTensor grad, self, target, out;
};

golden::Tensor Expected(const support::RawFloatTensor& g, const support::RawFloatTensor& s,
                        const support::RawFloatTensor& t) {
  return golden::MseLossGrad(g.Golden(), s.Golden(), t.Golden(), 2, golden::Dtype::kFloat32);
}

// Phase one of call's backward (reduction 1 mean, 2 sum): a one-shot executor.
void OneShotExecutor(const Call& call, int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(call.grad.get(), call.self.get(), call.target.get(), reduction,
                                                 call.out.get(), workspace_size, executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
}

// Phase one of call's backward (reduction sum), its executor made repeatable.
void RepeatableExecutor(const Call& call, uint64_t* workspace_size, aclOpExecutor** executor) {
  ASSERT_NO_FATAL_FAILURE(OneShotExecutor(call, 2, workspace_size, executor));
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(*executor), ACLNN_SUCCESS);
}

// Launches on one thread while another points the executor's self back and forth between two
// buffers of the same values: every launch reads one of them whole, so out is always the same.
TEST(SetTensorAddr, LaunchesWhileAnotherThreadRebinds) {
  support::EnsureRuntime();
  Call call;
  support::RawFloatTensor twin_self({2, 3}, Floats(6, -2, 1));  // self's values, elsewhere
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_NO_FATAL_FAILURE(RepeatableExecutor(call, &workspace_size, &executor));
  const std::vector<uint32_t> expected = Expected(call.grad, call.self, call.target).bits;
  std::atomic<bool> stop{false};
  std::atomic<int> rebinds{0};
  std::thread rebinder([&] {
    for (int i = 0; !stop.load(); ++i) {
      void* self = i % 2 == 0 ? twin_self.data() : call.self.data();
      if (aclSetInputTensorAddr(executor, 1, call.self.get(), self) != ACLNN_SUCCESS) return;
      rebinds.fetch_add(1);
    }
  });
  for (int launch = 0; launch < 300 || rebinds.load() < 2; ++launch) {
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    ASSERT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected, call.out.Read()), "") << "launch " << launch;
  }
  stop = true;
  rebinder.join();
  EXPECT_GE(rebinds.load(), 2);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// A one-shot launch reads its executor's addresses without the lock a rebind takes: the rebind
// sees the launch's claim and refuses, or finished before it. Either way the launch reads one of
// two buffers of the same values whole (the ThreadSanitizer build runs this too).
TEST(SetTensorAddr, OneShotLaunchRacedByARebind) {
  support::EnsureRuntime();
  Call call;
  support::RawFloatTensor twin_self({2, 3}, Floats(6, -2, 1));  // self's values, elsewhere
  const std::vector<uint32_t> expected = Expected(call.grad, call.self, call.target).bits;
  for (int round = 0; round < 200; ++round) {
    uint64_t workspace_size = 1;
    aclOpExecutor* executor = nullptr;
    ASSERT_NO_FATAL_FAILURE(OneShotExecutor(call, 2, &workspace_size, &executor));
    std::atomic<bool> go{false};
    std::thread rebinder([&] {
      while (!go.load()) {
      }
      for (int i = 0;; ++i) {
        void* self = i % 2 == 0 ? twin_self.data() : call.self.data();
        if (aclSetInputTensorAddr(executor, 1, call.self.get(), self) != ACLNN_SUCCESS) return;
      }
    });
    go = true;
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    rebinder.join();  // refused once the launch claimed the executor
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    ASSERT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected, call.out.Read()), "") << "round " << round;
  }
}

TEST(SetTensorAddr, RepeatableExecutorRunsOnTheNewMemory) {
  support::EnsureRuntime();
  Call call;
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_NO_FATAL_FAILURE(RepeatableExecutor(call, &workspace_size, &executor));
  ASSERT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(
      support::CompareBits(golden::Dtype::kFloat32, Expected(call.grad, call.self, call.target).bits, call.out.Read()),
      "");

  // New self (input 1) and out (output 0): the next launch reads and writes there.
  support::RawFloatTensor other_self({2, 3}, Floats(6, 7, -1.5f));
  support::RawFloatTensor other_out({2, 3}, std::vector<uint32_t>(6, 0));
  ASSERT_EQ(aclSetInputTensorAddr(executor, 1, call.self.get(), other_self.data()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, call.out.get(), other_out.data()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  void* addr = nullptr;
  ASSERT_EQ(aclGetRawTensorAddr(call.self.get(), &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, other_self.data());  // the tensor has the new address too
  const std::vector<uint32_t> first_out = call.out.Read();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, Expected(call.grad, other_self, call.target).bits,
                                 other_out.Read()),
            "");
  EXPECT_EQ(call.out.Read(), first_out);  // the old out is left alone

  // aclSetTensorAddr numbers the inputs, then the outputs: 3 is out, 0 gradOutput.
  support::RawFloatTensor third_out({2, 3}, std::vector<uint32_t>(6, 0));
  support::RawFloatTensor other_grad({2, 3}, Floats(6, -3, 0.125f));
  ASSERT_EQ(aclSetTensorAddr(executor, 3, call.out.get(), third_out.data()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(AclSetTensorAddr(executor, 0, call.grad.get(), other_grad.data()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, Expected(other_grad, other_self, call.target).bits,
                                 third_out.Read()),
            "");

  // out moved onto self's new memory: phase one planned for no overlap there, so the launch refuses.
  ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, call.out.get(), other_self.data()), ACLNN_SUCCESS);
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               "self", "overlaps", "out", "phase one");
  ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, call.out.get(), third_out.data()), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();

  // Memory freed after the rebinding is caught at the launch, as for phase one's memory.
  {
    support::RawFloatTensor short_lived({2, 3}, Floats(6, 1, 1));
    ASSERT_EQ(aclSetInputTensorAddr(executor, 2, call.target.get(), short_lived.data()), ACLNN_SUCCESS);
  }
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               "target", "no longer inside a live aclrtMalloc allocation");
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// A one-shot launch that is refused (here: a dead stream) gives its executor back: it can still be
// pointed at new memory, and launched once; after that launch it is consumed.
TEST(SetTensorAddr, OneShotExecutorRefusedAtLaunchIsGivenBack) {
  support::EnsureRuntime();
  Call call;
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_NO_FATAL_FAILURE(OneShotExecutor(call, 2, &workspace_size, &executor));
  aclrtStream not_a_stream = reinterpret_cast<aclrtStream>(&workspace_size);
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, not_a_stream), ACLNN_ERR_RUNTIME_ERROR,
               "aclnnMseLossBackward", "not a live stream");
  support::RawFloatTensor other_self({2, 3}, Floats(6, 7, -1.5f));
  ASSERT_EQ(aclSetInputTensorAddr(executor, 1, call.self.get(), other_self.data()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(
      support::CompareBits(golden::Dtype::kFloat32, Expected(call.grad, other_self, call.target).bits, call.out.Read()),
      "");
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 1, call.self.get(), other_self.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetInputTensorAddr", "not a live executor");
}

TEST(SetTensorAddr, ArgumentsAreChecked) {
  support::EnsureRuntime();
  Call call;
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_NO_FATAL_FAILURE(OneShotExecutor(call, 1, &workspace_size, &executor));
  support::RawFloatTensor spare({2, 3}, std::vector<uint32_t>(6, 0));
  support::RawFloatTensor small({2}, std::vector<uint32_t>(2, 0));
  int host[6] = {};

  // CANN's codes: a null tensor or executor is ACLNN_ERR_INNER_NULLPTR; the tensor gets its address first.
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 0, nullptr, spare.data()), ACLNN_ERR_INNER_NULLPTR,
               "aclSetInputTensorAddr", "tensor is null");
  EXPECT_FAILS(aclSetOutputTensorAddr(nullptr, 0, call.out.get(), spare.data()), ACLNN_ERR_INNER_NULLPTR,
               "aclSetOutputTensorAddr", "executor is null");
  void* addr = nullptr;
  ASSERT_EQ(aclGetRawTensorAddr(call.out.get(), &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, spare.data());
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 3, call.grad.get(), spare.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetInputTensorAddr", "3 inputs", "index 3");
  EXPECT_FAILS(aclSetOutputTensorAddr(executor, 1, call.out.get(), spare.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetOutputTensorAddr", "1 outputs", "index 1");
  EXPECT_FAILS(aclSetTensorAddr(executor, 4, call.out.get(), spare.data()), ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr",
               "1 outputs", "index 1");
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 0, call.grad.get(), small.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetInputTensorAddr", "gradOutput", "24 bytes", "not inside one live aclrtMalloc allocation");
  EXPECT_FAILS(AclSetInputTensorAddr(executor, 0, call.grad.get(), host), ACLNN_ERR_PARAM_INVALID,
               "AclSetInputTensorAddr", "gradOutput", PtrText(host));
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 0, call.grad.get(), nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclSetInputTensorAddr", "gradOutput");

  // The Dynamic forms name a tensor of a list; this operator has no list argument.
  aclTensor* element = SmallTensor();
  const aclTensor* elements[] = {element};
  aclTensorList* list = aclCreateTensorList(elements, 1);
  ASSERT_NE(list, nullptr) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclSetDynamicInputTensorAddr(executor, 0, 0, list, spare.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetDynamicInputTensorAddr", "no tensor-list argument");
  ASSERT_EQ(aclGetRawTensorAddr(element, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, spare.data());  // the list's tensor has the address
  EXPECT_FAILS(aclSetDynamicOutputTensorAddr(executor, 0, 1, list, spare.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetDynamicOutputTensorAddr", "relativeIndex 1", "list of 1");
  EXPECT_FAILS(aclSetDynamicTensorAddr(executor, 0, 0, nullptr, spare.data()), ACLNN_ERR_INNER_NULLPTR,
               "aclSetDynamicTensorAddr", "tensors is null");
  EXPECT_FAILS(AclSetDynamicTensorAddr(nullptr, 0, 0, list, spare.data()), ACLNN_ERR_INNER_NULLPTR,
               "AclSetDynamicTensorAddr", "executor is null");
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  EXPECT_FAILS(AclSetDynamicInputTensorAddr(executor, 0, 0, list, spare.data()), ACLNN_ERR_PARAM_INVALID,
               "AclSetDynamicInputTensorAddr", "not a live aclTensorList");

  // A one-shot executor, once launched, takes no addresses.
  ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, call.out.get(), call.out.data()), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclSetInputTensorAddr(executor, 0, call.grad.get(), call.grad.data()), ACLNN_ERR_PARAM_INVALID,
               "aclSetInputTensorAddr", "not a live executor");
  EXPECT_FAILS(AclSetOutputTensorAddr(executor, 0, call.out.get(), call.out.data()), ACLNN_ERR_PARAM_INVALID,
               "AclSetOutputTensorAddr", "not a live executor");
  EXPECT_FAILS(AclSetDynamicOutputTensorAddr(executor, 0, 0, nullptr, nullptr), ACLNN_ERR_INNER_NULLPTR,
               "AclSetDynamicOutputTensorAddr", "tensors is null");
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32,
                                 golden::MseLossGrad(call.grad.Golden(), call.self.Golden(), call.target.Golden(), 1,
                                                     golden::Dtype::kFloat32)
                                     .bits,
                                 call.out.Read()),
            "");
}

}  // namespace
