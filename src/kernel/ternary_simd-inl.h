// Per-target SIMD loops for "ternary" elementwise kernels: out = narrow(Dag(a, b, c, scalar)),
// where a, b, c are FLOAT / FLOAT16 / BF16 operands widened to float32 and c may be a single value.
// Included once per Highway target by an operator's kernel file (see HWY_TARGET_INCLUDE there);
// the operator supplies only its Dag, written against the abstract Ops below.
//
// Conversions are exact on every target: x86 targets with F16C use the hardware's FLOAT16
// conversions (round-to-nearest-even); elsewhere, and for BF16 everywhere, our own integer
// versions (Highway 1.0.3's emulated FLOAT16 conversions truncate and mishandle inf/NaN, and its
// BF16 demotion truncates).

#if defined(ACLNN_CPU_KERNEL_TERNARY_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_KERNEL_TERNARY_SIMD_INL_H_
#undef ACLNN_CPU_KERNEL_TERNARY_SIMD_INL_H_
#else
#define ACLNN_CPU_KERNEL_TERNARY_SIMD_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <type_traits>

#include "kernel/dtype.h"
#include "kernel/elementwise.h"
#include "kernel/float_convert.h"
#include "kernel/ternary.h"
#include "kernel/vector_ops.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using D16 = hn::Rebind<uint16_t, DF>;  // 16-bit lanes, as many as DF has
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using V16 = hn::Vec<D16>;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kNativeFloat16 = true;  // F16C
#else
constexpr bool kNativeFloat16 = false;
#endif

// ---- conversions ------------------------------------------------------------------------------

HWY_INLINE VF Float16ToFloat(V16 half) {
  const DF df;
  if (kNativeFloat16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::BitCast(dh, half));
  }
  const DU du;
  const DI di;
  const VU bits = hn::PromoteTo(du, half);
  const VU sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u)));
  const VU exponent = hn::And(hn::ShiftRight<10>(bits), hn::Set(du, 0x1fu));
  const VU mantissa = hn::And(bits, hn::Set(du, 0x3ffu));
  const VU normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 112u))), hn::ShiftLeft<13>(mantissa));
  const VU special = hn::Or(hn::Set(du, 0x7f800000u), hn::ShiftLeft<13>(mantissa));  // inf, NaN
  // Subnormal: mantissa * 2^-24, exact in float32.
  const VF subnormal = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)), hn::Set(df, 5.9604644775390625e-8f));
  VU magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), hn::BitCast(du, subnormal), normal);
  magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1fu)), special, magnitude);
  return hn::BitCast(df, hn::Or(sign, magnitude));
}

HWY_INLINE VF BFloat16ToFloat(V16 bf16) {
  const DU du;
  return hn::BitCast(DF(), hn::ShiftLeft<16>(hn::PromoteTo(du, bf16)));
}

// Packs 32-bit lanes holding 16-bit values into 16-bit lanes.
HWY_INLINE V16 Pack16(VU values) { return hn::DemoteTo(D16(), hn::BitCast(DI(), values)); }

HWY_INLINE V16 FloatToFloat16(VF value) {
  if (kNativeFloat16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::BitCast(D16(), hn::DemoteTo(dh, value));
  }
  const DF df;
  const DU du;
  const DI di;
  const VU bits = hn::BitCast(du, value);
  const VU sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u));
  const VU magnitude = hn::And(bits, hn::Set(du, 0x7fffffffu));
  const hn::Vec<DI> signed_magnitude = hn::BitCast(di, magnitude);  // compares as signed: < 2^31
  // Normal halves: rebias the exponent, round to nearest even at bit 13.
  const VU rebased = hn::Sub(magnitude, hn::Set(du, 0x38000000u));
  const VU odd = hn::And(hn::ShiftRight<13>(rebased), hn::Set(du, 1u));
  VU result = hn::ShiftRight<13>(hn::Add(rebased, hn::Add(hn::Set(du, 0xfffu), odd)));
  // Subnormal halves: adding 0.5f leaves units of 2^-24 in the low bits, rounded by the FPU to
  // nearest even; a carry into 0x400 is the smallest normal, as wanted.
  const VF half = hn::Set(df, 0.5f);
  const VU subnormal = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, magnitude), half)), hn::BitCast(du, half));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Lt(signed_magnitude, hn::Set(di, 0x38800000))), subnormal, result);
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x477fefff))), hn::Set(du, 0x7c00u),
                          result);  // >= 65520 rounds to inf
  const VU nan = hn::Or(hn::Set(du, 0x7e00u), hn::And(hn::ShiftRight<13>(magnitude), hn::Set(du, 0x3ffu)));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x7f800000))), nan, result);
  return Pack16(hn::Or(result, sign));
}

