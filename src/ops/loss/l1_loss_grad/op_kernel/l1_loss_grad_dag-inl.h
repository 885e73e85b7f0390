// L1LossGrad's computation as a graph of vector steps, written once with Highway ops on a tag d
// (full vectors for the body, one lane for tails), in float32 (a 16-bit input is widened exactly,
// so comparing the widened values is comparing the inputs): scaled = grads * scale; y = sign *
// scaled. Defined once per Highway target (hence the toggle guard), like the engine loops that run it.
#if defined(ACLNN_CPU_OPS_L1_LOSS_GRAD_DAG_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_OPS_L1_LOSS_GRAD_DAG_INL_H_
#undef ACLNN_CPU_OPS_L1_LOSS_GRAD_DAG_INL_H_
#else
#define ACLNN_CPU_OPS_L1_LOSS_GRAD_DAG_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace l1_loss_grad {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Inputs in the plan's order: grads, predict, label; scalar 0 is the mean's scale, scalar 1 the
// sign of an unordered pair (a NaN in predict or label): 0 in ops-nn's arch35 Dag (two selects on
// Compare GT and Compare LT, l1_loss_grad_dag.h), -1 in the TBE kernel (vcmpsel "gt" 1 : -1, then
// "ne" keeps it).
struct L1LossGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V scale, V unordered_sign, V grads, V predict, V label) {
    const V scaled = hn::Mul(grads, scale);
    // Three ordered compares decide every case, a pair that is none of equal, greater or less
    // being unordered (a NaN in it): one compare and no mask arithmetic fewer than testing each
    // input for NaN.
    V sign = hn::IfThenElse(hn::Lt(predict, label), hn::Set(d, -1.0f), unordered_sign);
    sign = hn::IfThenElse(hn::Gt(predict, label), hn::Set(d, 1.0f), sign);
    sign = hn::IfThenZeroElse(hn::Eq(predict, label), sign);
    return hn::Mul(sign, scaled);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace l1_loss_grad
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_OPS_L1_LOSS_GRAD_DAG_INL_H_
