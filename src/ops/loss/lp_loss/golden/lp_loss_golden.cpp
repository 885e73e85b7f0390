// LpLoss's golden (docs/semantics.md, "L1Loss and SmoothL1Loss"): per element of the broadcast of
// predict and label, in float32, |predict - label|. The declaration's [reduce] says how they are
// stored or added (golden_reduce.h): ops-nn's arch35 kernel (atvoss's ReduceSch) on 950 and at the
// kernel level, ours elsewhere (CANN's TBE kernel's order is not public).
#include <cmath>

#include "golden/golden_op.h"

namespace golden {
namespace lp_loss {
void Values(const Call& call, int64_t begin, int64_t end, float* values) {
  const View& predict = call.inputs[0];
  const View& label = call.inputs[1];
  BroadcastWalk walk(call.out_shape, {&predict.shape, &label.shape}, begin);
  for (int64_t i = begin; i < end; ++i, walk.Next()) {
    values[i - begin] = std::fabs(predict.Value(walk.index(0)) - label.Value(walk.index(1)));
  }
}

}  // namespace lp_loss
}  // namespace golden
