// The kernel: MseLossGradDag run by the engine's ternary loops, compiled for every SIMD target
// Highway knows and chosen at run time; the scalar-dout variant reads dout once per launch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/mse_loss_grad_kernel.cpp"
#include "op_kernel/mse_loss_grad_kernel.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernel/ternary_simd-inl.h"
#include "op_kernel/mse_loss_grad_dag-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace mse_loss_grad {
namespace HWY_NAMESPACE {

kernel::InnerLoop PickLoop(kernel::DType dtype, kernel::DType store, bool scalar_dout, bool stream) {
  return kernel::HWY_NAMESPACE::TernaryLoopFor<MseLossGradDag>(dtype, store, scalar_dout, stream);
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernel/ternary.h"

namespace aclcpu {
namespace mse_loss_grad {

HWY_EXPORT(PickLoop);
HWY_EXPORT(TargetName);

const char* ActiveKernelTarget() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

namespace {

float LoadScalar(kernel::DType dtype, const char* p) {
  switch (dtype) {
    case kernel::DType::kFloat32:
      return kernel::LoadElement<float>(p);
    case kernel::DType::kFloat16:
      return kernel::Widen(kernel::LoadElement<kernel::Float16>(p));
    default:
      return kernel::Widen(kernel::LoadElement<kernel::BFloat16>(p));
  }
}

}  // namespace

void RunKernel(const TilingData& tiling, const char* predict, const char* label, const char* dout, char* y,
               kernel::ParallelRunner& runner) {
  if (tiling.plan.numel == 0) return;
  kernel::TernaryContext context;
  context.scalar = tiling.cof;
  char* bases[kernel::kMaxOperands] = {const_cast<char*>(predict), const_cast<char*>(label)};
  if (tiling.dout_is_scalar) {
    context.c_value = LoadScalar(tiling.dtype, dout);  // read before any element of y is written
    bases[2] = y;
  } else {
    bases[2] = const_cast<char*>(dout);
    bases[3] = y;
  }
  const kernel::InnerLoop loop =
      HWY_DYNAMIC_DISPATCH(PickLoop)(tiling.dtype, tiling.store_dtype, tiling.dout_is_scalar, tiling.stream_stores);
  kernel::RunElementwise(tiling.plan, bases, loop, &context, runner, tiling.threads);
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
#endif  // HWY_ONCE
