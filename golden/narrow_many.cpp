// NarrowInPlace: golden_common.cpp's rounding to a 16-bit dtype (NarrowTo), the same float64 steps
// in the same order, done a vector of elements at a time on each SIMD target. Written from that
// function alone, not from the kernels' conversions.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "golden/narrow_many.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>

#include "golden/golden_common.h"

HWY_BEFORE_NAMESPACE();
namespace golden {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Each step of NarrowTo for the 16-bit format f, in lanes.
template <const detail::Format& f>
void NarrowLanes(uint32_t* bits, int64_t count) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int64_t, decltype(dd)> di;
  const hn::Rebind<uint64_t, decltype(dd)> du;
  const hn::Rebind<uint32_t, decltype(dd)> d32;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  constexpr int64_t kAllOnes = (int64_t{1} << f.exponent_bits) - 1;  // the exponent field of inf and NaN
  const auto inf_bits = hn::Set(di, kAllOnes << f.mantissa_bits);
  const auto quiet_nan = hn::Set(di, (kAllOnes << f.mantissa_bits) | (int64_t{1} << (f.mantissa_bits - 1)));
  const auto two_52 = hn::Set(dd, 0x1.0p52);
  const auto full = hn::Set(di, int64_t{1} << f.precision);
  const auto implicit_one = hn::Set(di, int64_t{1} << (f.precision - 1));
  const auto min_exponent = hn::Set(di, f.min_exponent);
  const auto one = hn::Set(di, 1);
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    const auto word = hn::BitCast(di, hn::PromoteTo(du, hn::LoadU(d32, bits + i)));
    const auto value = hn::PromoteTo(dd, hn::BitCast(df, hn::LoadU(d32, bits + i)));
    const auto field32 = hn::And(word, hn::Set(di, 0x7fffffff));  // value's magnitude, as bits
    const auto sign = hn::ShiftLeft<f.mantissa_bits + f.exponent_bits>(hn::ShiftRight<31>(word));
    // e, then q: the exponent of one unit in the last place of the result.
    const auto e = hn::Sub(hn::ShiftRight<23>(field32), hn::Set(di, 126));
    const auto e_less_one = hn::Sub(e, one);
    auto q = hn::Sub(hn::IfThenElse(hn::Lt(e_less_one, min_exponent), min_exponent, e_less_one),
                     hn::Set(di, f.precision - 1));
    // 2^-q, made from its bits (q is within [-133, 121] here), scales exactly; adding 2^52 rounds
    // to an integer, half to even, which the sum's low mantissa bits then hold.
    const auto power = hn::BitCast(dd, hn::ShiftLeft<52>(hn::Sub(hn::Set(di, 1023), q)));
    const auto sum = hn::Add(hn::Mul(hn::Abs(value), power), two_52);
    auto units = hn::And(hn::BitCast(di, sum), hn::Set(di, (int64_t{1} << 52) - 1));
    const auto carried = hn::Eq(units, full);  // rounding up carried into the next binade
    units = hn::IfThenElse(carried, hn::ShiftRight<1>(units), units);
    q = hn::IfThenElse(carried, hn::Add(q, one), q);
    const auto field = hn::Add(q, hn::Set(di, f.precision - 1 + f.exponent_bias));
    auto result = hn::Or(sign, hn::Or(hn::ShiftLeft<f.mantissa_bits>(field), hn::Sub(units, implicit_one)));
    result = hn::IfThenElse(hn::Gt(field, hn::Set(di, kAllOnes - 1)), hn::Or(sign, inf_bits), result);  // overflow
    result = hn::IfThenElse(hn::Lt(units, implicit_one), hn::Or(sign, units), result);  // subnormal, or zero
    result = hn::IfThenElse(hn::Eq(field32, hn::Zero(di)), sign, result);
    result = hn::IfThenElse(hn::Eq(field32, hn::Set(di, 0x7f800000)), hn::Or(sign, inf_bits), result);
    result = hn::IfThenElse(hn::Gt(field32, hn::Set(di, 0x7f800000)), quiet_nan, result);
    hn::StoreU(hn::TruncateTo(d32, hn::BitCast(du, result)), d32, bits + i);
  }
  for (; i < count; ++i) {
    float value;
    std::memcpy(&value, bits + i, sizeof value);
    bits[i] = Narrow(&f == &detail::kFloat16Format ? Dtype::kFloat16 : Dtype::kBFloat16, value);
  }
}

void NarrowInPlaceTarget(Dtype dtype, uint32_t* bits, int64_t count) {
  if (dtype == Dtype::kFloat16) {
    NarrowLanes<detail::kFloat16Format>(bits, count);
  } else if (dtype == Dtype::kBFloat16) {
    NarrowLanes<detail::kBFloat16Format>(bits, count);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace golden
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace golden {

HWY_EXPORT(NarrowInPlaceTarget);

void NarrowInPlace(Dtype dtype, uint32_t* bits, int64_t count) {
  HWY_DYNAMIC_DISPATCH(NarrowInPlaceTarget)(dtype, bits, count);
}

}  // namespace golden
#endif  // HWY_ONCE
