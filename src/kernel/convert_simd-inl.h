// Per-target vector conversions between float32 and the 16-bit types, loads that widen and stores
// that narrow, for any float tag D (full vectors, or one lane for tails). Included once per
// Highway target by the engine's loop headers.
//
// Exact on every target: x86 targets with F16C use the hardware's FLOAT16 conversions
// (round-to-nearest-even); elsewhere, and for BF16, our own integer versions (Highway 1.0.3's
// emulated FLOAT16 conversions truncate and mishandle inf/NaN, and its BF16 demotion truncates) --
// except that the AVX-512 targets narrow to BF16 with the CPU's own instruction where it has one
// and where it gives the same bits (FloatToBFloat16).

#if defined(ACLNN_CPU_KERNEL_CONVERT_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_KERNEL_CONVERT_SIMD_INL_H_
#undef ACLNN_CPU_KERNEL_CONVERT_SIMD_INL_H_
#else
#define ACLNN_CPU_KERNEL_CONVERT_SIMD_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <type_traits>

#include "kernel/float_convert.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kNativeFloat16 = true;  // F16C
#else
constexpr bool kNativeFloat16 = false;
#endif

template <class D>
using Half16 = hn::Rebind<uint16_t, D>;  // 16-bit lanes, as many as D has

template <class D>
HWY_INLINE hn::Vec<D> Float16ToFloat(D d, hn::Vec<Half16<D>> half) {
  if (kNativeFloat16) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::BitCast(dh, half));
  }
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::PromoteTo(du, half);
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(bits), hn::Set(du, 0x1fu));
  const auto mantissa = hn::And(bits, hn::Set(du, 0x3ffu));
  const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 112u))), hn::ShiftLeft<13>(mantissa));
  const auto special = hn::Or(hn::Set(du, 0x7f800000u), hn::ShiftLeft<13>(mantissa));  // inf, NaN
  // Subnormal: mantissa * 2^-24, exact in float32.
  const auto subnormal = hn::Mul(hn::ConvertTo(d, hn::BitCast(di, mantissa)), hn::Set(d, 5.9604644775390625e-8f));
  auto magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), hn::BitCast(du, subnormal), normal);
  magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1fu)), special, magnitude);
  return hn::BitCast(d, hn::Or(sign, magnitude));
}

template <class D>
HWY_INLINE hn::Vec<D> BFloat16ToFloat(D d, hn::Vec<Half16<D>> bf16) {
  const hn::RebindToUnsigned<D> du;
  return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, bf16)));
}

// The low 16 bits of each 32-bit lane, packed.
template <class D>
HWY_INLINE hn::Vec<Half16<D>> Pack16(hn::Vec<hn::RebindToUnsigned<D>> values) {
  return hn::DemoteTo(Half16<D>(), hn::BitCast(hn::RebindToSigned<D>(), values));
}

template <class D>
HWY_INLINE hn::Vec<Half16<D>> FloatToFloat16(D d, hn::Vec<D> value) {
  if (kNativeFloat16) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::BitCast(Half16<D>(), hn::DemoteTo(dh, value));
  }
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, value);
  const auto sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u));
  const auto magnitude = hn::And(bits, hn::Set(du, 0x7fffffffu));
  const auto signed_magnitude = hn::BitCast(di, magnitude);  // compares as signed: < 2^31
  // Normal halves: rebias the exponent, round to nearest even at bit 13.
  const auto rebased = hn::Sub(magnitude, hn::Set(du, 0x38000000u));
  const auto odd = hn::And(hn::ShiftRight<13>(rebased), hn::Set(du, 1u));
  auto result = hn::ShiftRight<13>(hn::Add(rebased, hn::Add(hn::Set(du, 0xfffu), odd)));
  // Subnormal halves: adding 0.5f leaves units of 2^-24 in the low bits, rounded by the FPU to
  // nearest even; a carry into 0x400 is the smallest normal, as wanted.
  const auto half = hn::Set(d, 0.5f);
  const auto subnormal = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(d, magnitude), half)), hn::BitCast(du, half));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Lt(signed_magnitude, hn::Set(di, 0x38800000))), subnormal, result);
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x477fefff))), hn::Set(du, 0x7c00u),
                          result);  // >= 65520 rounds to inf
  const auto nan = hn::Or(hn::Set(du, 0x7e00u), hn::And(hn::ShiftRight<13>(magnitude), hn::Set(du, 0x3ffu)));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x7f800000))), nan, result);
  return Pack16<D>(hn::Or(result, sign));
}

