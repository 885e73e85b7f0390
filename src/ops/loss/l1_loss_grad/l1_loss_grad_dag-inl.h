// L1LossGrad's Dag: scaled = grads * scale; y = sign(predict, label) * scaled, in float32 (a 16-bit
// input is widened exactly, so comparing the widened values is comparing the inputs). Scalar
// unordered_sign is the sign of an unordered pair (a NaN in predict or label): 0 in ops-nn's arch35
// Dag (two selects on Compare GT and Compare LT, op_kernel/arch35/l1_loss_grad_dag.h), -1 in the
// TBE kernel (vcmpsel "gt" 1 : -1, then "ne" keeps it). Included in each SIMD target's namespace
// by the generated kernel file.
struct L1LossGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V scale, V unordered_sign, V grads, V predict, V label) {
    const V scaled = hn::Mul(grads, scale);
    // Three ordered compares decide every case, a pair that is none of equal, greater or less
    // being unordered: one compare and no mask arithmetic fewer than testing each input for NaN.
    V sign = hn::IfThenElse(hn::Lt(predict, label), hn::Set(d, -1.0f), unordered_sign);
    sign = hn::IfThenElse(hn::Gt(predict, label), hn::Set(d, 1.0f), sign);
    sign = hn::IfThenZeroElse(hn::Eq(predict, label), sign);
    return hn::Mul(sign, scaled);
  }
};
