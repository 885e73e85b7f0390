// The kernel: MseLossDag run by the engine's elementwise loops (reduction none) or as the map of
// its reduction (mean, sum), compiled for every SIMD target Highway knows and chosen at run time;
// the tiling's key picks the variant.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/loss/mse_loss/mse_loss_kernel.cpp"
#include "ops/loss/mse_loss/mse_loss_kernel.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <type_traits>

#include "kernel/elementwise_simd-inl.h"
#include "ops/loss/mse_loss/mse_loss_dag-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace mse_loss {
namespace HWY_NAMESPACE {

// Calls f(TPredict{}, TLabel{}, TPromoted{}): predict and label of their own dtypes, computed in
// their promotion (the same dtype, or FLOAT).
template <class F>
kernel::InnerLoop WithInputTypes(kernel::DType predict, kernel::DType label, F f) {
  return kernel::VisitDType(predict, [&](auto predict_type) {
    return kernel::VisitDType(label, [&](auto label_type) {
      using TPredict = decltype(predict_type);
      using TLabel = decltype(label_type);
      return f(predict_type, label_type, std::conditional_t<std::is_same<TPredict, TLabel>::value, TPredict, float>{});
    });
  });
}

// Reduction none: the losses rounded to the promotion, stored as store, for runs of `layout`.
kernel::InnerLoop LossLoopFor(kernel::DType predict, kernel::DType label, kernel::DType store, bool stream,
                              uint32_t layout) {
  return WithInputTypes(predict, label, [&](auto p, auto l, auto promoted) {
    using TPromoted = decltype(promoted);
    return kernel::HWY_NAMESPACE::ElementwiseLoopFor<MseLossDag, 0, TPromoted, decltype(p), decltype(l)>(store, stream,
                                                                                                         layout);
  });
}

// A reduction's map: float32 losses, or (round_losses) each rounded to the promotion first, for
// runs of `layout`.
kernel::InnerLoop MapLoopFor(kernel::DType predict, kernel::DType label, bool round_losses, uint32_t layout) {
  return WithInputTypes(predict, label, [&](auto p, auto l, auto promoted) -> kernel::InnerLoop {
    using TPredict = decltype(p);
    using TLabel = decltype(l);
    using kernel::HWY_NAMESPACE::LayoutLoops;
    return round_losses ? LayoutLoops<MseLossDag, 0, decltype(promoted), float, false, TPredict, TLabel>::For(layout)
                        : LayoutLoops<MseLossDag, 0, float, float, false, TPredict, TLabel>::For(layout);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace mse_loss
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <limits>

#include "kernel/float_convert.h"

namespace aclcpu {
namespace mse_loss {

HWY_EXPORT(LossLoopFor);
HWY_EXPORT(MapLoopFor);

kernel::InnerLoop SelectKernel(const KernelKey& key) {
  if (key.empty) return nullptr;
  if (key.reduce == ReduceMode::kNone) {
    return HWY_DYNAMIC_DISPATCH(LossLoopFor)(key.predict, key.label, key.store, key.stream_stores, key.layout);
  }
  return HWY_DYNAMIC_DISPATCH(MapLoopFor)(key.predict, key.label, key.round_losses, key.layout);
}

void RunKernel(const TilingData& tiling, kernel::InnerLoop loop, const char* predict, const char* label, char* y,
               char* workspace, kernel::ParallelRunner& runner) {
  const KernelKey& key = tiling.key;
  if (key.empty) {  // a reduction of no elements: the mean of nothing is NaN, the sum 0
    if (key.reduce == ReduceMode::kAll) {
      const float value = tiling.mean ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
      kernel::StoreFromFloat(key.store, value, y);
    }
    return;
  }
  const kernel::ElementwiseContext context;
  char* bases[kernel::kMaxOperands] = {const_cast<char*>(predict), const_cast<char*>(label), y};
  if (key.reduce == ReduceMode::kNone) {
    kernel::RunElementwise(std::get<kernel::ElementwisePlan>(tiling.plan), bases, loop, &context, runner,
                           tiling.threads);
    return;
  }
  switch (key.order) {
    case ReduceOrder::kFloat64:
      kernel::RunReduction(std::get<kernel::ReducePlan>(tiling.plan), bases, loop, &context, key.compute, key.store, y,
                           workspace, runner);
      return;
    case ReduceOrder::kMseLossV2A2:
    case ReduceOrder::kMseLossV2950:
    case ReduceOrder::kMseLoss950:
      kernel::RunNpuReduction(std::get<kernel::NpuReducePlan>(tiling.plan), bases, loop, &context, key.compute,
                              key.store, y, runner);
      return;
  }
}

}  // namespace mse_loss
}  // namespace aclcpu
#endif  // HWY_ONCE
