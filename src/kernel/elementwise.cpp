#include "elementwise.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "transpose.h"

namespace aclcpu {
namespace kernel {

namespace {

void SwapDims(ElementwisePlan* plan, int a, int b) {
  std::swap(plan->shape[a], plan->shape[b]);
  for (int i = 0; i < plan->num_operands; ++i) std::swap(plan->byte_strides[i][a], plan->byte_strides[i][b]);
}

// Orders the first `rank` dims by operand i's byte strides, largest outermost (stable: a row-major
// operand keeps the shape's order). False, leaving the order as it is, for an operand that steps
// backward or repeats along a dim (a broadcast input; outputs that do are planned only by tests).
bool OrderDimsBy(ElementwisePlan* plan, int rank, int operand) {
  const int64_t* strides = plan->byte_strides[operand];
  for (int d = 0; d < rank; ++d) {
    if (strides[d] <= 0) return false;
  }
  for (int d = 1; d < rank; ++d) {
    for (int k = d; k > 0 && strides[k - 1] < strides[k]; --k) SwapDims(plan, k - 1, k);
  }
  return true;
}

// Operands whose inner dim (of the first `rank`) steps across their memory: neither repeated nor
// contiguous. Each costs a blocked plan a staged copy of every block.
int CountAcross(const ElementwisePlan& plan, int rank) {
  int count = 0;
  for (int i = 0; i < plan.num_operands; ++i) {
    const int64_t stride = plan.byte_strides[i][rank - 1];
    count += stride != 0 && stride != plan.element_size[i] ? 1 : 0;
  }
  return count;
}

// Orders the dims by the output's memory, as ATen's TensorIterator does, so that runs walk the
// output forward. When that leaves operands stepping across their memory and an input's order
// leaves fewer (a transposed output beside three contiguous inputs: one operand to stage per
// block instead of three), the first such input's order.
void OrderDimsByMemory(ElementwisePlan* plan, int rank) {
  if (rank < 2) return;
  const int out = plan->num_operands - 1;
  OrderDimsBy(plan, rank, out);
  int fewest = CountAcross(*plan, rank);
  for (int i = 0; i < out && fewest > 0; ++i) {
    ElementwisePlan candidate = *plan;
    if (!OrderDimsBy(&candidate, rank, i)) continue;
    const int across = CountAcross(candidate, rank);
    if (across < fewest) {
      *plan = candidate;
      fewest = across;
    }
  }
}

// Whether the operand has the output's shape and row-major contiguous strides: then every operand
// steps one element at a time through the whole output.
bool ContiguousLikeOutput(Dims out_shape, const OperandDims& operand) {
  return SameDims(operand.shape, out_shape) &&
         IsRowMajorContiguous(out_shape.data(), operand.strides.data(), out_shape.size());
}

}  // namespace

bool PlanElementwise(const Shape& out_shape, const std::vector<OperandLayout>& operands, ElementwisePlan* plan,
                     std::string* why, DimOrder order) {
  return PlanElementwise(out_shape, operands.data(), static_cast<int>(operands.size()), plan, why, order);
}

bool PlanElementwise(const Shape& out_shape, const OperandLayout* operands, int count, ElementwisePlan* plan,
                     std::string* why, DimOrder order) {
  OperandDims dims[kMaxOperands];
  for (int i = 0; i < std::min(count, kMaxOperands); ++i) dims[i] = operands[i];
  return PlanElementwise(out_shape, dims, count, plan, why, order);  // refuses a count over kMaxOperands first
}

bool PlanElementwise(Dims out_shape, const OperandDims* operands, int count, ElementwisePlan* plan, std::string* why,
                     DimOrder order) {
  auto fail = [why](const std::string& what) {
    if (why != nullptr) *why = what;
    return false;
  };
  const int out_rank = static_cast<int>(out_shape.size());
  if (out_rank > kMaxRank) {
    return fail("the output has " + std::to_string(out_rank) + " dims, more than " + std::to_string(kMaxRank));
  }
  if (count == 0 || count > kMaxOperands) {
    return fail(std::to_string(count) + " operands; the engine takes 1 to " + std::to_string(kMaxOperands));
  }
  for (int i = 0; i < count; ++i) {
    if (static_cast<int>(operands[i].shape.size()) > out_rank) {
      return fail("operand " + std::to_string(i) + " " + ShapeToString(operands[i].shape) + " has more dims than " +
                  ShapeToString(out_shape));
    }
  }
  // Filled in place (unspecified on failure): every scalar set, the arrays only for the operands
  // and dims the plan has -- entries past them mean nothing and keep what they held.
  ElementwisePlan& result = *plan;
  result.rank = 1;
  result.tile_elems = 1;
  result.num_tiles = 0;
  result.block_dim = -1;
  result.block_rows = 0;
  result.block_cols = 0;
  result.staged_mask = 0;
  result.num_operands = count;
  result.numel = Numel(out_shape);
  for (int i = 0; i < count; ++i) result.element_size[i] = operands[i].element_size;
  if (result.numel == 0) {  // nothing to walk; the other dims of an empty shape may be past int64's bytes
    result.shape[0] = 0;
    for (int i = 0; i < count; ++i) result.byte_strides[i][0] = 0;
    return true;
  }

  // The common call, every operand contiguous and of the output's shape: one run, as the rules
  // below would coalesce it, without their passes over dims and operands.
  bool one_run = result.numel > 1;
  for (int i = 0; i < count && one_run; ++i) one_run = ContiguousLikeOutput(out_shape, operands[i]);
  if (one_run) {
    result.rank = 1;
    result.shape[0] = result.numel;
    for (int i = 0; i < count; ++i) result.byte_strides[i][0] = operands[i].element_size;
    SetTiles(&result, result.numel);
    return true;
  }

  // Align every operand to the output's dims; broadcast dims get stride 0; drop size-1 dims.
  int rank = 0;
  for (int d = 0; d < out_rank; ++d) {
    if (out_shape[d] == 1) continue;
    result.shape[rank] = out_shape[d];
    for (int i = 0; i < count; ++i) {
      const OperandDims& operand = operands[i];
      const int j = d - (out_rank - static_cast<int>(operand.shape.size()));
      int64_t stride = 0;
      if (j >= 0) {
        if (operand.shape[j] == out_shape[d]) {
          stride = operand.strides[j] * operand.element_size;
        } else if (operand.shape[j] != 1) {
          return fail("operand " + std::to_string(i) + " " + ShapeToString(operand.shape) + " does not broadcast to " +
                      ShapeToString(out_shape));
        }
      }
      result.byte_strides[i][rank] = stride;
    }
    ++rank;
  }
  if (order == DimOrder::kMemory) OrderDimsByMemory(&result, rank);

  // Coalesce: outer dim a merges into inner dim b when every operand steps over b exactly once.
  int merged_rank = 0;
  for (int d = 0; d < rank; ++d) {
    if (merged_rank > 0) {
      const int a = merged_rank - 1;
      bool mergeable = true;
      for (int i = 0; i < count && mergeable; ++i) {
        mergeable = result.byte_strides[i][a] == result.byte_strides[i][d] * result.shape[d];
      }
      if (mergeable) {
        result.shape[a] *= result.shape[d];
        for (int i = 0; i < count; ++i) result.byte_strides[i][a] = result.byte_strides[i][d];
        continue;
      }
    }
    result.shape[merged_rank] = result.shape[d];
    for (int i = 0; i < count; ++i) result.byte_strides[i][merged_rank] = result.byte_strides[i][d];
    ++merged_rank;
  }
  if (merged_rank == 0) {  // a single element
    result.shape[0] = 1;
    for (int i = 0; i < count; ++i) result.byte_strides[i][0] = 0;
    merged_rank = 1;
  }
  result.rank = merged_rank;
  SetTiles(&result, result.numel);
  return true;
}

namespace {

// Block shape, measured (bench/, 4096 x 4096 FLOAT with a transposed input, AVX-512 host): 16 rows
// x 512 columns (32 KiB of a staged FLOAT input) ran at 20 ms; 64 x 128 at 24 ms; blocks of 64 KiB
// (16 x 1024, 32 x 512) at 60-75 ms.
constexpr int64_t kBlockRows = 16;
constexpr int64_t kBlockCols = 512;

// a / b rounded up, for a >= 0, b > 0, without the overflow of (a + b - 1) / b near INT64_MAX.
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// Tiles of a blocked plan: every combination of the other dims, a row block and a column block.
int64_t BlockedTileCount(const ElementwisePlan& plan) {
  int64_t count = CeilDiv(plan.shape[plan.block_dim], plan.block_rows) * CeilDiv(plan.inner_size(), plan.block_cols);
  for (int d = 0; d < plan.rank - 1; ++d) {
    if (d != plan.block_dim) count *= plan.shape[d];
  }
  return count;
}

// Copies a rows x cols block of T into buffer (row-major), reading each column along row_step,
// the source's contiguous direction when it is the element size.
template <typename T>
void StageBlock(const char* source, int64_t row_step, int64_t column_step, int64_t rows, int64_t cols, char* buffer) {
  constexpr int64_t kSize = sizeof(T);
  if (row_step == kSize) {  // the source's columns are contiguous: a transpose, in SIMD tiles
    TransposeMatrix(kSize, source, column_step, cols, rows, buffer, cols * kSize);
    return;
  }
  // Columns lie far apart (a stride the hardware prefetchers do not follow): ask for the lines of
  // a column a few columns ahead while this one is copied.
  constexpr int64_t kAhead = 8;
  const int64_t column_bytes = (rows - 1) * row_step + kSize;
  for (int64_t c = 0; c < cols; ++c) {
    if (c + kAhead < cols) {
      const char* ahead = source + (c + kAhead) * column_step;
      for (int64_t offset = 0; offset < column_bytes; offset += 64) __builtin_prefetch(ahead + offset);
    }
    const char* column = source + c * column_step;
    for (int64_t r = 0; r < rows; ++r) std::memcpy(buffer + (r * cols + c) * kSize, column + r * row_step, kSize);
  }
}

// Copies a rows x cols block of T out of buffer (row-major) to its place, writing each column
// along row_step, the destination's contiguous direction: element by element, each column's cache
// lines written whole before the next. (TransposeMatrix's tiles here were measured slower for
// FLOAT -- 16K 8.6 -> 12.3 us, 1M 0.6 -> 2.0 ms: the destination's columns lie a power of two
// apart and its lines were written a sliver at a time.)
template <typename T>
void UnstageBlock(const char* buffer, int64_t rows, int64_t cols, int64_t row_step, int64_t column_step,
                  char* destination) {
  constexpr int64_t kSize = sizeof(T);
  for (int64_t c = 0; c < cols; ++c) {
    char* column = destination + c * column_step;
    for (int64_t r = 0; r < rows; ++r) std::memcpy(column + r * row_step, buffer + (r * cols + c) * kSize, kSize);
  }
}

}  // namespace

uint32_t LayoutOfRun(const int64_t* byte_strides, const int64_t* element_sizes, int num_inputs) {
  if (byte_strides[num_inputs] != element_sizes[num_inputs]) return kStridedLayout;
  uint32_t layout = 0;
  for (int i = 0; i < num_inputs; ++i) {
    if (byte_strides[i] == 0) {
      layout |= 1u << i;
    } else if (byte_strides[i] != element_sizes[i]) {
      return kStridedLayout;
    }
  }
  return layout;
}

uint32_t PlanLayout(const ElementwisePlan& plan, int num_inputs) {
  int64_t strides[kMaxOperands];
  int64_t sizes[kMaxOperands];
  const int out = plan.num_operands - 1;
  for (int i = 0; i < num_inputs; ++i) {
    const bool staged = plan.block_dim >= 0 && ((plan.staged_mask >> i) & 1u) != 0;
    strides[i] = staged ? plan.element_size[i] : plan.inner_byte_stride(i);
    sizes[i] = plan.element_size[i];
  }
  const bool out_staged = plan.block_dim >= 0 && ((plan.staged_mask >> out) & 1u) != 0;
  strides[num_inputs] = out_staged ? plan.element_size[out] : plan.inner_byte_stride(out);
  sizes[num_inputs] = plan.element_size[out];
  return LayoutOfRun(strides, sizes, num_inputs);
}

void SetTiles(ElementwisePlan* plan, int64_t tile_elems) {
  plan->tile_elems = std::max<int64_t>(tile_elems, 1);
  if (plan->block_dim >= 0) {
    plan->num_tiles = plan->numel == 0 ? 0 : BlockedTileCount(*plan);
    return;
  }
  plan->num_tiles = CeilDiv(plan->numel, plan->tile_elems);
}

bool UseBlockedTiles(ElementwisePlan* plan) {
  if (plan->rank < 2) return false;
  const int inner = plan->rank - 1;
  int block_dim = -1;
  uint32_t staged = 0;
  for (int i = 0; i < plan->num_operands; ++i) {
    const int64_t stride = plan->byte_strides[i][inner];
    if (stride == 0 || stride == plan->element_size[i]) continue;
    // A block stages elements of 2 or 4 bytes (StageBlock, UnstageBlock): others (an integer
    // input's cast: 1 or 8) walk their strides.
    if (plan->element_size[i] != 2 && plan->element_size[i] != 4) return false;
    staged |= 1u << i;
    for (int d = 0; d < inner && block_dim < 0; ++d) {
      if (plan->byte_strides[i][d] == plan->element_size[i]) block_dim = d;
    }
  }
  if (block_dim < 0) return false;
  plan->block_dim = block_dim;
  plan->block_rows = kBlockRows;
  plan->block_cols = kBlockCols;
  plan->staged_mask = staged;
  SetTiles(plan, plan->tile_elems);
  return true;
}

void RunRange(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context, int64_t begin,
              int64_t end, int sequential, char* buffer) {
  int64_t index = begin;
  end = std::min(plan.numel, end);
  if (index >= end) return;
  const int rank = plan.rank;
  const int count = plan.num_operands;
  if (rank == 1) {  // one dim: the range is one run (a small call's whole plan)
    char* ptrs[kMaxOperands];
    int64_t strides[kMaxOperands];
    for (int i = 0; i < count; ++i) {
      const bool in_buffer = i == sequential;
      strides[i] = in_buffer ? plan.element_size[i] : plan.byte_strides[i][0];
      ptrs[i] = in_buffer ? buffer : bases[i] + index * strides[i];
    }
    loop(context, end - index, ptrs, strides);
    return;
  }
  int64_t coord[kMaxRank];
  int64_t rest = index;
  for (int d = rank - 1; d >= 0; --d) {
    coord[d] = rest % plan.shape[d];
    rest /= plan.shape[d];
  }
  // Each operand's byte offset from its base (the sequential one's from buffer), found once and
  // then stepped as the coordinates advance.
  char* operand_bases[kMaxOperands];
  int64_t offsets[kMaxOperands];
  int64_t inner_strides[kMaxOperands];
  for (int i = 0; i < count; ++i) {
    operand_bases[i] = i == sequential ? buffer : bases[i];
    offsets[i] = 0;
    inner_strides[i] = plan.byte_strides[i][rank - 1];
    if (i == sequential) continue;
    for (int d = 0; d < rank; ++d) offsets[i] += coord[d] * plan.byte_strides[i][d];
  }
  if (sequential >= 0) inner_strides[sequential] = plan.element_size[sequential];
  const int64_t inner_size = plan.shape[rank - 1];
  // Whole rows of the inner dim run back to back along the next dim out (`outer`): a short row (a
  // broadcast row of 128 elements is one) then costs a call and a step per operand.
  const int outer = rank - 2;
  int64_t row_steps[kMaxOperands] = {};
  for (int i = 0; i < count && outer >= 0; ++i) {
    row_steps[i] = i == sequential ? inner_size * plan.element_size[i] : plan.byte_strides[i][outer];
  }
  // Dims from d inward that reached their size go back to 0 while the next outer one steps (the
  // sequential operand only ever steps forward).
  auto carry = [&](int d) {
    for (; d > 0 && coord[d] == plan.shape[d]; --d) {
      coord[d] = 0;
      ++coord[d - 1];
      for (int i = 0; i < count; ++i) {
        if (i != sequential) offsets[i] += plan.byte_strides[i][d - 1] - plan.shape[d] * plan.byte_strides[i][d];
      }
    }
  };
  char* ptrs[kMaxOperands];
  for (;;) {
    for (int i = 0; i < count; ++i) ptrs[i] = operand_bases[i] + offsets[i];
    const int64_t rows =
        outer >= 0 && coord[rank - 1] == 0 ? std::min((end - index) / inner_size, plan.shape[outer] - coord[outer]) : 0;
    if (rows > 1) {
      for (int64_t row = 0;;) {
        loop(context, inner_size, ptrs, inner_strides);
        if (++row == rows) break;
        for (int i = 0; i < count; ++i) ptrs[i] += row_steps[i];
      }
      index += rows * inner_size;
      if (index >= end) return;
      for (int i = 0; i < count; ++i) offsets[i] += rows * row_steps[i];
      coord[outer] += rows;
      carry(outer);
      continue;
    }
    const int64_t n = std::min(end - index, inner_size - coord[rank - 1]);
    loop(context, n, ptrs, inner_strides);
    index += n;
    if (index >= end) return;
    for (int i = 0; i < count; ++i) offsets[i] += n * inner_strides[i];
    coord[rank - 1] += n;
    carry(rank - 1);
  }
}

void RunTiles(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context, int64_t first_tile,
              int64_t end_tile) {
  RunRange(plan, bases, loop, context, first_tile * plan.tile_elems, end_tile * plan.tile_elems);
}

void RunBlockedTiles(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context,
                     int64_t first_tile, int64_t end_tile) {
  const int rank = plan.rank;
  const int inner = rank - 1;
  const int count = plan.num_operands;
  const int out = count - 1;
  const int64_t row_blocks = CeilDiv(plan.shape[plan.block_dim], plan.block_rows);
  const int64_t col_blocks = CeilDiv(plan.inner_size(), plan.block_cols);
  // One contiguous block per staged operand; blocks of 4-byte elements at most.
  thread_local std::vector<char> stage;
  stage.resize(static_cast<size_t>(kMaxOperands * kBlockRows * kBlockCols * 4));
  int64_t strides[kMaxOperands];
  for (int i = 0; i < count; ++i) {
    const bool staged = (plan.staged_mask >> i) & 1u;
    strides[i] = staged ? plan.element_size[i] : plan.byte_strides[i][inner];
  }
  for (int64_t tile = first_tile; tile < end_tile; ++tile) {
    const int64_t col_block = tile % col_blocks;
    const int64_t row_block = (tile / col_blocks) % row_blocks;
    int64_t rest = tile / col_blocks / row_blocks;  // index over the other dims
    char* block_base[kMaxOperands];
    for (int i = 0; i < count; ++i) block_base[i] = bases[i];
    for (int d = inner - 1; d >= 0; --d) {
      if (d == plan.block_dim) continue;
      const int64_t coord = rest % plan.shape[d];
      rest /= plan.shape[d];
      for (int i = 0; i < count; ++i) block_base[i] += coord * plan.byte_strides[i][d];
    }
    const int64_t row0 = row_block * plan.block_rows;
    const int64_t rows = std::min(plan.block_rows, plan.shape[plan.block_dim] - row0);
    const int64_t col0 = col_block * plan.block_cols;
    const int64_t cols = std::min(plan.block_cols, plan.inner_size() - col0);
    for (int i = 0; i < count; ++i) {
      block_base[i] += row0 * plan.byte_strides[i][plan.block_dim] + col0 * plan.byte_strides[i][inner];
    }
    // Stage: read each staged input along block_dim (its contiguous direction), column by column;
    // a staged output is computed into its buffer.
    char* out_place = nullptr;
    for (int i = 0; i < count; ++i) {
      if (!((plan.staged_mask >> i) & 1u)) continue;
      char* buffer = stage.data() + i * kBlockRows * kBlockCols * 4;
      const int64_t row_step = plan.byte_strides[i][plan.block_dim];
      const int64_t column_step = plan.byte_strides[i][inner];
      if (i == out) {
        out_place = block_base[i];
      } else if (plan.element_size[i] == 4) {
        StageBlock<uint32_t>(block_base[i], row_step, column_step, rows, cols, buffer);
      } else {
        StageBlock<uint16_t>(block_base[i], row_step, column_step, rows, cols, buffer);
      }
      block_base[i] = buffer;
    }
    char* ptrs[kMaxOperands];
    for (int64_t r = 0; r < rows; ++r) {
      for (int i = 0; i < count; ++i) {
        const bool staged = (plan.staged_mask >> i) & 1u;
        ptrs[i] = block_base[i] + r * (staged ? cols * plan.element_size[i] : plan.byte_strides[i][plan.block_dim]);
      }
      loop(context, cols, ptrs, strides);
    }
    if (out_place != nullptr) {  // write the output's block along block_dim, column by column
      const int64_t row_step = plan.byte_strides[out][plan.block_dim];
      const int64_t column_step = plan.byte_strides[out][inner];
      if (plan.element_size[out] == 4) {
        UnstageBlock<uint32_t>(block_base[out], rows, cols, row_step, column_step, out_place);
      } else {
        UnstageBlock<uint16_t>(block_base[out], rows, cols, row_step, column_step, out_place);
      }
    }
  }
}

void RunElementwise(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context,
                    ParallelRunner& runner, int parts) {
  if (plan.num_tiles == 0) return;
  const auto run = plan.block_dim >= 0 ? &RunBlockedTiles : &RunTiles;
  parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(parts, plan.num_tiles)));
  if (parts == 1) {
    run(plan, bases, loop, context, 0, plan.num_tiles);
    return;
  }
  auto run_part = [&](int part, int total) {
    const int64_t first = plan.num_tiles * part / total;
    const int64_t end = plan.num_tiles * (part + 1) / total;
    run(plan, bases, loop, context, first, end);
  };
  RunParts(runner, parts, run_part);
}

}  // namespace kernel
}  // namespace aclcpu
