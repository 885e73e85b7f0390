// Per-target SIMD loops of elementwise kernels: out = store(Dag(scalar, in_0, ..., in_N-1)), where
// each input is a FLOAT / FLOAT16 / BF16 operand widened to float32, the Dag's result is rounded to
// the compute dtype and stored as the store dtype. Included once per Highway target by an
// operator's kernel file (see HWY_TARGET_INCLUDE there); the operator supplies only its Dag:
//
//   struct MyDag {
//     template <class D, class V> static HWY_INLINE V Apply(D d, V scalar, V in_0, ...);
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

// One input's value at element i of a run: a vector from contiguous memory, or its one value
// repeated (a broadcast operand, stride 0).
template <typename T, class D>
HWY_INLINE hn::Vec<D> LoadInput(D d, const char* p, int64_t i, bool repeats) {
  return repeats ? hn::Set(d, Widen(LoadElement<T>(p))) : LoadWiden<T>(d, p + i * static_cast<int64_t>(sizeof(T)));
}

template <class Dag, typename TCompute, typename TStore, bool kStream, typename... TIn>
struct ElementwiseKernel {
  static constexpr int kInputs = static_cast<int>(sizeof...(TIn));
  using DF = hn::ScalableTag<float>;
  using D1 = hn::CappedTag<float, 1>;

  // The engine's InnerLoop: n elements; ptrs[0..kInputs) the inputs, ptrs[kInputs] the output.
  static void Loop(const void* context, int64_t n, char* const* ptrs, const int64_t* strides) {
    Run(*static_cast<const ElementwiseContext*>(context), n, ptrs, strides, std::index_sequence_for<TIn...>{});
  }

 private:
  template <size_t... I>
  static void Run(const ElementwiseContext& c, int64_t n, char* const* ptrs, const int64_t* strides,
                  std::index_sequence<I...> inputs) {
    constexpr int64_t kStore = sizeof(TStore);
    const bool fast = ((strides[I] == 0 || strides[I] == static_cast<int64_t>(sizeof(TIn))) && ... && true) &&
                      strides[kInputs] == kStore;
    if (!fast) {
      Strided(c, n, ptrs, strides, inputs);
      return;
    }
    const bool repeats[kInputs + 1] = {(strides[I] == 0)..., false};
    char* out = ptrs[kInputs];
    const DF d;
    const D1 d1;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto scalar = hn::Set(d, c.scalar);
    const auto scalar1 = hn::Set(d1, c.scalar);
    int64_t i = 0;
    const auto one = [&](int64_t k) {
      const auto value = Dag::Apply(d1, scalar1, LoadInput<TIn>(d1, ptrs[I], k, repeats[I])...);
      NarrowStore<TCompute, TStore, false>(d1, value, out + k * kStore);
    };
    if (kStream) {  // streaming stores need aligned addresses: single elements up to the boundary
      const uintptr_t alignment = static_cast<uintptr_t>(lanes * kStore);
      for (; i < n && reinterpret_cast<uintptr_t>(out + i * kStore) % alignment != 0; ++i) one(i);
    }
    for (; i + lanes <= n; i += lanes) {
      const auto value = Dag::Apply(d, scalar, LoadInput<TIn>(d, ptrs[I], i, repeats[I])...);
      NarrowStore<TCompute, TStore, kStream>(d, value, out + i * kStore);
    }
    for (; i < n; ++i) one(i);
    if (kStream) hwy::FlushStream();  // order this thread's streaming stores before the launch ends
  }

  // Any strides: gather each input's block into a float buffer, compute, scatter.
  template <size_t... I>
  static void Strided(const ElementwiseContext& c, int64_t n, char* const* ptrs, const int64_t* strides,
                      std::index_sequence<I...>) {
    HWY_ALIGN float in[kInputs][kBlock];
    HWY_ALIGN float result[kBlock];
    const DF d;
    const D1 d1;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto scalar = hn::Set(d, c.scalar);
    const auto scalar1 = hn::Set(d1, c.scalar);
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      (::aclcpu::kernel::LoadWiden<TIn>(ptrs[I] + start * strides[I], strides[I], m, in[I]), ...);
      int64_t k = 0;
      for (; k + lanes <= m; k += lanes) {
        hn::Store(Dag::Apply(d, scalar, hn::Load(d, in[I] + k)...), d, result + k);
      }
      for (; k < m; ++k) hn::StoreU(Dag::Apply(d1, scalar1, hn::LoadU(d1, in[I] + k)...), d1, result + k);
      ::aclcpu::kernel::NarrowStore<TCompute, TStore>(result, m, ptrs[kInputs] + start * strides[kInputs],
                                                      strides[kInputs]);
    }
  }
};

// The inner loop for a Dag over inputs of types TIn..., rounded to TCompute and stored as the
// run-time store dtype, with or without streaming stores.
template <class Dag, typename TCompute, typename... TIn>
InnerLoop ElementwiseLoopFor(DType store, bool stream) {
  return VisitDType(store, [stream](auto store_type) -> InnerLoop {
    using TStore = decltype(store_type);
    return stream ? &ElementwiseKernel<Dag, TCompute, TStore, true, TIn...>::Loop
                  : &ElementwiseKernel<Dag, TCompute, TStore, false, TIn...>::Loop;
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_KERNEL_ELEMENTWISE_SIMD_INL_H_
