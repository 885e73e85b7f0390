// LpLoss's golden (docs/semantics.md, "L1Loss and SmoothL1Loss"): per element of the broadcast of
// predict and label, in float32, |predict - label|. The declaration's [reduce] says how they are
// stored or added (golden_reduce.h): ops-nn's arch35 kernel (atvoss's ReduceSch) on 950 and at the
// kernel level, ours elsewhere (CANN's TBE kernel's order is not public).
#include <cmath>

#include "golden/golden_op.h"

namespace golden {
namespace lp_loss {
void Values(const Call& call, int64_t begin, int64_t end, float* values) {
  EachElement<2>(call, begin, end, values, [](const std::array<float, 2>& x) { return std::fabs(x[0] - x[1]); });
}

}  // namespace lp_loss
}  // namespace golden
