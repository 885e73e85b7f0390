// KlDivLossGrad's Dag, in float32 (a 16-bit input is widened exactly), with inputs grad, input (whose
// values no kernel reads: its shape sizes the output) and target, and the scalars log_target and
// half_steps (each 1 or 0) and reduction_cof. Included in each SIMD target's namespace by the
// generated kernel file, after Highway's contrib/math (Exp).
//
// arch35 (ops-nn's op_kernel/arch35/kl_div_loss_grad_dag.h, KDLGLogTargetTrue and KDLGLogTargetFalse)
// and TBE (impl/dynamic/kl_div_loss_grad.py, kl_div_loss_grad_compute) take the same steps: t = target,
// or exp(target) with log_target; (t * grad) * -1; times the coefficient. arch35 computes each in
// float32; the TBE kernel in the input dtype, so for FLOAT16 each step rounds to it (half_steps).

// exp(x) rounded to float32, from Highway's float64 Exp (within one unit of float64's last place), a
// float64 vector at a time. Where that leaves the rounding in doubt -- the float64 value within 8
// units of a float32 halfway point -- or the result is no normal float32 (x outside [-87, 88], or
// NaN), that vector is recomputed a lane at a time by the C library's float64 exp, rounded the same
// way.
template <class D, class V>
HWY_INLINE V ExpToFloat(D d, V x) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // as many float lanes as dd has
  const hn::RebindToSigned<decltype(dd)> di;
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN float lanes[kMaxLanes];
  const size_t count = hn::Lanes(d);
  const size_t step = hn::Lanes(dd);
  hn::Store(x, d, lanes);
  for (size_t i = count; i < step; ++i) lanes[i] = 0.0f;  // a vector narrower than dd's
  for (size_t i = 0; i < count; i += step) {
    const auto wide = hn::PromoteTo(dd, hn::LoadU(df, lanes + i));
    const auto e = hn::Exp(dd, wide);
    // The 29 bits float32 drops from a normal float64, as a distance from the halfway pattern.
    const auto dropped = hn::ConvertTo(dd, hn::And(hn::BitCast(di, e), hn::Set(di, (int64_t{1} << 29) - 1)));
    const auto doubt = hn::Le(hn::Abs(hn::Sub(dropped, hn::Set(dd, 268435456.0))), hn::Set(dd, 8.0));
    const auto in_range = hn::And(hn::Ge(wide, hn::Set(dd, -87.0)), hn::Le(wide, hn::Set(dd, 88.0)));
    if (HWY_LIKELY(hn::AllFalse(dd, doubt) && hn::AllTrue(dd, in_range))) {
      hn::StoreU(hn::DemoteTo(df, e), df, lanes + i);
    } else {
      for (size_t k = i; k < i + step; ++k) lanes[k] = static_cast<float>(std::exp(static_cast<double>(lanes[k])));
    }
  }
  return hn::Load(d, lanes);
}

// v rounded to FLOAT16 (to nearest even), as float32.
template <class D, class V>
HWY_INLINE V RoundToHalf(D d, V v) {
  const hn::Rebind<hwy::float16_t, D> dh;
  return hn::PromoteTo(d, hn::DemoteTo(dh, v));
}

struct KlDivLossGradDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D d, V log_target, V half_steps, V reduction_cof, V grad, V /*input*/, V target) {
    const bool half = hn::GetLane(half_steps) != 0.0f;
    V t = target;
    if (hn::GetLane(log_target) != 0.0f) {
      t = ExpToFloat(d, t);
      if (half) t = RoundToHalf(d, t);
    }
    V negated = hn::Mul(hn::Mul(t, grad), hn::Set(d, -1.0f));
    if (half) negated = RoundToHalf(d, negated);  // the product's rounding; negation is exact
    return hn::Mul(negated, reduction_cof);       // rounded to the compute dtype by the store
  }
};
