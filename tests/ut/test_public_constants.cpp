// The numbers and prototypes of the public CANN headers, as looked up there: a CANN program
// compiled against our headers sees the same values and calls the same functions. Where each fact
// was read:
//   hicann/runtime include/external/acl/acl_base_rt.h        dtypes, formats, acl* codes, fp16,
//                                                             aclDataTypeSize, aclrtGetSocName
//   hicann/runtime include/external/acl/acl_rt.h             run mode, memcpy kinds, malloc
//                                                             policies, aclrtDevAttr, runtime
//                                                             prototypes (aclInit ... here too)
//   hicann/runtime include/external/acl/error_codes/rt_error_codes.h   ACL_ERROR_RT_* codes
//   hicann/opbase include/nnopbase/aclnn/acl_meta.h          handle types, aclnn prototypes, OK
//   hicann/opbase include/nnopbase/aclnn/aclnn_base.h        aclnnInit / aclnnFinalize
//   hicann/opbase include/nnopbase/opdev/op_errno.h          ACLNN_* codes
#include <gtest/gtest.h>

#include <limits>
#include <type_traits>

#include "acl/acl.h"
#include "acl/acl_base_rt.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

// Each function has exactly the prototype CANN declares.
#define EXPECT_PROTOTYPE(function, type) static_assert(std::is_same<decltype(&function), type>::value, #function)

TEST(PublicConstants, AclErrorCodes) {
  EXPECT_EQ(ACL_SUCCESS, 0);
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, 100000);
  EXPECT_EQ(ACL_ERROR_UNINITIALIZE, 100001);
  EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, 100002);
  EXPECT_EQ(ACL_ERROR_INVALID_FILE, 100003);
  EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, 100037);
  EXPECT_EQ(ACL_ERROR_BAD_ALLOC, 200000);
  EXPECT_EQ(ACL_ERROR_INTERNAL_ERROR, 500000);
}

TEST(PublicConstants, RuntimeErrorCodes) {
  EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, 107000);
  EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
  EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, 107002);
  EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, 107017);
  EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001);
  EXPECT_EQ(ACL_ERROR_RT_MEMORY_FREE, 207002);
  EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, 507000);
  EXPECT_EQ(ACL_ERROR_RT_STREAM_CONTEXT, 107003);
  EXPECT_EQ(ACL_ERROR_RT_WAIT_TIMEOUT, 107019);
  EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000);
  EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046);
  EXPECT_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047);
  EXPECT_EQ(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 507910);  // hicann/runtime rt_error_codes.h
  EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, 507911);
}

TEST(PublicConstants, AclnnStatusCodes) {
  EXPECT_EQ(ACLNN_SUCCESS, 0);
  EXPECT_EQ(ACLNN_ERR_PARAM_NULLPTR, 161001);
  EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, 161002);
  EXPECT_EQ(ACLNN_ERR_RUNTIME_ERROR, 361001);
  EXPECT_EQ(ACLNN_ERR_INNER, 561000);
  EXPECT_EQ(ACLNN_ERR_INNER_INFERSHAPE_ERROR, 561001);
  EXPECT_EQ(ACLNN_ERR_INNER_TILING_ERROR, 561002);
  EXPECT_EQ(ACLNN_ERR_INNER_CREATE_EXECUTOR, 561101);
  EXPECT_EQ(ACLNN_ERR_INNER_NULLPTR, 561103);
  EXPECT_EQ(sizeof(aclnnStatus), 4u);
  EXPECT_EQ(sizeof(aclError), sizeof(int));
  EXPECT_EQ(OK, 0);  // acl_meta.h's own name for success
}

