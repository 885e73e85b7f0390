// LpLoss's Dag (p = 1): y = |predict - label| in float32, a 16-bit input widened exactly first
// (ops-nn's op_kernel/arch35/lp_loss_dag.h: Cast, Sub, Abs; for a mean or sum the reduce template
// adds these values). Included in each SIMD target's namespace by the generated kernel file.
struct LpLossDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D /*d*/, V predict, V label) {
    return hn::Abs(hn::Sub(predict, label));
  }
};
