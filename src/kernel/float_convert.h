// Exact widening of FLOAT16 / BF16 to float32 and round-to-nearest-even narrowing back, by bit
// manipulation, so the results do not depend on the host's conversion instructions.
#ifndef ACLNN_CPU_KERNEL_FLOAT_CONVERT_H_
#define ACLNN_CPU_KERNEL_FLOAT_CONVERT_H_

#include <cstdint>
#include <cstring>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "dtype.h"

namespace aclcpu {
namespace kernel {

// Storage types: 16 raw bits each, never arithmetic.
struct Float16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// Whether the CPU narrows float32 to BF16 itself, asked once at load: x86's AVX512-BF16
// (VCVTNEPS2BF16), aarch64's FEAT_BF16 in Advanced SIMD (BFCVTN) and in SVE (BFCVT; Linux reports
// the two apart: HWCAP2_BF16, HWCAP2_SVEBF16). Plain flags, not functions: the kernels' loops read
// them per vector, and a call there would spill every vector register.
#if defined(__x86_64__) || defined(__i386__)
inline const bool kCpuConvertsToBFloat16 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16") != 0;
}();
#elif defined(__aarch64__) && defined(__linux__)
inline const bool kCpuConvertsToBFloat16 = (getauxval(AT_HWCAP2) & (1u << 14)) != 0;  // HWCAP2_BF16
inline const bool kSveConvertsToBFloat16 = (getauxval(AT_HWCAP2) & (1u << 12)) != 0;  // HWCAP2_SVEBF16
#else
constexpr bool kCpuConvertsToBFloat16 = false;
constexpr bool kSveConvertsToBFloat16 = false;
#endif

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float BitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float Float16BitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal (or zero): mantissa * 2^-24, exact in float32.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return BitsToFloat(sign | FloatBits(magnitude));
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// Keeps `kept` after dropping its low `dropped` bits, rounding to nearest, ties to even.
inline uint32_t RoundShiftRightEven(uint32_t value, int dropped) {
  const uint32_t kept = value >> dropped;
  const uint32_t remainder = value & ((1u << dropped) - 1u);
  const uint32_t halfway = 1u << (dropped - 1);
  return kept + ((remainder > halfway || (remainder == halfway && (kept & 1u))) ? 1u : 0u);
}

inline uint16_t FloatToFloat16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: quiet, keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 and inf
  if (magnitude >= 0x38800000u) {                                              // normal half
    return static_cast<uint16_t>(sign | RoundShiftRightEven(magnitude - 0x38000000u, 13));
  }
  if (magnitude <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to zero
  // Subnormal half: count units of 2^-24; a carry into 0x400 is the smallest normal, as wanted.
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const int dropped = 126 - static_cast<int>(magnitude >> 23);
  return static_cast<uint16_t>(sign | RoundShiftRightEven(mantissa, dropped));
}

inline float BFloat16BitsToFloat(uint16_t bf16) { return BitsToFloat(static_cast<uint32_t>(bf16) << 16); }

inline uint16_t FloatToBFloat16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// Uniform load/store of one element of any engine type as float32.
inline float Widen(float value) { return value; }
inline float Widen(Float16 value) { return Float16BitsToFloat(value.bits); }
inline float Widen(BFloat16 value) { return BFloat16BitsToFloat(value.bits); }

template <typename T>
T Narrow(float value);
template <>
inline float Narrow<float>(float value) {
  return value;
}
template <>
inline Float16 Narrow<Float16>(float value) {
  return Float16{FloatToFloat16Bits(value)};
}
template <>
inline BFloat16 Narrow<BFloat16>(float value) {
  return BFloat16{FloatToBFloat16Bits(value)};
}

// Calls f(T{}) with the storage type T of dtype (float, Float16, BFloat16) and returns its result:
// how run-time dtypes pick compile-time kernels.
template <class F>
decltype(auto) VisitDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat16:
      return f(Float16{});
    case DType::kBFloat16:
      return f(BFloat16{});
  }
  return f(float{});  // not reached: every DType is a case above
}

// One element of dtype at p, widened to float32 / rounded from float32 and stored at p.
inline float LoadAsFloat(DType dtype, const char* p) {
  return VisitDType(dtype, [p](auto type) {
    decltype(type) value;
    std::memcpy(&value, p, sizeof value);
    return Widen(value);
  });
}
inline void StoreFromFloat(DType dtype, float value, char* p) {
  VisitDType(dtype, [value, p](auto type) {
    const auto narrowed = Narrow<decltype(type)>(value);
    std::memcpy(p, &narrowed, sizeof narrowed);
  });
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_FLOAT_CONVERT_H_
