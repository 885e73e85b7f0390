// Per-target SIMD loops of elementwise kernels: out = store(Dag(scalars..., in_0, ..., in_N-1)),
// where each input is a FLOAT / FLOAT16 / BF16 operand widened to float32, the Dag's result is
// rounded to the compute dtype and stored as the store dtype. Included once per Highway target by
// an operator's kernel file (see HWY_TARGET_INCLUDE there); the operator supplies only its Dag, of
// kScalars scalars (ElementwiseContext's first ones, each set in every lane):
//
//   struct MyDag {
//     template <class D, class V> static HWY_INLINE V Apply(D d, V scalar_0, ..., V in_0, ...);
//   };
//
// written once with Highway ops on the tag d: full vectors for the body, one lane for tails.

#if defined(ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_
#undef ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_
#else
#define ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernel/convert_simd-inl.h"
#include "kernel/elementwise.h"
#include "kernel/float_convert.h"
#include "kernel/vector_ops.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// The kernel of one layout (elementwise.h): kLayout below kStridedLayout runs vectors straight
// through memory, each input either loaded and widened or, when its bit is set, one value widened
// once per run; kStridedLayout gathers and scatters through any strides. No branch on layout
// inside a run.
template <class Dag, int kScalars, typename TCompute, typename TStore, bool kStream, uint32_t kLayout, typename... TIn>
struct ElementwiseKernel {
  static constexpr int kInputs = static_cast<int>(sizeof...(TIn));
  static_assert(kInputs <= kMaxInputs, "the engine's layouts cover kMaxInputs inputs");
  static_assert(kLayout <= kStridedLayout, "a layout of elementwise.h");
  static_assert(kScalars <= kMaxScalars, "ElementwiseContext holds kMaxScalars scalars");
  using DF = hn::ScalableTag<float>;
  using D1 = hn::CappedTag<float, 1>;

  // The engine's InnerLoop: n elements; ptrs[0..kInputs) the inputs, ptrs[kInputs] the output.
  static void Loop(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
    const auto& c = *static_cast<const ElementwiseContext*>(context);
    WithScalars(c, n, ptrs, strides, std::make_index_sequence<static_cast<size_t>(kScalars)>{});
  }

 private:
  // The loops take the scalars as values (in registers, which no store of the loop can change), so
  // that each Set of one is made once, outside the loop.
  template <size_t... S>
  static HWY_INLINE void WithScalars(const ElementwiseContext& c, int64_t n, char* const* ptrs, const int64_t* strides,
                                     std::index_sequence<S...>) {
    if constexpr (kLayout == kStridedLayout) {
      Strided(n, ptrs, strides, std::index_sequence_for<TIn...>{}, c.scalars[S]...);
    } else {
      Straight(n, ptrs, std::index_sequence_for<TIn...>{}, c.scalars[S]...);
    }
  }

  template <size_t kIndex>
  static constexpr bool Repeats() {
    return ((kLayout >> kIndex) & 1u) != 0;
  }

  // Input kIndex at element i of a straight run: its repeated value, or a vector loaded and widened.
  template <size_t kIndex, typename T, class D>
  static HWY_INLINE hn::Vec<D> Input(D d, const char* p, int64_t i, float repeated) {
    if constexpr (Repeats<kIndex>()) {
      return hn::Set(d, repeated);
    } else {
      return LoadWiden<T>(d, p + i * static_cast<int64_t>(sizeof(T)));
    }
  }

  template <size_t kIndex, typename T>
  static HWY_INLINE float RepeatedValue(const char* p) {
    if constexpr (Repeats<kIndex>()) {
      return Widen(LoadElement<T>(p));
    } else {
      return 0.0f;
    }
  }

  template <size_t... I, class... Scalar>
  static HWY_INLINE void Straight(int64_t n, char* const* ptrs, std::index_sequence<I...>, Scalar... scalars) {
    constexpr int64_t kStore = sizeof(TStore);
    const float repeated[kInputs] = {RepeatedValue<I, TIn>(ptrs[I])...};
    // The operands' addresses held in locals: stores through out (a char*) could otherwise change
    // ptrs[], and the compiler would load every address again after each store.
    const char* const in[kInputs] = {ptrs[I]...};
    char* const out = ptrs[kInputs];
    const DF d;
    const D1 d1;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    const auto one = [&](int64_t k) {
      const auto value = Dag::Apply(d1, hn::Set(d1, scalars)..., Input<I, TIn>(d1, in[I], k, repeated[I])...);
      NarrowStore<TCompute, TStore, false>(d1, value, out + k * kStore);
    };
    const auto vector = [&](int64_t k) {
      const auto value = Dag::Apply(d, hn::Set(d, scalars)..., Input<I, TIn>(d, in[I], k, repeated[I])...);
      NarrowStore<TCompute, TStore, kStream>(d, value, out + k * kStore);
    };
    if (kStream) {  // streaming stores need aligned addresses: single elements up to the boundary
      const uintptr_t alignment = static_cast<uintptr_t>(lanes * kStore);
      for (; i < n && reinterpret_cast<uintptr_t>(out + i * kStore) % alignment != 0; ++i) one(i);
    }
    // Two vectors per step: the loop's own count, compare and branch are paid half as often.
    // Every element is computed alone, so the grouping changes no bit.
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      vector(i);
      vector(i + lanes);
    }
    if (i + lanes <= n) {
      vector(i);
      i += lanes;
    }
    for (; i < n; ++i) one(i);
    if (kStream) hwy::FlushStream();  // order this thread's streaming stores before the launch ends
  }

  // Any strides: gather each input's block into a float buffer, compute, scatter.
  template <size_t... I, class... Scalar>
  static HWY_INLINE void Strided(int64_t n, char* const* ptrs, const int64_t* strides, std::index_sequence<I...>,
                                 Scalar... scalars) {
    HWY_ALIGN float in[kInputs][kBlock];
    HWY_ALIGN float result[kBlock];
    const DF d;
    const D1 d1;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      (::aclcpu::kernel::LoadWiden<TIn>(ptrs[I] + start * strides[I], strides[I], m, in[I]), ...);
      int64_t k = 0;
      for (; k + lanes <= m; k += lanes) {
        hn::Store(Dag::Apply(d, hn::Set(d, scalars)..., hn::Load(d, in[I] + k)...), d, result + k);
      }
      for (; k < m; ++k) {
        hn::StoreU(Dag::Apply(d1, hn::Set(d1, scalars)..., hn::LoadU(d1, in[I] + k)...), d1, result + k);
      }
      ::aclcpu::kernel::NarrowStore<TCompute, TStore>(result, m, ptrs[kInputs] + start * strides[kInputs],
                                                      strides[kInputs]);
    }
  }
};

