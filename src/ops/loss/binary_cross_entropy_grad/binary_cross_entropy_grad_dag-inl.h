// BinaryCrossEntropyGrad's Dags, in float32 (a 16-bit input is widened exactly), with inputs x, y,
// grad_output and weight (ones when absent) and the scalar reduce_mean_cof (1 unless the mean).
// Included in each SIMD target's namespace by the generated kernel file.
//
// arch35 (ops-nn's op_kernel/arch35/binary_cross_entropy_grad_dag.h): grad_output * (x - y) divided
// by max((1 - x) * x, 1e-12), times weight, times the coefficient. Its Dags without a weight or
// without the coefficient leave out a product by 1, which changes no value.
struct BinaryCrossEntropyGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V reduce_mean_cof, V x, V y, V grad_output, V weight) {
    const V one_minus_x = hn::Sub(hn::Set(d, 1.0f), x);
    const V guarded = hn::Max(hn::Mul(one_minus_x, x), hn::Set(d, 1e-12f));
    const V quotient = hn::Div(hn::Mul(grad_output, hn::Sub(x, y)), guarded);
    return hn::Mul(hn::Mul(quotient, weight), reduce_mean_cof);
  }
};

// TBE (impl/dynamic/binary_cross_entropy_grad.py, binary_cross_entropy_grad_compute): (x - y) divided
// by max(x * (-x + 1), 1e-12), then times weight, then times grad_output, then the coefficient.
struct BinaryCrossEntropyGradTbeDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V reduce_mean_cof, V x, V y, V grad_output, V weight) {
    const V one_minus_x = hn::Add(hn::Neg(x), hn::Set(d, 1.0f));
    const V guarded = hn::Max(hn::Mul(x, one_minus_x), hn::Set(d, 1e-12f));
    const V quotient = hn::Div(hn::Sub(x, y), guarded);
    return hn::Mul(hn::Mul(hn::Mul(weight, quotient), grad_output), reduce_mean_cof);
  }
};
