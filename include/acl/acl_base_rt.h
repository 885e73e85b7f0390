/* aclnn-cpu: the base types, error codes and enums of the CANN runtime API, and the few functions
 * CANN declares beside them. Values follow the public CANN header of the same name; see
 * tests/ut/test_public_constants.cpp. */
#ifndef ACLNN_CPU_ACL_ACL_BASE_RT_H_
#define ACLNN_CPU_ACL_ACL_BASE_RT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef int aclError;
typedef uint16_t aclFloat16;

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;

static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;

typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33,
  ACL_HIFLOAT8 = 34,
  ACL_FLOAT8_E5M2 = 35,
  ACL_FLOAT8_E4M3FN = 36,
  ACL_FLOAT8_E8M0 = 37,
  ACL_FLOAT6_E3M2 = 38,
  ACL_FLOAT6_E2M3 = 39,
  ACL_FLOAT4_E2M1 = 40,
  ACL_FLOAT4_E1M2 = 41,
  ACL_HIFLOAT4 = 42,
  ACL_HIFLOAT4_SCALE = 43
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47,
  ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
  ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
  ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
  ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
  ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;

typedef enum { ACL_DEBUG = 0, ACL_INFO = 1, ACL_WARNING = 2, ACL_ERROR = 3 } aclLogLevel;

/* FLOAT16 bits to float. As CANN does, an exponent of all ones is read as a finite power of two:
 * +inf gives 65536.0, -inf -65536.0 and the NaN 0x7E00 98304.0. Every other value is exact. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);

/* float to FLOAT16 bits, rounding to nearest even. As CANN does, it saturates: a value that would
 * round to infinity, an infinity and a NaN give the largest finite FLOAT16 of their sign (0x7BFF
 * or 0xFBFF). */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* Bytes per element of dataType by CANN's rule: 0 for DT_UNDEFINED and STRING; 1 for the 8-bit
 * types and, rounded up, INT4, UINT1 and HIFLOAT4; 2, 4 or 16 as the type says; 8 for the 64-bit
 * types and for every other value (CANN's default), the 4- and 6-bit float types included. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* The system options aclrtSetSysParamOpt sets. ACL_OPT_DETERMINISTIC: 0 off (the default), 1
 * deterministic, 2 strong consistency, 3 batch consistency; every result here is deterministic
 * whatever its value. (Value 2 of the option list, ACL_OPT_STRONG_CONSISTENCY, is deprecated in
 * CANN for ACL_OPT_DETERMINISTIC with value 2.) */
typedef enum {
  ACL_OPT_DETERMINISTIC = 0,
  ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
  ACL_OPT_STRONG_CONSISTENCY = 2,
  ACL_OPT_ENABLE_KERNEL_EARLY_START = 3
} aclSysParamOpt;

/* The name of the SoC whose kernels this runtime computes as: "Ascend910B3" unless the environment
 * variable ACLNN_CPU_SOC_NAME names another of the parts aclnn-cpu knows (read once); NULL when it
 * names none (aclInit then fails with the list of known names). */
ACL_FUNC_VISIBILITY const char* aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACL_ACL_BASE_RT_H_ */