// The inputs a Dag's straight loops may read as one repeated value (bit i: input i): every one,
// unless the Dag says fewer (kRepeatableInputs: an operator's declared `repeatable`, so that only
// the layouts its calls meet are compiled); a run that repeats another one takes the strided loop.
template <class Dag, class = void>
struct RepeatableInputs {
  static constexpr uint32_t kMask = ~0u;
};
template <class Dag>
struct RepeatableInputs<Dag, std::void_t<decltype(Dag::kRepeatableInputs)>> {
  static constexpr uint32_t kMask = Dag::kRepeatableInputs;
};

// The inner loops of a Dag over inputs TIn..., rounded to TCompute and stored as TStore, one per
// layout, indexed by it.
template <class Dag, int kScalars, typename TCompute, typename TStore, bool kStream, typename... TIn>
struct LayoutLoops {
  template <uint32_t kLayout>
  static constexpr InnerLoop LoopAt() {
    if constexpr ((kLayout & ~RepeatableInputs<Dag>::kMask) != 0) {
      return &ElementwiseKernel<Dag, kScalars, TCompute, TStore, false, kStridedLayout, TIn...>::Loop;
    } else {
      return &ElementwiseKernel<Dag, kScalars, TCompute, TStore, kStream, kLayout, TIn...>::Loop;
    }
  }
  template <size_t... kLayout>
  static InnerLoop Pick(uint32_t layout, std::index_sequence<kLayout...>) {
    static constexpr InnerLoop kLoops[] = {LoopAt<static_cast<uint32_t>(kLayout)>()...};
    return kLoops[layout];
  }
  // The loop of a layout: straight ones for the 2^inputs combinations of repeated inputs, the
  // strided one (stream or not, it scatters) above them.
  static InnerLoop For(uint32_t layout) {
    if (layout >= kStridedLayout) {
      return &ElementwiseKernel<Dag, kScalars, TCompute, TStore, false, kStridedLayout, TIn...>::Loop;
    }
    return Pick(layout, std::make_index_sequence<size_t{1} << sizeof...(TIn)>{});
  }
  // A loop that picks the layout of each run from its strides: for plans whose layout was not
  // chosen in phase one (the casts of reductions' results; a branch per run, not per vector).
  static void AnyLayout(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
    constexpr int kInputs = static_cast<int>(sizeof...(TIn));
    const int64_t sizes[] = {static_cast<int64_t>(sizeof(TIn))..., static_cast<int64_t>(sizeof(TStore))};
    For(LayoutOfRun(strides, sizes, kInputs))(context, n, ptrs, strides);
  }
};

// The inner loop for a Dag over inputs of types TIn..., rounded to TCompute and stored as the
// run-time store dtype, with or without streaming stores, for runs of the given layout. A store
// that casts to another dtype has the strided loop only (its schedule says so: ForStoreCast).
template <class Dag, int kScalars, typename TCompute, typename... TIn>
InnerLoop ElementwiseLoopFor(DType store, bool stream, uint32_t layout) {
  return VisitDType(store, [stream, layout](auto store_type) -> InnerLoop {
    using TStore = decltype(store_type);
    if constexpr (!std::is_same_v<TStore, TCompute>) {
      return &ElementwiseKernel<Dag, kScalars, TCompute, TStore, false, kStridedLayout, TIn...>::Loop;
    } else {
      return stream ? LayoutLoops<Dag, kScalars, TCompute, TStore, true, TIn...>::For(layout)
                    : LayoutLoops<Dag, kScalars, TCompute, TStore, false, TIn...>::For(layout);
    }
  });
}

// The same for runs of any layout, picked per run (no streaming stores).
template <class Dag, int kScalars, typename TCompute, typename TStore, typename... TIn>
InnerLoop AnyLayoutLoop() {
  return &LayoutLoops<Dag, kScalars, TCompute, TStore, false, TIn...>::AnyLayout;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_
