// MseLossGrad's computation as a graph of vector steps, written against abstract Ops (a SIMD
// vector per target, or a single float for tails): d = predict - label; d = d * cof; y = d * dout.
// Defined once per Highway target (hence the toggle guard), like the engine loops that run it.
#if defined(ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_
#undef ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_
#else
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace mse_loss_grad {
namespace HWY_NAMESPACE {

struct MseLossGradDag {
  template <class Ops, class V>
  static HWY_INLINE V Apply(V predict, V label, V dout, V cof) {
    const V difference = Ops::Sub(predict, label);
    const V scaled = Ops::Mul(difference, cof);
    return Ops::Mul(scaled, dout);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_