TEST(PublicConstants, OpErrnoCodes) {
  EXPECT_EQ(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, 561003);
  EXPECT_EQ(ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR, 561102);
  EXPECT_EQ(ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE, 561104);
  EXPECT_EQ(ACLNN_ERR_INNER_KEY_CONFILICT, 561105);
  EXPECT_EQ(ACLNN_ERR_INNER_KEY_CONFLICT, 561105);
  EXPECT_EQ(ACLNN_ERR_INNER_INVALID_IMPL_MODE, 561106);
  EXPECT_EQ(ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND, 561107);
  EXPECT_EQ(ACLNN_ERR_INNER_LOAD_JSON_FAILED, 561108);
  EXPECT_EQ(ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND, 561109);
  EXPECT_EQ(ACLNN_ERR_INNER_JSON_FORMAT_INVALID, 561110);
  EXPECT_EQ(ACLNN_ERR_INNER_JSON_DTYPE_INVALID, 561111);
  EXPECT_EQ(ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND, 561112);
  EXPECT_EQ(ACLNN_ERR_INNER_OP_FILE_INVALID, 561113);
  EXPECT_EQ(ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND, 561114);
  EXPECT_EQ(ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH, 561115);
  EXPECT_EQ(ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE, 561116);
  EXPECT_EQ(ACLNN_ERR_INNER_INPUT_JSON_IS_NULL, 561117);
  EXPECT_EQ(ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID, 561118);
  EXPECT_EQ(ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID, 561119);
}

TEST(PublicConstants, DataTypes) {
  EXPECT_EQ(ACL_DT_UNDEFINED, -1);
  EXPECT_EQ(ACL_FLOAT, 0);
  EXPECT_EQ(ACL_FLOAT16, 1);
  EXPECT_EQ(ACL_INT8, 2);
  EXPECT_EQ(ACL_INT32, 3);
  EXPECT_EQ(ACL_UINT8, 4);
  EXPECT_EQ(ACL_INT16, 6);
  EXPECT_EQ(ACL_UINT16, 7);
  EXPECT_EQ(ACL_UINT32, 8);
  EXPECT_EQ(ACL_INT64, 9);
  EXPECT_EQ(ACL_UINT64, 10);
  EXPECT_EQ(ACL_DOUBLE, 11);
  EXPECT_EQ(ACL_BOOL, 12);
  EXPECT_EQ(ACL_STRING, 13);
  EXPECT_EQ(ACL_COMPLEX64, 16);
  EXPECT_EQ(ACL_COMPLEX128, 17);
  EXPECT_EQ(ACL_BF16, 27);
  EXPECT_EQ(ACL_INT4, 29);
  EXPECT_EQ(ACL_UINT1, 30);
  EXPECT_EQ(ACL_COMPLEX32, 33);
  EXPECT_EQ(ACL_HIFLOAT8, 34);
  EXPECT_EQ(ACL_FLOAT8_E5M2, 35);
  EXPECT_EQ(ACL_FLOAT8_E4M3FN, 36);
  EXPECT_EQ(ACL_FLOAT8_E8M0, 37);
  EXPECT_EQ(ACL_FLOAT6_E3M2, 38);
  EXPECT_EQ(ACL_FLOAT6_E2M3, 39);
  EXPECT_EQ(ACL_FLOAT4_E2M1, 40);
  EXPECT_EQ(ACL_FLOAT4_E1M2, 41);
  EXPECT_EQ(ACL_HIFLOAT4, 42);
  EXPECT_EQ(ACL_HIFLOAT4_SCALE, 43);
}

TEST(PublicConstants, Formats) {
  EXPECT_EQ(ACL_FORMAT_UNDEFINED, -1);
  EXPECT_EQ(ACL_FORMAT_NCHW, 0);
  EXPECT_EQ(ACL_FORMAT_NHWC, 1);
  EXPECT_EQ(ACL_FORMAT_ND, 2);
  EXPECT_EQ(ACL_FORMAT_NC1HWC0, 3);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_Z, 4);
  EXPECT_EQ(ACL_FORMAT_NC1HWC0_C04, 12);
  EXPECT_EQ(ACL_FORMAT_HWCN, 16);
  EXPECT_EQ(ACL_FORMAT_NDHWC, 27);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ, 29);
  EXPECT_EQ(ACL_FORMAT_NCDHW, 30);
  EXPECT_EQ(ACL_FORMAT_NDC1HWC0, 32);
  EXPECT_EQ(ACL_FRACTAL_Z_3D, 33);
  EXPECT_EQ(ACL_FORMAT_NC, 35);
  EXPECT_EQ(ACL_FORMAT_NCL, 47);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_16, 50);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_32, 51);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_2, 52);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_4, 53);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_8, 54);
}

