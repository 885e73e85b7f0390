// The deterministic reduction: sums of per-element float32 values (computed by an operator's map
// loop over an elementwise plan), accumulated in float64 over a fixed partition that does not
// depend on the thread count, rounded to float32 once, then stored through a cast to the output.
//
// The order, exactly (the golden follows it):
// - The values v_e, e = 0 .. M-1, are the map's elements in row-major order of its shape.
// - They are viewed as rows of C columns: element e is in row e / C, column e % C. Reducing all
//   elements (kAll), C = 16 (the last row may be short); over axis 0 (kAxis0), C = M / R where R
//   is the size of dim 0 (1 for a 0-d shape).
// - Rows are split into chunks of kReduceChunkRows consecutive rows. For each chunk and column,
//   a partial sum in float64 starts at +0 and adds the column's values row after row (each value
//   converted to float64 exactly).
// - A column's total combines its chunks' partials pairwise: P(x[0..n)) = x[0] when n == 1, else
//   P(x[0..h)) + P(x[h..n)) with h = n / 2 (rounded down).
// - kAxis0: result k = total k (divided by `divisor` for a mean). kAll: the 16 column totals are
//   combined pairwise the same way, then divided by `divisor` for a mean.
// - The result is rounded to float32 once, to the compute dtype, then converted to out's dtype.
// Work items are (chunk, block of kReduceColumnBlock columns) pairs, split over the threads in any
// way: each item's arithmetic is the same whichever thread runs it.
#ifndef ACLNN_CPU_KERNEL_REDUCE_H_
#define ACLNN_CPU_KERNEL_REDUCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dtype.h"
#include "elementwise.h"
#include "parallel.h"
#include "schedule.h"

namespace aclcpu {
namespace kernel {

constexpr int64_t kReduceChunkRows = 1024;
constexpr int64_t kReduceColumnBlock = 256;
constexpr int64_t kReduceLanes = 16;  // kAll's columns

enum class ReduceKind { kAll, kAxis0 };

struct ReducePlan {
  ReduceKind kind = ReduceKind::kAll;
  ElementwisePlan map;    // the operator's inputs, then its values (a sequential float32 operand)
  ElementwisePlan store;  // the results (a sequential float32 operand), then out
  int64_t elements = 0;   // M
  int64_t rows = 0;       // R: rows of C columns (kAll: ceil(M / 16))
  int64_t columns = 0;    // C
  int64_t chunks = 0;
  int64_t column_blocks = 0;
  int64_t items = 0;             // chunks * column_blocks
  double divisor = 1.0;          // the mean's N, or 1
  bool direct = false;           // one chunk: results stored as items end (no partials in the workspace)
  uint64_t workspace_bytes = 0;  // the partials, chunks * C float64, when not direct
  int threads = 1;
};

// Plans the reduction of the values of a map over `shape` (the inputs' broadcast shape), whose
// inputs are `inputs`, into out (kAll: one element; kAxis0: shape without dim 0), dividing by
// `divisor` (1 for a sum). out_aliases_inputs: out shares bytes with an input, so it is written
// only after every input was read. False with *why when the plans cannot be made.
bool PlanReduction(ReduceKind kind, const Shape& shape, const OperandDims* inputs, int input_count,
                   const OperandDims& out, double divisor, bool out_aliases_inputs, const Platform& platform,
                   ReducePlan* plan, std::string* why);
inline bool PlanReduction(ReduceKind kind, const Shape& shape, const std::vector<OperandLayout>& inputs,
                          const OperandLayout& out, double divisor, bool out_aliases_inputs, const Platform& platform,
                          ReducePlan* plan, std::string* why) {
  const std::vector<OperandDims> dims(inputs.begin(), inputs.end());
  return PlanReduction(kind, shape, dims.data(), static_cast<int>(dims.size()), out, divisor, out_aliases_inputs,
                       platform, plan, why);
}

// Plans a reduction's map over `shape`: the inputs, then the values in row-major order, a
// sequential float32 operand (written one after another, never through strides: planned in
// elements so that no shape's byte strides overflow, then given size 4). Both reduction orders
// (this file's and npu_reduce.h's) fill their values with it.
bool PlanValueMap(const Shape& shape, const OperandDims* inputs, int input_count, ElementwisePlan* map,
                  std::string* why);

// The layout (elementwise.h) of every run of a map PlanValueMap made: its inputs' inner strides,
// the values written in order. Phase one picks the map's loop with it.
uint32_t MapLayout(const ElementwisePlan& map, int input_count);

// Runs the reduction: map_loop (an elementwise loop over the inputs, storing float32 values) fills
// the values; the results go to out through a cast to compute, then out_dtype. input_bases are
// the inputs' first elements; workspace holds plan.workspace_bytes.
void RunReduction(const ReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                  DType compute, DType out_dtype, char* out, char* workspace, ParallelRunner& runner);

// The reduction's arithmetic alone, for tests: adds the values of n consecutive elements of rows
// of `width` columns to acc[0 .. width) (the first value to column 0), each column in row order.
void AccumulateColumns(const float* values, int64_t n, int64_t width, double* acc);

// The store plan's loop: float32 results rounded to compute, then stored as store.
InnerLoop CastLoop(DType compute, DType store);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_REDUCE_H_
