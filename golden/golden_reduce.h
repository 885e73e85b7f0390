// The golden of a reducing operator's mean or sum (src/kernel/reduce_op.h's contract, restated): the
// operator's values -- its golden's float32 value per element of the inputs' broadcast, in
// row-major order -- added in the order of the kernel the call reaches, then a mean formed, the
// result rounded to the compute dtype and stored as out's dtype. No values: a mean is NaN, a sum 0.
//
// The orders:
// - kReduceSch: atvoss's ReduceSch on Ascend950 (reduce_sch_golden.h, restated from opbase's
//   reduce template and asc-devkit's ReduceSum); a mean multiplies the float32 sum by (float)(1.0 / N).
// - kFloat64: the engine's own where the kernel's order is not public: the N values as rows of 16
//   columns, chunks of 1024 rows, per chunk and column a float64 sum from +0 in row order, each
//   column's chunk sums combined pairwise (halves split at count / 2), the 16 column totals
//   combined the same way; a mean divides that by N in float64; then rounded to float32 once.
#ifndef ACLNN_CPU_GOLDEN_GOLDEN_REDUCE_H_
#define ACLNN_CPU_GOLDEN_GOLDEN_REDUCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "golden/golden_op.h"
#include "golden/reduce_sch_golden.h"

namespace golden {

// What an operator's golden says of a call: whether it reduces every element, and how.
// What the reduce tiling reads of a kernel's Dag beyond its two inputs and one output: the values
// alive at once before the reduce and after it (reduce_sch_golden.h's ReduceSchDag).
struct SchDag {
  int inputs = 2;
  int pre_temp = 1;
  int post_temp = 0;
};

struct ReduceSpec {
  enum Order { kFloat64, kReduceSch };
  bool reduce = false;
  bool mean = false;
  Order order = kFloat64;
  SchDag dag;  // kReduceSch: the kernel's Dag, for its split
};

// The mean or sum of values as atvoss's ReduceSch computes it for a loss Dag of `dag`'s buffers and
// inputs of input_bytes (4, or 2 for float16 and bfloat16) on npu -- on an SoC other than 950 (a
// kernel row), as Ascend950PR_9599 (72 vector cores). values must not be empty.
float ReduceSchResult(const std::vector<float>& values, const SchDag& dag, int input_bytes, const Npu& npu, bool mean);

// values(call, ...) of elements [begin, end) rounded to ComputeDtype(call), then to call.out_dtype:
// a reducing operator's "none".
void StoreValues(const Call& call, void (*values)(const Call&, int64_t, int64_t, float*), int64_t begin, int64_t end,
                 uint32_t* bits);

// The golden of a reducing call: values(call, begin, end, out) gives the float32 values of elements
// [begin, end) of call.out_shape (the broadcast shape); the result is 0-d.
std::unique_ptr<GoldenOutput> MakeReduceGolden(Call call, const ReduceSpec& spec,
                                               void (*values)(const Call&, int64_t, int64_t, float*));

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_GOLDEN_REDUCE_H_
