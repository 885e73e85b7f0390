// MseLoss's tiling: checks the kernel's inputs, plans the elementwise loss (reduction none) or the
// deterministic reduction (mean, sum), and encodes the kernel it needs in the tiling key.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_

#include <cstdint>
#include <string>

#include "kernel/elementwise.h"
#include "kernel/reduce.h"
#include "kernel/schedule.h"
#include "kernel/tensor_view.h"

namespace aclcpu {
namespace mse_loss {

// The kernel's own numbering of the reduction string (ops-nn's: none 0, sum 1, mean 2).
enum class TilingReduction : uint32_t { kNone = 0, kSum = 1, kMean = 2 };
bool ReductionFromString(const std::string& text, TilingReduction* reduction);

// The plan's operands, in this order (a reduction's values follow the inputs).
enum Operand : int { kPredict = 0, kLabel = 1, kY = 2 };

struct TilingInput {
  kernel::TensorView predict, label;
  kernel::TensorView y;  // shape and strides as stored; dtype: the compute dtype (infer dtype)
  kernel::DType store_dtype = kernel::DType::kFloat32;  // y as written after the fused cast
  std::string reduction = "mean";
  // The aclnn layer's own steps, fused into this kernel: inputs broadcast to each other and cast
  // to the compute dtype (their promotion). Off: the kernel as the graph drives it, one shape and
  // one dtype for predict and label.
  bool fused = false;
  // MseLossOut's mean and sum (fused only): the "none" loss in the compute dtype, then a sum over
  // dim 0 (y: the broadcast shape without dim 0).
  bool reduce_axis0 = false;
  bool y_aliases_inputs = false;  // y shares bytes with predict or label
  kernel::Platform platform;
};

enum class ReduceMode : uint32_t { kNone = 0, kAll = 1, kAxis0 = 2 };

// The kernel variant: what the tiling key encodes and the kernel decodes.
struct KernelKey {
  ReduceMode reduce = ReduceMode::kNone;
  kernel::ScheduleMode mode = kernel::ScheduleMode::kBroadcast;  // reduce none
  bool stream_stores = false;                                    // reduce none
  bool round_losses = false;  // each loss rounded to the compute dtype before it is summed
  bool empty = false;         // no elements: y gets NaN (mean) or 0 (sum), or nothing (none)
  kernel::DType predict = kernel::DType::kFloat32, label = kernel::DType::kFloat32;
  kernel::DType compute = kernel::DType::kFloat32, store = kernel::DType::kFloat32;

  // Decimal digits, most significant first: reduce, mode, stream_stores, round_losses, empty,
  // predict, label, compute, store.
  uint64_t Encode() const;
  static bool Decode(uint64_t key, KernelKey* out);  // false for a value that encodes no variant
};

struct TilingData {
  kernel::ElementwisePlan plan;  // reduce none: predict, label, y
  kernel::ReducePlan reduce;     // mean, sum
  bool mean = false;
  int threads = 1;
  uint64_t workspace_bytes = 0;
  uint64_t tiling_key = 0;  // KernelKey::Encode(): the kernel RunKernel runs
};

// Fills *data, or returns false with *error naming what is wrong (*data then unspecified).
bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error);

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_
