// The golden's description of an NPU (golden::Npu) from the runtime's SoC profile: the one place
// where programs that run the API (tests, the case runner, the fuzzer) tell the golden which
// kernels the runtime's SoC reaches. The golden library itself knows nothing of the runtime.
#ifndef ACLNN_CPU_GOLDEN_NPU_OF_SOC_H_
#define ACLNN_CPU_GOLDEN_NPU_OF_SOC_H_

#include "golden/golden_common.h"
#include "runtime/runtime_internal.h"

namespace golden {

inline Npu NpuOf(const aclcpu::SocProfile& soc) {
  Npu npu;
  switch (soc.family) {
    case aclcpu::SocFamily::kAscend910B:
      npu.family = Npu::Family::k910B;
      break;
    case aclcpu::SocFamily::kAscend910_93:
      npu.family = Npu::Family::k910_93;
      break;
    case aclcpu::SocFamily::kAscend950:
      npu.family = Npu::Family::k950;
      break;
    case aclcpu::SocFamily::kAscend310P:
      npu.family = Npu::Family::k310P;
      break;
  }
  npu.vector_cores = soc.vector_cores;
  npu.ub_bytes = soc.ub_bytes;
  return npu;
}

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_NPU_OF_SOC_H_
