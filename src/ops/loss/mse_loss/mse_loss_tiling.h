// MseLoss's tiling: checks the kernel's inputs, plans the elementwise loss (reduction none) or the
// reduction (mean, sum) in the order of the kernel the call reaches, and names the kernel it needs
// in a typed key.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "kernel/elementwise.h"
#include "kernel/npu_reduce.h"
#include "kernel/reduce.h"
#include "kernel/schedule.h"
#include "kernel/tensor_view.h"
#include "kernel/tiling_key.h"
#include "ops/loss/mse_loss/mse_loss_declared.h"

namespace aclcpu {
namespace mse_loss {

// The plan's operands are the declaration's (mse_loss_declared.h: kPredict, kLabel, kY); a
// reduction's values follow the inputs.

// The order a mean or sum adds the losses in: that of the kernel the call reaches on the NPU
// (the aclnn layer's routing decides, op_api), or our own where that kernel's order is not public.
enum class ReduceOrder : uint32_t {
  kFloat64 = 0,       // ours (kernel/reduce.h): MseLoss V1 on A2/A3 and 310P, aclnnMseLossOut's ReduceMean / ReduceSum
  kMseLossV2A2 = 1,   // MSELossV2 on A2/A3 and 310P (ops-nn loss/mse_loss_v2, arch22)
  kMseLossV2950 = 2,  // MSELossV2 on Ascend950 (arch35)
  kMseLoss950 = 3     // MseLoss V1 on Ascend950 (loss/mse_loss, arch35): atvoss's ReduceSch
};

// What MSELossV2's tiling reads of the SoC (PlatformAscendC::GetCoreNumAiv, GetCoreMemSize(UB)).
struct SocFacts {
  int64_t vector_cores = 40;
  int64_t ub_bytes = 196352;
};

// MSELossV2's split of n values (compute dtype `dtype`) over cores and tiles, as its tilings
// compute it (loss/mse_loss_v2/op_host/arch22/mse_loss_v2_tiling.cpp, reductions mean and sum;
// .../arch35/mse_loss_v2_tiling_arch35.cpp). False when the UB leaves no tile.
bool MseLossV2SplitA2(int64_t n, kernel::DType dtype, const SocFacts& soc, kernel::NpuSplit* split);
kernel::NpuSplit MseLossV2Split950(int64_t n, const SocFacts& soc);

struct TilingInput {
  kernel::TensorView predict, label;
  kernel::TensorView y;  // shape and strides as stored; dtype: the compute dtype (infer dtype)
  kernel::DType store_dtype = kernel::DType::kFloat32;  // y as written after the fused cast
  loss::Reduction reduction = loss::Reduction::kMean;
  // The aclnn layer's own steps, fused into this kernel: inputs broadcast to each other and cast
  // to the compute dtype (their promotion). Off: the kernel as the graph drives it, one shape and
  // one dtype for predict and label.
  bool fused = false;
  // MseLossOut's mean and sum (fused only): the "none" loss in the compute dtype, then a sum over
  // dim 0 (y: the broadcast shape without dim 0).
  bool reduce_axis0 = false;
  bool y_aliases_inputs = false;              // y shares bytes with predict or label
  // Mean and sum over all elements. The kernel level runs MseLoss V1 as 950 runs it (its arch35
  // kernel, the one ops-nn has), on the process's SoC when it is a 950 part, else Ascend950PR_9599.
  ReduceOrder order = ReduceOrder::kFloat64;
  SocFacts soc;
  kernel::Platform platform;
};

enum class ReduceMode : uint32_t { kNone = 0, kAll = 1, kAxis0 = 2 };

// The kernel variant, in the order of KernelKey::Fields(). (ops-nn's arch35 MseLoss declares the
// reduce template's schedule, Reduction and Dtype: loss/mse_loss/op_kernel/arch35/
// mse_loss_tiling_key.h; the CPU kernel's variants are these.)
struct KernelKey {
  ReduceMode reduce = ReduceMode::kNone;
  ReduceOrder order = ReduceOrder::kFloat64;                     // reduce kAll
  kernel::ScheduleMode mode = kernel::ScheduleMode::kBroadcast;  // reduce none
  bool stream_stores = false;                                    // reduce none
  uint32_t layout = 0;        // the inner loop's layout (kernel/elementwise.h): the losses' or the map's
  bool round_losses = false;  // each loss rounded to the compute dtype before it is summed
  bool empty = false;         // no elements: y gets NaN (mean) or 0 (sum), or nothing (none)
  kernel::DType predict = kernel::DType::kFloat32, label = kernel::DType::kFloat32;
  kernel::DType compute = kernel::DType::kFloat32, store = kernel::DType::kFloat32;

  static const std::vector<kernel::KeyFieldOf<KernelKey>>& Fields();  // in order
  // ops-nn's numeric form, for logs and tests (kernel/tiling_key.h); and as text.
  uint64_t Encode() const { return kernel::EncodeTilingKey(*this); }
  std::string ToString() const { return kernel::TilingKeyText(*this); }
};

struct TilingData {
  // The plan of the kernel the key names: the elementwise loss (reduce none: predict, label, y),
  // our reduction (order kFloat64) or an NPU kernel's (the other orders).
  std::variant<kernel::ElementwisePlan, kernel::ReducePlan, kernel::NpuReducePlan> plan;
  KernelKey key;
  bool mean = false;
  int threads = 1;
  uint64_t workspace_bytes = 0;
};

// Fills *data, or returns false with *error naming what is wrong (*data then unspecified).
bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error);

// y's shape, given the losses' shape: the same for reduction none; for a mean or sum over dim 0
// (aclnnMseLossOut), without that dim (a 0-d one has none to drop); else 0-d.
kernel::Shape ReducedShape(const kernel::Shape& losses, loss::Reduction reduction, bool over_dim0);

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_TILING_H_
