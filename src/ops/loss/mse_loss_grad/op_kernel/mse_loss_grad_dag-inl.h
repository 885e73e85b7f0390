// MseLossGrad's computation as a graph of vector steps, written once with Highway ops on a tag d
// (full vectors for the body, one lane for tails): d = predict - label; d = d * cof; y = d * dout.
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

namespace hn = hwy::HWY_NAMESPACE;

// Inputs in the plan's order: predict, label, dout; scalar 0 is cof.
struct MseLossGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D /*d*/, V cof, V /*unused*/, V predict, V label, V dout) {
    const V difference = hn::Sub(predict, label);
    const V scaled = hn::Mul(difference, cof);
    return hn::Mul(scaled, dout);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_DAG_INL_H_
