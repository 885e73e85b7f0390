// The NPU orders' vector loops (npu_reduce.h), compiled for every SIMD target and chosen at run
// time. Each is a sequence of float32 additions of given pairs: the vector width changes which
// pairs are added at once, never which pairs are added, so every target gives the same bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/npu_reduce_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>

#include "kernel/npu_reduce.h"

HWY_BEFORE_NAMESPACE();
namespace aclcpu {
namespace kernel {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// to[i] = a[i] + b[i], i < n; to may be a (never b shifted below it). Four vectors at a time: the
// loop's own instructions are a large part of a small call's fold.
HWY_INLINE void AddRows(float* to, const float* a, const float* b, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto v0 = hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i));
    const auto v1 = hn::Add(hn::LoadU(d, a + i + lanes), hn::LoadU(d, b + i + lanes));
    const auto v2 = hn::Add(hn::LoadU(d, a + i + 2 * lanes), hn::LoadU(d, b + i + 2 * lanes));
    const auto v3 = hn::Add(hn::LoadU(d, a + i + 3 * lanes), hn::LoadU(d, b + i + 3 * lanes));
    hn::StoreU(v0, d, to + i);
    hn::StoreU(v1, d, to + i + lanes);
    hn::StoreU(v2, d, to + i + 2 * lanes);
    hn::StoreU(v3, d, to + i + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, to + i);
  for (; i < n; ++i) to[i] = a[i] + b[i];
}

// s[i] = s[i] + s[off + i] for i < n - off, then n = off, while n > 8 (off = 8 * ceil(n / 16)).
// The two halves never overlap (off >= n - off), so the order within a step is free.
void BisectFoldTarget(float* s, int64_t n) {
  while (n > 8) {
    const int64_t off = (n + 15) >> 4 << 3;
    AddRows(s, s, s + off, n - off);
    n = off;
  }
}

// to[i] = a[i] + b[i], i < n.
void AddTarget(float* to, const float* a, const float* b, int64_t n) { AddRows(to, a, b, n); }

// s[i] = s[2i] + s[2i + 1] for i < n / 2 (n even). A block's pairs are loaded before its sums are
// stored, and a block's sums land at or before the pairs it read.
void PairSumsTarget(float* s, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t half = n / 2;
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // (one lane: no pairs within a vector)
  for (; i + lanes <= half; i += lanes) {
    const auto low = hn::LoadU(d, s + 2 * i);
    const auto high = hn::LoadU(d, s + 2 * i + lanes);
    hn::StoreU(hn::Add(hn::ConcatEven(d, high, low), hn::ConcatOdd(d, high, low)), d, s + i);
  }
#else
  (void)lanes;
#endif
  for (; i < half; ++i) s[i] = s[2 * i] + s[2 * i + 1];
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace kernel
}  // namespace aclcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclcpu {
namespace kernel {

HWY_EXPORT(BisectFoldTarget);
HWY_EXPORT(PairSumsTarget);
HWY_EXPORT(AddTarget);
HWY_EXPORT(TargetName);

void BisectFoldSimd(float* values, int64_t n) { HWY_DYNAMIC_DISPATCH(BisectFoldTarget)(values, n); }
void PairSumsSimd(float* values, int64_t n) { HWY_DYNAMIC_DISPATCH(PairSumsTarget)(values, n); }
void AddSimd(float* to, const float* a, const float* b, int64_t n) { HWY_DYNAMIC_DISPATCH(AddTarget)(to, a, b, n); }
const char* NpuReduceTarget() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace kernel
}  // namespace aclcpu
#endif  // HWY_ONCE