TEST(PublicConstants, MemcpyKindsAndMallocPolicies) {
  EXPECT_EQ(ACL_MEMCPY_HOST_TO_HOST, 0);
  EXPECT_EQ(ACL_MEMCPY_HOST_TO_DEVICE, 1);
  EXPECT_EQ(ACL_MEMCPY_DEVICE_TO_HOST, 2);
  EXPECT_EQ(ACL_MEMCPY_DEVICE_TO_DEVICE, 3);
  EXPECT_EQ(ACL_MEMCPY_DEFAULT, 4);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE_FIRST, 0);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE_ONLY, 1);
  EXPECT_EQ(ACL_MEM_MALLOC_NORMAL_ONLY, 2);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE_ONLY_P2P, 4);
  EXPECT_EQ(ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 5);
  EXPECT_EQ(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, 5);
  EXPECT_EQ(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6);
  EXPECT_EQ(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE1G_ONLY, 6);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
  EXPECT_EQ(ACL_MEM_TYPE_LOW_BAND_WIDTH, 0x0100);
  EXPECT_EQ(ACL_MEM_TYPE_HIGH_BAND_WIDTH, 0x1000);
  EXPECT_EQ(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);
  EXPECT_EQ(ACL_HOST_REGISTER_MAPPED, 0);  // aclrtHostRegisterType, hicann/runtime acl_rt.h
  EXPECT_EQ(ACL_HOST_REGISTER_IOMEMORY, 0x04);
  EXPECT_EQ(ACL_HOST_REGISTER_READONLY, 0x08);
}

TEST(PublicConstants, RunModesAndDeviceAttributes) {
  EXPECT_EQ(ACL_DEVICE, 0);
  EXPECT_EQ(ACL_HOST, 1);
  EXPECT_EQ(ACL_DEV_ATTR_AICPU_CORE_NUM, 1);
  EXPECT_EQ(ACL_DEV_ATTR_AICORE_CORE_NUM, 101);
  EXPECT_EQ(ACL_DEV_ATTR_CUBE_CORE_NUM, 102);
  EXPECT_EQ(ACL_DEV_ATTR_VECTOR_CORE_NUM, 201);
  EXPECT_EQ(ACL_DEV_ATTR_WARP_SIZE, 202);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE, 203);
  EXPECT_EQ(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, 204);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_X, 205);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_Y, 206);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_Z, 207);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_BLOCK_PER_GRID, 208);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK, 209);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_X, 210);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_Y, 211);
  EXPECT_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_Z, 212);
  EXPECT_EQ(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, 301);
  EXPECT_EQ(ACL_DEV_ATTR_L2_CACHE_SIZE, 302);
  EXPECT_EQ(ACL_DEV_ATTR_SMP_ID, 401);
  EXPECT_EQ(ACL_DEV_ATTR_PHY_CHIP_ID, 402);
  EXPECT_EQ(ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID, 403);
  EXPECT_EQ(ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, 403);
  EXPECT_EQ(ACL_DEV_ATTR_SUPER_POD_SERVER_ID, 404);
  EXPECT_EQ(ACL_DEV_ATTR_SUPER_POD_ID, 405);
  EXPECT_EQ(ACL_DEV_ATTR_CUST_OP_PRIVILEGE, 406);
  EXPECT_EQ(ACL_DEV_ATTR_MAINBOARD_ID, 407);
  EXPECT_EQ(ACL_DEV_ATTR_HD_CONNECT_TYPE, 408);
  EXPECT_EQ(ACL_DEV_ATTR_DEVICE_FORM_FACTOR, 409);
  EXPECT_EQ(ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID, 410);
  EXPECT_EQ(ACL_DEV_ATTR_IS_VIRTUAL, 501);
  EXPECT_EQ(ACL_DEV_ATTR_NPU_ARCH, 601);
}

