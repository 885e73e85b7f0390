// SmoothL1LossGradV2's Dags, in float32 (a 16-bit input is widened exactly). Each scalar arrives as
// a vector of its value: sigma, neg_sigma (-sigma), x_factor, reduce_mean_cof. Included in each SIMD
// target's namespace by the generated kernel file.
//
// arch35 (ops-nn's op_kernel/arch35/smooth_l1_loss_grad_v2_dag.h): x = predict - label; three selects
// (1 beyond sigma, -1 below -sigma, x * x_factor -- x_factor invertSigma -- inside, else +0) added
// as (pos + neg) + inside; times dout; times the mean's coefficient. Its two Dags differ only in the
// compares: strict for a dout of many elements, inclusive for one.
template <bool kInclusive>
struct SmoothL1LossGradV2Arch35 {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V sigma, V neg_sigma, V x_factor, V reduce_mean_cof, V predict, V label, V dout) {
    const V x = hn::Sub(predict, label);
    const V inside = hn::Mul(x, x_factor);
    const auto above = kInclusive ? hn::Ge(x, sigma) : hn::Gt(x, sigma);
    const auto below = kInclusive ? hn::Le(x, neg_sigma) : hn::Lt(x, neg_sigma);
    const auto outside = kInclusive ? hn::Ge(hn::Abs(x), sigma) : hn::Gt(hn::Abs(x), sigma);
    const V pos = hn::IfThenElseZero(above, hn::Set(d, 1.0f));
    const V neg = hn::IfThenElseZero(below, hn::Set(d, -1.0f));
    const V slope = hn::Add(hn::Add(pos, neg), hn::IfThenZeroElse(outside, inside));
    return hn::Mul(hn::Mul(slope, dout), reduce_mean_cof);
  }
};
using SmoothL1LossGradV2Dag = SmoothL1LossGradV2Arch35<false>;       // SmoothL1LossGradV2OpDag
using SmoothL1LossGradV2ScalarDag = SmoothL1LossGradV2Arch35<true>;  // SmoothL1LossGradV2OpScalarDag

// TBE (impl/dynamic/smooth_l1_loss_grad_v2.py, smooth_l1_loss_grad_v2_compute): the quotient
// x / (sigma + 1e-6) -- x_factor the divisor -- taken before a NaN x is replaced by 0; -1 where
// x <= -sigma, 1 where x >= sigma, the quotient where |x| < sigma, each else +0, added in that
// order; times dout; times the mean's coefficient (1 for none and sum, which changes no value).
struct SmoothL1LossGradV2TbeDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V sigma, V neg_sigma, V x_factor, V reduce_mean_cof, V predict, V label, V dout) {
    V x = hn::Sub(predict, label);
    const V quotient = hn::Div(x, x_factor);
    x = hn::IfThenElseZero(hn::Eq(x, x), x);
    const V low = hn::IfThenElseZero(hn::Le(x, neg_sigma), hn::Set(d, -1.0f));
    const V high = hn::IfThenElseZero(hn::Ge(x, sigma), hn::Set(d, 1.0f));
    const V inside = hn::IfThenElseZero(hn::Lt(hn::Abs(x), sigma), quotient);
    const V slope = hn::Add(hn::Add(low, high), inside);
    return hn::Mul(hn::Mul(slope, dout), reduce_mean_cof);
  }
};