HWY_INLINE V16 FloatToBFloat16(VF value) {
  const DU du;
  const DI di;
  const VU bits = hn::BitCast(du, value);
  const VU odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  VU result = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), odd)));
  const hn::Vec<DI> signed_magnitude = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7fffffffu)));
  const VU nan = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x40u));
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x7f800000))), nan, result);
  return Pack16(result);
}

// ---- loads and stores of whole vectors --------------------------------------------------------

template <typename T>
HWY_INLINE VF LoadWidenVector(const char* p) {
  if constexpr (sizeof(T) == 4) {
    return hn::LoadU(DF(), reinterpret_cast<const float*>(p));
  } else {
    const V16 bits = hn::LoadU(D16(), reinterpret_cast<const uint16_t*>(p));
    if constexpr (std::is_same<T, Float16>::value) {
      return Float16ToFloat(bits);
    } else {
      return BFloat16ToFloat(bits);
    }
  }
}

template <typename T>
HWY_INLINE auto NarrowVector(VF value) {
  if constexpr (std::is_same<T, float>::value) {
    return value;
  } else if constexpr (std::is_same<T, Float16>::value) {
    return FloatToFloat16(value);
  } else {
    return FloatToBFloat16(value);
  }
}

// Rounds to TCompute, converts to TStore, stores; kStream bypasses the cache (p aligned).
template <typename TCompute, typename TStore, bool kStream>
HWY_INLINE void NarrowStoreVector(VF value, char* p) {
  if constexpr (!std::is_same<TCompute, float>::value && !std::is_same<TCompute, TStore>::value) {
    // A second rounding step: to TCompute, back to float (exact), then to TStore.
    const V16 narrowed = NarrowVector<TCompute>(value);
    value = std::is_same<TCompute, Float16>::value ? Float16ToFloat(narrowed) : BFloat16ToFloat(narrowed);
  }
  const auto stored = NarrowVector<TStore>(value);
  if constexpr (sizeof(TStore) == 4) {
    if (kStream) {
      hn::Stream(stored, DF(), reinterpret_cast<float*>(p));
    } else {
      hn::StoreU(stored, DF(), reinterpret_cast<float*>(p));
    }
  } else {
    if (kStream) {
      hn::Stream(stored, D16(), reinterpret_cast<uint16_t*>(p));
    } else {
      hn::StoreU(stored, D16(), reinterpret_cast<uint16_t*>(p));
    }
  }
}

// ---- the abstract ops a Dag is written with ---------------------------------------------------

struct VectorOps {
  using V = VF;
  static HWY_INLINE V Sub(V a, V b) { return hn::Sub(a, b); }
  static HWY_INLINE V Add(V a, V b) { return hn::Add(a, b); }
  static HWY_INLINE V Mul(V a, V b) { return hn::Mul(a, b); }
};

struct ScalarOps {
  using V = float;
  static HWY_INLINE V Sub(V a, V b) { return a - b; }
  static HWY_INLINE V Add(V a, V b) { return a + b; }
  static HWY_INLINE V Mul(V a, V b) { return a * b; }
};

// ---- the loops ---------------------------------------------------------------------------------

// One element through the Dag, with the same rounding steps as the vector path.
template <class Dag, typename T, typename TStore>
HWY_INLINE void TernaryElement(const TernaryContext& c, const char* a, const char* b, float g, char* out) {
  const float r = Dag::template Apply<ScalarOps>(Widen(LoadElement<T>(a)), Widen(LoadElement<T>(b)), g, c.scalar);
  StoreElement(out, NarrowCast<T, TStore>(r));
}

// Any strides: gather each operand's block into float buffers, compute, scatter.
template <class Dag, typename T, typename TStore, bool kScalarC>
void TernaryStrided(const TernaryContext& c, int64_t n, char* const* ptrs, const int64_t* strides) {
  constexpr int kOut = kScalarC ? 2 : 3;
  HWY_ALIGN float a[kBlock], b[kBlock], g[kBlock];
  const DF df;
  const size_t lanes = hn::Lanes(df);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    LoadWiden<T>(ptrs[0] + start * strides[0], strides[0], m, a);
    LoadWiden<T>(ptrs[1] + start * strides[1], strides[1], m, b);
    if (kScalarC) {
      for (int64_t k = 0; k < m; ++k) g[k] = c.c_value;
    } else {
      LoadWiden<T>(ptrs[2] + start * strides[2], strides[2], m, g);
    }
    const VF scalar = hn::Set(df, c.scalar);
    int64_t k = 0;
    for (; k + static_cast<int64_t>(lanes) <= m; k += lanes) {
      hn::Store(Dag::template Apply<VectorOps>(hn::Load(df, a + k), hn::Load(df, b + k), hn::Load(df, g + k), scalar),
                df, a + k);
    }
    for (; k < m; ++k) a[k] = Dag::template Apply<ScalarOps>(a[k], b[k], g[k], c.scalar);
    NarrowStore<T, TStore>(a, m, ptrs[kOut] + start * strides[kOut], strides[kOut]);
  }
}

