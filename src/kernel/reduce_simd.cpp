// The reduction's per-target parts: the float64 column accumulation and the cast of the float32
// results to the output, compiled for every SIMD target and chosen at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/reduce_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernel/elementwise_simd-inl.h"
#include "kernel/reduce.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// acc[k] += each value of column k, row after row. Vectors run across columns, so every column
// still adds its values in row order: the sums do not depend on the vector width.
void AccumulateColumnsTarget(const float* values, int64_t n, int64_t width, double* acc) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  const int64_t rows = n / width;
  int64_t k = 0;
  if (rows > 0) {
    for (; k + lanes <= width; k += lanes) {
      auto sum = hn::LoadU(dd, acc + k);
      for (int64_t r = 0; r < rows; ++r) sum = hn::Add(sum, hn::PromoteTo(dd, hn::LoadU(df, values + r * width + k)));
      hn::StoreU(sum, dd, acc + k);
    }
    for (; k < width; ++k) {
      double sum = acc[k];
      for (int64_t r = 0; r < rows; ++r) sum += static_cast<double>(values[r * width + k]);
      acc[k] = sum;
    }
  }
  for (int64_t j = rows * width; j < n; ++j) acc[j - rows * width] += static_cast<double>(values[j]);  // a short row
}

struct IdentityDag {
  template <class D, class V>
  static HWY_INLINE V Apply(D /*d*/, V value) {
    return value;
  }
};

// float32 results rounded to compute's dtype, then stored as store's.
InnerLoop CastLoopTarget(DType compute, DType store) {
  return VisitDType(compute, [store](auto compute_type) {
    return VisitDType(store, [](auto store_type) {
      return AnyLayoutLoop<IdentityDag, 0, decltype(compute_type), decltype(store_type), float>();
    });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclcpu {
namespace kernel {

HWY_EXPORT(AccumulateColumnsTarget);
HWY_EXPORT(CastLoopTarget);

void AccumulateColumns(const float* values, int64_t n, int64_t width, double* acc) {
  HWY_DYNAMIC_DISPATCH(AccumulateColumnsTarget)(values, n, width, acc);
}

InnerLoop CastLoop(DType compute, DType store) { return HWY_DYNAMIC_DISPATCH(CastLoopTarget)(compute, store); }

}  // namespace kernel
}  // namespace aclcpu
#endif  // HWY_ONCE