template <class D>
HWY_INLINE hn::Vec<Half16<D>> FloatToBFloat16(D /*d*/, hn::Vec<D> value) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, value);
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  if constexpr (hn::MaxLanes(D()) == 16) {
    // AVX512-BF16's VCVTNEPS2BF16 rounds to nearest even and quiets a NaN exactly as below, but
    // reads a subnormal input as zero (Intel SDM, VCVTNEPS2BF16): it narrows the vectors that
    // hold no subnormal, one unsigned compare deciding (magnitude - 1 below 0x7fffff: 1 to
    // 0x7fffff). Highway 1.0.3 has no target with it, hence the instruction written out.
    const auto magnitude = hn::And(bits, hn::Set(du, 0x7fffffffu));
    if (kCpuConvertsToBFloat16 &&
        hn::AllFalse(du, hn::Lt(hn::Sub(magnitude, hn::Set(du, 1u)), hn::Set(du, 0x7fffffu)))) {
      __m256i narrowed;
      asm("vcvtneps2bf16 %1, %0" : "=v"(narrowed) : "v"(value.raw));
      return hn::Vec<Half16<D>>{narrowed};
    }
  }
#endif
  const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  auto result = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), odd)));
  const auto signed_magnitude = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7fffffffu)));
  const auto nan = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x40u));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x7f800000))), nan, result);
  return Pack16<D>(result);
}

// Lanes(d) elements of T at p (unaligned), widened to float32.
template <typename T, class D>
HWY_INLINE hn::Vec<D> LoadWiden(D d, const char* p) {
  if constexpr (std::is_same<T, float>::value) {
    return hn::LoadU(d, reinterpret_cast<const float*>(p));
  } else {
    const auto bits = hn::LoadU(Half16<D>(), reinterpret_cast<const uint16_t*>(p));
    if constexpr (std::is_same<T, Float16>::value) {
      return Float16ToFloat(d, bits);
    } else {
      return BFloat16ToFloat(d, bits);
    }
  }
}

// float32 values as T (round-to-nearest-even): the float vector itself, or 16-bit lanes.
template <typename T, class D>
HWY_INLINE auto NarrowTo(D d, hn::Vec<D> value) {
  if constexpr (std::is_same<T, float>::value) {
    return value;
  } else if constexpr (std::is_same<T, Float16>::value) {
    return FloatToFloat16(d, value);
  } else {
    return FloatToBFloat16(d, value);
  }
}

// value rounded to TCompute and back: what a tensor of that dtype would hold.
template <typename TCompute, class D>
HWY_INLINE hn::Vec<D> RoundTo(D d, hn::Vec<D> value) {
  if constexpr (std::is_same<TCompute, float>::value) {
    return value;
  } else if constexpr (std::is_same<TCompute, Float16>::value) {
    return Float16ToFloat(d, FloatToFloat16(d, value));
  } else {
    return BFloat16ToFloat(d, FloatToBFloat16(d, value));
  }
}

// Rounds to TCompute, converts to TStore, stores Lanes(d) elements at p; kStream bypasses the
// cache (p aligned to the vector).
template <typename TCompute, typename TStore, bool kStream, class D>
HWY_INLINE void NarrowStore(D d, hn::Vec<D> value, char* p) {
  if constexpr (!std::is_same<TCompute, TStore>::value) value = RoundTo<TCompute>(d, value);
  const auto stored = NarrowTo<TStore>(d, value);
  if constexpr (sizeof(TStore) == 4) {
    if (kStream) {
      hn::Stream(stored, d, reinterpret_cast<float*>(p));
    } else {
      hn::StoreU(stored, d, reinterpret_cast<float*>(p));
    }
  } else {
    if (kStream) {
      hn::Stream(stored, Half16<D>(), reinterpret_cast<uint16_t*>(p));
    } else {
      hn::StoreU(stored, Half16<D>(), reinterpret_cast<uint16_t*>(p));
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_KERNEL_CONVERT_SIMD_INL_H_
