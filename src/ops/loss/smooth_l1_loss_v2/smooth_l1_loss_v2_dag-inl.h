// SmoothL1LossV2's Dag, in float32 (a 16-bit input widened exactly first), in the order of ops-nn's
// op_kernel/arch35/smooth_l1_loss_v2_dag.h: d = predict - label; a = |d|; quadratic = (d * (d * 0.5))
// * multiply; linear = a + adds; y = a < sigma ? quadratic : linear (a strict compare: a NaN takes
// the linear side). The reduce template adds these values for a mean or sum. Included in each SIMD
// target's namespace by the generated kernel file.
struct SmoothL1LossV2Dag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V sigma, V multiply, V adds, V predict, V label) {
    const V difference = hn::Sub(predict, label);
    const V magnitude = hn::Abs(difference);
    const V quadratic = hn::Mul(hn::Mul(difference, hn::Mul(difference, hn::Set(d, 0.5f))), multiply);
    const V linear = hn::Add(magnitude, adds);
    return hn::IfThenElse(hn::Lt(magnitude, sigma), quadratic, linear);
  }
};
