// Per-target vector conversions between float32 and the 16-bit types, loads that widen and stores
// that narrow, for any float tag D (full vectors, or one lane for tails). Included once per
// Highway target by the engine's loop headers.
//
// Exact on every target: x86 targets with F16C use the hardware's FLOAT16 conversions
// (round-to-nearest-even); elsewhere, and for BF16, our own integer versions (Highway 1.0.3's
// emulated FLOAT16 conversions truncate and mishandle inf/NaN, and its BF16 demotion truncates) --
// except that BF16 is narrowed with the CPU's own instruction where the target and CPU have one
// (AVX-512 with AVX512-BF16; aarch64 NEON and SVE with FEAT_BF16) and it gives the same bits
// (FloatToBFloat16).

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

// Whether no lane of value is a subnormal float32 (magnitude 1 to 0x7fffff; one unsigned compare
// of magnitude - 1): the vectors the CPU's BF16 narrowing gives our bits for. x86's VCVTNEPS2BF16
// reads a subnormal as zero whatever MXCSR says (Intel SDM, VCVTNEPS2BF16); aarch64's BFCVTN and
// SVE's BFCVT flush one when FPCR.FZ or FPCR.AH is set (Arm ARM, FPConvertBF), as a caller may.
template <class D>
HWY_INLINE bool HasNoSubnormal(D /*d*/, hn::Vec<D> value) {
  const hn::RebindToUnsigned<D> du;
  const auto magnitude = hn::And(hn::BitCast(du, value), hn::Set(du, 0x7fffffffu));
  return hn::AllFalse(du, hn::Lt(hn::Sub(magnitude, hn::Set(du, 1u)), hn::Set(du, 0x7fffffu)));
}

// The CPU's own narrowing of a whole vector to BF16, on the targets whose CPUs may have one (the
// flags in float_convert.h say whether this one does): round to nearest even, a NaN quieted and
// truncated, as our own below (aarch64's under FPCR's defaults, which all our arithmetic assumes).
// Highway 1.0.3 has no target with these instructions, hence each written out.
// CpuNarrowsExactly: whether the instruction gives our bits for value (no subnormal lane).
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
template <class D>
constexpr bool kHasCpuBFloat16 = hn::MaxLanes(D()) == 16;
HWY_INLINE bool CpuConvertsToBFloat16() { return kCpuConvertsToBFloat16; }
// One VFPCLASSPS (AVX512DQ, in both targets) for the subnormal lanes (Intel SDM, VFPCLASSPS: imm8
// bit 5 selects "denormal", of either sign):
// HasNoSubnormal's mask, subtract and compare had their constants rematerialized by GCC 12 in every
// iteration (BF16 64K: 12.4 -> 8.8-9.4 us, docs/performance.md).
template <class D>
HWY_INLINE bool CpuNarrowsExactly(D /*d*/, hn::Vec<D> value) {
  return _mm512_fpclass_ps_mask(value.raw, 0x20) == 0;
}
template <class D>
HWY_INLINE hn::Vec<Half16<D>> CpuBFloat16(hn::Vec<D> value) {
  __m256i narrowed;
  asm("vcvtneps2bf16 %1, %0" : "=v"(narrowed) : "v"(value.raw));
  return hn::Vec<Half16<D>>{narrowed};
}
#elif HWY_ARCH_ARM_A64 && HWY_TARGET == HWY_NEON
template <class D>
constexpr bool kHasCpuBFloat16 = hn::MaxLanes(D()) == 4;
HWY_INLINE bool CpuConvertsToBFloat16() { return kCpuConvertsToBFloat16; }
template <class D>
HWY_INLINE bool CpuNarrowsExactly(D d, hn::Vec<D> value) {
  return HasNoSubnormal(d, value);
}
template <class D>
HWY_INLINE hn::Vec<Half16<D>> CpuBFloat16(hn::Vec<D> value) {
  uint16x4_t narrowed;
  asm(".arch_extension bf16\n\tbfcvtn %0.4h, %1.4s" : "=w"(narrowed) : "w"(value.raw));
  return hn::Vec<Half16<D>>{narrowed};
}
#elif HWY_ARCH_ARM_A64 && \
    (HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128)
// Every lane of the register narrowed into the even halves, then the even halves packed into the
// lower half, where Highway keeps a vector of D's lane count in 16 bits (as its DemoteTo does).
template <class D>
constexpr bool kHasCpuBFloat16 = true;
HWY_INLINE bool CpuConvertsToBFloat16() { return kSveConvertsToBFloat16; }
template <class D>
HWY_INLINE bool CpuNarrowsExactly(D d, hn::Vec<D> value) {
  return HasNoSubnormal(d, value);
}
template <class D>
HWY_INLINE hn::Vec<Half16<D>> CpuBFloat16(hn::Vec<D> value) {
  svuint16_t narrowed;
  asm(".arch_extension bf16\n\tbfcvt %0.h, %1/m, %2.s\n\tuzp1 %0.h, %0.h, %0.h"
      : "=&w"(narrowed)
      : "Upl"(svptrue_b32()), "w"(value));
  return narrowed;
}
#else  // no instruction: declared for FloatToBFloat16's discarded branch, never defined or called
template <class D>
constexpr bool kHasCpuBFloat16 = false;
HWY_INLINE bool CpuConvertsToBFloat16() { return false; }
template <class D>
bool CpuNarrowsExactly(D d, hn::Vec<D> value);
template <class D>
hn::Vec<Half16<D>> CpuBFloat16(hn::Vec<D> value);
#endif

template <class D>
HWY_INLINE hn::Vec<Half16<D>> FloatToBFloat16(D d, hn::Vec<D> value) {
  if constexpr (kHasCpuBFloat16<D>) {
    if (CpuConvertsToBFloat16() && CpuNarrowsExactly(d, value)) return CpuBFloat16<D>(value);
  }
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, value);
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