TEST(PublicConstants, RuntimePrototypes) {
  EXPECT_PROTOTYPE(aclInit, aclError(*)(const char*));
  EXPECT_PROTOTYPE(aclFinalize, aclError(*)());
  EXPECT_PROTOTYPE(aclGetRecentErrMsg, const char* (*)());
  EXPECT_PROTOTYPE(aclFloat16ToFloat, float (*)(aclFloat16));
  EXPECT_PROTOTYPE(aclFloatToFloat16, aclFloat16(*)(float));
  EXPECT_PROTOTYPE(aclDataTypeSize, size_t(*)(aclDataType));
  EXPECT_PROTOTYPE(aclrtGetSocName, const char* (*)());
  EXPECT_PROTOTYPE(aclrtCreateContext, aclError(*)(aclrtContext*, int32_t));
  EXPECT_PROTOTYPE(aclrtDestroyContext, aclError(*)(aclrtContext));
  EXPECT_PROTOTYPE(aclrtSetCurrentContext, aclError(*)(aclrtContext));
  EXPECT_PROTOTYPE(aclrtGetCurrentContext, aclError(*)(aclrtContext*));
  EXPECT_PROTOTYPE(aclrtGetRunMode, aclError(*)(aclrtRunMode*));
  EXPECT_PROTOTYPE(aclrtGetDeviceInfo, aclError(*)(uint32_t, aclrtDevAttr, int64_t*));
  EXPECT_PROTOTYPE(aclrtSynchronizeStreamWithTimeout, aclError(*)(aclrtStream, int32_t));
  EXPECT_PROTOTYPE(aclrtMemsetAsync, aclError(*)(void*, size_t, int32_t, size_t, aclrtStream));
  EXPECT_PROTOTYPE(aclrtMemset, aclError(*)(void*, size_t, int32_t, size_t));
  EXPECT_PROTOTYPE(aclrtHostRegister, aclError(*)(void*, uint64_t, aclrtHostRegisterType, void**));
  EXPECT_PROTOTYPE(aclrtHostUnregister, aclError(*)(void*));
  EXPECT_PROTOTYPE(aclrtSetSysParamOpt, aclError(*)(aclSysParamOpt, int64_t));
  EXPECT_PROTOTYPE(aclrtGetSysParamOpt, aclError(*)(aclSysParamOpt, int64_t*));
  // aclSysParamOpt (hicann/runtime acl_base_rt.h)
  EXPECT_EQ(ACL_OPT_DETERMINISTIC, 0);
  EXPECT_EQ(ACL_OPT_ENABLE_DEBUG_KERNEL, 1);
  EXPECT_EQ(ACL_OPT_STRONG_CONSISTENCY, 2);
  EXPECT_EQ(ACL_OPT_ENABLE_KERNEL_EARLY_START, 3);
  EXPECT_PROTOTYPE(aclrtMemcpyAsync, aclError(*)(void*, size_t, const void*, size_t, aclrtMemcpyKind, aclrtStream));
  EXPECT_EQ(sizeof(aclFloat16), 2u);
  EXPECT_TRUE((std::is_same<aclrtContext, void*>::value));
}

