/* aclnn-cpu: the runtime slice of the CANN API - initialization, the device and its contexts,
 * streams, events, memory. Declared where CANN's acl_rt.h declares them; values follow it (see
 * tests/ut/test_public_constants.cpp). */
#ifndef ACLNN_CPU_ACL_ACL_RT_H_
#define ACLNN_CPU_ACL_ACL_RT_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtRunMode { ACL_DEVICE, ACL_HOST } aclrtRunMode;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
  ACL_MEMCPY_DEFAULT,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
  ACL_MEM_MALLOC_HUGE1G_ONLY,
  ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
  ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

/* How aclrtHostRegister admits host memory (flags; MAPPED is none of them). */
typedef enum {
  ACL_HOST_REGISTER_MAPPED = 0,
  ACL_HOST_REGISTER_IOMEMORY = 0x04,
  ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;

/* What aclrtGetDeviceInfo reports. */
typedef enum {
  ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
  ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
  ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
  ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
  ACL_DEV_ATTR_WARP_SIZE = 202,
  ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
  ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
  ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
  ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
  ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
  ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
  ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
  ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
  ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
  ACL_DEV_ATTR_SMP_ID = 401U,
  ACL_DEV_ATTR_PHY_CHIP_ID = 402U,
  ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403U,
  ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403U,
  ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404U,
  ACL_DEV_ATTR_SUPER_POD_ID = 405U,
  ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406U,
  ACL_DEV_ATTR_MAINBOARD_ID = 407U,
  ACL_DEV_ATTR_HD_CONNECT_TYPE = 408U,
  ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409U,
  ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID = 410U,
  ACL_DEV_ATTR_IS_VIRTUAL = 501U,
  ACL_DEV_ATTR_NPU_ARCH = 601U
} aclrtDevAttr;

/* ---- the runtime -------------------------------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* The message of the most recent failed call on this thread; "" when there was none. */
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);

/* ---- contexts: per-thread current context, on device 0 ------------------------------------ */
/* Creates a context on deviceId and makes it the calling thread's current context. */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);
/* Destroys a context made by aclrtCreateContext, with the streams created in it. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
/* The thread's current context: the one it set or created last, else the device's default one. */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context);

/* ---- system options (aclSysParamOpt) for this process ----------------------------------------- */
/* A value the option takes (ACL_OPT_DETERMINISTIC: 0 to 3; the others 0 or 1), else
 * ACL_ERROR_RT_PARAM_INVALID; an opt that is no aclSysParamOpt: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/* The value set last; 0 for an option never set. */
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value);

/* ---- the device --------------------------------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId);
/* ACL_HOST: this runtime and its "device" run on the host. */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode* runMode);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value);

/* ---- events ------------------------------------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent* event);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);

/* ---- memory ------------------------------------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);
/* Admits the host memory [ptr, ptr + size) for the device: tensors and copies may then use it as
 * device memory, at *devPtr (here the same address). ptr must be 4 KiB aligned; a range overlapping
 * a registered one is ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED. READONLY: nothing writes to it. */
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr);
/* Ends the registration that starts at ptr, after the queued work that uses it. */
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void* ptr);

/* ---- streams ------------------------------------------------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
/* timeout in milliseconds: -1 waits as long as it takes, 0 only checks; when the work is not done
 * in time, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (and the work goes on). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_CPU_ACL_ACL_RT_H_ */
