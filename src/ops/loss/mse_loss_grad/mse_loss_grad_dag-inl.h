// MseLossGrad's Dag: d = predict - label; d = d * cof; y = d * dout, in float32 (ops-nn's
// op_kernel/arch35/mse_loss_grad_dag.h, and MseLossGradV2's kernel: the same steps). Included in
// each SIMD target's namespace by the generated kernel file.
struct MseLossGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D /*d*/, V cof, V predict, V label, V dout) {
    const V difference = hn::Sub(predict, label);
    const V scaled = hn::Mul(difference, cof);
    return hn::Mul(scaled, dout);
  }
};