TEST(PublicConstants, AclnnPrototypes) {
  EXPECT_PROTOTYPE(aclCreateScalar, aclScalar * (*)(void*, aclDataType));
  EXPECT_PROTOTYPE(aclCreateIntArray, aclIntArray * (*)(const int64_t*, uint64_t));
  EXPECT_PROTOTYPE(aclCreateFloatArray, aclFloatArray * (*)(const float*, uint64_t));
  EXPECT_PROTOTYPE(aclCreateBoolArray, aclBoolArray * (*)(const bool*, uint64_t));
  EXPECT_PROTOTYPE(aclCreateTensorList, aclTensorList * (*)(const aclTensor* const*, uint64_t));
  EXPECT_PROTOTYPE(aclCreateScalarList, aclScalarList * (*)(const aclScalar* const*, uint64_t));
  EXPECT_PROTOTYPE(aclDestroyScalar, aclnnStatus(*)(const aclScalar*));
  EXPECT_PROTOTYPE(aclDestroyIntArray, aclnnStatus(*)(const aclIntArray*));
  EXPECT_PROTOTYPE(aclDestroyFloatArray, aclnnStatus(*)(const aclFloatArray*));
  EXPECT_PROTOTYPE(aclDestroyBoolArray, aclnnStatus(*)(const aclBoolArray*));
  EXPECT_PROTOTYPE(aclDestroyTensorList, aclnnStatus(*)(const aclTensorList*));
  EXPECT_PROTOTYPE(aclDestroyScalarList, aclnnStatus(*)(const aclScalarList*));
  EXPECT_PROTOTYPE(aclGetIntArraySize, aclnnStatus(*)(const aclIntArray*, uint64_t*));
  EXPECT_PROTOTYPE(aclGetFloatArraySize, aclnnStatus(*)(const aclFloatArray*, uint64_t*));
  EXPECT_PROTOTYPE(aclGetBoolArraySize, aclnnStatus(*)(const aclBoolArray*, uint64_t*));
  EXPECT_PROTOTYPE(aclGetTensorListSize, aclnnStatus(*)(const aclTensorList*, uint64_t*));
  EXPECT_PROTOTYPE(aclGetScalarListSize, aclnnStatus(*)(const aclScalarList*, uint64_t*));
  EXPECT_PROTOTYPE(aclInitTensor, aclnnStatus(*)(aclTensor*, const int64_t*, uint64_t, aclDataType, const int64_t*,
                                                 int64_t, aclFormat, const int64_t*, uint64_t, void*));
  EXPECT_PROTOTYPE(aclSetAclOpExecutorRepeatable, aclnnStatus(*)(aclOpExecutor*));
  EXPECT_PROTOTYPE(aclDestroyAclOpExecutor, aclnnStatus(*)(aclOpExecutor*));
  using SetAddr = aclnnStatus (*)(aclOpExecutor*, const size_t, aclTensor*, void*);
  using SetDynamicAddr = aclnnStatus (*)(aclOpExecutor*, size_t, const size_t, aclTensorList*, void*);
  EXPECT_PROTOTYPE(aclSetInputTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(aclSetOutputTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(aclSetTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(AclSetInputTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(AclSetOutputTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(AclSetTensorAddr, SetAddr);
  EXPECT_PROTOTYPE(aclSetDynamicInputTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(aclSetDynamicOutputTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(aclSetDynamicTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(AclSetDynamicInputTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(AclSetDynamicOutputTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(AclSetDynamicTensorAddr, SetDynamicAddr);
  EXPECT_PROTOTYPE(aclSetRawTensorAddr, aclnnStatus(*)(aclTensor*, void*));
  EXPECT_PROTOTYPE(aclGetRawTensorAddr, aclnnStatus(*)(const aclTensor*, void**));
  EXPECT_PROTOTYPE(aclnnInit, aclnnStatus(*)(const char*));
  EXPECT_PROTOTYPE(aclnnFinalize, aclnnStatus(*)());
}

// The FLOAT16 conversions' documented special cases (acl_base_rt.h's notes, and CANN's
// src/acl/aclrt_impl/types/fp16_impl.cpp): saturation to +-65504 and the finite reading of the
// all-ones exponent.
TEST(PublicConstants, Float16ConversionSpecialCases) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(aclFloatToFloat16(inf), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(-inf), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(std::numeric_limits<float>::quiet_NaN()), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(65504.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(1.0e6f), 0x7BFF);
  EXPECT_EQ(aclFloat16ToFloat(0x7C00), 65536.0f);
  EXPECT_EQ(aclFloat16ToFloat(0xFC00), -65536.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x7E00), 98304.0f);
}

TEST(PublicConstants, RecentErrorMessageIsNeverNull) {
  ASSERT_NE(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);  // before aclInit
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclInit"), std::string::npos);
}
