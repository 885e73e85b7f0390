// MseLossGrad's tiling: checks the kernel's inputs, computes the coefficient, picks the schedule
// and splits the work over threads and cache-sized tiles.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_

#include <cstdint>
#include <string>

#include "kernel/elementwise.h"
#include "kernel/tensor_view.h"

namespace aclcpu {
namespace mse_loss_grad {

// The kernel's own numbering of the reduction string (not the aclnn API's 0 none, 1 mean, 2 sum).
enum class TilingReduction : uint32_t { kNone = 0, kSum = 1, kMean = 2 };
// False for a string that is not none, sum or mean.
bool ReductionFromString(const std::string& text, TilingReduction* reduction);

enum class ScheduleMode : uint32_t {
  kContiguous = 0,  // one flat run: every operand contiguous (or dout a single value)
  kBroadcast = 1,   // the general N-d loop with strides and broadcast dims
  kBlocked = 2,     // an input read across its layout (e.g. transposed): blocks, staged inputs
};

// The platform facts tiling depends on; tests pin them.
struct TilingPlatform {
  int threads = 1;
  int64_t l2_bytes = 1 << 20;
  int64_t llc_bytes = 32 << 20;
};

struct TilingInput {
  kernel::TensorView predict, label, dout, y;           // y: shape and strides as stored; dtype must be predict's
  kernel::DType store_dtype = kernel::DType::kFloat32;  // y as written after the fused cast (y.dtype: none)
  std::string reduction = "mean";
  TilingPlatform platform;
};

struct TilingData {
  kernel::DType dtype = kernel::DType::kFloat32;        // predict, label, dout, y
  kernel::DType store_dtype = kernel::DType::kFloat32;  // what the store step writes
  bool dout_is_scalar = false;
  float cof = 2.0f;
  ScheduleMode mode = ScheduleMode::kBroadcast;
  kernel::ElementwisePlan plan;  // operands: predict, label, [dout unless scalar], y
  int threads = 1;
  bool stream_stores = false;  // y larger than the last-level cache: non-temporal stores
  uint64_t tiling_key = 0;
};

// Below this many elements a launch stays on one thread. Measured (FLOAT, phase one + launch +
// synchronize, 2 threads against 1 on the 2-core AVX-512 host): 8K elements 4.6 us against 3.8;
// 16K even (4.7); 24K 3.9 against 4.3; 48K 5.2 against 6.4.
constexpr int64_t kParallelGrain = 24576;

// Fills *data, or returns false with *error naming what is wrong.
bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error);

// The key of one kernel variant: (schedule mode, dout is scalar, dtype, store dtype).
uint64_t TilingKey(ScheduleMode mode, bool dout_is_scalar, kernel::DType dtype, kernel::DType store_dtype);

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
