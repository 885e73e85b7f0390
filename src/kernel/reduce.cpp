#include "reduce.h"

#include <algorithm>

#include "tensor_view.h"

namespace aclcpu {
namespace kernel {
namespace {

// a / b rounded up, for a >= 0, b > 0, without the overflow of (a + b - 1) / b near INT64_MAX.
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// P(x[first], x[first + stride], ...), count of them, combined pairwise as reduce.h says.
double Pairwise(const double* x, int64_t count, int64_t stride) {
  if (count == 1) return x[0];
  const int64_t half = count / 2;
  return Pairwise(x, half, stride) + Pairwise(x + half * stride, count - half, stride);
}

// One work item's sums: chunk `chunk`, columns [k0, k0 + width), into acc.
void SumItem(const ReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
             int64_t chunk, int64_t k0, int64_t width, double* acc) {
  char* bases[kMaxOperands];
  for (int i = 0; i + 1 < plan.map.num_operands; ++i) bases[i] = input_bases[i];
  const int values = plan.map.num_operands - 1;  // the sequential operand
  alignas(64) float buffer[kReduceColumnBlock];
  std::fill(acc, acc + width, 0.0);
  const int64_t C = plan.columns;
  const int64_t r0 = chunk * kReduceChunkRows, r1 = std::min(plan.rows, r0 + kReduceChunkRows);
  if (width == C) {  // whole rows: as many as fit the buffer at once
    const int64_t piece = std::max<int64_t>(1, kReduceColumnBlock / C) * C;
    const int64_t end = std::min(plan.elements, r1 * C);
    for (int64_t begin = r0 * C; begin < end; begin += piece) {
      const int64_t n = std::min(piece, end - begin);
      RunRange(plan.map, bases, map_loop, map_context, begin, begin + n, values, reinterpret_cast<char*>(buffer));
      AccumulateColumns(buffer, n, C, acc);
    }
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {  // a block of each row
    const int64_t begin = r * C + k0;
    RunRange(plan.map, bases, map_loop, map_context, begin, begin + width, values, reinterpret_cast<char*>(buffer));
    AccumulateColumns(buffer, width, width, acc);
  }
}

// Stores the results of columns [k0, k0 + width) (kAxis0) or the one result (kAll) from totals.
void StoreResults(const ReducePlan& plan, const double* totals, int64_t k0, int64_t width, InnerLoop cast, char* out) {
  alignas(64) float results[kReduceColumnBlock];
  int64_t first = k0, count = width;
  if (plan.kind == ReduceKind::kAll) {
    results[0] = static_cast<float>(Pairwise(totals, kReduceLanes, 1) / plan.divisor);
    first = 0;
    count = 1;
  } else {
    for (int64_t k = 0; k < width; ++k) results[k] = static_cast<float>(totals[k] / plan.divisor);
  }
  char* bases[2] = {nullptr, out};
  const ElementwiseContext context;
  RunRange(plan.store, bases, cast, &context, first, first + count, 0, reinterpret_cast<char*>(results));
}

}  // namespace

bool PlanValueMap(const Shape& shape, const OperandDims* inputs, int input_count, ElementwisePlan* map,
                  std::string* why) {
  if (input_count + 1 > kMaxOperands) {
    *why = "too many inputs for the map";
    return false;
  }
  OperandDims operands[kMaxOperands];
  for (int i = 0; i < input_count; ++i) operands[i] = inputs[i];
  const Shape value_strides = ContiguousStrides(shape);
  operands[input_count] = OperandDims(1, shape, value_strides);  // the values, in elements
  if (!PlanElementwise(shape, operands, input_count + 1, map, why, DimOrder::kRowMajor)) return false;
  map->element_size[input_count] = 4;
  return true;
}

uint32_t MapLayout(const ElementwisePlan& map, int input_count) {
  int64_t strides[kMaxOperands];
  int64_t sizes[kMaxOperands];
  for (int i = 0; i <= input_count; ++i) {
    sizes[i] = map.element_size[i];
    strides[i] = i == input_count ? sizes[i] : map.inner_byte_stride(i);  // the values: in order
  }
  return LayoutOfRun(strides, sizes, input_count);
}

bool PlanReduction(ReduceKind kind, const Shape& shape, const OperandDims* inputs, int input_count,
                   const OperandDims& out, double divisor, bool out_aliases_inputs, const Platform& platform,
                   ReducePlan* plan, std::string* why) {
  ReducePlan result;
  result.kind = kind;
  result.divisor = divisor;
  result.elements = Numel(shape);
  if (!PlanValueMap(shape, inputs, input_count, &result.map, why)) return false;
  if (kind == ReduceKind::kAll) {
    result.columns = kReduceLanes;
    result.rows = CeilDiv(result.elements, kReduceLanes);
  } else {
    result.rows = shape.empty() ? 1 : shape[0];
    result.columns = result.rows == 0 ? 0 : result.elements / result.rows;
  }
  const Shape out_shape =
      kind == ReduceKind::kAll ? Shape{} : Shape(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
  if (!SameDims(out.shape, out_shape)) {
    *why = "out " + ShapeToString(out.shape) + " is not the reduced shape " + ShapeToString(out_shape);
    return false;
  }
  const Shape result_strides = ContiguousStrides(out_shape);
  const OperandDims store_operands[] = {OperandDims(4, out_shape, result_strides), out};
  if (!PlanElementwise(out_shape, store_operands, 2, &result.store, why, DimOrder::kRowMajor)) return false;
  if (result.elements == 0 || result.columns == 0) {
    *why = "nothing to reduce: the shape " + ShapeToString(shape) + " is empty";
    return false;
  }
  result.chunks = CeilDiv(result.rows, kReduceChunkRows);
  result.column_blocks = result.columns <= kReduceColumnBlock ? 1 : CeilDiv(result.columns, kReduceColumnBlock);
  result.items = result.chunks * result.column_blocks;
  // Results go out as items end only when no other item still reads memory out may share, and
  // one chunk holds every row.
  result.direct = result.chunks == 1 && (result.items == 1 || !out_aliases_inputs);
  result.workspace_bytes = result.direct ? 0 : static_cast<uint64_t>(result.chunks * result.columns) * 8;
  result.threads = result.elements < kParallelGrain ? 1 : std::max(1, platform.threads);
  result.threads = static_cast<int>(std::min<int64_t>(result.threads, result.items));
  *plan = result;
  return true;
}

void RunReduction(const ReducePlan& plan, char* const* input_bases, InnerLoop map_loop, const void* map_context,
                  DType compute, DType out_dtype, char* out, char* workspace, ParallelRunner& runner) {
  const InnerLoop cast = CastLoop(compute, out_dtype);
  double* partials = reinterpret_cast<double*>(workspace);
  const int64_t C = plan.columns;
  auto block_width = [&](int64_t block) {
    return plan.column_blocks == 1 ? C : std::min(kReduceColumnBlock, C - block * kReduceColumnBlock);
  };
  // Pass 1: every item's partial sums, stored, or (direct) finished at once.
  auto items = [&](int64_t first, int64_t end) {
    alignas(64) double acc[kReduceColumnBlock];
    for (int64_t item = first; item < end; ++item) {
      const int64_t chunk = item / plan.column_blocks, block = item % plan.column_blocks;
      const int64_t k0 = block * kReduceColumnBlock, width = block_width(block);
      SumItem(plan, input_bases, map_loop, map_context, chunk, k0, width, acc);
      if (plan.direct) {
        StoreResults(plan, acc, k0, width, cast, out);
      } else {
        std::copy(acc, acc + width, partials + chunk * C + k0);
      }
    }
  };
  const int parts = plan.threads;
  if (parts <= 1) {
    items(0, plan.items);
  } else {
    auto part_items = [&](int part, int total) { items(plan.items * part / total, plan.items * (part + 1) / total); };
    RunParts(runner, parts, part_items);
  }
  if (plan.direct) return;
  // Pass 2: each column's chunks combined pairwise, then stored; every input was read by now.
  auto blocks = [&](int64_t first, int64_t end) {
    alignas(64) double totals[kReduceColumnBlock];
    for (int64_t block = first; block < end; ++block) {
      const int64_t k0 = block * kReduceColumnBlock, width = block_width(block);
      for (int64_t k = 0; k < width; ++k) totals[k] = Pairwise(partials + k0 + k, plan.chunks, C);
      StoreResults(plan, totals, k0, width, cast, out);
    }
  };
  const int store_parts = static_cast<int>(std::min<int64_t>(parts, plan.column_blocks));
  if (store_parts <= 1) {
    blocks(0, plan.column_blocks);
  } else {
    auto part_blocks = [&](int part, int total) {
      blocks(plan.column_blocks * part / total, plan.column_blocks * (part + 1) / total);
    };
    RunParts(runner, store_parts, part_blocks);
  }
}

}  // namespace kernel
}  // namespace aclcpu