// The inner loop for one run. The fast path: each input contiguous or one repeated value (stride
// 0), out contiguous; whole vectors in registers from load to store.
template <class Dag, typename T, typename TStore, bool kScalarC, bool kStream>
void TernaryLoop(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
  const TernaryContext& c = *static_cast<const TernaryContext*>(context);
  constexpr int kOut = kScalarC ? 2 : 3;
  constexpr int64_t kIn = sizeof(T), kStore = sizeof(TStore);
  const bool a_repeats = strides[0] == 0, b_repeats = strides[1] == 0;
  const bool c_repeats = kScalarC || strides[2] == 0;
  const bool fast = (a_repeats || strides[0] == kIn) && (b_repeats || strides[1] == kIn) &&
                    (c_repeats || strides[2] == kIn) && strides[kOut] == kStore;
  if (!fast) {
    TernaryStrided<Dag, T, TStore, kScalarC>(c, n, ptrs, strides);
    return;
  }
  const char* pa = ptrs[0];
  const char* pb = ptrs[1];
  const char* pc = kScalarC ? nullptr : ptrs[2];
  char* out = ptrs[kOut];
  const float g_value = kScalarC ? c.c_value : Widen(LoadElement<T>(pc));
  const DF df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const VF scalar = hn::Set(df, c.scalar);
  const VF a_value = hn::Set(df, Widen(LoadElement<T>(pa)));
  const VF b_value = hn::Set(df, Widen(LoadElement<T>(pb)));
  const VF g_splat = hn::Set(df, g_value);
  const int64_t step_a = a_repeats ? 0 : kIn, step_b = b_repeats ? 0 : kIn;
  int64_t i = 0;
  auto element = [&](int64_t k) {
    const float g = c_repeats ? g_value : Widen(LoadElement<T>(pc + k * kIn));
    TernaryElement<Dag, T, TStore>(c, pa + k * step_a, pb + k * step_b, g, out + k * kStore);
  };
  if (kStream) {  // streaming stores need aligned addresses: single elements up to the boundary
    const uintptr_t alignment = static_cast<uintptr_t>(lanes * kStore);
    for (; i < n && reinterpret_cast<uintptr_t>(out + i * kStore) % alignment != 0; ++i) element(i);
  }
  for (; i + lanes <= n; i += lanes) {
    const VF a = a_repeats ? a_value : LoadWidenVector<T>(pa + i * kIn);
    const VF b = b_repeats ? b_value : LoadWidenVector<T>(pb + i * kIn);
    const VF g = c_repeats ? g_splat : LoadWidenVector<T>(pc + i * kIn);
    NarrowStoreVector<T, TStore, kStream>(Dag::template Apply<VectorOps>(a, b, g, scalar), out + i * kStore);
  }
  for (; i < n; ++i) element(i);
  if (kStream) hwy::FlushStream();  // order this thread's streaming stores before the launch ends
}

template <class Dag, typename T, typename TStore>
InnerLoop PickTernary(bool scalar_c, bool stream) {
  if (scalar_c) {
    return stream ? &TernaryLoop<Dag, T, TStore, true, true> : &TernaryLoop<Dag, T, TStore, true, false>;
  }
  return stream ? &TernaryLoop<Dag, T, TStore, false, true> : &TernaryLoop<Dag, T, TStore, false, false>;
}

template <class Dag, typename T>
InnerLoop PickTernary(DType store, bool scalar_c, bool stream) {
  switch (store) {
    case DType::kFloat32:
      return PickTernary<Dag, T, float>(scalar_c, stream);
    case DType::kFloat16:
      return PickTernary<Dag, T, Float16>(scalar_c, stream);
    default:
      return PickTernary<Dag, T, BFloat16>(scalar_c, stream);
  }
}

// This target's inner loop for a Dag: inputs of `dtype`, out stored as `store`; c a single value
// from TernaryContext::c_value when scalar_c; streaming (non-temporal) stores when stream.
template <class Dag>
InnerLoop TernaryLoopFor(DType dtype, DType store, bool scalar_c, bool stream) {
  switch (dtype) {
    case DType::kFloat32:
      return PickTernary<Dag, float>(store, scalar_c, stream);
    case DType::kFloat16:
      return PickTernary<Dag, Float16>(store, scalar_c, stream);
    default:
      return PickTernary<Dag, BFloat16>(store, scalar_c, stream);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_KERNEL_TERNARY_SIMD_INL_H_
