// What the runtime says about its one device: the SoC it stands for and its capabilities. The
// "device" is this host, so the counts and sizes are the host's.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "api_guard.h"
#include "runtime_state.h"

namespace aclcpu {
namespace {

int64_t AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int64_t Sysconf(int name) {
  const long value = sysconf(name);
  return value > 0 ? static_cast<int64_t>(value) : 0;
}

// The largest cache the host reports (its last level), in bytes; 0 when it reports none.
int64_t LastLevelCacheBytes() {
  return std::max({Sysconf(_SC_LEVEL3_CACHE_SIZE), Sysconf(_SC_LEVEL2_CACHE_SIZE), Sysconf(_SC_LEVEL1_DCACHE_SIZE)});
}

// The process's system options (aclSysParamOpt), 0 until set. Nothing here computes differently
// for them: every kernel is deterministic (and ops-nn's aclnnMseLossBackward is by default).
std::atomic<int64_t>* SysParamOpts() {
  static std::atomic<int64_t> options[ACL_OPT_ENABLE_KERNEL_EARLY_START + 1] = {};
  return options;
}

// The options the process-level functions take (CANN's acl layer, aclrt_impl/context.cpp).
aclError CheckSysParamOpt(const char* api, int option) {
  if (option >= ACL_OPT_DETERMINISTIC && option <= ACL_OPT_ENABLE_KERNEL_EARLY_START) return ACL_SUCCESS;
  SetRecentError(std::string(api) + ": opt " + std::to_string(option) +
                 " is invalid; expected ACL_OPT_DETERMINISTIC(0), ACL_OPT_ENABLE_DEBUG_KERNEL(1), "
                 "ACL_OPT_STRONG_CONSISTENCY(2) or ACL_OPT_ENABLE_KERNEL_EARLY_START(3)");
  return ACL_ERROR_INVALID_PARAM;
}

}  // namespace
}  // namespace aclcpu

using aclcpu::Guarded;
using aclcpu::SetRecentError;

extern "C" {

ACL_FUNC_VISIBILITY const char* aclrtGetSocName(void) {
  // Null, as CANN's when it cannot tell, for a name no profile has (aclInit refuses it too).
  const aclcpu::SocProfile* profile = aclcpu::CurrentSocProfile();
  return profile != nullptr ? profile->name : nullptr;
}

ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return Guarded("aclrtSetSysParamOpt", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    const int option = aclcpu::EnumBits(opt);
    if (aclError code = aclcpu::CheckSysParamOpt("aclrtSetSysParamOpt", option)) return code;
    // As CANN's runtime (api_c.cc): the deterministic level is 0 to 3, the other options 0 or 1.
    const int64_t limit = option == ACL_OPT_DETERMINISTIC ? 4 : 2;
    if (value < 0 || value >= limit) {
      SetRecentError("aclrtSetSysParamOpt: value " + std::to_string(value) + " of option " + std::to_string(option) +
                     " is out of range; expected 0 to " + std::to_string(limit - 1));
      return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclcpu::SysParamOpts()[option].store(value);
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return Guarded("aclrtGetSysParamOpt", ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (value == nullptr) {
      SetRecentError("aclrtGetSysParamOpt: value is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    const int option = aclcpu::EnumBits(opt);
    if (aclError code = aclcpu::CheckSysParamOpt("aclrtGetSysParamOpt", option)) return code;
    *value = aclcpu::SysParamOpts()[option].load();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  const char* api = "aclrtGetDeviceInfo";
  return Guarded(api, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (value == nullptr) {
      SetRecentError(std::string(api) + ": value is null");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (aclError code = aclcpu::CheckInitialized(api)) return code;
    if (deviceId != 0) {
      SetRecentError(std::string(api) + ": device id " + std::to_string(deviceId) +
                     " is invalid; the only device is 0");
      return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    const int attr_value = aclcpu::EnumBits(attr);
    switch (attr_value) {
      case ACL_DEV_ATTR_AICPU_CORE_NUM:
      case ACL_DEV_ATTR_AICORE_CORE_NUM:
      case ACL_DEV_ATTR_CUBE_CORE_NUM:
      case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        *value = aclcpu::AvailableCpus();  // every core the kernels may use computes everything
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        *value = aclcpu::Sysconf(_SC_PHYS_PAGES) * aclcpu::Sysconf(_SC_PAGESIZE);
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_L2_CACHE_SIZE:
        *value = aclcpu::LastLevelCacheBytes();
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_SMP_ID:
      case ACL_DEV_ATTR_PHY_CHIP_ID:
      case ACL_DEV_ATTR_IS_VIRTUAL:
        *value = 0;  // one chip, id 0, not split
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_WARP_SIZE:
      case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
      case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
      case ACL_DEV_ATTR_MAX_GRID_DIM_X:
      case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
      case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
      case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
      case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
      case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
      case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
      case ACL_DEV_ATTR_SUPER_POD_ID:
      case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
      case ACL_DEV_ATTR_MAINBOARD_ID:
      case ACL_DEV_ATTR_HD_CONNECT_TYPE:
      case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
      case ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID:
      case ACL_DEV_ATTR_NPU_ARCH:
        SetRecentError(std::string(api) + ": attr " + std::to_string(attr_value) +
                       " describes NPU hardware this host does not have; it is not supported");
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
      default:
        SetRecentError(std::string(api) + ": attr " + std::to_string(attr_value) + " is not an aclrtDevAttr");
        return ACL_ERROR_INVALID_PARAM;
    }
  });
}

}  // extern "C"
