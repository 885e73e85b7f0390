// The generic broadcast scheduler: plans an N-d elementwise loop over strided operands (dims
// aligned, broadcast as zero strides, size-1 dims dropped, dims ordered by the output's strides,
// contiguous dims coalesced), splits it into tiles of consecutive output elements, and runs an
// inner loop over each 1-d run of a tile.
#ifndef ACLNN_CPU_KERNEL_ELEMENTWISE_H_
#define ACLNN_CPU_KERNEL_ELEMENTWISE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "parallel.h"
#include "shape.h"

namespace aclcpu {
namespace kernel {

constexpr int kMaxOperands = 5;  // inputs and the output: the most an operator here has (BinaryCrossEntropyGrad)
constexpr int kMaxInputs = kMaxOperands - 1;

// One operand as seen by the engine: a view with element strides, right-aligned to the output.
struct OperandLayout {
  int64_t element_size = 4;
  Shape shape;
  Shape strides;  // in elements, same length as shape
};

// The same, its dims read where they are held (a call's planning copies none; they must outlive it).
struct OperandDims {
  OperandDims() = default;
  OperandDims(int64_t element_size, Dims shape, Dims strides)
      : element_size(element_size), shape(shape), strides(strides) {}
  OperandDims(const OperandLayout& layout)  // NOLINT: implicit, as a Shape converts to Dims
      : element_size(layout.element_size), shape(layout.shape), strides(layout.strides) {}
  int64_t element_size = 4;
  Dims shape;
  Dims strides;
};

struct ElementwisePlan {
  int rank = 1;  // after coalescing; at least 1
  int num_operands = 0;
  int64_t shape[kMaxRank] = {};  // outermost first
  int64_t byte_strides[kMaxOperands][kMaxRank] = {};
  int64_t element_size[kMaxOperands] = {};
  int64_t numel = 0;
  int64_t tile_elems = 1;  // consecutive output elements per tile
  int64_t num_tiles = 0;

  // Blocked traversal, for operands stepping across their layout (e.g. transposed): tiles are
  // blocks of block_rows along dim block_dim by block_cols along the inner dim; the inputs in
  // staged_mask are first copied, reading along block_dim, into a contiguous buffer, and an output
  // in it is computed into one and then copied out, writing along block_dim. -1: linear tiles.
  int block_dim = -1;
  int64_t block_rows = 0;
  int64_t block_cols = 0;
  uint32_t staged_mask = 0;

  int64_t inner_size() const { return shape[rank - 1]; }
  int64_t inner_byte_stride(int operand) const { return byte_strides[operand][rank - 1]; }
};

// The order a plan walks its dims in.
enum class DimOrder {
  kMemory,    // by the last operand's (the output's) strides, largest outermost, as ATen's
              // TensorIterator orders them, unless an input's order leaves fewer operands
              // stepping across their memory in the inner dim (elementwise.cpp)
  kRowMajor,  // as the shape is written: a plan run with a sequential operand (RunRange)
};

// Plans a loop over out_shape (rank <= kMaxRank) for operands that broadcast to it; the last
// operand is the output. False, with *why (when not null) saying which rule failed: a rank over
// kMaxRank, no operands or more than kMaxOperands, an operand of more dims than out, an operand
// dim that does not broadcast (*plan is then unspecified).
bool PlanElementwise(Dims out_shape, const OperandDims* operands, int count, ElementwisePlan* plan,
                     std::string* why = nullptr, DimOrder order = DimOrder::kMemory);
bool PlanElementwise(const Shape& out_shape, const OperandLayout* operands, int count, ElementwisePlan* plan,
                     std::string* why = nullptr, DimOrder order = DimOrder::kMemory);
bool PlanElementwise(const Shape& out_shape, const std::vector<OperandLayout>& operands, ElementwisePlan* plan,
                     std::string* why = nullptr, DimOrder order = DimOrder::kMemory);

// Splits the plan into tiles of at most tile_elems elements (at least 1).
void SetTiles(ElementwisePlan* plan, int64_t tile_elems);

// Switches the plan to blocked tiles when an operand steps across its memory along the inner dim
// but runs contiguously along another: reading or writing it row by row would touch a new cache
// line per element (only for operands of 2- or 4-byte elements). Returns whether it did.
bool UseBlockedTiles(ElementwisePlan* plan);

// How every run of a plan steps through its operands, chosen once per call so that the inner
// loop has no branch on layout: below kStridedLayout, the output is contiguous and bit i says
// input i is one value repeated along the run (stride 0), contiguous when clear; kStridedLayout:
// any strides (gathered and scattered).
constexpr uint32_t kStridedLayout = 1u << kMaxInputs;
// A tiling key's layout values for kernels of up to `inputs` inputs: every straight layout, then
// kStridedLayout.
inline std::vector<uint32_t> LayoutValues(int inputs) {
  std::vector<uint32_t> values;
  for (uint32_t layout = 0; layout < (1u << inputs); ++layout) values.push_back(layout);
  values.push_back(kStridedLayout);
  return values;
}

// The layout of runs with these byte strides: inputs [0, num_inputs), then the output.
uint32_t LayoutOfRun(const int64_t* byte_strides, const int64_t* element_sizes, int num_inputs);
// The layout every run of the plan has (operands [0, num_inputs) the inputs, the last the output;
// a blocked plan's staged operands are read from and written to contiguous copies).
uint32_t PlanLayout(const ElementwisePlan& plan, int num_inputs);

// What an elementwise kernel's inner loop reads besides its operands: the Dag's two scalar
// arguments (as ops-nn's Dags read Placeholder::Var<float, 0> and <float, 1>; unused ones 0).
constexpr int kMaxScalars = 4;  // the most scalars a Dag reads
struct ElementwiseContext {
  float scalars[kMaxScalars] = {};
};

// The inner loop: n elements; ptrs[i] is operand i's first element, byte_strides[i] its step
// (of the layout the loop was chosen for).
using InnerLoop = void (*)(const void* context, int64_t n, char* const* ptrs, const int64_t* byte_strides);

// Runs output elements [begin, end) (row-major over the plan's shape) on the calling thread.
// bases[i] is operand i's element 0. When sequential >= 0, that operand is not addressed through
// its strides: it is `buffer`, element `begin` first, then one element after another (plan it
// in DimOrder::kRowMajor with the contiguous strides of the shape, so that the plan's order is
// the shape's).
void RunRange(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context, int64_t begin,
              int64_t end, int sequential = -1, char* buffer = nullptr);

// Runs tiles [first_tile, end_tile) on the calling thread.
void RunTiles(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context, int64_t first_tile,
              int64_t end_tile);

// Runs blocked tiles [first_tile, end_tile) of a plan with block_dim >= 0.
void RunBlockedTiles(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context,
                     int64_t first_tile, int64_t end_tile);

// Runs all tiles, split statically into `parts` contiguous ranges run by runner.
void RunElementwise(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context,
                    ParallelRunner& runner, int parts);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_ELEMENTWISE_H_
