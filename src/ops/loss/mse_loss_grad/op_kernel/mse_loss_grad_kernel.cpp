// The kernel: MseLossGradDag run by the engine's elementwise loops, compiled for every SIMD target
// Highway knows and chosen at run time; the tiling's key picks the variant.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/mse_loss_grad_kernel.cpp"
#include "op_kernel/mse_loss_grad_kernel.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernel/elementwise_simd-inl.h"
#include "op_kernel/mse_loss_grad_dag-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace mse_loss_grad {
namespace HWY_NAMESPACE {

// predict, label and dout share the dtype, which is also the compute dtype.
kernel::InnerLoop LoopFor(kernel::DType dtype, kernel::DType store, bool stream, uint32_t layout) {
  return kernel::VisitDType(dtype, [store, stream, layout](auto type) {
    using T = decltype(type);
    return kernel::HWY_NAMESPACE::ElementwiseLoopFor<MseLossGradDag, T, T, T, T>(store, stream, layout);
  });
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstring>

namespace aclcpu {
namespace mse_loss_grad {

HWY_EXPORT(LoopFor);
HWY_EXPORT(TargetName);

const char* ActiveKernelTarget() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

kernel::InnerLoop SelectKernel(const KernelKey& key) {
  return HWY_DYNAMIC_DISPATCH(LoopFor)(key.dtype, key.store_dtype, key.stream_stores, key.layout);
}

void RunKernel(const TilingData& tiling, kernel::InnerLoop loop, const char* predict, const char* label,
               const char* dout, char* y, kernel::ParallelRunner& runner) {
  if (tiling.plan.numel == 0) return;
  const kernel::ElementwiseContext context{tiling.cof};
  // A single dout value is read before any element of y is written (y may cover it).
  alignas(8) char dout_value[8] = {};
  if (tiling.key.dout_is_scalar) {
    std::memcpy(dout_value, dout, static_cast<size_t>(kernel::ElementSize(tiling.key.dtype)));
    dout = dout_value;
  }
  char* bases[kOperandCount];
  bases[kPredict] = const_cast<char*>(predict);
  bases[kLabel] = const_cast<char*>(label);
  bases[kDout] = const_cast<char*>(dout);
  bases[kY] = y;
  kernel::RunElementwise(tiling.plan, bases, loop, &context, runner, tiling.threads);
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
#endif  // HWY_ONCE
