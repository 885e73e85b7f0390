// MseLossGrad's tiling: checks the kernel's inputs, computes the coefficient, schedules the
// elementwise plan and names the kernel it needs in a typed key.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_

#include <array>
#include <cstdint>
#include <string>

#include "kernel/elementwise.h"
#include "kernel/schedule.h"
#include "kernel/tensor_view.h"
#include "kernel/tiling_key.h"
#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss_grad {

using ScheduleMode = kernel::ScheduleMode;
using TilingPlatform = kernel::Platform;
using kernel::kParallelGrain;

// The plan's operands, in this order.
enum Operand : int { kPredict = 0, kLabel = 1, kDout = 2, kY = 3, kOperandCount = 4 };

// How the mean's coefficient is computed: by the kernel the call reaches (the aclnn layer's
// routing decides, op_api). Every other step of an element is the same in both kernels.
enum class CofRule : uint32_t {
  // MseLossGrad (V1), ops-nn's arch35 tiling (loss/mse_loss_grad/op_host/arch35/
  // mse_loss_grad_tiling_arch35.cpp): (float)(2.0 / (double)numel(predict)). Also ours for the
  // legacy TBE MseLossGrad of A2/A3 and 310P, whose rule is not public.
  kDoubleQuotient = 0,
  // MseLossGradV2 (loss/mse_loss_grad_v2/op_host/mse_loss_grad_v2_tiling.cpp): 1.0f / R * 2.0f,
  // R the float32 product of predict's dims in order, rounded at each step.
  kFloatProduct = 1,
};

struct TilingInput {
  kernel::TensorView predict, label, dout, y;           // y: shape and strides as stored; dtype must be predict's
  kernel::DType store_dtype = kernel::DType::kFloat32;  // y as written after the fused cast (y.dtype: none)
  loss::Reduction reduction = loss::Reduction::kMean;
  CofRule cof_rule = CofRule::kDoubleQuotient;
  TilingPlatform platform;
};

// The kernel variant, in the order of KernelKey::Table(): ops-nn's two fields first
// (loss/mse_loss_grad/op_kernel/arch35/mse_loss_grad_tiling_key.h: schMode, doutIsScalar), then
// what the CPU kernel adds.
struct KernelKey {
  ScheduleMode mode = ScheduleMode::kBroadcast;
  bool dout_is_scalar = false;               // dout's one value is read once per launch, before anything is written
  bool stream_stores = false;                // y larger than the last-level cache: non-temporal stores
  uint32_t layout = kernel::kStridedLayout;  // the inner loop: which inputs repeat a value, or strided
  kernel::DType dtype = kernel::DType::kFloat32;  // predict, label, dout, y
  kernel::DType store_dtype = kernel::DType::kFloat32;

  static const kernel::KeyTable& Table();
  std::array<uint32_t, 6> Values() const;  // the fields as numbers, in the table's order
  // ops-nn's numeric form, for logs and tests (kernel/tiling_key.h); and as text.
  uint64_t Encode() const { return kernel::EncodeTilingKey(*this); }
  std::string ToString() const { return kernel::TilingKeyText(*this); }
};

struct TilingData {
  KernelKey key;
  float cof = 2.0f;
  kernel::ElementwisePlan plan;  // operands in Operand order
  int threads = 1;
};

// Fills *data, or returns false with *error naming what is wrong (*data then unspecified).
bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error);

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
