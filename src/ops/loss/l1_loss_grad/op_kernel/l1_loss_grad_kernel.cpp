// The kernel: L1LossGradDag run by the engine's elementwise loops (kernel/elementwise_op.h runs
// them), compiled for every SIMD target Highway knows and chosen at run time; the key picks the
// variant.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/l1_loss_grad_kernel.cpp"
#include "op_kernel/l1_loss_grad_kernel.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernel/elementwise_simd-inl.h"
#include "op_kernel/l1_loss_grad_dag-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace l1_loss_grad {
namespace HWY_NAMESPACE {

// grads, predict and label share the dtype, which is also the compute dtype.
kernel::InnerLoop LoopFor(kernel::DType dtype, kernel::DType store, bool stream, uint32_t layout) {
  return kernel::VisitDType(dtype, [store, stream, layout](auto type) {
    using T = decltype(type);
    return kernel::HWY_NAMESPACE::ElementwiseLoopFor<L1LossGradDag, T, T, T, T>(store, stream, layout);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace l1_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclcpu {
namespace l1_loss_grad {

HWY_EXPORT(LoopFor);

kernel::InnerLoop SelectKernel(const KernelKey& key) {
  return HWY_DYNAMIC_DISPATCH(LoopFor)(key.dtype, key.store_dtype, key.stream_stores, key.layout);
}

}  // namespace l1_loss_grad
}  // namespace aclcpu
#endif  // HWY_ONCE
