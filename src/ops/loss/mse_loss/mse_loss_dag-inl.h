// MseLoss's per-element computation as a graph of vector steps, written once with Highway ops on
// a tag d: d = predict - label; l = d * d. (The reduction over l is the engine's.)
#if defined(ACLNN_CPU_OPS_MSE_LOSS_DAG_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_OPS_MSE_LOSS_DAG_INL_H_
#undef ACLNN_CPU_OPS_MSE_LOSS_DAG_INL_H_
#else
#define ACLNN_CPU_OPS_MSE_LOSS_DAG_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace mse_loss {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Inputs in the plan's order: predict, label; no scalar.
struct MseLossDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D /*d*/, V predict, V label) {
    const V difference = hn::Sub(predict, label);
    return hn::Mul(difference, difference);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_OPS_MSE_LOSS_DAG_INL_H_
